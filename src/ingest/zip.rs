//! zip: the central directory when it can be found and trusted, otherwise
//! the local file headers read one after the other (truncated downloads,
//! streamed archives cut short).

use flate2::Crc;

use super::inflate::{inflate_all, End, Fault, Inflated, Meter};
use super::{clean_name, join, IngestError, Outcome, View, Walker};

const LOCAL: &[u8; 4] = b"PK\x03\x04";
const CENTRAL: &[u8; 4] = b"PK\x01\x02";
const END: &[u8; 4] = b"PK\x05\x06";
const END64: &[u8; 4] = b"PK\x06\x06";
const END64_LOCATOR: &[u8; 4] = b"PK\x06\x07";
const DESCRIPTOR: &[u8; 4] = b"PK\x07\x08";

const LOCAL_LEN: usize = 30;
const CENTRAL_LEN: usize = 46;
const END_LEN: usize = 22;
const END64_LOCATOR_LEN: usize = 20;
const MAX_COMMENT: usize = 0xffff;

const FLAG_ENCRYPTED: u16 = 1 << 0;
const FLAG_DESCRIPTOR: u16 = 1 << 3;

const STORED: u16 = 0;
const DEFLATED: u16 = 8;

const EXTRA_ZIP64: u16 = 0x0001;
const EXTRA_TIMESTAMP: u16 = 0x5455;

/// Marks a 32-bit field whose value is in the ZIP64 extra field.
const SAT32: u32 = 0xffff_ffff;

fn bytes_at<const N: usize>(b: &[u8], off: usize) -> Option<[u8; N]> {
    b.get(off..off.checked_add(N)?)?.try_into().ok()
}

fn u16_at(b: &[u8], off: usize) -> Option<u16> {
    bytes_at(b, off).map(u16::from_le_bytes)
}

fn u32_at(b: &[u8], off: usize) -> Option<u32> {
    bytes_at(b, off).map(u32::from_le_bytes)
}

fn u64_at(b: &[u8], off: usize) -> Option<u64> {
    bytes_at(b, off).map(u64::from_le_bytes)
}

fn sig_at(b: &[u8], off: usize, sig: &[u8; 4]) -> bool {
    bytes_at::<4>(b, off).is_some_and(|s| &s == sig)
}

