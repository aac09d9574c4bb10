//! The overview strip at the bottom: the whole run (elections and
//! findings as marks) with the current window as a box; dragging the box
//! moves the view, clicking elsewhere jumps there (`State::on_down`).

use reconscope::timescale::TimeScale;

use super::{fit, Frame, Geom, FONT, MIN_BAND_W};

/// The whole extent on the strip's pixels.
pub(super) fn scale(g: &Geom, extent: (i64, i64)) -> TimeScale {
    TimeScale::new(extent.0, extent.1, g.label_w, (g.px1() - g.label_w).max(1.0))
}

pub(super) fn paint(f: &Frame) {
    let (ctx, p, g) = (f.ctx, f.p, &f.g);
    let (top, h) = (g.overview_top, g.h - g.overview_top);
    if h <= 2.0 {
        return;
    }
    ctx.set_fill_style_str(&p.bg);
    ctx.fill_rect(0.0, top, g.w, h);
    ctx.set_fill_style_str(&p.grid);
    ctx.fill_rect(0.0, top, g.w, 1.0);
    ctx.set_font(FONT);
    ctx.set_fill_style_str(&p.muted);
    let _ = ctx.fill_text(&fit(ctx, "whole run", g.label_w - 16.0), 8.0, top + h / 2.0);
    let ov = scale(g, f.extent);
    ctx.set_fill_style_str(&p.group_bg);
    ctx.fill_rect(ov.x0(), top + 3.0, ov.width(), h - 6.0);
    for b in &f.tl.bands {
        let x0 = ov.x_clamped(b.start_nanos);
        let x1 = ov.x_clamped(b.end_nanos).max(x0 + MIN_BAND_W / 2.0);
        ctx.set_fill_style_str(&p.band_leaderless);
        ctx.fill_rect(x0, top + 3.0, x1 - x0, h - 6.0);
    }
    ctx.set_fill_style_str(&p.highlight_stroke);
    let mut last = f64::NEG_INFINITY;
    for hl in &f.tl.highlights {
        let x = ov.x_clamped(hl.start_nanos);
        if x - last < 1.0 {
            continue;
        }
        let x1 = ov.x_clamped(hl.end_nanos).max(x + 2.0);
        ctx.fill_rect(x, top + h - 6.0, x1 - x, 3.0);
        last = x;
    }
    // The window.
    let (bx0, bx1) = (ov.x_clamped(f.s.start()).max(ov.x0()), ov.x_clamped(f.s.end()).min(ov.x1()));
    let bx1 = bx1.max(bx0 + 4.0);
    ctx.set_fill_style_str(&p.overview_window);
    ctx.fill_rect(bx0, top + 2.0, bx1 - bx0, h - 4.0);
    ctx.set_stroke_style_str(&p.ring);
    ctx.set_line_width(1.5);
    ctx.stroke_rect(bx0 + 0.75, top + 2.75, bx1 - bx0 - 1.5, h - 5.5);
}
