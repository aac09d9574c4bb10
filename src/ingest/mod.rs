//! Ingestion: bytes plus a name in, log files out.
//!
//! Reads plain files, `.zip` (stored and deflate), `.tar`, `.tar.gz`/`.tgz`
//! and `.gz`, recursively: archives inside archives are opened too, and the
//! path keeps every level, `cozyreport.zip!/cozyreport.tgz!/cozyreport/kamaji/kamaji-controller.log`.
//! Never touches a filesystem: folders are walked by the caller (the CLI or
//! the browser) and each file handed over as bytes plus its relative path.
//!
//! Results are pushed into a sink as they are found, so a corrupt archive
//! still yields every member that could be read, plus an error event.
//!
//! # Formats
//!
//! Containers are recognised by their content, not their name:
//!
//! * **zip** (`PK\x03\x04`, or `PK\x05\x06` for an empty archive; a `.zip`
//!   with a prefix, such as a self-extractor, is found through its end
//!   record). The central directory is used when it is there, including
//!   ZIP64 records and extra fields. When the end record or the directory is
//!   missing or damaged (a truncated download, a streamed zip cut short) the
//!   local headers are read one after the other instead, including entries
//!   whose sizes follow the data (general-purpose flag bit 3): a deflate
//!   stream ends by itself, a stored one is delimited by its data
//!   descriptor. Methods: stored and deflate; other methods are reported as
//!   errors and encrypted entries as skipped. The modification time comes
//!   from the extended-timestamp extra field (`0x5455`) or else from the DOS
//!   date and time, read as UTC.
//! * **gzip** (`\x1f\x8b\x08`), including several concatenated members. If
//!   the decompressed content is a tar archive the entries are listed
//!   directly under the `.gz` name (`logs.tgz!/dir/a.log`); otherwise the
//!   content is one member named after the file without its `.gz` suffix
//!   (`a.log.gz!/a.log`; `x.tgz` gives `x.tar`) and is itself examined, so a
//!   gzipped zip is opened too.
//! * **tar** (the `ustar` magic at offset 257, or an old v7 header with a
//!   valid checksum): POSIX ustar names with their prefix, GNU long names
//!   (`L`), pax extended headers (`x`: `path`, `mtime`, `size`), octal and
//!   base-256 numbers. Directories, links and devices are passed over
//!   silently; global pax headers are ignored.
//!
//! Anything else is a file: text is emitted as a [`Member`], binary content
//! (a NUL byte in the first 8 KiB, or a known binary signature such as PNG,
//! ELF, xz or zstd) is reported as [`Event::Skipped`]. Text with some invalid
//! UTF-8 is still text: the parser decodes it lossily.
//!
//! Damage is reported, never fatal: a member cut short is emitted with the
//! bytes that are there *and* an [`IngestError`] says it was truncated; a
//! corrupt gzip stream keeps everything decompressed before the fault.
//!
//! # Caps
//!
//! Archives can be decompression bombs, and the browser has little memory, so
//! [`IngestOptions`] bounds the work:
//!
//! * `max_ratio`: the output of one compressed member or stream may not
//!   exceed `max_ratio` times its compressed size (at least 1 KiB is assumed
//!   as that size, so tiny files never trip it). For a streamed zip entry
//!   whose compressed size is not known up front, the compressed bytes read
//!   so far are the base.
//! * `max_total_bytes`: every byte produced over the whole input counts, at
//!   every archive level: decompressed output, and stored or plain bytes
//!   when they are emitted as members or opened as nested archives (the
//!   top-level input itself only when it is a plain file). Once the cap is
//!   exceeded, later compressed members fail at once without being
//!   decompressed.
//! * `max_depth`: how many archive levels are opened; the input itself is
//!   level one. It is further limited to 64 so that recursion stays shallow.
//!
//! Decompression runs in chunks of 64 KiB and checks the caps after each
//! chunk, so memory never exceeds a cap by more than about a chunk. A member
//! that trips a cap produces an error naming it and the cap, and no data;
//! ingestion then continues with the next member.

