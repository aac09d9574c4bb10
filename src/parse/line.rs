//! Where a log line becomes a record: wrappers are peeled, then the inner
//! line is matched against each known format.
//!
//! Every function here works on a byte slice plus an [`Origin`] that says
//! where the slice sits (file bytes or scratch), so the record's spans point
//! back into the file.

use crate::model::{Field, Format, Level, Span, Timestamp, ValueKind, Wrapper};
use crate::parse::json::{self, End, Pair};
use crate::time::{self, hms_fields, parse_epoch_float, parse_hms, parse_rfc3339, scan_rfc3339, Scan};

/// Where a slice being parsed sits.
#[derive(Clone, Copy, Debug)]
pub struct Origin {
    pub start: usize,
    pub scratch: bool,
}

impl Origin {
    #[inline]
    pub fn span(self, a: usize, b: usize) -> Span {
        if self.scratch {
            Span::scratch(self.start + a, self.start + b)
        } else {
            Span::raw(self.start + a, self.start + b)
        }
    }
    fn offset(self, by: usize) -> Origin {
        Origin { start: self.start + by, scratch: self.scratch }
    }
}

/// What one line parsed into (before it becomes a [`crate::model::Record`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LineOut {
    pub format: Option<Format>,
    pub wrapper: Wrapper,
    pub time: Option<Timestamp>,
    pub collected: Option<Timestamp>,
    pub yearless: bool,
    pub level: Level,
    pub logger: Span,
    pub message: Span,
    pub message_kind: Option<ValueKind>,
    /// The inner line after wrappers (for continuation checks).
    pub inner: (usize, usize),
    /// The line is cut off (JSON object not closed).
    pub truncated: bool,
    /// The line writes a time that is none (Feb 30, hour 24, year 4052):
    /// `time` is left empty and the file gets a note.
    pub impossible_time: bool,
    /// `time` was written with no zone: it was read at
    /// [`LineOptions::default_offset_secs`].
    pub zoneless: bool,
    /// `collected` was written with no zone (a syslog or journald prefix,
    /// a viewer's stamp).
    pub collected_zoneless: bool,
    /// How many bytes of white space the line was indented by as a whole
    /// (see [`indented`]); 0 for a line read where it starts.
    pub indent: usize,
}

/// A wrapper's time (its collection time), and whether it wrote its zone.
#[derive(Clone, Copy, Debug)]
struct Collected {
    ts: Timestamp,
    zoned: bool,
}

impl Collected {
    fn of(p: time::Parsed) -> Collected {
        Collected { ts: p.ts, zoned: p.zoned }
    }
}

/// The time of a [`Scan`]; an impossible one marks the line and is none.
fn take(out: &mut LineOut, scan: Scan) -> Option<Timestamp> {
    match scan {
        Scan::Time(p) => Some(p.ts),
        Scan::Impossible { .. } => {
            out.impossible_time = true;
            None
        }
        Scan::No => None,
    }
}

/// The line's own time from a [`Scan`], noting whether it wrote its zone.
fn own_time(out: &mut LineOut, scan: Scan) -> Option<Timestamp> {
    out.zoneless = matches!(scan, Scan::Time(p) if !p.zoned);
    take(out, scan)
}

/// Settings the line parser needs.
#[derive(Clone, Copy, Debug, Default)]
pub struct LineOptions {
    pub default_offset_secs: i32,
}

/// Per-file state: the formats seen last, tried first (the fast path), and
/// the scratch buffer for rewritten text.
pub struct Ctx<'a> {
    pub opts: LineOptions,
    pub fields: &'a mut Vec<Field>,
    pub scratch: &'a mut Vec<u8>,
    pub last_format: Format,
    /// A name column (`manager `) seen before on this file: peeled from
    /// every line that starts with it, so stack lines under it join too.
    pub name_prefix: Vec<u8>,
}

fn push(fields: &mut Vec<Field>, o: Origin, k: (usize, usize), v: (usize, usize), kind: ValueKind) {
    fields.push(Field { key: o.span(k.0, k.1), value: o.span(v.0, v.1), kind });
}

