//! Reconciles in flight per controller instance against its workers: the
//! lane that shows a controller's workers all held (`saturated-workers`),
//! drawn in its group row by the SVG and the app (see the layout).

use super::model::{Analysis, InFlight};

/// The run is cut into this many equal buckets; a lane is no finer.
pub const IN_FLIGHT_BUCKETS: i64 = 2000;

/// One lane per controller instance with more than one worker (with one,
/// its row shows the same), from every reconcile's drawn start (its latent
/// start, when it has one) to its last line.
pub fn build(a: &Analysis) -> Vec<InFlight> {
    let start = a.reconciles.iter().map(|r| r.start()).min_by_key(|t| t.nanos);
    let t1 = a.reconciles.iter().map(|r| r.last.nanos).max();
    let (Some(start), Some(t1)) = (start, t1) else { return Vec::new() };
    let t0 = start.nanos;
    // (i128: the span of two far times does not fit i64.)
    let span = (i128::from(t1) - i128::from(t0)).max(1);
    let bucket_nanos = i64::try_from(span / i128::from(IN_FLIGHT_BUCKETS) + 1).unwrap_or(i64::MAX);
    let buckets = usize::try_from(span / i128::from(bucket_nanos) + 1).unwrap_or(0);
    let mut events: Vec<Vec<(i64, i32)>> = vec![Vec::new(); a.controllers.len()];
    for r in &a.reconciles {
        let (s, e) = (r.start().nanos, r.last.nanos);
        if e > s && a.controllers.get(r.controller).is_some_and(|c| c.workers > 1) {
            events[r.controller].push((s, 1));
            events[r.controller].push((e, -1));
        }
    }
    let bucket_of = |t: i64| usize::try_from((i128::from(t) - i128::from(t0)) / i128::from(bucket_nanos)).unwrap_or(0).min(buckets - 1);
    let mut out = Vec::new();
    for (c, mut ev) in events.into_iter().enumerate() {
        if ev.is_empty() {
            continue;
        }
        // Ends before starts at the same time: one reconcile ending as the
        // next begins is not two in flight.
        ev.sort_unstable();
        let mut peaks = vec![0u16; buckets];
        let mut level: i32 = 0;
        for (i, &(t, d)) in ev.iter().enumerate() {
            level += d;
            let Some(&(next, _)) = ev.get(i + 1) else { break };
            if next > t && level > 0 {
                let shown = u16::try_from(level).unwrap_or(u16::MAX);
                for p in &mut peaks[bucket_of(t)..=bucket_of(next - 1)] {
                    *p = (*p).max(shown);
                }
            }
        }
        let peak = peaks.iter().copied().max().unwrap_or(0);
        out.push(InFlight { controller: c, workers: a.controllers[c].workers, start, bucket_nanos, peaks, peak });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::model::{ControllerInstance, Outcome, Reconcile};
    use crate::time::Timestamp;

    /// Reconciles given as (controller, start s, end s) on controllers of
    /// `workers`; the lanes as (controller, peak, the peak of each tenth of
    /// the run).
    fn check(workers: &[u32], reconciles: &[(usize, i64, i64)], expect: &[(usize, u16, [u16; 10])]) {
        let controllers = workers
            .iter()
            .enumerate()
            .map(|(i, &w)| ControllerInstance {
                id: format!("c{i}"),
                name: format!("c{i}"),
                controller: format!("c{i}"),
                group: None,
                kind: None,
                workers: w,
                workers_source: "log".into(),
                reconciles: 0,
            })
            .collect();
        let at = |s: i64| Timestamp::new(s * 1_000_000_000, 0);
        let reconciles = reconciles
            .iter()
            .enumerate()
            .map(|(i, &(c, s, e))| Reconcile {
                reconcile_id: format!("r{i}"),
                controller: c,
                object: None,
                kind: None,
                first: at(s),
                last: at(e),
                latent_start: None,
                stated_start: false,
                lines: if s == e { 1 } else { 2 },
                outcome: Outcome::Success,
                said_done: false,
                error_value_at: None,
                error: None,
                truncated: false,
                lane: 0,
                records: 0..0,
            })
            .collect();
        let a = Analysis { controllers, reconciles, ..Analysis::default() };
        let lanes = build(&a);
        let got: Vec<(usize, u16, [u16; 10])> = lanes
            .iter()
            .map(|l| {
                let per = l.peaks.len().div_ceil(10);
                let mut tenths = [0u16; 10];
                for (i, p) in l.peaks.iter().enumerate() {
                    tenths[i / per] = tenths[i / per].max(*p);
                }
                (l.controller, l.peak, tenths)
            })
            .collect();
        assert_eq!(got, expect);
        for l in &lanes {
            assert!(l.peaks.len() as i64 <= IN_FLIGHT_BUCKETS + 1, "{}", l.peaks.len());
        }
    }

    #[test]
    fn in_flight_against_the_workers() {
        // Four workers all held from 12 s to 58 s of a 100 s run, one more
        // reconcile before and after; the 1-worker controller has no lane.
        check(&[4, 1], &[(0, 0, 5), (0, 12, 58), (0, 12, 58), (0, 12, 58), (0, 12, 58), (0, 72, 100), (1, 0, 100)], &[(0, 4, [1, 4, 4, 4, 4, 4, 0, 1, 1, 1])]);
        // Back to back is one in flight, not two; a reconcile of one line
        // (no time) is none.
        check(&[2], &[(0, 0, 50), (0, 50, 100), (0, 30, 30)], &[(0, 1, [1, 1, 1, 1, 1, 1, 1, 1, 1, 1])]);
        // No reconcile with a duration: no lane.
        check(&[2], &[(0, 5, 5)], &[]);
    }
}