mod gz;
mod inflate;
mod tar;
mod zip;

use std::borrow::Cow;
use std::ops::Range;

use inflate::{Budget, Fault};

/// Separator placed between archive levels in a [`Member::path`].
pub const LEVEL_SEPARATOR: &str = "!/";

/// Hard ceiling on [`IngestOptions::max_depth`], which keeps recursion (and
/// so the stack) shallow whatever the options say.
const DEPTH_CEILING: u32 = 64;

/// How much of a member is examined to tell text from binary.
const SNIFF_LEN: usize = 8 * 1024;

/// Limits applied while reading one input; see the module documentation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IngestOptions {
    /// Cap on total decompressed bytes over the whole input (default 8 GiB).
    pub max_total_bytes: u64,
    /// Cap on decompressed/compressed ratio of any one compressed member or stream (default 200).
    pub max_ratio: u64,
    /// Maximum archive nesting depth (default 8).
    pub max_depth: u32,
}

impl Default for IngestOptions {
    fn default() -> Self {
        IngestOptions { max_total_bytes: 8 << 30, max_ratio: 200, max_depth: 8 }
    }
}

/// One log-bearing file found in the input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member<'a> {
    /// Full path with `!/` between archive levels, e.g. `cozyreport.zip!/cozyreport.tgz!/cozyreport/kamaji/kamaji-controller.log`.
    /// A `.gz` (not tar) member drops the `.gz` suffix for the inner name: `a.log.gz!/a.log`.
    pub path: String,
    /// The file's content: borrowed from the input when no copy was needed
    /// (a plain top-level file, or an entry stored uncompressed in a
    /// top-level archive), owned when it was decompressed.
    pub bytes: Cow<'a, [u8]>,
    /// Modification time from the archive entry (Unix seconds, UTC), when known.
    pub mtime_secs: Option<i64>,
}

/// What [`ingest`] reports, in the order things are found.
#[derive(Debug, Clone, PartialEq)]
pub enum Event<'a> {
    /// A file to parse.
    File(Member<'a>),
    /// A member that was deliberately not read (binary content, directory-like entries are NOT reported); `reason` is a short human sentence.
    Skipped {
        /// Full path of the member, as in [`Member::path`].
        path: String,
        /// Why it was not read, e.g. `binary file (NUL bytes), skipped`.
        reason: String,
    },
    /// Something could not be read (fully); ingestion went on with the rest.
    Error(IngestError),
}

/// A problem with one archive or member. Every variant names the path it
/// concerns, and its message starts with that path.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IngestError {
    /// The running total of produced bytes went over `max_total_bytes`.
    #[error("{path}: left out: the run's input is over the {} total cap (--max-total-bytes counts the decompressed bytes of all inputs together)", human_bytes(*.cap))]
    TotalCap {
        /// The member whose output went over the cap.
        path: String,
        /// The cap in force, in bytes.
        cap: u64,
    },
    /// One compressed member or stream expanded more than `max_ratio` times.
    #[error("{path}: compression ratio above {max_ratio}:1 (possible decompression bomb; raise --max-ratio)")]
    RatioCap {
        /// The member that expanded too much.
        path: String,
        /// The ratio in force.
        max_ratio: u64,
    },
    /// An archive nested deeper than `max_depth` levels was not opened.
    #[error("{path}: archive nested deeper than {max_depth} levels, not opened (raise --max-depth)")]
    TooDeep {
        /// The archive that was not opened.
        path: String,
        /// The depth in force.
        max_depth: u32,
    },
    /// An archive ends early or lacks its index; what could be read was.
    #[error("{path}: truncated archive: {detail}")]
    TruncatedArchive {
        /// The archive.
        path: String,
        /// What is missing and what was read anyway.
        detail: String,
    },
    /// A member or stream is cut short; the bytes that were there were emitted.
    #[error("{path}: truncated: {detail}")]
    Truncated {
        /// The member or stream.
        path: String,
        /// How much is there, e.g. `1000 of 5000 bytes`.
        detail: String,
    },
    /// A gzip stream is damaged; everything decompressed before the fault was kept.
    #[error("{path}: corrupt gzip stream after {after} bytes: {detail}")]
    CorruptGzip {
        /// The gzip file.
        path: String,
        /// Decompressed bytes produced before the fault.
        after: u64,
        /// The decoder's complaint.
        detail: String,
    },
    /// Damaged archive structure or member data (bad header, checksum mismatch).
    #[error("{path}: corrupt data: {detail}")]
    Corrupt {
        /// The archive or member.
        path: String,
        /// What is wrong.
        detail: String,
    },
    /// A member uses a feature this reader does not implement (e.g. bzip2 in zip).
    #[error("{path}: unsupported: {detail}")]
    Unsupported {
        /// The member.
        path: String,
        /// What is not supported.
        detail: String,
    },
    /// Memory for a member's content could not be allocated.
    #[error("{path}: out of memory: could not allocate {} for the content", human_bytes(*.bytes))]
    OutOfMemory {
        /// The member.
        path: String,
        /// The allocation that failed, in bytes.
        bytes: u64,
    },
}

