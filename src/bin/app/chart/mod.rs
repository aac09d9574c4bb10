//! The timeline, painted on a `<canvas>` from `reconscope::layout`'s
//! [`Timeline`] through one [`TimeScale`] (the SVG export's too). This
//! file holds the [`Chart`] handle, its state and its events; each track
//! has a small painter of its own: `axis` (ticks, grid, zone), `etcd` (the
//! election lane under the axis), `rows` (stripes and labels), `bands`
//! (elections across the rows), `highlights` (finding boxes and their
//! stacked labels, the focused finding's rows), `bars`, `markers`
//! (lifecycle glyphs, goroutine dumps) and `overview` (the whole run, with
//! the window as a box to drag).
//!
//! Only what is visible is drawn, batched by colour (no DOM node per bar).
//! Wheel zooms around the cursor, dragging pans, the arrow keys move the
//! selection from bar to bar (Enter or Space opens it), Shift+arrows or
//! h/j/k/l pan, hovering shows a tooltip, clicking a bar picks it and
//! clicking a controller's label folds its rows. Colours come from CSS
//! variables (`www/style.css`), so dark and light follow the system.

mod axis;
mod bands;
mod bars;
mod etcd;
mod highlights;
mod markers;
mod overview;
mod rows;
mod sources;

use std::cell::RefCell;
use std::ops::Range;
use std::rc::{Rc, Weak};

use gloo::events::{EventListener, EventListenerOptions};
use gloo::render::{request_animation_frame, AnimationFrame};
use reconscope::analyze::{Analysis, Outcome};
use reconscope::layout::Timeline;
use reconscope::time::{honest_duration, human_duration};
use reconscope::timescale::TimeScale;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{CanvasPattern, CanvasRenderingContext2d, HtmlCanvasElement, HtmlElement, KeyboardEvent, MouseEvent, ResizeObserver, WheelEvent};
use yew::Callback;

use crate::timefmt::{self, Zone};

const ROW_H: f64 = 20.0;
const BAR_PAD: f64 = 4.0;
const AXIS_H: f64 = 36.0;
/// The etcd lane under the axis (when there are elections).
const LANE_H: f64 = 20.0;
/// The overview strip at the bottom.
const OVERVIEW_H: f64 = 18.0;
const MIN_H: f64 = 160.0;
const MAX_H: f64 = 900.0;
/// Room right of the plot: for the square for finalizers left, drawn just
/// after the end (`MarkerKind::offset_px`), short of the scroll hint.
const RIGHT_PAD: f64 = 18.0;
/// The scroll hint's strip at the right edge (`rows::scroll_hint`).
const SCROLL_HINT_W: f64 = 6.0;
/// Election bands are never narrower than this (px), to see and to hover.
const MIN_BAND_W: f64 = 6.0;
const FONT: &str = "12px system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif";
const FONT_BOLD: &str = "600 12px system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif";
const FONT_SMALL_BOLD: &str = "600 11px system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif";

/// What the chart tells the page.
pub struct ChartEvents {
    /// A bar was clicked, or Enter/Space pressed on the selected one: the
    /// reconcile's index.
    pub pick: Callback<u32>,
    /// A controller's label was clicked: the row's key (fold/unfold).
    pub toggle_row: Callback<String>,
    /// The drawn time window changed (absolute ns).
    pub view: Callback<(i64, i64)>,
}

pub struct Chart {
    st: Rc<RefCell<State>>,
    _listeners: Vec<EventListener>,
    observer: Option<(ResizeObserver, Closure<dyn FnMut()>)>,
}

impl Drop for Chart {
    fn drop(&mut self) {
        if let Some((o, _)) = &self.observer {
            o.disconnect();
        }
    }
}

enum DragKind {
    /// Panning the plot: the window and scroll at the press.
    Pan { scale: TimeScale, scroll: f64 },
    /// Moving the overview's window box: the window at the press.
    Overview { scale: TimeScale },
}

struct Drag {
    x: f64,
    y: f64,
    kind: DragKind,
    moved: bool,
}

pub(crate) struct Palette {
    bg: String,
    grid: String,
    text: String,
    muted: String,
    row_alt: String,
    group_bg: String,
    success: String,
    requeue: String,
    error: String,
    unfinished: String,
    band: String,
    band_leaderless: String,
    band_edge: String,
    band_text: String,
    highlight: String,
    highlight_stroke: String,
    focus_rows: String,
    marker: String,
    marker_delete: String,
    selected: String,
    ring: String,
    overview_window: String,
}

impl Palette {
    /// The bar colour of an outcome (the SVG's: `render::outcome_colour`).
    fn outcome(&self, o: Outcome) -> &str {
        match o {
            Outcome::Success => &self.success,
            Outcome::Requeue => &self.requeue,
            Outcome::Error => &self.error,
            Outcome::Unfinished => &self.unfinished,
        }
    }
}

/// Where the tracks are (CSS px), for painting and hit testing.
#[derive(Clone, Copy)]
pub(crate) struct Geom {
    w: f64,
    h: f64,
    label_w: f64,
    /// The etcd lane: `lane_top..lane_top + lane_h` (0 high without elections).
    lane_top: f64,
    lane_h: f64,
    /// The log sources' lanes, under the etcd lane (0 high without any).
    sources_top: f64,
    sources_h: f64,
    rows_top: f64,
    rows_bottom: f64,
    overview_top: f64,
    scroll: f64,
    first_row: usize,
    last_row: usize,
}

impl Geom {
    fn row_y(&self, r: usize) -> f64 {
        self.rows_top + r as f64 * ROW_H - self.scroll
    }

    fn plot_h(&self) -> f64 {
        (self.rows_bottom - self.rows_top).max(0.0)
    }

    fn px1(&self) -> f64 {
        self.w - RIGHT_PAD
    }
}

/// What every painter reads.
pub(crate) struct Frame<'a> {
    ctx: &'a CanvasRenderingContext2d,
    p: &'a Palette,
    g: Geom,
    s: TimeScale,
    tl: &'a Timeline,
    /// Each row's label as shown (`State::cut_labels`).
    cut_labels: &'a [String],
    a: Option<&'a Analysis>,
    zone: Zone,
    focus: Option<u32>,
    selected: Option<u32>,
    /// The extent the overview shows (absolute ns).
    extent: (i64, i64),
}

