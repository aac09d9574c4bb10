//! The `reconscope.analysis/v1` JSON document (`reconscope analyze --json`).
//! Times are RFC3339 in UTC at the precision the source had; unknown
//! values are `null`.

use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;
use serde_json::{json, Value};

use crate::analyze::model::{Analysis, ControllerInstance, Detail, Election, Finding, FindingKind, GoroutineDump, GoroutineGroup, ObjectLifecycle, Reconcile};
use crate::model::Timestamp;
use crate::stats::FileStats;
use crate::time::Gap;

pub const SCHEMA: &str = "reconscope.analysis/v1";

/// A gap's bounds: `null` when both timestamps are exact to the nanosecond.
fn bounds(g: Gap) -> (Value, Value) {
    if g.is_exact() {
        (Value::Null, Value::Null)
    } else {
        (g.at_least.into(), g.at_most.into())
    }
}

fn t(ts: Option<Timestamp>) -> Value {
    ts.map_or(Value::Null, |t| Value::String(t.to_string()))
}

/// What the CLI adds to the document: each finding's evidence link
/// (`findings[].link`, present when given) and the run's notes (`notes`,
/// present when given); and how [`write_json`] writes it.
#[derive(Clone, Copy, Debug, Default)]
pub struct Extras<'a> {
    pub links: Option<&'a [Option<String>]>,
    pub notes: Option<&'a [String]>,
    /// How many threads [`write_json`] renders the reconciles with (the
    /// longest list by far), this one included; 0 or 1: this one alone.
    /// The document is the same byte for byte.
    pub threads: usize,
}

/// The whole document as a value (for tests and library users; the CLI
/// streams it with [`write_json`]).
pub fn to_json(inputs: &[FileStats], a: &Analysis) -> Value {
    serde_json::to_value(Doc { inputs, a, extras: Extras::default() }).unwrap_or(Value::Null)
}

/// Writes the document to `w` as it serialises it, one element at a time
/// (never the whole document in memory), pretty-printed with its keys in
/// order: what `serde_json::to_writer_pretty` gives of [`to_json`]'s
/// value. Give `w` a buffer: serde_json writes in small pieces.
pub fn write_json<W: std::io::Write>(w: W, inputs: &[FileStats], a: &Analysis, extras: Extras<'_>) -> serde_json::Result<()> {
    write_json_in(w, inputs, a, extras, RECONCILES_PER_CHUNK)
}

/// The reconciles are rendered this many at a time, each chunk into a
/// buffer of its own (about 1 MiB), by one thread of [`Extras::threads`].
const RECONCILES_PER_CHUNK: usize = 2048;

fn write_json_in<W: std::io::Write>(mut w: W, inputs: &[FileStats], a: &Analysis, extras: Extras<'_>, chunk: usize) -> serde_json::Result<()> {
    w.write_all(b"{").map_err(serde_json::Error::io)?;
    let mut out = Raw { w: &mut w, first: true, threads: extras.threads.max(1), chunk: chunk.max(1) };
    Doc { inputs, a, extras }.entries(&mut out)?;
    w.write_all(b"\n}").map_err(serde_json::Error::io)
}

struct Doc<'a> {
    inputs: &'a [FileStats],
    a: &'a Analysis,
    extras: Extras<'a>,
}

/// Where the document's top-level entries go: a serde map ([`to_json`]),
/// or straight to the writer ([`write_json`]), which renders the
/// reconciles on several threads.
trait Entries {
    type Error;
    fn entry<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), Self::Error>;
    fn reconciles(&mut self, a: &Analysis) -> Result<(), Self::Error>;
}

struct Map<'m, M>(&'m mut M);

impl<M: SerializeMap> Entries for Map<'_, M> {
    type Error = M::Error;
    fn entry<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), M::Error> {
        self.0.serialize_entry(key, value)
    }
    fn reconciles(&mut self, a: &Analysis) -> Result<(), M::Error> {
        self.0.serialize_entry("reconciles", &SeqOf(|| a.reconciles.iter().map(|r| reconcile_doc(a, r))))
    }
}

/// The top-level map written by hand, each value by serde_json as its
/// pretty printer writes it at that depth ([`Indented`]).
struct Raw<W> {
    w: W,
    first: bool,
    threads: usize,
    chunk: usize,
}

impl<W: std::io::Write> Raw<W> {
    fn key(&mut self, key: &str) -> serde_json::Result<()> {
        let sep: &[u8] = if self.first { b"\n  " } else { b",\n  " };
        self.first = false;
        self.w.write_all(sep).map_err(serde_json::Error::io)?;
        serde_json::to_writer(&mut self.w, key)?;
        self.w.write_all(b": ").map_err(serde_json::Error::io)
    }
}

