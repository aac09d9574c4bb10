//! Finding and parsing dumps: a line reader that peels wrappers, a
//! classifier that names each line's kind, and a state machine over the
//! kinds (grammar in the module docs of `goroutine`).
//!
//! All scanning is on byte slices; the only allocations per line are the
//! strings a frame keeps, and a buffer for lines a wrapper had to rewrite
//! (Docker json escapes, joined CRI pieces).

use std::borrow::Cow;

use rustc_hash::FxHashSet;

use super::{Dump, DumpKind, DumpNote, Frame, Goroutine};
use crate::model::{Timestamp, ValueKind};
use crate::parse::json;
use crate::time::parse_rfc3339;

/// How far (in lines) a dump may continue after a line that is not part of
/// it, and how far a preamble may be from its first goroutine header.
pub const WINDOW_LINES: u32 = 20;

/// Cheap check: does `text` contain a goroutine header or a
/// `goroutine profile: total` line? (Callers can skip files without.)
pub fn has_dump(text: &[u8]) -> bool {
    memchr::memmem::find_iter(text, b"goroutine").any(|i| {
        let rest = &text[i + b"goroutine".len()..];
        let line = &rest[..memchr::memchr(b'\n', rest).unwrap_or(rest.len())];
        if line.starts_with(b" profile: total ") || line.starts_with(b"leak profile: total ") {
            return true;
        }
        // ` 123 [state]:` (perhaps with `gp=`, labels or a wrapper's tail).
        let Some(r) = line.strip_prefix(b" ") else { return false };
        let digits = r.iter().take_while(|b| b.is_ascii_digit()).count();
        digits > 0
            && r.get(digits) == Some(&b' ')
            && memchr::memchr(b'[', r)
                .and_then(|open| memchr::memchr(b']', &r[open..]).map(|close| open + close))
                .is_some_and(|close| memchr::memchr(b':', &r[close..]).is_some())
    })
}

/// Finds and parses every dump in `text` (a whole file, or part of one).
/// `first_line` is the line number of the text's first line.
pub fn parse_dumps(text: &[u8], first_line: u32) -> Vec<Dump> {
    let mut dumps = Vec::new();
    if !has_dump(text) {
        return dumps;
    }
    let mut open: Option<Open> = None;
    let mut at = Cursor { pos: 0, no: first_line };
    while let Some((line, next)) = read(text, at) {
        at = next;
        let kind = kind_of(&line.text);
        if let Some(o) = open.as_mut() {
            match o.disposition(&kind, |s| follows(text, next, s)) {
                Disp::Take => {
                    o.take(&line, kind);
                    continue;
                }
                Disp::Maybe if line.no < o.skip_until => {
                    o.skip(&line);
                    continue;
                }
                Disp::Maybe => {
                    if let Some(no) = o.continuation(text, next) {
                        o.skip_until = no;
                        o.skip(&line);
                        continue;
                    }
                    dumps.extend(open.take().map(|o| o.close(Some(&line))));
                }
                Disp::Close => {
                    o.take(&line, kind);
                    // A register dump is many lines, perhaps then `exit status 2`.
                    while let Some((l, n)) = read(text, at) {
                        if !matches!(kind_of(&l.text), Kind::End) {
                            break;
                        }
                        o.take(&l, Kind::End);
                        at = n;
                    }
                    dumps.extend(open.take().map(|o| o.close(None)));
                    continue;
                }
                Disp::NewDump => dumps.extend(open.take().map(|o| o.close(None))),
            }
        }
        // No dump is open (any more): does one start here?
        match try_open(text, &line, kind, next) {
            Opening::Opened(o) => open = Some(*o),
            Opening::SkipTo(c) => at = c,
            Opening::No => {}
        }
    }
    if let Some(o) = open {
        dumps.push(o.close(None));
    }
    dumps
}

// ---------------------------------------------------------------------------
// Reading lines: wrappers peeled, trailing whitespace trimmed.
// ---------------------------------------------------------------------------

/// A position in the text: byte offset of a line and its line number.
#[derive(Clone, Copy, Debug)]
struct Cursor {
    pos: usize,
    no: u32,
}

/// One logical line: the text inside any wrapper.
struct Line<'a> {
    no: u32,
    text: Cow<'a, [u8]>,
    /// The wrapper's timestamp.
    ts: Option<Timestamp>,
}

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r')
}

fn trim_end(s: &[u8]) -> &[u8] {
    let n = s.iter().rposition(|&b| !is_ws(b)).map_or(0, |i| i + 1);
    &s[..n]
}

