//! Every action of the state core, without a browser. The loaded state is
//! the incident fixture through the worker's own `Session`, as the app
//! gets it.

use std::sync::OnceLock;

use super::*;
use crate::analyze::FindingKind;
use crate::web::{Line, LineBlock, Matched};

const BASE: &str = "http://127.0.0.1:8765/reconscope/";

/// The incident's load result (through the worker's `Session`), made once.
fn incident() -> LoadResult {
    static R: OnceLock<LoadResult> = OnceLock::new();
    R.get_or_init(|| {
        let (_, mut r) = crate::web::testutil::incident();
        r.lay_out(LayoutOptions::default());
        r
    })
    .clone()
}

/// A fresh page (its spare worker started).
fn page(hash: &str) -> AppState {
    AppState::new(BASE, hash, 0.0).0
}

/// A page with the incident loaded by worker 0 (the spare it took).
fn loaded(hash: &str) -> AppState {
    let mut s = page(hash);
    s.reduce(Action::Chosen(vec![InputInfo { name: "cozyreport.zip".into(), size: 1000 }]), 10.0);
    s.reduce(Action::Worker(WorkerId(0), FromWorker::Loaded(Box::new(incident()))), 500.0);
    s
}

fn sends(up: &Update) -> Vec<&ToWorker> {
    up.effects.iter().filter_map(|e| if let Effect::Send(_, m) = e { Some(m) } else { None }).collect()
}

fn hash_of(up: &Update) -> Option<&str> {
    up.effects.iter().rev().find_map(|e| if let Effect::WriteHash(h) = e { Some(h.as_str()) } else { None })
}

fn finding(s: &AppState, kind: FindingKind) -> u32 {
    s.analysis().unwrap().findings.iter().position(|f| f.kind == kind).unwrap() as u32
}

fn stalled_reconcile(s: &AppState) -> u32 {
    let a = s.analysis().unwrap();
    a.findings[finding(s, FindingKind::StalledWorker) as usize].reconciles[0] as u32
}

#[test]
fn the_page_opens_with_a_spare_worker_warming_up() {
    let (s, up) = AppState::new(BASE, "", 0.0);
    assert_eq!(up.effects, vec![Effect::Spawn(WorkerId(0)), Effect::Send(WorkerId(0), ToWorker::WarmUp)]);
    assert_eq!(s.workers.spare, Some(WorkerId(0)));
    assert!(s.pending.is_none() && !s.ready);
    // A view in the address waits for a load.
    let s = page("#q=deadline&rows=lanes");
    assert_eq!(s.pending.as_ref().map(|f| f.q.as_str()), Some("deadline"));
    assert!(s.loading.is_none());
}

#[test]
fn a_link_opens_its_evidence_through_a_load() {
    let (s, up) = AppState::new(BASE, "#ev=UlNFVgE&q=x", 0.0);
    assert!(s.from_link && s.loading.is_some());
    assert_eq!(s.evidence_payload.as_deref(), Some("UlNFVgE"));
    assert!(up.effects.contains(&Effect::SendInputs { worker: WorkerId(0), finish: ToWorker::Finish { layout: Some(LayoutOptions::default()) } }));
    assert!(s.names.is_empty());
}

#[test]
fn ready() {
    let mut s = page("");
    assert!(s.reduce(Action::Ready, 1.0).render);
    assert!(s.ready);
}

#[test]
fn spawn_spare_starts_one_and_none_while_loading() {
    let mut s = page("");
    let up = s.reduce(Action::SpawnSpare, 1.0);
    assert!(up.effects.is_empty() && !up.render, "one spare is enough");
    s.reduce(Action::Chosen(vec![InputInfo { name: "a.log".into(), size: 5 }]), 2.0);
    assert_eq!(s.workers.spare, None);
    assert!(s.reduce(Action::SpawnSpare, 3.0).effects.is_empty(), "not during a load");
}

#[test]
fn chosen_inputs_load_in_the_spare_or_a_new_worker() {
    let mut s = page("");
    let up = s.reduce(Action::Chosen(vec![InputInfo { name: "a.log".into(), size: 5 }, InputInfo { name: "b.zip".into(), size: 7 }]), 2.0);
    assert_eq!(s.workers.load, Some(WorkerId(0)));
    assert_eq!(up.effects[0], Effect::Send(WorkerId(0), ToWorker::Begin { files: 2, total_bytes: 12, max_total_bytes: None }));
    assert!(matches!(up.effects[1], Effect::SendInputs { worker: WorkerId(0), .. }));
    assert_eq!(s.names, ["a.log", "b.zip"]);
    let p = &s.loading.as_ref().unwrap().progress;
    assert_eq!((p.total_bytes, p.files, p.current.as_str()), (12, 2, "a.log"));
    // With no spare: the old load's worker stops, a new one starts.
    let up = s.reduce(Action::Chosen(vec![InputInfo { name: "c.log".into(), size: 1 }]), 3.0);
    assert_eq!(&up.effects[..2], &[Effect::Terminate(WorkerId(0)), Effect::Spawn(WorkerId(1))]);
    assert_eq!(s.workers.load, Some(WorkerId(1)));
    // Nothing chosen: nothing loads.
    s.reduce(Action::Chosen(Vec::new()), 4.0);
    assert!(s.loading.is_none() && s.workers.load.is_none());
}

