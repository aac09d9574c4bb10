//! Where records become reconciles, and reconciles find their controller
//! instance and worker lane.

use std::borrow::Cow;
use std::collections::hash_map::Entry;
use std::collections::BTreeMap;
use std::sync::Arc;

use rustc_hash::FxHashMap as HashMap;

use crate::analyze::model::{ControllerInstance, ObjectRef, Outcome, Reconcile, RecordRef};
use crate::analyze::{etcd, signals, AnalyzeOptions};
use crate::model::{Field, Level, ParsedFile, Record, Timestamp};

/// controller-runtime's own messages: they occur in every controller's
/// reconciles, so they say nothing about which instance a reconcile is.
const RUNTIME_MESSAGES: &[&str] =
    &["Reconciler error", "Reconciling", "Reconcile successful", "Reconcile done, requeueing", "Observed a panic", "Warning: Reconciler returned both"];

fn is_runtime_message(m: &str) -> bool {
    RUNTIME_MESSAGES.iter().any(|p| m.starts_with(p))
}

/// What a reconcile needs while it is gathered, beside its [`Reconcile`]
/// (which is filled in place as its lines arrive).
struct Draft {
    controller_name: Arc<str>,
    /// The interned controller name's number: equal names (as the logs
    /// wrote them) share one.
    name_id: u32,
    group: Option<Arc<str>>,
    /// Its first line is an error (see [`lay_out_lanes`]).
    opens_with_error: bool,
    /// Its last line so far (in file order) is the last timed line of its
    /// file: unless a line says how it ended, it is
    /// [`Outcome::Unfinished`].
    ends_log: bool,
    /// A line of it is controller-runtime's `Reconcile successful`, which
    /// it logs once the reconcile has returned: it ended.
    said_done: bool,
    /// Its first `Reconciler error` or `Observed a panic` line (the error
    /// the reconcile returned, or its panic), as [`error_text`] writes it,
    /// with where its error value begins: see [`returned_error`].
    returned: Option<(Box<str>, Option<u32>)>,
    /// A line of it states how long it had run ([`took`]): when it began
    /// is the log's word (its first line's time when the stated start is
    /// no earlier), so no worker's end stands in for it.
    states_its_start: bool,
}

/// The normalised messages ("words"): each distinct raw message is
/// normalised once, with the object name of the reconcile that logged it
/// first.
#[derive(Default)]
struct Vocab<'a> {
    /// By raw message: the same text is the same word, whichever object's
    /// name it was normalised with first; and what the text says of its
    /// reconcile ([`Says`], read from the whole text, which the word may
    /// cut).
    raw: HashMap<Key<'a>, (u32, Says)>,
    ids: HashMap<String, u32>,
    words: Vec<String>,
    /// controller-runtime's own message.
    runtime: Vec<bool>,
    /// The message asks for a requeue.
    requeue: Vec<bool>,
    /// The message is a step of a deletion (see [`Deletion`]).
    deletion: Vec<Option<Deletion>>,
    /// controller-runtime's `Reconcile successful`: the reconcile returned.
    done: Vec<bool>,
}

/// Bytes looked up in a table of [`Key`]s, compared eight at a time: slice
/// equality calls `memcmp`, which wasm runs a byte at a time, and every
/// reconcile line's message is looked up (`memcmp` was a sixth of the
/// analysis in wasm).
#[repr(transparent)]
struct KeyRef([u8]);

impl KeyRef {
    fn new(b: &[u8]) -> &KeyRef {
        // SAFETY: `KeyRef` is `[u8]` and nothing else (`repr(transparent)`),
        // so a reference to one is a reference to the other.
        unsafe { &*(std::ptr::from_ref(b) as *const KeyRef) }
    }
}

impl PartialEq for KeyRef {
    fn eq(&self, other: &Self) -> bool {
        if self.0.len() != other.0.len() {
            return false;
        }
        let (a, b) = (self.0.chunks_exact(8), other.0.chunks_exact(8));
        let word = |c: &[u8]| u64::from_le_bytes(c.try_into().unwrap_or_default());
        a.remainder().iter().eq(b.remainder()) && a.zip(b).all(|(x, y)| word(x) == word(y))
    }
}

impl Eq for KeyRef {}

impl std::hash::Hash for KeyRef {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.0.hash(h);
    }
}

/// Bytes of the logs as a hash key: borrowed from a file's plain bytes, or
/// owned when they were read out of packed ones. Looked up by [`KeyRef`].
#[derive(Clone)]
struct Key<'a>(Cow<'a, [u8]>);

impl std::borrow::Borrow<KeyRef> for Key<'_> {
    fn borrow(&self) -> &KeyRef {
        KeyRef::new(&self.0)
    }
}

impl PartialEq for Key<'_> {
    fn eq(&self, other: &Self) -> bool {
        KeyRef::new(&self.0) == KeyRef::new(&other.0)
    }
}

impl Eq for Key<'_> {}

impl std::hash::Hash for Key<'_> {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        KeyRef::new(&self.0).hash(h);
    }
}

/// The bytes `r` of `whole`, borrowed when `whole` is.
fn part_of(whole: Cow<'_, [u8]>, r: std::ops::Range<usize>) -> Cow<'_, [u8]> {
    match whole {
        Cow::Borrowed(b) => Cow::Borrowed(&b[r]),
        Cow::Owned(v) => Cow::Owned(v[r].to_vec()),
    }
}

/// A distinct raw message of a [`Part`], in order of first use.
#[derive(Clone)]
struct RawMessage<'a> {
    text: Key<'a>,
    /// The etcd analysis reads it (see [`etcd::may_matter`]).
    etcd: bool,
    /// [`signals`] reads it (see [`signals::may_matter`]).
    signal: bool,
    /// Where it was first logged: the part's reconcile, and the record
    /// (its message is decoded from there when the text is new to all).
    first_reconcile: u32,
    first_record: RecordRef,
}

/// A log line that marks a step of an object's deletion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Deletion {
    /// `marked for deletion, performing clean-up`
    Requested,
    /// `resource deletions have been completed`, `resource may have been deleted`
    Completed,
}

impl Deletion {
    fn of(message: &str) -> Option<Deletion> {
        if message.starts_with("marked for deletion") {
            Some(Deletion::Requested)
        } else if message.starts_with("resource deletions have been completed")
            || message.starts_with("resource may have been deleted")
            || message.starts_with("resource have been deleted")
        {
            Some(Deletion::Completed)
        } else {
            None
        }
    }
}

/// A deletion step seen in a reconcile: reconcile index, time, step.
pub type DeletionStep = (usize, Timestamp, Deletion);

impl Vocab<'_> {
    /// The id of a normalised message, added if new.
    fn add(&mut self, norm: String, requeue: bool, done: bool) -> u32 {
        let next = self.words.len() as u32;
        let w = *self.ids.entry(norm.clone()).or_insert(next);
        if w == next {
            self.runtime.push(is_runtime_message(&norm));
            self.requeue.push(requeue);
            self.deletion.push(Deletion::of(&norm));
            self.done.push(done);
            self.words.push(norm);
        }
        w
    }

    /// The word of a message new to the vocabulary, normalised with the
    /// object's `name`.
    fn word(&mut self, message: &str, name: Option<&str>) -> u32 {
        let norm = normalise(message, name);
        let requeue = norm.contains("requeue") || norm.contains("enqueuing back");
        self.add(norm, requeue, says_done(message))
    }
}

/// A message logged as the reconcile returns: controller-runtime's
/// `Reconcile successful` (V(5)), Flux's `Reconciliation finished in
/// 168.98ms, next run in 10m0s` (its reconcilers' last line, also
/// written in lower case by operators built like them).
fn says_done(message: &str) -> bool {
    ["Reconcile successful", "Reconciliation finished in ", "reconciliation finished in "].iter().any(|p| message.starts_with(p))
}

/// A message that ends saying when the object is tried again, as a
/// reconcile returns a `RequeueAfter`: Flux's `Source artifact not found,
/// retrying in 30s`, `dependency … is not ready, retrying in 30s`. (Only
/// a reconcile's last line says so: a retry inside it is no requeue.)
fn retries_after(message: &str) -> bool {
    let Some((_, after)) = message.trim_end().rsplit_once(", retrying in ") else { return false };
    // A Go duration: `30s`, `1m0s`, `500ms`, `1.5s`.
    !after.is_empty()
        && after.as_bytes()[0].is_ascii_digit()
        && after.bytes().all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'h' | b'm' | b's' | b'u' | b'n' | b'\xc2' | b'\xb5'))
}

/// What a message says of its reconcile beyond its word, read from its
/// whole text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Says {
    /// It ends saying when the object is tried again ([`retries_after`]).
    retries: bool,
    /// How long the reconcile had run when it was written ([`took`]).
    took_nanos: Option<i64>,
}

impl Says {
    fn of(message: &str) -> Says {
        Says { retries: retries_after(message), took_nanos: took(message) }
    }
}

/// How long the reconcile had run, as Flux's reconcilers say on their last
/// line: `Reconciliation finished in 613.16027ms, next run in 1m0s`,
/// `Reconciliation failed after 490.063841ms, next try in 1m0s` (both
/// `time.Since(reconcileStart)`, taken at the top of `Reconcile`; also
/// written in lower case by operators built like them).
fn took(message: &str) -> Option<i64> {
    let rest = ["Reconciliation finished in ", "reconciliation finished in ", "Reconciliation failed after ", "reconciliation failed after "]
        .iter()
        .find_map(|p| message.strip_prefix(p))?;
    let d = rest.split([',', ':', ' ']).next()?;
    super::signals::go_duration(d).filter(|&n| n >= 0)
}

