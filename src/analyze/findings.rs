//! Where reconciles, elections and lifecycles become findings: each with
//! one sentence a person can paste into an issue.

use std::sync::LazyLock;

use memchr::memmem;

use crate::analyze::model::Uncovered;
use crate::analyze::model::{Analysis, Detail, Finding, FindingKind, Outcome, Piece, Reconcile, Severity, Silence};
use crate::analyze::{coverage, AnalyzeOptions};
use crate::model::{ParsedFile, Record, Timestamp, ValueKind};
use crate::time::{honest_duration, Gap, NANOS_PER_SEC};
use crate::words::plural;

pub use crate::time::human_duration;

/// `16:29:30` (UTC clock of a timestamp).
/// When a reconcile began, as the logs know it: `from 16:29:29`, or
/// `begun no earlier than 16:29:29` when that is a latent start from its
/// worker (see [`Reconcile::start_is_bound`]).
pub fn began(r: &Reconcile) -> String {
    if r.start_is_bound() {
        format!("begun no earlier than {}", clock(r.start()))
    } else {
        format!("from {}", clock(r.start()))
    }
}

pub fn clock(t: Timestamp) -> String {
    let s = crate::time::format_rfc3339(Timestamp::new(t.nanos, 0));
    s[11..19].to_string()
}

/// At most `max` characters of quoted log text, cut at a word boundary
/// with `…` when it is longer.
pub fn cut_quote(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let head: String = s.chars().take(max.saturating_sub(1)).collect();
    let at_word = match head.rfind(char::is_whitespace) {
        Some(i) if i > 0 => head[..i].trim_end(),
        _ => head.as_str(),
    };
    format!("{at_word}…")
}

/// A reconcile's error quoted as its line writes it
/// ([`Reconcile::error_parts`]): its message, then after `: ` its error
/// value, each quoted on its own so that each can be found in the log;
/// the two together cut to about `max` characters (the value to 40 at
/// least).
pub fn quote_error(s: Sentence, r: &Reconcile, max: usize) -> Sentence {
    match r.error_parts() {
        Some((message, Some(value))) => {
            let left = max.saturating_sub(message.chars().count()).max(40);
            s.code(cut_quote(message, max)).text(": ").code(cut_quote(value, left))
        }
        Some((message, None)) => s.code(cut_quote(message, max)),
        None => s,
    }
}

/// How long after its start `start` a line at `at` came, as the two
/// timestamps support it: `71µs after it started`, or `within the same
/// second it started (its start is logged to the second)`.
pub fn after_start(start: Timestamp, at: Timestamp) -> String {
    let g = Gap::between(start, at);
    match g.tick_name() {
        Some(unit) if g.within_tick() => {
            let coarse = if start.digits <= at.digits { "its start is" } else { "that line is" };
            format!("within the same {unit} it started ({coarse} logged to the {unit})")
        }
        _ => format!("{} after it started", honest_duration(start, at)),
    }
}

/// A finding's sentence built in pieces: [`Finding::message`] is its plain
/// form, [`Finding::pieces`] the pieces.
#[derive(Clone, Debug, Default)]
pub struct Sentence(pub Vec<Piece>);

impl Sentence {
    /// The sentence's own words (joined to the text before them).
    pub fn text(mut self, s: impl AsRef<str>) -> Self {
        let s = s.as_ref();
        if s.is_empty() {
            return self;
        }
        match self.0.last_mut() {
            Some(Piece::Text(t)) => t.push_str(s),
            _ => self.0.push(Piece::Text(s.to_string())),
        }
        self
    }

    /// Quoted log text.
    pub fn code(mut self, s: impl Into<String>) -> Self {
        self.0.push(Piece::Code(s.into()));
        self
    }

    /// A command to run (lines separated by `\n`).
    pub fn command(mut self, s: impl Into<String>) -> Self {
        self.0.push(Piece::Command(s.into()));
        self
    }

    /// Another sentence's pieces after these.
    pub fn then(mut self, other: Sentence) -> Self {
        for p in other.0 {
            self = match p {
                Piece::Text(t) => self.text(t),
                p => {
                    self.0.push(p);
                    self
                }
            };
        }
        self
    }

    /// The plain sentence: code in backticks, a command's lines joined.
    pub fn plain(&self) -> String {
        plain(&self.0)
    }
}

/// [`Sentence::plain`] of pieces.
pub fn plain(pieces: &[Piece]) -> String {
    let mut out = String::new();
    for p in pieces {
        match p {
            Piece::Text(t) => out.push_str(t),
            Piece::Code(c) => {
                out.push('`');
                out.push_str(c);
                out.push('`');
            }
            Piece::Command(c) => {
                out.push('`');
                out.push_str(&c.replace('\n', " "));
                out.push('`');
            }
        }
    }
    out
}

/// Adds a sentence to a finding's message and pieces.
pub fn append(f: &mut Finding, s: Sentence) {
    f.message.push_str(&s.plain());
    let pieces = std::mem::take(&mut f.pieces);
    f.pieces = Sentence(pieces).then(s).0;
}

