//! The worker's state: the inputs taken in (slice by slice), the
//! analysis, and what the page asks of it afterwards.

use crate::analyze::{self, Analysis, AnalyzeOptions, RecordRef};
use crate::evidence::{self, Evidence, EvidenceMeta, ShareOptions};
use crate::model::ParsedFile;
use crate::parse::StreamParser;
use crate::pipeline::{LoadOptions, Loaded};
use crate::redact::RedactOptions;
use crate::stats::FileStats;

use super::split::{reserve, room_for, Body, Incoming, SplitTail};
use super::{
    matching_reconciles, reconcile_lines, Beside, LeftOut, LeftOutReason, LoadResult, MessageFilter, Phase, Progress, ReconcileLines, ShareRequest,
    SharedEvidence, MARKDOWN_LINKS, MAX_CONTEXT_LINES,
};

/// What a tab keeps of the logs of one load, in all. The worker's wasm
/// memory is 4 GiB at most: a plain log takes about 1.6 times its size
/// there once parsed (its bytes, kept for the inspector, and its records),
/// a packed one about 0.45 (its records, its bytes compressed), with the
/// analysis and the first view on top. Measured with
/// `scripts/browser-big.sh` (README, "Big inputs in the browser").
pub const TAB_LOG_BYTES: u64 = 3456 << 20;

/// The plain logs of one load kept as they are, in all: the logs after
/// that are packed as they are parsed ([`StreamParser::packed`]). A log
/// split between two workers is never packed (the page splits only logs
/// of at most this size).
pub const TAB_PLAIN_BYTES: u64 = 1 << 30;

/// What archives' members may take in all (with the logs before them):
/// they are held plain, as they come out of the archive.
pub const TAB_ARCHIVE_BYTES: u64 = 1536 << 20;

/// The caps on what one load reads ([`Session::with_limits`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadLimits {
    /// The person's cap over all inputs ("Read at most"; the CLI's
    /// `--max-total-bytes`).
    pub max_total_bytes: Option<u64>,
    /// What the tab holds ([`TAB_LOG_BYTES`]; less in tests).
    pub tab_bytes: u64,
    /// What it holds plain ([`TAB_PLAIN_BYTES`]; less in tests).
    pub plain_bytes: u64,
    /// What archives' members may take ([`TAB_ARCHIVE_BYTES`]).
    pub archive_bytes: u64,
}

impl Default for ReadLimits {
    fn default() -> ReadLimits {
        ReadLimits { max_total_bytes: None, tab_bytes: TAB_LOG_BYTES, plain_bytes: TAB_PLAIN_BYTES, archive_bytes: TAB_ARCHIVE_BYTES }
    }
}

impl ReadLimits {
    /// The cap in force and why: the smaller of the two.
    fn cap(&self) -> (u64, LeftOutReason) {
        match self.max_total_bytes {
            Some(c) if c < self.tab_bytes => (c, LeftOutReason::Cap { bytes: c }),
            _ => (self.tab_bytes, LeftOutReason::Tab { bytes: self.tab_bytes }),
        }
    }
}

/// Whether an input named `name` is an evidence file.
pub fn is_evidence_name(name: &str) -> bool {
    name.rsplit('/').next().is_some_and(|n| n.to_ascii_lowercase().ends_with(".reconscope"))
}

/// The worker's state: inputs read so far, then the analysis' record
/// references for the inspector.
#[derive(Debug, Default)]
pub struct Session {
    loaded: Loaded,
    /// `loaded.finish()` ran (it runs once).
    finished: bool,
    load: LoadOptions,
    analyze: AnalyzeOptions,
    files: u32,
    files_done: u32,
    total_bytes: u64,
    done_bytes: u64,
    current: String,
    /// After [`Session::finish`]: the whole analysis, record references
    /// included (the inspector, the filters and sharing read it).
    analysis: Analysis,
    /// The inputs' names, as sent (for naming what was loaded).
    inputs: Vec<String>,
    /// The inputs' modification times ([`ToWorker::Modified`](super::ToWorker::Modified)).
    modified: std::collections::HashMap<String, i64>,
    /// `.reconscope` evidence files among the inputs (name, bytes).
    evidence_inputs: Vec<(String, Vec<u8>)>,
    /// The evidence being shown, when the load was one
    /// ([`Session::from_evidence`]): the analysis it carried.
    evidence: Option<(EvidenceMeta, Analysis)>,
    /// The input arriving in slices ([`Session::receive`]).
    incoming: Option<Incoming>,
    /// The next input to arrive split ([`Session::split`]): name, size,
    /// where its tail begins.
    split: Option<(String, u64, u64)>,
    /// [`ToWorker::FileSlice`](super::ToWorker::FileSlice)s taken in.
    slices: u64,
    limits: ReadLimits,
    /// The plain logs' bytes taken in (see [`TAB_PLAIN_BYTES`]).
    plain_held: u64,
    /// Inputs read in part or not at all because of a cap.
    left_out: Vec<LeftOut>,
}

/// What [`Session::receive`] did with a slice.
#[derive(Debug, PartialEq, Eq)]
pub enum Received {
    /// Taken in; more slices of the file are to come.
    More,
    /// The file is complete: call [`Session::complete`] (after telling the
    /// page it is being parsed: that can take a while for an archive).
    Complete,
    /// Dropped (the file failed before, or this slice is out of order,
    /// which is noted against the file).
    Dropped,
}

impl Session {
    /// A new load of `files` inputs holding `total_bytes` bytes.
    pub fn new(files: u32, total_bytes: u64) -> Session {
        Session { files, total_bytes, ..Session::default() }
    }

