//! The one time ↔ pixel mapping of every picture: the SVG export
//! (`render`) and the app's canvas chart both draw through a [`TimeScale`].
//!
//! A scale maps a window `[start, end]` of absolute nanoseconds (UTC, since
//! 1970) onto `[x0, x0 + width]` pixels. It zooms about a point, pans, and
//! clamps itself to a timeline's extent; it chooses tick steps (the "nice"
//! steps from 1 µs to a week, then whole days in 1-2-5 multiples) with a
//! bounded count whatever the span, and writes tick labels to the
//! precision of the step.
//!
//! Never an overflow, a NaN or a long loop: differences of instants are
//! taken in i128 (any two i64 instants, 584 years apart, fit), pixels in
//! f64 with guards, and instants come back saturated into i64.

use chrono::{Datelike, FixedOffset, Timelike};

use crate::time::NANOS_PER_SEC;

/// The narrowest window: 100 µs.
pub const MIN_SPAN: i64 = 100_000;
/// At most this many ticks, whatever the span and width.
pub const MAX_TICKS: usize = 1000;

const DAY: i64 = 86_400 * NANOS_PER_SEC;

/// Nice tick steps, in ns: 1 µs up to a week. Past a week, steps are
/// whole days in 1-2-5 multiples ([`TimeScale::tick_step`]).
pub const STEPS: &[i64] = &[
    1_000,
    2_000,
    5_000,
    10_000,
    20_000,
    50_000,
    100_000,
    200_000,
    500_000,
    1_000_000,
    2_000_000,
    5_000_000,
    10_000_000,
    20_000_000,
    50_000_000,
    100_000_000,
    200_000_000,
    500_000_000,
    1_000_000_000,
    2_000_000_000,
    5_000_000_000,
    10_000_000_000,
    15_000_000_000,
    30_000_000_000,
    60_000_000_000,
    120_000_000_000,
    300_000_000_000,
    600_000_000_000,
    900_000_000_000,
    1_800_000_000_000,
    3_600_000_000_000,
    7_200_000_000_000,
    10_800_000_000_000,
    21_600_000_000_000,
    43_200_000_000_000,
    DAY,
    2 * DAY,
    7 * DAY,
];

/// A window of time drawn onto a span of pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimeScale {
    start: i64,
    end: i64,
    x0: f64,
    width: f64,
}

/// A finite f64 or the fallback.
fn finite(v: f64, fallback: f64) -> f64 {
    if v.is_finite() {
        v
    } else {
        fallback
    }
}

/// An i128 saturated into i64.
fn sat(v: i128) -> i64 {
    v.clamp(i64::MIN as i128, i64::MAX as i128) as i64
}

impl TimeScale {
    /// `[start, end]` (absolute ns; an empty or reversed window becomes
    /// 1 ns long) onto `[x0, x0 + width]` px (width at least 1 px).
    pub fn new(start: i64, end: i64, x0: f64, width: f64) -> TimeScale {
        let end = if end > start { end } else { start.saturating_add(1).max(end) };
        let end = if end > start { end } else { start };
        TimeScale { start, end, x0: finite(x0, 0.0), width: finite(width, 1.0).max(1.0) }
    }

    /// The same window onto other pixels.
    pub fn with_px(self, x0: f64, width: f64) -> TimeScale {
        TimeScale::new(self.start, self.end, x0, width)
    }

    pub fn start(&self) -> i64 {
        self.start
    }

    pub fn end(&self) -> i64 {
        self.end
    }

    /// The window's length in ns (up to 2⁶⁴: every i64 window fits).
    pub fn span(&self) -> u64 {
        (self.end as i128 - self.start as i128).max(0) as u64
    }

    pub fn x0(&self) -> f64 {
        self.x0
    }

    pub fn width(&self) -> f64 {
        self.width
    }

    /// The right edge, `x0 + width`.
    pub fn x1(&self) -> f64 {
        self.x0 + self.width
    }

    fn span_f(&self) -> f64 {
        (self.span() as f64).max(1.0)
    }

    /// Nanoseconds per pixel.
    pub fn ns_per_px(&self) -> f64 {
        self.span_f() / self.width
    }

    /// The x of an instant (outside the window: outside `[x0, x1]`, finite).
    pub fn x(&self, t: i64) -> f64 {
        let d = (t as i128 - self.start as i128) as f64;
        self.x0 + d / self.span_f() * self.width
    }

