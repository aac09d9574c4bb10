//! The inspector, a panel beside the chart (its width dragged by the bar
//! at its edge): one reconcile's facts, its goroutine when a dump showed
//! it, the previous and next reconcile of its object, and its log lines
//! (wrapped or not, a structured line's fields as a table, each line or
//! all of them copied). Log text is always rendered as text nodes.

use reconscope::analyze::Analysis;
use reconscope::ui::state::{Inspector, Loaded};
use reconscope::ui::{Action, AppState};
use reconscope::words::plural;
use wasm_bindgen::JsCast;
use web_sys::{Element, KeyboardEvent, PointerEvent};
use yew::prelude::*;

use crate::timefmt::{self, Zone};

/// The bar at the panel's left edge: drag it (or focus it and press ←/→)
/// to make the panel wider or narrower.
fn splitter(s: &AppState, d: &Callback<Action>) -> Html {
    let width = s.inspector_prefs.width_px;
    let right_of = |e: &PointerEvent| {
        let panel = e.target().and_then(|t| t.dyn_into::<Element>().ok()).and_then(|el| el.parent_element());
        panel.map(|p| p.get_bounding_client_rect().right())
    };
    let down = Callback::from(|e: PointerEvent| {
        if let Some(el) = e.target().and_then(|t| t.dyn_into::<Element>().ok()) {
            let _ = el.set_pointer_capture(e.pointer_id());
        }
        e.prevent_default();
    });
    let drag = d.reform(move |e: PointerEvent| match right_of(&e) {
        Some(right) if e.buttons() & 1 == 1 => Action::ResizeInspector(right - f64::from(e.client_x())),
        _ => Action::ResizeInspector(width),
    });
    let key = d.reform(move |e: KeyboardEvent| match e.key().as_str() {
        "ArrowLeft" => Action::ResizeInspector(width + 40.0),
        "ArrowRight" => Action::ResizeInspector(width - 40.0),
        _ => Action::ResizeInspector(width),
    });
    html! {
        <div class="splitter" role="separator" aria-orientation="vertical" aria-label="Inspector width: drag, or ←/→"
            aria-valuenow={(width.round() as i64).to_string()} tabindex="0" data-testid="inspector-splitter"
            onpointerdown={down} onpointermove={drag} onkeydown={key}></div>
    }
}

