//! reconscope browser UI (Yew, client-side rendering).
//!
//! Built by trunk for `wasm32-unknown-unknown` with the `web` feature
//! (see `Trunk.toml` and `www/index.html`). Everything runs in the tab:
//! the inputs are read, parsed and analyzed in a Web Worker
//! (`src/bin/worker.rs`, protocol in `reconscope::web`); the page lays the
//! analysis out (`reconscope::layout`) and paints it on a canvas.
//! Nothing is sent anywhere.
//!
//! Content-Security-Policy note: the page forbids inline styles, so never
//! render a `style="..."` attribute here; use classes from `www/style.css`
//! (setting `element.style` properties from code is allowed).

#[cfg(target_arch = "wasm32")]
mod chart;
#[cfg(target_arch = "wasm32")]
mod client;
#[cfg(target_arch = "wasm32")]
mod goroutines;
#[cfg(target_arch = "wasm32")]
mod input;
#[cfg(target_arch = "wasm32")]
mod panels;
#[cfg(target_arch = "wasm32")]
mod share;
#[cfg(target_arch = "wasm32")]
mod timefmt;

#[cfg(target_arch = "wasm32")]
mod ui {
    use std::rc::Rc;

    use gloo::events::{EventListener, EventListenerOptions};
    use gloo::timers::callback::Timeout;
    use reconscope::analyze::Analysis;
    use reconscope::evidence::EvidenceMeta;
    use reconscope::layout::{layout, Grouping, LayoutOptions, Timeline};
    use reconscope::redact::RedactOptions;
    use reconscope::web::{FileSummary, FromWorker, MessageFilter, Note, Phase, Progress, ReconcileLines, ShareRequest, SharedEvidence, ToWorker};
    use wasm_bindgen::JsCast;
    use wasm_bindgen_futures::spawn_local;
    use web_sys::{DragEvent, Event, HtmlCanvasElement, HtmlElement, HtmlInputElement, HtmlSelectElement, InputEvent};
    use yew::prelude::*;

    use crate::chart::{Chart, ChartEvents};
    use crate::client::{Role, WorkerClient};
    use crate::input::{self, Input};
    use crate::panels;
    use crate::share;
    use crate::timefmt::{self, Zone};

    /// Which of the workers the page started a message came from: a spare
    /// warming up and the load's worker both talk to the page.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct WorkerId(u32);

    pub enum Msg {
        Ready,
        Chosen(Vec<Input>),
        PickFolder,
        OpenExample,
        Failed(String),
        DragOver,
        DragLeave,
        /// A message from the worker `WorkerId` (the load's or the spare).
        Worker(WorkerId, FromWorker),
        /// The worker `WorkerId` could not start or stopped unexpectedly.
        WorkerFailed(WorkerId, String),
        Cancel,
        /// Start (and warm up) a spare worker, if there is none.
        SpawnSpare,
        Focus(u32),
        Inspect(u32),
        CloseInspector,
        ToggleZone,
        ToggleGrouping,
        ToggleRow(String),
        ResetView,
        /// The chart's window changed (absolute ns).
        View((i64, i64)),
        /// The chart's window has not moved for a moment: put it in the
        /// URL and the from/to fields.
        ViewSettled,
        /// The time a person gives for goroutine dumps nothing dates.
        DumpTime(i64),
        /// Open the share dialog for the current view (Copy link).
        CopyLink,
        /// Open the share dialog for one finding.
        ShareFinding(u32),
        /// The share dialog's "also mask IPs and host names".
        ShareMaskHosts(bool),
        /// Copy the dialog's link.
        ShareCopy,
        /// Save the dialog's slice as a `.reconscope` file.
        ShareDownload,
        ShareClose,
        /// Open the evidence of a link (its `ev=` payload).
        OpenLink(String),
        /// The URL fragment changed (a link pasted into this tab).
        HashChanged,
        CopyMarkdown,
        ExportSvg,
        ExportPng,
        /// A share action ended: a notice, and text to select by hand when
        /// the clipboard was unavailable.
        Shared(String, Option<String>),
        FilterMessage(String),
        FilterLevel(u8),
        FilterController(String),
        FilterObject(String),
        /// The window typed in the Filters panel: (from, to) text.
        FilterWindow,
    }

    /// The Filters panel's values.
    #[derive(Clone, Debug, Default, PartialEq)]
    pub struct Filters {
        /// Regex over messages (case-insensitive), matched in the worker.
        pub pattern: String,
        /// 0 any, 1 info, 2 warn, 3 error.
        pub min_level: u8,
        /// A controller instance's id (empty: all).
        pub controller: String,
        /// Substring of the namespace/name (case-insensitive).
        pub object: String,
    }

    struct Loading {
        started_ms: f64,
        progress: Progress,
        /// When the progress was last drawn (see [`PROGRESS_REDRAW_MS`]).
        drawn_ms: f64,
    }

    /// Progress is drawn at most this often while a phase goes on: the
    /// worker acknowledges every 8 MiB slice (30 times a second and more),
    /// and each drawing is a render of the whole page that takes the CPU
    /// from the worker on a small machine.
    const PROGRESS_REDRAW_MS: f64 = 150.0;

    /// A finished load.
    pub struct Loaded {
        pub analysis: Rc<Analysis>,
        pub files: Vec<FileSummary>,
        pub notes: Vec<Note>,
        pub input_bytes: u64,
        pub millis: f64,
    }

    pub struct Inspector {
        pub reconcile: u32,
        pub lines: Option<ReconcileLines>,
    }

    /// The share dialog: what is being shared, and the worker's slice.
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

    /// A link must fit an issue comment (see `reconscope::evidence`).
    fn link_budget() -> u64 {
        reconscope::evidence::link_budget(&share::base()) as u64
    }