#[test]
fn failed_inputs_say_why() {
    let mut s = page("");
    s.reduce(Action::Failed("the drop gave no files".into()), 1.0);
    assert_eq!(s.status.as_deref(), Some("the drop gave no files"));
}

#[test]
fn drag_over_renders_once() {
    let mut s = page("");
    assert!(s.reduce(Action::DragOver, 1.0).render);
    assert!(!s.reduce(Action::DragOver, 2.0).render);
    assert!(s.reduce(Action::DragLeave, 3.0).render);
    assert!(!s.dragging);
}

#[test]
fn only_the_spare_warms_up_and_only_the_load_worker_answers() {
    let mut s = page("");
    assert!(!s.reduce(Action::Worker(WorkerId(7), FromWorker::WarmedUp), 1.0).render);
    assert!(s.reduce(Action::Worker(WorkerId(0), FromWorker::WarmedUp), 1.0).render);
    assert!(s.workers.spare_warm);
    // A spare's (or a stopped worker's) late answer touches nothing.
    let up = s.reduce(Action::Worker(WorkerId(0), FromWorker::Loaded(Box::new(incident()))), 2.0);
    assert!(!up.render && s.loaded.is_none());
}

#[test]
fn progress_is_drawn_at_most_every_150_ms_within_a_phase() {
    let mut s = page("");
    s.reduce(Action::Chosen(vec![InputInfo { name: "a.log".into(), size: 100 }]), 0.0);
    let p = |done: u64, phase: Phase| {
        Action::Worker(
            WorkerId(0),
            FromWorker::Progress(Progress {
                phase,
                done_bytes: done,
                total_bytes: 100,
                files_done: 0,
                files: 1,
                current: "a.log".into(),
                slices: 1,
                cut_at: None,
            }),
        )
    };
    assert!(s.reduce(p(10, Phase::Reading), 200.0).render);
    assert!(!s.reduce(p(20, Phase::Reading), 300.0).render);
    assert_eq!(s.loading.as_ref().unwrap().progress.done_bytes, 20, "kept, not drawn");
    assert!(s.reduce(p(30, Phase::Reading), 400.0).render);
    assert!(s.reduce(p(30, Phase::Parsing), 410.0).render, "a new phase draws at once");
}

#[test]
fn a_finished_load_is_shown_and_a_spare_started_later() {
    let mut s = page("");
    s.reduce(Action::Chosen(vec![InputInfo { name: "cozyreport.zip".into(), size: 1000 }]), 10.0);
    let up = s.reduce(Action::Worker(WorkerId(0), FromWorker::Loaded(Box::new(incident()))), 510.0);
    let l = s.loaded.as_ref().unwrap();
    assert_eq!(l.millis, 500.0);
    assert!(s.loading.is_none());
    assert!(!s.timeline.bars.is_empty(), "the worker's timeline is used");
    assert_eq!(s.chart_stale, Some(false));
    assert!(up.effects.contains(&Effect::Later { ms: 1_000, timer: Timer::SpawnSpare }));
    assert!(s.status.is_none());
}

#[test]
fn a_fragment_applies_to_the_load_it_waited_for() {
    let s0 = loaded("");
    let stalled = stalled_reconcile(&s0);
    let id = s0.analysis().unwrap().reconciles[stalled as usize].reconcile_id.clone();
    let mut s = page(&format!("#sel={id}&q=deadline&rows=lanes&from=2026-05-26T16:29:30Z&to=2026-05-26T16:59:30Z"));
    s.reduce(Action::Chosen(vec![InputInfo { name: "cozyreport.zip".into(), size: 1000 }]), 10.0);
    let up = s.reduce(Action::Worker(WorkerId(0), FromWorker::Loaded(Box::new(incident()))), 500.0);
    assert_eq!(s.layout.grouping, Grouping::ByLane);
    assert_eq!(s.inspector.as_ref().map(|i| i.reconcile), Some(stalled));
    assert_eq!(s.restore_view, Some((1_779_812_970_000_000_000, 1_779_814_770_000_000_000)));
    let msgs = sends(&up);
    assert!(msgs.contains(&&ToWorker::Inspect { reconcile: stalled }));
    assert!(msgs.iter().any(|m| matches!(m, ToWorker::Filter { filter, .. } if filter.pattern == "deadline")));
    // The worker laid out by objects: the page lays out by lanes itself.
    assert!(s.timeline.rows.iter().any(|r| r.key.contains("lane")) || s.chart_stale == Some(false));
}

