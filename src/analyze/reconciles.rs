//! Where records become reconciles, and reconciles find their controller
//! instance and worker lane.

use std::collections::BTreeMap;
use std::sync::Arc;

use rustc_hash::FxHashMap as HashMap;

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
    controller_name: Arc<str>,
    group: Option<Arc<str>>,
    kind: Option<Arc<str>>,
    object: Option<Arc<ObjectRef>>,
    first: Timestamp,
    last: Timestamp,
    /// The first error line: where, and its text.
    error: Option<(RecordRef, String)>,
    requeue: bool,
}

/// Interns normalised messages: each distinct (message, object name) pair
/// is normalised once, whatever the number of records.
#[derive(Default)]
struct Vocab<'a> {
    /// By raw message: the same text is the same word, whichever object's
    /// name it was normalised with first.
    raw: HashMap<&'a [u8], u32>,
    ids: HashMap<String, u32>,
    words: Vec<String>,
    /// controller-runtime's own message.
    runtime: Vec<bool>,
    /// The message asks for a requeue.
    requeue: Vec<bool>,
    /// The message is a step of a deletion (see [`Deletion`]).
    deletion: Vec<Option<Deletion>>,
}

/// A log line that marks a step of an object's deletion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Deletion {
    /// `marked for deletion, performing clean-up`
    Requested,
    /// `resource deletions have been completed`, `resource may have been deleted`
    Completed,
}

impl Deletion {
    fn of(message: &str) -> Option<Deletion> {
        if message.starts_with("marked for deletion") {
            Some(Deletion::Requested)
        } else if message.starts_with("resource deletions have been completed")
            || message.starts_with("resource may have been deleted")
            || message.starts_with("resource have been deleted")
        {
            Some(Deletion::Completed)
        } else {
            None
        }
    }
}

/// A deletion step seen in a reconcile: reconcile index, time, step.
pub type DeletionStep = (usize, Timestamp, Deletion);

impl<'a> Vocab<'a> {
    /// The id of a normalised message, added if new.
    fn add(&mut self, norm: String, requeue: bool) -> u32 {
        let next = self.words.len() as u32;
        let w = *self.ids.entry(norm.clone()).or_insert(next);
        if w == next {
            self.runtime.push(is_runtime_message(&norm));
            self.requeue.push(requeue);
            self.deletion.push(Deletion::of(&norm));
            self.words.push(norm);
        }
        w
    }

    fn word(&mut self, f: &ParsedFile, r: &'a Record, raw: &'a [u8], name: Option<&str>) -> u32 {
        if let Some(&w) = self.raw.get(raw) {
            return w;
        }
        let norm = normalise(&f.message(r), name);
        let requeue = norm.contains("requeue") || norm.contains("enqueuing back");
        let w = self.add(norm, requeue);
        self.raw.insert(raw, w);
        w
    }
}

pub fn time_of(r: &Record) -> Option<Timestamp> {
    r.time.or(r.collected)
}

/// The 128 bits of a UUID written `8-4-4-4-12` in hex, or `None`.
fn uuid_bits(s: &[u8]) -> Option<u128> {
    if s.len() != 36 {
        return None;
    }
    let mut v: u128 = 0;
    for (i, &b) in s.iter().enumerate() {
        if matches!(i, 8 | 13 | 18 | 23) {
            if b != b'-' {
                return None;
            }
            continue;
        }
        let d = match b {
            b'0'..=b'9' => b - b'0',
            b'a'..=b'f' => b - b'a' + 10,
            b'A'..=b'F' => b - b'A' + 10,
            _ => return None,
        };
        v = v << 4 | d as u128;
    }
    Some(v)
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

/// One thread's gathering over a share of the records.
#[derive(Default)]
struct Gather<'a> {
    drafts: Vec<Draft>,
    ids: Vec<String>,
    /// Reconcile ids are UUIDs: keyed as 128-bit numbers (exact, and cheap
    /// to compare); any other id by its bytes.
    by_uuid: HashMap<u128, usize>,
    by_id: HashMap<&'a [u8], usize>,
    /// Objects and controller strings, made once and shared by reconciles.
    objects: HashMap<(&'a [u8], &'a [u8]), Arc<ObjectRef>>,
    strings: HashMap<&'a [u8], Arc<str>>,
    vocab: Vocab<'a>,
    /// `Starting workers` lines, in order: controller, count.
    starting: Vec<(String, u32)>,
    /// Deletion steps, by draft index.
    deletions: Vec<DeletionStep>,
    /// Every reconcile line in file order: draft index, record, word id.
    lines: Vec<(u32, RecordRef, u32)>,
}

