//! The log sources' lanes under the etcd lane, as the SVG draws them (at
//! most `SOURCE_LANES`, those with a gap, a lost lease or a restart first):
//! from its first line to its last, gaps left open and outlined, its leader
//! lease shaded.

use super::{fit, Frame, State, FONT, FONT_SMALL_BOLD};
use crate::timefmt;

/// One source's lane.
pub(super) const SOURCE_H: f64 = 14.0;

/// The lanes' height: one per source, and a line counting the others.
pub(super) fn height(tl: &reconscope::layout::Timeline) -> f64 {
    if tl.sources.is_empty() {
        return 0.0;
    }
    let more = usize::from(tl.sources_total as usize > tl.sources.len());
    (tl.sources.len() + more) as f64 * SOURCE_H + 4.0
}

pub(super) fn paint(f: &Frame) {
    let (ctx, p, g) = (f.ctx, f.p, &f.g);
    if g.sources_h <= 0.0 {
        return;
    }
    ctx.set_fill_style_str(&p.bg);
    ctx.fill_rect(0.0, g.sources_top, g.w, g.sources_h);
    let (px0, px1) = (g.label_w, g.px1());
    for (i, src) in f.tl.sources.iter().enumerate() {
        let y = g.sources_top + i as f64 * SOURCE_H;
        ctx.set_font(FONT);
        ctx.set_fill_style_str(&p.muted);
        let _ = ctx.fill_text(&fit(ctx, &format!("log {}", src.label), g.label_w - 16.0), 8.0, y + SOURCE_H / 2.0);
        ctx.save();
        ctx.begin_path();
        ctx.rect(px0, y, px1 - px0, SOURCE_H);
        ctx.clip();
        let (bh, by) = (SOURCE_H - 5.0, y + 2.5);
        ctx.set_global_alpha(0.35);
        ctx.set_fill_style_str(&p.muted);
        for (s, e) in src.spans().into_iter().filter(|&(s, e)| f.s.overlaps(s, e)) {
            let (x0, x1) = (f.s.x_clamped(s), f.s.x_clamped(e));
            ctx.fill_rect(x0, by, (x1 - x0).max(1.5), bh);
        }
        ctx.set_global_alpha(1.0);
        ctx.set_stroke_style_str(&p.error);
        let _ = ctx.set_line_dash(&js_sys::Array::of2(&3.0.into(), &2.0.into()));
        for &(s, e) in src.gaps.iter().filter(|g| f.s.overlaps(g.0, g.1)) {
            let (x0, x1) = (f.s.x_clamped(s), f.s.x_clamped(e));
            ctx.stroke_rect(x0 + 0.5, by + 0.5, (x1 - x0).max(1.5) - 1.0, bh - 1.0);
        }
        let _ = ctx.set_line_dash(&js_sys::Array::new());
        ctx.set_fill_style_str(&p.band_text);
        for &(s, e) in src.leader.iter().filter(|l| f.s.overlaps(l.0, l.1)) {
            let (x0, x1) = (f.s.x_clamped(s), f.s.x_clamped(e));
            ctx.fill_rect(x0, by + bh / 4.0, (x1 - x0).max(1.5), bh / 2.0);
        }
        ctx.restore();
    }
    if f.tl.sources_total as usize > f.tl.sources.len() {
        let y = g.sources_top + f.tl.sources.len() as f64 * SOURCE_H + SOURCE_H / 2.0;
        ctx.set_font(FONT_SMALL_BOLD);
        ctx.set_fill_style_str(&p.muted);
        let more = format!("{} more log sources", f.tl.sources_total as usize - f.tl.sources.len());
        let _ = ctx.fill_text(&fit(ctx, &more, px1 - px0 - 8.0), px0 + 4.0, y);
    }
    ctx.set_fill_style_str(&p.grid);
    ctx.fill_rect(0.0, g.sources_top + g.sources_h - 1.0, g.w, 1.0);
}

/// The tooltip over a source's lane: its path, what it shows at the
/// pointer (a gap, the lease), and how it ended.
pub(super) fn describe(c: &State, x: f64, y: f64) -> Option<String> {
    let g = c.geom();
    let i = ((y - g.sources_top) / SOURCE_H).floor() as usize;
    let src = c.tl.sources.get(i)?;
    let z = c.zone;
    let mut t = format!("log {}\n{} → {}", src.path, timefmt::full(src.first_nanos, z), timefmt::full(src.last_nanos, z));
    let at = c.scale.t(x);
    if x >= g.label_w {
        if let Some(&gap) = src.gaps.iter().find(|gap| gap.0 <= at && at <= gap.1) {
            let (s, e) = (timefmt::full(gap.0, z), timefmt::full(gap.1, z));
            if src.elided.contains(&gap) {
                t.push_str(&format!("\nlines left out {s} → {e}: an elision (`...`) stands there in the excerpt"));
            } else {
                t.push_str(&format!("\nno line {s} → {e}: the log may be missing there"));
            }
        }
        if src.leader.iter().any(|l| l.0 <= at && at <= l.1) {
            t.push_str("\nit held its leader lease");
        }
    }
    if let Some(e) = &src.ended {
        t.push_str(&format!("\n{e}"));
    }
    Some(reconscope::inert::label(&t).into_owned())
}
