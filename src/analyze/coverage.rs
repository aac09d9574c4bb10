//! Evidence coverage: which log source covers which time, where a source
//! has a hole, and which sources the artifact lacks. A silence on the
//! timeline means something only once this says whether the process was
//! logging (the silence is the controller's) or its log is missing.
//!
//! A **source** is one process's log: a file, or the files the layout
//! says are one container's run (CRI's `0.log` and its rotated
//! `0.log.20260526-101500`). Its **normal gap** is the 95th percentile
//! (nearest rank) of the waits between its timed lines, in time order:
//! bursts make many short waits and do not move it. It is known to the
//! coarsest precision of the source's times ([`SourceCoverage::tick_nanos`]:
//! a wait between a line written to the second and one written to the
//! millisecond is known to the second). A **gap** is a wait
//! longer than both [`GAP_FACTOR`] times the normal gap and
//! [`GAP_FLOOR_NANOS`]; a source with fewer than [`MIN_LINES`] timed lines
//! has none (too few lines to tell a hole from its usual quiet).

use std::collections::BTreeMap;

use crate::analyze::model::{Analysis, Coverage, Election, EtcdCoverage, LogGap, Missing, Reconcile, RecordRef, Silence, SourceCoverage};
use crate::analyze::reconciles::time_of;
use crate::model::{Diagnostic, Format, ParsedFile, Timestamp, Wrapper};
use crate::time::NANOS_PER_SEC;

/// A gap is longer than this many normal gaps…
pub const GAP_FACTOR: i64 = 10;
/// …and than this (a quiet log's minutes without a line are no hole).
pub const GAP_FLOOR_NANOS: i64 = 5 * 60 * NANOS_PER_SEC;
/// Fewer timed lines than this: no gap is found.
pub const MIN_LINES: usize = 10;

/// What the analysis asks of the coverage after it is measured: each
/// file's source and each source's line times (not part of the output).
#[derive(Clone, Debug, Default)]
pub struct Index {
    /// Each file's source (index into [`Coverage::sources`]), `None` for a
    /// file without a timed line.
    pub source_of_file: Vec<Option<usize>>,
    /// Each source's line times in ns, sorted.
    pub times: Vec<Vec<i64>>,
    /// Each source's [quiets](short_quiets): the start (ns) and the line
    /// that ends each, as written.
    pub quiets: Vec<Vec<(i64, Timestamp)>>,
}

impl Index {
    /// Lines of source `s` with a time in `start..=end`.
    pub fn lines_within(&self, s: usize, start: i64, end: i64) -> u32 {
        let t = &self.times[s];
        (t.partition_point(|&x| x <= end) - t.partition_point(|&x| x < start)) as u32
    }
}

/// The name of the process a file's lines come from: CRI's `N.log` and its
/// rotated `N.log.<suffix>` are one run of one container; any other file
/// is its own.
pub fn process_key(path: &str) -> String {
    let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
    if let Some((n, rest)) = name.split_once(".log") {
        if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) && (rest.is_empty() || rest.starts_with('.')) {
            return format!("{dir}/{n}.log");
        }
    }
    path.to_string()
}

/// The pod and container a path names: the kubelet's
/// `pods/<ns>_<pod>_<uid>/<container>/N.log`, crust-gather's
/// `pod/<pod>/<container>/current.log` (or `previous.log`), and
/// `previous-logs/<ns>_<pod>_<container>.log`.
pub fn pod_container(path: &str) -> (Option<String>, Option<String>) {
    let parts: Vec<&str> = path.split(['/', '!']).filter(|p| !p.is_empty()).collect();
    let n = parts.len();
    if n >= 3 {
        let (dir, container, file) = (parts[n - 3], parts[n - 2], parts[n - 1]);
        let cri = process_key(file) != file || file.split_once(".log").is_some_and(|(s, r)| r.is_empty() && s.bytes().all(|b| b.is_ascii_digit()));
        if cri && n >= 4 && parts[n - 4] == "pods" {
            let mut it = dir.split('_');
            if let (Some(_ns), Some(pod)) = (it.next(), it.next()) {
                return (Some(pod.to_string()), Some(container.to_string()));
            }
        }
        if (file == "current.log" || file == "previous.log") && n >= 4 && parts[n - 4] == "pod" {
            return (Some(dir.to_string()), Some(container.to_string()));
        }
    }
    if n >= 2 && parts[n - 2] == "previous-logs" {
        let stem = parts[n - 1].trim_end_matches(".log");
        let p: Vec<&str> = stem.split('_').collect();
        if p.len() == 3 {
            return (Some(p[1].to_string()), Some(p[2].to_string()));
        }
    }
    (None, None)
}