    /// [`Session::new`] under caps: plain logs past the cap are read up to
    /// it (to their last whole line), archives' members count their
    /// decompressed bytes against it, and what is left out is noted and
    /// listed in [`LoadResult::left_out`].
    pub fn with_limits(files: u32, total_bytes: u64, limits: ReadLimits) -> Session {
        let mut s = Session { files, total_bytes, limits, ..Session::default() };
        s.load.ingest.max_total_bytes = s.load.ingest.max_total_bytes.min(limits.cap().0).min(limits.archive_bytes);
        s
    }

    /// How much of a plain log of `size` bytes arriving now is read, and
    /// whether it is packed as it is parsed: what is left of the cap, no
    /// more than a file holds ([`crate::parse::MAX_FILE_BYTES`] plain,
    /// [`crate::parse::MAX_PACKED_BYTES`] packed), and no more than the
    /// worker can reserve room for (the browser may give it less than the
    /// cap). It is packed when the load's plain logs would pass
    /// [`ReadLimits::plain_bytes`] with it, unless it is `split`.
    /// `None`: all of it.
    fn keep_of(&mut self, name: &str, size: u64, split: bool) -> (Option<u64>, bool) {
        let (cap, reason) = self.limits.cap();
        // Once a file was cut, the cap is spent: the inputs after it are
        // not read (not even the line or two its last whole line left).
        let spent = !self.left_out.is_empty();
        let mut keep = if spent { 0 } else { size.min(cap.saturating_sub(self.loaded.total_bytes)) };
        // Packed past the plain logs' budget, or when it is too big to be
        // one plain buffer.
        let mut pack = !split && (self.plain_held.saturating_add(keep) > self.limits.plain_bytes || keep > crate::parse::MAX_FILE_BYTES as u64);
        let mut reason = reason;
        let most = if pack { crate::parse::MAX_PACKED_BYTES } else { crate::parse::MAX_FILE_BYTES } as u64;
        if keep > most {
            keep = most;
            reason = LeftOutReason::Tab { bytes: keep };
        }
        // Room for the bytes and their records (about as much again), or,
        // packed, for the records and the packed bytes (about half): a log
        // with no room to be plain is packed, one with no room at all cut.
        while keep > 0 && !room_for(if pack { keep / 2 } else { keep.saturating_mul(2) }) {
            if !pack && !split {
                pack = true;
                continue;
            }
            keep -= keep / 4 + 1;
            reason = LeftOutReason::Tab { bytes: keep };
        }
        if !pack {
            self.plain_held += keep;
        }
        if keep >= size {
            return (None, pack);
        }
        self.left_out.push(LeftOut { path: name.to_string(), size_bytes: size, kept_bytes: keep, reason });
        (Some(keep), pack)
    }

    /// How far the load is.
    pub fn progress(&self, phase: Phase) -> Progress {
        Progress {
            phase,
            done_bytes: self.done_bytes,
            total_bytes: self.total_bytes.max(self.done_bytes),
            files_done: self.files_done,
            files: self.files.max(self.files_done),
            current: self.current.clone(),
            slices: self.slices,
            cut_at: None,
        }
    }

    /// Adds a file parsed as it arrived (see [`crate::pipeline::streamable`]);
    /// `size` is its size as sent.
    pub fn add_parsed(&mut self, name: &str, size: u64, mut file: ParsedFile) {
        self.current = name.to_string();
        self.inputs.push(name.to_string());
        file.file_mtime_secs = self.modified.get(name).copied();
        self.loaded.add_parsed(file);
        self.files_done += 1;
        self.done_bytes += size;
    }

    /// An input that could not be read (the browser refused its bytes):
    /// noted against its name; the load goes on with the others.
    pub fn unreadable(&mut self, name: &str, size: u64, message: &str) {
        // Slices of it taken in so far are dropped; a file the worker
        // already gave up on was noted then.
        if let Some(i) = self.incoming.take_if(|i| i.name == name) {
            if matches!(i.body, Body::Failed) {
                return;
            }
        }
        self.note_unreadable(name, size, message);
    }

    fn note_unreadable(&mut self, name: &str, size: u64, message: &str) {
        self.loaded.notes.push(crate::model::Diagnostic { path: name.to_string(), line: None, message: format!("cannot read the file: {message}") });
        self.files_done += 1;
        self.done_bytes += size;
    }

    /// The next input, `name` of `size` bytes, arrives split: its head and
    /// its tail from `tail_from` side by side, the tail parsed by a helper
    /// whose piece comes with [`Session::part`] (see [`ToWorker::Split`](super::ToWorker::Split)).
    pub fn split(&mut self, name: &str, size: u64, tail_from: u64) {
        let fits = tail_from > 0 && tail_from < size && size <= crate::parse::MAX_FILE_BYTES as u64;
        self.split = fits.then(|| (name.to_string(), size, tail_from));
    }

    /// Takes in a slice of an input (`data`, at `offset` of the file named
    /// `name`, `size` bytes in all). Slices of a file come in order (a
    /// split file's head and tail each in order); the first (offset 0)
    /// decides with [`crate::pipeline::streamable`] whether the file is
    /// parsed as it arrives or opened whole at the end. A slice out of
    /// order drops the file, noted as unreadable.
    pub fn receive(&mut self, name: &str, offset: u64, size: u64, data: &[u8], last: bool) -> Received {
        self.receive_with(name, offset, size, data.len(), last, |room| room.copy_from_slice(&data[..room.len()]))
    }

