//! Copies made by people: logs pasted from a terminal into an issue.
//!
//! What a terminal does to a log, and what the line loop
//! ([`super::parse_into`]) does about it with the help of this module:
//!
//! * **Hard wraps.** A terminal (or tmux, or a pane of k9s) breaks a long
//!   line into rows of its width; the copy keeps the breaks, so a row
//!   after the first starts mid-token and parses as nothing. A record
//!   followed by such rows is re-joined when there is evidence of a wrap
//!   ([`Group::is_wrap`]): two rows of the same width (the record's line
//!   and the next one), or one row after a record whose line fills its
//!   frame to the right border, or whose line is cut inside its JSON
//!   object, or after a line of 100 columns or more that ends mid-word
//!   while the row starts mid-word (a lowercase letter or a digit). A line that parses as a record of its own
//!   (its own timestamp, level or JSON object) is never a continuation,
//!   and a row longer than the record's line is none either. The joined
//!   text is parsed again from the scratch buffer; the record keeps its
//!   lines (`line`, `line_count`) so the inspector shows the rows.
//! * **Frames.** k9s, tmux pane borders and other terminal UIs draw box
//!   characters: a vertical bar (and one space of padding) at the start
//!   and the end of a row is taken off ([`unframe`]) before the line is
//!   parsed; rows made of box characters are a frame's borders.
//! * **Screens and prompts.** `less`'s `~` filler rows, `(END)` and `:`
//!   prompt, k9s's status row, and shell command lines (`$ kubectl logs
//!   ...`) stay unparsed records, but are named for what they are.
//! * **A cut last line.** The file ending inside a record (a JSON object
//!   or a quoted string not closed) is said once, for the last record.
//!
//! Each kind gets one note per file naming its first line ([`Repairs`]).

use crate::model::{Diagnostic, Format};
use crate::words::plural;

/// Rows narrower than this are never taken for a terminal's width.
pub(super) const MIN_COLUMNS: usize = 40;
/// A record cut inside its JSON object followed by one shorter row: the
/// narrowest width taken for a wrap.
const MIN_COLUMNS_CUT: usize = 60;
/// One row after a line that ends mid-word: the narrowest width taken for
/// a wrap (narrower terminals wrap long log lines more than once, and then
/// two rows of the same width say so).
const MIN_COLUMNS_WORD: usize = 100;

/// How many lines had one kind of repair, and the first of them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Tally {
    pub n: u64,
    /// 1-based line (meaningless while `n == 0`).
    pub first: u32,
}

impl Tally {
    pub fn add(&mut self, line: u32, n: u64) {
        if self.n == 0 {
            self.first = line;
        }
        self.n += n;
    }

    /// `o`, from a piece that follows this one `base` lines later.
    fn merge(&mut self, o: Tally, base: u32) {
        if o.n > 0 {
            self.add(o.first + base, o.n);
        }
    }
}

/// How the file's last record is cut.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Cut {
    /// Its JSON object is not closed.
    Json = 0,
    /// A quoted string is not closed.
    Quote = 1,
}

/// What was repaired in a file (or a piece of it), for its notes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Repairs {
    /// Rows re-joined onto the line before them (the first row's line).
    pub wrapped: Tally,
    /// The narrowest and widest wrap width seen, in columns.
    pub widths: (u32, u32),
    /// Lines a frame was taken off.
    pub framed: Tally,
    /// Lines that are only a frame's borders.
    pub borders: Tally,
    /// A pager's or terminal UI's own rows.
    pub screen: Tally,
    /// Shell command lines.
    pub commands: Tally,
    /// The first command line, shortened.
    pub command: String,
    /// The file's last record, when the file ends inside it: its line.
    pub cut_last: Option<(u32, Cut)>,
    /// JSON objects printed over many lines, read as one record each.
    pub pretty_json: Tally,
}

impl Repairs {
    /// Adds `o`, the repairs of the piece that follows, `base` lines later.
    pub fn merge(&mut self, o: &Repairs, base: u32) {
        if o.wrapped.n > 0 {
            self.widths = if self.wrapped.n == 0 { o.widths } else { (self.widths.0.min(o.widths.0), self.widths.1.max(o.widths.1)) };
        }
        self.wrapped.merge(o.wrapped, base);
        self.framed.merge(o.framed, base);
        self.borders.merge(o.borders, base);
        self.screen.merge(o.screen, base);
        if self.commands.n == 0 {
            self.command.clone_from(&o.command);
        }
        self.commands.merge(o.commands, base);
        self.pretty_json.merge(o.pretty_json, base);
        if let Some((l, k)) = o.cut_last {
            self.cut_last = Some((l + base, k));
        }
    }

