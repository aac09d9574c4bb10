//! Plain data: what a parsed log line is. No parsing logic lives here.
//!
//! A [`ParsedFile`] owns the bytes of one input file; every [`Record`] points
//! into them with [`Span`]s, so parsing allocates almost nothing per line and
//! the UI can always show the raw text.

use std::borrow::Cow;
use std::fmt;

pub use crate::time::Timestamp;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum Level {
    #[default]
    Unknown,
    Debug,
    Info,
    Warn,
    Error,
    Fatal,
}

impl Level {
    /// Every level, in declaration order (`level as usize` indexes it).
    pub const ALL: [Level; 6] = [Level::Unknown, Level::Debug, Level::Info, Level::Warn, Level::Error, Level::Fatal];

    pub fn as_str(self) -> &'static str {
        match self {
            Level::Unknown => "unknown",
            Level::Debug => "debug",
            Level::Info => "info",
            Level::Warn => "warn",
            Level::Error => "error",
            Level::Fatal => "fatal",
        }
    }

    /// Reads a level word in any case: `INFO`, `info`, `warning`, `I`, `E` ...
    pub fn parse(word: &[u8]) -> Option<Level> {
        // zap's name for a level it has no word for: logr's V(2) and
        // beyond are `LEVEL(-2)`, ... (debug).
        if word.len() > 7 && word[..6].eq_ignore_ascii_case(b"level(") && word.ends_with(b")") {
            return word[6..word.len() - 1].strip_prefix(b"-").filter(|n| !n.is_empty() && n.iter().all(u8::is_ascii_digit)).map(|_| Level::Debug);
        }
        let mut buf = [0u8; 8];
        if word.is_empty() || word.len() > buf.len() {
            return None;
        }
        for (d, s) in buf.iter_mut().zip(word) {
            *d = s.to_ascii_lowercase();
        }
        Some(match &buf[..word.len()] {
            b"debug" | b"trace" | b"d" | b"dbg" => Level::Debug,
            b"info" | b"i" | b"n" | b"notice" => Level::Info,
            b"warn" | b"warning" | b"w" => Level::Warn,
            b"error" | b"err" | b"e" | b"dpanic" => Level::Error,
            b"fatal" | b"panic" | b"f" | b"c" | b"crit" => Level::Fatal,
            _ => return None,
        })
    }
}

/// The inner format a line was recognised as. `Unparsed` is a line no
/// format matched: it is still a record, holding its raw text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Format {
    /// controller-runtime / zap development console encoder (TAB columns).
    ZapConsole,
    /// zap production JSON (controller-runtime, etcd server, etcd client).
    ZapJson,
    /// etcd capnslog text: `2021-09-11 14:46:23.606939 I | raft: ...`.
    EtcdCapnslog,
    /// A syslog / journald line: `Apr 29 11:15:36 host unit[pid]: msg`.
    Journald,
    /// klog text header `I0910 09:06:15.416743 1 file.go:243] msg`.
    Klog,
    /// logrus text `INFO[ts] msg` or logfmt `time=... level=... msg=...`.
    Logrus,
    /// Go standard library log: `2009/11/10 23:00:00 msg` or `17:07:59.527067 file.go:419: msg`.
    GoLog,
    /// A Go panic or goroutine dump block (`panic:`, `goroutine N [...]:`).
    GoTraceback,
    /// chainsaw's `| HH:MM:SS | test | step | OP | STATUS |` table lines.
    Chainsaw,
    /// A line whose only structure was a wrapper (e.g. a GitHub Actions step
    /// line of plain text): it has the wrapper's time.
    Text,
    Unparsed,
}

impl Format {
    pub const ALL: [Format; 11] = [
        Format::ZapConsole,
        Format::ZapJson,
        Format::EtcdCapnslog,
        Format::Journald,
        Format::Klog,
        Format::Logrus,
        Format::GoLog,
        Format::GoTraceback,
        Format::Chainsaw,
        Format::Text,
        Format::Unparsed,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Format::ZapConsole => "zap-console",
            Format::ZapJson => "zap-json",
            Format::EtcdCapnslog => "etcd-capnslog",
            Format::Journald => "journald",
            Format::Klog => "klog",
            Format::Logrus => "logrus",
            Format::GoLog => "go-log",
            Format::GoTraceback => "go-traceback",
            Format::Chainsaw => "chainsaw",
            Format::Text => "text",
            Format::Unparsed => "unparsed",
        }
    }
}

