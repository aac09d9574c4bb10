//! The app's state and its transitions, in plain Rust: what the page shows
//! ([`AppState`]), what can happen to it ([`Action`]: a person's click, a
//! worker's answer, a timer), and [`AppState::reduce`], which changes the
//! state and returns the [`Effect`]s for the page to run (post to a
//! worker, write the URL fragment, copy, download, move the chart, scroll
//! something into view). The Yew component (`src/bin/app/main.rs`) only
//! renders the state and runs the effects; nothing here knows web-sys, so
//! every transition is tested natively (`state_tests.rs`).

use std::collections::BTreeSet;
use std::rc::Rc;

use crate::analyze::Analysis;
use crate::evidence::EvidenceMeta;
use crate::layout::{layout, Grouping, LayoutOptions, Timeline};
use crate::redact::RedactOptions;
use crate::web::{
    FileSummary, FromWorker, LeftOut, LeftOutReason, LoadResult, MessageFilter, Note, Phase, Progress, ReconcileLines, ShareRequest, SharedEvidence, ToWorker,
};

use super::fragment::{self, Fragment};

/// Text the page shows as it is (a status, a notice, a file's name in the
/// progress line) that may hold log text or names from an archive: made
/// inert (`inert::label`) once, here, as it is stored.
fn shown(s: String) -> String {
    match crate::inert::label(&s) {
        std::borrow::Cow::Borrowed(_) => s,
        std::borrow::Cow::Owned(t) => t,
    }
}

/// Which worker a message came from: a spare warming up and the load's
/// worker both talk to the page.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct WorkerId(pub u32);

/// An input the person chose: its name and size (the page keeps the bytes'
/// `Blob`s, in the same order, for [`Effect::SendInputs`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputInfo {
    pub name: String,
    pub size: u64,
}

/// What can happen to the page.
#[derive(Clone, Debug)]
pub enum Action {
    /// The page has started.
    Ready,
    /// Inputs were chosen or dropped: a new load.
    Chosen(Vec<InputInfo>),
    /// Inputs could not be taken (a drop, the example).
    Failed(String),
    DragOver,
    DragLeave,
    /// A message from a worker.
    Worker(WorkerId, FromWorker),
    /// A worker could not start, or stopped.
    WorkerFailed(WorkerId, String),
    Cancel,
    /// Start (and warm up) a spare worker, if there is none.
    SpawnSpare,
    /// "Show on timeline": zoom onto a finding and bring the chart into view.
    Focus(u32),
    /// Open the inspector on a reconcile.
    Inspect(u32),
    CloseInspector,
    ToggleZone,
    ToggleGrouping,
    /// Fold or unfold a group row.
    ToggleRow(String),
    ResetView,
    /// The chart's window moved (absolute ns).
    View((i64, i64)),
    /// The window has not moved for a moment: into the URL and the fields.
    ViewSettled,
    /// The time a person gives for goroutine dumps nothing dates.
    DumpTime(i64),
    /// Open the share dialog for the current view.
    CopyLink,
    /// Open the share dialog for one finding.
    ShareFinding(u32),
    ShareMaskHosts(bool),
    /// Copy the dialog's link.
    ShareCopy,
    /// Save the dialog's slice as a `.reconscope` file.
    ShareDownload,
    ShareClose,
    /// Open an evidence link's payload.
    OpenLink(String),
    /// `location.hash` changed (a link pasted into this tab): the new one.
    HashChanged(String),
    CopyMarkdown,
    /// Export the chart's view; the zone's offset at the view's start.
    ExportSvg {
        utc_offset_secs: i32,
    },
    ExportPng {
        utc_offset_secs: i32,
    },
    /// A copy to the clipboard ended: `Err` when the clipboard was
    /// unavailable (the text is then offered to copy by hand).
    Copied {
        what: Copy,
        ok: bool,
        text: String,
    },
    /// Something the page did by itself ended ("PNG exported.").
    Notice(String),
    Filter(FilterChange),
    /// The window typed in the Filters panel.
    FilterWindow {
        from: String,
        to: String,
    },
    /// The inspector wraps long lines.
    WrapLines(bool),
    /// The inspector shows a structured line's fields as a table.
    ShowFields(bool),
    /// Copy one inspector line: (block, line) indexes.
    CopyLine(usize, usize),
    /// Copy all the inspector's lines.
    CopyLines,
    /// The inspector panel's width was dragged to this (CSS px).
    ResizeInspector(f64),
    /// "Read at most", as typed (`2GB`, `500MiB`; empty: what the tab
    /// holds): the cap on the next load.
    ReadAtMost(String),
}

/// A change to one filter.
#[derive(Clone, Debug, PartialEq)]
pub enum FilterChange {
    Text(String),
    Level(u8),
    Controller(String),
    Object(String),
    /// "Reconciles longer than", as typed (`30s`, `1m30s`, `500ms`).
    LongerThan(String),
}

/// What a copy was of (for its notice).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Copy {
    Link,
    Markdown,
    Line,
    Lines,
}

/// What the chart is asked to do.
#[derive(Clone, Debug, PartialEq)]
pub enum ChartCmd {
    FocusFinding(u32),
    Select(Option<u32>, bool),
    SetView(i64, i64),
    SetZone,
    Reset,
}

/// A part of the page to scroll into view (after it is rendered).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    Timeline,
    Inspector,
    ShareDialog,
}

/// A timer the page sets, and the action it sends when it fires.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timer {
    /// [`Action::SpawnSpare`].
    SpawnSpare,
    /// [`Action::ViewSettled`].
    ViewSettled,
}