impl Frame<'_> {
    fn width(&self, s: &str) -> f64 {
        self.ctx.measure_text(s).map(|m| m.width()).unwrap_or(0.0)
    }
}

struct State {
    me: Weak<RefCell<State>>,
    canvas: HtmlCanvasElement,
    tooltip: HtmlElement,
    ctx: CanvasRenderingContext2d,
    analysis: Option<Rc<Analysis>>,
    tl: Rc<Timeline>,
    /// Each row's label cut to the label column, as the export cuts it
    /// (`render::row_labels_cut_by`: rows alike at both ends cut apart).
    cut_labels: Rc<[String]>,
    /// Reconcile index → bar index (`u32::MAX`: not drawn).
    bar_of: Vec<u32>,
    label_w: f64,
    /// The view (absolute ns) on the plot's pixels.
    scale: TimeScale,
    /// What the view is kept on: the timeline's extent, widened by every
    /// re-layout kept in view (filters), so a filter never moves it.
    extent: (i64, i64),
    /// Rows scrolled off the top, in px.
    scroll: f64,
    zone: Zone,
    selected: Option<u32>,
    focus: Option<u32>,
    hover: Option<(f64, f64)>,
    drag: Option<Drag>,
    events: ChartEvents,
    /// Told when the keyboard moves the selection (added for the page).
    on_select: Option<Callback<Option<u32>>>,
    frame: Option<AnimationFrame>,
    /// Hatch patterns by colour.
    patterns: Vec<(String, CanvasPattern)>,
    /// The window last reported through `events.view`.
    reported: Option<(i64, i64)>,
    /// The parent's height when it gives one (`.chart-box`), measured on resize.
    box_h: Option<f64>,
    /// CSS size of the canvas at the last draw.
    w: f64,
    h: f64,
}

impl Chart {
    pub fn new(canvas: HtmlCanvasElement, tooltip: HtmlElement, events: ChartEvents) -> Option<Chart> {
        let ctx: CanvasRenderingContext2d = canvas.get_context("2d").ok()??.dyn_into().ok()?;
        let st = Rc::new_cyclic(|me| {
            RefCell::new(State {
                me: me.clone(),
                canvas: canvas.clone(),
                tooltip,
                ctx,
                analysis: None,
                tl: Rc::new(Timeline::default()),
                cut_labels: Rc::new([]),
                bar_of: Vec::new(),
                label_w: 160.0,
                scale: TimeScale::new(0, 1_000_000_000, 160.0, 600.0),
                extent: (0, 1_000_000_000),
                reported: None,
                scroll: 0.0,
                zone: Zone::UTC,
                selected: None,
                focus: None,
                hover: None,
                drag: None,
                events,
                on_select: None,
                frame: None,
                patterns: Vec::new(),
                box_h: None,
                w: 0.0,
                h: 0.0,
            })
        });
        let mut listeners = Vec::new();
        let active = EventListenerOptions::enable_prevent_default();
        {
            let st = st.clone();
            listeners.push(EventListener::new_with_options(&canvas, "wheel", active, move |e| {
                let e: &WheelEvent = e.unchecked_ref();
                e.prevent_default();
                st.borrow_mut().on_wheel(e);
            }));
        }
        {
            let st = st.clone();
            // Not passive: a drag must not select the page's text.
            listeners.push(EventListener::new_with_options(&canvas, "mousedown", active, move |e| {
                let e: &MouseEvent = e.unchecked_ref();
                if e.button() == 0 {
                    st.borrow_mut().on_down(e);
                }
            }));
        }
        {
            let st = st.clone();
            listeners.push(EventListener::new(&canvas, "mousemove", move |e| {
                st.borrow_mut().on_move(e.unchecked_ref());
            }));
        }
        {
            let st = st.clone();
            listeners.push(EventListener::new(&canvas, "mouseleave", move |_| {
                let mut s = st.borrow_mut();
                s.hover = None;
                s.hide_tooltip();
            }));
        }
        let window = web_sys::window()?;
        {
            let st = st.clone();
            listeners.push(EventListener::new(&window, "mousemove", move |e| {
                let e: &MouseEvent = e.unchecked_ref();
                let mut s = st.borrow_mut();
                if s.drag.is_some() {
                    s.on_drag(e);
                }
            }));
        }
        {
            let st = st.clone();
            listeners.push(EventListener::new(&window, "mouseup", move |e| {
                let e: &MouseEvent = e.unchecked_ref();
                // Emit outside the borrow: the page may call back into the chart.
                let action = st.borrow_mut().on_up(e);
                emit(&st, action);
            }));
        }
        {
            let st = st.clone();
            listeners.push(EventListener::new_with_options(&canvas, "keydown", active, move |e| {
                let e: &KeyboardEvent = e.unchecked_ref();
                let action = st.borrow_mut().on_key(e);
                emit(&st, action);
            }));
        }
        {
            let st = st.clone();
            listeners.push(EventListener::new(&window, "resize", move |_| {
                let mut s = st.borrow_mut();
                s.measure_box();
                s.request_draw();
            }));
        }
        if let Ok(Some(mq)) = window.match_media("(prefers-color-scheme: light)") {
            let st = st.clone();
            listeners.push(EventListener::new(&mq, "change", move |_| {
                let mut s = st.borrow_mut();
                s.patterns.clear();
                s.request_draw();
            }));
        }
        // The parent's size (the page's panels can be resized): measured
        // again and drawn on every change.
        let observer = canvas.parent_element().and_then(|parent| {
            let weak = Rc::downgrade(&st);
            let cb = Closure::<dyn FnMut()>::new(move || {
                if let Some(st) = weak.upgrade() {
                    if let Ok(mut s) = st.try_borrow_mut() {
                        s.measure_box();
                        s.request_draw();
                    }
                }
            });
            let o = ResizeObserver::new(cb.as_ref().unchecked_ref()).ok()?;
            o.observe(&parent);
            Some((o, cb))
        });
        st.borrow_mut().measure_box();
        Some(Chart { st, _listeners: listeners, observer })
    }

