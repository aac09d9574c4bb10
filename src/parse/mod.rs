//! Parsing: one file's bytes in, records out.
//!
//! Parsing never fails: it returns records plus diagnostics. Every line of
//! the file ends up in exactly one place: a record of its own, a
//! continuation of the record before it (a Go stack after an ERROR line, the
//! rest of a goroutine dump), or the count of blank lines.

pub mod json;
pub mod line;
mod piece;
mod repair;
#[doc(hidden)]
pub mod testing;

use piece::EncodedPiece;
pub use piece::{Piece, PieceError, PieceParser};

use crate::model::{Diagnostic, FileBytes, Format, Packed, ParseCounts, ParsedFile, Record, RecordFlags, Span, Timestamp, ValueKind, Wrapper, YearSource};
use crate::time;
use line::{Ctx, LineOptions, LineOut, Origin};

/// Options for [`parse_file`].
#[derive(Clone, Copy, Debug)]
pub struct ParseOptions {
    /// Offset east of UTC, in seconds, for times written without a zone.
    pub default_offset_secs: i32,
    /// Lines longer than this are parsed on their first `max_line_bytes`
    /// only (the record still covers the whole line).
    pub max_line_bytes: usize,
    /// Threads to parse one big file on (1: this thread only). Ignored in
    /// wasm, which parses on one thread.
    pub threads: usize,
    /// Keep every record's fields in `ParsedFile::fields`. Off (the
    /// default), a record whose first line alone gives its fields back
    /// keeps none (`Record::fields_again_after`; most lines of a log) and
    /// `ParsedFile::fields(record)` parses that line again: the same
    /// records, the same fields, read more slowly, and about a third less
    /// memory beside the file's bytes (a field is 20 bytes, and a
    /// controller's log has one per ~57 bytes).
    pub keep_fields: bool,
    /// With `keep_fields` off, still keep the fields the analysis reads
    /// (`analyze`): those of each reconcile's first line (the first line
    /// with a `reconcileID` not seen lately: a table of the ids seen last,
    /// per piece) and of warnings and errors. Only where they are kept
    /// changes; `ParsedFile::fields` gives the same fields either way.
    pub keep_first_fields: bool,
}

impl Default for ParseOptions {
    fn default() -> Self {
        ParseOptions { default_offset_secs: 0, max_line_bytes: 1 << 20, threads: 1, keep_fields: false, keep_first_fields: false }
    }
}

/// Files bigger than this are cut: spans are 32-bit offsets (4 GiB), and
/// in wasm32 a plain file's one buffer is under 2 GiB.
pub const MAX_FILE_BYTES: usize = if usize::BITS > 32 { u32::MAX as usize } else { (u32::MAX >> 1) as usize };

/// What the CLI (a 64-bit build) reads of one file: [`MAX_FILE_BYTES`]
/// there.
pub const CLI_FILE_BYTES: u64 = u32::MAX as u64;

/// A file packed as it is parsed ([`StreamParser::packed`]) is read up to
/// this: its spans are 32-bit offsets.
pub const MAX_PACKED_BYTES: usize = u32::MAX as usize;

/// Whether a line no format reads is a terminal's own (a pager's row, a
/// frame's border, a shell command line): the parser notes those by kind.
pub fn is_terminal_chrome(line: &[u8]) -> bool {
    repair::chrome(line).is_some()
}

/// Whether a line no format reads is an elision a person wrote where they
/// left lines of a log out of an excerpt: `...`, `…`, `[...]`, `[snip]`,
/// `... 200 lines omitted ...`, `--- 12 more lines ---`.
pub fn is_elision(line: &[u8]) -> bool {
    repair::elision(line)
}

/// Parses one file. `path` names it in records and diagnostics.
///
/// With `opts.threads > 1` a big file is cut at record boundaries and the
/// pieces are parsed on that many threads; the result is the same as with
/// one thread.
pub fn parse_file(path: impl Into<String>, bytes: impl Into<FileBytes>, opts: &ParseOptions) -> ParsedFile {
    let path = path.into();
    let mut bytes: FileBytes = bytes.into();
    // (Packed bytes, which only a stream parse makes, are parsed plain.)
    if bytes.plain().is_none() {
        bytes = bytes.whole().into_owned().into();
    }
    let mut diagnostics = Vec::new();
    if bytes.len() > MAX_FILE_BYTES {
        diagnostics.push(Diagnostic {
            path: path.clone(),
            line: None,
            message: format!(
                "file is {} bytes; only the first {} are read (the last {} are left out)",
                bytes.len(),
                MAX_FILE_BYTES,
                bytes.len() - MAX_FILE_BYTES
            ),
        });
        // What is left out is freed, not kept as spare capacity.
        bytes.truncate(MAX_FILE_BYTES);
    }
    let plain = bytes.plain().unwrap_or_default();
    let bounds = split_points(plain, opts);
    let mut chunks: Vec<Chunk> = if bounds.len() <= 2 { vec![parse_chunk(plain, 0, plain.len(), opts)] } else { parse_parallel(plain, &bounds, opts) };
    // A piece after one that saw a name column would have peeled it: such
    // a file is parsed on one thread (the same result, in more time).
    if chunks.iter().rev().skip(1).any(|c| !c.resume.joins_fresh()) {
        chunks = vec![parse_chunk(plain, 0, plain.len(), opts)];
    }
    let mut pf = merge(chunks, path, diagnostics);
    pf.bytes = bytes;
    pf.zone_offset_secs = opts.default_offset_secs;
    pf
}

#[cfg(not(target_arch = "wasm32"))]
fn parse_parallel(bytes: &[u8], bounds: &[usize], opts: &ParseOptions) -> Vec<Chunk> {
    std::thread::scope(|scope| {
        let handles: Vec<_> = bounds.windows(2).skip(1).map(|w| scope.spawn(move || parse_chunk(bytes, w[0], w[1], opts))).collect();
        // The first piece on this thread.
        let mut out = vec![parse_chunk(bytes, bounds[0], bounds[1], opts)];
        for h in handles {
            out.push(h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)));
        }
        out
    })
}

#[cfg(target_arch = "wasm32")]
fn parse_parallel(bytes: &[u8], bounds: &[usize], opts: &ParseOptions) -> Vec<Chunk> {
    bounds.windows(2).map(|w| parse_chunk(bytes, w[0], w[1], opts)).collect()
}

/// Byte offsets that cut the file into `opts.threads` pieces, each cut at
/// the start of a line that is a record of its own (so nothing that would
/// join the record before it is cut off from it). Starts with 0, ends with
/// the length.
fn split_points(bytes: &[u8], opts: &ParseOptions) -> Vec<usize> {
    let mut out = vec![0];
    let n = opts.threads.max(1);
    if n > 1 && bytes.len() >= MIN_PARALLEL_BYTES {
        for k in 1..n {
            let target = bytes.len() / n * k;
            if let Some(pos) = record_start_after(bytes, target, opts) {
                if pos > *out.last().unwrap_or(&0) {
                    out.push(pos);
                }
            }
        }
    }
    out.push(bytes.len());
    out.dedup();
    out
}

/// The start of the first whole line after `target` that is a record of
/// its own (looking at up to 10,000 lines): a safe place to cut the file.
fn record_start_after(bytes: &[u8], target: usize, opts: &ParseOptions) -> Option<usize> {
    match find_record_start(bytes, Begins::FileStart, target, opts) {
        Search::Found(pos) => Some(pos),
        Search::NeedMore | Search::GaveUp => None,
    }
}

/// What [`find_record_start`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Search {
    /// The start of a line that is a record of its own.
    Found(usize),
    /// The bytes ended before such a line (more bytes may hold one).
    NeedMore,
    /// 10,000 whole lines and none is a record of its own.
    GaveUp,
}

/// Where the bytes [`find_record_start`] looks in begin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Begins {
    /// At the file's start: `bytes[0]` starts a line.
    FileStart,
    /// Anywhere in the file (a split file's tail): the line `bytes[0]` is
    /// in may have begun before it.
    Anywhere,
}

/// [`record_start_after`], telling "the bytes ran out" from "gave up".
fn find_record_start(bytes: &[u8], begins: Begins, target: usize, opts: &ParseOptions) -> Search {
    let mut scratch_fields = Vec::new();
    let mut scratch = Vec::new();
    let Some(rest) = bytes.get(target..) else { return Search::NeedMore };
    let Some(mut pos) = memchr::memchr(b'\n', rest).map(|i| target + i + 1) else { return Search::NeedMore };
    for _ in 0..10_000 {
        // Only a whole line (one that has its line break) is judged.
        let Some(len) = memchr::memchr(b'\n', &bytes[pos..]) else { return Search::NeedMore };
        let end = pos + len;
        let mut line = &bytes[pos..end];
        let mut at = pos;
        if let Some((a, b, _)) = repair::unframe(line) {
            (line, at) = (&line[a..b], pos + a);
        }
        let line = &line[..line.len().min(opts.max_line_bytes)];
        // The line before may not be a CRI `P` piece, which this line
        // would end (the pieces are one line): as it is, or inside a
        // terminal's frame, as the parser reads it. A line before whose
        // start is not in the bytes may be one.
        // (`bytes[pos - 1]` is the line break that ends the line before.)
        let after_partial = {
            let prev_start = memchr::memrchr(b'\n', &bytes[..pos - 1]).map(|i| i + 1);
            let prev = &bytes[prev_start.unwrap_or(0)..pos - 1];
            let prev = prev.strip_suffix(b"\r").unwrap_or(prev);
            let partial = |l: &[u8]| line::cri_header_indented(l).is_some_and(|h| h.partial);
            (prev_start.is_none() && begins == Begins::Anywhere) || partial(prev) || repair::unframe(prev).is_some_and(|(a, b, _)| partial(&prev[a..b]))
        };
        // A line is parsed trying the format of the line before it first:
        // a place to cut is a line that parses the same whatever that was
        // (the pieces after a cut start with none).
        let parse = |last_format: Format, fields: &mut Vec<_>, scratch: &mut Vec<u8>| {
            let mut cx = Ctx { opts: LineOptions { default_offset_secs: opts.default_offset_secs }, fields, scratch, last_format, name_prefix: Vec::new() };
            let mut lo = LineOut::default();
            let ok = line::parse_line(line, Origin { start: at, scratch: false }, &mut cx, &mut lo);
            (ok, lo, cx.last_format, cx.name_prefix)
        };
        let fresh = parse(Format::Unparsed, &mut scratch_fields, &mut scratch);
        let (ok, lo) = (fresh.0, fresh.1);
        // Nor may it look like a stack frame, which joins an ERROR line
        // before it whatever it parses as.
        if !after_partial && !frame_like(line) && ok && !matches!(lo.format, None | Some(Format::Unparsed | Format::Text | Format::GoTraceback)) {
            let (fields, bytes_out) = (std::mem::take(&mut scratch_fields), std::mem::take(&mut scratch));
            let same = Format::ALL.iter().all(|&f| {
                let (mut fs, mut sc) = (Vec::new(), Vec::new());
                parse(f, &mut fs, &mut sc) == fresh && fs == fields && sc == bytes_out
            });
            if same {
                match maybe_inside_pretty_json(bytes, pos, opts.max_line_bytes) {
                    Some(false) => return Search::Found(pos),
                    Some(true) => {}
                    None => return Search::NeedMore,
                }
            }
        }
        scratch_fields.clear();
        scratch.clear();
        pos = end + 1;
    }
    Search::GaveUp
}

