//! The share dialog: what the link carries, what was redacted, and the
//! link or file to take.

use reconscope::ui::state::ShareState;
use reconscope::ui::{Action, AppState};
use web_sys::{Event, HtmlInputElement};
use yew::prelude::*;
use yew::TargetCast;

pub fn view(s: &AppState, st: &ShareState, d: &Callback<Action>, r: &NodeRef) -> Html {
    let on_mask = d.reform(|e: Event| Action::ShareMaskHosts(e.target_unchecked_into::<HtmlInputElement>().checked()));
    let body = match &st.result {
        None => html! { <p class="muted" data-testid="share-making">{ "Making the link…" }</p> },
        Some(Err(e)) => html! { <p class="filter-error" data-testid="share-error" role="alert">{ format!("No link: {e}") }</p> },
        Some(Ok(shared)) => {
            let meta = shared.meta.as_ref().or(shared.file_meta.as_ref());
            let summary = meta.map(|m| {
                format!(
                    "{} carries {} of {} lines and {} of {} reconciles of {}, with the findings, elections and object lifecycles of its window.",
                    if shared.fragment.is_some() { "The link" } else { "The file" },
                    m.lines,
                    m.total_lines,
                    m.reconciles,
                    m.total_reconciles,
                    if m.artifact.is_empty() { "the inputs" } else { &m.artifact },
                )
            });
            let left_out = shared.meta.as_ref().map(|m| m.left_out.describe()).filter(|d| !d.is_empty());
            let redacted = meta.map(|m| m.redacted_words());
            let link_text = s.share_link(shared);
            html! {
                <>
                    <p data-testid="share-summary">{ summary }</p>
                    if let Some(d) = left_out {
                        <p data-testid="share-left-out">
                            { format!("To fit a link (32 KiB, the size an issue comment takes), it leaves out {d}. The evidence file holds them.") }
                        </p>
                    }
                    if shared.fragment.is_none() {
                        <p data-testid="share-too-big">{ "Even without context this slice is too big for a link: share the evidence file." }</p>
                    }
                    <p data-testid="share-redacted">{ redacted.map(|r| format!("Secrets are removed before anything leaves this page: {r}.")) }</p>
                    if !shared.redacted_lines.is_empty() {
                        <details class="share-preview" data-testid="share-preview">
                            <summary>{ format!("Lines with something redacted ({})", shared.redacted_lines.len()) }</summary>
                            <div class="lines">
                                { for shared.redacted_lines.iter().map(|l| html! {
                                    <div class="line own">
                                        <span class="loc">{ format!("{}:{}", reconscope::inert::label(reconscope::model::file_name(&l.path)), l.line) }</span>
                                        <span class="text">{ reconscope::inert::label(&l.text).into_owned() }</span>
                                    </div>
                                }) }
                            </div>
                        </details>
                    }
                    <p class="muted">{ "The evidence sits in the link's #fragment, which a browser never sends to a server: whoever opens the link sees it in their own tab." }</p>
                    <div class="share-buttons">
                        if let Some(t) = link_text {
                            <button type="button" data-testid="share-copy" onclick={d.reform(|_| Action::ShareCopy)}>{ "Copy link" }</button>
                            <span class="muted" data-testid="share-size">{ format!("{} KiB", t.len().div_ceil(1024)) }</span>
                        }
                        <button type="button" data-testid="share-download" onclick={d.reform(|_| Action::ShareDownload)}>{ "Save as .reconscope file" }</button>
                    </div>
                </>
            }
        }
    };
    html! {
        <section class="share-dialog" data-testid="share-dialog" role="dialog" aria-label="Share" ref={r.clone()}>
            <div class="inspector-head">
                <h2>{ format!("Share {}", st.title) }</h2>
                <button type="button" class="link" data-testid="share-close" onclick={d.reform(|_| Action::ShareClose)}>{ "Close" }</button>
            </div>
            <label class="share-mask">
                <input type="checkbox" data-testid="share-mask-hosts" checked={s.mask_hosts} onchange={on_mask} />
                { " Also mask IP addresses and host names" }
            </label>
            { body }
            if let Some(n) = &s.notice {
                <p class="share-notice muted" data-testid="share-dialog-notice" aria-live="polite">{ n }</p>
            }
        </section>
    }
}