/// Whether a file is an etcd server's log: a log (a timed line) whose path
/// names an etcd pod or container (`etcd`, `etcd-0`), or whose lines are
/// etcd's (capnslog, a `caller` in etcd's own packages, a journal's
/// `etcd[pid]:` unit).
fn is_etcd_log(f: &ParsedFile) -> bool {
    if !f.records.iter().any(|r| time_of(r).is_some()) {
        return false;
    }
    let named = f.path.split(['/', '!']).any(|p| {
        let p = p.strip_suffix(".log").unwrap_or(p);
        p == "etcd" || p.strip_prefix("etcd-").is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    });
    if named {
        return true;
    }
    const PACKAGES: &[&str] = &["etcdserver/", "raft/", "rafthttp/", "mvcc/", "embed/"];
    let journal = memchr::memmem::Finder::new(b" etcd[");
    f.records.iter().take(2000).any(|r| {
        r.format == Format::EtcdCapnslog
            || ((r.format == Format::Journald || r.wrapper == Wrapper::Journald) && journal.find(&f.raw(r)).is_some())
            || f.field(r, "caller").is_some_and(|c| PACKAGES.iter().any(|p| c.starts_with(p) || c.contains(&format!("/{p}"))))
    })
}

/// The 95th percentile (nearest rank) of sorted `times`' waits, and the
/// gaps (see the module's rule), each with whether it is elided: the
/// `elided` spans (sorted: the times of the lines either side of an
/// elision a person wrote, see [`elided_spans`]) are gaps whatever their
/// wait and however few the lines, and the waits within them are no
/// source's usual wait.
fn gaps_of(times: &[i64], elided: &[(i64, i64)]) -> (i64, Vec<(i64, i64, bool)>) {
    // Whether the wait from `a` to `b` lies within an elided span: the
    // latest end of the spans that start by `a` is `b` or later.
    let ends: Vec<i64> = elided
        .iter()
        .scan(i64::MIN, |m, &(_, e)| {
            *m = (*m).max(e);
            Some(*m)
        })
        .collect();
    let within = |a: i64, b: i64| {
        let k = elided.partition_point(|&(s, _)| s <= a);
        k > 0 && ends[k - 1] >= b
    };
    // (Times more than 292 years apart saturate: no wrap.)
    let mut waits: Vec<i64> = if elided.is_empty() {
        times.windows(2).map(|w| w[1].saturating_sub(w[0])).collect()
    } else {
        times.windows(2).filter(|w| !within(w[0], w[1])).map(|w| w[1].saturating_sub(w[0])).collect()
    };
    let mut gaps: Vec<(i64, i64, bool)> = elided.iter().map(|&(s, e)| (s, e, true)).collect();
    if waits.is_empty() {
        return (0, gaps);
    }
    let rank = (waits.len() * 95).div_ceil(100).max(1);
    let normal = *waits.select_nth_unstable(rank - 1).1;
    if times.len() >= MIN_LINES {
        let threshold = normal.saturating_mul(GAP_FACTOR).max(GAP_FLOOR_NANOS);
        gaps.extend(times.windows(2).filter(|w| w[1].saturating_sub(w[0]) > threshold && !within(w[0], w[1])).map(|w| (w[0], w[1], false)));
        gaps.sort_unstable();
    }
    (normal, gaps)
}

/// The spans of file `f`'s lines that an elision a person wrote stands
/// in (`...`: [`crate::parse::is_elision`]): the time of the last timed
/// line before one and of the first after it, in file order. Only files
/// with lines no format reads can have one.
fn elided_spans(f: &ParsedFile, out: &mut Vec<(i64, i64)>) {
    if f.counts.unparsed() == 0 {
        return;
    }
    let (mut before, mut elided) = (None::<i64>, false);
    for r in &f.records {
        if r.format == Format::Unparsed {
            elided |= crate::parse::is_elision(&f.raw(r));
        } else if let Some(t) = time_of(r) {
            if let (true, Some(b)) = (elided, before) {
                out.push((b.min(t.nanos), b.max(t.nanos)));
            }
            (before, elided) = (Some(t.nanos), false);
        }
    }
}

