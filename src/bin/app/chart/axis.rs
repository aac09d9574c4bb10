//! The time axis: tick marks and labels (to the step's precision, in the
//! chosen zone), the date and zone in the label column, grid lines over
//! the rows, and each election's mark.

use reconscope::timescale::tick_label;

use super::{fit, Frame, AXIS_H, FONT, MIN_BAND_W};
use crate::timefmt;

pub(super) struct Ticks {
    pub(super) step: i64,
    offset_secs: i32,
    at: Vec<i64>,
}

/// The ticks of the view: the smallest step whose labels fit, and no
/// finer than the times were written ([`Timeline::precision_nanos`]).
///
/// [`Timeline::precision_nanos`]: reconscope::layout::Timeline::precision_nanos
pub(super) fn ticks(f: &Frame) -> Ticks {
    f.ctx.set_font(FONT);
    let offset_secs = f.zone.offset_secs(f.s.start()).clamp(-86_399, 86_399) as i32;
    let sample = f.s.start();
    let step = f.s.tick_step_by(|step| f.width(&tick_label(sample, step, offset_secs, f.zone.yearless)) + 18.0).max(f.tl.precision_nanos);
    Ticks { step, offset_secs, at: f.s.ticks(step, offset_secs) }
}

/// Grid lines across the rows (drawn inside the plot's clip).
pub(super) fn grid(f: &Frame, t: &Ticks) {
    let g = &f.g;
    f.ctx.set_fill_style_str(&f.p.grid);
    for &at in &t.at {
        let x = f.s.x(at).round();
        f.ctx.fill_rect(x, g.rows_top, 1.0, g.rows_bottom - g.rows_top);
    }
}

pub(super) fn paint(f: &Frame, t: &Ticks) {
    let (ctx, p, g) = (f.ctx, f.p, &f.g);
    let (px0, px1) = (g.label_w, g.px1());
    ctx.set_fill_style_str(&p.bg);
    ctx.fill_rect(0.0, 0.0, g.w, AXIS_H);
    ctx.set_fill_style_str(&p.grid);
    ctx.fill_rect(0.0, AXIS_H - 1.0, g.w, 1.0);
    ctx.set_font(FONT);
    ctx.set_fill_style_str(&p.muted);
    let vt0 = f.s.start();
    let zone_label = format!("{} {}", timefmt::date(vt0.max(f.tl.start_nanos), f.zone), f.zone.name(vt0));
    let _ = ctx.fill_text(&fit(ctx, &zone_label, g.label_w - 12.0), 8.0, AXIS_H / 2.0);
    // Election marks in the axis, so that they show even zoomed out.
    for b in f.tl.bands.iter().filter(|b| f.s.overlaps(b.start_nanos, b.end_nanos)) {
        let x0 = f.s.x_clamped(b.start_nanos).max(px0);
        let x1 = f.s.x_clamped(b.end_nanos).max(x0 + MIN_BAND_W).min(px1);
        ctx.set_fill_style_str(&p.band_leaderless);
        ctx.fill_rect(x0, AXIS_H - 5.0, (x1 - x0).max(2.0), 4.0);
    }
    ctx.set_text_align("center");
    let mut last_right = f64::NEG_INFINITY;
    for &at in &t.at {
        let x = f.s.x(at);
        if x < px0 || x > px1 {
            continue;
        }
        ctx.set_fill_style_str(&p.grid);
        ctx.fill_rect(x.round(), AXIS_H - 8.0, 1.0, 7.0);
        let label = tick_label(at, t.step, t.offset_secs, f.zone.yearless);
        let tw = f.width(&label);
        let (l, r) = (x - tw / 2.0, x + tw / 2.0);
        if l < last_right + 8.0 || l < px0 - 4.0 || r > g.w - 2.0 {
            continue;
        }
        ctx.set_fill_style_str(&p.text);
        let _ = ctx.fill_text(&label, x, AXIS_H / 2.0 - 2.0);
        last_right = r;
    }
    ctx.set_text_align("start");
    // Zoomed in past the times' precision (a whole-second log shown over
    // less than a second), no tick is in view: the plot's left edge says
    // which second (or millisecond) the view lies in.
    if !t.at.iter().any(|&at| (px0..=px1).contains(&f.s.x(at))) {
        ctx.set_fill_style_str(&p.text);
        let _ = ctx.fill_text(&tick_label(vt0, t.step, t.offset_secs, f.zone.yearless), px0 + 6.0, AXIS_H / 2.0 - 2.0);
    }
}