/// What the page does for a transition.
#[derive(Clone, Debug, PartialEq)]
pub enum Effect {
    /// Start a worker with this id (a failure comes back as
    /// [`Action::WorkerFailed`]).
    Spawn(WorkerId),
    /// Stop a worker (its memory is freed).
    Terminate(WorkerId),
    Send(WorkerId, ToWorker),
    /// Read the chosen inputs into the worker in slices, then send `finish`.
    SendInputs {
        worker: WorkerId,
        finish: ToWorker,
    },
    Later {
        ms: u32,
        timer: Timer,
    },
    /// Replace `location.hash` (no reload, no request).
    WriteHash(String),
    Copy {
        what: Copy,
        text: String,
    },
    Download {
        bytes: Vec<u8>,
        mime: &'static str,
        name: &'static str,
    },
    /// Rasterise an SVG and save it as a PNG.
    SavePng(String),
    Chart(ChartCmd),
    Reveal(Target),
    /// Show the chart's window in the Filters panel's from/to fields.
    ShowWindow,
}

/// What a transition did: the effects, and whether the page renders again.
#[derive(Debug, Default)]
pub struct Update {
    pub effects: Vec<Effect>,
    pub render: bool,
}

/// The Filters panel's values.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Filters {
    /// Regex (case-insensitive) over every line's text, matched in the
    /// worker.
    pub pattern: String,
    /// 0 any, 1 info, 2 warn, 3 error.
    pub min_level: u8,
    /// A controller instance's id (empty: all).
    pub controller: String,
    /// Substring of the namespace/name (case-insensitive).
    pub object: String,
    /// Reconciles longer than this, as typed (empty: any).
    pub longer_than: String,
}

/// A load going on.
#[derive(Clone, Debug, PartialEq)]
pub struct Loading {
    pub started_ms: f64,
    pub progress: Progress,
    /// When the progress was last drawn (see [`PROGRESS_REDRAW_MS`]).
    pub drawn_ms: f64,
}

/// Progress is drawn at most this often while a phase goes on: the worker
/// acknowledges every 8 MiB slice, and each drawing is a render of the
/// whole page.
pub const PROGRESS_REDRAW_MS: f64 = 150.0;

/// A finished load.
#[derive(Clone, Debug)]
pub struct Loaded {
    pub analysis: Rc<Analysis>,
    pub files: Vec<FileSummary>,
    pub notes: Vec<Note>,
    pub input_bytes: u64,
    pub millis: f64,
    /// Inputs read in part or not at all (a cap): the banner.
    pub left_out: Vec<LeftOut>,
    /// Which load of the page's this is (1, 2, ...): what a panel keeps of
    /// one load (the findings it unfolded) is not the next one's.
    pub seq: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Inspector {
    pub reconcile: u32,
    /// `None` while the worker reads them.
    pub lines: Option<ReconcileLines>,
}

/// How the inspector shows lines (kept from one reconcile to the next).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InspectorPrefs {
    pub wrap: bool,
    pub fields: bool,
    /// The panel's width beside the chart, CSS px (see [`INSPECTOR_WIDTH`]).
    pub width_px: f64,
}

/// The inspector panel's width: at first, and the narrowest and widest a
/// drag makes it.
pub const INSPECTOR_WIDTH: (f64, f64, f64) = (440.0, 280.0, 1200.0);

impl Default for InspectorPrefs {
    fn default() -> Self {
        InspectorPrefs { wrap: true, fields: false, width_px: INSPECTOR_WIDTH.0 }
    }
}

/// The share dialog: what is shared, and the worker's slice.
#[derive(Clone, Debug)]
pub struct ShareState {
    /// "this view", "the stalled-worker finding".
    pub title: String,
    pub request: ShareRequest,
    pub seq: u32,
    /// `None` while the worker makes it.
    pub result: Option<Result<SharedEvidence, String>>,
}

/// What a [`FromWorker::Text`] answer is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TextUse {
    CopyMarkdown,
    SaveSvg,
    SavePng,
}

/// The workers: the load's, and a spare started before it is needed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Workers {
    pub load: Option<WorkerId>,
    pub spare: Option<WorkerId>,
    /// The spare has warmed up.
    pub spare_warm: bool,
    next: u32,
}

impl Workers {
    fn new_id(&mut self) -> WorkerId {
        let id = WorkerId(self.next);
        self.next += 1;
        id
    }
}