/// How far a file's time may go back from line to line before a note
/// says so, beyond the tick of its coarsest time: writers sharing a file
/// write out of time order by microseconds (kueue #6304 in the corpus),
/// and a line written to the second may be anywhere in its second.
pub const TIME_BACK_NANOS: i64 = NANOS_PER_SEC;

/// A note when `f`'s time (`nanos`: its timed lines' times in file order,
/// the coarsest written to `digits` fractional digits) goes back, at some
/// line, by more than [`TIME_BACK_NANOS`] and a tick below a line before
/// it: at the first such line, with how many there are. A process writes
/// its lines in time order; a file of two (`kubectl logs -l` prints each
/// pod's log in turn, with no name: a Karpenter workshop's log in the
/// tests) is two runs of times. reconscope places every line at its time
/// whatever the file's order, so the note says only that the file may be
/// more than one log.
fn time_back(f: &ParsedFile, nanos: &[i64], digits: u8) -> Option<Diagnostic> {
    let limit = TIME_BACK_NANOS.saturating_add(crate::time::tick_nanos(digits));
    let (mut max, mut max_at) = (i64::MIN, 0usize);
    let (mut count, mut first) = (0usize, None::<(usize, usize)>);
    for (k, &t) in nanos.iter().enumerate() {
        if t < max.saturating_sub(limit) {
            count += 1;
            first.get_or_insert((k, max_at));
        } else if t > max {
            (max, max_at) = (t, k);
        }
    }
    let (k, before) = first?;
    // The lines of the first step back, as written (found again: rare).
    let mut timed = f.records.iter().filter_map(|r| time_of(r).map(|t| (r.line, t)));
    let (before_line, before_time) = timed.nth(before)?;
    let (line, time) = timed.nth(k - before - 1)?;
    let more = if count > 1 { format!(" (and at {} more lines after)", count - 1) } else { String::new() };
    Some(Diagnostic {
        path: f.path.clone(),
        line: Some(line),
        message: format!(
            "time goes back {} here{more}: this line's time is {}, line {before_line}'s {}. One process writes its lines in time order, so the file may hold more than one log one after the other (`kubectl logs -l` prints each pod's log in turn, with no name), or a writer was held up; reconscope places each line at its own time",
            crate::time::honest_duration(time, before_time),
            crate::time::format_rfc3339(time),
            crate::time::format_rfc3339(before_time),
        ),
    })
}

/// Sorts `v`; fast when each element is a few places from its own, as a
/// log's times are where lines of one second were written at another
/// precision (zap's JSON lines with their fractions among second-precision
/// console lines put nearly every one of kamaji's seconds out of order):
/// each element out of order is moved back into the sorted part before
/// it, while the moves add up to at most a few per element. Past that
/// (times far out of order, or many) it is the standard sort. Returns
/// whether it came to that.
fn sort_nearly_sorted(v: &mut [i64]) -> bool {
    let budget = v.len().saturating_mul(4);
    let mut moved = 0usize;
    for i in 1..v.len() {
        let x = v[i];
        if v[i - 1] <= x {
            continue;
        }
        // After the equal ones (the order of equal times is no matter:
        // they are numbers).
        let at = v[..i].partition_point(|&y| y <= x);
        moved += i - at;
        if moved > budget {
            v.sort_unstable();
            return true;
        }
        v.copy_within(at..i, at + 1);
        v[at] = x;
    }
    false
}

/// Each source's lines, first and last line, normal gap and gaps; whether
/// there is an etcd log; restarted containers whose previous log is
/// absent.
pub fn measure(files: &[ParsedFile], elections: &[Election]) -> (Coverage, Index) {
    complete(files, read_sources(files), elections)
}

/// What [`measure`] reads off every line: each source with its lines,
/// first and last line, normal gap and gaps, and the [`Index`]. It needs
/// nothing of the analysis, so [`crate::analyze::analyze`] reads it beside
/// the etcd analysis (natively).
pub struct Sources {
    sources: Vec<SourceCoverage>,
    index: Index,
    /// A note for each file whose time goes back ([`time_back`]).
    pub notes: Vec<Diagnostic>,
}