fn to_usize(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

fn crc32(data: &[u8]) -> u32 {
    let mut crc = Crc::new();
    crc.update(data);
    crc.sum()
}

/// One entry, from the central directory or a local header.
#[derive(Debug, Clone)]
struct Entry {
    name: String,
    flags: u16,
    method: u16,
    crc: u32,
    compressed: u64,
    uncompressed: u64,
    mtime: Option<i64>,
    /// Offset of the local header (central directory entries only).
    local_offset: u64,
    /// Sizes came from a ZIP64 extra field (so a data descriptor has 8-byte sizes).
    zip64: bool,
}

impl Entry {
    fn is_dir(&self) -> bool {
        self.name.ends_with('/')
    }

    fn encrypted(&self) -> bool {
        self.flags & FLAG_ENCRYPTED != 0
    }

    fn has_descriptor(&self) -> bool {
        self.flags & FLAG_DESCRIPTOR != 0
    }

    /// Reads the extra fields that matter: ZIP64 sizes and offset (only the
    /// ones whose 32-bit field is saturated, in this order) and the
    /// extended timestamp.
    fn apply_extra(&mut self, mut extra: &[u8], sat_usize: bool, sat_csize: bool, sat_offset: bool) {
        while let (Some(id), Some(len)) = (u16_at(extra, 0), u16_at(extra, 2)) {
            let Some(data) = extra.get(4..4 + usize::from(len)) else {
                return;
            };
            match id {
                EXTRA_ZIP64 => {
                    let mut fields = data.chunks_exact(8).map(|c| c.try_into().map(u64::from_le_bytes).unwrap_or(0));
                    if sat_usize {
                        self.uncompressed = fields.next().unwrap_or(self.uncompressed);
                    }
                    if sat_csize {
                        self.compressed = fields.next().unwrap_or(self.compressed);
                    }
                    if sat_offset {
                        self.local_offset = fields.next().unwrap_or(self.local_offset);
                    }
                    self.zip64 = true;
                }
                EXTRA_TIMESTAMP if data.first().is_some_and(|f| f & 1 != 0) => {
                    if let Some(t) = bytes_at::<4>(data, 1) {
                        self.mtime = Some(i64::from(i32::from_le_bytes(t)));
                    }
                }
                _ => {}
            }
            extra = &extra[4 + usize::from(len)..];
        }
    }
}

/// Decodes an entry name; Windows tools sometimes write backslashes.
fn decode_name(raw: &[u8]) -> String {
    String::from_utf8_lossy(raw).replace('\\', "/")
}

/// Parses the central directory entry at `pos`; returns it and where the next one starts.
fn parse_central(b: &[u8], pos: usize) -> Option<(Entry, usize)> {
    if !sig_at(b, pos, CENTRAL) {
        return None;
    }
    let name_len = usize::from(u16_at(b, pos + 28)?);
    let extra_len = usize::from(u16_at(b, pos + 30)?);
    let comment_len = usize::from(u16_at(b, pos + 32)?);
    let name_at = pos.checked_add(CENTRAL_LEN)?;
    let name = b.get(name_at..name_at + name_len)?;
    let extra = b.get(name_at + name_len..name_at + name_len + extra_len)?;
    let next = name_at + name_len + extra_len + comment_len;
    if next > b.len() {
        return None;
    }
    let (csize, usize_, offset) = (u32_at(b, pos + 20)?, u32_at(b, pos + 24)?, u32_at(b, pos + 42)?);
    let mut entry = Entry {
        name: decode_name(name),
        flags: u16_at(b, pos + 8)?,
        method: u16_at(b, pos + 10)?,
        crc: u32_at(b, pos + 16)?,
        compressed: u64::from(csize),
        uncompressed: u64::from(usize_),
        mtime: None,
        local_offset: u64::from(offset),
        zip64: false,
    };
    entry.apply_extra(extra, usize_ == SAT32, csize == SAT32, offset == SAT32);
    entry.mtime = entry.mtime.or_else(|| dos_time(u16_at(b, pos + 14)?, u16_at(b, pos + 12)?));
    Some((entry, next))
}

/// A local header at `pos`: the entry it describes and where its data starts.
enum Local {
    Found(Entry, usize),
    /// The header is cut off by the end of the data.
    Truncated,
    /// No local header signature at `pos`.
    Missing,
}

fn parse_local(b: &[u8], pos: usize) -> Local {
    if !sig_at(b, pos, LOCAL) {
        return if b.len().saturating_sub(pos) < 4 { Local::Truncated } else { Local::Missing };
    }
    let fixed = |off: usize| u32_at(b, pos + off);
    let (Some(csize), Some(usize_), Some(crc)) = (fixed(18), fixed(22), fixed(14)) else {
        return Local::Truncated;
    };
    let (Some(flags), Some(method), Some(time), Some(date), Some(name_len), Some(extra_len)) =
        (u16_at(b, pos + 6), u16_at(b, pos + 8), u16_at(b, pos + 10), u16_at(b, pos + 12), u16_at(b, pos + 26), u16_at(b, pos + 28))
    else {
        return Local::Truncated;
    };
    let name_at = pos + LOCAL_LEN;
    let extra_at = name_at + usize::from(name_len);
    let data_at = extra_at + usize::from(extra_len);
    let (Some(name), Some(extra)) = (b.get(name_at..extra_at), b.get(extra_at..data_at)) else {
        return Local::Truncated;
    };
    let mut entry = Entry {
        name: decode_name(name),
        flags,
        method,
        crc,
        compressed: u64::from(csize),
        uncompressed: u64::from(usize_),
        mtime: None,
        local_offset: pos as u64,
        zip64: false,
    };
    entry.apply_extra(extra, usize_ == SAT32, csize == SAT32, false);
    entry.mtime = entry.mtime.or_else(|| dos_time(date, time));
    Local::Found(entry, data_at)
}

/// Where the data of the entry whose local header is at `pos` starts.
fn local_data_start(b: &[u8], pos: usize) -> Option<usize> {
    if !sig_at(b, pos, LOCAL) {
        return None;
    }
    let name_len = usize::from(u16_at(b, pos + 26)?);
    let extra_len = usize::from(u16_at(b, pos + 28)?);
    pos.checked_add(LOCAL_LEN + name_len + extra_len)
}

/// DOS date and time (local time by definition; read as UTC) to Unix
/// seconds; `None` for no date (0) or one that does not exist (Feb 30,
/// month 13, hour 24).
fn dos_time(date: u16, time: u16) -> Option<i64> {
    if date == 0 {
        return None;
    }
    let year = 1980 + i64::from(date >> 9);
    let month = u32::from((date >> 5) & 0x0f);
    let day = u32::from(date & 0x1f);
    let hour = u32::from(time >> 11);
    let minute = u32::from((time >> 5) & 0x3f);
    let second = u32::from(time & 0x1f) * 2;
    if second > 59 {
        return None;
    }
    Some(crate::time::checked_civil_nanos(year, month, day, hour, minute, second, 0)? / crate::time::NANOS_PER_SEC)
}

/// Position of the end-of-central-directory record: searched backwards
/// over the last 64 KiB + 22 bytes (the record plus the longest comment).
fn find_end(b: &[u8]) -> Option<usize> {
    let last = b.len().checked_sub(END_LEN)?;
    let first = last.saturating_sub(MAX_COMMENT);
    (first..=last).rev().find(|&pos| sig_at(b, pos, END) && u16_at(b, pos + 20).is_some_and(|comment| pos + END_LEN + usize::from(comment) <= b.len()))
}

/// True if `bytes` hold an end-of-central-directory record.
pub(crate) fn has_end_record(bytes: &[u8]) -> bool {
    find_end(bytes).is_some()
}

/// The central directory, read whole.
struct Directory {
    entries: Vec<Entry>,
    /// Bytes before the archive proper (a self-extractor stub), added to every offset.
    prefix: u64,
}

/// Why the central directory cannot be used.
enum DirProblem {
    Missing,
    Damaged(String),
}

/// Where the directory is, from the end record (and its ZIP64 version).
struct DirLocation {
    count: u64,
    size: u64,
    offset: u64,
    /// Where the directory must end: the (ZIP64) end record.
    end: u64,
}

fn locate_directory(b: &[u8], end: usize) -> Option<DirLocation> {
    let mut loc =
        DirLocation { count: u64::from(u16_at(b, end + 10)?), size: u64::from(u32_at(b, end + 12)?), offset: u64::from(u32_at(b, end + 16)?), end: end as u64 };
    if loc.count == 0xffff || loc.size == u64::from(SAT32) || loc.offset == u64::from(SAT32) {
        let locator = end.checked_sub(END64_LOCATOR_LEN)?;
        if sig_at(b, locator, END64_LOCATOR) {
            let record = to_usize(u64_at(b, locator + 8)?);
            // The record may be shifted by a prefix like everything else; it sits
            // right before the locator in any case.
            let record = if sig_at(b, record, END64) { record } else { find_end64_before(b, locator)? };
            loc = DirLocation { count: u64_at(b, record + 32)?, size: u64_at(b, record + 40)?, offset: u64_at(b, record + 48)?, end: record as u64 };
        }
    }
    Some(loc)
}

/// The ZIP64 end record right before the locator at `locator`, for when the
/// locator's offset is off (a prefixed archive). Only records without the
/// optional extensible data (56 bytes, which is what writers produce) are
/// found this way.
fn find_end64_before(b: &[u8], locator: usize) -> Option<usize> {
    const RECORD_LEN: usize = 56;
    let record = locator.checked_sub(RECORD_LEN)?;
    sig_at(b, record, END64).then_some(record)
}

fn central_directory(b: &[u8]) -> Result<Directory, DirProblem> {
    let end = find_end(b).ok_or(DirProblem::Missing)?;
    let damaged = |what: &str| DirProblem::Damaged(what.to_string());
    let loc = locate_directory(b, end).ok_or_else(|| damaged("end of central directory record is damaged"))?;
    let start = loc.end.checked_sub(loc.size).ok_or_else(|| damaged("central directory size exceeds the file"))?;
    let prefix = start.checked_sub(loc.offset).ok_or_else(|| damaged("central directory offset exceeds the file"))?;
    // An archive that starts with a local header has no prefix: if the numbers
    // say otherwise, the end record found belongs to something else (such as
    // a stored zip inside a truncated one).
    if prefix != 0 && b.starts_with(LOCAL) {
        return Err(damaged("central directory is not where the end record says"));
    }
    let mut entries = Vec::with_capacity(to_usize(loc.count.min((b.len() / CENTRAL_LEN) as u64)));
    let mut pos = to_usize(start);
    let dir_end = to_usize(loc.end);
    while pos < dir_end && sig_at(b, pos, CENTRAL) {
        let Some((entry, next)) = parse_central(b, pos) else {
            return Err(DirProblem::Damaged(format!("central directory entry {} is damaged", entries.len())));
        };
        entries.push(entry);
        pos = next;
    }
    let found = entries.len() as u64;
    // Some writers let the 16-bit count wrap past 65535 entries.
    if found != loc.count && !(loc.count < 0xffff && found > 0xffff && found % 0x1_0000 == loc.count) {
        return Err(DirProblem::Damaged(format!("central directory lists {found} entries where {} were announced", loc.count)));
    }
    Ok(Directory { entries, prefix })
}

/// Lists the zip archive `path` held in `view`; its members are at `depth`.
pub(crate) fn read<'a: 'b, 'b>(w: &mut Walker<'a, '_>, path: &str, view: View<'a, 'b>, depth: u32) {
    match central_directory(view.bytes()) {
        Ok(dir) => {
            // Data ranges read so far, by start: an entry whose data
            // overlaps another's (a zip made to inflate one stream many
            // times) is noted and not read again.
            let mut taken: std::collections::BTreeMap<usize, (usize, String)> = std::collections::BTreeMap::new();
            for entry in &dir.entries {
                read_listed(w, path, view, dir.prefix, entry, depth, &mut taken);
            }
        }
        Err(problem) => scan_local(w, path, view, depth, &problem),
    }
}

