//! Analysis: parsed files in, reconciles, controller instances, etcd
//! elections, object lifecycles and findings out. Pure code over records:
//! no I/O, no clock; the same natively and in wasm.

pub mod coverage;
pub mod etcd;
pub mod findings;
pub mod goroutines;
pub mod inflight;
pub mod json;
pub mod model;
pub mod objects;
pub mod reconciles;
pub mod saturation;
pub mod signals;

use std::collections::BTreeMap;

pub use model::*;

use crate::model::{Diagnostic, ParsedFile};
use crate::time::NANOS_PER_SEC;

/// Options for [`analyze`].
#[derive(Clone, Debug)]
pub struct AnalyzeOptions {
    /// The operator's reconcile timeout (kamaji `--controller-reconcile-timeout`, default 30s).
    pub reconcile_timeout_nanos: i64,
    /// Worker counts for controllers whose logs lack `Starting workers`,
    /// by controller name or instance id.
    pub workers: BTreeMap<String, u32>,
    /// More reconciles of one object than this in a minute is a hot loop.
    pub hot_loop_per_minute: u32,
    /// A deletion not completed within this long is stuck.
    pub stuck_deletion_nanos: i64,
    /// When goroutine dumps were taken, for a dump whose time nothing else
    /// gives (no wrapper, file name, archive time or log lines around it).
    pub dump_time_nanos: Option<i64>,
    /// Threads to gather the records into reconciles on (1: this thread
    /// only), each taking a stretch of at least `min_records_per_thread`
    /// records. Ignored in wasm, which gathers the stretches one after
    /// the other. The analysis is the same on any number.
    pub threads: usize,
    /// See `threads` (tests cut small logs into stretches with it).
    pub min_records_per_thread: usize,
}

impl Default for AnalyzeOptions {
    fn default() -> Self {
        AnalyzeOptions {
            reconcile_timeout_nanos: 30 * NANOS_PER_SEC,
            workers: BTreeMap::new(),
            hot_loop_per_minute: 30,
            stuck_deletion_nanos: 5 * 60 * NANOS_PER_SEC,
            dump_time_nanos: None,
            threads: 1,
            min_records_per_thread: 50_000,
        }
    }
}

/// Runs the whole analysis. Problems reading object dumps come back as
/// diagnostics; the analysis itself never fails.
pub fn analyze(files: &[ParsedFile], opts: &AnalyzeOptions) -> (Analysis, Vec<Diagnostic>) {
    let (a, diags, ()) = analyze_beside(files, opts, || ());
    (a, diags)
}

/// [`analyze`], and `side()` (the caller's work over the same files, such
/// as the CLI's per-file statistics) on the thread that the etcd analysis
/// and the coverage take beside the gathering's join (see
/// [`reconciles::build_beside`]), where a core would idle otherwise.
pub fn analyze_beside<S: Send>(files: &[ParsedFile], opts: &AnalyzeOptions, side: impl FnOnce() -> S + Send) -> (Analysis, Vec<Diagnostic>, S) {
    let mut diags = Vec::new();
    // The reconciles' pass over every record also picks out the few that
    // the etcd analysis reads: one pass over a big log instead of two.
    // The etcd analysis and each log source's lines and gaps (the
    // coverage), beside the gathering's join, which runs on one thread.
    // So are the notes on lines left unread, which read only the files.
    let (built, (((elections, client_warnings), sources), unread, side)) = reconciles::build_beside(files, opts, |etcd_records| {
        let mut unread = Vec::new();
        unread_line_notes(files, &mut unread);
        let mut sources = coverage::read_sources(files);
        unread.append(&mut sources.notes);
        ((etcd::analyze(files, etcd_records), sources), unread, side())
    });
    let reconciles::Built { controllers, mut reconciles, record_refs, deletions, etcd_records: _, signal_records } = built;
    let (coverage, cover) = coverage::complete(files, sources, &elections);
    coverage::clip_latent_starts(&mut reconciles, &record_refs, &coverage, &cover);
    let objects = objects::build(files, &reconciles, &deletions, &mut diags);
    let mut a = Analysis {
        controllers,
        reconciles,
        record_refs,
        elections,
        client_warnings,
        objects,
        findings: Vec::new(),
        dumps: Vec::new(),
        goroutines: Vec::new(),
        year_unknown: files.iter().any(|f| f.year_source == Some(crate::model::YearSource::Unknown)),
        year_from_mtime: files.iter().any(|f| matches!(f.year_source, Some(crate::model::YearSource::ArchiveMember | crate::model::YearSource::FileMtime))),
        zone_assumed: ZoneAssumed::of(files),
        in_flight: Vec::new(),
        coverage,
        leadership: Vec::new(),
    };
    unknown_notes(&a, files, &mut diags);
    diags.extend(unread);
    goroutines::read(&mut a, files, opts);
    signals::find(&mut a, files, &signal_records, opts);
    findings::find(&mut a, files, opts, &cover);
    goroutines::link(&mut a);
    a.in_flight = inflight::build(&a);
    (a, diags, side)
}

