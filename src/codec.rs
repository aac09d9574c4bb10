//! A compact binary form of the analysis' reconciles, for the trip from the
//! browser worker to the page.
//!
//! A big input has hundreds of thousands of reconciles; as JSON they take
//! seconds to write in the worker and to read on the page's thread (one
//! long task that freezes the tab). This form is read in tens of
//! milliseconds: fixed-width little-endian fields, one table of the
//! distinct strings (objects, kinds, errors), reconcile ids inline.
//! Objects and kinds stay shared (`Arc`) after decoding, as the analysis
//! made them.
//!
//! The page decodes them with [`ReconcileDecoder`] a chunk at a time,
//! yielding to the browser between chunks, so no task is long. The first
//! view's [`Timeline`] (laid out in the worker) travels the same way:
//! [`encode_timeline`] / [`decode_timeline`]; long lists of the analysis
//! that the page does not need as fast types (etcd client warnings,
//! findings) as JSON in chunks: [`encode_json_chunks`] /
//! [`JsonChunkDecoder`].
//!
//! Layout: `MAGIC`, string count, strings (`u32` length + UTF-8), object
//! count, objects (namespace and name as string indexes), reconcile count,
//! then one record per reconcile (see [`encode_reconciles`]). `NONE`
//! (`u32::MAX`) stands for a missing string or object.

use std::sync::Arc;

use rustc_hash::FxHashMap as HashMap;
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::analyze::{ObjectRef, Outcome, Reconcile};
use crate::layout::{Bar, Timeline};
use crate::model::Timestamp;

const MAGIC: u32 = 0x5243_0003; // "RC", version 3 (said done, error value)
const NONE: u32 = u32::MAX;

/// Why bytes could not be read back (they were cut or are not this form).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad reconcile data: {0}")]
pub struct CodecError(&'static str);

/// Writes reconciles in the compact form.
pub fn encode_reconciles(reconciles: &[Reconcile]) -> Vec<u8> {
    // The tables: objects by pointer (the analysis shares one Arc per
    // object), strings by value.
    let mut objects: Vec<&ObjectRef> = Vec::new();
    let mut object_ix: HashMap<*const ObjectRef, u32> = HashMap::default();
    let mut strings: Vec<&str> = Vec::new();
    let mut string_ix: HashMap<&str, u32> = HashMap::default();
    for r in reconciles {
        if let Some(o) = &r.object {
            if let std::collections::hash_map::Entry::Vacant(slot) = object_ix.entry(Arc::as_ptr(o)) {
                slot.insert(objects.len() as u32);
                objects.push(o);
                if let Some(ns) = &o.namespace {
                    intern(ns, &mut strings, &mut string_ix);
                }
                intern(&o.name, &mut strings, &mut string_ix);
            }
        }
        if let Some(k) = &r.kind {
            intern(k, &mut strings, &mut string_ix);
        }
        if let Some(e) = &r.error {
            intern(e, &mut strings, &mut string_ix);
        }
    }
    let ix = |s: &str| string_ix.get(s).copied().unwrap_or(NONE);

    let mut out = Vec::with_capacity(64 + reconciles.len() * 96);
    put_u32(&mut out, MAGIC);
    put_u32(&mut out, strings.len() as u32);
    for s in &strings {
        put_str(&mut out, s);
    }
    put_u32(&mut out, objects.len() as u32);
    for o in &objects {
        put_u32(&mut out, o.namespace.as_deref().map_or(NONE, ix));
        put_u32(&mut out, ix(&o.name));
    }
    put_u32(&mut out, reconciles.len() as u32);
    for r in reconciles {
        put_str(&mut out, &r.reconcile_id);
        put_u32(&mut out, r.controller as u32);
        put_u32(&mut out, r.object.as_ref().map_or(NONE, |o| object_ix[&Arc::as_ptr(o)]));
        put_u32(&mut out, r.kind.as_deref().map_or(NONE, ix));
        put_ts(&mut out, r.first);
        put_ts(&mut out, r.last);
        // (A stated start is a kind of latent start: none, none stated.)
        debug_assert!(r.latent_start.is_some() || !r.stated_start, "a stated start with no start");
        match r.latent_start {
            Some(t) => {
                out.push(if r.stated_start { 2 } else { 1 });
                put_ts(&mut out, t);
            }
            None => out.push(0),
        }
        put_u32(&mut out, r.lines);
        out.push(outcome_byte(r.outcome));
        put_u32(&mut out, r.error.as_deref().map_or(NONE, ix));
        put_u32(&mut out, r.error_value_at.unwrap_or(NONE));
        // Flags: truncated, said done.
        out.push(u8::from(r.truncated) | u8::from(r.said_done) << 1);
        put_u32(&mut out, r.lane);
        put_u32(&mut out, r.records.start);
        put_u32(&mut out, r.records.end);
    }
    out
}

fn intern<'a>(s: &'a str, strings: &mut Vec<&'a str>, index: &mut HashMap<&'a str, u32>) {
    if !index.contains_key(s) {
        index.insert(s, strings.len() as u32);
        strings.push(s);
    }
}

fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    put_u32(out, s.len() as u32);
    out.extend_from_slice(s.as_bytes());
}

fn put_ts(out: &mut Vec<u8>, t: Timestamp) {
    out.extend_from_slice(&t.nanos.to_le_bytes());
    // The top bit: no year ([`Timestamp::yearless`]).
    out.push(t.digits | if t.yearless { 0x80 } else { 0 });
}

/// Reads bytes written by [`encode_reconciles`].
pub fn decode_reconciles(bytes: &[u8]) -> Result<Vec<Reconcile>, CodecError> {
    let mut d = ReconcileDecoder::new(bytes)?;
    let mut out = Vec::with_capacity(d.len());
    while !d.is_done() {
        d.next_chunk(usize::MAX, &mut out)?;
    }
    Ok(out)
}

/// Reads bytes written by [`encode_reconciles`] a few reconciles at a time,
/// so that the page can decode hundreds of thousands of them in short
/// tasks, giving the browser its thread back between chunks:
///
/// ```
/// # use reconscope::codec::{encode_reconciles, ReconcileDecoder};
/// let bytes = encode_reconciles(&[]);
/// let mut d = ReconcileDecoder::new(&bytes)?;
/// let mut out = Vec::with_capacity(d.len());
/// while !d.is_done() {
///     d.next_chunk(10_000, &mut out)?; // then yield to the event loop
/// }
/// # Ok::<(), reconscope::codec::CodecError>(())
/// ```
///
/// Gives the same reconciles (and the same sharing of objects and kinds) as
/// [`decode_reconciles`], whatever the chunk sizes.
pub struct ReconcileDecoder<'a> {
    r: Reader<'a>,
    strings: Vec<&'a str>,
    objects: Vec<Arc<ObjectRef>>,
    kinds: HashMap<u32, Arc<str>>,
    total: usize,
    read: usize,
    done: bool,
}

