//! Where records become reconciles, and reconciles find their controller
//! instance and worker lane.

use std::collections::{BTreeMap, HashMap};

use crate::analyze::model::{ControllerInstance, ObjectRef, Outcome, Reconcile, RecordRef};
use crate::analyze::AnalyzeOptions;
use crate::model::{Level, ParsedFile, Record, Timestamp};

/// controller-runtime's own messages: they occur in every controller's
/// reconciles, so they say nothing about which instance a reconcile is.
const RUNTIME_MESSAGES: &[&str] = &[
    "Reconciler error",
    "Reconciling",
    "Reconcile successful",
    "Reconcile done, requeueing",
    "Observed a panic",
    "Warning: Reconciler returned both",
];

fn is_runtime_message(m: &str) -> bool {
    RUNTIME_MESSAGES.iter().any(|p| m.starts_with(p))
}

/// A reconcile while it is being gathered.
struct Draft {
    controller_name: String,
    group: Option<String>,
    kind: Option<String>,
    object: Option<ObjectRef>,
    first: Timestamp,
    last: Timestamp,
    records: Vec<RecordRef>,
    error: Option<String>,
    has_error: bool,
    requeue: bool,
    /// Normalised messages, for telling controller instances apart.
    vocabulary: Vec<String>,
    first_message: String,
}

pub fn time_of(r: &Record) -> Option<Timestamp> {
    r.time.or(r.collected)
}

/// Replaces the object's name in a message, so `x has been reconciled`
/// and `y has been reconciled` are one word of the vocabulary.
fn normalise(msg: &str, name: Option<&str>) -> String {
    let m = match name {
        Some(n) if !n.is_empty() => msg.replace(n, "<name>"),
        _ => msg.to_string(),
    };
    m.chars().take(80).collect()
}