#[inline]
fn is_ws(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

fn skip_ws(s: &[u8], mut i: usize) -> usize {
    while i < s.len() && is_ws(s[i]) {
        i += 1;
    }
    i
}

fn trim_end(s: &[u8], mut e: usize) -> usize {
    while e > 0 && is_ws(s[e - 1]) {
        e -= 1;
    }
    e
}

/// Parses one physical line (without its line break). Returns false when no
/// format matched; `out` then still says which wrapper was peeled.
pub fn parse_line(s: &[u8], o: Origin, cx: &mut Ctx<'_>, out: &mut LineOut) -> bool {
    let mut s = s;
    let mut o = o;
    // A UTF-8 BOM starts GitHub Actions logs (and some files).
    if s.starts_with(b"\xEF\xBB\xBF") {
        s = &s[3..];
        o = o.offset(3);
    }
    out.inner = (o.start, o.start + s.len());
    if !cx.name_prefix.is_empty() && s.starts_with(&cx.name_prefix) {
        let n = cx.name_prefix.len();
        out.inner = (o.start + n, o.start + s.len());
        return wrapped(&s[n..], o.offset(n), cx, out, Wrapper::NamePrefix, None);
    }
    // The fast path: the format the previous line had, unwrapped.
    if cx.last_format != Format::Unparsed && cx.last_format != Format::Text && try_format(cx.last_format, s, o, cx, out) {
        return true;
    }
    if peel_wrapper(s, o, cx, out) {
        return true;
    }
    if inner(s, o, cx, out) {
        return true;
    }
    false
}

/// Tries every inner format.
fn inner(s: &[u8], o: Origin, cx: &mut Ctx<'_>, out: &mut LineOut) -> bool {
    let mark = cx.fields.len();
    let first = match s.first() {
        Some(&b) => b,
        None => return false,
    };
    let order: &[Format] = match first {
        b'{' => &[Format::ZapJson],
        b'0'..=b'9' => &[Format::ZapConsole, Format::EtcdCapnslog, Format::GoLog],
        // (`Feb 10 …` is journald's.)
        b'I' | b'W' | b'E' | b'F' => &[Format::Klog, Format::Logrus, Format::Journald, Format::GoTraceback],
        b'A'..=b'Z' => &[Format::Journald, Format::Logrus, Format::GoTraceback],
        b'p' | b'f' | b'g' | b'r' | b'^' => &[Format::GoTraceback],
        b'[' => &[Format::GoLog],
        b't' | b'l' => &[Format::Logrus],
        b' ' | b'=' | b'-' => &[Format::Chainsaw],
        _ => &[],
    };
    for &f in order {
        if f != cx.last_format && try_format(f, s, o, cx, out) {
            cx.last_format = f;
            return true;
        }
        cx.fields.truncate(mark);
    }
    is_ws(first) && indented(s, o, cx, out)
}

/// A log line indented as a whole: ginkgo indents the output it captured
/// (`  2025-07-31T15:31:47.02217+02:00`, a TAB, `LEVEL(-2)`, …), a test runner
/// nests it, a Markdown list indents a paste. Read as the line after its
/// indent when that is a line of a format with a time, or a CRI line;
/// anything else indented (a stack frame, a message's continuation, a
/// dump's lines) is left to the continuation rules.
fn indented(s: &[u8], o: Origin, cx: &mut Ctx<'_>, out: &mut LineOut) -> bool {
    let i = skip_ws(s, 0);
    let (t, o) = (&s[i..], o.offset(i));
    let order: &[Format] = match t.first() {
        Some(b'{') => &[Format::ZapJson],
        Some(b'0'..=b'9') => &[Format::ZapConsole, Format::EtcdCapnslog, Format::GoLog],
        Some(b'I' | b'W' | b'E' | b'F') => &[Format::Klog, Format::Logrus, Format::Journald],
        Some(b'A'..=b'Z') => &[Format::Journald, Format::Logrus],
        Some(b'[') => &[Format::GoLog],
        Some(b't' | b'l') => &[Format::Logrus],
        _ => &[],
    };
    let (mark, before) = (cx.fields.len(), *out);
    for &f in order {
        if try_format(f, t, o, cx, out) {
            if out.time.is_some() || out.impossible_time {
                out.inner = (o.start, o.start + t.len());
                out.indent = i;
                cx.last_format = f;
                return true;
            }
            // (A logrus or journald line with no time: not taken.)
            cx.fields.truncate(mark);
        }
        *out = before;
    }
    // A CRI line indented (a CRI file pasted in a Markdown list, as the
    // mirror of kueue #2463 in the corpus nests it): its inner line is read as under the wrapper, and the
    // lines after it carry the wrapper too, so nothing is indented inside
    // it. (A time and text indented stays unread: it may be a message's
    // line.)
    if t.first().is_some_and(u8::is_ascii_digit) {
        let (saved, scratch_mark) = (cx.last_format, cx.scratch.len());
        if timestamp_wrapper(t, o, cx, out) && out.wrapper == Wrapper::Cri {
            return true;
        }
        cx.fields.truncate(mark);
        cx.scratch.truncate(scratch_mark);
        cx.last_format = saved;
        *out = before;
    }
    false
}

fn try_format(f: Format, s: &[u8], o: Origin, cx: &mut Ctx<'_>, out: &mut LineOut) -> bool {
    let mark = cx.fields.len();
    let impossible = out.impossible_time;
    let ok = match f {
        Format::ZapJson => zap_json(s, o, cx, out),
        Format::ZapConsole => zap_console(s, o, cx, out),
        Format::EtcdCapnslog => capnslog(s, o, cx, out),
        Format::GoLog => go_log(s, o, cx, out),
        Format::Klog => klog(s, o, cx, out),
        Format::Logrus => logrus(s, o, cx, out),
        Format::Journald => journald(s, o, cx, out),
        Format::Chainsaw => chainsaw(s, o, cx, out),
        Format::GoTraceback => traceback_start(s, o, out),
        Format::Text | Format::Unparsed => false,
    };
    if ok {
        // A journald line whose inner line has a format of its own keeps it.
        if !(f == Format::Journald && out.wrapper == Wrapper::Journald) {
            out.format = Some(f);
        }
    } else {
        cx.fields.truncate(mark);
        out.impossible_time = impossible;
    }
    ok
}

// ---------------------------------------------------------------- wrappers

/// Peels a collector wrapper and parses what is inside. Returns true when a
/// wrapper was found (the inner line may still be plain text).
fn peel_wrapper(s: &[u8], o: Origin, cx: &mut Ctx<'_>, out: &mut LineOut) -> bool {
    match s.first() {
        Some(b'{') if s.starts_with(b"{\"log\":") => docker_json(s, o, cx, out),
        Some(b'0'..=b'9') => timestamp_wrapper(s, o, cx, out) || name_prefix(s, o, cx, out),
        Some(b'[') => bracket_prefix(s, o, cx, out),
        Some(b' ') => {
            // A stray leading space, or a docker json line indented.
            let i = skip_ws(s, 0);
            i < s.len() && s[i] == b'{' && s[i..].starts_with(b"{\"log\":") && docker_json(&s[i..], o.offset(i), cx, out)
        }
        Some(_) => name_prefix(s, o, cx, out),
        None => false,
    }
}

/// Parses `inner` as a wrapped line; with no known format it becomes text.
fn wrapped(s: &[u8], o: Origin, cx: &mut Ctx<'_>, out: &mut LineOut, w: Wrapper, stamp: Option<Collected>) -> bool {
    let collected = stamp.map(|c| c.ts);
    let collected_zoneless = stamp.is_some_and(|c| !c.zoned);
    out.wrapper = w;
    out.collected = collected;
    out.collected_zoneless = collected_zoneless;
    out.inner = (o.start, o.start + s.len());
    let saved = cx.last_format;
    if (saved != Format::Unparsed && saved != Format::Text && try_format(saved, s, o, cx, out)) || inner(s, o, cx, out) {
        return true;
    }
    if w != Wrapper::DockerJson && s.starts_with(b"{\"log\":") && docker_json(s, o, cx, out) {
        return true;
    }
    // A collector's `[container] ` tag after its time (juju/pebble:
    // `2024-10-01T13:07:25.847Z [jupyter-controller] <line>`).
    if collected.is_some() && s.first() == Some(&b'[') {
        if let Some(close) = memchr::memchr(b']', &s[..s.len().min(128)]).filter(|&k| k > 1 && s.get(k + 1) == Some(&b' ') && !s[1..k].contains(&b' ')) {
            let rest = &s[close + 2..];
            let ro = o.offset(close + 2);
            let mark = cx.fields.len();
            if inner(rest, ro, cx, out) {
                out.wrapper = w;
                out.collected = collected;
                out.collected_zoneless = collected_zoneless;
                out.inner = (ro.start, ro.start + rest.len());
                return true;
            }
            cx.fields.truncate(mark);
        }
    }
    // `journalctl -o short-iso`: `<time> host unit[pid]: <line>`.
    if let Some(t) = collected.and_then(|_| syslog_tag(s)) {
        if under_syslog(&s[t..], o.offset(t), cx, out, stamp, false) {
            return true;
        }
        out.wrapper = w;
        out.collected = collected;
        out.collected_zoneless = collected_zoneless;
        out.inner = (o.start, o.start + s.len());
    }
    if collected.is_some() || out.impossible_time {
        out.format = Some(Format::Text);
        out.message = o.span(0, trim_end(s, s.len()));
        out.level = gha_level(s);
        return true;
    }
    false
}

fn gha_level(s: &[u8]) -> Level {
    if s.starts_with(b"##[error]") {
        Level::Error
    } else if s.starts_with(b"##[warning]") {
        Level::Warn
    } else {
        Level::Unknown
    }
}

fn timestamp_wrapper(s: &[u8], o: Origin, cx: &mut Ctx<'_>, out: &mut LineOut) -> bool {
    let scan = scan_rfc3339(s, false, cx.opts.default_offset_secs);
    if let Scan::Impossible { end } = scan {
        // A wrapper's time that is none: the wrapper is still peeled.
        let rest = &s[end..];
        let w = match (end, s[end - 1]) {
            (28, b'Z') => Wrapper::GithubActions,
            (30, b'Z') => Wrapper::KubectlTimestamps,
            _ => Wrapper::TimestampPrefix,
        };
        let (skip, w) = match rest.first() {
            Some(b' ') if rest.len() >= 10 && (rest[1..].starts_with(b"stdout ") || rest[1..].starts_with(b"stderr ")) && rest[9] == b' ' => (10, Wrapper::Cri),
            // A zap console line mangled to spaces is not a wrapper.
            Some(b' ') if starts_with_level(&rest[1..]) => return false,
            Some(b' ') => (1, w),
            Some(b'{') => (0, Wrapper::TimestampPrefix),
            _ => return false,
        };
        let saved = *out;
        out.impossible_time = true;
        if wrapped(&s[end + skip..], o.offset(end + skip), cx, out, w, None) {
            return true;
        }
        *out = saved;
        return false;
    }
    if let Scan::Time(p) = scan {
        let rest = &s[p.end..];
        if rest.first() == Some(&b' ') {
            let r = &rest[1..];
            let ro = o.offset(p.end + 1);
            // CRI on-node: `<ts> stdout F <payload>`
            if (r.starts_with(b"stdout ") || r.starts_with(b"stderr ")) && r.len() >= 9 && r[8] == b' ' && (r[7] == b'F' || r[7] == b'P') {
                return wrapped(&r[9..], ro.offset(9), cx, out, Wrapper::Cri, Some(Collected::of(p)));
            }
            // A zap console line mangled to spaces is not a wrapper.
            if starts_with_level(r) {
                return false;
            }
            let w = match (p.ts.digits, p.zoned) {
                (7, true) => Wrapper::GithubActions,
                (9, true) => Wrapper::KubectlTimestamps,
                _ => Wrapper::TimestampPrefix,
            };
            return wrapped(r, ro, cx, out, w, Some(Collected::of(p)));
        }
        if rest.first() == Some(&b'{') {
            return wrapped(rest, o.offset(p.end), cx, out, Wrapper::TimestampPrefix, Some(Collected::of(p)));
        }
        return false;
    }
    us_datetime_prefix(s, o, cx, out)
}

/// Whether `r` starts (after blanks) with a level word and more after it.
fn starts_with_level(r: &[u8]) -> bool {
    let lvl_start = skip_ws(r, 0);
    let lvl_end = r[lvl_start..].iter().position(|&b| is_ws(b)).map_or(r.len(), |e| lvl_start + e);
    lvl_end < r.len() && Level::parse(&r[lvl_start..lvl_end]).is_some()
}

/// The header of a CRI on-node log line: `<ts> stdout|stderr F|P `.
#[derive(Clone, Copy, Debug)]
pub struct CriHeader {
    /// `None`: the header's time is impossible (Feb 30, year 4052).
    pub ts: Option<Timestamp>,
    /// Where the payload starts.
    pub payload: usize,
    /// Tag `P`: the line continues in the next piece.
    pub partial: bool,
}

/// [`cri_header`] of a line as it is or indented as a whole (a CRI file
/// pasted in a Markdown list, see [`indented`]): `payload` counts the
/// indent.
pub fn cri_header_indented(s: &[u8]) -> Option<CriHeader> {
    let i = if s.first().is_some_and(|&b| is_ws(b)) { skip_ws(s, 0) } else { 0 };
    let mut h = cri_header(&s[i..])?;
    h.payload += i;
    Some(h)
}

pub fn cri_header(s: &[u8]) -> Option<CriHeader> {
    if !s.first()?.is_ascii_digit() {
        return None;
    }
    // Cheap rejection first (the parser asks this of every line): after its
    // fixed 19 bytes an RFC3339 time holds only fraction and zone bytes, so
    // the stream name must follow the first byte past them.
    let time_byte = |&b: &u8| b.is_ascii_digit() || matches!(b, b'.' | b',' | b'Z' | b'z' | b'+' | b'-' | b':');
    let k = 19 + s.get(19..)?.iter().take_while(|b| time_byte(b)).count();
    let stream = s.get(k..k + 8)?;
    if stream != b" stdout " && stream != b" stderr " {
        return None;
    }
    let (ts, end) = match scan_rfc3339(s, false, 0) {
        Scan::Time(p) => (Some(p.ts), p.end),
        Scan::Impossible { end } => (None, end),
        Scan::No => return None,
    };
    let r = s.get(end..end + 10)?;
    if !(r.starts_with(b" stdout ") || r.starts_with(b" stderr ")) || r[9] != b' ' || !(r[8] == b'F' || r[8] == b'P') {
        return None;
    }
    Some(CriHeader { ts, payload: end + 10, partial: r[8] == b'P' })
}

/// A viewer's `M/D/YYYY h:mm:ss AM` glued before the line (Rancher UI).
fn us_datetime_prefix(s: &[u8], o: Origin, cx: &mut Ctx<'_>, out: &mut LineOut) -> bool {
    let mut i = 0;
    let mut nums = [0u32; 3];
    for (k, n) in nums.iter_mut().enumerate() {
        let st = i;
        while i < s.len() && s[i].is_ascii_digit() && i - st < 4 {
            *n = *n * 10 + (s[i] - b'0') as u32;
            i += 1;
        }
        if i == st {
            return false;
        }
        let sep = if k < 2 { b'/' } else { b' ' };
        if s.get(i) != Some(&sep) {
            return false;
        }
        i += 1;
    }
    let [mo, d, y] = nums;
    let hs = i;
    let mut h = 0u32;
    while i < s.len() && s[i].is_ascii_digit() && i - hs < 2 {
        h = h * 10 + (s[i] - b'0') as u32;
        i += 1;
    }
    if i == hs || s.get(i) != Some(&b':') {
        return false;
    }
    // Reuse the HH:MM:SS reader on a normalised copy of the clock.
    let mut clock = [b'0'; 8];
    clock[0] = b'0' + (h / 10) as u8;
    clock[1] = b'0' + (h % 10) as u8;
    let Some(mmss) = s.get(i..i + 6) else { return false };
    clock[2..8].copy_from_slice(mmss);
    let Some((_, mi, sec, _, _, _)) = parse_hms(&clock, 0) else { return false };
    i += 6;
    let pm = match s.get(i..i + 3) {
        Some(b" AM") => false,
        Some(b" PM") => true,
        _ => return false,
    };
    i += 3;
    let h24 = (h % 12) + if pm { 12 } else { 0 };
    // (Not this M/D/YYYY form at all, e.g. a D/M/YYYY one.)
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || y < 1970 {
        return false;
    }
    let n = time::checked_civil_nanos(y as i64, mo, d, h24, mi, sec, 0).and_then(|n| time::minus_offset(n, cx.opts.default_offset_secs));
    if n.is_none() {
        out.impossible_time = true;
    }
    // (A viewer's local clock: no zone.)
    wrapped(&s[i..], o.offset(i), cx, out, Wrapper::TimestampPrefix, n.map(|n| Collected { ts: Timestamp::new(n, 0), zoned: false }))
}

/// `{"log":"<line>\n","stream":"stderr","time":"<RFC3339Nano>"}`
fn docker_json(s: &[u8], o: Origin, cx: &mut Ctx<'_>, out: &mut LineOut) -> bool {
    let mut log = None;
    let mut t = None;
    let mut stream = None;
    let _ = json::scan_object(s, 0, |p| match &s[p.key.0..p.key.1] {
        b"log" => log = Some(p),
        b"time" => t = Some(p),
        b"stream" => stream = Some(p),
        _ => {}
    });
    let Some(log) = log else { return false };
    let scan = t.map_or(Scan::No, |p| scan_rfc3339(&s[p.value.0..p.value.1], false, cx.opts.default_offset_secs));
    let zoned = !matches!(scan, Scan::Time(p) if !p.zoned);
    let collected = take(out, scan).map(|ts| Collected { ts, zoned });
    let mark = cx.fields.len();
    let start = cx.scratch.len();
    crate::escape::unescape_into(&s[log.value.0..log.value.1], cx.scratch);
    while matches!(cx.scratch.last(), Some(b'\n' | b'\r')) && cx.scratch.len() > start {
        cx.scratch.pop();
    }
    let inner_bytes = cx.scratch[start..].to_vec();
    let io = Origin { start, scratch: true };
    let ok = wrapped(&inner_bytes, io, cx, out, Wrapper::DockerJson, collected);
    if let Some(p) = stream {
        cx.fields.truncate(cx.fields.len().max(mark));
        push(cx.fields, o, p.key, p.value, ValueKind::JsonString);
    }
    ok
}

/// `[pod/name/container] <line>` (kubectl --prefix) or another `[tag] `
/// before a line that parses.
fn bracket_prefix(s: &[u8], o: Origin, cx: &mut Ctx<'_>, out: &mut LineOut) -> bool {
    let Some(close) = memchr::memchr(b']', s) else { return false };
    if close > 256 || s.get(close + 1) != Some(&b' ') || s[1..close].contains(&b' ') {
        return false;
    }
    let inner_s = &s[close + 2..];
    let io = o.offset(close + 2);
    let mark = cx.fields.len();
    if s.starts_with(b"[pod/") {
        if !wrapped(inner_s, io, cx, out, Wrapper::KubectlPrefix, None) {
            out.format = Some(Format::Text);
            out.message = io.span(0, inner_s.len());
        }
        // The prefix as a field: key `pod` (the word in the prefix), value `name/container`.
        push(cx.fields, o, (1, 4), (5, close), ValueKind::Text);
        return true;
    }
    let saved = *out;
    if wrapped(inner_s, io, cx, out, Wrapper::NamePrefix, None) && out.format != Some(Format::Text) {
        return true;
    }
    cx.fields.truncate(mark);
    *out = saved;
    false
}

/// Whether a line after a name column starts like a timestamped line: a
/// digit (a time), `{` (a JSON line), or klog's `I1213 ` header.
fn starts_like_a_line(r: &[u8]) -> bool {
    match r.first() {
        Some(b) if b.is_ascii_digit() || *b == b'{' => true,
        Some(b'I' | b'W' | b'E' | b'F') => r.len() > 5 && r[1..5].iter().all(u8::is_ascii_digit) && r[5] == b' ',
        _ => false,
    }
}

/// The length of a name column at the start of `s` (a pod's or a
/// container's name, up to 64 bytes), without the space or TAB after it.
fn name_column(s: &[u8]) -> Option<usize> {
    let n = s.iter().take(65).position(|&b| b == b' ' || b == b'\t')?;
    (n > 0 && s[..n].iter().all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))).then_some(n)
}