/// A layer peeled off before the inner line was parsed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum Wrapper {
    #[default]
    None,
    /// `kubectl logs --timestamps`: RFC3339Nano (9 digits) + space.
    KubectlTimestamps,
    /// CRI on-node file: `<ts> stdout F <line>`.
    Cri,
    /// docker json-file: `{"log":"...","stream":"...","time":"..."}`.
    DockerJson,
    /// `kubectl logs --prefix`: `[pod/x/c] <line>`.
    KubectlPrefix,
    /// GitHub Actions raw job log: `<ts with 7 digits>Z <line>`.
    GithubActions,
    /// Any other collector / viewer timestamp glued before the line.
    TimestampPrefix,
    /// A short container or job name column before the line (`manager `,
    /// `job<TAB>step<TAB>`).
    NamePrefix,
    /// A syslog / journald prefix (`Apr 29 11:15:36 host unit[pid]: `, or
    /// `journalctl -o short-iso`'s dated form) over a line with a format of
    /// its own: the inner line's time is the record's, the prefix's is the
    /// collection time.
    Journald,
}

impl Wrapper {
    /// Every wrapper, in declaration order (`wrapper as usize` indexes it).
    pub const ALL: [Wrapper; 9] = [
        Wrapper::None,
        Wrapper::KubectlTimestamps,
        Wrapper::Cri,
        Wrapper::DockerJson,
        Wrapper::KubectlPrefix,
        Wrapper::GithubActions,
        Wrapper::TimestampPrefix,
        Wrapper::NamePrefix,
        Wrapper::Journald,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Wrapper::None => "none",
            Wrapper::KubectlTimestamps => "kubectl-timestamps",
            Wrapper::Cri => "cri",
            Wrapper::DockerJson => "docker-json",
            Wrapper::KubectlPrefix => "kubectl-prefix",
            Wrapper::GithubActions => "github-actions",
            Wrapper::TimestampPrefix => "timestamp-prefix",
            Wrapper::NamePrefix => "name-prefix",
            Wrapper::Journald => "journald",
        }
    }
}

/// A byte range inside a [`ParsedFile`]: either its raw bytes or its
/// scratch buffer (text that had to be rewritten, e.g. unescaped docker
/// json-file payloads or joined CRI partial lines).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Span {
    pub start: u32,
    /// Length; the top bit says the bytes live in the scratch buffer.
    len: u32,
}

const SCRATCH_BIT: u32 = 1 << 31;

impl Span {
    pub const EMPTY: Span = Span { start: 0, len: 0 };

    /// A span of the file's bytes; an inverted range is empty.
    pub fn raw(start: usize, end: usize) -> Span {
        Span { start: start as u32, len: end.saturating_sub(start) as u32 & !SCRATCH_BIT }
    }
    /// A span of the scratch buffer; an inverted range is empty.
    pub fn scratch(start: usize, end: usize) -> Span {
        Span { start: start as u32, len: end.saturating_sub(start) as u32 | SCRATCH_BIT }
    }
    pub fn len(self) -> usize {
        (self.len & !SCRATCH_BIT) as usize
    }
    pub fn is_empty(self) -> bool {
        self.len() == 0
    }
    pub fn in_scratch(self) -> bool {
        self.len & SCRATCH_BIT != 0
    }
    /// Its start and its length word (the scratch bit included), for
    /// compact encodings; [`Span::from_raw_parts`] reads them back.
    pub fn to_raw_parts(self) -> (u32, u32) {
        (self.start, self.len)
    }
    pub fn from_raw_parts(start: u32, len: u32) -> Span {
        Span { start, len }
    }
    /// The same span moved `by` bytes further (when buffers are joined).
    pub fn shifted(self, by: u32) -> Span {
        Span { start: self.start + by, len: self.len }
    }
    /// The sub-span `[from, to)` relative to this span's start.
    pub fn sub(self, from: usize, to: usize) -> Span {
        let start = self.start as usize + from;
        let end = self.start as usize + to;
        if self.in_scratch() {
            Span::scratch(start, end)
        } else {
            Span::raw(start, end)
        }
    }
}

/// How a field value is encoded in the source.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ValueKind {
    /// The inside of a JSON string, possibly with escapes.
    JsonString,
    /// A JSON number, bool, null, object or array, verbatim.
    JsonRaw,
    /// Plain text (klog `key=value`, logfmt bare value).
    Text,
}