#[test]
fn a_link_that_holds_no_evidence_stays_on_the_landing_page() {
    let (mut s, _) = AppState::new(BASE, "#ev=bad", 0.0);
    let mut r = incident();
    r.evidence = None;
    r.notes.insert(0, crate::model::Diagnostic { path: "link.reconscope".into(), line: None, message: "it is cut short".into() });
    s.reduce(Action::Worker(WorkerId(0), FromWorker::Loaded(Box::new(r))), 1.0);
    assert!(s.loaded.is_none());
    assert_eq!(s.status.as_deref(), Some("This link could not be opened: it is cut short. Drop the artifact it was made from instead."));
}

#[test]
fn a_failed_worker() {
    // The spare: forgotten, quietly.
    let mut s = page("");
    let up = s.reduce(Action::WorkerFailed(WorkerId(0), "no wasm".into()), 1.0);
    assert!(!up.render && s.workers.spare.is_none() && s.status.is_none());
    // The load's, during the load: the load is gone and says why.
    let mut s = page("");
    s.reduce(Action::Chosen(vec![InputInfo { name: "a.log".into(), size: 1 }]), 1.0);
    let up = s.reduce(Action::WorkerFailed(WorkerId(0), "the worker ran out of memory".into()), 2.0);
    assert!(s.loading.is_none() && s.workers.load.is_none());
    assert_eq!(s.status.as_deref(), Some("the worker ran out of memory"));
    assert!(up.effects.contains(&Effect::Later { ms: 1_000, timer: Timer::SpawnSpare }));
    // Another worker's failure touches nothing.
    let mut s = loaded("");
    assert!(!s.reduce(Action::WorkerFailed(WorkerId(9), "x".into()), 3.0).render);
    assert!(s.loaded.is_some());
}

#[test]
fn cancel_stops_the_load() {
    let mut s = page("");
    s.reduce(Action::Chosen(vec![InputInfo { name: "a.log".into(), size: 1 }]), 1.0);
    let up = s.reduce(Action::Cancel, 2.0);
    assert_eq!(up.effects[0], Effect::Terminate(WorkerId(0)));
    assert!(s.loading.is_none());
    assert_eq!(s.status.as_deref(), Some("Cancelled."));
}

#[test]
fn show_on_timeline_focuses_the_chart_and_brings_it_into_view() {
    let mut s = loaded("");
    let f = finding(&s, FindingKind::StalledWorker);
    let up = s.reduce(Action::Focus(f), 1.0);
    assert_eq!(up.effects, vec![Effect::Chart(ChartCmd::FocusFinding(f)), Effect::Reveal(Target::Timeline)]);
    assert_eq!(s.focus, Some(f));
    assert!(s.reduce(Action::Focus(10_000), 2.0).effects.is_empty(), "no such finding");
}

#[test]
fn inspect_asks_for_lines_and_brings_the_inspector_into_view() {
    let mut s = loaded("");
    let r = stalled_reconcile(&s);
    let up = s.reduce(Action::Inspect(r), 1.0);
    assert!(up.effects.contains(&Effect::Send(WorkerId(0), ToWorker::Inspect { reconcile: r })));
    assert!(up.effects.contains(&Effect::Reveal(Target::Inspector)));
    assert!(up.effects.contains(&Effect::Chart(ChartCmd::Select(Some(r), true))));
    let id = &s.analysis().unwrap().reconciles[r as usize].reconcile_id;
    assert!(hash_of(&up).unwrap().contains(&format!("sel={id}")));
    // The worker's lines for another reconcile are not this one's.
    let lines = |reconcile| ReconcileLines { reconcile, reconcile_id: String::new(), blocks: Vec::new(), omitted_context: 0, left_out_lines: 0 };
    assert!(!s.reduce(Action::Worker(WorkerId(0), FromWorker::Lines(lines(r + 1))), 2.0).render);
    assert!(s.reduce(Action::Worker(WorkerId(0), FromWorker::Lines(lines(r))), 2.0).render);
    assert!(s.inspector.as_ref().unwrap().lines.is_some());
    // Asked again: only brought into view.
    let up = s.reduce(Action::Inspect(r), 3.0);
    assert_eq!(up.effects, vec![Effect::Reveal(Target::Inspector)]);
    assert!(s.reduce(Action::Inspect(u32::MAX), 4.0).effects.is_empty());
}

