//! A file arriving in slices, and a big plain log split between two
//! workers: the head and tail side by side ([`Incoming`], [`SplitTail`])
//! and the helper's job on the tail ([`PartJob`]).

use crate::parse::{Piece, PieceParser, StreamParser};

use super::{Phase, Progress};

/// An input arriving in slices.
#[derive(Debug)]
pub(super) struct Incoming {
    pub(super) name: String,
    pub(super) size: u64,
    /// Bytes received so far (of its head, when it is split).
    pub(super) at: u64,
    /// A split input's tail: where it begins, how far it arrived, and the
    /// helper's piece once it came (`Some(None)`: the helper failed).
    pub(super) tail: Option<SplitTail>,
    pub(super) body: Body,
    /// A cap reached: only `..keep` of its bytes are taken (the rest of
    /// its slices are counted and dropped).
    pub(super) keep: Option<u64>,
}

#[derive(Debug)]
pub(super) struct SplitTail {
    pub(super) from: u64,
    pub(super) at: u64,
    /// (The piece's encoded bytes, [`Piece::encode`](crate::parse::Piece::encode).)
    pub(super) piece: Option<Option<Vec<u8>>>,
}

impl Incoming {
    /// Every byte arrived (and a split input's piece).
    pub(super) fn is_complete(&self, last: bool) -> bool {
        match &self.tail {
            Some(t) => self.at == t.from && t.at == self.size && t.piece.is_some(),
            None => last,
        }
    }

    pub(super) fn received(&self) -> u64 {
        self.at + self.tail.as_ref().map_or(0, |t| t.at - t.from)
    }
}

pub(super) enum Body {
    /// A plain log, parsed as it arrives.
    Stream(Box<StreamParser>),
    /// An archive, opened whole once complete.
    Whole(Vec<u8>),
    /// It could not be taken in (already noted): later slices are dropped.
    Failed,
}

impl std::fmt::Debug for Body {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Body::Stream(p) => write!(f, "Stream({} bytes)", p.len()),
            Body::Whole(w) => write!(f, "Whole({} bytes)", w.len()),
            Body::Failed => f.write_str("Failed"),
        }
    }
}

/// Whether `bytes` more could be allocated now: a probe, reserved and
/// freed at once, in blocks of at most 1 GiB (one allocation in wasm32 is
/// under 2 GiB). The wasm memory it grew stays the worker's, for what
/// follows.
pub(super) fn room_for(bytes: u64) -> bool {
    const BLOCK: u64 = 1 << 30;
    let mut held: Vec<Vec<u8>> = Vec::new();
    let mut left = bytes;
    while left > 0 {
        let n = left.min(BLOCK);
        let mut v = Vec::new();
        if v.try_reserve_exact(n as usize).is_err() {
            return false;
        }
        held.push(v);
        left -= n;
    }
    true
}

/// Room for a file of `size` bytes, or `None` if the tab has no memory
/// for it (noted, not a crash); zeroed when it is to be written in place.
#[allow(clippy::slow_vector_initialization)] // `vec![0; n]` aborts when memory runs out
pub(super) fn reserve(size: usize, zeroed: bool) -> Option<Vec<u8>> {
    let mut v = Vec::new();
    v.try_reserve_exact(size).ok()?;
    if zeroed {
        v.resize(size, 0);
    }
    Some(v)
}

/// A helper worker's job: the tail of one big file, from `from`, parsed as
/// its slices arrive ([`ToWorker::BeginPart`]).
#[derive(Debug)]
pub struct PartJob {
    name: String,
    size: u64,
    from: u64,
    parser: PieceParser,
    slices: u64,
}

