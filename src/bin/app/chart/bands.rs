//! Election bands across every row: at least `MIN_BAND_W` px wide at any
//! zoom, the leaderless part darker, the start edged so that a band shows
//! on the dark background too.

use super::{Frame, MIN_BAND_W};

pub(super) fn paint(f: &Frame) {
    let (ctx, p, g) = (f.ctx, f.p, &f.g);
    let (top, h) = (g.rows_top, g.rows_bottom - g.rows_top);
    for b in f.tl.bands.iter().filter(|b| f.s.overlaps(b.start_nanos, b.end_nanos)) {
        let x0 = f.s.x_clamped(b.start_nanos);
        let x1 = f.s.x_clamped(b.end_nanos).max(x0 + MIN_BAND_W);
        ctx.set_fill_style_str(&p.band);
        ctx.fill_rect(x0, top, x1 - x0, h);
        if let Some(l) = b.leaderless_start_nanos {
            let xl = f.s.x_clamped(l).min(x1 - 2.0);
            ctx.set_fill_style_str(&p.band_leaderless);
            ctx.fill_rect(xl, top, x1 - xl, h);
        }
        ctx.set_fill_style_str(&p.band_edge);
        ctx.set_global_alpha(0.6);
        ctx.fill_rect(x0, top, 1.0, h);
        if x1 - x0 > MIN_BAND_W {
            ctx.fill_rect(x1 - 1.0, top, 1.0, h);
        }
        ctx.set_global_alpha(1.0);
    }
}