impl<'a> Gather<'a> {
    fn records(&mut self, fi: usize, f: &'a ParsedFile, range: std::ops::Range<usize>) {
        let mut last: Option<(&[u8], usize)> = None;
        for ri in range {
            let r = &f.records[ri];
            let raw_msg = f.span_bytes(r.message);
            let rref = RecordRef { file: fi as u32, record: ri as u32 };
            let Some(rid) = f.reconcile_id(r) else {
                if raw_msg == b"Starting workers" {
                    if let (Some(c), Some(n)) = (f.field(r, "controller"), f.field(r, "worker count")) {
                        if let Ok(n) = n.parse::<u32>() {
                            self.starting.push((c.into_owned(), n));
                        }
                    }
                }
                continue;
            };
            let Some(t) = time_of(r) else { continue };
            // Lines of one reconcile mostly come together: try the last one first.
            let cached = last.filter(|&(prev, _)| prev == rid).map(|(_, i)| i);
            let uuid = if cached.is_some() { None } else { uuid_bits(rid) };
            let found = cached.or_else(|| match uuid {
                Some(u) => self.by_uuid.get(&u).copied(),
                None => self.by_id.get(rid).copied(),
            });
            let idx = match found {
                Some(i) => i,
                None => {
                    let d = self.draft(f, r, t);
                    self.drafts.push(d);
                    self.ids.push(String::from_utf8_lossy(rid).into_owned());
                    let i = self.drafts.len() - 1;
                    match uuid {
                        Some(u) => self.by_uuid.insert(u, i),
                        None => self.by_id.insert(rid, i),
                    };
                    i
                }
            };
            last = Some((rid, idx));
            let d = &mut self.drafts[idx];
            d.first = d.first.min(t);
            d.last = d.last.max(t);
            let w = self.vocab.word(f, r, raw_msg, d.object.as_ref().map(|o| o.name.as_str()));
            self.lines.push((idx as u32, rref, w));
            if (r.level >= Level::Error || raw_msg == b"Reconciler error") && d.error.is_none() {
                let msg = f.message(r);
                let e = f.field(r, "error").map(|s| s.into_owned()).unwrap_or_else(|| msg.to_string());
                d.error = Some((rref, format!("{msg}: {e}")));
            }
            // controller-runtime and operators say so in the message:
            // `Reconcile done, requeueing after`, `enqueuing back`.
            if self.vocab.requeue[w as usize] {
                d.requeue = true;
            }
            if let Some(step) = self.vocab.deletion[w as usize] {
                self.deletions.push((idx, t, step));
            }
        }
    }