/// `a()` and `b()`, `b` on a thread of its own when the analysis may use
/// more than one (`AnalyzeOptions::threads`; never in wasm).
pub(crate) fn beside<A: Send, B: Send>(opts: &AnalyzeOptions, a: impl FnOnce() -> A + Send, b: impl FnOnce() -> B + Send) -> (A, B) {
    #[cfg(not(target_arch = "wasm32"))]
    if opts.threads > 1 {
        return std::thread::scope(|s| {
            let other = s.spawn(b);
            let a = a();
            (a, other.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
        });
    }
    let _ = opts;
    (a(), b())
}

/// A piece of the analysis for [`in_turn`].
pub(crate) type Job<'a, T> = Box<dyn FnOnce() -> T + Send + 'a>;

/// Each job's result, in the jobs' order. Natively, when the analysis may
/// use more than one thread (`AnalyzeOptions::threads`), that many threads
/// take the jobs in turn, each the next one not taken, so a long job does
/// not leave the other threads idle; in wasm, one after the other.
pub(crate) fn in_turn<'a, T: Send>(opts: &AnalyzeOptions, jobs: Vec<Job<'a, T>>) -> Vec<T> {
    #[cfg(not(target_arch = "wasm32"))]
    if opts.threads > 1 && jobs.len() > 1 {
        let threads = opts.threads.min(jobs.len());
        // The jobs not taken yet, with their places; each thread keeps
        // what its jobs return, with theirs. (The lock is held only to
        // take a job, never while one runs; a job's panic comes back
        // through its thread's join.)
        let queue = std::sync::Mutex::new(jobs.into_iter().enumerate());
        let work = || {
            let mut done = Vec::new();
            loop {
                let next = queue.lock().unwrap_or_else(std::sync::PoisonError::into_inner).next();
                let Some((i, job)) = next else { return done };
                done.push((i, job()));
            }
        };
        let mut done = std::thread::scope(|s| {
            let helpers: Vec<_> = (1..threads).map(|_| s.spawn(work)).collect();
            let mut done = work();
            for h in helpers {
                done.extend(h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)));
            }
            done
        });
        done.sort_unstable_by_key(|&(i, _)| i);
        return done.into_iter().map(|(_, t)| t).collect();
    }
    let _ = opts;
    jobs.into_iter().map(|j| j()).collect()
}

