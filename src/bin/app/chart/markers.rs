//! Lifecycle glyphs on their rows and goroutine dumps across every row,
//! in the SVG export's shapes (`render::marker`): a dot for a spec update,
//! a downward triangle for deletion asked, a cross for deleted, a hollow
//! square for finalizers left, a dashed line (4 3) for a dump.

use reconscope::layout::MarkerKind;

use super::{Frame, Palette, ROW_H};

pub(super) fn paint(f: &Frame) {
    let g = &f.g;
    for m in &f.tl.markers {
        let r = m.row as usize;
        if r < g.first_row || r >= g.last_row || !f.s.overlaps(m.at_nanos, m.at_nanos) {
            continue;
        }
        glyph(f.ctx, m.kind, f.s.x(m.at_nanos) + m.kind.offset_px(), g.row_y(r) + ROW_H / 2.0, f.p);
    }
}

pub(super) fn dumps(f: &Frame) {
    let (ctx, p, g) = (f.ctx, f.p, &f.g);
    let dash = js_sys::Array::of2(&4.0.into(), &3.0.into());
    for d in f.tl.dumps.iter().filter(|d| f.s.overlaps(d.at_nanos, d.at_nanos)) {
        let x = f.s.x(d.at_nanos).round() + 0.5;
        ctx.set_stroke_style_str(&p.text);
        ctx.set_line_width(1.5);
        let _ = ctx.set_line_dash(&dash);
        ctx.begin_path();
        ctx.move_to(x, g.rows_top);
        ctx.line_to(x, g.rows_bottom);
        ctx.stroke();
        let _ = ctx.set_line_dash(&js_sys::Array::new());
        ctx.set_fill_style_str(&p.text);
        let _ = ctx.fill_text("goroutine dump", x + 4.0, g.rows_top + 8.0);
    }
}

fn glyph(ctx: &web_sys::CanvasRenderingContext2d, kind: MarkerKind, x: f64, cy: f64, p: &Palette) {
    ctx.begin_path();
    match kind {
        MarkerKind::SpecUpdate => {
            ctx.set_fill_style_str(&p.marker);
            let _ = ctx.arc(x, cy, 3.5, 0.0, std::f64::consts::TAU);
            ctx.fill();
        }
        MarkerKind::DeletionRequested => {
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
