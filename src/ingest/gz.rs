//! gzip (RFC 1952), read as a pull stream: one or more concatenated members,
//! each a header, a raw deflate stream and a CRC-32/length trailer.

use flate2::{Crc, Decompress, FlushDecompress, Status};

use super::inflate::{initial_capacity, reserve_chunk, try_reserve_total, Budget, Fault, Meter, CHUNK};
use super::tar::{self, Source, BLOCK};
use super::{base_name, join, Data, Walker};

const MAGIC: [u8; 2] = [0x1f, 0x8b];
const METHOD_DEFLATE: u8 = 8;
const FLAG_HCRC: u8 = 0x02;
const FLAG_EXTRA: u8 = 0x04;
const FLAG_NAME: u8 = 0x08;
const FLAG_COMMENT: u8 = 0x10;
const FLAG_RESERVED: u8 = 0xe0;
const TRAILER_LEN: usize = 8;

/// Opens the gzip file `path`: a tarball's entries are listed under it, any
/// other content becomes one member named after the file without `.gz`.
pub(crate) fn read(w: &mut Walker<'_, '_>, path: &str, input: &[u8], depth: u32) {
    if w.budget.exhausted() {
        w.fault(path, Fault::Total);
        return;
    }
    let mut gz = GzStream::new(input);
    // Two blocks tell a tarball (or an empty one) from anything else.
    let mut head = Vec::new();
    let mut fault = pull_up_to(&mut gz, &mut w.budget, &mut head, 2 * BLOCK);
    let inner = join(path, &inner_name(path, gz.name.as_deref()));
    if let Some(f) = fault.take_if(|f| is_cap(f)) {
        w.fault(&inner, f);
        return;
    }
    // Two zero blocks open an empty tarball, but also a text that starts
    // with NUL bytes: only a stream of zeros to its end is an empty tar.
    let empty_tar = fault.is_none() && tar::is_empty_archive(&head) && {
        let mut rest = Vec::new();
        fault = pull_rest(&mut gz, &mut w.budget, &mut rest);
        let zeros = rest.iter().all(|&b| b == 0);
        head.append(&mut rest);
        zeros && fault.is_none()
    };
    if empty_tar {
        w.skipped(path.to_string(), "an empty tar archive (only zero blocks): nothing to read".into());
        return;
    }
    if tar::is_header(&head) {
        let mut source = GzSource { gz, head, head_pos: 0, offset: 0, pending: fault };
        if let Some(f) = tar::read(w, path, &mut source, depth) {
            w.fault(path, f);
        }
        return;
    }
    if fault.is_none() {
        fault = pull_rest(&mut gz, &mut w.budget, &mut head);
    }
    if let Some(f) = fault.take_if(|f| is_cap(f)) {
        w.fault(&inner, f);
        return;
    }
    w.node(inner, gz.mtime, Data::Owned(head), depth);
    if let Some(f) = fault {
        w.fault(path, f);
    }
}

/// A cap or memory fault: the output is dropped rather than kept.
fn is_cap(f: &Fault) -> bool {
    matches!(f, Fault::Ratio | Fault::Total | Fault::OutOfMemory { .. })
}

/// The member name for the content of the gzip file `path`: the file name
/// without `.gz` (`.tgz` becomes `.tar`), else the name stored in the
/// header, else the file name itself.
fn inner_name(path: &str, stored: Option<&str>) -> String {
    let base = base_name(path);
    let lower = base.to_ascii_lowercase();
    for (suffix, replacement) in [(".tgz", ".tar"), (".gz", ""), (".gzip", "")] {
        if lower.ends_with(suffix) && base.len() > suffix.len() {
            if let Some(stem) = base.get(..base.len() - suffix.len()) {
                return format!("{stem}{replacement}");
            }
        }
    }
    match stored.map(base_name) {
        Some(name) if !name.is_empty() => name.to_string(),
        _ => base.to_string(),
    }
}

/// Appends output to `out` until it holds `want` bytes or the stream ends.
fn pull_up_to(gz: &mut GzStream<'_>, budget: &mut Budget, out: &mut Vec<u8>, want: usize) -> Option<Fault> {
    while out.len() < want {
        let room = want - out.len();
        if let Err(f) = try_reserve_total(out, (out.len() + room.min(CHUNK)) as u64) {
            return Some(f);
        }
        match gz.pull(budget, out, room.min(CHUNK)) {
            Ok(0) => return None,
            Ok(_) => {}
            Err(f) => return Some(f),
        }
    }
    None
}