/// Notes on what no line says: reconciles whose controller or object is
/// unknown (shown as unknown, `null` in the JSON), naming the first.
fn unknown_notes(a: &Analysis, files: &[ParsedFile], diags: &mut Vec<Diagnostic>) {
    let mut note = |pick: &dyn Fn(&model::Reconcile) -> bool, what: &str| {
        let mut hits = a.reconciles.iter().filter(|r| pick(r));
        let Some(first) = hits.next() else { return };
        let n = 1 + hits.count();
        let at = a.records_of(first).first().map(|rr| (&files[rr.file as usize], rr.record as usize));
        let (path, line) = at.map_or((String::new(), None), |(f, i)| (f.path.clone(), f.records.get(i).map(|r| r.line)));
        let those = if n == 1 { format!("reconcile {} names", first.reconcile_id) } else { format!("{n} reconciles (the first: {}) name", first.reconcile_id) };
        diags.push(Diagnostic { path, line, message: format!("{those} {what}") });
    };
    note(
        &|r| !a.controllers[r.controller].is_named(),
        "no controller (no `controller` key, no logger name): shown as \"unknown controller\", `null` in the JSON",
    );
    // Instances named after the whole logger their reconciles write with:
    // the first line of the first reconcile has no `controller` key and its
    // logger is the name.
    let mut first_of: Vec<Option<&model::Reconcile>> = vec![None; a.controllers.len()];
    for r in &a.reconciles {
        first_of[r.controller].get_or_insert(r);
    }
    let by_logger: Vec<bool> = a
        .controllers
        .iter()
        .zip(&first_of)
        .map(|(c, r)| {
            let Some(rr) = r.and_then(|r| a.records_of(r).first()) else { return false };
            let (f, rec) = (&files[rr.file as usize], &files[rr.file as usize].records[rr.record as usize]);
            c.is_named() && f.logger(rec) == c.controller && f.find_field(&f.fields(rec), "controller").is_none()
        })
        .collect();
    let names: Vec<String> = a.controllers.iter().zip(&by_logger).filter(|(_, &b)| b).map(|(c, _)| format!("`{}`", crate::inert::terminal(&c.name))).collect();
    if !names.is_empty() {
        const NAMED: usize = 3;
        let mut shown: Vec<String> = names.iter().take(NAMED).cloned().collect();
        if names.len() > NAMED {
            shown.push(format!("{} more", names.len() - NAMED));
        }
        let what = format!("no controller (no `controller` key): controllers are named after the loggers that wrote their lines ({})", shown.join(", "));
        note(&|r| by_logger[r.controller], &what);
    }
    note(&|r| r.object.is_none(), "no object (no `name`/`namespace`, Kind-named or `object` key, or an empty `name`): shown as unknown, `null` in the JSON");
}

