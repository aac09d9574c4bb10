//! What the browser app and its worker say to each other, and the worker's
//! work as plain code (so it is tested natively, like the rest of the
//! library).
//!
//! The app (`src/bin/app/`) reads each input file in slices and sends them
//! to the worker (`src/bin/worker.rs`) as [`ToWorker::FileSlice`] messages,
//! each slice a transferred `ArrayBuffer` beside its message; the worker
//! parses a plain log as its slices arrive ([`Session::receive`]) and acknowledges each
//! with a [`FromWorker::Progress`] (the page keeps only a few slices in
//! flight). Reading on the page's idle thread lets the worker parse one
//! slice while the browser reads the next. On
//! [`ToWorker::Finish`] the worker analyzes everything, lays out the first
//! view, and answers with [`FromWorker::Loaded`]. The parsed files stay in
//! the worker, which answers [`ToWorker::Inspect`] with a reconcile's raw
//! lines.
//!
//! Messages are encoded with [`encode`] (JSON bytes, moved between threads as
//! a transferred `Uint8Array`, never as a JS string).

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::analyze::{self, Analysis, AnalyzeOptions, RecordRef};
use crate::evidence::{self, Evidence, EvidenceMeta, ShareOptions};
use crate::layout::{LayoutOptions, Timeline};
use crate::model::{Level, ParsedFile};
use crate::parse::{Piece, PieceParser, StreamParser};
use crate::pipeline::{LoadOptions, Loaded};
use crate::redact::RedactOptions;
use crate::stats::FileStats;

/// From the app to the worker.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum ToWorker {
    /// A new load begins (anything loaded before is dropped): `files`
    /// inputs of `total_bytes` bytes in all will follow.
    Begin { files: u32, total_bytes: u64 },
    /// `size` bytes of one input, read by the page, starting at `offset`
    /// (slices of a file come in order, the first at offset 0). The bytes
    /// travel beside this message as a transferred `ArrayBuffer`. `last`:
    /// the file is complete. Answered with a [`FromWorker::Progress`] once
    /// the slice is taken in (the page's backpressure).
    FileSlice { name: String, offset: u64, size: u64, last: bool },
    /// The input `name`'s modification time (`File.lastModified`, Unix
    /// seconds), sent before its first slice: times without a year take
    /// theirs from it when nothing in the logs gives one.
    Modified { name: String, secs: i64 },
    /// The page could not read an input (`size` bytes): noted against its
    /// name; slices of it already sent are dropped.
    Unreadable { name: String, size: u64, message: String },
    /// Sent before the first slice of a big plain log that two workers
    /// parse at once: the file `name` (`size` bytes) arrives as two streams
    /// of slices side by side, its head from 0 and its tail from
    /// `tail_from`, and a helper worker parses the tail
    /// ([`ToWorker::BeginPart`]). The file is complete once every byte and
    /// the helper's piece ([`ToWorker::Part`]) have arrived.
    Split { name: String, size: u64, tail_from: u64 },
    /// The helper's piece of a split file ([`FromWorker::Part`]), passed
    /// on: its bytes travel beside as `piece`. Without them (the helper
    /// failed) the worker parses the tail itself.
    Part { name: String },
    /// To a helper worker: parse the tail of the file `name` (`size`
    /// bytes) from `from`. Its slices follow as [`ToWorker::FileSlice`]s
    /// (each acknowledged with a progress message); answered with
    /// [`FromWorker::Part`] after the last.
    BeginPart { name: String, size: u64, from: u64 },
    /// Every input has been sent: analyze them, and lay the timeline out
    /// with `layout` (none: the page lays it out).
    Finish {
        #[serde(default)]
        layout: Option<LayoutOptions>,
    },
    /// Analyze the same inputs again, dating goroutine dumps that nothing
    /// else dates at `dump_time_nanos` (the time a person gives); answered
    /// like [`ToWorker::Finish`].
    Reanalyze {
        dump_time_nanos: Option<i64>,
        #[serde(default)]
        layout: Option<LayoutOptions>,
    },
    /// Parse, analyze and lay out a small generated log once, and forget
    /// it ([`warm_up`]): the page starts its worker as it opens and has it
    /// do this, so the browser has compiled the hot code before a real
    /// load. Answered with [`FromWorker::WarmedUp`].
    WarmUp,
    /// The lines of one reconcile (an index into `Analysis::reconciles`).
    Inspect { reconcile: u32 },
    /// Which reconciles have a record matching `filter`; answered with
    /// [`FromWorker::Matched`] carrying the same `seq`.
    Filter { seq: u32, filter: MessageFilter },
    /// A slice of what is loaded for a link (and a `.reconscope` file when
    /// the link had to leave context out); answered with
    /// [`FromWorker::Shared`] carrying the same `seq`.
    Share { seq: u32, request: ShareRequest },
    /// The Markdown report of what is loaded, each finding linked to its
    /// evidence in the app at `app_url`, redacted; answered with
    /// [`FromWorker::Text`].
    Markdown { seq: u32, app_url: String, taken_at_nanos: Option<i64>, redact: RedactOptions },
    /// `text` (an SVG the page drew) redacted; answered with
    /// [`FromWorker::Text`].
    Redact { seq: u32, text: String, redact: RedactOptions },
}