/// Appends the rest of the stream's output to `out`.
fn pull_rest(gz: &mut GzStream<'_>, budget: &mut Budget, out: &mut Vec<u8>) -> Option<Fault> {
    let hint = gz.size_hint();
    if let Err(f) = try_reserve_total(out, initial_capacity(hint, gz.headroom(budget)) as u64) {
        return Some(f);
    }
    loop {
        if let Err(f) = reserve_chunk(out, hint, gz.headroom(budget)) {
            return Some(f);
        }
        let room = out.capacity() - out.len();
        match gz.pull(budget, out, room) {
            Ok(0) => return None,
            Ok(_) => {}
            Err(f) => return Some(f),
        }
    }
}

/// What a gzip member header says.
struct Header {
    /// Bytes the header occupies.
    len: usize,
    mtime: Option<i64>,
    name: Option<String>,
}

enum HeaderError {
    Truncated,
    Invalid(&'static str),
}

/// Parses the member header at the start of `b`.
fn parse_header(b: &[u8]) -> Result<Header, HeaderError> {
    let fixed = b.get(..10).ok_or(HeaderError::Truncated)?;
    if fixed[..2] != MAGIC {
        return Err(HeaderError::Invalid("not a gzip header"));
    }
    if fixed[2] != METHOD_DEFLATE {
        return Err(HeaderError::Invalid("unknown compression method"));
    }
    let flags = fixed[3];
    if flags & FLAG_RESERVED != 0 {
        return Err(HeaderError::Invalid("reserved header flags set"));
    }
    let mtime = u32::from_le_bytes([fixed[4], fixed[5], fixed[6], fixed[7]]);
    let mut pos = 10usize;
    if flags & FLAG_EXTRA != 0 {
        let len = b.get(pos..pos + 2).ok_or(HeaderError::Truncated)?;
        pos += 2 + usize::from(u16::from_le_bytes([len[0], len[1]]));
    }
    let mut name = None;
    if flags & FLAG_NAME != 0 {
        let (field, next) = zero_terminated(b, pos)?;
        // RFC 1952 names are ISO 8859-1.
        name = Some(field.iter().map(|&c| char::from(c)).collect());
        pos = next;
    }
    if flags & FLAG_COMMENT != 0 {
        pos = zero_terminated(b, pos)?.1;
    }
    if flags & FLAG_HCRC != 0 {
        pos += 2;
    }
    if pos > b.len() {
        return Err(HeaderError::Truncated);
    }
    Ok(Header { len: pos, mtime: (mtime != 0).then_some(i64::from(mtime)), name })
}

/// The zero-terminated field at `pos`, and the position after its NUL.
fn zero_terminated(b: &[u8], pos: usize) -> Result<(&[u8], usize), HeaderError> {
    let rest = b.get(pos..).ok_or(HeaderError::Truncated)?;
    let nul = memchr::memchr(0, rest).ok_or(HeaderError::Truncated)?;
    Ok((&rest[..nul], pos + nul + 1))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Header,
    Body,
    Trailer,
    Done,
}

/// A gzip file decompressed on demand, a chunk at a time, with every chunk
/// counted against the caps before it is handed out.
pub(crate) struct GzStream<'g> {
    input: &'g [u8],
    pos: usize,
    state: State,
    dec: Decompress,
    crc: Crc,
    /// Output of the current member (for its length check).
    member_out: u64,
    /// Output over all members (for messages).
    produced: u64,
    meter: Meter,
    members: u32,
    chunk: Vec<u8>,
    chunk_pos: usize,
    /// A fault to report once the chunk before it has been handed out.
    pending: Option<Fault>,
    /// Modification time in the first member header.
    pub(crate) mtime: Option<i64>,
    /// File name in the first member header.
    pub(crate) name: Option<String>,
}

