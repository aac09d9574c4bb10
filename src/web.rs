//! What the browser app and its worker say to each other, and the worker's
//! work as plain code (so it is tested natively, like the rest of the
//! library).
//!
//! The app (`src/bin/app/`) sends each input file to the worker
//! (`src/bin/worker.rs`) as a `Blob` handle beside a [`ToWorker::File`]
//! message; the worker reads it into its memory in slices (reporting
//! progress) and parses it at once, then
//! on [`ToWorker::Finish`] analyzes everything and answers with
//! [`FromWorker::Loaded`]. The parsed files stay in the worker, which answers
//! [`ToWorker::Inspect`] with a reconcile's raw lines.
//!
//! Messages are encoded with [`encode`] (JSON bytes, moved between threads as
//! a transferred `Uint8Array`, never as a JS string).


use std::ops::Range;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::analyze::{self, Analysis, AnalyzeOptions, RecordRef};
use crate::model::{Level, ParsedFile};
use crate::pipeline::{LoadOptions, Loaded};
use crate::stats::FileStats;

/// From the app to the worker.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum ToWorker {
    /// A new load begins (anything loaded before is dropped): `files`
    /// inputs of `total_bytes` bytes in all will follow.
    Begin { files: u32, total_bytes: u64 },
    /// One input (a log file or an archive). The file travels beside this
    /// message as a `Blob`. `name` is its path as the
    /// person chose it (`webkitRelativePath` for a folder's files).
    File { name: String },
    /// Every input has been sent: analyze them.
    Finish,
    /// The lines of one reconcile (an index into `Analysis::reconciles`).
    Inspect { reconcile: u32 },
    /// Which reconciles have a record matching `filter`; answered with
    /// [`FromWorker::Matched`] carrying the same `seq`.
    Filter { seq: u32, filter: MessageFilter },
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
    Progress(Progress),
    Loaded(Box<LoadResult>),
    Lines(ReconcileLines),
    Matched(Matched),
    /// A request could not be answered (e.g. an inspect before any load).
    Failed { message: String },
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
}

/// The result of a load.
///
/// The reconciles travel apart from the rest: as JSON they would take
/// seconds to read on the page's thread, so [`LoadResult::reconciles`]
/// holds them in [`crate::codec`]'s form, sent beside the message as a
/// transferred buffer; the page puts them back with [`LoadResult::attach`].
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct LoadResult {
    /// The analysis, without `record_refs` (they stay in the worker, which
    /// answers [`ToWorker::Inspect`]) and, on the wire, without
    /// `reconciles`.
    pub analysis: Analysis,
    /// `analysis.reconciles` encoded, while the result is on its way.
    #[serde(skip)]
    pub reconciles: Vec<u8>,
    /// One entry per log file read (archive members included).
    pub files: Vec<FileSummary>,
    /// Problems reading or analyzing, by file.
    pub notes: Vec<Note>,
    /// Input bytes, as sent.
    pub input_bytes: u64,
}

impl LoadResult {
    /// Moves the reconciles into their compact form (the worker, before
    /// posting).
    pub fn detach(&mut self) {
        self.reconciles = crate::codec::encode_reconciles(&self.analysis.reconciles);
        self.analysis.reconciles = Vec::new();
    }

    /// Puts the reconciles back from the bytes sent beside the message (the
    /// page, on receipt).
    pub fn attach(&mut self, bytes: &[u8]) -> Result<(), crate::codec::CodecError> {
        self.analysis.reconciles = crate::codec::decode_reconciles(bytes)?;
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
    load: LoadOptions,
    analyze: AnalyzeOptions,
    files: u32,
    files_done: u32,
    total_bytes: u64,
    done_bytes: u64,
    current: String,
    /// After [`Session::finish`]: every reconcile's records, and its id.
    record_refs: Vec<RecordRef>,
    reconciles: Vec<(Range<u32>, String)>,
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
        }
    }

    /// Says which input is read next (for progress messages).
    pub fn starting(&mut self, name: &str) {
        self.current = name.to_string();
    }

    /// How far the load is while `name` is being read: `bytes_in_file` of
    /// it so far.
    pub fn reading(&mut self, name: &str, bytes_in_file: u64) -> Progress {
        self.current = name.to_string();
        let mut p = self.progress(Phase::Reading);
        p.done_bytes = (self.done_bytes + bytes_in_file).min(p.total_bytes);
        p
    }

    /// Adds a file parsed as it arrived (see [`crate::pipeline::streamable`]);
    /// `size` is its size as sent.
    pub fn add_parsed(&mut self, name: &str, size: u64, file: ParsedFile) {
        self.current = name.to_string();
        self.loaded.add_parsed(file);
        self.files_done += 1;
        self.done_bytes += size;
    }

    /// An input that could not be read (the browser refused its bytes):
    /// noted against its name; the load goes on with the others.
    pub fn unreadable(&mut self, name: &str, size: u64, message: &str) {
        self.loaded.notes.push(crate::model::Diagnostic {
            path: name.to_string(),
            line: None,
            message: format!("cannot read the file: {message}"),
        });
        self.files_done += 1;
        self.done_bytes += size;
    }

    /// Reads one input (a log file or an archive).
    pub fn add(&mut self, name: &str, bytes: Vec<u8>) {
        self.current = name.to_string();
        let n = bytes.len() as u64;
        self.loaded.add(name, bytes, &self.load);
        self.files_done += 1;
        self.done_bytes += n;
    }

    /// Analyzes what was read. The parsed files stay here for
    /// [`Session::lines`].
    pub fn finish(&mut self) -> LoadResult {
        self.loaded.finish();
        let (mut analysis, diags) = analyze::analyze(&self.loaded.files, &self.analyze);
        self.record_refs = std::mem::take(&mut analysis.record_refs);
        self.reconciles =
            analysis.reconciles.iter().map(|r| (r.records.clone(), r.reconcile_id.clone())).collect();
        let files = self.loaded.files.iter().map(FileStats::of).collect();
        let notes = self.loaded.notes.iter().chain(diags.iter()).cloned().collect();
        LoadResult { analysis, reconciles: Vec::new(), files, notes, input_bytes: self.done_bytes }
    }

    /// The parsed files.
    pub fn files(&self) -> &[ParsedFile] {
        &self.loaded.files
    }

    /// A reconcile's raw lines with their file and line numbers, plus the
    /// lines between them (in the same file) that carry no `reconcileID`.
    /// `None` for an unknown index.
    pub fn lines(&self, reconcile: u32) -> Option<ReconcileLines> {
        let (range, id) = self.reconciles.get(reconcile as usize)?;
        let refs = self.record_refs.get(range.start as usize..range.end as usize)?;
        Some(reconcile_lines(&self.loaded.files, refs, reconcile, id, MAX_CONTEXT_LINES))
    }
}