fn trim_start(s: &[u8]) -> &[u8] {
    let n = s.iter().position(|&b| !is_ws(b)).unwrap_or(s.len());
    &s[n..]
}

/// The physical line at `pos` (without its `\n`) and where the next starts.
fn physical(text: &[u8], pos: usize) -> (&[u8], usize) {
    let rest = &text[pos..];
    match memchr::memchr(b'\n', rest) {
        Some(i) => (&rest[..i], pos + i + 1),
        None => (rest, text.len()),
    }
}

/// Reads the logical line at `at`: one physical line, or several CRI `P`
/// pieces joined.
fn read(text: &[u8], at: Cursor) -> Option<(Line<'_>, Cursor)> {
    if at.pos >= text.len() {
        return None;
    }
    let (mut raw, mut pos) = physical(text, at.pos);
    if at.pos == 0 {
        raw = raw.strip_prefix(b"\xef\xbb\xbf").unwrap_or(raw);
    }
    let mut no = at.no.saturating_add(1);
    let (body, ts) = match peel(raw) {
        Some(Peeled { start, tag: Tag::Partial, ts }) => {
            let mut joined = raw[start..].to_vec();
            while pos < text.len() {
                let (piece, after) = physical(text, pos);
                let Some(p) = peel(piece).filter(|p| p.tag != Tag::Timestamps) else { break };
                joined.extend_from_slice(&piece[p.start..]);
                pos = after;
                no = no.saturating_add(1);
                if p.tag == Tag::Full {
                    break;
                }
            }
            (Cow::Owned(joined), Some(ts))
        }
        Some(Peeled { start, ts, .. }) => (Cow::Borrowed(&raw[start..]), Some(ts)),
        None if raw.first() == Some(&b'{') => docker_json(raw).unwrap_or((Cow::Borrowed(raw), None)),
        None => (Cow::Borrowed(raw), None),
    };
    let text = match body {
        Cow::Borrowed(b) => Cow::Borrowed(trim_end(b)),
        Cow::Owned(mut v) => {
            v.truncate(trim_end(&v).len());
            Cow::Owned(v)
        }
    };
    Some((Line { no: at.no, text, ts }, Cursor { pos, no }))
}

/// A per-line prefix: where the text starts, and which wrapper it was.
struct Peeled {
    start: usize,
    tag: Tag,
    ts: Timestamp,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Tag {
    /// CRI `F`: a full line.
    Full,
    /// CRI `P`: the line continues in the next piece.
    Partial,
    /// kubectl `--timestamps`.
    Timestamps,
}

/// CRI `<RFC3339> stdout|stderr F|P <text>` (an empty piece may end right
/// after the tag) or kubectl `--timestamps` `<RFC3339 with zone> <text>`.
fn peel(raw: &[u8]) -> Option<Peeled> {
    if !raw.first()?.is_ascii_digit() {
        return None;
    }
    let p = parse_rfc3339(raw, false, 0)?;
    let rest = raw.get(p.end..)?;
    let ts = p.ts;
    let cri = rest.strip_prefix(b" stdout ").or_else(|| rest.strip_prefix(b" stderr "));
    if let Some([tag @ (b'F' | b'P')] | [tag @ (b'F' | b'P'), b' ', ..]) = cri {
        // ` stdout F ` is 10 bytes; an empty piece may stop after the tag.
        let start = (p.end + 10).min(raw.len());
        let tag = if *tag == b'P' { Tag::Partial } else { Tag::Full };
        return Some(Peeled { start, tag, ts });
    }
    // kubectl writes `<time> ` before an empty line; a copy may lose the space.
    let start = match rest.first() {
        Some(b' ') => p.end + 1,
        None => p.end,
        Some(_) => return None,
    };
    p.zoned.then_some(Peeled { start, tag: Tag::Timestamps, ts })
}

/// Docker json-file: `{"log":"<text>\n","stream":"stderr","time":"<RFC3339>"}`.
fn docker_json(raw: &[u8]) -> Option<(Cow<'_, [u8]>, Option<Timestamp>)> {
    let mut log = None;
    let mut time = None;
    json::scan_object(raw, 0, |p| match &raw[p.key.0..p.key.1] {
        b"log" if p.kind == ValueKind::JsonString => log = Some(p),
        b"time" if p.kind == ValueKind::JsonString => time = Some(p),
        _ => {}
    });
    let log = log?;
    let value = &raw[log.value.0..log.value.1];
    let mut body = if log.escaped {
        let mut out = Vec::with_capacity(value.len());
        crate::escape::unescape_into(value, &mut out);
        Cow::Owned(out)
    } else {
        Cow::Borrowed(value)
    };
    if let Cow::Owned(v) = &mut body {
        while matches!(v.last(), Some(b'\n' | b'\r')) {
            v.pop();
        }
    }
    let ts = time.and_then(|t| parse_rfc3339(&raw[t.value.0..t.value.1], false, 0)).map(|p| p.ts);
    Some((body, ts))
}

// ---------------------------------------------------------------------------
// Line kinds.
// ---------------------------------------------------------------------------

/// What starts a dump besides a goroutine header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Start {
    /// `panic:`, `fatal error:`, `SIGQUIT: quit`...
    Traceback,
    /// `goroutine profile: total N`.
    Profile(u64),
}