/// A short name column before the line: `manager 2026-...`; two of them,
/// a pod's and its container's, as `stern` writes them
/// (`<pod> <container> I1213 …`); or `job<TAB>step<TAB><ts> ...` from
/// `gh run view --log`.
fn name_prefix(s: &[u8], o: Origin, cx: &mut Ctx<'_>, out: &mut LineOut) -> bool {
    // gh run view --log: two TAB columns then a GitHub Actions line.
    if let Some(t1) = memchr::memchr(b'\t', s) {
        if let Some(t2) = memchr::memchr(b'\t', &s[t1 + 1..]).map(|x| x + t1 + 1) {
            let r = &s[t2 + 1..];
            if let Some(p) = parse_rfc3339(r, false, 0) {
                if r.get(p.end) == Some(&b' ') {
                    let saved = *out;
                    if wrapped(&r[p.end + 1..], o.offset(t2 + 1 + p.end + 1), cx, out, Wrapper::GithubActions, Some(Collected::of(p))) {
                        return true;
                    }
                    *out = saved;
                }
            }
        }
    }
    // `gh run view --log` with the TABs lost: `<job><step><ts with 7 digits>Z <text>`.
    if let Some(z) = memchr::memmem::find(&s[..s.len().min(300)], b"Z ") {
        if z >= 27 {
            let ts_start = z - 27;
            if let Some(p) = parse_rfc3339(&s[ts_start..], false, 0) {
                if p.end == 28 && p.ts.digits == 7 {
                    let saved = *out;
                    if wrapped(&s[z + 2..], o.offset(z + 2), cx, out, Wrapper::GithubActions, Some(Collected::of(p))) {
                        return true;
                    }
                    *out = saved;
                }
            }
        }
    }
    let Some(mut n) = name_column(s) else { return false };
    // A second column (stern's container) when the first is not followed
    // by a line.
    if !starts_like_a_line(&s[n + 1..]) && !is_stack_line(&s[n + 1..]) {
        if let Some(m) = name_column(&s[n + 1..]).filter(|&m| starts_like_a_line(&s[n + 1 + m + 1..])) {
            n += 1 + m;
        }
    }
    let r = &s[n + 1..];
    // A stack line under the name column: not a record, but its inner text
    // is what continuation checks look at.
    if is_stack_line(r) {
        out.wrapper = Wrapper::NamePrefix;
        out.inner = (o.start + n + 1, o.start + s.len());
        return false;
    }
    // Only when the rest starts like a timestamped line.
    if !starts_like_a_line(r) {
        return false;
    }
    let mark = cx.fields.len();
    let saved = *out;
    if wrapped(r, o.offset(n + 1), cx, out, Wrapper::NamePrefix, None) {
        cx.name_prefix = s[..n + 1].to_vec();
        return true;
    }
    cx.fields.truncate(mark);
    *out = saved;
    false
}