/// A finding of a sentence without code.
fn words(s: String) -> Sentence {
    Sentence::default().text(s)
}

fn overlapping(a: &Analysis, start: Timestamp, end: Timestamp) -> Vec<usize> {
    a.elections.iter().enumerate().filter(|(_, e)| e.start <= end && e.end.is_none_or(|x| x >= start)).map(|(i, _)| i).collect()
}

/// `2 etcd leader elections in etcd tenant-root (16:31:39–16:33:04)`.
fn describe_elections(a: &Analysis, els: &[usize]) -> String {
    let (Some(&f), Some(&l)) = (els.first(), els.last()) else { return String::new() };
    let (first, last) = (&a.elections[f], &a.elections[l]);
    let end = last.end.map_or("the end of the logs".to_string(), clock);
    let n = if els.len() == 1 { "an etcd leader election".to_string() } else { format!("{} etcd leader elections", els.len()) };
    format!("{n} in {} ({}–{})", first.cluster, clock(first.start), end)
}

fn election_clause(a: &Analysis, els: &[usize]) -> String {
    if els.is_empty() {
        return String::new();
    }
    format!("; it overlaps {}", describe_elections(a, els))
}

/// The reconciles sorted out in one pass for the finders, which each made
/// passes of their own over all of them (one per controller instance,
/// even): on a big log a pass cost more than a finder's own work.
struct Index {
    /// Each instance's reconciles, in index order.
    by_controller: Vec<Vec<Ends>>,
    /// Failed reconciles, in index order.
    failed: Vec<usize>,
}

/// What the stall search reads of every reconcile, together: sorts and
/// searches that look it up in the reconciles read far away in memory.
/// Ordered by end, then start, then index.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Ends {
    last: Timestamp,
    first: Timestamp,
    i: usize,
    lane: u32,
}

impl Index {
    fn of(a: &Analysis) -> Index {
        let mut by_controller = vec![Vec::new(); a.controllers.len()];
        let mut failed = Vec::new();
        for (i, r) in a.reconciles.iter().enumerate() {
            by_controller[r.controller].push(Ends { last: r.last, first: r.first, i, lane: r.lane });
            if r.outcome == Outcome::Error {
                failed.push(i);
            }
        }
        Index { by_controller, failed }
    }
}

/// How many pieces [`find`] cuts the failed reconciles into for the
/// expired contexts (see [`crate::analyze::in_turn`]).
const EXPIRED_PIECES: usize = 8;

pub fn find(a: &mut Analysis, files: &[ParsedFile], opts: &AnalyzeOptions, cover: &coverage::Index) {
    // The findings made before (see [`crate::analyze::signals`]), sorted
    // in with these.
    let mut out = std::mem::take(&mut a.findings);
    let Index { by_controller, failed } = Index::of(a);
    let uncovered = stalled_workers(a, by_controller, files, opts, cover, &mut out);
    a.coverage.uncovered = uncovered;
    // The expired contexts read every failed reconcile's lines: natively,
    // in pieces of the failed reconciles that two threads take in turn,
    // after the kinds that read only the reconciles (the longest piece,
    // taken first), joined in the order of one thread: expired contexts,
    // then the others.
    let a_now: &Analysis = a;
    let deadline_warnings = deadline_warnings(a_now);
    let deadline_warnings = &deadline_warnings[..];
    let mut jobs: Vec<crate::analyze::Job<'_, Vec<Finding>>> = vec![Box::new(|| {
        let mut found = Vec::new();
        stuck_deletions(a_now, opts, &mut found);
        slow_reconciles(a_now, opts, &mut found);
        hot_loops(a_now, opts, &mut found);
        error_bursts(a_now, &failed, &mut found);
        found
    })];
    for piece in failed.chunks(failed.len().div_ceil(EXPIRED_PIECES).max(1)) {
        jobs.push(Box::new(move || {
            let mut found = Vec::new();
            expired_contexts(a_now, piece, deadline_warnings, files, opts, cover, &mut found);
            found
        }));
    }
    let mut found = crate::analyze::in_turn(opts, jobs).into_iter();
    let others = found.next().unwrap_or_default();
    out.extend(found.flatten());
    out.extend(others);
    crate::analyze::saturation::find(a, opts, &mut out);
    // Any other finding whose window overlaps an election gets an
    // election-overlap finding of its own, naming both.
    let mut extra = Vec::new();
    for f in &out {
        if !f.elections.is_empty() && matches!(f.kind, FindingKind::StalledWorker | FindingKind::SaturatedWorkers) {
            extra.push(Finding {
                blocked: None,
                silence: None,
                detail: None,
                kind: FindingKind::ElectionOverlap,
                severity: Severity::Info,
                controller: f.controller,
                object: f.object.clone(),
                start: f.start,
                end: f.end,
                reconciles: f.reconciles.clone(),
                elections: f.elections.clone(),
                message: String::new(),
                pieces: Vec::new(),
            });
            let e = extra.last_mut().expect("just pushed");
            append(e, words(format!("The {} window {}–{} overlaps {}.", f.kind.as_str(), clock(f.start), clock(f.end), describe_elections(a, &f.elections))));
        }
    }
    out.extend(extra);
    // A sentence without code is one piece of text.
    for f in &mut out {
        if f.pieces.is_empty() {
            f.pieces.push(Piece::Text(f.message.clone()));
        }
    }
    out.sort_by_key(|f| (f.start, f.kind));
    explanations_first(&mut out);
    a.findings = out;
}