    /// Shows a new timeline. `keep_view`: keep the window (absolute time,
    /// exactly: filters change which bars exist, never where the view is)
    /// and the scroll, else show everything.
    pub fn set_data(&self, analysis: Rc<Analysis>, tl: Rc<Timeline>, keep_view: bool) {
        let mut s = self.st.borrow_mut();
        let mut bar_of = vec![u32::MAX; analysis.reconciles.len()];
        for (i, b) in tl.bars.iter().enumerate() {
            if let Some(slot) = bar_of.get_mut(b.reconcile as usize) {
                *slot = i as u32;
            }
        }
        s.bar_of = bar_of;
        s.analysis = Some(analysis);
        s.tl = tl;
        s.measure_labels();
        if keep_view {
            // The window stays where it is: the extent it is kept on only grows.
            let (lo, hi) = s.tl_extent();
            s.extent = (s.extent.0.min(lo), s.extent.1.max(hi));
        } else {
            s.selected = None;
            s.focus = None;
            s.reset_view();
        }
        s.request_draw();
    }

    pub fn set_zone(&self, zone: Zone) {
        let mut s = self.st.borrow_mut();
        s.zone = zone;
        s.request_draw();
    }

    pub fn reset(&self) {
        let mut s = self.st.borrow_mut();
        s.reset_view();
        s.request_draw();
    }

    /// Zooms onto a finding's window, scrolls to its rows and marks them
    /// until another finding is focused.
    pub fn focus_finding(&self, finding: u32) {
        let mut s = self.st.borrow_mut();
        s.focus = Some(finding);
        let window = match s.tl.highlights.iter().find(|h| h.finding == finding) {
            Some(h) => Some((h.start_nanos, h.end_nanos, h.rows.clone())),
            None => s.analysis.as_ref().and_then(|a| a.findings.get(finding as usize).map(|f| (f.start.nanos, f.end.nanos, Vec::new()))),
        };
        if let Some((start, end, rows)) = window {
            let span = end.saturating_sub(start).max(1_000_000_000);
            let pad = span / 7;
            s.scale = s.scale.with_window(start.saturating_sub(pad), end.saturating_add(pad));
            if let (Some(&first), Some(&last)) = (rows.first(), rows.last()) {
                let plot_h = s.geom().plot_h();
                let (top, bottom) = (first as f64 * ROW_H, (last as f64 + 1.0) * ROW_H);
                // All its rows when they fit, else from the first.
                s.scroll = if bottom - top <= plot_h - ROW_H { top - ((plot_h - (bottom - top)) / 3.0).max(0.0) } else { top - ROW_H };
            }
            s.clamp();
        }
        s.request_draw();
    }

    /// Marks a reconcile as selected and, with `reveal`, brings its bar
    /// into view.
    pub fn select(&self, reconcile: Option<u32>, reveal: bool) {
        let mut s = self.st.borrow_mut();
        s.selected = reconcile;
        if let (true, Some(r)) = (reveal, reconcile) {
            s.reveal(r);
        }
        s.request_draw();
    }

    pub fn request_draw(&self) {
        self.st.borrow_mut().request_draw();
    }

    /// Shows the window `[start, end]` (absolute ns).
    pub fn set_view(&self, start: i64, end: i64) {
        let mut s = self.st.borrow_mut();
        s.scale = s.scale.with_window(start, end.max(start.saturating_add(1)));
        s.clamp();
        s.request_draw();
    }

    /// Told whenever the keyboard moves the selection (the reconcile's
    /// index), so the page can follow it without opening the inspector.
    #[allow(dead_code)]
    pub fn set_on_select(&self, cb: Callback<Option<u32>>) {
        self.st.borrow_mut().on_select = Some(cb);
    }
}

enum Action {
    Pick(u32),
    Toggle(String),
    Selected(u32),
}

/// Emits an action's event outside the state's borrow.
fn emit(st: &Rc<RefCell<State>>, action: Option<Action>) {
    match action {
        Some(Action::Pick(r)) => {
            let cb = st.borrow().events.pick.clone();
            cb.emit(r);
        }
        Some(Action::Toggle(key)) => {
            let cb = st.borrow().events.toggle_row.clone();
            cb.emit(key);
        }
        Some(Action::Selected(r)) => {
            let cb = st.borrow().on_select.clone();
            if let Some(cb) = cb {
                cb.emit(Some(r));
            }
        }
        None => {}
    }
}

impl State {
    fn request_draw(&mut self) {
        if self.frame.is_some() {
            return;
        }
        let me = self.me.clone();
        self.frame = Some(request_animation_frame(move |_| {
            if let Some(st) = me.upgrade() {
                let mut s = st.borrow_mut();
                s.frame = None;
                s.draw();
            }
        }));
    }

    /// The timeline's extent, at least a second long.
    fn tl_extent(&self) -> (i64, i64) {
        let lo = self.tl.start_nanos;
        (lo, self.tl.end_nanos.max(lo.saturating_add(1_000_000_000)))
    }

    fn reset_view(&mut self) {
        self.extent = self.tl_extent();
        let (lo, hi) = self.extent;
        let pad = hi.saturating_sub(lo) / 100;
        self.scale = self.scale.with_window(lo.saturating_sub(pad), hi.saturating_add(pad));
        self.scroll = 0.0;
    }

    fn geom(&self) -> Geom {
        let lane_h = if self.tl.bands.is_empty() { 0.0 } else { LANE_H };
        let sources_h = sources::height(&self.tl);
        let rows_top = AXIS_H + lane_h + sources_h;
        let rows_bottom = (self.h - OVERVIEW_H).max(rows_top);
        let rows = self.tl.rows.len();
        let first_row = (self.scroll / ROW_H).floor().max(0.0) as usize;
        let last_row = (((self.scroll + rows_bottom - rows_top) / ROW_H).ceil().max(0.0) as usize).min(rows);
        Geom {
            w: self.w,
            h: self.h,
            label_w: self.label_w,
            lane_top: AXIS_H,
            lane_h,
            sources_top: AXIS_H + lane_h,
            sources_h,
            rows_top,
            rows_bottom,
            overview_top: rows_bottom,
            scroll: self.scroll,
            first_row: first_row.min(rows),
            last_row,
        }
    }

    fn plot_w(&self) -> f64 {
        (self.w - self.label_w - RIGHT_PAD).max(1.0)
    }