impl<'a> ReconcileDecoder<'a> {
    /// Reads the header and the string and object tables.
    pub fn new(bytes: &'a [u8]) -> Result<ReconcileDecoder<'a>, CodecError> {
        let mut r = Reader { bytes, pos: 0 };
        if r.u32()? != MAGIC {
            return Err(CodecError("unknown version"));
        }
        let n = r.count(4)?;
        let mut strings: Vec<&str> = Vec::with_capacity(n);
        for _ in 0..n {
            strings.push(r.str()?);
        }
        let n = r.count(8)?;
        let mut objects = Vec::with_capacity(n);
        for _ in 0..n {
            let namespace = string(&strings, r.u32()?)?.map(str::to_string);
            let name = string(&strings, r.u32()?)?.ok_or(CodecError("object without a name"))?.to_string();
            objects.push(Arc::new(ObjectRef { namespace, name }));
        }
        let total = r.count(50)?;
        Ok(ReconcileDecoder { r, strings, objects, kinds: HashMap::default(), total, read: 0, done: false })
    }

    /// How many reconciles the bytes hold.
    pub fn len(&self) -> usize {
        self.total
    }

    /// True when the bytes hold no reconciles.
    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// How many were decoded so far.
    pub fn decoded(&self) -> usize {
        self.read
    }

    /// True once every reconcile was decoded and the end of the bytes
    /// checked.
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// Decodes up to `max` more reconciles onto `out`; after the last one,
    /// checks that nothing follows. Returns how many it added. An error
    /// leaves the decoder where it failed (do not call it again).
    pub fn next_chunk(&mut self, max: usize, out: &mut Vec<Reconcile>) -> Result<usize, CodecError> {
        let n = max.min(self.total - self.read);
        for _ in 0..n {
            let rec = self.one()?;
            out.push(rec);
            self.read += 1;
        }
        if self.read == self.total && !self.done {
            if self.r.pos != self.r.bytes.len() {
                return Err(CodecError("trailing bytes"));
            }
            self.done = true;
        }
        Ok(n)
    }

    fn one(&mut self) -> Result<Reconcile, CodecError> {
        let r = &mut self.r;
        let strings = &self.strings;
        let reconcile_id = r.str()?.to_string();
        let controller = r.u32()? as usize;
        let object = match r.u32()? {
            NONE => None,
            i => Some(self.objects.get(i as usize).ok_or(CodecError("object index out of range"))?.clone()),
        };
        let kind = match r.u32()? {
            NONE => None,
            i => {
                let s = string(strings, i)?.unwrap_or_default();
                Some(self.kinds.entry(i).or_insert_with(|| Arc::from(s)).clone())
            }
        };
        let first = r.ts()?;
        let last = r.ts()?;
        let (latent_start, stated_start) = match r.u8()? {
            0 => (None, false),
            1 => (Some(r.ts()?), false),
            2 => (Some(r.ts()?), true),
            _ => return Err(CodecError("bad latent start")),
        };
        let lines = r.u32()?;
        let outcome = outcome_of(r.u8()?)?;
        let error = string(strings, r.u32()?)?.map(str::to_string);
        let error_value_at = Some(r.u32()?).filter(|&at| at != NONE);
        let flags = r.u8()?;
        if flags > 3 {
            return Err(CodecError("bad flags"));
        }
        let (truncated, said_done) = (flags & 1 == 1, flags & 2 == 2);
        let lane = r.u32()?;
        let records = r.u32()?..r.u32()?;
        Ok(Reconcile {
            reconcile_id,
            controller,
            object,
            kind,
            first,
            last,
            latent_start,
            stated_start,
            lines,
            outcome,
            said_done,
            error,
            error_value_at,
            truncated,
            lane,
            records,
        })
    }
}

/// String `i` of the table (`NONE`: no string).
fn string<'a>(strings: &[&'a str], i: u32) -> Result<Option<&'a str>, CodecError> {
    match i {
        NONE => Ok(None),
        i => strings.get(i as usize).copied().map(Some).ok_or(CodecError("string index out of range")),
    }
}

const TIMELINE_MAGIC: u32 = 0x544C_0001; // "TL", version 1
/// Bytes per bar: row, reconcile, three times, outcome, tick.
const BAR_BYTES: usize = 4 + 4 + 8 * 3 + 1 + 1;

/// Writes a timeline for the trip from the worker to the page: its bars
/// (and `max_end_prefix`) as fixed-width little-endian records, everything
/// else as the JSON of [`Timeline`] with those two fields emptied (so a
/// field added to `Timeline` travels without a change here).
///
/// Layout: `TIMELINE_MAGIC`, JSON length + JSON, bar count, bars (row,
/// reconcile: `u32`; start, first, end: `i64`; outcome, tick: `u8`), prefix
/// count (0 or the bar count), prefix values (`i64`).
pub fn encode_timeline(mut tl: Timeline) -> Vec<u8> {
    let bars = std::mem::take(&mut tl.bars);
    let prefix = std::mem::take(&mut tl.max_end_prefix);
    // Serializing a Timeline cannot fail: every map key is a string.
    let json = serde_json::to_vec(&tl).unwrap_or_default();
    let mut out = Vec::with_capacity(16 + json.len() + bars.len() * BAR_BYTES + prefix.len() * 8);
    put_u32(&mut out, TIMELINE_MAGIC);
    put_u32(&mut out, json.len() as u32);
    out.extend_from_slice(&json);
    put_u32(&mut out, bars.len() as u32);
    for b in &bars {
        put_u32(&mut out, b.row);
        put_u32(&mut out, b.reconcile);
        out.extend_from_slice(&b.start_nanos.to_le_bytes());
        out.extend_from_slice(&b.first_nanos.to_le_bytes());
        out.extend_from_slice(&b.end_nanos.to_le_bytes());
        out.push(outcome_byte(b.outcome));
        out.push(u8::from(b.tick));
    }
    put_u32(&mut out, prefix.len() as u32);
    for m in &prefix {
        out.extend_from_slice(&m.to_le_bytes());
    }
    out
}