pub fn time_of(r: &Record) -> Option<Timestamp> {
    r.time.or(r.collected)
}

/// Eight ASCII hex digits, the first in the lowest byte, as the number they
/// write; `None` if any byte is not a hex digit. SWAR: all eight bytes at
/// once in one 64-bit word (every record of a reconcile is looked up by its
/// UUID, and a loop over its digits was a large part of the analysis).
fn hex8(b: [u8; 8]) -> Option<u64> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x80 * ONES;
    let x = u64::from_le_bytes(b);
    // The high bit of each byte of `at_least(v, lo)`: that byte of `v` is
    // `>= lo`. Exact for bytes below 0x80 (no carry crosses a byte), which
    // is checked first.
    let at_least = |v: u64, lo: u8| v.wrapping_add(u64::from(0x80 - lo) * ONES) & HIGH;
    let digit = at_least(x, b'0') & !at_least(x, b'9' + 1);
    // Lower case folds `A-F` onto `a-f`; it also folds control bytes onto
    // `0-9`, hence digits are tested on `x` itself.
    let lower = x | (0x20 * ONES);
    let letter = at_least(lower, b'a') & !at_least(lower, b'f' + 1);
    if x & HIGH != 0 || (digit | letter) != HIGH {
        return None;
    }
    // Each byte's value (letters: low nibble + 9), then pairs of nibbles,
    // pairs of bytes and pairs of 16-bit halves put together, first digit
    // most significant.
    let v = (x & (0x0f * ONES)) + (letter >> 7) * 9;
    let v = (v << 4 | v >> 8) & 0x00ff_00ff_00ff_00ff;
    let v = (v << 8 | v >> 16) & 0x0000_ffff_0000_ffff;
    Some((v << 16 | v >> 32) & 0xffff_ffff)
}

/// The 128 bits of a UUID written `8-4-4-4-12` in hex, or `None`.
fn uuid_bits(s: &[u8]) -> Option<u128> {
    let s: &[u8; 36] = s.try_into().ok()?;
    if s[8] != b'-' || s[13] != b'-' || s[18] != b'-' || s[23] != b'-' {
        return None;
    }
    let join = |a: &[u8], b: &[u8]| -> [u8; 8] { [a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3]] };
    let part = |r: std::ops::Range<usize>| -> [u8; 8] { s[r].try_into().unwrap_or_default() };
    let hi = hex8(part(0..8))? << 32 | hex8(join(&s[9..13], &s[14..18]))?;
    let lo = hex8(join(&s[19..23], &s[24..28]))? << 32 | hex8(part(28..36))?;
    Some(u128::from(hi) << 64 | u128::from(lo))
}

/// Replaces the object's name in a message, so `x has been reconciled`
/// and `y has been reconciled` are one word of the vocabulary, and any
/// other object written `namespace/name` (kamaji's datastore controller:
/// `can't push DataStore reconciliation for object default/stress-3`, a
/// word per tenant that split one controller into an instance per tenant).
fn normalise(msg: &str, name: Option<&str>) -> String {
    // Objects first: the name of the reconcile's own object may be part of
    // another's `namespace/name`.
    let m = without_object_refs(msg);
    let m = match name {
        Some(n) if !n.is_empty() => m.replace(n, "<name>"),
        _ => m.into_owned(),
    };
    m.chars().take(80).collect()
}

/// `msg` with each word shaped as a Kubernetes `namespace/name` (two
/// DNS-1123 names joined by one `/`, nothing path- or URL-like around it)
/// written `<object>`.
fn without_object_refs(msg: &str) -> std::borrow::Cow<'_, str> {
    let b = msg.as_bytes();
    let name = |c: u8| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-' || c == b'.';
    let part = |c: u8| name(c) || c == b'/';
    // A byte that makes the word a path, a URL or an identifier instead.
    let joins = |c: u8| part(c) || c.is_ascii_alphanumeric() || matches!(c, b'_' | b':' | b'<' | b'>');
    let mut out = String::new();
    let (mut copied, mut i) = (0, 0);
    while i < b.len() {
        if !part(b[i]) || (i > 0 && joins(b[i - 1])) {
            i += 1;
            continue;
        }
        let mut end = i;
        while end < b.len() && part(b[end]) {
            end += 1;
        }
        let word = &b[i..end];
        let alnum = |c: u8| c.is_ascii_alphanumeric();
        let is_ref = end == b.len() || !joins(b[end]);
        let is_ref = is_ref
            && word.iter().filter(|&&c| c == b'/').count() == 1
            && word.split(|&c| c == b'/').all(|p| !p.is_empty() && alnum(p[0]) && alnum(p[p.len() - 1]));
        if is_ref {
            out.push_str(&msg[copied..i]);
            out.push_str("<object>");
            copied = end;
        }
        i = end;
    }
    if copied == 0 {
        return std::borrow::Cow::Borrowed(msg);
    }
    out.push_str(&msg[copied..]);
    std::borrow::Cow::Owned(out)
}

/// Slots of [`Ids::recent`] (a power of two).
const RECENT: usize = 1024;

/// How many records ahead [`Part::records`] asks for a line's bytes.
const PREFETCH_AHEAD: usize = 8;

/// Reconciles by id. Reconcile ids are UUIDs, keyed as 128-bit numbers
/// (exact, and cheap to compare); any other id by its bytes (`by_id`).
struct Ids<'a> {
    /// The reconciles seen lately, one per slot: a reconcile's lines come
    /// close together, so nearly every look-up ends here, in a table that
    /// stays in the cache. `u32::MAX` marks an empty slot.
    recent: Box<[(u128, u32)]>,
    /// Every reconcile with a UUID, by the UUID folded to 32 bits. This
    /// table misses the cache on almost every access (each new reconcile is
    /// looked up and added), so it is kept small: a quarter of the size of
    /// one keyed by the whole UUID. `uuids` tells the reconcile of a fold
    /// apart from another UUID with the same fold, which goes to `by_clash`.
    by_fold: HashMap<u32, u32>,
    by_clash: HashMap<u128, u32>,
    /// Each reconcile's UUID (0 for other ids: [`Part::other_ids`] has those).
    uuids: Vec<u128>,
    by_id: HashMap<Key<'a>, u32>,
}

impl<'a> Ids<'a> {
    fn new() -> Self {
        Ids {
            recent: vec![(0, u32::MAX); RECENT].into_boxed_slice(),
            by_fold: HashMap::default(),
            by_clash: HashMap::default(),
            uuids: Vec::new(),
            by_id: HashMap::default(),
        }
    }

    fn fold(u: u128) -> u32 {
        let x = u as u64 ^ (u >> 64) as u64;
        (x ^ x >> 32) as u32
    }

    /// The recent slot of a UUID: its bits are mostly random, but not all
    /// of them in every UUID version, so they are mixed.
    fn slot(u: u128) -> usize {
        (u64::from(Self::fold(u)).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - RECENT.trailing_zeros())) as usize
    }

    /// The reconcile of an id seen before.
    fn find(&mut self, rid: &[u8], uuid: Option<u128>) -> Option<usize> {
        let Some(u) = uuid else { return self.by_id.get(KeyRef::new(rid)).map(|&i| i as usize) };
        let slot = &mut self.recent[Self::slot(u)];
        if slot.1 != u32::MAX && slot.0 == u {
            return Some(slot.1 as usize);
        }
        let i = match self.by_fold.get(&Self::fold(u)) {
            Some(&i) if self.uuids[i as usize] == u => i,
            Some(_) => *self.by_clash.get(&u)?,
            None => return None,
        };
        *slot = (u, i);
        Some(i as usize)
    }

    /// The reconcile of an id seen before, without the recent table (for
    /// a look-up from another thread).
    fn get(&self, rid: &[u8], uuid: Option<u128>) -> Option<usize> {
        let Some(u) = uuid else { return self.by_id.get(KeyRef::new(rid)).map(|&i| i as usize) };
        match self.by_fold.get(&Self::fold(u)) {
            Some(&i) if self.uuids[i as usize] == u => Some(i as usize),
            Some(_) => self.by_clash.get(&u).map(|&i| i as usize),
            None => None,
        }
    }

    /// Adds the next reconcile (numbered `self.uuids.len()`), which `find`
    /// did not know.
    fn add(&mut self, rid: &Key<'a>, uuid: Option<u128>) -> usize {
        let i = self.uuids.len();
        match uuid {
            Some(u) => {
                match self.by_fold.entry(Self::fold(u)) {
                    Entry::Vacant(e) => {
                        e.insert(i as u32);
                    }
                    Entry::Occupied(_) => {
                        self.by_clash.insert(u, i as u32);
                    }
                }
                self.recent[Self::slot(u)] = (u, i as u32);
            }
            None => {
                self.by_id.insert(rid.clone(), i as u32);
            }
        }
        self.uuids.push(uuid.unwrap_or(0));
        i
    }
}

/// A stretch of the records in file order: the files (by index) and the
/// records of each it takes.
type Stretch = Vec<(usize, std::ops::Range<usize>)>;