    /// [`Session::receive`] for a caller that writes the slice's `len`
    /// bytes in place: `fill` writes them into the room they take (the
    /// browser worker copies a slice from JavaScript straight into the
    /// file's buffer, not through another). `fill` is not called for a
    /// slice that is dropped.
    pub fn receive_with(&mut self, name: &str, offset: u64, size: u64, len: usize, last: bool, fill: impl FnOnce(&mut [u8])) -> Received {
        if offset == 0 {
            // The first bytes tell a plain log from an archive.
            let mut first = vec![0; len];
            fill(&mut first);
            return self.take_in(name, offset, size, len, Some(&first), last, |room| room.copy_from_slice(&first[..room.len()]));
        }
        self.take_in(name, offset, size, len, None, last, fill)
    }

    /// [`Session::receive_with`], with the file's first bytes, `head`, when
    /// `offset` is 0.
    #[allow(clippy::too_many_arguments)]
    fn take_in(&mut self, name: &str, offset: u64, size: u64, len: usize, head: Option<&[u8]>, last: bool, fill: impl FnOnce(&mut [u8])) -> Received {
        self.slices += 1;
        if offset == 0 {
            if let Some(prev) = self.incoming.take() {
                if !matches!(prev.body, Body::Failed) {
                    self.note_unreadable(&prev.name, prev.size, "the file was cut short");
                }
            }
            let tail_from = self.split.take().filter(|(n, s, _)| n == name && *s == size).map(|(_, _, from)| from);
            let mut keep = None;
            let body = if !is_evidence_name(name) && crate::pipeline::streamable(name, head.unwrap_or_default()) {
                let pack;
                (keep, pack) = self.keep_of(name, size, tail_from.is_some());
                let opts = Default::default();
                // A file read in part is parsed as a file of what is read
                // (split only if its tail begins inside that).
                let len = keep.unwrap_or(size);
                let parser = match tail_from {
                    _ if pack => Some(StreamParser::packed(name, len as usize, &opts)),
                    Some(from) if from < len => StreamParser::split(name, len as usize, from as usize, &opts),
                    _ => None,
                };
                match keep {
                    Some(0) => {
                        let left = self.left_out.last().map(LeftOut::message).unwrap_or_default();
                        self.loaded.notes.push(crate::model::Diagnostic { path: name.to_string(), line: None, message: left });
                        self.files_done += 1;
                        self.done_bytes += size;
                        Body::Failed
                    }
                    _ => Body::Stream(Box::new(parser.unwrap_or_else(|| StreamParser::new(name, len as usize, &opts)))),
                }
            } else {
                // A split archive (which the page does not send) is written
                // in place, like a split log.
                match reserve(size as usize, tail_from.is_some()) {
                    Some(whole) => Body::Whole(whole),
                    None => {
                        self.note_unreadable(name, size, "the file does not fit in the tab's memory");
                        Body::Failed
                    }
                }
            };
            let tail = tail_from.map(|from| SplitTail { from, at: from, piece: None });
            self.incoming = Some(Incoming { name: name.to_string(), size, at: 0, tail, body, keep });
        }
        self.current = name.to_string();
        let in_order = self.incoming.as_ref().is_some_and(|i| {
            let end = offset + len as u64;
            i.name == name
                && i.size == size
                && match &i.tail {
                    Some(t) => (offset == i.at && end <= t.from) || (offset == t.at && end <= size),
                    // Past a cut, the page may skip ahead.
                    None => offset == i.at || (i.keep.is_some_and(|k| offset >= k.max(i.at)) && end <= size),
                }
        });
        if !in_order {
            // Drop whatever arrives for a file not started properly, once.
            let noted = self.incoming.as_ref().is_some_and(|i| i.name == name && matches!(i.body, Body::Failed));
            if !noted {
                if let Some(prev) = self.incoming.take() {
                    if prev.name != name && !matches!(prev.body, Body::Failed) {
                        self.note_unreadable(&prev.name, prev.size, "the file was cut short");
                    }
                }
                self.note_unreadable(name, size, "its parts arrived out of order");
                self.incoming = Some(Incoming { name: name.to_string(), size, at: offset, tail: None, body: Body::Failed, keep: None });
            }
            if last {
                self.incoming = None;
            }
            return Received::Dropped;
        }
        let Some(inc) = self.incoming.as_mut() else { return Received::Dropped };
        // Which stream the bytes continue: the head (or a file not split)
        // or a split file's tail. (Where the head ends and the tail
        // begins, bytes are the tail's: the head is whole then.)
        let to_tail = inc.tail.as_ref().is_some_and(|t| offset == t.at);
        // Past a cap, bytes are counted, not taken.
        let take = inc.keep.map_or(len, |k| len.min(k.saturating_sub(offset) as usize));
        let failed = match &mut inc.body {
            Body::Stream(_) if take == 0 => false,
            Body::Stream(p) => match p.room(offset as usize, take) {
                Ok(room) => {
                    let n = room.len();
                    fill(room);
                    p.filled(offset as usize, n);
                    false
                }
                Err(_) => true,
            },
            Body::Whole(w) if inc.tail.is_some() => {
                fill(&mut w[offset as usize..offset as usize + len]);
                false
            }
            Body::Whole(w) => {
                if w.try_reserve(len).is_ok() {
                    let at = w.len();
                    w.resize(at + len, 0);
                    fill(&mut w[at..]);
                    false
                } else {
                    true
                }
            }
            Body::Failed => {
                if last {
                    self.incoming = None;
                }
                return Received::Dropped;
            }
        };
        match (&mut inc.tail, to_tail) {
            (Some(t), true) => t.at += len as u64,
            (Some(_), false) => inc.at += len as u64,
            (None, _) => inc.at = offset + len as u64,
        }
        if failed {
            inc.body = Body::Failed;
            let (name, size) = (inc.name.clone(), inc.size);
            self.note_unreadable(&name, size, "the file does not fit in the tab's memory");
            if last {
                self.incoming = None;
            }
            return Received::Dropped;
        }
        if inc.is_complete(last) {
            Received::Complete
        } else {
            Received::More
        }
    }