/// See [`Sources`].
pub fn read_sources(files: &[ParsedFile]) -> Sources {
    // Sources in order of their first file.
    let mut keys: BTreeMap<String, usize> = BTreeMap::new();
    let mut members: Vec<Vec<usize>> = Vec::new();
    // Only the nanoseconds of every line (a big log has millions); the
    // few times the output names are read again whole below.
    let mut times: Vec<Vec<i64>> = Vec::new();
    let mut fewest_digits: Vec<u8> = Vec::new();
    let mut elided: Vec<Vec<(i64, i64)>> = Vec::new();
    let mut source_of_file = vec![None; files.len()];
    let mut notes = Vec::new();
    for (i, f) in files.iter().enumerate() {
        if !f.records.iter().any(|r| time_of(r).is_some()) {
            continue;
        }
        let s = *keys.entry(process_key(&f.path)).or_insert_with(|| {
            members.push(Vec::new());
            times.push(Vec::new());
            fewest_digits.push(9);
            elided.push(Vec::new());
            members.len() - 1
        });
        members[s].push(i);
        // Room for every line at once (the list would copy itself as it
        // doubled, in fresh pages each time).
        times[s].reserve(f.records.len());
        // The fewest fractional digits of the source's times: what a wait
        // between its lines is known to.
        let digits = &mut fewest_digits[s];
        let from = times[s].len();
        let mut file_digits = 9u8;
        times[s].extend(f.records.iter().filter_map(time_of).map(|t| {
            file_digits = file_digits.min(t.digits);
            t.nanos
        }));
        *digits = (*digits).min(file_digits);
        notes.extend(time_back(f, &times[s][from..], file_digits));
        elided_spans(f, &mut elided[s]);
        source_of_file[i] = Some(s);
    }
    let mut sources = Vec::with_capacity(members.len());
    let mut index_times = Vec::with_capacity(members.len());
    let mut index_quiets = Vec::with_capacity(members.len());
    for (((ms, mut nanos), digits), mut elided) in members.into_iter().zip(times).zip(fewest_digits).zip(elided) {
        sort_nearly_sorted(&mut nanos);
        elided.sort_unstable();
        elided.dedup();
        let (normal, gaps) = gaps_of(&nanos, &elided);
        let quiets = short_quiets(&nanos);
        // The lines at the times named (first, last, gaps' bounds), as
        // written: their precision and whether they have a year. The first
        // and last are found from either end; gaps (rare) in one pass.
        let lines = || ms.iter().flat_map(|&i| files[i].records.iter().filter_map(time_of));
        let (lo, hi) = (nanos[0], nanos[nanos.len() - 1]);
        let first = lines().find(|t| t.nanos == lo).unwrap_or(Timestamp::new(lo, 9));
        let last = ms.iter().rev().flat_map(|&i| files[i].records.iter().rev().filter_map(time_of)).find(|t| t.nanos == hi).unwrap_or(Timestamp::new(hi, 9));
        let mut named: Vec<i64> = gaps.iter().flat_map(|&(s, e, _)| [s, e]).chain(quiets.iter().map(|&(_, e)| e)).collect();
        named.sort_unstable();
        named.dedup();
        let mut found: Vec<Option<Timestamp>> = vec![None; named.len()];
        if !named.is_empty() {
            for t in lines() {
                if let Ok(k) = named.binary_search(&t.nanos) {
                    found[k].get_or_insert(t);
                }
            }
        }
        let at = |n: i64| named.binary_search(&n).ok().and_then(|k| found[k]).unwrap_or(Timestamp::new(n, 9));
        let path = files[ms[0]].path.clone();
        let (pod, container) = pod_container(&path);
        sources.push(SourceCoverage {
            files: ms.iter().map(|&i| files[i].path.clone()).collect(),
            path,
            pod,
            container,
            first,
            last,
            lines: nanos.len() as u32,
            normal_gap_nanos: normal,
            tick_nanos: crate::time::tick_nanos(digits),
            gaps: gaps.iter().map(|&(s, e, elided)| LogGap { start: at(s), end: at(e), elided }).collect(),
        });
        index_times.push(nanos);
        index_quiets.push(quiets.iter().map(|&(s, e)| (s, at(e))).collect());
    }
    Sources { sources, index: Index { source_of_file, times: index_times, quiets: index_quiets }, notes }
}