/// Reads one entry listed in the central directory.
fn read_listed<'a: 'b, 'b>(
    w: &mut Walker<'a, '_>,
    archive: &str,
    view: View<'a, 'b>,
    prefix: u64,
    e: &Entry,
    depth: u32,
    taken: &mut std::collections::BTreeMap<usize, (usize, String)>,
) {
    if e.is_dir() {
        return;
    }
    let member = join(archive, &clean_name(&e.name));
    let b = view.bytes();
    let header = to_usize(e.local_offset.saturating_add(prefix));
    let Some(data_at) = local_data_start(b, header) else {
        let error = if header.saturating_add(LOCAL_LEN) > b.len() {
            IngestError::Truncated { path: member, detail: "data lies beyond the end of the archive".to_string() }
        } else {
            IngestError::Corrupt { path: member, detail: format!("no local header at offset {header}") }
        };
        w.error(error);
        return;
    };
    let end = data_at.saturating_add(to_usize(e.compressed)).min(b.len());
    let before = taken.range(..=data_at).next_back().filter(|(_, (e, _))| *e > data_at);
    let after = taken.range(data_at..end.max(data_at + 1)).next();
    if let Some((_, (_, other))) = before.or(after) {
        let detail = format!("its data overlaps that of {other} (an overlapping zip entry): not read again");
        w.error(IngestError::Corrupt { path: member, detail });
        return;
    }
    taken.insert(data_at, (end.max(data_at + 1), member.clone()));
    let raw = view.sub(data_at..data_at.saturating_add(to_usize(e.compressed)));
    extract(w, member, e, raw, Some(e.crc), depth);
}