/// Parses one file while its bytes arrive (the browser worker reads a big
/// file in slices, and parses one slice while the next is read). The
/// result is the same as [`parse_file`] on all the bytes at once: the
/// bytes are cut only at the start of a line that is a record of its own.
///
/// A big file can also be parsed by two workers at once
/// ([`StreamParser::split`]): this parser takes the whole file, its head
/// and its tail arriving side by side, and parses the head; a
/// [`PieceParser`] elsewhere parses the tail into a [`Piece`], which
/// [`StreamParser::finish_with`] joins on.
///
/// Or it packs the file as it parses it ([`StreamParser::packed`]): what
/// is parsed is compressed in record-aligned chunks and only the bytes not
/// parsed yet stay plain, for a log bigger than a browser tab can hold.
pub struct StreamParser {
    path: String,
    opts: ParseOptions,
    /// The file's bytes from `base` on (from its start unless packed).
    bytes: Vec<u8>,
    /// Packed: the file's bytes before `base`, compressed.
    packed: Option<Packed>,
    base: usize,
    /// `bytes[..head_len]` arrived, in order from the start.
    head_len: usize,
    /// A split file's tail: where it starts, and how far it has arrived.
    tail: Option<TailBytes>,
    /// `bytes[..parsed_to]` are parsed, into `parsed`.
    parsed_to: usize,
    parsed: Chunk,
    /// How many times it parsed while bytes arrived.
    pieces: usize,
    /// It parses once twice this much is unparsed, all but the last
    /// `piece_bytes` ([`STREAM_PIECE_BYTES`]).
    piece_bytes: usize,
    diagnostics: Vec<Diagnostic>,
}

/// The tail of a split file: `bytes[from..at]` arrived.
#[derive(Clone, Copy, Debug)]
struct TailBytes {
    from: usize,
    at: usize,
}

/// Bytes given to [`StreamParser::write`] that do not continue the head or
/// the tail of the file (or lie past its end).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bytes at offset {offset} do not continue the file")]
pub struct OutOfOrder {
    pub offset: u64,
}

/// [`StreamParser`] parses once at least this much is unparsed.
const STREAM_PIECE_BYTES: usize = 4 << 20;

impl StreamParser {
    /// `size_hint`: the file's size, when known (its buffer is reserved once).
    pub fn new(path: impl Into<String>, size_hint: usize, opts: &ParseOptions) -> StreamParser {
        StreamParser {
            path: path.into(),
            opts: *opts,
            bytes: Vec::with_capacity(size_hint.min(MAX_FILE_BYTES)),
            packed: None,
            base: 0,
            piece_bytes: STREAM_PIECE_BYTES,
            head_len: 0,
            tail: None,
            parsed_to: 0,
            parsed: Chunk::for_parse(size_hint.min(MAX_FILE_BYTES), opts),
            pieces: 0,
            diagnostics: Vec::new(),
        }
    }

    /// A file of `size` bytes whose tail, from `tail_from`, another
    /// parser ([`PieceParser`]) parses: its head arrives with
    /// [`StreamParser::push`] and its tail with [`StreamParser::write`],
    /// side by side. `None` when `tail_from` is not inside the file (or
    /// the file is too big to split).
    pub fn split(path: impl Into<String>, size: usize, tail_from: usize, opts: &ParseOptions) -> Option<StreamParser> {
        if tail_from == 0 || tail_from >= size || size > MAX_FILE_BYTES {
            return None;
        }
        let mut p = StreamParser::new(path, 0, opts);
        // Zeroed memory fresh from the allocator: the tail is written in
        // place as it arrives. The records have room for the tail's too.
        p.bytes = vec![0; size];
        p.parsed = Chunk::for_parse(size, opts);
        p.tail = Some(TailBytes { from: tail_from, at: tail_from });
        Some(p)
    }

    /// A file of about `size_hint` bytes, packed as it is parsed: what is
    /// parsed is compressed, in chunks of whole records (a few MiB each),
    /// and the file's bytes come out of [`StreamParser::finish`] as
    /// [`FileBytes::packed`]. The same records as [`StreamParser::new`]'s;
    /// up to [`MAX_PACKED_BYTES`] are read.
    // (In wasm32 a `usize` never passes MAX_PACKED_BYTES; natively it can.)
    #[allow(clippy::unnecessary_min_or_max)]
    pub fn packed(path: impl Into<String>, size_hint: usize, opts: &ParseOptions) -> StreamParser {
        let mut p = StreamParser::new(path, 0, opts);
        p.parsed = Chunk::for_parse(size_hint.min(MAX_PACKED_BYTES), opts);
        p.packed = Some(Packed::new());
        p
    }

    /// Parses (and packs) in pieces of about `n` bytes instead of
    /// [`STREAM_PIECE_BYTES`]: tests cut small files with it.
    #[doc(hidden)]
    pub fn with_piece_bytes(mut self, n: usize) -> StreamParser {
        self.piece_bytes = n.max(1);
        self
    }

