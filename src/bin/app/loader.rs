//! The loader: the drop zone (a label for the file picker), "Choose a
//! folder…", "Open example", the inputs' names, the progress of a load and
//! the status line. Compact once something is loaded or loading.

use reconscope::ui::{Action, AppState};
use reconscope::web::Phase;
use web_sys::{DragEvent, Event, HtmlInputElement, InputEvent};
use yew::prelude::*;
use yew::TargetCast;

use crate::input::{self, Input};
use crate::timefmt;

/// What the loader asks of the page beyond actions: inputs chosen (their
/// blobs), the folder picker, the example.
pub struct Loader {
    pub on_chosen: Callback<Vec<Input>>,
    pub on_pick_folder: Callback<()>,
    pub on_example: Callback<()>,
}

impl Loader {
    pub fn view(&self, s: &AppState, d: &Callback<Action>) -> Html {
        let on_change = {
            let chosen = self.on_chosen.clone();
            Callback::from(move |e: Event| {
                let input: HtmlInputElement = e.target_unchecked_into();
                let list = input.files().map(|l| input::from_file_list(&l));
                // Clear it, so that choosing the same files again reloads them.
                input.set_value("");
                if let Some(l) = list {
                    chosen.emit(l);
                }
            })
        };
        let on_drag_over = d.reform(|e: DragEvent| {
            // Without preventDefault the browser would open the file.
            e.prevent_default();
            Action::DragOver
        });
        let on_drag_leave = d.reform(|_: DragEvent| Action::DragLeave);
        let on_drop = {
            let (d, chosen) = (d.clone(), self.on_chosen.clone());
            Callback::from(move |e: DragEvent| {
                e.prevent_default();
                d.emit(Action::DragLeave);
                let Some(dt) = e.data_transfer() else { return };
                // Entries must be taken now, inside the drop event.
                let pending = input::dropped(&dt);
                let (d, chosen) = (d.clone(), chosen.clone());
                wasm_bindgen_futures::spawn_local(async move {
                    match pending.await {
                        Ok(inputs) => chosen.emit(inputs),
                        Err(e) => d.emit(Action::Failed(e)),
                    }
                });
            })
        };
        let on_read_at_most = d.reform(|e: InputEvent| Action::ReadAtMost(e.target_unchecked_into::<HtmlInputElement>().value()));
        let tab_bytes = reconscope::ingest::human_bytes(reconscope::web::TAB_LOG_BYTES);
        let read_title = format!(
            "The most the next load reads, over all its inputs (for example 2GB or 500MiB): a plain log past it is read up to it, and what is left out is noted. \
             Empty: what the tab holds, {tab_bytes}. The CLI's --max-total-bytes."
        );
        let compact = s.loaded.is_some() || s.loading.is_some();
        let drop_class = classes!("drop-zone", s.dragging.then_some("dragging"), compact.then_some("compact"));
        let folder = self.on_pick_folder.reform(|_: MouseEvent| ());
        let example = self.on_example.reform(|_: MouseEvent| ());
        html! {
            <section class={classes!("loader", compact.then_some("compact"))}>
                // The label makes the whole drop zone open the file picker too.
                <label class={drop_class} for="file-input" data-testid="drop-zone"
                    ondragover={on_drag_over} ondragleave={on_drag_leave} ondrop={on_drop}>
                    <span class="drop-hint">
                        { "Drop log files, folders or CI artifacts (.zip, .tar.gz) here, or click to choose files." }
                    </span>
                    <span class="drop-hint-short">{ "Drop more files here, or click to choose" }</span>
                    <input id="file-input" type="file" multiple=true onchange={on_change} />
                </label>
                <div class="loader-actions">
                    <button type="button" data-testid="pick-folder" onclick={folder}>{ "Choose a folder…" }</button>
                    <button type="button" data-testid="open-example" onclick={example}>{ "Open example" }</button>
                    <span class="muted example-blurb">{ "the example is a CI artifact of a kamaji incident: a worker stalled for 20 minutes" }</span>
                    <label class="read-at-most" title={read_title}>
                        { "Read at most " }
                        <input type="text" size="8" data-testid="read-at-most" placeholder={tab_bytes.clone()}
                            value={s.read_at_most.clone()} oninput={on_read_at_most}
                            aria-invalid={s.read_at_most_error.is_some().to_string()} />
                    </label>
                    if let Some(e) = &s.read_at_most_error {
                        <span class="field-error" data-testid="read-at-most-error">{ e.clone() }</span>
                    }
                </div>
                if !s.names.is_empty() {
                    <ul class="file-list" data-testid="file-list">
                        { for s.names.iter().take(12).map(|n| html! { <li>{ reconscope::inert::label(n).into_owned() }</li> }) }
                        if s.names.len() > 12 {
                            <li class="muted">{ format!("and {} more", s.names.len() - 12) }</li>
                        }
                    </ul>
                }
                { progress(s, d) }
                if let Some(st) = &s.status {
                    <p class="status" data-testid="status" role="status">{ st }</p>
                }
            </section>
        }
    }
}

fn progress(s: &AppState, d: &Callback<Action>) -> Html {
    let Some(l) = &s.loading else { return html! {} };
    let p = &l.progress;
    let secs = ((js_sys::Date::now() - l.started_ms) / 1000.0).max(0.001);
    let speed = p.done_bytes as f64 / secs;
    let text = match p.phase {
        Phase::Reading => format!(
            "Reading {} of {} ({} of {} files) · {}/s · {}",
            timefmt::bytes(p.done_bytes as f64),
            timefmt::bytes(p.total_bytes as f64),
            p.files_done,
            p.files,
            timefmt::bytes(speed),
            p.current
        ),
        Phase::Parsing => format!(
            "Parsing {} ({} of {} files, {} read) · {}/s",
            p.current,
            p.files_done + 1,
            p.files,
            timefmt::bytes(p.done_bytes as f64),
            timefmt::bytes(speed)
        ),
        Phase::Analyzing => format!("Analyzing {} read in {:.1} s ({}/s)…", timefmt::bytes(p.done_bytes as f64), secs, timefmt::bytes(speed)),
    };
    let max = p.total_bytes.max(1).to_string();
    let value = match p.phase {
        Phase::Reading | Phase::Parsing => p.done_bytes.to_string(),
        Phase::Analyzing => max.clone(),
    };
    html! {
        <div class="progress" data-testid="progress" role="status">
            <progress max={max} value={value}></progress>
            <span class="progress-text" data-testid="progress-text">{ text }</span>
            <button type="button" data-testid="cancel" onclick={d.reform(|_| Action::Cancel)}>{ "Cancel" }</button>
        </div>
    }
}
