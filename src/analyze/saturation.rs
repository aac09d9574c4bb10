//! `saturated-workers`: a controller instance with N ≥ 2 workers (from its
//! `Starting workers` line or `--workers`, never inferred) whose N
//! lanes are all held by the same reconciles for far longer than its
//! reconciles usually take (20 times the median duration, and at least
//! twice the reconcile timeout), while work waits (at least 3 reconciles
//! ended in the 10 minutes before, or at least 3 start within a minute
//! after). One lane held is `stalled-worker`; one reconcile running long is
//! `slow-reconcile` (the holders are usually that too). A `stalled-worker`
//! finding whose holding reconcile is one of the holders is left out: this
//! finding says more.

use std::collections::BTreeMap;

use crate::analyze::findings::{began, clock, usual_and_far_past, Sentence};
use crate::analyze::model::{Analysis, Detail, Finding, FindingKind, Saturation, Severity, Waited};
use crate::analyze::AnalyzeOptions;
use crate::model::Timestamp;
use crate::time::{human_duration, NANOS_PER_SEC};
use crate::words::plural;

pub fn find(a: &Analysis, opts: &AnalyzeOptions, out: &mut Vec<Finding>) {
    let mut by_controller: Vec<Vec<usize>> = vec![Vec::new(); a.controllers.len()];
    for (i, r) in a.reconciles.iter().enumerate() {
        by_controller[r.controller].push(i);
    }
    let mut found = Vec::new();
    for (ci, rs) in by_controller.iter().enumerate() {
        let n = a.controllers[ci].workers as usize;
        // An inferred count is the most seen at once: "all of them held"
        // would then say nothing of the real limit.
        if n < 2 || rs.len() < n + 3 || a.controllers[ci].workers_source == "inferred" {
            continue;
        }
        let mut durations: Vec<i64> = rs.iter().map(|&i| a.reconciles[i].last.nanos.saturating_sub(a.reconciles[i].start().nanos)).collect();
        let (normal, threshold) = usual_and_far_past(&mut durations, opts);
        // In flight over time: at equal times an end comes before a start.
        let mut ev: Vec<(Timestamp, i32, usize)> = Vec::with_capacity(rs.len() * 2);
        for &i in rs {
            let r = &a.reconciles[i];
            ev.push((r.start(), 1, i));
            ev.push((r.last, -1, i));
        }
        ev.sort_by_key(|&(t, d, i)| (t, d, i));
        let mut in_flight: Vec<usize> = Vec::new();
        let mut k = 0;
        while k < ev.len() {
            let (t, d, i) = ev[k];
            k += 1;
            if d < 0 {
                in_flight.retain(|&x| x != i);
                continue;
            }
            in_flight.push(i);
            if in_flight.len() != n {
                continue;
            }
            // All held from `t` until the first of them ends.
            let held = in_flight.clone();
            let end = held.iter().map(|&h| a.reconciles[h].last).min().unwrap_or(t);
            if end.nanos.saturating_sub(t.nanos) <= threshold {
                continue;
            }
            if let Some(f) = finding(a, ci, rs, &held, t, end, normal) {
                found.push(f);
            }
        }
    }
    // A lane's stall held by one of the holders: told here already.
    let held_by: Vec<(usize, Vec<usize>)> = found.iter().map(|f| (f.controller.unwrap_or(usize::MAX), f.reconciles[..held_count(f)].to_vec())).collect();
    out.retain(|f| {
        f.kind != FindingKind::StalledWorker || !held_by.iter().any(|(c, h)| f.controller == Some(*c) && f.reconciles.first().is_some_and(|r| h.contains(r)))
    });
    out.extend(found);
}

fn held_count(f: &Finding) -> usize {
    match f.detail.as_deref() {
        Some(Detail::Saturation(s)) => s.held.len(),
        _ => 0,
    }
}

fn obj(a: &Analysis, i: usize) -> String {
    a.reconciles[i].object.as_ref().map_or("an unknown object".to_string(), |o| o.to_string())
}