    /// How many bytes it holds: the head, with a split file's tail (and
    /// the gap before it, while one is left) after it.
    pub fn len(&self) -> usize {
        self.base + self.bytes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The most bytes it reads of a file.
    fn max_bytes(&self) -> usize {
        if self.packed.is_some() {
            MAX_PACKED_BYTES
        } else {
            MAX_FILE_BYTES
        }
    }

    /// How many of the file's bytes arrived.
    pub fn received(&self) -> usize {
        self.head_len + self.tail.map_or(0, |t| t.at - t.from)
    }

    /// Whether every byte of a split file arrived (a file not split is
    /// complete when its sender says so).
    pub fn is_complete(&self) -> bool {
        self.tail.is_none_or(|t| self.head_len == t.from && t.at == self.len())
    }

    /// Appends the next bytes of the file's head and parses what is
    /// complete (bytes past a split file's head are dropped).
    pub fn push(&mut self, data: &[u8]) {
        let n = self.tail.map_or(data.len(), |t| data.len().min(t.from - self.head_len));
        let _ = self.write(self.head_len, &data[..n]);
    }

    /// Takes bytes at `offset` of the file: the next of its head (as
    /// [`StreamParser::push`]) or, for a split file, the next of its tail.
    pub fn write(&mut self, offset: usize, data: &[u8]) -> Result<(), OutOfOrder> {
        let room = self.room(offset, data.len())?;
        let n = room.len();
        room.copy_from_slice(&data[..n]);
        self.filled(offset, n);
        Ok(())
    }

    /// Where the `len` bytes at `offset` of the file go, for a caller that
    /// writes them in place (the browser worker copies a slice from
    /// JavaScript straight there); then call [`StreamParser::filled`].
    /// Shorter than `len` when the file would pass [`MAX_FILE_BYTES`] (the
    /// rest is dropped, and a diagnostic says so).
    pub fn room(&mut self, offset: usize, len: usize) -> Result<&mut [u8], OutOfOrder> {
        let out_of_order = OutOfOrder { offset: offset as u64 };
        let end = offset.checked_add(len).ok_or(out_of_order)?;
        match self.tail {
            // (Where the head ends and the tail begins, once the head is
            // whole, bytes are the tail's.)
            Some(t) if offset == t.at && end <= self.bytes.len() => Ok(&mut self.bytes[offset..end]),
            Some(t) if offset == self.head_len && end <= t.from => Ok(&mut self.bytes[offset..end]),
            None if offset == self.head_len => {
                let max = self.max_bytes();
                let room = max - self.len();
                if len > room && self.diagnostics.is_empty() {
                    self.diagnostics.push(Diagnostic {
                        path: self.path.clone(),
                        line: None,
                        message: format!("file is over {max} bytes; only the first {max} are read"),
                    });
                }
                let end = offset + len.min(room);
                self.bytes.resize(end - self.base, 0);
                Ok(&mut self.bytes[offset - self.base..end - self.base])
            }
            _ => Err(out_of_order),
        }
    }

    /// The `len` bytes at `offset` that [`StreamParser::room`] gave are
    /// written: takes them in, and parses what is complete.
    pub fn filled(&mut self, offset: usize, len: usize) {
        match &mut self.tail {
            Some(t) if offset == t.at => {
                t.at += len;
                return;
            }
            Some(_) => self.head_len = offset + len,
            None => self.head_len = self.len(),
        }
        if self.head_len - self.parsed_to < 2 * self.piece_bytes {
            return;
        }
        let target = self.head_len - self.piece_bytes;
        let base = self.base;
        if let Some(cut) = record_start_after(&self.bytes[..self.head_len - base], target - base, &self.opts).map(|c| c + base) {
            if cut > self.parsed_to {
                self.parse_to(cut);
                self.pieces += 1;
            }
        }
    }

    /// Parses the bytes up to `cut` (the start of a record, or the end);
    /// packed, they are then compressed and let go.
    fn parse_to(&mut self, cut: usize) {
        let Some(packed) = self.packed.as_mut() else {
            parse_into(&self.bytes, self.parsed_to, cut, &self.opts, &mut self.parsed);
            self.parsed_to = cut;
            return;
        };
        // The bytes held start at `base`: parsed on their own, then put
        // after the records before them as a piece is (with what the
        // parser carries from one line to the next).
        let base = self.base;
        let mut piece = Chunk::for_parse(cut - self.parsed_to, &self.opts);
        piece.resume = std::mem::take(&mut self.parsed.resume);
        piece.seen_ids = std::mem::take(&mut self.parsed.seen_ids);
        parse_into(&self.bytes, self.parsed_to - base, cut - base, &self.opts, &mut piece);
        let seen_ids = std::mem::take(&mut piece.seen_ids);
        append(&mut self.parsed, piece, base as u32);
        self.parsed.seen_ids = seen_ids;
        self.parsed_to = cut;
        packed.push(&self.bytes[..cut - base]);
        self.bytes.drain(..cut - base);
        self.base = cut;
    }

    /// Drops what arrived after the last line end: a file read only in
    /// part (a cap) ends inside a line, and half a line is not what the
    /// log wrote. Call once every byte that is to be read arrived, before
    /// [`StreamParser::finish`]; a split file's tail then ends there too.
    pub fn cut_to_last_line(&mut self) {
        let end = match self.tail {
            Some(t) if self.head_len == t.from => t.at,
            Some(_) => self.head_len,
            None => self.len(),
        };
        // (Packed, what was parsed ends at a line's end: the start of a
        // record.)
        let n = memchr::memrchr(b'\n', &self.bytes[..end - self.base]).map_or(self.base, |i| self.base + i + 1);
        self.bytes.truncate(n - self.base);
        self.bytes.shrink_to_fit();
        match &mut self.tail {
            Some(t) if n >= t.from => t.at = n,
            _ => {
                self.tail = None;
                self.head_len = self.head_len.min(n);
            }
        }
        // (What was parsed ends at the start of a line, so at or before it.)
        debug_assert!(self.parsed_to <= n);
    }

    /// Parses the rest: the whole file.
    pub fn finish(self) -> ParsedFile {
        self.finish_with(None)
    }

    /// Parses the rest of a split file, its tail taken from `tail`, the
    /// encoded [`Piece`] another parser made of it ([`Piece::encode`]).
    /// Without a piece (the other parser failed, or found no place to
    /// cut), or with one that does not fit this file or cannot be read,
    /// the tail is parsed here: the result is the same. A split file
    /// missing bytes is parsed up to its first gap, and says so.
    pub fn finish_with(mut self, tail: Option<&[u8]>) -> ParsedFile {
        if self.packed.is_some() {
            let end = self.len();
            self.parse_to(end);
            let mut pf = finish(ParsedFile { path: self.path, ..ParsedFile::default() }, self.parsed, self.diagnostics);
            pf.bytes = FileBytes::packed(self.packed.take().unwrap_or_default());
            pf.zone_offset_secs = self.opts.default_offset_secs;
            return pf;
        }
        let mut end = self.bytes.len();
        let mut piece = None;
        if let Some(t) = self.tail {
            if !self.is_complete() {
                // Only what arrived in order from the start is the file.
                end = if self.head_len == t.from { t.at } else { self.head_len };
                self.diagnostics.push(Diagnostic {
                    path: self.path.clone(),
                    line: None,
                    message: format!("only the first {end} of its {} bytes arrived", self.bytes.len()),
                });
                self.bytes.truncate(end);
            } else {
                piece = tail.and_then(|b| EncodedPiece::read(b).ok()).filter(|p| p.fits(t.from, end) && p.cut.is_some());
            }
        }
        let cut = piece.as_ref().and_then(|p| p.cut).map_or(end, |c| c as usize);
        parse_into(&self.bytes, self.parsed_to, cut, &self.opts, &mut self.parsed);
        if let Some(p) = piece {
            if self.parsed.resume.joins_fresh() {
                p.append_to(&mut self.parsed, p.from as u32);
            } else {
                // The head saw a name column the piece did not know of.
                parse_into(&self.bytes, cut, end, &self.opts, &mut self.parsed);
            }
        }
        let mut pf = finish(ParsedFile { path: self.path, ..ParsedFile::default() }, self.parsed, self.diagnostics);
        pf.bytes = self.bytes.into();
        pf.zone_offset_secs = self.opts.default_offset_secs;
        pf
    }
}

/// The problems a line can have (a [`Chunk`] lists them by line).
const PROBLEMS: [&str; 2] = ["line is cut off inside its JSON object; the fields before the cut were kept", IMPOSSIBLE_TIME];

/// The problem of a line whose timestamp is no time (listed once per file).
const IMPOSSIBLE_TIME: &str = "timestamp is impossible";

/// Files smaller than this are parsed on one thread.
const MIN_PARALLEL_BYTES: usize = 4 << 20;

/// What one piece of a file parsed into, with line numbers and scratch
/// offsets relative to the piece.
#[derive(Debug)]
struct Chunk {
    records: Vec<Record>,
    fields: Vec<crate::model::Field>,
    scratch: Vec<u8>,
    counts: ParseCounts,
    /// (line, message) of problems, line relative to the piece.
    problems: Vec<(u32, &'static str)>,
    truncated_lines: u64,
    /// What was repaired in a copy from a terminal (`repair`).
    repairs: repair::Repairs,
    /// The reconcile ids seen lately ([`ParseOptions::keep_first_fields`]):
    /// a hash of each, one per slot; empty until first used.
    seen_ids: Vec<u64>,
    /// The line parser's context where the chunk ends (the last line's
    /// format, a name column seen), for the bytes parsed onto it next.
    resume: Resume,
}

/// What parsing a line takes from the lines before it ([`Ctx`]).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Resume {
    last_format: Format,
    name_prefix: Vec<u8>,
}

impl Default for Resume {
    fn default() -> Self {
        Resume { last_format: Format::Unparsed, name_prefix: Vec::new() }
    }
}

impl Resume {
    /// Whether a piece parsed from a fresh start can follow a chunk that
    /// ends with this context. The line at the cut parses the same after
    /// any format (`find_record_start`), but a name column seen before
    /// would be peeled from the lines after it.
    fn joins_fresh(&self) -> bool {
        self.name_prefix.is_empty()
    }
}

/// Joins pieces: line numbers, field indexes and scratch spans are rebased.
fn merge(chunks: Vec<Chunk>, path: String, diagnostics: Vec<Diagnostic>) -> ParsedFile {
    let pf = ParsedFile { path, ..ParsedFile::default() };
    let mut all = chunks.into_iter();
    let Some(mut acc) = all.next() else {
        return finish(pf, Chunk::with_capacity(0), diagnostics);
    };
    for c in all {
        append(&mut acc, c, 0);
    }
    finish(pf, acc, diagnostics)
}

/// Puts `c`, the piece that follows `acc` in the file, on the end of
/// `acc`: line numbers, field indexes and scratch spans are rebased, and
/// offsets into the file's bytes move `raw_base` further (a piece parsed
/// from a buffer that starts `raw_base` bytes into the file).
fn append(acc: &mut Chunk, c: Chunk, raw_base: u32) {
    let (fbase, sbase, line_base) = (acc.fields.len() as u32, acc.scratch.len() as u32, acc.counts.lines as u32);
    let shift = |sp: Span| rebase(sp, raw_base, sbase);
    acc.records.extend(c.records.into_iter().map(|mut r| {
        r.fields_start += fbase;
        r.line += line_base;
        r.offset += u64::from(raw_base);
        r.message = shift(r.message);
        r.logger = shift(r.logger);
        r.reconcile_id = shift(r.reconcile_id);
        r
    }));
    acc.fields.extend(c.fields.into_iter().map(|mut f| {
        f.key = shift(f.key);
        f.value = shift(f.value);
        f
    }));
    acc.scratch.extend_from_slice(&c.scratch);
    acc.problems.extend(c.problems.into_iter().map(|(l, m)| (l + line_base, m)));
    acc.truncated_lines += c.truncated_lines;
    acc.repairs.merge(&c.repairs, line_base);
    acc.counts.add(&c.counts);
    acc.resume = c.resume;
}

/// A span of a piece moved to where it is in the joined file: `raw_base`
/// further in the file's bytes, `scratch_base` further in the scratch.
fn rebase(sp: Span, raw_base: u32, scratch_base: u32) -> Span {
    match sp {
        _ if sp.in_scratch() => sp.shifted(scratch_base),
        // "No such text" (a record without a reconcile id) stays that.
        Span::EMPTY => sp,
        _ => sp.shifted(raw_base),
    }
}

/// The parsed file from its joined pieces, with its diagnostics.
fn finish(mut pf: ParsedFile, c: Chunk, mut diagnostics: Vec<Diagnostic>) -> ParsedFile {
    let Chunk { records, fields, scratch, counts, problems, truncated_lines, repairs, .. } = c;
    const LISTED: usize = 20;
    // (The last line's cut is said once, by the repairs' note.)
    let cut_last = repairs.cut_last.map(|(l, _)| l);
    for (line, message) in problems.iter().filter(|p| p.1 != IMPOSSIBLE_TIME && !(p.1 == PROBLEMS[0] && Some(p.0) == cut_last)).take(LISTED) {
        diagnostics.push(Diagnostic { path: pf.path.clone(), line: Some(*line), message: (*message).into() });
    }
    // One note for all the impossible timestamps, naming the first.
    if let Some(&(line, _)) = problems.iter().find(|p| p.1 == IMPOSSIBLE_TIME) {
        diagnostics.push(Diagnostic { path: pf.path.clone(), line: Some(line), message: impossible_note(counts.impossible_times) });
    }
    if truncated_lines as usize > LISTED {
        diagnostics.push(Diagnostic {
            path: pf.path.clone(),
            line: None,
            message: format!("{truncated_lines} lines in all are cut off inside their JSON object; only the first {LISTED} are listed"),
        });
    }
    repairs.notes(&pf.path, &mut diagnostics);
    if counts.invalid_utf8_lines > 0 {
        diagnostics.push(Diagnostic {
            path: pf.path.clone(),
            line: None,
            message: crate::words::plural(
                counts.invalid_utf8_lines,
                "line is not valid UTF-8 and was decoded lossily",
                "lines are not valid UTF-8 and were decoded lossily",
            ),
        });
    }
    pf.records = records;
    pf.fields = fields;
    pf.fields_again = Some(crate::model::FieldsAgain(fields_again));
    pf.scratch = scratch;
    pf.counts = counts;
    pf.diagnostics = diagnostics;
    pf
}

/// The fields of a record that kept none (`Record::fields_again_after`):
/// its first line parsed again as the line loop parsed it, after the same
/// format, with nothing peeled first and the file's zone.
fn fields_again(pf: &ParsedFile, r: &Record, after: Format) -> Vec<crate::model::Field> {
    // (A record's bytes end before its last line's `\r\n`; a `\r` left
    // at their end is the line's own, which the line loop kept too.)
    let raw = pf.raw(r);
    let first = match memchr::memchr(b'\n', &raw) {
        Some(n) => raw[..n].strip_suffix(b"\r").unwrap_or(&raw[..n]),
        None => &raw[..],
    };
    let (mut fields, mut scratch) = (Vec::new(), Vec::new());
    let opts = LineOptions { default_offset_secs: pf.zone_offset_secs };
    let mut cx = Ctx { opts, fields: &mut fields, scratch: &mut scratch, last_format: after, name_prefix: Vec::new() };
    line::parse_line(first, Origin { start: r.offset as usize, scratch: false }, &mut cx, &mut LineOut::default());
    fields
}

/// What the record before the current line lets a continuation line join.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Tail {
    /// Nothing may join (no record yet, or a plain INFO line).
    Closed,
    /// Stack frames may join (after an ERROR/WARN line or a frame).
    Stack,
    /// Lines of a goroutine dump join (a panic or goroutine dump).
    Dump,
    /// Indented lines join (chainsaw's `=== STDOUT` sections).
    Indented,
}