struct Header<'a> {
    id: u64,
    state: &'a [u8],
    wait_minutes: Option<u32>,
    locked: bool,
    labels: Option<&'a [u8]>,
}

struct PcFrame<'a> {
    func: &'a [u8],
    file: &'a [u8],
    line: u32,
}

enum Kind<'a> {
    Blank,
    Header(Header<'a>),
    /// A function line; the function without arguments.
    Func(&'a [u8]),
    /// An indented `FILE:LINE [+0x..] [fp=.. sp=.. pc=..]` line.
    File(&'a [u8], u32),
    /// `created by FUNC [in goroutine N]`.
    CreatedBy(&'a [u8], Option<u64>),
    Elided,
    /// `goroutine running on other thread; stack unavailable`.
    OtherThread,
    /// `[originating from goroutine N]:`.
    Ancestor,
    /// A line that can open a dump, with the text to keep as its preamble.
    Start(Start, &'a [u8]),
    /// `PC=.. m=.. sigcode=..`, `[signal ..]`, `signal arrived during cgo execution`.
    Preamble,
    /// `runtime stack:` (the g0 stack of a throw; its frames are dropped).
    RuntimeStack,
    /// `debug=1`: `COUNT @ 0x.. 0x..`.
    Record(u64),
    /// `debug=1`: `# labels: {..}`.
    Labels(&'a [u8]),
    /// `debug=1`: `#\t0x..\tFUNC+0x..\tFILE:LINE`; `None` when unsymbolized.
    PcFrame(Option<PcFrame<'a>>),
    /// A register dump line or `exit status N`.
    End,
    Other,
}

/// Names the kind of a (wrapper-free, right-trimmed) line.
fn kind_of(s: &[u8]) -> Kind<'_> {
    let Some(&first) = s.first() else { return Kind::Blank };
    if first == b'\t' || first == b' ' {
        return indented(s);
    }
    if let Some(r) = s.strip_prefix(b"goroutine ") {
        if let Some(total) = r.strip_prefix(b"profile: total ") {
            return number(total).map_or(Kind::Other, |n| Kind::Start(Start::Profile(n), s));
        }
        return header(r).map_or(Kind::Other, Kind::Header);
    }
    if let Some(r) = s.strip_prefix(b"created by ") {
        return created_by(r);
    }
    if let Some(f) = func_name(s) {
        return Kind::Func(f);
    }
    match first {
        b'#' => pc_line(s),
        b'0'..=b'9' => record(s),
        b'.' if s.starts_with(b"...") && s.ends_with(b"elided...") => Kind::Elided,
        b'[' if s.starts_with(b"[originating from goroutine ") => Kind::Ancestor,
        b'[' if s.starts_with(b"[signal ") => Kind::Preamble,
        _ => text_line(s),
    }
}

/// Preamble, trailer and anything else that starts with a letter.
fn text_line(s: &[u8]) -> Kind<'_> {
    if s.starts_with(b"panic: ") || s.starts_with(b"fatal error: ") {
        return Kind::Start(Start::Traceback, s);
    }
    if let Some(total) = s.strip_prefix(b"goroutineleak profile: total ") {
        return number(total).map_or(Kind::Other, |n| Kind::Start(Start::Profile(n), s));
    }
    if s.starts_with(b"PC=0x") || s.starts_with(b"signal arrived during ") {
        return Kind::Preamble;
    }
    if s == b"runtime stack:" {
        return Kind::RuntimeStack;
    }
    if s.starts_with(b"exit status ") || is_register(s) {
        return Kind::End;
    }
    // `SIGQUIT: quit`, perhaps after the terminal's echo of Ctrl+\ (a raw
    // 0x1c byte, or `^\` when copied from a terminal).
    let t = &s[s.iter().position(|&b| b >= b' ').unwrap_or(s.len())..];
    let t = t.strip_prefix(b"^\\").unwrap_or(t);
    if let Some(r) = t.strip_prefix(b"SIG") {
        let name = r.iter().take_while(|b| b.is_ascii_uppercase() || b.is_ascii_digit()).count();
        if name > 0 && r[name..].starts_with(b": ") {
            return Kind::Start(Start::Traceback, t);
        }
    }
    Kind::Other
}

fn indented(s: &[u8]) -> Kind<'_> {
    if let Some((file, line)) = file_line(s) {
        return Kind::File(file, line);
    }
    let t = trim_start(s);
    if t.starts_with(b"goroutine running on other thread") {
        return Kind::OtherThread;
    }
    // An indented header (a dump pasted with a common indent).
    match t.strip_prefix(b"goroutine ").and_then(header) {
        Some(h) => Kind::Header(h),
        None => Kind::Other,
    }
}

/// A decimal number that is the whole of `s`.
fn number(s: &[u8]) -> Option<u64> {
    if s.is_empty() || s.len() > 19 || !s.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(s.iter().fold(0u64, |n, &b| n * 10 + u64::from(b - b'0')))
}

/// A header after `goroutine `: `ID [gp=.. m=.. [mp=..]] [ITEMS][LABELS]:`.
fn header(r: &[u8]) -> Option<Header<'_>> {
    let digits = r.iter().take_while(|b| b.is_ascii_digit()).count();
    let id = number(&r[..digits])?;
    let rest = r[digits..].strip_prefix(b" ")?.strip_suffix(b":")?;
    let open = memchr::memchr(b'[', rest)?;
    let between = &rest[..open];
    if !(between.is_empty() || between.starts_with(b"gp=")) {
        return None;
    }
    let close = open + memchr::memchr(b']', &rest[open..])?;
    let labels = trim_start(trim_end(&rest[close + 1..]));
    let mut items = rest[open + 1..close].split(|&b| b == b',').map(trim_start);
    let state = items.next().unwrap_or_default();
    let state = state.strip_suffix(b" (scan)").unwrap_or(state);
    let mut h = Header { id, state, wait_minutes: None, locked: false, labels: (!labels.is_empty()).then_some(labels) };
    for item in items {
        if let Some(n) = item.strip_suffix(b" minutes").and_then(number) {
            h.wait_minutes = Some(u32::try_from(n).unwrap_or(u32::MAX));
        } else if item == b"locked to thread" {
            h.locked = true;
        }
    }
    Some(h)
}

/// The function of a function line: the line ends with `)`, and the
/// argument list opens at the last `(` (arguments never contain one; the
/// name may: `pkg.(*T).M`).
fn func_name(s: &[u8]) -> Option<&[u8]> {
    if s.last() != Some(&b')') {
        return None;
    }
    let first = *s.first()?;
    if !(first.is_ascii_alphabetic() || first == b'_' || first >= 0x80) {
        return None;
    }
    let name = &s[..memchr::memrchr(b'(', s)?];
    if name.iter().any(|&b| is_ws(b)) || !(name.contains(&b'.') || name == b"panic") {
        return None;
    }
    Some(name)
}

/// An indented `FILE:LINE [+0xOFF] [fp=0x.. sp=0x..] [pc=0x..]` line.
fn file_line(s: &[u8]) -> Option<(&[u8], u32)> {
    let t = trim_start(s);
    let mut end = t.len();
    while let Some(sp) = memchr::memrchr(b' ', &t[..end]) {
        let token = &t[sp + 1..end];
        if !(token.starts_with(b"+0x") || token.starts_with(b"fp=") || token.starts_with(b"sp=") || token.starts_with(b"pc=")) {
            break;
        }
        end = sp;
    }
    let body = &t[..end];
    let colon = memchr::memrchr(b':', body)?;
    let line = number(&body[colon + 1..]).and_then(|n| u32::try_from(n).ok())?;
    let file = &body[..colon];
    (!file.is_empty()).then_some((file, line))
}

/// `created by FUNC[ in goroutine N]` (after `created by `).
fn created_by(r: &[u8]) -> Kind<'_> {
    if let Some(k) = memchr::memmem::rfind(r, b" in goroutine ") {
        if let Some(parent) = number(&r[k + b" in goroutine ".len()..]) {
            return Kind::CreatedBy(&r[..k], Some(parent));
        }
    }
    if r.is_empty() || r.iter().any(|&b| is_ws(b)) {
        return Kind::Other;
    }
    Kind::CreatedBy(r, None)
}

/// `debug=1`: `COUNT @ 0x.. 0x..`.
fn record(s: &[u8]) -> Kind<'_> {
    let digits = s.iter().take_while(|b| b.is_ascii_digit()).count();
    let rest = &s[digits..];
    match number(&s[..digits]) {
        Some(n) if rest == b" @" || rest.starts_with(b" @ ") => Kind::Record(n),
        _ => Kind::Other,
    }
}

