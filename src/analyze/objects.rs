//! Object lifecycles, from the logs and from object dumps (`kubectl get -o
//! yaml|json`: a List or single objects).

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::analyze::model::{ObjectLifecycle, ObjectRef, Reconcile};
use crate::analyze::reconciles::{Deletion, DeletionStep};
use crate::model::{Diagnostic, ParsedFile, Timestamp};
use crate::time::parse_rfc3339;

/// Is this file an object dump rather than a log?
pub fn is_object_dump(f: &ParsedFile) -> bool {
    let p = f.path.to_ascii_lowercase();
    let ext = p.ends_with(".yaml") || p.ends_with(".yml") || p.ends_with(".json");
    if !ext {
        return false;
    }
    let head = f.bytes.get(0..f.bytes.len().min(4096)).unwrap_or_default();
    let head = String::from_utf8_lossy(&head);
    head.contains("apiVersion") && head.contains("kind")
}

fn ts(v: &serde_json::Value) -> Option<Timestamp> {
    parse_rfc3339(v.as_str()?.as_bytes(), false, 0).map(|p| p.ts)
}

fn add_object(map: &mut BTreeMap<ObjectRef, ObjectLifecycle>, v: &serde_json::Value) {
    if let Some(items) = v.get("items").and_then(|i| i.as_array()) {
        for it in items {
            add_object(map, it);
        }
        return;
    }
    let Some(meta) = v.get("metadata") else { return };
    let Some(name) = meta.get("name").and_then(|n| n.as_str()) else { return };
    let object = ObjectRef { namespace: meta.get("namespace").and_then(|n| n.as_str()).map(str::to_string), name: name.to_string() };
    let o = map.entry(object.clone()).or_insert_with(|| ObjectLifecycle { object, ..Default::default() });
    o.in_dump = true;
    o.kind = v.get("kind").and_then(|k| k.as_str()).map(str::to_string).or(o.kind.take());
    o.created = meta.get("creationTimestamp").and_then(ts).or(o.created);
    if let Some(d) = meta.get("deletionTimestamp").and_then(ts) {
        o.deletion_requested = Some(d);
    }
    o.finalizers =
        meta.get("finalizers").and_then(|f| f.as_array()).map(|a| a.iter().filter_map(|x| x.as_str().map(str::to_string)).collect()).unwrap_or_default();
    o.generation = meta.get("generation").and_then(|g| g.as_i64()).or(o.generation);
    o.observed_generation = v.get("status").and_then(|s| s.get("observedGeneration")).and_then(|g| g.as_i64()).or(o.observed_generation);
    if let Some(mf) = meta.get("managedFields").and_then(|m| m.as_array()) {
        for m in mf {
            if let Some(t) = m.get("time").and_then(ts) {
                if !o.updates.contains(&t) {
                    o.updates.push(t);
                }
            }
        }
        o.updates.sort();
    }
}

/// Reads every object in a dump file. Problems become diagnostics.
fn read_dump(f: &ParsedFile, map: &mut BTreeMap<ObjectRef, ObjectLifecycle>, diags: &mut Vec<Diagnostic>) {
    let bytes = f.bytes.whole();
    let text = String::from_utf8_lossy(&bytes);
    if text.trim_start().starts_with('{') {
        match serde_json::from_str::<serde_json::Value>(&text) {
            Ok(v) => add_object(map, &v),
            Err(e) => diags.push(Diagnostic { path: f.path.clone(), line: Some(e.line() as u32), message: format!("not a readable object dump: {e}") }),
        }
        return;
    }
    for doc in serde_yaml::Deserializer::from_str(&text) {
        match serde_json::Value::deserialize(doc) {
            Ok(v) => add_object(map, &v),
            Err(e) => {
                diags.push(Diagnostic {
                    path: f.path.clone(),
                    line: e.location().map(|l| l.line() as u32),
                    message: format!("not a readable object dump: {e}"),
                });
                break;
            }
        }
    }
}

/// Builds lifecycles from dumps and from the deletion steps the reconciles
/// logged.
pub fn build(files: &[ParsedFile], reconciles: &[Reconcile], deletions: &[DeletionStep], diags: &mut Vec<Diagnostic>) -> Vec<ObjectLifecycle> {
    let mut map: BTreeMap<ObjectRef, ObjectLifecycle> = BTreeMap::new();
    for f in files.iter().filter(|f| is_object_dump(f)) {
        read_dump(f, &mut map, diags);
    }
    let mut steps = deletions.to_vec();
    // In time order, so a completion is only counted after a request.
    steps.sort_by_key(|&(i, t, _)| (t, i));
    for (i, t, step) in steps {
        let r = &reconciles[i];
        let Some(obj) = &r.object else { continue };
        let kind = || r.kind.as_deref().map(str::to_string);
        let o = map.entry((**obj).clone()).or_insert_with(|| ObjectLifecycle { object: (**obj).clone(), kind: kind(), ..Default::default() });
        if o.kind.is_none() {
            o.kind = kind();
        }
        match step {
            Deletion::Requested => o.marked_for_deletion = Some(o.marked_for_deletion.map_or(t, |x| x.min(t))),
            Deletion::Completed if o.marked_for_deletion.is_some() => o.deleted = Some(o.deleted.map_or(t, |x| x.min(t))),
            Deletion::Completed => {}
        }
    }
    map.into_values().collect()
}