/// Moves each `saturated-workers` finding before the first of the
/// `slow-reconcile` findings of its holders: those started before the
/// saturation did (it starts when the last worker was taken), but it is
/// what explains them, so it is read first.
fn explanations_first(out: &mut Vec<Finding>) {
    for i in 0..out.len() {
        let Some(Detail::Saturation(d)) = out[i].detail.as_deref() else { continue };
        let holders = &out[i].reconciles[..d.held.len().min(out[i].reconciles.len())];
        let explained = |f: &Finding| f.kind == FindingKind::SlowReconcile && !f.reconciles.is_empty() && f.reconciles.iter().all(|r| holders.contains(r));
        if let Some(j) = out[..i].iter().position(explained) {
            let f = out.remove(i);
            out.insert(j, f);
        }
    }
}

/// The usual one of `nanos` (the median, at least a second) and what is
/// far past it: twenty times that, or twice the reconcile timeout when
/// more. Saturating: a usual wait of centuries is no overflow. `nanos` is
/// not empty.
pub(crate) fn usual_and_far_past(nanos: &mut [i64], opts: &AnalyzeOptions) -> (i64, i64) {
    let mid = nanos.len() / 2;
    let normal = (*nanos.select_nth_unstable(mid).1).max(NANOS_PER_SEC);
    (normal, normal.saturating_mul(20).max(opts.reconcile_timeout_nanos.saturating_mul(2)))
}