/// Reads bytes written by [`encode_timeline`].
pub fn decode_timeline(bytes: &[u8]) -> Result<Timeline, CodecError> {
    let mut d = TimelineDecoder::new(bytes)?;
    while !d.is_done() {
        d.next_chunk(usize::MAX)?;
    }
    d.finish()
}

/// Reads bytes written by [`encode_timeline`] a chunk of bars at a time
/// (like [`ReconcileDecoder`]): [`TimelineDecoder::next_chunk`] until
/// [`TimelineDecoder::is_done`], then [`TimelineDecoder::finish`].
pub struct TimelineDecoder<'a> {
    r: Reader<'a>,
    tl: Timeline,
    bars: usize,
    /// The prefix' length, once the bars are read.
    prefix: Option<usize>,
    done: bool,
}

impl<'a> TimelineDecoder<'a> {
    /// Reads the header and everything but the bars and the prefix.
    pub fn new(bytes: &'a [u8]) -> Result<TimelineDecoder<'a>, CodecError> {
        let mut r = Reader { bytes, pos: 0 };
        if r.u32()? != TIMELINE_MAGIC {
            return Err(CodecError("unknown timeline version"));
        }
        let n = r.u32()? as usize;
        let mut tl: Timeline = serde_json::from_slice(r.take(n)?).map_err(|_| CodecError("bad timeline JSON"))?;
        let bars = r.count(BAR_BYTES)?;
        tl.bars = Vec::with_capacity(bars);
        tl.max_end_prefix = Vec::new();
        Ok(TimelineDecoder { r, tl, bars, prefix: None, done: false })
    }

    /// True once everything was read and checked.
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// Reads up to `max` more bars (or prefix values, after the bars).
    pub fn next_chunk(&mut self, max: usize) -> Result<(), CodecError> {
        let r = &mut self.r;
        let n = max.min(self.bars - self.tl.bars.len());
        for _ in 0..n {
            let b = r.take(BAR_BYTES)?;
            let u = |at: usize| u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]);
            let i = |at: usize| {
                let mut x = [0u8; 8];
                x.copy_from_slice(&b[at..at + 8]);
                i64::from_le_bytes(x)
            };
            self.tl.bars.push(Bar {
                row: u(0),
                reconcile: u(4),
                start_nanos: i(8),
                first_nanos: i(16),
                end_nanos: i(24),
                outcome: outcome_of(b[32])?,
                tick: b[33] == 1,
            });
        }
        if self.tl.bars.len() < self.bars || self.done {
            return Ok(());
        }
        let total = match self.prefix {
            Some(p) => p,
            None => {
                let p = r.count(8)?;
                if p != 0 && p != self.bars {
                    return Err(CodecError("prefix length differs from the bar count"));
                }
                self.tl.max_end_prefix.reserve_exact(p);
                self.prefix = Some(p);
                p
            }
        };
        let n = max.min(total - self.tl.max_end_prefix.len());
        for _ in 0..n {
            let mut x = [0u8; 8];
            x.copy_from_slice(r.take(8)?);
            self.tl.max_end_prefix.push(i64::from_le_bytes(x));
        }
        if self.tl.max_end_prefix.len() == total {
            if r.pos != r.bytes.len() {
                return Err(CodecError("trailing bytes"));
            }
            let nbars = self.tl.bars.len();
            if self.tl.rows.iter().any(|row| row.bar_start > row.bar_end || row.bar_end as usize > nbars) {
                return Err(CodecError("row bars out of range"));
            }
            self.done = true;
        }
        Ok(())
    }

    /// The timeline, once [`TimelineDecoder::is_done`].
    pub fn finish(self) -> Result<Timeline, CodecError> {
        if self.done {
            Ok(self.tl)
        } else {
            Err(CodecError("timeline not read to its end"))
        }
    }
}

const JSON_CHUNKS_MAGIC: u32 = 0x4A43_0001; // "JC", version 1