/// `debug=1`: `# labels: {..}` or `#<ws>0xPC<ws>FUNC+0xOFF<ws>FILE:LINE`
/// (columns aligned with runs of tabs, or spaces once copied).
fn pc_line(s: &[u8]) -> Kind<'_> {
    if let Some(l) = s.strip_prefix(b"# labels: ") {
        return Kind::Labels(trim_start(l));
    }
    if !s.get(1).is_some_and(|&b| is_ws(b)) {
        return Kind::Other;
    }
    let (pc, after_pc) = word(s, 1);
    if !pc.starts_with(b"0x") {
        return Kind::Other;
    }
    let (func, after_func) = word(s, after_pc);
    if func.is_empty() {
        return Kind::PcFrame(None);
    }
    // The file is the rest of the line (it may contain spaces).
    let Some((file, line)) = file_line(&s[after_func..]) else { return Kind::Other };
    let func = memchr::memmem::rfind(func, b"+0x").map_or(func, |k| &func[..k]);
    Kind::PcFrame(Some(PcFrame { func, file, line }))
}

/// The whitespace-separated word at or after `i`, and where it ends.
fn word(s: &[u8], i: usize) -> (&[u8], usize) {
    let start = s[i..].iter().position(|&b| !is_ws(b)).map_or(s.len(), |k| i + k);
    let end = s[start..].iter().position(|&b| is_ws(b)).map_or(s.len(), |k| start + k);
    (&s[start..end], end)
}