/// A worker lane that ended no reconcile for far longer than usual and than
/// the reconcile timeout, while work was pending, and whose log covers the
/// silence (see [`coverage::silence`]); a silence it does not cover is
/// returned instead, never a stall.
/// `by_controller`: each instance's reconciles (see [`Index`]).
fn stalled_workers(
    a: &Analysis,
    by_controller: Vec<Vec<Ends>>,
    files: &[ParsedFile],
    opts: &AnalyzeOptions,
    cover: &coverage::Index,
    out: &mut Vec<Finding>,
) -> Vec<Uncovered> {
    let mut uncovered = Vec::new();
    for ((ci, c), mut by_end) in a.controllers.iter().enumerate().zip(by_controller) {
        // By end, then start (the index breaks ties as a stable sort would
        // of reconciles in index order). Nearly sorted already, which the
        // stable sort makes use of.
        by_end.sort();
        if by_end.len() < 3 {
            continue;
        }
        // The instance's normal gap between reconcile ends.
        let mut gaps: Vec<i64> = by_end.windows(2).map(|w| w[1].last.nanos.saturating_sub(w[0].last.nanos)).collect();
        let (normal, threshold) = usual_and_far_past(&mut gaps, opts);
        // Each lane's reconciles in that order (every lane is below `workers`).
        let mut by_lane: Vec<Vec<Ends>> = vec![Vec::new(); c.workers as usize];
        for e in &by_end {
            by_lane[e.lane as usize].push(*e);
        }
        for (lane, lane_rs) in by_lane.iter().enumerate() {
            for w in lane_rs.windows(2) {
                let gap = w[1].last.nanos.saturating_sub(w[0].last.nanos);
                if gap <= threshold {
                    continue;
                }
                let (prev, next) = (&a.reconciles[w[0].i], &a.reconciles[w[1].i]);
                // The reconcile that ends the gap must have been in flight
                // during it: its first line came late, or it ran long.
                // Otherwise the worker was idle, not stuck.
                let held_long =
                    next.latent_start.is_some_and(|ls| ls <= prev.last) || next.last.nanos.saturating_sub(next.first.nanos) > opts.reconcile_timeout_nanos;
                if !held_long {
                    continue;
                }
                // Work was pending: regular reconciles before (ending in the
                // 10 minutes up to `prev`'s end), or a burst after (ending
                // after `next`, within a minute): stretches of `by_end`.
                let ends_by = |t: i64| by_end.partition_point(|e| e.last.nanos <= t);
                let before = ends_by(prev.last.nanos) - by_end.partition_point(|e| e.last.nanos < prev.last.nanos.saturating_sub(10 * 60 * NANOS_PER_SEC));
                let after_from = by_end.partition_point(|e| e.last <= next.last);
                let after: Vec<usize> =
                    by_end[after_from..ends_by(next.last.nanos.saturating_add(60 * NANOS_PER_SEC)).max(after_from)].iter().map(|e| e.i).collect();
                if before < 3 && after.len() < 3 {
                    continue;
                }
                // From the worker's last line before the silence (a line at
                // `start` may fall anywhere in its tick, so the silence is
                // counted from the next tick on).
                let start = prev.last;
                let end = next.last;
                let counted_from = start.nanos.saturating_add(crate::time::tick_nanos(start.digits));
                // The worker's silence against its log: the source of the
                // held reconcile's first line, its own lines left out.
                let Some(source) = a.records_of(next).first().and_then(|rr| cover.source_of_file.get(rr.file as usize).copied().flatten()) else { continue };
                let own = a
                    .records_of(next)
                    .iter()
                    .filter(|rr| cover.source_of_file.get(rr.file as usize).copied().flatten() == Some(source))
                    .filter(|rr| {
                        super::reconciles::time_of(&files[rr.file as usize].records[rr.record as usize])
                            .is_some_and(|t| t.nanos >= counted_from && t.nanos <= end.nanos)
                    })
                    .count() as u32;
                let silence = coverage::silence(a, cover, source, start, end, own);
                let src = coverage::source_name(&a.coverage.sources[source]);
                if !silence.covered {
                    let hole = coverage::gap_over(&a.coverage.sources[source], start.nanos, end.nanos);
                    let why = match hole {
                        Some(g) => format!("has no line at all from {} to {}: the log may be missing there", clock(g.start), clock(g.end)),
                        None => "wrote no other line then: nothing shows the process was logging".to_string(),
                    };
                    uncovered.push(Uncovered {
                        controller: ci,
                        lane: lane as u32,
                        reconcile_id: next.reconcile_id.clone(),
                        message: format!(
                            "Worker {} of {} ended no reconcile {} → {} (reconcile {} held it), but its log {src} {why}, so this is not reported as a stall.",
                            lane + 1,
                            c.name,
                            clock(start),
                            clock(end),
                            next.reconcile_id,
                        ),
                        silence,
                    });
                    continue;
                }
                let els = overlapping(a, start, end);
                let mut waited: Vec<String> = after.iter().filter_map(|&i| a.reconciles[i].object.as_ref().map(|o| o.to_string())).collect();
                waited.sort();
                waited.dedup();
                let held = next.object.as_ref().map_or("an unknown object".to_string(), |o| o.to_string());
                let outcome = match next.outcome {
                    Outcome::Error => quote_error(Sentence::default().text(" and ended with "), next, 120),
                    _ => Sentence::default(),
                };
                let waited_clause = if waited.is_empty() {
                    String::new()
                } else {
                    let shown: Vec<&str> = waited.iter().take(5).map(String::as_str).collect();
                    let more = if waited.len() > 5 { format!(" and {} more", waited.len() - 5) } else { String::new() };
                    format!(
                        "; {} reconciled right after ({}{})",
                        plural(waited.len(), "object waited and was", "objects waited and were"),
                        shown.join(", "),
                        more
                    )
                };
                let sentence = words(format!(
                    "Worker {} of {} ({}) ended no reconcile for {} ({} → {}, normally every {}): reconcile {} of {} held it",
                    lane + 1,
                    c.name,
                    plural(c.workers, "worker", "workers"),
                    honest_duration(start, end),
                    clock(start),
                    clock(end),
                    human_duration(normal),
                    next.reconcile_id,
                    held,
                ))
                .then(outcome)
                .text(format!("{}{}.", waited_clause, election_clause(a, &els)))
                .text(format!(
                    " Covered: {src} logged {} meanwhile, so the worker, not the log, was silent.",
                    plural(silence.other_lines, "other line", "other lines")
                ));
                out.push(Finding {
                    blocked: None,
                    detail: None,
                    kind: FindingKind::StalledWorker,
                    severity: Severity::Error,
                    controller: Some(ci),
                    object: next.object.as_deref().cloned(),
                    start,
                    end,
                    reconciles: std::iter::once(w[1].i).chain(after.iter().copied()).collect(),
                    elections: els,
                    message: sentence.plain(),
                    pieces: sentence.0,
                    silence: Some(silence),
                });
            }
        }
        out.extend(held_to_the_end(a, ci, &by_end, (normal, threshold), files, cover));
    }
    uncovered
}