    fn clamp(&mut self) {
        let (lo, hi) = self.extent;
        self.scale = self.scale.with_px(self.label_w, self.plot_w()).clamp_to(lo, hi);
        let max_scroll = (self.tl.rows.len() as f64 * ROW_H - self.geom().plot_h() + 4.0).max(0.0);
        self.scroll = if self.scroll.is_finite() { self.scroll.clamp(0.0, max_scroll) } else { 0.0 };
    }

    fn row_at(&self, y: f64) -> Option<usize> {
        let g = self.geom();
        if y < g.rows_top || y >= g.rows_bottom {
            return None;
        }
        let r = ((y - g.rows_top + self.scroll) / ROW_H).floor();
        (r >= 0.0 && (r as usize) < self.tl.rows.len()).then_some(r as usize)
    }

    /// Bar indexes of a row that may overlap `[t0, t1]` (absolute ns):
    /// [`Timeline::visible_bars`] as a range of `tl.bars`.
    fn candidates(&self, row: usize, t0: i64, t1: i64) -> Range<usize> {
        candidates(&self.tl, row, t0, t1)
    }

    fn measure_labels(&mut self) {
        self.ctx.set_font(FONT_BOLD);
        let mut widest: f64 = 0.0;
        for r in self.tl.rows.iter().take(5000) {
            let w = self.ctx.measure_text(&r.label).map(|m| m.width()).unwrap_or(0.0);
            widest = widest.max(w + if r.depth == 0 { 22.0 } else { 30.0 });
        }
        self.label_w = widest.clamp(140.0, 300.0);
        let (ctx, label_w) = (&self.ctx, self.label_w);
        self.cut_labels = reconscope::render::row_labels_cut_by(
            &self.tl.rows,
            |r| rows::label(&self.tl.rows[r]),
            |depth| label_w - rows::indent(depth) - 8.0,
            |text, depth| {
                ctx.set_font(if depth == 0 { FONT_BOLD } else { FONT });
                ctx.measure_text(text).map(|m| m.width()).unwrap_or(0.0)
            },
        )
        .into();
    }

    /// Brings a reconcile's bar into view (time and rows).
    fn reveal(&mut self, reconcile: u32) {
        let Some(&bi) = self.bar_of.get(reconcile as usize) else { return };
        let Some(bar) = self.tl.bars.get(bi as usize).copied() else { return };
        let sc = self.scale;
        if bar.end_nanos < sc.start() || bar.start_nanos > sc.end() {
            let mid = bar.start_nanos / 2 + bar.end_nanos / 2;
            let half = (sc.span() / 2) as i64;
            self.scale = sc.with_window(mid.saturating_sub(half), mid.saturating_add(half));
        }
        let y = bar.row as f64 * ROW_H;
        let plot_h = self.geom().plot_h();
        if y < self.scroll || y + ROW_H > self.scroll + plot_h {
            self.scroll = y - plot_h / 3.0;
        }
        self.clamp();
    }

    // ----- events -----

    fn offset(&self, e: &MouseEvent) -> (f64, f64) {
        let rect = self.canvas.get_bounding_client_rect();
        (e.client_x() as f64 - rect.left(), e.client_y() as f64 - rect.top())
    }

    fn on_wheel(&mut self, e: &WheelEvent) {
        let (x, _) = self.offset(e);
        let unit = match e.delta_mode() {
            1 => 16.0,
            2 => self.h,
            _ => 1.0,
        };
        let (dx, dy) = (e.delta_x() * unit, e.delta_y() * unit);
        if e.shift_key() {
            self.scroll += dy;
        } else {
            let f = (dy * 0.002).exp();
            self.scale = self.scale.zoom(f, x.max(self.label_w)).pan_px(dx);
        }
        self.clamp();
        self.hide_tooltip();
        self.request_draw();
    }

    fn on_down(&mut self, e: &MouseEvent) {
        let (x, y) = self.offset(e);
        let g = self.geom();
        let kind = if y >= g.overview_top && x >= self.label_w {
            let ov = overview::scale(&g, self.extent);
            let (bx0, bx1) = (ov.x_clamped(self.scale.start()), ov.x_clamped(self.scale.end()));
            if x < bx0 - 2.0 || x > bx1 + 2.0 {
                // A click outside the box: the window jumps there, then drags.
                let t = ov.t(x);
                let half = (self.scale.span() / 2) as i64;
                self.scale = self.scale.with_window(t.saturating_sub(half), t.saturating_add(half));
                self.clamp();
                self.request_draw();
            }
            DragKind::Overview { scale: self.scale }
        } else {
            DragKind::Pan { scale: self.scale, scroll: self.scroll }
        };
        self.drag = Some(Drag { x, y, kind, moved: false });
        let _ = self.canvas.focus();
        e.prevent_default();
    }

    fn on_drag(&mut self, e: &MouseEvent) {
        let (x, y) = self.offset(e);
        let g = self.geom();
        let extent = self.extent;
        let Some(d) = self.drag.as_mut() else { return };
        if (x - d.x).abs() + (y - d.y).abs() > 3.0 {
            d.moved = true;
        }
        if !d.moved {
            return;
        }
        match d.kind {
            DragKind::Pan { scale, scroll } => {
                self.scale = scale.pan_px(d.x - x);
                self.scroll = scroll - (y - d.y);
            }
            DragKind::Overview { scale } => {
                // The overview's pixels are the whole run's.
                let ov = overview::scale(&g, extent);
                self.scale = scale.pan_px((x - d.x) * ov.ns_per_px() / scale.ns_per_px());
            }
        }
        self.clamp();
        let _ = self.canvas.style().set_property("cursor", "grabbing");
        self.hide_tooltip();
        self.request_draw();
    }

    fn on_up(&mut self, e: &MouseEvent) -> Option<Action> {
        let d = self.drag.take()?;
        let _ = self.canvas.style().remove_property("cursor");
        if d.moved || matches!(d.kind, DragKind::Overview { .. }) {
            return None;
        }
        let (x, y) = self.offset(e);
        if x < self.label_w {
            let row = self.tl.rows.get(self.row_at(y)?)?;
            return (row.depth == 0).then(|| Action::Toggle(row.key.clone()));
        }
        let bar = self.bar_at(x, y)?;
        let r = self.tl.bars[bar].reconcile;
        self.selected = Some(r);
        self.request_draw();
        Some(Action::Pick(r))
    }