/// The app's Markdown links this many findings to their evidence (a
/// person waits for it, and the clipboard takes a copy only for a few
/// seconds after the click).
pub const MARKDOWN_LINKS: usize = 12;

/// What to share: see [`crate::evidence::ShareOptions`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShareRequest {
    /// Index into `Analysis::findings`.
    pub finding: Option<u32>,
    /// The window shown (absolute ns).
    pub window: Option<(i64, i64)>,
    /// Index into `Analysis::reconciles`.
    pub selected: Option<u32>,
    /// The page's clock.
    pub taken_at_nanos: Option<i64>,
    #[serde(default)]
    pub redact: RedactOptions,
    /// Budget of the `ev=` payload.
    pub max_payload_bytes: u64,
}

/// The answer to [`ToWorker::Share`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SharedEvidence {
    /// `#ev=…&from=…&to=…&sel=…` (none: even the smallest slice was over
    /// the budget; then only `file` is offered).
    pub fragment: Option<String>,
    pub meta: Option<EvidenceMeta>,
    /// The whole slice as a `.reconscope` file's text, when the link had to
    /// leave something out.
    pub file: Option<String>,
    pub file_meta: Option<EvidenceMeta>,
    /// Lines of the link (or else the file) where something was redacted,
    /// as they travel: the preview.
    #[serde(default)]
    pub redacted_lines: Vec<evidence::PreviewLine>,
}

/// Whether an input named `name` is an evidence file.
pub fn is_evidence_name(name: &str) -> bool {
    name.rsplit('/').next().is_some_and(|n| n.to_ascii_lowercase().ends_with(".reconscope"))
}

/// A filter over records' messages and levels.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MessageFilter {
    /// A regular expression over the message, case-insensitive (empty:
    /// any message).
    pub pattern: String,
    /// The lowest level a record may have: 0 any, 1 info, 2 warn, 3 error.
    pub min_level: u8,
}

impl MessageFilter {
    pub fn is_empty(&self) -> bool {
        self.pattern.is_empty() && self.min_level == 0
    }
}

/// The answer to [`ToWorker::Filter`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Matched {
    pub seq: u32,
    /// Indexes (into `Analysis::reconciles`) of the reconciles with a
    /// matching record, ascending.
    pub reconciles: Vec<u32>,
    /// Why the filter could not be applied (a bad regex): nothing is
    /// filtered then.
    pub error: Option<String>,
}

/// From the worker to the app.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum FromWorker {
    /// The worker has started and listens.
    Ready,
    /// Progress; the acknowledgement of a [`ToWorker::FileSlice`] also has
    /// the slice's buffer beside it as `spent`, given back to the page for
    /// reading the next slice into.
    Progress(Progress),
    Loaded(Box<LoadResult>),
    Lines(ReconcileLines),
    Matched(Matched),
    /// The answer to [`ToWorker::Share`].
    Shared {
        seq: u32,
        result: Box<Result<SharedEvidence, String>>,
    },
    /// The answer to [`ToWorker::Markdown`] and [`ToWorker::Redact`].
    Text {
        seq: u32,
        text: String,
    },
    /// A request could not be answered (e.g. an inspect before any load).
    Failed {
        message: String,
    },
    /// [`ToWorker::WarmUp`] is done.
    WarmedUp,
    /// From a helper worker: the tail of the file `name` parsed
    /// ([`ToWorker::BeginPart`]), beside as `piece` ([`Piece::encode`]),
    /// holding `records` records.
    Part {
        name: String,
        records: u64,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Phase {
    /// Reading the inputs' bytes.
    Reading,
    /// Parsing (and inflating) the input just read.
    Parsing,
    /// Every input was read; the analysis runs.
    Analyzing,
}

/// How far a load is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Progress {
    pub phase: Phase,
    /// Input bytes (as sent, before any decompression) read so far.
    pub done_bytes: u64,
    pub total_bytes: u64,
    pub files_done: u32,
    pub files: u32,
    /// The input being read now (or the last one read).
    pub current: String,
    /// How many [`ToWorker::FileSlice`]s the worker has taken in (the
    /// page's backpressure counts these).
    #[serde(default)]
    pub slices: u64,
}

/// The result of a load.
///
/// The biggest parts travel apart from the rest ([`Beside`]): as one JSON
/// document they would take a long task to read on the page's thread, so
/// the worker moves them into compact or chunked forms
/// ([`LoadResult::detach`]), sent beside the message as transferred
/// buffers, and the page puts them back a chunk per task (or at once with
/// [`LoadResult::attach`]).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct LoadResult {
    /// The analysis, without `record_refs` (they stay in the worker, which
    /// answers [`ToWorker::Inspect`]) and, on the wire, without what
    /// travels in [`Beside`].
    pub analysis: Analysis,
    /// The options `timeline` was laid out with (`None`: no timeline came).
    pub layout: Option<LayoutOptions>,
    /// The first view, laid out in the worker (so the page does not lay
    /// out hundreds of thousands of bars in one task). Travels in
    /// [`Beside::timeline`].
    #[serde(skip)]
    pub timeline: Option<Timeline>,
    /// What travels beside the message, while it is on its way.
    #[serde(skip)]
    pub beside: Beside,
    /// One entry per log file read (archive members included).
    pub files: Vec<FileSummary>,
    /// Problems reading or analyzing, by file.
    pub notes: Vec<Note>,
    /// Input bytes, as sent.
    pub input_bytes: u64,
    /// When what was loaded is a slice of evidence (a link or a
    /// `.reconscope` file): what it is, for the banner.
    #[serde(default)]
    pub evidence: Option<EvidenceMeta>,
}