    /// [`TimeScale::x`] kept within `[x0 - 1, x1 + 1]`: for rectangles that
    /// reach far out of the window (a canvas or SVG coordinate of 10¹² px
    /// draws badly).
    pub fn x_clamped(&self, t: i64) -> f64 {
        self.x(t).clamp(self.x0 - 1.0, self.x1() + 1.0)
    }

    /// The instant at x (saturated into i64).
    pub fn t(&self, x: f64) -> i64 {
        let frac = finite((x - self.x0) / self.width, 0.0);
        // Within ±2⁶⁵ (past either end of i64 from anywhere), so the sum
        // in i128 cannot overflow; `as` saturates a NaN to 0.
        let d = (frac * self.span_f()).clamp(-3.7e19, 3.7e19);
        sat(self.start as i128 + d as i128)
    }

    /// Whether `[s, e]` reaches into the window.
    pub fn overlaps(&self, s: i64, e: i64) -> bool {
        e >= self.start && s <= self.end
    }

    /// A window of `span` ns that puts `anchor_t` at `anchor_x`.
    fn around(self, anchor_t: i64, anchor_x: f64, span: f64) -> TimeScale {
        let span = finite(span, self.span_f()).clamp(MIN_SPAN as f64, u64::MAX as f64 / 2.0);
        let frac = finite((anchor_x - self.x0) / self.width, 0.5);
        let start = anchor_t as i128 - (frac * span) as i128;
        let end = start + span as i128;
        // Kept inside i64 as a whole, span and all.
        let (start, end) = if end > i64::MAX as i128 {
            (i64::MAX as i128 - span as i128, i64::MAX as i128)
        } else if start < i64::MIN as i128 {
            (i64::MIN as i128, i64::MIN as i128 + span as i128)
        } else {
            (start, end)
        };
        TimeScale::new(sat(start), sat(end), self.x0, self.width)
    }

    /// Zoomed by `factor` (below 1: in) about the pixel `anchor_x`: the
    /// instant under it stays under it. Never narrower than [`MIN_SPAN`].
    pub fn zoom(self, factor: f64, anchor_x: f64) -> TimeScale {
        let factor = finite(factor, 1.0).max(1e-9);
        let anchor_t = self.t(anchor_x);
        self.around(anchor_t, anchor_x, self.span_f() * factor)
    }

    /// Moved by `dx` px (positive: later).
    pub fn pan_px(self, dx: f64) -> TimeScale {
        let dt = finite(dx * self.span_f() / self.width, 0.0);
        self.pan(dt as i64)
    }

    /// Moved by `dt` ns (positive: later), stopping at the ends of i64.
    pub fn pan(self, dt: i64) -> TimeScale {
        let span = self.span() as i128;
        let start = (self.start as i128 + dt as i128).clamp(i64::MIN as i128, i64::MAX as i128 - span);
        TimeScale::new(sat(start), sat(start + span), self.x0, self.width)
    }

    /// The window `[start, end]` (ns) on the same pixels, at least
    /// [`MIN_SPAN`] long (widened about its middle).
    pub fn with_window(self, start: i64, end: i64) -> TimeScale {
        let s = TimeScale::new(start, end, self.x0, self.width);
        if s.span() >= MIN_SPAN as u64 {
            return s;
        }
        let mid = (start as i128 + end as i128) / 2;
        s.around(sat(mid), self.x0 + self.width / 2.0, MIN_SPAN as f64)
    }

    /// Kept on an extent `[lo, hi]` (ns): the span between [`MIN_SPAN`]
    /// and 1.5× the extent, and at least a tenth of the window over it.
    pub fn clamp_to(self, lo: i64, hi: i64) -> TimeScale {
        let full = (hi as i128 - lo as i128).max(MIN_SPAN as i128);
        let span = (self.span() as i128).clamp(MIN_SPAN as i128, (full * 3 / 2).max(MIN_SPAN as i128));
        let min_start = lo as i128 - span * 9 / 10;
        let max_start = (hi as i128 - span / 10).max(min_start);
        let start = (self.start as i128).clamp(min_start, max_start);
        let start = start.clamp(i64::MIN as i128, i64::MAX as i128 - span);
        TimeScale::new(sat(start), sat(start + span), self.x0, self.width)
    }

