//! Cap accounting, and raw deflate of a stream held whole in memory.

use flate2::{Decompress, FlushDecompress, Status};

use super::IngestOptions;

/// Output produced per decompression step; caps are checked after each.
pub(crate) const CHUNK: usize = 64 * 1024;

/// Compressed sizes below this are treated as this for the ratio cap, so
/// that tiny, highly compressible files never trip it.
const RATIO_FLOOR: u64 = 1024;

/// Most memory reserved up front on the strength of a declared size.
const MAX_UPFRONT: u64 = 64 << 20;

/// Why decompression of a member or stream stopped early.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Fault {
    /// The member's output went over `max_ratio` times its compressed size.
    Ratio,
    /// The output over the whole input went over `max_total_bytes`.
    Total,
    /// A buffer for the output could not be allocated.
    OutOfMemory { bytes: u64 },
    /// A gzip stream's input ended before the stream did.
    GzTruncated { after: u64 },
    /// A gzip stream is damaged.
    GzCorrupt { after: u64, detail: String },
}

/// The caps' running state over one input.
#[derive(Debug)]
pub(crate) struct Budget {
    max_total: u64,
    max_ratio: u64,
    used: u64,
    exhausted: bool,
}

/// Output counter of one compressed member or stream, for the ratio cap.
#[derive(Debug)]
pub(crate) struct Meter {
    produced: u64,
    /// Compressed size, when known up front; otherwise the compressed bytes
    /// consumed so far are the base.
    compressed: Option<u64>,
}

impl Meter {
    /// A meter for a member of known compressed size.
    pub(crate) fn sized(compressed: u64) -> Meter {
        Meter { produced: 0, compressed: Some(compressed) }
    }

    /// A meter for a member whose compressed size is learnt while reading it.
    pub(crate) fn streaming() -> Meter {
        Meter { produced: 0, compressed: None }
    }
}

impl Budget {
    /// A budget of which `used` bytes are spent already (by a run's
    /// earlier inputs).
    pub(crate) fn with_used(opts: &IngestOptions, used: u64) -> Budget {
        Budget { max_total: opts.max_total_bytes, max_ratio: opts.max_ratio, used, exhausted: used >= opts.max_total_bytes }
    }

    pub(crate) fn used(&self) -> u64 {
        self.used
    }

    pub(crate) fn max_total(&self) -> u64 {
        self.max_total
    }

    pub(crate) fn max_ratio(&self) -> u64 {
        self.max_ratio
    }

    /// True once the total cap has been hit: compressed members are then
    /// refused without being decompressed.
    pub(crate) fn exhausted(&self) -> bool {
        self.exhausted
    }

    fn ratio_limit(&self, meter: &Meter, consumed: u64) -> u64 {
        let base = meter.compressed.unwrap_or(consumed).max(RATIO_FLOOR);
        self.max_ratio.saturating_mul(base)
    }

    /// Counts `n` decompressed bytes of the member measured by `meter`, of
    /// which `consumed` compressed bytes have been read so far.
    pub(crate) fn charge(&mut self, meter: &mut Meter, n: u64, consumed: u64) -> Result<(), Fault> {
        let used = self.used.saturating_add(n);
        if used > self.max_total {
            self.exhausted = true;
            return Err(Fault::Total);
        }
        let produced = meter.produced.saturating_add(n);
        if produced > self.ratio_limit(meter, consumed) {
            return Err(Fault::Ratio);
        }
        self.used = used;
        meter.produced = produced;
        Ok(())
    }

    /// Counts `n` bytes emitted without decompression.
    pub(crate) fn charge_stored(&mut self, n: u64) -> Result<(), Fault> {
        let used = self.used.saturating_add(n);
        if used > self.max_total {
            self.exhausted = true;
            return Err(Fault::Total);
        }
        self.used = used;
        Ok(())
    }

    /// How many more bytes the member measured by `meter` may produce.
    pub(crate) fn headroom(&self, meter: &Meter, consumed: u64) -> u64 {
        let total = self.max_total.saturating_sub(self.used);
        let ratio = self.ratio_limit(meter, consumed).saturating_sub(meter.produced);
        total.min(ratio)
    }
}

/// Makes room in `out` for the next decompression step. While the output is
/// within `hint` (a declared size, trusted while consistent) any spare room
/// will do; past it at least `CHUNK` bytes are made spare, doubling the
/// buffer but never past what the caps still allow (`headroom`).
pub(crate) fn reserve_chunk(out: &mut Vec<u8>, hint: u64, headroom: u64) -> Result<(), Fault> {
    let spare = out.capacity() - out.len();
    let len = out.len() as u64;
    if spare >= CHUNK || (spare > 0 && len <= hint) {
        return Ok(());
    }
    let want = len.saturating_add(CHUNK as u64);
    let doubled = (out.capacity() as u64).saturating_mul(2);
    let ceiling = want.saturating_add(headroom);
    try_reserve_total(out, doubled.min(ceiling).max(want))
}

/// Makes the capacity of `out` at least `target` bytes, reporting failure
/// instead of aborting.
pub(crate) fn try_reserve_total(out: &mut Vec<u8>, target: u64) -> Result<(), Fault> {
    let additional = usize::try_from(target).unwrap_or(usize::MAX).saturating_sub(out.len());
    out.try_reserve_exact(additional).map_err(|_| Fault::OutOfMemory { bytes: target })
}

