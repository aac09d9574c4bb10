//! Finding boxes over their rows (all in one path, the focused one
//! outlined apart), their labels (kind and duration, the export's
//! `render::highlight_label`) stacked so that no two cover each other, and
//! the focused finding's rows tinted across the plot.

use reconscope::render::highlight_label;

use super::{push_merged, Frame, FONT_SMALL_BOLD, ROW_H};

/// Labels tried below a box's top before one is left out (its box stays).
const LABEL_LANES: usize = 4;
const LABEL_H: f64 = 15.0;
/// At most this many labels drawn (thousands of findings on a big input).
const MAX_LABELS: usize = 300;

/// The runs of adjacent rows of a highlight, as (top, bottom) px.
fn runs(f: &Frame, rows: &[u32]) -> Vec<(f64, f64)> {
    let g = &f.g;
    if rows.is_empty() {
        return vec![(g.rows_top, g.rows_bottom)];
    }
    let mut out = Vec::new();
    let mut i = 0;
    while i < rows.len() {
        let mut j = i;
        while j + 1 < rows.len() && rows[j + 1] == rows[j] + 1 {
            j += 1;
        }
        out.push((g.row_y(rows[i] as usize), g.row_y(rows[j] as usize) + ROW_H));
        i = j + 1;
    }
    out
}

/// The focused finding's rows, tinted across the whole width (under the bars).
pub(super) fn focus_rows(f: &Frame) {
    let Some(id) = f.focus else { return };
    let Some(h) = f.tl.highlights.iter().find(|h| h.finding == id) else { return };
    if h.rows.is_empty() {
        return;
    }
    f.ctx.set_fill_style_str(&f.p.focus_rows);
    for (ya, yb) in runs(f, &h.rows) {
        if yb >= f.g.rows_top && ya <= f.g.rows_bottom {
            f.ctx.fill_rect(0.0, ya, f.g.w, yb - ya);
        }
    }
}

pub(super) fn boxes(f: &Frame) {
    let (ctx, p, g) = (f.ctx, f.p, &f.g);
    let mut plain: Vec<(f64, f64, f64, f64)> = Vec::new();
    let mut focused: Vec<(f64, f64, f64, f64)> = Vec::new();
    for hl in f.tl.highlights.iter().filter(|h| f.s.overlaps(h.start_nanos, h.end_nanos)) {
        let x0 = f.s.x_clamped(hl.start_nanos);
        let x1 = f.s.x_clamped(hl.end_nanos).max(x0 + 3.0);
        let out = if f.focus == Some(hl.finding) { &mut focused } else { &mut plain };
        for (ya, yb) in runs(f, &hl.rows) {
            if yb >= g.rows_top && ya <= g.rows_bottom {
                push_merged(out, (x0, ya, x1 - x0, yb - ya));
            }
        }
    }
    for (list, width, alpha) in [(&plain, 1.0, 0.55), (&focused, 2.5, 1.0)] {
        if list.is_empty() {
            continue;
        }
        ctx.set_fill_style_str(&p.highlight);
        super::fill_rects(ctx, list);
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
}

/// Each visible box's label at its top left, on a backing; a label that
/// would cover one already placed goes a line lower, and after
/// `LABEL_LANES` tries is left out (the tooltip still names the finding).
pub(super) fn labels(f: &Frame) {
    let (ctx, p, g) = (f.ctx, f.p, &f.g);
    let Some(a) = f.a else { return };
    let mut order: Vec<&reconscope::layout::Highlight> = f.tl.highlights.iter().filter(|h| f.s.overlaps(h.start_nanos, h.end_nanos)).collect();
    // The focused finding's label first, then from the left.
    order.sort_by_key(|h| (f.focus != Some(h.finding), h.start_nanos));
    ctx.set_font(FONT_SMALL_BOLD);
    let mut placed: Vec<(f64, f64, f64, f64)> = Vec::new();
    for h in order {
        if placed.len() >= MAX_LABELS {
            break;
        }
        let Some(&(top, bottom)) = runs(f, &h.rows).iter().find(|&&(_, yb)| yb > g.rows_top) else { continue };
        let text = highlight_label(a, h);
        let w = f.width(&text) + 6.0;
        let x = f.s.x_clamped(h.start_nanos).max(g.label_w) + 2.0;
        let x = x.min(g.px1() - w).max(g.label_w);
        let top = top.max(g.rows_top);
        let spot = (0..LABEL_LANES).map(|k| (x, top + 1.0 + k as f64 * LABEL_H, w, LABEL_H - 1.0)).find(|&(x, y, w, lh)| {
            y + lh <= g.rows_bottom.min(bottom.max(top + LABEL_H * LABEL_LANES as f64))
                && placed.iter().all(|&(px, py, pw, ph)| x + w <= px || px + pw <= x || y + lh <= py || py + ph <= y)
        });
        let Some((x, y, w, lh)) = spot else { continue };
        placed.push((x, y, w, lh));
        ctx.set_fill_style_str(&p.bg);
        ctx.set_global_alpha(0.85);
        ctx.fill_rect(x, y, w, lh);
        ctx.set_global_alpha(1.0);
        ctx.set_fill_style_str(&p.highlight_stroke);
        let _ = ctx.fill_text(&text, x + 3.0, y + lh / 2.0);
    }
}
