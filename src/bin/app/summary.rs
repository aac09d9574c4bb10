//! The summary line with the actions that take the answer elsewhere (a
//! link, the pictures, the Markdown), and the banner of a page opened
//! from evidence.

use reconscope::evidence::EvidenceMeta;
use reconscope::ui::state::Loaded;
use reconscope::ui::{Action, AppState};
use reconscope::words::plural;
use yew::prelude::*;

use crate::timefmt::{self, Zone};

pub fn summary(s: &AppState, l: &Loaded, d: &Callback<Action>, zone: Zone) -> Html {
    let a = &l.analysis;
    let text = format!(
        "{} ({}) · {} · {} · {} · read and analyzed in {:.1} s",
        plural(l.files.len(), "log file", "log files"),
        timefmt::bytes(l.input_bytes as f64),
        a.reconciles_text(),
        plural(a.controllers.len(), "controller instance", "controller instances"),
        // No etcd log: no election found is not "0 etcd elections".
        a.elections_text(),
        l.millis / 1000.0,
    );
    // The exports' offset: the zone's at the view's start.
    let start = s.view.map_or(s.timeline.start_nanos, |v| v.0);
    let utc_offset_secs = zone.offset_secs(start) as i32;
    html! {
        <div class="summary-row">
            <p class="summary" data-testid="summary">{ text }</p>
            <span class="share-actions">
                <button type="button" data-testid="copy-link" onclick={d.reform(|_| Action::CopyLink)}>{ "Copy link" }</button>
                <button type="button" data-testid="export-svg" onclick={d.reform(move |_| Action::ExportSvg { utc_offset_secs })}>{ "Export SVG" }</button>
                <button type="button" data-testid="export-png" onclick={d.reform(move |_| Action::ExportPng { utc_offset_secs })}>{ "Export PNG" }</button>
                <button type="button" data-testid="copy-markdown" onclick={d.reform(|_| Action::CopyMarkdown)}>{ "Copy Markdown" }</button>
            </span>
        </div>
    }
}

/// What a page opened from a link or a `.reconscope` file shows: a slice
/// of which artifact, how much of it, taken when, and that the artifact
/// itself shows everything.
pub fn evidence_banner(m: &EvidenceMeta, zone: Zone) -> Html {
    // The artifact's name and the maker come from the link: shown as text.
    let what = if m.artifact.is_empty() { "an artifact".to_string() } else { reconscope::inert::label(&m.artifact).into_owned() };
    let when = m.taken_at_nanos.map_or(String::new(), |t| {
        let t = t - t.rem_euclid(1_000_000_000);
        format!(", taken {} {}", timefmt::full(t, zone), zone.name(t))
    });
    let text = format!(
        "Evidence from a link: a slice of {what}: {} of its {} lines and {} of its {} reconciles{when} by {}.",
        m.lines,
        m.total_lines,
        m.reconciles,
        m.total_reconciles,
        reconscope::inert::label(&m.made_by),
    );
    let left_out = m.left_out.describe();
    html! {
        <section class="evidence-banner" data-testid="evidence-banner" role="note">
            <p>{ text }</p>
            if !left_out.is_empty() {
                <p data-testid="evidence-left-out">{ format!("To fit the link it leaves out {left_out}.") }</p>
            }
            <p class="muted">{ format!("{}. Drop {what} itself on this page to see everything.", capitalise(&m.redacted_words())) }</p>
        </section>
    }
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    c.next().map_or(String::new(), |f| f.to_uppercase().chain(c).collect())
}