/// Parses the lines of `bytes[from..to]` (`from` is a line start).
fn parse_chunk(bytes: &[u8], from: usize, to: usize, opts: &ParseOptions) -> Chunk {
    let mut c = Chunk::for_parse(to - from, opts);
    parse_into(bytes, from, to, opts, &mut c);
    c
}

impl Chunk {
    /// [`Chunk::with_capacity`] for a parse with `opts`: with
    /// `keep_fields` off, most records keep no fields, so no room is
    /// reserved for them (in wasm, memory reserved counts against its
    /// 4 GiB whether used or not: for a 3 GiB log, 1.3 GB of fields).
    fn for_parse(len: usize, opts: &ParseOptions) -> Chunk {
        let mut c = Chunk::with_capacity(len);
        if !opts.keep_fields {
            c.fields = Vec::new();
        }
        c
    }

    /// An empty chunk with room for what `len` bytes usually parse into.
    fn with_capacity(len: usize) -> Chunk {
        Chunk {
            records: Vec::with_capacity(len / 300 + 1),
            // (Generated kamaji logs: a record per ~370 bytes, a field
            // per ~57; joining pieces must not have to grow these.)
            fields: Vec::with_capacity(len / 48 + 1),
            scratch: Vec::new(),
            counts: ParseCounts::default(),
            problems: Vec::new(),
            truncated_lines: 0,
            repairs: repair::Repairs::default(),
            seen_ids: Vec::new(),
            resume: Resume::default(),
        }
    }
}

/// The line that starts at `pos` in `bytes[..to]`: where it ends, without
/// the `\r` before its `\n`, and where its `\n` is (`to` when it has
/// none; a last `\r` is taken off then too).
#[inline]
fn line_at(bytes: &[u8], pos: usize, to: usize) -> (usize, usize) {
    let nl = memchr::memchr(b'\n', &bytes[pos..to]).map_or(to, |k| pos + k);
    let end = if nl > pos && bytes[nl - 1] == b'\r' { nl - 1 } else { nl };
    (end, nl)
}

/// Parses the lines of `bytes[from..to]` (`from` is the start of a line
/// that is a record of its own) onto the end of `c`, which holds the lines
/// before `from`: line numbers, field indexes and scratch spans continue
/// from there.
fn parse_into(bytes: &[u8], from: usize, to: usize, opts: &ParseOptions, c: &mut Chunk) {
    let Chunk { records, fields, scratch, counts, problems, truncated_lines, repairs, seen_ids, resume } = c;
    if opts.keep_first_fields && seen_ids.is_empty() {
        seen_ids.resize(SEEN_IDS, 0);
    }
    let mut sink = Sink {
        records,
        counts,
        problems,
        truncated_lines,
        repairs,
        keep_fields: opts.keep_fields,
        seen_ids: if opts.keep_first_fields { Some(seen_ids) } else { None },
        again_after: None,
    };
    // One UTF-8 check for the whole piece; per line only when it fails.
    let all_utf8 = is_ascii(&bytes[from..to]) || std::str::from_utf8(&bytes[from..to]).is_ok();
    let Resume { last_format, name_prefix } = std::mem::take(resume);
    let mut cx = Ctx { opts: LineOptions { default_offset_secs: opts.default_offset_secs }, fields, scratch, last_format, name_prefix };
    let mut tail = Tail::Closed;
    // How far the record before was indented as a whole (see
    // `LineOut::indent`): the lines that may join it are read past as much.
    let mut indent = 0usize;
    let mut pos = from;
    let mut line_no = sink.counts.lines as u32;
    // The record just pushed, when its line may be a hard-wrapped one, and
    // the rows after it that may continue it (`repair`).
    let mut head: Option<Head> = None;
    let mut wrap: Option<repair::Group> = None;
    // The last log record (not a terminal's line), and the line where its
    // JSON object is cut, if it is.
    let mut last: Option<(usize, Option<u32>)> = None;
    while pos < to {
        let (mut end, nl) = line_at(bytes, pos, to);
        let lines_before = sink.counts.lines;
        line_no = line_no.saturating_add(1);
        sink.counts.lines += 1;
        let full = &bytes[pos..end];
        let start = pos;
        pos = nl + 1;
        let bad_utf8 = !all_utf8 && std::str::from_utf8(full).is_err();
        if bad_utf8 {
            sink.counts.invalid_utf8_lines += 1;
        }
        // A row of a terminal UI's frame (k9s, tmux): its content is parsed.
        let (mut s, mut at, mut fills_frame, mut framed) = (full, start, false, false);
        if full.first() == Some(&0xE2) || full.last() == Some(&0x82) {
            if let Some((a, b, fills)) = repair::unframe(full) {
                sink.repairs.framed.add(line_no, 1);
                (s, at, fills_frame, framed) = (&full[a..b], start + a, fills, true);
            }
        }
        if s.iter().all(|&b| b == b' ' || b == b'\t') {
            sink.counts.blank_lines += 1;
            head = None;
            if let Some(g) = wrap.take() {
                tail = close_wrap(g, bytes, &mut sink, &mut cx, &mut last).unwrap_or(tail);
            }
            continue;
        }
        let overlong = s.len() > opts.max_line_bytes;
        if overlong {
            sink.counts.overlong_lines += 1;
            s = &s[..opts.max_line_bytes];
        }
        // Fast path: a stack frame right after an ERROR line, with no
        // wrapper or name column that would have to be peeled first (read
        // past the ERROR line's own indent, as `continues` reads it), and
        // no date after more indent (a wrapper's line indented as a whole:
        // see `line::indented`).
        let t = past_indent(s, indent);
        if tail == Tail::Stack && cx.name_prefix.is_empty() && frame_like(t) {
            if let Some(prev) = sink.records.last_mut() {
                prev.line_count = line_no - prev.line + 1;
                prev.byte_len = (end - prev.offset as usize) as u32;
                sink.counts.continuation_lines += 1;
                head = None;
                continue;
            }
        }
        let mark = cx.fields.len();
        let scratch_mark = cx.scratch.len();
        // (What a line parsed as itself, with nothing peeled or joined
        // first, needs to parse again: `Record::fields_again_after`.)
        let (format_before, no_name_column) = (cx.last_format, cx.name_prefix.is_empty());
        let mut as_itself = false;
        // While a hard-wrapped group is open, a line that ends it is read
        // again after it: what parsing it taught the context is undone.
        let saved_context = wrap.as_ref().map(|_| (cx.last_format, cx.name_prefix.clone()));
        let mut out = LineOut::default();
        let first_line = line_no;
        // A JSON object printed over many lines (`kubectl logs | jq`): one
        // record, parsed from its lines joined in scratch.
        let pretty = if wrap.is_none() && s.trim_ascii() == b"{" { pretty_json(bytes, pos, to, opts.max_line_bytes) } else { None };
        let ok = if let Some(p) = pretty {
            let sat = cx.scratch.len();
            for (k, l) in bytes[start..p.end].split(|&b| b == b'\n').enumerate() {
                if k > 0 {
                    cx.scratch.push(b' ');
                }
                cx.scratch.extend_from_slice(l.trim_ascii());
            }
            let joined = cx.scratch[sat..].to_vec();
            let parsed = line::parse_line(&joined, Origin { start: sat, scratch: true }, &mut cx, &mut out) && out.format == Some(Format::ZapJson);
            if parsed {
                sink.counts.lines += u64::from(p.lines - 1);
                sink.counts.continuation_lines += u64::from(p.lines - 1);
                sink.repairs.pretty_json.add(line_no, 1);
                line_no += p.lines - 1;
                (pos, end) = (p.next, p.end);
                out.inner = (end, end);
                true
            } else {
                cx.fields.truncate(mark);
                cx.scratch.truncate(sat);
                out = LineOut::default();
                line::parse_line(s, Origin { start: at, scratch: false }, &mut cx, &mut out)
            }
        } else {
            match line::cri_header_indented(s).filter(|h| h.partial) {
                // CRI cuts long lines into `P` pieces ended by an `F` piece: the
                // pieces are one line, parsed from scratch (indented as a
                // whole too, as a paste in a Markdown list is).
                Some(h) => {
                    let mut joined = s[h.payload..].to_vec();
                    while pos < to {
                        let (e2, nl2) = line_at(bytes, pos, to);
                        let Some(next) = line::cri_header_indented(&bytes[pos..e2]) else { break };
                        joined.extend_from_slice(&bytes[pos + next.payload..e2]);
                        (pos, end) = (nl2 + 1, e2);
                        line_no += 1;
                        sink.counts.lines += 1;
                        if !next.partial {
                            break;
                        }
                    }
                    joined.truncate(opts.max_line_bytes);
                    let sat = cx.scratch.len();
                    cx.scratch.extend_from_slice(&joined);
                    if !line::parse_line(&joined, Origin { start: sat, scratch: true }, &mut cx, &mut out) {
                        out.format = Some(Format::Text);
                        out.message = Span::scratch(sat, sat + joined.len());
                    }
                    out.wrapper = Wrapper::Cri;
                    out.collected = h.ts;
                    // (The kubelet writes its time with its zone.)
                    out.collected_zoneless = false;
                    out.impossible_time |= h.ts.is_none();
                    out.inner = (end, end);
                    true
                }
                None => {
                    as_itself = !framed && !overlong && no_name_column;
                    line::parse_line(s, Origin { start: at, scratch: false }, &mut cx, &mut out)
                }
            }
        };
        let fmt = if ok { out.format.unwrap_or(Format::Unparsed) } else { Format::Unparsed };
        let bare = fmt == Format::Unparsed && out.wrapper == Wrapper::None;
        // A line that parses as nothing, after a record whose line may be
        // hard-wrapped, may be the next row of it.
        let chrome = if bare { repair::chrome(s) } else { None };
        let row = bare && chrome.is_none() && !out.truncated;
        if let Some(g) = &wrap {
            if !(row && g.takes(s)) {
                // Not a row of it: the group is settled, and this line is
                // read again after it (the record before it may change).
                cx.fields.truncate(mark);
                cx.scratch.truncate(scratch_mark);
                if let Some((f, p)) = saved_context {
                    (cx.last_format, cx.name_prefix) = (f, p);
                }
                (pos, line_no, sink.counts.lines) = (start, first_line - 1, lines_before);
                sink.counts.invalid_utf8_lines -= u64::from(bad_utf8);
                sink.counts.overlong_lines -= u64::from(overlong);
                if let Some(g) = wrap.take() {
                    tail = close_wrap(g, bytes, &mut sink, &mut cx, &mut last).unwrap_or(tail);
                }
                head = None;
                // (Counted again when it is read again.)
                sink.repairs.framed.n -= u64::from(framed);
                continue;
            }
        } else {
            // Continuation: a line with no format of its own (or only a
            // wrapper's time) after a record that takes it; inside a dump,
            // also the next goroutine's header.
            let joinable = matches!(fmt, Format::Unparsed | Format::Text) || (tail == Tail::Dump && fmt == Format::GoTraceback);
            if joinable && tail != Tail::Closed && continues(tail, bytes, &out, start, end, s, indent) {
                if let Some(prev) = sink.records.last_mut() {
                    cx.fields.truncate(mark);
                    prev.line_count = line_no - prev.line + 1;
                    prev.byte_len = (end - prev.offset as usize) as u32;
                    sink.counts.continuation_lines += 1;
                    head = None;
                    continue;
                }
            }
            if row {
                if let Some(h) = head.filter(|h| h.record + 1 == sink.records.len()) {
                    wrap = repair::Group::open(bytes, h.record, h.at, h.len, h.cut, h.fills_frame).filter(|g| g.takes(s));
                }
            }
        }
        head = None;
        let in_wrap = wrap.is_some();
        let cut = out.truncated;
        sink.again_after = as_itself.then_some(format_before);
        tail = sink.push(&mut cx, bytes, &mut out, fmt, mark, Span::raw(at, at + s.len()), first_line, line_no, start, end);
        indent = out.indent;
        if let Some(kind) = chrome {
            sink.repairs.chrome(kind, line_no, s);
        } else {
            last = Some((sink.records.len() - 1, cut.then_some(line_no)));
        }
        if in_wrap {
            let g = wrap.as_mut().expect("a group is open");
            if !g.push(bytes, at, s.len(), line_no, end) {
                // A row narrower than the terminal: the wrapped line ends.
                if let Some(g) = wrap.take() {
                    tail = close_wrap(g, bytes, &mut sink, &mut cx, &mut last).unwrap_or(tail);
                }
            }
        } else if !matches!(fmt, Format::Unparsed | Format::Text | Format::GoTraceback)
            && !matches!(out.wrapper, Wrapper::Cri | Wrapper::DockerJson)
            && !out.impossible_time
            && s.len() >= repair::MIN_COLUMNS
        {
            head = Some(Head { record: sink.records.len() - 1, at, len: s.len(), cut, fills_frame });
        }
    }
    if let Some(g) = wrap.take() {
        close_wrap(g, bytes, &mut sink, &mut cx, &mut last);
    }
    *resume = Resume { last_format: cx.last_format, name_prefix: std::mem::take(&mut cx.name_prefix) };
    // The file's last line is in this piece: is it cut mid-record?
    if to == bytes.len() {
        if let Some((i, json_cut)) = last {
            let r = &sink.records[i];
            let last_line = r.line + r.line_count - 1;
            let raw = &bytes[r.offset as usize..r.offset as usize + r.byte_len as usize];
            sink.repairs.cut_last = repair::cut_last(raw, r.format, json_cut == Some(last_line)).map(|k| (last_line, k));
        }
    }
}