/// Groups every record with a `reconcileID` into reconciles, splits each
/// controller name into instances, and lays reconciles out in worker lanes.
pub fn build(files: &[ParsedFile], opts: &AnalyzeOptions) -> (Vec<ControllerInstance>, Vec<Reconcile>) {
    let mut drafts: Vec<Draft> = Vec::new();
    let mut by_id: HashMap<String, usize> = HashMap::new();
    let mut ids: Vec<String> = Vec::new();
    // Starting workers lines, per controller name, in order.
    let mut starting: BTreeMap<String, Vec<u32>> = BTreeMap::new();
    for (fi, f) in files.iter().enumerate() {
        for (ri, r) in f.records.iter().enumerate() {
            let Some(rid) = f.field(r, "reconcileID") else {
                if f.message(r) == "Starting workers" {
                    if let (Some(c), Some(n)) = (f.field(r, "controller"), f.field(r, "worker count")) {
                        if let Ok(n) = n.parse::<u32>() {
                            starting.entry(c.into_owned()).or_default().push(n);
                        }
                    }
                }
                continue;
            };
            let Some(t) = time_of(r) else { continue };
            let rref = RecordRef { file: fi as u32, record: ri as u32 };
            let msg = f.message(r);
            let idx = match by_id.get(rid.as_ref()) {
                Some(&i) => i,
                None => {
                    let name = f.field(r, "name").map(|s| s.into_owned());
                    let namespace = f.field(r, "namespace").map(|s| s.into_owned());
                    let object = name.map(|name| ObjectRef { namespace: namespace.filter(|n| !n.is_empty()), name });
                    drafts.push(Draft {
                        controller_name: f.field(r, "controller").map(|s| s.into_owned()).unwrap_or_else(|| "unknown".into()),
                        group: f.field(r, "controllerGroup").map(|s| s.into_owned()),
                        kind: f.field(r, "controllerKind").map(|s| s.into_owned()),
                        object,
                        first: t,
                        last: t,
                        records: Vec::new(),
                        error: None,
                        has_error: false,
                        requeue: false,
                        vocabulary: Vec::new(),
                        first_message: String::new(),
                    });
                    ids.push(rid.clone().into_owned());
                    by_id.insert(rid.into_owned(), drafts.len() - 1);
                    drafts.len() - 1
                }
            };
            let d = &mut drafts[idx];
            d.first = d.first.min(t);
            d.last = d.last.max(t);
            d.records.push(rref);
            let norm = normalise(&msg, d.object.as_ref().map(|o| o.name.as_str()));
            if d.first_message.is_empty() {
                d.first_message = norm.clone();
            }
            if r.level >= Level::Error || msg == "Reconciler error" {
                d.has_error = true;
                if d.error.is_none() || msg == "Reconciler error" {
                    let e = f.field(r, "error").map(|s| s.into_owned()).unwrap_or_else(|| msg.to_string());
                    if d.error.is_none() {
                        d.error = Some(format!("{msg}: {e}"));
                    }
                }
            }
            if msg.contains("requeue") || msg.contains("enqueuing back") || f.field(r, "requeueAfter").is_some() || f.field(r, "after").is_some() {
                d.requeue = true;
            }
            if !is_runtime_message(&msg) && !d.vocabulary.contains(&norm) {
                d.vocabulary.push(norm);
            }
        }
    }
    let coverage = coverage(files);
    let instance_of = split_instances(&drafts);
    let mut controllers = name_instances(&drafts, &instance_of);
    let mut reconciles: Vec<Reconcile> = drafts
        .into_iter()
        .zip(ids)
        .enumerate()
        .map(|(i, (d, id))| {
            let truncated = d.records.first().is_some_and(|r| {
                let (lo, hi) = coverage[r.file as usize];
                // The file's first or last record belongs to this reconcile.
                d.records.iter().any(|x| x.record == lo || x.record == hi)
            });
            Reconcile {
                reconcile_id: id,
                controller: instance_of[i],
                object: d.object,
                kind: d.kind,
                first: d.first,
                last: d.last,
                latent_start: None,
                lines: d.records.len() as u32,
                outcome: if d.has_error {
                    Outcome::Error
                } else if d.requeue {
                    Outcome::Requeue
                } else {
                    Outcome::Success
                },
                error: d.error,
                truncated,
                lane: 0,
                records: d.records,
            }
        })
        .collect();
    assign_workers(&mut controllers, &reconciles, &starting, opts);
    lay_out_lanes(&controllers, &mut reconciles, files);
    for c in controllers.iter_mut() {
        c.reconciles = 0;
    }
    for r in &reconciles {
        controllers[r.controller].reconciles += 1;
    }
    (controllers, reconciles)
}

/// For each file, the first and last record index that carry a time.
fn coverage(files: &[ParsedFile]) -> Vec<(u32, u32)> {
    files
        .iter()
        .map(|f| {
            let lo = f.records.iter().position(|r| time_of(r).is_some()).unwrap_or(0);
            let hi = f.records.iter().rposition(|r| time_of(r).is_some()).unwrap_or(0);
            (lo as u32, hi as u32)
        })
        .collect()
}

/// Union-find over reconciles of one controller name: two reconciles that
/// share a message belong to the same instance. Small groups that share
/// nothing with anyone (an error-only reconcile) join the largest group.
/// Returns, per draft, its instance number (global, dense).
fn split_instances(drafts: &[Draft]) -> Vec<usize> {
    let mut parent: Vec<usize> = (0..drafts.len()).collect();
    fn find(p: &mut [usize], mut x: usize) -> usize {
        while p[x] != x {
            p[x] = p[p[x]];
            x = p[x];
        }
        x
    }
    let mut owner: HashMap<(&str, &str), usize> = HashMap::new();
    for (i, d) in drafts.iter().enumerate() {
        for w in &d.vocabulary {
            match owner.get(&(d.controller_name.as_str(), w.as_str())) {
                Some(&j) => {
                    let (a, b) = (find(&mut parent, i), find(&mut parent, j));
                    if a != b {
                        parent[a] = b;
                    }
                }
                None => {
                    owner.insert((d.controller_name.as_str(), w.as_str()), i);
                }
            }
        }
    }
    // Group sizes per controller name.
    let mut groups: BTreeMap<(&str, usize), Vec<usize>> = BTreeMap::new();
    for (i, d) in drafts.iter().enumerate() {
        let root = find(&mut parent, i);
        groups.entry((d.controller_name.as_str(), root)).or_default().push(i);
    }
    let mut by_name: BTreeMap<&str, Vec<Vec<usize>>> = BTreeMap::new();
    for ((name, _), members) in groups {
        by_name.entry(name).or_default().push(members);
    }
    let mut out = vec![0usize; drafts.len()];
    let mut next = 0usize;
    for (_, mut gs) in by_name {
        // Largest first; ties by earliest member for a stable order.
        gs.sort_by_key(|g| (std::cmp::Reverse(g.len()), g[0]));
        let largest = gs.first().map_or(0, Vec::len);
        let main = next;
        next += 1;
        for (k, g) in gs.iter().enumerate() {
            // A group is an instance of its own when its vocabulary names a
            // known role, or when it is big next to the largest; any other
            // group (a deletion path, an error-only reconcile) is the main
            // instance taking a branch its other reconciles did not log.
            let role = g.iter().any(|&m| drafts[m].vocabulary.iter().any(|w| role_of(w).is_some()));
            let big = g.len() >= 5 && g.len() * 4 >= largest;
            let id = if k == 0 {
                main
            } else if role || big {
                next += 1;
                next - 1
            } else {
                main
            };
            for &m in g {
                out[m] = id;
            }
        }
    }
    out
}