/// One stretch of the records gathered on its own (natively, on a thread
/// of its own), into reconciles numbered in order of their first line
/// there; [`merge`] then joins the parts in file order. What depends on
/// every part (the normalised words, whether a reconcile is new) is left
/// to the merge; what needs the lines' bytes (ids, messages, a new
/// reconcile's fields) is read here.
struct Part<'a> {
    reconciles: Vec<Reconcile>,
    drafts: Vec<Draft>,
    /// The reconciles whose id is no UUID, in order, with their ids'
    /// bytes (a UUID is in [`Ids::uuids`]).
    other_ids: Vec<(u32, Key<'a>)>,
    ids: Ids<'a>,
    /// Objects and controller strings, made once and shared by this
    /// part's reconciles; each string with its number, in order of first
    /// use.
    /// (By name, then namespace.)
    objects: HashMap<Key<'a>, HashMap<Key<'a>, Arc<ObjectRef>>>,
    strings: HashMap<Key<'a>, (Arc<str>, u32)>,
    /// The distinct messages of reconcile lines, numbered in order of first
    /// use.
    raw: HashMap<Key<'a>, u32>,
    messages: Vec<RawMessage<'a>>,
    /// `Starting workers` lines, in order: controller, count, time.
    starting: Vec<(String, u32, Option<Timestamp>)>,
    /// Every reconcile line in file order: reconcile, record, message.
    lines: Vec<(u32, RecordRef, u32)>,
    /// The records the etcd analysis reads, in file order.
    etcd: Vec<RecordRef>,
    /// The records [`signals`] reads (throttling, the manager's life).
    signals: Vec<RecordRef>,
}

impl<'a> Part<'a> {
    fn gather(files: &'a [ParsedFile], stretch: &Stretch, cover: &[(u32, u32)]) -> Part<'a> {
        let records: usize = stretch.iter().map(|(_, rs)| rs.len()).sum();
        let reconciles = expected_reconciles(records);
        let mut p = Part {
            reconciles: Vec::with_capacity(reconciles),
            drafts: Vec::with_capacity(reconciles),
            other_ids: Vec::new(),
            ids: Ids::new(),
            objects: HashMap::default(),
            strings: HashMap::default(),
            raw: HashMap::default(),
            messages: Vec::new(),
            starting: Vec::new(),
            // At most one line per record: room for them all up front,
            // rather than copies as the list grows.
            lines: Vec::with_capacity(records),
            etcd: Vec::new(),
            signals: Vec::new(),
        };
        for (fi, rs) in stretch {
            p.records(*fi, &files[*fi], rs.clone(), cover[*fi]);
        }
        p
    }

    /// The pass over a file's records `rs`: reconcile lines, `Starting
    /// workers` lines, and the records the etcd analysis and [`signals`]
    /// read (a message is looked at once here, rather than once for each).
    /// `cover`: the file's first and last record with a time (see
    /// [`coverage`]).
    fn records(&mut self, fi: usize, f: &'a ParsedFile, rs: std::ops::Range<usize>, cover: (u32, u32)) {
        let end = rs.end;
        for ri in rs {
            let r = &f.records[ri];
            // The bytes of the line a few records on, while this one is
            // read: each record's first read of its line misses the cache.
            if let Some(ahead) = f.records.get(ri + PREFETCH_AHEAD).filter(|_| ri + PREFETCH_AHEAD < end) {
                f.prefetch(ahead.reconcile_id);
                f.prefetch(ahead.message);
            }
            let raw_msg = f.span_bytes(r.message);
            let rref = RecordRef { file: fi as u32, record: ri as u32 };
            let Some(rid) = f.reconcile_id(r) else {
                if *raw_msg == *b"Starting workers" {
                    let fields = f.fields(r);
                    if let (Some(c), Some(n)) =
                        (f.find_field(&fields, "controller").map(|c| f.value(c)), f.find_field(&fields, "worker count").map(|n| f.value(n)))
                    {
                        if let Ok(n) = n.parse::<u32>() {
                            self.starting.push((c.into_owned(), n, time_of(r)));
                        }
                    }
                }
                if time_of(r).is_some() {
                    if etcd::may_matter(&raw_msg) {
                        self.etcd.push(rref);
                    }
                    if signals::may_matter(&raw_msg) || r.level == Level::Fatal || (r.level >= Level::Warn && signals::error_may_matter(f, r)) {
                        self.signals.push(rref);
                    }
                }
                continue;
            };
            let Some(t) = time_of(r) else { continue };
            // The message's number when its text was seen before, looked up
            // before the reconcile: reading the message and reading the id
            // (both far away in memory) then overlap. A third faster in wasm.
            let known = self.raw.get(KeyRef::new(&raw_msg)).copied();
            let uuid = uuid_bits(&rid);
            let idx = match self.ids.find(&rid, uuid) {
                Some(i) => i,
                None => self.open(f, r, t, rid, uuid),
            };
            self.drafts[idx].ends_log = rref.record == cover.1;
            let rec = &mut self.reconciles[idx];
            rec.first = rec.first.min(t);
            rec.last = rec.last.max(t);
            // The file's first or last timed record belongs to this reconcile.
            if rref.record == cover.0 || rref.record == cover.1 {
                rec.truncated = true;
            }
            // (controller-runtime before v0.19 logs a panic it recovers from
            // at INFO, and panics again unless told to recover.)
            let returned = *raw_msg == *b"Reconciler error" || raw_msg.starts_with(b"Observed a panic");
            let error_line = returned || r.level >= Level::Error;
            let m = match known {
                Some(m) => m,
                None => {
                    let m = self.messages.len() as u32;
                    let (etcd, signal) = (etcd::may_matter(&raw_msg), signals::may_matter(&raw_msg));
                    let text = Key(raw_msg);
                    self.raw.insert(text.clone(), m);
                    self.messages.push(RawMessage { text, etcd, signal, first_reconcile: idx as u32, first_record: rref });
                    m
                }
            };
            self.lines.push((idx as u32, rref, m));
            let RawMessage { etcd, signal, .. } = self.messages[m as usize];
            if etcd {
                self.etcd.push(rref);
            }
            if signal {
                self.signals.push(rref);
            }
            // The first error line of the reconcile (in this part: the
            // merge keeps the first part's), and the first that says what
            // it returned; [`returned_error`] picks one once all are in.
            let draft = &mut self.drafts[idx];
            let (first, returns) = (error_line && rec.error.is_none(), returned && draft.returned.is_none());
            if first || returns {
                let (text, at) = error_text(f, r);
                if returns {
                    draft.returned = Some((text.as_str().into(), at));
                }
                if first {
                    rec.error_value_at = at;
                    rec.error = Some(text);
                    rec.outcome = Outcome::Error;
                }
            }
        }
    }

    /// A new reconcile, from its first record; returns its index.
    fn open(&mut self, f: &'a ParsedFile, r: &Record, t: Timestamp, rid: Cow<'a, [u8]>, uuid: Option<u128>) -> usize {
        // Valid UTF-8 (a UUID always is) is taken as it is: the lossy
        // decoding is far slower on it.
        let reconcile_id = std::str::from_utf8(&rid).map_or_else(|_| String::from_utf8_lossy(&rid).into_owned(), str::to_owned);
        let rid = Key(rid);
        let i = self.ids.add(&rid, uuid);
        if uuid.is_none() {
            self.other_ids.push((i as u32, rid));
        }
        // One pass over the fields for what a new reconcile needs.
        const KEYS: [&[u8]; 9] =
            [b"name", b"namespace", b"controller", b"controllerGroup", b"controllerKind", b"object", b"request", b"reconciler group", b"reconciler kind"];
        let mut k = [None::<&Field>; 9];
        let fields = f.fields(r);
        for fl in fields.iter() {
            let key = f.span_bytes(fl.key);
            if let Some(slot) = KEYS.iter().position(|&w| w == &*key) {
                k[slot].get_or_insert(fl);
            }
        }
        // An empty `name` is a request for no object (controller-runtime
        // logs the request's; Karpenter's singleton controllers log
        // `"namespace":"","name":""`): a Kind-named key on such a line is
        // some other object (`"Pods":"default/inflate-…"`, `"NodeClaim":{…}`).
        let no_object = k[0].is_some_and(|fl| f.value(fl).is_empty());
        if no_object {
            k[0] = None;
        }
        // A key named after a Kind (`"RayCluster": {"name":..}`, klog's
        // `Cluster="ns/name"`): the object, and its kind. Looked for only
        // when the line lacks one of them (kamaji's lines have both).
        let mut kind_key = None::<(&Field, ObjectRef)>;
        if !no_object && (k[0].is_none() || k[4].or(k[8]).is_none()) {
            kind_key = fields.iter().filter(|fl| is_kind_word(&f.span_bytes(fl.key))).find_map(|fl| object_value(&f.value(fl)).map(|o| (fl, o)));
        }
        // A Kind key must be the controller's kind when the line names it.
        if let (Some(kind), Some((fl, _))) = (k[4].or(k[8]), kind_key.as_ref()) {
            if f.span_bytes(kind.value) != f.span_bytes(fl.key) {
                kind_key = None;
            }
        }
        let object = if let Some(name) = k[0] {
            let ns = k[1].map_or(Cow::Borrowed(&b""[..]), |fl| f.span_bytes(fl.value));
            let name_bytes = f.span_bytes(name.value);
            let known = self.objects.get(KeyRef::new(&name_bytes)).and_then(|by_ns| by_ns.get(KeyRef::new(&ns)));
            Some(match known {
                Some(o) => o.clone(),
                None => {
                    let namespace = k[1].map(|fl| f.value(fl).into_owned()).filter(|n| !n.is_empty());
                    let o = Arc::new(ObjectRef { namespace, name: f.value(name).into_owned() });
                    self.objects.entry(Key(name_bytes)).or_default().insert(Key(ns), o.clone());
                    o
                }
            })
        } else {
            kind_key.as_ref().map(|(_, o)| o.clone()).or_else(|| k[5].or(k[6]).and_then(|fl| object_value(&f.value(fl)))).map(Arc::new)
        };
        let mut text = |fl: Option<&Field>| fl.map(|fl| intern(&mut self.strings, f.span_bytes(fl.value), || Arc::from(f.value(fl).as_ref())));
        let (controller, group) = (text(k[2]), text(k[3].or(k[7])));
        let kind =
            text(k[4].or(k[8])).or_else(|| kind_key.as_ref().map(|(fl, _)| intern(&mut self.strings, f.span_bytes(fl.key), || Arc::from(f.key(fl).as_ref()))));
        // Else the controller's logger names it: `controllers.RayCluster`,
        // `controller.tenantcontrolplane` (controller-runtime before v0.12);
        // or it is the logger the reconciler writes with (kueue's own
        // `LogConstructor`: `workload-reconciler`, `v1_pod`), whose name is
        // the controller's to people (`analyze::unknown_notes` says so).
        let controller = controller.or_else(|| {
            let logger = f.span_bytes(r.logger);
            if logger.is_empty() {
                return None;
            }
            let range = controller_in_logger(&logger).unwrap_or(0..logger.len());
            let name = part_of(logger, range);
            let text: Arc<str> = Arc::from(String::from_utf8_lossy(&name).as_ref());
            Some(intern(&mut self.strings, name, || text))
        });
        // None of these: the controller is unknown (an empty name).
        let (controller_name, name_id) = controller.unwrap_or_else(|| intern(&mut self.strings, Cow::Borrowed(b""), || Arc::from("")));
        self.drafts.push(Draft {
            controller_name,
            name_id,
            group: group.map(|g| g.0),
            opens_with_error: r.level >= Level::Error,
            ends_log: false,
            said_done: false,
            returned: None,
            states_its_start: false,
        });
        self.reconciles.push(Reconcile {
            reconcile_id,
            controller: 0,
            object,
            kind: kind.map(|k| k.0),
            first: t,
            last: t,
            latent_start: None,
            stated_start: false,
            lines: 0,
            outcome: Outcome::Success,
            said_done: false,
            error: None,
            error_value_at: None,
            truncated: false,
            lane: 0,
            records: 0..0,
        });
        i
    }
}

/// Room for the reconciles of `records` records, made up front: a list
/// that grows by doubling copies itself each time (a tenth of the
/// analysis natively). Natively, room for one reconcile in two records
/// (kamaji's reconciles log about five lines each; a log of one-line
/// reconciles grows past it), in pages that are never touched unless
/// written. In wasm, where room taken is memory spent, none.
fn expected_reconciles(records: usize) -> usize {
    if cfg!(target_arch = "wasm32") {
        0
    } else {
        records / 2
    }
}

/// The parts joined, in file order, as one pass over every record would
/// have gathered them.
struct Gathered<'a> {
    reconciles: Vec<Reconcile>,
    drafts: Vec<Draft>,
    /// How many controller names (as written) [`Draft::name_id`] numbers.
    names: usize,
    vocab: Vocab<'a>,
    starting: Vec<(String, u32, Option<Timestamp>)>,
    deletions: Vec<DeletionStep>,
    /// Every reconcile line in file order: reconcile index, record, word.
    lines: Vec<(u32, RecordRef, u32)>,
    /// The lines (reconcile index, record) whose message ends saying when
    /// the object is tried again ([`retries_after`]): few, so the pass
    /// over every line only tests a flag.
    retry_lines: Vec<(u32, RecordRef)>,
    /// The lines (reconcile index, record, nanoseconds) that say how long
    /// their reconcile had run ([`took`]).
    took_lines: Vec<(u32, RecordRef, i64)>,
    signals: Vec<RecordRef>,
}

