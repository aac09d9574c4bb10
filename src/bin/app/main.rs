//! reconscope browser UI (Yew, client-side rendering).
//!
//! Built by trunk for `wasm32-unknown-unknown` with the `web` feature
//! (see `Trunk.toml` and `www/index.html`). Everything runs in the tab:
//! the inputs are read, parsed and analyzed in a Web Worker
//! (`src/bin/worker.rs`, protocol in `reconscope::web`); the page lays the
//! analysis out (`reconscope::layout`) and paints it on a canvas.
//! Nothing is sent anywhere.
//!
//! The page's state and transitions are `reconscope::ui` (plain Rust,
//! tested natively): this component keeps an `AppState`, turns events into
//! `Action`s, and runs the `Effect`s each `reduce` returns (workers,
//! timers, the fragment, the clipboard, the chart, scrolling). The panels
//! are one file each and only render the state.
//!
//! Content-Security-Policy note: the page forbids inline styles, so never
//! render a `style="..."` attribute here; use classes from `www/style.css`
//! (setting `element.style` properties from code is allowed).

#[cfg(target_arch = "wasm32")]
mod chart;
#[cfg(target_arch = "wasm32")]
mod client;
#[cfg(target_arch = "wasm32")]
mod files;
#[cfg(target_arch = "wasm32")]
mod filters;
#[cfg(target_arch = "wasm32")]
mod findings;
#[cfg(target_arch = "wasm32")]
mod goroutines;
#[cfg(target_arch = "wasm32")]
mod input;
#[cfg(target_arch = "wasm32")]
mod inspector;
#[cfg(target_arch = "wasm32")]
mod loader;
#[cfg(target_arch = "wasm32")]
mod share;
#[cfg(target_arch = "wasm32")]
mod share_dialog;
#[cfg(target_arch = "wasm32")]
mod summary;
#[cfg(target_arch = "wasm32")]
mod timefmt;
#[cfg(target_arch = "wasm32")]
mod timeline;

#[cfg(target_arch = "wasm32")]
mod ui {
    use std::collections::BTreeMap;
    use std::rc::Rc;

    use gloo::events::{EventListener, EventListenerOptions};
    use gloo::timers::callback::Timeout;
    use reconscope::ui::{Action, AppState, ChartCmd, Effect, Target, Timer, WorkerId};
    use wasm_bindgen::JsCast;
    use wasm_bindgen_futures::spawn_local;
    use web_sys::{Blob, DragEvent, HtmlCanvasElement, HtmlElement, HtmlInputElement};
    use yew::prelude::*;

    use crate::chart::{Chart, ChartEvents};
    use crate::client::{Role, WorkerClient};
    use crate::input::{self, Input};
    use crate::share;
    use crate::timefmt::Zone;

    pub enum Msg {
        /// A transition of the state core.
        Act(Action),
        /// Inputs chosen or dropped (their blobs stay here).
        Chosen(Vec<Input>),
        PickFolder,
        OpenExample,
    }

    /// The page's elements the effects reach.
    #[derive(Default)]
    pub struct Refs {
        pub canvas: NodeRef,
        pub tooltip: NodeRef,
        pub timeline: NodeRef,
        pub inspector: NodeRef,
        pub share: NodeRef,
        pub manual_copy: NodeRef,
        pub from: NodeRef,
        pub to: NodeRef,
        pub workspace: NodeRef,
    }

    pub struct App {
        state: AppState,
        /// The running workers, by the ids the state gave them.
        workers: BTreeMap<WorkerId, Rc<WorkerClient>>,
        /// The chosen inputs' blobs, until [`Effect::SendInputs`] takes them.
        inputs: Vec<(String, Blob)>,
        chart: Option<Chart>,
        refs: Refs,
        timers: Vec<(Timer, Timeout)>,
        /// Parts of the page to scroll into view once rendered.
        reveal: Vec<Target>,
        folder_listener: Option<EventListener>,
        _hashchange: Option<EventListener>,
        /// Drops outside the drop zone load too (instead of the browser
        /// opening the file and leaving the page).
        _window_drop: Vec<EventListener>,
        /// Stable callbacks, so the findings panel renders again only on a
        /// new load.
        dispatch: Callback<Action>,
    }