    /// The smallest step whose ticks are at least `min_px(step)` px apart:
    /// one of [`STEPS`], or past a week whole days in 1-2-5 multiples.
    /// Every step leaves at most `width / min_px + 1` ticks (and never
    /// more than [`MAX_TICKS`]).
    pub fn tick_step_by(&self, min_px: impl Fn(i64) -> f64) -> i64 {
        let per_px = self.ns_per_px();
        let need = |step: i64| finite(min_px(step), 1.0).max(1.0);
        let fits = |step: i64| {
            let px = step as f64 / per_px;
            px >= need(step) && self.span_f() / step as f64 <= MAX_TICKS as f64 - 1.0
        };
        if let Some(&s) = STEPS.iter().find(|&&s| fits(s)) {
            return s;
        }
        // Whole days: 10, 20, 50, 100, ... days until one fits (at most
        // a few dozen tries: i64 holds 106,751 days).
        let mut base: i64 = 1;
        loop {
            for m in [1, 2, 5] {
                let Some(step) = DAY.checked_mul(base * m * 10) else { return i64::MAX / 2 };
                if fits(step) {
                    return step;
                }
            }
            base = match base.checked_mul(10) {
                Some(b) if b < 1_000_000 => b,
                _ => return i64::MAX / 2,
            };
        }
    }

    /// [`TimeScale::tick_step_by`] with one minimum distance for all steps.
    pub fn tick_step(&self, min_px: f64) -> i64 {
        self.tick_step_by(|_| min_px)
    }

    /// The ticks of `step` in the window, on the step's round instants of
    /// the zone `offset_secs` east of UTC (midnights there for day
    /// steps); at most [`MAX_TICKS`].
    pub fn ticks(&self, step: i64, offset_secs: i32) -> Vec<i64> {
        let step = step.max(1) as i128;
        let off = offset_secs as i128 * NANOS_PER_SEC as i128;
        let (t0, t1) = (self.start as i128, self.end as i128);
        let mut t = (t0 + off).div_euclid(step) * step - off;
        if t < t0 {
            t += step;
        }
        let mut out = Vec::new();
        while t <= t1 && out.len() < MAX_TICKS {
            if t >= i64::MIN as i128 && t <= i64::MAX as i128 {
                out.push(t as i64);
            }
            t += step;
        }
        out
    }
}

/// The zone `offset_secs` east of UTC (chrono's; one a day or more from
/// UTC is none, and UTC is used).
pub fn zone(offset_secs: i32) -> FixedOffset {
    FixedOffset::east_opt(offset_secs).unwrap_or(FixedOffset::east_opt(0).expect("UTC"))
}