    /// Rows of `width` columns re-joined, the first at `line`.
    pub fn wrapped(&mut self, line: u32, rows: u64, width: usize) {
        let w = width as u32;
        self.widths = if self.wrapped.n == 0 { (w, w) } else { (self.widths.0.min(w), self.widths.1.max(w)) };
        self.wrapped.add(line, rows);
    }

    /// A line that is not a log line but the terminal's.
    pub fn chrome(&mut self, kind: Chrome, line: u32, text: &[u8]) {
        match kind {
            Chrome::Border => self.borders.add(line, 1),
            Chrome::Screen => self.screen.add(line, 1),
            Chrome::Command(at) => {
                if self.commands.n == 0 {
                    self.command = shorten(&text[at..]);
                }
                self.commands.add(line, 1);
            }
        }
    }

    /// The notes, one per kind of repair.
    pub fn notes(&self, path: &str, out: &mut Vec<Diagnostic>) {
        let mut note = |line: u32, message: String| out.push(Diagnostic { path: path.to_owned(), line: Some(line), message });
        if self.commands.n == 1 {
            note(self.commands.first, format!("line {} is a shell command (`{}`), not a log line", self.commands.first, self.command));
        } else if self.commands.n > 1 {
            note(
                self.commands.first,
                format!("{} lines are shell commands, not log lines (the first, line {}: `{}`)", self.commands.n, self.commands.first, self.command),
            );
        }
        if self.wrapped.n > 0 {
            let (lo, hi) = self.widths;
            let width = if lo == hi { format!("{lo}") } else { format!("{lo}-{hi}") };
            let what = plural(self.wrapped.n, "line hard-wrapped", "lines hard-wrapped");
            let verb = if self.wrapped.n == 1 { "was" } else { "were" };
            note(self.wrapped.first, format!("{what} at {width} columns {verb} re-joined (first at line {})", self.wrapped.first));
        }
        if self.pretty_json.n > 0 {
            let what = if self.pretty_json.n == 1 {
                "a JSON object printed over many lines was read as one record".to_owned()
            } else {
                format!("{} JSON objects printed over many lines were read as one record each", self.pretty_json.n)
            };
            note(self.pretty_json.first, format!("{what} (first at line {})", self.pretty_json.first));
        }
        if self.framed.n > 0 {
            let lines = plural(self.framed.n, "line", "lines");
            note(self.framed.first, format!("a terminal frame was removed from {lines} (first at line {})", self.framed.first));
        }
        let not_logs = |t: Tally| {
            if t.n == 1 {
                format!("1 line is {{}}, not a log line (line {})", t.first)
            } else {
                format!("{} lines are {{}}, not log lines (first at line {})", t.n, t.first)
            }
        };
        if self.borders.n > 0 {
            let m = not_logs(self.borders).replace("{}", "a terminal frame's border");
            note(self.borders.first, m);
        }
        if self.screen.n > 0 {
            let m = not_logs(self.screen).replace("{}", "a pager's or terminal UI's screen (`~`, `(END)`, a `:` prompt, a status line)");
            note(self.screen.first, m);
        }
        if let Some((line, cut)) = self.cut_last {
            let how = match cut {
                Cut::Json => "its JSON object is cut short; the fields before the cut were kept",
                Cut::Quote => "a quoted string in it is not closed",
            };
            note(line, format!("the last line is cut mid-record: {how}"));
        }
    }
}

/// At most 60 characters of a command, for a note.
fn shorten(s: &[u8]) -> String {
    let t = String::from_utf8_lossy(s);
    let t = t.trim();
    match t.char_indices().nth(60) {
        Some((i, _)) => format!("{}...", &t[..i]),
        None => t.to_owned(),
    }
}

// ------------------------------------------------------------------ frames

/// Whether `c` is one of the box-drawing characters (U+2500-U+257F).
fn is_box(c: char) -> bool {
    ('\u{2500}'..='\u{257f}').contains(&c)
}

/// The vertical bars a frame's rows start and end with.
const BARS: [&str; 3] = ["│", "┃", "║"];