#[test]
fn close_inspector() {
    let mut s = loaded("");
    s.reduce(Action::Inspect(0), 1.0);
    let up = s.reduce(Action::CloseInspector, 2.0);
    assert!(s.inspector.is_none());
    assert!(up.effects.contains(&Effect::Chart(ChartCmd::Select(None, false))));
    assert!(!hash_of(&up).unwrap().contains("sel="));
}

#[test]
fn toggle_zone_grouping_and_rows() {
    let mut s = loaded("");
    assert_eq!(s.reduce(Action::ToggleZone, 1.0).effects, vec![Effect::Chart(ChartCmd::SetZone)]);
    assert!(s.zone_local);
    let rows = s.timeline.rows.len();
    let up = s.reduce(Action::ToggleGrouping, 2.0);
    assert_eq!(s.layout.grouping, Grouping::ByLane);
    assert_eq!(s.chart_stale, Some(true), "the window stays");
    assert!(hash_of(&up).unwrap().contains("rows=lanes"));
    s.reduce(Action::ToggleGrouping, 3.0);
    assert_eq!(s.timeline.rows.len(), rows);
    let key = s.timeline.rows.iter().find(|r| r.depth == 0).unwrap().key.clone();
    s.reduce(Action::ToggleRow(key.clone()), 4.0);
    assert!(s.layout.collapsed.contains(&key) && s.timeline.rows.len() < rows);
    s.reduce(Action::ToggleRow(key), 5.0);
    assert_eq!(s.timeline.rows.len(), rows);
}

#[test]
fn reset_view_asks_the_chart() {
    let mut s = loaded("");
    let up = s.reduce(Action::ResetView, 1.0);
    assert_eq!(up.effects, vec![Effect::Chart(ChartCmd::Reset)]);
    assert!(!up.render);
}

#[test]
fn the_window_goes_into_the_address_once_it_settles() {
    let mut s = loaded("");
    let up = s.reduce(Action::View((1_779_812_970_000_000_000, 1_779_814_770_000_000_000)), 1.0);
    assert_eq!(up.effects, vec![Effect::Later { ms: 200, timer: Timer::ViewSettled }]);
    assert!(!up.render);
    assert!(s.reduce(Action::View((1_779_812_971_000_000_000, 1_779_814_770_000_000_000)), 2.0).effects.is_empty(), "one timer");
    let up = s.reduce(Action::ViewSettled, 200.0);
    assert!(hash_of(&up).unwrap().contains("from=2026-05-26T16%3A29%3A31"));
    assert!(up.effects.contains(&Effect::ShowWindow));
    assert!(!s.reduce(Action::View((1, 2)), 300.0).effects.is_empty(), "a new timer after it settled");
}

#[test]
fn a_dump_time_analyses_again() {
    let mut s = loaded("");
    let up = s.reduce(Action::DumpTime(1_779_814_000_000_000_000), 1.0);
    assert!(matches!(sends(&up)[..], [ToWorker::Reanalyze { dump_time_nanos: Some(1_779_814_000_000_000_000), .. }]));
    assert_eq!(s.loading.as_ref().unwrap().progress.phase, Phase::Analyzing);
}

/// Each finished load has a number of its own, so what the findings panel
/// unfolded in one (by index) is not unfolded in the next.
#[test]
fn each_load_has_its_own_number() {
    let mut s = loaded("");
    assert_eq!(s.loaded.as_ref().unwrap().seq, 1);
    s.reduce(Action::DumpTime(1_779_814_000_000_000_000), 1.0);
    s.reduce(Action::Worker(WorkerId(0), FromWorker::Loaded(Box::new(incident()))), 600.0);
    assert_eq!(s.loaded.as_ref().unwrap().seq, 2);
}

#[test]
fn a_typed_window() {
    let mut s = loaded("");
    let up = s.reduce(Action::FilterWindow { from: " 2026-05-26T16:29:30Z".into(), to: "2026-05-26T16:59:30Z".into() }, 1.0);
    assert_eq!(up.effects, vec![Effect::Chart(ChartCmd::SetView(1_779_812_970_000_000_000, 1_779_814_770_000_000_000))]);
    s.reduce(Action::FilterWindow { from: "2026-05-26T16:59:30Z".into(), to: "2026-05-26T16:29:30Z".into() }, 2.0);
    assert!(s.window_error.as_deref().unwrap().starts_with("Write both times as RFC3339"));
    s.reduce(Action::FilterWindow { from: "yesterday".into(), to: "2026-05-26T16:29:30Z".into() }, 2.0);
    assert!(s.window_error.is_some());
}

fn shared(fragment: Option<&str>, file: Option<&str>) -> SharedEvidence {
    SharedEvidence { fragment: fragment.map(str::to_string), file: file.map(str::to_string), ..Default::default() }
}