/// Whether a line with no format of its own (its inner line after
/// wrappers in `out`) joins the record before it, which takes `tail` and
/// was indented by `indent` bytes as a whole: the line is read past as
/// much of its own indent (ginkgo indents a stack as it indents the line
/// it belongs to).
#[inline]
fn continues(tail: Tail, bytes: &[u8], out: &LineOut, start: usize, end: usize, s: &[u8], indent: usize) -> bool {
    let inner = &bytes[out.inner.0.min(end)..out.inner.1.min(end)];
    let inner = if out.inner.0 >= start && out.inner.1 <= end && out.wrapper != Wrapper::DockerJson { inner } else { s };
    let inner = past_indent(inner, indent);
    match tail {
        // A dump's blank line under a collector's header (CRI).
        Tail::Dump if out.wrapper != Wrapper::None && inner.iter().all(u8::is_ascii_whitespace) => true,
        Tail::Dump => line::is_dump_line(inner),
        Tail::Indented => inner.first().is_some_and(|&b| b == b' ' || b == b'\t') || line::is_stack_line(inner),
        _ => line::is_stack_line(inner),
    }
}

/// `s` is read as a stack frame after an ERROR line (the line loop's fast
/// path), so no place to cut for threads: a frame, and neither a line that
/// starts with a time or a JSON object nor one indented as a whole that
/// starts with a date (`line::indented` reads that as a log line).
#[inline]
fn frame_like(s: &[u8]) -> bool {
    s.first().is_some_and(|&b| !b.is_ascii_digit() && b != b'{') && line::is_stack_line(s) && !dated(s.trim_ascii_start())
}

/// `s` starts with a date, `2024-06-17`.
#[inline]
fn dated(s: &[u8]) -> bool {
    s.len() >= 10 && s[..4].iter().all(u8::is_ascii_digit) && s[4] == b'-' && s[7] == b'-'
}

/// `s` past as much of an `indent` of white space as it starts with (a
/// line of a record indented by `indent` bytes as a whole; see
/// [`line::indented`]).
#[inline]
fn past_indent(s: &[u8], indent: usize) -> &[u8] {
    &s[s.iter().take(indent).take_while(|&&b| b == b' ' || b == b'\t').count()..]
}

/// A record whose line may have been hard-wrapped by a terminal.
#[derive(Clone, Copy)]
struct Head {
    record: usize,
    /// Its line's content (a frame taken off), in the file's bytes.
    at: usize,
    len: usize,
    /// Its JSON object is cut.
    cut: bool,
    /// Its content reaches its frame's right border.
    fills_frame: bool,
}

/// Where the line loop puts what it parsed.
struct Sink<'a> {
    records: &'a mut Vec<Record>,
    counts: &'a mut ParseCounts,
    problems: &'a mut Vec<(u32, &'static str)>,
    truncated_lines: &'a mut u64,
    repairs: &'a mut repair::Repairs,
    /// [`ParseOptions::keep_fields`].
    keep_fields: bool,
    /// [`Chunk::seen_ids`], when [`ParseOptions::keep_first_fields`].
    seen_ids: Option<&'a mut Vec<u64>>,
    /// The next record's line parsed as itself after this format: its
    /// fields may be left to be parsed again (`Record::fields_again_after`).
    /// Taken by `push`.
    again_after: Option<Format>,
}