// ------------------------------------------------------------- JSON lines

fn zap_json(s: &[u8], o: Origin, cx: &mut Ctx<'_>, out: &mut LineOut) -> bool {
    if s.first() != Some(&b'{') {
        return false;
    }
    let mut ts: Option<Pair> = None;
    let mut level: Option<Pair> = None;
    let mut msg: Option<Pair> = None;
    let mut logger: Option<Pair> = None;
    // `name` names the logger (bunyan, pino) only in a line with no object
    // context: controller-runtime's `"namespace": …, "name": …` is the
    // reconciled object's, and stays a field.
    let mut name: Option<Pair> = None;
    let mut object_context = false;
    let fields = &mut *cx.fields;
    let end = json::scan_object(s, 0, |p| {
        // The keys loggers write (case-sensitive): zap (`ts`, `level`,
        // `logger`, `msg`; its development encoder config `T`, `L`, `N`,
        // `M`), slog and logrus (`time`, `level`, `msg`), klog JSON (`ts`,
        // `msg`), Elastic/Logstash (`@timestamp`, `message`), and the
        // capitalised `Timestamp`, `Level`, `Message`.
        match &s[p.key.0..p.key.1] {
            b"ts" | b"time" | b"timestamp" | b"Timestamp" | b"@timestamp" | b"T" if ts.is_none() => ts = Some(p),
            b"level" | b"severity" | b"lvl" | b"Level" | b"L" if level.is_none() => level = Some(p),
            b"msg" | b"message" | b"Message" | b"M" if msg.is_none() => msg = Some(p),
            b"logger" | b"N" if logger.is_none() => logger = Some(p),
            k => {
                if k == b"name" && name.is_none() {
                    name = Some(p);
                }
                object_context |= matches!(k, b"namespace" | b"reconcileID" | b"controller");
                push(fields, o, p.key, p.value, p.kind)
            }
        }
    });
    if logger.is_none() && !object_context {
        logger = name.filter(|p| p.kind == ValueKind::JsonString);
    }
    if msg.is_none() && level.is_none() {
        return false;
    }
    match end {
        End::Closed(e) if skip_ws(s, e) == s.len() => {}
        End::Closed(_) => {}
        End::Broken(_) => out.truncated = true,
    }
    if let Some(p) = ts {
        let v = &s[p.value.0..p.value.1];
        // RFC3339 at any precision and zone, or an epoch number (also as a
        // string) in seconds, millis, micros or nanos.
        let scan = match p.kind {
            ValueKind::JsonString => match scan_rfc3339(v, true, cx.opts.default_offset_secs) {
                Scan::No => time::scan_epoch_number(v),
                t => t,
            },
            _ => time::scan_epoch_number(v),
        };
        out.time = own_time(out, scan);
    }
    if let Some(p) = level {
        out.level = Level::parse(&s[p.value.0..p.value.1]).unwrap_or(Level::Unknown);
    }
    if let Some(p) = msg {
        out.message = o.span(p.value.0, p.value.1);
        out.message_kind = Some(if p.kind == ValueKind::JsonString && p.escaped { ValueKind::JsonString } else { ValueKind::Text });
    }
    if let Some(p) = logger {
        out.logger = o.span(p.value.0, p.value.1);
    }
    true
}

