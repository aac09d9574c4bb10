//! The `reconscope.analysis/v1` JSON document (`reconscope analyze --json`).
//! Times are RFC3339 in UTC at the precision the source had; unknown
//! values are `null`.

use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;
use serde_json::{json, Value};

use crate::analyze::model::{Analysis, ControllerInstance, Detail, Election, Finding, FindingKind, GoroutineDump, GoroutineGroup, ObjectLifecycle, Reconcile};
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

/// What the CLI adds to the document: each finding's evidence link
/// (`findings[].link`, present when given) and the run's notes (`notes`,
/// present when given).
#[derive(Clone, Copy, Debug, Default)]
pub struct Extras<'a> {
    pub links: Option<&'a [Option<String>]>,
    pub notes: Option<&'a [String]>,
}

/// The whole document as a value (for tests and library users; the CLI
/// streams it with [`write_json`]).
pub fn to_json(inputs: &[FileStats], a: &Analysis) -> Value {
    serde_json::to_value(Doc { inputs, a, extras: Extras::default() }).unwrap_or(Value::Null)
}

/// Writes the document to `w` as it serialises it, one element at a time
/// (never the whole document in memory), pretty-printed with its keys in
/// order. Give `w` a buffer: serde_json writes in small pieces.
pub fn write_json<W: std::io::Write>(w: W, inputs: &[FileStats], a: &Analysis, extras: Extras<'_>) -> serde_json::Result<()> {
    let mut ser = serde_json::Serializer::pretty(w);
    Doc { inputs, a, extras }.serialize(&mut ser)
}

struct Doc<'a> {
    inputs: &'a [FileStats],
    a: &'a Analysis,
    extras: Extras<'a>,
}

/// A list serialised as its items are made.
struct Seq<F>(F);

impl<F, I> Serialize for Seq<F>
where
    F: Fn() -> I,
    I: Iterator<Item = Value>,
{
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq((self.0)())
    }
}

impl Serialize for Doc<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let a = self.a;
        // Keys in order, as serde_json's own maps have them.
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("controllers", &Seq(|| a.controllers.iter().map(controller)))?;
        m.serialize_entry("coverage", &coverage(a))?;
        m.serialize_entry("dumps", &Seq(|| a.dumps.iter().map(dump)))?;
        m.serialize_entry("elections", &Seq(|| a.elections.iter().map(election)))?;
        let links = self.extras.links;
        m.serialize_entry(
            "findings",
            &Seq(|| {
                a.findings.iter().enumerate().map(move |(i, f)| {
                    let mut v = finding(a, f);
                    if let Some(links) = links {
                        v["link"] = json!(links.get(i).cloned().flatten());
                    }
                    v
                })
            }),
        )?;
        m.serialize_entry("goroutines", &Seq(|| a.goroutines.iter().map(|g| goroutine(a, g))))?;
        // Reconciles in flight against the workers, per bucket of the run.
        m.serialize_entry(
            "in_flight",
            &Seq(|| {
                a.in_flight.iter().map(|l| {
                    json!({
                        "controller_instance": a.controllers.get(l.controller).map(|c| &c.id), "workers": l.workers,
                        "start": l.start.to_string(), "bucket_nanos": l.bucket_nanos, "peak": l.peak, "peaks": l.peaks,
                    })
                })
            }),
        )?;
        // (Through a value, for its keys in order too.)
        m.serialize_entry("inputs", &Seq(|| self.inputs.iter().map(|i| serde_json::to_value(i).unwrap_or(Value::Null))))?;
        // When each manager held its leader lease.
        m.serialize_entry("leadership", &Seq(|| a.leadership.iter().map(|l| json!({"source": l.source, "acquired": t(Some(l.acquired)), "lost": t(l.lost)}))))?;
        if let Some(notes) = self.extras.notes {
            m.serialize_entry("notes", notes)?;
        }
        m.serialize_entry("objects", &Seq(|| a.objects.iter().map(object)))?;
        m.serialize_entry("reconciles", &SeqOf(|| a.reconciles.iter().map(|r| reconcile_doc(a, r))))?;
        m.serialize_entry("schema", SCHEMA)?;
        // false: the logs gave no year; times are `--MM-DDThh:mm:ssZ`.
        m.serialize_entry("year_known", &!a.year_unknown)?;
        m.end()
    }
}