/// A register of a signal's register dump: `rax    0x0`, `r12    0xc000..`.
fn is_register(s: &[u8]) -> bool {
    let name = s.iter().take_while(|b| b.is_ascii_lowercase() || b.is_ascii_digit()).count();
    let rest = &s[name..];
    let value = trim_start(rest);
    (1..=6).contains(&name) && value.len() < rest.len() && value.strip_prefix(b"0x").is_some_and(|h| !h.is_empty() && h.iter().all(u8::is_ascii_hexdigit))
}

/// A frame line cut short (by a copy window or a crash mid-write):
/// `github.com/x/y.(*T).Meth`, `pkg.F(0x1`, `\t/go/src/github.com/x`.
fn looks_cut(s: &[u8]) -> bool {
    match s.first() {
        Some(b'\t' | b' ') => {
            let t = trim_start(s);
            t.contains(&b'/') && !t.iter().any(|&b| is_ws(b)) && file_line(s).is_none()
        }
        Some(b'#') => s.len() > 2 && s[2..].starts_with(b"0x") && is_ws(s[1]),
        Some(&b) if b.is_ascii_alphabetic() || b == b'_' || b >= 0x80 => {
            let head = &s[..memchr::memchr(b'(', s).unwrap_or(s.len())];
            !head.iter().any(|&b| is_ws(b)) && (head.contains(&b'.') || head.contains(&b'/'))
        }
        _ => false,
    }
}

fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

// ---------------------------------------------------------------------------
// The state machine.
// ---------------------------------------------------------------------------

/// Whether a dump opens at a line.
enum Opening {
    Opened(Box<Open>),
    /// No dump here, nor anywhere before this cursor.
    SkipTo(Cursor),
    No,
}

fn try_open(text: &[u8], line: &Line<'_>, kind: Kind<'_>, next: Cursor) -> Opening {
    let (mode, preamble, total) = match kind {
        Kind::Header(_) => (Mode::Traceback, None, None),
        Kind::Start(start, t) if follows(text, next, start) => match start {
            Start::Traceback => (Mode::Traceback, Some(t), None),
            Start::Profile(n) => (Mode::Debug1, Some(t), Some(n)),
        },
        Kind::Func(_) => match headerless_run(text, next) {
            Ok(()) => (Mode::Traceback, None, None),
            Err(c) => return Opening::SkipTo(c),
        },
        _ => return Opening::No,
    };
    let mut o = Open {
        dump: Dump {
            kind: if mode == Mode::Debug1 { DumpKind::Debug1 } else { DumpKind::Traceback },
            first_line: line.no,
            last_line: line.no,
            preamble: preamble.map(lossy),
            total,
            collected: line.ts,
            goroutines: Vec::new(),
            diagnostics: Vec::new(),
        },
        ids: FxHashSet::default(),
        mode,
        block: None,
        skipped: 0,
        first_skipped: 0,
        skip_until: 0,
    };
    o.take(line, kind);
    Opening::Opened(Box::new(o))
}