/// The content of a row of a terminal frame: the range left when a
/// vertical bar at its start (and one space after it) and at its end
/// (with the padding before it) are taken off, or `None` when it has
/// neither. The content may be empty (an empty row of the frame). The
/// flag: the content reaches the right border (no padding before it).
pub(super) fn unframe(s: &[u8]) -> Option<(usize, usize, bool)> {
    let mut a = 0;
    if let Some(bar) = BARS.iter().find(|b| s.starts_with(b.as_bytes())) {
        a = bar.len();
        if s.get(a) == Some(&b' ') {
            a += 1;
        }
    }
    let mut b = s.len();
    while b > a && s[b - 1] == b' ' {
        b -= 1;
    }
    let right = BARS.iter().find(|bar| s[a..b].ends_with(bar.as_bytes()));
    if let Some(bar) = right {
        b -= bar.len();
    }
    if a == 0 && right.is_none() {
        return None;
    }
    // A bar on the left alone is a frame's (a right-hand tmux pane) when
    // text follows it at once, not a `tree` listing's `│   ├── name`.
    if right.is_none() && s.get(a).is_none_or(|&c| c == b' ' || c == b'\t' || c == 0xE2) {
        return None;
    }
    // A bar on the right alone is a pane's border (tmux's left pane) when
    // the row has no other bar: a line that draws a table is no frame.
    if a == 0 && BARS.iter().any(|bar| memchr::memmem::find(&s[..b], bar.as_bytes()).is_some()) {
        return None;
    }
    let bar_at = b;
    while b > a && (s[b - 1] == b' ' || s[b - 1] == b'\t') {
        b -= 1;
    }
    // (One space of padding is the frame's own.)
    let fills = right.is_some() && bar_at - b <= 1 && b > a;
    Some((a, b, fills))
}

// ------------------------------------------------------------------ chrome

/// A line that is not a log line but the terminal's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Chrome {
    /// A frame's border: box characters (a title between them).
    Border,
    /// A pager's or a terminal UI's own row: `less`'s `~`, `(END)`, its
    /// `:` prompt, `--More--`, k9s's status row.
    Screen,
    /// A shell command line; the command starts at this byte.
    Command(usize),
}

/// Commands whose line pasted among log lines is the command that printed
/// them (or a neighbour of it).
const COMMANDS: &[&str] = &[
    "kubectl",
    "k",
    "oc",
    "journalctl",
    "docker",
    "podman",
    "nerdctl",
    "crictl",
    "stern",
    "kail",
    "kubetail",
    "cat",
    "zcat",
    "tail",
    "head",
    "less",
    "more",
    "grep",
    "egrep",
    "systemctl",
    "helm",
    "etcdctl",
    "jq",
    "kind",
    "k3s",
    "k9s",
    "minikube",
];

/// Commands recognised without a prompt before them.
const BARE_COMMANDS: &[&str] = &["kubectl", "oc", "journalctl", "crictl", "stern", "etcdctl"];

/// See [`super::is_elision`]. (Dots alone, three or more, or an ellipsis;
/// else words that say lines were left out, with numbers, around which
/// brackets, dashes or dots.)
pub(super) fn elision(s: &[u8]) -> bool {
    // (A long line is no elision: not read through.)
    if s.len() > 400 {
        return false;
    }
    let Ok(t) = std::str::from_utf8(s) else { return false };
    let t = t.trim();
    if t.is_empty() || t.len() > 100 {
        return false;
    }
    let inner = t.trim_matches(|c: char| matches!(c, '[' | ']' | '(' | ')' | '<' | '>' | '{' | '}' | '-' | '=' | '*' | '#') || c.is_whitespace());
    if !inner.is_empty() && inner.chars().all(|c| c == '.' || c == '…') {
        return inner.contains('…') || inner.len() >= 3;
    }
    const LEFT_OUT: &[&str] = &["snip", "snipped", "omitted", "elided", "truncated", "skipped", "removed", "more"];
    const BESIDE: &[&str] = &["lines", "line", "log", "logs", "of", "output", "entries", "similar", "repeated", "times"];
    let words = inner.trim_matches(|c: char| c == '.' || c == '…' || c.is_whitespace()).to_ascii_lowercase();
    let words: Vec<&str> = words.split_whitespace().collect();
    words.iter().any(|w| LEFT_OUT.contains(w))
        && words.iter().all(|w| LEFT_OUT.contains(w) || BESIDE.contains(w) || w.chars().all(|c| c.is_ascii_digit() || c == ','))
        && (words.len() > 1 || *words[0] != *"more")
}