/// Emits the entry `e` whose compressed data is `raw` (cut short if the
/// archive is), checking the CRC when `crc` is known.
fn extract<'a: 'b, 'b>(w: &mut Walker<'a, '_>, member: String, e: &Entry, raw: View<'a, 'b>, crc: Option<u32>, depth: u32) {
    if e.encrypted() {
        w.skipped(member, "encrypted, skipped".to_string());
        return;
    }
    match e.method {
        STORED => extract_stored(w, member, e, raw, crc, depth),
        DEFLATED => {
            if w.budget.exhausted() {
                w.fault(&member, Fault::Total);
                return;
            }
            let mut meter = Meter::sized(raw.bytes().len() as u64);
            let inflated = inflate_all(raw.bytes(), &mut w.budget, &mut meter, e.uncompressed);
            let cut = (raw.bytes().len() as u64) < e.compressed;
            finish_inflated(w, member, e, inflated, crc, cut, depth);
        }
        method => unsupported(w, member, method),
    }
}

fn extract_stored<'a: 'b, 'b>(w: &mut Walker<'a, '_>, member: String, e: &Entry, raw: View<'a, 'b>, crc: Option<u32>, depth: u32) {
    let got = raw.bytes().len() as u64;
    if got < e.compressed {
        if got > 0 {
            w.node(member.clone(), e.mtime, raw.data(), depth);
        }
        let detail = format!("{got} of {} bytes", e.compressed);
        w.error(IngestError::Truncated { path: member, detail });
        return;
    }
    let outcome = w.node(member.clone(), e.mtime, raw.data(), depth);
    // Checked only for emitted members, whose bytes count against the caps:
    // that bounds the work when a directory lists the same bytes many times.
    if outcome == Outcome::Emitted && crc.is_some_and(|c| c != crc32(raw.bytes())) {
        w.error(IngestError::Corrupt { path: member, detail: "CRC-32 mismatch; content may be damaged".to_string() });
    }
}