/// Whether what `start` introduces follows within the window: a goroutine
/// header for a traceback preamble, a record for a profile.
fn follows(text: &[u8], mut at: Cursor, start: Start) -> bool {
    for _ in 0..WINDOW_LINES {
        let Some((line, next)) = read(text, at) else { return false };
        match (kind_of(&line.text), start) {
            (Kind::Header(_), Start::Traceback) | (Kind::Record(_), Start::Profile(_)) => return true,
            (Kind::Start(..), _) => return false,
            _ => {}
        }
        at = next;
    }
    false
}

/// After a function line outside any dump: do frames run from here to a
/// goroutine header (a dump whose first header was cut off)? On failure,
/// returns where the run ended, as no line of it can start a dump.
fn headerless_run(text: &[u8], mut at: Cursor) -> Result<(), Cursor> {
    // The function line just read waits for its file line.
    let mut want_file = true;
    let mut blank = false;
    while let Some((line, next)) = read(text, at) {
        let fits = match kind_of(&line.text) {
            Kind::Header(_) => return if want_file { Err(at) } else { Ok(()) },
            Kind::File(..) => std::mem::replace(&mut want_file, false) && !blank,
            Kind::Func(_) | Kind::CreatedBy(..) => !std::mem::replace(&mut want_file, true) && !blank,
            Kind::Elided => !want_file && !blank,
            Kind::Blank => {
                blank = true;
                !want_file
            }
            _ => false,
        };
        if !fits {
            return Err(at);
        }
        at = next;
    }
    Err(at)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// Goroutine blocks (and the preamble before the first).
    Traceback,
    /// After `runtime stack:`: frames are dropped until a blank line.
    RuntimeStack,
    /// `debug=1` records.
    Debug1,
}

/// What a line means for the open dump.
enum Disp {
    /// Part of the dump.
    Take,
    /// Not part of it: skipped if the dump goes on within the window, else the dump ends before it.
    Maybe,
    /// A trailer: part of the dump, and its end.
    Close,
    /// The end of this dump and the start of the next.
    NewDump,
}

/// The goroutine (or record) being read.
struct Block {
    g: Goroutine,
    /// A function line waiting for its file line: (function, line number).
    pending: Option<(String, u32)>,
    /// `created by` waiting for its file line.
    created_pending: bool,
    /// Inside `[originating from goroutine N]:` frames, which are dropped.
    ancestors: bool,
    /// `goroutine running on other thread; stack unavailable`.
    other_thread: bool,
    /// A cut frame line of this block was noted: it lacks lines, say no more.
    cut: bool,
}

impl Block {
    fn new(line: u32) -> Block {
        Block {
            g: Goroutine {
                id: None,
                count: 1,
                state: String::new(),
                wait_minutes: None,
                locked_to_thread: false,
                frames: Vec::new(),
                created_by: None,
                created_in: None,
                elided: false,
                labels: None,
                line,
            },
            pending: None,
            created_pending: false,
            ancestors: false,
            other_thread: false,
            cut: false,
        }
    }
}

/// How a block ends.
#[derive(Clone, Copy, PartialEq, Eq)]
enum BlockEnd {
    /// A blank line, the next header: the dump goes on.
    Inside,
    /// The dump ends here.
    DumpEnd,
}

/// A dump being read.
struct Open {
    dump: Dump,
    /// Goroutine ids seen: a repeated id starts the next dump.
    ids: FxHashSet<u64>,
    mode: Mode,
    block: Option<Block>,
    /// Interleaved lines skipped, and the first of them.
    skipped: u32,
    first_skipped: u32,
    /// Lines before this one were found to be followed by dump lines.
    skip_until: u32,
}

/// Names a block in notes.
fn who(g: &Goroutine, mode: Mode) -> String {
    match g.id {
        Some(id) => format!("goroutine {id}"),
        None if mode == Mode::Debug1 => format!("the record at line {}", g.line),
        None => format!("the goroutine at line {}", g.line),
    }
}

impl Open {
    /// A goroutine was read (or is being read): later preambles start a new dump.
    fn started(&self) -> bool {
        !self.dump.goroutines.is_empty() || self.block.is_some()
    }

    fn note(&mut self, line: u32, message: String) {
        self.dump.diagnostics.push(DumpNote { line, message });
    }

