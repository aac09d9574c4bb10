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
    let visible: Vec<&reconscope::layout::Band> = f.tl.bands.iter().filter(|b| f.s.overlaps(b.start_nanos, b.end_nanos)).collect();
    for b in &visible {
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
    }
    // Labels from each band's start on a backing, each cut short of the
    // next band's, so that every election keeps its own label.
    let mut last_right = f64::NEG_INFINITY;
    for (i, b) in visible.iter().enumerate() {
        let x0 = f.s.x_clamped(b.start_nanos);
        let tx = (x0 + 4.0).max(px0 + 2.0).max(last_right + 6.0);
        let next = visible.get(i + 1).map_or(px1, |n| f.s.x_clamped(n.start_nanos).min(px1));
        let room = if next > tx + 120.0 { next - tx - 4.0 } else { px1 - tx - 2.0 };
        let label = fit(ctx, &text(f, b), room.max(0.0));
        if label == "…" || room <= 0.0 {
            continue;
        }
        let w = f.width(&label);
        ctx.set_fill_style_str(&p.bg);
        ctx.set_global_alpha(0.85);
        ctx.fill_rect(tx - 2.0, top + 3.0, w + 4.0, h - 6.0);
        ctx.set_global_alpha(1.0);
        ctx.set_fill_style_str(&p.band_text);
        let _ = ctx.fill_text(&label, tx, top + h / 2.0);
        last_right = tx + w;
    }
    ctx.restore();
}