    fn on_move(&mut self, e: &MouseEvent) {
        if self.drag.as_ref().is_some_and(|d| d.moved) {
            return;
        }
        let (x, y) = self.offset(e);
        self.hover = Some((x, y));
        self.update_tooltip(x, y);
    }

    /// The selected reconcile's bar index, if it is drawn.
    fn selected_bar(&self) -> Option<usize> {
        let &bi = self.bar_of.get(self.selected? as usize)?;
        ((bi as usize) < self.tl.bars.len()).then_some(bi as usize)
    }

    /// The bar of `row` nearest in time to `t` (absolute ns).
    fn nearest_on_row(&self, row: usize, t: i64) -> Option<usize> {
        let r = self.tl.rows.get(row)?;
        let (s, e) = (r.bar_start as usize, (r.bar_end as usize).min(self.tl.bars.len()));
        if s >= e {
            return None;
        }
        let bars = &self.tl.bars[s..e];
        let i = bars.partition_point(|b| b.start_nanos <= t);
        let dist = |b: &reconscope::layout::Bar| {
            if t < b.start_nanos {
                b.start_nanos.saturating_sub(t)
            } else if t > b.end_nanos {
                t.saturating_sub(b.end_nanos)
            } else {
                0
            }
        };
        // Bars of a row are sorted by start; a long earlier bar may hold t.
        let lo = i.saturating_sub(8);
        let hi = (i + 2).min(bars.len());
        (lo..hi).min_by_key(|&k| dist(&bars[k])).map(|k| s + k)
    }

    /// The bar the keyboard moves to from the selection (or, with none,
    /// the one nearest the view's middle on the first visible row with bars).
    fn step_selection(&self, key: &str) -> Option<usize> {
        let mid = self.scale.start() / 2 + self.scale.end() / 2;
        let Some(cur) = self.selected_bar() else {
            let g = self.geom();
            return (g.first_row..self.tl.rows.len()).find_map(|r| self.nearest_on_row(r, mid));
        };
        let b = self.tl.bars[cur];
        let row = b.row as usize;
        let at = b.start_nanos / 2 + b.end_nanos / 2;
        let r = self.tl.rows.get(row)?;
        match key {
            "ArrowLeft" => (cur > r.bar_start as usize).then(|| cur - 1),
            "ArrowRight" => (cur + 1 < r.bar_end as usize).then_some(cur + 1),
            "ArrowUp" => (0..row).rev().find_map(|r| self.nearest_on_row(r, at)),
            "ArrowDown" => (row + 1..self.tl.rows.len()).find_map(|r| self.nearest_on_row(r, at)),
            _ => None,
        }
    }

    fn on_key(&mut self, e: &KeyboardEvent) -> Option<Action> {
        let key = e.key();
        let plot_h = self.geom().plot_h();
        let mid_x = self.label_w + self.plot_w() / 2.0;
        let pan = self.plot_w() * 0.1;
        let arrow = matches!(key.as_str(), "ArrowLeft" | "ArrowRight" | "ArrowUp" | "ArrowDown");
        let mut action = None;
        match key.as_str() {
            k if arrow && !e.shift_key() && !e.alt_key() && !e.ctrl_key() && !e.meta_key() => {
                if let Some(bi) = self.step_selection(k) {
                    let r = self.tl.bars[bi].reconcile;
                    self.selected = Some(r);
                    self.reveal(r);
                    action = Some(Action::Selected(r));
                }
            }
            "Enter" | " " => {
                let r = self.selected.filter(|_| self.selected_bar().is_some());
                let r = r.or_else(|| self.step_selection("").map(|bi| self.tl.bars[bi].reconcile));
                match r {
                    Some(r) => {
                        self.selected = Some(r);
                        self.reveal(r);
                        action = Some(Action::Pick(r));
                    }
                    None => return None,
                }
            }
            "ArrowLeft" | "h" | "H" => self.scale = self.scale.pan_px(-pan),
            "ArrowRight" | "l" | "L" => self.scale = self.scale.pan_px(pan),
            "ArrowUp" | "k" | "K" => self.scroll -= ROW_H,
            "ArrowDown" | "j" | "J" => self.scroll += ROW_H,
            "PageUp" => self.scroll -= plot_h * 0.8,
            "PageDown" => self.scroll += plot_h * 0.8,
            "+" | "=" => self.scale = self.scale.zoom(0.7, mid_x),
            "-" | "_" | "−" => self.scale = self.scale.zoom(1.0 / 0.7, mid_x),
            "0" | "Home" => self.reset_view(),
            _ => return None,
        }
        e.prevent_default();
        self.clamp();
        self.hide_tooltip();
        self.request_draw();
        action
    }

    // ----- hit testing and tooltip -----

    fn bar_at(&self, x: f64, y: f64) -> Option<usize> {
        if x < self.label_w {
            return None;
        }
        let row = self.row_at(y)?;
        let sc = self.scale;
        let (lo, hi) = (sc.t(x - 3.0), sc.t(x + 3.0));
        let mut best: Option<(usize, f64)> = None;
        for i in self.candidates(row, lo, hi) {
            let b = &self.tl.bars[i];
            if b.end_nanos < lo || b.start_nanos > hi {
                continue;
            }
            let (x0, x1) = (sc.x(b.start_nanos), sc.x(b.end_nanos).max(sc.x(b.start_nanos) + 2.0));
            let dist = if x < x0 {
                x0 - x
            } else if x > x1 {
                x - x1
            } else {
                0.0
            };
            if best.is_none_or(|(_, d)| dist < d) {
                best = Some((i, dist));
            }
        }
        best.map(|(i, _)| i)
    }

    /// The election band under x (at least [`MIN_BAND_W`] wide).
    fn band_at(&self, x: f64) -> Option<&reconscope::layout::Band> {
        let sc = self.scale;
        self.tl.bands.iter().find(|b| {
            let x0 = sc.x(b.start_nanos);
            let x1 = sc.x(b.end_nanos).max(x0 + MIN_BAND_W);
            x0 - 1.0 <= x && x <= x1 + 1.0
        })
    }

