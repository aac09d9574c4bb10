//! Where a timeline becomes pixels, as SVG drawn with plotters: the CLI's
//! `--svg` and the app's "Export SVG" both call [`svg`]. Text from logs is
//! written as SVG text (plotters escapes it), never as markup.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::analyze::{Analysis, FindingKind, Outcome};
use crate::layout::{MarkerKind, Timeline};
use crate::time::NANOS_PER_SEC;

/// What part of the timeline to draw, and how big.
#[derive(Clone, Debug, PartialEq)]
pub struct View {
    pub width_px: u32,
    /// Time window; `None`: the whole timeline.
    pub window: Option<(i64, i64)>,
    /// Offset east of UTC for axis labels, in seconds (0: UTC).
    pub utc_offset_secs: i32,
}

impl Default for View {
    fn default() -> Self {
        View { width_px: 1200, window: None, utc_offset_secs: 0 }
    }
}

const LABEL_W: i32 = 260;
const ROW_H: i32 = 18;
const TOP: i32 = 46;
const FONT: f64 = 12.0 * 1.24; // plotters draws fonts at 1/1.24 of the size asked

/// Colours of the chart (light theme; the app has its own for dark).
pub struct Palette {
    pub background: RGBColor,
    pub text: RGBColor,
    pub grid: RGBColor,
    pub success: RGBColor,
    pub requeue: RGBColor,
    pub error: RGBColor,
    pub election: RGBColor,
    pub highlight: RGBColor,
}

pub const LIGHT: Palette = Palette {
    background: RGBColor(255, 255, 255),
    text: RGBColor(30, 33, 40),
    grid: RGBColor(225, 228, 235),
    success: RGBColor(46, 139, 87),
    requeue: RGBColor(218, 165, 32),
    error: RGBColor(200, 40, 40),
    election: RGBColor(120, 80, 200),
    highlight: RGBColor(230, 80, 20),
};

fn outcome_colour(p: &Palette, o: Outcome) -> RGBColor {
    match o {
        Outcome::Success => p.success,
        Outcome::Requeue => p.requeue,
        Outcome::Error => p.error,
    }
}

/// A tick step (nanos) that puts labels at least `min_px` apart.
pub fn tick_step(span_nanos: i64, width_px: i32, min_px: i32) -> i64 {
    const STEPS_SECS: [i64; 16] = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 21600, 86400];
    let per_px = span_nanos.max(1) as f64 / width_px.max(1) as f64;
    for s in STEPS_SECS {
        let step = s * NANOS_PER_SEC;
        if step as f64 / per_px >= min_px as f64 {
            return step;
        }
    }
    86400 * NANOS_PER_SEC * ((span_nanos / (86400 * NANOS_PER_SEC)) / 4).max(1)
}

/// `HH:MM:SS` (or `HH:MM` on minute steps) of a time at an offset.
fn axis_label(nanos: i64, offset_secs: i32, step: i64) -> String {
    let secs = (nanos / NANOS_PER_SEC + offset_secs as i64).rem_euclid(86400);
    if step % (60 * NANOS_PER_SEC) == 0 {
        format!("{:02}:{:02}", secs / 3600, secs % 3600 / 60)
    } else {
        format!("{:02}:{:02}:{:02}", secs / 3600, secs % 3600 / 60, secs % 60)
    }
}