impl Sink<'_> {
    /// Makes a record of the lines `first_line..=line_no` (the bytes
    /// `start..end`), which parsed into `out` as `fmt` with their fields
    /// from `mark` on; `unparsed` is the text of an unparsed one. Returns
    /// what may join it.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn push(
        &mut self,
        cx: &mut Ctx<'_>,
        bytes: &[u8],
        out: &mut LineOut,
        fmt: Format,
        mark: usize,
        unparsed: Span,
        first_line: u32,
        line_no: u32,
        start: usize,
        end: usize,
    ) -> Tail {
        let counts = &mut *self.counts;
        if out.truncated {
            *self.truncated_lines += 1;
            // The first 20 are listed (the note on impossible times aside,
            // so a file cut in pieces lists the same ones).
            if self.problems.iter().filter(|p| p.1 == PROBLEMS[0]).count() < 20 {
                self.problems.push((line_no, PROBLEMS[0]));
            }
        }
        // A wrapper's collection time gives a yearless inner time its year.
        if out.yearless {
            if let (Some(t), Some(c)) = (out.time, out.collected) {
                out.time = nearest_year(t, c.nanos, cx.opts.default_offset_secs);
                out.impossible_time |= out.time.is_none();
                out.yearless = false;
            }
        }
        if out.impossible_time && fmt != Format::Unparsed {
            if counts.impossible_times == 0 {
                self.problems.push((first_line, IMPOSSIBLE_TIME));
            }
            counts.impossible_times += 1;
        }
        // A stack with no record before it (a dump cut at its start) is a
        // dump fragment of its own.
        let mut fmt = fmt;
        if fmt == Format::Unparsed {
            let inner = &bytes[out.inner.0.min(end)..out.inner.1.min(end)];
            if out.wrapper != Wrapper::DockerJson && line::is_stack_line(inner) {
                fmt = Format::GoTraceback;
                out.level = crate::model::Level::Unknown;
                out.message = Span::raw(out.inner.0, out.inner.1.min(end));
            }
        }
        let message = if fmt == Format::Unparsed { unparsed } else { out.message };
        let tail = match fmt {
            Format::GoTraceback => Tail::Dump,
            Format::Chainsaw => Tail::Indented,
            _ if out.level >= crate::model::Level::Warn => Tail::Stack,
            _ => Tail::Closed,
        };
        counts.formats[fmt as usize] += 1;
        if out.wrapper != Wrapper::None {
            *counts.wrappers.entry(out.wrapper.as_str()).or_insert(0) += 1;
        }
        let nfields = (cx.fields.len() - mark).min(u16::MAX as usize);
        let reconcile_id = cx.fields[mark..mark + nfields]
            .iter()
            .find(|f| {
                // (A docker json-file payload's or a re-joined line's keys
                // are in the scratch buffer.)
                let buf: &[u8] = if f.key.in_scratch() { cx.scratch } else { bytes };
                buf.get(f.key.start as usize..f.key.start as usize + f.key.len()) == Some(b"reconcileID")
            })
            .map_or(Span::EMPTY, |f| f.value);
        // Fields its line gives back are not kept: all of them in the
        // file's bytes, as many as a record holds.
        let again_after = self.again_after.take().filter(|_| {
            !self.keep_fields
                && nfields > 0
                && cx.fields.len() - mark == nfields
                && cx.fields[mark..].iter().all(|f| !f.key.in_scratch() && !f.value.in_scratch())
        });
        // Unless the analysis will read them (its spans are in the file's
        // bytes, as its fields are).
        let again_after = again_after.filter(|_| match self.seen_ids.as_deref_mut() {
            None => true,
            Some(_) if out.level >= crate::model::Level::Warn => false,
            Some(_) if reconcile_id.is_empty() => true,
            Some(seen) => seen_lately(seen, &bytes[reconcile_id.start as usize..reconcile_id.start as usize + reconcile_id.len()]),
        });
        let nfields = if again_after.is_some() {
            cx.fields.truncate(mark);
            0
        } else {
            nfields
        };
        self.records.push(Record {
            time: if fmt == Format::Unparsed { None } else { out.time },
            collected: out.collected,
            // (Zoneless: the time it is placed by, its own or else its
            // wrapper's.)
            flags: RecordFlags::new(
                out.yearless,
                if out.time.is_some() && fmt != Format::Unparsed { out.zoneless } else { out.collected.is_some() && out.collected_zoneless },
            ),
            level: out.level,
            format: fmt,
            wrapper: out.wrapper,
            logger: out.logger,
            message,
            message_kind: out.message_kind.unwrap_or(ValueKind::Text),
            reconcile_id,
            fields_start: mark as u32,
            fields_len: nfields as u16,
            fields_again_after: again_after,
            line: first_line,
            line_count: line_no - first_line + 1,
            offset: start as u64,
            byte_len: (end - start) as u32,
        });
        tail
    }
}

/// Slots of [`Chunk::seen_ids`] (a power of two).
const SEEN_IDS: usize = 4096;

/// Whether a reconcile id was seen lately (its hash is in its slot of
/// `seen`); it is there afterwards. Another id with the same slot only
/// makes one seen again look new: its fields are kept.
fn seen_lately(seen: &mut [u64], id: &[u8]) -> bool {
    let mut h = 0xcbf2_9ce4_8422_2325u64 ^ id.len() as u64;
    let words = id.chunks_exact(8);
    let rest = words.remainder();
    for w in words {
        h = (h ^ u64::from_le_bytes(w.try_into().unwrap_or_default())).wrapping_mul(0x100_0000_01b3).rotate_left(23);
    }
    for &b in rest {
        h = (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
    }
    let h = h | 1;
    let slot = &mut seen[(h.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - SEEN_IDS.trailing_zeros())) as usize];
    std::mem::replace(slot, h) == h
}

/// Settles a group of rows after a record: when they are a hard wrap of
/// its line ([`repair::Group::is_wrap`]), the record and its rows become
/// one record, parsed again from their joined text. Returns what may join
/// the new record (`None`: nothing changed).
#[cold]
#[inline(never)]
fn close_wrap(g: repair::Group, bytes: &[u8], sink: &mut Sink<'_>, cx: &mut Ctx<'_>, last: &mut Option<(usize, Option<u32>)>) -> Option<Tail> {
    if !g.is_wrap(bytes) {
        return None;
    }
    let head = sink.records.get(g.head)?.clone();
    // The joined text, parsed after every field there is; nothing changes
    // when it parses as nothing.
    let at = cx.scratch.len();
    g.joined(bytes, cx.scratch);
    let mark = cx.fields.len();
    let mut out = LineOut::default();
    let len = cx.scratch.len() - at;
    let joined = cx.scratch[at..].to_vec();
    let ok = line::parse_line(&joined, Origin { start: at, scratch: true }, cx, &mut out);
    let fmt = if ok { out.format.unwrap_or(Format::Unparsed) } else { Format::Unparsed };
    if fmt != head.format {
        cx.fields.truncate(mark);
        cx.scratch.truncate(at);
        return None;
    }
    out.inner = (g.end, g.end);
    // Undo the record and its rows (unparsed records, or stack-like ones
    // taken for a dump's fragment, of no fields).
    let rows = (sink.records.len() - g.head - 1) as u64;
    let counts = &mut *sink.counts;
    for r in &sink.records[g.head..] {
        counts.formats[r.format as usize] -= 1;
    }
    if head.wrapper != Wrapper::None {
        if let Some(n) = counts.wrappers.get_mut(head.wrapper.as_str()) {
            *n -= 1;
            if *n == 0 {
                counts.wrappers.remove(head.wrapper.as_str());
            }
        }
    }
    if g.head_cut {
        *sink.truncated_lines -= 1;
    }
    sink.problems.retain(|p| p.0 < head.line || p.1 != PROBLEMS[0]);
    sink.records.truncate(g.head);
    cx.fields.drain(head.fields_start as usize..mark);
    let mark = head.fields_start as usize;
    counts.continuation_lines += rows;
    sink.repairs.wrapped(head.line + 1, rows, g.width);
    let cut = out.truncated;
    let tail = sink.push(cx, bytes, &mut out, fmt, mark, Span::scratch(at, at + len), head.line, g.last_line, head.offset as usize, g.end);
    // (Its fields' keys are in the scratch buffer: its reconcileID too.)
    if let Some(r) = sink.records.last_mut() {
        let key =
            |f: &&crate::model::Field| f.key.in_scratch() && cx.scratch.get(f.key.start as usize..f.key.start as usize + f.key.len()) == Some(b"reconcileID");
        if let Some(f) = cx.fields[r.fields_range()].iter().find(key) {
            r.reconcile_id = f.value;
        }
    }
    *last = Some((sink.records.len() - 1, cut.then_some(g.last_line)));
    Some(tail)
}

/// A JSON object printed over lines, from the `{` line just read (its
/// next line at `pos`): where its last line ends, where the line after it
/// starts, and its lines. `None` when it does not close within 1,000 lines
/// (or `max_bytes`) before `to`.
struct Pretty {
    end: usize,
    next: usize,
    lines: u32,
}

fn pretty_json(bytes: &[u8], mut pos: usize, to: usize, max_bytes: usize) -> Option<Pretty> {
    let start = pos;
    let mut depth = 1i64;
    for lines in 2..=1000u32 {
        if pos >= to || pos - start > max_bytes {
            return None;
        }
        let (end, nl) = line_at(bytes, pos, to);
        let line = JsonLine::scan(&bytes[pos..end]);
        // A string never spans lines in printed JSON, and nothing closes
        // more than is open.
        if line.in_string || depth + line.lowest < 0 {
            return None;
        }
        depth += line.delta;
        if depth == 0 {
            return (bytes[pos..end].trim_ascii() == b"}").then_some(Pretty { end, next: nl + 1, lines });
        }
        pos = nl + 1;
    }
    None
}

/// One line of JSON printed over many lines, as [`pretty_json`] and
/// [`maybe_inside_pretty_json`] read it: brackets outside strings.
struct JsonLine {
    /// Brackets opened less brackets closed.
    delta: i64,
    /// The lowest that running count went (0 or below).
    lowest: i64,
    /// The line ends inside a string.
    in_string: bool,
}

impl JsonLine {
    fn scan(line: &[u8]) -> JsonLine {
        let (mut delta, mut lowest, mut in_str, mut esc) = (0i64, 0i64, false, false);
        for &b in line {
            match (in_str, esc, b) {
                (true, true, _) => esc = false,
                (true, false, b'\\') => esc = true,
                (true, false, b'"') => in_str = false,
                (false, _, b'"') => in_str = true,
                (false, _, b'{' | b'[') => delta += 1,
                (false, _, b'}' | b']') => {
                    delta -= 1;
                    lowest = lowest.min(delta);
                }
                _ => {}
            }
        }
        JsonLine { delta, lowest, in_string: in_str }
    }
}

/// Whether the line at `pos` may be inside a JSON object printed over many
/// lines ([`pretty_json`]: at most 1,000 lines and `max_bytes` from its
/// `{` line): a line `}` that closes more than the lines from `pos` open
/// follows within that reach. `None`: the bytes end before that reach
/// (more bytes may say).
fn maybe_inside_pretty_json(bytes: &[u8], mut pos: usize, max_bytes: usize) -> Option<bool> {
    let start = pos;
    let mut depth = 0i64;
    for _ in 0..1000 {
        if pos - start > max_bytes {
            return Some(false);
        }
        if pos >= bytes.len() {
            return None;
        }
        let nl = memchr::memchr(b'\n', &bytes[pos..]).map_or(bytes.len(), |k| pos + k);
        depth += JsonLine::scan(&bytes[pos..nl]).delta;
        // (Such an object ends on a line of its own: `}`.)
        if depth < 0 && bytes[pos..nl].trim_ascii() == b"}" {
            return Some(true);
        }
        pos = nl + 1;
    }
    Some(false)
}

/// The note on a file's impossible timestamps.
fn impossible_note(n: u64) -> String {
    let what = "not a calendar date and time (Feb 30, hour 24, ...) or outside the years 1678-2262";
    if n == 1 {
        format!("{IMPOSSIBLE_TIME}: {what}; the line is kept without a time")
    } else {
        format!("{IMPOSSIBLE_TIME}: {what}; {n} lines in all (this is the first) are kept without a time")
    }
}

