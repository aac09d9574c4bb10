//! The timeline, painted on a `<canvas>` from `reconscope::layout`'s
//! [`Timeline`]: row labels, a time axis, bars coloured by outcome (latent
//! starts hatched), ticks for single-line reconciles, election bands,
//! lifecycle markers and finding highlights.
//!
//! Only what is visible is drawn, batched by colour (no DOM node per bar).
//! Wheel zooms around the cursor, dragging or the arrow keys pan, hovering
//! shows a tooltip, clicking a bar picks it (the inspector opens) and
//! clicking a controller's label folds its rows. Colours come from CSS
//! variables (`www/style.css`), so dark and light follow the system.

use std::cell::RefCell;
use std::ops::Range;
use std::rc::{Rc, Weak};

use gloo::events::{EventListener, EventListenerOptions};
use gloo::render::{request_animation_frame, AnimationFrame};
use reconscope::analyze::{Analysis, Outcome};
use reconscope::layout::{MarkerKind, Timeline};
use reconscope::time::{honest_duration, human_duration};
use wasm_bindgen::JsCast;
use web_sys::{CanvasPattern, CanvasRenderingContext2d, HtmlCanvasElement, HtmlElement, KeyboardEvent, MouseEvent, WheelEvent};
use yew::Callback;

use crate::timefmt::{self, Zone};

const ROW_H: f64 = 20.0;
const BAR_PAD: f64 = 4.0;
const AXIS_H: f64 = 36.0;
const MIN_H: f64 = 160.0;
const MAX_H: f64 = 900.0;
const RIGHT_PAD: f64 = 12.0;
const FONT: &str = "12px system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif";
const FONT_BOLD: &str = "600 12px system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif";
/// The narrowest view: 100 µs.
const MIN_SPAN: f64 = 100_000.0;

/// What the chart tells the page.
pub struct ChartEvents {
    /// A bar was clicked: the reconcile's index.
    pub pick: Callback<u32>,
    /// A controller's label was clicked: the row's key (fold/unfold).
    pub toggle_row: Callback<String>,
    /// The drawn time window changed (absolute ns).
    pub view: Callback<(i64, i64)>,
}

pub struct Chart {
    st: Rc<RefCell<State>>,
    _listeners: Vec<EventListener>,
}

struct Drag {
    x: f64,
    y: f64,
    t0: f64,
    t1: f64,
    scroll: f64,
    moved: bool,
}

struct Palette {
    bg: String,
    grid: String,
    text: String,
    muted: String,
    row_alt: String,
    group_bg: String,
    success: String,
    requeue: String,
    error: String,
    band: String,
    band_leaderless: String,
    highlight: String,
    highlight_stroke: String,
    marker: String,
    marker_delete: String,
    selected: String,
}