/// Writes a long list as JSON arrays of at most `per_chunk` items each, so
/// that the page can read it in short tasks ([`JsonChunkDecoder`]) where
/// one JSON document would take one long task (tens of thousands of etcd
/// client warnings on a big input).
///
/// Layout: `JSON_CHUNKS_MAGIC`, item count, chunk count, then per chunk its
/// item count, JSON length and JSON.
pub fn encode_json_chunks<T: Serialize>(items: &[T], per_chunk: usize) -> Vec<u8> {
    let per_chunk = per_chunk.max(1);
    let mut out = Vec::new();
    put_u32(&mut out, JSON_CHUNKS_MAGIC);
    put_u32(&mut out, items.len() as u32);
    put_u32(&mut out, items.len().div_ceil(per_chunk) as u32);
    for chunk in items.chunks(per_chunk) {
        // Serializing these types cannot fail: every map key is a string.
        let json = serde_json::to_vec(chunk).unwrap_or_default();
        put_u32(&mut out, chunk.len() as u32);
        put_u32(&mut out, json.len() as u32);
        out.extend_from_slice(&json);
    }
    out
}

/// Reads bytes written by [`encode_json_chunks`] in one go.
pub fn decode_json_chunks<T: DeserializeOwned>(bytes: &[u8]) -> Result<Vec<T>, CodecError> {
    let mut d = JsonChunkDecoder::new(bytes)?;
    let mut out = Vec::with_capacity(d.len());
    while !d.is_done() {
        d.next_chunk(&mut out)?;
    }
    Ok(out)
}

/// Reads bytes written by [`encode_json_chunks`] a chunk at a time.
pub struct JsonChunkDecoder<'a> {
    r: Reader<'a>,
    items: usize,
    chunks: usize,
    read_items: usize,
    read_chunks: usize,
    done: bool,
}