// -------------------------------------------------------- zap console lines

fn looks_like_caller(s: &[u8]) -> bool {
    // `path/file.go:123`
    match memchr::memmem::rfind(s, b".go:") {
        Some(i) => s[i + 4..].iter().all(|b| b.is_ascii_digit()) && i + 4 < s.len() && !s.contains(&b' '),
        None => false,
    }
}

/// `<ts>\t<LEVEL>\t[<logger>\t][<caller>\t]<msg>[\t{json}]`, also with the
/// TABs turned into runs of spaces by a terminal copy.
fn zap_console(s: &[u8], o: Origin, cx: &mut Ctx<'_>, out: &mut LineOut) -> bool {
    let (ts, mut i, zoned) = match scan_rfc3339(s, false, cx.opts.default_offset_secs) {
        Scan::Time(p) => (Some(p.ts), p.end, p.zoned),
        Scan::Impossible { end } => (None, end, true),
        Scan::No => match parse_epoch_float(s) {
            Some(p) => (Some(p.ts), p.end, true),
            None => return false,
        },
    };
    if !s.get(i).is_some_and(|&b| is_ws(b)) {
        return false;
    }
    let tabbed = s[i] == b'\t';
    i = skip_ws(s, i);
    let ls = i;
    while i < s.len() && !is_ws(s[i]) {
        i += 1;
    }
    let Some(level) = Level::parse(&s[ls..i]) else { return false };
    out.time = ts;
    out.zoneless = !zoned;
    out.impossible_time |= ts.is_none();
    out.level = level;
    let body_start = skip_ws(s, i);
    let mut body_end = trim_end(s, s.len()).max(body_start);
    // The context object: after the last TAB, or after whitespace before `{"`.
    let mut ctx_start = None;
    if tabbed {
        if let Some(t) = memchr::memrchr(b'\t', &s[body_start..body_end]) {
            let c = body_start + t + 1;
            if s.get(c) == Some(&b'{') {
                ctx_start = Some(c);
            }
        }
    } else {
        let mut from = body_start;
        while let Some(k) = memchr::memmem::find(&s[from..body_end], b"{\"") {
            let c = from + k;
            if c > body_start && is_ws(s[c - 1]) {
                ctx_start = Some(c);
                break;
            }
            from = c + 2;
        }
    }
    if let Some(c) = ctx_start {
        let fields = &mut *cx.fields;
        let end = json::scan_object(s, c, |p| push(fields, o, p.key, p.value, p.kind));
        if matches!(end, End::Broken(_)) {
            out.truncated = true;
        }
        body_end = trim_end(s, c).max(body_start);
    }
    // Columns before the context: [logger] [caller] message.
    let body = &s[body_start..body_end];
    let (cols, n) = split_columns(body, tabbed);
    let cols = &cols[..n];
    let (mut logger, mut caller, msg) = match *cols {
        [] => (None, None, (0, 0)),
        [m] => (None, None, m),
        [a, m] => (Some(a), None, m),
        [a, b, rest, ..] => (Some(a), Some(b), rest),
    };
    if let Some(a) = logger {
        let t = &body[a.0..a.1];
        if looks_like_caller(t) {
            caller = Some(a);
            logger = None;
        } else if !tabbed && (t.contains(&b' ') || !(t.contains(&b'.') || t.contains(&b'_'))) {
            // With spaces for TABs a single-word "logger" may be message text.
            logger = None;
        }
    }
    let msg = match (logger, caller) {
        (None, None) if cols.len() >= 2 => (cols[0].0, cols[cols.len() - 1].1),
        (Some(_), None) if cols.len() >= 3 => (cols[1].0, cols[cols.len() - 1].1),
        _ => msg,
    };
    if let Some(c) = caller {
        if !looks_like_caller(&body[c.0..c.1]) {
            // not a caller: fold back into the message
            let m0 = c.0.min(msg.0);
            return finish_console(out, o, body_start, logger, None, (m0, msg.1));
        }
    }
    if let Some(c) = caller {
        cx.fields.push(Field { key: Span::EMPTY, value: o.span(body_start + c.0, body_start + c.1), kind: ValueKind::Text });
    }
    finish_console(out, o, body_start, logger, caller, msg)
}

fn finish_console(out: &mut LineOut, o: Origin, base: usize, logger: Option<(usize, usize)>, _caller: Option<(usize, usize)>, msg: (usize, usize)) -> bool {
    if let Some(l) = logger {
        out.logger = o.span(base + l.0, base + l.1);
    }
    out.message = o.span(base + msg.0, base + msg.1);
    true
}

/// Splits on TABs, or on runs of two or more spaces when TABs were lost,
/// into at most three columns, the last of which runs to the end of `s`
/// (a message keeps its own TABs or spaces): the columns and how many.
fn split_columns(s: &[u8], tabbed: bool) -> ([(usize, usize); 3], usize) {
    let mut cols = [(0, 0); 3];
    if s.is_empty() {
        return (cols, 0);
    }
    let mut n = 0;
    let mut st = 0;
    if tabbed {
        for t in memchr::memchr_iter(b'\t', s).take(2) {
            cols[n] = (st, t);
            n += 1;
            st = t + 1;
        }
    } else {
        let mut i = 0;
        while i + 1 < s.len() && n < 2 {
            if s[i] == b' ' && s[i + 1] == b' ' {
                let e = i;
                while i < s.len() && s[i] == b' ' {
                    i += 1;
                }
                cols[n] = (st, e);
                n += 1;
                st = i;
            } else {
                i += 1;
            }
        }
    }
    cols[n] = (st, s.len());
    (cols, n + 1)
}

// ------------------------------------------------------------------- etcd

/// `2021-09-11 14:46:23.606939 I | raft: <msg>` (capnslog, local time).
fn capnslog(s: &[u8], o: Origin, cx: &Ctx<'_>, out: &mut LineOut) -> bool {
    let (ts, i, zoned) = match scan_rfc3339(s, true, cx.opts.default_offset_secs) {
        Scan::Time(p) => (Some(p.ts), p.end, p.zoned),
        Scan::Impossible { end } => (None, end, true),
        Scan::No => return false,
    };
    if s.get(10) != Some(&b' ') {
        return false;
    }
    let (Some(b' '), Some(&l), Some(b' '), Some(b'|'), Some(b' ')) = (s.get(i), s.get(i + 1), s.get(i + 2), s.get(i + 3), s.get(i + 4)) else {
        return false;
    };
    out.level = match l {
        b'C' => Level::Fatal,
        b'E' => Level::Error,
        b'W' => Level::Warn,
        b'N' | b'I' => Level::Info,
        b'D' | b'T' => Level::Debug,
        _ => return false,
    };
    out.time = ts;
    out.zoneless = !zoned;
    out.impossible_time |= ts.is_none();
    let m = i + 5;
    // `pkg: message`
    match memchr::memmem::find(&s[m..], b": ") {
        Some(k) if k < 40 && !s[m..m + k].contains(&b' ') => {
            out.logger = o.span(m, m + k);
            out.message = o.span(m + k + 2, s.len());
        }
        _ => out.message = o.span(m, s.len()),
    }
    true
}