/// The parts of a [`LoadResult`] that travel beside its JSON, each a
/// transferred buffer named as its field. An empty buffer: that part stayed
/// in the JSON (or there is no timeline).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Beside {
    /// `analysis.reconciles` ([`crate::codec::encode_reconciles`]).
    pub reconciles: Vec<u8>,
    /// The timeline ([`crate::codec::encode_timeline`]).
    pub timeline: Vec<u8>,
    /// `analysis.client_warnings` ([`crate::codec::encode_json_chunks`]).
    pub client_warnings: Vec<u8>,
    /// `analysis.findings` ([`crate::codec::encode_json_chunks`]).
    pub findings: Vec<u8>,
}

impl Beside {
    /// The buffers by name.
    pub fn parts(&self) -> [(&'static str, &[u8]); 4] {
        [("reconciles", &self.reconciles), ("timeline", &self.timeline), ("client_warnings", &self.client_warnings), ("findings", &self.findings)]
    }

    /// The buffer named `name` (one of [`Beside::parts`]' names).
    pub fn part_mut(&mut self, name: &str) -> Option<&mut Vec<u8>> {
        match name {
            "reconciles" => Some(&mut self.reconciles),
            "timeline" => Some(&mut self.timeline),
            "client_warnings" => Some(&mut self.client_warnings),
            "findings" => Some(&mut self.findings),
            _ => None,
        }
    }
}

/// Client warnings per JSON chunk (a few hundred KB).
const WARNINGS_PER_CHUNK: usize = 1000;
/// Findings per JSON chunk.
const FINDINGS_PER_CHUNK: usize = 250;

impl LoadResult {
    /// Lays out the timeline of the first view (the worker, before
    /// posting).
    pub fn lay_out(&mut self, opts: LayoutOptions) {
        self.timeline = Some(crate::layout::layout(&self.analysis, &opts));
        self.layout = Some(opts);
    }

    /// Moves the reconciles, the timeline, the client warnings and the
    /// findings into [`Beside`] (the worker, before posting).
    pub fn detach(&mut self) {
        let a = &mut self.analysis;
        self.beside = Beside {
            reconciles: crate::codec::encode_reconciles(&std::mem::take(&mut a.reconciles)),
            timeline: self.timeline.take().map(crate::codec::encode_timeline).unwrap_or_default(),
            client_warnings: crate::codec::encode_json_chunks(&std::mem::take(&mut a.client_warnings), WARNINGS_PER_CHUNK),
            findings: crate::codec::encode_json_chunks(&std::mem::take(&mut a.findings), FINDINGS_PER_CHUNK),
        };
    }

    /// Puts back what [`LoadResult::detach`] moved, at once (the app does
    /// it a chunk per task, with the decoders of [`crate::codec`]).
    pub fn attach(&mut self) -> Result<(), crate::codec::CodecError> {
        let b = std::mem::take(&mut self.beside);
        let a = &mut self.analysis;
        if !b.reconciles.is_empty() {
            a.reconciles = crate::codec::decode_reconciles(&b.reconciles)?;
        }
        if !b.client_warnings.is_empty() {
            a.client_warnings = crate::codec::decode_json_chunks(&b.client_warnings)?;
        }
        if !b.findings.is_empty() {
            a.findings = crate::codec::decode_json_chunks(&b.findings)?;
        }
        self.attach_timeline(&b.timeline)
    }

    /// Puts the timeline back from its bytes (none: no timeline).
    pub fn attach_timeline(&mut self, bytes: &[u8]) -> Result<(), crate::codec::CodecError> {
        self.timeline = if bytes.is_empty() { None } else { Some(crate::codec::decode_timeline(bytes)?) };
        if self.timeline.is_none() {
            self.layout = None;
        }
        Ok(())
    }
}

/// One log file's summary, as `reconscope stats` gives it.
pub use crate::stats::FileStats as FileSummary;

/// A problem reading or analyzing, by file.
pub use crate::model::Diagnostic as Note;

/// A reconcile's raw lines, grouped by file, in file order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReconcileLines {
    pub reconcile: u32,
    pub reconcile_id: String,
    pub blocks: Vec<LineBlock>,
    /// Lines between the reconcile's own that carry no `reconcileID` and
    /// were left out to keep the answer small.
    pub omitted_context: u64,
    /// Lines of its own that the evidence it came from left out (from its
    /// middle, to fit a link).
    #[serde(default)]
    pub left_out_lines: u64,
}