#[test]
fn copy_link_shares_the_view() {
    let mut s = loaded("");
    s.reduce(Action::View((1_779_812_970_000_000_000, 1_779_814_770_000_000_000)), 1.0);
    s.reduce(Action::Filter(FilterChange::Object("tenant-root".into())), 1.0);
    let up = s.reduce(Action::CopyLink, 1_000.0);
    let Some(ToWorker::Share { seq, request }) = sends(&up).first().copied() else { panic!("{up:?}") };
    assert_eq!(request.window, s.view);
    assert_eq!(request.taken_at_nanos, Some(1_000_000_000));
    assert!(request.max_payload_bytes > 0);
    assert!(up.effects.contains(&Effect::Reveal(Target::ShareDialog)));
    let seq = *seq;
    // A stale answer is dropped; the right one fills the dialog.
    let answer = |seq| Action::Worker(WorkerId(0), FromWorker::Shared { seq, result: Box::new(Ok(shared(Some("#ev=AAAA"), None))) });
    assert!(!s.reduce(answer(seq + 5), 2.0).render);
    s.reduce(answer(seq), 2.0);
    let up = s.reduce(Action::ShareCopy, 3.0);
    assert_eq!(up.effects, vec![Effect::Copy { what: Copy::Link, text: format!("{BASE}#ev=AAAA&obj=tenant-root") }]);
    s.reduce(Action::Copied { what: Copy::Link, ok: true, text: String::new() }, 4.0);
    assert_eq!(s.notice.as_deref(), Some("Link copied."));
    s.reduce(Action::ShareClose, 5.0);
    assert!(s.share.is_none());
}

#[test]
fn share_finding_mask_hosts_and_download() {
    let mut s = loaded("");
    let f = finding(&s, FindingKind::StalledWorker);
    let up = s.reduce(Action::ShareFinding(f), 1.0);
    let Some(ToWorker::Share { seq, request }) = sends(&up).first().copied() else { panic!() };
    assert_eq!((request.finding, request.window), (Some(f), None));
    assert_eq!(s.share.as_ref().unwrap().title, "the stalled-worker finding");
    let seq = *seq;
    let up = s.reduce(Action::ShareMaskHosts(true), 2.0);
    let Some(ToWorker::Share { seq: seq2, request }) = sends(&up).first().copied() else { panic!() };
    assert!(request.redact.mask_hosts && *seq2 > seq);
    assert!(s.share.as_ref().unwrap().result.is_none(), "made again");
    s.reduce(Action::Worker(WorkerId(0), FromWorker::Shared { seq: *seq2, result: Box::new(Ok(shared(None, Some("PAYLOAD")))) }), 3.0);
    let up = s.reduce(Action::ShareDownload, 4.0);
    assert_eq!(up.effects, vec![Effect::Download { bytes: b"PAYLOAD".to_vec(), mime: "application/octet-stream", name: "evidence.reconscope" }]);
    assert!(s.notice.as_deref().unwrap().starts_with("Evidence file saved"));
    // No link to copy when only a file could be made.
    assert!(s.reduce(Action::ShareCopy, 5.0).effects.is_empty());
    assert!(s.reduce(Action::ShareFinding(99_999), 6.0).effects.is_empty());
}

#[test]
fn a_pasted_link_changes_the_view() {
    let mut s = loaded("");
    assert!(!s.reduce(Action::HashChanged(fragment::format(&s.fragment())), 1.0).render, "the page's own");
    let up = s.reduce(Action::HashChanged("#q=RoleGet&from=2026-05-26T16:29:30Z&to=2026-05-26T16:59:30Z".into()), 2.0);
    assert_eq!(s.filters.pattern, "RoleGet");
    assert!(up.effects.contains(&Effect::Chart(ChartCmd::SetView(1_779_812_970_000_000_000, 1_779_814_770_000_000_000))));
    assert!(sends(&up).iter().any(|m| matches!(m, ToWorker::Filter { filter, .. } if filter.pattern == "RoleGet")));
    // Another link's evidence on a page with the person's own artifact:
    // the view applies, the artifact stays.
    s.reduce(Action::HashChanged("#ev=OTHER".into()), 3.0);
    assert!(s.loaded.is_some() && !s.from_link);
    // Before any load: kept for it.
    let mut s = page("");
    s.reduce(Action::HashChanged("#q=x".into()), 1.0);
    assert_eq!(s.pending.unwrap().q, "x");
}

#[test]
fn open_link_loads_the_payload() {
    let mut s = loaded("");
    let up = s.reduce(Action::OpenLink("UlNFVgE".into()), 1.0);
    assert!(up.effects.contains(&Effect::Terminate(WorkerId(0))));
    assert!(s.from_link && s.loaded.is_none() && s.loading.is_some());
    assert_eq!(s.evidence_payload.as_deref(), Some("UlNFVgE"));
}