/// [`measure`] from the [`Sources`] read: whether there is an etcd log,
/// and which logs are missing.
pub fn complete(files: &[ParsedFile], s: Sources, elections: &[Election]) -> (Coverage, Index) {
    let Sources { sources, index, notes: _ } = s;
    let etcd_logs: Vec<String> = files.iter().filter(|f| is_etcd_log(f)).map(|f| f.path.clone()).collect();
    let etcd = if etcd_logs.is_empty() && elections.is_empty() { EtcdCoverage::Absent } else { EtcdCoverage::Present };
    let mut missing = Vec::new();
    if etcd == EtcdCoverage::Absent {
        missing.push(Missing {
            kind: "etcd".into(),
            path: None,
            message: "Elections unknown: the artifact holds no etcd log, so no election found does not mean none happened.".into(),
        });
    }
    missing.extend(previous_logs_missing(files));
    // A dump's restartCount over a CRI `N.log` already noted: once.
    for m in restarted_without_previous(files) {
        if !missing.iter().any(|x| x.kind == m.kind && x.path == m.path) {
            missing.push(m);
        }
    }
    let coverage = Coverage { sources, etcd, etcd_logs, missing, uncovered: Vec::new() };
    (coverage, index)
}

/// CRI's `N.log` (N ≥ 1) says the container restarted N times: its
/// `N-1.log` (the process before) should be beside it.
fn previous_logs_missing(files: &[ParsedFile]) -> Vec<Missing> {
    let mut runs: BTreeMap<String, Vec<u32>> = BTreeMap::new();
    for f in files {
        // A rotated `N.log.<date>` is run N too.
        let key = process_key(&f.path);
        let (dir, name) = key.rsplit_once('/').unwrap_or(("", &key));
        if let Some(n) = name.strip_suffix(".log").and_then(|n| n.parse::<u32>().ok()) {
            runs.entry(dir.to_string()).or_default().push(n);
        }
    }
    let mut out = Vec::new();
    for (dir, mut ns) in runs {
        ns.sort_unstable();
        ns.dedup();
        for &n in &ns {
            if n >= 1 && !ns.contains(&(n - 1)) {
                let path = format!("{dir}/{n}.log");
                let what = pod_container(&path).1.map_or("the container".to_string(), |c| format!("container {c}"));
                out.push(Missing {
                    kind: "previous-log".into(),
                    message: format!(
                        "{path} is run {n} of {what}, but {dir}/{}.log, the log of the run before, is absent: why it restarted is not in the artifact.",
                        n - 1
                    ),
                    path: Some(path),
                });
            }
        }
    }
    out
}

/// A source as people name it: `pod/container` where its path tells, else
/// its file's name.
pub fn source_name(c: &SourceCoverage) -> String {
    match (&c.pod, &c.container) {
        (Some(p), Some(k)) => format!("{p}/{k}"),
        _ => crate::model::file_name(&c.path).to_string(),
    }
}

/// A pod's container with restarts, from an object dump (`kubectl get pods
/// -o yaml|json`): (pod, container, restartCount, the dump's path).
fn dumped_restarts(files: &[ParsedFile]) -> Vec<(String, String, u64, String)> {
    fn walk(v: &serde_json::Value, path: &str, out: &mut Vec<(String, String, u64, String)>) {
        if let Some(items) = v.get("items").and_then(|i| i.as_array()) {
            items.iter().for_each(|it| walk(it, path, out));
            return;
        }
        if v.get("kind").and_then(|k| k.as_str()) != Some("Pod") {
            return;
        }
        let Some(pod) = v.get("metadata").and_then(|m| m.get("name")).and_then(|n| n.as_str()) else { return };
        let statuses = ["initContainerStatuses", "containerStatuses"].into_iter().filter_map(|k| v.get("status")?.get(k)?.as_array());
        for c in statuses.flatten() {
            let (Some(name), Some(n)) = (c.get("name").and_then(|n| n.as_str()), c.get("restartCount").and_then(|n| n.as_u64())) else { continue };
            if n > 0 {
                out.push((pod.to_string(), name.to_string(), n, path.to_string()));
            }
        }
    }
    let mut out = Vec::new();
    for f in files.iter().filter(|f| crate::analyze::objects::is_object_dump(f)) {
        let bytes = f.bytes.whole();
        if memchr::memmem::find(&bytes, b"restartCount").is_none() {
            continue;
        }
        // (A dump that does not read is noted by the objects' analysis.)
        let text = String::from_utf8_lossy(&bytes);
        if text.trim_start().starts_with('{') {
            if let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) {
                walk(&v, &f.path, &mut out);
            }
            continue;
        }
        for doc in serde_yaml::Deserializer::from_str(&text) {
            match <serde_json::Value as serde::Deserialize>::deserialize(doc) {
                Ok(v) => walk(&v, &f.path, &mut out),
                Err(_) => break,
            }
        }
    }
    out
}