    fn now_ms() -> f64 {
        js_sys::Date::now()
    }

    impl App {
        fn zone(&self) -> Zone {
            Zone { local: self.state.zone_local, yearless: self.state.yearless() }
        }

        fn act(&mut self, ctx: &Context<Self>, action: Action) -> bool {
            let up = self.state.reduce(action, now_ms());
            for e in up.effects {
                self.run(ctx, e);
            }
            up.render
        }

        fn run(&mut self, ctx: &Context<Self>, effect: Effect) {
            let link = ctx.link().clone();
            match effect {
                Effect::Spawn(id) => {
                    let on_message = link.callback(move |m| Msg::Act(Action::Worker(id, m)));
                    let on_error = link.callback(move |e| Msg::Act(Action::WorkerFailed(id, e)));
                    match WorkerClient::spawn(Role::Main, on_message, on_error) {
                        Ok(c) => {
                            self.workers.insert(id, Rc::new(c));
                        }
                        Err(e) => link.send_message(Msg::Act(Action::WorkerFailed(id, e))),
                    }
                }
                Effect::Terminate(id) => {
                    self.workers.remove(&id);
                }
                Effect::Send(id, m) => {
                    if let Some(c) = self.workers.get(&id) {
                        c.send(&m);
                    }
                }
                Effect::SendInputs { worker, finish } => {
                    // A link's payload is the load's only input.
                    if self.state.from_link {
                        let payload = self.state.evidence_payload.clone().unwrap_or_default();
                        match share::blob(payload.as_bytes(), "text/plain") {
                            Ok(b) => self.inputs = vec![("link.reconscope".into(), b)],
                            Err(e) => {
                                link.send_message(Msg::Act(Action::Failed(format!("This link could not be opened: {e}"))));
                                return;
                            }
                        }
                    }
                    if let Some(c) = self.workers.get(&worker) {
                        c.send_inputs(std::mem::take(&mut self.inputs), finish);
                    }
                }
                Effect::Later { ms, timer } => {
                    let action = match timer {
                        Timer::SpawnSpare => Action::SpawnSpare,
                        Timer::ViewSettled => Action::ViewSettled,
                    };
                    self.timers.retain(|(t, _)| *t != timer);
                    let t = Timeout::new(ms, move || link.send_message(Msg::Act(action)));
                    self.timers.push((timer, t));
                }
                Effect::WriteHash(h) => share::replace(&h),
                Effect::Copy { what, text } => spawn_local(async move {
                    let ok = share::copy(&text).await.is_ok();
                    link.send_message(Msg::Act(Action::Copied { what, ok, text }));
                }),
                Effect::Download { bytes, mime, name } => {
                    if let Err(e) = share::blob(&bytes, mime).and_then(|b| share::download(&b, name)) {
                        link.send_message(Msg::Act(Action::Notice(format!("Saving {name} failed: {e}"))));
                    }
                }
                Effect::SavePng(svg) => spawn_local(async move {
                    let r = share::svg_to_png(&svg, 2.0).await.and_then(|b| share::download(&b, "reconscope-timeline.png"));
                    link.send_message(Msg::Act(Action::Notice(match r {
                        Ok(()) => "PNG exported.".into(),
                        Err(e) => format!("PNG export failed: {e}"),
                    })));
                }),
                Effect::Chart(cmd) => {
                    let zone = self.zone();
                    let Some(c) = &self.chart else { return };
                    match cmd {
                        ChartCmd::FocusFinding(f) => c.focus_finding(f),
                        ChartCmd::Select(r, reveal) => c.select(r, reveal),
                        ChartCmd::SetView(a, b) => c.set_view(a, b),
                        ChartCmd::SetZone => c.set_zone(zone),
                        ChartCmd::Reset => c.reset(),
                    }
                }
                Effect::Reveal(t) => self.reveal.push(t),
                Effect::ShowWindow => self.show_window(),
            }
        }