#[test]
fn copy_markdown_asks_the_worker_then_copies() {
    let mut s = loaded("");
    let up = s.reduce(Action::CopyMarkdown, 2_000.0);
    let Some(ToWorker::Markdown { seq, app_url, taken_at_nanos, .. }) = sends(&up).first().copied() else { panic!() };
    assert_eq!((app_url.as_str(), *taken_at_nanos), (BASE, Some(2_000_000_000)));
    let up = s.reduce(Action::Worker(WorkerId(0), FromWorker::Text { seq: *seq, text: "## reconscope".into() }), 3.0);
    assert_eq!(up.effects, vec![Effect::Copy { what: Copy::Markdown, text: "## reconscope".into() }]);
    // The clipboard refused: the text to copy by hand.
    s.reduce(Action::Copied { what: Copy::Markdown, ok: false, text: "## reconscope".into() }, 4.0);
    assert_eq!(s.notice.as_deref(), Some("The clipboard is unavailable: copy the report below."));
    assert_eq!(s.manual_copy.as_deref(), Some("## reconscope"));
}

#[test]
fn exports_are_redacted_by_the_worker() {
    let mut s = loaded("");
    let up = s.reduce(Action::ExportSvg { utc_offset_secs: 0 }, 1.0);
    let Some(ToWorker::Redact { seq, text, .. }) = sends(&up).first().copied() else { panic!() };
    assert!(text.starts_with("<svg") || text.starts_with("<?xml"));
    let up = s.reduce(Action::Worker(WorkerId(0), FromWorker::Text { seq: *seq, text: "<svg/>".into() }), 2.0);
    assert_eq!(up.effects, vec![Effect::Download { bytes: b"<svg/>".to_vec(), mime: "image/svg+xml", name: "reconscope-timeline.svg" }]);
    assert_eq!(s.notice.as_deref(), Some("SVG exported."));
    let up = s.reduce(Action::ExportPng { utc_offset_secs: 7200 }, 3.0);
    let Some(ToWorker::Redact { seq, text, .. }) = sends(&up).first().copied() else { panic!() };
    assert!(text.contains("UTC+02:00") || text.contains("+02:00"), "the zone is the page's");
    let up = s.reduce(Action::Worker(WorkerId(0), FromWorker::Text { seq: *seq, text: "<svg/>".into() }), 4.0);
    assert_eq!(up.effects, vec![Effect::SavePng("<svg/>".into())]);
    // An answer asked for by nobody.
    assert!(!s.reduce(Action::Worker(WorkerId(0), FromWorker::Text { seq: 999, text: String::new() }), 5.0).render);
}

#[test]
fn notices() {
    let mut s = loaded("");
    s.manual_copy = Some("x".into());
    s.reduce(Action::Notice("PNG exported.".into()), 1.0);
    assert_eq!((s.notice.as_deref(), s.manual_copy.as_deref()), (Some("PNG exported."), None));
}

#[test]
fn the_text_filter_goes_to_the_worker_and_keeps_the_window() {
    let mut s = loaded("");
    s.chart_stale = None;
    let up = s.reduce(Action::Filter(FilterChange::Text("deadline".into())), 1.0);
    let Some(ToWorker::Filter { seq, filter }) = sends(&up).first().copied() else { panic!() };
    assert_eq!((filter.pattern.as_str(), filter.min_level), ("deadline", 0));
    let seq = *seq;
    let matched = |seq, reconciles: Vec<u32>, error: Option<&str>| {
        Action::Worker(WorkerId(0), FromWorker::Matched(Matched { seq, reconciles, error: error.map(str::to_string) }))
    };
    assert!(!s.reduce(matched(seq - 1, vec![0], None), 2.0).render, "an older answer");
    let up = s.reduce(matched(seq, vec![3, 5], None), 2.0);
    assert_eq!(s.layout.only, Some([3, 5].into_iter().collect()));
    assert_eq!(s.shown(), Some(2));
    assert_eq!(s.chart_stale, Some(true), "filters never move the window");
    assert!(hash_of(&up).unwrap().contains("q=deadline"));
    // A bad pattern filters nothing and says why.
    let up = s.reduce(Action::Filter(FilterChange::Text("(".into())), 3.0);
    let Some(ToWorker::Filter { seq, .. }) = sends(&up).first().copied() else { panic!() };
    s.reduce(matched(*seq, Vec::new(), Some("unclosed group")), 4.0);
    assert_eq!((s.filter_error.as_deref(), s.layout.only.as_ref()), (Some("unclosed group"), None));
    // Emptied: all again, at once.
    let up = s.reduce(Action::Filter(FilterChange::Text(String::new())), 5.0);
    assert!(sends(&up).is_empty());
    assert!(s.layout.only.is_none() && s.filter_error.is_none());
    s.reduce(Action::Filter(FilterChange::Level(9)), 6.0);
    assert_eq!(s.filters.min_level, 3);
}

