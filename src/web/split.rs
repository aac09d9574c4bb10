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
            Body::Stream(p) => write!(f, "Stream({} bytes)", p.bytes().len()),
            Body::Whole(w) => write!(f, "Whole({} bytes)", w.len()),
            Body::Failed => f.write_str("Failed"),
        }
    }
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
    use crate::web::{Received, Session};

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
}