/// A first allocation for output declared to be `declared` bytes (with a
/// little slack, so that the end of the stream fits without growing).
pub(crate) fn initial_capacity(declared: u64, headroom: u64) -> usize {
    let slack = if declared > 0 { 256 } else { 0 };
    usize::try_from(declared.min(headroom).min(MAX_UPFRONT).saturating_add(slack)).unwrap_or(0)
}

/// How a raw deflate stream ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum End {
    /// The stream's final block was read.
    Complete,
    /// The input ran out first.
    InputEnded,
    /// The stream is damaged.
    Corrupt(String),
    /// A cap was hit, or memory ran out; the output is to be dropped.
    Fault(Fault),
}

/// The result of [`inflate_all`].
pub(crate) struct Inflated {
    /// Everything decompressed (empty after a fault).
    pub(crate) out: Vec<u8>,
    /// Compressed bytes read.
    pub(crate) consumed: usize,
    pub(crate) end: End,
}

/// Inflates the raw deflate stream at the start of `input`, stopping at its
/// end (bytes after it are left alone), at a fault, or when a cap is hit.
/// `declared` is the size the archive announces, used only to size buffers.
pub(crate) fn inflate_all(input: &[u8], budget: &mut Budget, meter: &mut Meter, declared: u64) -> Inflated {
    let mut dec = Decompress::new(false);
    let mut out = Vec::new();
    let first = initial_capacity(declared, budget.headroom(meter, 0));
    if out.try_reserve_exact(first).is_err() {
        return fault(Fault::OutOfMemory { bytes: first as u64 });
    }
    loop {
        let consumed = usize::try_from(dec.total_in()).unwrap_or(usize::MAX);
        if let Err(f) = reserve_chunk(&mut out, declared, budget.headroom(meter, consumed as u64)) {
            return fault(f);
        }
        let rest = input.get(consumed..).unwrap_or_default();
        let before_out = dec.total_out();
        let result = dec.decompress_vec(rest, &mut out, FlushDecompress::None);
        let produced = dec.total_out() - before_out;
        let now_consumed = usize::try_from(dec.total_in()).unwrap_or(usize::MAX);
        if let Err(f) = budget.charge(meter, produced, now_consumed as u64) {
            return fault(f);
        }
        let end = match result {
            Ok(Status::StreamEnd) => End::Complete,
            Err(e) => End::Corrupt(e.to_string()),
            Ok(Status::Ok | Status::BufError) if produced == 0 && now_consumed == consumed => {
                if now_consumed >= input.len() {
                    End::InputEnded
                } else {
                    End::Corrupt("deflate stream makes no progress".to_string())
                }
            }
            Ok(Status::Ok | Status::BufError) => continue,
        };
        return Inflated { out, consumed: now_consumed, end };
    }
}

fn fault(f: Fault) -> Inflated {
    Inflated { out: Vec::new(), consumed: 0, end: End::Fault(f) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::write::DeflateEncoder;
    use flate2::Compression;
    use std::io::Write;

    fn deflate(data: &[u8]) -> Vec<u8> {
        let mut enc = DeflateEncoder::new(Vec::new(), Compression::default());
        enc.write_all(data).unwrap();
        enc.finish().unwrap()
    }

    fn budget(total: u64, ratio: u64) -> Budget {
        Budget::with_used(&IngestOptions { max_total_bytes: total, max_ratio: ratio, max_depth: 8 }, 0)
    }

    #[test]
    fn inflates_and_stops_at_stream_end() {
        let data: Vec<u8> = (0..200_000u32).flat_map(|i| i.to_le_bytes()).collect();
        let mut input = deflate(&data);
        let len = input.len();
        input.extend_from_slice(b"PK\x07\x08trailing");
        let mut b = budget(u64::MAX, u64::MAX);
        let r = inflate_all(&input, &mut b, &mut Meter::sized(len as u64), 0);
        assert_eq!(r.end, End::Complete);
        assert_eq!(r.consumed, len);
        assert_eq!(r.out, data);
    }

    #[test]
    fn truncated_input_keeps_output() {
        let data: Vec<u8> = (0..100_000u32).flat_map(|i| i.to_le_bytes()).collect();
        let input = deflate(&data);
        let cut = &input[..input.len() / 2];
        let mut b = budget(u64::MAX, u64::MAX);
        let r = inflate_all(cut, &mut b, &mut Meter::sized(cut.len() as u64), 0);
        assert_eq!(r.end, End::InputEnded);
        assert!(!r.out.is_empty());
        assert_eq!(r.out[..], data[..r.out.len()]);
    }

    #[test]
    fn ratio_cap_trips() {
        let input = deflate(&vec![0u8; 4 << 20]);
        let mut b = budget(u64::MAX, 100);
        let r = inflate_all(&input, &mut b, &mut Meter::sized(input.len() as u64), 0);
        assert_eq!(r.end, End::Fault(Fault::Ratio));
        let mut b = budget(1 << 20, u64::MAX);
        let r = inflate_all(&input, &mut b, &mut Meter::streaming(), 0);
        assert_eq!(r.end, End::Fault(Fault::Total));
        assert!(b.exhausted());
    }
}