/// Whether `s` is all ASCII, hence valid UTF-8 (most logs are). An OR of
/// 16-byte words that compilers turn into wide vector code: several times
/// faster than UTF-8 validation, in wasm too.
fn is_ascii(s: &[u8]) -> bool {
    let words = s.chunks_exact(16);
    let tail = words.remainder();
    let ored = words.fold(0u128, |acc, w| acc | u128::from_le_bytes(w.try_into().unwrap_or_default()));
    ored & u128::from_le_bytes([0x80; 16]) == 0 && tail.is_ascii()
}

/// Collection and line clocks further apart than this are skewed.
const SKEW_NANOS: i64 = 2 * time::NANOS_PER_SEC;

/// Whether a wrapper's time is a collector's UTC clock that a line's own
/// clock can be moved onto: not a journald/syslog prefix or a viewer's
/// stamp, which are local times with no zone.
fn collector_clock(w: Wrapper) -> bool {
    matches!(w, Wrapper::KubectlTimestamps | Wrapper::Cri | Wrapper::DockerJson | Wrapper::GithubActions)
}

/// Moves the times of a file whose lines' clock disagrees with its
/// collector's (the kubelet's `--timestamps`, CRI, docker json-file) onto
/// the collector's clock, so files from different hosts line up. The skew
/// is the median of (line time - collection time); a diagnostic says so.
///
/// Then each file whose times are still read at an assumed zone gets a
/// note ([`zone_note`]).
pub fn align_clocks(files: &mut [ParsedFile]) {
    for f in files.iter_mut() {
        zone_local_lines(f);
        zone_local_stamps(f);
    }
    for f in files.iter_mut() {
        collector_clocks(f);
        zone_note(f);
    }
}

/// [`align_clocks`] for one file: its lines' clock against its
/// collector's.
fn collector_clocks(f: &mut ParsedFile) {
    let mut d = skews(f, collector_clock);
    if d.len() < 2 {
        return;
    }
    let Some(skew) = median(&mut d) else { return };
    if skew.unsigned_abs() <= SKEW_NANOS.unsigned_abs() {
        // The lines' clock agrees with the collector's, which writes its
        // zone: a line the collector stamped is on UTC's clock.
        for r in f.records.iter_mut().filter(|r| collector_clock(r.wrapper) && r.collected.is_some()) {
            r.set_zoneless(false);
        }
        return;
    }
    // A time the move would take past what a time holds (a skew of
    // centuries, a line of its own far the other way) is no time.
    let mut lost = 0u64;
    for r in f.records.iter_mut() {
        move_back(&mut r.time, skew, &mut lost);
        // (Now on the collector's clock, which writes its zone.)
        if r.time.is_some() {
            r.set_zoneless(false);
        }
    }
    let dir = if skew > 0 { "ahead of" } else { "behind" };
    let message = format!(
        "the clock of its lines runs {} {dir} the collector's timestamps; its times were moved onto the collector's clock{}",
        time::human_duration(skew.saturating_abs()),
        lost_note(lost)
    );
    f.diagnostics.push(Diagnostic { path: f.path.clone(), line: None, message });
}

/// A note for a file with times written with no zone that no clock with
/// one confirmed or moved ([`Record::zoneless`]): how many lines, the
/// first, and the offset they were read at.
fn zone_note(f: &mut ParsedFile) {
    let mut zoneless = f.records.iter().filter(|r| r.zoneless() && (r.time.is_some() || r.collected.is_some()));
    let Some(first) = zoneless.next() else { return };
    let (line, n) = (first.line, 1 + zoneless.count() as u64);
    f.zoneless_times = n;
    let lines = crate::words::plural(n, "line writes its time", "lines write their times");
    let they = if n == 1 { "it is" } else { "they are" };
    let read = if f.zone_offset_secs == 0 {
        format!("{they} read as UTC (if the logs were written in another zone, the CLI's --utc-offset reads them in it)")
    } else {
        format!("{they} read at {}, as --utc-offset says", time::zone_name(f.zone_offset_secs))
    };
    let first = if n == 1 { "this one" } else { "this is the first" };
    f.diagnostics.push(Diagnostic { path: f.path.clone(), line: Some(line), message: format!("{lines} with no zone ({first}): {read}") });
}

/// Moves a line's time `by` nanoseconds back; one the move would take past
/// what a time holds becomes no time, counted in `lost`.
fn move_back(time: &mut Option<Timestamp>, by: i64, lost: &mut u64) {
    if let Some(t) = *time {
        *time = t.nanos.checked_sub(by).map(|nanos| Timestamp { nanos, ..t });
        *lost += u64::from(time.is_none());
    }
}

/// What a clock note adds for the lines [`move_back`] left without a time.
fn lost_note(lost: u64) -> String {
    if lost == 0 {
        return String::new();
    }
    format!(" ({} whose time moved would leave the years 1678-2262 kept without a time)", crate::words::plural(lost, "line", "lines"))
}

/// (line time - wrapper time) of each record of `f` with both, a year of
/// its own and a wrapper that `keep`s.
fn skews(f: &ParsedFile, keep: impl Fn(Wrapper) -> bool) -> Vec<i64> {
    f.records.iter().filter(|r| !r.yearless() && keep(r.wrapper)).filter_map(|r| r.time?.nanos.checked_sub(r.collected?.nanos)).collect()
}

/// The median of `v` (the upper one of an even count); `None` when empty.
fn median(v: &mut [i64]) -> Option<i64> {
    if v.is_empty() {
        return None;
    }
    let mid = v.len() / 2;
    Some(*v.select_nth_unstable(mid).1)
}

/// The zone that local times with no zone read apart from UTC ones, from
/// `d` (local - UTC, each pair's): their median rounded to whole quarter
/// hours, if it is within a minute of that (the two lines' lag), at most
/// 26 hours, and most pairs agree on it. 0: they agree with UTC's clock.
fn zone_of(d: &mut [i64]) -> Option<i64> {
    const QUARTER_HOUR: i64 = 15 * 60 * time::NANOS_PER_SEC;
    const LAG: u64 = 60 * time::NANOS_PER_SEC as u64;
    let skew = median(d)?;
    let zone = (skew as f64 / QUARTER_HOUR as f64).round() as i64 * QUARTER_HOUR;
    if skew.abs_diff(zone) > LAG || zone.unsigned_abs() > 26 * 3600 * time::NANOS_PER_SEC as u64 {
        return None;
    }
    (d.iter().filter(|&&x| x.abs_diff(zone) <= LAG).count() * 2 >= d.len()).then_some(zone)
}

/// Local stamps with no zone (a journald or syslog prefix, a log viewer's
/// time) beside lines that carry their own UTC time: the two read a whole
/// number of quarter hours apart (the stamps' zone), give or take the
/// stamps' lag. The stamps are moved onto the lines' clock, so a line that
/// has only the stamp (`systemd[1]: Started etcd`, a shell trace) lines up
/// with the others; a note says by how much.
fn zone_local_stamps(f: &mut ParsedFile) {
    let mut d = skews(f, |w| w != Wrapper::None && !collector_clock(w));
    let Some(zone) = zone_of(&mut d) else { return };
    // The stamps are now on the lines' clock: UTC's when those lines wrote
    // their zone.
    let lines_zoned = !f.records.iter().any(|r| r.wrapper != Wrapper::None && !collector_clock(r.wrapper) && r.time.is_some() && r.zoneless());
    for r in f.records.iter_mut().filter(|r| !collector_clock(r.wrapper)) {
        if let Some(c) = r.collected.as_mut() {
            c.nanos = c.nanos.saturating_add(zone);
        }
        // A journald line with nothing inside: its time is the stamp's.
        let plain = r.format == Format::Journald && r.wrapper == Wrapper::None;
        if plain {
            if let Some(t) = r.time.as_mut() {
                t.nanos = t.nanos.saturating_add(zone);
            }
        }
        if lines_zoned && (plain || r.time.is_none()) {
            r.set_zoneless(false);
        }
    }
    if zone == 0 {
        // They were on it already: nothing moved, nothing to say.
        return;
    }
    let dir = if zone > 0 { "behind" } else { "ahead of" };
    f.diagnostics.push(Diagnostic {
        path: f.path.clone(),
        line: None,
        message: format!(
            "its prefix times (journald, syslog or a log viewer's) carry no zone and read {} {dir} the lines' own times: they were moved onto the lines' clock",
            time::human_duration(zone.abs())
        ),
    });
}

/// Whether a line's own time is local with no zone: etcd's capnslog
/// (`2019-01-19 15:30:43.733378 I | ...`) and Go's `log` write the wall
/// clock as it reads, with no zone. (Unwrapped lines with a year only.)
fn zoneless_line(r: &Record) -> bool {
    r.wrapper == Wrapper::None && !r.yearless() && matches!(r.format, Format::EtcdCapnslog | Format::GoLog)
}

/// Whether a line's own time is on UTC's clock: zap writes an epoch
/// number or a time with its zone, in JSON and in its console encoder.
fn zoned_line(r: &Record) -> bool {
    r.wrapper == Wrapper::None && !r.yearless() && matches!(r.format, Format::ZapJson | Format::ZapConsole)
}