    fn hide_tooltip(&self) {
        let _ = self.tooltip.class_list().add_1("hidden");
    }

    fn update_tooltip(&mut self, x: f64, y: f64) {
        let text = self.describe(x, y);
        let Some(text) = text else {
            self.hide_tooltip();
            let _ = self.canvas.style().remove_property("cursor");
            return;
        };
        let _ = self.canvas.style().set_property("cursor", if self.bar_at(x, y).is_some() { "pointer" } else { "default" });
        self.tooltip.set_text_content(Some(&text));
        let _ = self.tooltip.class_list().remove_1("hidden");
        let tw = self.tooltip.offset_width() as f64;
        let th = self.tooltip.offset_height() as f64;
        let left = if x + 16.0 + tw > self.w { (x - 16.0 - tw).max(0.0) } else { x + 16.0 };
        let top = if y + 16.0 + th > self.h { (y - 8.0 - th).max(0.0) } else { y + 16.0 };
        let style = self.tooltip.style();
        let _ = style.set_property("left", &format!("{left}px"));
        let _ = style.set_property("top", &format!("{top}px"));
    }

    fn describe_band(&self, b: &reconscope::layout::Band) -> Option<String> {
        let a = self.analysis.as_ref()?;
        let z = self.zone;
        let leaderless = match b.leaderless_start_nanos {
            Some(l) => format!("\nleaderless from {}", timefmt::clock(l, z, 3)),
            None => String::new(),
        };
        Some(format!(
            "{}\nelection {} → {} ({}){leaderless}",
            b.label,
            timefmt::clock(b.start_nanos, z, 3),
            timefmt::clock(b.end_nanos, z, 3),
            // No finer than the election's own timestamps.
            match a.elections.get(b.election as usize).and_then(|e| Some((e.start, e.end?))) {
                Some((s, e)) => honest_duration(s, e),
                None => human_duration(b.end_nanos.saturating_sub(b.start_nanos)),
            }
        ))
    }

    fn describe(&self, x: f64, y: f64) -> Option<String> {
        let a = self.analysis.as_ref()?;
        let z = self.zone;
        let g = self.geom();
        if y >= g.overview_top {
            return Some("The whole run: drag the box to move the view, click to jump".into());
        }
        if y >= g.sources_top && y < g.sources_top + g.sources_h {
            return sources::describe(self, x, y);
        }
        if y >= g.lane_top && y < g.lane_top + g.lane_h {
            if x < self.label_w {
                return Some("etcd leader elections (term, leader, leaderless time)".into());
            }
            return self.band_at(x).and_then(|b| self.describe_band(b));
        }
        if let Some(bi) = self.bar_at(x, y) {
            let b = self.tl.bars[bi];
            let r = a.reconciles.get(b.reconcile as usize)?;
            // Text from the logs, each part on its own (the tooltip's lines
            // are cut at "\n").
            let inert = |t: &str| reconscope::inert::label(t).into_owned();
            let controller = a.controllers.get(r.controller).map_or("unknown controller".to_string(), |c| inert(&c.name));
            let object = r.object.as_ref().map_or_else(|| "unknown object".into(), |o| inert(&o.to_string()));
            let mut t = format!("reconcile {}\n{} · {}\n", inert(&r.reconcile_id), controller, object);
            if let Some(l) = r.latent_start {
                let at = timefmt::full(l.nanos, z);
                t.push_str(&if r.stated_start { format!("began at {at} (as a line of it states)\n") } else { format!("began no earlier than {at}\n") });
            }
            let lines = if r.is_one_line() { String::new() } else { format!(" · {}", reconscope::words::plural(r.lines, "line", "lines")) };
            // No finer than its timestamps; one line has no duration.
            t.push_str(&format!(
                "first {}\nlast  {}\n{} · {}{lines}{}",
                timefmt::full(r.first.nanos, z),
                timefmt::full(r.last.nanos, z),
                r.duration_text(),
                r.outcome_text(),
                if r.truncated { " · cut by the log's edge" } else { "" },
            ));
            if let Some(err) = &r.error {
                let err = inert(err);
                let short: String = err.chars().take(240).collect();
                t.push_str(&format!("\nerror: {short}{}", if short.len() < err.len() { "…" } else { "" }));
            }
            return Some(t);
        }
        if x < self.label_w {
            let row = self.tl.rows.get(self.row_at(y)?)?;
            let hint = if row.depth == 0 { "\n(click to fold or unfold)" } else { "" };
            // The label in full (the column may show it cut).
            return Some(format!("{}{hint}", row.label));
        }
        let sc = self.scale;
        if let Some(d) = self.tl.dumps.iter().find(|d| (sc.x(d.at_nanos) - x).abs() <= 4.0) {
            return Some(format!("{}\n{} (see Goroutines below)", d.label, timefmt::full(d.at_nanos, z)));
        }
        let row = self.row_at(y);
        for m in &self.tl.markers {
            if Some(m.row as usize) == row && (sc.x(m.at_nanos) + m.kind.offset_px() - x).abs() <= 5.0 {
                return Some(format!("{}\n{}", m.label, timefmt::full(m.at_nanos, z)));
            }
        }
        if y >= g.rows_top {
            let t = sc.t(x);
            let on_row = |rows: &[u32]| rows.is_empty() || row.is_some_and(|r| rows.binary_search(&(r as u32)).is_ok());
            let finding = self
                .tl
                .highlights
                .iter()
                .filter(|h| h.start_nanos <= t && t <= h.end_nanos && on_row(&h.rows))
                .filter_map(|h| a.findings.get(h.finding as usize))
                .next();
            if let Some(f) = finding {
                return Some(format!("{}: {}", f.kind.as_str(), reconscope::inert::label(&f.message)));
            }
            if let Some(b) = self.band_at(x) {
                return self.describe_band(b);
            }
        }
        None
    }

    // ----- drawing -----

