//! A file's tail parsed on its own, by a second worker, and sent back.
//!
//! The browser parses a big log on two workers at once: the main worker
//! takes the whole file and parses its head ([`super::StreamParser::split`]);
//! a helper takes the tail, from `from` on, and parses it with
//! [`PieceParser`] from the first line after `from` that is a record of its
//! own (the bytes before that cut belong to the head). The helper sends the
//! [`Piece`] in the compact form of [`Piece::encode`]; the main worker
//! decodes it straight onto the end of the head's records
//! ([`super::StreamParser::finish_with`]). The result is the same as one
//! parse of the whole file.
//!
//! The form: `MAGIC`, `from`, `len`, the cut (`u64::MAX`: none), counts,
//! problems, repairs, scratch, records and fields, all fixed-width little-endian.
//! Offsets into the file's bytes are relative to `from`.

use std::collections::BTreeMap;

use super::repair::{Cut as CutLast, Repairs, Tally};
use super::{find_record_start, parse_into, Begins, Chunk, ParseOptions, Search, MAX_FILE_BYTES, STREAM_PIECE_BYTES};
use crate::model::{Field, Format, Level, ParseCounts, Record, RecordFlags, Span, Timestamp, ValueKind, Wrapper};

const MAGIC: u32 = 0x5250_0002; // "RP", version 2
const NO_CUT: u64 = u64::MAX;