impl ValueKind {
    /// Every kind, in declaration order (`kind as usize` indexes it).
    pub const ALL: [ValueKind; 3] = [ValueKind::JsonString, ValueKind::JsonRaw, ValueKind::Text];
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Field {
    pub key: Span,
    pub value: Span,
    pub kind: ValueKind,
}

/// One log record: one line, plus any continuation lines (a Go stack after
/// an ERROR line) that belong to it.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    /// The time the line itself carries, in UTC.
    pub time: Option<Timestamp>,
    /// The wrapper's time (collection time), when a wrapper carried one.
    pub collected: Option<Timestamp>,
    /// Whether its time lacked a year, or a zone: see [`Record::yearless`]
    /// and [`Record::zoneless`] (one byte, as a record is kept per line).
    pub flags: RecordFlags,
    pub level: Level,
    pub format: Format,
    pub wrapper: Wrapper,
    pub logger: Span,
    pub message: Span,
    /// How `message` is encoded (a JSON or Go-quoted string needs unescaping).
    pub message_kind: ValueKind,
    /// The value of its `reconcileID` field, found while parsing (empty
    /// when it has none): the key the analysis groups by.
    pub reconcile_id: Span,
    /// Range into [`ParsedFile::fields`] (empty when the fields are not
    /// kept: see `fields_again_after`).
    pub fields_start: u32,
    pub fields_len: u16,
    /// Its fields are not kept, because its first line alone gives them
    /// back: parsed again with this format tried first, as the parser did
    /// (the format of the line before it), they are the same fields.
    /// [`ParsedFile::fields`] does so. `None`: they are in
    /// [`ParsedFile::fields`] (or it has none).
    pub fields_again_after: Option<Format>,
    /// 1-based line number of the first line.
    pub line: u32,
    /// Number of physical lines, continuation lines included.
    pub line_count: u32,
    /// Byte offset of the first line in the file, and the byte length of all
    /// its lines (without the final line break).
    pub offset: u64,
    pub byte_len: u32,
}

/// A [`Record`]'s yes/no facts, as bits of one byte.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RecordFlags(u8);

impl RecordFlags {
    const YEARLESS: u8 = 1;
    const ZONELESS: u8 = 2;

    pub fn new(yearless: bool, zoneless: bool) -> RecordFlags {
        RecordFlags((u8::from(yearless) * Self::YEARLESS) | (u8::from(zoneless) * Self::ZONELESS))
    }

    /// The byte, for a fixed-width encoding; [`RecordFlags::from_bits`]
    /// reads it back.
    pub fn bits(self) -> u8 {
        self.0
    }

    pub fn from_bits(b: u8) -> RecordFlags {
        RecordFlags(b & (Self::YEARLESS | Self::ZONELESS))
    }

    fn set(&mut self, bit: u8, on: bool) {
        self.0 = if on { self.0 | bit } else { self.0 & !bit };
    }
}

impl Record {
    /// True when `time` was written without a year (klog, journald) and the
    /// year is still to be inferred (by the parser's `resolve_years`).
    pub fn yearless(&self) -> bool {
        self.flags.0 & RecordFlags::YEARLESS != 0
    }

    pub fn set_yearless(&mut self, on: bool) {
        self.flags.set(RecordFlags::YEARLESS, on);
    }

    /// True when the time the record is placed by (`time`, else
    /// `collected`) was written with no zone and read at the file's
    /// [`ParsedFile::zone_offset_secs`], and no clock that writes its zone
    /// confirmed or moved it (see `parse::align_clocks`).
    pub fn zoneless(&self) -> bool {
        self.flags.0 & RecordFlags::ZONELESS != 0
    }

    pub fn set_zoneless(&mut self, on: bool) {
        self.flags.set(RecordFlags::ZONELESS, on);
    }

    pub fn fields_range(&self) -> std::ops::Range<usize> {
        let s = self.fields_start as usize;
        s..s + self.fields_len as usize
    }
}

/// A problem found while reading input: it never stops the rest loading.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Diagnostic {
    /// Path of the file (inside archives: `a.zip!/b.tgz!/c.log`).
    pub path: String,
    /// 1-based line, when the problem is on a line.
    pub line: Option<u32>,
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "{}:{}: {}", self.path, l, self.message),
            None => write!(f, "{}: {}", self.path, self.message),
        }
    }
}