    /// The helper's piece of the split input `name`, encoded
    /// ([`Piece::encode`](crate::parse::Piece::encode)); `None`: the helper failed, and the tail is
    /// parsed here (as it is when the piece cannot be read). `Complete`
    /// once the input's bytes are all in too.
    pub fn part(&mut self, name: &str, piece: Option<Vec<u8>>) -> Received {
        let Some(inc) = self.incoming.as_mut().filter(|i| i.name == name) else { return Received::Dropped };
        let Some(tail) = inc.tail.as_mut().filter(|t| t.piece.is_none()) else { return Received::Dropped };
        if matches!(inc.body, Body::Failed) {
            return Received::Dropped;
        }
        tail.piece = Some(piece);
        if inc.is_complete(false) {
            Received::Complete
        } else {
            Received::More
        }
    }

    /// Parses (or opens) the input whose last slice [`Session::receive`]
    /// took in.
    pub fn complete(&mut self) {
        let Some(mut inc) = self.incoming.take() else { return };
        let piece = inc.tail.as_mut().and_then(|t| t.piece.take()).flatten();
        let received = inc.received();
        match inc.body {
            Body::Stream(mut p) => {
                if inc.keep.is_some() {
                    p.cut_to_last_line();
                    if let Some(l) = self.left_out.iter_mut().rev().find(|l| l.path == inc.name) {
                        l.kept_bytes = p.len() as u64;
                        let message = l.message();
                        self.loaded.notes.push(crate::model::Diagnostic { path: inc.name.clone(), line: None, message });
                    }
                    if p.is_empty() {
                        // Not one whole line was read: no file.
                        self.files_done += 1;
                        self.done_bytes += inc.size;
                    } else {
                        self.add_parsed(&inc.name, inc.size, p.finish_with(piece.as_deref()));
                    }
                    // The cap is spent: archives after it read nothing.
                    self.load.ingest.max_total_bytes = self.loaded.total_bytes;
                    return;
                }
                self.add_parsed(&inc.name, inc.size, p.finish_with(piece.as_deref()))
            }
            Body::Whole(w) => {
                self.add(&inc.name, w);
                // `add` counted the bytes received; count the file's size.
                self.done_bytes = self.done_bytes.saturating_sub(received).saturating_add(inc.size);
            }
            Body::Failed => {}
        }
    }

    /// How far the load is while slices arrive: the input being received
    /// counts with the bytes taken in so far.
    pub fn receiving(&self) -> Progress {
        let mut p = self.progress(Phase::Reading);
        if let Some(i) = &self.incoming {
            if !matches!(i.body, Body::Failed) {
                p.done_bytes = (self.done_bytes + i.received()).min(p.total_bytes);
                // (A split file's two streams go on to their ends.)
                p.cut_at = i.keep.filter(|_| i.tail.is_none());
            } else if i.keep == Some(0) {
                p.cut_at = Some(0);
            }
        }
        p
    }

    /// The input `name` was last modified at `secs` (Unix seconds): see
    /// [`ToWorker::Modified`](super::ToWorker::Modified).
    pub fn modified(&mut self, name: &str, secs: i64) {
        self.modified.insert(name.to_string(), secs);
    }

    /// Reads one input (a log file or an archive).
    pub fn add(&mut self, name: &str, bytes: Vec<u8>) {
        self.current = name.to_string();
        let n = bytes.len() as u64;
        self.inputs.push(name.to_string());
        if is_evidence_name(name) {
            self.evidence_inputs.push((name.to_string(), bytes));
        } else {
            self.loaded.add_with_mtime(name, bytes, self.modified.get(name).copied(), &self.load);
        }
        self.files_done += 1;
        self.done_bytes += n;
    }

    /// Analyzes what was read. The parsed files stay here for
    /// [`Session::lines`].
    pub fn finish(&mut self) -> LoadResult {
        if !self.finished {
            self.open_evidence();
            self.loaded.finish();
            self.finished = true;
        }
        let (analysis, diags) = match &self.evidence {
            // Evidence carries its analysis: the chart and sentences are
            // the sender's.
            Some((_, a)) => (a.clone(), Vec::new()),
            None => analyze::analyze(&self.loaded.files, &self.analyze),
        };
        self.analysis = analysis;
        let a = &self.analysis;
        let analysis = Analysis {
            controllers: a.controllers.clone(),
            reconciles: a.reconciles.clone(),
            record_refs: Vec::new(),
            elections: a.elections.clone(),
            client_warnings: a.client_warnings.clone(),
            objects: a.objects.clone(),
            findings: a.findings.clone(),
            dumps: a.dumps.clone(),
            goroutines: a.goroutines.clone(),
            year_unknown: a.year_unknown,
            year_from_mtime: a.year_from_mtime,
            zone_assumed: a.zone_assumed,
            in_flight: a.in_flight.clone(),
            coverage: a.coverage.clone(),
            leadership: a.leadership.clone(),
        };
        let files = self.loaded.files.iter().map(FileStats::of).collect();
        let notes = self.loaded.notes.iter().chain(diags.iter()).cloned().collect();
        LoadResult {
            analysis,
            layout: None,
            timeline: None,
            beside: Beside::default(),
            files,
            notes,
            input_bytes: self.done_bytes,
            evidence: self.evidence.as_ref().map(|(m, _)| m.clone()),
            left_out: self.left_out.clone(),
        }
    }