/// Why a piece could not be read back (cut short, or not this form).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad parsed piece: {0}")]
pub struct PieceError(&'static str);

/// The tail of a file from its first record boundary after `from`,
/// parsed. Made by [`PieceParser::finish`].
#[derive(Debug)]
pub struct Piece {
    /// Where in the file the parser's bytes began.
    pub(super) from: u64,
    /// How many bytes it was given.
    pub(super) len: u64,
    /// Where in the file its records begin (`None`: it found no place to
    /// cut, and parsed nothing).
    pub(super) cut: Option<u64>,
    pub(super) chunk: Chunk,
}

impl Piece {
    /// Where in the file its records begin, if it found a place to cut.
    pub fn cut(&self) -> Option<u64> {
        self.cut
    }

    /// How many records it holds.
    pub fn records(&self) -> usize {
        self.chunk.records.len()
    }

    /// Checks encoded bytes ([`Piece::encode`]) the way
    /// [`super::StreamParser::finish_with`] reads them.
    pub fn check(bytes: &[u8]) -> Result<(), PieceError> {
        EncodedPiece::read(bytes).map(|_| ())
    }
}

/// Parses the tail of a file as its bytes arrive, for [`Piece`].
pub struct PieceParser {
    from: u64,
    opts: ParseOptions,
    /// The bytes from `from` on (dropped once there is no place to cut).
    bytes: Vec<u8>,
    /// Bytes given so far.
    len: u64,
    cut: Cut,
    /// `bytes[cut..parsed_to]` are parsed, into `parsed`.
    parsed_to: usize,
    parsed: Chunk,
}

impl std::fmt::Debug for PieceParser {
    /// (Not its buffers: they are big.)
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PieceParser {{ from: {}, received: {}, cut: {:?} }}", self.from, self.len, self.cut)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cut {
    /// No whole line that is a record of its own has arrived yet.
    Looking,
    /// Records begin here (in `bytes`).
    At(usize),
    /// None in 10,000 lines: the head's parser parses it all.
    Nowhere,
}

impl PieceParser {
    /// The tail of a file from byte `from`, about `size_hint` bytes.
    pub fn new(from: u64, size_hint: usize, opts: &ParseOptions) -> PieceParser {
        let size_hint = size_hint.min(MAX_FILE_BYTES);
        PieceParser {
            from,
            opts: *opts,
            bytes: Vec::with_capacity(size_hint),
            len: 0,
            cut: Cut::Looking,
            parsed_to: 0,
            parsed: Chunk::for_parse(size_hint, opts),
        }
    }

    /// How many bytes it was given.
    pub fn received(&self) -> u64 {
        self.len
    }

    /// Takes the next bytes of the tail and parses what is complete.
    pub fn push(&mut self, data: &[u8]) {
        self.push_with(data.len(), |room| room.copy_from_slice(data));
    }

    /// As [`PieceParser::push`], for a caller that writes the next `len`
    /// bytes in place (the browser worker copies a slice from JavaScript
    /// straight there): `fill` gets where they go, and is not called when
    /// they are dropped (the tail has no place to cut, or is too long).
    pub fn push_with(&mut self, len: usize, fill: impl FnOnce(&mut [u8])) {
        self.len += len as u64;
        if self.cut == Cut::Nowhere {
            return;
        }
        if self.from + self.len > MAX_FILE_BYTES as u64 {
            // Past what a file may hold: the head's parser says so.
            self.give_up();
            return;
        }
        let at = self.bytes.len();
        self.bytes.resize(at + len, 0);
        fill(&mut self.bytes[at..]);
        if self.cut == Cut::Looking {
            match find_record_start(&self.bytes, Begins::Anywhere, 0, &self.opts) {
                Search::Found(c) => {
                    self.cut = Cut::At(c);
                    self.parsed_to = c;
                }
                Search::GaveUp => return self.give_up(),
                Search::NeedMore => return,
            }
        }
        if self.bytes.len() - self.parsed_to < 2 * STREAM_PIECE_BYTES {
            return;
        }
        let target = self.bytes.len() - STREAM_PIECE_BYTES;
        if let Search::Found(cut) = find_record_start(&self.bytes, Begins::Anywhere, target, &self.opts) {
            if cut > self.parsed_to {
                parse_into(&self.bytes, self.parsed_to, cut, &self.opts, &mut self.parsed);
                self.parsed_to = cut;
            }
        }
    }

    fn give_up(&mut self) {
        self.cut = Cut::Nowhere;
        self.bytes = Vec::new();
        self.parsed = Chunk::with_capacity(0);
    }

    /// Parses the rest.
    pub fn finish(mut self) -> Piece {
        let cut = match self.cut {
            Cut::At(c) => {
                parse_into(&self.bytes, self.parsed_to, self.bytes.len(), &self.opts, &mut self.parsed);
                Some(self.from + c as u64)
            }
            Cut::Looking | Cut::Nowhere => {
                self.parsed = Chunk::with_capacity(0);
                None
            }
        };
        Piece { from: self.from, len: self.len, cut, chunk: self.parsed }
    }
}

/// Bytes per record and per field in the encoded form.
const RECORD_BYTES: usize = 76;
const FIELD_BYTES: usize = 17;

impl Piece {
    /// The compact form, for the trip between workers.
    pub fn encode(&self) -> Vec<u8> {
        let c = &self.chunk;
        let mut out = Vec::with_capacity(256 + c.scratch.len() + c.records.len() * RECORD_BYTES + c.fields.len() * FIELD_BYTES);
        put_u32(&mut out, MAGIC);
        put_u64(&mut out, self.from);
        put_u64(&mut out, self.len);
        put_u64(&mut out, self.cut.unwrap_or(NO_CUT));
        let counts = &c.counts;
        for v in [counts.lines, counts.blank_lines, counts.continuation_lines, counts.invalid_utf8_lines, counts.overlong_lines, counts.impossible_times] {
            put_u64(&mut out, v);
        }
        put_u32(&mut out, counts.formats.len() as u32);
        for v in counts.formats {
            put_u64(&mut out, v);
        }
        put_u32(&mut out, counts.wrappers.len() as u32);
        for (name, v) in &counts.wrappers {
            let code = Wrapper::ALL.iter().position(|w| w.as_str() == *name).unwrap_or(0);
            out.push(code as u8);
            put_u64(&mut out, *v);
        }
        put_u64(&mut out, c.truncated_lines);
        put_u32(&mut out, c.problems.len() as u32);
        for (line, message) in &c.problems {
            put_u32(&mut out, *line);
            out.push(super::PROBLEMS.iter().position(|m| m == message).unwrap_or(0) as u8);
        }
        put_repairs(&mut out, &c.repairs);
        put_u32(&mut out, c.scratch.len() as u32);
        out.extend_from_slice(&c.scratch);
        put_u32(&mut out, c.records.len() as u32);
        for r in &c.records {
            out.extend_from_slice(&record_bytes(r));
        }
        put_u32(&mut out, c.fields.len() as u32);
        for f in &c.fields {
            let mut b = [0u8; FIELD_BYTES];
            put_span_at(&mut b, 0, f.key);
            put_span_at(&mut b, 8, f.value);
            b[16] = f.kind as u8;
            out.extend_from_slice(&b);
        }
        out
    }
}

/// One record, fixed-width: time and collection time (presence, nanos,
/// digits), flags/level/format/wrapper/message kind, the logger,
/// message and reconcile id spans, fields start and count, line, line
/// count, byte offset and length, the format its fields are parsed again
/// after (0: they are kept; k + 1: `Format::ALL[k]`).
fn record_bytes(r: &Record) -> [u8; RECORD_BYTES] {
    let mut b = [0u8; RECORD_BYTES];
    for (at, t) in [(0, r.time), (10, r.collected)] {
        if let Some(t) = t {
            b[at] = 1;
            b[at + 1..at + 9].copy_from_slice(&t.nanos.to_le_bytes());
            b[at + 9] = t.digits;
        }
    }
    b[20..25].copy_from_slice(&[r.flags.bits(), r.level as u8, r.format as u8, r.wrapper as u8, r.message_kind as u8]);
    put_span_at(&mut b, 25, r.logger);
    put_span_at(&mut b, 33, r.message);
    put_span_at(&mut b, 41, r.reconcile_id);
    b[49..53].copy_from_slice(&r.fields_start.to_le_bytes());
    b[53..55].copy_from_slice(&r.fields_len.to_le_bytes());
    b[55..59].copy_from_slice(&r.line.to_le_bytes());
    b[59..63].copy_from_slice(&r.line_count.to_le_bytes());
    b[63..71].copy_from_slice(&r.offset.to_le_bytes());
    b[71..75].copy_from_slice(&r.byte_len.to_le_bytes());
    b[75] = r.fields_again_after.map_or(0, |f| f as u8 + 1);
    b
}

/// The repairs: six tallies (count, first line), the wrap widths, the
/// first command (length, UTF-8), the cut last line (kind, 0: none; line).
fn put_repairs(out: &mut Vec<u8>, r: &Repairs) {
    for t in [r.wrapped, r.framed, r.borders, r.screen, r.commands, r.pretty_json] {
        put_u64(out, t.n);
        put_u32(out, t.first);
    }
    put_u32(out, r.widths.0);
    put_u32(out, r.widths.1);
    put_u32(out, r.command.len() as u32);
    out.extend_from_slice(r.command.as_bytes());
    let (kind, line) = r.cut_last.map_or((0, 0), |(l, k)| (1 + k as u8, l));
    out.push(kind);
    put_u32(out, line);
}

fn read_repairs(r: &mut Reader<'_>) -> Result<Repairs, PieceError> {
    let mut t = [Tally::default(); 6];
    for t in t.iter_mut() {
        t.n = r.u64()?;
        t.first = r.u32()?;
    }
    let widths = (r.u32()?, r.u32()?);
    let n = r.count(1)?;
    let command = String::from_utf8(r.take(n)?.to_vec()).map_err(|_| PieceError("a command that is not UTF-8"))?;
    let kind = r.u8()?;
    let line = r.u32()?;
    let cut_last = match kind {
        0 => None,
        1 => Some((line, CutLast::Json)),
        2 => Some((line, CutLast::Quote)),
        _ => return Err(PieceError("an unknown cut")),
    };
    let [wrapped, framed, borders, screen, commands, pretty_json] = t;
    Ok(Repairs { wrapped, widths, framed, borders, screen, commands, command, cut_last, pretty_json })
}

/// A span as its start and its raw length word (scratch bit included).
fn put_span_at(b: &mut [u8], at: usize, s: Span) {
    let (start, len) = s.to_raw_parts();
    b[at..at + 4].copy_from_slice(&start.to_le_bytes());
    b[at + 4..at + 8].copy_from_slice(&len.to_le_bytes());
}

fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn put_u64(out: &mut Vec<u8>, v: u64) {
    out.extend_from_slice(&v.to_le_bytes());
}

/// An encoded piece, read and checked but not yet decoded: its records
/// and fields are decoded straight onto the end of the file's records
/// ([`EncodedPiece::append_to`]), with no copy in between.
pub(super) struct EncodedPiece<'a> {
    pub(super) from: u64,
    pub(super) len: u64,
    pub(super) cut: Option<u64>,
    counts: ParseCounts,
    truncated_lines: u64,
    problems: Vec<(u32, &'static str)>,
    repairs: Repairs,
    scratch: &'a [u8],
    records: &'a [[u8; RECORD_BYTES]],
    fields: &'a [[u8; FIELD_BYTES]],
}

impl<'a> EncodedPiece<'a> {
    /// Reads what [`Piece::encode`] wrote and checks every value, so that
    /// [`EncodedPiece::append_to`] cannot fail. Bytes that were cut or
    /// are not this form are an error, never a panic.
    pub(super) fn read(bytes: &'a [u8]) -> Result<EncodedPiece<'a>, PieceError> {
        let mut r = Reader { bytes };
        if r.u32()? != MAGIC {
            return Err(PieceError("not a parsed piece"));
        }
        let from = r.u64()?;
        let len = r.u64()?;
        let cut = Some(r.u64()?).filter(|&c| c != NO_CUT);
        let mut counts = ParseCounts {
            lines: r.u64()?,
            blank_lines: r.u64()?,
            continuation_lines: r.u64()?,
            invalid_utf8_lines: r.u64()?,
            overlong_lines: r.u64()?,
            impossible_times: r.u64()?,
            ..ParseCounts::default()
        };
        if r.count(8)? != counts.formats.len() {
            return Err(PieceError("another list of formats"));
        }
        for v in counts.formats.iter_mut() {
            *v = r.u64()?;
        }
        let mut wrappers = BTreeMap::new();
        for _ in 0..r.count(9)? {
            let w = *Wrapper::ALL.get(r.u8()? as usize).ok_or(PieceError("unknown wrapper"))?;
            wrappers.insert(w.as_str(), r.u64()?);
        }
        counts.wrappers = wrappers;
        let truncated_lines = r.u64()?;
        let n = r.count(5)?;
        let mut problems = Vec::with_capacity(n);
        for _ in 0..n {
            let line = r.u32()?;
            let message = *super::PROBLEMS.get(r.u8()? as usize).ok_or(PieceError("unknown problem"))?;
            problems.push((line, message));
        }
        let repairs = read_repairs(&mut r)?;
        let n = r.count(1)?;
        let scratch = r.take(n)?;
        let n = r.count(RECORD_BYTES)?;
        let (records, _) = r.take(n * RECORD_BYTES)?.as_chunks::<RECORD_BYTES>();
        let n = r.count(FIELD_BYTES)?;
        let (fields, _) = r.take(n * FIELD_BYTES)?.as_chunks::<FIELD_BYTES>();
        if !r.bytes.is_empty() {
            return Err(PieceError("bytes after the end"));
        }
        for b in records {
            let flags = &b[20..25];
            if flags[1] as usize >= Level::ALL.len()
                || flags[2] as usize >= Format::ALL.len()
                || flags[3] as usize >= Wrapper::ALL.len()
                || flags[4] as usize >= ValueKind::ALL.len()
                || b[75] as usize > Format::ALL.len()
            {
                return Err(PieceError("an unknown level, format, wrapper or value kind"));
            }
            let end = le_u32(b, 49) as usize + u16::from_le_bytes([b[53], b[54]]) as usize;
            if end > fields.len() {
                return Err(PieceError("a record's fields are missing"));
            }
        }
        if fields.iter().any(|b| b[16] as usize >= ValueKind::ALL.len()) {
            return Err(PieceError("an unknown value kind"));
        }
        Ok(EncodedPiece { from, len, cut, counts, truncated_lines, problems, repairs, scratch, records, fields })
    }

    /// Whether it is the tail, from `from` to `end`, of the file at hand.
    pub(super) fn fits(&self, from: usize, end: usize) -> bool {
        self.from == from as u64 && self.from.checked_add(self.len) == Some(end as u64) && self.cut.is_none_or(|c| c >= self.from && c <= end as u64)
    }

    /// Decodes its records onto the end of `acc`, the file's records up to
    /// its cut, as [`super::append`] would join them.
    pub(super) fn append_to(&self, acc: &mut Chunk, raw_base: u32) {
        let (fbase, sbase, line_base) = (acc.fields.len() as u32, acc.scratch.len() as u32, acc.counts.lines as u32);
        let shift = |b: &[u8], at: usize| super::rebase(span_at(b, at), raw_base, sbase);
        acc.records.reserve_exact(self.records.len());
        acc.records.extend(self.records.iter().map(|b| Record {
            time: time_at(b, 0),
            collected: time_at(b, 10),
            flags: RecordFlags::from_bits(b[20]),
            level: Level::ALL[b[21] as usize],
            format: Format::ALL[b[22] as usize],
            wrapper: Wrapper::ALL[b[23] as usize],
            message_kind: ValueKind::ALL[b[24] as usize],
            logger: shift(b, 25),
            message: shift(b, 33),
            reconcile_id: shift(b, 41),
            fields_start: le_u32(b, 49) + fbase,
            fields_len: u16::from_le_bytes([b[53], b[54]]),
            line: le_u32(b, 55) + line_base,
            line_count: le_u32(b, 59),
            offset: le_u64(b, 63) + u64::from(raw_base),
            byte_len: le_u32(b, 71),
            fields_again_after: b[75].checked_sub(1).map(|k| Format::ALL[k as usize]),
        }));
        acc.fields.reserve_exact(self.fields.len());
        acc.fields.extend(self.fields.iter().map(|b| Field { key: shift(b, 0), value: shift(b, 8), kind: ValueKind::ALL[b[16] as usize] }));
        acc.scratch.extend_from_slice(self.scratch);
        acc.problems.extend(self.problems.iter().map(|&(l, m)| (l + line_base, m)));
        acc.truncated_lines += self.truncated_lines;
        acc.repairs.merge(&self.repairs, line_base);
        acc.counts.add(&self.counts);
    }
}

fn le_u32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn le_u64(b: &[u8], at: usize) -> u64 {
    let mut a = [0; 8];
    a.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(a)
}

fn span_at(b: &[u8], at: usize) -> Span {
    Span::from_raw_parts(le_u32(b, at), le_u32(b, at + 4))
}

fn time_at(b: &[u8], at: usize) -> Option<Timestamp> {
    (b[at] != 0).then(|| Timestamp::new(le_u64(b, at + 1) as i64, b[at + 9]))
}

struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], PieceError> {
        if n > self.bytes.len() {
            return Err(PieceError("cut short"));
        }
        let (head, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Ok(head)
    }
    fn u8(&mut self) -> Result<u8, PieceError> {
        Ok(self.take(1)?[0])
    }
    fn u32(&mut self) -> Result<u32, PieceError> {
        Ok(le_u32(self.take(4)?, 0))
    }
    fn u64(&mut self) -> Result<u64, PieceError> {
        Ok(le_u64(self.take(8)?, 0))
    }
    /// A count of items of at least `min_size` bytes each (so a bad count
    /// cannot ask for more memory than the bytes could hold).
    fn count(&mut self, min_size: usize) -> Result<usize, PieceError> {
        let n = self.u32()? as usize;
        if n.saturating_mul(min_size.max(1)) > self.bytes.len() {
            return Err(PieceError("a count larger than the bytes"));
        }
        Ok(n)
    }
}