#[test]
fn controller_object_and_duration_filters_apply_on_the_page() {
    let mut s = loaded("");
    let a = s.analysis().unwrap().clone();
    let stalled = stalled_reconcile(&s);
    let ctl = a.controllers[a.reconciles[stalled as usize].controller].id.clone();
    s.reduce(Action::Filter(FilterChange::Controller(ctl.clone())), 1.0);
    let only = s.layout.only.clone().unwrap();
    assert!(only.contains(&stalled) && only.iter().all(|&i| a.controllers[a.reconciles[i as usize].controller].id == ctl));
    s.reduce(Action::Filter(FilterChange::Controller(String::new())), 1.0);
    s.reduce(Action::Filter(FilterChange::Object("NO-SUCH-OBJECT".into())), 2.0);
    assert_eq!(s.shown(), Some(0));
    s.reduce(Action::Filter(FilterChange::Object(String::new())), 3.0);
    assert!(s.layout.only.is_none());
    // Longer than 10 minutes: the stalled reconcile (about 20 minutes, by
    // its log lines) and nothing shorter.
    s.reduce(Action::Filter(FilterChange::LongerThan("10m".into())), 4.0);
    let only = s.layout.only.clone().unwrap();
    assert!(only.contains(&stalled));
    for &i in &only {
        let r = &a.reconciles[i as usize];
        assert!(r.last.nanos.saturating_sub(r.start().nanos) > 600_000_000_000);
    }
    let up = s.reduce(Action::Filter(FilterChange::LongerThan("soon".into())), 5.0);
    assert!(s.duration_error.is_some() && s.layout.only.is_none(), "a bad duration filters nothing");
    assert!(hash_of(&up).unwrap().contains("longer=soon"));
}

#[test]
fn inspector_wrap_fields_and_copies() {
    let mut s = loaded("");
    assert!(s.inspector_prefs.wrap && !s.inspector_prefs.fields);
    s.reduce(Action::WrapLines(false), 1.0);
    s.reduce(Action::ShowFields(true), 1.0);
    assert_eq!(s.inspector_prefs, InspectorPrefs { wrap: false, fields: true, width_px: 440.0 });
    s.reduce(Action::ResizeInspector(600.0), 1.0);
    assert_eq!(s.inspector_prefs.width_px, 600.0);
    assert!(!s.reduce(Action::ResizeInspector(600.0), 1.0).render);
    s.reduce(Action::ResizeInspector(10.0), 1.0);
    assert_eq!(s.inspector_prefs.width_px, 280.0);
    s.reduce(Action::ResizeInspector(f64::NAN), 1.0);
    assert_eq!(s.inspector_prefs.width_px, 440.0);
    assert!(s.reduce(Action::CopyLines, 1.0).effects.is_empty(), "nothing inspected");
    s.reduce(Action::Inspect(0), 2.0);
    let block = |path: &str, texts: &[&str]| LineBlock {
        path: path.into(),
        lines: texts.iter().enumerate().map(|(i, t)| Line { number: i as u32 + 1, text: t.to_string(), own: true }).collect(),
    };
    let lines = ReconcileLines {
        reconcile: 0,
        reconcile_id: "r".into(),
        blocks: vec![block("a.log", &["one", "two"]), block("b.log", &["three"])],
        omitted_context: 0,
        left_out_lines: 0,
    };
    s.reduce(Action::Worker(WorkerId(0), FromWorker::Lines(lines)), 3.0);
    assert_eq!(s.reduce(Action::CopyLine(0, 1), 4.0).effects, vec![Effect::Copy { what: Copy::Line, text: "two".into() }]);
    assert!(s.reduce(Action::CopyLine(5, 0), 4.0).effects.is_empty());
    let up = s.reduce(Action::CopyLines, 5.0);
    assert_eq!(up.effects, vec![Effect::Copy { what: Copy::Lines, text: "==> a.log <==\none\ntwo\n==> b.log <==\nthree\n".into() }]);
    s.reduce(Action::Copied { what: Copy::Lines, ok: true, text: "one\ntwo\nthree\n".into() }, 6.0);
    assert_eq!(s.notice.as_deref(), Some("3 lines copied."));
}