    fn palette(&self) -> Palette {
        let style = web_sys::window().and_then(|w| w.get_computed_style(&self.canvas).ok().flatten());
        let get = |name: &str, fallback: &str| {
            style
                .as_ref()
                .and_then(|s| s.get_property_value(name).ok())
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
                .unwrap_or_else(|| fallback.to_string())
        };
        let band = get("--band", "rgba(150, 120, 255, 0.14)");
        let band_leaderless = get("--band-leaderless", "rgba(150, 120, 255, 0.32)");
        let accent = get("--accent", "#5fb3f9");
        Palette {
            bg: get("--chart-bg", "#111418"),
            grid: get("--chart-grid", "#2a3038"),
            text: get("--fg", "#e6e8eb"),
            muted: get("--muted", "#9aa3ad"),
            row_alt: get("--chart-row-alt", "#161a1f"),
            group_bg: get("--chart-group-bg", "#1d232a"),
            success: get("--bar-success", "#4caf7d"),
            requeue: get("--bar-requeue", "#e0b341"),
            error: get("--bar-error", "#ef5350"),
            unfinished: get("--bar-unfinished", "#8a96a8"),
            // The chart's own election colours (www/style.css' chart block), else the page's.
            band: get("--chart-band", &band),
            band_leaderless: get("--chart-band-leaderless", &band_leaderless),
            band_edge: get("--chart-band-edge", "#ab8cff"),
            band_text: get("--chart-band-text", "#c9b6ff"),
            highlight: get("--highlight", "rgba(255, 138, 128, 0.12)"),
            highlight_stroke: get("--highlight-stroke", "#ff8a80"),
            focus_rows: get("--chart-focus-rows", "rgba(95, 179, 249, 0.16)"),
            marker: get("--marker", "#5fb3f9"),
            marker_delete: get("--marker-delete", "#ff8a80"),
            selected: get("--selected", "#ffffff"),
            ring: get("--chart-ring", &accent),
            overview_window: get("--chart-overview-window", "rgba(95, 179, 249, 0.25)"),
        }
    }

    /// The latent-start hatch of a colour, as the SVG export's: 45°
    /// stripes 2.5 px wide over a 12 % tint of the colour.
    fn pattern(&mut self, color: &str) -> Option<CanvasPattern> {
        if let Some((_, p)) = self.patterns.iter().find(|(c, _)| c == color) {
            return Some(p.clone());
        }
        let doc = web_sys::window()?.document()?;
        let tile: HtmlCanvasElement = doc.create_element("canvas").ok()?.dyn_into().ok()?;
        tile.set_width(8);
        tile.set_height(8);
        let c: CanvasRenderingContext2d = tile.get_context("2d").ok()??.dyn_into().ok()?;
        c.set_fill_style_str(color);
        c.set_global_alpha(0.12);
        c.fill_rect(0.0, 0.0, 8.0, 8.0);
        c.set_global_alpha(1.0);
        c.set_stroke_style_str(color);
        c.set_line_width(2.5);
        c.begin_path();
        // Diagonal lines that join across tiles.
        c.move_to(-2.0, 10.0);
        c.line_to(10.0, -2.0);
        c.move_to(-2.0, 2.0);
        c.line_to(2.0, -2.0);
        c.move_to(6.0, 10.0);
        c.line_to(10.0, 6.0);
        c.stroke();
        let p = self.ctx.create_pattern_with_html_canvas_element(&tile, "repeat").ok()??;
        self.patterns.push((color.to_string(), p.clone()));
        Some(p)
    }

    /// The parent's own height (`.chart-box` given one by the page's CSS):
    /// measured with the canvas out of the way, so a parent that only
    /// wraps the canvas reads 0 and today's rule applies.
    fn measure_box(&mut self) {
        let Some(parent) = self.canvas.parent_element() else { return };
        let style = self.canvas.style();
        let old = style.get_property_value("height").unwrap_or_default();
        let _ = style.set_property("height", "0px");
        let h = parent.client_height() as f64;
        if old.is_empty() {
            let _ = style.remove_property("height");
        } else {
            let _ = style.set_property("height", &old);
        }
        self.box_h = (h > 0.0).then_some(h);
    }

    fn resize(&mut self) {
        let parent_w = self.canvas.parent_element().map(|p| p.client_width() as f64).unwrap_or(800.0);
        let w = parent_w.max(320.0);
        let rows = self.tl.rows.len() as f64;
        let h = match self.box_h {
            // The parent's height; rows scroll inside.
            Some(h) => h.max(MIN_H),
            None => {
                // As tall as its rows need, up to most of the window.
                let window_h = web_sys::window().and_then(|w| w.inner_height().ok()).and_then(|v| v.as_f64()).unwrap_or(800.0);
                let max_h = (window_h - 140.0).clamp(MIN_H, MAX_H);
                let lane = if self.tl.bands.is_empty() { 0.0 } else { LANE_H };
                (AXIS_H + lane + sources::height(&self.tl) + rows * ROW_H + OVERVIEW_H + 6.0).clamp(MIN_H, max_h)
            }
        };
        let dpr = web_sys::window().map(|w| w.device_pixel_ratio()).unwrap_or(1.0).max(1.0);
        let (pw, ph) = ((w * dpr).round() as u32, (h * dpr).round() as u32);
        if self.canvas.width() != pw || self.canvas.height() != ph {
            self.canvas.set_width(pw);
            self.canvas.set_height(ph);
        }
        if self.w != w || self.h != h {
            let style = self.canvas.style();
            let _ = style.set_property("width", &format!("{w}px"));
            let _ = style.set_property("height", &format!("{h}px"));
            self.w = w;
            self.h = h;
        }
        let _ = self.ctx.set_transform(dpr, 0.0, 0.0, dpr, 0.0, 0.0);
    }

