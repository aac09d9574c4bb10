//! The `reconscope.analysis/v1` JSON document (`reconscope analyze --json`).
//! Times are RFC3339 in UTC at the precision the source had; unknown
//! values are `null`.

use serde_json::{json, Value};

use crate::analyze::model::Analysis;
use crate::model::Timestamp;
use crate::stats::FileStats;

pub const SCHEMA: &str = "reconscope.analysis/v1";

fn t(ts: Option<Timestamp>) -> Value {
    ts.map_or(Value::Null, |t| Value::String(t.to_string()))
}

pub fn to_json(inputs: &[FileStats], a: &Analysis) -> Value {
    let ctrl_id = |i: Option<usize>| i.map_or(Value::Null, |i| Value::String(a.controllers[i].id.clone()));
    json!({
        "schema": SCHEMA,
        "inputs": inputs,
        "controllers": a.controllers.iter().map(|c| json!({
            "id": c.id, "name": c.name, "group": c.group, "kind": c.kind,
            "workers": c.workers, "workers_source": c.workers_source, "reconciles": c.reconciles,
        })).collect::<Vec<_>>(),
        "reconciles": a.reconciles.iter().map(|r| json!({
            "reconcile_id": r.reconcile_id,
            "controller": a.controllers[r.controller].id,
            "object": r.object.as_ref().map(|o| o.to_string()),
            "first": t(Some(r.first)), "last": t(Some(r.last)), "latent_start": t(r.latent_start),
            "lines": r.lines, "outcome": r.outcome, "error": r.error, "truncated": r.truncated, "lane": r.lane,
        })).collect::<Vec<_>>(),
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
        "findings": a.findings.iter().map(|f| json!({
            "kind": f.kind, "severity": f.severity, "controller": ctrl_id(f.controller),
            "object": f.object.as_ref().map(|o| o.to_string()),
            "start": t(Some(f.start)), "end": t(Some(f.end)),
            "reconcile_ids": f.reconciles.iter().map(|&i| a.reconciles[i].reconcile_id.clone()).collect::<Vec<_>>(),
            "elections": f.elections,
            "message": f.message,
        })).collect::<Vec<_>>(),
    })
}