fn clip(s: &str, max_chars: usize) -> String {
    if s.chars().count() <= max_chars {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(max_chars.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

/// Draws the timeline as an SVG document.
pub fn svg(a: &Analysis, t: &Timeline, view: &View) -> String {
    let (t0, t1) = view.window.unwrap_or((t.start_nanos, t.end_nanos.max(t.start_nanos + NANOS_PER_SEC)));
    let span = (t1 - t0).max(1);
    let width = view.width_px.max(LABEL_W as u32 + 200) as i32;
    let plot_w = width - LABEL_W - 10;
    let height = TOP + ROW_H * t.rows.len() as i32 + 30;
    let x_of = |n: i64| -> i32 { LABEL_W + ((n - t0) as f64 / span as f64 * plot_w as f64).round() as i32 };
    let clamp_x = |x: i32| x.clamp(LABEL_W, LABEL_W + plot_w);
    let p = &LIGHT;
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (width as u32, height as u32)).into_drawing_area();
        let _ = root.fill(&p.background);
        let font = |size: f64, c: RGBColor| ("sans-serif", size).into_font().color(&c);
        let title = format!(
            "reconscope: {} reconciles, {} controller instances, {} etcd elections, {} findings",
            a.reconciles.len(),
            a.controllers.len(),
            a.elections.len(),
            a.findings.len()
        );
        let _ = root.draw(&Text::new(title, (8, 6), font(FONT, p.text)));
        // Time axis: grid lines and labels that never collide.
        let step = tick_step(span, plot_w, 90);
        let first = (t0.div_euclid(step) + 1) * step;
        let mut x_last: Option<i32> = None;
        let mut tick = first;
        while tick < t1 {
            let x = x_of(tick);
            if x_last.is_none_or(|l| x - l >= 80) {
                let _ = root.draw(&PathElement::new(vec![(x, TOP - 6), (x, height - 26)], p.grid));
                let style = font(FONT * 0.9, p.text).pos(Pos::new(HPos::Center, VPos::Top));
                let _ = root.draw(&Text::new(axis_label(tick, view.utc_offset_secs, step), (x, TOP - 20), style));
                x_last = Some(x);
            }
            tick += step;
        }
        let zone = if view.utc_offset_secs == 0 { "UTC".to_string() } else { format!("UTC{:+}", view.utc_offset_secs / 3600) };
        let _ = root.draw(&Text::new(zone, (8, TOP - 20), font(FONT * 0.9, p.text)));
        // Election bands across every row; the leaderless part darker.
        for b in &t.bands {
            let (x0, x1) = (clamp_x(x_of(b.start_nanos)), clamp_x(x_of(b.end_nanos)));
            let _ = root.draw(&Rectangle::new([(x0, TOP), ((x1).max(x0 + 2), height - 26)], p.election.mix(0.12).filled()));
            if let Some(ls) = b.leaderless_start_nanos {
                let lx = clamp_x(x_of(ls));
                let _ = root.draw(&Rectangle::new([(lx, TOP), (x1.max(lx + 2), height - 26)], p.election.mix(0.22).filled()));
            }
        }
        // Rows: labels, then bars.
        for (ri, row) in t.rows.iter().enumerate() {
            let y = TOP + ri as i32 * ROW_H;
            if row.depth == 0 {
                let _ = root.draw(&Rectangle::new([(0, y), (width, y + ROW_H)], p.grid.mix(0.45).filled()));
            }
            let indent = 8 + row.depth as i32 * 14;
            let label = clip(&row.label, ((LABEL_W - indent - 6) / 7) as usize);
            let style = font(FONT * if row.depth == 0 { 0.95 } else { 0.85 }, p.text).pos(Pos::new(HPos::Left, VPos::Center));
            let _ = root.draw(&Text::new(label, (indent, y + ROW_H / 2), style));
            for bar in &t.bars[row.bar_start as usize..row.bar_end as usize] {
                if bar.end_nanos < t0 || bar.start_nanos > t1 {
                    continue;
                }
                let colour = outcome_colour(p, bar.outcome);
                let (xs, xf, xe) = (clamp_x(x_of(bar.start_nanos)), clamp_x(x_of(bar.first_nanos)), clamp_x(x_of(bar.end_nanos)));
                if bar.tick {
                    let _ = root.draw(&Rectangle::new([(xe - 1, y + 3), (xe + 1, y + ROW_H - 3)], colour.filled()));
                    continue;
                }
                // The latent part is a thin line: the reconcile may have
                // been running there, but logged nothing.
                if xf > xs {
                    let _ = root.draw(&PathElement::new(vec![(xs, y + ROW_H / 2), (xf, y + ROW_H / 2)], colour.stroke_width(2)));
                }
                let _ = root.draw(&Rectangle::new([(xf, y + 4), (xe.max(xf + 2), y + ROW_H - 4)], colour.filled()));
            }
        }
        // Lifecycle markers.
        for m in &t.markers {
            let x = x_of(m.at_nanos);
            if x < LABEL_W || x > LABEL_W + plot_w {
                continue;
            }
            let y = TOP + m.row as i32 * ROW_H;
            let colour = match m.kind {
                MarkerKind::SpecUpdate => p.requeue,
                MarkerKind::DeletionRequested | MarkerKind::FinalizerAtEnd => p.error,
                MarkerKind::Deleted => p.success,
            };
            let _ = root.draw(&Polygon::new(vec![(x - 4, y + 1), (x + 4, y + 1), (x, y + 7)], colour.filled()));
        }
        // Findings: outlined over their rows.
        for h in &t.highlights {
            let (x0, x1) = (clamp_x(x_of(h.start_nanos)), clamp_x(x_of(h.end_nanos)));
            let (r0, r1) = match (h.rows.first(), h.rows.last()) {
                (Some(&a), Some(&b)) => (a as i32, b as i32 + 1),
                _ => (0, t.rows.len() as i32),
            };
            let colour = if h.kind == FindingKind::ElectionOverlap { p.election } else { p.highlight };
            let _ = root.draw(&Rectangle::new([(x0 - 1, TOP + r0 * ROW_H), (x1.max(x0 + 2) + 1, TOP + r1 * ROW_H)], colour.stroke_width(2)));
        }
        // Goroutine dumps: a dashed line across every row, labelled on top.
        for d in &t.dumps {
            let x = x_of(d.at_nanos);
            if x < LABEL_W || x > LABEL_W + plot_w {
                continue;
            }
            let mut y = TOP;
            while y < height - 26 {
                let _ = root.draw(&PathElement::new(vec![(x, y), (x, (y + 6).min(height - 26))], p.text.stroke_width(1)));
                y += 10;
            }
            let style = font(FONT * 0.8, p.text).pos(Pos::new(HPos::Left, VPos::Top));
            let _ = root.draw(&Text::new("goroutine dump", (x + 3, TOP + 1), style));
        }
        let legend = "green: success · amber: requeue · red: error · thin line: latent start · purple band: etcd election · orange box: finding · dashed line: goroutine dump";
        let _ = root.draw(&Text::new(legend, (8, height - 18), font(FONT * 0.8, p.text)));
        let _ = root.present();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tick_steps_keep_labels_apart() {
        // 40 minutes over 900 px: ticks at least 90 px apart.
        let step = tick_step(40 * 60 * NANOS_PER_SEC, 900, 90);
        assert!(step as f64 / (40.0 * 60.0 * 1e9) * 900.0 >= 90.0);
        assert_eq!(step, 300 * NANOS_PER_SEC);
        assert_eq!(axis_label(16 * 3600 * NANOS_PER_SEC + 5 * 60 * NANOS_PER_SEC, 0, step), "16:05");
        assert_eq!(axis_label(5 * NANOS_PER_SEC, 3600, NANOS_PER_SEC), "01:00:05");
    }
}