/// Go's standard `log`: `2009/11/10 23:00:00[.uuuuuu] msg`, or with the date
/// flag off, `17:07:59.527067 raft.go:419: msg` (no date: no time).
fn go_log(s: &[u8], o: Origin, cx: &mut Ctx<'_>, out: &mut LineOut) -> bool {
    // `[info 220331 03:30:29 file.(*T).M(file.go:246)] msg` (yunion log)
    if s.first() == Some(&b'[') {
        let sp = s.iter().position(|&b| b == b' ').unwrap_or(0);
        let Some(level) = Level::parse(&s[1..sp.max(1)]) else { return false };
        let d = &s.get(sp + 1..sp + 7).unwrap_or(&[]);
        if d.len() != 6 || !d.iter().all(u8::is_ascii_digit) || s.get(sp + 7) != Some(&b' ') {
            return false;
        }
        let n = |i: usize| ((d[i] - b'0') * 10 + (d[i + 1] - b'0')) as u32;
        let Some((h, mi, sec, frac, digits, end)) = hms_fields(s, sp + 8) else { return false };
        let Some(close) = memchr::memmem::find(&s[end..], b"] ").map(|k| k + end) else { return false };
        let nanos =
            time::checked_civil_nanos(2000 + n(0) as i64, n(2), n(4), h, mi, sec, frac).and_then(|n| time::minus_offset(n, cx.opts.default_offset_secs));
        out.time = nanos.map(|n| Timestamp::new(n, digits));
        out.zoneless = true;
        out.impossible_time |= nanos.is_none();
        out.level = level;
        out.message = o.span(close + 2, s.len());
        cx.fields.push(Field { key: Span::EMPTY, value: o.span(skip_ws(s, end), close), kind: ValueKind::Text });
        return true;
    }
    if s.len() > 19 && s[4] == b'/' && s[7] == b'/' && s[10] == b' ' {
        let mut norm = [0u8; 19];
        norm.copy_from_slice(&s[..19]);
        norm[4] = b'-';
        norm[7] = b'-';
        norm[10] = b'T';
        let scan = scan_rfc3339(&norm, false, cx.opts.default_offset_secs);
        if scan == Scan::No {
            return false;
        }
        let (frac, digits, end) = match hms_fields(s, 11) {
            Some((_, _, _, f, d, e)) => (f, d, e),
            None => return false,
        };
        if s.get(end) != Some(&b' ') {
            return false;
        }
        out.time = take(out, scan).and_then(|p| Some(Timestamp::new(p.nanos.checked_add(frac as i64)?, digits)));
        out.zoneless = true;
        out.level = Level::Info;
        out.message = o.span(end + 1, s.len());
        return true;
    }
    let Some((_, _, _, _, _, end)) = parse_hms(s, 0) else { return false };
    if s.get(end) != Some(&b' ') {
        return false;
    }
    // `file.go:NNN: `
    let r = &s[end + 1..];
    let Some(k) = memchr::memmem::find(r, b": ") else { return false };
    if !looks_like_caller(&r[..k]) {
        return false;
    }
    out.level = Level::Info;
    out.message = o.span(end + 1 + k + 2, s.len());
    cx.fields.push(Field { key: Span::EMPTY, value: o.span(end + 1, end + 1 + k), kind: ValueKind::Text });
    true
}

// ------------------------------------------------------------------- klog

/// `Lmmdd hh:mm:ss.uuuuuu <pid> file:line] msg` with optional structured
/// `"msg" key="value"` tail.
fn klog(s: &[u8], o: Origin, cx: &mut Ctx<'_>, out: &mut LineOut) -> bool {
    let level = match s.first() {
        Some(b'I') => Level::Info,
        Some(b'W') => Level::Warn,
        Some(b'E') => Level::Error,
        Some(b'F') => Level::Fatal,
        _ => return false,
    };
    if s.len() < 22 || !s[1..5].iter().all(u8::is_ascii_digit) || s[5] != b' ' {
        return false;
    }
    let mo = ((s[1] - b'0') * 10 + (s[2] - b'0')) as u32;
    let d = ((s[3] - b'0') * 10 + (s[4] - b'0')) as u32;
    let Some((h, mi, sec, frac, digits, end)) = hms_fields(s, 6) else { return false };
    let ts = time::yearless(mo, d, (h, mi, sec, frac, digits), cx.opts.default_offset_secs);
    // pid, then file:line]
    let i = skip_ws(s, end);
    let mut j = i;
    while j < s.len() && s[j].is_ascii_digit() {
        j += 1;
    }
    if j == i || s.get(j) != Some(&b' ') {
        return false;
    }
    let Some(close) = memchr::memchr(b']', &s[j..]).map(|k| k + j) else { return false };
    let caller = (j + 1, close);
    if !s[caller.0..caller.1].contains(&b':') {
        return false;
    }
    out.level = level;
    out.time = ts;
    out.zoneless = true;
    out.yearless = ts.is_some();
    out.impossible_time |= ts.is_none();
    cx.fields.push(Field { key: Span::EMPTY, value: o.span(caller.0, caller.1), kind: ValueKind::Text });
    let m = (close + 2).min(s.len());
    if s.get(m) == Some(&b'"') {
        if let Some((e, esc)) = json::scan_string(s, m) {
            out.message = o.span(m + 1, e - 1);
            out.message_kind = Some(if esc { ValueKind::JsonString } else { ValueKind::Text });
            key_values(s, e, o, cx.fields);
            return true;
        }
    }
    out.message = o.span(m, s.len());
    true
}

/// ` key="value" key2=value2 ...` (klog structured, logfmt).
fn key_values(s: &[u8], mut i: usize, o: Origin, fields: &mut Vec<Field>) -> usize {
    let mut n = 0;
    loop {
        i = skip_ws(s, i);
        let ks = i;
        while i < s.len() && s[i] != b'=' && !is_ws(s[i]) {
            i += 1;
        }
        if i == ks || s.get(i) != Some(&b'=') {
            return n;
        }
        let key = (ks, i);
        i += 1;
        if s.get(i) == Some(&b'"') {
            match json::scan_string(s, i) {
                Some((e, _)) => {
                    push(fields, o, key, (i + 1, e - 1), ValueKind::JsonString);
                    i = e;
                }
                None => {
                    push(fields, o, key, (i + 1, s.len()), ValueKind::Text);
                    return n + 1;
                }
            }
        } else {
            let vs = i;
            while i < s.len() && !is_ws(s[i]) {
                i += 1;
            }
            push(fields, o, key, (vs, i), ValueKind::Text);
        }
        n += 1;
    }
}

// ----------------------------------------------------------------- logrus