/// A small table of controller roles people know by name, keyed by words
/// of their messages. Only a nicer name and a hint for splitting: the split
/// works without it.
const KNOWN_ROLES: &[(&str, &str)] = &[("soot manager", "soot manager")];

fn role_of(message: &str) -> Option<&'static str> {
    KNOWN_ROLES.iter().find(|(needle, _)| message.contains(needle)).map(|(_, role)| *role)
}

/// Builds the instance list with readable names.
fn name_instances(drafts: &[Draft], instance_of: &[usize]) -> Vec<ControllerInstance> {
    let n = instance_of.iter().copied().max().map_or(0, |m| m + 1);
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, &c) in instance_of.iter().enumerate() {
        members[c].push(i);
    }
    let mut out = Vec::with_capacity(n);
    let mut seen_names: BTreeMap<String, usize> = BTreeMap::new();
    for ms in members.iter() {
        let d0 = &drafts[ms[0]];
        let k = seen_names.entry(d0.controller_name.clone()).or_insert(0);
        *k += 1;
        let ordinal = *k;
        let id = if ordinal == 1 { d0.controller_name.clone() } else { format!("{}#{}", d0.controller_name, ordinal) };
        let name = if ordinal == 1 { d0.controller_name.clone() } else { format!("{} ({})", d0.controller_name, signature(drafts, ms)) };
        out.push(ControllerInstance {
            id,
            name,
            controller: d0.controller_name.clone(),
            group: d0.group.clone(),
            kind: d0.kind.clone(),
            workers: 1,
            workers_source: "inferred",
            reconciles: ms.len(),
        });
    }
    out
}

/// What distinguishes an instance: a known role, or its commonest message.
fn signature(drafts: &[Draft], members: &[usize]) -> String {
    let mut freq: BTreeMap<&str, usize> = BTreeMap::new();
    for &m in members {
        for w in &drafts[m].vocabulary {
            *freq.entry(w.as_str()).or_insert(0) += 1;
        }
    }
    let top = freq.iter().max_by_key(|(w, n)| (**n, std::cmp::Reverse(**w))).map(|(w, _)| *w).unwrap_or("");
    if let Some(role) = freq.keys().find_map(|w| role_of(w)) {
        return role.to_string();
    }
    let words: Vec<&str> = top.split_whitespace().take(4).collect();
    format!("\u{201c}{}\u{2026}\u{201d}", words.join(" "))
}