    /// Opens the `.reconscope` inputs: alone, the first becomes what is
    /// shown ([`Session::from_evidence`]); beside an artifact they are
    /// left out with a note (the artifact shows everything).
    fn open_evidence(&mut self) {
        let inputs = std::mem::take(&mut self.evidence_inputs);
        let alone = self.loaded.files.is_empty();
        for (i, (name, bytes)) in inputs.into_iter().enumerate() {
            if !alone || i > 0 {
                self.loaded.notes.push(crate::model::Diagnostic {
                    path: name,
                    line: None,
                    message: "evidence file left out: the other inputs are shown instead".into(),
                });
                continue;
            }
            let text = String::from_utf8_lossy(&bytes);
            match evidence::from_payload(&text) {
                Ok(ev) => self.show_evidence(ev),
                Err(e) => self.loaded.notes.push(crate::model::Diagnostic { path: name, line: None, message: e.to_string() }),
            }
        }
    }

    /// A session that shows a slice of evidence (from a link or a
    /// `.reconscope` file): its lines parsed again, and its analysis.
    pub fn from_evidence(ev: Evidence) -> Session {
        let mut s = Session::new(1, 0);
        s.show_evidence(ev);
        s
    }

    fn show_evidence(&mut self, ev: Evidence) {
        let mut files = Vec::new();
        for (path, text, numbers) in evidence::texts(&ev) {
            self.done_bytes += text.len() as u64;
            let mut f = crate::parse::parse_file(path, text, &Default::default());
            evidence::renumber(&mut f, &numbers);
            files.push(f);
        }
        let mut a = ev.analysis;
        // Carried references name (file, first line): find the records.
        let fix = |rr: &mut RecordRef| {
            rr.record = files.get(rr.file as usize).and_then(|f| evidence::record_at(f, rr.record)).unwrap_or(u32::MAX);
        };
        a.record_refs.iter_mut().for_each(fix);
        a.client_warnings.iter_mut().for_each(|w| fix(&mut w.record));
        for f in files {
            self.loaded.add_parsed(f);
        }
        self.files_done = self.files.max(1);
        self.evidence = Some((ev.meta, a));
    }

    /// A slice of what is loaded, for a link or a `.reconscope` file (see
    /// [`crate::evidence`]).
    pub fn share(&self, req: &ShareRequest) -> Result<SharedEvidence, String> {
        let mut opts = ShareOptions {
            finding: req.finding.map(|f| f as usize),
            window: req.window,
            selected: req.selected.map(|r| r as usize),
            artifact: self.artifact_name(),
            taken_at_nanos: req.taken_at_nanos,
            redact: req.redact,
            max_payload_bytes: req.max_payload_bytes as usize,
        };
        // The whole slice as a file too, when the link had to leave
        // context out (or could not be made at all).
        let (link, needs_file) = match evidence::share(&self.analysis, &self.loaded.files, &opts) {
            Ok(l) => {
                let partial = !l.meta.left_out.is_empty();
                (Some(l), partial)
            }
            Err(evidence::EvidenceError::TooBigForLink(..)) => (None, true),
            Err(e) => return Err(e.to_string()),
        };
        let file = if needs_file {
            opts.max_payload_bytes = 0;
            Some(evidence::share(&self.analysis, &self.loaded.files, &opts).map_err(|e| e.to_string())?)
        } else {
            None
        };
        Ok(SharedEvidence {
            fragment: link.as_ref().map(evidence::fragment),
            meta: link.as_ref().map(|l| l.meta.clone()),
            redacted_lines: link.as_ref().or(file.as_ref()).map(|l| l.redacted_lines.clone()).unwrap_or_default(),
            file: file.as_ref().map(|f| f.payload.clone()),
            file_meta: file.map(|f| f.meta),
        })
    }

    /// The Markdown report (see [`ToWorker::Markdown`](super::ToWorker::Markdown)).
    pub fn markdown(&self, app_url: &str, taken_at_nanos: Option<i64>, redact: RedactOptions) -> String {
        let template = ShareOptions { artifact: self.artifact_name(), taken_at_nanos, redact, ..ShareOptions::default() };
        let finding_links =
            if app_url.is_empty() { Vec::new() } else { evidence::finding_links(&self.analysis, &self.loaded.files, app_url, &template, MARKDOWN_LINKS) };
        // For a comment: GitHub takes 65,536 characters there.
        let opts = crate::report::ReportOptions {
            app_url: (!app_url.is_empty()).then(|| app_url.to_string()),
            finding_links,
            destination: crate::report::Destination::Comment,
        };
        // Measured as it is sent: redacted.
        let mut redactor = crate::redact::Redactor::new(redact);
        // A finding whose link does not fit gets a smaller slice of its
        // evidence where there is room for one.
        let mut smaller = |i: usize, max: usize| {
            evidence::finding_link_within(&self.analysis, &self.loaded.files, app_url, &template, i, max).filter(|_| !app_url.is_empty())
        };
        crate::report::markdown_with_smaller_links(&self.analysis, &opts, &mut |s| redactor.redact_markdown(s), &mut smaller)
    }

    /// What the loaded inputs are called, for a banner: the evidence's
    /// artifact, the single input, or the first and how many more.
    fn artifact_name(&self) -> String {
        if let Some((m, _)) = &self.evidence {
            return m.artifact.clone();
        }
        crate::render::artifact_name(&self.inputs).unwrap_or_default()
    }