/// Emits what a deflate member decompressed to, and reports how it ended.
/// `cut` says the archive ends inside the member's compressed data.
fn finish_inflated(w: &mut Walker<'_, '_>, member: String, e: &Entry, inflated: Inflated, crc: Option<u32>, cut: bool, depth: u32) {
    let Inflated { out, end, .. } = inflated;
    let got = out.len();
    let error = match end {
        End::Fault(f) => {
            w.fault(&member, f);
            return;
        }
        // The directory's size is checked as well as its CRC: a size that
        // disagrees with the data is a lying entry.
        // (A streamed entry read from its local header knows no size.)
        End::Complete if crc.is_some() && (e.uncompressed != 0 || !e.has_descriptor()) && e.uncompressed != got as u64 => {
            Some(IngestError::Corrupt { path: member.clone(), detail: format!("its directory entry says {} bytes, its data holds {got}", e.uncompressed) })
        }
        End::Complete => crc
            .filter(|&c| c != crc32(&out))
            .map(|_| IngestError::Corrupt { path: member.clone(), detail: "CRC-32 mismatch; content may be damaged".to_string() }),
        End::InputEnded if cut => {
            let of = if e.uncompressed > 0 { format!(" of {}", e.uncompressed) } else { String::new() };
            let detail = format!("deflate data ends after {got}{of} decompressed bytes");
            Some(IngestError::Truncated { path: member.clone(), detail })
        }
        End::InputEnded => {
            Some(IngestError::Corrupt { path: member.clone(), detail: format!("deflate stream does not end within its {} compressed bytes", e.compressed) })
        }
        End::Corrupt(what) => {
            Some(IngestError::Corrupt { path: member.clone(), detail: format!("deflate stream damaged after {got} decompressed bytes: {what}") })
        }
    };
    if got > 0 || error.is_none() {
        w.node(member, e.mtime, super::Data::Owned(out), depth);
    }
    if let Some(error) = error {
        w.error(error);
    }
}

fn unsupported(w: &mut Walker<'_, '_>, member: String, method: u16) {
    let name = match method {
        1 => "shrink",
        6 => "implode",
        9 => "deflate64",
        12 => "bzip2",
        14 => "LZMA",
        93 => "Zstandard",
        95 => "xz",
        98 => "PPMd",
        99 => "AES encryption",
        _ => "unknown",
    };
    let detail = format!("compression method {method} ({name})");
    w.error(IngestError::Unsupported { path: member, detail });
}

/// Reads the entries through their local headers, one after the other, when
/// the central directory cannot be used; then says why that was needed.
fn scan_local<'a: 'b, 'b>(w: &mut Walker<'a, '_>, archive: &str, view: View<'a, 'b>, depth: u32, problem: &DirProblem) {
    let b = view.bytes();
    let mut scan = LocalScan { archive, view, depth, search_left: b.len().saturating_mul(4).saturating_add(1 << 20) };
    let mut pos = resync(b, 0);
    let mut read = 0usize;
    while let Some(at) = pos {
        match parse_local(b, at) {
            Local::Found(entry, data_at) => {
                if !entry.is_dir() {
                    read += 1;
                }
                pos = scan.entry(w, &entry, data_at);
            }
            Local::Truncated => break,
            // The central directory (damaged, or we would not be here) or the end record.
            Local::Missing if [CENTRAL, END, END64].iter().any(|s| sig_at(b, at, s)) => break,
            Local::Missing => pos = resync(b, at + 1),
        }
    }
    let members = if read == 1 { "member" } else { "members" };
    let gave_up = if scan.search_left == 0 { "; gave up on further damage" } else { "" };
    let error = match problem {
        DirProblem::Missing => IngestError::TruncatedArchive {
            path: archive.to_string(),
            detail: format!("central directory missing; read {read} {members} from local headers{gave_up}"),
        },
        DirProblem::Damaged(what) => {
            IngestError::Corrupt { path: archive.to_string(), detail: format!("{what}; read {read} {members} from local headers{gave_up}") }
        }
    };
    w.error(error);
}