    /// A new reconcile, from its first record.
    fn draft(&mut self, f: &'a ParsedFile, r: &Record, t: Timestamp) -> Draft {
        // One pass over the fields for what a new reconcile needs.
        let mut k = [None::<&crate::model::Field>; 5];
        for fl in f.fields(r) {
            let slot = match f.span_bytes(fl.key) {
                b"name" => 0,
                b"namespace" => 1,
                b"controller" => 2,
                b"controllerGroup" => 3,
                b"controllerKind" => 4,
                _ => continue,
            };
            k[slot].get_or_insert(fl);
        }
        let object = k[0].map(|name| {
            let ns = k[1].map_or(&b""[..], |fl| f.span_bytes(fl.value));
            self.objects
                .entry((ns, f.span_bytes(name.value)))
                .or_insert_with(|| {
                    let namespace = k[1].map(|fl| f.value(fl).into_owned()).filter(|n| !n.is_empty());
                    Arc::new(ObjectRef { namespace, name: f.value(name).into_owned() })
                })
                .clone()
        });
        let mut text = |i: usize| -> Option<Arc<str>> {
            let fl = k[i]?;
            Some(self.strings.entry(f.span_bytes(fl.value)).or_insert_with(|| Arc::from(f.value(fl).as_ref())).clone())
        };
        let (controller, group, kind) = (text(2), text(3), text(4));
        Draft {
            controller_name: controller.unwrap_or_else(|| self.strings.entry(b"").or_insert_with(|| Arc::from("unknown")).clone()),
            group,
            kind,
            object,
            first: t,
            last: t,
            error: None,
            requeue: false,
        }
    }
}

/// Gathers every record with a `reconcileID` into drafts, in file order.
fn gather(files: &[ParsedFile]) -> Gather<'_> {
    let mut g = Gather::default();
    for (fi, f) in files.iter().enumerate() {
        g.records(fi, f, 0..f.records.len());
    }
    g
}

/// Groups every record with a `reconcileID` into reconciles, splits each
/// controller name into instances, and lays reconciles out in worker lanes.
/// Also returns the deletion steps seen, by reconcile index.
pub fn build(files: &[ParsedFile], opts: &AnalyzeOptions) -> Built {
    let Gather { drafts, ids, vocab, starting: start_lines, deletions, lines, .. } = gather(files);
    let mut starting: BTreeMap<String, Vec<u32>> = BTreeMap::new();
    for (c, n) in start_lines {
        starting.entry(c).or_default().push(n);
    }
    let lines = Lines::group(drafts.len(), lines);
    let coverage = coverage(files);
    let instance_of = split_instances(&drafts, &lines, &vocab);
    let mut controllers = name_instances(&drafts, &instance_of, &lines, &vocab);
    let mut reconciles: Vec<Reconcile> = drafts
        .into_iter()
        .zip(ids)
        .enumerate()
        .map(|(i, (d, id))| {
            // The file's first or last timed record belongs to this reconcile.
            let truncated = lines.refs(i).iter().any(|x| {
                let (lo, hi) = coverage[x.file as usize];
                x.record == lo || x.record == hi
            });
            Reconcile {
                reconcile_id: id,
                controller: instance_of[i],
                object: d.object,
                kind: d.kind,
                first: d.first,
                last: d.last,
                latent_start: None,
                lines: lines.refs(i).len() as u32,
                outcome: if d.error.is_some() {
                    Outcome::Error
                } else if d.requeue {
                    Outcome::Requeue
                } else {
                    Outcome::Success
                },
                error: d.error.map(|(_, e)| e),
                truncated,
                lane: 0,
                records: lines.range(i),
            }
        })
        .collect();
    assign_workers(&mut controllers, &reconciles, &starting, opts);
    lay_out_lanes(&controllers, &mut reconciles, &lines, files);
    for c in controllers.iter_mut() {
        c.reconciles = 0;
    }
    for r in &reconciles {
        controllers[r.controller].reconciles += 1;
    }
    Built { controllers, reconciles, record_refs: lines.refs, deletions }
}

/// What [`build`] makes.
pub struct Built {
    pub controllers: Vec<ControllerInstance>,
    pub reconciles: Vec<Reconcile>,
    /// Every reconcile's records, reconcile after reconcile.
    pub record_refs: Vec<RecordRef>,
    pub deletions: Vec<DeletionStep>,
}

/// Reconcile lines grouped by reconcile: each reconcile's records (in file
/// order) and their word ids are one slice of two flat arrays.
struct Lines {
    refs: Vec<RecordRef>,
    words: Vec<u32>,
    starts: Vec<u32>,
}