    pub struct App {
        ready: bool,
        client: Option<Rc<WorkerClient>>,
        /// A worker started before it is needed and warmed up
        /// ([`ToWorker::WarmUp`]), taken by the next load.
        spare: Option<Rc<WorkerClient>>,
        /// The ids of `client` and `spare` (each `Some` when they are).
        client_id: Option<WorkerId>,
        spare_id: Option<WorkerId>,
        /// The id of the next worker started.
        next_worker: u32,
        /// The spare has warmed up.
        spare_warm: bool,
        /// Starts the next spare a moment after a load (not during it).
        spare_timer: Option<Timeout>,
        names: Vec<String>,
        dragging: bool,
        loading: Option<Loading>,
        status: Option<String>,
        loaded: Option<Loaded>,
        layout_opts: LayoutOptions,
        timeline: Rc<Timeline>,
        chart: Option<Chart>,
        /// The chart needs the current timeline (`Some(keep_view)`).
        chart_stale: Option<bool>,
        canvas_ref: NodeRef,
        tooltip_ref: NodeRef,
        zone: Zone,
        focus: Option<u32>,
        inspector: Option<Inspector>,
        folder_listener: Option<EventListener>,
        /// The chart's window (absolute ns), kept in the URL fragment.
        view: Option<(i64, i64)>,
        /// The fragment the page was opened with, applied to the next load.
        pending: Option<share::Fragment>,
        /// The view to restore once the chart has the new timeline.
        restore_view: Option<(i64, i64)>,
        share_notice: Option<String>,
        /// Text to copy by hand (the clipboard was unavailable).
        share_text: Option<String>,
        share_ref: NodeRef,
        /// What was loaded is evidence (a link or a `.reconscope` file).
        evidence: Option<EvidenceMeta>,
        /// The `ev=` payload of the link shown (kept in the fragment).
        evidence_payload: Option<String>,
        /// The load running or shown came from a link.
        from_link: bool,
        share: Option<ShareState>,
        share_seq: u32,
        mask_hosts: bool,
        text_seq: u32,
        text_uses: Vec<(u32, TextUse)>,
        _hashchange: Option<EventListener>,
        filters: Filters,
        /// The worker's answer for the message/level filter (`None`: no
        /// such filter, or it failed).
        matched: Option<Vec<u32>>,
        filter_error: Option<String>,
        window_error: Option<String>,
        filter_seq: u32,
        from_ref: NodeRef,
        to_ref: NodeRef,
        /// Pending [`Msg::ViewSettled`].
        view_timer: Option<Timeout>,
        /// Stable callbacks for the findings panel (so it renders again
        /// only when its data changes).
        on_focus: Callback<u32>,
        on_inspect: Callback<u32>,
        on_share: Callback<u32>,
        /// Drops outside the drop zone load too (instead of the browser
        /// opening the file and leaving the page).
        _window_drop: Vec<EventListener>,
    }

    fn now_ms() -> f64 {
        js_sys::Date::now()
    }

    impl App {
        /// Stops any load and forgets the last result.
        fn reset(&mut self) {
            self.client = None; // terminates the worker
            self.client_id = None;
            self.loading = None;
            self.loaded = None;
            self.chart = None;
            self.chart_stale = None;
            self.timeline = Rc::default();
            self.inspector = None;
            self.focus = None;
            self.status = None;
            self.layout_opts = LayoutOptions::default();
            self.view = None;
            self.view_timer = None;
            self.restore_view = None;
            self.share_notice = None;
            self.share_text = None;
            self.share = None;
            self.evidence = None;
            self.evidence_payload = None;
            self.from_link = false;
            self.text_uses.clear();
            self.filters = Filters::default();
            self.matched = None;
            self.filter_error = None;
        }

        /// Asks the worker for a slice to share, and opens the dialog.
        fn open_share(&mut self, title: String, finding: Option<u32>) {
            let Some(client) = &self.client else { return };
            self.share_seq += 1;
            let selected = match finding {
                Some(_) => None,
                None => self.inspector.as_ref().map(|i| i.reconcile),
            };
            let request = ShareRequest {
                finding: finding.or(self.focus.filter(|_| selected.is_none())),
                window: if finding.is_some() { None } else { self.view },
                selected,
                taken_at_nanos: Some((now_ms() * 1e6) as i64),
                redact: RedactOptions { mask_hosts: self.mask_hosts },
                max_payload_bytes: link_budget(),
            };
            client.send(&ToWorker::Share { seq: self.share_seq, request: request.clone() });
            self.share = Some(ShareState { title, request, seq: self.share_seq, result: None });
        }

        /// Asks the worker for a text (the Markdown, a redacted SVG).
        fn ask_text(&mut self, msg: impl FnOnce(u32) -> ToWorker, use_: TextUse) {
            let Some(client) = &self.client else { return };
            self.text_seq += 1;
            client.send(&msg(self.text_seq));
            self.text_uses.push((self.text_seq, use_));
        }

        /// The link the dialog offers: the evidence, then the view.
        fn share_link(&self, shared: &SharedEvidence) -> Option<String> {
            let fragment = shared.fragment.as_ref()?;
            let mut view = self.fragment();
            view.ev = None;
            view.window = None;
            view.sel = None;
            let extra = share::format(&view);
            let extra = extra.trim_start_matches('#');
            let sep = if extra.is_empty() { "" } else { "&" };
            Some(format!("{}{fragment}{sep}{extra}", share::base()))
        }

        /// Applies a fragment's view to what is loaded: rows, folds,
        /// filters, window, selection.
        fn apply_fragment(&mut self, f: share::Fragment) {
            if let Some(lanes) = f.lanes {
                self.layout_opts.grouping = if lanes { Grouping::ByLane } else { Grouping::ByObject };
            }
            self.layout_opts.collapsed = f.collapsed.into_iter().collect();
            self.filters = Filters { pattern: f.q, min_level: f.level, controller: f.ctl, object: f.obj };
            self.restore_view = f.window;
            // The view is the fragment's from now on, before the chart has
            // drawn it (an artifact dropped right after keeps it).
            if f.window.is_some() {
                self.view = f.window;
            }
            let a = self.loaded.as_ref().map(|l| l.analysis.clone());
            let idx = f.sel.as_ref().and_then(|id| a.as_ref()?.reconciles.iter().position(|r| &r.reconcile_id == id));
            if let (Some(i), Some(client)) = (idx, &self.client) {
                client.send(&ToWorker::Inspect { reconcile: i as u32 });
                self.inspector = Some(Inspector { reconcile: i as u32, lines: None });
            }
        }

        /// Asks the worker for the message/level matches, or applies the
        /// other filters at once when there is no message/level filter.
        fn refilter(&mut self) {
            let filter = MessageFilter { pattern: self.filters.pattern.clone(), min_level: self.filters.min_level };
            self.filter_seq += 1;
            if filter.is_empty() {
                self.matched = None;
                self.filter_error = None;
                self.apply_filters();
            } else if let Some(client) = &self.client {
                client.send(&ToWorker::Filter { seq: self.filter_seq, filter });
            }
        }

        /// Shows the chart's window in the Filters panel's from/to fields
        /// (unless one is being edited).
        fn show_window(&self) {
            let Some((a, b)) = self.view else { return };
            let active = web_sys::window().and_then(|w| w.document()).and_then(|d| d.active_element());
            for (r, t) in [(&self.from_ref, a), (&self.to_ref, b)] {
                if let Some(i) = r.cast::<HtmlInputElement>() {
                    if active.as_ref() != Some(i.as_ref()) {
                        // (Without a year in the logs, as `--04-23T…`.)
                        let mut ts = reconscope::model::Timestamp::new(t, 3);
                        ts.yearless = self.zone.yearless;
                        i.set_value(&ts.to_string());
                    }
                }
            }
        }