impl<W: std::io::Write> Entries for Raw<W> {
    type Error = serde_json::Error;
    fn entry<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> serde_json::Result<()> {
        self.key(key)?;
        value.serialize(&mut serde_json::Serializer::with_formatter(&mut self.w, Indented::at(1)))
    }
    fn reconciles(&mut self, a: &Analysis) -> serde_json::Result<()> {
        self.key("reconciles")?;
        write_reconciles(&mut self.w, a, self.threads, self.chunk)
    }
}

/// serde_json's pretty printer (two spaces an indent) from `depth` down:
/// a value written at that depth, as the printer writes it inside the
/// document.
struct Indented {
    depth: usize,
    has_value: bool,
}

impl Indented {
    fn at(depth: usize) -> Indented {
        Indented { depth, has_value: false }
    }
    fn indent<W: ?Sized + std::io::Write>(&self, w: &mut W) -> std::io::Result<()> {
        for _ in 0..self.depth {
            w.write_all(b"  ")?;
        }
        Ok(())
    }
    /// `[` or `{`: one level deeper, nothing in it yet.
    fn open<W: ?Sized + std::io::Write>(&mut self, w: &mut W, bracket: &[u8]) -> std::io::Result<()> {
        self.depth += 1;
        self.has_value = false;
        w.write_all(bracket)
    }
    /// `]` or `}`: on a line of its own at the outer depth after values.
    fn close<W: ?Sized + std::io::Write>(&mut self, w: &mut W, bracket: &[u8]) -> std::io::Result<()> {
        self.depth -= 1;
        if self.has_value {
            w.write_all(b"\n")?;
            self.indent(w)?;
        }
        w.write_all(bracket)
    }
    /// Before a value or a key: on a new line at this depth.
    fn next<W: ?Sized + std::io::Write>(&self, w: &mut W, first: bool) -> std::io::Result<()> {
        w.write_all(if first { b"\n" } else { b",\n" })?;
        self.indent(w)
    }
}

impl serde_json::ser::Formatter for Indented {
    fn begin_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.open(w, b"[")
    }
    fn end_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.close(w, b"]")
    }
    fn begin_array_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W, first: bool) -> std::io::Result<()> {
        self.next(w, first)
    }
    fn end_array_value<W: ?Sized + std::io::Write>(&mut self, _w: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }
    fn begin_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.open(w, b"{")
    }
    fn end_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.close(w, b"}")
    }
    fn begin_object_key<W: ?Sized + std::io::Write>(&mut self, w: &mut W, first: bool) -> std::io::Result<()> {
        self.next(w, first)
    }
    fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        w.write_all(b": ")
    }
    fn end_object_value<W: ?Sized + std::io::Write>(&mut self, _w: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

/// The `reconciles` list at depth 1, `chunk` reconciles at a time: with
/// more than one thread, the other threads render chunks in turn into
/// buffers while this one writes them in order.
fn write_reconciles<W: std::io::Write>(w: &mut W, a: &Analysis, threads: usize, chunk: usize) -> serde_json::Result<()> {
    let io = serde_json::Error::io;
    if a.reconciles.is_empty() {
        return w.write_all(b"[]").map_err(io);
    }
    let chunks: Vec<&[Reconcile]> = a.reconciles.chunks(chunk).collect();
    // Chunk `k` into `buf`, each element after its separator.
    let render = |k: usize, buf: &mut Vec<u8>| -> serde_json::Result<()> {
        buf.clear();
        for (j, r) in chunks[k].iter().enumerate() {
            buf.extend_from_slice(if k == 0 && j == 0 { b"\n    " } else { b",\n    " });
            write_reconcile(buf, a, r);
        }
        Ok(())
    };
    w.write_all(b"[").map_err(io)?;
    let lanes = threads.min(chunks.len());
    if lanes <= 1 {
        let mut buf = Vec::new();
        for k in 0..chunks.len() {
            render(k, &mut buf)?;
            w.write_all(&buf).map_err(io)?;
        }
    } else {
        std::thread::scope(|s| -> serde_json::Result<()> {
            let (render, n) = (&render, chunks.len());
            // Helper `h` renders chunks h, h + lanes, ...: one chunk ahead
            // of the writer at most, in buffers it is given back.
            let mut helpers = Vec::new();
            for h in 1..lanes {
                let (done, rendered) = std::sync::mpsc::sync_channel::<serde_json::Result<Vec<u8>>>(1);
                let (give_back, given) = std::sync::mpsc::channel::<Vec<u8>>();
                s.spawn(move || {
                    for k in (h..n).step_by(lanes) {
                        let mut buf = given.try_recv().unwrap_or_default();
                        let r = render(k, &mut buf).map(|()| buf);
                        // (The writer stopped: nothing more is wanted.)
                        if done.send(r).is_err() {
                            return;
                        }
                    }
                });
                helpers.push((rendered, give_back));
            }
            let mut own = Vec::new();
            for k in 0..chunks.len() {
                match k % lanes {
                    0 => {
                        render(k, &mut own)?;
                        w.write_all(&own).map_err(io)?;
                    }
                    h => {
                        let (rendered, give_back) = &helpers[h - 1];
                        // (A helper that panicked sends nothing: the scope
                        // passes its panic on.)
                        let Ok(buf) = rendered.recv() else { break };
                        let buf = buf?;
                        w.write_all(&buf).map_err(io)?;
                        let _ = give_back.send(buf);
                    }
                }
            }
            Ok(())
        })?;
    }
    w.write_all(b"\n  ]").map_err(io)
}

/// A list serialised as its items are made.
struct Seq<F>(F);

impl<F, I> Serialize for Seq<F>
where
    F: Fn() -> I,
    I: Iterator<Item = Value>,
{
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq((self.0)())
    }
}