/// Notes on the lines the analysis does not use, one per file naming the
/// first:
/// - lines that name a reconcileID but are in no reconcile: no format
///   could read them (a time cut when pasted, say), or they carry no time
///   it could read;
/// - lines that name a reconcileID but were joined to a Go traceback or
///   to the stack under an error line (a log line that looked like a
///   frame): one record with the line before them, read as part of it;
/// - other lines no format could read, that no note of the parser names
///   already (a terminal's rows, a cut last line): an elision a person
///   wrote (`...`), a tool's output among the log's lines. Files with no
///   line read at all (a `kubectl get` table, text that is no log) are
///   said together, in one note naming the first of them.
///
/// An object dump (YAML or JSON, read whole) has no lines to read.
fn unread_line_notes(files: &[ParsedFile], diags: &mut Vec<Diagnostic>) {
    // (Made once: `memmem::find` makes a searcher for every call.)
    let reconcile_id_finder = memchr::memmem::Finder::new(b"reconcileID");
    // Files no line of which is read: path, lines, the first line and its text.
    let mut unread_files: Vec<(&str, usize, u32, String)> = Vec::new();
    for f in files {
        let (mut unread, mut untimed, mut first) = (0usize, 0usize, None::<u32>);
        // Lines read as a traceback's or a stack's that name a reconcileID.
        let (mut joined, mut first_joined) = (0usize, None::<u32>);
        let (mut other, mut first_other) = (0usize, None::<(u32, String)>);
        // Elisions a person wrote (`...`): lines left out there.
        let (mut elided, mut first_elided) = (0usize, None::<(u32, String)>);
        // A reconcile's lines that name no reconcileID (controller-runtime
        // before v0.12, a reconciler that logs on its own, a line cut
        // short): each message of [`NO_ID_MESSAGES`] with its count.
        let (mut no_id, mut first_no_id) = ([0usize; NO_ID_MESSAGES.len()], None::<u32>);
        let check_other = f.counts.unparsed() > 0 && !objects::is_object_dump(f);
        // Whether any line is read, and the first line when none is.
        let (mut any_read, mut first_line) = (false, None::<(u32, String)>);
        for r in &f.records {
            let left_out = if r.format == crate::model::Format::Unparsed {
                let raw = f.raw(r);
                let hit = reconcile_id_finder.find(&raw).is_some();
                unread += usize::from(hit);
                if check_other {
                    // (Only a line's start is read: a terminal's row is short, and a
                    // line may be gigabytes of one hole.)
                    let head = &raw[..raw.len().min(4096)];
                    let line = &head[..memchr::memchr(b'\n', head).unwrap_or(head.len())];
                    if !any_read && first_line.is_none() {
                        first_line = Some((r.line, excerpt(line)));
                    }
                    let chrome = line.len() < 4096 && crate::parse::is_terminal_chrome(line);
                    if !hit && crate::parse::is_elision(line) {
                        elided += 1;
                        first_elided.get_or_insert_with(|| (r.line, excerpt(line)));
                    } else if !hit && !chrome && !f.diagnostics.iter().any(|d| d.line == Some(r.line)) {
                        other += 1;
                        first_other.get_or_insert_with(|| (r.line, excerpt(line)));
                    }
                }
                hit
            } else if !r.reconcile_id.is_empty() && reconciles::time_of(r).is_none() {
                any_read = true;
                untimed += 1;
                true
            } else {
                any_read = true;
                if r.reconcile_id.is_empty() {
                    let msg = f.span_bytes(r.message);
                    if let Some(k) = NO_ID_MESSAGES.iter().position(|m| *msg == *m.as_bytes()) {
                        if k == 0 || f.find_field(&f.fields(r), "controller").is_some() {
                            no_id[k] += 1;
                            first_no_id.get_or_insert(r.line);
                        }
                    }
                }
                // (A line re-joined from its pieces or a terminal's rows is
                // one line: its text is in the scratch buffer.)
                let traceback = r.format == crate::model::Format::GoTraceback;
                if (traceback || r.line_count > 1 && r.level >= crate::model::Level::Warn) && !r.message.in_scratch() {
                    // (The lines after the first, and a traceback's first
                    // line too: no log line, but one taken for a frame, as
                    // it names a `.go:` file. Each hit's line counted by
                    // the newlines before it.)
                    let raw = f.raw(r);
                    let (rest, k) = if traceback { (&raw[..], 0u32) } else { (memchr::memchr(b'\n', &raw).map_or(&[][..], |nl| &raw[nl + 1..]), 1u32) };
                    let (mut at, mut k, mut last_line) = (0usize, k, None::<u32>);
                    while let Some(hit) = reconcile_id_finder.find(&rest[at..]) {
                        k += memchr::memchr_iter(b'\n', &rest[at..at + hit]).count() as u32;
                        if last_line != Some(k) {
                            joined += 1;
                            first_joined.get_or_insert(r.line + k);
                            last_line = Some(k);
                        }
                        at += hit + "reconcileID".len();
                    }
                }
                false
            };
            if left_out && first.is_none() {
                first = Some(r.line);
            }
        }
        if let Some((line, text)) = first_other {
            if !any_read {
                let (line, text) = first_line.unwrap_or((line, text));
                unread_files.push((&f.path, f.records.len(), line, text));
            } else {
                let message = if other == 1 {
                    format!("this line is in no format reconscope reads (`{text}`): the analysis does not use it")
                } else {
                    format!("{other} lines are in no format reconscope reads (the first is this one: `{text}`): the analysis does not use them")
                };
                diags.push(Diagnostic { path: f.path.clone(), line: Some(line), message });
            }
        }
        if let Some(line) = first_no_id {
            let n: usize = no_id.iter().sum();
            let which: Vec<String> = NO_ID_MESSAGES.iter().zip(no_id).filter(|(_, k)| *k > 0).map(|(m, k)| format!("{k} `{m}`")).collect();
            let why = "reconscope groups a reconcile's lines by the reconcileID that controller-runtime writes from v0.12 on (older versions and reconcilers that log on their own write none, and a line cut short may have lost it)";
            let message = if n == 1 {
                format!(
                    "this line is a reconcile's (`{}`) but names no reconcileID: {why}, so it is in no reconcile",
                    NO_ID_MESSAGES[no_id.iter().position(|&k| k > 0).unwrap_or(0)]
                )
            } else {
                format!("{n} lines are reconciles' ({}; the first is this one) but name no reconcileID: {why}, so they are in no reconcile", which.join(", "))
            };
            diags.push(Diagnostic { path: f.path.clone(), line: Some(line), message });
        }
        if let Some((line, text)) = first_elided {
            let message = if elided == 1 {
                format!("this line is an elision (`{text}`): lines of the log were left out of the excerpt here: what they said is not known, and the time across it is a gap of the log, not a silence")
            } else {
                format!(
                    "{elided} lines are elisions (the first is this one: `{text}`): lines of the log were left out of the excerpt at each: what they said is not known, and the time across each is a gap of the log, not a silence"
                )
            };
            diags.push(Diagnostic { path: f.path.clone(), line: Some(line), message });
        }
        if let Some(line) = first_joined {
            let message = if joined == 1 {
                "this line names a reconcileID but was read as a line of a Go traceback or stack, not as a log line: the analysis does not use it".to_string()
            } else {
                format!(
                    "{joined} lines that name a reconcileID (the first is this one) were read as lines of a Go traceback or stack, not as log lines: the analysis does not use them"
                )
            };
            diags.push(Diagnostic { path: f.path.clone(), line: Some(line), message });
        }
        if first.is_none() {
            continue;
        }
        let message = if unread + untimed == 1 {
            let why = if unread == 1 { "no format could read it" } else { "it carries no time that could be read" };
            format!("this line names a reconcileID but is in no reconcile: {why}")
        } else {
            let why: Vec<String> = [
                (unread, "no format could read"),
                (untimed, if untimed == 1 { "carries no time that could be read" } else { "carry no time that could be read" }),
            ]
            .iter()
            .filter(|(n, _)| *n > 0)
            .map(|(n, why)| format!("{n} {why}"))
            .collect();
            format!("{} lines name a reconcileID but are in no reconcile (the first is this one): {}", unread + untimed, why.join(", "))
        };
        diags.push(Diagnostic { path: f.path.clone(), line: first, message });
    }
    let Some(&(path, lines, line, ref text)) = unread_files.first() else { return };
    let lines = crate::words::plural(lines, "line", "lines");
    let message = match &unread_files[1..] {
        [] => format!("no line of it is in a format reconscope reads ({lines}, the first: `{text}`): the analysis does not use it"),
        others => {
            const NAMED: usize = 3;
            let mut names: Vec<String> = others.iter().take(NAMED).map(|(p, ..)| format!("`{}`", crate::inert::terminal(p))).collect();
            if others.len() > NAMED {
                names.push(format!("{} more", others.len() - NAMED));
            }
            format!(
                "no line of it ({lines}, the first: `{text}`), nor of {} ({}), is in a format reconscope reads: the analysis does not use them",
                crate::words::plural(others.len(), "other file", "other files"),
                names.join(", ")
            )
        }
    };
    diags.push(Diagnostic { path: path.to_owned(), line: Some(line), message });
}