/// `INFO[2022-04-26T16:27:00.030902332+08:00] msg` or logfmt: logrus
/// `time="..." level=info msg="..."`, slog's text handler
/// `time=2026-05-26T16:29:30.123Z level=INFO msg=Reconciling controller=x reconcileID=…`,
/// go-kit `ts=… level=…`. Keys other than time, level, msg and logger
/// are fields (so `reconcileID` gives the record its reconcile).
fn logrus(s: &[u8], o: Origin, cx: &mut Ctx<'_>, out: &mut LineOut) -> bool {
    if s.len() > 5 && s[4] == b'[' {
        let Some(level) = Level::parse(&s[..4]).or(match &s[..4] {
            b"ERRO" => Some(Level::Error),
            b"WARN" => Some(Level::Warn),
            b"DEBU" => Some(Level::Debug),
            b"FATA" => Some(Level::Fatal),
            b"PANI" => Some(Level::Fatal),
            b"TRAC" => Some(Level::Debug),
            _ => None,
        }) else {
            return false;
        };
        let Some(close) = memchr::memchr(b']', s) else { return false };
        out.time = own_time(out, scan_rfc3339(&s[5..close], false, cx.opts.default_offset_secs));
        out.level = level;
        let m = skip_ws(s, close + 1);
        // message, then optional key=value pairs after two spaces
        let me = memchr::memmem::find(&s[m..], b"  ").map_or(s.len(), |k| m + k);
        out.message = o.span(m, trim_end(s, me).max(m));
        if me < s.len() {
            key_values(s, me, o, cx.fields);
        }
        return true;
    }
    if !(s.starts_with(b"time=") || s.starts_with(b"ts=") || s.starts_with(b"level=")) {
        return false;
    }
    let mark = cx.fields.len();
    if key_values(s, 0, o, cx.fields) < 2 {
        return false;
    }
    let mut keep = Vec::new();
    for f in cx.fields.drain(mark..) {
        let base = if o.scratch { &cx.scratch[..] } else { s };
        let k = span_in(base, o, s, f.key);
        let v = span_in(base, o, s, f.value);
        match k {
            b"time" | b"ts" => {
                let scan = match scan_rfc3339(v, true, cx.opts.default_offset_secs) {
                    Scan::No => time::scan_epoch_number(v),
                    t => t,
                };
                out.time = own_time(out, scan);
            }
            b"level" | b"lvl" => out.level = Level::parse(v).unwrap_or(Level::Unknown),
            b"logger" => out.logger = f.value,
            b"msg" | b"message" => {
                out.message = f.value;
                out.message_kind = Some(f.kind);
            }
            _ => keep.push(f),
        }
    }
    cx.fields.extend(keep);
    true
}

/// The bytes of a span that lies inside `s` (which starts at `o`).
fn span_in<'s>(_base: &[u8], o: Origin, s: &'s [u8], sp: Span) -> &'s [u8] {
    let a = sp.start as usize - o.start;
    &s[a..a + sp.len()]
}

// ---------------------------------------------------------------- journald

/// `Apr 29 11:15:36 host unit[pid]: msg` (syslog / journalctl short).
fn journald(s: &[u8], o: Origin, cx: &mut Ctx<'_>, out: &mut LineOut) -> bool {
    if s.len() < 16 || s[3] != b' ' {
        return false;
    }
    let Some(mo) = time::MONTHS.iter().position(|m| &s[..3] == *m) else { return false };
    let d = if s[4] == b' ' { (s[5] as char).to_digit(10) } else { (s[4] as char).to_digit(10).zip((s[5] as char).to_digit(10)).map(|(a, b)| a * 10 + b) };
    let Some(d) = d else { return false };
    if s[6] != b' ' {
        return false;
    }
    let Some((h, mi, sec, frac, digits, end)) = hms_fields(s, 7) else { return false };
    let ts = time::yearless(mo as u32 + 1, d, (h, mi, sec, frac, digits), cx.opts.default_offset_secs);
    let hs = skip_ws(s, end);
    let Some(he) = memchr::memchr(b' ', &s[hs..]).map(|k| k + hs) else { return false };
    let Some(colon) = memchr::memmem::find(&s[he + 1..], b": ").map(|k| k + he + 1) else { return false };
    let tag = &s[he + 1..colon];
    if tag.is_empty() || tag.contains(&b' ') {
        return false;
    }
    let unit_end = memchr::memchr(b'[', tag).map_or(colon, |k| he + 1 + k);
    // A line with a format and a time of its own under the prefix (etcd's
    // JSON, klog, zap): its time is the record's, the prefix's the
    // collection time.
    let stamp = ts.map(|ts| Collected { ts, zoned: false });
    if colon + 2 < s.len() && under_syslog(&s[colon + 2..], o.offset(colon + 2), cx, out, stamp, true) {
        return true;
    }
    out.time = ts;
    out.zoneless = true;
    out.yearless = ts.is_some();
    out.impossible_time |= ts.is_none();
    out.level = Level::Unknown;
    out.logger = o.span(he + 1, unit_end);
    out.message = o.span(colon + 2, s.len());
    cx.fields.push(Field { key: Span::EMPTY, value: o.span(hs, he), kind: ValueKind::Text });
    true
}

/// Parses the line a syslog / journald prefix carries. True when it has a
/// format and a time of its own: `out` is then that line, wrapped
/// ([`Wrapper::Journald`]), its collection time the prefix's (given the
/// inner time's year when the prefix had none; dropped when neither has a
/// year). Otherwise nothing in `out` or `cx` changes.
fn under_syslog(s: &[u8], o: Origin, cx: &mut Ctx<'_>, out: &mut LineOut, stamp: Option<Collected>, prefix_yearless: bool) -> bool {
    let mark = cx.fields.len();
    let saved = cx.last_format;
    let mut io = LineOut { inner: (o.start, o.start + s.len()), ..LineOut::default() };
    let ok = inner(s, o, cx, &mut io) && io.time.is_some();
    cx.last_format = saved;
    if !ok {
        cx.fields.truncate(mark);
        return false;
    }
    let prefix = stamp.map(|c| c.ts);
    let collected = match prefix {
        Some(p) if !prefix_yearless => Some(p),
        Some(p) if !io.yearless => io.time.and_then(|t| super::nearest_year(p, t.nanos, cx.opts.default_offset_secs)),
        _ => None,
    };
    let impossible = out.impossible_time || io.impossible_time;
    let collected_zoneless = collected.is_some() && stamp.is_some_and(|c| !c.zoned);
    *out = LineOut { wrapper: Wrapper::Journald, collected, collected_zoneless, impossible_time: impossible, ..io };
    true
}

/// `host unit[pid]: ` after a dated collector time (`journalctl -o
/// short-iso`): the end of the tag, or `None`.
fn syslog_tag(s: &[u8]) -> Option<usize> {
    let he = memchr::memchr(b' ', s)?;
    if he == 0 || s[..he].iter().any(|&b| b == b'"' || b == b'=' || b == b'{') {
        return None;
    }
    let colon = memchr::memmem::find(&s[he + 1..], b": ")? + he + 1;
    let tag = &s[he + 1..colon];
    // `unit[pid]`: a bracketed pid keeps this from eating ordinary text.
    let open = memchr::memchr(b'[', tag)?;
    (open > 0 && tag.last() == Some(&b']') && tag[open + 1..tag.len() - 1].iter().all(u8::is_ascii_digit) && !tag.contains(&b' ')).then_some(colon + 2)
}

// ---------------------------------------------------------------- chainsaw

/// chainsaw's table `    | 10:44:26 | test | step | OP | STATUS |` and go
/// test's `=== RUN`, `--- PASS` lines.
fn chainsaw(s: &[u8], o: Origin, _cx: &mut Ctx<'_>, out: &mut LineOut) -> bool {
    let i = skip_ws(s, 0);
    if s.get(i..i + 2) == Some(b"| ") && parse_hms(s, i + 2).is_some() {
        out.level = if memchr::memmem::find(s, b"| ERROR |").is_some() { Level::Error } else { Level::Info };
        out.message = o.span(i, trim_end(s, s.len()));
        return true;
    }
    for p in [&b"=== RUN"[..], b"=== PAUSE", b"=== CONT", b"=== NAME", b"--- PASS", b"--- FAIL", b"--- SKIP"] {
        if s[i..].starts_with(p) {
            out.level = if p == b"--- FAIL" { Level::Error } else { Level::Info };
            out.message = o.span(i, trim_end(s, s.len()));
            return true;
        }
    }
    false
}

// ---------------------------------------------------------- Go tracebacks