/// Everything the page shows, and what it waits for.
#[derive(Debug)]
pub struct AppState {
    /// The page's address without its fragment: what links start with.
    pub base_url: String,
    pub ready: bool,
    pub workers: Workers,
    /// The inputs' names (or the evidence's artifact).
    pub names: Vec<String>,
    pub dragging: bool,
    pub loading: Option<Loading>,
    /// The landing page's status line (errors, "Cancelled.").
    pub status: Option<String>,
    pub loaded: Option<Loaded>,
    pub layout: LayoutOptions,
    pub timeline: Rc<Timeline>,
    /// The chart needs `timeline` (`Some(keep_view)`); the page takes it.
    pub chart_stale: Option<bool>,
    /// Times in the browser's zone (else UTC).
    pub zone_local: bool,
    /// The focused finding ("Show on timeline").
    pub focus: Option<u32>,
    pub inspector: Option<Inspector>,
    pub inspector_prefs: InspectorPrefs,
    /// The chart's window (absolute ns), kept in the fragment.
    pub view: Option<(i64, i64)>,
    view_settling: bool,
    /// The fragment the page was opened with, applied to the next load.
    pub pending: Option<Fragment>,
    /// The window to restore once the chart has the new timeline.
    pub restore_view: Option<(i64, i64)>,
    /// The last notice ("Link copied."), announced by a live region.
    pub notice: Option<String>,
    /// Text to copy by hand (the clipboard was unavailable).
    pub manual_copy: Option<String>,
    /// What is shown is evidence (a link or a `.reconscope` file).
    pub evidence: Option<EvidenceMeta>,
    /// The `ev=` payload of the link shown.
    pub evidence_payload: Option<String>,
    /// The load running or shown came from a link.
    pub from_link: bool,
    pub share: Option<ShareState>,
    share_seq: u32,
    pub mask_hosts: bool,
    text_seq: u32,
    text_uses: Vec<(u32, TextUse)>,
    pub filters: Filters,
    /// The worker's answer for the text/level filter (`None`: no such
    /// filter, or it failed).
    pub matched: Option<Vec<u32>>,
    pub filter_error: Option<String>,
    pub duration_error: Option<String>,
    pub window_error: Option<String>,
    filter_seq: u32,
    /// Loads finished so far ([`Loaded::seq`]).
    loads: u32,
    /// "Read at most", as typed, and why it is not a size.
    pub read_at_most: String,
    pub read_at_most_error: Option<String>,
}

impl AppState {
    /// The page as it opens at `base_url` with `hash` in its address: a
    /// link's evidence is opened at once, any other view waits for a load.
    pub fn new(base_url: &str, hash: &str, now_ms: f64) -> (AppState, Update) {
        let f = fragment::parse(hash);
        let pending = (f != Fragment::default()).then_some(f);
        let mut s = AppState {
            base_url: base_url.to_string(),
            ready: false,
            workers: Workers::default(),
            names: Vec::new(),
            dragging: false,
            loading: None,
            status: None,
            loaded: None,
            layout: LayoutOptions::default(),
            timeline: Rc::default(),
            chart_stale: None,
            zone_local: false,
            focus: None,
            inspector: None,
            inspector_prefs: InspectorPrefs::default(),
            view: None,
            view_settling: false,
            pending,
            restore_view: None,
            notice: None,
            manual_copy: None,
            evidence: None,
            evidence_payload: None,
            from_link: false,
            share: None,
            share_seq: 0,
            mask_hosts: false,
            text_seq: 0,
            text_uses: Vec::new(),
            filters: Filters::default(),
            matched: None,
            filter_error: None,
            duration_error: None,
            window_error: None,
            filter_seq: 0,
            loads: 0,
            read_at_most: String::new(),
            read_at_most_error: None,
        };
        let mut up = s.reduce(Action::SpawnSpare, now_ms);
        if let Some(ev) = s.pending.as_ref().and_then(|f| f.ev.clone()) {
            up.effects.extend(s.reduce(Action::OpenLink(ev), now_ms).effects);
        }
        (s, up)
    }

    /// The analysis shown, if any.
    pub fn analysis(&self) -> Option<&Rc<Analysis>> {
        self.loaded.as_ref().map(|l| &l.analysis)
    }

    /// How many reconciles the filters leave.
    pub fn shown(&self) -> Option<usize> {
        let l = self.loaded.as_ref()?;
        Some(self.layout.only.as_ref().map_or(l.analysis.reconciles.len(), |o| o.len()))
    }

    /// Whether the year is unknown (no date shows one).
    pub fn yearless(&self) -> bool {
        self.analysis().is_some_and(|a| a.year_unknown)
    }

    /// The view as a fragment.
    pub fn fragment(&self) -> Fragment {
        let sel = match (&self.loaded, &self.inspector) {
            (Some(l), Some(i)) => l.analysis.reconciles.get(i.reconcile as usize).map(|r| r.reconcile_id.clone()),
            _ => None,
        };
        Fragment {
            ev: self.evidence_payload.clone(),
            window: self.view,
            lanes: Some(self.layout.grouping == Grouping::ByLane),
            collapsed: self.layout.collapsed.iter().cloned().collect(),
            sel,
            q: self.filters.pattern.clone(),
            level: self.filters.min_level,
            ctl: self.filters.controller.clone(),
            obj: self.filters.object.clone(),
            longer: self.filters.longer_than.clone(),
        }
    }

    /// The link the share dialog offers: the evidence, then the view.
    pub fn share_link(&self, shared: &SharedEvidence) -> Option<String> {
        let ev = shared.fragment.as_ref()?;
        let mut view = self.fragment();
        view.ev = None;
        view.window = None;
        view.sel = None;
        let extra = fragment::format(&view);
        let extra = extra.trim_start_matches('#');
        let sep = if extra.is_empty() { "" } else { "&" };
        Some(format!("{}{ev}{sep}{extra}", self.base_url))
    }

    /// Changes the state for `action` (at `now_ms`, the page's clock) and
    /// says what the page must do.
    pub fn reduce(&mut self, action: Action, now_ms: f64) -> Update {
        let mut fx = Vec::new();
        let render = self.step(action, now_ms, &mut fx);
        Update { effects: fx, render }
    }

