//! The `reconscope.analysis/v1` JSON document (`reconscope analyze --json`).
//! Times are RFC3339 in UTC at the precision the source had; unknown
//! values are `null`.

use serde_json::{json, Value};

use crate::analyze::model::Analysis;
use crate::analyze::model::FindingKind;
use crate::model::Timestamp;
use crate::stats::FileStats;
use crate::time::Gap;

pub const SCHEMA: &str = "reconscope.analysis/v1";

/// A gap's bounds: `null` when both timestamps are exact to the nanosecond.
fn bounds(g: Gap) -> (Value, Value) {
    if g.is_exact() {
        (Value::Null, Value::Null)
    } else {
        (g.at_least.into(), g.at_most.into())
    }
}

fn t(ts: Option<Timestamp>) -> Value {
    ts.map_or(Value::Null, |t| Value::String(t.to_string()))
}

pub fn to_json(inputs: &[FileStats], a: &Analysis) -> Value {
    // A controller no line names is `null` (its instance id is still given
    // as `controller_instance`).
    let ctrl_id = |i: Option<usize>| i.filter(|&i| a.controllers[i].is_named()).map_or(Value::Null, |i| Value::String(a.controllers[i].id.clone()));
    json!({
        "schema": SCHEMA,
        "inputs": inputs,
        // false: the logs gave no year; times are `--MM-DDThh:mm:ssZ`.
        "year_known": !a.year_unknown,
        "controllers": a.controllers.iter().map(|c| json!({
            "id": c.id, "name": c.is_named().then_some(&c.name), "group": c.group, "kind": c.kind,
            "workers": c.workers, "workers_source": c.workers_source, "reconciles": c.reconciles,
        })).collect::<Vec<_>>(),
        "reconciles": a.reconciles.iter().map(|r| {
            // first → last; none for one line.
            let g = (!r.is_one_line()).then(|| Gap::between(r.first, r.last));
            let (lo, hi) = g.map_or((Value::Null, Value::Null), bounds);
            json!({
            "reconcile_id": r.reconcile_id,
            "controller": ctrl_id(Some(r.controller)), "controller_instance": a.controllers[r.controller].id,
            "object": r.object.as_ref().map(|o| o.to_string()),
            "first": t(Some(r.first)), "last": t(Some(r.last)), "latent_start": t(r.latent_start),
            "lines": r.lines, "outcome": r.outcome, "error": r.error, "truncated": r.truncated, "lane": r.lane,
            "duration_nanos": g.map(|g| g.nanos), "duration_nanos_at_least": lo, "duration_nanos_at_most": hi,
        })}).collect::<Vec<_>>(),
        "elections": a.elections.iter().map(|e| json!({
            "cluster": e.cluster, "term": e.term, "start": t(Some(e.start)), "end": t(e.end),
            "leader": e.leader, "previous_leader": e.previous_leader,
            "leaderless_nanos": e.leaderless_nanos, "transfers": e.transfers, "open": e.end.is_none(),
        })).collect::<Vec<_>>(),
        "objects": a.objects.iter().map(|o| json!({
            "object": o.object.to_string(), "kind": o.kind, "created": t(o.created),
            "updates": o.updates.iter().map(|u| u.to_string()).collect::<Vec<_>>(),
            "deletion_requested": t(o.deletion_requested.or(o.marked_for_deletion)),
            "deleted": t(o.deleted),
            "deletion_latency_nanos": o.deleted.zip(o.deletion_requested.or(o.marked_for_deletion)).map(|(d, r)| d.nanos - r.nanos),
            "finalizers": o.finalizers,
            "generation": o.generation, "observed_generation": o.observed_generation,
        })).collect::<Vec<_>>(),
        "findings": a.findings.iter().map(|f| {
            // An expired context: its start to the DeadlineExceeded line.
            let gap = (f.kind == FindingKind::ExpiredContext).then(|| Gap::between(f.start, f.end));
            let (lo, hi) = gap.map_or((Value::Null, Value::Null), bounds);
            json!({
            "kind": f.kind, "severity": f.severity, "controller": ctrl_id(f.controller),
            "object": f.object.as_ref().map(|o| o.to_string()),
            "start": t(Some(f.start)), "end": t(Some(f.end)),
            "reconcile_ids": f.reconciles.iter().map(|&i| a.reconciles[i].reconcile_id.clone()).collect::<Vec<_>>(),
            "elections": f.elections,
            "message": f.message,
            "pieces": f.pieces,
            "blocked_in": f.blocked.as_ref().map(|b| b.call.clone()),
            "blocked_under": f.blocked.as_ref().and_then(|b| b.under.clone()),
            "goroutine": f.blocked.as_ref().map(|b| b.goroutine),
            "gap_nanos": gap.map(|g| g.nanos), "gap_nanos_at_least": lo, "gap_nanos_at_most": hi,
        })}).collect::<Vec<_>>(),
        "dumps": a.dumps.iter().map(|d| json!({
            "path": d.path, "first_line": d.first_line, "last_line": d.last_line, "kind": d.kind,
            "preamble": d.preamble, "goroutines": d.goroutines, "time": t(d.time), "time_source": d.time_source,
            "notes": d.notes,
        })).collect::<Vec<_>>(),
        "goroutines": a.goroutines.iter().map(|g| json!({
            "dump": g.dump, "time": t(a.dumps[g.dump].time), "group": g.group, "count": g.count, "ids": g.ids,
            "state": g.state, "wait_minutes": g.max_wait_minutes, "min_wait_minutes": g.min_wait_minutes,
            "role": g.role, "controller": ctrl_id(g.controller), "reconciler": g.reconciler,
            "blocked_in": g.blocked_in.as_ref().map(|f| f.func.clone()),
            "blocked_in_at": g.blocked_in.as_ref().map(|f| format!("{}:{}", f.file, f.line)),
            "under": g.under.as_ref().map(|f| f.func.clone()),
            "blocked_since_at_most": t(g.blocked_since_at_most),
            "reconcile_id": g.reconcile.map(|i| a.reconciles[i].reconcile_id.clone()),
            "frames": g.frames.iter().map(|f| json!({"func": f.func, "file": f.file, "line": f.line})).collect::<Vec<_>>(),
            "created_by": g.created_by,
        })).collect::<Vec<_>>(),
    })
}
