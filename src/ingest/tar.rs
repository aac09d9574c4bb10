//! tar: 512-byte headers each followed by the entry's data, padded to a
//! block. Reads v7, POSIX ustar (name prefix), GNU long names (`L`) and pax
//! extended headers (`x`), from a slice or from a decompressing stream.

use super::inflate::{Budget, Fault};
use super::{clean_name, join, Data, IngestError, View, Walker};

/// Size of a tar header and of the unit data is padded to.
pub(crate) const BLOCK: usize = 512;

/// Longest GNU long name or pax header accepted (they are read whole).
const MAX_META_LEN: u64 = 1 << 20;

const NAME: std::ops::Range<usize> = 0..100;
const SIZE: std::ops::Range<usize> = 124..136;
const MTIME: std::ops::Range<usize> = 136..148;
const CHECKSUM: std::ops::Range<usize> = 148..156;
const TYPEFLAG: usize = 156;
const MAGIC: std::ops::Range<usize> = 257..263;
const PREFIX: std::ops::Range<usize> = 345..500;

/// Where a tar reader gets its bytes: a slice (entries are borrowed) or a
/// decompressing stream (entries are owned).
pub(crate) trait Source<'a, 'b> {
    /// The next `n` bytes, fewer if the data ends first; a fault says why a
    /// stream stopped early.
    fn take(&mut self, budget: &mut Budget, n: u64) -> (Data<'a, 'b>, Option<Fault>);
    /// Passes over the next `n` bytes (or what is left of them).
    fn skip(&mut self, budget: &mut Budget, n: u64) -> Option<Fault>;
    /// Bytes taken or skipped so far.
    fn offset(&self) -> u64;
}

/// A tar archive held in memory.
struct SliceSource<'a, 'b> {
    view: View<'a, 'b>,
    pos: usize,
}

impl<'a: 'b, 'b> Source<'a, 'b> for SliceSource<'a, 'b> {
    fn take(&mut self, _budget: &mut Budget, n: u64) -> (Data<'a, 'b>, Option<Fault>) {
        let end = self.pos.saturating_add(usize::try_from(n).unwrap_or(usize::MAX));
        let taken = self.view.sub(self.pos..end);
        self.pos += taken.bytes().len();
        (taken.data(), None)
    }

    fn skip(&mut self, _budget: &mut Budget, n: u64) -> Option<Fault> {
        let end = self.pos.saturating_add(usize::try_from(n).unwrap_or(usize::MAX));
        self.pos = end.min(self.view.bytes().len());
        None
    }

    fn offset(&self) -> u64 {
        self.pos as u64
    }
}

/// Lists the tar archive `path` held in `view`; its entries are at `depth`.
pub(crate) fn read_slice<'a: 'b, 'b>(w: &mut Walker<'a, '_>, path: &str, view: View<'a, 'b>, depth: u32) {
    let mut source = SliceSource { view, pos: 0 };
    if let Some(f) = read(w, path, &mut source, depth) {
        w.fault(path, f);
    }
}

/// True if `bytes` start with a tar header: a valid checksum, and either the
/// `ustar` magic or a plausible v7 header.
pub(crate) fn is_header(bytes: &[u8]) -> bool {
    let Some(h) = bytes.get(..BLOCK) else {
        return false;
    };
    if is_zero(h) || !checksum_ok(h) {
        return false;
    }
    if h[MAGIC].starts_with(b"ustar") {
        return true;
    }
    h[0] != 0 && matches!(h[TYPEFLAG], 0 | b'0'..=b'7') && parse_number(&h[SIZE]).is_some()
}

/// True if `bytes` start with two zero blocks: a tar archive with no entries.
pub(crate) fn is_empty_archive(bytes: &[u8]) -> bool {
    bytes.get(..2 * BLOCK).is_some_and(is_zero)
}

fn is_zero(b: &[u8]) -> bool {
    b.iter().all(|&c| c == 0)
}

/// What the metadata entries (GNU long name, pax) say about the next entry.
#[derive(Default)]
struct Pending {
    long_name: Option<String>,
    path: Option<String>,
    mtime: Option<i64>,
    size: Option<u64>,
}

/// One parsed header.
struct Header {
    name: String,
    size: u64,
    mtime: Option<i64>,
    typeflag: u8,
}

impl Header {
    fn parse(h: &[u8]) -> Result<Header, &'static str> {
        if !checksum_ok(h) {
            return Err("bad header checksum");
        }
        let size = parse_number(&h[SIZE]).ok_or("bad size field")?;
        let mtime = parse_number(&h[MTIME]).and_then(|t| i64::try_from(t).ok());
        let mut name = field_str(&h[NAME]);
        // POSIX ustar splits long names; GNU uses the same bytes for other things.
        if &h[MAGIC] == b"ustar\0" {
            let prefix = field_str(&h[PREFIX]);
            if !prefix.is_empty() {
                name = format!("{prefix}/{name}");
            }
        }
        Ok(Header { name, size, mtime, typeflag: h[TYPEFLAG] })
    }
}