/// For each part, where each of its reconciles was seen first when an
/// earlier part saw it too (a reconcile running where the records were
/// cut, or an id in two files): the earliest such part and the
/// reconcile's index there. The first part's are all `None`. Natively,
/// each part looks on a thread of its own.
fn seen_before(parts: &[Part<'_>]) -> Vec<Vec<Option<(u32, u32)>>> {
    let look = |k: usize| -> Vec<Option<(u32, u32)>> {
        let p = &parts[k];
        let mut others = p.other_ids.iter().peekable();
        (0..p.ids.uuids.len())
            .map(|i| {
                let (rid, uuid) = match others.next_if(|(o, _)| *o as usize == i) {
                    Some((_, rid)) => (&rid.0[..], None),
                    None => (&[][..], Some(p.ids.uuids[i])),
                };
                parts[..k].iter().enumerate().find_map(|(j, e)| e.ids.get(rid, uuid).map(|i| (j as u32, i as u32)))
            })
            .collect()
    };
    let mut out = vec![vec![None; parts.first().map_or(0, |p| p.reconciles.len())]];
    #[cfg(not(target_arch = "wasm32"))]
    std::thread::scope(|scope| {
        let handles: Vec<_> = (1..parts.len()).map(|k| scope.spawn(move || look(k))).collect();
        out.extend(handles.into_iter().map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))));
    });
    #[cfg(target_arch = "wasm32")]
    out.extend((1..parts.len()).map(look));
    out
}

/// Joins the parts in file order. A reconcile an earlier part saw (see
/// [`seen_before`]) is that part's (its lines, times and first error
/// added to it); a message new to all is normalised with the object of the
/// reconcile that logged it first; requeues and deletion steps are read
/// off the words.
fn merge<'a>(files: &'a [ParsedFile], parts: Vec<Part<'a>>) -> Gathered<'a> {
    let before = seen_before(&parts);
    let mut g = Gathered {
        reconciles: Vec::new(),
        drafts: Vec::new(),
        names: 0,
        vocab: Vocab::default(),
        starting: Vec::new(),
        deletions: Vec::new(),
        lines: Vec::new(),
        retry_lines: Vec::new(),
        took_lines: Vec::new(),
        signals: Vec::new(),
    };
    let mut lines_left: usize = parts.iter().map(|p| p.lines.len()).sum();
    let reconciles_left: usize = parts.iter().skip(1).map(|p| p.reconciles.len()).sum();
    // Controller names as written (and the other strings), numbered as the
    // first part numbered them.
    let mut names: HashMap<Key<'a>, u32> = HashMap::default();
    // Each part's reconciles' indexes among all.
    let mut at: Vec<Vec<u32>> = Vec::with_capacity(parts.len());
    for (p, before) in parts.into_iter().zip(before) {
        let to_global: Vec<u32> = if at.is_empty() {
            // Every reconcile of the first part is new: taken as it is.
            let n = p.reconciles.len() as u32;
            (g.reconciles, g.drafts) = (p.reconciles, p.drafts);
            g.reconciles.reserve_exact(reconciles_left);
            names = p.strings.iter().map(|(key, (_, id))| (key.clone(), *id)).collect();
            (0..n).collect()
        } else {
            // This part's string numbers among all.
            let mut renumber = vec![0u32; p.strings.len()];
            for (key, (_, id)) in &p.strings {
                let next = names.len() as u32;
                renumber[*id as usize] = *names.entry(key.clone()).or_insert(next);
            }
            let mut to_global = Vec::with_capacity(p.reconciles.len());
            for ((rec, draft), seen) in p.reconciles.into_iter().zip(p.drafts).zip(before) {
                match seen {
                    Some((j, i)) => {
                        let gi = at[j as usize][i as usize];
                        // (This part's lines come after the earlier parts'.)
                        g.drafts[gi as usize].ends_log = draft.ends_log;
                        let had = &mut g.reconciles[gi as usize];
                        had.first = had.first.min(rec.first);
                        had.last = had.last.max(rec.last);
                        had.truncated |= rec.truncated;
                        if had.error.is_none() && rec.error.is_some() {
                            had.error = rec.error;
                            had.error_value_at = rec.error_value_at;
                            had.outcome = Outcome::Error;
                        }
                        let had_draft = &mut g.drafts[gi as usize];
                        if had_draft.returned.is_none() {
                            had_draft.returned = draft.returned;
                        }
                        to_global.push(gi);
                    }
                    None => {
                        to_global.push(g.reconciles.len() as u32);
                        g.drafts.push(Draft { name_id: renumber[draft.name_id as usize], ..draft });
                        g.reconciles.push(rec);
                    }
                }
            }
            to_global
        };
        let mut words = Vec::with_capacity(p.messages.len());
        for m in &p.messages {
            let w = match g.vocab.raw.get(KeyRef::new(&m.text.0)) {
                Some(&w) => w,
                None => {
                    let rr = m.first_record;
                    let f = &files[rr.file as usize];
                    let object = g.reconciles[to_global[m.first_reconcile as usize] as usize].object.as_ref();
                    let message = f.message(&f.records[rr.record as usize]);
                    let w = (g.vocab.word(&message, object.map(|o| o.name.as_str())), Says::of(&message));
                    g.vocab.raw.insert(m.text.clone(), w);
                    w
                }
            };
            words.push(w);
        }
        let mut lines = p.lines;
        for (li, rref, m) in lines.iter_mut() {
            let (gi, (w, says)) = (to_global[*li as usize], words[*m as usize]);
            (*li, *m) = (gi, w);
            if says != Says::default() {
                if says.retries {
                    g.retry_lines.push((gi, *rref));
                }
                if let Some(took) = says.took_nanos {
                    g.took_lines.push((gi, *rref, took));
                }
            }
            let rec = &mut g.reconciles[gi as usize];
            // controller-runtime and operators say so in the message:
            // `Reconcile done, requeueing after`, `enqueuing back`. (An
            // error, on any line, says more.)
            if g.vocab.requeue[w as usize] && rec.outcome == Outcome::Success {
                rec.outcome = Outcome::Requeue;
            }
            if g.vocab.done[w as usize] {
                g.drafts[gi as usize].said_done = true;
            }
            if let Some(step) = g.vocab.deletion[w as usize] {
                let t = time_of(&files[rref.file as usize].records[rref.record as usize]).unwrap_or(rec.first);
                g.deletions.push((gi as usize, t, step));
            }
        }
        // The first part's list is kept (with room for the rest).
        lines_left -= lines.len();
        if g.lines.is_empty() {
            g.lines = lines;
            g.lines.reserve_exact(lines_left);
        } else {
            g.lines.extend_from_slice(&lines);
        }
        g.starting.extend(p.starting);
        g.signals.extend(p.signals);
        at.push(to_global);
    }
    g.names = names.len();
    g
}