impl<'g> GzStream<'g> {
    pub(crate) fn new(input: &'g [u8]) -> GzStream<'g> {
        let mut stream = GzStream {
            input,
            pos: 0,
            state: State::Header,
            dec: Decompress::new(false),
            crc: Crc::new(),
            member_out: 0,
            produced: 0,
            meter: Meter::sized(input.len() as u64),
            members: 0,
            chunk: Vec::new(),
            chunk_pos: 0,
            pending: None,
            mtime: None,
            name: None,
        };
        // Read the first header now, so that its name and time are known.
        stream.read_header();
        stream
    }

    /// The length in the last trailer: the output size of a single-member
    /// file (modulo 4 GiB), used only to size buffers.
    fn size_hint(&self) -> u64 {
        let n = self.input.len();
        match self.input.get(n.saturating_sub(4)..) {
            Some(&[a, b, c, d]) => u64::from(u32::from_le_bytes([a, b, c, d])),
            _ => 0,
        }
    }

    fn headroom(&self, budget: &Budget) -> u64 {
        budget.headroom(&self.meter, self.pos as u64)
    }

    /// Appends up to `max` bytes of output to `out`; `Ok(0)` at the end.
    pub(crate) fn pull(&mut self, budget: &mut Budget, out: &mut Vec<u8>, max: usize) -> Result<usize, Fault> {
        if max == 0 {
            return Ok(0);
        }
        loop {
            if let Some(ready) = self.chunk.get(self.chunk_pos..).filter(|c| !c.is_empty()) {
                let n = ready.len().min(max);
                out.extend_from_slice(&ready[..n]);
                self.chunk_pos += n;
                return Ok(n);
            }
            if let Some(f) = self.pending.take() {
                return Err(f);
            }
            match self.state {
                State::Done => return Ok(0),
                State::Header => self.read_header(),
                State::Body => self.inflate_chunk(budget),
                State::Trailer => self.read_trailer(),
            }
        }
    }

    fn fail(&mut self, fault: Fault) {
        self.pending = Some(fault);
        self.state = State::Done;
    }

    fn corrupt(&mut self, detail: String) {
        self.fail(Fault::GzCorrupt { after: self.produced, detail });
    }

    fn read_header(&mut self) {
        let rest = self.input.get(self.pos..).unwrap_or_default();
        let first = self.members == 0;
        if rest.is_empty() || (!first && !rest.starts_with(&MAGIC)) {
            // The end, or trailing bytes after the last member: ignored, as gzip does.
            self.state = State::Done;
            return;
        }
        match parse_header(rest) {
            Ok(header) => {
                self.pos += header.len;
                if first {
                    self.mtime = header.mtime;
                    self.name = header.name;
                }
                self.dec.reset(false);
                self.crc.reset();
                self.member_out = 0;
                self.state = State::Body;
            }
            Err(HeaderError::Truncated) => self.fail(Fault::GzTruncated { after: self.produced }),
            Err(HeaderError::Invalid(what)) => self.corrupt(what.to_string()),
        }
    }

    fn inflate_chunk(&mut self, budget: &mut Budget) {
        self.chunk.clear();
        self.chunk_pos = 0;
        if let Err(f) = try_reserve_total(&mut self.chunk, CHUNK as u64) {
            self.fail(f);
            return;
        }
        let rest = self.input.get(self.pos..).unwrap_or_default();
        let (before_in, before_out) = (self.dec.total_in(), self.dec.total_out());
        let result = self.dec.decompress_vec(rest, &mut self.chunk, FlushDecompress::None);
        let consumed = usize::try_from(self.dec.total_in() - before_in).unwrap_or(usize::MAX);
        let produced = self.dec.total_out() - before_out;
        self.pos = self.pos.saturating_add(consumed).min(self.input.len());
        if let Err(f) = budget.charge(&mut self.meter, produced, self.pos as u64) {
            self.chunk.clear();
            self.fail(f);
            return;
        }
        self.crc.update(&self.chunk);
        self.member_out += produced;
        self.produced += produced;
        match result {
            Ok(Status::StreamEnd) => self.state = State::Trailer,
            Err(e) => self.corrupt(e.to_string()),
            Ok(_) if produced == 0 && consumed == 0 => {
                if self.pos >= self.input.len() {
                    self.fail(Fault::GzTruncated { after: self.produced });
                } else {
                    self.corrupt("deflate stream makes no progress".to_string());
                }
            }
            Ok(_) => {}
        }
    }

    fn read_trailer(&mut self) {
        let Some(trailer) = self.input.get(self.pos..).and_then(|r| r.get(..TRAILER_LEN)) else {
            self.fail(Fault::GzTruncated { after: self.produced });
            return;
        };
        let crc = u32::from_le_bytes([trailer[0], trailer[1], trailer[2], trailer[3]]);
        let len = u32::from_le_bytes([trailer[4], trailer[5], trailer[6], trailer[7]]);
        self.pos += TRAILER_LEN;
        self.members += 1;
        if crc != self.crc.sum() {
            self.corrupt("CRC-32 mismatch".to_string());
        } else if u64::from(len) != self.member_out & 0xffff_ffff {
            self.corrupt("length mismatch".to_string());
        } else {
            self.state = State::Header;
        }
    }
}

/// A gzip stream seen by the tar reader: the blocks peeked at first, then
/// the rest of the stream. Entries come out as owned buffers.
struct GzSource<'g> {
    gz: GzStream<'g>,
    head: Vec<u8>,
    head_pos: usize,
    offset: u64,
    /// A fault met while peeking, reported once the peeked bytes are used up.
    pending: Option<Fault>,
}