/// The first line of a Go panic or goroutine dump.
fn traceback_start(s: &[u8], o: Origin, out: &mut LineOut) -> bool {
    let starts =
        [&b"panic: "[..], b"fatal error: ", b"SIGQUIT: quit", b"SIGABRT: abort", b"SIGSEGV: ", b"goroutine profile: total ", b"runtime: ", b"Exception "];
    // A terminal echoes Ctrl+\ as `^\` before the signal line.
    let t = s.strip_prefix(b"^\\").unwrap_or(s);
    if starts.iter().any(|p| t.starts_with(p)) || is_goroutine_header(s) {
        out.level = if s.starts_with(b"goroutine profile") { Level::Info } else { Level::Fatal };
        out.message = o.span(0, trim_end(s, s.len()));
        return true;
    }
    false
}

/// `goroutine 123 [state...]:` (any Go version's header).
pub fn is_goroutine_header(s: &[u8]) -> bool {
    let Some(r) = s.strip_prefix(b"goroutine ") else { return false };
    let d = r.iter().take_while(|b| b.is_ascii_digit()).count();
    d > 0 && r.ends_with(b":") && r[d..].contains(&b'[')
}

/// A line of a Go stack: `pkg.(*T).Method(...)`, `\t/path/file.go:12 +0x1e5`,
/// `created by ...`, `...additional frames elided...`.
pub fn is_stack_line(s: &[u8]) -> bool {
    let s = &s[..trim_end(s, s.len())];
    if s.is_empty() {
        return false;
    }
    if is_ws(s[0]) {
        let t = &s[skip_ws(s, 0)..];
        return t.starts_with(b"/")
            || t.starts_with(b"?")
            || memchr::memmem::find(t, b".go:").is_some()
            || memchr::memmem::find(t, b".s:").is_some()
            || t.starts_with(b"panic: ")
            || t.starts_with(b"[recovered]");
    }
    if s.starts_with(b"created by ") || s.starts_with(b"...additional frames") || s.starts_with(b"goroutine ") {
        return true;
    }
    if !(s[0].is_ascii_alphabetic() || s[0] == b'_') {
        return false;
    }
    // Function part up to the first `(` after the last `/`: no spaces, has a dot.
    let slash = memchr::memrchr(b'/', s).map_or(0, |k| k + 1);
    let head_end = memchr::memchr(b'(', &s[slash..]).map_or(s.len(), |k| slash + k);
    let head = &s[..head_end];
    if head.contains(&b' ') || !head.contains(&b'.') {
        return false;
    }
    // It has an argument list (perhaps cut off), or it is cut before one:
    // then it has no spaces and names `pkg.Func` (a dot before a letter).
    let qualified = s[..(head_end + 1).min(s.len())].windows(2).any(|w| w[0] == b'.' && (w[1].is_ascii_alphabetic() || w[1] == b'('));
    qualified && (head_end < s.len() || !s.contains(&b' '))
}

/// A line that can appear inside a Go panic or goroutine dump: stack lines,
/// goroutine headers, signal and register lines, pprof `debug=1` records.
pub fn is_dump_line(s: &[u8]) -> bool {
    if is_stack_line(s) || is_goroutine_header(s) {
        return true;
    }
    let starts = [
        &b"panic: "[..],
        b"[signal ",
        b"[recovered]",
        b"fatal error: ",
        b"exit status ",
        b"PC=",
        b"m=",
        b"signal arrived",
        b"runtime stack:",
        b"goroutine profile: total ",
        b"#\t",
    ];
    if starts.iter().any(|p| s.starts_with(p)) || s.first().is_some_and(|&b| is_ws(b)) {
        return true;
    }
    // a frame of a function without a package: `panic({0x2240ec0?, 0xc004f70720?})`
    let id = s.iter().take_while(|b| b.is_ascii_alphanumeric() || **b == b'_').count();
    if id > 0 && s.get(id) == Some(&b'(') && s[..trim_end(s, s.len())].ends_with(b")") {
        return true;
    }
    // pprof debug=1: `1 @ 0x43a1d5 0x44a0b6 ...`
    let d = s.iter().take_while(|b| b.is_ascii_digit()).count();
    if d > 0 && s[d..].starts_with(b" @ 0x") {
        return true;
    }
    // register dumps: `rax    0x0`
    let w = s.iter().take_while(|b| b.is_ascii_alphanumeric()).count();
    (1..=4).contains(&w) && s[w..].iter().skip_while(|&&b| b == b' ').take(2).eq(b"0x".iter())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> (LineOut, Vec<(String, String)>, bool) {
        let mut fields = Vec::new();
        let mut scratch = Vec::new();
        let mut out = LineOut::default();
        let ok;
        {
            let mut cx =
                Ctx { opts: LineOptions::default(), fields: &mut fields, scratch: &mut scratch, last_format: Format::Unparsed, name_prefix: Vec::new() };
            ok = parse_line(line.as_bytes(), Origin { start: 0, scratch: false }, &mut cx, &mut out);
        }
        let get = |sp: Span| -> String {
            let b = if sp.in_scratch() { &scratch } else { line.as_bytes() };
            String::from_utf8_lossy(&b[sp.start as usize..sp.start as usize + sp.len()]).into_owned()
        };
        let f = fields.iter().map(|f| (get(f.key), get(f.value))).collect();
        let _ = get(out.message);
        (out, f, ok)
    }

    fn msg(line: &str) -> String {
        let (out, _, _) = parse(line);
        let sp = out.message;
        if sp.in_scratch() {
            return "<scratch>".into();
        }
        line[sp.start as usize..sp.start as usize + sp.len()].to_string()
    }

    #[test]
    fn stack_lines() {
        assert!(is_stack_line(b"github.com/clastix/kamaji/controllers.(*TenantControlPlaneReconciler).Reconcile(0xc0001, {0x1})"));
        assert!(is_stack_line(b"\t/workspace/controllers/tenantcontrolplane_controller.go:123 +0x1e5"));
        assert!(is_stack_line(b"sigs.k8s.io/controller-runtime/pkg/internal/controller.(*Controller[...]).reconcileHandler"));
        assert!(is_stack_line(b"github.com/clastix/kamaji/controllers.(*TenantCon"));
        assert!(!is_stack_line(b"Running tests..."));
        assert!(!is_stack_line(b"[upload-config] Storing the configuration"));
        assert!(is_goroutine_header(b"goroutine 594 [running]:"));
        assert!(is_goroutine_header(b"goroutine 1 gp=0xc000002380 m=nil [select, 3 minutes]:"));
    }

    #[test]
    fn console_columns() {
        let (o, f, ok) = parse("2025-09-06T23:50:07Z\tINFO\tsetup\tstarting manager");
        assert!(ok && o.format == Some(Format::ZapConsole) && o.level == Level::Info && f.is_empty());
        assert_eq!(msg("2025-09-06T23:50:07Z\tINFO\tsetup\tstarting manager"), "starting manager");
        assert_eq!(
            msg("1.6170755746068401e+09\twarn\tclientv3/retry_interceptor.go:62\tretrying of unary invoker failed\t{\"attempt\": 0}"),
            "retrying of unary invoker failed"
        );
        let l = "2025-04-07T18:31:29Z    ERROR   cannot retrieve address    {\"controller\": \"tenantcontrolplane\"}";
        assert_eq!(msg(l), "cannot retrieve address");
        assert_eq!(parse(l).1, vec![("controller".into(), "tenantcontrolplane".into())]);
        let l = "1.6575292343985453e+09  INFO    controller.tenantcontrolplane   resource has completed clean-up {\"name\": \"test\"}";
        assert_eq!(msg(l), "resource has completed clean-up");
    }
}