struct State {
    me: Weak<RefCell<State>>,
    canvas: HtmlCanvasElement,
    tooltip: HtmlElement,
    ctx: CanvasRenderingContext2d,
    analysis: Option<Rc<Analysis>>,
    tl: Rc<Timeline>,
    /// Reconcile index → bar index (`u32::MAX`: not drawn).
    bar_of: Vec<u32>,
    label_w: f64,
    /// The view, in ns from `tl.start_nanos`.
    t0: f64,
    t1: f64,
    /// Rows scrolled off the top, in px.
    scroll: f64,
    zone: Zone,
    selected: Option<u32>,
    focus: Option<u32>,
    hover: Option<(f64, f64)>,
    drag: Option<Drag>,
    events: ChartEvents,
    frame: Option<AnimationFrame>,
    /// Hatch patterns by colour.
    patterns: Vec<(String, CanvasPattern)>,
    /// The window last reported through `events.view`.
    reported: Option<(i64, i64)>,
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
                bar_of: Vec::new(),
                label_w: 160.0,
                t0: 0.0,
                t1: 1.0,
                reported: None,
                scroll: 0.0,
                zone: Zone::UTC,
                selected: None,
                focus: None,
                hover: None,
                drag: None,
                events,
                frame: None,
                patterns: Vec::new(),
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
                match action {
                    Some(Action::Pick(r)) => {
                        let cb = st.borrow().events.pick.clone();
                        cb.emit(r);
                    }
                    Some(Action::Toggle(key)) => {
                        let cb = st.borrow().events.toggle_row.clone();
                        cb.emit(key);
                    }
                    None => {}
                }
            }));
        }
        {
            let st = st.clone();
            listeners.push(EventListener::new_with_options(&canvas, "keydown", active, move |e| {
                let e: &KeyboardEvent = e.unchecked_ref();
                st.borrow_mut().on_key(e);
            }));
        }
        {
            let st = st.clone();
            listeners.push(EventListener::new(&window, "resize", move |_| st.borrow_mut().request_draw()));
        }
        if let Ok(Some(mq)) = window.match_media("(prefers-color-scheme: light)") {
            let st = st.clone();
            listeners.push(EventListener::new(&mq, "change", move |_| {
                let mut s = st.borrow_mut();
                s.patterns.clear();
                s.request_draw();
            }));
        }
        Some(Chart { st, _listeners: listeners })
    }

    /// Shows a new timeline. `keep_view`: keep the zoom and scroll (a
    /// re-layout of the same analysis), else show everything.
    pub fn set_data(&self, analysis: Rc<Analysis>, tl: Rc<Timeline>, keep_view: bool) {
        let mut s = self.st.borrow_mut();
        let mut bar_of = vec![u32::MAX; analysis.reconciles.len()];
        for (i, b) in tl.bars.iter().enumerate() {
            if let Some(slot) = bar_of.get_mut(b.reconcile as usize) {
                *slot = i as u32;
            }
        }
        let old_start = s.tl.start_nanos;
        s.bar_of = bar_of;
        s.analysis = Some(analysis);
        s.tl = tl;
        s.measure_labels();
        if keep_view {
            // Same instants as before, relative to the new origin.
            let shift = (old_start - s.tl.start_nanos) as f64;
            s.t0 += shift;
            s.t1 += shift;
            s.clamp();
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

    /// Zooms onto a finding's window and scrolls to its rows.
    pub fn focus_finding(&self, finding: u32) {
        let mut s = self.st.borrow_mut();
        s.focus = Some(finding);
        let origin = s.tl.start_nanos;
        let window = match s.tl.highlights.iter().find(|h| h.finding == finding) {
            Some(h) => Some((h.start_nanos, h.end_nanos, h.rows.first().copied())),
            None => s.analysis.as_ref().and_then(|a| a.findings.get(finding as usize).map(|f| (f.start.nanos, f.end.nanos, None))),
        };
        if let Some((start, end, row)) = window {
            let span = ((end - start) as f64).max(1e9);
            let pad = span * 0.15;
            s.t0 = (start - origin) as f64 - pad;
            s.t1 = (end - origin) as f64 + pad;
            if let Some(r) = row {
                s.scroll = (r as f64 * ROW_H - ROW_H * 2.0).max(0.0);
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
        let origin = s.tl.start_nanos;
        s.t0 = (start - origin) as f64;
        s.t1 = (end.max(start + 1) - origin) as f64;
        s.clamp();
        s.request_draw();
    }
}

enum Action {
    Pick(u32),
    Toggle(String),
}

/// Nice tick steps, in ns.
const STEPS: &[i64] = &[
    1_000,
    2_000,
    5_000,
    10_000,
    20_000,
    50_000,
    100_000,
    200_000,
    500_000,
    1_000_000,
    2_000_000,
    5_000_000,
    10_000_000,
    20_000_000,
    50_000_000,
    100_000_000,
    200_000_000,
    500_000_000,
    1_000_000_000,
    2_000_000_000,
    5_000_000_000,
    10_000_000_000,
    15_000_000_000,
    30_000_000_000,
    60_000_000_000,
    120_000_000_000,
    300_000_000_000,
    600_000_000_000,
    900_000_000_000,
    1_800_000_000_000,
    3_600_000_000_000,
    7_200_000_000_000,
    10_800_000_000_000,
    21_600_000_000_000,
    43_200_000_000_000,
    86_400_000_000_000,
    172_800_000_000_000,
    604_800_000_000_000,
];

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

    fn full(&self) -> f64 {
        ((self.tl.end_nanos - self.tl.start_nanos) as f64).max(1e9)
    }

    fn reset_view(&mut self) {
        let full = self.full();
        self.t0 = -full * 0.01;
        self.t1 = full * 1.01;
        self.scroll = 0.0;
    }

    fn plot_h(&self) -> f64 {
        (self.h - AXIS_H).max(0.0)
    }

    fn clamp(&mut self) {
        let full = self.full();
        let mut span = (self.t1 - self.t0).clamp(MIN_SPAN, full * 1.5);
        if !span.is_finite() {
            span = full;
        }
        let mut t0 = self.t0;
        t0 = t0.clamp(-span * 0.9, full - span * 0.1);
        self.t0 = t0;
        self.t1 = t0 + span;
        let max_scroll = (self.tl.rows.len() as f64 * ROW_H - self.plot_h() + 4.0).max(0.0);
        self.scroll = self.scroll.clamp(0.0, max_scroll);
    }

    fn plot_w(&self) -> f64 {
        (self.w - self.label_w - RIGHT_PAD).max(1.0)
    }

    fn x_of(&self, abs_nanos: i64) -> f64 {
        let t = (abs_nanos - self.tl.start_nanos) as f64;
        self.label_w + (t - self.t0) / (self.t1 - self.t0) * self.plot_w()
    }

    fn t_at(&self, x: f64) -> f64 {
        self.t0 + (x - self.label_w) / self.plot_w() * (self.t1 - self.t0)
    }

    fn row_at(&self, y: f64) -> Option<usize> {
        if y < AXIS_H {
            return None;
        }
        let r = ((y - AXIS_H + self.scroll) / ROW_H).floor();
        (r >= 0.0 && (r as usize) < self.tl.rows.len()).then_some(r as usize)
    }

    /// Bar indexes of a row that may overlap `[t0, t1]` (absolute ns):
    /// [`Timeline::visible_bars`] as a range of `tl.bars`.
    fn candidates(&self, row: usize, t0: i64, t1: i64) -> Range<usize> {
        let vis = self.tl.visible_bars(row, t0, t1);
        if vis.is_empty() {
            return 0..0;
        }
        let size = std::mem::size_of::<reconscope::layout::Bar>().max(1);
        let start = (vis.as_ptr() as usize - self.tl.bars.as_ptr() as usize) / size;
        start..start + vis.len()
    }

    fn measure_labels(&mut self) {
        self.ctx.set_font(FONT_BOLD);
        let mut widest: f64 = 0.0;
        for r in self.tl.rows.iter().take(5000) {
            let w = self.ctx.measure_text(&r.label).map(|m| m.width()).unwrap_or(0.0);
            widest = widest.max(w + if r.depth == 0 { 22.0 } else { 30.0 });
        }
        self.label_w = widest.clamp(140.0, 300.0);
    }

    fn reveal(&mut self, reconcile: u32) {
        let Some(&bi) = self.bar_of.get(reconcile as usize) else { return };
        let Some(bar) = self.tl.bars.get(bi as usize).copied() else { return };
        let origin = self.tl.start_nanos;
        let (s, e) = ((bar.start_nanos - origin) as f64, (bar.end_nanos - origin) as f64);
        let span = self.t1 - self.t0;
        if e < self.t0 || s > self.t1 {
            let mid = (s + e) / 2.0;
            self.t0 = mid - span / 2.0;
            self.t1 = mid + span / 2.0;
        }
        let y = bar.row as f64 * ROW_H;
        if y < self.scroll || y + ROW_H > self.scroll + self.plot_h() {
            self.scroll = y - self.plot_h() / 3.0;
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
            let tc = self.t_at(x.max(self.label_w));
            let f = (dy * 0.002).exp();
            self.t0 = tc - (tc - self.t0) * f;
            self.t1 = tc + (self.t1 - tc) * f;
            let per_px = (self.t1 - self.t0) / self.plot_w();
            self.t0 += dx * per_px;
            self.t1 += dx * per_px;
        }
        self.clamp();
        self.hide_tooltip();
        self.request_draw();
    }

    fn on_down(&mut self, e: &MouseEvent) {
        let (x, y) = self.offset(e);
        self.drag = Some(Drag { x, y, t0: self.t0, t1: self.t1, scroll: self.scroll, moved: false });
        let _ = self.canvas.focus();
        e.prevent_default();
    }

    fn on_drag(&mut self, e: &MouseEvent) {
        let (x, y) = self.offset(e);
        let per_px = (self.t1 - self.t0) / self.plot_w();
        let Some(d) = self.drag.as_mut() else { return };
        if (x - d.x).abs() + (y - d.y).abs() > 3.0 {
            d.moved = true;
        }
        if !d.moved {
            return;
        }
        let dt = (x - d.x) * per_px;
        let (t0, t1, scroll) = (d.t0 - dt, d.t1 - dt, d.scroll - (y - d.y));
        self.t0 = t0;
        self.t1 = t1;
        self.scroll = scroll;
        self.clamp();
        let _ = self.canvas.style().set_property("cursor", "grabbing");
        self.hide_tooltip();
        self.request_draw();
    }

    fn on_up(&mut self, e: &MouseEvent) -> Option<Action> {
        let d = self.drag.take()?;
        let _ = self.canvas.style().remove_property("cursor");
        if d.moved {
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

    fn on_key(&mut self, e: &KeyboardEvent) {
        let span = self.t1 - self.t0;
        let mid = (self.t0 + self.t1) / 2.0;
        let zoom = |s: &mut State, f: f64| {
            s.t0 = mid - span * f / 2.0;
            s.t1 = mid + span * f / 2.0;
        };
        match e.key().as_str() {
            "ArrowLeft" => {
                self.t0 -= span * 0.1;
                self.t1 -= span * 0.1;
            }
            "ArrowRight" => {
                self.t0 += span * 0.1;
                self.t1 += span * 0.1;
            }
            "ArrowUp" => self.scroll -= ROW_H,
            "ArrowDown" => self.scroll += ROW_H,
            "PageUp" => self.scroll -= self.plot_h() * 0.8,
            "PageDown" => self.scroll += self.plot_h() * 0.8,
            "+" | "=" => zoom(self, 0.7),
            "-" | "_" => zoom(self, 1.0 / 0.7),
            "0" | "Home" => self.reset_view(),
            _ => return,
        }
        e.prevent_default();
        self.clamp();
        self.hide_tooltip();
        self.request_draw();
    }

    // ----- hit testing and tooltip -----

    fn bar_at(&self, x: f64, y: f64) -> Option<usize> {
        if x < self.label_w {
            return None;
        }
        let row = self.row_at(y)?;
        let slack = 3.0 * (self.t1 - self.t0) / self.plot_w();
        let t = self.t_at(x) + self.tl.start_nanos as f64;
        let (lo, hi) = ((t - slack) as i64, (t + slack) as i64);
        let mut best: Option<(usize, f64)> = None;
        for i in self.candidates(row, lo, hi) {
            let b = &self.tl.bars[i];
            if b.end_nanos < lo || b.start_nanos > hi {
                continue;
            }
            let (x0, x1) = (self.x_of(b.start_nanos), self.x_of(b.end_nanos).max(self.x_of(b.start_nanos) + 2.0));
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

    fn describe(&self, x: f64, y: f64) -> Option<String> {
        let a = self.analysis.as_ref()?;
        let z = self.zone;
        if let Some(bi) = self.bar_at(x, y) {
            let b = self.tl.bars[bi];
            let r = a.reconciles.get(b.reconcile as usize)?;
            let controller = a.controllers.get(r.controller).map(|c| c.name.as_str()).unwrap_or("?");
            let object = r.object.as_ref().map(|o| o.to_string()).unwrap_or_else(|| "unknown object".into());
            let mut t = format!("reconcile {}\n{} · {}\n", r.reconcile_id, controller, object);
            if let Some(l) = r.latent_start {
                t.push_str(&format!("latent start {}\n", timefmt::full(l.nanos, z)));
            }
            let lines = if r.is_one_line() { String::new() } else { format!(" · {} line{}", r.lines, if r.lines == 1 { "" } else { "s" }) };
            // No finer than its timestamps; one line has no duration.
            t.push_str(&format!(
                "first {}\nlast  {}\n{} · {}{lines}{}",
                timefmt::full(r.first.nanos, z),
                timefmt::full(r.last.nanos, z),
                r.duration_text(),
                outcome_word(r.outcome),
                if r.truncated { " · cut by the log's edge" } else { "" },
            ));
            if let Some(err) = &r.error {
                let short: String = err.chars().take(240).collect();
                t.push_str(&format!("\nerror: {short}{}", if short.len() < err.len() { "…" } else { "" }));
            }
            return Some(t);
        }
        if x < self.label_w {
            let row = self.tl.rows.get(self.row_at(y)?)?;
            let hint = if row.depth == 0 { "\n(click to fold or unfold)" } else { "" };
            return Some(format!("{}{hint}", row.label));
        }
        if let Some(d) = self.tl.dumps.iter().find(|d| (self.x_of(d.at_nanos) - x).abs() <= 4.0) {
            return Some(format!("{}\n{} (see Goroutines below)", d.label, timefmt::full(d.at_nanos, z)));
        }
        let row = self.row_at(y);
        for m in &self.tl.markers {
            if Some(m.row as usize) == row && (self.x_of(m.at_nanos) - x).abs() <= 5.0 {
                return Some(format!("{}\n{}", m.label, timefmt::full(m.at_nanos, z)));
            }
        }
        if y >= AXIS_H {
            let t = self.t_at(x) as i64 + self.tl.start_nanos;
            let on_row = |rows: &[u32]| rows.is_empty() || row.is_some_and(|r| rows.binary_search(&(r as u32)).is_ok());
            let finding = self
                .tl
                .highlights
                .iter()
                .filter(|h| h.start_nanos <= t && t <= h.end_nanos && on_row(&h.rows))
                .filter_map(|h| a.findings.get(h.finding as usize))
                .next();
            if let Some(f) = finding {
                return Some(format!("{}: {}", f.kind.as_str(), f.message));
            }
            if let Some(b) = self.tl.bands.iter().find(|b| b.start_nanos <= t && t <= b.end_nanos) {
                let leaderless = match b.leaderless_start_nanos {
                    Some(l) => format!("\nleaderless from {}", timefmt::clock(l, z, 3)),
                    None => String::new(),
                };
                return Some(format!(
                    "{}\nelection {} → {} ({}){leaderless}",
                    b.label,
                    timefmt::clock(b.start_nanos, z, 3),
                    timefmt::clock(b.end_nanos, z, 3),
                    // No finer than the election's own timestamps.
                    match a.elections.get(b.election as usize).and_then(|e| Some((e.start, e.end?))) {
                        Some((s, e)) => honest_duration(s, e),
                        None => human_duration(b.end_nanos - b.start_nanos),
                    }
                ));
            }
        }
        None
    }

    // ----- drawing -----

    /// Goroutine dumps: a dashed line across every row at the dump's time.
    fn draw_dumps(&self, ctx: &CanvasRenderingContext2d, p: &Palette, vt0: i64, vt1: i64) {
        // Where the plot area is (CSS px), for tests and tools that point at a time.
        let _ = self.canvas.set_attribute("data-plot-left", &format!("{:.1}", self.label_w));
        let _ = self.canvas.set_attribute("data-plot-width", &format!("{:.1}", self.plot_w()));
        let dash = js_sys::Array::of2(&4.0.into(), &3.0.into());
        for d in &self.tl.dumps {
            if d.at_nanos < vt0 || d.at_nanos > vt1 {
                continue;
            }
            let x = self.x_of(d.at_nanos).round() + 0.5;
            ctx.set_stroke_style_str(&p.text);
            ctx.set_line_width(1.5);
            let _ = ctx.set_line_dash(&dash);
            ctx.begin_path();
            ctx.move_to(x, AXIS_H);
            ctx.line_to(x, self.h);
            ctx.stroke();
            let _ = ctx.set_line_dash(&js_sys::Array::new());
            ctx.set_fill_style_str(&p.text);
            let _ = ctx.fill_text("goroutine dump", x + 4.0, AXIS_H + 8.0);
        }
    }

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
            band: get("--band", "rgba(150, 120, 255, 0.14)"),
            band_leaderless: get("--band-leaderless", "rgba(150, 120, 255, 0.32)"),
            highlight: get("--highlight", "rgba(255, 138, 128, 0.12)"),
            highlight_stroke: get("--highlight-stroke", "#ff8a80"),
            marker: get("--marker", "#5fb3f9"),
            marker_delete: get("--marker-delete", "#ff8a80"),
            selected: get("--selected", "#ffffff"),
        }
    }

    fn pattern(&mut self, color: &str) -> Option<CanvasPattern> {
        if let Some((_, p)) = self.patterns.iter().find(|(c, _)| c == color) {
            return Some(p.clone());
        }
        let doc = web_sys::window()?.document()?;
        let tile: HtmlCanvasElement = doc.create_element("canvas").ok()?.dyn_into().ok()?;
        tile.set_width(8);
        tile.set_height(8);
        let c: CanvasRenderingContext2d = tile.get_context("2d").ok()??.dyn_into().ok()?;
        c.set_stroke_style_str(color);
        c.set_line_width(2.0);
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

    fn resize(&mut self) {
        let parent_w = self.canvas.parent_element().map(|p| p.client_width() as f64).unwrap_or(800.0);
        let w = parent_w.max(320.0);
        let rows = self.tl.rows.len() as f64;
        // As tall as its rows need, up to most of the window.
        let window_h = web_sys::window().and_then(|w| w.inner_height().ok()).and_then(|v| v.as_f64()).unwrap_or(800.0);
        let max_h = (window_h - 140.0).clamp(MIN_H, MAX_H);
        let h = (AXIS_H + rows * ROW_H + 6.0).clamp(MIN_H, max_h);
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

        let rows = self.tl.rows.len();
        if rows == 0 {
            ctx.set_fill_style_str(&p.muted);
            let msg = if self.analysis.as_ref().is_some_and(|a| !a.reconciles.is_empty()) {
                "The timeline layout is empty."
            } else {
                "No reconciles to draw: the inputs hold no controller-runtime reconcile logs."
            };
            let _ = ctx.fill_text(msg, 16.0, h / 2.0);
            return;
        }
        let first_row = (self.scroll / ROW_H).floor().max(0.0) as usize;
        let last_row = (((self.scroll + self.plot_h()) / ROW_H).ceil() as usize).min(rows);
        let (px0, px1) = (self.label_w, w - RIGHT_PAD);
        let origin = self.tl.start_nanos;
        let (vt0, vt1) = (origin + self.t0 as i64, origin + self.t1 as i64);
        let row_y = |r: usize, scroll: f64| AXIS_H + r as f64 * ROW_H - scroll;

        // Row stripes (whole width).
        for r in first_row..last_row {
            let y = row_y(r, self.scroll);
            let row = &self.tl.rows[r];
            let fill = if row.depth == 0 {
                Some(&p.group_bg)
            } else if r % 2 == 1 {
                Some(&p.row_alt)
            } else {
                None
            };
            if let Some(f) = fill {
                ctx.set_fill_style_str(f);
                ctx.fill_rect(0.0, y, w, ROW_H);
            }
        }

        // The plot area, clipped.
        ctx.save();
        ctx.begin_path();
        ctx.rect(px0, AXIS_H, px1 - px0, h - AXIS_H);
        ctx.clip();

        let ticks = self.ticks();
        ctx.set_fill_style_str(&p.grid);
        for &(t, _) in &ticks {
            let x = self.x_of(t).round() + 0.5;
            ctx.fill_rect(x - 0.5, AXIS_H, 1.0, h - AXIS_H);
        }

        // Election bands, across every row.
        for b in &self.tl.bands {
            if b.end_nanos < vt0 || b.start_nanos > vt1 {
                continue;
            }
            let (x0, x1) = (self.x_of(b.start_nanos), self.x_of(b.end_nanos));
            ctx.set_fill_style_str(&p.band);
            ctx.fill_rect(x0, AXIS_H, (x1 - x0).max(2.0), h - AXIS_H);
            if let Some(l) = b.leaderless_start_nanos {
                let xl = self.x_of(l);
                ctx.set_fill_style_str(&p.band_leaderless);
                ctx.fill_rect(xl, AXIS_H, (x1 - xl).max(2.0), h - AXIS_H);
            }
        }

        // Finding highlights, over their rows: all in one path (thousands
        // on a big input), the focused one outlined apart.
        let mut boxes: Vec<(f64, f64, f64, f64)> = Vec::new();
        let mut focused_boxes: Vec<(f64, f64, f64, f64)> = Vec::new();
        for hl in &self.tl.highlights {
            if hl.end_nanos < vt0 || hl.start_nanos > vt1 {
                continue;
            }
            let (x0, x1) = (self.x_of(hl.start_nanos), self.x_of(hl.end_nanos).max(self.x_of(hl.start_nanos) + 3.0));
            let out = if self.focus == Some(hl.finding) { &mut focused_boxes } else { &mut boxes };
            let mut add = |ya: f64, yb: f64| {
                if yb >= AXIS_H && ya <= h {
                    push_merged(out, (x0, ya, x1 - x0, yb - ya));
                }
            };
            if hl.rows.is_empty() {
                add(AXIS_H, h);
            } else {
                let mut i = 0;
                while i < hl.rows.len() {
                    let mut j = i;
                    while j + 1 < hl.rows.len() && hl.rows[j + 1] == hl.rows[j] + 1 {
                        j += 1;
                    }
                    add(row_y(hl.rows[i] as usize, self.scroll), row_y(hl.rows[j] as usize, self.scroll) + ROW_H);
                    i = j + 1;
                }
            }
        }
        for (list, width, alpha) in [(&boxes, 1.0, 0.55), (&focused_boxes, 2.0, 1.0)] {
            if list.is_empty() {
                continue;
            }
            ctx.set_fill_style_str(&p.highlight);
            ctx.begin_path();
            for &(x, y, bw, bh) in list.iter() {
                ctx.rect(x, y, bw, bh);
            }
            ctx.fill();
            ctx.set_stroke_style_str(&p.highlight_stroke);
            ctx.set_line_width(width);
            ctx.set_global_alpha(alpha);
            ctx.begin_path();
            for &(x, y, bw, bh) in list.iter() {
                ctx.rect(x + 0.5, y + 0.5, bw - 1.0, bh - 1.0);
            }
            ctx.stroke();
            ctx.set_global_alpha(1.0);
        }

        // Bars, batched by colour: hatched latent parts, then solid parts.
        let mut solid: [Vec<(f64, f64, f64, f64)>; 3] = Default::default();
        let mut hatched: [Vec<(f64, f64, f64, f64)>; 3] = Default::default();
        let mut selected_rect = None;
        let mut drawn = 0usize;
        for r in first_row..last_row {
            let y = row_y(r, self.scroll) + BAR_PAD / 2.0;
            let bh = ROW_H - BAR_PAD;
            for i in self.candidates(r, vt0, vt1) {
                let b = self.tl.bars[i];
                if b.end_nanos < vt0 {
                    continue;
                }
                drawn += 1;
                let k = match b.outcome {
                    Outcome::Success => 0,
                    Outcome::Requeue => 1,
                    Outcome::Error => 2,
                };
                let xs = self.x_of(b.start_nanos);
                let xf = self.x_of(b.first_nanos);
                let xe = self.x_of(b.end_nanos);
                if b.tick {
                    push_merged(&mut solid[k], (xs - 1.0, y, 2.0, bh));
                } else {
                    if xf > xs {
                        push_merged(&mut hatched[k], (xs, y, xf - xs, bh));
                    }
                    push_merged(&mut solid[k], (xf, y, (xe - xf).max(2.0), bh));
                }
                if self.selected == Some(b.reconcile) {
                    selected_rect = Some((xs, y, (xe - xs).max(2.0), bh));
                }
            }
        }
        let colors = [p.success.clone(), p.requeue.clone(), p.error.clone()];
        for k in 0..3 {
            if !hatched[k].is_empty() {
                if let Some(pat) = self.pattern(&colors[k]) {
                    ctx.set_fill_style_canvas_pattern(&pat);
                    ctx.begin_path();
                    for &(x, y, bw, bh) in &hatched[k] {
                        ctx.rect(x, y, bw, bh);
                    }
                    ctx.fill();
                }
                // An outline keeps the latent part readable as one piece.
                ctx.set_stroke_style_str(&colors[k]);
                ctx.set_line_width(1.0);
                ctx.set_global_alpha(0.6);
                ctx.begin_path();
                for &(x, y, bw, bh) in &hatched[k] {
                    ctx.rect(x + 0.5, y + 0.5, (bw - 1.0).max(0.0), bh - 1.0);
                }
                ctx.stroke();
                ctx.set_global_alpha(1.0);
            }
            if !solid[k].is_empty() {
                ctx.set_fill_style_str(&colors[k]);
                ctx.begin_path();
                for &(x, y, bw, bh) in &solid[k] {
                    ctx.rect(x, y, bw, bh);
                }
                ctx.fill();
            }
        }
        if let Some((x, y, bw, bh)) = selected_rect {
            ctx.set_stroke_style_str(&p.selected);
            ctx.set_line_width(2.0);
            ctx.stroke_rect(x - 1.0, y - 1.0, bw + 2.0, bh + 2.0);
        }
        // What was drawn, for tests and tools: bar count, the view (absolute
        // ns) and the selected bar's box (CSS px).
        let _ = self.canvas.set_attribute("data-drawn-bars", &drawn.to_string());
        let _ = self.canvas.set_attribute("data-view", &format!("{vt0},{vt1}"));
        if self.reported != Some((vt0, vt1)) {
            self.reported = Some((vt0, vt1));
            self.events.view.emit((vt0, vt1));
        }
        match selected_rect {
            Some((x, y, bw, bh)) => {
                let _ = self.canvas.set_attribute("data-selected-rect", &format!("{x:.1},{y:.1},{bw:.1},{bh:.1}"));
            }
            None => {
                let _ = self.canvas.remove_attribute("data-selected-rect");
            }
        }

        // Lifecycle markers.
        for m in &self.tl.markers {
            let r = m.row as usize;
            if r < first_row || r >= last_row || m.at_nanos < vt0 || m.at_nanos > vt1 {
                continue;
            }
            let x = self.x_of(m.at_nanos);
            let cy = row_y(r, self.scroll) + ROW_H / 2.0;
            draw_marker(&ctx, m.kind, x, cy, &p);
        }
        self.draw_dumps(&ctx, &p, vt0, vt1);
        ctx.restore();

        // Row labels.
        ctx.set_fill_style_str(&p.bg);
        ctx.fill_rect(0.0, AXIS_H, self.label_w, h - AXIS_H);
        for r in first_row..last_row {
            let y = row_y(r, self.scroll);
            let row = &self.tl.rows[r];
            if row.depth == 0 {
                ctx.set_fill_style_str(&p.group_bg);
                ctx.fill_rect(0.0, y, self.label_w, ROW_H);
            } else if r % 2 == 1 {
                ctx.set_fill_style_str(&p.row_alt);
                ctx.fill_rect(0.0, y, self.label_w, ROW_H);
            }
            let (indent, font, color) = if row.depth == 0 { (8.0, FONT_BOLD, &p.text) } else { (22.0, FONT, &p.muted) };
            ctx.set_font(font);
            ctx.set_fill_style_str(color);
            let mut label = String::new();
            if row.depth == 0 {
                label.push_str(if row.collapsed { "▸ " } else { "▾ " });
            }
            label.push_str(&row.label);
            let max_w = self.label_w - indent - 8.0;
            let text = fit(&ctx, &label, max_w);
            let _ = ctx.fill_text(&text, indent, y + ROW_H / 2.0);
        }
        ctx.set_fill_style_str(&p.grid);
        ctx.fill_rect(self.label_w - 1.0, AXIS_H, 1.0, h - AXIS_H);

        // The time axis.
        ctx.set_fill_style_str(&p.bg);
        ctx.fill_rect(0.0, 0.0, w, AXIS_H);
        ctx.set_fill_style_str(&p.grid);
        ctx.fill_rect(0.0, AXIS_H - 1.0, w, 1.0);
        ctx.set_font(FONT);
        ctx.set_fill_style_str(&p.muted);
        let zone_label = format!("{} {}", timefmt::date(vt0.max(self.tl.start_nanos), self.zone), self.zone.name(vt0));
        let _ = ctx.fill_text(&fit(&ctx, &zone_label, self.label_w - 12.0), 8.0, AXIS_H / 2.0);
        // Band marks in the axis, so that elections show even when zoomed out.
        for b in &self.tl.bands {
            if b.end_nanos < vt0 || b.start_nanos > vt1 {
                continue;
            }
            let (x0, x1) = (self.x_of(b.start_nanos).max(px0), self.x_of(b.end_nanos).min(px1));
            ctx.set_fill_style_str(&p.band_leaderless);
            ctx.fill_rect(x0, AXIS_H - 5.0, (x1 - x0).max(2.0), 4.0);
        }
        ctx.set_text_align("center");
        let mut last_right = f64::NEG_INFINITY;
        for (t, label) in ticks {
            let x = self.x_of(t);
            if x < px0 || x > px1 {
                continue;
            }
            ctx.set_fill_style_str(&p.grid);
            ctx.fill_rect(x.round(), AXIS_H - 8.0, 1.0, 7.0);
            let tw = ctx.measure_text(&label).map(|m| m.width()).unwrap_or(40.0);
            let (l, r) = (x - tw / 2.0, x + tw / 2.0);
            if l < last_right + 8.0 || l < px0 - 4.0 || r > w - 2.0 {
                continue;
            }
            ctx.set_fill_style_str(&p.text);
            let _ = ctx.fill_text(&label, x, AXIS_H / 2.0 - 2.0);
            last_right = r;
        }
        ctx.set_text_align("start");

        // A scroll hint when rows are hidden below or above.
        let total_h = rows as f64 * ROW_H;
        if total_h > self.plot_h() {
            let frac = self.plot_h() / total_h;
            let th = (self.plot_h() * frac).max(16.0);
            let ty = AXIS_H + (self.plot_h() - th) * (self.scroll / (total_h - self.plot_h()).max(1.0));
            ctx.set_fill_style_str(&p.muted);
            ctx.set_global_alpha(0.5);
            ctx.fill_rect(w - 5.0, ty, 3.0, th);
            ctx.set_global_alpha(1.0);
        }
        // Keep the tooltip true to what is under the cursor now.
        if let (Some((x, y)), None) = (self.hover, self.drag.as_ref()) {
            self.update_tooltip(x, y);
        }
    }

    /// Tick instants (absolute ns) and their labels for the current view.
    fn ticks(&self) -> Vec<(i64, String)> {
        let span = self.t1 - self.t0;
        let origin = self.tl.start_nanos;
        let t0 = origin + self.t0 as i64;
        let t1 = origin + self.t1 as i64;
        let off = self.zone.offset_secs(t0) * 1_000_000_000;
        let ctx = &self.ctx;
        ctx.set_font(FONT);
        let measure = |s: &str| ctx.measure_text(s).map(|m| m.width()).unwrap_or(60.0);
        let mut chosen = *STEPS.last().unwrap_or(&1);
        for &step in STEPS {
            let sample = label_for(t0, step, self.zone);
            let px = step as f64 / span * self.plot_w();
            if px >= measure(&sample) + 18.0 {
                chosen = step;
                break;
            }
        }
        let mut out = Vec::new();
        let mut t = (t0 + off).div_euclid(chosen) * chosen - off;
        if t < t0 {
            t += chosen;
        }
        while t <= t1 && out.len() < 400 {
            out.push((t, label_for(t, chosen, self.zone)));
            t += chosen;
        }
        out
    }
}

fn label_for(t: i64, step: i64, zone: Zone) -> String {
    let p = timefmt::parts(t, zone);
    if step >= 86_400_000_000_000 || (p.hour == 0 && p.minute == 0 && p.second == 0 && p.nanos == 0 && step >= 60_000_000_000) {
        return format!("{:02}-{:02}", p.month, p.day);
    }
    if step >= 60_000_000_000 {
        format!("{:02}:{:02}", p.hour, p.minute)
    } else if step >= 1_000_000_000 {
        timefmt::clock(t, zone, 0)
    } else if step >= 1_000_000 {
        timefmt::clock(t, zone, 3)
    } else {
        timefmt::clock(t, zone, 6)
    }
}

fn outcome_word(o: Outcome) -> &'static str {
    match o {
        Outcome::Success => "success",
        Outcome::Requeue => "requeue",
        Outcome::Error => "error",
    }
}

/// The text, cut with an ellipsis to fit `max_w` px.
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

fn draw_marker(ctx: &CanvasRenderingContext2d, kind: MarkerKind, x: f64, cy: f64, p: &Palette) {
    ctx.begin_path();
    match kind {
        MarkerKind::SpecUpdate => {
            ctx.set_fill_style_str(&p.marker);
            let _ = ctx.arc(x, cy, 3.5, 0.0, std::f64::consts::TAU);
            ctx.fill();
        }
        MarkerKind::DeletionRequested => {
            // A downward triangle.
            ctx.set_fill_style_str(&p.marker_delete);
            ctx.move_to(x - 5.0, cy - 6.0);
            ctx.line_to(x + 5.0, cy - 6.0);
            ctx.line_to(x, cy + 2.0);
            ctx.close_path();
            ctx.fill();
        }
        MarkerKind::Deleted => {
            ctx.set_stroke_style_str(&p.marker_delete);
            ctx.set_line_width(2.0);
            ctx.move_to(x - 4.0, cy - 4.0);
            ctx.line_to(x + 4.0, cy + 4.0);
            ctx.move_to(x + 4.0, cy - 4.0);
            ctx.line_to(x - 4.0, cy + 4.0);
            ctx.stroke();
        }
        MarkerKind::FinalizerAtEnd => {
            // A hollow square: the object is still held.
            ctx.set_stroke_style_str(&p.marker_delete);
            ctx.set_line_width(2.0);
            ctx.stroke_rect(x - 4.0, cy - 4.0, 8.0, 8.0);
        }
    }
}