/// The records of `files` cut into at most `n` stretches of about as many
/// records each, in file order (a file may be cut between two).
fn stretches(files: &[ParsedFile], n: usize) -> Vec<Stretch> {
    let total: usize = files.iter().map(|f| f.records.len()).sum();
    let n = n.clamp(1, total.max(1));
    let mut out: Vec<Stretch> = vec![Vec::new(); n];
    let mut at = 0usize;
    for (fi, f) in files.iter().enumerate() {
        let mut from = 0usize;
        while from < f.records.len() {
            // The part of the record at `at`, and where that part ends.
            let k = (at * n / total.max(1)).min(n - 1);
            let part_end = ((k + 1) * total).div_ceil(n);
            let to = f.records.len().min(from + part_end.saturating_sub(at).max(1));
            out[k].push((fi, from..to));
            at += to - from;
            from = to;
        }
    }
    out.retain(|s| !s.is_empty());
    out
}

/// Gathers every stretch, on a thread each (natively).
#[cfg(not(target_arch = "wasm32"))]
fn gather_parts<'a>(files: &'a [ParsedFile], stretches: &[Stretch], cover: &[(u32, u32)]) -> Vec<Part<'a>> {
    if stretches.len() <= 1 {
        return stretches.iter().map(|s| Part::gather(files, s, cover)).collect();
    }
    std::thread::scope(|scope| {
        let handles: Vec<_> = stretches[1..].iter().map(|s| scope.spawn(move || Part::gather(files, s, cover))).collect();
        // The first stretch on this thread.
        let mut out = vec![Part::gather(files, &stretches[0], cover)];
        for h in handles {
            out.push(h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)));
        }
        out
    })
}

#[cfg(target_arch = "wasm32")]
fn gather_parts<'a>(files: &'a [ParsedFile], stretches: &[Stretch], cover: &[(u32, u32)]) -> Vec<Part<'a>> {
    stretches.iter().map(|s| Part::gather(files, s, cover)).collect()
}

/// An error line's text: its message, then after a colon its error value
/// (zap's `error`, klog's `err`, controller-runtime's `panic` in `Observed
/// a panic`) when it has one; and where that value begins, when it is not
/// empty ([`Reconcile::error_value_at`]).
fn error_text(f: &ParsedFile, r: &Record) -> (String, Option<u32>) {
    let msg = f.message(r);
    let fields = f.fields(r);
    match f.find_error(&fields).or_else(|| f.find_field(&fields, "panic")).map(|fl| f.value(fl)) {
        Some(e) => (format!("{msg}: {e}"), (!e.is_empty()).then_some((msg.len() + 2) as u32)),
        None => (msg.to_string(), None),
    }
}

/// What a failed reconcile failed with: its first error line, which an
/// operator writes with words of its own (kamaji's `unable to create the
/// DataStore user: …`, then the same error in `Reconciler error`), unless
/// the error it returned (controller-runtime's `Reconciler error`, or the
/// panic it recovered) is not in that line: then an operator logged one
/// error and went on to fail with another (kueue #6949 in the corpus:
/// `Failed to process DRA resources…`, then `Reconciler error` with
/// `localQueue doesn't exist or inactive`), and the error returned is it.
fn returned_error(r: &mut Reconcile, (text, at): (Box<str>, Option<u32>)) {
    let value = at.and_then(|at| text.get(at as usize..)).unwrap_or("");
    match &r.error {
        Some(first) if first.contains(value) => {}
        _ => {
            r.error_value_at = at;
            r.error = Some(text.into_string());
        }
    }
    r.outcome = Outcome::Error;
}

/// Whether a field key is a Kind's name (`RayCluster`, `TenantControlPlane`):
/// an identifier that starts with a capital letter.
fn is_kind_word(key: &[u8]) -> bool {
    key.len() >= 2 && key[0].is_ascii_uppercase() && key.iter().all(u8::is_ascii_alphanumeric) && key.iter().any(u8::is_ascii_lowercase)
}

/// An object named by one value: `{"name":"x","namespace":"y"}` (zap), or
/// `ns/name` / `name` (klog's `KRef`, `request`), names as Kubernetes
/// allows them.
fn object_value(v: &str) -> Option<ObjectRef> {
    let v = v.trim();
    if v.starts_with('{') {
        let j: serde_json::Value = serde_json::from_str(v).ok()?;
        let name = j.get("name")?.as_str().filter(|n| !n.is_empty())?.to_string();
        let namespace = j.get("namespace").and_then(|n| n.as_str()).filter(|n| !n.is_empty()).map(str::to_string);
        return Some(ObjectRef { namespace, name });
    }
    let ok = |s: &str| !s.is_empty() && s.len() <= 253 && s.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'.');
    match v.split_once('/') {
        Some((ns, name)) if ok(ns) && ok(name) => Some(ObjectRef { namespace: Some(ns.to_string()), name: name.to_string() }),
        None if ok(v) => Some(ObjectRef { namespace: None, name: v.to_string() }),
        _ => None,
    }
}

/// The controller a logger name gives: the part after a `controller` or
/// `controllers` part (`controllers.RayCluster` → `RayCluster`).
fn controller_in_logger(logger: &[u8]) -> Option<std::ops::Range<usize>> {
    let mut at = 0;
    let mut parts = logger.split(|&b| b == b'.');
    while let Some(p) = parts.next() {
        at += p.len() + 1;
        if p == b"controller" || p == b"controllers" {
            return parts.next().filter(|n| !n.is_empty()).map(|n| at..at + n.len());
        }
    }
    None
}

/// The interned string of `key`, and its number; `text` makes it when new.
fn intern<'a>(strings: &mut HashMap<Key<'a>, (Arc<str>, u32)>, key: Cow<'a, [u8]>, text: impl FnOnce() -> Arc<str>) -> (Arc<str>, u32) {
    if let Some(known) = strings.get(KeyRef::new(&key)) {
        return known.clone();
    }
    let next = strings.len() as u32;
    strings.entry(Key(key)).or_insert_with(|| (text(), next)).clone()
}

/// Groups every record with a `reconcileID` into reconciles, splits each
/// controller name into instances, and lays reconciles out in worker lanes.
/// Also returns the deletion steps seen, by reconcile index.
pub fn build(files: &[ParsedFile], opts: &AnalyzeOptions) -> Built {
    build_beside(files, opts, |_| ()).0
}

/// [`build`], with `side` run beside the part that runs on one thread (the
/// parts' join and what follows it; see [`super::beside`]), given the
/// records the etcd analysis reads as soon as the gathering has them.
/// The analysis puts the etcd analysis and the coverage there, which read
/// nothing the join makes: the second core would idle otherwise.
pub fn build_beside<S: Send>(files: &[ParsedFile], opts: &AnalyzeOptions, side: impl FnOnce(&[RecordRef]) -> S + Send) -> (Built, S) {
    let cover = coverage(files);
    let total: usize = files.iter().map(|f| f.records.len()).sum();
    let threads = opts.threads.min(total / opts.min_records_per_thread.max(1)).max(1);
    let mut parts = gather_parts(files, &stretches(files, threads), &cover);
    // In file order, as the parts are.
    let etcd: Vec<RecordRef> = parts.iter_mut().flat_map(|p| std::mem::take(&mut p.etcd)).collect();
    let (mut built, s) = super::beside(opts, || finish(files, opts, parts, &cover), || side(&etcd));
    built.etcd_records = etcd;
    (built, s)
}