/// A container an object dump says restarted, whose current log is here
/// but no log of an earlier run of it (a `previous` log, or CRI's
/// `N-1.log`).
fn restarted_without_previous(files: &[ParsedFile]) -> Vec<Missing> {
    let restarts = dumped_restarts(files);
    if restarts.is_empty() {
        return Vec::new();
    }
    // Each pod/container's logs, with whether one is a previous run's.
    let mut logs: BTreeMap<(String, String), (String, bool)> = BTreeMap::new();
    let mut runs: BTreeMap<(String, String), std::collections::BTreeSet<String>> = BTreeMap::new();
    for f in files.iter().filter(|f| !crate::analyze::objects::is_object_dump(f)) {
        let (Some(pod), Some(container)) = pod_container(&f.path) else { continue };
        let key = (pod, container);
        let previous = matches!(crate::analyze::signals::pair_of(&f.path), Some((_, crate::analyze::signals::PairRole::Previous)));
        runs.entry(key.clone()).or_default().insert(process_key(&f.path));
        let e = logs.entry(key).or_insert_with(|| (f.path.clone(), false));
        e.1 |= previous;
    }
    let mut out = Vec::new();
    for (pod, container, n, dump) in restarts {
        let key = (pod, container);
        let Some((path, previous)) = logs.get(&key) else { continue };
        if *previous || runs.get(&key).is_some_and(|r| r.len() > 1) {
            continue;
        }
        out.push(Missing {
            kind: "previous-log".into(),
            path: Some(path.clone()),
            message: format!(
                "Container {} of pod {} restarted {} ({dump} says so), but only one run's log is here ({path}): the log before the restart is absent, so why it restarted is not in the artifact.",
                key.1,
                key.0,
                crate::words::plural(n, "time", "times")
            ),
        });
    }
    out
}

/// A source's gap that overlaps `start..end`.
pub fn gap_over(c: &SourceCoverage, start: i64, end: i64) -> Option<&LogGap> {
    c.gaps.iter().find(|g| g.start.nanos < end && g.end.nanos > start)
}

/// A latent start reaches back from a reconcile's first line to when its
/// lane was last free; across a gap of its log that reach is made up (the
/// log is missing there, not the worker busy). Clipped to the gap's end
/// (the first line after the hole), or dropped when that is the
/// reconcile's own first line. So across a [quiet](short_quiets) of a
/// source too short to have gaps. Not a stated one
/// ([`Reconcile::stated_start`]): that is the log's word, gap or not.
pub fn clip_latent_starts(reconciles: &mut [Reconcile], record_refs: &[RecordRef], cov: &Coverage, index: &Index) {
    for r in reconciles.iter_mut() {
        let Some(ls) = r.latent_start.filter(|_| !r.stated_start) else { continue };
        let Some(first) = record_refs.get(r.records.start as usize) else { continue };
        let Some(s) = index.source_of_file.get(first.file as usize).copied().flatten() else { continue };
        let last_gap = cov.sources[s].gaps.iter().filter(|g| g.start.nanos >= ls.nanos && g.end.nanos <= r.first.nanos).max_by_key(|g| g.end.nanos);
        // A gap that began before the latent start and ends after it also
        // cuts it.
        let mut end = last_gap.or_else(|| gap_over(&cov.sources[s], ls.nanos, r.first.nanos)).map(|g| g.end);
        // The last quiet within reach.
        let quiet = index.quiets[s].iter().filter(|(q, e)| *q < r.first.nanos && e.nanos > ls.nanos).map(|&(_, e)| e).max_by_key(|e| e.nanos);
        if let Some(q) = quiet.filter(|q| end.is_none_or(|e| q.nanos > e.nanos)) {
            end = Some(q);
        }
        if let Some(e) = end {
            r.latent_start = (e < r.first).then_some(e);
        }
    }
}