        /// Sets `LayoutOptions::only` from the filters and lays out again.
        fn apply_filters(&mut self) {
            let Some(l) = &self.loaded else { return };
            let a = &l.analysis;
            let f = &self.filters;
            let only = if self.matched.is_none() && f.controller.is_empty() && f.object.is_empty() {
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
            if only != self.layout_opts.only {
                self.layout_opts.only = only;
                self.relayout(true);
            }
            self.write_hash();
        }

        /// The view as a fragment.
        fn fragment(&self) -> share::Fragment {
            let sel = match (&self.loaded, &self.inspector) {
                (Some(l), Some(i)) => l.analysis.reconciles.get(i.reconcile as usize).map(|r| r.reconcile_id.clone()),
                _ => None,
            };
            share::Fragment {
                ev: self.evidence_payload.clone(),
                window: self.view,
                lanes: Some(self.layout_opts.grouping == Grouping::ByLane),
                collapsed: self.layout_opts.collapsed.iter().cloned().collect(),
                sel,
                q: self.filters.pattern.clone(),
                level: self.filters.min_level,
                ctl: self.filters.controller.clone(),
                obj: self.filters.object.clone(),
            }
        }

        /// Puts the view into `location.hash` (no reload, no request).
        fn write_hash(&self) {
            if self.loaded.is_some() && self.pending.is_none() {
                share::replace(&share::format(&self.fragment()));
            }
        }

        /// The SVG of the current view (window, zone), titled with the
        /// loaded files' names.
        fn svg(&self) -> Option<String> {
            let l = self.loaded.as_ref()?;
            let start = self.view.map_or(self.timeline.start_nanos, |v| v.0);
            let view = reconscope::render::View {
                window: self.view,
                utc_offset_secs: self.zone.offset_secs(start) as i32,
                title: reconscope::render::artifact_name(&self.names),
                ..Default::default()
            };
            Some(reconscope::render::svg(&l.analysis, &self.timeline, &view))
        }

        fn start_load(&mut self, ctx: &Context<Self>, inputs: Vec<Input>) {
            // The artifact dropped onto the evidence of a link: the link's
            // view applies to the whole data.
            if self.evidence.is_some() && self.pending.is_none() {
                let mut f = self.fragment();
                f.ev = None;
                self.pending = Some(f);
            }
            self.reset();
            self.names = inputs.iter().map(|i| i.name.clone()).collect();
            if inputs.is_empty() {
                return;
            }
            // The spare worker, warmed up as the page opened, if it is
            // still well; else a new one.
            let spare = self.spare.take().zip(self.spare_id.take()).filter(|(c, _)| c.usable());
            self.spare_warm = false;
            let (client, id) = match spare.map_or_else(|| self.spawn_worker(ctx), Ok) {
                Ok(c) => c,
                Err(e) => {
                    self.status = Some(e);
                    return;
                }
            };
            let total: u64 = inputs.iter().map(|i| i.blob.size() as u64).sum();
            let files = inputs.len() as u32;
            client.send(&ToWorker::Begin { files, total_bytes: total });
            self.loading = Some(Loading {
                started_ms: now_ms(),
                drawn_ms: 0.0,
                progress: Progress {
                    phase: Phase::Reading,
                    done_bytes: 0,
                    total_bytes: total,
                    files_done: 0,
                    files,
                    current: inputs[0].name.clone(),
                    slices: 0,
                },
            });
            // This thread reads the files in slices and sends them to the
            // worker, which parses one while the next is read. The worker
            // also lays out the first view, with the grouping and folds of
            // the fragment the page was opened with (see on_loaded).
            let mut first = LayoutOptions::default();
            if let Some(f) = &self.pending {
                if let Some(lanes) = f.lanes {
                    first.grouping = if lanes { Grouping::ByLane } else { Grouping::ByObject };
                }
                first.collapsed = f.collapsed.iter().cloned().collect();
            }
            let inputs = inputs.into_iter().map(|i| (i.name, i.blob)).collect();
            client.send_inputs(inputs, ToWorker::Finish { layout: Some(first) });
            self.client = Some(client);
            self.client_id = Some(id);
        }

        fn relayout(&mut self, keep_view: bool) {
            if let Some(l) = &self.loaded {
                self.timeline = Rc::new(layout(&l.analysis, &self.layout_opts));
                self.chart_stale = Some(keep_view);
            }
        }

        /// Starts a worker, its messages tagged with a new id.
        fn spawn_worker(&mut self, ctx: &Context<Self>) -> Result<(Rc<WorkerClient>, WorkerId), String> {
            let id = WorkerId(self.next_worker);
            self.next_worker += 1;
            let on_message = ctx.link().callback(move |m| Msg::Worker(id, m));
            let on_error = ctx.link().callback(move |e| Msg::WorkerFailed(id, e));
            WorkerClient::spawn(Role::Main, on_message, on_error).map(|c| (Rc::new(c), id))
        }

        /// Starts the next spare worker a second from now.
        fn spare_later(&mut self, ctx: &Context<Self>) {
            let link = ctx.link().clone();
            self.spare_timer = Some(Timeout::new(1_000, move || link.send_message(Msg::SpawnSpare)));
        }

        fn on_loaded(&mut self, r: reconscope::web::LoadResult) {
            let started = self.loading.take().map(|l| l.started_ms).unwrap_or_else(now_ms);
            let reconscope::web::LoadResult { analysis: a, files, notes, input_bytes, timeline, layout: laid_out, evidence, .. } = r;
            if self.from_link && evidence.is_none() {
                // A link whose evidence could not be read: say why, and
                // stay on the landing page.
                let why = notes.first().map_or("it holds no evidence".to_string(), |n| n.message.clone());
                self.reset();
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
            // No year in the logs: no date shows one.
            self.zone.yearless = a.year_unknown;
            if let Some(c) = &self.chart {
                c.set_zone(self.zone);
            }
            self.loaded = Some(Loaded { analysis: Rc::new(a), files, notes, input_bytes, millis: now_ms() - started });
            if let Some(f) = self.pending.take() {
                self.apply_fragment(f);
            }
            // The worker laid out the first view (unless the options
            // changed meanwhile): no layout of every bar on this thread.
            match timeline {
                Some(t) if laid_out.as_ref() == Some(&self.layout_opts) => {
                    self.timeline = Rc::new(t);
                    self.chart_stale = Some(false);
                }
                _ => self.relayout(false),
            }
            if self.filters != Filters::default() {
                self.refilter();
            }
        }
    }

    impl Component for App {
        type Message = Msg;
        type Properties = ();

        fn create(ctx: &Context<Self>) -> Self {
            ctx.link().send_message(Msg::Ready);
            let mut window_drop = Vec::new();
            if let Some(window) = web_sys::window() {
                let opts = EventListenerOptions::enable_prevent_default();
                window_drop.push(EventListener::new_with_options(&window, "dragover", opts, |e| e.prevent_default()));
                let link = ctx.link().clone();
                window_drop.push(EventListener::new_with_options(&window, "drop", opts, move |e| {
                    // The drop zone's own handler already took it.
                    if e.default_prevented() {
                        return;
                    }
                    e.prevent_default();
                    let Some(dt) = e.dyn_ref::<DragEvent>().and_then(|d| d.data_transfer()) else { return };
                    let pending = input::dropped(&dt);
                    let link = link.clone();
                    spawn_local(async move {
                        match pending.await {
                            Ok(inputs) if !inputs.is_empty() => link.send_message(Msg::Chosen(inputs)),
                            Ok(_) => {}
                            Err(e) => link.send_message(Msg::Failed(e)),
                        }
                    });
                }));
            }
            ctx.link().send_message(Msg::SpawnSpare);
            let pending = {
                let f = share::parse(&share::current());
                (f != share::Fragment::default()).then_some(f)
            };
            if let Some(ev) = pending.as_ref().and_then(|f| f.ev.clone()) {
                ctx.link().send_message(Msg::OpenLink(ev));
            }
            let hashchange = web_sys::window().map(|w| {
                let link = ctx.link().clone();
                EventListener::new(&w, "hashchange", move |_| link.send_message(Msg::HashChanged))
            });
            App {
                ready: false,
                client: None,
                spare: None,
                client_id: None,
                spare_id: None,
                next_worker: 0,
                spare_warm: false,
                spare_timer: None,
                names: Vec::new(),
                dragging: false,
                loading: None,
                status: None,
                loaded: None,
                layout_opts: LayoutOptions::default(),
                timeline: Rc::default(),
                chart: None,
                chart_stale: None,
                canvas_ref: NodeRef::default(),
                tooltip_ref: NodeRef::default(),
                zone: Zone::UTC,
                focus: None,
                inspector: None,
                folder_listener: None,
                view: None,
                pending,
                restore_view: None,
                share_notice: None,
                share_text: None,
                share_ref: NodeRef::default(),
                evidence: None,
                evidence_payload: None,
                from_link: false,
                share: None,
                share_seq: 0,
                mask_hosts: false,
                text_seq: 0,
                text_uses: Vec::new(),
                _hashchange: hashchange,
                filters: Filters::default(),
                matched: None,
                filter_error: None,
                filter_seq: 0,
                window_error: None,
                from_ref: NodeRef::default(),
                to_ref: NodeRef::default(),
                view_timer: None,
                on_focus: ctx.link().callback(Msg::Focus),
                on_inspect: ctx.link().callback(Msg::Inspect),
                on_share: ctx.link().callback(Msg::ShareFinding),
                _window_drop: window_drop,
            }
        }

        fn update(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
            match msg {
                Msg::Ready => self.ready = true,
                Msg::SpawnSpare => {
                    self.spare_timer = None;
                    if self.spare.as_ref().is_some_and(|c| c.usable()) || self.loading.is_some() {
                        return false;
                    }
                    self.spare_warm = false;
                    (self.spare, self.spare_id) = self.spawn_worker(ctx).ok().unzip();
                    if let Some(c) = &self.spare {
                        c.send(&ToWorker::WarmUp);
                    }
                }
                Msg::Chosen(inputs) => self.start_load(ctx, inputs),
                Msg::PickFolder => {
                    // A second <input type=file> made on the fly, never in
                    // the page: `webkitdirectory` picks a whole folder.
                    let Some(doc) = web_sys::window().and_then(|w| w.document()) else { return false };
                    let Some(el) = doc.create_element("input").ok().and_then(|e| e.dyn_into::<HtmlInputElement>().ok()) else {
                        return false;
                    };
                    el.set_type("file");
                    el.set_multiple(true);
                    el.set_webkitdirectory(true);
                    let link = ctx.link().clone();
                    let target = el.clone();
                    self.folder_listener = Some(EventListener::once(&el, "change", move |_| {
                        if let Some(list) = target.files() {
                            link.send_message(Msg::Chosen(input::from_file_list(&list)));
                        }
                    }));
                    el.click();
                    return false;
                }
                Msg::OpenExample => {
                    let link = ctx.link().clone();
                    spawn_local(async move {
                        match input::fetch_example().await {
                            Ok(i) => link.send_message(Msg::Chosen(vec![i])),
                            Err(e) => link.send_message(Msg::Failed(e)),
                        }
                    });
                    return false;
                }
                // A spare that failed is replaced after the next load (or
                // never needed); a worker that is gone says nothing more.
                Msg::WorkerFailed(id, _) if Some(id) != self.client_id => {
                    if Some(id) == self.spare_id {
                        (self.spare, self.spare_id, self.spare_warm) = (None, None, false);
                    }
                    return false;
                }
                // The load's worker: what it held is gone.
                Msg::WorkerFailed(_, e) => {
                    if self.loading.is_some() {
                        self.client = None;
                        self.client_id = None;
                        self.loading = None;
                        self.spare_later(ctx);
                    }
                    self.status = Some(e);
                }
                // Inputs that could not be taken (a drop, the example): a
                // load going on goes on.
                Msg::Failed(e) => self.status = Some(e),
                Msg::DragOver => {
                    if self.dragging {
                        return false;
                    }
                    self.dragging = true;
                }
                Msg::DragLeave => self.dragging = false,
                Msg::Worker(id, FromWorker::WarmedUp) => {
                    if Some(id) != self.spare_id {
                        return false;
                    }
                    self.spare_warm = true;
                }
                // Only the load's worker says more (a spare only warms up).
                Msg::Worker(id, _) if Some(id) != self.client_id => return false,
                Msg::Worker(_, m) => match m {
                    FromWorker::Ready | FromWorker::WarmedUp => return false,
                    // (Only a helper sends pieces; the client passes them on.)
                    FromWorker::Part { .. } => return false,
                    FromWorker::Progress(p) => match &mut self.loading {
                        Some(l) => {
                            let now = now_ms();
                            let same = p.phase == l.progress.phase && p.files_done == l.progress.files_done;
                            l.progress = p;
                            if same && now - l.drawn_ms < PROGRESS_REDRAW_MS {
                                return false;
                            }
                            l.drawn_ms = now;
                        }
                        None => return false,
                    },
                    FromWorker::Loaded(r) => {
                        let t0 = now_ms();
                        self.on_loaded(*r);
                        self.spare_later(ctx);
                        web_sys::console::debug_1(&format!("reconscope app: on_loaded {:.0} ms", now_ms() - t0).into());
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
                        self.apply_filters();
                    }
                    FromWorker::Shared { seq, result } => match &mut self.share {
                        Some(st) if st.seq == seq => st.result = Some(*result),
                        _ => return false,
                    },
                    FromWorker::Text { seq, text } => {
                        let Some(k) = self.text_uses.iter().position(|(s, _)| *s == seq) else { return false };
                        let (_, use_) = self.text_uses.remove(k);
                        let link = ctx.link().clone();
                        match use_ {
                            TextUse::CopyMarkdown => spawn_local(async move {
                                let msg = match share::copy(&text).await {
                                    Ok(()) => Msg::Shared("Markdown report copied.".into(), None),
                                    Err(_) => Msg::Shared("The clipboard is unavailable: copy the report below.".into(), Some(text)),
                                };
                                link.send_message(msg);
                            }),
                            TextUse::SaveSvg => {
                                let r = share::blob(text.as_bytes(), "image/svg+xml").and_then(|b| share::download(&b, "reconscope-timeline.svg"));
                                self.share_notice = Some(match r {
                                    Ok(()) => "SVG exported.".into(),
                                    Err(e) => format!("SVG export failed: {e}"),
                                });
                                self.share_text = None;
                            }
                            TextUse::SavePng => spawn_local(async move {
                                let r = share::svg_to_png(&text, 2.0).await.and_then(|b| share::download(&b, "reconscope-timeline.png"));
                                link.send_message(Msg::Shared(
                                    match r {
                                        Ok(()) => "PNG exported.".into(),
                                        Err(e) => format!("PNG export failed: {e}"),
                                    },
                                    None,
                                ));
                            }),
                        }
                    }
                    FromWorker::Failed { message } => self.status = Some(message),
                },
                Msg::Cancel => {
                    self.reset();
                    self.status = Some("Cancelled.".into());
                    self.spare_later(ctx);
                }
                Msg::Focus(f) => {
                    self.focus = Some(f);
                    if let Some(c) = &self.chart {
                        c.focus_finding(f);
                    }
                }
                Msg::Inspect(r) => {
                    let Some(client) = &self.client else { return false };
                    if self.inspector.as_ref().is_some_and(|i| i.reconcile == r && i.lines.is_some()) {
                        return false;
                    }
                    client.send(&ToWorker::Inspect { reconcile: r });
                    self.inspector = Some(Inspector { reconcile: r, lines: None });
                    if let Some(c) = &self.chart {
                        c.select(Some(r), true);
                    }
                    self.write_hash();
                }
                Msg::CloseInspector => {
                    self.inspector = None;
                    if let Some(c) = &self.chart {
                        c.select(None, false);
                    }
                    self.write_hash();
                }
                Msg::ToggleZone => {
                    self.zone.local = !self.zone.local;
                    if let Some(c) = &self.chart {
                        c.set_zone(self.zone);
                    }
                }
                Msg::ToggleGrouping => {
                    self.layout_opts.grouping = match self.layout_opts.grouping {
                        Grouping::ByObject => Grouping::ByLane,
                        Grouping::ByLane => Grouping::ByObject,
                    };
                    self.layout_opts.collapsed.clear();
                    self.relayout(true);
                    self.write_hash();
                }
                Msg::ToggleRow(key) => {
                    if !self.layout_opts.collapsed.remove(&key) {
                        self.layout_opts.collapsed.insert(key);
                    }
                    self.relayout(true);
                    self.write_hash();
                }
                Msg::ResetView => {
                    if let Some(c) = &self.chart {
                        c.reset();
                    }
                    return false;
                }
                Msg::View(v) => {
                    // Not on every frame of a pan: history.replaceState is
                    // rate-limited by browsers, and the fields' layout costs.
                    self.view = Some(v);
                    if self.view_timer.is_none() {
                        let link = ctx.link().clone();
                        self.view_timer = Some(Timeout::new(200, move || link.send_message(Msg::ViewSettled)));
                    }
                    return false;
                }
                Msg::DumpTime(t) => {
                    let (Some(client), Some(l)) = (&self.client, &self.loaded) else { return false };
                    client.send(&ToWorker::Reanalyze { dump_time_nanos: Some(t), layout: Some(self.layout_opts.clone()) });
                    self.loading = Some(Loading {
                        started_ms: now_ms(),
                        drawn_ms: 0.0,
                        progress: Progress {
                            phase: Phase::Analyzing,
                            done_bytes: l.input_bytes,
                            total_bytes: l.input_bytes,
                            files_done: l.files.len() as u32,
                            files: l.files.len() as u32,
                            current: String::new(),
                            slices: 0,
                        },
                    });
                }
                Msg::ViewSettled => {
                    self.view_timer = None;
                    self.write_hash();
                    self.show_window();
                    return false;
                }
                Msg::FilterWindow => {
                    let text = |r: &NodeRef| r.cast::<HtmlInputElement>().map(|i| i.value()).unwrap_or_default();
                    let parse = |t: String| reconscope::time::parse_rfc3339(t.trim().as_bytes(), false, 0).map(|p| p.ts.nanos);
                    let (from, to) = (parse(text(&self.from_ref)), parse(text(&self.to_ref)));
                    match (from, to, &self.chart) {
                        (Some(a), Some(b), Some(c)) if b > a => {
                            self.window_error = None;
                            c.set_view(a, b);
                        }
                        _ => self.window_error = Some("Write both times as RFC3339 (2026-05-26T16:29:30Z), from before to.".into()),
                    }
                }
                Msg::CopyLink => {
                    self.write_hash();
                    self.open_share("this view".into(), None);
                }
                Msg::ShareFinding(i) => {
                    let kind = self.loaded.as_ref().and_then(|l| l.analysis.findings.get(i as usize)).map(|f| f.kind.as_str());
                    let Some(kind) = kind else { return false };
                    self.focus = Some(i);
                    self.open_share(format!("the {kind} finding"), Some(i));
                }
                Msg::ShareMaskHosts(on) => {
                    self.mask_hosts = on;
                    let Some(st) = self.share.take() else { return true };
                    self.share_seq += 1;
                    let request = ShareRequest { redact: RedactOptions { mask_hosts: on }, ..st.request };
                    if let Some(client) = &self.client {
                        client.send(&ToWorker::Share { seq: self.share_seq, request: request.clone() });
                    }
                    self.share = Some(ShareState { title: st.title, request, seq: self.share_seq, result: None });
                }
                Msg::ShareCopy => {
                    let Some(Some(Ok(shared))) = self.share.as_ref().map(|s| s.result.as_ref()) else { return false };
                    let Some(text) = self.share_link(shared) else { return false };
                    let link = ctx.link().clone();
                    spawn_local(async move {
                        let msg = match share::copy(&text).await {
                            Ok(()) => Msg::Shared("Link copied.".into(), None),
                            Err(_) => Msg::Shared("The clipboard is unavailable: copy the link below.".into(), Some(text)),
                        };
                        link.send_message(msg);
                    });
                    return false;
                }
                Msg::ShareDownload => {
                    let Some(Some(Ok(shared))) = self.share.as_ref().map(|s| s.result.as_ref()) else { return false };
                    let Some(file) = shared.file.as_ref().or(shared.fragment.as_ref()) else { return false };
                    // A file holds the payload alone (a fragment: its ev= part).
                    let payload = file.trim_start_matches("#ev=").split('&').next().unwrap_or("");
                    let r = share::blob(payload.as_bytes(), "application/octet-stream").and_then(|b| share::download(&b, "evidence.reconscope"));
                    self.share_notice = Some(match r {
                        Ok(()) => "Evidence file saved: drop it on reconscope to open it.".into(),
                        Err(e) => format!("Saving the evidence file failed: {e}"),
                    });
                }
                Msg::ShareClose => self.share = None,
                Msg::OpenLink(payload) => {
                    // The link's evidence goes through the load like a
                    // dropped `.reconscope` file.
                    let blob = match share::blob(payload.as_bytes(), "text/plain") {
                        Ok(b) => b,
                        Err(e) => {
                            self.status = Some(format!("This link could not be opened: {e}"));
                            return true;
                        }
                    };
                    self.start_load(ctx, vec![Input { name: "link.reconscope".into(), blob }]);
                    self.from_link = true;
                    self.evidence_payload = Some(payload);
                    self.names.clear();
                }
                Msg::HashChanged => {
                    let f = share::parse(&share::current());
                    if f == self.fragment() {
                        return false;
                    }
                    match f.ev.clone() {
                        // Another link's evidence, and no artifact of the
                        // person's own on the page: show it.
                        Some(ev) if self.evidence_payload.as_deref() != Some(ev.as_str()) && (self.loaded.is_none() || self.evidence.is_some()) => {
                            self.pending = Some(f);
                            ctx.link().send_message(Msg::OpenLink(ev));
                        }
                        _ if self.loaded.is_some() => {
                            let window = f.window;
                            self.apply_fragment(f);
                            self.relayout(true);
                            if let (Some((a, b)), Some(c)) = (window, &self.chart) {
                                c.set_view(a, b);
                            }
                            self.restore_view = None;
                            self.refilter();
                        }
                        _ => self.pending = Some(f),
                    }
                }
                Msg::CopyMarkdown => {
                    let base = share::base();
                    let redact = RedactOptions { mask_hosts: self.mask_hosts };
                    let taken_at_nanos = Some((now_ms() * 1e6) as i64);
                    self.ask_text(|seq| ToWorker::Markdown { seq, app_url: base, taken_at_nanos, redact }, TextUse::CopyMarkdown);
                    return false;
                }
                Msg::ExportSvg | Msg::ExportPng => {
                    let Some(svg) = self.svg() else { return false };
                    let use_ = if matches!(msg, Msg::ExportSvg) { TextUse::SaveSvg } else { TextUse::SavePng };
                    let redact = RedactOptions { mask_hosts: self.mask_hosts };
                    self.ask_text(|seq| ToWorker::Redact { seq, text: svg, redact }, use_);
                    return false;
                }
                Msg::FilterMessage(p) => {
                    self.filters.pattern = p;
                    self.refilter();
                }
                Msg::FilterLevel(l) => {
                    self.filters.min_level = l;
                    self.refilter();
                }
                Msg::FilterController(c) => {
                    self.filters.controller = c;
                    self.apply_filters();
                }
                Msg::FilterObject(o) => {
                    self.filters.object = o;
                    self.apply_filters();
                }
                Msg::Shared(notice, text) => {
                    self.share_notice = Some(notice);
                    self.share_text = text;
                }
            }
            true
        }

        fn rendered(&mut self, ctx: &Context<Self>, _first_render: bool) {
            if self.share_text.is_some() {
                if let Some(t) = self.share_ref.cast::<web_sys::HtmlTextAreaElement>() {
                    if t.get_attribute("data-selected").is_none() {
                        let _ = t.set_attribute("data-selected", "1");
                        let _ = t.focus();
                        t.select();
                    }
                }
            }
            if self.loaded.is_none() {
                return;
            }
            if self.chart.is_none() {
                let canvas = self.canvas_ref.cast::<HtmlCanvasElement>();
                let tooltip = self.tooltip_ref.cast::<HtmlElement>();
                if let (Some(canvas), Some(tooltip)) = (canvas, tooltip) {
                    let events = ChartEvents {
                        pick: ctx.link().callback(Msg::Inspect),
                        toggle_row: ctx.link().callback(Msg::ToggleRow),
                        view: ctx.link().callback(Msg::View),
                    };
                    self.chart = Chart::new(canvas, tooltip, events);
                    if let Some(c) = &self.chart {
                        c.set_zone(self.zone);
                    }
                    self.chart_stale = Some(false);
                }
            }
            if let (Some(c), Some(keep), Some(l)) = (&self.chart, self.chart_stale.take(), &self.loaded) {
                c.set_data(l.analysis.clone(), self.timeline.clone(), keep);
                if let Some(f) = self.focus {
                    c.focus_finding(f);
                }
                if let Some(i) = &self.inspector {
                    c.select(Some(i.reconcile), false);
                }
                if let Some((a, b)) = self.restore_view.take() {
                    c.set_view(a, b);
                }
            } else if let Some(c) = &self.chart {
                c.request_draw();
            }
        }

        fn view(&self, ctx: &Context<Self>) -> Html {
            let link = ctx.link();
            let on_change = link.batch_callback(|e: Event| {
                let input: HtmlInputElement = e.target_unchecked_into();
                let chosen = input.files().map(|l| input::from_file_list(&l));
                // Clear it, so that choosing the same files again reloads them.
                input.set_value("");
                chosen.map(Msg::Chosen)
            });
            let on_drag_over = link.callback(|e: DragEvent| {
                // Without preventDefault the browser would open the file.
                e.prevent_default();
                Msg::DragOver
            });
            let on_drag_leave = link.callback(|_: DragEvent| Msg::DragLeave);
            let on_drop = {
                let link = link.clone();
                Callback::from(move |e: DragEvent| {
                    e.prevent_default();
                    link.send_message(Msg::DragLeave);
                    let Some(dt) = e.data_transfer() else { return };
                    // Entries must be taken now, inside the drop event.
                    let pending = input::dropped(&dt);
                    let link = link.clone();
                    spawn_local(async move {
                        match pending.await {
                            Ok(inputs) => link.send_message(Msg::Chosen(inputs)),
                            Err(e) => link.send_message(Msg::Failed(e)),
                        }
                    });
                })
            };

            let compact = self.loaded.is_some() || self.loading.is_some();
            let drop_class = classes!("drop-zone", self.dragging.then_some("dragging"), compact.then_some("compact"));
            html! {
                <main class="app" data-testid={self.ready.then_some("app-ready")} data-worker={self.spare_warm.then_some("warm")}>
                    <header class="top">
                        <h1>{ "reconscope" }</h1>
                        <p class="privacy" data-testid="privacy">
                            { "Nothing is uploaded: your files are read in this browser tab and never leave it." }
                        </p>
                    </header>
                    <section class={classes!("loader", compact.then_some("compact"))}>
                        // The label makes the whole drop zone open the file picker too.
                        <label
                            class={drop_class}
                            for="file-input"
                            data-testid="drop-zone"
                            ondragover={on_drag_over}
                            ondragleave={on_drag_leave}
                            ondrop={on_drop}
                        >
                            <span class="drop-hint">
                                { "Drop log files, folders or CI artifacts (.zip, .tar.gz) here, or click to choose files." }
                            </span>
                            <input id="file-input" type="file" multiple=true onchange={on_change} />
                        </label>
                        <div class="loader-actions">
                            <button type="button" data-testid="pick-folder" onclick={link.callback(|_| Msg::PickFolder)}>
                                { "Choose a folder…" }
                            </button>
                            <button type="button" data-testid="open-example" onclick={link.callback(|_| Msg::OpenExample)}>
                                { "Open example" }
                            </button>
                            <span class="muted example-blurb">{ "the example is a CI artifact of a kamaji incident: a worker stalled for 20 minutes" }</span>
                        </div>
                        if !self.names.is_empty() {
                            <ul class="file-list" data-testid="file-list">
                                { for self.names.iter().take(12).map(|n| html! { <li>{ n }</li> }) }
                                if self.names.len() > 12 {
                                    <li class="muted">{ format!("and {} more", self.names.len() - 12) }</li>
                                }
                            </ul>
                        }
                        { self.view_progress(ctx) }
                        if let Some(s) = &self.status {
                            <p class="status" data-testid="status" role="status">{ s }</p>
                        }
                    </section>
                    if let Some(l) = &self.loaded {
                        if let Some(m) = &self.evidence {
                            { panels::evidence_banner(m, self.zone) }
                        }
                        { panels::summary(l) }
                        <panels::Findings analysis={panels::Shared(l.analysis.clone())} focus={self.focus} zone={self.zone}
                            onfocus={self.on_focus.clone()} oninspect={self.on_inspect.clone()} onshare={self.on_share.clone()} />
                        if let Some(st) = &self.share {
                            { self.view_share(ctx, st) }
                        }
                        { self.view_filters(ctx, l) }
                        { self.view_timeline(ctx, l) }
                        if let Some(i) = &self.inspector {
                            { panels::inspector(l, i, self.zone, link) }
                        }
                        <crate::goroutines::Goroutines analysis={panels::Shared(l.analysis.clone())} zone={self.zone}
                            oninspect={self.on_inspect.clone()} ondumptime={link.callback(Msg::DumpTime)} />
                        { panels::files(l) }
                    }
                </main>
            }
        }
    }

    impl App {
        /// The share dialog: what the link carries, what was redacted, and
        /// the link or file to take.
        fn view_share(&self, ctx: &Context<Self>, st: &ShareState) -> Html {
            let link = ctx.link();
            let close = link.callback(|_| Msg::ShareClose);
            let on_mask = link.callback(|e: Event| Msg::ShareMaskHosts(e.target_unchecked_into::<HtmlInputElement>().checked()));
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
                    let link_text = self.share_link(shared);
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
                                                <span class="loc">{ format!("{}:{}", panels::basename(&l.path), l.line) }</span>
                                                <span class="text">{ &l.text }</span>
                                            </div>
                                        }) }
                                    </div>
                                </details>
                            }
                            <p class="muted">{ "The evidence sits in the link's #fragment, which a browser never sends to a server: whoever opens the link sees it in their own tab." }</p>
                            <div class="share-buttons">
                                if let Some(t) = link_text {
                                    <button type="button" data-testid="share-copy" onclick={link.callback(|_| Msg::ShareCopy)}>{ "Copy link" }</button>
                                    <span class="muted" data-testid="share-size">{ format!("{} KiB", t.len().div_ceil(1024)) }</span>
                                }
                                <button type="button" data-testid="share-download" onclick={link.callback(|_| Msg::ShareDownload)}>{ "Save as .reconscope file" }</button>
                            </div>
                        </>
                    }
                }
            };
            html! {
                <section class="share-dialog" data-testid="share-dialog" role="dialog" aria-label="Share">
                    <div class="inspector-head">
                        <h2>{ format!("Share {}", st.title) }</h2>
                        <button type="button" class="link" data-testid="share-close" onclick={close}>{ "Close" }</button>
                    </div>
                    <label class="share-mask">
                        <input type="checkbox" data-testid="share-mask-hosts" checked={self.mask_hosts} onchange={on_mask} />
                        { " Also mask IP addresses and host names" }
                    </label>
                    { body }
                    if let Some(n) = &self.share_notice {
                        <p class="share-notice muted" data-testid="share-dialog-notice" aria-live="polite">{ n }</p>
                    }
                </section>
            }
        }

        fn view_progress(&self, ctx: &Context<Self>) -> Html {
            let Some(l) = &self.loading else { return html! {} };
            let p = &l.progress;
            let secs = ((now_ms() - l.started_ms) / 1000.0).max(0.001);
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
                    <button type="button" data-testid="cancel" onclick={ctx.link().callback(|_| Msg::Cancel)}>
                        { "Cancel" }
                    </button>
                </div>
            }
        }

        fn view_filters(&self, ctx: &Context<Self>, l: &Loaded) -> Html {
            let link = ctx.link();
            let a = &l.analysis;
            let f = &self.filters;
            let total = a.reconciles.len();
            let shown = self.layout_opts.only.as_ref().map_or(total, |o| o.len());
            let on_message = link.callback(|e: InputEvent| Msg::FilterMessage(e.target_unchecked_into::<HtmlInputElement>().value()));
            let on_object = link.callback(|e: InputEvent| Msg::FilterObject(e.target_unchecked_into::<HtmlInputElement>().value()));
            let on_level = link.callback(|e: Event| Msg::FilterLevel(e.target_unchecked_into::<HtmlSelectElement>().value().parse().unwrap_or(0)));
            let on_controller = link.callback(|e: Event| Msg::FilterController(e.target_unchecked_into::<HtmlSelectElement>().value()));
            let levels = [(0u8, "any level"), (1, "info and above"), (2, "warn and above"), (3, "error and above")];
            html! {
                <section class="filters" data-testid="filters">
                    <h2>{ "Filters" }</h2>
                    <label class="filter">
                        <span>{ "Message" }</span>
                        <input type="search" data-testid="filter-message" placeholder="text or regex, case-insensitive"
                            class={classes!(self.filter_error.is_some().then_some("invalid"))}
                            value={f.pattern.clone()} oninput={on_message} />
                    </label>
                    <label class="filter">
                        <span>{ "Level" }</span>
                        <select data-testid="filter-level" onchange={on_level}>
                            { for levels.iter().map(|(v, t)| html! {
                                <option value={v.to_string()} selected={f.min_level == *v}>{ *t }</option>
                            }) }
                        </select>
                    </label>
                    <label class="filter">
                        <span>{ "Controller" }</span>
                        <select data-testid="filter-controller" onchange={on_controller}>
                            <option value="" selected={f.controller.is_empty()}>{ "all" }</option>
                            { for a.controllers.iter().map(|c| html! {
                                <option value={c.id.clone()} selected={f.controller == c.id}>{ c.name.clone() }</option>
                            }) }
                        </select>
                    </label>
                    <label class="filter">
                        <span>{ "Namespace or object" }</span>
                        <input type="search" data-testid="filter-object" placeholder="substring"
                            value={f.object.clone()} oninput={on_object} />
                    </label>
                    <label class="filter">
                        <span>{ "From (UTC)" }</span>
                        <input type="text" data-testid="filter-from" ref={self.from_ref.clone()}
                            onchange={link.callback(|_: Event| Msg::FilterWindow)} />
                    </label>
                    <label class="filter">
                        <span>{ "To (UTC)" }</span>
                        <input type="text" data-testid="filter-to" ref={self.to_ref.clone()}
                            onchange={link.callback(|_: Event| Msg::FilterWindow)} />
                    </label>
                    <span class="shown-count muted" data-testid="shown-count">
                        { format!("{shown} of {total} reconciles shown") }
                    </span>
                    if let Some(e) = &self.window_error {
                        <p class="filter-error" data-testid="window-error" role="alert">{ e }</p>
                    }
                    if let Some(e) = &self.filter_error {
                        <p class="filter-error" data-testid="filter-error" role="alert">
                            { format!("Invalid regular expression, nothing is filtered: {e}") }
                        </p>
                    }
                </section>
            }
        }

        fn view_timeline(&self, ctx: &Context<Self>, l: &Loaded) -> Html {
            let link = ctx.link();
            let a = &l.analysis;
            let grouping = match self.layout_opts.grouping {
                Grouping::ByObject => "Rows: objects",
                Grouping::ByLane => "Rows: worker lanes",
            };
            let zone = if self.zone.local { "Time: local" } else { "Time: UTC" };
            html! {
                <section
                    class="timeline"
                    data-testid="timeline"
                    data-reconcile-count={a.reconciles.len().to_string()}
                    data-election-count={a.elections.len().to_string()}
                    data-dump-count={self.timeline.dumps.len().to_string()}
                    data-row-count={self.timeline.rows.len().to_string()}
                    data-bar-count={self.timeline.bars.len().to_string()}
                    data-shown-count={self.layout_opts.only.as_ref().map_or(a.reconciles.len(), |o| o.len()).to_string()}
                >
                    <div class="toolbar">
                        <h2>{ "Timeline" }</h2>
                        <button type="button" data-testid="grouping" onclick={link.callback(|_| Msg::ToggleGrouping)}>{ grouping }</button>
                        <button type="button" data-testid="zone" onclick={link.callback(|_| Msg::ToggleZone)}>{ zone }</button>
                        <button type="button" data-testid="reset-zoom" onclick={link.callback(|_| Msg::ResetView)}>{ "Reset zoom" }</button>
                        <span class="share-actions">
                            <button type="button" data-testid="copy-link" onclick={link.callback(|_| Msg::CopyLink)}>{ "Copy link" }</button>
                            <button type="button" data-testid="export-svg" onclick={link.callback(|_| Msg::ExportSvg)}>{ "Export SVG" }</button>
                            <button type="button" data-testid="export-png" onclick={link.callback(|_| Msg::ExportPng)}>{ "Export PNG" }</button>
                            <button type="button" data-testid="copy-markdown" onclick={link.callback(|_| Msg::CopyMarkdown)}>{ "Copy Markdown" }</button>
                        </span>
                        <span class="legend">
                            <span class="swatch success"></span>{ "success" }
                            <span class="swatch requeue"></span>{ "requeue" }
                            <span class="swatch error"></span>{ "error" }
                            <span class="swatch latent"></span>{ "latent start" }
                            <span class="swatch band"></span>{ "etcd election" }
                            <span class="swatch highlight"></span>{ "finding" }
                            <span class="glyph spec">{ "●" }</span>{ "spec update" }
                            <span class="glyph delete">{ "▼" }</span>{ "deletion asked" }
                            <span class="glyph delete">{ "✕" }</span>{ "deleted" }
                            <span class="glyph delete">{ "□" }</span>{ "finalizers left" }
                            <span class="glyph dump">{ "┆" }</span>{ "goroutine dump" }
                        </span>
                    </div>
                    if let Some(n) = &self.share_notice {
                        <p class="share-notice muted" data-testid="share-notice" role="status">{ n }</p>
                    }
                    if let Some(t) = &self.share_text {
                        // A new element per text, so that it is selected again.
                        <textarea key={t.len().to_string()} class="share-field" data-testid="share-field" readonly=true rows="3"
                            ref={self.share_ref.clone()} value={t.clone()} />
                    }
                    <div class="chart-box">
                        <canvas
                            ref={self.canvas_ref.clone()}
                            tabindex="0"
                            aria-label="Timeline of reconciles: wheel to zoom, drag or arrow keys to pan, click a bar to inspect it"
                        ></canvas>
                        <div class="tooltip hidden" ref={self.tooltip_ref.clone()} role="tooltip"></div>
                    </div>
                    <p class="help muted">
                        { "Wheel: zoom · drag or ←/→/↑/↓: pan · +/−: zoom · 0: reset · click a bar: its log lines · click a controller: fold it" }
                    </p>
                </section>
            }
        }
    }
}

#[cfg(target_arch = "wasm32")]
fn main() {
    yew::Renderer::<ui::App>::new().render();
}

/// The UI only exists in the browser; a native build of this binary (for
/// example `cargo build --all-features`) just says so.
#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("`app` is the browser UI: build it with `trunk build` (see Makefile)");
    std::process::exit(2);
}