    fn step(&mut self, action: Action, now_ms: f64, fx: &mut Vec<Effect>) -> bool {
        match action {
            Action::Ready => self.ready = true,
            Action::SpawnSpare => {
                if self.workers.spare.is_some() || self.loading.is_some() {
                    return false;
                }
                let id = self.workers.new_id();
                self.workers.spare = Some(id);
                self.workers.spare_warm = false;
                fx.push(Effect::Spawn(id));
                fx.push(Effect::Send(id, ToWorker::WarmUp));
            }
            Action::Chosen(inputs) => self.start_load(inputs, now_ms, fx),
            Action::ReadAtMost(text) => {
                self.read_at_most = text;
                self.read_at_most_error = self.read_cap().err();
            }
            Action::Failed(e) => self.status = Some(shown(e)),
            Action::DragOver => {
                if self.dragging {
                    return false;
                }
                self.dragging = true;
            }
            Action::DragLeave => self.dragging = false,
            Action::WorkerFailed(id, e) => {
                if Some(id) == self.workers.spare {
                    self.workers.spare = None;
                    self.workers.spare_warm = false;
                    fx.push(Effect::Terminate(id));
                    return false;
                }
                if Some(id) != self.workers.load {
                    return false;
                }
                // The load's worker: what it held is gone.
                if self.loading.is_some() {
                    self.workers.load = None;
                    self.loading = None;
                    fx.push(Effect::Terminate(id));
                    fx.push(Effect::Later { ms: 1_000, timer: Timer::SpawnSpare });
                }
                self.status = Some(shown(e));
            }
            Action::Worker(id, FromWorker::WarmedUp) => {
                if Some(id) != self.workers.spare {
                    return false;
                }
                self.workers.spare_warm = true;
            }
            // Only the load's worker says more (a spare only warms up).
            Action::Worker(id, _) if Some(id) != self.workers.load => return false,
            Action::Worker(_, m) => return self.on_worker_message(m, now_ms, fx),
            Action::Cancel => {
                self.reset(fx);
                self.status = Some("Cancelled.".into());
                fx.push(Effect::Later { ms: 1_000, timer: Timer::SpawnSpare });
            }
            Action::Focus(f) => {
                if self.analysis().is_none_or(|a| f as usize >= a.findings.len()) {
                    return false;
                }
                self.focus = Some(f);
                fx.push(Effect::Chart(ChartCmd::FocusFinding(f)));
                fx.push(Effect::Reveal(Target::Timeline));
            }
            Action::Inspect(r) => {
                let (Some(load), Some(a)) = (self.workers.load, self.analysis()) else { return false };
                if r as usize >= a.reconciles.len() {
                    return false;
                }
                fx.push(Effect::Reveal(Target::Inspector));
                if self.inspector.as_ref().is_some_and(|i| i.reconcile == r && i.lines.is_some()) {
                    return false;
                }
                fx.push(Effect::Send(load, ToWorker::Inspect { reconcile: r }));
                self.inspector = Some(Inspector { reconcile: r, lines: None });
                fx.push(Effect::Chart(ChartCmd::Select(Some(r), true)));
                self.write_hash(fx);
            }
            Action::CloseInspector => {
                self.inspector = None;
                fx.push(Effect::Chart(ChartCmd::Select(None, false)));
                self.write_hash(fx);
            }
            Action::ToggleZone => {
                self.zone_local = !self.zone_local;
                fx.push(Effect::Chart(ChartCmd::SetZone));
            }
            Action::ToggleGrouping => {
                self.layout.grouping = match self.layout.grouping {
                    Grouping::ByObject => Grouping::ByLane,
                    Grouping::ByLane => Grouping::ByObject,
                };
                self.layout.collapsed.clear();
                self.relayout(true);
                self.write_hash(fx);
            }
            Action::ToggleRow(key) => {
                if !self.layout.collapsed.remove(&key) {
                    self.layout.collapsed.insert(key);
                }
                self.relayout(true);
                self.write_hash(fx);
            }
            Action::ResetView => {
                fx.push(Effect::Chart(ChartCmd::Reset));
                return false;
            }
            Action::View(v) => {
                // Not on every frame of a pan: history.replaceState is
                // rate-limited by browsers, and the fields' layout costs.
                self.view = Some(v);
                if !self.view_settling {
                    self.view_settling = true;
                    fx.push(Effect::Later { ms: 200, timer: Timer::ViewSettled });
                }
                return false;
            }
            Action::ViewSettled => {
                self.view_settling = false;
                self.write_hash(fx);
                fx.push(Effect::ShowWindow);
                return false;
            }
            Action::DumpTime(t) => {
                let (Some(load), Some(l)) = (self.workers.load, &self.loaded) else { return false };
                fx.push(Effect::Send(load, ToWorker::Reanalyze { dump_time_nanos: Some(t), layout: Some(self.layout.clone()) }));
                let files = l.files.len() as u32;
                self.loading = Some(Loading {
                    started_ms: now_ms,
                    drawn_ms: 0.0,
                    progress: Progress {
                        phase: Phase::Analyzing,
                        done_bytes: l.input_bytes,
                        total_bytes: l.input_bytes,
                        files_done: files,
                        files,
                        current: String::new(),
                        slices: 0,
                        cut_at: None,
                    },
                });
            }
            Action::FilterWindow { from, to } => {
                let parse = |t: &str| crate::time::parse_rfc3339(t.trim().as_bytes(), false, 0).map(|p| p.ts.nanos);
                match (parse(&from), parse(&to)) {
                    (Some(a), Some(b)) if b > a => {
                        self.window_error = None;
                        fx.push(Effect::Chart(ChartCmd::SetView(a, b)));
                    }
                    _ => self.window_error = Some("Write both times as RFC3339 (2026-05-26T16:29:30Z), from before to.".into()),
                }
            }
            Action::CopyLink => {
                self.write_hash(fx);
                self.open_share("this view".into(), None, now_ms, fx);
            }
            Action::ShareFinding(i) => {
                let Some(kind) = self.analysis().and_then(|a| a.findings.get(i as usize)).map(|f| f.kind.as_str()) else { return false };
                self.focus = Some(i);
                self.open_share(format!("the {kind} finding"), Some(i), now_ms, fx);
            }
            Action::ShareMaskHosts(on) => {
                self.mask_hosts = on;
                let Some(st) = self.share.take() else { return true };
                self.share_seq += 1;
                let request = ShareRequest { redact: RedactOptions { mask_hosts: on }, ..st.request };
                if let Some(load) = self.workers.load {
                    fx.push(Effect::Send(load, ToWorker::Share { seq: self.share_seq, request: request.clone() }));
                }
                self.share = Some(ShareState { title: st.title, request, seq: self.share_seq, result: None });
            }
            Action::ShareCopy => {
                let Some(Some(Ok(shared))) = self.share.as_ref().map(|s| s.result.as_ref()) else { return false };
                let Some(text) = self.share_link(shared) else { return false };
                fx.push(Effect::Copy { what: Copy::Link, text });
                return false;
            }
            Action::ShareDownload => {
                let Some(Some(Ok(shared))) = self.share.as_ref().map(|s| s.result.as_ref()) else { return false };
                let Some(file) = shared.file.as_ref().or(shared.fragment.as_ref()) else { return false };
                // A file holds the payload alone (a fragment: its ev= part).
                let payload = file.trim_start_matches("#ev=").split('&').next().unwrap_or("");
                fx.push(Effect::Download { bytes: payload.as_bytes().to_vec(), mime: "application/octet-stream", name: "evidence.reconscope" });
                self.notice = Some("Evidence file saved: drop it on reconscope to open it.".into());
            }
            Action::ShareClose => self.share = None,
            Action::OpenLink(payload) => {
                // The link's evidence goes through the load like a dropped
                // `.reconscope` file.
                self.start_load(vec![InputInfo { name: "link.reconscope".into(), size: payload.len() as u64 }], now_ms, fx);
                self.from_link = true;
                self.evidence_payload = Some(payload);
                self.names.clear();
            }
            Action::HashChanged(hash) => return self.hash_changed(&hash, now_ms, fx),
            Action::CopyMarkdown => {
                let redact = RedactOptions { mask_hosts: self.mask_hosts };
                let app_url = self.base_url.clone();
                let taken_at_nanos = Some((now_ms * 1e6) as i64);
                self.ask_text(|seq| ToWorker::Markdown { seq, app_url, taken_at_nanos, redact }, TextUse::CopyMarkdown, fx);
                return false;
            }
            Action::ExportSvg { utc_offset_secs } | Action::ExportPng { utc_offset_secs } => {
                let png = matches!(action, Action::ExportPng { .. });
                let Some(svg) = self.svg(utc_offset_secs) else { return false };
                let redact = RedactOptions { mask_hosts: self.mask_hosts };
                let use_ = if png { TextUse::SavePng } else { TextUse::SaveSvg };
                self.ask_text(|seq| ToWorker::Redact { seq, text: svg, redact }, use_, fx);
                return false;
            }
            Action::Copied { what, ok, text } => {
                let n = text.lines().count();
                let (done, noun) = match what {
                    Copy::Link => ("Link copied.".to_string(), "the link"),
                    Copy::Markdown => ("Markdown report copied.".to_string(), "the report"),
                    Copy::Line => ("Line copied.".to_string(), "the line"),
                    Copy::Lines => (format!("{} copied.", crate::words::plural(n, "line", "lines")), "the lines"),
                };
                if ok {
                    self.notice = Some(done);
                    self.manual_copy = None;
                } else {
                    self.notice = Some(format!("The clipboard is unavailable: copy {noun} below."));
                    self.manual_copy = Some(text);
                }
            }
            Action::Notice(n) => {
                self.notice = Some(shown(n));
                self.manual_copy = None;
            }
            Action::Filter(change) => self.filter(change, fx),
            Action::WrapLines(on) => self.inspector_prefs.wrap = on,
            Action::ShowFields(on) => self.inspector_prefs.fields = on,
            Action::ResizeInspector(px) => {
                let px = if px.is_finite() { px.clamp(INSPECTOR_WIDTH.1, INSPECTOR_WIDTH.2) } else { INSPECTOR_WIDTH.0 };
                if px == self.inspector_prefs.width_px {
                    return false;
                }
                self.inspector_prefs.width_px = px;
            }
            Action::CopyLine(b, l) => {
                let line = self.inspector.as_ref().and_then(|i| i.lines.as_ref()).and_then(|x| x.blocks.get(b)).and_then(|x| x.lines.get(l));
                let Some(line) = line else { return false };
                fx.push(Effect::Copy { what: Copy::Line, text: line.text.clone() });
                return false;
            }
            Action::CopyLines => {
                let Some(lines) = self.inspector.as_ref().and_then(|i| i.lines.as_ref()) else { return false };
                // Each file's path, then its lines as the log has them.
                let mut text = String::new();
                for b in &lines.blocks {
                    if lines.blocks.len() > 1 {
                        text.push_str(&format!("==> {} <==\n", b.path));
                    }
                    for l in &b.lines {
                        text.push_str(&l.text);
                        text.push('\n');
                    }
                }
                if text.is_empty() {
                    return false;
                }
                fx.push(Effect::Copy { what: Copy::Lines, text });
                return false;
            }
        }
        true
    }