/// The parts joined, the controller instances found and named, and the
/// workers' lanes laid out.
/// `cover`: each file's first and last record with a time (see [`coverage`]).
fn finish<'a>(files: &'a [ParsedFile], opts: &AnalyzeOptions, parts: Vec<Part<'a>>, cover: &[(u32, u32)]) -> Built {
    let Gathered { mut reconciles, mut drafts, names, vocab, starting: start_lines, deletions, lines, retry_lines, took_lines, signals } = merge(files, parts);
    // The list may have grown by doubling: the analysis is kept as long as
    // its inputs are, so the room it will not use is given back.
    reconciles.shrink_to_fit();
    // Each controller name's `Starting workers` lines: count, time.
    let mut starting: BTreeMap<String, Vec<(u32, Option<Timestamp>)>> = BTreeMap::new();
    for (c, n, t) in start_lines {
        starting.entry(c).or_default().push((n, t));
    }
    let started_once = started_once(&drafts, &reconciles, names, &starting);
    for (r, d) in reconciles.iter_mut().zip(&mut drafts) {
        if let Some(returned) = d.returned.take() {
            returned_error(r, returned);
        }
    }
    let lines = Lines::group(drafts.len(), lines);
    // A reconcile whose last line says when it is tried again (Flux: `…,
    // retrying in 30s`, then `return ctrl.Result{RequeueAfter: …}`).
    for (i, rr) in retry_lines {
        let r = &mut reconciles[i as usize];
        if lines.refs(i as usize).last() == Some(&rr) && r.outcome == Outcome::Success {
            r.outcome = Outcome::Requeue;
        }
    }
    // A line that says how long its reconcile had run (Flux:
    // `Reconciliation finished in 613.16027ms`): it began that long before
    // the line, however late its first line came. The start the log states
    // is drawn as a latent start, at the line's precision: the line was
    // written in the tick from its time, so the start lies in the tick from
    // its time less the duration, and is taken at the first tick boundary
    // in it (never before a line of the same clock it may have followed).
    for (i, rr, took) in took_lines {
        let Some(t) = files[rr.file as usize].records.get(rr.record as usize).and_then(time_of) else { continue };
        let tick = crate::time::tick_nanos(t.digits);
        let up = |n: i64| n.checked_add((tick - n.rem_euclid(tick)) % tick);
        let Some(start) = t.nanos.checked_sub(took).and_then(up).map(|n| t.at(n, t.digits)) else { continue };
        drafts[i as usize].states_its_start = true;
        let r = &mut reconciles[i as usize];
        if start.nanos < r.first.nanos && r.latent_start.is_none_or(|ls| start.nanos < ls.nanos) {
            r.latent_start = Some(start);
            r.stated_start = true;
        }
    }
    let instance_of = split_instances(&drafts, names, &lines, &vocab, &started_once);
    let mut controllers = name_instances(&drafts, &reconciles, &instance_of, &lines, &vocab);
    // One pass over the reconciles for the rest: each is big, and there
    // may be a million of them.
    let mut runs: Vec<Vec<Run>> = vec![Vec::new(); controllers.len()];
    // The time of each file's last timed line.
    let file_end: Vec<Option<Timestamp>> = files.iter().zip(cover).map(|(f, &(_, hi))| f.records.get(hi as usize).and_then(time_of)).collect();
    // Reconciles that nothing after them in their file shows ended.
    let mut at_the_end = Vec::new();
    for (i, r) in reconciles.iter_mut().enumerate() {
        r.controller = instance_of[i];
        r.records = lines.range(i);
        r.lines = r.records.len() as u32;
        let refs = lines.refs(i);
        // The log stops after it: its last line is its file's last timed
        // line, or no later than its own (writers that share a file do not
        // write in time order to the microsecond, as kueue's envtest log
        // shows): nothing shows time passing after it.
        let at_end = drafts[i].ends_log || refs.last().and_then(|rr| file_end[rr.file as usize]).is_some_and(|end| r.last >= end);
        r.said_done = drafts[i].said_done;
        if at_end && !r.said_done && r.outcome == Outcome::Success {
            at_the_end.push(i);
        }
        // (From the start its line states, if any: it ran from then.)
        runs[r.controller].push(Run { first: r.start(), first_record: refs.first().copied(), i, last: r.last, last_record: refs.last().copied() });
    }
    let ended = followed_by_the_next(&controllers, &reconciles, &lines, &at_the_end);
    for (&i, ended) in at_the_end.iter().zip(ended) {
        if !ended {
            reconciles[i].outcome = Outcome::Unfinished;
        }
    }
    // In start order (nearly so already: reconciles are numbered as they
    // start).
    for rs in &mut runs {
        rs.sort();
    }
    assign_workers(&mut controllers, &runs, &starting, opts);
    lay_out_lanes(&controllers, runs, &mut reconciles, &lines, &drafts);
    Built { controllers, reconciles, record_refs: lines.refs, deletions, etcd_records: Vec::new(), signal_records: signals }
}

/// For each of `candidates` (reconciles no later line shows ended: their
/// last line is at their file's last time, as in a log whose times are
/// whole seconds), whether a reconcile of the same object by the same
/// controller instance begins after its last line in the same file.
/// controller-runtime's queue hands an object to one worker at a time,
/// so the next reconcile of it shows that this one had returned. (Not for
/// an instance no line names: it may be more than one controller.)
fn followed_by_the_next(controllers: &[ControllerInstance], reconciles: &[Reconcile], lines: &Lines, candidates: &[usize]) -> Vec<bool> {
    if candidates.is_empty() {
        return Vec::new();
    }
    type Same<'r> = (usize, u32, &'r ObjectRef);
    // Each candidate's object: the last record in its file where a
    // reconcile of it begins.
    let mut next: HashMap<Same<'_>, u32> = HashMap::default();
    let key = |i: usize, rr: Option<&RecordRef>| {
        let c = reconciles[i].controller;
        controllers[c].is_named().then_some(())?;
        Some((c, rr?.file, &**reconciles[i].object.as_ref()?))
    };
    for &i in candidates {
        if let Some(k) = key(i, lines.refs(i).last()) {
            next.insert(k, 0);
        }
    }
    for i in 0..reconciles.len() {
        let first = lines.refs(i).first();
        if let Some(at) = key(i, first).and_then(|k| next.get_mut(&k)) {
            *at = (*at).max(first.map_or(0, |rr| rr.record));
        }
    }
    candidates
        .iter()
        .map(|&i| {
            let last = lines.refs(i).last();
            key(i, last).and_then(|k| next.get(&k)).is_some_and(|&begins| last.is_some_and(|rr| begins > rr.record))
        })
        .collect()
}

/// What [`build`] makes.
pub struct Built {
    pub controllers: Vec<ControllerInstance>,
    pub reconciles: Vec<Reconcile>,
    /// Every reconcile's records, reconcile after reconcile.
    pub record_refs: Vec<RecordRef>,
    pub deletions: Vec<DeletionStep>,
    /// The records [`etcd::analyze`] reads (see [`etcd::may_matter`]),
    /// picked out in the same pass.
    pub etcd_records: Vec<RecordRef>,
    /// The records [`signals`] reads (see [`signals::may_matter`]), in
    /// file order: throttled requests, the manager's start-ups, leader
    /// lease and exits.
    pub signal_records: Vec<RecordRef>,
}

/// Reconcile lines grouped by reconcile: each reconcile's records (in file
/// order) and their word ids are one slice of two flat arrays.
struct Lines {
    refs: Vec<RecordRef>,
    words: Vec<u32>,
    starts: Vec<u32>,
}

impl Lines {
    /// A stable counting sort of the gathered lines by reconcile.
    fn group(n: usize, lines: Vec<(u32, RecordRef, u32)>) -> Lines {
        let mut starts = vec![0u32; n + 1];
        for &(d, _, _) in &lines {
            starts[d as usize + 1] += 1;
        }
        for i in 0..n {
            starts[i + 1] += starts[i];
        }
        let mut at = starts.clone();
        let mut refs = vec![RecordRef { file: 0, record: 0 }; lines.len()];
        let mut words = vec![0u32; lines.len()];
        for (d, r, w) in lines {
            let p = &mut at[d as usize];
            refs[*p as usize] = r;
            words[*p as usize] = w;
            *p += 1;
        }
        Lines { refs, words, starts }
    }
    fn range(&self, i: usize) -> std::ops::Range<u32> {
        self.starts[i]..self.starts[i + 1]
    }
    fn refs(&self, i: usize) -> &[RecordRef] {
        &self.refs[self.starts[i] as usize..self.starts[i + 1] as usize]
    }
    fn words(&self, i: usize) -> &[u32] {
        &self.words[self.starts[i] as usize..self.starts[i + 1] as usize]
    }
    /// A reconcile's words other than controller-runtime's own.
    fn vocabulary<'s>(&'s self, i: usize, vocab: &'s Vocab<'_>) -> impl Iterator<Item = u32> + 's {
        self.words(i).iter().copied().filter(|&w| !vocab.runtime[w as usize])
    }
}

/// For each file, the first and last record index that carry a time.
fn coverage(files: &[ParsedFile]) -> Vec<(u32, u32)> {
    files
        .iter()
        .map(|f| {
            let lo = f.records.iter().position(|r| time_of(r).is_some()).unwrap_or(0);
            let hi = f.records.iter().rposition(|r| time_of(r).is_some()).unwrap_or(0);
            (lo as u32, hi as u32)
        })
        .collect()
}

/// By controller name (see [`Draft::name_id`]; `names` of them): whether
/// the log shows its one instance start before any of its reconciles (one
/// `Starting workers` line of that name, timed no later than the first
/// of them). controller-runtime starts each controller's workers once,
/// so all of its reconciles are that instance's, whatever their messages.
/// (A second manager of its own, like kamaji's soot manager, logs a start
/// of its own; a log that begins after the start says nothing.)
fn started_once(drafts: &[Draft], reconciles: &[Reconcile], names: usize, starting: &BTreeMap<String, Vec<(u32, Option<Timestamp>)>>) -> Vec<bool> {
    let mut once: Vec<bool> = vec![false; names];
    if starting.is_empty() {
        return once;
    }
    // Each name's first reconcile time, and its start when it has one.
    let mut first: Vec<Option<Timestamp>> = vec![None; names];
    let mut start: Vec<Option<Timestamp>> = vec![None; names];
    for (d, r) in drafts.iter().zip(reconciles) {
        let k = d.name_id as usize;
        if first[k].is_none() {
            start[k] = match starting.get(&*d.controller_name).map(Vec::as_slice) {
                Some(&[(_, t)]) => t,
                _ => None,
            };
        }
        first[k] = Some(first[k].map_or(r.first, |f| f.min(r.first)));
    }
    for k in 0..names {
        once[k] = matches!((start[k], first[k]), (Some(s), Some(f)) if s <= f);
    }
    once
}