    /// Analyzes the inputs again with goroutine dumps that nothing else
    /// dates taken at `dump_time_nanos` (see [`ToWorker::Reanalyze`](super::ToWorker::Reanalyze)).
    pub fn reanalyze(&mut self, dump_time_nanos: Option<i64>) -> LoadResult {
        self.analyze.dump_time_nanos = dump_time_nanos;
        self.finish()
    }

    /// The parsed files.
    pub fn files(&self) -> &[ParsedFile] {
        &self.loaded.files
    }

    /// A reconcile's raw lines with their file and line numbers, plus the
    /// lines between them (in the same file) that carry no `reconcileID`.
    /// `None` for an unknown index.
    pub fn lines(&self, reconcile: u32) -> Option<ReconcileLines> {
        let r = self.analysis.reconciles.get(reconcile as usize)?;
        let refs = self.analysis.record_refs.get(r.records.start as usize..r.records.end as usize)?;
        let mut lines = reconcile_lines(&self.loaded.files, refs, reconcile, &r.reconcile_id, MAX_CONTEXT_LINES);
        if self.evidence.is_some() {
            // Lines a link left out of a reconcile's middle.
            let carried: u32 =
                refs.iter().filter_map(|rr| self.loaded.files.get(rr.file as usize)?.records.get(rr.record as usize)).map(|x| x.line_count.max(1)).sum();
            lines.left_out_lines = u64::from(r.lines.saturating_sub(carried));
        }
        Some(lines)
    }
}