impl IngestError {
    /// The path of the archive or member the error concerns.
    #[must_use]
    pub fn path(&self) -> &str {
        match self {
            IngestError::TotalCap { path, .. }
            | IngestError::RatioCap { path, .. }
            | IngestError::TooDeep { path, .. }
            | IngestError::TruncatedArchive { path, .. }
            | IngestError::Truncated { path, .. }
            | IngestError::CorruptGzip { path, .. }
            | IngestError::Corrupt { path, .. }
            | IngestError::Unsupported { path, .. }
            | IngestError::OutOfMemory { path, .. } => path,
        }
    }
}

/// Reads one named input and pushes every member into `sink` as it is found.
///
/// `name` is the input's file name or relative path; it becomes the first
/// segment of every member path. A plain text input is passed through as a
/// single [`Member`] that borrows `bytes`. This function never panics and
/// never fails as a whole: problems arrive as [`Event::Error`].
pub fn ingest<'a>(name: &str, bytes: &'a [u8], opts: &IngestOptions, sink: &mut dyn FnMut(Event<'a>)) {
    ingest_counted(name, bytes, opts, &mut 0, sink);
}

/// [`ingest`] for one input of a run: `used` is what the run's earlier
/// inputs already produced, and `max_total_bytes` caps the run as a whole
/// (the count goes up by what this input produces, kept or not).
pub fn ingest_counted<'a>(name: &str, bytes: &'a [u8], opts: &IngestOptions, used: &mut u64, sink: &mut dyn FnMut(Event<'a>)) {
    let mut walker = Walker { budget: Budget::with_used(opts, *used), max_depth: opts.max_depth.min(DEPTH_CEILING), sink, events: 0 };
    walker.node(name.to_string(), None, Data::Input(bytes), 0);
    *used = walker.budget.used();
}