    fn on_worker_message(&mut self, m: FromWorker, now_ms: f64, fx: &mut Vec<Effect>) -> bool {
        match m {
            FromWorker::Ready | FromWorker::WarmedUp | FromWorker::Part { .. } => return false,
            FromWorker::Progress(mut p) => {
                let Some(l) = &mut self.loading else { return false };
                p.current = shown(p.current);
                let same = p.phase == l.progress.phase && p.files_done == l.progress.files_done;
                l.progress = p;
                if same && now_ms - l.drawn_ms < PROGRESS_REDRAW_MS {
                    return false;
                }
                l.drawn_ms = now_ms;
            }
            FromWorker::Loaded(r) => {
                self.on_loaded(*r, now_ms, fx);
                fx.push(Effect::Later { ms: 1_000, timer: Timer::SpawnSpare });
            }
            FromWorker::Lines(lines) => match &mut self.inspector {
                Some(i) if i.reconcile == lines.reconcile => i.lines = Some(lines),
                _ => return false,
            },
            FromWorker::Matched(m) => {
                if m.seq != self.filter_seq {
                    return false;
                }
                match m.error {
                    Some(e) => {
                        self.matched = None;
                        self.filter_error = Some(e);
                    }
                    None => {
                        self.matched = Some(m.reconciles);
                        self.filter_error = None;
                    }
                }
                self.apply_filters(fx);
            }
            FromWorker::Shared { seq, result } => match &mut self.share {
                Some(st) if st.seq == seq => st.result = Some(*result),
                _ => return false,
            },
            FromWorker::Text { seq, text } => {
                let Some(k) = self.text_uses.iter().position(|(s, _)| *s == seq) else { return false };
                let (_, use_) = self.text_uses.remove(k);
                match use_ {
                    TextUse::CopyMarkdown => fx.push(Effect::Copy { what: Copy::Markdown, text }),
                    TextUse::SaveSvg => {
                        fx.push(Effect::Download { bytes: text.into_bytes(), mime: "image/svg+xml", name: "reconscope-timeline.svg" });
                        self.notice = Some("SVG exported.".into());
                        self.manual_copy = None;
                    }
                    TextUse::SavePng => fx.push(Effect::SavePng(text)),
                }
                return use_ == TextUse::SaveSvg;
            }
            FromWorker::Failed { message } => self.status = Some(shown(message)),
        }
        true
    }