/// The next local header signature at or after `from`.
fn resync(b: &[u8], from: usize) -> Option<usize> {
    let rest = b.get(from..)?;
    memchr::memmem::find(rest, LOCAL).map(|i| from + i)
}

/// State of a scan through local headers.
struct LocalScan<'a, 'b, 'p> {
    archive: &'p str,
    view: View<'a, 'b>,
    depth: u32,
    /// Bytes that searches for data descriptors may still look at. Honest
    /// archives need about their own length; damaged or hostile ones could
    /// otherwise make the scan quadratic.
    search_left: usize,
}

impl<'a: 'b, 'b> LocalScan<'a, 'b, '_> {
    /// Reads the entry whose local header was parsed into `e`, its data at
    /// `data_at`; returns where the next header should be.
    fn entry(&mut self, w: &mut Walker<'a, '_>, e: &Entry, data_at: usize) -> Option<usize> {
        let b = self.view.bytes();
        let member = join(self.archive, &clean_name(&e.name));
        let sizes_follow = e.has_descriptor() && e.compressed == 0;
        if !sizes_follow {
            let data_end = data_at.saturating_add(to_usize(e.compressed));
            let crc = (!e.has_descriptor()).then_some(e.crc);
            if !e.is_dir() {
                extract(w, member, e, self.view.sub(data_at..data_end), crc, self.depth);
            }
            let next = if e.has_descriptor() { skip_descriptor(b, data_end, e.compressed, e.zip64).1 } else { Some(data_end) };
            return next.filter(|&n| n < b.len());
        }
        if e.method == DEFLATED && !e.encrypted() {
            return self.streamed_deflate(w, member, e, data_at);
        }
        // Stored (or unreadable) data whose size follows it: its descriptor says where it ends.
        let Some((data_end, crc, next)) = self.find_descriptor(data_at) else {
            if !e.is_dir() {
                let detail = "size follows the data and no data descriptor was found; skipped to the next entry";
                w.error(IngestError::Corrupt { path: member, detail: detail.to_string() });
            }
            return if self.search_left == 0 { None } else { resync(b, data_at) };
        };
        if !e.is_dir() {
            let sized = Entry { compressed: (data_end - data_at) as u64, ..e.clone() };
            extract(w, member, &sized, self.view.sub(data_at..data_end), Some(crc), self.depth);
        }
        Some(next)
    }

    /// Inflates a deflate entry whose sizes follow its data: the stream ends
    /// by itself, and the data descriptor after it is stepped over.
    fn streamed_deflate(&mut self, w: &mut Walker<'a, '_>, member: String, e: &Entry, data_at: usize) -> Option<usize> {
        let b = self.view.bytes();
        if w.budget.exhausted() {
            if !e.is_dir() {
                w.fault(&member, Fault::Total);
            }
            return resync(b, data_at);
        }
        let rest = b.get(data_at..).unwrap_or_default();
        let inflated = inflate_all(rest, &mut w.budget, &mut Meter::streaming(), 0);
        let data_end = data_at + inflated.consumed;
        let next = match inflated.end {
            End::Complete => {
                let (crc, next) = skip_descriptor(b, data_end, inflated.consumed as u64, e.zip64);
                if !e.is_dir() {
                    finish_inflated(w, member, e, inflated, crc, true, self.depth);
                }
                return next;
            }
            End::InputEnded => None,
            End::Corrupt(_) | End::Fault(_) => resync(b, data_at),
        };
        if !e.is_dir() {
            finish_inflated(w, member, e, inflated, None, true, self.depth);
        }
        next
    }