impl GzSource<'_> {
    /// Appends up to `max` bytes of the stream after the peeked ones.
    fn pull(&mut self, budget: &mut Budget, out: &mut Vec<u8>, max: usize) -> Result<usize, Fault> {
        match self.pending.take() {
            Some(f) => Err(f),
            None => self.gz.pull(budget, out, max),
        }
    }

    /// Moves up to `want` peeked bytes into `out`.
    fn drain_head(&mut self, out: &mut Vec<u8>, want: usize) {
        let ready = self.head.get(self.head_pos..).unwrap_or_default();
        let n = ready.len().min(want);
        out.extend_from_slice(&ready[..n]);
        self.head_pos += n;
    }
}

impl<'a, 'b> Source<'a, 'b> for GzSource<'_> {
    fn take(&mut self, budget: &mut Budget, n: u64) -> (Data<'a, 'b>, Option<Fault>) {
        let want = usize::try_from(n).unwrap_or(usize::MAX);
        let mut out = Vec::new();
        let first = initial_capacity(n, self.gz.headroom(budget).saturating_add(2 * BLOCK as u64));
        if let Err(f) = try_reserve_total(&mut out, first as u64) {
            return (Data::Owned(out), Some(f));
        }
        self.drain_head(&mut out, want);
        let mut fault = None;
        while out.len() < want {
            if out.len() == out.capacity() {
                let doubled = (out.capacity() as u64).saturating_mul(2).max(out.len() as u64 + CHUNK as u64);
                if let Err(f) = try_reserve_total(&mut out, doubled.min(n)) {
                    fault = Some(f);
                    break;
                }
            }
            let room = (out.capacity() - out.len()).min(want - out.len());
            match self.pull(budget, &mut out, room) {
                Ok(0) => break,
                Ok(_) => {}
                Err(f) => {
                    fault = Some(f);
                    break;
                }
            }
        }
        self.offset += out.len() as u64;
        (Data::Owned(out), fault)
    }

    fn skip(&mut self, budget: &mut Budget, n: u64) -> Option<Fault> {
        let mut left = n;
        let mut scratch = Vec::new();
        if let Err(f) = try_reserve_total(&mut scratch, CHUNK as u64) {
            return Some(f);
        }
        while left > 0 {
            scratch.clear();
            let want = usize::try_from(left).unwrap_or(usize::MAX).min(CHUNK);
            self.drain_head(&mut scratch, want);
            if scratch.is_empty() {
                match self.pull(budget, &mut scratch, want) {
                    Ok(0) => return None,
                    Ok(_) => {}
                    Err(f) => return Some(f),
                }
            }
            left -= scratch.len() as u64;
            self.offset += scratch.len() as u64;
        }
        None
    }

    fn offset(&self) -> u64 {
        self.offset
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inner_names() {
        assert_eq!(inner_name("x.zip!/logs/a.log.gz", None), "a.log");
        assert_eq!(inner_name("B.TGZ", None), "B.tar");
        assert_eq!(inner_name("blob", Some("orig.txt")), "orig.txt");
        assert_eq!(inner_name("blob", None), "blob");
        assert_eq!(inner_name(".gz", None), ".gz");
    }
}