/// "Read at most": a size caps the next load (sent with `Begin`); a bad
/// one says why under the field and keeps the load from starting.
#[test]
fn read_at_most_caps_the_next_load() {
    let mut s = page("");
    let chosen = || Action::Chosen(vec![InputInfo { name: "a.log".into(), size: 5 }]);
    s.reduce(Action::ReadAtMost("2 GB".into()), 1.0);
    assert_eq!((s.read_cap(), s.read_at_most_error.as_deref()), (Ok(Some(2 << 30)), None));
    let up = s.reduce(chosen(), 2.0);
    assert_eq!(up.effects[0], Effect::Send(WorkerId(0), ToWorker::Begin { files: 1, total_bytes: 5, max_total_bytes: Some(2 << 30) }));
    for (bad, why) in [("2 parsecs", "`parsecs` is not a unit"), ("lots", "is not a size"), ("0", "more than 0 bytes")] {
        s.reduce(Action::ReadAtMost(bad.into()), 3.0);
        assert!(s.read_at_most_error.as_deref().is_some_and(|e| e.contains(why)), "{bad}: {:?}", s.read_at_most_error);
        let load = s.workers.load;
        let up = s.reduce(chosen(), 4.0);
        assert!(sends(&up).is_empty(), "{bad}: nothing loads");
        assert_eq!(s.workers.load, load);
        assert!(s.status.as_deref().is_some_and(|t| t.starts_with("Nothing was loaded: \"Read at most\"") && t.contains(why)), "{:?}", s.status);
    }
    // Empty: what the tab holds.
    s.reduce(Action::ReadAtMost(" ".into()), 5.0);
    assert_eq!((s.read_cap(), s.read_at_most_error.as_deref()), (Ok(None), None));
    let up = s.reduce(chosen(), 6.0);
    assert!(sends(&up).contains(&&ToWorker::Begin { files: 1, total_bytes: 5, max_total_bytes: None }));
}

/// A load a cap cut short says so over the summary: how much was read
/// of how much, what was left out of which files, and that the CLI
/// reads it all; a whole load has no banner.
#[test]
fn a_load_cut_short_has_a_banner() {
    let s = loaded("");
    assert_eq!(s.left_out_banner(), None);
    let mut s = page("");
    s.reduce(Action::Chosen(vec![InputInfo { name: "big.log".into(), size: 3 << 30 }, InputInfo { name: "more.log".into(), size: 1 << 30 }]), 1.0);
    let mut r = incident();
    r.input_bytes = (3 << 30) + (1 << 30) + (1 << 20);
    let tab = crate::web::LeftOutReason::Tab { bytes: 1536 << 20 };
    r.left_out = vec![
        crate::web::LeftOut { path: "logs/big.log".into(), size_bytes: 3 << 30, kept_bytes: 1536 << 20, reason: tab },
        crate::web::LeftOut { path: "more.log".into(), size_bytes: 1 << 30, kept_bytes: 0, reason: tab },
    ];
    s.reduce(Action::Worker(WorkerId(0), FromWorker::Loaded(Box::new(r))), 2.0);
    assert_eq!(
        s.left_out_banner().as_deref(),
        Some(
            "Read 1.5 GiB of 4.0 GiB: the last 2.5 GiB of big.log, more.log were left out (the tab holds at most 1.5 GiB of logs). \
             What is shown ends there; the CLI reads all of it: reconscope analyze big.log"
        )
    );
    // A file over what the CLI reads of one file (4 GiB of 32-bit
    // offsets): the banner does not promise all of it.
    let mut s = page("");
    s.reduce(Action::Chosen(vec![InputInfo { name: "huge.log".into(), size: 5 << 30 }]), 1.0);
    let mut r = incident();
    r.input_bytes = 5 << 30;
    let tab = crate::web::LeftOutReason::Tab { bytes: 3 << 30 };
    r.left_out = vec![crate::web::LeftOut { path: "huge.log".into(), size_bytes: 5 << 30, kept_bytes: 3 << 30, reason: tab }];
    s.reduce(Action::Worker(WorkerId(0), FromWorker::Loaded(Box::new(r))), 2.0);
    assert_eq!(
        s.left_out_banner().as_deref(),
        Some(
            "Read 3 GiB of 5 GiB: the last 2 GiB of huge.log were left out (the tab holds at most 3 GiB of logs). \
             What is shown ends there; the CLI reads its first 4.0 GiB: reconscope analyze huge.log"
        )
    );
    assert!(r_left_out_message(5 << 30, 3 << 30).ends_with("The CLI (reconscope analyze) reads its first 4.0 GiB."));
    assert!(r_left_out_message(u32::MAX as u64, 3 << 30).ends_with("The CLI (reconscope analyze) reads all of it."));
}

fn r_left_out_message(size_bytes: u64, kept_bytes: u64) -> String {
    let reason = crate::web::LeftOutReason::Tab { bytes: 3 << 30 };
    crate::web::LeftOut { path: "huge.log".into(), size_bytes, kept_bytes, reason }.message()
}