pub fn view(s: &AppState, l: &Loaded, i: &Inspector, d: &Callback<Action>, r: &NodeRef, zone: Zone) -> Html {
    let a = &l.analysis;
    let Some(rec) = a.reconciles.get(i.reconcile as usize) else { return html! {} };
    let controller =
        a.controllers.get(rec.controller).filter(|c| c.is_named()).map_or("unknown controller".to_string(), |c| reconscope::inert::label(&c.name).into_owned());
    let object = rec.object.as_ref().map_or_else(|| "unknown object".to_string(), |o| reconscope::inert::label(&o.to_string()).into_owned());
    // A reconcile seen on one line has no duration to state; others, no
    // finer than their timestamps.
    let meta = if rec.is_one_line() {
        format!("{controller} · {object} · {} · {} · one line", rec.outcome_text(), timefmt::full(rec.start().nanos, zone))
    } else {
        format!(
            "{controller} · {object} · {} · {} → {} ({}) · {}",
            rec.outcome_text(),
            timefmt::full(rec.start().nanos, zone),
            timefmt::clock_auto(rec.last.nanos, zone),
            rec.duration_text(),
            plural(rec.lines, "line", "lines"),
        )
    };
    // Previous and next reconcile of the same object (found when asked:
    // one pass, cheaper than an index built for every load).
    let mut sibs: Vec<u32> = match &rec.object {
        Some(o) => a
            .reconciles
            .iter()
            .enumerate()
            .filter(|(_, x)| x.object.as_ref().is_some_and(|xo| std::sync::Arc::ptr_eq(xo, o) || xo == o))
            .map(|(k, _)| k as u32)
            .collect(),
        None => Vec::new(),
    };
    sibs.sort_by_key(|&k| (a.reconciles[k as usize].start().nanos, k));
    let pos = sibs.iter().position(|&x| x == i.reconcile);
    let nav = |target: Option<u32>, label: &str, testid: &str| match target {
        Some(t) => {
            html! { <button type="button" class="link" data-testid={testid.to_string()} onclick={d.reform(move |_| Action::Inspect(t))}>{ label }</button> }
        }
        None => html! { <button type="button" class="link" data-testid={testid.to_string()} disabled=true>{ label }</button> },
    };
    let prev = pos.and_then(|p| p.checked_sub(1)).and_then(|p| sibs.get(p)).copied();
    let next = pos.and_then(|p| sibs.get(p + 1)).copied();
    let position = pos.map_or(String::new(), |p| format!("{} of {} reconciles of {object}", p + 1, sibs.len()));
    let prefs = s.inspector_prefs;
    let body = match &i.lines {
        None => html! { <p class="muted">{ "Reading its lines…" }</p> },
        Some(lines) => {
            let blocks = lines.blocks.iter().enumerate().map(|(bi, b)| {
                let base = reconscope::inert::label(reconscope::model::file_name(&b.path)).into_owned();
                let mut prev_line: Option<u32> = None;
                let rows = b.lines.iter().enumerate().map(|(li, line)| {
                    let gap = match prev_line {
                        Some(p) if line.number > p + 1 => {
                            let n = line.number - p - 1;
                            html! { <div class="gap">{ format!("⋯ {}", plural(n, "line of other reconciles", "lines of other reconciles")) }</div> }
                        }
                        _ => html! {},
                    };
                    prev_line = Some(line.number);
                    let class = classes!("line", if line.own { "own" } else { "context" });
                    let fields = if prefs.fields { reconscope::ui::fields::line_fields(&line.text) } else { Vec::new() };
                    html! {
                        <>
                            { gap }
                            <div {class}>
                                <span class="loc" title={format!("{}:{}", reconscope::inert::label(&b.path), line.number)}>{ format!("{base}:{}", line.number) }</span>
                                <span class="text">{ reconscope::inert::label(&line.text).into_owned() }</span>
                                <button type="button" class="copy-line" data-testid="copy-line" title="Copy this line"
                                    aria-label={format!("Copy line {}", line.number)} onclick={d.reform(move |_| Action::CopyLine(bi, li))}>{ "⧉" }</button>
                            </div>
                            if !fields.is_empty() {
                                <table class="fields" data-testid="line-fields">
                                    <tbody>
                                        { for fields.into_iter().map(|(k, v)| html! { <tr><th scope="row">{ reconscope::inert::label(&k).into_owned() }</th><td>{ reconscope::inert::label(&v).into_owned() }</td></tr> }) }
                                    </tbody>
                                </table>
                            }
                        </>
                    }
                });
                html! {
                    <div class="block">
                        <h3 class="block-path">{ reconscope::inert::label(&b.path).into_owned() }</h3>
                        <div class="lines">{ for rows }</div>
                    </div>
                }
            });
            html! {
                <>
                    { for blocks }
                    if lines.left_out_lines > 0 {
                        <p class="muted" data-testid="left-out-lines">
                            { format!("{} of its lines, from its middle, were left out of the link this came from.", lines.left_out_lines) }
                        </p>
                    }
                    if lines.omitted_context > 0 {
                        <p class="muted">{ plural(lines.omitted_context, "line without a reconcileID in between was left out.", "lines without a reconcileID in between were left out.") }</p>
                    }
                </>
            }
        }
    };
    let wrap = prefs.wrap;
    let fields = prefs.fields;
    html! {
        <section class={classes!("inspector", (!wrap).then_some("nowrap"))} data-testid="inspector" data-reconcile-id={rec.reconcile_id.clone()}
            ref={r.clone()} aria-label="Inspector">
            { splitter(s, d) }
            <div class="inspector-body">
                <div class="inspector-head">
                    <h2>{ "Reconcile " }<code>{ reconscope::inert::label(&rec.reconcile_id).into_owned() }</code></h2>
                    <button type="button" class="link" data-testid="close-inspector" onclick={d.reform(|_| Action::CloseInspector)}>{ "Close" }</button>
                </div>
                <p class="meta">{ meta }</p>
                if let Some(e) = &rec.error {
                    <p class="error-text">{ reconscope::inert::label(e).into_owned() }</p>
                }
                { stack(a, i.reconcile, zone) }
                <nav class="siblings">
                    { nav(prev, "← previous of this object", "prev-reconcile") }
                    <span class="muted">{ position }</span>
                    { nav(next, "next of this object →", "next-reconcile") }
                </nav>
                <div class="line-tools">
                    <label>
                        <input type="checkbox" data-testid="wrap-lines" checked={wrap} onchange={d.reform(move |_| Action::WrapLines(!wrap))} />
                        { " Wrap lines" }
                    </label>
                    <label>
                        <input type="checkbox" data-testid="show-fields" checked={fields} onchange={d.reform(move |_| Action::ShowFields(!fields))} />
                        { " Fields" }
                    </label>
                    <button type="button" data-testid="copy-lines" onclick={d.reform(|_| Action::CopyLines)}>{ "Copy all lines" }</button>
                </div>
                { body }
            </div>
        </section>
    }
}

/// The goroutine a dump showed running this reconcile, when there is one:
/// where it was blocked (in the summary line), and its stack (folded, so
/// the log lines stay near the top of the panel).
fn stack(a: &Analysis, reconcile: u32, zone: Zone) -> Html {
    let Some(g) = a.goroutines.iter().find(|g| g.reconcile == Some(reconcile as usize)) else { return html! {} };
    let Some(d) = a.dumps.get(g.dump) else { return html! {} };
    let when = d.time.map_or("at an unknown time".to_string(), |t| format!("at {}", timefmt::full(t.nanos, zone)));
    let wait = g.max_wait_minutes.map_or(String::new(), |m| format!(", {}", plural(m, "minute", "minutes")));
    let blocked = g.call.as_ref().map_or(String::new(), |f| format!(", {} in {}", reconscope::goroutine::doing(&g.state), f.func));
    html! {
        <details class="inspector-stack" data-testid="inspector-stack">
            <summary><h3>{ reconscope::inert::label(&format!("Goroutine dump {when}: [{}{wait}]{blocked}", g.state)).into_owned() }</h3></summary>
            { crate::goroutines::frames(g) }
        </details>
    }
}