impl Session {
    /// The reconciles with a record matching `filter` (see
    /// [`matching_reconciles`]).
    pub fn matching(&self, filter: &MessageFilter) -> Result<Vec<u32>, String> {
        matching_reconciles(&self.loaded.files, &self.record_refs, &self.reconciles, filter)
    }
}

/// Indexes of the reconciles (each a range of `refs`) with at least one
/// record whose message matches `filter.pattern` (case-insensitive regex)
/// and whose level is at least `filter.min_level`. `Err`: a bad pattern.
pub fn matching_reconciles(
    files: &[ParsedFile],
    refs: &[RecordRef],
    reconciles: &[(Range<u32>, String)],
    filter: &MessageFilter,
) -> Result<Vec<u32>, String> {
    let re = if filter.pattern.is_empty() {
        None
    } else {
        let re = regex::RegexBuilder::new(&filter.pattern)
            .case_insensitive(true)
            .size_limit(1 << 20)
            .build()
            .map_err(|e| match e {
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
    for (i, (range, _)) in reconciles.iter().enumerate() {
        let Some(rs) = refs.get(range.start as usize..range.end as usize) else { continue };
        let hit = rs.iter().any(|r| {
            let Some(rec) = files.get(r.file as usize).and_then(|f| f.records.get(r.record as usize).map(|x| (f, x)))
            else {
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
pub fn reconcile_lines(
    files: &[ParsedFile],
    refs: &[RecordRef],
    reconcile: u32,
    reconcile_id: &str,
    max_context: usize,
) -> ReconcileLines {
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
                lines.push(Line {
                    number: rec.line + i as u32,
                    text: l.strip_suffix('\r').unwrap_or(l).to_string(),
                    own: is_own,
                });
            }
        }
        blocks.push(LineBlock { path: pf.path.clone(), lines });
    }
    ReconcileLines { reconcile, reconcile_id: reconcile_id.to_string(), blocks, omitted_context: omitted }
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
        result.detach();
        let beside = std::mem::take(&mut result.reconciles);
        let msg: FromWorker = decode(&encode(&FromWorker::Loaded(Box::new(result)))).unwrap();
        let FromWorker::Loaded(mut r) = msg else { panic!("not loaded") };
        assert!(r.analysis.reconciles.is_empty(), "reconciles travel beside the message");
        r.attach(&beside).unwrap();
        assert_eq!(r.analysis.reconciles, reconciles);
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
        s.starting("a.log");
        assert_eq!(s.reading("a.log", 40).done_bytes, 40);
        s.add("a.log", b"2026-05-26T16:21:07Z INFO hello\n".to_vec());
        s.unreadable("b.log", 100, "NotReadableError");
        let p = s.reading("c.log", 50);
        assert_eq!((p.files_done, p.current.as_str()), (2, "c.log"));
        assert_eq!(p.done_bytes, 32 + 100 + 50);
        assert_eq!(s.reading("c.log", 10_000).done_bytes, 300, "never past the total");
        let mut sp = crate::parse::StreamParser::new("c.log", 40, &Default::default());
        sp.push(b"2026-05-26T16:21:08Z INFO streamed\n");
        s.add_parsed("c.log", 40, sp.finish());
        assert_eq!(s.progress(Phase::Reading).done_bytes, 32 + 100 + 40);
        let r = s.finish();
        assert!(r.notes.iter().any(|n| n.path == "b.log" && n.message.contains("cannot read the file: NotReadableError")));
        assert_eq!(r.files.iter().map(|f| (f.path.as_str(), f.records)).collect::<Vec<_>>(), [("a.log", 1), ("c.log", 1)]);
    }

    #[test]
    fn messages_round_trip() {
        for m in [
            ToWorker::Begin { files: 2, total_bytes: 10 },
            ToWorker::File { name: "a/b.log".into() },
            ToWorker::Finish,
            ToWorker::Inspect { reconcile: 7 },
            ToWorker::Filter { seq: 3, filter: MessageFilter { pattern: "a|b".into(), min_level: 2 } },
        ] {
            assert_eq!(decode::<ToWorker>(&encode(&m)).unwrap(), m);
        }
        let p = Session::new(1, 5).progress(Phase::Analyzing);
        let FromWorker::Progress(q) = decode(&encode(&FromWorker::Progress(p.clone()))).unwrap() else {
            panic!()
        };
        assert_eq!(p, q);
        assert!(decode::<ToWorker>(b"{").is_err());
    }
}