/// Union-find over reconciles of one controller name: two reconciles that
/// share a message belong to the same instance. Small groups that share
/// nothing with anyone (an error-only reconcile) join the largest group;
/// all of them do when the name started once (`started_once`, by
/// [`Draft::name_id`]).
/// Returns, per draft, its instance number (global, dense). `names`: how
/// many numbers the interned strings have (see [`Draft::name_id`]).
fn split_instances(drafts: &[Draft], names: usize, lines: &Lines, vocab: &Vocab<'_>, started_once: &[bool]) -> Vec<usize> {
    let words = &vocab.words;
    let mut parent: Vec<usize> = (0..drafts.len()).collect();
    fn find(p: &mut [usize], mut x: usize) -> usize {
        while p[x] != x {
            p[x] = p[p[x]];
            x = p[x];
        }
        x
    }
    // The first reconcile that logged each word, per controller name (a
    // table per name, by word id: a look-up for every line).
    let mut owner: Vec<Vec<u32>> = vec![Vec::new(); names];
    for (i, d) in drafts.iter().enumerate() {
        let owner = &mut owner[d.name_id as usize];
        if owner.is_empty() {
            owner.resize(words.len(), u32::MAX);
        }
        for w in lines.vocabulary(i, vocab) {
            match owner[w as usize] {
                u32::MAX => owner[w as usize] = i as u32,
                j => {
                    let (a, b) = (find(&mut parent, i), find(&mut parent, j as usize));
                    if a != b {
                        parent[a] = b;
                    }
                }
            }
        }
    }
    // The groups, each of one controller name (reconciles are only joined
    // with reconciles of their own name), in order of first member.
    let mut group_of_root = vec![u32::MAX; drafts.len()];
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for i in 0..drafts.len() {
        let g = &mut group_of_root[find(&mut parent, i)];
        if *g == u32::MAX {
            *g = groups.len() as u32;
            groups.push(Vec::new());
        }
        groups[*g as usize].push(i);
    }
    let mut by_name: BTreeMap<&str, Vec<Vec<usize>>> = BTreeMap::new();
    for members in groups {
        by_name.entry(&drafts[members[0]].controller_name).or_default().push(members);
    }
    let roles: Vec<Option<&'static str>> = words.iter().map(|w| role_of(w)).collect();
    let mut out = vec![0usize; drafts.len()];
    let mut next = 0usize;
    for (_, mut gs) in by_name {
        // Largest first; ties by earliest member for a stable order.
        gs.sort_by_key(|g| (std::cmp::Reverse(g.len()), g[0]));
        let largest = gs.first().map_or(0, Vec::len);
        let main = next;
        next += 1;
        if started_once[drafts[gs[0][0]].name_id as usize] {
            for &m in gs.iter().flatten() {
                out[m] = main;
            }
            continue;
        }
        // Groups that name the same known role are one instance.
        let mut by_role: BTreeMap<&str, usize> = BTreeMap::new();
        for (k, g) in gs.iter().enumerate() {
            // A group is an instance of its own when its vocabulary names a
            // known role, or when it is big next to the largest; any other
            // group (a deletion path, an error-only reconcile) is the main
            // instance taking a branch its other reconciles did not log.
            let role = if k == 0 { None } else { g.iter().find_map(|&m| lines.vocabulary(m, vocab).find_map(|w| roles[w as usize])) };
            let big = g.len() >= 5 && g.len() * 4 >= largest;
            let id = match role {
                _ if k == 0 => main,
                Some(role) => *by_role.entry(role).or_insert_with(|| {
                    next += 1;
                    next - 1
                }),
                None if big => {
                    next += 1;
                    next - 1
                }
                None => main,
            };
            for &m in g {
                out[m] = id;
            }
        }
    }
    out
}

/// A small table of controller roles people know by name, keyed by words
/// of their messages. Only a nicer name and a hint for splitting: the split
/// works without it.
const KNOWN_ROLES: &[(&str, &str)] = &[("soot manager", "soot manager")];

fn role_of(message: &str) -> Option<&'static str> {
    KNOWN_ROLES.iter().find(|(needle, _)| message.contains(needle)).map(|(_, role)| *role)
}

/// Builds the instance list with readable names.
/// How a controller that no line names is shown to people.
pub const UNKNOWN_CONTROLLER: &str = "unknown controller";

fn name_instances(drafts: &[Draft], reconciles: &[Reconcile], instance_of: &[usize], lines: &Lines, vocab: &Vocab<'_>) -> Vec<ControllerInstance> {
    let n = instance_of.iter().copied().max().map_or(0, |m| m + 1);
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, &c) in instance_of.iter().enumerate() {
        members[c].push(i);
    }
    let mut out = Vec::with_capacity(n);
    let mut seen_names: BTreeMap<String, usize> = BTreeMap::new();
    for ms in members.iter() {
        let d0 = &drafts[ms[0]];
        let k = seen_names.entry(d0.controller_name.to_string()).or_insert(0);
        *k += 1;
        let ordinal = *k;
        // A controller no line names: an id of its own, and a name that
        // says it is unknown (the JSON gives `null`).
        let (key, shown) = if d0.controller_name.is_empty() { ("unnamed", UNKNOWN_CONTROLLER) } else { (&*d0.controller_name, &*d0.controller_name) };
        let id = if ordinal == 1 { key.to_string() } else { format!("{key}#{ordinal}") };
        let name = if ordinal == 1 { shown.to_string() } else { format!("{shown} ({})", signature(ms, lines, vocab)) };
        out.push(ControllerInstance {
            id,
            name,
            controller: d0.controller_name.to_string(),
            group: d0.group.as_deref().map(str::to_string),
            kind: reconciles[ms[0]].kind.as_deref().map(str::to_string),
            workers: 1,
            workers_source: "inferred".into(),
            reconciles: ms.len(),
        });
    }
    out
}

/// What distinguishes an instance: a known role, or its commonest message.
fn signature(members: &[usize], lines: &Lines, vocab: &Vocab<'_>) -> String {
    let mut freq: BTreeMap<&str, usize> = BTreeMap::new();
    for &m in members {
        for w in lines.vocabulary(m, vocab) {
            *freq.entry(vocab.words[w as usize].as_str()).or_insert(0) += 1;
        }
    }
    let top = freq.iter().max_by_key(|(w, n)| (**n, std::cmp::Reverse(**w))).map(|(w, _)| *w).unwrap_or("");
    if let Some(role) = freq.keys().find_map(|w| role_of(w)) {
        return role.to_string();
    }
    let words: Vec<&str> = top.split_whitespace().take(4).collect();
    format!("\u{201c}{}\u{2026}\u{201d}", words.join(" "))
}

/// What worker counts and lanes read of a reconcile. Ordered by start,
/// then first record (then index: the order of a stable sort).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Run {
    first: Timestamp,
    first_record: Option<RecordRef>,
    i: usize,
    last: Timestamp,
    last_record: Option<RecordRef>,
}

/// Worker counts: `--workers` first, then `Starting workers` lines (in
/// order of the instances' first reconcile), else the most reconciles seen
/// in flight at once.
/// `runs`: each instance's reconciles.
fn assign_workers(
    controllers: &mut [ControllerInstance],
    runs: &[Vec<Run>],
    starting: &BTreeMap<String, Vec<(u32, Option<Timestamp>)>>,
    opts: &AnalyzeOptions,
) {
    let first_seen: Vec<Option<Timestamp>> = runs.iter().map(|rs| rs.iter().map(|r| r.first).min()).collect();
    let mut order: Vec<usize> = (0..controllers.len()).collect();
    order.sort_by_key(|&i| (controllers[i].controller.clone(), first_seen[i]));
    let mut used: BTreeMap<String, usize> = BTreeMap::new();
    for i in order {
        let c = &mut controllers[i];
        if let Some(n) = opts.workers.get(&c.id).or_else(|| opts.workers.get(&c.controller)) {
            c.workers = (*n).max(1);
            c.workers_source = "option".into();
            continue;
        }
        if let Some(list) = starting.get(&c.controller) {
            let k = used.entry(c.controller.clone()).or_insert(0);
            if let Some((n, _)) = list.get(*k).or(list.last()) {
                c.workers = (*n).max(1);
                c.workers_source = "log".into();
                *k += 1;
                continue;
            }
        }
        // Inferred: the peak of reconciles in flight.
        let mut ev: Vec<(Timestamp, i32)> = Vec::new();
        for r in &runs[i] {
            ev.push((r.first, 1));
            ev.push((r.last, -1));
        }
        // At equal times an end comes before a start: second-precision
        // logs make back-to-back reconciles touch.
        ev.sort_by_key(|&(t, d)| (t, d));
        let (mut cur, mut peak) = (0i32, 1i32);
        for (_, d) in ev {
            cur += d;
            peak = peak.max(cur);
        }
        // None at once, but lines of two reconciles out of the order one
        // worker writes them in: two workers at least.
        if peak == 1 && written_by_two_workers(&runs[i]) {
            peak = 2;
        }
        c.workers = peak.max(1) as u32;
        c.workers_source = "inferred".into();
    }
}

