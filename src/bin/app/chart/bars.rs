//! Reconcile bars, batched by colour: latent starts hatched (the export's
//! hatch) with an outline, the rest solid, single-line reconciles as
//! ticks; the selected bar ringed.

use reconscope::analyze::Outcome;
use web_sys::CanvasPattern;

use super::{candidates, fill_rects, push_merged, Frame, BAR_PAD, ROW_H};

type Rect = (f64, f64, f64, f64);

pub(super) struct Drawn {
    pub count: usize,
    /// The selected bar's box (CSS px), when drawn.
    pub selected: Option<Rect>,
}

pub(super) fn paint(f: &Frame, patterns: &[Option<CanvasPattern>; 4]) -> Drawn {
    let (ctx, p, g) = (f.ctx, f.p, &f.g);
    let (vt0, vt1) = (f.s.start(), f.s.end());
    let mut solid: [Vec<Rect>; 4] = Default::default();
    let mut hatched: [Vec<Rect>; 4] = Default::default();
    let mut selected = None;
    let mut count = 0usize;
    let bh = ROW_H - BAR_PAD;
    for r in g.first_row..g.last_row {
        let y = g.row_y(r) + BAR_PAD / 2.0;
        for i in candidates(f.tl, r, vt0, vt1) {
            let b = f.tl.bars[i];
            if b.end_nanos < vt0 {
                continue;
            }
            count += 1;
            let k = b.outcome.index();
            let (xs, xf, xe) = (f.s.x_clamped(b.start_nanos), f.s.x_clamped(b.first_nanos), f.s.x_clamped(b.end_nanos));
            if b.tick {
                push_merged(&mut solid[k], (xs - 1.0, y, 2.0, bh));
            } else {
                if xf > xs {
                    push_merged(&mut hatched[k], (xs, y, xf - xs, bh));
                }
                push_merged(&mut solid[k], (xf, y, (xe - xf).max(2.0), bh));
            }
            if f.selected == Some(b.reconcile) {
                selected = Some((xs, y, (xe - xs).max(2.0), bh));
            }
        }
    }
    for (k, o) in Outcome::ALL.into_iter().enumerate() {
        if !hatched[k].is_empty() {
            if let Some(pat) = &patterns[k] {
                ctx.set_fill_style_canvas_pattern(pat);
                fill_rects(ctx, &hatched[k]);
            }
            // An outline keeps the latent part readable as one piece.
            ctx.set_stroke_style_str(p.outcome(o));
            ctx.set_line_width(1.0);
            ctx.set_global_alpha(0.6);
            ctx.begin_path();
            for &(x, y, bw, bh) in &hatched[k] {
                ctx.rect(x + 0.5, y + 0.5, (bw - 1.0).max(0.0), bh - 1.0);
            }
            ctx.stroke();
            ctx.set_global_alpha(1.0);
        }
        ctx.set_fill_style_str(p.outcome(o));
        fill_rects(ctx, &solid[k]);
    }
    if let Some((x, y, bw, bh)) = selected {
        // The selection, and a focus ring around it that shows on any bar colour.
        ctx.set_stroke_style_str(&p.selected);
        ctx.set_line_width(2.0);
        ctx.stroke_rect(x - 1.0, y - 1.0, bw + 2.0, bh + 2.0);
        ctx.set_stroke_style_str(&p.ring);
        ctx.set_line_width(2.0);
        ctx.stroke_rect(x - 3.5, y - 3.5, bw + 7.0, bh + 7.0);
    }
    Drawn { count, selected }
}
