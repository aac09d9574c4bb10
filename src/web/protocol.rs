//! The messages between the page and its worker, and their encoding.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::{MessageFilter, ReconcileLines};
use crate::analyze::Analysis;
use crate::evidence::{self, EvidenceMeta};
use crate::layout::{LayoutOptions, Timeline};
use crate::redact::RedactOptions;

/// From the app to the worker.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum ToWorker {
    /// A new load begins (anything loaded before is dropped): `files`
    /// inputs of `total_bytes` bytes in all will follow. `max_total_bytes`:
    /// the person's cap on what is read over the whole load (the CLI's
    /// `--max-total-bytes`); the tab's own limit
    /// ([`TAB_LOG_BYTES`](super::TAB_LOG_BYTES)) holds either way.
    Begin {
        files: u32,
        total_bytes: u64,
        #[serde(default)]
        max_total_bytes: Option<u64>,
    },
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
    /// it ([`warm_up`](super::warm_up)): the page starts its worker as it opens and has it
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
    /// ([`ToWorker::BeginPart`]), beside as `piece` ([`Piece::encode`](crate::parse::Piece::encode)),
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
    /// The input being read is read only up to here (a cap was reached):
    /// the page may skip to its end ([`ToWorker::FileSlice`] at `offset`
    /// = its size, `last`, no bytes).
    #[serde(default)]
    pub cut_at: Option<u64>,
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
    /// Inputs read only in part, or not at all, because of a cap (the
    /// banner says so; the notes too).
    #[serde(default)]
    pub left_out: Vec<LeftOut>,
}

/// An input the load did not read whole because a cap was reached.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeftOut {
    pub path: String,
    /// Its size as sent.
    pub size_bytes: u64,
    /// The bytes read from its start (up to the last whole line); 0: none.
    pub kept_bytes: u64,
    pub reason: LeftOutReason,
}

/// Which cap left an input out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "cap", rename_all = "kebab-case")]
pub enum LeftOutReason {
    /// What the tab holds of logs in all ([`TAB_LOG_BYTES`](super::TAB_LOG_BYTES)), or less
    /// when the browser gave the worker less memory than that.
    Tab { bytes: u64 },
    /// The person's cap on the load ([`ToWorker::Begin`]'s `max_total_bytes`).
    Cap { bytes: u64 },
}

impl LeftOut {
    /// What the note says: how much was read, why, and that the CLI
    /// reads all of it.
    pub fn message(&self) -> String {
        use crate::ingest::human_bytes;
        let why = match self.reason {
            LeftOutReason::Tab { bytes } => format!("the tab holds at most {} of logs", human_bytes(bytes)),
            LeftOutReason::Cap { bytes } => format!("the load's cap is {} (\"Read at most\")", human_bytes(bytes)),
        };
        let cli = cli_reads(self.size_bytes);
        if self.kept_bytes == 0 {
            return format!(
                "not read ({}): {why}, and the inputs before it took all of that. The CLI (reconscope analyze) reads {cli}.",
                human_bytes(self.size_bytes)
            );
        }
        format!(
            "read only in part: its first {} of {} (to the last whole line); the last {} were left out: {why}. The CLI (reconscope analyze) reads {cli}.",
            human_bytes(self.kept_bytes),
            human_bytes(self.size_bytes),
            human_bytes(self.size_bytes - self.kept_bytes)
        )
    }
}

/// What the CLI reads of a file of `size` bytes: "all of it", or its
/// first [`crate::parse::CLI_FILE_BYTES`].
pub fn cli_reads(size: u64) -> String {
    if size <= crate::parse::CLI_FILE_BYTES {
        "all of it".to_string()
    } else {
        format!("its first {}", crate::ingest::human_bytes(crate::parse::CLI_FILE_BYTES))
    }
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

/// Encodes a message (JSON bytes).
pub fn encode<T: Serialize>(msg: &T) -> Vec<u8> {
    // Serializing these types cannot fail: every map key is a string.
    serde_json::to_vec(msg).unwrap_or_default()
}

/// Decodes a message written by [`encode`].
pub fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {
    serde_json::from_slice(bytes).map_err(|e| format!("bad message: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::web::Session;

    #[test]
    fn messages_round_trip() {
        for m in [
            ToWorker::Begin { files: 2, total_bytes: 10, max_total_bytes: Some(1 << 30) },
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
}