    /// Stops any load and forgets the last result.
    fn reset(&mut self, fx: &mut Vec<Effect>) {
        if let Some(id) = self.workers.load.take() {
            fx.push(Effect::Terminate(id));
        }
        self.loading = None;
        self.loaded = None;
        self.chart_stale = None;
        self.timeline = Rc::default();
        self.inspector = None;
        self.focus = None;
        self.status = None;
        self.layout = LayoutOptions::default();
        self.view = None;
        self.view_settling = false;
        self.restore_view = None;
        self.notice = None;
        self.manual_copy = None;
        self.share = None;
        self.evidence = None;
        self.evidence_payload = None;
        self.from_link = false;
        self.text_uses.clear();
        self.filters = Filters::default();
        self.matched = None;
        self.filter_error = None;
        self.duration_error = None;
        self.window_error = None;
    }

    /// The cap "Read at most" sets (`None`: empty, what the tab holds).
    pub fn read_cap(&self) -> Result<Option<u64>, String> {
        match self.read_at_most.trim() {
            "" => Ok(None),
            t => match crate::ingest::parse_bytes(t) {
                Ok(0) => Err("must be more than 0 bytes".into()),
                Ok(n) => Ok(Some(n)),
                Err(e) => Err(e),
            },
        }
    }

    /// The banner over what was loaded when a cap left inputs out: how
    /// much was read of how much, and how much of it the CLI reads.
    pub fn left_out_banner(&self) -> Option<String> {
        let l = self.loaded.as_ref().filter(|l| !l.left_out.is_empty())?;
        let (kept, size): (u64, u64) = l.left_out.iter().fold((0, 0), |(k, s), x| (k + x.kept_bytes, s + x.size_bytes));
        let whole: u64 = l.input_bytes.saturating_sub(size);
        let names: Vec<String> = l.left_out.iter().take(3).map(|x| crate::inert::label(crate::model::file_name(&x.path)).into_owned()).collect();
        let more = if l.left_out.len() > 3 { format!(" and {} more", l.left_out.len() - 3) } else { String::new() };
        let why = match l.left_out[0].reason {
            LeftOutReason::Tab { bytes } => format!("the tab holds at most {} of logs", crate::ingest::human_bytes(bytes)),
            LeftOutReason::Cap { bytes } => format!("\"Read at most\" is {}", crate::ingest::human_bytes(bytes)),
        };
        let biggest = l.left_out.iter().map(|x| x.size_bytes).max().unwrap_or(0);
        Some(format!(
            "Read {} of {}: the last {} of {}{more} were left out ({why}). What is shown ends there; the CLI reads {}: reconscope analyze {}",
            crate::ingest::human_bytes(whole + kept),
            crate::ingest::human_bytes(l.input_bytes),
            crate::ingest::human_bytes(size - kept),
            names.join(", "),
            crate::web::cli_reads(biggest),
            names.first().map_or("FILE", |n| n.as_str()),
        ))
    }