/// Per-file counters kept by the parser.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ParseCounts {
    /// Physical lines in the file.
    pub lines: u64,
    /// Empty (or whitespace-only) lines; they are not records.
    pub blank_lines: u64,
    /// Lines attached to the record before them (stack frames).
    pub continuation_lines: u64,
    /// Lines that were not valid UTF-8 and were decoded lossily.
    pub invalid_utf8_lines: u64,
    /// Lines longer than the parser's limit, parsed on a prefix only.
    pub overlong_lines: u64,
    /// Records whose timestamp is impossible (Feb 30, year 4052): kept
    /// without a time.
    pub impossible_times: u64,
    /// Records per inner format, indexed like [`Format::ALL`].
    pub formats: [u64; Format::ALL.len()],
    /// Records per wrapper.
    pub wrappers: std::collections::BTreeMap<&'static str, u64>,
}

impl ParseCounts {
    /// Adds another piece's counts to these.
    pub fn add(&mut self, o: &ParseCounts) {
        self.lines += o.lines;
        self.blank_lines += o.blank_lines;
        self.continuation_lines += o.continuation_lines;
        self.invalid_utf8_lines += o.invalid_utf8_lines;
        self.overlong_lines += o.overlong_lines;
        self.impossible_times += o.impossible_times;
        for (a, b) in self.formats.iter_mut().zip(o.formats.iter()) {
            *a += b;
        }
        for (k, v) in &o.wrappers {
            *self.wrappers.entry(k).or_insert(0) += v;
        }
    }

    pub fn records(&self) -> u64 {
        self.formats.iter().sum()
    }
    pub fn unparsed(&self) -> u64 {
        self.formats[Format::Unparsed as usize]
    }
    pub fn format(&self, f: Format) -> u64 {
        self.formats[f as usize]
    }
}

/// Where times written without a year (klog, journald, syslog) took
/// their year from, in the order they are tried (after a collector's dated
/// time on the same line, which the parser uses at once).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum YearSource {
    /// Dated timestamps near it in the same file.
    SameFile,
    /// Dated timestamps in the other files of the input.
    OtherFiles,
    /// The archive member's modification time.
    ArchiveMember,
    /// The input file's modification time.
    FileMtime,
    /// Nothing: the times are shown without a year.
    Unknown,
}

/// A path's file name, without its folders or the archives around it
/// (`a.zip!/b.tgz!/kamaji/a.log` → `a.log`).
pub fn file_name(path: &str) -> &str {
    path.rsplit(['/', '!']).next().unwrap_or(path)
}

/// The bytes of one input file: a buffer of its own, bytes its caller
/// holds for it, such as the CLI's read-only map of the file (which the
/// page cache backs, so it is neither zeroed nor copied), or the file
/// compressed in record-aligned chunks ([`Packed`]: a log too big to keep
/// plain in the browser's tab). Read a range at a time
/// ([`FileBytes::get`]: borrowed from plain bytes, copied out of a packed
/// chunk), cut with [`FileBytes::truncate`]; the library never opens a
/// file itself.
#[derive(Clone)]
pub struct FileBytes {
    repr: BytesRepr,
    /// How much of `repr` is the file (a map is cut by length only).
    len: usize,
}

#[derive(Clone)]
enum BytesRepr {
    Owned(Vec<u8>),
    /// What holds the bytes, and where they are: found once, so that
    /// reading a span (the analysis does millions) is no call through
    /// the holder.
    Held {
        _holder: std::sync::Arc<dyn std::any::Any + Send + Sync>,
        at: std::ptr::NonNull<u8>,
    },
    Packed(std::sync::Arc<Packed>),
}

// SAFETY: `at` points into the bytes `_holder` owns, which are `Send` and
// `Sync` and never written (see `FileBytes::held`).
unsafe impl Send for FileBytes {}
unsafe impl Sync for FileBytes {}

/// A file's bytes compressed in chunks (LZ4 blocks), each of whole records
/// (so every span of a record lies in one chunk), with the few chunks read
/// last kept decompressed.
pub struct Packed {
    /// Where each chunk starts in the file, in order; the first is 0.
    starts: Vec<u64>,
    /// Each chunk, compressed.
    data: Vec<Box<[u8]>>,
    /// The file's length.
    len: u64,
    /// The chunks read lately, decompressed, the latest last (at most
    /// [`Packed::CACHED`]).
    cache: std::sync::Mutex<Vec<(usize, std::sync::Arc<[u8]>)>>,
}

impl Packed {
    /// Chunks kept decompressed at once.
    const CACHED: usize = 4;

    /// An empty file, to which chunks are added in order.
    pub fn new() -> Packed {
        Packed { starts: Vec::new(), data: Vec::new(), len: 0, cache: std::sync::Mutex::new(Vec::new()) }
    }