/// In a source of fewer than [`MIN_LINES`] timed lines (`times`, sorted),
/// which has no gaps (too few lines to tell a hole from its usual quiet),
/// its quiets: the waits longer than [`GAP_FLOOR_NANOS`] between two of
/// its lines, start and end. Whether the process was quiet or its log has
/// a hole there, the log cannot say that a worker was busy across one: no
/// latent start reaches back across it (a blog's CAPMOX excerpt is 4
/// fragments of a log, pasted one after the other, hours apart).
fn short_quiets(times: &[i64]) -> Vec<(i64, i64)> {
    if times.len() >= MIN_LINES {
        return Vec::new();
    }
    times.windows(2).filter(|w| w[1].saturating_sub(w[0]) > GAP_FLOOR_NANOS).map(|w| (w[0], w[1])).collect()
}

/// A reconcile's first line came right after a gap of its source: within
/// the source's normal gap of the gap's end.
pub fn right_after_gap(a: &Analysis, index: &Index, r: &Reconcile) -> bool {
    let Some(first) = a.records_of(r).first() else { return false };
    let Some(s) = index.source_of_file.get(first.file as usize).copied().flatten() else { return false };
    let c = &a.coverage.sources[s];
    c.gaps.iter().any(|g| g.end.nanos <= r.first.nanos && r.first.nanos.saturating_sub(g.end.nanos) <= c.normal_gap_nanos)
}