/// A tick's label, to the precision of its step, in the zone
/// `offset_secs` east of UTC: `2026` on steps of a year or more, the
/// date on steps of a month or more (`2026-05-26`; `May 26` when the logs
/// gave no year), `05-26` on day steps and at midnight on minute steps,
/// `16:05` on minute steps, `16:05:07` on second steps, and below as many
/// decimals as the step has: `16:05:07.2` on 200 ms steps, `16:05:07.25`
/// on 50 ms steps, `16:05:07.250125` on 5 µs steps.
pub fn tick_label(t: i64, step: i64, offset_secs: i32, yearless: bool) -> String {
    let c = crate::time::utc(t).with_timezone(&zone(offset_secs));
    let (y, mo, d) = (c.year(), c.month(), c.day());
    let sod = i64::from(c.num_seconds_from_midnight());
    let frac = i64::from(c.nanosecond());
    let minute = 60 * NANOS_PER_SEC;
    let hms = format!("{:02}:{:02}:{:02}", sod / 3600, sod % 3600 / 60, sod % 60);
    if step >= 365 * DAY && !yearless {
        format!("{y:04}")
    } else if step >= 28 * DAY {
        if yearless {
            crate::time::month_day(mo, d)
        } else {
            format!("{y:04}-{mo:02}-{d:02}")
        }
    } else if step % DAY == 0 || (sod == 0 && frac == 0 && step % minute == 0) {
        format!("{mo:02}-{d:02}")
    } else if step % minute == 0 {
        format!("{:02}:{:02}", sod / 3600, sod % 3600 / 60)
    } else if step % NANOS_PER_SEC == 0 {
        hms
    } else {
        // As many decimals as the step has, no more: `.5` on 500 ms steps,
        // `.25` on 250 ms steps, `.0005` on 500 µs steps.
        let digits = (1..9).find(|&d| step % 10i64.pow(9 - d) == 0).unwrap_or(9);
        let frac = frac / 10i64.pow(9 - digits);
        format!("{hms}.{frac:0width$}", width = digits as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: i64 = NANOS_PER_SEC;
    /// 2026-05-26T16:00:00Z.
    const T: i64 = 1_779_811_200 * S;

    /// Checks a scale of `span` ns from `T` over 1000 px from x = 200: the
    /// mapping round-trips, the tick step keeps ticks `min_px` apart, the
    /// tick count is bounded, and the first tick's label is `first_label`.
    fn check(start: i64, end: i64, min_px: f64, step: i64, first_label: &str) {
        let s = TimeScale::new(start, end, 200.0, 1000.0);
        assert_eq!(s.x(s.start()), 200.0);
        assert!((s.x(s.end()) - 1200.0).abs() < 1e-6);
        for x in [200.0, 431.5, 700.0, 1200.0] {
            let back = s.x(s.t(x));
            assert!((back - x).abs() <= 1e-6 + 1.0 / s.ns_per_px().max(1.0), "x {x} → {} → {back}", s.t(x));
        }
        let got = s.tick_step(min_px);
        assert_eq!(got, step, "step for a span of {} ns", s.span());
        assert!(got as f64 / s.ns_per_px() >= min_px, "ticks at least {min_px} px apart");
        let ticks = s.ticks(got, 0);
        assert!(!ticks.is_empty() && ticks.len() <= (1000.0 / min_px) as usize + 1, "{} ticks", ticks.len());
        assert!(ticks.iter().all(|&t| s.overlaps(t, t)));
        assert!(ticks.windows(2).all(|w| w[1] - w[0] == got));
        assert_eq!(tick_label(ticks[0], got, 0, false), first_label);
    }

    #[test]
    fn ticks_at_many_spans() {
        check(T, T + MIN_SPAN, 90.0, 10_000, "16:00:00.00000");
        check(T + 5 * S, T + 7 * S, 90.0, 200_000_000, "16:00:05.0");
        check(T, T + 20 * 60 * S, 90.0, 120 * S, "16:00");
        check(T + 60 * S, T + 21 * 60 * S, 90.0, 120 * S, "16:02");
        check(T + 7 * 3600 * S, T + 7 * 3600 * S + 3 * DAY, 90.0, 43_200 * S, "05-27");
        // 300 years (a span i64 nanos cannot hold): still a few ticks.
        let years150 = 150 * 365 * DAY;
        check(-years150, years150, 90.0, 10_000 * DAY, "1833");
        // The whole of i64: bounded, no overflow.
        let s = TimeScale::new(i64::MIN, i64::MAX, 0.0, 1e6);
        let step = s.tick_step(1.0);
        assert!(s.ticks(step, 0).len() <= MAX_TICKS);
        let s = TimeScale::new(i64::MIN, i64::MAX, 0.0, 1.0);
        assert!(s.ticks(s.tick_step(90.0), 50_400).len() <= 5, "no step fits: the widest, a few ticks");
    }

    #[test]
    fn tick_labels_have_as_many_decimals_as_the_step() {
        // 16:00:01.5 and a quarter of a millisecond.
        let t = T + S + 500_250_000;
        let label = |step| tick_label(t, step, 0, false);
        assert_eq!(label(S), "16:00:01");
        assert_eq!(label(500_000_000), "16:00:01.5");
        assert_eq!(label(100_000_000), "16:00:01.5");
        assert_eq!(label(50_000_000), "16:00:01.50");
        assert_eq!(label(1_000_000), "16:00:01.500");
        assert_eq!(label(250_000), "16:00:01.50025");
        assert_eq!(label(1_000), "16:00:01.500250");
        assert_eq!(label(7), "16:00:01.500250000");
    }

    #[test]
    fn mapping_round_trips_and_never_overflows() {
        let s = TimeScale::new(T, T + 60 * S, 100.0, 600.0);
        assert_eq!(s.x(T + 30 * S), 400.0);
        assert_eq!(s.t(400.0), T + 30 * S);
        assert_eq!(s.t(100.0), T);
        assert!(s.x(T - 600 * S) < 0.0, "before the window: left of it");
        assert_eq!(s.x_clamped(T - 600 * S), 99.0);
        // Empty, reversed or infinite input: a usable scale.
        let e = TimeScale::new(T, T - 5, f64::NAN, f64::INFINITY);
        assert!(e.span() >= 1 && e.width() >= 1.0 && e.x(T).is_finite());
        let far = TimeScale::new(i64::MIN, i64::MAX, 0.0, 1000.0);
        assert_eq!(far.span(), u64::MAX);
        assert_eq!(far.t(-1e300), i64::MIN);
        assert_eq!(far.t(1e300), i64::MAX);
        assert!(far.x(0).is_finite());
    }

    #[test]
    fn zoom_keeps_the_instant_under_the_cursor() {
        let s = TimeScale::new(T, T + 600 * S, 150.0, 900.0);
        for (factor, x) in [(0.5, 400.0), (0.1, 151.0), (3.0, 1000.0), (1e-12, 700.0)] {
            let under = s.t(x);
            let z = s.zoom(factor, x);
            assert!((z.t(x) - under).abs() <= (z.ns_per_px() as i64).max(1), "factor {factor} at {x}: {} vs {under}", z.t(x));
            assert!(z.span() >= MIN_SPAN as u64);
        }
        assert_eq!(s.zoom(1e-12, 400.0).span(), MIN_SPAN as u64, "never under 100 µs");
        // Zooming out past i64's ends stops there, span and all.
        let z = TimeScale::new(i64::MAX - 10 * S, i64::MAX, 0.0, 100.0).zoom(1e30, 100.0);
        assert!(z.end() == i64::MAX && z.start() < z.end());
        // Pan by pixels.
        let p = s.pan_px(90.0);
        assert_eq!((p.start(), p.end()), (T + 60 * S, T + 660 * S));
        let p = TimeScale::new(i64::MAX - 10, i64::MAX, 0.0, 10.0).pan(i64::MAX);
        assert_eq!(p.end(), i64::MAX);
    }

    #[test]
    fn clamp_keeps_the_window_on_the_extent() {
        let (lo, hi) = (T, T + 1000 * S);
        let s = TimeScale::new(T, T + 1, 0.0, 100.0).clamp_to(lo, hi);
        assert_eq!(s.span(), MIN_SPAN as u64, "at least 100 µs");
        let s = TimeScale::new(T - 9000 * S, T + 9000 * S, 0.0, 100.0).clamp_to(lo, hi);
        assert_eq!(s.span(), 1500 * S as u64, "at most 1.5× the extent");
        let s = TimeScale::new(T + 5000 * S, T + 5100 * S, 0.0, 100.0).clamp_to(lo, hi);
        assert_eq!((s.start(), s.end()), (T + 990 * S, T + 1090 * S), "a tenth still over the extent");
        let s = TimeScale::new(T - 5000 * S, T - 4900 * S, 0.0, 100.0).clamp_to(lo, hi);
        assert_eq!((s.start(), s.end()), (T - 90 * S, T + 10 * S));
        let inside = TimeScale::new(T + 10 * S, T + 20 * S, 0.0, 100.0);
        assert_eq!(inside.clamp_to(lo, hi), inside, "inside: unchanged");
        let w = inside.with_window(T, T);
        assert_eq!(w.span(), MIN_SPAN as u64);
        let all = TimeScale::new(i64::MIN, i64::MAX, 0.0, 100.0).clamp_to(i64::MIN, i64::MAX);
        assert_eq!(all.span(), u64::MAX);
    }

    #[test]
    fn labels_follow_the_zone_and_the_year() {
        let t = T + 5 * 60 * S + 7 * S + 250_125_000;
        assert_eq!(tick_label(t, 1_000, 0, false), "16:05:07.250125");
        assert_eq!(tick_label(t, 1_000_000, 0, false), "16:05:07.250");
        assert_eq!(tick_label(t, S, 3600, false), "17:05:07");
        assert_eq!(tick_label(t, 60 * S, -(5 * 3600 + 1800), false), "10:35");
        // Midnight in the zone, not in UTC.
        assert_eq!(tick_label(T + 8 * 3600 * S, 60 * S, 0, false), "05-27");
        assert_eq!(tick_label(T + 8 * 3600 * S + 60 * S, 60 * S, 0, false), "00:01");
        assert_eq!(tick_label(T, 60 * S, 8 * 3600, false), "05-27");
        assert_eq!(tick_label(T, DAY, 9 * 3600, false), "05-27");
        assert_eq!(tick_label(T, 50 * DAY, 0, false), "2026-05-26");
        assert_eq!(tick_label(T, 50 * DAY, 0, true), "May 26", "no year in the logs: none shown");
        assert_eq!(tick_label(T, 500 * DAY, 0, false), "2026");
        assert_eq!(tick_label(T, 500 * DAY, 0, true), "May 26");
        // An offset of a day or more is no zone: UTC.
        assert_eq!(tick_label(T, 60 * S, 90_000, false), "16:00");
    }
}