    /// What `kind` means here; `follows` tells whether a preamble is
    /// followed by its first header (so it starts a new dump).
    fn disposition(&self, kind: &Kind<'_>, follows: impl FnOnce(Start) -> bool) -> Disp {
        let debug1 = self.mode == Mode::Debug1;
        // Traceback lines belong to traceback dumps, record lines to debug=1 ones.
        let ours = |traceback_line: bool| if traceback_line != debug1 { Disp::Take } else { Disp::Maybe };
        match kind {
            Kind::Blank => Disp::Take,
            Kind::Other => Disp::Maybe,
            Kind::End => Disp::Close,
            Kind::Header(h) if debug1 || self.ids.contains(&h.id) => Disp::NewDump,
            Kind::Start(Start::Traceback, _) if !debug1 && !self.started() => Disp::Take,
            Kind::Start(start, _) if follows(*start) => Disp::NewDump,
            Kind::Start(..) => Disp::Maybe,
            Kind::Record(_) | Kind::Labels(_) | Kind::PcFrame(_) => ours(false),
            _ => ours(true),
        }
    }

    /// After a line that is not part of the dump: the line number of the
    /// next line within the window that continues it (a file line only
    /// when a function waits for one).
    fn continuation(&self, text: &[u8], mut at: Cursor) -> Option<u32> {
        let waits_for_file = self.block.as_ref().is_some_and(|b| b.pending.is_some() || b.created_pending);
        for _ in 0..WINDOW_LINES {
            let (line, next) = read(text, at)?;
            let kind = kind_of(&line.text);
            match self.disposition(&kind, |_| true) {
                Disp::Take if matches!(kind, Kind::Blank) => {}
                Disp::Take if matches!(kind, Kind::File(..)) && !waits_for_file => {}
                Disp::Take | Disp::Close => return Some(line.no),
                Disp::NewDump => return None,
                Disp::Maybe => {}
            }
            at = next;
        }
        None
    }

    /// Skips a line that is not part of the dump (dump lines follow).
    fn skip(&mut self, line: &Line<'_>) {
        if !self.started() {
            return; // the rest of a multi-line panic message
        }
        let mode = self.mode;
        if let Some(b) = self.block.as_mut().filter(|_| looks_cut(&line.text)) {
            b.cut = true;
            let w = who(&b.g, mode);
            self.note(line.no, format!("line {} is a cut frame line of {w} (skipped)", line.no));
            return;
        }
        if self.skipped == 0 {
            self.first_skipped = line.no;
        }
        self.skipped += 1;
    }

    fn take(&mut self, line: &Line<'_>, kind: Kind<'_>) {
        let no = line.no;
        if !matches!(kind, Kind::Blank) {
            self.dump.last_line = no;
        }
        match kind {
            Kind::Blank => {
                self.end_block(BlockEnd::Inside);
                if self.mode == Mode::RuntimeStack {
                    self.mode = Mode::Traceback;
                }
            }
            Kind::Header(h) => {
                self.end_block(BlockEnd::Inside);
                self.mode = Mode::Traceback;
                self.ids.insert(h.id);
                let mut b = Block::new(no);
                b.g.id = Some(h.id);
                b.g.state = lossy(h.state);
                b.g.wait_minutes = h.wait_minutes;
                b.g.locked_to_thread = h.locked;
                b.g.labels = h.labels.map(lossy);
                self.block = Some(b);
            }
            Kind::RuntimeStack => {
                self.end_block(BlockEnd::Inside);
                self.mode = Mode::RuntimeStack;
            }
            _ if self.mode == Mode::RuntimeStack => {}
            Kind::Func(f) => self.func(f, no),
            Kind::File(file, n) => self.file(file, n, no),
            Kind::CreatedBy(f, parent) => self.created(f, parent, no),
            Kind::Elided | Kind::Ancestor | Kind::OtherThread => {
                self.flush_pending(BlockEnd::Inside);
                match (&mut self.block, kind) {
                    (Some(b), _) if b.ancestors => {}
                    (Some(b), Kind::Elided) => b.g.elided = true,
                    (Some(b), Kind::Ancestor) => b.ancestors = true,
                    (Some(b), _) => b.other_thread = true,
                    (None, _) => {}
                }
            }
            Kind::Record(n) => {
                self.end_block(BlockEnd::Inside);
                let mut b = Block::new(no);
                b.g.count = n;
                self.block = Some(b);
            }
            Kind::Labels(l) => {
                if let Some(b) = &mut self.block {
                    b.g.labels = Some(lossy(l));
                }
            }
            Kind::PcFrame(f) => match (&mut self.block, f) {
                (Some(b), Some(f)) => b.g.frames.push(Frame { func: lossy(f.func), file: lossy(f.file), line: f.line }),
                (Some(_), None) => {} // unsymbolized: nothing to show
                (None, _) => self.note(no, "frame line outside a record (skipped)".into()),
            },
            Kind::Start(..) | Kind::Preamble | Kind::End | Kind::Other => {}
        }
    }