impl Serialize for Doc<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        self.entries(&mut Map(&mut m))?;
        m.end()
    }
}

impl Doc<'_> {
    /// The entries, keys in order, as serde_json's own maps have them.
    fn entries<E: Entries>(&self, m: &mut E) -> Result<(), E::Error> {
        let a = self.a;
        m.entry("controllers", &Seq(|| a.controllers.iter().map(controller)))?;
        m.entry("coverage", &coverage(a))?;
        m.entry("dumps", &Seq(|| a.dumps.iter().map(dump)))?;
        m.entry("elections", &Seq(|| a.elections.iter().map(election)))?;
        let links = self.extras.links;
        m.entry(
            "findings",
            &Seq(|| {
                a.findings.iter().enumerate().map(move |(i, f)| {
                    let mut v = finding(a, f);
                    if let Some(links) = links {
                        v["link"] = json!(links.get(i).cloned().flatten());
                    }
                    v
                })
            }),
        )?;
        m.entry("goroutines", &Seq(|| a.goroutines.iter().map(|g| goroutine(a, g))))?;
        // Reconciles in flight against the workers, per bucket of the run.
        m.entry(
            "in_flight",
            &Seq(|| {
                a.in_flight.iter().map(|l| {
                    json!({
                        "controller_instance": a.controllers.get(l.controller).map(|c| &c.id), "workers": l.workers,
                        "start": l.start.to_string(), "bucket_nanos": l.bucket_nanos, "peak": l.peak, "peaks": l.peaks,
                    })
                })
            }),
        )?;
        // (Through a value, for its keys in order too.)
        m.entry("inputs", &Seq(|| self.inputs.iter().map(|i| serde_json::to_value(i).unwrap_or(Value::Null))))?;
        // When each manager held its leader lease.
        m.entry("leadership", &Seq(|| a.leadership.iter().map(|l| json!({"source": l.source, "acquired": t(Some(l.acquired)), "lost": t(l.lost)}))))?;
        if let Some(notes) = self.extras.notes {
            m.entry("notes", notes)?;
        }
        m.entry("objects", &Seq(|| a.objects.iter().map(object)))?;
        m.reconciles(a)?;
        m.entry("schema", SCHEMA)?;
        // Where the years of the times come from: `logs` (every time wrote
        // its year, or took it from dated lines of the logs), `file-time`
        // (some took it from a file's or an archive member's modification
        // time: a guess); null when no year is known.
        // false: the logs gave no year; times are `--MM-DDThh:mm:ssZ`.
        // null: no line has a time, so there is no year to know.
        let year_known = if a.coverage.sources.is_empty() { None } else { Some(!a.year_unknown) };
        let year_from = year_known.filter(|&k| k).map(|_| if a.year_is_file_time() { "file-time" } else { "logs" });
        m.entry("year_from", &year_from)?;
        m.entry("year_known", &year_known)?;
        // Times written with no zone were read at this offset (the files
        // that have them counted); null when every time wrote its zone.
        m.entry("zone_assumed", &a.zone_assumed)?;
        Ok(())
    }
}

/// A controller no line names is `null` (its instance id is still given
/// as `controller_instance`).
fn ctrl_id(a: &Analysis, i: Option<usize>) -> Value {
    i.filter(|&i| a.controllers[i].is_named()).map_or(Value::Null, |i| Value::String(a.controllers[i].id.clone()))
}

fn controller(c: &ControllerInstance) -> Value {
    json!({
        "id": c.id, "name": c.is_named().then_some(&c.name), "group": c.group, "kind": c.kind,
        "workers": c.workers, "workers_source": c.workers_source, "reconciles": c.reconciles,
    })
}

/// A timestamp written as its text without a `String` of its own.
struct Ts(Timestamp);

impl Serialize for Ts {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&self.0)
    }
}

/// A reconcile as the document writes it: fields in key order (the order
/// serde_json's maps give the other elements), borrowed, so the longest
/// list of the document is written without a map per element.
#[derive(Serialize)]
struct ReconcileDoc<'a> {
    controller: Option<&'a str>,
    controller_instance: &'a str,
    duration_nanos: Option<i64>,
    duration_nanos_at_least: Option<i64>,
    duration_nanos_at_most: Option<i64>,
    error: &'a Option<String>,
    first: Ts,
    lane: u32,
    last: Ts,
    latent_start: Option<Ts>,
    latent_start_from: Option<&'static str>,
    lines: u32,
    object: Option<String>,
    outcome: crate::analyze::model::Outcome,
    outcome_logged: bool,
    reconcile_id: &'a str,
    truncated: bool,
}