/// Reads a tar archive from `src`, emitting its entries as members of
/// `path` at `depth`. Damage is reported as it is met; a stream fault that
/// is not about one entry is handed back for the caller to report.
pub(crate) fn read<'a, 'b, S: Source<'a, 'b>>(w: &mut Walker<'a, '_>, path: &str, src: &mut S, depth: u32) -> Option<Fault> {
    let mut pending = Pending::default();
    loop {
        let offset = src.offset();
        let (block, fault) = src.take(&mut w.budget, BLOCK as u64);
        let h = block.as_slice();
        if let Some(f) = fault {
            return Some(f);
        }
        if is_zero(h) {
            // End-of-archive marker, or the data simply ends between entries.
            return None;
        }
        if h.len() < BLOCK {
            let detail = format!("cut inside the header at offset {offset}");
            w.error(IngestError::TruncatedArchive { path: path.to_string(), detail });
            return None;
        }
        let header = match Header::parse(h) {
            Ok(header) => header,
            Err(what) => {
                let detail = format!("{what} at offset {offset}; stopped reading");
                w.error(IngestError::Corrupt { path: path.to_string(), detail });
                return None;
            }
        };
        match entry(w, path, src, &mut pending, header, depth) {
            Step::Next => {}
            Step::Stop => return None,
            Step::Fault(f) => return Some(f),
        }
    }
}

enum Step {
    Next,
    Stop,
    Fault(Fault),
}

/// Handles the entry described by `header`, its data next in `src`.
fn entry<'a, 'b, S: Source<'a, 'b>>(w: &mut Walker<'a, '_>, path: &str, src: &mut S, pending: &mut Pending, header: Header, depth: u32) -> Step {
    match header.typeflag {
        b'L' | b'x' => return metadata(w, path, src, pending, header.typeflag, header.size),
        // Global pax headers, GNU long link names, volume labels, dump dirs, multi-volume parts.
        b'g' | b'K' | b'V' | b'D' | b'M' => return skip(src, &mut w.budget, header.size.saturating_add(padding(header.size))),
        _ => {}
    }
    let size = pending.size.take().unwrap_or(header.size);
    let stored = size.saturating_add(padding(size));
    let name = pending.path.take().or(pending.long_name.take()).unwrap_or(header.name);
    let mtime = pending.mtime.take().or(header.mtime);
    match header.typeflag {
        // Links, devices, directories, FIFOs: no data of their own.
        b'1'..=b'6' => Step::Next,
        b'S' => {
            w.skipped(join(path, &clean_name(&name)), "sparse file (not supported), skipped".to_string());
            skip(src, &mut w.budget, stored)
        }
        // Old archives mark directories with a trailing slash only.
        _ if name.ends_with('/') => skip(src, &mut w.budget, stored),
        // Regular files; POSIX says unknown types are read as regular files too.
        _ => regular(w, join(path, &clean_name(&name)), src, size, mtime, depth),
    }
}

/// Reads a regular entry's data and emits it.
fn regular<'a, 'b, S: Source<'a, 'b>>(w: &mut Walker<'a, '_>, member: String, src: &mut S, size: u64, mtime: Option<i64>, depth: u32) -> Step {
    let (data, fault) = src.take(&mut w.budget, size);
    if let Some(f) = fault.as_ref().filter(|f| matches!(f, Fault::Ratio | Fault::Total | Fault::OutOfMemory { .. })) {
        w.fault(&member, f.clone());
        return Step::Stop;
    }
    let got = data.as_slice().len() as u64;
    if got < size {
        if got > 0 {
            w.node(member.clone(), mtime, data, depth);
        }
        let detail = format!("{got} of {size} bytes");
        w.error(IngestError::Truncated { path: member, detail });
        return fault.map_or(Step::Stop, Step::Fault);
    }
    w.node(member, mtime, data, depth);
    skip(src, &mut w.budget, padding(size))
}

/// Reads a GNU long name (`L`) or pax header (`x`) into `pending`.
fn metadata<'a, 'b, S: Source<'a, 'b>>(w: &mut Walker<'a, '_>, path: &str, src: &mut S, pending: &mut Pending, typeflag: u8, size: u64) -> Step {
    if size > MAX_META_LEN {
        let detail = format!("{} header of {size} bytes is implausibly long; stopped reading", char::from(typeflag));
        w.error(IngestError::Corrupt { path: path.to_string(), detail });
        return Step::Stop;
    }
    let (data, fault) = src.take(&mut w.budget, size);
    if let Some(f) = fault {
        return Step::Fault(f);
    }
    let bytes = data.as_slice();
    if (bytes.len() as u64) < size {
        let detail = "cut inside an extended header".to_string();
        w.error(IngestError::TruncatedArchive { path: path.to_string(), detail });
        return Step::Stop;
    }
    if typeflag == b'L' {
        pending.long_name = Some(field_str(bytes));
    } else {
        parse_pax(bytes, pending);
    }
    skip(src, &mut w.budget, padding(size))
}