/// The messages controller-runtime's own reconcile lines write (a failure,
/// and the success it logs at V(1) before v0.12), and the one
/// reconcilers of their own (Crossplane's) open with: with no reconcileID,
/// a reconcile's line that no reconcile takes (the first, only ever
/// controller-runtime's, whatever its keys; the others with a
/// `controller` key).
const NO_ID_MESSAGES: [&str; 3] = ["Reconciler error", "Successfully Reconciled", "Reconciling"];

/// At most 60 characters of a line for a note, its control characters
/// shown (`\x00`), never obeyed.
fn excerpt(line: &[u8]) -> String {
    let text = String::from_utf8_lossy(&line[..line.len().min(240)]);
    let text = crate::inert::terminal(text.trim());
    match text.char_indices().nth(60) {
        Some((i, _)) => format!("{}...", &text[..i]),
        None => text.into_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::{in_turn, AnalyzeOptions, Job};

    /// Jobs of different lengths, on 1 to 4 threads: each result comes
    /// back once, in the jobs' order, whichever thread ran it; a job's
    /// borrowed input is read where it is.
    #[test]
    fn jobs_taken_in_turn_come_back_in_order() {
        let inputs: Vec<u64> = (0..9).collect();
        for threads in 1..=4 {
            let opts = AnalyzeOptions { threads, ..AnalyzeOptions::default() };
            let ran = std::sync::atomic::AtomicUsize::new(0);
            let jobs: Vec<Job<'_, (u64, u64)>> = inputs
                .iter()
                .map(|&n| -> Job<'_, (u64, u64)> {
                    let ran = &ran;
                    Box::new(move || {
                        // The first job is the longest, as in the findings.
                        let spins = if n == 0 { 2_000_000 } else { 10_000 * n };
                        let sum = (0..spins).fold(0u64, |s, k| s.wrapping_add(std::hint::black_box(k)));
                        ran.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        (n, sum)
                    })
                })
                .collect();
            let got = in_turn(&opts, jobs);
            assert_eq!(got.iter().map(|&(n, _)| n).collect::<Vec<_>>(), inputs, "{threads} threads");
            assert_eq!(ran.into_inner(), inputs.len(), "{threads} threads: each job once");
        }
        assert!(in_turn::<u8>(&AnalyzeOptions { threads: 2, ..AnalyzeOptions::default() }, Vec::new()).is_empty());
    }
}
