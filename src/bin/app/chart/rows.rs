//! Rows: stripes across the whole width, the label column (labels in full
//! or cut in the middle with "…", as the export does; the tooltip has them
//! in full) and the scroll hint.

use reconscope::layout::Row;

use super::{Frame, FONT, FONT_BOLD, ROW_H, SCROLL_HINT_W};

/// A row's label in full: a group row's with its fold mark.
pub(super) fn label(row: &Row) -> String {
    if row.depth == 0 {
        format!("{}{}", if row.collapsed { "▸ " } else { "▾ " }, row.label)
    } else {
        row.label.clone()
    }
}

/// Where a row's label starts.
pub(super) fn indent(depth: u8) -> f64 {
    if depth == 0 {
        8.0
    } else {
        22.0
    }
}

pub(super) fn stripes(f: &Frame) {
    let (ctx, p, g) = (f.ctx, f.p, &f.g);
    for r in g.first_row..g.last_row {
        let row = &f.tl.rows[r];
        let fill = if row.depth == 0 {
            Some(&p.group_bg)
        } else if r % 2 == 1 {
            Some(&p.row_alt)
        } else {
            None
        };
        if let Some(c) = fill {
            ctx.set_fill_style_str(c);
            ctx.fill_rect(0.0, g.row_y(r), g.w, ROW_H);
        }
    }
}

pub(super) fn labels(f: &Frame) {
    let (ctx, p, g) = (f.ctx, f.p, &f.g);
    ctx.save();
    ctx.begin_path();
    ctx.rect(0.0, g.rows_top, g.label_w, g.rows_bottom - g.rows_top);
    ctx.clip();
    ctx.set_fill_style_str(&p.bg);
    ctx.fill_rect(0.0, g.rows_top, g.label_w, g.rows_bottom - g.rows_top);
    let focused: &[u32] = match f.focus {
        Some(id) => f.tl.highlights.iter().find(|h| h.finding == id).map(|h| h.rows.as_slice()).unwrap_or(&[]),
        None => &[],
    };
    for r in g.first_row..g.last_row {
        let y = g.row_y(r);
        let row = &f.tl.rows[r];
        if row.depth == 0 {
            ctx.set_fill_style_str(&p.group_bg);
            ctx.fill_rect(0.0, y, g.label_w, ROW_H);
        } else if r % 2 == 1 {
            ctx.set_fill_style_str(&p.row_alt);
            ctx.fill_rect(0.0, y, g.label_w, ROW_H);
        }
        if focused.binary_search(&(r as u32)).is_ok() {
            // The focused finding's rows: tinted, with a mark at the edge.
            ctx.set_fill_style_str(&p.focus_rows);
            ctx.fill_rect(0.0, y, g.label_w, ROW_H);
            ctx.set_fill_style_str(&p.ring);
            ctx.fill_rect(0.0, y, 3.0, ROW_H);
        }
        let (font, color) = if row.depth == 0 { (FONT_BOLD, &p.text) } else { (FONT, &p.muted) };
        ctx.set_font(font);
        ctx.set_fill_style_str(color);
        // Cut once for every row when the rows came (`State::cut_labels`).
        let text = f.cut_labels.get(r).map_or_else(|| label(row), String::clone);
        let _ = ctx.fill_text(&text, indent(row.depth), y + ROW_H / 2.0);
    }
    ctx.restore();
    ctx.set_fill_style_str(&p.grid);
    ctx.fill_rect(g.label_w - 1.0, g.rows_top, 1.0, g.rows_bottom - g.rows_top);
}

/// A scroll hint when rows are hidden below or above.
pub(super) fn scroll_hint(f: &Frame) {
    let (ctx, p, g) = (f.ctx, f.p, &f.g);
    let total_h = f.tl.rows.len() as f64 * ROW_H;
    let plot_h = g.plot_h();
    if total_h > plot_h {
        let th = (plot_h * plot_h / total_h).max(16.0);
        let ty = g.rows_top + (plot_h - th) * (g.scroll / (total_h - plot_h).max(1.0));
        ctx.set_fill_style_str(&p.muted);
        ctx.set_global_alpha(0.5);
        ctx.fill_rect(g.w - SCROLL_HINT_W + 1.0, ty, 3.0, th);
        ctx.set_global_alpha(1.0);
    }
}

/// Reconciles in flight in a controller's group row, against its workers
/// (as the SVG draws them): a step as high as the share of its workers
/// busy, in the error colour where all are.
pub(super) fn in_flight(f: &Frame) {
    let (ctx, p, g) = (f.ctx, f.p, &f.g);
    for l in &f.tl.in_flight {
        let r = l.row as usize;
        if r < g.first_row || r >= g.last_row {
            continue;
        }
        let y = g.row_y(r);
        for (s, e, level) in l.steps().filter(|st| st.2 > 0 && f.s.overlaps(st.0, st.1)) {
            let (x0, x1) = (f.s.x_clamped(s), f.s.x_clamped(e));
            let full = u32::from(level) >= l.workers;
            let h = (ROW_H - 4.0) * (f64::from(level) / f64::from(l.workers.max(1))).min(1.0);
            ctx.set_global_alpha(if full { 0.5 } else { 0.25 });
            ctx.set_fill_style_str(if full { &p.error } else { &p.muted });
            ctx.fill_rect(x0, y + ROW_H - 2.0 - h, (x1 - x0).max(0.5), h);
        }
    }
    ctx.set_global_alpha(1.0);
}