    /// Adds the file's next bytes as a chunk of their own (whole records).
    pub fn push(&mut self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        self.starts.push(self.len);
        self.data.push(lz4_flex::block::compress(bytes).into_boxed_slice());
        self.len += bytes.len() as u64;
    }

    /// How many bytes the file has.
    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// How many chunks it is in.
    pub fn chunks(&self) -> usize {
        self.starts.len()
    }

    /// The compressed size, in bytes.
    pub fn packed_len(&self) -> usize {
        self.data.iter().map(|d| d.len()).sum()
    }

    /// Chunk `i`'s byte range in the file.
    fn range_of(&self, i: usize) -> std::ops::Range<u64> {
        self.starts[i]..self.starts.get(i + 1).copied().unwrap_or(self.len)
    }

    /// The chunk holding byte `at`.
    fn chunk_at(&self, at: u64) -> usize {
        self.starts.partition_point(|&s| s <= at).saturating_sub(1)
    }

    /// Chunk `i` decompressed (from the cache when read lately); `None`
    /// when its data does not decompress (it always does: it was made
    /// here).
    fn chunk(&self, i: usize) -> Option<std::sync::Arc<[u8]>> {
        let mut cache = self.cache.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(k) = cache.iter().rposition(|(c, _)| *c == i) {
            let hit = cache.remove(k);
            let plain = hit.1.clone();
            cache.push(hit);
            return Some(plain);
        }
        let r = self.range_of(i);
        let plain: std::sync::Arc<[u8]> = lz4_flex::block::decompress(&self.data[i], (r.end - r.start) as usize).ok()?.into();
        if cache.len() >= Self::CACHED {
            cache.remove(0);
        }
        cache.push((i, plain.clone()));
        Some(plain)
    }

    /// The bytes `r` of the file, copied out of the chunks that hold them.
    fn get(&self, r: std::ops::Range<u64>) -> Option<Vec<u8>> {
        if r.start > r.end || r.end > self.len {
            return None;
        }
        let mut out = Vec::with_capacity((r.end - r.start) as usize);
        let mut at = r.start;
        while at < r.end {
            let i = self.chunk_at(at);
            let cr = self.range_of(i);
            let plain = self.chunk(i)?;
            let to = r.end.min(cr.end);
            out.extend_from_slice(&plain[(at - cr.start) as usize..(to - cr.start) as usize]);
            at = to;
        }
        Some(out)
    }

    /// Keeps the first `n` bytes: later chunks are dropped, the one that
    /// holds byte `n` cut and packed again.
    fn truncate(&mut self, n: u64) {
        if n >= self.len {
            return;
        }
        let i = self.chunk_at(n);
        let cr = self.range_of(i);
        let head = if n > cr.start { self.get(cr.start..n) } else { None };
        self.starts.truncate(i);
        self.data.truncate(i);
        self.len = cr.start;
        if let Some(head) = head {
            self.push(&head);
        }
        self.cache.get_mut().unwrap_or_else(std::sync::PoisonError::into_inner).clear();
    }
}

impl Default for Packed {
    fn default() -> Self {
        Packed::new()
    }
}

impl fmt::Debug for Packed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Packed({} bytes in {} chunks, {} packed)", self.len, self.starts.len(), self.packed_len())
    }
}

impl FileBytes {
    /// Bytes someone else holds (a file map): read, never written. Their
    /// address is stable while they live (`StableDeref`), so it is taken
    /// once.
    pub fn held<T>(bytes: T) -> FileBytes
    where
        T: stable_deref_trait::StableDeref<Target = [u8]> + Send + Sync + 'static,
    {
        let (len, at) = (bytes.len(), std::ptr::NonNull::from(&*bytes).cast::<u8>());
        FileBytes { repr: BytesRepr::Held { _holder: std::sync::Arc::new(bytes), at }, len }
    }

    /// A file's bytes compressed in chunks of whole records.
    pub fn packed(p: Packed) -> FileBytes {
        let len = p.len as usize;
        FileBytes { repr: BytesRepr::Packed(std::sync::Arc::new(p)), len }
    }