        /// Shows the chart's window in the Filters panel's from/to fields
        /// (unless one is being edited).
        fn show_window(&self) {
            let Some((a, b)) = self.state.view else { return };
            let active = web_sys::window().and_then(|w| w.document()).and_then(|d| d.active_element());
            for (r, t) in [(&self.refs.from, a), (&self.refs.to, b)] {
                if let Some(i) = r.cast::<HtmlInputElement>() {
                    if active.as_ref() != Some(i.as_ref()) {
                        // (Without a year in the logs, as `--04-23T…`.)
                        let mut ts = reconscope::model::Timestamp::new(t, 3);
                        ts.yearless = self.state.yearless();
                        i.set_value(&ts.to_string());
                    }
                }
            }
        }

        /// Scrolls what an action asked for into view, once it is drawn.
        fn do_reveals(&mut self) {
            for t in std::mem::take(&mut self.reveal) {
                let r = match t {
                    Target::Timeline => &self.refs.timeline,
                    Target::Inspector => &self.refs.inspector,
                    Target::ShareDialog => &self.refs.share,
                };
                if let Some(el) = r.cast::<HtmlElement>() {
                    let opts = web_sys::ScrollIntoViewOptions::new();
                    opts.set_block(web_sys::ScrollLogicalPosition::Nearest);
                    el.scroll_into_view_with_scroll_into_view_options(&opts);
                }
            }
        }
    }

    impl Component for App {
        type Message = Msg;
        type Properties = ();

