//! The etcd lane under the axis: each election as a box (the leaderless
//! part darker), labelled with the export's words (`render::election_label`:
//! cluster, term, leaderless time) and the new leader.

use reconscope::render::election_label;

use super::{fit, Frame, FONT_BOLD, FONT_SMALL_BOLD, MIN_BAND_W};

/// The lane's text for an election: `tenant-root: term 8 · 3s leaderless → 91bc3c39`.
fn text(f: &Frame, b: &reconscope::layout::Band) -> String {
    let Some(a) = f.a else { return b.label.clone() };
    let mut t = election_label(a, b);
    if let Some(leader) = a.elections.get(b.election as usize).and_then(|e| e.leader.as_deref()) {
        let short: String = leader.chars().take(8).collect();
        t.push_str(&format!(" → leader {short}"));
    }
    t
}

pub(super) fn paint(f: &Frame) {
    let (ctx, p, g) = (f.ctx, f.p, &f.g);
    if g.lane_h <= 0.0 {
        return;
    }
    let (top, h) = (g.lane_top, g.lane_h);
    ctx.set_fill_style_str(&p.bg);
    ctx.fill_rect(0.0, top, g.w, h);
    ctx.set_fill_style_str(&p.grid);
    ctx.fill_rect(0.0, top + h - 1.0, g.w, 1.0);
    ctx.set_font(FONT_BOLD);
    ctx.set_fill_style_str(&p.band_text);
    let _ = ctx.fill_text(&fit(ctx, "etcd elections", g.label_w - 16.0), 8.0, top + h / 2.0);
    let (px0, px1) = (g.label_w, g.px1());
    ctx.save();
    ctx.begin_path();
    ctx.rect(px0, top, px1 - px0, h);
    ctx.clip();
    ctx.set_font(FONT_SMALL_BOLD);
    let mut last_right = f64::NEG_INFINITY;
    for b in f.tl.bands.iter().filter(|b| f.s.overlaps(b.start_nanos, b.end_nanos)) {
        let x0 = f.s.x_clamped(b.start_nanos);
        let x1 = f.s.x_clamped(b.end_nanos).max(x0 + MIN_BAND_W);
        ctx.set_fill_style_str(&p.band);
        ctx.fill_rect(x0, top + 2.0, x1 - x0, h - 4.0);
        if let Some(l) = b.leaderless_start_nanos {
            let xl = f.s.x_clamped(l).min(x1 - 2.0);
            ctx.set_fill_style_str(&p.band_leaderless);
            ctx.fill_rect(xl, top + 2.0, x1 - xl, h - 4.0);
        }
        ctx.set_fill_style_str(&p.band_edge);
        ctx.fill_rect(x0, top + 2.0, 1.5, h - 4.0);
        // The label from the band's start, unless it would cover the one before.
        let tx = (x0 + 4.0).max(px0 + 2.0);
        if tx < last_right + 8.0 {
            continue;
        }
        let label = fit(ctx, &text(f, b), (px1 - tx - 2.0).max(0.0));
        if label == "…" {
            continue;
        }
        ctx.set_fill_style_str(&p.band_text);
        let _ = ctx.fill_text(&label, tx, top + h / 2.0);
        last_right = tx + f.width(&label);
    }
    ctx.restore();
}