impl<'a> JsonChunkDecoder<'a> {
    pub fn new(bytes: &'a [u8]) -> Result<JsonChunkDecoder<'a>, CodecError> {
        let mut r = Reader { bytes, pos: 0 };
        if r.u32()? != JSON_CHUNKS_MAGIC {
            return Err(CodecError("unknown chunked JSON version"));
        }
        // Every item takes at least a byte of JSON.
        let items = r.count(1)?;
        let chunks = r.count(8)?;
        if chunks > items {
            return Err(CodecError("more chunks than items"));
        }
        Ok(JsonChunkDecoder { r, items, chunks, read_items: 0, read_chunks: 0, done: false })
    }

    /// How many items the bytes hold.
    pub fn len(&self) -> usize {
        self.items
    }

    /// True when the bytes hold no items.
    pub fn is_empty(&self) -> bool {
        self.items == 0
    }

    /// True once every chunk was read and the end of the bytes checked.
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// Decodes the next chunk onto `out`; after the last, checks that the
    /// item count adds up and nothing follows. Returns how many it added.
    pub fn next_chunk<T: DeserializeOwned>(&mut self, out: &mut Vec<T>) -> Result<usize, CodecError> {
        let mut added = 0;
        if self.read_chunks < self.chunks {
            let n = self.r.u32()? as usize;
            let len = self.r.u32()? as usize;
            let items: Vec<T> = serde_json::from_slice(self.r.take(len)?).map_err(|_| CodecError("bad JSON chunk"))?;
            if items.len() != n || self.read_items + n > self.items {
                return Err(CodecError("chunk item count differs"));
            }
            added = n;
            out.extend(items);
            self.read_items += n;
            self.read_chunks += 1;
        }
        if self.read_chunks == self.chunks && !self.done {
            if self.read_items != self.items {
                return Err(CodecError("chunk item count differs"));
            }
            if self.r.pos != self.r.bytes.len() {
                return Err(CodecError("trailing bytes"));
            }
            self.done = true;
        }
        Ok(added)
    }
}

fn outcome_byte(o: Outcome) -> u8 {
    match o {
        Outcome::Success => 0,
        Outcome::Requeue => 1,
        Outcome::Error => 2,
        Outcome::Unfinished => 3,
    }
}

fn outcome_of(b: u8) -> Result<Outcome, CodecError> {
    match b {
        0 => Ok(Outcome::Success),
        1 => Ok(Outcome::Requeue),
        2 => Ok(Outcome::Error),
        3 => Ok(Outcome::Unfinished),
        _ => Err(CodecError("unknown outcome")),
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], CodecError> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.bytes.len()).ok_or(CodecError("cut short"))?;
        let s = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(s)
    }
    fn u8(&mut self) -> Result<u8, CodecError> {
        Ok(self.take(1)?[0])
    }
    fn u32(&mut self) -> Result<u32, CodecError> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    /// A count of items at least `min_size` bytes each (so a bad count
    /// cannot ask for a huge allocation).
    fn count(&mut self, min_size: usize) -> Result<usize, CodecError> {
        let n = self.u32()? as usize;
        if n.saturating_mul(min_size) > self.bytes.len() - self.pos {
            return Err(CodecError("count larger than the data"));
        }
        Ok(n)
    }
    fn str(&mut self) -> Result<&'a str, CodecError> {
        let n = self.u32()? as usize;
        std::str::from_utf8(self.take(n)?).map_err(|_| CodecError("invalid UTF-8"))
    }
    fn ts(&mut self) -> Result<Timestamp, CodecError> {
        let b = self.take(9)?;
        let mut n = [0u8; 8];
        n.copy_from_slice(&b[..8]);
        Ok(Timestamp { nanos: i64::from_le_bytes(n), digits: (b[8] & 0x7f).min(9), yearless: b[8] & 0x80 != 0 })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reconcile(i: usize, object: Option<Arc<ObjectRef>>, kind: Option<Arc<str>>) -> Reconcile {
        Reconcile {
            reconcile_id: format!("id-{i}"),
            controller: i % 3,
            object,
            kind,
            first: Timestamp::new(1_000 + i as i64, 6),
            last: Timestamp::new(-5_000_000_000_000 + i as i64, 9),
            latent_start: i.is_multiple_of(2).then(|| Timestamp::new(900, 0)),
            stated_start: i % 4 == 2,
            lines: i as u32 * 7,
            outcome: Outcome::ALL[i % 4],
            said_done: i % 3 == 1,
            error: (i % 3 == 2).then(|| format!("boom {} ünïcode", i % 4)),
            error_value_at: (i % 3 == 2 && i.is_multiple_of(2)).then_some(6),
            truncated: i.is_multiple_of(5),
            lane: i as u32 % 4,
            records: (i as u32 * 10)..(i as u32 * 10 + 3),
        }
    }

    #[test]
    fn round_trip_keeps_every_field_and_sharing() {
        let a = Arc::new(ObjectRef { namespace: Some("tenant-a".into()), name: "tcp".into() });
        let b = Arc::new(ObjectRef { namespace: None, name: "cluster-scoped".into() });
        let k: Arc<str> = Arc::from("TenantControlPlane");
        let rs: Vec<Reconcile> = (0..40)
            .map(|i| match i % 3 {
                0 => reconcile(i, Some(a.clone()), Some(k.clone())),
                1 => reconcile(i, Some(b.clone()), None),
                _ => reconcile(i, None, Some(k.clone())),
            })
            .collect();
        let bytes = encode_reconciles(&rs);
        let back = decode_reconciles(&bytes).unwrap();
        assert_eq!(back, rs);
        // One Arc per object and kind, as the analysis made them.
        assert!(Arc::ptr_eq(back[0].object.as_ref().unwrap(), back[3].object.as_ref().unwrap()));
        assert!(Arc::ptr_eq(back[0].kind.as_ref().unwrap(), back[2].kind.as_ref().unwrap()));
        assert_eq!(decode_reconciles(&encode_reconciles(&[])).unwrap(), vec![]);
    }

    #[test]
    fn chunked_decoding_equals_whole_decoding() {
        let a = Arc::new(ObjectRef { namespace: Some("tenant-a".into()), name: "tcp".into() });
        let k: Arc<str> = Arc::from("TenantControlPlane");
        let rs: Vec<Reconcile> = (0..97).map(|i| if i % 2 == 0 { reconcile(i, Some(a.clone()), Some(k.clone())) } else { reconcile(i, None, None) }).collect();
        let bytes = encode_reconciles(&rs);
        for chunk in [1, 2, 7, 32, 96, 97, 98, 1000] {
            let mut d = ReconcileDecoder::new(&bytes).unwrap();
            assert_eq!((d.len(), d.is_empty(), d.is_done()), (97, false, false));
            let mut out = Vec::new();
            let mut calls = 0;
            while !d.is_done() {
                let n = d.next_chunk(chunk, &mut out).unwrap();
                assert!(n <= chunk);
                assert_eq!(d.decoded(), out.len());
                calls += 1;
            }
            assert_eq!(calls, 97usize.div_ceil(chunk), "chunk {chunk}");
            assert_eq!(out, rs, "chunk {chunk}");
            // Sharing survives chunk boundaries.
            assert!(Arc::ptr_eq(out[0].object.as_ref().unwrap(), out[96].object.as_ref().unwrap()));
            assert!(Arc::ptr_eq(out[0].kind.as_ref().unwrap(), out[96].kind.as_ref().unwrap()));
            assert_eq!(d.next_chunk(chunk, &mut out), Ok(0), "nothing after the end");
        }
        // No reconciles: done after one call.
        let empty = encode_reconciles(&[]);
        let mut d = ReconcileDecoder::new(&empty).unwrap();
        assert!(d.is_empty() && !d.is_done());
        assert_eq!(d.next_chunk(10, &mut Vec::new()), Ok(0));
        assert!(d.is_done());
    }

    #[test]
    fn chunked_decoding_reports_bad_bytes() {
        let rs: Vec<Reconcile> = (0..6).map(|i| reconcile(i, None, None)).collect();
        let bytes = encode_reconciles(&rs);
        let chunked = |b: &[u8]| -> Result<Vec<Reconcile>, CodecError> {
            let mut d = ReconcileDecoder::new(b)?;
            let mut out = Vec::new();
            while !d.is_done() {
                d.next_chunk(4, &mut out)?;
            }
            Ok(out)
        };
        for cut in 0..bytes.len() {
            assert!(chunked(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        let mut extra = bytes.clone();
        extra.push(0);
        assert_eq!(chunked(&extra), Err(CodecError("trailing bytes")));
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0xff;
            assert_eq!(chunked(&b).is_ok(), decode_reconciles(&b).is_ok(), "flipped byte {i}");
        }
    }

    fn timeline() -> Timeline {
        use crate::layout::{Band, Highlight, Marker, MarkerKind, Row};
        let bar = |row: u32, reconcile: u32, start: i64, outcome, tick| Bar {
            row,
            reconcile,
            start_nanos: start,
            first_nanos: start + 5,
            end_nanos: start + 100 * i64::from(reconcile),
            outcome,
            tick,
        };
        let bars = vec![bar(1, 0, -7, Outcome::Success, false), bar(1, 2, 40, Outcome::Error, true), bar(2, 1, i64::MIN / 2, Outcome::Unfinished, false)];
        let row = |key: &str, depth, bar_start, bar_end| Row {
            key: key.into(),
            label: format!("label ü {key}"),
            depth,
            controller: 0,
            collapsed: depth == 0,
            bar_start,
            bar_end,
        };
        Timeline {
            start_nanos: -7,
            end_nanos: 9_000,
            rows: vec![row("c:a", 0, 0, 0), row("c:a/o:x", 1, 0, 2), row("c:a/o:y", 1, 2, 3)],
            max_end_prefix: vec![-7, 40 + 200, i64::MIN / 2 + 100],
            bars,
            bands: vec![Band { election: 0, start_nanos: 1, end_nanos: 2, leaderless_start_nanos: Some(2), label: "etcd".into() }],
            markers: vec![Marker { row: 1, at_nanos: 3, kind: MarkerKind::Deleted, label: "gone".into() }],
            highlights: vec![Highlight { finding: 0, kind: crate::analyze::FindingKind::StalledWorker, start_nanos: 0, end_nanos: 10, rows: vec![1, 2] }],
            precision_nanos: 1_000_000,
            ..Timeline::default()
        }
    }

    #[test]
    fn timeline_round_trip() {
        let tl = timeline();
        assert_eq!(decode_timeline(&encode_timeline(tl.clone())).unwrap(), tl);
        // Without the prefix (a timeline made without one) and empty.
        let mut no_prefix = tl.clone();
        no_prefix.max_end_prefix.clear();
        assert_eq!(decode_timeline(&encode_timeline(no_prefix.clone())).unwrap(), no_prefix);
        assert_eq!(decode_timeline(&encode_timeline(Timeline::default())).unwrap(), Timeline::default());
    }

    #[test]
    fn json_chunks_round_trip() {
        let items: Vec<(u32, String)> = (0..25).map(|i| (i, format!("item ü {i}"))).collect();
        for per in [0, 1, 4, 25, 100] {
            let bytes = encode_json_chunks(&items, per);
            assert_eq!(decode_json_chunks::<(u32, String)>(&bytes).unwrap(), items, "per {per}");
            let mut d = JsonChunkDecoder::new(&bytes).unwrap();
            assert_eq!((d.len(), d.is_empty()), (25, false));
            let mut out: Vec<(u32, String)> = Vec::new();
            let mut calls = 0;
            while !d.is_done() {
                assert!(d.next_chunk(&mut out).unwrap() <= per.max(1));
                calls += 1;
            }
            assert_eq!(calls, 25usize.div_ceil(per.max(1)));
            assert_eq!(out, items);
        }
        let empty = encode_json_chunks::<u32>(&[], 10);
        assert_eq!(decode_json_chunks::<u32>(&empty).unwrap(), Vec::<u32>::new());
        assert!(JsonChunkDecoder::new(&empty).unwrap().is_empty());
    }

    #[test]
    fn bad_json_chunks_are_an_error_not_a_panic() {
        let items: Vec<String> = (0..9).map(|i| format!("x{i}")).collect();
        let bytes = encode_json_chunks(&items, 4);
        for cut in 0..bytes.len() {
            assert!(decode_json_chunks::<String>(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        let mut extra = bytes.clone();
        extra.push(0);
        assert_eq!(decode_json_chunks::<String>(&extra), Err(CodecError("trailing bytes")));
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0xff;
            let _ = decode_json_chunks::<String>(&b);
        }
        // The wrong item type.
        assert_eq!(decode_json_chunks::<u32>(&bytes), Err(CodecError("bad JSON chunk")));
        // A total that does not add up.
        let mut b = bytes.clone();
        b[4] = 8;
        assert_eq!(decode_json_chunks::<String>(&b), Err(CodecError("chunk item count differs")));
    }

    #[test]
    fn chunked_timeline_decoding() {
        let tl = timeline();
        let bytes = encode_timeline(tl.clone());
        for max in [1, 2, 3, 4] {
            let mut d = TimelineDecoder::new(&bytes).unwrap();
            let mut calls = 0;
            while !d.is_done() {
                d.next_chunk(max).unwrap();
                calls += 1;
                assert!(calls < 10);
            }
            assert_eq!(d.finish().unwrap(), tl, "max {max}");
        }
        let mut d = TimelineDecoder::new(&bytes).unwrap();
        d.next_chunk(1).unwrap();
        assert_eq!(d.finish(), Err(CodecError("timeline not read to its end")));
    }

    #[test]
    fn bad_timeline_bytes_are_an_error_not_a_panic() {
        let bytes = encode_timeline(timeline());
        for cut in 0..bytes.len() {
            assert!(decode_timeline(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        let mut extra = bytes.clone();
        extra.push(0);
        assert_eq!(decode_timeline(&extra), Err(CodecError("trailing bytes")));
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0xff;
            let _ = decode_timeline(&b);
        }
        // A row whose bars lie past the end.
        let mut tl = timeline();
        tl.rows[2].bar_end = 9;
        assert_eq!(decode_timeline(&encode_timeline(tl)), Err(CodecError("row bars out of range")));
        // A prefix of another length.
        let mut tl = timeline();
        tl.max_end_prefix.pop();
        assert_eq!(decode_timeline(&encode_timeline(tl)), Err(CodecError("prefix length differs from the bar count")));
        assert_eq!(decode_timeline(&encode_reconciles(&[])), Err(CodecError("unknown timeline version")));
    }

    #[test]
    fn bad_bytes_are_an_error_not_a_panic() {
        let rs: Vec<Reconcile> = (0..5).map(|i| reconcile(i, None, None)).collect();
        let bytes = encode_reconciles(&rs);
        for cut in 0..bytes.len() {
            assert!(decode_reconciles(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        let mut extra = bytes.clone();
        extra.push(0);
        assert_eq!(decode_reconciles(&extra), Err(CodecError("trailing bytes")));
        let mut huge = MAGIC.to_le_bytes().to_vec();
        huge.extend_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(decode_reconciles(&huge), Err(CodecError("count larger than the data")));
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0xff;
            let _ = decode_reconciles(&b);
        }
    }
}