/// Whether the lines of an instance's reconciles that never ran at once
/// (`runs`, in start order) show two workers: one worker runs its
/// reconciles one after the other and logs each line as it goes, so in a
/// file its reconciles' lines come in the order of their times, each
/// reconcile's after the one before's. A reconcile whose first line comes
/// before the last line of the one that began before it in time (kueue
/// #8437: a line 1 µs earlier than the line above it, of another
/// reconcile) was run by another.
fn written_by_two_workers(runs: &[Run]) -> bool {
    // Each file's last line of the reconcile that began last so far.
    let mut last_in: HashMap<u32, u32> = HashMap::default();
    for r in runs {
        let (Some(first), Some(last)) = (r.first_record, r.last_record) else { continue };
        if last_in.get(&first.file).is_some_and(|&before| first.record < before) {
            return true;
        }
        if last.file == first.file {
            last_in.insert(first.file, last.record);
        }
    }
    false
}

/// Lays each instance's reconciles into at most `workers` lanes, and gives a
/// latent start to reconciles whose first line came late.
/// `runs`: each instance's reconciles, in start order.
fn lay_out_lanes(controllers: &[ControllerInstance], runs: Vec<Vec<Run>>, reconciles: &mut [Reconcile], lines: &Lines, drafts: &[Draft]) {
    for (c, idx) in controllers.iter().zip(runs) {
        // Which messages open reconciles of this instance: a reconcile whose
        // first message is usually not a first line started earlier.
        let n_words = idx.iter().flat_map(|r| lines.words(r.i).iter()).max().map_or(0, |&m| m as usize + 1);
        let mut opens: Vec<(u32, u32)> = vec![(0, 0); n_words];
        for r in &idx {
            for (k, &w) in lines.words(r.i).iter().enumerate() {
                let e = &mut opens[w as usize];
                e.1 += 1;
                if k == 0 {
                    e.0 += 1;
                }
            }
        }
        let mut lanes: Vec<Option<Timestamp>> = vec![None; c.workers.max(1) as usize];
        // More workers than one, counted from what the logs show at once:
        // there may be more, so no lane's end bounds when a reconcile began.
        let guessed_lanes = c.workers > 1 && c.workers_source == "inferred";
        for r in idx {
            let opens_here = opens.get(lines.words(r.i)[0] as usize).is_some_and(|(first, total)| first * 2 >= *total && *first > 0);
            let late = drafts[r.i].opens_with_error || !opens_here;
            let free = lanes.iter().enumerate().filter(|(_, f)| f.is_none_or(|t| t <= r.first));
            // Best fit: the free lane that freed up last. A reconcile whose
            // first line came late may have begun on any free worker: the
            // one free the longest bounds when (one never used, none). Else
            // the lane that frees up first.
            let fit = if late { free.min_by_key(|(_, f)| *f) } else { free.max_by_key(|(_, f)| *f) };
            let lane = fit.or_else(|| lanes.iter().enumerate().min_by_key(|(_, f)| *f)).map_or(0, |(l, _)| l);
            let prev_end = lanes[lane];
            let rec = &mut reconciles[r.i];
            rec.lane = lane as u32;
            if late && !guessed_lanes && rec.latent_start.is_none() && !drafts[r.i].states_its_start {
                if let Some(p) = prev_end {
                    if p < r.first {
                        rec.latent_start = Some(p);
                    }
                }
            }
            lanes[lane] = Some(lanes[lane].map_or(r.last, |t| t.max(r.last)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plain reading of a UUID, a digit at a time.
    fn uuid_reference(s: &[u8]) -> Option<u128> {
        if s.len() != 36 {
            return None;
        }
        let mut v: u128 = 0;
        for (i, &b) in s.iter().enumerate() {
            if matches!(i, 8 | 13 | 18 | 23) {
                if b != b'-' {
                    return None;
                }
                continue;
            }
            let d = (b as char).to_digit(16)?;
            v = v << 4 | u128::from(d);
        }
        Some(v)
    }

    #[test]
    fn bytes_are_equal_exactly_when_slices_are() {
        let text = b"Reconciling tenant control plane 0123456789";
        for len in 0..text.len() {
            let (a, copy) = (&text[..len], text[..len].to_vec());
            assert!(KeyRef::new(a) == KeyRef::new(&copy));
            assert!(KeyRef::new(a) != KeyRef::new(&text[..len + 1]));
            for at in 0..len {
                let mut b = a.to_vec();
                b[at] ^= 1;
                assert!(KeyRef::new(a) != KeyRef::new(&b), "{len} {at}");
            }
        }
    }

    #[test]
    fn objects_written_in_a_message_are_one_word() {
        let check = |msg: &str, expect: &str| assert_eq!(normalise(msg, None), expect, "{msg}");
        check("can't push DataStore reconciliation for object default/stress-3", "can't push DataStore reconciliation for object <object>");
        check("moved tenant-a1/tcp.x to tenant-b/y, done", "moved <object> to <object>, done");
        check("Reconciling \"kube-system/coredns\"", "Reconciling \"<object>\"");
        // A count is written the same way (and is no part of what the
        // message says either).
        check("1/3 replicas ready", "<object> replicas ready");
        // Not objects: paths, URLs, identifiers, upper case, more than one
        // slash, a name ending in a dash.
        for same in [
            "reading /var/log/pods",
            "GET https://10.0.0.1:6443/api/v1/namespaces",
            "apps/v1/Deployment",
            "a_b/c",
            "Default/Stress",
            "x/",
            "/x",
            "ns-/name",
            "<name>/x",
        ] {
            check(same, same);
        }
    }

    /// kamaji's datastore controller writes the object it could not push
    /// in its message (tests/corpus/kamaji/issue787_datastore_channel_full.log):
    /// still one controller, not an instance per object.
    #[test]
    fn a_message_naming_other_objects_keeps_one_instance() {
        let mut text = String::new();
        for i in 0..30 {
            let id = format!("43b1f9e5-755c-4819-824e-33af1678f{i:03}");
            let line = |s: u32, level: &str, msg: &str| {
                format!(
                    "2025-04-16T16:{:02}:{s:02}Z\t{level}\t{msg}\t{{\"controller\": \"datastore\", \"controllerGroup\": \"kamaji.clastix.io\", \"controllerKind\": \"DataStore\", \"DataStore\": {{\"name\":\"default\"}}, \"namespace\": \"\", \"name\": \"default\", \"reconcileID\": \"{id}\"}}\n",
                    i
                )
            };
            text += &line(1, "ERROR", &format!("can't push DataStore reconciliation for object default/stress-{}", i % 6));
        }
        let files = [crate::parse::parse_file("kamaji.log", text.into_bytes(), &Default::default())];
        let built = build(&files, &AnalyzeOptions::default());
        assert_eq!(built.reconciles.len(), 30);
        let names: Vec<&str> = built.controllers.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["datastore"]);
    }

    #[test]
    fn uuids_with_the_same_fold_are_two_reconciles() {
        // Both fold to 3 (and so share a recent slot too).
        let (a, b) = ("00000000-0000-0001-0000-000000000002", "00000000-0000-0002-0000-000000000001");
        assert_eq!(uuid_bits(a.as_bytes()).map(Ids::fold), uuid_bits(b.as_bytes()).map(Ids::fold));
        let text: String = [a, b, a, b, b]
            .iter()
            .enumerate()
            .map(|(i, id)| format!("2026-05-26T20:23:1{i}Z\tINFO\tstep {i}\t{{\"controller\": \"c\", \"reconcileID\": \"{id}\"}}\n"))
            .collect();
        let files = [crate::parse::parse_file("m.log", text.into_bytes(), &Default::default())];
        let built = build(&files, &AnalyzeOptions::default());
        let got: Vec<(&str, u32)> = built.reconciles.iter().map(|r| (r.reconcile_id.as_str(), r.lines)).collect();
        assert_eq!(got, [(a, 2), (b, 3)]);
    }

    #[test]
    fn uuid_bits_reads_exactly_what_a_digit_loop_reads() {
        let base = *b"3f2504e0-4f89-41d3-9a0c-0305e82c3301";
        assert_eq!(uuid_bits(&base), Some(0x3f2504e0_4f89_41d3_9a0c_0305e82c3301));
        assert_eq!(uuid_bits(b"3F2504E0-4F89-41D3-9A0C-0305E82C3301"), uuid_bits(&base));
        for id in [*b"00000000-0000-0000-0000-000000000000", *b"ffffffff-ffff-ffff-ffff-ffffffffffff", *b"0123abcd-4567-89ef-ABCD-EF0123456789"] {
            assert_eq!(uuid_bits(&id), uuid_reference(&id));
            assert!(uuid_bits(&id).is_some());
        }
        // Every byte value at every place.
        for at in 0..base.len() {
            for b in 0..=255u8 {
                let mut s = base;
                s[at] = b;
                assert_eq!(uuid_bits(&s), uuid_reference(&s), "{:?}", String::from_utf8_lossy(&s));
            }
        }
        assert_eq!(uuid_bits(&base[..35]), None);
        assert_eq!(uuid_bits(b"3f2504e0-4f89-41d3-9a0c-0305e82c33010"), None);
        assert_eq!(uuid_bits(b"3f2504e04f8941d39a0c0305e82c3301"), None);
    }
}