/// A reconcile's duration, first line to last, and its bounds when the
/// timestamps are not exact: none for one line, with or without a latent
/// start (a field of its own).
fn durations(r: &Reconcile) -> [Option<i64>; 3] {
    let g = (r.lines > 1).then(|| Gap::between(r.first, r.last));
    let (lo, hi) = g.filter(|g| !g.is_exact()).map_or((None, None), |g| (Some(g.at_least), Some(g.at_most)));
    [g.map(|g| g.nanos), lo, hi]
}

/// Where a latent start comes from: `stated` by a line of the reconcile,
/// or the earliest its `worker` was free.
fn latent_start_from(r: &Reconcile) -> Option<&'static str> {
    r.latent_start.map(|_| if r.stated_start { "stated" } else { "worker" })
}

fn reconcile_doc<'a>(a: &'a Analysis, r: &'a Reconcile) -> ReconcileDoc<'a> {
    let [duration_nanos, lo, hi] = durations(r);
    let c = &a.controllers[r.controller];
    ReconcileDoc {
        controller: c.is_named().then_some(c.id.as_str()),
        controller_instance: &c.id,
        duration_nanos,
        duration_nanos_at_least: lo,
        duration_nanos_at_most: hi,
        error: &r.error,
        first: Ts(r.first),
        lane: r.lane,
        last: Ts(r.last),
        latent_start: r.latent_start.map(Ts),
        latent_start_from: latent_start_from(r),
        lines: r.lines,
        object: r.object.as_ref().map(|o| o.to_string()),
        outcome: r.outcome,
        outcome_logged: r.outcome_logged(),
        reconcile_id: &r.reconcile_id,
        truncated: r.truncated,
    }
}

/// A reconcile written into `buf` by hand, byte for byte what serde_json's
/// pretty printer makes of [`reconcile_doc`] at the reconciles' depth:
/// the keys are fixed, and the document holds as many reconciles as the
/// logs (the serialiser took three times as long). The tests hold the two
/// equal, hostile strings included.
fn write_reconcile(buf: &mut Vec<u8>, a: &Analysis, r: &Reconcile) {
    fn int(buf: &mut Vec<u8>, n: Option<i64>) {
        match n {
            Some(n) => buf.extend_from_slice(itoa::Buffer::new().format(n).as_bytes()),
            None => buf.extend_from_slice(b"null"),
        }
    }
    fn ts(buf: &mut Vec<u8>, t: Option<Timestamp>) {
        match t {
            Some(t) if t.yearless => json_str(buf, &t.to_string()),
            Some(t) => {
                buf.push(b'"');
                crate::time::write_rfc3339(buf, t);
                buf.push(b'"');
            }
            None => buf.extend_from_slice(b"null"),
        }
    }
    let c = &a.controllers[r.controller];
    let [duration, at_least, at_most] = durations(r);
    buf.extend_from_slice(b"{\n      \"controller\": ");
    if c.is_named() {
        json_str(buf, &c.id);
    } else {
        buf.extend_from_slice(b"null");
    }
    buf.extend_from_slice(b",\n      \"controller_instance\": ");
    json_str(buf, &c.id);
    buf.extend_from_slice(b",\n      \"duration_nanos\": ");
    int(buf, duration);
    buf.extend_from_slice(b",\n      \"duration_nanos_at_least\": ");
    int(buf, at_least);
    buf.extend_from_slice(b",\n      \"duration_nanos_at_most\": ");
    int(buf, at_most);
    buf.extend_from_slice(b",\n      \"error\": ");
    match &r.error {
        Some(e) => json_str(buf, e),
        None => buf.extend_from_slice(b"null"),
    }
    buf.extend_from_slice(b",\n      \"first\": ");
    ts(buf, Some(r.first));
    buf.extend_from_slice(b",\n      \"lane\": ");
    int(buf, Some(i64::from(r.lane)));
    buf.extend_from_slice(b",\n      \"last\": ");
    ts(buf, Some(r.last));
    buf.extend_from_slice(b",\n      \"latent_start\": ");
    ts(buf, r.latent_start);
    buf.extend_from_slice(b",\n      \"latent_start_from\": ");
    match latent_start_from(r) {
        Some(from) => json_str(buf, from),
        None => buf.extend_from_slice(b"null"),
    }
    buf.extend_from_slice(b",\n      \"lines\": ");
    int(buf, Some(i64::from(r.lines)));
    buf.extend_from_slice(b",\n      \"object\": ");
    match r.object.as_deref() {
        // As `ObjectRef`'s `Display` writes it: `namespace/name`, or the name.
        Some(o) => {
            buf.push(b'"');
            if let Some(ns) = o.namespace.as_deref().filter(|ns| !ns.is_empty()) {
                json_str_contents(buf, ns);
                buf.push(b'/');
            }
            json_str_contents(buf, &o.name);
            buf.push(b'"');
        }
        None => buf.extend_from_slice(b"null"),
    }
    buf.extend_from_slice(b",\n      \"outcome\": ");
    json_str(buf, r.outcome.as_str());
    buf.extend_from_slice(if r.outcome_logged() { b",\n      \"outcome_logged\": true" } else { b",\n      \"outcome_logged\": false" });
    buf.extend_from_slice(b",\n      \"reconcile_id\": ");
    json_str(buf, &r.reconcile_id);
    buf.extend_from_slice(if r.truncated { b",\n      \"truncated\": true\n    }" } else { b",\n      \"truncated\": false\n    }" });
}