/// The silence of a worker whose lines are in `source`, from its line at
/// `start` to `end`, held against that source: the other lines it wrote
/// meanwhile (from `start`'s next tick on, as a line at `start` may be
/// anywhere in its tick; `own`: the worker's lines among them), and whether
/// it is covered.
pub fn silence(a: &Analysis, index: &Index, source: usize, start: Timestamp, end: Timestamp, own: u32) -> Silence {
    let c = &a.coverage.sources[source];
    let after = start.nanos.saturating_add(crate::time::tick_nanos(start.digits));
    let other_lines = index.lines_within(source, after, end.nanos).saturating_sub(own);
    let covered = other_lines > 0 && gap_over(c, start.nanos, end.nanos).is_none();
    Silence { source: c.path.clone(), start, end, other_lines, covered, to_log_end: false }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearly_sorted_times_sort_as_the_standard_sort_does() {
        // A small generator (xorshift), so every case is the same each run.
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let check = |mut v: Vec<i64>, falls_back: bool| {
            let mut expect = v.clone();
            expect.sort_unstable();
            assert_eq!(sort_nearly_sorted(&mut v), falls_back, "{:?}", &v[..v.len().min(8)]);
            assert_eq!(v, expect);
        };
        check(vec![], false);
        check(vec![5], false);
        check((0..1000).collect(), false);
        check(vec![3, 3, 1, 1, 2, 2], false);
        // Seconds with fractional times among them, each a little early.
        let lines: Vec<i64> = (0..10_000).map(|i| (i / 7) * 1_000_000_000 + if i % 5 == 0 { -300_000_000 } else { 0 }).collect();
        check(lines, false);
        // Local disorder of up to 8 places.
        let mut local: Vec<i64> = (0..10_000).collect();
        for c in local.chunks_mut(8) {
            c.reverse();
        }
        check(local, false);
        // Far out of order: the standard sort.
        check((0..10_000).rev().collect(), true);
        check((0..10_000).map(|_| (next() % 1_000_000) as i64).collect(), true);
        check((0..10_000).map(|_| next() as i64).collect(), true);
        // One line far out of place is cheap: no fallback.
        let mut one: Vec<i64> = (1..10_000).collect();
        one.push(0);
        check(one, false);
    }

    fn check(path: &str, expect: (&str, Option<&str>, Option<&str>)) {
        let (pod, container) = pod_container(path);
        assert_eq!((process_key(path).as_str(), pod.as_deref(), container.as_deref()), expect, "{path}");
    }

    #[test]
    fn sources_are_named_by_their_layout() {
        check(
            "var/log/pods/kamaji-system_kamaji-7d9_0a1b/manager/0.log",
            ("var/log/pods/kamaji-system_kamaji-7d9_0a1b/manager/0.log", Some("kamaji-7d9"), Some("manager")),
        );
        check(
            "var/log/pods/kamaji-system_kamaji-7d9_0a1b/manager/0.log.20260526-101500",
            ("var/log/pods/kamaji-system_kamaji-7d9_0a1b/manager/0.log", Some("kamaji-7d9"), Some("manager")),
        );
        check(
            "a.zip!/namespaces/tenant-root/v1/pod/etcd-0/etcd/current.log",
            ("a.zip!/namespaces/tenant-root/v1/pod/etcd-0/etcd/current.log", Some("etcd-0"), Some("etcd")),
        );
        check("snap/previous-logs/cozy_kamaji-7d9_manager.log", ("snap/previous-logs/cozy_kamaji-7d9_manager.log", Some("kamaji-7d9"), Some("manager")));
        check("kamaji/kamaji-controller.log", ("kamaji/kamaji-controller.log", None, None));
        check("logs/10.log.old", ("logs/10.log", None, None));
        check("logs/v10.log", ("logs/v10.log", None, None));
    }

    #[test]
    fn gaps_are_far_longer_than_the_source_s_own_wait_and_the_floor() {
        let s = NANOS_PER_SEC;
        // Every 2s for 40 lines, then 20 minutes without a line.
        let mut t: Vec<i64> = (0..40).map(|i| i * 2 * s).collect();
        t.extend((0..40).map(|i| 1278 * s + i * 2 * s));
        assert_eq!(gaps_of(&t, &[]), (2 * s, vec![(78 * s, 1278 * s, false)]));
        // Every 10 minutes: 10 minutes is its normal wait.
        let t: Vec<i64> = (0..20).map(|i| i * 600 * s).collect();
        assert_eq!(gaps_of(&t, &[]), (600 * s, vec![]));
        // Bursts every 4 minutes: no wait is past the floor.
        let t: Vec<i64> = (0..10).flat_map(|b| (0..30).map(move |i| b * 240 * s + i * s / 10)).collect();
        assert_eq!(gaps_of(&t, &[]).1, vec![]);
        // Nine lines around an hour's hole: too few to tell.
        let t: Vec<i64> = (0..4).map(|i| i * s).chain((0..5).map(|i| 3600 * s + i * s)).collect();
        assert_eq!(gaps_of(&t, &[]), (3597 * s, vec![]));
        // The same with an elision (`...`) where the hour is: a gap however
        // few the lines, and no wait of the source's.
        assert_eq!(gaps_of(&t, &[(3 * s, 3600 * s)]), (s, vec![(3 * s, 3600 * s, true)]));
        // Lines every 2s with elisions between some: each elision a gap,
        // however short its wait, and the waits across them left out of
        // the usual one; a wait past the floor elsewhere a gap still.
        let mut t: Vec<i64> = (0..40).map(|i| i * 2 * s).collect();
        t.extend((0..40).map(|i| 1278 * s + i * 2 * s));
        let elided = [(10 * s, 12 * s), (20 * s, 22 * s)];
        assert_eq!(gaps_of(&t, &elided), (2 * s, vec![(10 * s, 12 * s, true), (20 * s, 22 * s, true), (78 * s, 1278 * s, false)]));
    }

    /// The spans an elision stands in, in file order, from a file's lines:
    /// the times either side of each `...`, once however many there are.
    #[test]
    fn elisions_are_the_spans_between_the_lines_either_side() {
        let log = "2023-09-10T11:43:00.405Z\tINFO\ta\n...\n2023-09-10T11:43:37.743Z\tINFO\tb\n\n...\n[snip]\n2023-09-10T11:43:46.403Z\tINFO\tc\nnot a log line\n2023-09-10T11:43:50.000Z\tINFO\td\n...\n";
        let f = crate::parse::parse_file("x.log", log.as_bytes().to_vec(), &crate::parse::ParseOptions::default());
        let mut spans = Vec::new();
        elided_spans(&f, &mut spans);
        let at = |s: &str| crate::time::parse_rfc3339(s.as_bytes(), false, 0).unwrap().ts.nanos;
        assert_eq!(spans, [(at("2023-09-10T11:43:00.405Z"), at("2023-09-10T11:43:37.743Z")), (at("2023-09-10T11:43:37.743Z"), at("2023-09-10T11:43:46.403Z"))]);
    }
}
