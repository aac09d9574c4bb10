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
//! Layout: `MAGIC`, string count, strings (`u32` length + UTF-8), object
//! count, objects (namespace and name as string indexes), reconcile count,
//! then one record per reconcile (see [`encode_reconciles`]). `NONE`
//! (`u32::MAX`) stands for a missing string or object.

use std::sync::Arc;

use rustc_hash::FxHashMap as HashMap;

use crate::analyze::{ObjectRef, Outcome, Reconcile};
use crate::model::Timestamp;

const MAGIC: u32 = 0x5243_0001; // "RC", version 1
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
        match r.latent_start {
            Some(t) => {
                out.push(1);
                put_ts(&mut out, t);
            }
            None => out.push(0),
        }
        put_u32(&mut out, r.lines);
        out.push(match r.outcome {
            Outcome::Success => 0,
            Outcome::Requeue => 1,
            Outcome::Error => 2,
        });
        put_u32(&mut out, r.error.as_deref().map_or(NONE, ix));
        out.push(u8::from(r.truncated));
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
    out.push(t.digits);
}

/// Reads bytes written by [`encode_reconciles`].
pub fn decode_reconciles(bytes: &[u8]) -> Result<Vec<Reconcile>, CodecError> {
    let mut r = Reader { bytes, pos: 0 };
    if r.u32()? != MAGIC {
        return Err(CodecError("unknown version"));
    }
    let n = r.count(4)?;
    let mut strings: Vec<&str> = Vec::with_capacity(n);
    for _ in 0..n {
        strings.push(r.str()?);
    }
    let string = |i: u32| -> Result<Option<&str>, CodecError> {
        match i {
            NONE => Ok(None),
            i => strings.get(i as usize).copied().map(Some).ok_or(CodecError("string index out of range")),
        }
    };
    let n = r.count(8)?;
    let mut objects = Vec::with_capacity(n);
    for _ in 0..n {
        let namespace = string(r.u32()?)?.map(str::to_string);
        let name = string(r.u32()?)?.ok_or(CodecError("object without a name"))?.to_string();
        objects.push(Arc::new(ObjectRef { namespace, name }));
    }
    let mut kinds: HashMap<u32, Arc<str>> = HashMap::default();
    let n = r.count(50)?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let reconcile_id = r.str()?.to_string();
        let controller = r.u32()? as usize;
        let object = match r.u32()? {
            NONE => None,
            i => Some(objects.get(i as usize).ok_or(CodecError("object index out of range"))?.clone()),
        };
        let kind = match r.u32()? {
            NONE => None,
            i => {
                let s = string(i)?.unwrap_or_default();
                Some(kinds.entry(i).or_insert_with(|| Arc::from(s)).clone())
            }
        };
        let first = r.ts()?;
        let last = r.ts()?;
        let latent_start = if r.u8()? == 1 { Some(r.ts()?) } else { None };
        let lines = r.u32()?;
        let outcome = match r.u8()? {
            0 => Outcome::Success,
            1 => Outcome::Requeue,
            2 => Outcome::Error,
            _ => return Err(CodecError("unknown outcome")),
        };
        let error = string(r.u32()?)?.map(str::to_string);
        let truncated = r.u8()? == 1;
        let lane = r.u32()?;
        let records = r.u32()?..r.u32()?;
        out.push(Reconcile {
            reconcile_id,
            controller,
            object,
            kind,
            first,
            last,
            latent_start,
            lines,
            outcome,
            error,
            truncated,
            lane,
            records,
        });
    }
    if r.pos != bytes.len() {
        return Err(CodecError("trailing bytes"));
    }
    Ok(out)
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
        Ok(Timestamp { nanos: i64::from_le_bytes(n), digits: b[8].min(9) })
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
            lines: i as u32 * 7,
            outcome: [Outcome::Success, Outcome::Requeue, Outcome::Error][i % 3],
            error: (i % 3 == 2).then(|| format!("boom {} ünïcode", i % 4)),
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