/// Bytes being looked at, and what emitting them costs.
pub(crate) enum Data<'a, 'b> {
    /// A slice of the caller's input (a stored member, or the input itself):
    /// emitted without copying; counted against the total cap when emitted
    /// or opened.
    Input(&'a [u8]),
    /// A slice of a buffer decompressed here (a stored member of a nested
    /// archive): emitted as a copy; counted when emitted or opened.
    Scratch(&'b [u8]),
    /// Freshly decompressed output, counted while it was produced; emitted
    /// by moving it.
    Owned(Vec<u8>),
}

impl Data<'_, '_> {
    fn as_slice(&self) -> &[u8] {
        match self {
            Data::Input(s) => s,
            Data::Scratch(s) => s,
            Data::Owned(v) => v,
        }
    }
}

/// A borrowed region that an archive reader works on: either the caller's
/// input or a buffer decompressed here. Sub-slices keep the origin.
#[derive(Clone, Copy)]
pub(crate) enum View<'a, 'b> {
    Input(&'a [u8]),
    Scratch(&'b [u8]),
}

impl<'a: 'b, 'b> View<'a, 'b> {
    pub(crate) fn bytes(self) -> &'b [u8] {
        match self {
            View::Input(s) => s,
            View::Scratch(s) => s,
        }
    }

    /// The bytes in `range`, clamped to what exists.
    pub(crate) fn sub(self, range: Range<usize>) -> View<'a, 'b> {
        fn clamp(s: &[u8], r: Range<usize>) -> &[u8] {
            let end = r.end.min(s.len());
            s.get(r.start.min(end)..end).unwrap_or_default()
        }
        match self {
            View::Input(s) => View::Input(clamp(s, range)),
            View::Scratch(s) => View::Scratch(clamp(s, range)),
        }
    }

    pub(crate) fn data(self) -> Data<'a, 'b> {
        match self {
            View::Input(s) => Data::Input(s),
            View::Scratch(s) => Data::Scratch(s),
        }
    }
}

/// What a piece of content turned out to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Zip,
    Gzip,
    Tar,
    Binary(&'static str),
    Text,
}

/// What [`Walker::node`] did with a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Emitted as a [`Member`].
    Emitted,
    /// Opened as an archive.
    Opened,
    /// Reported as skipped (binary).
    Skipped,
    /// Refused with an error (a cap, the depth limit).
    Refused,
}

/// Walks one input: holds the caps' running state and the sink.
pub(crate) struct Walker<'a, 's> {
    pub(crate) budget: Budget,
    max_depth: u32,
    sink: &'s mut dyn FnMut(Event<'a>),
    /// Events sent so far: an archive that adds none gets a note.
    events: u64,
}