impl Lines {
    /// A stable counting sort of the gathered lines by reconcile.
    fn group(n: usize, lines: Vec<(u32, RecordRef, u32)>) -> Lines {
        let mut starts = vec![0u32; n + 1];
        for &(d, _, _) in &lines {
            starts[d as usize + 1] += 1;
        }
        for i in 0..n {
            starts[i + 1] += starts[i];
        }
        let mut at = starts.clone();
        let mut refs = vec![RecordRef { file: 0, record: 0 }; lines.len()];
        let mut words = vec![0u32; lines.len()];
        for (d, r, w) in lines {
            let p = &mut at[d as usize];
            refs[*p as usize] = r;
            words[*p as usize] = w;
            *p += 1;
        }
        Lines { refs, words, starts }
    }
    fn range(&self, i: usize) -> std::ops::Range<u32> {
        self.starts[i]..self.starts[i + 1]
    }
    fn refs(&self, i: usize) -> &[RecordRef] {
        &self.refs[self.starts[i] as usize..self.starts[i + 1] as usize]
    }
    fn words(&self, i: usize) -> &[u32] {
        &self.words[self.starts[i] as usize..self.starts[i + 1] as usize]
    }
    /// A reconcile's words other than controller-runtime's own.
    fn vocabulary<'s>(&'s self, i: usize, vocab: &'s Vocab<'_>) -> impl Iterator<Item = u32> + 's {
        self.words(i).iter().copied().filter(|&w| !vocab.runtime[w as usize])
    }
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
fn split_instances(drafts: &[Draft], lines: &Lines, vocab: &Vocab<'_>) -> Vec<usize> {
    let words = &vocab.words;
    let mut parent: Vec<usize> = (0..drafts.len()).collect();
    fn find(p: &mut [usize], mut x: usize) -> usize {
        while p[x] != x {
            p[x] = p[p[x]];
            x = p[x];
        }
        x
    }
    // Keyed by the interned controller name's address: equal names share one.
    let mut owner: HashMap<(usize, u32), usize> = HashMap::default();
    for (i, d) in drafts.iter().enumerate() {
        for w in lines.vocabulary(i, vocab) {
            match owner.get(&(Arc::as_ptr(&d.controller_name) as *const u8 as usize, w)) {
                Some(&j) => {
                    let (a, b) = (find(&mut parent, i), find(&mut parent, j));
                    if a != b {
                        parent[a] = b;
                    }
                }
                None => {
                    owner.insert((Arc::as_ptr(&d.controller_name) as *const u8 as usize, w), i);
                }
            }
        }
    }
    // Group sizes per controller name.
    let mut groups: HashMap<(&str, usize), Vec<usize>> = HashMap::default();
    for (i, d) in drafts.iter().enumerate() {
        let root = find(&mut parent, i);
        groups.entry((&*d.controller_name, root)).or_default().push(i);
    }
    let mut by_name: BTreeMap<&str, Vec<Vec<usize>>> = BTreeMap::new();
    for ((name, _), members) in groups {
        by_name.entry(name).or_default().push(members);
    }
    let roles: Vec<Option<&'static str>> = words.iter().map(|w| role_of(w)).collect();
    let mut out = vec![0usize; drafts.len()];
    let mut next = 0usize;
    for (_, mut gs) in by_name {
        // Largest first; ties by earliest member for a stable order.
        gs.sort_by_key(|g| (std::cmp::Reverse(g.len()), g[0]));
        let largest = gs.first().map_or(0, Vec::len);
        let main = next;
        next += 1;
        // Groups that name the same known role are one instance.
        let mut by_role: BTreeMap<&str, usize> = BTreeMap::new();
        for (k, g) in gs.iter().enumerate() {
            // A group is an instance of its own when its vocabulary names a
            // known role, or when it is big next to the largest; any other
            // group (a deletion path, an error-only reconcile) is the main
            // instance taking a branch its other reconciles did not log.
            let role = if k == 0 { None } else { g.iter().find_map(|&m| lines.vocabulary(m, vocab).find_map(|w| roles[w as usize])) };
            let big = g.len() >= 5 && g.len() * 4 >= largest;
            let id = match role {
                _ if k == 0 => main,
                Some(role) => *by_role.entry(role).or_insert_with(|| {
                    next += 1;
                    next - 1
                }),
                None if big => {
                    next += 1;
                    next - 1
                }
                None => main,
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
fn name_instances(drafts: &[Draft], instance_of: &[usize], lines: &Lines, vocab: &Vocab<'_>) -> Vec<ControllerInstance> {
    let n = instance_of.iter().copied().max().map_or(0, |m| m + 1);
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, &c) in instance_of.iter().enumerate() {
        members[c].push(i);
    }
    let mut out = Vec::with_capacity(n);
    let mut seen_names: BTreeMap<String, usize> = BTreeMap::new();
    for ms in members.iter() {
        let d0 = &drafts[ms[0]];
        let k = seen_names.entry(d0.controller_name.to_string()).or_insert(0);
        *k += 1;
        let ordinal = *k;
        let id = if ordinal == 1 { d0.controller_name.to_string() } else { format!("{}#{}", d0.controller_name, ordinal) };
        let name = if ordinal == 1 { d0.controller_name.to_string() } else { format!("{} ({})", d0.controller_name, signature(ms, lines, vocab)) };
        out.push(ControllerInstance {
            id,
            name,
            controller: d0.controller_name.to_string(),
            group: d0.group.as_deref().map(str::to_string),
            kind: d0.kind.as_deref().map(str::to_string),
            workers: 1,
            workers_source: "inferred".into(),
            reconciles: ms.len(),
        });
    }
    out
}

/// What distinguishes an instance: a known role, or its commonest message.
fn signature(members: &[usize], lines: &Lines, vocab: &Vocab<'_>) -> String {
    let mut freq: BTreeMap<&str, usize> = BTreeMap::new();
    for &m in members {
        for w in lines.vocabulary(m, vocab) {
            *freq.entry(vocab.words[w as usize].as_str()).or_insert(0) += 1;
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
            c.workers_source = "option".into();
            continue;
        }
        if let Some(list) = starting.get(&c.controller) {
            let k = used.entry(c.controller.clone()).or_insert(0);
            if let Some(n) = list.get(*k).or(list.last()) {
                c.workers = (*n).max(1);
                c.workers_source = "log".into();
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
        c.workers_source = "inferred".into();
    }
}

/// Lays each instance's reconciles into at most `workers` lanes, and gives a
/// latent start to reconciles whose first line came late.
fn lay_out_lanes(controllers: &[ControllerInstance], reconciles: &mut [Reconcile], lines: &Lines, files: &[ParsedFile]) {
    for (ci, c) in controllers.iter().enumerate() {
        let mut idx: Vec<usize> = (0..reconciles.len()).filter(|&i| reconciles[i].controller == ci).collect();
        idx.sort_by_key(|&i| (reconciles[i].first, lines.refs(i).first().copied()));
        // Which messages open reconciles of this instance: a reconcile whose
        // first message is usually not a first line started earlier.
        let n_words = idx.iter().flat_map(|&i| lines.words(i).iter()).max().map_or(0, |&m| m as usize + 1);
        let mut opens: Vec<(u32, u32)> = vec![(0, 0); n_words];
        for &i in &idx {
            for (k, &w) in lines.words(i).iter().enumerate() {
                let e = &mut opens[w as usize];
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
            let first_rec = lines.refs(i)[0];
            let f = &files[first_rec.file as usize];
            let rec = &f.records[first_rec.record as usize];
            let opens_here = opens.get(lines.words(i)[0] as usize).is_some_and(|(first, total)| first * 2 >= *total && *first > 0);
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