/// Every worker of instance `ci` held to its log's end: after regular
/// reconciles (3 or more ending in the 10 minutes before), it ended none
/// for far longer than usual (`usual.1`) up to its log's last line, the
/// log covers that silence, and a goroutine dump taken after the silence
/// began shows as many of its workers busy as it has, each blocked since
/// `usual.1` after the silence began at the latest. The sentence names the
/// last reconcile line before the silence and no holder: whether that
/// reconcile had ended, or a later one that logged nothing held the
/// worker, the log does not say. Without such a dump an instance that
/// ends no reconcile at the end of a log is as likely idle, and there is
/// no finding.
fn held_to_the_end(a: &Analysis, ci: usize, by_end: &[Ends], usual: (i64, i64), files: &[ParsedFile], cover: &coverage::Index) -> Option<Finding> {
    let (normal, threshold) = usual;
    let c = &a.controllers[ci];
    let prev = &a.reconciles[by_end.last()?.i];
    let source = a.records_of(prev).first().and_then(|rr| cover.source_of_file.get(rr.file as usize).copied().flatten())?;
    let end = a.coverage.sources[source].last;
    if end.nanos.saturating_sub(prev.last.nanos) <= threshold {
        return None;
    }
    let before = by_end.len() - by_end.partition_point(|e| e.last.nanos < prev.last.nanos.saturating_sub(10 * 60 * NANOS_PER_SEC));
    if before < 3 {
        return None;
    }
    let start = prev.last;
    let held_by = |d: usize, t: Timestamp| -> u64 {
        a.goroutines
            .iter()
            .filter(|g| g.dump == d && g.role == "busy-worker" && g.controller == Some(ci))
            .filter(|g| {
                t.nanos.saturating_sub(i64::from(g.max_wait_minutes.unwrap_or(0)).saturating_mul(60 * NANOS_PER_SEC)) <= start.nanos.saturating_add(threshold)
            })
            .map(|g| g.count)
            .sum()
    };
    let shown = a.dumps.iter().enumerate().any(|(d, dump)| dump.time.is_some_and(|t| t >= start && held_by(d, t) >= u64::from(c.workers.max(1))));
    if !shown {
        return None;
    }
    let silence = coverage::silence(a, cover, source, start, end, 0);
    if !silence.covered {
        return None;
    }
    let src = coverage::source_name(&a.coverage.sources[source]);
    let els = overlapping(a, start, end);
    let who = match c.workers {
        0 | 1 => format!("Worker 1 of {} (1 worker)", c.name),
        2 => format!("Both workers of {}", c.name),
        n => format!("All {n} workers of {}", c.name),
    };
    let rr = *a.records_of(prev).last()?;
    let last_said = files[rr.file as usize].message(&files[rr.file as usize].records[rr.record as usize]).into_owned();
    let sentence = words(format!(
        "{who} ended no reconcile for the last {} of its log ({} → {}, where {src} ends; normally every {}): its last reconcile line is reconcile {} of {} at {} (",
        honest_duration(start, end),
        clock(start),
        clock(end),
        human_duration(normal),
        prev.reconcile_id,
        prev.object.as_ref().map_or("an unknown object".to_string(), |o| o.to_string()),
        clock(prev.last),
    ))
    .code(cut_quote(&last_said, 120))
    .text(format!("), and no line after it names a reconcile of {}{}.", c.name, election_clause(a, &els)))
    .text(format!(
        " Covered: {src} logged {} meanwhile, so the worker{}, not the log, {} silent.",
        plural(silence.other_lines, "other line", "other lines"),
        if c.workers <= 1 { "" } else { "s" },
        if c.workers <= 1 { "was" } else { "were" },
    ));
    Some(Finding {
        blocked: None,
        detail: None,
        kind: FindingKind::StalledWorker,
        severity: Severity::Error,
        controller: Some(ci),
        object: None,
        start,
        end,
        reconciles: Vec::new(),
        elections: els,
        message: sentence.plain(),
        pieces: sentence.0,
        silence: Some(Silence { to_log_end: true, ..silence }),
    })
}

/// Whether text says a deadline passed.
fn is_deadline(s: &str) -> bool {
    has_deadline_words(s.as_bytes())
}