    /// Keeps a function line that never got its file line, with no file.
    fn flush_pending(&mut self, end: BlockEnd) {
        let mode = self.mode;
        let Some(b) = &mut self.block else { return };
        let Some((func, l)) = b.pending.take() else { return };
        b.g.frames.push(Frame { func, file: String::new(), line: 0 });
        if b.cut {
            return;
        }
        let w = who(&b.g, mode);
        match end {
            BlockEnd::Inside => self.note(l, format!("{w}: no file line after the function at line {l}")),
            BlockEnd::DumpEnd => self.note(l, format!("dump is cut off inside {w} (no file line after its last function)")),
        }
    }

    fn func(&mut self, func: &[u8], no: u32) {
        if let Some(b) = &mut self.block {
            if b.ancestors {
                return;
            }
            if b.pending.is_none() && b.g.created_by.is_none() {
                b.pending = Some((lossy(func), no));
                return;
            }
            // A function after an unfinished frame or after `created by`:
            // lines are missing, so this starts another (headerless) block.
            self.end_block(BlockEnd::Inside);
        }
        self.note(no, "frames without a goroutine header (its header line is missing)".into());
        let mut b = Block::new(no);
        b.pending = Some((lossy(func), no));
        self.block = Some(b);
    }

    fn file(&mut self, file: &[u8], n: u32, no: u32) {
        let mode = self.mode;
        let Some(b) = &mut self.block else {
            self.note(no, "file line without a function line (skipped)".into());
            return;
        };
        if b.ancestors {
            return;
        }
        if let Some((func, _)) = b.pending.take() {
            b.g.frames.push(Frame { func, file: lossy(file), line: n });
        } else if b.created_pending {
            b.created_pending = false;
            if let Some(c) = &mut b.g.created_by {
                c.file = lossy(file);
                c.line = n;
            }
        } else {
            let w = who(&b.g, mode);
            self.note(no, format!("file line without a function line: {w} ends here"));
            self.end_block(BlockEnd::Inside);
        }
    }

    fn created(&mut self, func: &[u8], parent: Option<u64>, no: u32) {
        self.flush_pending(BlockEnd::Inside);
        let Some(b) = &mut self.block else {
            self.note(no, "`created by` line outside a goroutine block (skipped)".into());
            return;
        };
        if b.ancestors {
            return;
        }
        b.g.created_by = Some(Frame { func: lossy(func), file: String::new(), line: 0 });
        b.g.created_in = parent;
        b.created_pending = true;
    }

    /// Ends the current block: notes what it lacks, keeps the goroutine.
    fn end_block(&mut self, end: BlockEnd) {
        self.flush_pending(end);
        let Some(b) = self.block.take() else { return };
        let w = who(&b.g, self.mode);
        if b.created_pending && !b.cut {
            let message = match end {
                BlockEnd::DumpEnd => format!("dump is cut off inside {w} (no file line after `created by`)"),
                BlockEnd::Inside => format!("{w}: no file line after `created by`"),
            };
            self.note(b.g.line, message);
        }
        if b.g.frames.is_empty() && !b.other_thread && !b.cut {
            let message = match end {
                BlockEnd::DumpEnd => format!("dump is cut off after the header of {w}"),
                _ => format!("{w} has no frames"),
            };
            self.note(b.g.line, message);
        }
        self.dump.goroutines.push(b.g);
    }

    /// Finishes the dump; `end` is the line it ended before, if not a trailer.
    fn close(mut self, end: Option<&Line<'_>>) -> Dump {
        let mode = self.mode;
        if let (Some(l), Some(b)) = (end.filter(|l| looks_cut(&l.text)), &mut self.block) {
            b.cut = true;
            let w = who(&b.g, mode);
            self.note(l.no, format!("dump is cut off inside {w}: line {} is a cut frame line", l.no));
        }
        self.end_block(BlockEnd::DumpEnd);
        if self.skipped > 0 {
            let message = match self.skipped {
                1 => "1 log line interleaved with the dump was skipped".to_string(),
                n => format!("{n} log lines interleaved with the dump were skipped"),
            };
            self.note(self.first_skipped, message);
        }
        self.dump.diagnostics.sort_by_key(|d| d.line);
        self.dump
    }
}