/// A controller no line names is `null` (its instance id is still given
/// as `controller_instance`).
fn ctrl_id(a: &Analysis, i: Option<usize>) -> Value {
    i.filter(|&i| a.controllers[i].is_named()).map_or(Value::Null, |i| Value::String(a.controllers[i].id.clone()))
}

fn controller(c: &ControllerInstance) -> Value {
    json!({
        "id": c.id, "name": c.is_named().then_some(&c.name), "group": c.group, "kind": c.kind,
        "workers": c.workers, "workers_source": c.workers_source, "reconciles": c.reconciles,
    })
}

/// A timestamp written as its text without a `String` of its own.
struct Ts(Timestamp);

impl Serialize for Ts {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&self.0)
    }
}

/// A reconcile as the document writes it: fields in key order (the order
/// serde_json's maps give the other elements), borrowed, so the longest
/// list of the document is written without a map per element.
#[derive(Serialize)]
struct ReconcileDoc<'a> {
    controller: Option<&'a str>,
    controller_instance: &'a str,
    duration_nanos: Option<i64>,
    duration_nanos_at_least: Option<i64>,
    duration_nanos_at_most: Option<i64>,
    error: &'a Option<String>,
    first: Ts,
    lane: u32,
    last: Ts,
    latent_start: Option<Ts>,
    lines: u32,
    object: Option<String>,
    outcome: crate::analyze::model::Outcome,
    reconcile_id: &'a str,
    truncated: bool,
}

fn reconcile_doc<'a>(a: &'a Analysis, r: &'a Reconcile) -> ReconcileDoc<'a> {
    // first → last; none for one line.
    let g = (!r.is_one_line()).then(|| Gap::between(r.first, r.last));
    let (lo, hi) = g.filter(|g| !g.is_exact()).map_or((None, None), |g| (Some(g.at_least), Some(g.at_most)));
    let c = &a.controllers[r.controller];
    ReconcileDoc {
        controller: c.is_named().then_some(c.id.as_str()),
        controller_instance: &c.id,
        duration_nanos: g.map(|g| g.nanos),
        duration_nanos_at_least: lo,
        duration_nanos_at_most: hi,
        error: &r.error,
        first: Ts(r.first),
        lane: r.lane,
        last: Ts(r.last),
        latent_start: r.latent_start.map(Ts),
        lines: r.lines,
        object: r.object.as_ref().map(|o| o.to_string()),
        outcome: r.outcome,
        reconcile_id: &r.reconcile_id,
        truncated: r.truncated,
    }
}

/// A list serialised as its items are made (items of any type).
struct SeqOf<F>(F);

impl<F, I, T> Serialize for SeqOf<F>
where
    F: Fn() -> I,
    I: Iterator<Item = T>,
    T: Serialize,
{
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq((self.0)())
    }
}