/// `context deadline exceeded` or `DeadlineExceeded` in bytes (searchers
/// made once: `str::contains` makes one a call).
fn has_deadline_words(b: &[u8]) -> bool {
    static WORDS: LazyLock<[memmem::Finder<'static>; 2]> =
        LazyLock::new(|| [memmem::Finder::new("context deadline exceeded"), memmem::Finder::new("DeadlineExceeded")]);
    WORDS.iter().any(|w| w.find(b).is_some())
}

/// [`is_deadline`] of a message's or field value's text, searched in its
/// bytes: decoding them (a UTF-8 check, a copy for escapes) cost more than
/// the search, for every record of every failed reconcile. The words are
/// ASCII, which lossy decoding neither makes nor breaks; a JSON escape can,
/// so escaped text is decoded.
fn deadline_in(raw: &[u8], kind: ValueKind) -> bool {
    if kind == ValueKind::JsonString && memchr::memchr(b'\\', raw).is_some() {
        return is_deadline(&crate::escape::unescape(raw));
    }
    has_deadline_words(raw)
}

/// Whether a record's message or error field (zap's `error`, klog's
/// `err`) says a deadline passed.
fn says_deadline(f: &ParsedFile, r: &Record) -> bool {
    if deadline_in(&f.span_bytes(r.message), r.message_kind) {
        return true;
    }
    let fields = f.fields(r);
    f.find_error(&fields).is_some_and(|fl| deadline_in(&f.span_bytes(fl.value), fl.kind))
}

/// The etcd client's warnings that report a deadline, by where they are in
/// the files: their records and their indexes.
fn deadline_warnings(a: &Analysis) -> Vec<(crate::analyze::RecordRef, usize)> {
    let mut found: Vec<_> =
        a.client_warnings.iter().enumerate().filter(|(_, w)| w.error.as_deref().is_some_and(is_deadline)).map(|(i, w)| (w.record, i)).collect();
    found.sort_unstable();
    found
}

/// A reconcile that failed on a deadline far sooner than the timeout: its
/// context had already expired when it started. `deadline_warnings`: see
/// [`deadline_warnings`].
fn expired_contexts(
    a: &Analysis,
    failed: &[usize],
    deadline_warnings: &[(crate::analyze::RecordRef, usize)],
    files: &[ParsedFile],
    opts: &AnalyzeOptions,
    cover: &coverage::Index,
    out: &mut Vec<Finding>,
) {
    for &i in failed {
        let r = &a.reconciles[i];
        // Ran long (its latent start says so): a real timeout, not this.
        if let Some(ls) = r.latent_start {
            if r.first.nanos.saturating_sub(ls.nanos) > opts.reconcile_timeout_nanos / 10 {
                continue;
            }
        }
        // Its first line came right after a hole in its log: when it began
        // is not in the log, so neither is an early deadline.
        if coverage::right_after_gap(a, cover, r) {
            continue;
        }
        // The first deadline error among its records, and the etcd client
        // warnings logged between its lines in the same file.
        let mut deadline_at: Option<Timestamp> = None;
        for (k, rr) in a.records_of(r).iter().enumerate() {
            let f = &files[rr.file as usize];
            let rec = &f.records[rr.record as usize];
            if says_deadline(f, rec) {
                // Its first line: nothing logged says when it began (a
                // reconcile whose only line is its error), so nothing says
                // how soon the deadline came.
                deadline_at = super::reconciles::time_of(rec).filter(|_| k > 0);
                break;
            }
        }
        let Some(deadline_at) = deadline_at else { continue };
        let (Some(first_rec), Some(last_rec)) = (a.records_of(r).first(), a.records_of(r).last()) else { continue };
        // The first such warning logged between its first and last line.
        let k = deadline_warnings.partition_point(|(rr, _)| rr <= first_rec);
        let client = deadline_warnings.get(k).filter(|(rr, _)| rr.file == first_rec.file && rr.record < last_rec.record).map(|&(_, wi)| &a.client_warnings[wi]);
        let after = deadline_at.nanos.saturating_sub(r.first.nanos);
        if after > opts.reconcile_timeout_nanos / 10 {
            continue;
        }
        let how = match client.map(|w| (w.time, w.attempt)) {
            Some((t, Some(att))) => words(format!("the etcd client logged DeadlineExceeded on attempt {att} {}", after_start(r.first, t))),
            Some((t, None)) => words(format!("the etcd client logged DeadlineExceeded {}", after_start(r.first, t))),
            None => words("it failed with ".into()).code("context deadline exceeded").text(format!(" {}", after_start(r.first, deadline_at))),
        };
        let obj = r.object.as_ref().map_or("an unknown object".to_string(), |o| o.to_string());
        let first_msg = {
            let f = &files[first_rec.file as usize];
            f.message(&f.records[first_rec.record as usize]).into_owned()
        };
        let sentence = words(format!("Reconcile {} of {} at {} (", r.reconcile_id, obj, clock(r.first)))
            .code(cut_quote(&first_msg, 80))
            // The timeout is not in the logs: the one assumed.
            .text(format!(") reached a deadline far inside a {} reconcile timeout (assumed, ", human_duration(opts.reconcile_timeout_nanos)))
            .code("--reconcile-timeout")
            .text("): ")
            .then(how)
            .text(", so its context had already expired.");
        let end = client.map_or(deadline_at, |w| w.time.max(deadline_at));
        out.push(Finding {
            blocked: None,
            silence: None,
            detail: None,
            kind: FindingKind::ExpiredContext,
            severity: Severity::Error,
            controller: Some(r.controller),
            object: r.object.as_deref().cloned(),
            start: r.first,
            end,
            reconciles: vec![i],
            elections: overlapping(a, r.first, end),
            message: sentence.plain(),
            pieces: sentence.0,
        });
    }
}

/// A deletion was requested, but the object still has finalizers at the end
/// of the evidence, or no completion followed in time.
fn stuck_deletions(a: &Analysis, opts: &AnalyzeOptions, out: &mut Vec<Finding>) {
    let evidence_end = a.reconciles.iter().map(|r| r.last).chain(a.elections.iter().filter_map(|e| e.end)).max();
    let logs_end = a.coverage.sources.iter().map(|s| s.last).max();
    for o in &a.objects {
        let requested = o.deletion_requested.or(o.marked_for_deletion);
        let Some(req) = requested else { continue };
        let still_there = o.in_dump && !o.finalizers.is_empty();
        let late = match o.deleted {
            Some(d) => d.nanos.saturating_sub(req.nanos) > opts.stuck_deletion_nanos,
            None => evidence_end.is_some_and(|e| e.nanos.saturating_sub(req.nanos) > opts.stuck_deletion_nanos),
        };
        if !(still_there || (o.deleted.is_none() && late)) {
            continue;
        }
        // Still there in the dump: not gone as late as any log shows.
        let end = if still_there { evidence_end.max(logs_end) } else { evidence_end };
        let end = end.unwrap_or(req).max(req);
        let reconciles: Vec<usize> =
            (0..a.reconciles.len()).filter(|&i| a.reconciles[i].object.as_deref() == Some(&o.object) && a.reconciles[i].last >= req).collect();
        // The reconciles that started after the request, and any already
        // running when it came (from its latent start), which began as
        // something else. A latent start from the worker is only the
        // earliest it began: the sentence says so.
        let (after, running): (Vec<usize>, Vec<usize>) = reconciles.iter().partition(|&&i| a.reconciles[i].start() >= req);
        let failed = |is: &[usize]| is.iter().filter(|&&i| a.reconciles[i].outcome == Outcome::Error).count();
        let gens = match (o.generation, o.observed_generation) {
            (Some(g), Some(og)) if g != og => format!(", generation {g} but observedGeneration {og}"),
            _ => String::new(),
        };
        let fins = if o.finalizers.is_empty() { String::new() } else { format!(" and still carries {}", o.finalizers.join(", ")) };
        let mut ran = match after.len() {
            0 if running.is_empty() => "no reconcile of it ran after the request".to_string(),
            0 => "no reconcile of it started after the request".to_string(),
            n => format!("{} after the request, {} failed", plural(n, "deletion reconcile ran", "deletion reconciles ran"), failed(&after)),
        };
        match running[..] {
            [] => {}
            [i] => {
                let r = &a.reconciles[i];
                let how = match r.outcome {
                    Outcome::Error => "failed at",
                    Outcome::Unfinished => "was still running at its log's last line,",
                    _ => "ended at",
                };
                // Its first line came late: it began no earlier than its
                // worker was free, and may have begun after the request.
                ran += &if !r.start_is_bound() || r.first < req {
                    format!("; the reconcile running when it came ({}) {how} {}", began(r), clock(r.last))
                } else {
                    format!(
                        "; the reconcile that may have been running when it came ({}, its first line at {}) {how} {}",
                        began(r),
                        clock(r.first),
                        clock(r.last)
                    )
                };
            }
            _ => {
                let last = running.iter().map(|&i| a.reconciles[i].last).max().unwrap_or(req);
                let maybe = running.iter().any(|&i| a.reconciles[i].start_is_bound() && a.reconciles[i].first >= req);
                let which = if maybe { "that may have been running" } else { "running" };
                ran += &format!("; the {} reconciles {which} when it came ended by {}, {} failed", running.len(), clock(last), failed(&running));
            }
        }
        let message = format!(
            "{} {} was asked to be deleted at {} but is not gone {} later{}{}; {}.",
            o.kind.as_deref().unwrap_or("Object"),
            o.object,
            clock(req),
            honest_duration(req, end),
            fins,
            gens,
            ran
        );
        out.push(Finding {
            blocked: None,
            silence: None,
            detail: None,
            kind: FindingKind::StuckDeletion,
            severity: Severity::Error,
            controller: reconciles.first().map(|&i| a.reconciles[i].controller),
            object: Some(o.object.clone()),
            start: req,
            end,
            elections: overlapping(a, req, end),
            reconciles,
            pieces: Vec::new(),
            message,
        });
    }
}

fn slow_reconciles(a: &Analysis, opts: &AnalyzeOptions, out: &mut Vec<Finding>) {
    for (i, r) in a.reconciles.iter().enumerate() {
        // From the start a line of it states (Flux's `Reconciliation failed
        // after 1m30s`), else from its first line: never from the earliest
        // its worker allows, which is only a bound.
        let start = r.known_start();
        let d = r.last.nanos.saturating_sub(start.nanos);
        if d <= opts.reconcile_timeout_nanos {
            continue;
        }
        let obj = r.object.as_ref().map_or("an unknown object".to_string(), |o| o.to_string());
        let stated = if r.stated_start { ", as a line of it states" } else { "" };
        // The timeout is not in the logs: the one assumed.
        let sentence = words(format!(
            "Reconcile {} of {} ran {} ({}–{}{stated}), longer than a {} reconcile timeout (assumed, ",
            r.reconcile_id,
            obj,
            honest_duration(start, r.last),
            clock(start),
            clock(r.last),
            human_duration(opts.reconcile_timeout_nanos)
        ))
        .code("--reconcile-timeout")
        .text(").");
        out.push(Finding {
            blocked: None,
            silence: None,
            detail: None,
            kind: FindingKind::SlowReconcile,
            severity: Severity::Warning,
            controller: Some(r.controller),
            object: r.object.as_deref().cloned(),
            start,
            end: r.last,
            reconciles: vec![i],
            elections: overlapping(a, start, r.last),
            message: sentence.plain(),
            pieces: sentence.0,
        });
    }
}

fn hot_loops(a: &Analysis, opts: &AnalyzeOptions, out: &mut Vec<Finding>) {
    // Reconciles share their object: group by its address, then order the
    // groups by controller and object (and first reconcile, for objects
    // equal but not shared) so findings come out the same way. Each
    // reconcile's start is kept beside it, for the sort and the windows.
    let mut by_obj: rustc_hash::FxHashMap<(usize, usize), Vec<(Timestamp, usize)>> = Default::default();
    for (i, r) in a.reconciles.iter().enumerate() {
        if let Some(o) = &r.object {
            by_obj.entry((r.controller, std::sync::Arc::as_ptr(o) as usize)).or_default().push((r.first, i));
        }
    }
    let mut groups: Vec<_> =
        by_obj.into_values().filter_map(|rs| Some((a.reconciles[rs[0].1].controller, a.reconciles[rs[0].1].object.as_deref()?, rs))).collect();
    groups.sort_by(|x, y| (x.0, x.1, x.2[0].1).cmp(&(y.0, y.1, y.2[0].1)));
    for (ci, obj, mut rs) in groups {
        // By start (the index breaks ties as a stable sort would).
        rs.sort_unstable();
        let limit = opts.hot_loop_per_minute as usize;
        let mut j = 0;
        let mut i = 0;
        while i < rs.len() {
            while rs[i].0.nanos.saturating_sub(rs[j].0.nanos) > 60 * NANOS_PER_SEC {
                j += 1;
            }
            if i - j + 1 > limit {
                // The whole minute from the window's start.
                let mut k = i;
                while k + 1 < rs.len() && rs[k + 1].0.nanos.saturating_sub(rs[j].0.nanos) <= 60 * NANOS_PER_SEC {
                    k += 1;
                }
                let (s, e) = (rs[j].0, a.reconciles[rs[k].1].last);
                out.push(Finding {
                    blocked: None,
                    silence: None,
                    detail: None,
                    kind: FindingKind::HotLoop,
                    severity: Severity::Warning,
                    controller: Some(ci),
                    object: a.reconciles[rs[k].1].object.as_deref().cloned(),
                    start: s,
                    end: e,
                    reconciles: rs[j..=k].iter().map(|&(_, i)| i).collect(),
                    elections: overlapping(a, s, e),
                    pieces: Vec::new(),
                    message: format!("{obj} was reconciled {} times within a minute from {} (more than {limit} a minute).", k - j + 1, clock(s)),
                });
                i = k + 1;
                j = i;
                continue;
            }
            i += 1;
        }
    }
}

/// Many failed reconciles of one instance within a minute.
fn error_bursts(a: &Analysis, failed: &[usize], out: &mut Vec<Finding>) {
    const MIN_ERRORS: usize = 10;
    // Each instance's failed reconciles' ends.
    let mut ends: Vec<Vec<(Timestamp, usize)>> = vec![Vec::new(); a.controllers.len()];
    for &i in failed {
        let r = &a.reconciles[i];
        ends[r.controller].push((r.last, i));
    }
    for (ci, mut errs) in ends.into_iter().enumerate() {
        // By end (the index breaks ties as a stable sort would).
        errs.sort_unstable();
        let mut j = 0;
        let mut i = 0;
        while i < errs.len() {
            while errs[i].0.nanos.saturating_sub(errs[j].0.nanos) > 60 * NANOS_PER_SEC {
                j += 1;
            }
            if i - j + 1 >= MIN_ERRORS {
                let mut k = i;
                while k + 1 < errs.len() && errs[k + 1].0.nanos.saturating_sub(errs[j].0.nanos) <= 60 * NANOS_PER_SEC {
                    k += 1;
                }
                let (s, e) = (errs[j].0, errs[k].0);
                let burst: Vec<usize> = errs[j..=k].iter().map(|&(_, r)| r).collect();
                // One object failing again and again is named, and so is
                // the error most of them ended with.
                let first_object = a.reconciles[burst[0]].object.clone();
                let object = first_object.filter(|o| burst.iter().all(|&r| a.reconciles[r].object.as_ref() == Some(o)));
                let mut sentence = Sentence::default().text(format!("{} reconciles of {}", burst.len(), a.controllers[ci].name));
                if let Some(o) = &object {
                    sentence = sentence.text(format!(", all of {o},"));
                }
                sentence = sentence.text(format!(" failed within a minute from {}", clock(s)));
                // Per error: how many, and the first reconcile with it.
                let mut by_error: std::collections::BTreeMap<&str, (usize, usize)> = std::collections::BTreeMap::new();
                for &r in &burst {
                    if let Some(e) = a.reconciles[r].error.as_deref() {
                        by_error.entry(e).or_insert((0, r)).0 += 1;
                    }
                }
                // The most common, the first in text order among equals.
                let common = by_error.iter().max_by_key(|(e, (n, _))| (*n, std::cmp::Reverse(**e)));
                sentence = match common {
                    Some((_, &(n, r))) if n == burst.len() => quote_error(sentence.text(", each with "), &a.reconciles[r], 120).text("."),
                    Some((_, &(n, r))) if n * 2 > burst.len() => quote_error(sentence.text(format!(", {n} of them with ")), &a.reconciles[r], 120).text("."),
                    _ => sentence.text("."),
                };
                out.push(Finding {
                    blocked: None,
                    silence: None,
                    detail: None,
                    kind: FindingKind::ErrorBurst,
                    severity: Severity::Warning,
                    controller: Some(ci),
                    object: object.map(|o| (*o).clone()),
                    start: s,
                    end: e,
                    reconciles: burst,
                    elections: overlapping(a, s, e),
                    message: sentence.plain(),
                    pieces: sentence.0,
                });
                i = k + 1;
                j = i;
                continue;
            }
            i += 1;
        }
    }
}