    /// How many bytes the file has.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The bytes `r` of the file (`None` past its end): borrowed from
    /// plain bytes, copied out of packed ones.
    pub fn get(&self, r: std::ops::Range<usize>) -> Option<Cow<'_, [u8]>> {
        match &self.repr {
            BytesRepr::Packed(p) => p.get(r.start as u64..r.end as u64).map(Cow::Owned),
            _ => self.plain().and_then(|b| b.get(r)).map(Cow::Borrowed),
        }
    }

    /// All of the file's bytes (copied together when packed).
    pub fn whole(&self) -> Cow<'_, [u8]> {
        self.get(0..self.len).unwrap_or_default()
    }

    /// The bytes as one slice, unless they are packed.
    pub fn plain(&self) -> Option<&[u8]> {
        match &self.repr {
            BytesRepr::Owned(v) => Some(&v[..self.len]),
            // SAFETY: `at` is the start of the holder's bytes, at least
            // `len` long (`truncate` only shortens), alive and unchanged
            // while the holder is, which `self` keeps.
            BytesRepr::Held { at, .. } => Some(unsafe { std::slice::from_raw_parts(at.as_ptr(), self.len) }),
            BytesRepr::Packed(_) => None,
        }
    }

    /// Keeps the first `n` bytes (all of them if there are fewer). What is
    /// left out of an owned buffer is freed, not kept as spare capacity.
    pub fn truncate(&mut self, n: usize) {
        if n >= self.len {
            return;
        }
        self.len = n;
        match &mut self.repr {
            BytesRepr::Owned(v) => {
                v.truncate(n);
                v.shrink_to_fit();
            }
            BytesRepr::Packed(p) => match std::sync::Arc::get_mut(p) {
                Some(p) => p.truncate(n as u64),
                None => {
                    let mut cut = Packed::new();
                    cut.push(&p.get(0..n as u64).unwrap_or_default());
                    *p = std::sync::Arc::new(cut);
                }
            },
            BytesRepr::Held { .. } => {}
        }
    }

    /// Whether the bytes are held for the file (mapped), not its own buffer.
    pub fn is_held(&self) -> bool {
        matches!(self.repr, BytesRepr::Held { .. })
    }

    /// The packed chunks, when the bytes are packed.
    pub fn as_packed(&self) -> Option<&Packed> {
        match &self.repr {
            BytesRepr::Packed(p) => Some(p),
            _ => None,
        }
    }
}

impl Default for FileBytes {
    fn default() -> Self {
        FileBytes { repr: BytesRepr::Owned(Vec::new()), len: 0 }
    }
}

impl From<Vec<u8>> for FileBytes {
    fn from(v: Vec<u8>) -> Self {
        let len = v.len();
        FileBytes { repr: BytesRepr::Owned(v), len }
    }
}

impl PartialEq for FileBytes {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len && self.whole() == other.whole()
    }
}

impl fmt::Debug for FileBytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match &self.repr {
            BytesRepr::Owned(_) => "owned",
            BytesRepr::Held { .. } => "held",
            BytesRepr::Packed(_) => "packed",
        };
        write!(f, "FileBytes({} bytes, {kind})", self.len)
    }
}

/// Bytes decoded lossily as UTF-8, borrowing what was borrowed.
pub fn lossy(b: Cow<'_, [u8]>) -> Cow<'_, str> {
    match b {
        Cow::Borrowed(b) => String::from_utf8_lossy(b),
        Cow::Owned(v) => Cow::Owned(match String::from_utf8(v) {
            Ok(s) => s,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        }),
    }
}

/// A JSON string's inside unescaped, borrowing what was borrowed.
fn unescaped(b: Cow<'_, [u8]>) -> Cow<'_, str> {
    match b {
        Cow::Borrowed(b) => crate::escape::unescape(b),
        Cow::Owned(v) => Cow::Owned(crate::escape::unescape(&v).into_owned()),
    }
}

/// How a record's fields are parsed again from its first line, when they
/// were not kept (`Record::fields_again_after`): the parser's own function,
/// which this module, below the parser, cannot name.
#[derive(Clone, Copy)]
pub struct FieldsAgain(pub fn(&ParsedFile, &Record, Format) -> Vec<Field>);

impl fmt::Debug for FieldsAgain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("FieldsAgain")
    }
}