/// Lines with a local time and no zone interleaved with lines on UTC's
/// clock in one file (etcd 3.3 wrote its capnslog lines in local time and
/// its raft lines as zap JSON with an epoch `ts`): where one kind follows
/// the other, the two read a whole number of quarter hours apart (the
/// local zone), give or take the time between the two lines. When at
/// least two such places agree, the zoneless lines are moved onto the UTC
/// clock, and a note says by how much. (Were the kinds not interleaved,
/// one run of each, the hours between them could be a real gap: nothing
/// is moved.)
fn zone_local_lines(f: &mut ParsedFile) {
    // (zoneless time - zoned time) where one kind's line is next to the other's.
    let mut d = Vec::new();
    let mut timed = f.records.iter().filter_map(|r| Some((r.time?.nanos, zoneless_line(r), zoned_line(r))));
    let Some(mut prev) = timed.next() else { return };
    for next in timed {
        match (prev, next) {
            ((a, true, _), (b, _, true)) | ((b, _, true), (a, true, _)) => d.extend(a.checked_sub(b)),
            _ => {}
        }
        prev = next;
    }
    if d.len() < 2 {
        return;
    }
    let Some(zone) = zone_of(&mut d) else { return };
    let (mut formats, mut lost) = (Vec::new(), 0u64);
    for r in f.records.iter_mut().filter(|r| zoneless_line(r) && r.time.is_some()) {
        if !formats.contains(&r.format) {
            formats.push(r.format);
        }
        move_back(&mut r.time, zone, &mut lost);
        // (Now on the zap lines' clock, which writes its zone.)
        r.set_zoneless(false);
    }
    if zone == 0 {
        // They were on it already: nothing moved, nothing to say.
        return;
    }
    let kinds: Vec<&str> = formats.iter().map(|k| if *k == Format::EtcdCapnslog { "etcd capnslog" } else { "Go log" }).collect();
    let dir = if zone > 0 { "ahead of" } else { "behind" };
    let message = format!(
        "its {} lines carry no zone and read {} {dir} its zap lines' UTC times beside them: they were moved onto that clock{}",
        kinds.join(" and "),
        time::human_duration(zone.abs()),
        lost_note(lost)
    );
    f.diagnostics.push(Diagnostic { path: f.path.clone(), line: None, message });
}

/// Places a yearless time in the year that puts it nearest `reference_nanos`.
/// The year is chosen as if every year had the date (a Feb 29 counts as
/// the Mar 1 it would roll to): `None` when the year chosen does not have
/// it (Feb 29 placed in a year that is not a leap year).
fn nearest_year(t: Timestamp, reference_nanos: i64, offset_secs: i32) -> Option<Timestamp> {
    let (local, off) = to_local(t, offset_secs);
    let y = time::year_of(Timestamp::new(reference_nanos.saturating_add(off), 0));
    let year = [y - 1, y, y + 1].into_iter().min_by_key(|&y| time::with_year_rolling(local, y).saturating_sub(off).abs_diff(reference_nanos))?;
    from_local(time::with_year(local, year)?, off)
}

/// A yearless time as the log wrote it (its month and day at its offset),
/// and the offset in nanoseconds: a year is chosen for the log's date,
/// not for the UTC one (`Mar 1 00:30` at +01:00 is Feb 29 23:30 UTC).
fn to_local(t: Timestamp, offset_secs: i32) -> (Timestamp, i64) {
    let off = i64::from(offset_secs) * time::NANOS_PER_SEC;
    (t.at(t.nanos.saturating_add(off), t.digits), off)
}

fn from_local(t: Timestamp, off: i64) -> Option<Timestamp> {
    Some(t.at(t.nanos.checked_sub(off)?, t.digits))
}

/// The year that puts a yearless time at or before a file's modification
/// time `mtime_secs` (a log is written before its file is last changed),
/// allowing a day for zones; `None` when that year lacks the date.
fn year_before(t: Timestamp, mtime_secs: i64, offset_secs: i32) -> Option<Timestamp> {
    const SLACK_NANOS: i64 = 86_400 * time::NANOS_PER_SEC;
    let (local, off) = to_local(t, offset_secs);
    let limit = mtime_secs.checked_mul(time::NANOS_PER_SEC)?.checked_add(SLACK_NANOS)?;
    let y = time::year_of(Timestamp::new(limit.saturating_add(off), 0));
    let year = if time::with_year_rolling(local, y).saturating_sub(off) <= limit { y } else { y - 1 };
    from_local(time::with_year(local, year)?, off)
}

/// Gives times written without a year (klog, journald, syslog) a year,
/// from the first of these the input has, and says which in one note per
/// file ([`YearSource`]):
/// 1. dated timestamps near it in the same file (the nearest dated record
///    before or after it, the year that puts it nearest that), else those
///    of the other files (their median);
/// 2. the archive member's modification time;
/// 3. the input file's modification time (2 and 3: the year that puts it
///    at or before that time);
/// 4. other files whose yearless times got a year from 2 or 3.
///
/// With none of these the times keep no year: `Timestamp::yearless` is set
/// and every output shows them without one. Never a year made up.
pub fn resolve_years(files: &mut [ParsedFile]) {
    let yearless: Vec<bool> = files.iter().map(|f| f.records.iter().any(|r| r.yearless() && r.time.is_some())).collect();
    // The median of every dated time, for a file with yearless times and
    // no dated one of its own; only such a file needs it (a log of a
    // million lines, none of them yearless, spends no time on it).
    let has_dated = |f: &ParsedFile| f.records.iter().any(|r| dated_nanos(r).is_some());
    let global = if files.iter().zip(&yearless).any(|(f, &y)| y && !has_dated(f)) {
        median(&mut files.iter().flat_map(|f| f.records.iter().filter_map(dated_nanos)).collect::<Vec<_>>())
    } else {
        None
    };
    let mut unresolved = Vec::new();
    for (k, f) in files.iter_mut().enumerate() {
        if !yearless[k] {
            if f.records.iter().any(|r| r.yearless()) {
                // Only impossible times were yearless.
                for r in f.records.iter_mut() {
                    r.set_yearless(false);
                }
            }
            continue;
        }
        // Nearest dated record before and after each record (by position).
        let n = f.records.len();
        let mut before = vec![None::<(usize, i64)>; n];
        let mut last = None;
        for (i, r) in f.records.iter().enumerate() {
            if let Some(t) = dated_nanos(r) {
                last = Some((i, t));
            }
            before[i] = last;
        }
        let mut after = vec![None::<(usize, i64)>; n];
        let mut next = None;
        for (i, r) in f.records.iter().enumerate().rev() {
            if let Some(t) = dated_nanos(r) {
                next = Some((i, t));
            }
            after[i] = next;
        }
        let source = if last.is_some() || next.is_some() {
            YearSource::SameFile
        } else if global.is_some() {
            YearSource::OtherFiles
        } else if f.mtime_secs.is_some() && f.path.contains('!') {
            YearSource::ArchiveMember
        } else if f.file_mtime_secs.or(f.mtime_secs).is_some() {
            YearSource::FileMtime
        } else {
            unresolved.push(k);
            continue;
        };
        let mtime = if source == YearSource::ArchiveMember { f.mtime_secs } else { f.file_mtime_secs.or(f.mtime_secs) };
        let off = f.zone_offset_secs;
        let mut impossible = (0u64, 0u32);
        for i in 0..n {
            let r = &mut f.records[i];
            if !r.yearless() {
                continue;
            }
            r.set_yearless(false);
            let Some(t) = r.time else { continue };
            let new = match source {
                YearSource::SameFile => {
                    let b = before[i].map(|(j, t)| (i - j, t));
                    let a = after[i].map(|(j, t)| (j - i, t));
                    let reference = match (b, a) {
                        (Some(b), Some(a)) => {
                            if b.0 <= a.0 {
                                b.1
                            } else {
                                a.1
                            }
                        }
                        (Some(b), None) => b.1,
                        (None, Some(a)) => a.1,
                        (None, None) => continue,
                    };
                    nearest_year(t, reference, off)
                }
                YearSource::OtherFiles => global.and_then(|g| nearest_year(t, g, off)),
                _ => mtime.and_then(|m| year_before(t, m, off)),
            };
            if new.is_none() {
                if impossible.0 == 0 {
                    impossible.1 = r.line;
                }
                impossible.0 += 1;
            }
            r.time = new;
        }
        f.year_source = Some(source);
        if impossible.0 > 0 {
            f.counts.impossible_times += impossible.0;
            f.diagnostics.push(Diagnostic {
                path: f.path.clone(),
                line: Some(impossible.1),
                message: format!(
                    "{IMPOSSIBLE_TIME}: Feb 29 without a year, in a year that is not a leap year; {} such lines are kept without a time",
                    impossible.0
                ),
            });
        }
        f.diagnostics.push(Diagnostic { path: f.path.clone(), line: None, message: year_note(source, mtime) });
    }
    // Files with nothing of their own take the year of those that had an
    // archive's or a file's time.
    let resolved = median(
        &mut files
            .iter()
            .filter(|f| matches!(f.year_source, Some(YearSource::ArchiveMember | YearSource::FileMtime)))
            .flat_map(|f| f.records.iter().filter_map(|r| r.time.map(|t| t.nanos)))
            .collect::<Vec<_>>(),
    );
    for k in unresolved {
        let f = &mut files[k];
        let off = f.zone_offset_secs;
        let source = if resolved.is_some() { YearSource::OtherFiles } else { YearSource::Unknown };
        for r in f.records.iter_mut().filter(|r| r.yearless()) {
            match resolved {
                Some(g) => {
                    r.set_yearless(false);
                    r.time = r.time.and_then(|t| nearest_year(t, g, off));
                }
                None => {
                    if let Some(t) = r.time.as_mut() {
                        t.yearless = true;
                    }
                }
            }
        }
        f.year_source = Some(source);
        f.diagnostics.push(Diagnostic { path: f.path.clone(), line: None, message: year_note(source, None) });
    }
}

/// A record's time when it carries its year (its line's, else its
/// wrapper's), in nanoseconds: what [`resolve_years`] takes years from.
fn dated_nanos(r: &Record) -> Option<i64> {
    if r.yearless() {
        return None;
    }
    r.time.or(r.collected).map(|t| t.nanos)
}

/// The note that says where a file's yearless times took their year.
fn year_note(source: YearSource, mtime_secs: Option<i64>) -> String {
    let when = mtime_secs.map(|m| time::format_date(Timestamp::new(m.saturating_mul(time::NANOS_PER_SEC), 0))).unwrap_or_default();
    // A modification time gives each time the latest year that puts it no
    // later than that modification time: a log of Dec 31 in a file saved
    // on Jan 2 is of the year before.
    let how = match source {
        YearSource::SameFile => "the year was taken from the dated timestamps near them in the same file".to_string(),
        YearSource::OtherFiles => "the year was taken from the dated timestamps of the other files in the input".to_string(),
        YearSource::ArchiveMember => format!("each was given the latest year that puts it no later than the archive member's modification time ({when})"),
        YearSource::FileMtime => format!("each was given the latest year that puts it no later than the file's modification time ({when})"),
        YearSource::Unknown => {
            return "its times carry no year and nothing in the input gives one (no dated line, no modification time): they are shown without a year"
                .to_string()
        }
    };
    format!("its times carry no year; {how}")
}

#[cfg(test)]
mod tests;