impl Session {
    /// The reconciles with a record matching `filter` (see
    /// [`matching_reconciles`]).
    pub fn matching(&self, filter: &MessageFilter) -> Result<Vec<u32>, String> {
        matching_reconciles(&self.loaded.files, &self.analysis.record_refs, &self.analysis.reconciles, filter)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::FindingKind;
    use crate::layout::LayoutOptions;
    use crate::web::testutil::{log_and_zip, send, summary};
    use crate::web::{decode, encode, FromWorker, Line, PartJob};
    use std::path::Path;

    /// The incident fixture through the worker's code path and the message
    /// codec, as the browser does it.
    #[test]
    fn incident_through_session_and_codec() {
        let (s, mut result) = crate::web::testutil::incident();
        let total: u64 = result.files.iter().map(|f| f.bytes).sum();
        assert_eq!(s.progress(Phase::Reading).done_bytes, total);
        let reconciles = result.analysis.reconciles.clone();
        let opts = LayoutOptions { grouping: crate::layout::Grouping::ByLane, ..LayoutOptions::default() };
        result.lay_out(opts.clone());
        let timeline = result.timeline.clone().unwrap();
        assert_eq!(timeline, crate::layout::layout(&result.analysis, &opts));
        assert!(!timeline.bars.is_empty());
        let analysis = result.analysis.clone();
        result.detach();
        assert!(result.timeline.is_none());
        assert!(result.beside.parts().iter().all(|(_, b)| !b.is_empty()));
        let beside = std::mem::take(&mut result.beside);
        let msg: FromWorker = decode(&encode(&FromWorker::Loaded(Box::new(result)))).unwrap();
        let FromWorker::Loaded(mut r) = msg else { panic!("not loaded") };
        assert!(r.analysis.reconciles.is_empty(), "reconciles travel beside the message");
        assert!(r.analysis.findings.is_empty(), "findings travel beside the message");
        assert!(r.timeline.is_none(), "the timeline travels beside the message");
        for (name, bytes) in beside.parts() {
            *r.beside.part_mut(name).unwrap() = bytes.to_vec();
        }
        assert!(r.beside.part_mut("nothing").is_none());
        r.attach().unwrap();
        assert_eq!(r.analysis.findings, analysis.findings);
        assert_eq!(r.analysis.client_warnings, analysis.client_warnings);
        assert!(!analysis.client_warnings.is_empty() && !analysis.findings.is_empty());
        assert_eq!(r.analysis.reconciles, reconciles);
        assert_eq!((r.timeline.as_ref(), r.layout.as_ref()), (Some(&timeline), Some(&opts)));
        let a = &r.analysis;
        assert!(a.record_refs.is_empty(), "record refs stay in the worker");
        assert_eq!(a.elections.len(), 2);
        assert!(a.reconciles.len() > 300);
        let count = |k| a.findings.iter().filter(|f| f.kind == k).count();
        assert_eq!(count(FindingKind::StalledWorker), 1);
        assert_eq!(count(FindingKind::ExpiredContext), 2);
        assert_eq!(count(FindingKind::StuckDeletion), 1);
        assert!(r.files.iter().any(|f| f.path.ends_with("kamaji-controller.log") && f.records > 1000));

        let stalled = a.findings.iter().find(|f| f.kind == FindingKind::StalledWorker).unwrap();
        let idx = stalled.reconciles[0] as u32;
        let lines: FromWorker = decode(&encode(&FromWorker::Lines(s.lines(idx).unwrap()))).unwrap();
        let FromWorker::Lines(l) = lines else { panic!("not lines") };
        assert_eq!(l.reconcile_id, a.reconciles[idx as usize].reconcile_id);
        let own: Vec<&Line> = l.blocks.iter().flat_map(|b| b.lines.iter()).filter(|l| l.own).collect();
        assert!(own.iter().any(|l| l.text.contains("unable to create the DataStore user")));
        // Line numbers rise within a block.
        for b in &l.blocks {
            assert!(b.lines.windows(2).all(|w| w[0].number < w[1].number), "{}", b.path);
        }
        assert!(s.lines(u32::MAX).is_none());

        // The message filter: the stalled reconcile logged the DataStore
        // error; matching is case-insensitive and by any record.
        let f = |pattern: &str, min_level| MessageFilter { pattern: pattern.into(), min_level };
        let m = s.matching(&f("datastore USER", 0)).unwrap();
        assert!(m.contains(&idx), "the stalled reconcile matches");
        assert!(!m.is_empty() && m.len() < a.reconciles.len(), "{} of {}", m.len(), a.reconciles.len());
        assert!(m.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(s.matching(&f("", 0)).unwrap().len(), a.reconciles.len());
        let errors = s.matching(&f("", 3)).unwrap();
        assert!(errors.contains(&idx) && errors.len() < a.reconciles.len());
        let warn = s.matching(&f("", 2)).unwrap();
        assert!(warn.len() >= errors.len());
        assert!(s.matching(&f("DataStore.*user", 3)).unwrap().iter().all(|i| errors.contains(i)));
        assert!(s.matching(&f("no such text anywhere 1f2e", 0)).unwrap().is_empty());
        assert!(s.matching(&f("(", 0)).is_err());
    }

    /// The app's example (the incident zipped, whose controllers come in
    /// the order secret, tenantcontrolplane): the first row group is the
    /// stalled worker's controller, the held object its first row, in
    /// both groupings.
    #[test]
    fn the_example_shows_the_stall_first() {
        let zip = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("www/example/cozyreport.zip")).unwrap();
        let mut s = Session::new(1, zip.len() as u64);
        s.add("cozyreport.zip", zip);
        let r = s.finish();
        let a = &r.analysis;
        assert_eq!(a.controllers[0].controller, "secret", "the order this test is about");
        let stall = a.findings.iter().find(|f| f.kind == FindingKind::StalledWorker).unwrap();
        let held = &a.reconciles[stall.reconciles[0]];
        for grouping in [crate::layout::Grouping::ByObject, crate::layout::Grouping::ByLane] {
            let tl = crate::layout::layout(a, &LayoutOptions { grouping, ..LayoutOptions::default() });
            assert_eq!((tl.rows[0].depth, tl.rows[0].controller as usize), (0, held.controller), "{grouping:?}");
            let bars = &tl.bars[tl.rows[1].bar_start as usize..tl.rows[1].bar_end as usize];
            assert!(bars.iter().any(|b| b.reconcile as usize == stall.reconciles[0]), "{grouping:?}: row 1 is {}", tl.rows[1].label);
        }
    }

    #[test]
    fn progress_inside_a_file_and_unreadable_files() {
        let mut s = Session::new(3, 300);
        let a = b"2026-05-26T16:21:07Z INFO hello\n";
        assert_eq!(s.receive("a.log", 0, 32, &a[..20], false), Received::More);
        assert_eq!(s.receiving().done_bytes, 20, "progress inside a file");
        assert_eq!(s.receive("a.log", 20, 32, &a[20..], true), Received::Complete);
        s.complete();
        s.unreadable("b.log", 100, "NotReadableError");
        let c = b"2026-05-26T16:21:08Z INFO streamed\n";
        assert_eq!(s.receive("c.log", 0, 35, &c[..21], false), Received::More);
        let p = s.receiving();
        assert_eq!((p.files_done, p.current.as_str()), (2, "c.log"));
        assert_eq!(p.done_bytes, 32 + 100 + 21);
        let mut small = Session::new(1, 10);
        small.receive("x.log", 0, 50, &[b'x'; 40], false);
        assert_eq!(small.receiving().done_bytes, 10, "never past the total");
        assert_eq!(s.receive("c.log", 21, 35, &c[21..], true), Received::Complete);
        s.complete();
        assert_eq!(s.progress(Phase::Reading).done_bytes, 32 + 100 + 35);
        let r = s.finish();
        assert!(r.notes.iter().any(|n| n.path == "b.log" && n.message.contains("cannot read the file: NotReadableError")));
        assert_eq!(r.files.iter().map(|f| (f.path.as_str(), f.records)).collect::<Vec<_>>(), [("a.log", 1), ("c.log", 1)]);
    }

    #[test]
    fn reanalyze_dates_an_undated_dump() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/incident/cozyreport/kamaji");
        let log = std::fs::read(root.join("kamaji-controller.log")).unwrap();
        let dump = std::fs::read(root.join("pprof/kamaji-goroutines-20260526T164500Z.txt")).unwrap();
        let mut s = Session::new(2, (log.len() + dump.len()) as u64);
        s.add("kamaji-controller.log", log);
        s.add("goroutines.txt", dump);
        let stall = |r: &LoadResult| r.analysis.findings.iter().find(|f| f.kind == FindingKind::StalledWorker).cloned().unwrap();
        let first = s.finish();
        assert_eq!(first.analysis.dumps[0].time, None);
        assert!(stall(&first).blocked.is_none());
        let records = first.files.iter().map(|f| f.records).sum::<u64>();
        let t = crate::time::parse_rfc3339(b"2026-05-26T16:45:00Z", false, 0).unwrap().ts.nanos;
        let again = s.reanalyze(Some(t));
        assert_eq!(again.analysis.dumps[0].time_source, Some(crate::analyze::DumpTimeSource::User));
        assert_eq!(stall(&again).blocked.unwrap().call, "go.etcd.io/etcd/client/v3.(*authClient).UserGet");
        assert_eq!(again.files.iter().map(|f| f.records).sum::<u64>(), records, "the same inputs, read once");
        assert!(s.lines(stall(&again).reconciles[0] as u32).is_some(), "the inspector follows the new analysis");
    }