/// A JSON string as serde_json writes it.
fn json_str(buf: &mut Vec<u8>, s: &str) {
    buf.push(b'"');
    json_str_contents(buf, s);
    buf.push(b'"');
}

/// A string's text inside its quotes as serde_json escapes it: `"` and
/// `\` with a backslash, the control characters below U+0020 as `\n`,
/// `\t`, ... or `\u00XX`, everything else as it is.
fn json_str_contents(buf: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    // Nearly every string (ids, names) has nothing to escape: one look at
    // all its bytes (no early exit, so the compiler checks many at once),
    // then one copy.
    let escapes = bytes.iter().fold(0u8, |any, &b| any | u8::from(b < 0x20 || b == b'"' || b == b'\\'));
    if escapes == 0 {
        buf.extend_from_slice(bytes);
        return;
    }
    let mut from = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if b >= 0x20 && b != b'"' && b != b'\\' {
            continue;
        }
        buf.extend_from_slice(&bytes[from..i]);
        from = i + 1;
        match b {
            b'"' => buf.extend_from_slice(b"\\\""),
            b'\\' => buf.extend_from_slice(b"\\\\"),
            b'\n' => buf.extend_from_slice(b"\\n"),
            b'\r' => buf.extend_from_slice(b"\\r"),
            b'\t' => buf.extend_from_slice(b"\\t"),
            0x08 => buf.extend_from_slice(b"\\b"),
            0x0c => buf.extend_from_slice(b"\\f"),
            _ => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                buf.extend_from_slice(&[b'\\', b'u', b'0', b'0', HEX[usize::from(b >> 4)], HEX[usize::from(b & 0xf)]]);
            }
        }
    }
    buf.extend_from_slice(&bytes[from..]);
}

/// A list serialised as its items are made (items of any type).
struct SeqOf<F>(F);

impl<F, I, T> Serialize for SeqOf<F>
where
    F: Fn() -> I,
    I: Iterator<Item = T>,
    T: Serialize,
{
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq((self.0)())
    }
}