impl<'a> Walker<'a, '_> {
    /// Examines one file (the input or an archive member) at nesting `depth`
    /// (the number of archives around it) and emits it or opens it.
    pub(crate) fn node<'b>(&mut self, path: String, mtime: Option<i64>, data: Data<'a, 'b>, depth: u32) -> Outcome {
        let kind = sniff(&path, data.as_slice());
        match kind {
            Kind::Text => self.emit_file(path, mtime, data),
            Kind::Binary(reason) => {
                self.skipped(path, reason.to_string());
                Outcome::Skipped
            }
            Kind::Zip | Kind::Gzip | Kind::Tar if depth >= self.max_depth => {
                let max_depth = self.max_depth;
                self.error(IngestError::TooDeep { path, max_depth });
                Outcome::Refused
            }
            Kind::Zip | Kind::Gzip | Kind::Tar => {
                // A nested archive stored without compression counts when it is
                // extracted, like any member: this bounds the work of archives
                // whose directory lists the same stored bytes many times.
                if depth > 0 && !self.charge_unowned(&path, &data) {
                    return Outcome::Refused;
                }
                let before = self.events;
                match &data {
                    Data::Input(s) => self.open(kind, &path, View::Input(s), depth + 1),
                    Data::Scratch(s) => self.open(kind, &path, View::Scratch(s), depth + 1),
                    Data::Owned(v) => self.open(kind, &path, View::Scratch(v), depth + 1),
                }
                // No silent drop: whatever the detection decided, an input
                // or member that yields nothing says so.
                if self.events == before {
                    let what = match kind {
                        Kind::Tar if data.as_slice().iter().all(|&b| b == 0) => "an empty tar archive (only zero blocks): nothing to read",
                        Kind::Tar => "a tar archive with no files in it: nothing to read",
                        Kind::Zip => "a zip archive with no files in it: nothing to read",
                        _ => "an archive with no files in it: nothing to read",
                    };
                    self.skipped(path, what.to_string());
                }
                Outcome::Opened
            }
        }
    }

    /// Counts bytes not produced by decompression (borrowed or copied from
    /// a buffer) against the total cap; on overflow reports it and returns
    /// false. Decompressed (owned) bytes were counted while inflating.
    fn charge_unowned(&mut self, path: &str, data: &Data<'a, '_>) -> bool {
        if matches!(data, Data::Owned(_)) || self.budget.charge_stored(data.as_slice().len() as u64).is_ok() {
            return true;
        }
        self.fault(path, Fault::Total);
        false
    }

    /// Lists an archive; its members are at nesting `depth`.
    fn open<'b>(&mut self, kind: Kind, path: &str, view: View<'a, 'b>, depth: u32)
    where
        'a: 'b,
    {
        match kind {
            Kind::Zip => zip::read(self, path, view, depth),
            Kind::Gzip => gz::read(self, path, view.bytes(), depth),
            Kind::Tar => tar::read_slice(self, path, view, depth),
            Kind::Binary(_) | Kind::Text => {}
        }
    }

    /// Emits a text member. Bytes not produced by decompression (borrowed or
    /// copied from a buffer) are counted against the total cap here.
    fn emit_file(&mut self, path: String, mtime_secs: Option<i64>, data: Data<'a, '_>) -> Outcome {
        if !self.charge_unowned(&path, &data) {
            return Outcome::Refused;
        }
        let bytes = match data {
            Data::Input(s) => Cow::Borrowed(s),
            Data::Scratch(s) => Cow::Owned(s.to_vec()),
            Data::Owned(v) => Cow::Owned(v),
        };
        self.events += 1;
        (self.sink)(Event::File(Member { path, bytes, mtime_secs }));
        Outcome::Emitted
    }

    pub(crate) fn skipped(&mut self, path: String, reason: String) {
        self.events += 1;
        (self.sink)(Event::Skipped { path, reason });
    }

    pub(crate) fn error(&mut self, error: IngestError) {
        self.events += 1;
        (self.sink)(Event::Error(error));
    }

    /// Reports a decompression fault against `path`.
    pub(crate) fn fault(&mut self, path: &str, fault: Fault) {
        let path = path.to_string();
        let error = match fault {
            Fault::Ratio => IngestError::RatioCap { path, max_ratio: self.budget.max_ratio() },
            Fault::Total => IngestError::TotalCap { path, cap: self.budget.max_total() },
            Fault::OutOfMemory { bytes } => IngestError::OutOfMemory { path, bytes },
            Fault::GzTruncated { after } => {
                IngestError::Truncated { path, detail: format!("gzip stream ends after {after} decompressed bytes (file cut short?)") }
            }
            Fault::GzCorrupt { after, detail } => IngestError::CorruptGzip { path, after, detail },
        };
        self.error(error);
    }
}

/// Joins an archive path and a member name with [`LEVEL_SEPARATOR`].
pub(crate) fn join(archive: &str, member: &str) -> String {
    let mut path = String::with_capacity(archive.len() + LEVEL_SEPARATOR.len() + member.len());
    path.push_str(archive);
    path.push_str(LEVEL_SEPARATOR);
    path.push_str(member);
    path
}

/// The last component of a path: after the last `/` (which also covers `!/`).
pub(crate) fn base_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Normalises an entry name from an archive: no leading `/` or `./`, and a
/// stand-in for an empty name.
pub(crate) fn clean_name(raw: &str) -> String {
    let mut name = raw;
    loop {
        if let Some(rest) = name.strip_prefix('/') {
            name = rest;
        } else if let Some(rest) = name.strip_prefix("./") {
            name = rest;
        } else {
            break;
        }
    }
    if name.is_empty() {
        "(unnamed)".to_string()
    } else {
        name.to_string()
    }
}