/// Everything parsed from one input file.
#[derive(Clone, Debug, Default)]
pub struct ParsedFile {
    pub path: String,
    /// The modification time an archive gave its member (Unix seconds).
    pub mtime_secs: Option<i64>,
    /// The modification time of the input file it was read from (the CLI's
    /// `stat`, the browser's `File.lastModified`; Unix seconds). For a
    /// member of an archive, the archive file's.
    pub file_mtime_secs: Option<i64>,
    /// The offset east of UTC its times without a zone were read at
    /// (`ParseOptions::default_offset_secs`): a yearless time's month and
    /// day are the log's, at that offset.
    pub zone_offset_secs: i32,
    /// How many of its records are placed by a time written with no zone,
    /// read at `zone_offset_secs` ([`Record::zoneless`]; counted once its
    /// clocks are aligned: `parse::align_clocks`).
    pub zoneless_times: u64,
    /// Where the year of its times written without one came from; `None`
    /// when it has no such times.
    pub year_source: Option<YearSource>,
    pub bytes: FileBytes,
    pub scratch: Vec<u8>,
    pub records: Vec<Record>,
    pub fields: Vec<Field>,
    /// Set by the parser when a record's fields may have to be parsed
    /// again (`Record::fields_again_after`).
    pub fields_again: Option<FieldsAgain>,
    pub counts: ParseCounts,
    pub diagnostics: Vec<Diagnostic>,
}

impl ParsedFile {
    /// Asks the CPU to bring the start of a span's bytes into its cache,
    /// for a pass over the records that reads them a few records later
    /// (natively on x86-64, for plain bytes; elsewhere nothing).
    #[inline]
    pub fn prefetch(&self, s: Span) {
        #[cfg(target_arch = "x86_64")]
        {
            let buf = if s.in_scratch() { Some(&self.scratch[..]) } else { self.bytes.plain() };
            if let Some(b) = buf.and_then(|b| b.get(s.start as usize)) {
                // SAFETY: SSE is in every x86-64 CPU, and a prefetch is a
                // hint: it reads nothing and cannot fault.
                unsafe { std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(std::ptr::from_ref(b).cast()) };
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = s;
    }

    /// A span's bytes: borrowed from plain bytes, copied out of packed
    /// ones (see [`FileBytes`]); empty when it lies outside them.
    pub fn span_bytes(&self, s: Span) -> Cow<'_, [u8]> {
        let start = s.start as usize;
        if s.in_scratch() {
            return Cow::Borrowed(self.scratch.get(start..start + s.len()).unwrap_or(&[]));
        }
        self.bytes.get(start..start + s.len()).unwrap_or_default()
    }

    /// The text of a span, decoded lossily.
    pub fn text(&self, s: Span) -> Cow<'_, str> {
        lossy(self.span_bytes(s))
    }

    pub fn message(&self, r: &Record) -> Cow<'_, str> {
        match r.message_kind {
            ValueKind::JsonString => unescaped(self.span_bytes(r.message)),
            _ => self.text(r.message),
        }
    }

    pub fn logger(&self, r: &Record) -> Cow<'_, str> {
        self.text(r.logger)
    }

    /// The raw bytes of a record: all its lines as they are in the file.
    pub fn raw(&self, r: &Record) -> Cow<'_, [u8]> {
        let s = r.offset as usize;
        self.bytes.get(s..s + r.byte_len as usize).unwrap_or_default()
    }

    /// A record's fields: the kept ones, or, when it kept none because its
    /// line gives them back (`Record::fields_again_after`), its first line
    /// parsed again.
    pub fn fields<'a>(&'a self, r: &Record) -> Cow<'a, [Field]> {
        match (r.fields_again_after, self.fields_again) {
            (Some(after), Some(FieldsAgain(again))) => Cow::Owned(again(self, r, after)),
            _ => Cow::Borrowed(self.fields.get(r.fields_range()).unwrap_or(&[])),
        }
    }

    /// Looks a field up by key, and decodes its value (JSON strings are
    /// unescaped; other JSON values are returned verbatim).
    pub fn field(&self, r: &Record, key: &str) -> Option<Cow<'_, str>> {
        self.find_field(&self.fields(r), key).map(|f| self.value(f))
    }

    pub fn field_raw(&self, r: &Record, key: &str) -> Option<Cow<'_, [u8]>> {
        self.find_field(&self.fields(r), key).map(|f| self.span_bytes(f.value))
    }

    /// The first of `fields` (a record's, from [`ParsedFile::fields`])
    /// named `key`: for several keys of one record, whose line
    /// [`ParsedFile::field`] would parse again for each.
    pub fn find_field<'f>(&self, fields: &'f [Field], key: &str) -> Option<&'f Field> {
        fields.iter().find(|f| *self.span_bytes(f.key) == *key.as_bytes())
    }

    /// The error a line carries: zap's `error` field, else klog's `err`.
    pub fn find_error<'f>(&self, fields: &'f [Field]) -> Option<&'f Field> {
        self.find_field(fields, "error").or_else(|| self.find_field(fields, "err"))
    }

    pub fn value(&self, f: &Field) -> Cow<'_, str> {
        let raw = self.span_bytes(f.value);
        match f.kind {
            ValueKind::JsonString => unescaped(raw),
            ValueKind::JsonRaw | ValueKind::Text => lossy(raw),
        }
    }

    pub fn key<'a>(&'a self, f: &Field) -> Cow<'a, str> {
        self.text(f.key)
    }

    /// The record's `reconcileID`, raw.
    pub fn reconcile_id(&self, r: &Record) -> Option<Cow<'_, [u8]>> {
        (!r.reconcile_id.is_empty()).then(|| self.span_bytes(r.reconcile_id))
    }

    pub fn first_time(&self) -> Option<Timestamp> {
        self.records.iter().filter_map(|r| r.time.or(r.collected)).min()
    }

    pub fn last_time(&self) -> Option<Timestamp> {
        self.records.iter().filter_map(|r| r.time.or(r.collected)).max()
    }

    /// [`ParsedFile::first_time`] and [`ParsedFile::last_time`] in one pass.
    pub fn time_span(&self) -> Option<(Timestamp, Timestamp)> {
        let mut times = self.records.iter().filter_map(|r| r.time.or(r.collected));
        let first = times.next()?;
        Some(times.fold((first, first), |(lo, hi), t| (lo.min(t), hi.max(t))))
    }
}