/// What the logs cover (see [`crate::analyze::coverage`]).
fn coverage(a: &Analysis) -> Value {
    let c = &a.coverage;
    json!({
        "etcd": c.etcd,
        "etcd_logs": c.etcd_logs,
        "missing": c.missing.iter().map(|m| json!({"kind": m.kind, "path": m.path, "message": m.message})).collect::<Vec<_>>(),
        "sources": c.sources.iter().map(|s| json!({
            "path": s.path, "files": s.files, "pod": s.pod, "container": s.container,
            "first": t(Some(s.first)), "last": t(Some(s.last)), "lines": s.lines,
            "normal_gap_nanos": s.normal_gap_nanos,
            "normal_gap_nanos_at_least": bounds(s.normal_gap()).0, "normal_gap_nanos_at_most": bounds(s.normal_gap()).1,
            "gaps": s.gaps.iter().map(|g| {
                let (lo, hi) = bounds(Gap::between(g.start, g.end));
                json!({"start": t(Some(g.start)), "end": t(Some(g.end)), "nanos": g.end.nanos.saturating_sub(g.start.nanos), "nanos_at_least": lo, "nanos_at_most": hi, "elided": g.elided})
            }).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "uncovered": c.uncovered.iter().map(|u| json!({
            "controller": ctrl_id(a, Some(u.controller)), "controller_instance": a.controllers.get(u.controller).map(|c| c.id.clone()),
            "lane": u.lane, "reconcile_id": u.reconcile_id,
            "source": u.silence.source, "start": t(Some(u.silence.start)), "end": t(Some(u.silence.end)),
            "other_lines": u.silence.other_lines, "message": u.message,
        })).collect::<Vec<_>>(),
    })
}

fn election(e: &Election) -> Value {
    json!({
        "cluster": e.cluster, "term": e.term, "start": t(Some(e.start)), "end": t(e.end),
        "leader": e.leader, "previous_leader": e.previous_leader,
        "leaderless_nanos": e.leaderless_nanos, "transfers": e.transfers, "open": e.end.is_none(),
    })
}

fn object(o: &ObjectLifecycle) -> Value {
    json!({
        "object": o.object.to_string(), "kind": o.kind, "created": t(o.created),
        "updates": o.updates.iter().map(|u| u.to_string()).collect::<Vec<_>>(),
        "deletion_requested": t(o.deletion_requested.or(o.marked_for_deletion)),
        "deleted": t(o.deleted),
        "deletion_latency_nanos": o.deleted.zip(o.deletion_requested.or(o.marked_for_deletion)).map(|(d, r)| d.nanos.saturating_sub(r.nanos)),
        "finalizers": o.finalizers,
        "generation": o.generation, "observed_generation": o.observed_generation,
    })
}

fn finding(a: &Analysis, f: &Finding) -> Value {
    // An expired context: its start to the DeadlineExceeded line.
    let gap = (f.kind == FindingKind::ExpiredContext).then(|| Gap::between(f.start, f.end));
    let (lo, hi) = gap.map_or((Value::Null, Value::Null), bounds);
    // The worker a goroutine dump shows: blocked in a call, or running in it.
    let blocked = |b: &&crate::analyze::model::Blocked| a.goroutines.get(b.goroutine).is_none_or(GoroutineGroup::is_blocked);
    let mut v = json!({
        "kind": f.kind, "severity": f.severity, "controller": ctrl_id(a, f.controller),
        "object": f.object.as_ref().map(|o| o.to_string()),
        "start": t(Some(f.start)), "end": t(Some(f.end)),
        "reconcile_ids": f.reconciles.iter().map(|&i| a.reconciles[i].reconcile_id.clone()).collect::<Vec<_>>(),
        "elections": f.elections,
        "message": f.message,
        "pieces": f.pieces,
        "blocked_in": f.blocked.as_ref().filter(|b| blocked(b)).map(|b| b.call.clone()),
        "running_in": f.blocked.as_ref().filter(|b| !blocked(b)).map(|b| b.call.clone()),
        "blocked_under": f.blocked.as_ref().and_then(|b| b.under.clone()),
        "goroutine": f.blocked.as_ref().map(|b| b.goroutine),
        "gap_nanos": gap.map(|g| g.nanos), "gap_nanos_at_least": lo, "gap_nanos_at_most": hi,
    });
    // Only on a finding that rests on a silence (a stalled worker).
    if let Some(sl) = &f.silence {
        v["silence"] = json!(if sl.covered { "covered" } else { "not_covered" });
        v["silence_source"] = json!(sl.source);
        v["silence_other_lines"] = json!(sl.other_lines);
        v["silence_to_log_end"] = json!(sl.to_log_end);
    }
    // Only on findings of those kinds: the others' documents stay as they were.
    match f.detail.as_deref() {
        Some(Detail::Throttle(d)) => {
            v["throttle"] = json!({
                "source": d.source, "count": d.count, "waits": d.waits, "too_many_requests": d.too_many_requests,
                "longest_wait_nanos": d.longest_wait_nanos, "total_wait_nanos": d.total_wait_nanos,
                "resources": d.resources.iter().map(|r| json!({"resource": r.resource, "count": r.count})).collect::<Vec<_>>(),
                "reconciles_overlapping": d.reconciles_overlapping,
            })
        }
        Some(Detail::Lease(d)) => {
            v["lease"] = json!({
                "source": d.source, "lease": d.lease, "acquired": t(d.acquired), "lost": t(Some(d.lost)), "said": d.said,
                "renew_failures": d.renew_failures, "stopped": t(d.stopped),
                "last_reconcile_id": d.last_reconcile_id, "last_reconcile_end": t(d.last_reconcile_end),
            })
        }
        Some(Detail::Restart(d)) => {
            v["restart"] = json!({
                "previous": d.previous, "current": d.current, "previous_end": t(Some(d.previous_end)),
                "previous_exit": d.previous_exit, "started": t(Some(d.started)), "acquired": t(d.acquired), "resumed": t(d.resumed),
                "cut_off": d.cut_off,
            })
        }
        Some(Detail::Saturation(d)) => {
            v["saturation"] = json!({
                "workers": d.workers, "normal_nanos": d.normal_nanos, "held": d.held, "start_is_bound": d.start_is_bound,
                "waited": d.waited.iter().map(|w| json!({"object": w.object, "reconcile_id": w.reconcile_id, "estimated_wait_nanos": w.estimated_wait_nanos})).collect::<Vec<_>>(),
            })
        }
        None => {}
    }
    v
}

fn dump(d: &GoroutineDump) -> Value {
    json!({
        "path": d.path, "first_line": d.first_line, "last_line": d.last_line, "kind": d.kind,
        "preamble": d.preamble, "goroutines": d.goroutines, "time": t(d.time), "time_source": d.time_source,
        "notes": d.notes,
    })
}

fn goroutine(a: &Analysis, g: &GoroutineGroup) -> Value {
    let (blocked, running) = match g.call.as_ref() {
        Some(f) if g.is_blocked() => (Some(f), None),
        f => (None, f),
    };
    json!({
        "dump": g.dump, "time": t(a.dumps[g.dump].time), "group": g.group, "count": g.count, "ids": g.ids,
        "state": g.state, "wait_minutes": g.max_wait_minutes, "min_wait_minutes": g.min_wait_minutes,
        "role": g.role, "controller": ctrl_id(a, g.controller), "reconciler": g.reconciler,
        "blocked_in": blocked.map(|f| f.func.clone()),
        "blocked_in_at": blocked.map(|f| format!("{}:{}", f.file, f.line)),
        "running_in": running.map(|f| f.func.clone()),
        "running_in_at": running.map(|f| format!("{}:{}", f.file, f.line)),
        "under": g.under.as_ref().map(|f| f.func.clone()),
        "blocked_since_at_most": t(g.blocked_since_at_most),
        "reconcile_id": g.reconcile.map(|i| a.reconciles[i].reconcile_id.clone()),
        "frames": g.frames.iter().map(|f| json!({"func": f.func, "file": f.file, "line": f.line})).collect::<Vec<_>>(),
        "created_by": g.created_by,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The streamed document is, byte for byte, the value the library gives
    /// with the CLI's links and notes put in, pretty-printed.
    #[test]
    fn the_streamed_document_is_the_value_pretty_printed() {
        let text = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/incident/cozyreport/kamaji/kamaji-controller.log")).unwrap();
        let mut loaded = crate::pipeline::Loaded::default();
        loaded.add("kamaji-controller.log", text, &crate::pipeline::LoadOptions::default());
        loaded.finish();
        let (a, _) = crate::analyze::analyze(&loaded.files, &crate::analyze::AnalyzeOptions::default());
        assert!(!a.findings.is_empty());
        let inputs: Vec<FileStats> = loaded.files.iter().map(FileStats::of).collect();
        let links: Vec<Option<String>> = (0..a.findings.len()).map(|i| (i % 2 == 0).then(|| format!("https://x.example/#ev={i}"))).collect();
        let notes = vec!["a note".to_string()];
        let mut doc = to_json(&inputs, &a);
        for (i, f) in doc["findings"].as_array_mut().unwrap().iter_mut().enumerate() {
            f["link"] = json!(links[i]);
        }
        doc["notes"] = json!(notes);
        let pretty = serde_json::to_string_pretty(&doc).unwrap();
        // On one thread or several, the reconciles in one chunk or many
        // (the last one short, or one reconcile each).
        assert!(a.reconciles.len() > 10 && a.reconciles.len() % 3 != 0, "{}", a.reconciles.len());
        for (threads, chunk) in [(0, RECONCILES_PER_CHUNK), (1, 3), (2, RECONCILES_PER_CHUNK), (2, 3), (3, 1), (16, 4)] {
            let mut streamed = Vec::new();
            write_json_in(&mut streamed, &inputs, &a, Extras { links: Some(&links), notes: Some(&notes), threads }, chunk).unwrap();
            assert_eq!(String::from_utf8(streamed).unwrap(), pretty, "{threads} threads, {chunk} a chunk");
        }
        // The reconciles, written from a struct, are what a map per
        // element gives.
        let by_map: Vec<Value> = a
            .reconciles
            .iter()
            .map(|r| {
                let g = (!r.is_one_line()).then(|| Gap::between(r.first, r.last));
                let (lo, hi) = g.map_or((Value::Null, Value::Null), bounds);
                json!({
                    "reconcile_id": r.reconcile_id,
                    "controller": ctrl_id(&a, Some(r.controller)), "controller_instance": a.controllers[r.controller].id,
                    "object": r.object.as_ref().map(|o| o.to_string()),
                    "first": t(Some(r.first)), "last": t(Some(r.last)), "latent_start": t(r.latent_start),
                    "latent_start_from": r.latent_start.map(|_| if r.stated_start { "stated" } else { "worker" }),
                    "lines": r.lines, "outcome": r.outcome, "outcome_logged": r.outcome_logged(), "error": r.error, "truncated": r.truncated, "lane": r.lane,
                    "duration_nanos": g.map(|g| g.nanos), "duration_nanos_at_least": lo, "duration_nanos_at_most": hi,
                })
            })
            .collect();
        assert!(a.reconciles.iter().any(|r| r.latent_start.is_some()) && a.reconciles.iter().any(|r| r.error.is_some()));
        assert_eq!(serde_json::to_string_pretty(&doc["reconciles"]).unwrap(), serde_json::to_string_pretty(&by_map).unwrap());
    }

    /// A reconcile written by hand is what serde_json writes of it, for
    /// every string a log may hold (every control character, quotes,
    /// backslashes, DEL, line and paragraph separators, bidi controls,
    /// astral characters) in every string the reconcile writes, and every
    /// form of each value (null or not, named or unnamed controller, each
    /// outcome, times with and without a year, at every precision).
    #[test]
    fn reconciles_written_by_hand_are_what_serde_json_writes() {
        use crate::analyze::model::{ObjectRef, Outcome};
        let mut hostile: Vec<String> = (0u8..0x80).map(|b| format!("a{}b", b as char)).collect();
        hostile.extend(["", "\"\\\"", "\\u0000", "x\u{2028}y\u{2029}", "\u{202e}evil\u{2066}", "\u{1F600} ünïcödé", "\x1b]8;;http://x\x07"].map(String::from));
        let controller = |id: &str, named: bool| ControllerInstance {
            id: id.to_string(),
            name: id.to_string(),
            controller: if named { id.to_string() } else { String::new() },
            group: None,
            kind: None,
            workers: 1,
            workers_source: "log".into(),
            reconciles: 0,
        };
        let mut a = Analysis::default();
        for (i, h) in hostile.iter().enumerate() {
            a.controllers.push(controller(h, i % 3 != 0));
        }
        for (i, h) in hostile.iter().enumerate() {
            let first = Timestamp { nanos: (i as i64 - 60) * 987_654_321_987, digits: (i % 10) as u8, yearless: i % 7 == 0 };
            let object = match i % 4 {
                0 => None,
                1 => Some(ObjectRef { namespace: None, name: h.clone() }),
                2 => Some(ObjectRef { namespace: Some(String::new()), name: h.clone() }),
                _ => Some(ObjectRef { namespace: Some(h.clone()), name: format!("{h}/n") }),
            };
            a.reconciles.push(Reconcile {
                reconcile_id: h.clone(),
                controller: (i * 7) % hostile.len(),
                object: object.map(std::sync::Arc::new),
                kind: None,
                first,
                last: first.at(first.nanos.saturating_add((i as i64 % 5) * 123_456_789), (i % 8) as u8),
                latent_start: (i % 5 == 1).then(|| first.at(first.nanos - 3_000_000_000, 0)),
                stated_start: i % 10 == 1,
                lines: (i % 4) as u32,
                outcome: Outcome::ALL[i % 4],
                said_done: i % 7 < 3,
                error: (i % 2 == 1).then(|| format!("{h}: {h}")),
                error_value_at: (i % 2 == 1).then_some(h.len() as u32 + 2),
                truncated: i % 6 == 0,
                lane: (i % 3) as u32,
                records: 0..0,
            });
        }
        for r in &a.reconciles {
            let mut by_hand = Vec::new();
            write_reconcile(&mut by_hand, &a, r);
            let mut by_serde = Vec::new();
            reconcile_doc(&a, r).serialize(&mut serde_json::Serializer::with_formatter(&mut by_serde, Indented::at(2))).unwrap();
            assert_eq!(String::from_utf8(by_hand).unwrap(), String::from_utf8(by_serde).unwrap(), "{:?}", r.reconcile_id);
        }
    }

    /// A document with no reconciles is the value pretty-printed too.
    #[test]
    fn an_empty_analysis_is_the_value_pretty_printed() {
        let a = Analysis::default();
        for threads in [1, 2] {
            let mut streamed = Vec::new();
            write_json(&mut streamed, &[], &a, Extras { threads, ..Default::default() }).unwrap();
            assert_eq!(String::from_utf8(streamed).unwrap(), serde_json::to_string_pretty(&to_json(&[], &a)).unwrap());
        }
    }

    /// A writer that fails stops the document with its error, whatever
    /// thread renders the chunk it fails in (the helpers stop too).
    #[test]
    fn a_failing_writer_stops_the_document() {
        struct FailsAfter(usize);
        impl std::io::Write for FailsAfter {
            fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
                if self.0 < b.len() {
                    return Err(std::io::Error::new(std::io::ErrorKind::BrokenPipe, "closed"));
                }
                self.0 -= b.len();
                Ok(b.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let text = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/incident/cozyreport/kamaji/kamaji-controller.log")).unwrap();
        let mut loaded = crate::pipeline::Loaded::default();
        loaded.add("kamaji-controller.log", text, &crate::pipeline::LoadOptions::default());
        loaded.finish();
        let (a, _) = crate::analyze::analyze(&loaded.files, &crate::analyze::AnalyzeOptions::default());
        let mut whole = Vec::new();
        write_json(&mut whole, &[], &a, Extras::default()).unwrap();
        // Into the first chunk, the second (a helper's), and the last.
        for at in [10, whole.len() / 2, whole.len() - 2] {
            for threads in [1, 2, 3] {
                let e = write_json_in(FailsAfter(at), &[], &a, Extras { threads, ..Default::default() }, 2).unwrap_err();
                assert!(e.is_io() && e.to_string().contains("closed"), "{e}");
            }
        }
    }
}