    #[test]
    fn slices_give_what_whole_files_give() {
        let (log, zip, whole) = log_and_zip(|s, i, r| format!("2026-05-26T16:21:{s:02}.{i:06}Z\tINFO\tctrl\tReconciling\t{{\"reconcileID\": \"r{r}\"}}\n"));
        let total = (log.len() + zip.len()) as u64;
        for slice in [1000, 7777, 1 << 20] {
            let mut s = Session::new(2, total);
            let r = send(&mut s, "a.log", &log, slice);
            assert_eq!(r.last(), Some(&Received::Complete));
            assert!(r[..r.len() - 1].iter().all(|r| *r == Received::More));
            assert_eq!(s.receiving().done_bytes, log.len() as u64);
            // Progress counts the bytes taken in.
            let half = zip.len() / 2;
            assert_eq!(s.receive("c.zip", 0, zip.len() as u64, &zip[..half], false), Received::More);
            assert_eq!(s.receiving().done_bytes, (log.len() + half) as u64);
            assert_eq!(s.receive("c.zip", half as u64, zip.len() as u64, &zip[half..], true), Received::Complete);
            s.complete();
            assert_eq!(s.receiving().done_bytes, total);
            assert_eq!(s.progress(Phase::Reading).files_done, 2);
            let r = s.finish();
            assert_eq!(summary(&r), summary(&whole), "slice {slice}");
            assert_eq!(r.analysis.reconciles, whole.analysis.reconciles);
            assert_eq!(r.notes, whole.notes);
            assert_eq!(r.input_bytes, total);
        }
        // An empty file is one empty slice.
        let mut s = Session::new(1, 0);
        assert_eq!(s.receive("empty.log", 0, 0, b"", true), Received::Complete);
        s.complete();
        assert_eq!(s.progress(Phase::Reading).files_done, 1);
    }

    #[test]
    fn slices_written_in_place_are_the_same_and_dropped_ones_are_not_written() {
        let log = b"2026-05-26T16:21:07Z\tINFO\tReconciling\t{\"reconcileID\": \"r1\"}\n".repeat(1000);
        let size = log.len() as u64;
        let mut s = Session::new(2, 2 * size);
        let mut fills = 0;
        let mut offset = 0;
        for piece in log.chunks(4096) {
            let last = offset + piece.len() == log.len();
            let r = s.receive_with("a.log", offset as u64, size, piece.len(), last, |room| {
                fills += 1;
                room.copy_from_slice(piece);
            });
            if r == Received::Complete {
                s.complete();
            }
            offset += piece.len();
        }
        assert_eq!(fills, log.len().div_ceil(4096));
        // Out of order: dropped, never written.
        assert_eq!(s.receive_with("b.log", 0, size, 100, false, |room| room.copy_from_slice(&log[..100])), Received::More);
        let r = s.receive_with("b.log", 4000, size, 100, false, |_| panic!("a dropped slice is not written"));
        assert_eq!(r, Received::Dropped);
        let r = s.finish();
        assert_eq!(summary(&r), [("a.log".to_string(), 1000)]);

        // A helper's tail with no line to cut at (over 10,000 stack lines)
        // is dropped once that is known: later slices are counted, not
        // written.
        let stack = b"\t/m.go:1 +0x1\n".repeat(12_000);
        let size = 100 + stack.len() as u64;
        let mut job = PartJob::new("s.log", size, 100);
        let (mut written, mut offset) = (0, 100);
        for piece in stack.chunks(4096) {
            let done = job.receive_with("s.log", offset, piece.len(), |room| {
                written += room.len();
                room.copy_from_slice(piece);
            });
            offset += piece.len() as u64;
            assert_eq!(done, Ok(offset == size));
        }
        assert!(written > 10_000 * 14 && written < stack.len(), "{written} of {} bytes written", stack.len());
        assert_eq!(job.progress().done_bytes, stack.len() as u64);
        let piece = job.finish();
        assert_eq!(piece.records(), 0);
    }

    #[test]
    fn bad_slices_and_unreadable_files_are_noted_once() {
        let line = b"2026-05-26T16:21:07Z INFO hello\n";
        let mut s = Session::new(4, 400);
        // Out of order: noted, the rest of the file dropped.
        assert_eq!(s.receive("a.log", 0, 100, line, false), Received::More);
        assert_eq!(s.receive("a.log", 50, 100, line, false), Received::Dropped);
        assert_eq!(s.receive("a.log", 82, 100, line, true), Received::Dropped);
        // Unreadable on the page after a slice: the slice is dropped.
        assert_eq!(s.receive("b.log", 0, 100, line, false), Received::More);
        s.unreadable("b.log", 100, "NotReadableError");
        assert_eq!(s.receiving().done_bytes, 200);
        // A file started again before it was complete: the first is cut short.
        assert_eq!(s.receive("c.log", 0, 100, line, false), Received::More);
        assert_eq!(s.receive("d.log", 0, 100, line, false), Received::More);
        assert_eq!(s.receive("d.log", line.len() as u64, 100, line, true), Received::Complete);
        s.complete();
        let p = s.progress(Phase::Reading);
        assert_eq!((p.files_done, p.done_bytes), (4, 400));
        let r = s.finish();
        let notes: Vec<(&str, &str)> = r.notes.iter().map(|n| (n.path.as_str(), n.message.as_str())).collect();
        assert_eq!(
            notes,
            [
                ("a.log", "cannot read the file: its parts arrived out of order"),
                ("b.log", "cannot read the file: NotReadableError"),
                ("c.log", "cannot read the file: the file was cut short"),
            ]
        );
        assert_eq!(summary(&r), [("d.log".to_string(), 2)]);
    }
}