/// Worker counts: `--workers` first, then `Starting workers` lines (in
/// order of the instances' first reconcile), else the most reconciles seen
/// in flight at once.
fn assign_workers(controllers: &mut [ControllerInstance], reconciles: &[Reconcile], starting: &BTreeMap<String, Vec<u32>>, opts: &AnalyzeOptions) {
    let mut first_seen: Vec<Option<Timestamp>> = vec![None; controllers.len()];
    for r in reconciles {
        let f = &mut first_seen[r.controller];
        *f = Some(f.map_or(r.first, |x| x.min(r.first)));
    }
    let mut order: Vec<usize> = (0..controllers.len()).collect();
    order.sort_by_key(|&i| (controllers[i].controller.clone(), first_seen[i]));
    let mut used: BTreeMap<String, usize> = BTreeMap::new();
    for i in order {
        let c = &mut controllers[i];
        if let Some(n) = opts.workers.get(&c.id).or_else(|| opts.workers.get(&c.controller)) {
            c.workers = (*n).max(1);
            c.workers_source = "option";
            continue;
        }
        if let Some(list) = starting.get(&c.controller) {
            let k = used.entry(c.controller.clone()).or_insert(0);
            if let Some(n) = list.get(*k).or(list.last()) {
                c.workers = (*n).max(1);
                c.workers_source = "log";
                *k += 1;
                continue;
            }
        }
        // Inferred: the peak of reconciles in flight.
        let mut ev: Vec<(Timestamp, i32)> = Vec::new();
        for r in reconciles.iter().filter(|r| r.controller == i) {
            ev.push((r.first, 1));
            ev.push((r.last, -1));
        }
        // At equal times an end comes before a start: second-precision
        // logs make back-to-back reconciles touch.
        ev.sort_by_key(|&(t, d)| (t, d));
        let (mut cur, mut peak) = (0i32, 1i32);
        for (_, d) in ev {
            cur += d;
            peak = peak.max(cur);
        }
        c.workers = peak.max(1) as u32;
        c.workers_source = "inferred";
    }
}

/// Lays each instance's reconciles into at most `workers` lanes, and gives a
/// latent start to reconciles whose first line came late.
fn lay_out_lanes(controllers: &[ControllerInstance], reconciles: &mut [Reconcile], files: &[ParsedFile]) {
    let order_key = |r: &Reconcile| (r.first, r.records.first().copied());
    for (ci, c) in controllers.iter().enumerate() {
        let mut idx: Vec<usize> = (0..reconciles.len()).filter(|&i| reconciles[i].controller == ci).collect();
        idx.sort_by_key(|&i| order_key(&reconciles[i]));
        // Which messages open reconciles of this instance: a reconcile whose
        // first message is usually not a first line started earlier.
        let mut opens: HashMap<String, (u32, u32)> = HashMap::new();
        for &i in &idx {
            let r = &reconciles[i];
            for (k, rr) in r.records.iter().enumerate() {
                let f = &files[rr.file as usize];
                let m = normalise(&f.message(&f.records[rr.record as usize]), r.object.as_ref().map(|o| o.name.as_str()));
                let e = opens.entry(m).or_insert((0, 0));
                e.1 += 1;
                if k == 0 {
                    e.0 += 1;
                }
            }
        }
        let mut lanes: Vec<Option<Timestamp>> = vec![None; c.workers.max(1) as usize];
        for &i in &idx {
            let r = &reconciles[i];
            // Best fit: the free lane that freed up last; else the lane that
            // frees up first.
            let lane = lanes
                .iter()
                .enumerate()
                .filter(|(_, f)| f.is_none_or(|t| t <= r.first))
                .max_by_key(|(_, f)| *f)
                .or_else(|| lanes.iter().enumerate().min_by_key(|(_, f)| *f))
                .map_or(0, |(l, _)| l);
            let prev_end = lanes[lane];
            let first_rec = r.records[0];
            let f = &files[first_rec.file as usize];
            let rec = &f.records[first_rec.record as usize];
            let m = normalise(&f.message(rec), r.object.as_ref().map(|o| o.name.as_str()));
            let opens_here = opens.get(&m).is_some_and(|(first, total)| first * 2 >= *total && *first > 0);
            let late = rec.level >= Level::Error || !opens_here;
            let r = &mut reconciles[i];
            r.lane = lane as u32;
            if late {
                if let Some(p) = prev_end {
                    if p < r.first {
                        r.latent_start = Some(p);
                    }
                }
            }
            lanes[lane] = Some(lanes[lane].map_or(r.last, |t| t.max(r.last)));
        }
    }
}