        fn create(ctx: &Context<Self>) -> Self {
            ctx.link().send_message(Msg::Act(Action::Ready));
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
                            Err(e) => link.send_message(Msg::Act(Action::Failed(e))),
                        }
                    });
                }));
            }
            let hashchange = web_sys::window().map(|w| {
                let link = ctx.link().clone();
                EventListener::new(&w, "hashchange", move |_| link.send_message(Msg::Act(Action::HashChanged(share::current()))))
            });
            let (state, first) = AppState::new(&share::base(), &share::current(), now_ms());
            let mut app = App {
                state,
                workers: BTreeMap::new(),
                inputs: Vec::new(),
                chart: None,
                refs: Refs::default(),
                timers: Vec::new(),
                reveal: Vec::new(),
                folder_listener: None,
                _hashchange: hashchange,
                _window_drop: window_drop,
                dispatch: ctx.link().callback(Msg::Act),
            };
            for e in first.effects {
                app.run(ctx, e);
            }
            app
        }

        fn update(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
            match msg {
                Msg::Act(a) => self.act(ctx, a),
                Msg::Chosen(inputs) => {
                    let infos = inputs.iter().map(|i| reconscope::ui::InputInfo { name: i.name.clone(), size: i.blob.size() as u64 }).collect();
                    self.inputs = inputs.into_iter().map(|i| (i.name, i.blob)).collect();
                    let r = self.act(ctx, Action::Chosen(infos));
                    // A load that started drops the chart of the last one.
                    if self.state.loaded.is_none() {
                        self.chart = None;
                    }
                    r
                }
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
                    false
                }
                Msg::OpenExample => {
                    let link = ctx.link().clone();
                    spawn_local(async move {
                        match input::fetch_example().await {
                            Ok(i) => link.send_message(Msg::Chosen(vec![i])),
                            Err(e) => link.send_message(Msg::Act(Action::Failed(e))),
                        }
                    });
                    false
                }
            }
        }

        fn rendered(&mut self, ctx: &Context<Self>, _first_render: bool) {
            if self.state.manual_copy.is_some() {
                if let Some(t) = self.refs.manual_copy.cast::<web_sys::HtmlTextAreaElement>() {
                    if t.get_attribute("data-selected").is_none() {
                        let _ = t.set_attribute("data-selected", "1");
                        let _ = t.focus();
                        t.select();
                    }
                }
            }
            // The inspector's width, dragged (no inline style attribute:
            // the page's CSP forbids them; a property set from code is fine).
            if let Some(el) = self.refs.workspace.cast::<HtmlElement>() {
                let _ = el.style().set_property("--inspector-width", &format!("{}px", self.state.inspector_prefs.width_px));
            }
            if self.state.loaded.is_none() {
                self.chart = None;
                self.do_reveals();
                return;
            }
            if self.chart.is_none() {
                let canvas = self.refs.canvas.cast::<HtmlCanvasElement>();
                let tooltip = self.refs.tooltip.cast::<HtmlElement>();
                if let (Some(canvas), Some(tooltip)) = (canvas, tooltip) {
                    let events = ChartEvents {
                        pick: ctx.link().callback(|r| Msg::Act(Action::Inspect(r))),
                        toggle_row: ctx.link().callback(|k| Msg::Act(Action::ToggleRow(k))),
                        view: ctx.link().callback(|v| Msg::Act(Action::View(v))),
                    };
                    self.chart = Chart::new(canvas, tooltip, events);
                    // (Its zone and data are set just below.)
                    self.state.chart_stale = Some(false);
                }
            }
            let zone = self.zone();
            if let (Some(c), Some(keep), Some(a)) = (&self.chart, self.state.chart_stale.take(), self.state.analysis()) {
                c.set_zone(zone);
                c.set_data(a.clone(), self.state.timeline.clone(), keep);
                if let Some(f) = self.state.focus {
                    c.focus_finding(f);
                }
                if let Some(i) = &self.state.inspector {
                    c.select(Some(i.reconcile), false);
                }
                if let Some((a, b)) = self.state.restore_view.take() {
                    c.set_view(a, b);
                }
            } else if let Some(c) = &self.chart {
                c.request_draw();
            }
            self.do_reveals();
        }

        fn view(&self, ctx: &Context<Self>) -> Html {
            let s = &self.state;
            let d = &self.dispatch;
            let link = ctx.link();
            let zone = self.zone();
            let loader = crate::loader::Loader {
                on_chosen: link.callback(Msg::Chosen),
                on_pick_folder: link.callback(|_| Msg::PickFolder),
                on_example: link.callback(|_| Msg::OpenExample),
            };
            html! {
                <main class={classes!("app", s.loaded.is_some().then_some("has-data"))}
                    data-testid={s.ready.then_some("app-ready")} data-worker={s.workers.spare_warm.then_some("warm")}>
                    <header class="top">
                        <h1>{ "reconscope" }</h1>
                        <p class="privacy" data-testid="privacy">
                            { "Nothing is uploaded: your files are read in this browser tab and never leave it." }
                        </p>
                    </header>
                    { loader.view(s, d) }
                    // Notices ("Link copied.") are announced where they appear.
                    <p class="share-notice muted" data-testid="share-notice" role="status" aria-live="polite">
                        { s.notice.clone().unwrap_or_default() }
                    </p>
                    if let Some(t) = &s.manual_copy {
                        // A new element per text, so that it is selected again.
                        <textarea key={t.len().to_string()} class="share-field" data-testid="share-field" readonly=true rows="3"
                            ref={self.refs.manual_copy.clone()} value={t.clone()} />
                    }
                    if let Some(l) = &s.loaded {
                        if let Some(m) = &s.evidence {
                            { crate::summary::evidence_banner(m, zone) }
                        }
                        if let Some(text) = s.left_out_banner() {
                            <p class="left-out-banner" data-testid="left-out-banner" role="alert">{ text }</p>
                        }
                        { crate::summary::summary(s, l, d, zone) }
                        <crate::findings::Findings key={l.seq.to_string()} analysis={crate::findings::Shared(l.analysis.clone())} focus={s.focus} {zone}
                            dispatch={d.clone()} />
                        if let Some(st) = &s.share {
                            { crate::share_dialog::view(s, st, d, &self.refs.share) }
                        }
                        <div class={classes!("workspace", s.inspector.is_some().then_some("with-inspector"))} ref={self.refs.workspace.clone()}>
                            { crate::timeline::view(s, l, d, &self.refs, zone) }
                            if let Some(i) = &s.inspector {
                                { crate::inspector::view(s, l, i, d, &self.refs.inspector, zone) }
                            }
                        </div>
                        <crate::goroutines::Goroutines analysis={crate::findings::Shared(l.analysis.clone())} {zone}
                            oninspect={d.reform(Action::Inspect)} ondumptime={d.reform(Action::DumpTime)} />
                        { crate::files::view(l) }
                    }
                </main>
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