/// What the logs cover (see [`crate::analyze::coverage`]).
fn coverage(a: &Analysis) -> Value {
    let c = &a.coverage;
    json!({
        "etcd": c.etcd,
        "etcd_logs": c.etcd_logs,
        "missing": c.missing.iter().map(|m| json!({"kind": m.kind, "path": m.path, "message": m.message})).collect::<Vec<_>>(),
        "sources": c.sources.iter().map(|s| json!({
            "path": s.path, "files": s.files, "pod": s.pod, "container": s.container,
            "first": t(Some(s.first)), "last": t(Some(s.last)), "lines": s.lines,
            "normal_gap_nanos": s.normal_gap_nanos,
            "gaps": s.gaps.iter().map(|g| json!({"start": t(Some(g.start)), "end": t(Some(g.end)), "nanos": g.end.nanos - g.start.nanos})).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "uncovered": c.uncovered.iter().map(|u| json!({
            "controller": ctrl_id(a, Some(u.controller)), "controller_instance": a.controllers.get(u.controller).map(|c| c.id.clone()),
            "lane": u.lane, "reconcile_id": u.reconcile_id,
            "source": u.silence.source, "start": t(Some(u.silence.start)), "end": t(Some(u.silence.end)),
            "other_lines": u.silence.other_lines, "message": u.message,
        })).collect::<Vec<_>>(),
    })
}

fn election(e: &Election) -> Value {
    json!({
        "cluster": e.cluster, "term": e.term, "start": t(Some(e.start)), "end": t(e.end),
        "leader": e.leader, "previous_leader": e.previous_leader,
        "leaderless_nanos": e.leaderless_nanos, "transfers": e.transfers, "open": e.end.is_none(),
    })
}

fn object(o: &ObjectLifecycle) -> Value {
    json!({
        "object": o.object.to_string(), "kind": o.kind, "created": t(o.created),
        "updates": o.updates.iter().map(|u| u.to_string()).collect::<Vec<_>>(),
        "deletion_requested": t(o.deletion_requested.or(o.marked_for_deletion)),
        "deleted": t(o.deleted),
        "deletion_latency_nanos": o.deleted.zip(o.deletion_requested.or(o.marked_for_deletion)).map(|(d, r)| d.nanos - r.nanos),
        "finalizers": o.finalizers,
        "generation": o.generation, "observed_generation": o.observed_generation,
    })
}

fn finding(a: &Analysis, f: &Finding) -> Value {
    // An expired context: its start to the DeadlineExceeded line.
    let gap = (f.kind == FindingKind::ExpiredContext).then(|| Gap::between(f.start, f.end));
    let (lo, hi) = gap.map_or((Value::Null, Value::Null), bounds);
    let mut v = json!({
        "kind": f.kind, "severity": f.severity, "controller": ctrl_id(a, f.controller),
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
    });
    // Only on a finding that rests on a silence (a stalled worker).
    if let Some(sl) = &f.silence {
        v["silence"] = json!(if sl.covered { "covered" } else { "not_covered" });
        v["silence_source"] = json!(sl.source);
        v["silence_other_lines"] = json!(sl.other_lines);
    }
    // Only on findings of those kinds: the others' documents stay as they were.
    match f.detail.as_deref() {
        Some(Detail::Throttle(d)) => {
            v["throttle"] = json!({
                "source": d.source, "count": d.count, "waits": d.waits, "too_many_requests": d.too_many_requests,
                "longest_wait_nanos": d.longest_wait_nanos, "total_wait_nanos": d.total_wait_nanos,
                "resources": d.resources.iter().map(|r| json!({"resource": r.resource, "count": r.count})).collect::<Vec<_>>(),
                "reconciles_overlapping": d.reconciles_overlapping,
            })
        }
        Some(Detail::Lease(d)) => {
            v["lease"] = json!({
                "source": d.source, "lease": d.lease, "acquired": t(d.acquired), "lost": t(Some(d.lost)), "said": d.said,
                "renew_failures": d.renew_failures, "stopped": t(d.stopped),
                "last_reconcile_id": d.last_reconcile_id, "last_reconcile_end": t(d.last_reconcile_end),
            })
        }
        Some(Detail::Restart(d)) => {
            v["restart"] = json!({
                "previous": d.previous, "current": d.current, "previous_end": t(Some(d.previous_end)),
                "previous_exit": d.previous_exit, "started": t(Some(d.started)), "acquired": t(d.acquired), "resumed": t(d.resumed),
                "cut_off": d.cut_off,
            })
        }
        Some(Detail::Saturation(d)) => {
            v["saturation"] = json!({
                "workers": d.workers, "normal_nanos": d.normal_nanos, "held": d.held,
                "waited": d.waited.iter().map(|w| json!({"object": w.object, "reconcile_id": w.reconcile_id, "estimated_wait_nanos": w.estimated_wait_nanos})).collect::<Vec<_>>(),
            })
        }
        None => {}
    }
    v
}

fn dump(d: &GoroutineDump) -> Value {
    json!({
        "path": d.path, "first_line": d.first_line, "last_line": d.last_line, "kind": d.kind,
        "preamble": d.preamble, "goroutines": d.goroutines, "time": t(d.time), "time_source": d.time_source,
        "notes": d.notes,
    })
}

fn goroutine(a: &Analysis, g: &GoroutineGroup) -> Value {
    json!({
        "dump": g.dump, "time": t(a.dumps[g.dump].time), "group": g.group, "count": g.count, "ids": g.ids,
        "state": g.state, "wait_minutes": g.max_wait_minutes, "min_wait_minutes": g.min_wait_minutes,
        "role": g.role, "controller": ctrl_id(a, g.controller), "reconciler": g.reconciler,
        "blocked_in": g.blocked_in.as_ref().map(|f| f.func.clone()),
        "blocked_in_at": g.blocked_in.as_ref().map(|f| format!("{}:{}", f.file, f.line)),
        "under": g.under.as_ref().map(|f| f.func.clone()),
        "blocked_since_at_most": t(g.blocked_since_at_most),
        "reconcile_id": g.reconcile.map(|i| a.reconciles[i].reconcile_id.clone()),
        "frames": g.frames.iter().map(|f| json!({"func": f.func, "file": f.file, "line": f.line})).collect::<Vec<_>>(),
        "created_by": g.created_by,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The streamed document is, byte for byte, the value the library gives
    /// with the CLI's links and notes put in, pretty-printed.
    #[test]
    fn the_streamed_document_is_the_value_pretty_printed() {
        let text = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/incident/cozyreport/kamaji/kamaji-controller.log")).unwrap();
        let mut loaded = crate::pipeline::Loaded::default();
        loaded.add("kamaji-controller.log", text, &crate::pipeline::LoadOptions::default());
        loaded.finish();
        let (a, _) = crate::analyze::analyze(&loaded.files, &crate::analyze::AnalyzeOptions::default());
        assert!(!a.findings.is_empty());
        let inputs: Vec<FileStats> = loaded.files.iter().map(FileStats::of).collect();
        let links: Vec<Option<String>> = (0..a.findings.len()).map(|i| (i % 2 == 0).then(|| format!("https://x.example/#ev={i}"))).collect();
        let notes = vec!["a note".to_string()];
        let mut streamed = Vec::new();
        write_json(&mut streamed, &inputs, &a, Extras { links: Some(&links), notes: Some(&notes) }).unwrap();
        let mut doc = to_json(&inputs, &a);
        for (i, f) in doc["findings"].as_array_mut().unwrap().iter_mut().enumerate() {
            f["link"] = json!(links[i]);
        }
        doc["notes"] = json!(notes);
        assert_eq!(String::from_utf8(streamed).unwrap(), serde_json::to_string_pretty(&doc).unwrap());
        // The reconciles, written from a struct, are what a map per
        // element gives.
        let by_map: Vec<Value> = a
            .reconciles
            .iter()
            .map(|r| {
                let g = (!r.is_one_line()).then(|| Gap::between(r.first, r.last));
                let (lo, hi) = g.map_or((Value::Null, Value::Null), bounds);
                json!({
                    "reconcile_id": r.reconcile_id,
                    "controller": ctrl_id(&a, Some(r.controller)), "controller_instance": a.controllers[r.controller].id,
                    "object": r.object.as_ref().map(|o| o.to_string()),
                    "first": t(Some(r.first)), "last": t(Some(r.last)), "latent_start": t(r.latent_start),
                    "lines": r.lines, "outcome": r.outcome, "error": r.error, "truncated": r.truncated, "lane": r.lane,
                    "duration_nanos": g.map(|g| g.nanos), "duration_nanos_at_least": lo, "duration_nanos_at_most": hi,
                })
            })
            .collect();
        assert!(a.reconciles.iter().any(|r| r.latent_start.is_some()) && a.reconciles.iter().any(|r| r.error.is_some()));
        assert_eq!(serde_json::to_string_pretty(&doc["reconciles"]).unwrap(), serde_json::to_string_pretty(&by_map).unwrap());
    }
}