#[cfg(test)]
mod tests {
    use super::{FileBytes, Packed};

    /// Owned or held, the bytes read the same, are cut by length only,
    /// and a clone of held bytes reads them where they are.
    #[test]
    fn file_bytes_owned_or_held() {
        let text = b"line one\nline two\n".to_vec();
        let (mut owned, mut held) = (FileBytes::from(text.clone()), FileBytes::held(text.clone()));
        assert!(!owned.is_held() && held.is_held());
        assert_eq!((owned.plain(), held.plain()), (Some(&text[..]), Some(&text[..])));
        assert_eq!(owned, held);
        owned.truncate(9);
        held.truncate(9);
        held.truncate(40);
        assert_eq!((owned.plain(), held.plain()), (Some(&b"line one\n"[..]), Some(&b"line one\n"[..])));
        let copy = held.clone();
        drop(held);
        assert_eq!(copy.plain(), Some(&b"line one\n"[..]));
        assert_eq!(format!("{copy:?}"), "FileBytes(9 bytes, held)");
        assert_eq!(FileBytes::default().plain(), Some(&b""[..]));
        assert!(matches!(copy.get(5..9), Some(std::borrow::Cow::Borrowed(b"one\n"))));
        assert_eq!(copy.get(5..10), None);
    }

    /// Packed bytes read the same as plain ones, a range at a time, across
    /// chunks, past the cache, and cut anywhere.
    #[test]
    fn packed_bytes_read_as_plain() {
        let text: Vec<u8> = (0..20_000u32).flat_map(|i| format!("line {i} of a log\n").into_bytes()).collect();
        let mut p = Packed::new();
        // Chunks of many sizes (a chunk is whole records; any cut reads
        // the same).
        let cuts = [0, 1, 17, 4096, 50_000, 50_001, 200_000, text.len()];
        for w in cuts.windows(2) {
            p.push(&text[w[0]..w[1]]);
        }
        assert!(p.packed_len() < text.len() / 3, "{p:?}");
        let packed = FileBytes::packed(p);
        assert_eq!((packed.len(), packed.plain(), packed.as_packed().is_some()), (text.len(), None, true));
        assert_eq!(packed.whole(), &text[..]);
        for (a, b) in [(0, 0), (0, 1), (1, 17), (16, 18), (4000, 4200), (49_999, 50_002), (100, 199_999), (199_999, text.len())] {
            assert_eq!(packed.get(a..b).as_deref(), Some(&text[a..b]), "{a}..{b}");
        }
        assert_eq!(packed.get(0..text.len() + 1), None);
        // Chunks read in turn, more than the cache holds, then again.
        for _ in 0..2 {
            for &at in &cuts[1..cuts.len() - 1] {
                assert_eq!(packed.get(at - 1..at + 1).as_deref(), Some(&text[at - 1..at + 1]));
            }
        }
        for n in [text.len(), 200_000, 123_456, 50_000, 3, 0] {
            let mut cut = packed.clone();
            cut.truncate(n);
            assert_eq!((cut.len(), cut.whole()), (n, std::borrow::Cow::Borrowed(&text[..n])), "cut at {n}");
        }
        assert_eq!(format!("{packed:?}"), format!("FileBytes({} bytes, packed)", text.len()));
    }
}