/// Lines of one file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineBlock {
    pub path: String,
    pub lines: Vec<Line>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Line {
    /// 1-based line number in the file.
    pub number: u32,
    /// The raw text (decoded lossily), without its line break.
    pub text: String,
    /// True for the reconcile's own lines; false for lines in between that
    /// carry no `reconcileID` (shown as context).
    pub own: bool,
}

/// Encodes a message (JSON bytes).
pub fn encode<T: Serialize>(msg: &T) -> Vec<u8> {
    // Serializing these types cannot fail: every map key is a string.
    serde_json::to_vec(msg).unwrap_or_default()
}

/// Decodes a message written by [`encode`].
pub fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {
    serde_json::from_slice(bytes).map_err(|e| format!("bad message: {e}"))
}

/// At most this many context lines (lines between a reconcile's own lines
/// that carry no `reconcileID`) are returned for one reconcile.
pub const MAX_CONTEXT_LINES: usize = 2000;

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
    /// The inputs' modification times ([`ToWorker::Modified`]).
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
    /// [`ToWorker::FileSlice`]s taken in.
    slices: u64,
}

/// An input arriving in slices.
#[derive(Debug)]
struct Incoming {
    name: String,
    size: u64,
    /// Bytes received so far (of its head, when it is split).
    at: u64,
    /// A split input's tail: where it begins, how far it arrived, and the
    /// helper's piece once it came (`Some(None)`: the helper failed).
    tail: Option<SplitTail>,
    body: Body,
}

#[derive(Debug)]
struct SplitTail {
    from: u64,
    at: u64,
    /// (The piece's encoded bytes, [`Piece::encode`].)
    piece: Option<Option<Vec<u8>>>,
}

impl Incoming {
    /// Every byte arrived (and a split input's piece).
    fn is_complete(&self, last: bool) -> bool {
        match &self.tail {
            Some(t) => self.at == t.from && t.at == self.size && t.piece.is_some(),
            None => last,
        }
    }

    fn received(&self) -> u64 {
        self.at + self.tail.as_ref().map_or(0, |t| t.at - t.from)
    }
}

enum Body {
    /// A plain log, parsed as it arrives.
    Stream(Box<StreamParser>),
    /// An archive, opened whole once complete.
    Whole(Vec<u8>),
    /// It could not be taken in (already noted): later slices are dropped.
    Failed,
}