    /// Finds the data descriptor (with signature) that ends data starting at
    /// `data_at`: its size field must equal the distance. Returns where the
    /// data ends, the CRC, and where the next header starts.
    fn find_descriptor(&mut self, data_at: usize) -> Option<(usize, u32, usize)> {
        let b = self.view.bytes();
        let rest = b.get(data_at..)?;
        let window = rest.get(..self.search_left).unwrap_or(rest);
        let found = memchr::memmem::find_iter(window, DESCRIPTOR).find_map(|off| {
            let at = data_at + off;
            let crc = u32_at(b, at + 4)?;
            if u32_at(b, at + 8).is_some_and(|c| u64::from(c) == off as u64 & 0xffff_ffff) {
                Some((at, crc, at + 16))
            } else if u64_at(b, at + 8) == Some(off as u64) {
                Some((at, crc, at + 24))
            } else {
                None
            }
        });
        let searched = found.map_or(window.len(), |(at, _, _)| at - data_at);
        self.search_left -= searched.min(self.search_left);
        found
    }
}

/// Steps over the data descriptor at `at` (signature optional; sizes of 4
/// or 8 bytes) of an entry of `compressed` bytes. Returns the CRC it holds
/// and where the next header starts, when that can be told.
fn skip_descriptor(b: &[u8], at: usize, compressed: u64, zip64: bool) -> (Option<u32>, Option<usize>) {
    let body = if sig_at(b, at, DESCRIPTOR) { at + 4 } else { at };
    let lens: [usize; 2] = if zip64 { [20, 12] } else { [12, 20] };
    let size_matches = |len: usize| match len {
        12 => u32_at(b, body + 4).is_some_and(|c| u64::from(c) == compressed & 0xffff_ffff),
        _ => u64_at(b, body + 4) == Some(compressed),
    };
    let next_is_header = |len: usize| {
        let next = body + len;
        next == b.len() || [LOCAL, CENTRAL, END, END64].iter().any(|s| sig_at(b, next, s))
    };
    let chosen = lens
        .into_iter()
        .find(|&len| size_matches(len) && next_is_header(len))
        .or_else(|| lens.into_iter().find(|&len| next_is_header(len)))
        .or_else(|| lens.into_iter().find(|&len| size_matches(len)));
    match chosen {
        Some(len) => (u32_at(b, body), Some(body + len).filter(|&n| n < b.len())),
        None => (None, resync(b, at)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dos_times() {
        // 2024-03-05 14:30:22
        let date = ((2024 - 1980) << 9) | (3 << 5) | 5;
        let time = (14 << 11) | (30 << 5) | 11;
        assert_eq!(dos_time(date, time), Some(1_709_649_022));
        assert_eq!(dos_time(0, 0), None);
        assert_eq!(dos_time((44 << 9) | (13 << 5) | 1, 0), None);
    }

    #[test]
    fn impossible_dos_dates_are_no_time() {
        let time = (14 << 11) | (30 << 5) | 11;
        // 2025-02-29, 2024-02-30, 2024-04-31: no such days.
        assert_eq!(dos_time(((2025 - 1980) << 9) | (2 << 5) | 29, time), None);
        assert_eq!(dos_time(((2024 - 1980) << 9) | (2 << 5) | 30, time), None);
        assert_eq!(dos_time(((2024 - 1980) << 9) | (4 << 5) | 31, time), None);
        assert_eq!(dos_time(((2024 - 1980) << 9) | (2 << 5) | 29, time), Some(1_709_217_022));
        // Hour 24, minute 60, seconds 60 (30 two-second units).
        assert_eq!(dos_time(((2024 - 1980) << 9) | (3 << 5) | 5, 24 << 11), None);
        assert_eq!(dos_time(((2024 - 1980) << 9) | (3 << 5) | 5, 60 << 5), None);
        assert_eq!(dos_time(((2024 - 1980) << 9) | (3 << 5) | 5, 30), None);
    }

    #[test]
    fn end_record_search() {
        let mut b = vec![0u8; 100];
        b.extend_from_slice(b"PK\x05\x06");
        b.extend_from_slice(&[0; 16]);
        b.extend_from_slice(&3u16.to_le_bytes());
        b.extend_from_slice(b"abc");
        assert_eq!(find_end(&b), Some(100));
        b.pop();
        assert_eq!(find_end(&b), None);
        assert_eq!(find_end(b"PK\x05"), None);
    }
}