    fn draw(&mut self) {
        self.resize();
        self.clamp();
        let p = self.palette();
        let ctx = self.ctx.clone();
        let (w, h) = (self.w, self.h);
        ctx.set_fill_style_str(&p.bg);
        ctx.fill_rect(0.0, 0.0, w, h);
        ctx.set_font(FONT);
        ctx.set_text_baseline("middle");

        if self.tl.rows.is_empty() {
            ctx.set_fill_style_str(&p.muted);
            let msg = if self.analysis.as_ref().is_some_and(|a| !a.reconciles.is_empty()) {
                "The timeline layout is empty."
            } else {
                "No reconciles to draw: the inputs hold no controller-runtime reconcile logs."
            };
            let _ = ctx.fill_text(msg, 16.0, h / 2.0);
            return;
        }
        let patterns = Outcome::ALL.map(|o| self.pattern(p.outcome(o)));
        let tl = self.tl.clone();
        let cut_labels = self.cut_labels.clone();
        let analysis = self.analysis.clone();
        let f = Frame {
            ctx: &ctx,
            p: &p,
            g: self.geom(),
            s: self.scale,
            tl: &tl,
            cut_labels: &cut_labels,
            a: analysis.as_deref(),
            zone: self.zone,
            focus: self.focus,
            selected: self.selected,
            extent: self.extent,
        };
        let g = f.g;

        rows::stripes(&f);
        highlights::focus_rows(&f);

        // The plot area, clipped.
        clip_rows(&ctx, &g, g.px1());
        let ticks = axis::ticks(&f);
        axis::grid(&f, &ticks);
        rows::in_flight(&f);
        bands::paint(&f);
        highlights::boxes(&f);
        let drawn = bars::paint(&f, &patterns);
        markers::dumps(&f);
        highlights::labels(&f);
        ctx.restore();
        // Markers may sit just past the plot's end (finalizers left, after
        // the last line): clipped to the rows, short of the scroll hint.
        clip_rows(&ctx, &g, g.w - SCROLL_HINT_W);
        markers::paint(&f);
        ctx.restore();

        rows::labels(&f);
        axis::paint(&f, &ticks);
        etcd::paint(&f);
        sources::paint(&f);
        overview::paint(&f);
        rows::scroll_hint(&f);

        // What was drawn, for tests and tools: bar count, the view (absolute
        // ns), the axis' tick step (ns), the selected bar's box (CSS px),
        // the focused finding, where the plot area is.
        let (vt0, vt1) = (self.scale.start(), self.scale.end());
        let c = &self.canvas;
        let _ = c.set_attribute("data-drawn-bars", &drawn.count.to_string());
        let _ = c.set_attribute("data-view", &format!("{vt0},{vt1}"));
        let _ = c.set_attribute("data-view-start", &vt0.to_string());
        let _ = c.set_attribute("data-view-end", &vt1.to_string());
        let _ = c.set_attribute("data-tick-step", &ticks.step.to_string());
        let _ = c.set_attribute("data-plot-left", &format!("{:.1}", g.label_w));
        let _ = c.set_attribute("data-plot-width", &format!("{:.1}", self.plot_w()));
        let _ = c.set_attribute("data-rows-top", &format!("{:.1}", g.rows_top));
        // The lanes: log sources' (top and count) and in-flight rows.
        let _ = c.set_attribute("data-sources-top", &format!("{:.1}", g.sources_top));
        let _ = c.set_attribute("data-source-lanes", &self.tl.sources.len().to_string());
        let _ = c.set_attribute("data-in-flight-lanes", &self.tl.in_flight.len().to_string());
        let set_or_remove = |name: &str, v: Option<String>| match v {
            Some(v) => {
                let _ = c.set_attribute(name, &v);
            }
            None => {
                let _ = c.remove_attribute(name);
            }
        };
        set_or_remove("data-selected-reconcile", self.selected.map(|r| r.to_string()));
        set_or_remove("data-focus-finding", self.focus.map(|f| f.to_string()));
        set_or_remove("data-selected-rect", drawn.selected.map(|(x, y, bw, bh)| format!("{x:.1},{y:.1},{bw:.1},{bh:.1}")));
        if self.reported != Some((vt0, vt1)) {
            self.reported = Some((vt0, vt1));
            self.events.view.emit((vt0, vt1));
        }
        // Keep the tooltip true to what is under the cursor now.
        if let (Some((x, y)), None) = (self.hover, self.drag.as_ref()) {
            self.update_tooltip(x, y);
        }
    }
}

/// Saves the context and clips it to the rows, from the labels' edge to
/// `right` (the caller restores it).
fn clip_rows(ctx: &CanvasRenderingContext2d, g: &Geom, right: f64) {
    ctx.save();
    ctx.begin_path();
    ctx.rect(g.label_w, g.rows_top, right - g.label_w, g.rows_bottom - g.rows_top);
    ctx.clip();
}

/// Bar indexes of a row that may overlap `[t0, t1]` (absolute ns).
fn candidates(tl: &Timeline, row: usize, t0: i64, t1: i64) -> Range<usize> {
    let vis = tl.visible_bars(row, t0, t1);
    if vis.is_empty() {
        return 0..0;
    }
    let size = std::mem::size_of::<reconscope::layout::Bar>().max(1);
    let start = (vis.as_ptr() as usize - tl.bars.as_ptr() as usize) / size;
    start..start + vis.len()
}

/// The text, cut at its end with an ellipsis to fit `max_w` px.
fn fit(ctx: &CanvasRenderingContext2d, text: &str, max_w: f64) -> String {
    let width = |s: &str| ctx.measure_text(s).map(|m| m.width()).unwrap_or(0.0);
    if width(text) <= max_w {
        return text.to_string();
    }
    let chars: Vec<char> = text.chars().collect();
    let (mut lo, mut hi) = (0usize, chars.len());
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        let s: String = chars[..mid].iter().collect::<String>() + "…";
        if width(&s) <= max_w {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    chars[..lo].iter().collect::<String>() + "…"
}

/// Adds a box to a batch, merged into the one before when both sit on the
/// same row and touch or overlap within half a pixel: zoomed out, thousands
/// of bars of one row share a few pixels and are drawn as one rectangle.
fn push_merged(out: &mut Vec<(f64, f64, f64, f64)>, b: (f64, f64, f64, f64)) {
    if let Some(last) = out.last_mut() {
        if last.1 == b.1 && last.3 == b.3 && b.0 <= last.0 + last.2 + 0.5 && b.0 >= last.0 {
            last.2 = last.2.max(b.0 + b.2 - last.0);
            return;
        }
    }
    out.push(b);
}

/// Fills a batch of rectangles in one path.
fn fill_rects(ctx: &CanvasRenderingContext2d, rects: &[(f64, f64, f64, f64)]) {
    if rects.is_empty() {
        return;
    }
    ctx.begin_path();
    for &(x, y, w, h) in rects {
        ctx.rect(x, y, w, h);
    }
    ctx.fill();
}