impl std::fmt::Debug for Body {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Body::Stream(p) => write!(f, "Stream({} bytes)", p.bytes().len()),
            Body::Whole(w) => write!(f, "Whole({} bytes)", w.len()),
            Body::Failed => f.write_str("Failed"),
        }
    }
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
    /// whose piece comes with [`Session::part`] (see [`ToWorker::Split`]).
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
            let body = if !is_evidence_name(name) && crate::pipeline::streamable(name, head.unwrap_or_default()) {
                let opts = Default::default();
                let parser = match tail_from {
                    Some(from) => StreamParser::split(name, size as usize, from as usize, &opts),
                    None => None,
                };
                Body::Stream(Box::new(parser.unwrap_or_else(|| StreamParser::new(name, size as usize, &opts))))
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
            self.incoming = Some(Incoming { name: name.to_string(), size, at: 0, tail, body });
        }
        self.current = name.to_string();
        let in_order = self.incoming.as_ref().is_some_and(|i| {
            let end = offset + len as u64;
            i.name == name
                && i.size == size
                && match &i.tail {
                    Some(t) => (offset == i.at && end <= t.from) || (offset == t.at && end <= size),
                    None => offset == i.at,
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
                self.incoming = Some(Incoming { name: name.to_string(), size, at: offset, tail: None, body: Body::Failed });
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
        let failed = match &mut inc.body {
            Body::Stream(p) => match p.room(offset as usize, len) {
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
            _ => inc.at += len as u64,
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
    /// ([`Piece::encode`]); `None`: the helper failed, and the tail is
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
            Body::Stream(p) => self.add_parsed(&inc.name, inc.size, p.finish_with(piece.as_deref())),
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
            }
        }
        p
    }

    /// The input `name` was last modified at `secs` (Unix seconds): see
    /// [`ToWorker::Modified`].
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

    /// The Markdown report (see [`ToWorker::Markdown`]).
    pub fn markdown(&self, app_url: &str, taken_at_nanos: Option<i64>, redact: RedactOptions) -> String {
        let template = ShareOptions { artifact: self.artifact_name(), taken_at_nanos, redact, ..ShareOptions::default() };
        let finding_links =
            if app_url.is_empty() { Vec::new() } else { evidence::finding_links(&self.analysis, &self.loaded.files, app_url, &template, MARKDOWN_LINKS) };
        let opts = crate::report::ReportOptions { app_url: (!app_url.is_empty()).then(|| app_url.to_string()), finding_links };
        crate::redact::Redactor::new(redact).redact_markdown(&crate::report::markdown(&self.analysis, &opts))
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
    /// dates taken at `dump_time_nanos` (see [`ToWorker::Reanalyze`]).
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

/// Parses, analyzes, lays out and encodes (as for the page) a small
/// generated controller-runtime log, and forgets it: after this, a browser
/// that compiles hot code on the fly ("tiering up") has the parser's and
/// the analysis' hot code compiled. Returns how many reconciles it found.
pub fn warm_up() -> usize {
    let log = warm_up_log(2 << 20);
    let size = log.len() as u64;
    let mut s = Session::new(1, size);
    let slice = 256 << 10;
    for (i, piece) in log.chunks(slice).enumerate() {
        let offset = (i * slice) as u64;
        if s.receive("warm-up.log", offset, size, piece, offset + piece.len() as u64 == size) == Received::Complete {
            s.complete();
        }
    }
    let mut r = s.finish();
    let reconciles = r.analysis.reconciles.len();
    r.lay_out(LayoutOptions::default());
    r.detach();
    let _ = s.lines(0);
    reconciles
}

/// About `bytes` bytes of a kamaji-like manager log in controller-runtime's
/// zap console form: reconciles of a few controllers and objects (some
/// ending in an error with a stack), etcd client warnings in JSON.
fn warm_up_log(bytes: usize) -> Vec<u8> {
    const MESSAGES: [&str; 4] = ["Reconciling", "resource has been configured", "deployment has been configured", "has been reconciled"];
    let mut out = Vec::with_capacity(bytes + 1024);
    let mut i = 0u64;
    while out.len() < bytes {
        let secs = i / 4;
        let ts = |ms: u64| format!("2026-05-26T{:02}:{:02}:{:02}.{ms:03}Z", 10 + secs / 3600 % 10, secs / 60 % 60, secs % 60);
        let (ns, name) = (format!("tenant-{}", i % 7), format!("tcp-{}", i % 41));
        let ctx = format!(
            "{{\"controller\": \"tenantcontrolplane\", \"controllerGroup\": \"kamaji.clastix.io\", \"controllerKind\": \"TenantControlPlane\", \"TenantControlPlane\": {{\"name\":\"{name}\",\"namespace\":\"{ns}\"}}, \"namespace\": \"{ns}\", \"name\": \"{name}\", \"reconcileID\": \"{:08x}-0000-4000-8000-{:012x}\"}}",
            i, i * 7919
        );
        for (k, msg) in MESSAGES.iter().enumerate() {
            out.extend_from_slice(format!("{}\tINFO\t{msg}\t{ctx}\n", ts(k as u64 * 90)).as_bytes());
        }
        if i.is_multiple_of(13) {
            out.extend_from_slice(format!("{}\tERROR\tReconciler error\t{ctx}\nsigs.k8s.io/controller-runtime/pkg/internal/controller.(*Controller).reconcileHandler\n\t/go/pkg/mod/sigs.k8s.io/controller-runtime@v0.21.0/pkg/internal/controller/controller.go:353\n", ts(400)).as_bytes());
        }
        if i.is_multiple_of(5) {
            out.extend_from_slice(format!("{{\"level\":\"warn\",\"ts\":\"{}\",\"logger\":\"etcd-client\",\"msg\":\"retrying of unary invoker failed\",\"attempt\":0,\"error\":\"rpc error: code = DeadlineExceeded desc = context deadline exceeded\"}}\n", ts(500)).as_bytes());
        }
        i += 1;
    }
    out
}

/// Room for a file of `size` bytes, or `None` if the tab has no memory
/// for it (noted, not a crash); zeroed when it is to be written in place.
#[allow(clippy::slow_vector_initialization)] // `vec![0; n]` aborts when memory runs out
fn reserve(size: usize, zeroed: bool) -> Option<Vec<u8>> {
    let mut v = Vec::new();
    v.try_reserve_exact(size).ok()?;
    if zeroed {
        v.resize(size, 0);
    }
    Some(v)
}

/// A helper worker's job: the tail of one big file, from `from`, parsed as
/// its slices arrive ([`ToWorker::BeginPart`]).
#[derive(Debug)]
pub struct PartJob {
    name: String,
    size: u64,
    from: u64,
    parser: PieceParser,
    slices: u64,
}

impl PartJob {
    pub fn new(name: &str, size: u64, from: u64) -> PartJob {
        let len = size.saturating_sub(from) as usize;
        PartJob { name: name.to_string(), size, from, parser: PieceParser::new(from, len, &Default::default()), slices: 0 }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Takes in a slice of the tail. `Ok(true)`: the tail is complete
    /// ([`PartJob::finish`]). `Err`: the slice is not the next of this
    /// job's tail (the job cannot go on).
    pub fn receive(&mut self, name: &str, offset: u64, data: &[u8]) -> Result<bool, String> {
        self.receive_with(name, offset, data.len(), |room| room.copy_from_slice(data))
    }

    /// As [`PartJob::receive`], for a caller that writes the slice's `len`
    /// bytes in place: `fill` gets where they go (see
    /// [`PieceParser::push_with`]).
    pub fn receive_with(&mut self, name: &str, offset: u64, len: usize, fill: impl FnOnce(&mut [u8])) -> Result<bool, String> {
        self.slices += 1;
        let at = self.from + self.parser.received();
        if name != self.name || offset != at || at + len as u64 > self.size {
            return Err(format!("{name}: bytes at offset {offset} are not the next of the part ({} at {at})", self.name));
        }
        self.parser.push_with(len, fill);
        Ok(self.from + self.parser.received() == self.size)
    }

    /// How far it is, as a progress message (the page's backpressure).
    pub fn progress(&self) -> Progress {
        Progress {
            phase: Phase::Reading,
            done_bytes: self.parser.received(),
            total_bytes: self.size - self.from,
            files_done: 0,
            files: 1,
            current: self.name.clone(),
            slices: self.slices,
        }
    }

    /// The parsed tail.
    pub fn finish(self) -> Piece {
        self.parser.finish()
    }
}

impl Session {
    /// The reconciles with a record matching `filter` (see
    /// [`matching_reconciles`]).
    pub fn matching(&self, filter: &MessageFilter) -> Result<Vec<u32>, String> {
        matching_reconciles(&self.loaded.files, &self.analysis.record_refs, &self.analysis.reconciles, filter)
    }
}

/// Indexes of the reconciles (each a range of `refs`) with at least one
/// record whose message matches `filter.pattern` (case-insensitive regex)
/// and whose level is at least `filter.min_level`. `Err`: a bad pattern.
pub fn matching_reconciles(
    files: &[ParsedFile],
    refs: &[RecordRef],
    reconciles: &[crate::analyze::Reconcile],
    filter: &MessageFilter,
) -> Result<Vec<u32>, String> {
    let re = if filter.pattern.is_empty() {
        None
    } else {
        let re = regex::RegexBuilder::new(&filter.pattern).case_insensitive(true).size_limit(1 << 20).build().map_err(|e| match e {
            regex::Error::Syntax(s) => s.lines().last().unwrap_or("invalid regular expression").trim().to_string(),
            other => other.to_string(),
        })?;
        Some(re)
    };
    let min = match filter.min_level {
        0 => Level::Unknown,
        1 => Level::Info,
        2 => Level::Warn,
        _ => Level::Error,
    };
    let mut out = Vec::new();
    for (i, r) in reconciles.iter().enumerate() {
        let range = &r.records;
        let Some(rs) = refs.get(range.start as usize..range.end as usize) else { continue };
        let hit = rs.iter().any(|r| {
            let Some(rec) = files.get(r.file as usize).and_then(|f| f.records.get(r.record as usize).map(|x| (f, x))) else {
                return false;
            };
            let (f, rec) = rec;
            rec.level >= min && re.as_ref().is_none_or(|re| re.is_match(&f.message(rec)))
        });
        if hit {
            out.push(i as u32);
        }
    }
    Ok(out)
}

/// See [`Session::lines`]. `refs` are the reconcile's records.
pub fn reconcile_lines(files: &[ParsedFile], refs: &[RecordRef], reconcile: u32, reconcile_id: &str, max_context: usize) -> ReconcileLines {
    // Own records per file, files in order of first appearance.
    let mut by_file: Vec<(u32, Vec<u32>)> = Vec::new();
    for r in refs {
        match by_file.iter_mut().find(|(f, _)| *f == r.file) {
            Some((_, v)) => v.push(r.record),
            None => by_file.push((r.file, vec![r.record])),
        }
    }
    let mut context_budget = max_context;
    let mut omitted = 0u64;
    let mut blocks = Vec::new();
    for (file, mut own) in by_file {
        let Some(pf) = files.get(file as usize) else { continue };
        own.sort_unstable();
        own.dedup();
        let (Some(&lo), Some(&hi)) = (own.first(), own.last()) else { continue };
        let mut lines = Vec::new();
        for idx in lo..=hi {
            let Some(rec) = pf.records.get(idx as usize) else { break };
            let is_own = own.binary_search(&idx).is_ok();
            if !is_own {
                if !rec.reconcile_id.is_empty() {
                    continue; // another reconcile's line
                }
                if context_budget == 0 {
                    omitted += u64::from(rec.line_count.max(1));
                    continue;
                }
                context_budget -= 1;
            }
            let text = String::from_utf8_lossy(pf.raw(rec));
            for (i, l) in text.split('\n').enumerate() {
                lines.push(Line { number: rec.line + i as u32, text: l.strip_suffix('\r').unwrap_or(l).to_string(), own: is_own });
            }
        }
        blocks.push(LineBlock { path: pf.path.clone(), lines });
    }
    ReconcileLines { reconcile, reconcile_id: reconcile_id.to_string(), blocks, omitted_context: omitted, left_out_lines: 0 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::FindingKind;
    use std::path::{Path, PathBuf};

    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
        entries.sort();
        for e in entries {
            if e.is_dir() {
                walk(&e, out)
            } else {
                out.push(e)
            }
        }
    }

    /// The incident fixture through the worker's code path and the message
    /// codec, as the browser does it.
    #[test]
    fn incident_through_session_and_codec() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/incident/cozyreport");
        let mut paths = Vec::new();
        walk(&root, &mut paths);
        let total: u64 = paths.iter().map(|p| std::fs::metadata(p).unwrap().len()).sum();
        let mut s = Session::new(paths.len() as u32, total);
        for p in &paths {
            let name = p.strip_prefix(root.parent().unwrap()).unwrap().to_string_lossy().into_owned();
            s.add(&name, std::fs::read(p).unwrap());
        }
        assert_eq!(s.progress(Phase::Reading).done_bytes, total);
        let mut result = s.finish();
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
    fn messages_round_trip() {
        for m in [
            ToWorker::Begin { files: 2, total_bytes: 10 },
            ToWorker::Finish { layout: None },
            ToWorker::Finish { layout: Some(LayoutOptions::default()) },
            ToWorker::Reanalyze { dump_time_nanos: Some(5), layout: None },
            ToWorker::FileSlice { name: "a/b.log".into(), offset: 16, size: 20, last: true },
            ToWorker::Unreadable { name: "c.log".into(), size: 3, message: "NotReadableError".into() },
            ToWorker::Inspect { reconcile: 7 },
            ToWorker::Filter { seq: 3, filter: MessageFilter { pattern: "a|b".into(), min_level: 2 } },
        ] {
            assert_eq!(decode::<ToWorker>(&encode(&m)).unwrap(), m);
        }
        let p = Session::new(1, 5).progress(Phase::Analyzing);
        let FromWorker::Progress(q) = decode(&encode(&FromWorker::Progress(p.clone()))).unwrap() else { panic!() };
        assert_eq!(p, q);
        assert!(decode::<ToWorker>(b"{").is_err());
        assert_eq!(decode::<ToWorker>(br#"{"type":"finish"}"#).unwrap(), ToWorker::Finish { layout: None });
    }

    /// Sends `bytes` to the session in slices of `slice` bytes.
    fn send(s: &mut Session, name: &str, bytes: &[u8], slice: usize) -> Vec<Received> {
        let size = bytes.len() as u64;
        let mut out = Vec::new();
        let mut at = 0;
        loop {
            let end = (at + slice).min(bytes.len());
            let last = end == bytes.len();
            let r = s.receive(name, at as u64, size, &bytes[at..end], last);
            assert!(s.receiving().done_bytes <= s.progress(Phase::Reading).total_bytes);
            if r == Received::Complete {
                s.complete();
            }
            out.push(r);
            at = end;
            if last {
                return out;
            }
        }
    }

    fn summary(r: &LoadResult) -> Vec<(String, u64)> {
        r.files.iter().map(|f| (f.path.clone(), f.records)).collect()
    }

    /// 3000 lines of 1000 reconciles, each line `line` (a format string
    /// with the time's `{s}` seconds and `{i}` micros and the reconcile's
    /// `{r}`), and the example artifact; and the two as one session loads
    /// them whole.
    fn log_and_zip(line: impl Fn(usize, usize, usize) -> String) -> (Vec<u8>, Vec<u8>, LoadResult) {
        let mut log = Vec::new();
        for i in 0..3000 {
            log.extend_from_slice(line(i % 60, i, i / 3).as_bytes());
        }
        let zip = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("www/example/cozyreport.zip")).unwrap();
        let mut whole = Session::new(2, (log.len() + zip.len()) as u64);
        whole.add("a.log", log.clone());
        whole.add("c.zip", zip.clone());
        let whole = whole.finish();
        (log, zip, whole)
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

    /// Sends `bytes` split at `tail_from` the way the page does with two
    /// workers: head and tail slices side by side to the session, the
    /// tail's also to a helper's [`PartJob`], whose piece (through its
    /// encoding) follows, or `None` when `helper_fails`. Returns what the
    /// session said to each message.
    fn send_split(s: &mut Session, name: &str, bytes: &[u8], tail_from: usize, slice: usize, helper_fails: bool) -> Vec<Received> {
        let size = bytes.len() as u64;
        s.split(name, size, tail_from as u64);
        let mut job = PartJob::new(name, size, tail_from as u64);
        let mut out = Vec::new();
        let (mut head, mut tail) = (0, tail_from);
        let mut job_done = false;
        while head < tail_from || tail < bytes.len() {
            if head < tail_from {
                let end = (head + slice).min(tail_from);
                out.push(s.receive(name, head as u64, size, &bytes[head..end], false));
                head = end;
            }
            if tail < bytes.len() {
                let end = (tail + slice).min(bytes.len());
                out.push(s.receive(name, tail as u64, size, &bytes[tail..end], end == bytes.len()));
                // (In place, as the worker takes them.)
                job_done = job.receive_with(name, tail as u64, end - tail, |room| room.copy_from_slice(&bytes[tail..end])).unwrap();
                tail = end;
            }
        }
        assert!(job_done);
        assert_eq!(job.progress().done_bytes, size - tail_from as u64);
        let piece = (!helper_fails).then(|| job.finish().encode());
        out.push(s.part(name, piece));
        if out.last() == Some(&Received::Complete) {
            s.complete();
        }
        out
    }

    #[test]
    fn split_files_give_what_whole_files_give() {
        let (log, zip, whole) = log_and_zip(|s, i, r| {
            format!("2026-05-26T16:21:{s:02}.{i:06}Z\tERROR\tctrl\tReconciler error\t{{\"reconcileID\": \"r{r}\"}}\nmain.f()\n\t/m.go:1 +0x1\n")
        });
        let total = (log.len() + zip.len()) as u64;
        for (tail_from, slice, helper_fails) in [(log.len() / 2, 7777, false), (1, 1 << 20, false), (log.len() - 1, 1000, false), (log.len() / 3, 5000, true)] {
            let mut s = Session::new(2, total);
            let r = send_split(&mut s, "a.log", &log, tail_from, slice, helper_fails);
            // Complete only with every byte and the piece in.
            assert_eq!(r.last(), Some(&Received::Complete), "{tail_from} {slice}");
            assert!(r[..r.len() - 1].iter().all(|r| *r == Received::More));
            assert_eq!(s.receiving().done_bytes, log.len() as u64);
            assert_eq!(s.progress(Phase::Reading).slices, r.len() as u64 - 1);
            // An archive announced as split (the page does not split
            // archives, but the session copes) is opened whole.
            let r = send_split(&mut s, "c.zip", &zip, zip.len() / 2, 4096, true);
            assert_eq!(r.last(), Some(&Received::Complete));
            let p = s.progress(Phase::Reading);
            assert_eq!((p.files_done, p.done_bytes), (2, total));
            let r = s.finish();
            assert_eq!(summary(&r), summary(&whole), "{tail_from} {slice}");
            assert_eq!(r.analysis.reconciles, whole.analysis.reconciles);
            assert_eq!(r.notes, whole.notes);
            let lines = |s: &Session| (0..r.analysis.reconciles.len() as u32).map(|i| s.lines(i)).collect::<Vec<_>>();
            assert_eq!(
                lines(&s),
                lines(&{
                    let mut w = Session::new(2, total);
                    w.add("a.log", log.clone());
                    w.add("c.zip", zip.clone());
                    w.finish();
                    w
                })
            );
        }
        // The piece may come before the last slices.
        let mut s = Session::new(1, log.len() as u64);
        let from = log.len() / 2;
        s.split("a.log", log.len() as u64, from as u64);
        let mut job = PartJob::new("a.log", log.len() as u64, from as u64);
        assert_eq!(s.receive("a.log", 0, log.len() as u64, &log[..10], false), Received::More);
        assert_eq!(s.receive("a.log", from as u64, log.len() as u64, &log[from..], true), Received::More);
        assert_eq!(job.receive("a.log", from as u64, &log[from..]), Ok(true));
        assert_eq!(s.part("a.log", Some(job.finish().encode())), Received::More);
        assert_eq!(s.part("a.log", None), Received::Dropped, "one piece per file");
        assert_eq!(s.receive("a.log", 10, log.len() as u64, &log[10..from], false), Received::Complete);
        s.complete();
        assert_eq!(summary(&s.finish()), summary(&whole)[..1]);
    }

    #[test]
    fn split_slices_out_of_order_drop_the_file_once() {
        let log = b"2026-05-26T16:21:07Z INFO hello\n".repeat(100);
        let size = log.len() as u64;
        let mut s = Session::new(2, 2 * size);
        s.split("a.log", size, 1000);
        assert_eq!(s.receive("a.log", 0, size, &log[..500], false), Received::More);
        // The head may not run into the tail.
        assert_eq!(s.receive("a.log", 500, size, &log[500..1100], false), Received::Dropped);
        assert_eq!(s.receive("a.log", 1000, size, &log[1000..], true), Received::Dropped);
        assert_eq!(s.part("a.log", None), Received::Dropped);
        // A split announced for another file does not apply to this one.
        s.split("x.log", size, 1000);
        assert_eq!(send(&mut s, "b.log", &log, 700).last(), Some(&Received::Complete));
        let r = s.finish();
        let notes: Vec<(&str, &str)> = r.notes.iter().map(|n| (n.path.as_str(), n.message.as_str())).collect();
        assert_eq!(notes, [("a.log", "cannot read the file: its parts arrived out of order")]);
        assert_eq!(summary(&r), [("b.log".to_string(), 100)]);
        // A helper's job takes only the next bytes of its tail.
        let mut job = PartJob::new("a.log", size, 1000);
        assert!(job.receive("a.log", 1001, &log[1001..1100]).is_err());
        assert!(job.receive("b.log", 1000, &log[1000..1100]).is_err());
        assert_eq!(job.receive("a.log", 1000, &log[1000..1100]), Ok(false));
        assert!(job.receive("a.log", 1100, &log[1100..]).unwrap());
        assert!(job.receive("a.log", size, b"x").is_err());
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
    fn the_warm_up_runs_the_whole_load() {
        let log = warm_up_log(1 << 20);
        assert!(log.len() >= 1 << 20);
        let pf = crate::parse::parse_file("w.log", log, &Default::default());
        assert_eq!(pf.counts.unparsed(), 0);
        assert!(pf.counts.continuation_lines > 0, "stacks join their ERROR line");
        let reconciles = warm_up();
        assert!(reconciles > 1000, "{reconciles} reconciles");
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