impl PartJob {
    pub fn new(name: &str, size: u64, from: u64) -> PartJob {
        let len = size.saturating_sub(from) as usize;
        PartJob { name: name.to_string(), size, from, parser: PieceParser::new(from, len, &Default::default()), slices: 0 }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Takes in a slice of the tail. `Ok(true)`: the tail is complete
    /// ([`PartJob::finish`]). `Err`: the slice is not the next of this
    /// job's tail (the job cannot go on).
    pub fn receive(&mut self, name: &str, offset: u64, data: &[u8]) -> Result<bool, String> {
        self.receive_with(name, offset, data.len(), |room| room.copy_from_slice(data))
    }

    /// As [`PartJob::receive`], for a caller that writes the slice's `len`
    /// bytes in place: `fill` gets where they go (see
    /// [`PieceParser::push_with`]).
    pub fn receive_with(&mut self, name: &str, offset: u64, len: usize, fill: impl FnOnce(&mut [u8])) -> Result<bool, String> {
        self.slices += 1;
        let at = self.from + self.parser.received();
        if name != self.name || offset != at || at + len as u64 > self.size {
            return Err(format!("{name}: bytes at offset {offset} are not the next of the part ({} at {at})", self.name));
        }
        self.parser.push_with(len, fill);
        Ok(self.from + self.parser.received() == self.size)
    }

    /// How far it is, as a progress message (the page's backpressure).
    pub fn progress(&self) -> Progress {
        Progress {
            phase: Phase::Reading,
            done_bytes: self.parser.received(),
            total_bytes: self.size - self.from,
            files_done: 0,
            files: 1,
            current: self.name.clone(),
            slices: self.slices,
            cut_at: None,
        }
    }

    /// The parsed tail.
    pub fn finish(self) -> Piece {
        self.parser.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::web::testutil::{log_and_zip, send, summary};
    use crate::web::{LeftOut, LeftOutReason, MessageFilter, Phase, ReadLimits, Received, Session, ShareRequest};

    /// Sends `bytes` split at `tail_from` the way the page does with two
    /// workers: head and tail slices side by side to the session, the
    /// tail's also to a helper's [`PartJob`], whose piece (through its
    /// encoding) follows, or `None` when `helper_fails`. Returns what the
    /// session said to each message.
    fn send_split(s: &mut Session, name: &str, bytes: &[u8], tail_from: usize, slice: usize, helper_fails: bool) -> Vec<Received> {
        let size = bytes.len() as u64;
        s.split(name, size, tail_from as u64);
        let mut job = PartJob::new(name, size, tail_from as u64);
        let mut out = Vec::new();
        let (mut head, mut tail) = (0, tail_from);
        let mut job_done = false;
        while head < tail_from || tail < bytes.len() {
            if head < tail_from {
                let end = (head + slice).min(tail_from);
                out.push(s.receive(name, head as u64, size, &bytes[head..end], false));
                head = end;
            }
            if tail < bytes.len() {
                let end = (tail + slice).min(bytes.len());
                out.push(s.receive(name, tail as u64, size, &bytes[tail..end], end == bytes.len()));
                // (In place, as the worker takes them.)
                job_done = job.receive_with(name, tail as u64, end - tail, |room| room.copy_from_slice(&bytes[tail..end])).unwrap();
                tail = end;
            }
        }
        assert!(job_done);
        assert_eq!(job.progress().done_bytes, size - tail_from as u64);
        let piece = (!helper_fails).then(|| job.finish().encode());
        out.push(s.part(name, piece));
        if out.last() == Some(&Received::Complete) {
            s.complete();
        }
        out
    }

    #[test]
    fn split_files_give_what_whole_files_give() {
        let (log, zip, whole) = log_and_zip(|s, i, r| {
            format!("2026-05-26T16:21:{s:02}.{i:06}Z\tERROR\tctrl\tReconciler error\t{{\"reconcileID\": \"r{r}\"}}\nmain.f()\n\t/m.go:1 +0x1\n")
        });
        let total = (log.len() + zip.len()) as u64;
        for (tail_from, slice, helper_fails) in [(log.len() / 2, 7777, false), (1, 1 << 20, false), (log.len() - 1, 1000, false), (log.len() / 3, 5000, true)] {
            let mut s = Session::new(2, total);
            let r = send_split(&mut s, "a.log", &log, tail_from, slice, helper_fails);
            // Complete only with every byte and the piece in.
            assert_eq!(r.last(), Some(&Received::Complete), "{tail_from} {slice}");
            assert!(r[..r.len() - 1].iter().all(|r| *r == Received::More));
            assert_eq!(s.receiving().done_bytes, log.len() as u64);
            assert_eq!(s.progress(Phase::Reading).slices, r.len() as u64 - 1);
            // An archive announced as split (the page does not split
            // archives, but the session copes) is opened whole.
            let r = send_split(&mut s, "c.zip", &zip, zip.len() / 2, 4096, true);
            assert_eq!(r.last(), Some(&Received::Complete));
            let p = s.progress(Phase::Reading);
            assert_eq!((p.files_done, p.done_bytes), (2, total));
            let r = s.finish();
            assert_eq!(summary(&r), summary(&whole), "{tail_from} {slice}");
            assert_eq!(r.analysis.reconciles, whole.analysis.reconciles);
            assert_eq!(r.notes, whole.notes);
            let lines = |s: &Session| (0..r.analysis.reconciles.len() as u32).map(|i| s.lines(i)).collect::<Vec<_>>();
            assert_eq!(
                lines(&s),
                lines(&{
                    let mut w = Session::new(2, total);
                    w.add("a.log", log.clone());
                    w.add("c.zip", zip.clone());
                    w.finish();
                    w
                })
            );
        }
        // The piece may come before the last slices.
        let mut s = Session::new(1, log.len() as u64);
        let from = log.len() / 2;
        s.split("a.log", log.len() as u64, from as u64);
        let mut job = PartJob::new("a.log", log.len() as u64, from as u64);
        assert_eq!(s.receive("a.log", 0, log.len() as u64, &log[..10], false), Received::More);
        assert_eq!(s.receive("a.log", from as u64, log.len() as u64, &log[from..], true), Received::More);
        assert_eq!(job.receive("a.log", from as u64, &log[from..]), Ok(true));
        assert_eq!(s.part("a.log", Some(job.finish().encode())), Received::More);
        assert_eq!(s.part("a.log", None), Received::Dropped, "one piece per file");
        assert_eq!(s.receive("a.log", 10, log.len() as u64, &log[10..from], false), Received::Complete);
        s.complete();
        assert_eq!(summary(&s.finish()), summary(&whole)[..1]);
    }

    #[test]
    fn split_slices_out_of_order_drop_the_file_once() {
        let log = b"2026-05-26T16:21:07Z INFO hello\n".repeat(100);
        let size = log.len() as u64;
        let mut s = Session::new(2, 2 * size);
        s.split("a.log", size, 1000);
        assert_eq!(s.receive("a.log", 0, size, &log[..500], false), Received::More);
        // The head may not run into the tail.
        assert_eq!(s.receive("a.log", 500, size, &log[500..1100], false), Received::Dropped);
        assert_eq!(s.receive("a.log", 1000, size, &log[1000..], true), Received::Dropped);
        assert_eq!(s.part("a.log", None), Received::Dropped);
        // A split announced for another file does not apply to this one.
        s.split("x.log", size, 1000);
        assert_eq!(send(&mut s, "b.log", &log, 700).last(), Some(&Received::Complete));
        let r = s.finish();
        let notes: Vec<(&str, &str)> = r.notes.iter().map(|n| (n.path.as_str(), n.message.as_str())).collect();
        assert_eq!(notes, [("a.log", "cannot read the file: its parts arrived out of order")]);
        assert_eq!(summary(&r), [("b.log".to_string(), 100)]);
        // A helper's job takes only the next bytes of its tail.
        let mut job = PartJob::new("a.log", size, 1000);
        assert!(job.receive("a.log", 1001, &log[1001..1100]).is_err());
        assert!(job.receive("b.log", 1000, &log[1000..1100]).is_err());
        assert_eq!(job.receive("a.log", 1000, &log[1000..1100]), Ok(false));
        assert!(job.receive("a.log", 1100, &log[1100..]).unwrap());
        assert!(job.receive("a.log", size, b"x").is_err());
    }

    /// A log of `n` lines of 100 bytes each (so a cut falls at a
    /// computable line), reconcile `{tag}{i/2}` on each pair.
    fn hundred_byte_lines(n: usize, tag: char) -> Vec<u8> {
        let mut log = Vec::new();
        for i in 0..n {
            let head = format!("2026-05-26T16:21:{:02}.{:06}Z\tINFO\tctrl\tReconciling\t{{\"reconcileID\": \"{tag}{:08}\", \"pad\": \"", i % 60, i, i / 2);
            let line = format!("{head}{}\"}}\n", "x".repeat(100 - head.len() - 3));
            assert_eq!(line.len(), 100);
            log.extend_from_slice(line.as_bytes());
        }
        log
    }

    /// A person's cap over three inputs: the first read whole, the second
    /// up to the cap (at its last whole line), the third not at all;
    /// each named in a note and in `left_out`, and nothing else lost.
    #[test]
    fn a_cap_over_three_inputs_reads_up_to_it() {
        let limits = ReadLimits { max_total_bytes: Some(60_050), tab_bytes: 1 << 30, ..ReadLimits::default() };
        let mut s = Session::with_limits(3, 120_000, limits);
        for (name, slice) in [("a.log", 7000), ("b.log", 3333), ("c.log", 40_000)] {
            let log = hundred_byte_lines(400, name.chars().next().unwrap());
            assert_eq!(log.len(), 40_000, "lines of 100 bytes");
            let r = send(&mut s, name, &log, slice);
            // (c.log is not read at all: its slices are dropped.)
            assert_eq!(r.last(), Some(if name == "c.log" { &Received::Dropped } else { &Received::Complete }), "{name}");
        }
        let p = s.progress(Phase::Reading);
        assert_eq!((p.files_done, p.done_bytes), (3, 120_000), "every input counted as read");
        let r = s.finish();
        // a.log's 400 lines; b.log's first 200 (20_050 bytes left of the
        // cap: 200 whole lines and half a line, which is dropped).
        assert_eq!(summary(&r), vec![("a.log".to_string(), 400), ("b.log".to_string(), 200)]);
        let cap = LeftOutReason::Cap { bytes: 60_050 };
        assert_eq!(
            r.left_out,
            vec![
                LeftOut { path: "b.log".into(), size_bytes: 40_000, kept_bytes: 20_000, reason: cap },
                LeftOut { path: "c.log".into(), size_bytes: 40_000, kept_bytes: 0, reason: cap }
            ]
        );
        let notes: Vec<(&str, &str)> = r.notes.iter().map(|n| (n.path.as_str(), n.message.as_str())).take(2).collect();
        assert_eq!(
            notes,
            vec![
                (
                    "b.log",
                    "read only in part: its first 19.5 KiB of 39.1 KiB (to the last whole line); the last 19.5 KiB were left out: \
                     the load's cap is 58.6 KiB (\"Read at most\"). The CLI (reconscope analyze) reads all of it."
                ),
                (
                    "c.log",
                    "not read (39.1 KiB): the load's cap is 58.6 KiB (\"Read at most\"), and the inputs before it took all of that. \
                     The CLI (reconscope analyze) reads all of it."
                )
            ]
        );
        // b.log's reconciles are those of its first 200 lines, whole.
        let b: Vec<&str> = r.analysis.reconciles.iter().map(|x| x.reconcile_id.as_str()).filter(|id| id.starts_with('b')).collect();
        assert_eq!((b.len(), b.iter().max().copied()), (100, Some("b00000099")));
        assert!(!r.analysis.reconciles.iter().any(|x| x.reconcile_id.starts_with('c')));
    }

    /// The tab's own limit on a file sent split between two workers,
    /// whether its tail begins inside what is read or past it: what is
    /// read is what a whole load of those bytes gives.
    #[test]
    fn the_tab_limit_reads_a_split_file_up_to_it() {
        let log = hundred_byte_lines(3000, 'r');
        let tab = 100_050;
        let kept = &log[..100_000];
        let mut whole = Session::new(1, kept.len() as u64);
        whole.add("a.log", kept.to_vec());
        let whole = whole.finish();
        for (tail_from, helper_fails) in [(150_000, false), (60_000, false), (60_000, true), (100_000, false), (99_990, false)] {
            let limits = ReadLimits { max_total_bytes: None, tab_bytes: tab, ..ReadLimits::default() };
            let mut s = Session::with_limits(1, log.len() as u64, limits);
            let r = send_split(&mut s, "a.log", &log, tail_from, 4096, helper_fails);
            assert_eq!(r.last(), Some(&Received::Complete), "{tail_from}");
            let r = s.finish();
            assert_eq!(summary(&r), summary(&whole), "{tail_from}");
            assert_eq!(r.analysis.reconciles, whole.analysis.reconciles, "{tail_from}");
            assert_eq!(r.left_out.len(), 1);
            assert_eq!((r.left_out[0].kept_bytes, r.left_out[0].reason), (100_000, LeftOutReason::Tab { bytes: tab }));
            assert!(r.notes[0].message.contains("the tab holds at most 97.7 KiB of logs"), "{}", r.notes[0].message);
        }
    }

    /// Archives count their members' bytes against the same cap, after
    /// the plain logs before them.
    #[test]
    fn archives_count_against_the_cap_after_plain_logs() {
        let log = hundred_byte_lines(400, 'a');
        let zip = std::fs::read(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("www/example/cozyreport.zip")).unwrap();
        let limits = ReadLimits { max_total_bytes: Some(40_000 + 1000), tab_bytes: 1 << 30, ..ReadLimits::default() };
        let mut s = Session::with_limits(2, (log.len() + zip.len()) as u64, limits);
        send(&mut s, "a.log", &log, 5000);
        send(&mut s, "c.zip", &zip, 5000);
        let r = s.finish();
        assert_eq!(summary(&r)[0], ("a.log".to_string(), 400));
        assert!(r.left_out.is_empty(), "the plain log fit");
        assert!(r.notes.iter().any(|n| n.message.contains("left out: the run's input is over the 40.0 KiB total cap")), "{:?}", r.notes);
    }

    /// Logs past the load's plain budget are packed as they are parsed
    /// (the first stays plain): the load, the inspector's lines, the
    /// filters, the Markdown and a finding's evidence are what a load with
    /// room for them plain gives. A cap still cuts a packed log at its last
    /// whole line.
    #[test]
    fn logs_past_the_plain_budget_are_packed_and_read_the_same() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/incident/cozyreport");
        let kamaji = std::fs::read(root.join("kamaji/kamaji-controller.log")).unwrap();
        let etcd = std::fs::read(root.join("snapshots/e2e-tenant/namespaces/tenant-root/v1/pod/etcd-0/etcd/current.log")).unwrap();
        let other = hundred_byte_lines(3000, 'q');
        let inputs = [("etcd-0/etcd/current.log", &etcd), ("kamaji/kamaji-controller.log", &kamaji), ("other.log", &other)];
        let total: u64 = inputs.iter().map(|(_, b)| b.len() as u64).sum();
        let load = |plain_bytes: u64| {
            let mut s = Session::with_limits(3, total, ReadLimits { plain_bytes, ..ReadLimits::default() });
            for (name, bytes) in inputs {
                assert_eq!(send(&mut s, name, bytes, 65_536).last(), Some(&Received::Complete));
            }
            let r = s.finish();
            (s, r)
        };
        let (plain, a) = load(1 << 30);
        let (packed, b) = load(etcd.len() as u64 + 10);
        let kinds: Vec<bool> = packed.files().iter().map(|f| f.bytes.as_packed().is_some()).collect();
        assert_eq!(kinds, [false, true, true]);
        assert!(plain.files().iter().all(|f| f.bytes.plain().is_some()));
        assert_eq!((summary(&a), &a.analysis.reconciles, &a.notes), (summary(&b), &b.analysis.reconciles, &b.notes));
        assert_eq!(serde_json::to_value(&a.analysis).unwrap(), serde_json::to_value(&b.analysis).unwrap());
        assert!(!a.analysis.findings.is_empty() && a.left_out.is_empty() && b.left_out.is_empty());
        for i in 0..a.analysis.reconciles.len() as u32 {
            assert_eq!(plain.lines(i), packed.lines(i), "reconcile {i}");
        }
        for pattern in ["deadline", "datastore", "^2026", "q0000"] {
            let f = MessageFilter { pattern: pattern.into(), min_level: 0 };
            assert_eq!(plain.matching(&f), packed.matching(&f), "{pattern}");
        }
        let redact = crate::redact::RedactOptions::default();
        assert_eq!(plain.markdown("https://x.test/", Some(0), redact), packed.markdown("https://x.test/", Some(0), redact));
        let req = ShareRequest { finding: Some(0), taken_at_nanos: Some(0), max_payload_bytes: 32 << 10, ..ShareRequest::default() };
        let shared = plain.share(&req).map(|s| s.fragment);
        assert!(shared.as_ref().is_ok_and(|f| f.as_ref().is_some_and(|f| f.len() > 1000)), "{shared:?}");
        assert_eq!(shared, packed.share(&req).map(|s| s.fragment));
        // A cap inside a packed log: read to its last whole line.
        let cap = etcd.len() + kamaji.len() + 20_050;
        let limits = ReadLimits { max_total_bytes: Some(cap as u64), plain_bytes: 100, ..ReadLimits::default() };
        let mut s = Session::with_limits(3, total, limits);
        for (name, bytes) in inputs {
            send(&mut s, name, bytes, 7_777);
        }
        let r = s.finish();
        assert_eq!(summary(&r)[2], ("other.log".to_string(), 200));
        assert!(s.files().iter().all(|f| f.bytes.as_packed().is_some()));
        assert_eq!(r.left_out[0].kept_bytes, 20_000);
    }

    /// Once a file is cut, the page may skip to its end: one empty last
    /// slice at its size. What is read is the same as when every slice
    /// is sent; before the cut, slices must still come in order.
    #[test]
    fn past_a_cut_the_page_skips_to_the_end() {
        let log = hundred_byte_lines(400, 'b');
        let limits = ReadLimits { max_total_bytes: Some(20_050), tab_bytes: 1 << 30, ..ReadLimits::default() };
        let mut s = Session::with_limits(1, 40_000, limits);
        assert_eq!(s.receive("b.log", 0, 40_000, &log[..10_000], false), Received::More);
        assert_eq!(s.receiving().cut_at, Some(20_050));
        // Not yet past the cut: no skipping.
        assert_eq!(s.receive("b.log", 15_000, 40_000, &log[15_000..16_000], false), Received::Dropped);
        let mut s = Session::with_limits(1, 40_000, limits);
        assert_eq!(s.receive("b.log", 0, 40_000, &log[..10_000], false), Received::More);
        assert_eq!(s.receive("b.log", 10_000, 40_000, &log[10_000..21_000], false), Received::More);
        assert_eq!(s.receive("b.log", 40_000, 40_000, &[], true), Received::Complete);
        s.complete();
        assert_eq!(s.receiving().done_bytes, 40_000);
        let r = s.finish();
        assert_eq!(summary(&r), vec![("b.log".to_string(), 200)]);
        assert_eq!(r.left_out[0].kept_bytes, 20_000);
    }
}