/// What `s` (an unparsed line) is, when it is the terminal's.
pub(super) fn chrome(s: &[u8]) -> Option<Chrome> {
    let t = std::str::from_utf8(s).ok()?.trim();
    if t.is_empty() {
        return None;
    }
    if matches!(t, "~" | "(END)" | ":" | "--More--") || t.starts_with("--More--(") || (t.contains("Autoscroll:") && t.contains("Wrap:")) {
        return Some(Chrome::Screen);
    }
    let first = t.chars().next()?;
    let last = t.chars().next_back()?;
    if is_box(first) {
        let boxes = t.chars().filter(|&c| is_box(c)).count();
        let all = t.chars().all(|c| is_box(c) || c == ' ');
        // (A row of a frame starting with a vertical bar was unframed
        // before: this is a border, or a title between borders.)
        if all || (is_box(last) && boxes >= 4 && !BARS.iter().any(|b| t.starts_with(b))) {
            return Some(Chrome::Border);
        }
    }
    command(s).map(Chrome::Command)
}

/// Where the command of a shell command line starts: after a prompt
/// (`$ `, `# `, `% `, `> `, `❯ `, `user@host:~$ `, `[root@node ~]# `,
/// `PS C:\> `) and `sudo`, when it names one of [`COMMANDS`]; or a line
/// that starts with one of [`BARE_COMMANDS`] and a subcommand or flag.
fn command(s: &[u8]) -> Option<usize> {
    let text = std::str::from_utf8(s).ok()?;
    let lead = text.len() - text.trim_start().len();
    let t = &text[lead..];
    let after_prompt = prompt_len(t);
    let mut at = lead + after_prompt.unwrap_or(0);
    let rest = &text[at..];
    let rest_trim = rest.trim_start();
    at += rest.len() - rest_trim.len();
    let mut words = rest_trim.split_whitespace();
    let mut word = words.next()?;
    if word == "sudo" && after_prompt.is_some() {
        word = words.next()?;
    }
    let known = if after_prompt.is_some() { COMMANDS } else { BARE_COMMANDS };
    if !known.contains(&word) {
        return None;
    }
    if after_prompt.is_none() {
        // A bare command needs a subcommand or a flag after it.
        let next = words.next()?;
        if !next.starts_with(|c: char| c.is_ascii_lowercase() || c == '-') {
            return None;
        }
    }
    Some(at)
}

/// The length of a shell prompt at the start of `t` (up to and with the
/// space after its `$`, `#`, `%`, `>`, `❯` or `➜`): a bare one, or
/// `user@host:path$ `, `[user@host dir]# `, `PS C:\dir> `.
fn prompt_len(t: &str) -> Option<usize> {
    for p in ["$ ", "# ", "% ", "> ", "❯ ", "➜ "] {
        if t.starts_with(p) {
            return Some(p.len());
        }
    }
    let head = &t[..t.floor_char_boundary(80)];
    if let Some(ps) = head.strip_prefix("PS ") {
        return Some(3 + ps.find("> ")? + 2);
    }
    if head.starts_with('[') {
        let close = head.find(']')?;
        if !head[1..close].contains('@') {
            return None;
        }
        let rest = &head[close + 1..];
        return ["$ ", "# ", "% "].iter().find(|p| rest.starts_with(**p)).map(|p| close + 1 + p.len());
    }
    // A prompt with spaces in it (`dagger / $ `): a short head with no
    // quotes, keys or braces, then ` $ `.
    if let Some(i) = head.find(" $ ").filter(|&i| i <= 40 && !head[..i].contains(['"', '=', '{', '[', '('])) {
        return Some(i + 3);
    }
    let end = head.find(' ')?;
    let word = &head[..end];
    let sigil = word.chars().next_back()?;
    (matches!(sigil, '$' | '#' | '%' | '>') && word.len() >= 3 && (word.contains('@') || word.contains(':'))).then_some(end + 1)
}

// ------------------------------------------------------------------ wraps

/// The columns `s` takes on a terminal: its characters, a TAB to the next
/// multiple of 8.
pub(super) fn columns(s: &[u8]) -> usize {
    let mut col = 0;
    for &b in s {
        if b == b'\t' {
            col = (col / 8 + 1) * 8;
        } else if b & 0xC0 != 0x80 {
            col += 1;
        }
    }
    col
}