    fn start_load(&mut self, inputs: Vec<InputInfo>, now_ms: f64, fx: &mut Vec<Effect>) {
        // The artifact dropped onto the evidence of a link: the link's view
        // applies to the whole data.
        if self.evidence.is_some() && self.pending.is_none() {
            let mut f = self.fragment();
            f.ev = None;
            self.pending = Some(f);
        }
        let max_total_bytes = match self.read_cap() {
            Ok(c) => c,
            Err(e) => {
                self.status = Some(format!("Nothing was loaded: \"Read at most\" {e}."));
                return;
            }
        };
        self.reset(fx);
        self.names = inputs.iter().map(|i| i.name.clone()).collect();
        let Some(first) = inputs.first() else { return };
        // The spare worker, warmed up as the page opened; else a new one.
        let id = match self.workers.spare.take() {
            Some(id) => id,
            None => {
                let id = self.workers.new_id();
                fx.push(Effect::Spawn(id));
                id
            }
        };
        self.workers.spare_warm = false;
        let total: u64 = inputs.iter().map(|i| i.size).sum();
        let files = inputs.len() as u32;
        fx.push(Effect::Send(id, ToWorker::Begin { files, total_bytes: total, max_total_bytes }));
        self.loading = Some(Loading {
            started_ms: now_ms,
            drawn_ms: 0.0,
            progress: Progress {
                phase: Phase::Reading,
                done_bytes: 0,
                total_bytes: total,
                files_done: 0,
                files,
                current: shown(first.name.clone()),
                slices: 0,
                cut_at: None,
            },
        });
        // The worker lays out the first view too, with the grouping and
        // folds of the fragment the page was opened with.
        let mut first = LayoutOptions::default();
        if let Some(f) = &self.pending {
            if let Some(lanes) = f.lanes {
                first.grouping = if lanes { Grouping::ByLane } else { Grouping::ByObject };
            }
            first.collapsed = f.collapsed.iter().cloned().collect();
        }
        fx.push(Effect::SendInputs { worker: id, finish: ToWorker::Finish { layout: Some(first) } });
        self.workers.load = Some(id);
    }

    fn on_loaded(&mut self, r: LoadResult, now_ms: f64, fx: &mut Vec<Effect>) {
        let started = self.loading.take().map_or(now_ms, |l| l.started_ms);
        let LoadResult { analysis: a, files, notes, input_bytes, timeline, layout: laid_out, evidence, left_out, .. } = r;
        if self.from_link && evidence.is_none() {
            // A link whose evidence could not be read: say why, and stay on
            // the landing page.
            let why = notes.first().map_or("it holds no evidence".to_string(), |n| n.message.clone());
            self.reset(fx);
            self.pending = None;
            self.names.clear();
            self.status = Some(format!("This link could not be opened: {why}. Drop the artifact it was made from instead."));
            return;
        }
        if a.reconciles.is_empty() {
            self.status = Some("No controller-runtime reconciles were found in these inputs.".into());
        }
        if let Some(m) = &evidence {
            self.names = vec![m.artifact.clone()];
        }
        self.evidence = evidence;
        fx.push(Effect::Chart(ChartCmd::SetZone));
        self.loads += 1;
        let seq = self.loads;
        self.loaded = Some(Loaded { analysis: Rc::new(a), files, notes, input_bytes, millis: now_ms - started, left_out, seq });
        if let Some(f) = self.pending.take() {
            self.apply_fragment(f, fx);
        }
        // The worker laid out the first view (unless the options changed
        // meanwhile): no layout of every bar on this thread.
        match timeline {
            Some(t) if laid_out.as_ref() == Some(&self.layout) => {
                self.timeline = Rc::new(t);
                self.chart_stale = Some(false);
            }
            _ => self.relayout(false),
        }
        if self.filters != Filters::default() {
            self.refilter(fx);
        }
    }

    /// Applies a fragment's view to what is loaded: rows, folds, filters,
    /// window, selection.
    fn apply_fragment(&mut self, f: Fragment, fx: &mut Vec<Effect>) {
        if let Some(lanes) = f.lanes {
            self.layout.grouping = if lanes { Grouping::ByLane } else { Grouping::ByObject };
        }
        self.layout.collapsed = f.collapsed.into_iter().collect();
        self.filters = Filters { pattern: f.q, min_level: f.level, controller: f.ctl, object: f.obj, longer_than: f.longer };
        self.restore_view = f.window;
        // The view is the fragment's from now on, before the chart has
        // drawn it (an artifact dropped right after keeps it).
        if f.window.is_some() {
            self.view = f.window;
        }
        let idx = f.sel.as_ref().and_then(|id| self.analysis()?.reconciles.iter().position(|r| &r.reconcile_id == id));
        if let (Some(i), Some(load)) = (idx, self.workers.load) {
            fx.push(Effect::Send(load, ToWorker::Inspect { reconcile: i as u32 }));
            self.inspector = Some(Inspector { reconcile: i as u32, lines: None });
        }
    }

    fn hash_changed(&mut self, hash: &str, now_ms: f64, fx: &mut Vec<Effect>) -> bool {
        let f = fragment::parse(hash);
        // (Compared as written: the address holds no default values.)
        if f == fragment::parse(&fragment::format(&self.fragment())) {
            return false;
        }
        match f.ev.clone() {
            // Another link's evidence, and no artifact of the person's own
            // on the page: show it.
            Some(ev) if self.evidence_payload.as_deref() != Some(ev.as_str()) && (self.loaded.is_none() || self.evidence.is_some()) => {
                self.pending = Some(f);
                self.step(Action::OpenLink(ev), now_ms, fx);
            }
            _ if self.loaded.is_some() => {
                let window = f.window;
                self.apply_fragment(f, fx);
                self.relayout(true);
                if let Some((a, b)) = window {
                    fx.push(Effect::Chart(ChartCmd::SetView(a, b)));
                }
                self.restore_view = None;
                self.refilter(fx);
            }
            _ => self.pending = Some(f),
        }
        true
    }