/// Whether an input named `name` whose first bytes are `head` is a plain
/// text file (no archive, not binary), which can be parsed as it arrives
/// instead of being opened whole. `head` should be at least a few KiB.
pub fn is_plain_text(name: &str, head: &[u8]) -> bool {
    let lower = base_name(name).to_ascii_lowercase();
    let archive_name = [".zip", ".tar", ".tgz", ".gz"].iter().any(|e| lower.ends_with(e));
    !archive_name && matches!(sniff(name, head), Kind::Text)
}

/// Decides what `bytes` (named `path`) are: a container, binary, or text.
fn sniff(path: &str, bytes: &[u8]) -> Kind {
    if bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06") || bytes.starts_with(b"PK\x07\x08PK\x03\x04") {
        return Kind::Zip;
    }
    if bytes.starts_with(&[0x1f, 0x8b, 0x08]) {
        return Kind::Gzip;
    }
    if tar::is_header(bytes) {
        return Kind::Tar;
    }
    let name = base_name(path).to_ascii_lowercase();
    // Only zero blocks to its end: text that starts with NULs is not one.
    let tar_name = name.ends_with(".tar") || name.ends_with(".tar.gz") || name.ends_with(".tgz");
    if tar_name && tar::is_empty_archive(bytes) && bytes.iter().all(|&b| b == 0) {
        return Kind::Tar;
    }
    if name.ends_with(".zip") && zip::has_end_record(bytes) {
        return Kind::Zip;
    }
    match binary_reason(bytes) {
        Some(reason) => Kind::Binary(reason),
        None => Kind::Text,
    }
}

/// Why `bytes` look binary, if they do.
fn binary_reason(bytes: &[u8]) -> Option<&'static str> {
    const SIGNATURES: &[(&[u8], &str)] = &[
        (b"\x89PNG\r\n\x1a\n", "PNG image, skipped"),
        (b"\x7fELF", "ELF executable, skipped"),
        (b"\xff\xd8\xff", "JPEG image, skipped"),
        (b"GIF87a", "GIF image, skipped"),
        (b"GIF89a", "GIF image, skipped"),
        (b"%PDF-", "PDF document, skipped"),
        (b"\xfd7zXZ\x00", "xz-compressed file (not supported), skipped"),
        (b"\x28\xb5\x2f\xfd", "zstd-compressed file (not supported), skipped"),
        (b"\x04\x22\x4d\x18", "lz4-compressed file (not supported), skipped"),
        (b"7z\xbc\xaf\x27\x1c", "7-Zip archive (not supported), skipped"),
        (b"Rar!\x1a\x07", "RAR archive (not supported), skipped"),
        (b"SQLite format 3\x00", "SQLite database, skipped"),
        (b"PK", "damaged zip archive (no readable header), skipped"),
    ];
    if bytes.len() >= 10 && bytes.starts_with(b"BZh") && bytes.get(4..10) == Some(b"1AY&SY".as_slice()) {
        return Some("bzip2-compressed file (not supported), skipped");
    }
    if let Some((_, reason)) = SIGNATURES.iter().find(|(magic, _)| bytes.starts_with(magic) && (magic.len() > 2 || is_zip_like(bytes))) {
        return Some(reason);
    }
    let sample = bytes.get(..SNIFF_LEN).unwrap_or(bytes);
    memchr::memchr(0, sample)?;
    if sample.starts_with(b"\xff\xfe") || sample.starts_with(b"\xfe\xff") {
        Some("UTF-16 text (not supported), skipped")
    } else {
        Some("binary file (NUL bytes), skipped")
    }
}

/// `PK` followed by one of the zip record signatures' second half.
fn is_zip_like(bytes: &[u8]) -> bool {
    matches!(bytes.get(2..4), Some([1, 2] | [3, 4] | [5, 6] | [6, 6] | [7, 8]))
}