/// A record whose line may have been hard-wrapped, and the rows after it
/// that may continue it.
#[derive(Debug)]
pub(super) struct Group {
    /// The record's index in the piece's records.
    pub head: usize,
    /// The columns of the record's line: the terminal's width, if wrapped.
    pub width: usize,
    /// The content of the record's line and of each row (byte ranges of
    /// the file; frames and the padding before them taken off).
    pub pieces: Vec<(usize, usize)>,
    /// Rows (the record's line included) exactly `width` wide.
    pub full: usize,
    /// The record's line was cut inside its JSON object.
    pub head_cut: bool,
    /// The record's line fills its frame to the right border.
    pub head_fills_frame: bool,
    /// The last row's line number and where it ends.
    pub last_line: u32,
    pub end: usize,
}

impl Group {
    /// A group for the record at `head`, whose line's content is
    /// `bytes[at..at + len]`, if that line can be a wrapped one: at least
    /// [`MIN_COLUMNS`] wide and not ending in a space.
    pub fn open(bytes: &[u8], head: usize, at: usize, len: usize, head_cut: bool, fills_frame: bool) -> Option<Group> {
        let s = &bytes[at..at + len];
        if len < MIN_COLUMNS || s.last().is_none_or(|&b| b == b' ' || b == b'\t') {
            return None;
        }
        let width = columns(s);
        (width >= MIN_COLUMNS).then(|| Group {
            head,
            width,
            pieces: vec![(at, at + len)],
            full: 1,
            head_cut,
            head_fills_frame: fills_frame,
            last_line: 0,
            end: at + len,
        })
    }

    /// Whether the row `s` can continue the group: no wider than the
    /// record's line, after a row that was exactly as wide.
    /// An elision a person wrote (`...`) is never a row: the line before
    /// it was cut by them, at any width.
    pub fn takes(&self, s: &[u8]) -> bool {
        self.pieces.len() == self.full && !s.is_empty() && columns(s) <= self.width && !elision(s)
    }

    /// Adds the row `bytes[at..at + len]` (line `line`, ending at `end`);
    /// true when it is as wide as the record's line (the group may go on).
    pub fn push(&mut self, bytes: &[u8], at: usize, len: usize, line: u32, end: usize) -> bool {
        let full = columns(&bytes[at..at + len]) == self.width;
        if full {
            self.full += 1;
        }
        self.pieces.push((at, at + len));
        self.last_line = line;
        self.end = end;
        full
    }

    /// Whether the rows are a hard wrap of the record's line.
    pub fn is_wrap(&self, bytes: &[u8]) -> bool {
        if self.pieces.len() < 2 {
            return false;
        }
        // Two rows of one width: the terminal's.
        if self.full >= 2 {
            return true;
        }
        let (h0, h1) = self.pieces[0];
        let (r0, _) = self.pieces[1];
        if self.head_fills_frame {
            return true;
        }
        if self.head_cut && self.width >= MIN_COLUMNS_CUT {
            return true;
        }
        // One row: the break falls inside a word.
        let last = bytes[h1 - 1];
        let next = bytes[r0];
        h1 > h0 && self.width >= MIN_COLUMNS_WORD && last.is_ascii_alphanumeric() && (next.is_ascii_lowercase() || next.is_ascii_digit())
    }

    /// The rows' joined text.
    pub fn joined(&self, bytes: &[u8], out: &mut Vec<u8>) {
        for &(a, b) in &self.pieces {
            out.extend_from_slice(&bytes[a..b]);
        }
    }
}