    fn filter(&mut self, change: FilterChange, fx: &mut Vec<Effect>) {
        match change {
            FilterChange::Text(p) => {
                self.filters.pattern = p;
                self.refilter(fx);
            }
            FilterChange::Level(l) => {
                self.filters.min_level = l.min(3);
                self.refilter(fx);
            }
            FilterChange::Controller(c) => {
                self.filters.controller = c;
                self.apply_filters(fx);
            }
            FilterChange::Object(o) => {
                self.filters.object = o;
                self.apply_filters(fx);
            }
            FilterChange::LongerThan(t) => {
                self.filters.longer_than = t;
                self.apply_filters(fx);
            }
        }
    }

    /// Asks the worker for the text/level matches, or applies the other
    /// filters at once when there is no text/level filter.
    fn refilter(&mut self, fx: &mut Vec<Effect>) {
        let filter = MessageFilter { pattern: self.filters.pattern.clone(), min_level: self.filters.min_level };
        self.filter_seq += 1;
        if filter.is_empty() {
            self.matched = None;
            self.filter_error = None;
            self.apply_filters(fx);
        } else if let Some(load) = self.workers.load {
            fx.push(Effect::Send(load, ToWorker::Filter { seq: self.filter_seq, filter }));
        }
    }

    /// Sets `LayoutOptions::only` from the filters and lays out again,
    /// keeping the chart's window where it is.
    fn apply_filters(&mut self, fx: &mut Vec<Effect>) {
        let Some(l) = &self.loaded else { return };
        let a = &l.analysis;
        let f = &self.filters;
        let min_nanos = match f.longer_than.trim() {
            "" => {
                self.duration_error = None;
                None
            }
            t => match crate::time::parse_duration(t) {
                Ok(n) => {
                    self.duration_error = None;
                    Some(n)
                }
                Err(e) => {
                    self.duration_error = Some(e);
                    None
                }
            },
        };
        let only = if self.matched.is_none() && f.controller.is_empty() && f.object.is_empty() && min_nanos.is_none() {
            None
        } else {
            let ctl = a.controllers.iter().position(|c| c.id == f.controller);
            let obj = f.object.to_lowercase();
            let mut keep = vec![self.matched.is_none(); a.reconciles.len()];
            for &i in self.matched.iter().flatten() {
                if let Some(k) = keep.get_mut(i as usize) {
                    *k = true;
                }
            }
            if let Some(min) = min_nanos {
                let longer: BTreeSet<u32> = crate::web::reconciles_longer_than(&a.reconciles, min).into_iter().collect();
                for (i, k) in keep.iter_mut().enumerate() {
                    *k = *k && longer.contains(&(i as u32));
                }
            }
            Some(
                a.reconciles
                    .iter()
                    .enumerate()
                    .filter(|(i, r)| {
                        keep[*i]
                            && (f.controller.is_empty() || Some(r.controller) == ctl)
                            && (obj.is_empty() || r.object.as_ref().is_some_and(|o| o.to_string().to_lowercase().contains(&obj)))
                    })
                    .map(|(i, _)| i as u32)
                    .collect(),
            )
        };
        if only != self.layout.only {
            self.layout.only = only;
            self.relayout(true);
        }
        self.write_hash(fx);
    }

    fn relayout(&mut self, keep_view: bool) {
        if let Some(l) = &self.loaded {
            self.timeline = Rc::new(layout(&l.analysis, &self.layout));
            self.chart_stale = Some(keep_view);
        }
    }

    fn write_hash(&self, fx: &mut Vec<Effect>) {
        if self.loaded.is_some() && self.pending.is_none() {
            fx.push(Effect::WriteHash(fragment::format(&self.fragment())));
        }
    }

    /// Asks the worker for a slice to share, and opens the dialog.
    fn open_share(&mut self, title: String, finding: Option<u32>, now_ms: f64, fx: &mut Vec<Effect>) {
        let Some(load) = self.workers.load else { return };
        self.share_seq += 1;
        let selected = match finding {
            Some(_) => None,
            None => self.inspector.as_ref().map(|i| i.reconcile),
        };
        let request = ShareRequest {
            finding: finding.or(self.focus.filter(|_| selected.is_none())),
            window: if finding.is_some() { None } else { self.view },
            selected,
            taken_at_nanos: Some((now_ms * 1e6) as i64),
            redact: RedactOptions { mask_hosts: self.mask_hosts },
            max_payload_bytes: crate::evidence::link_budget(&self.base_url) as u64,
        };
        fx.push(Effect::Send(load, ToWorker::Share { seq: self.share_seq, request: request.clone() }));
        self.share = Some(ShareState { title, request, seq: self.share_seq, result: None });
        fx.push(Effect::Reveal(Target::ShareDialog));
    }

    fn ask_text(&mut self, msg: impl FnOnce(u32) -> ToWorker, use_: TextUse, fx: &mut Vec<Effect>) {
        let Some(load) = self.workers.load else { return };
        self.text_seq += 1;
        fx.push(Effect::Send(load, msg(self.text_seq)));
        self.text_uses.push((self.text_seq, use_));
    }

    /// The SVG of the current view, titled with the inputs' names.
    fn svg(&self, utc_offset_secs: i32) -> Option<String> {
        let l = self.loaded.as_ref()?;
        let view = crate::render::View { window: self.view, utc_offset_secs, title: crate::render::artifact_name(&self.names), ..Default::default() };
        Some(crate::render::svg(&l.analysis, &self.timeline, &view))
    }
}

#[cfg(test)]
#[path = "state_tests.rs"]
mod tests;