fn finding(a: &Analysis, ci: usize, rs: &[usize], held: &[usize], start: Timestamp, end: Timestamp, normal: i64) -> Option<Finding> {
    let c = &a.controllers[ci];
    let before = rs
        .iter()
        .filter(|&&i| !held.contains(&i))
        .filter(|&&i| a.reconciles[i].last <= start && a.reconciles[i].last.nanos > start.nanos.saturating_sub(600 * NANOS_PER_SEC))
        .count();
    let mut after: Vec<usize> = rs
        .iter()
        .copied()
        .filter(|i| !held.contains(i))
        .filter(|&i| a.reconciles[i].start() >= end && a.reconciles[i].start().nanos <= end.nanos.saturating_add(60 * NANOS_PER_SEC))
        .collect();
    after.sort_by_key(|&i| (a.reconciles[i].start(), i));
    if before < 3 && after.len() < 3 {
        return None;
    }
    // Each object's first reconcile after, and when it was due: its usual
    // period after its last start before, or `start`.
    let mut starts_of: BTreeMap<String, Vec<Timestamp>> = BTreeMap::new();
    for &i in rs {
        if a.reconciles[i].start() < start {
            starts_of.entry(obj(a, i)).or_default().push(a.reconciles[i].start());
        }
    }
    let mut seen = std::collections::BTreeSet::new();
    let held_objects: Vec<String> = held.iter().map(|&h| obj(a, h)).collect();
    let mut waited: Vec<Waited> = Vec::new();
    for &i in &after {
        let o = obj(a, i);
        if a.reconciles[i].object.is_none() || held_objects.contains(&o) || !seen.insert(o.clone()) {
            continue;
        }
        let due = match starts_of.get_mut(&o) {
            Some(ss) if ss.len() >= 2 => {
                ss.sort();
                let mut gaps: Vec<i64> = ss.windows(2).map(|w| w[1].nanos.saturating_sub(w[0].nanos)).collect();
                let m = gaps.len() / 2;
                let period = *gaps.select_nth_unstable(m).1;
                ss[ss.len() - 1].nanos.saturating_add(period).max(start.nanos)
            }
            _ => start.nanos,
        };
        let wait = a.reconciles[i].start().nanos.saturating_sub(due);
        if wait > 0 {
            waited.push(Waited { object: o, reconcile_id: a.reconciles[i].reconcile_id.clone(), estimated_wait_nanos: wait });
        }
    }
    // A holder whose first line came late began no earlier than its
    // worker was free: when the last of them took its worker is a bound,
    // and so is how long all were held.
    let holders: Vec<String> = held.iter().map(|&h| format!("{} of {} ({})", a.reconciles[h].reconcile_id, obj(a, h), began(&a.reconciles[h]))).collect();
    let bound = !held.iter().any(|&h| a.reconciles[h].start() == start && !a.reconciles[h].start_is_bound());
    let waited_idx: Vec<usize> = after.iter().copied().filter(|&i| waited.iter().any(|w| w.reconcile_id == a.reconciles[i].reconcile_id)).collect();
    let els = a.elections.iter().enumerate().filter(|(_, e)| e.start <= end && e.end.is_none_or(|x| x >= start)).map(|(i, _)| i).collect();
    let mut f = Finding {
        kind: FindingKind::SaturatedWorkers,
        severity: Severity::Error,
        controller: Some(ci),
        object: None,
        start,
        end,
        reconciles: held.iter().copied().chain(waited_idx).collect(),
        elections: els,
        message: String::new(),
        pieces: Vec::new(),
        blocked: None,
        silence: None,
        detail: Some(Box::new(Detail::Saturation(Saturation {
            workers: c.workers,
            normal_nanos: normal,
            held: held.iter().map(|&h| a.reconciles[h].reconcile_id.clone()).collect(),
            waited: waited.clone(),
            start_is_bound: bound,
        }))),
    };
    // How long: the finding's own duration (`at most` from a bound).
    let mut s = Sentence::default().text(format!(
        "All {} workers of {} were held by the same reconciles for {} ({} → {}; its reconciles usually take {}): {}",
        c.workers,
        c.name,
        f.duration_text().unwrap_or_default(),
        clock(start),
        clock(end),
        human_duration(normal),
        holders.join(", ")
    ));
    if waited.is_empty() {
        s = s.text(format!("; {} in the 10 minutes before, so work was waiting.", plural(before, "reconcile ended", "reconciles ended")));
    } else {
        let longest = waited.iter().map(|w| w.estimated_wait_nanos).max().unwrap_or(0);
        let shown: Vec<String> = waited.iter().take(5).map(|w| format!("{} ~{}", w.object, human_duration(w.estimated_wait_nanos))).collect();
        let more = if waited.len() > 5 { format!(" and {} more", waited.len() - 5) } else { String::new() };
        s = s.text(format!(
            "; {} reconciled right after ({}{more}), the longest an estimated {}.",
            plural(waited.len(), "object waited and was", "objects waited and were"),
            shown.join(", "),
            human_duration(longest)
        ));
    }
    f.message = s.plain();
    f.pieces = s.0;
    Some(f)
}