/// Whether the file ending with `record` (its raw bytes, format `format`)
/// ends inside it: its JSON object cut (`json_cut`), or a quote of a klog
/// or logfmt line not closed.
pub(super) fn cut_last(raw: &[u8], format: Format, json_cut: bool) -> Option<Cut> {
    if json_cut {
        return Some(Cut::Json);
    }
    if !matches!(format, Format::Klog | Format::Logrus) {
        return None;
    }
    let mut quotes = 0usize;
    let mut escaped = false;
    for &b in raw {
        match b {
            b'\\' if !escaped => {
                escaped = true;
                continue;
            }
            b'"' if !escaped => quotes += 1,
            _ => {}
        }
        escaped = false;
    }
    (quotes % 2 == 1).then_some(Cut::Quote)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_are_taken_off_rows() {
        let cases: &[(&str, Option<&str>)] = &[
            ("│ 2025-04-07T18:31:29Z INFO x       │", Some("2025-04-07T18:31:29Z INFO x")),
            ("│2025-04-07T18:31:29Z INFO x│", Some("2025-04-07T18:31:29Z INFO x")),
            ("2025-04-07T18:31:29Z INFO x        │", Some("2025-04-07T18:31:29Z INFO x")),
            ("║ a ║", Some("a")),
            ("│                │", Some("")),
            ("2025-04-07T18:31:29Z INFO x", None),
            ("a │ b", None),
            ("│2025-04-07T18:31:29Z INFO x", Some("2025-04-07T18:31:29Z INFO x")),
            ("│   ├── 10_Import GPG keys.txt", None),
            ("2025-04-07T18:31:29Z INFO table │ a │ b │", None),
            ("│   └── 1_Set up job.txt", None),
        ];
        for (row, want) in cases {
            let got = unframe(row.as_bytes()).map(|(a, b, _)| &row[a..b]);
            assert_eq!(got, *want, "{row:?}");
        }
    }

    #[test]
    fn terminal_lines_are_told_from_log_lines() {
        let cases: &[(&str, Option<Chrome>)] = &[
            ("~", Some(Chrome::Screen)),
            ("(END)", Some(Chrome::Screen)),
            (":", Some(Chrome::Screen)),
            ("--More--(42%)", Some(Chrome::Screen)),
            ("  Autoscroll:On     FullScreen:Off     Timestamps:Off     Wrap:Off", Some(Chrome::Screen)),
            ("┌──────────── Logs(kamaji-system/kamaji-7d9c8b5f4-x2x9k:manager)[tail] ────────────┐", Some(Chrome::Border)),
            ("└──────────────────────────────────┘", Some(Chrome::Border)),
            ("──────────────────────────────────", Some(Chrome::Border)),
            ("$ kubectl logs -n kamaji-system deploy/kamaji", Some(Chrome::Command(2))),
            ("# journalctl -u etcd --no-pager", Some(Chrome::Command(2))),
            ("root@master01:~# journalctl -u etcd", Some(Chrome::Command(17))),
            ("[root@node-1 ~]# kubectl logs etcd-node-1 -n kube-system", Some(Chrome::Command(17))),
            ("user@host:~/src$ sudo crictl logs 0a1b", Some(Chrome::Command(17))),
            ("PS C:\\Users\\me> kubectl logs pod/x", Some(Chrome::Command(16))),
            ("kubectl logs -f deploy/kamaji -n kamaji-system", Some(Chrome::Command(0))),
            ("❯ stern kamaji", Some(Chrome::Command(4))),
            // Not the terminal's.
            ("# --- second block ---", None),
            ("# [...]", None),
            ("kubectl", None),
            ("$ 5 were counted", None),
            ("lane\", \"TenantControlPlane\": {\"name\":\"x\"}", None),
            ("~/work", None),
            ("│ a", None),
        ];
        for (line, want) in cases {
            assert_eq!(chrome(line.as_bytes()), *want, "{line:?}");
        }
    }

    #[test]
    fn elisions_are_told_from_other_lines() {
        let elisions = [
            "...",
            "        ...",
            "…",
            "[...]",
            "(...)",
            "<...>",
            "# [...]",
            ".....",
            "[snip]",
            "<snip>",
            "--- snip ---",
            "... 200 lines omitted ...",
            "[... 1,024 more lines ...]",
            "--- 12 more lines ---",
            "(output truncated)",
            "... similar lines removed ...",
        ];
        for line in elisions {
            assert!(elision(line.as_bytes()), "{line:?}");
        }
        let others = ["..", "more", "- more -", "Loading...", "done.", "{}", "[]", "---", "", "lines", "3 lines", "retrying...", "... error: snip failed"];
        for line in others {
            assert!(!elision(line.as_bytes()), "{line:?}");
        }
    }

    #[test]
    fn columns_count_characters_and_tab_stops() {
        assert_eq!(columns(b"abc"), 3);
        assert_eq!(columns(b"a\tb"), 9);
        assert_eq!(columns("é│x".as_bytes()), 3);
    }
}

#[cfg(test)]
#[path = "repair_tests.rs"]
mod cases;