fn skip<'a, 'b, S: Source<'a, 'b>>(src: &mut S, budget: &mut Budget, n: u64) -> Step {
    match src.skip(budget, n) {
        Some(f) => Step::Fault(f),
        None => Step::Next,
    }
}

/// Bytes of padding after `size` bytes of data.
fn padding(size: u64) -> u64 {
    let block = BLOCK as u64;
    (block - size % block) % block
}

/// Applies the pax records (`"<len> <key>=<value>\n"`) that matter here.
fn parse_pax(mut rest: &[u8], pending: &mut Pending) {
    while let Some(space) = memchr::memchr(b' ', rest) {
        let Some(len) = std::str::from_utf8(&rest[..space]).ok().and_then(|s| s.parse::<usize>().ok()) else {
            return;
        };
        let Some(record) = rest.get(space + 1..len).filter(|_| len > space) else {
            return;
        };
        let record = record.strip_suffix(b"\n").unwrap_or(record);
        if let Some(eq) = memchr::memchr(b'=', record) {
            let (key, value) = (&record[..eq], &record[eq + 1..]);
            match key {
                b"path" => pending.path = Some(String::from_utf8_lossy(value).into_owned()),
                b"mtime" => pending.mtime = parse_pax_time(value),
                b"size" => pending.size = std::str::from_utf8(value).ok().and_then(|s| s.parse().ok()),
                _ => {}
            }
        }
        rest = &rest[len..];
    }
}

/// A pax time, `1700000000.25` or `-12`, to whole seconds (towards zero).
fn parse_pax_time(value: &[u8]) -> Option<i64> {
    let text = std::str::from_utf8(value).ok()?;
    let whole = text.split('.').next()?;
    whole.parse().ok()
}

/// A NUL-terminated text field.
fn field_str(field: &[u8]) -> String {
    let end = memchr::memchr(0, field).unwrap_or(field.len());
    String::from_utf8_lossy(&field[..end]).into_owned()
}

/// A numeric field: octal text (possibly empty, meaning 0) or GNU base-256.
/// Negative base-256 numbers are not accepted.
fn parse_number(field: &[u8]) -> Option<u64> {
    match field.first() {
        Some(0x80) => field[1..].iter().try_fold(0u64, |acc, &b| acc.checked_mul(256)?.checked_add(u64::from(b))),
        Some(b) if b & 0x80 != 0 => None,
        _ => parse_octal(field).or_else(|| field.iter().all(|&b| b == 0 || b == b' ').then_some(0)),
    }
}

/// Octal digits, optionally surrounded by spaces and ended by NUL or space.
fn parse_octal(field: &[u8]) -> Option<u64> {
    let start = field.iter().position(|&b| b != b' ')?;
    let digits = &field[start..];
    let len = digits.iter().position(|b| !(b'0'..=b'7').contains(b)).unwrap_or(digits.len());
    if len == 0 || !digits[len..].iter().all(|&b| b == 0 || b == b' ') {
        return None;
    }
    digits[..len].iter().try_fold(0u64, |acc, &b| acc.checked_mul(8)?.checked_add(u64::from(b - b'0')))
}

/// True if the header's checksum field matches its bytes (summed as
/// unsigned, or as signed like some old tars did).
fn checksum_ok(h: &[u8]) -> bool {
    let Some(stored) = h.get(CHECKSUM).and_then(parse_octal) else {
        return false;
    };
    let (mut unsigned, mut signed) = (0u64, 0i64);
    for (i, &b) in h.iter().take(BLOCK).enumerate() {
        let b = if CHECKSUM.contains(&i) { b' ' } else { b };
        unsigned += u64::from(b);
        signed += i64::from(b as i8);
    }
    stored == unsigned || i64::try_from(stored).is_ok_and(|s| s == signed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers() {
        assert_eq!(parse_number(b"00000001750\0"), Some(1000));
        assert_eq!(parse_number(b"     1750 \0\0"), Some(1000));
        assert_eq!(parse_number(b"\0\0\0\0\0\0\0\0\0\0\0\0"), Some(0));
        assert_eq!(parse_number(b"12x4\0"), None);
        let mut base256 = [0u8; 12];
        base256[0] = 0x80;
        base256[7] = 0x02;
        assert_eq!(parse_number(&base256), Some(2 << 32));
        assert_eq!(parse_number(&[0xff; 12]), None);
    }

    #[test]
    fn pax_records() {
        let mut p = Pending::default();
        parse_pax(b"30 mtime=1700000000.123456789\n19 path=a/long.log\n11 size=42\n", &mut p);
        assert_eq!(p.mtime, Some(1_700_000_000));
        assert_eq!(p.path.as_deref(), Some("a/long.log"));
        assert_eq!(p.size, Some(42));
        let mut p = Pending::default();
        parse_pax(b"999 path=x\n", &mut p);
        assert_eq!(p.path, None);
    }
}