/// Formats a byte count for messages: `8 GiB`, `1.5 MiB`, `512 bytes`.
/// `n` bytes for a person: "1.5 GiB", "512 KiB", "17 bytes".
pub fn human_bytes(n: u64) -> String {
    const UNITS: [(&str, u64); 4] = [("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)];
    for (unit, size) in UNITS {
        if n >= size {
            if n.is_multiple_of(size) {
                return format!("{} {unit}", n / size);
            }
            // Lossy by design: one decimal is plenty for a message.
            #[allow(clippy::cast_precision_loss)]
            let value = n as f64 / size as f64;
            return format!("{value:.1} {unit}");
        }
    }
    format!("{n} bytes")
}

/// A byte count a person wrote: a number with an optional unit, `2GB`,
/// `1.5 GiB`, `500M`, `64k`, `1000000`. Units are binary (`K`, `M`, `G`,
/// `T`, with or without `B`/`iB`: 1 GB is 1 GiB here, as in
/// [`human_bytes`]); `B` or none: bytes. A figure that is not a whole
/// number of bytes is rounded down.
pub fn parse_bytes(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let value: f64 = num.parse().map_err(|_| format!("`{text}` is not a size (for example 2GB, 500MiB, 1000000)"))?;
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" | "bytes" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        other => return Err(format!("`{text}`: `{other}` is not a unit (use K, M, G or T)")),
    };
    let bytes = value * (1u64 << shift) as f64;
    if !bytes.is_finite() || bytes >= u64::MAX as f64 {
        return Err(format!("`{text}` is too big"));
    }
    Ok(bytes as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_a_person_writes() {
        let check = |text: &str, want: Result<u64, &str>| match (parse_bytes(text), want) {
            (Ok(got), Ok(w)) => assert_eq!(got, w, "{text}"),
            (Err(e), Err(w)) => assert!(e.contains(w), "{text}: {e}"),
            (got, w) => panic!("{text}: {got:?}, want {w:?}"),
        };
        check("1000000", Ok(1_000_000));
        check("2GB", Ok(2 << 30));
        check(" 1.5 GiB ", Ok(3 << 29));
        check("500M", Ok(500 << 20));
        check("64k", Ok(64 << 10));
        check("7 bytes", Ok(7));
        check("0", Ok(0));
        check("", Err("is not a size"));
        check("GB", Err("is not a size"));
        check("1.2.3G", Err("is not a size"));
        check("3 parsecs", Err("is not a unit"));
        check("-1G", Err("is not a size"));
        check("99999999999T", Err("too big"));
    }

    #[test]
    fn human_bytes_formats() {
        assert_eq!(human_bytes(8 << 30), "8 GiB");
        assert_eq!(human_bytes(3 << 19), "1.5 MiB");
        assert_eq!(human_bytes(512), "512 bytes");
    }

    #[test]
    fn clean_name_strips_prefixes() {
        assert_eq!(clean_name("./a/b.log"), "a/b.log");
        assert_eq!(clean_name("/./x"), "x");
        assert_eq!(clean_name(""), "(unnamed)");
    }

    #[test]
    fn plain_text_inputs() {
        assert!(is_plain_text("a/manager.log", b"2026-05-26T16:21:07Z\tINFO\thello\n"));
        assert!(!is_plain_text("a.log", b"PK\x03\x04rest"));
        assert!(!is_plain_text("a.log", &[0x1f, 0x8b, 0x08, 0]));
        assert!(!is_plain_text("a.log", b"text\0with NUL"));
        // Names of archives are opened whole even when the head looks like text.
        assert!(!is_plain_text("artifact.zip", b"hello"));
        assert!(!is_plain_text("logs.tar", b"hello"));
    }

    #[test]
    fn binary_detection() {
        assert_eq!(binary_reason(b"hello\nworld\n"), None);
        assert_eq!(binary_reason(b"caf\xe9 latin-1 text\n"), None);
        assert!(binary_reason(b"abc\0def").is_some());
        assert!(binary_reason(b"\x7fELF\x02\x01").is_some());
        assert_eq!(binary_reason(b"PKG_CONFIG_PATH=/usr\n"), None);
    }
}
