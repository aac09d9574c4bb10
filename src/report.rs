//! The Markdown report: what `reconscope analyze --markdown` writes for a CI
//! job summary or an issue comment. GitHub-flavoured Markdown: findings as
//! a list (a bold headline, its link, the sentence in a `<details>` block),
//! tables for the tabular rest. Log text is either escaped plain text or a
//! code span (literal in GFM), so it can neither break a table or a block
//! nor inject HTML or links; commands to run are code blocks that copy as
//! they are.

use std::collections::BTreeMap;
use std::fmt::Write;

use crate::analyze::findings::{clock, human_duration};
use crate::analyze::{Analysis, Detail, EtcdCoverage, Finding, FindingKind, LogGap, Outcome, Piece, SourceCoverage};
use crate::model::Timestamp;
use crate::words::plural;

/// Options for [`markdown`].
#[derive(Clone, Debug, Default)]
pub struct ReportOptions {
    /// Where the app is served; links to it open a finding's time window.
    pub app_url: Option<String>,
    /// An evidence link (`https://host/app/#ev=…`) for each finding, by its
    /// index in [`Analysis::findings`]; `None` or missing: none, and the
    /// finding links to its time window in the app (with `app_url`).
    pub finding_links: Vec<Option<String>>,
    /// Where the report goes: how long it may be.
    pub destination: Destination,
}

/// Where a report goes, which sets how long it may be: GitHub refuses a
/// longer one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Destination {
    /// A GitHub Actions job summary (the CLI's `--markdown`): 1 MiB a step.
    /// Cut between blocks under [`MAX_BYTES`], the evidence links within
    /// [`LINK_BUDGET_BYTES`].
    #[default]
    JobSummary,
    /// An issue or pull request comment (the app's **Copy Markdown**):
    /// 65,536 characters. Within [`MAX_COMMENT_BYTES`], the tables kept:
    /// fewer findings listed when need be, then as many evidence links as
    /// fit.
    Comment,
}

/// GitHub's job summary allows 1 MiB per step; the report stays under this.
/// A longer report is cut between findings or table rows.
pub const MAX_BYTES: usize = 1_000_000;

/// What the findings' evidence links may take together; the findings after
/// the last one that fits link to their time window instead.
pub const LINK_BUDGET_BYTES: usize = 700 * 1024;

/// Findings listed; the rest are in `analyze --json`.
const MAX_FINDINGS: usize = 50;

const CUT_NOTE: &str = "\n*(report cut to stay under the job-summary size limit)*\n";

/// GitHub takes 65,536 characters in a comment; a report for one stays
/// under this many bytes (a character is a byte or more).
pub const MAX_COMMENT_BYTES: usize = 65_000;

const COMMENT_CUT_NOTE: &str = "\n*(report cut to stay under the comment size limit)*\n";

/// Characters that show as nothing (zero-width, bidi controls as
/// `inert` defines them, soft hyphen): they would hide inside pasted text
/// or reorder it.
fn invisible(c: char) -> bool {
    crate::inert::is_bidi_control(c) || matches!(c, '\u{ad}' | '\u{34f}' | '\u{180e}' | '\u{200b}'..='\u{200d}' | '\u{2060}'..='\u{2064}' | '\u{feff}')
}

/// Escapes text for a Markdown table cell or paragraph: table pipes, HTML,
/// link and emphasis syntax, and line breaks; long text is cut.
pub fn escape(s: &str, max_chars: usize) -> String {
    let mut out = String::with_capacity(s.len().min(max_chars) + 8);
    for (n, c) in s.chars().enumerate() {
        if n >= max_chars {
            out.push('…');
            break;
        }
        match c {
            '|' => out.push_str("\\|"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '\n' | '\r' | '\t' | '\u{2028}' | '\u{2029}' => out.push(' '),
            '\\' | '`' | '*' | '_' | '[' | ']' | '~' => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() || invisible(c) => {}
            c => out.push(c),
        }
    }
    // GitHub turns bare URLs and e-mail addresses into links: a zero-width
    // space after the scheme, in `www.` or before the `@` keeps them text.
    for (from, to) in [("://", "\u{200b}://"), ("www.", "www\u{200b}."), ("@", "\u{200b}@")] {
        if out.contains(from) {
            out = out.replace(from, to);
        }
    }
    out
}

/// Log text as a GFM code span: literal (no emphasis, links or HTML), in a
/// backtick fence longer than any backtick run inside. Line breaks become
/// spaces and control and invisible characters are dropped, so the text
/// stays on its line and copies as it shows; in a table cell `|` is
/// escaped (GFM unescapes it before reading the span). Long text is cut.
pub fn code(s: &str, max_chars: usize, in_table: bool) -> String {
    let mut body = String::with_capacity(s.len().min(max_chars) + 8);
    let mut cut = false;
    for (n, c) in s.chars().enumerate() {
        if n >= max_chars {
            cut = true;
            break;
        }
        match c {
            '\n' | '\r' | '\t' | '\u{2028}' | '\u{2029}' => body.push(' '),
            c if c.is_control() || invisible(c) => {}
            '|' if in_table => body.push_str("\\|"),
            c => body.push(c),
        }
    }
    if body.trim().is_empty() {
        return "–".to_string();
    }
    let fence = "`".repeat(longest_run(&body, '`') + 1);
    // GFM strips one space from each end when both have one, and a
    // backtick at an end would join the fence.
    let pad = if body.starts_with('`') || body.ends_with('`') || (body.starts_with(' ') && body.ends_with(' ')) { " " } else { "" };
    format!("{fence}{pad}{body}{pad}{fence}{}", if cut { "…" } else { "" })
}

/// The longest run of `c` in `s`.
fn longest_run(s: &str, c: char) -> usize {
    let (mut best, mut run) = (0, 0);
    for x in s.chars() {
        run = if x == c { run + 1 } else { 0 };
        best = best.max(run);
    }
    best
}

/// A fenced code block of a command, each line indented by `indent`: the
/// fence is longer than any backtick run inside, and control and invisible
/// characters are dropped, so the block copies and runs as it is.
fn code_block(cmd: &str, indent: &str) -> String {
    let lines: Vec<String> = cmd.lines().map(|l| l.chars().filter(|&c| c == '\t' || !(c.is_control() || invisible(c))).collect()).collect();
    let fence = "`".repeat(lines.iter().map(|l| longest_run(l, '`')).max().unwrap_or(0).max(2) + 1);
    let mut out = format!("{indent}{fence}\n");
    for l in &lines {
        let _ = writeln!(out, "{indent}{l}");
    }
    let _ = writeln!(out, "{indent}{fence}");
    out
}

/// An escaped paragraph that cannot start a block of its own: a leading
/// `#`, `+`, `-`, `=` or `1.` (a heading, list or rule) is escaped, and
/// leading spaces (an indented code block) are dropped.
fn paragraph(escaped: &str) -> String {
    let p = escaped.trim_start();
    let digits = p.bytes().take_while(u8::is_ascii_digit).count();
    if p.starts_with("```") {
        // A code span there would open a fenced code block.
        format!("\u{200b}{p}")
    } else if p.starts_with(['#', '+', '-', '=']) {
        format!("\\{p}")
    } else if digits > 0 && p[digits..].starts_with(['.', ')']) {
        format!("{}\\{}", &p[..digits], &p[digits..])
    } else {
        p.to_string()
    }
}

/// A URL put in a link as it is; only the characters that could end or
/// break the link syntax are left out.
fn link_url(url: &str) -> String {
    url.chars().filter(|&c| !c.is_whitespace() && !c.is_control() && !invisible(c) && !matches!(c, '(' | ')' | '<' | '>' | '"' | '\\')).collect()
}

/// The fragment the app reads to restore a view: a time window.
pub fn view_fragment(start: Timestamp, end: Timestamp) -> String {
    format!("#from={}&to={}", start, end)
}

/// How the report writes a time: the UTC clock, with the date in front
/// when the report spans more than one day.
#[derive(Clone, Copy, Debug)]
struct Clock {
    dated: bool,
}

/// `2026-05-26`, or `Apr 23` when the logs gave no year.
fn date(t: Timestamp) -> String {
    crate::time::format_date(t)
}

/// The sentence after the report's times when some were written with no
/// zone: at what offset they were read, so a reader knows the UTC times
/// rest on it.
fn zone_assumed(a: &Analysis) -> String {
    let Some(z) = a.zone_assumed else { return String::new() };
    let files = crate::words::plural(z.files, "file", "files");
    let told = if z.utc_offset_secs == 0 { "" } else { ", as `--utc-offset` says" };
    format!(" Times written with no zone ({files}) are read {}{told}.", z.read())
}

impl Clock {
    /// The clock for the times the report shows, and the line that states
    /// their zone and date(s).
    fn of(a: &Analysis) -> (Clock, Option<String>) {
        let times = a
            .findings
            .iter()
            .take(MAX_FINDINGS)
            .flat_map(|f| [f.start, f.end])
            .chain(a.reconciles.iter().flat_map(|r| [r.start(), r.last]))
            .chain(a.elections.iter().flat_map(|e| std::iter::once(e.start).chain(e.end)))
            .chain(a.dumps.iter().filter_map(|d| d.time));
        let (mut lo, mut hi) = (None::<Timestamp>, None::<Timestamp>);
        for t in times {
            lo = Some(lo.map_or(t, |l| l.min(t)));
            hi = Some(hi.map_or(t, |h| h.max(t)));
        }
        let (Some(lo), Some(hi)) = (lo, hi) else { return (Clock { dated: false }, None) };
        let (first, last) = (date(lo), date(hi));
        let days = if first == last { format!("on {first}") } else { format!("from {first} to {last}") };
        let dated = first != last;
        let zone = zone_assumed(a);
        if a.year_unknown {
            return (Clock { dated }, Some(format!("Times are UTC, {days}; the logs give no year.{zone}")));
        }
        // A year the logs did not write is said to be a guess.
        let year = if a.year_is_file_time() {
            " (the logs write no year: each time has the latest year that puts it no later than its file's modification time)"
        } else {
            ""
        };
        (Clock { dated }, Some(format!("Times are UTC, {days}{year}.{zone}")))
    }

    fn at(self, t: Timestamp) -> String {
        if self.dated {
            format!("{} {}", date(t), clock(t))
        } else {
            clock(t)
        }
    }

    /// `16:29:30–16:50:06`, or `at 16:55:13` when both ends show the same.
    fn window(self, start: Timestamp, end: Timestamp) -> String {
        let (a, b) = (self.at(start), self.at(end));
        if a == b {
            format!("at {a}")
        } else if self.dated && date(start) == date(end) {
            format!("{a}–{}", clock(end))
        } else {
            format!("{a}–{b}")
        }
    }
}

/// How often a source usually logs, from its normal gap, no finer than its
/// times: `at least every 3s`, or `at least once a second` when the wait
/// is written shorter than the coarser time's tick.
fn how_often(g: crate::time::Gap) -> String {
    if g.within_tick() {
        return match g.tick_name() {
            Some(name) => format!("at least once a {name}"),
            None => format!("at least every {}", human_duration(g.tick)),
        };
    }
    format!("at least every {}", g.honest())
}

/// A finding's duration, at the precision of the coarser of its two
/// timestamps (no finer than the logs wrote them).
fn duration(start: Timestamp, end: Timestamp) -> String {
    crate::time::honest_duration(start, end)
}

/// Writes the report for where it goes (see [`Destination`]).
pub fn markdown(a: &Analysis, opts: &ReportOptions) -> String {
    markdown_with(a, opts, &mut |s: &str| s.to_owned())
}

/// Writes the report with `finish` applied to each of its blocks (the
/// callers redact them: a redaction may lengthen a block, so the report is
/// measured as it will be sent).
pub fn markdown_with(a: &Analysis, opts: &ReportOptions, finish: &mut dyn FnMut(&str) -> String) -> String {
    markdown_with_smaller_links(a, opts, finish, &mut |_, _| None)
}

/// [`markdown_with`], and for a comment, a finding whose evidence link
/// does not fit is given the link `smaller(finding, max_bytes)` makes (an
/// evidence link no longer than `max_bytes`: a smaller slice of the same
/// evidence, which the app says is partial) when there is room for one,
/// rather than a link to its window.
pub fn markdown_with_smaller_links(
    a: &Analysis,
    opts: &ReportOptions,
    finish: &mut dyn FnMut(&str) -> String,
    smaller: &mut dyn FnMut(usize, usize) -> Option<String>,
) -> String {
    let mut blocks = Blocks::of(a, opts, finish);
    match opts.destination {
        Destination::JobSummary => blocks.job_summary(MAX_BYTES, finish),
        Destination::Comment => blocks.comment(MAX_COMMENT_BYTES, finish, smaller),
    }
}

/// A smaller evidence link is asked for only when at least this much room
/// is left for it (a smaller slice would show too little).
const MIN_SMALLER_LINK_BYTES: usize = 2048;

/// In a comment whose room does not hold every whole evidence link, each
/// finding keeps room for a link of at most this many bytes before the
/// findings before it take theirs whole.
const FLOOR_LINK_BYTES: usize = 8 * 1024;

/// The report as whole blocks (a finding, a line of a table or paragraph)
/// while they fit in `max_bytes`; then a note that it was cut.
struct Doc {
    s: String,
    max_bytes: usize,
    cut: bool,
    cut_note: &'static str,
}

impl Doc {
    /// Adds `text` whole, if it fits with room for the note.
    fn block(&mut self, text: &str) {
        if self.cut {
            return;
        }
        if self.s.len() + text.len() + self.cut_note.len() > self.max_bytes {
            self.cut = true;
            return;
        }
        self.s.push_str(text);
    }
}

/// The report's blocks, each written (and finished) once; the report is
/// put together from them for its destination.
struct Blocks<'a> {
    a: &'a Analysis,
    clk: Clock,
    head: String,
    /// Each listed finding: with its time window's link (or none, without
    /// the app), and with its evidence link when it has one.
    findings: Vec<(String, Option<String>)>,
    /// More findings than are listed.
    unlisted: usize,
    has_app: bool,
    /// "What this artifact does not show", the goroutines and the tables,
    /// line by line.
    tail: Vec<String>,
}

/// How the report is put together: which findings are listed, which of
/// them link to their evidence, and the notes that say what was left out.
struct Plan {
    max_bytes: usize,
    cut_note: &'static str,
    listed: usize,
    evidence: Vec<bool>,
    /// Said after the findings: why some have no evidence link.
    links_note: Option<String>,
    /// Said after the findings: where the unlisted ones are.
    more_note: Option<String>,
}

impl<'a> Blocks<'a> {
    fn of(a: &'a Analysis, opts: &ReportOptions, finish: &mut dyn FnMut(&str) -> String) -> Blocks<'a> {
        let (clk, times) = Clock::of(a);
        let app = opts.app_url.as_deref().map(link_url);
        let mut head = String::new();
        let _ = writeln!(head, "## reconscope");
        let _ = writeln!(head);
        // No etcd log: no election found is not "0 elections".
        let elections = if a.elections_unknown() {
            "elections unknown (the artifact holds no etcd log)".to_string()
        } else {
            plural(a.elections.len(), "etcd leader election", "etcd leader elections")
        };
        let _ = writeln!(
            head,
            "{} in {}, {elections}, {}.",
            a.reconciles_text(),
            plural(a.controllers.len(), "controller instance", "controller instances"),
            plural(a.findings.len(), "finding", "findings")
        );
        if let Some(times) = times {
            let _ = writeln!(head);
            let _ = writeln!(head, "{times}");
        }
        if let Some(url) = &app {
            // The first finding, else the reconciles, else the logs' lines;
            // with no time at all, the app's own first view.
            let view = match a.findings.first() {
                Some(f) => Some((f.start, f.end)),
                None => {
                    let lo = a.reconciles.iter().map(|r| r.start()).min().or_else(|| a.coverage.sources.iter().map(|s| s.first).min());
                    let hi = a.reconciles.iter().map(|r| r.last).max().or_else(|| a.coverage.sources.iter().map(|s| s.last).max());
                    lo.zip(hi)
                }
            };
            let fragment = view.map_or(String::new(), |(from, to)| view_fragment(from, to));
            let _ = writeln!(head);
            let _ = writeln!(head, "[Open the timeline]({url}{fragment}) (drop the same artifact on the page).");
        }
        let _ = writeln!(head);
        let _ = writeln!(head, "### Findings");
        let _ = writeln!(head);
        if a.findings.is_empty() {
            head.push_str("None.\n\n");
        }
        let findings = a
            .findings
            .iter()
            .enumerate()
            .take(MAX_FINDINGS)
            .map(|(i, f)| {
                let window = app.as_ref().map_or(String::new(), |url| format!(" · [timeline]({url}{})", view_fragment(f.start, f.end)));
                let evidence = opts.finding_links.get(i).and_then(|l| l.as_deref()).and_then(|l| evidence_item(a, i, clk, l, finish));
                (finish(&finding_item(a, f, i + 1, clk, &window)), evidence)
            })
            .collect();
        let mut s = String::new();
        let _ = write_not_shown(&mut s, a, clk);
        if !a.dumps.is_empty() {
            let _ = write_goroutines(&mut s, a, clk);
        }
        let _ = write_tables(&mut s, a, clk);
        // The findings end with a blank line already.
        let tail = finish(s.strip_prefix('\n').unwrap_or(&s)).split_inclusive('\n').map(str::to_owned).collect();
        Blocks { a, clk, head: finish(&head), findings, unlisted: a.findings.len().saturating_sub(MAX_FINDINGS), has_app: app.is_some(), tail }
    }

    /// The report for a job summary: every listed finding, each with its
    /// evidence link while the links stay within [`LINK_BUDGET_BYTES`]
    /// (the findings after the first that would pass it link to their
    /// window), cut between blocks under `max_bytes`.
    fn job_summary(&self, max_bytes: usize, finish: &mut dyn FnMut(&str) -> String) -> String {
        let mut link_bytes = 0;
        let mut over_budget: Option<usize> = None;
        let mut evidence = vec![false; self.findings.len()];
        for (i, (_, e)) in self.findings.iter().enumerate() {
            let Some(e) = e else { continue };
            if over_budget.is_none() && link_bytes + e.len() <= LINK_BUDGET_BYTES {
                link_bytes += e.len();
                evidence[i] = true;
            } else {
                over_budget.get_or_insert(i);
            }
        }
        let links_note = over_budget.map(|i| {
            let instead = if self.has_app { "link to their time window in the app instead" } else { "have no link" };
            finish(&format!(
                "Findings {} and after {instead}: their evidence links would pass the report's {} KiB budget for links.\n\n",
                i + 1,
                LINK_BUDGET_BYTES / 1024
            ))
        });
        let more_note = (self.unlisted > 0).then(|| format!("{} more findings are in `analyze --json`.\n\n", self.unlisted));
        let plan = Plan { max_bytes, cut_note: CUT_NOTE, listed: self.findings.len(), evidence, links_note, more_note };
        self.put_together(&plan).0
    }

    /// The report for a comment, whole within `max_bytes` where it can be:
    /// as many findings as leave room for the tables (the others are in the
    /// app and in `analyze --json`), then each finding's evidence link, in
    /// order, when it still fits. When some do not, the room for links is
    /// shared (see [`Blocks::share_links`]): every finding keeps room for a
    /// smaller slice of its evidence, and earlier findings take the rest.
    fn comment(&mut self, max_bytes: usize, finish: &mut dyn FnMut(&str) -> String, smaller: &mut dyn FnMut(usize, usize) -> Option<String>) -> String {
        let listed_all = self.findings.len();
        let (unlisted, has_app) = (self.unlisted, self.has_app);
        let more = move |listed: usize| {
            let n = unlisted + listed_all - listed;
            (n > 0).then(|| {
                let where_ = if has_app {
                    "the app lists every finding (open the timeline and drop the same artifact), and so does `analyze --json`"
                } else {
                    "`analyze --json` lists every finding"
                };
                format!(
                    "{} not listed here, to keep the report within a comment's 65,536 characters: {where_}.\n\n",
                    plural(n, "more finding is", "more findings are")
                )
            })
        };
        let no_links = vec![false; listed_all];
        let plan = |listed: usize, evidence: Vec<bool>, links_note: Option<String>| Plan {
            max_bytes,
            cut_note: COMMENT_CUT_NOTE,
            listed,
            evidence,
            links_note,
            more_note: more(listed),
        };
        // The most findings that leave room for the rest, without links.
        let listed = (0..=listed_all).rev().find(|&k| self.put_together(&plan(k, no_links.clone(), None)).1).unwrap_or(listed_all);
        // Every whole link, if they all fit.
        let all: Vec<bool> = (0..listed_all).map(|i| i < listed && self.findings[i].1.is_some()).collect();
        let (doc, whole) = self.put_together(&plan(listed, all.clone(), None));
        if whole {
            return doc;
        }
        // Else the room the links may share: the report with every finding
        // linked to its window and no note, or, when some finding gets no
        // link that way, the note as long as it can get (every finding
        // with evidence named in it).
        let with_evidence: Vec<usize> = (0..listed).filter(|&i| self.findings[i].1.is_some()).collect();
        let worst = self.links_note_for_comment(&with_evidence.iter().map(|i| i + 1).collect::<Vec<_>>(), finish);
        let floors = self.floors(&with_evidence, finish, smaller);
        for note in [None, worst] {
            let (doc, whole) = self.put_together(&plan(listed, no_links.clone(), note.clone()));
            let room = if whole { max_bytes.saturating_sub(doc.len() + COMMENT_CUT_NOTE.len()) } else { 0 };
            let (blocks, left_out) = self.share_links(&with_evidence, &floors, room, finish, smaller);
            if note.is_none() && !left_out.is_empty() {
                continue;
            }
            let evidence: Vec<bool> = (0..listed_all).map(|i| blocks.iter().any(|(j, _)| *j == i)).collect();
            let full: Vec<Option<String>> = self.findings.iter().map(|f| f.1.clone()).collect();
            for (i, b) in blocks {
                self.findings[i].1 = Some(b);
            }
            let note = self.links_note_for_comment(&left_out, finish);
            let (doc, whole) = self.put_together(&plan(listed, evidence, note));
            if whole {
                return doc;
            }
            for (f, e) in self.findings.iter_mut().zip(full) {
                f.1 = e;
            }
        }
        // (Not reached: each block was measured as it is written.)
        let note = self.links_note_for_comment(&with_evidence.iter().map(|i| i + 1).collect::<Vec<_>>(), finish);
        self.put_together(&plan(listed, no_links, note)).0
    }

    /// The block each of `findings` keeps room for when links are shared:
    /// its evidence block when the link is at most [`FLOOR_LINK_BYTES`],
    /// else one with a smaller slice of that size from `smaller`, when it
    /// can make one.
    fn floors(
        &self,
        findings: &[usize],
        finish: &mut dyn FnMut(&str) -> String,
        smaller: &mut dyn FnMut(usize, usize) -> Option<String>,
    ) -> Vec<Option<String>> {
        findings
            .iter()
            .map(|&i| {
                let e = self.findings[i].1.as_deref().unwrap_or_default();
                if link_len(e) <= FLOOR_LINK_BYTES {
                    Some(e.to_owned())
                } else {
                    smaller(i, FLOOR_LINK_BYTES).and_then(|l| evidence_item(self.a, i, self.clk, &l, finish))
                }
            })
            .collect()
    }

    /// Shares `room` bytes (beyond each finding's window link) among the
    /// evidence links of `findings`, in order: each later finding keeps
    /// room for its floor (see [`Blocks::floors`]; `floors` in the order of
    /// `findings`), and each finding takes its whole link when that fits in
    /// the rest, else the largest smaller slice that does (at least
    /// [`MIN_SMALLER_LINK_BYTES`]), else its window's link. Returns the
    /// evidence block of each finding that links to its evidence (its own,
    /// or one with a smaller slice), and the numbers of those that do not.
    fn share_links(
        &self,
        findings: &[usize],
        floors: &[Option<String>],
        room: usize,
        finish: &mut dyn FnMut(&str) -> String,
        smaller: &mut dyn FnMut(usize, usize) -> Option<String>,
    ) -> (Vec<(usize, String)>, Vec<usize>) {
        let mut blocks = Vec::with_capacity(findings.len());
        // What a block costs beyond the finding's window link.
        let extra = |window: &str, block: &str| block.len().saturating_sub(window.len());
        // Room is kept for the floors in order, while they fit.
        let mut kept = 0usize;
        let reserved: Vec<usize> = findings
            .iter()
            .zip(floors)
            .map(|(&i, f)| {
                let r = f.as_deref().map_or(0, |f| extra(&self.findings[i].0, f));
                if kept + r <= room {
                    kept += r;
                    r
                } else {
                    0
                }
            })
            .collect();
        let mut used = 0usize;
        let mut left_out = Vec::new();
        for (k, &i) in findings.iter().enumerate() {
            let later: usize = reserved[k + 1..].iter().sum();
            let avail = room.saturating_sub(used + later);
            let window = self.findings[i].0.clone();
            let e = self.findings[i].1.clone().unwrap_or_default();
            if extra(&window, &e) <= avail {
                used += extra(&window, &e);
                blocks.push((i, e));
                continue;
            }
            // The longest link that fits: the block without its link, then
            // a link in what is left.
            // (The floor, when that is all the room there is.)
            let link_room = (avail + window.len()).saturating_sub(e.len() - link_len(&e));
            let floor = floors[k].clone().filter(|f| reserved[k] > 0 && extra(&window, f) <= avail);
            let larger = floor.is_none() || link_room > FLOOR_LINK_BYTES;
            let made = (larger && link_room >= MIN_SMALLER_LINK_BYTES)
                .then(|| smaller(i, link_room).and_then(|l| evidence_item(self.a, i, self.clk, &l, finish)))
                .flatten()
                .filter(|b| extra(&window, b) <= avail);
            let block = made.or(floor);
            match block {
                Some(b) => {
                    used += extra(&window, &b);
                    blocks.push((i, b));
                }
                None => left_out.push(i + 1),
            }
        }
        (blocks, left_out)
    }

    /// Which findings link to their window, or have no link, for want of
    /// room in a comment.
    fn links_note_for_comment(&self, findings: &[usize], finish: &mut dyn FnMut(&str) -> String) -> Option<String> {
        if findings.is_empty() {
            return None;
        }
        let one = findings.len() == 1;
        let instead = match (self.has_app, one) {
            (true, true) => "links to its time window in the app instead: its evidence link",
            (true, false) => "link to their time window in the app instead: their evidence links",
            (false, true) => "has no link: its evidence link",
            (false, false) => "have no link: their evidence links",
        };
        Some(finish(&format!(
            "{} {} {instead} would not fit in a comment's 65,536 characters.\n\n",
            if one { "Finding" } else { "Findings" },
            numbers(findings)
        )))
    }

    /// The report by `plan`, and whether it is whole (nothing cut).
    fn put_together(&self, plan: &Plan) -> (String, bool) {
        let mut doc = Doc { s: String::with_capacity(plan.max_bytes.min(1 << 20)), max_bytes: plan.max_bytes, cut: false, cut_note: plan.cut_note };
        doc.block(&self.head);
        for (i, (window, evidence)) in self.findings.iter().enumerate().take(plan.listed) {
            match evidence {
                Some(e) if plan.evidence[i] => doc.block(e),
                _ => doc.block(window),
            }
        }
        for note in [&plan.links_note, &plan.more_note].into_iter().flatten() {
            doc.block(note);
        }
        for line in &self.tail {
            doc.block(line);
        }
        if doc.cut {
            doc.s.push_str(plan.cut_note);
        }
        let whole = !doc.cut;
        (doc.s, whole)
    }
}

/// The length of the link in an evidence block.
fn link_len(block: &str) -> usize {
    block.find("[evidence](").map_or(0, |at| block[at + 11..].find(')').unwrap_or(0))
}

/// `3`, `3 and 5`, `3, 4 and 5`.
fn numbers(ns: &[usize]) -> String {
    match ns {
        [] => String::new(),
        [n] => n.to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.iter().map(usize::to_string).collect::<Vec<_>>().join(", ")),
    }
}

/// One finding as an item of an ordered list: a bold headline (kind,
/// object, duration, window) with its link, then its sentence in a
/// `<details>` block.
/// Finding `i`'s block with the evidence link `link` (`None` when nothing
/// of the link is left to write).
fn evidence_item(a: &Analysis, i: usize, clk: Clock, link: &str, finish: &mut dyn FnMut(&str) -> String) -> Option<String> {
    let l = link_url(link);
    (!l.is_empty()).then(|| finish(&finding_item(a, &a.findings[i], i + 1, clk, &format!(" · [evidence]({l})"))))
}

fn finding_item(a: &Analysis, f: &Finding, n: usize, clk: Clock, link: &str) -> String {
    let marker = format!("{n}. ");
    let indent = " ".repeat(marker.len());
    let what = match (&f.object, f.controller) {
        (Some(o), _) => format!(" · {}", code(&o.to_string(), 200, false)),
        (None, Some(c)) => format!(" · {}", escape(&a.controllers[c].name, 80)),
        (None, None) => String::new(),
    };
    // An end within its start's precision tick: an instant.
    let window = if f.is_instant() { format!("at {}", clk.at(f.start)) } else { clk.window(f.start, f.end) };
    // An election overlap's window is its stall's: its length is not the
    // overlap's.
    let when = match f.duration_text() {
        Some(d) if !window.starts_with("at ") && f.kind != FindingKind::ElectionOverlap => format!("{d}, {window}"),
        _ => window,
    };
    let mut out = format!("{marker}**{}{what} · {when}**{link}\n\n", f.kind.as_str());
    let _ = writeln!(out, "{indent}<details><summary>The finding in full</summary>");
    let _ = writeln!(out);
    let fallback;
    let pieces = if f.pieces.is_empty() {
        fallback = [Piece::Text(f.message.clone())];
        &fallback[..]
    } else {
        &f.pieces[..]
    };
    let mut para = String::new();
    let flush = |para: &mut String, out: &mut String| {
        let p = paragraph(para.trim_end());
        if !p.is_empty() {
            let _ = writeln!(out, "{indent}{p}");
            let _ = writeln!(out);
        }
        para.clear();
    };
    for p in pieces {
        match p {
            Piece::Text(t) => para.push_str(&escape(t, 2000)),
            Piece::Code(c) => para.push_str(&code(c, 400, false)),
            Piece::Command(c) => {
                flush(&mut para, &mut out);
                out.push_str(&code_block(c, &indent));
                let _ = writeln!(out);
            }
        }
    }
    flush(&mut para, &mut out);
    let _ = writeln!(out, "{indent}</details>");
    let _ = writeln!(out);
    out
}

/// The slowest reconciles, elections, frequent errors and counts.
fn write_tables(s: &mut String, a: &Analysis, clk: Clock) -> std::fmt::Result {
    writeln!(s)?;
    writeln!(s, "### Slowest reconciles")?;
    writeln!(s)?;
    let mut slow: Vec<usize> = (0..a.reconciles.len()).collect();
    // One-line reconciles have no duration: after every other. The rest by
    // how long they may have run (from a latent start from the worker, an
    // upper bound, said `at most`): a stall whose first line came late
    // leads the table.
    slow.sort_by_key(|&i| {
        let r = &a.reconciles[i];
        (r.is_one_line(), std::cmp::Reverse(r.last.nanos.saturating_sub(r.start().nanos)), i)
    });
    if slow.is_empty() {
        writeln!(s, "None.")?;
    } else {
        writeln!(s, "| duration | controller | object | from | outcome | reconcileID |")?;
        writeln!(s, "|---|---|---|---|---|---|")?;
        let (mut bounded, mut spans) = (false, false);
        for &i in slow.iter().take(10) {
            let r = &a.reconciles[i];
            // A start a line states is known; one from the worker is the
            // earliest it can have begun (`at most`, said once below); with
            // neither, the span of its lines, the least it ran (said once
            // below too).
            let latent = if r.latent_start.is_some() && r.stated_start { " (from the start its log states)" } else { "" };
            bounded |= r.start_is_bound();
            spans |= r.latent_start.is_none() && !r.is_one_line();
            writeln!(
                s,
                "| {}{} | {} | {} | {} | {} | {} |",
                r.duration_text(),
                latent,
                escape(&a.controllers[r.controller].name, 80),
                r.object.as_ref().map_or("–".to_string(), |o| escape(&o.to_string(), 120)),
                clk.at(r.start()),
                r.outcome_text(),
                escape(&r.reconcile_id, 64)
            )?;
        }
        if bounded {
            writeln!(s)?;
            writeln!(
                s,
                "\"At most\" means a reconcile's first line came late: it is timed from when its worker was last free, the earliest it can have begun."
            )?;
        }
        if spans {
            writeln!(s)?;
            writeln!(
                s,
                "A duration with neither \"at most\" nor a start its log states runs from a reconcile's first line to its last: it may have run longer."
            )?;
        }
    }

    writeln!(s)?;
    writeln!(s, "### etcd leader elections")?;
    writeln!(s)?;
    if a.elections.is_empty() {
        match a.coverage.etcd {
            EtcdCoverage::Absent => writeln!(s, "Unknown: the artifact holds no etcd log, so no election found does not mean none happened.")?,
            EtcdCoverage::Present => writeln!(s, "None in the etcd logs.")?,
            EtcdCoverage::Unmeasured => writeln!(s, "None in the input.")?,
        }
    } else {
        writeln!(s, "| cluster | term | from–to | leader | previous | leaderless |")?;
        writeln!(s, "|---|---|---|---|---|---|")?;
        for e in a.elections.iter().take(50) {
            writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} |",
                escape(&e.cluster, 80),
                e.term.map_or("–".to_string(), |t| t.to_string()),
                e.end.map_or(format!("{}–open", clk.at(e.start)), |end| clk.window(e.start, end)),
                e.leader.as_deref().map_or("–".to_string(), |l| escape(l, 40)),
                e.previous_leader.as_deref().map_or("–".to_string(), |l| escape(l, 40)),
                e.leaderless_nanos.map_or("–".to_string(), human_duration)
            )?;
        }
    }

    writeln!(s)?;
    writeln!(s, "### Most frequent reconcile errors")?;
    writeln!(s)?;
    // Per error: how many reconciles, the objects in order of first
    // failure (each once), and whether reconciles of no object failed so.
    #[derive(Default)]
    struct Failed<'a> {
        count: usize,
        /// The error's message and value, as the first reconcile with it
        /// has them (quoted apart, as the log writes them).
        parts: Option<(&'a str, Option<&'a str>)>,
        objects: Vec<&'a crate::analyze::ObjectRef>,
        seen: std::collections::HashSet<&'a crate::analyze::ObjectRef>,
        no_object: bool,
    }
    let mut errors: BTreeMap<&str, Failed<'_>> = BTreeMap::new();
    for r in &a.reconciles {
        if let Some(e) = &r.error {
            let entry = errors.entry(e.as_str()).or_default();
            entry.count += 1;
            entry.parts = entry.parts.or(r.error_parts());
            match r.object.as_deref() {
                Some(o) if entry.seen.insert(o) => entry.objects.push(o),
                Some(_) => {}
                None => entry.no_object = true,
            }
        }
    }
    let mut errors: Vec<_> = errors.into_iter().collect();
    errors.sort_by(|a, b| b.1.count.cmp(&a.1.count).then(a.0.cmp(b.0)));
    if errors.is_empty() {
        writeln!(s, "None.")?;
    } else {
        writeln!(s, "| count | error | objects |")?;
        writeln!(s, "|---|---|---|")?;
        for (msg, f) in errors.iter().take(10) {
            // Named objects first, five at most; a reconcile of no object
            // (a singleton reconciler's) is `–`, as in the other tables,
            // after them when there is room, else counted with the rest.
            let mut shown: Vec<String> = f.objects.iter().take(5).map(|o| escape(&o.to_string(), 80)).collect();
            if f.no_object && shown.len() < 5 {
                shown.push("–".to_owned());
            }
            let all = f.objects.len() + usize::from(f.no_object);
            let more = if all > shown.len() { format!(" and {} more", all - shown.len()) } else { String::new() };
            let quoted = match f.parts {
                Some((m, Some(v))) => format!("{}: {}", code(m, 300, true), code(v, 300, true)),
                _ => code(msg, 300, true),
            };
            writeln!(s, "| {} | {quoted} | {}{more} |", f.count, shown.join(", "))?;
        }
    }

    writeln!(s)?;
    writeln!(s, "### Reconciles per controller instance")?;
    writeln!(s)?;
    if a.controllers.is_empty() {
        writeln!(s, "None.")?;
    } else {
        writeln!(s, "| controller | workers | reconciles | errors |")?;
        writeln!(s, "|---|---|---|---|")?;
        for (ci, c) in a.controllers.iter().enumerate() {
            let errs = a.reconciles.iter().filter(|r| r.controller == ci && r.outcome == Outcome::Error).count();
            writeln!(s, "| {} | {} ({}) | {} | {} |", escape(&c.name, 80), c.workers, c.workers_source, c.reconciles, errs)?;
        }
    }
    write_signals(s, a, clk)
}

/// The throttling windows, saturated workers and the manager's lease
/// losses and restarts, as tables; each only when there is one.
fn write_signals(s: &mut String, a: &Analysis, clk: Clock) -> std::fmt::Result {
    let details = || a.findings.iter().filter_map(|f| f.detail.as_deref().map(|d| (f, d)));
    let throttles: Vec<String> = details()
        .filter_map(|(f, d)| match d {
            Detail::Throttle(t) => Some((f, t)),
            _ => None,
        })
        .map(|(f, t)| {
            let res: Vec<String> = t.resources.iter().take(3).map(|r| format!("{} ({})", escape(&r.resource, 80), r.count)).collect();
            let more = if t.resources.len() > 3 { format!(" and {} more", t.resources.len() - 3) } else { String::new() };
            format!(
                "| {} | {} | {} | {} | {} | {}{more} | {} |",
                clk.window(f.start, f.end),
                escape(crate::model::file_name(&t.source), 80),
                t.waits,
                t.too_many_requests,
                t.longest_wait_nanos.map_or("–".to_string(), crate::analyze::signals::wait_text),
                if res.is_empty() { "–".to_string() } else { res.join(", ") },
                t.reconciles_overlapping
            )
        })
        .collect();
    let header = ["window", "log", "waited", "429", "longest wait", "resources", "reconciles overlapping"];
    write_table(s, "Throttled API requests", &header, &throttles, "windows")?;
    let sats: Vec<String> = details()
        .filter_map(|(f, d)| match d {
            Detail::Saturation(x) => Some((f, x)),
            _ => None,
        })
        .map(|(f, x)| {
            format!(
                "| {} | {} | {} | {} | {} | {} |",
                f.controller.map_or("–".to_string(), |c| escape(&a.controllers[c].name, 80)),
                x.workers,
                f.duration_text().unwrap_or_else(|| duration(f.start, f.end)),
                clk.window(f.start, f.end),
                x.waited.len(),
                x.waited.iter().map(|w| w.estimated_wait_nanos).max().map_or("–".to_string(), human_duration)
            )
        })
        .collect();
    let header = ["controller", "workers", "held", "window", "objects waited", "longest estimated wait"];
    write_table(s, "Saturated workers", &header, &sats, "saturations")?;
    let processes: Vec<String> = details()
        .filter_map(|(_, d)| match d {
            Detail::Lease(l) => Some(format!(
                "| lease lost | {} | {} | {} {} |",
                escape(crate::model::file_name(&l.source), 80),
                clk.at(l.lost),
                code(&l.said, 200, true),
                l.stopped.map_or(String::new(), |t| format!("(stopping from {})", clk.at(t)))
            )),
            Detail::Restart(r) => Some(format!(
                "| restart | {} → {} | {} → {} | previous ended: {}; reconciling resumed {}; {} cut off |",
                escape(crate::model::file_name(&r.previous), 80),
                escape(crate::model::file_name(&r.current), 80),
                clk.at(r.previous_end),
                clk.at(r.started),
                r.previous_exit,
                r.resumed.map_or("never".to_string(), |t| format!("at {}", clk.at(t))),
                r.cut_off.len()
            )),
            _ => None,
        })
        .collect();
    write_table(s, "Manager processes", &["what", "log", "when", ""], &processes, "lost leases and restarts")
}

/// Rows a signal's table lists at most; the rest are in the JSON.
const MAX_TABLE_ROWS: usize = 20;

/// A `###` section with a table of `rows` (each a whole `| … |` line),
/// the first [`MAX_TABLE_ROWS`] of them, then how many more (`what`) the
/// JSON holds. Nothing when there are no rows.
fn write_table(s: &mut String, title: &str, header: &[&str], rows: &[String], what: &str) -> std::fmt::Result {
    if rows.is_empty() {
        return Ok(());
    }
    writeln!(s)?;
    writeln!(s, "### {title}")?;
    writeln!(s)?;
    writeln!(s, "| {} |", header.join(" | "))?;
    writeln!(s, "|{}", "---|".repeat(header.len()))?;
    for r in rows.iter().take(MAX_TABLE_ROWS) {
        writeln!(s, "{r}")?;
    }
    if rows.len() > MAX_TABLE_ROWS {
        writeln!(s)?;
        writeln!(s, "{} more {what} are in `analyze --json`.", rows.len() - MAX_TABLE_ROWS)?;
    }
    Ok(())
}

/// Gaps listed in the report at most; the rest are in the JSON.
const MAX_GAPS: usize = 10;

/// "What this artifact does not show": silences a stall would rest on that
/// the logs do not cover, each source's gaps, and the sources missing.
/// Only when there is something to say.
fn write_not_shown(s: &mut String, a: &Analysis, clk: Clock) -> std::fmt::Result {
    let c = &a.coverage;
    let gaps: Vec<(&SourceCoverage, &LogGap)> = c.sources.iter().flat_map(|src| src.gaps.iter().map(move |g| (src, g))).collect();
    if c.uncovered.is_empty() && gaps.is_empty() && c.missing.is_empty() {
        return Ok(());
    }
    writeln!(s)?;
    writeln!(s, "### What this artifact does not show")?;
    writeln!(s)?;
    for u in &c.uncovered {
        writeln!(s, "- {}", escape(&u.message, 400))?;
    }
    for (src, g) in gaps.iter().take(MAX_GAPS) {
        let name = code(&crate::analyze::coverage::source_name(src), 120, false);
        if g.elided {
            writeln!(
                s,
                "- Lines left out of {name} {} ({}): an elision (`...`) stands there in the excerpt, so what happened then is not shown.",
                clk.window(g.start, g.end),
                duration(g.start, g.end)
            )?;
            continue;
        }
        writeln!(
            s,
            "- No line in {name} {} ({}; it usually logs {}): its log is missing there, or the process was silent.",
            clk.window(g.start, g.end),
            duration(g.start, g.end),
            how_often(src.normal_gap())
        )?;
    }
    if gaps.len() > MAX_GAPS {
        writeln!(s, "- {} more gaps are in `analyze --json` (`coverage.sources[].gaps`).", gaps.len() - MAX_GAPS)?;
    }
    for m in &c.missing {
        writeln!(s, "- {}", escape(&m.message, 400))?;
    }
    Ok(())
}

/// Each goroutine dump: when, how many goroutines, and its busy workers and
/// longest waits with the call each is blocked in.
fn write_goroutines(s: &mut String, a: &Analysis, clk: Clock) -> std::fmt::Result {
    writeln!(s)?;
    writeln!(s, "### Goroutine dumps")?;
    for (di, d) in a.dumps.iter().enumerate().take(10) {
        let when = match (d.time, d.time_source) {
            (Some(t), Some(src)) => format!("taken at {} ({})", clk.at(t), src.describe()),
            _ => "time unknown (give it with `--dump-time`)".to_string(),
        };
        writeln!(s)?;
        writeln!(s, "Dump {}, line {}: {}, {when}.", code(&d.path, 200, false), d.first_line, plural(d.goroutines, "goroutine", "goroutines"))?;
        let mut groups: Vec<&crate::analyze::GoroutineGroup> = a.goroutines.iter().filter(|g| g.dump == di).collect();
        // Busy workers first, then the longest waits; idle workers are
        // waiting for work, not blocked.
        groups.retain(|g| g.role == "busy-worker" || (g.role == "other" && g.max_wait_minutes.is_some_and(|m| m > 0)));
        groups.sort_by_key(|g| (g.role != "busy-worker", std::cmp::Reverse(g.max_wait_minutes), g.group));
        if groups.is_empty() {
            writeln!(s, "No busy controller worker and no long wait in it.")?;
            continue;
        }
        writeln!(s)?;
        writeln!(s, "| goroutines | state | role | controller | blocked or running in | under | reconcile |")?;
        writeln!(s, "|---|---|---|---|---|---|---|")?;
        for g in groups.iter().take(8) {
            let state = match g.max_wait_minutes {
                Some(m) => format!("{}, {m} minutes", g.state),
                None => g.state.clone(),
            };
            writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} | {} |",
                g.count,
                escape(&state, 60),
                g.role,
                g.controller.map_or("–".to_string(), |c| escape(&a.controllers[c].name, 80)),
                g.call.as_ref().map_or("–".to_string(), |f| code(&f.func, 200, true)),
                g.under.as_ref().map_or("–".to_string(), |f| code(&f.func, 200, true)),
                g.reconcile.map_or("–".to_string(), |r| escape(&a.reconciles[r].reconcile_id, 64)),
            )?;
        }
        // The table's rows do not add up to the dump: say what is not in it.
        let listed: u64 = groups.iter().take(8).map(|g| g.count).sum();
        let rest = d.goroutines.saturating_sub(listed);
        if rest > 0 {
            let more =
                if groups.len() > 8 { format!(", and {} more busy or waiting long", plural(groups.len() - 8, "group", "groups")) } else { String::new() };
            let (verb, them) = if rest == 1 { ("is", "it") } else { ("are", "them all") };
            writeln!(
                s,
                "\n{} {verb} not listed (idle workers waiting for work, goroutines with no long wait{more}); `analyze --json` has {them}.",
                plural(rest, "goroutine", "goroutines")
            )?;
        }
    }
    if a.dumps.len() > 10 {
        writeln!(s, "\n{} more dumps are in `analyze --json`.", a.dumps.len() - 10)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::{ObjectRef, Severity};

    /// The job summary's report, cut under `max_bytes`.
    fn markdown_within(a: &Analysis, opts: &ReportOptions, max_bytes: usize) -> String {
        let mut same = |s: &str| s.to_owned();
        Blocks::of(a, opts, &mut same).job_summary(max_bytes, &mut same)
    }

    #[test]
    fn a_table_lists_twenty_rows_and_says_how_many_more() {
        let rows: Vec<String> = (1..=23).map(|i| format!("| {i} | x |")).collect();
        let mut s = String::new();
        write_table(&mut s, "Saturated workers", &["n", "what"], &rows, "saturations").unwrap();
        let lines: Vec<&str> = s.lines().collect();
        assert_eq!(lines[..5], ["", "### Saturated workers", "", "| n | what |", "|---|---|"]);
        assert_eq!(lines[5], "| 1 | x |");
        assert_eq!(lines[24], "| 20 | x |");
        assert_eq!(lines[25..], ["", "3 more saturations are in `analyze --json`."]);
        let mut s = String::new();
        write_table(&mut s, "Saturated workers", &["n"], &rows[..20], "saturations").unwrap();
        assert!(!s.contains("more"), "{s}");
        let mut s = String::new();
        write_table(&mut s, "Saturated workers", &["n"], &[], "saturations").unwrap();
        assert_eq!(s, "", "no rows, no section");
    }

    #[test]
    fn escapes_tables_html_and_links() {
        assert_eq!(escape("a|b <script>alert(1)</script> [x](http://e)", 200), "a\\|b &lt;script&gt;alert(1)&lt;/script&gt; \\[x\\](http\u{200b}://e)");
        assert_eq!(escape("see www.example.com", 200), "see www\u{200b}.example.com");
        assert_eq!(escape("mail me@example.com", 200), "mail me\u{200b}@example.com");
        assert_eq!(escape("line\nbreak", 200), "line break");
        assert_eq!(escape("zero\u{200b}width\u{202e} esc\u{1b}", 200), "zerowidth esc");
        assert_eq!(escape("arabic\u{61c} mark\u{2066}", 200), "arabic mark");
        assert_eq!(escape("abcdef", 3), "abc…");
    }

    #[test]
    fn code_spans() {
        let check = |input: &str, in_table: bool, want: &str| assert_eq!(code(input, 40, in_table), want, "{input:?}");
        check("plain", false, "`plain`");
        check("a `b` c", false, "``a `b` c``");
        check("```", false, "```` ``` ````");
        check("`x", false, "`` `x ``");
        check(" x ", false, "`  x  `");
        check("a|b", false, "`a|b`");
        check("a|b", true, "`a\\|b`");
        check("line\nbreak\r\ttab", false, "`line break  tab`");
        check("http://127.0.0.1:6060/x", false, "`http://127.0.0.1:6060/x`");
        check("zero\u{200b}width\u{1b}[31m", false, "`zerowidth[31m`");
        check("<script>", false, "`<script>`");
        check("\n", false, "–");
        assert_eq!(code("abcdef", 3, false), "`abc`…");
    }

    #[test]
    fn paragraphs_start_no_block() {
        for (p, want) in [
            ("# h", "\\# h"),
            ("- x", "\\- x"),
            ("12. x", "12\\. x"),
            ("3) x", "3\\) x"),
            ("  x", "x"),
            ("1999 was", "1999 was"),
            ("```a``` b", "\u{200b}```a``` b"),
        ] {
            assert_eq!(paragraph(p), want);
        }
    }

    #[test]
    fn code_blocks_fence_longer_than_any_run() {
        assert_eq!(code_block("a\nb", "  "), "  ```\n  a\n  b\n  ```\n");
        assert_eq!(code_block("x ```` y\u{200b}", ""), "`````\nx ```` y\n`````\n");
    }

    fn ts(s: &str) -> Timestamp {
        crate::time::parse_rfc3339(s.as_bytes(), false, 0).unwrap().ts
    }

    fn finding(start: &str, end: &str, message: &str) -> Finding {
        Finding {
            kind: FindingKind::SlowReconcile,
            severity: Severity::Warning,
            controller: None,
            object: Some(ObjectRef { namespace: Some("ns".into()), name: "o".into() }),
            start: ts(start),
            end: ts(end),
            reconciles: vec![],
            elections: vec![],
            message: message.to_string(),
            blocked: None,
            silence: None,
            detail: None,
            pieces: vec![],
        }
    }

    #[test]
    fn times_and_durations() {
        let check = |findings: Vec<Finding>, want: &[&str]| {
            let a = Analysis { findings, ..Default::default() };
            let md = markdown(&a, &ReportOptions::default());
            for w in want {
                assert!(md.contains(w), "{w:?} in\n{md}");
            }
        };
        check(vec![finding("2026-05-26T16:55:13Z", "2026-05-26T16:55:13.000071Z", "m")], &["Times are UTC, on 2026-05-26.", "· at 16:55:13**"]);
        check(vec![finding("2026-05-26T16:29:30Z", "2026-05-26T16:50:06Z", "m")], &["· 20m36s, 16:29:30–16:50:06**"]);
        // Whole seconds in the logs: no milliseconds in the duration.
        check(vec![finding("2026-05-26T16:29:30Z", "2026-05-26T16:29:31.400Z", "m")], &["· 1s, 16:29:30–16:29:31**"]);
        check(vec![finding("2026-05-26T16:29:30.100Z", "2026-05-26T16:29:31.400Z", "m")], &["· 1s, 16:29:30–16:29:31**"]);
        check(vec![finding("2026-05-26T16:29:30.100Z", "2026-05-26T16:29:30.400Z", "m")], &["· at 16:29:30**"]);
        check(
            vec![finding("2026-05-26T23:59:50Z", "2026-05-27T00:00:10Z", "m"), finding("2026-05-27T08:00:00Z", "2026-05-27T08:00:30Z", "n")],
            &["Times are UTC, from 2026-05-26 to 2026-05-27.", "· 20s, 2026-05-26 23:59:50–2026-05-27 00:00:10**", "· 30s, 2026-05-27 08:00:00–08:00:30**"],
        );
    }

    /// A report cut short ends between findings, with every `<details>`
    /// closed and no link cut, and says it was cut.
    #[test]
    fn a_cut_report_ends_at_a_finding() {
        let findings: Vec<Finding> =
            (0..40).map(|i| finding("2026-05-26T16:00:00Z", "2026-05-26T16:10:00Z", &format!("finding {i} {}", "x".repeat(500)))).collect();
        let a = Analysis { findings, ..Default::default() };
        let links: Vec<Option<String>> = (0..40).map(|i| Some(format!("https://h/app/#ev={i}{}", "A".repeat(300)))).collect();
        let opts = ReportOptions { app_url: Some("https://h/app/".into()), finding_links: links, ..ReportOptions::default() };
        let whole = markdown(&a, &opts);
        assert!(!whole.contains("report cut"));
        for max in [3000, 7777, 12_345] {
            let md = markdown_within(&a, &opts, max);
            assert!(md.len() <= max, "{} > {max}", md.len());
            assert!(md.ends_with(CUT_NOTE), "{md}");
            assert!(whole.starts_with(&md[..md.len() - CUT_NOTE.len()]), "a prefix of the whole report");
            let items = md.matches("<details>").count();
            assert!(items > 0);
            assert_eq!(md.matches("</details>").count(), items);
            assert_eq!(md.matches("](https://h/app/#ev=").count(), items, "one whole link each");
            assert!(md[..md.len() - CUT_NOTE.len()].ends_with("</details>\n\n"), "{md}");
        }
    }

    #[test]
    fn links_beyond_the_budget_open_the_window_instead() {
        let findings: Vec<Finding> = (0..5).map(|i| finding("2026-05-26T16:00:00Z", "2026-05-26T16:10:00Z", &format!("finding {i}"))).collect();
        let a = Analysis { findings, ..Default::default() };
        let big = |c: char| Some(format!("https://h/app/#ev={}", c.to_string().repeat(300 * 1024)));
        // The second finding has none; the fourth would pass the budget.
        let opts = ReportOptions {
            app_url: Some("https://h/app/".into()),
            finding_links: vec![big('a'), None, big('c'), big('d'), big('e')],
            ..ReportOptions::default()
        };
        let md = markdown(&a, &opts);
        assert!(md.len() < MAX_BYTES);
        let links: Vec<&str> = md.lines().filter(|l| l.contains("**")).map(|l| l.rsplit(" · ").next().unwrap()).collect();
        assert_eq!(links.len(), 5);
        assert!(links[0].starts_with("[evidence](https://h/app/#ev=aaa"));
        assert!(links[1].starts_with("[timeline](https://h/app/#from=2026-05-26T16:00:00Z&to=2026-05-26T16:10:00Z)"));
        assert!(links[2].starts_with("[evidence](https://h/app/#ev=ccc"));
        assert!(links[3].starts_with("[timeline]("), "{:.40}", links[3]);
        assert!(links[4].starts_with("[timeline]("), "{:.40}", links[4]);
        assert_eq!(md.matches("evidence links would pass").count(), 1, "said once");
        assert!(md.contains("Findings 4 and after link to their time window in the app instead"));
        // Without the app: no link at all, and fewer findings than links is fine.
        let md = markdown(&a, &ReportOptions { app_url: None, finding_links: vec![Some("https://h/app/#ev=x".into())], ..ReportOptions::default() });
        assert_eq!(md.matches("](").count(), 1, "{md}");
    }

    /// Smaller slices as a caller makes them: finding `i`'s link for `max`
    /// bytes is `max - 1` long (`#ev=<i>BBB…`); each request is noted.
    fn stand_in_slices(asked: &mut Vec<(usize, usize)>) -> impl FnMut(usize, usize) -> Option<String> + '_ {
        move |i, max| {
            asked.push((i, max));
            Some(format!("https://h/app/#ev={i}{}", "B".repeat(max - 20)))
        }
    }

    #[test]
    fn a_report_for_a_comment_fits_a_comment_and_keeps_its_tables() {
        let comment = |opts: &ReportOptions| ReportOptions { destination: Destination::Comment, ..opts.clone() };
        let fits = |md: &str| md.chars().count() <= 65_536 && md.len() <= MAX_COMMENT_BYTES;
        let heads = |md: &str| {
            md.lines().filter(|l| l.contains("**")).map(|l| l.rsplit(" · ").next().unwrap().split('(').next().unwrap().to_string()).collect::<Vec<_>>()
        };
        // Five findings with evidence links of 20, 20, 32, 4 and 4 KiB (the
        // incident's sizes): a job summary takes them all, a comment all
        // but the third, which links to its window.
        let five: Vec<Finding> = (0..5).map(|i| finding("2026-05-26T16:00:00Z", "2026-05-26T16:10:00Z", &format!("finding {i}"))).collect();
        let a = Analysis { findings: five, ..Default::default() };
        let links: Vec<Option<String>> =
            [20, 20, 32, 4, 4].iter().enumerate().map(|(i, k)| Some(format!("https://h/app/#ev={i}{}", "A".repeat(k * 1024)))).collect();
        let opts = ReportOptions { app_url: Some("https://h/app/".into()), finding_links: links, ..ReportOptions::default() };
        let summary = markdown(&a, &opts);
        assert!(summary.len() > 80 * 1024, "{}", summary.len());
        assert_eq!(heads(&summary), ["[evidence]"; 5]);
        let md = markdown(&a, &comment(&opts));
        assert!(fits(&md), "{}", md.len());
        assert_eq!(heads(&md), ["[evidence]", "[evidence]", "[timeline]", "[evidence]", "[evidence]"]);
        assert!(
            md.contains("\n\nFinding 3 links to its time window in the app instead: its evidence link would not fit in a comment's 65,536 characters.\n\n"),
            "{md:.3000}"
        );
        // The tables after the findings are the job summary's.
        let tail = |md: &str| md[md.find("### Slowest reconciles").unwrap()..].to_string();
        assert_eq!(tail(&md), tail(&summary));

        // Given smaller slices of the evidence: the third gets one in the
        // room the others leave (asked for no more than that room, after
        // the floors of the three links over 8 KiB), and no note; the
        // report still fits. With none to give, as above.
        let mut asked = Vec::new();
        let md2 = markdown_with_smaller_links(&a, &comment(&opts), &mut |s: &str| s.to_owned(), &mut stand_in_slices(&mut asked));
        assert!(fits(&md2), "{}", md2.len());
        assert_eq!(heads(&md2), ["[evidence]"; 5]);
        assert!(md2.contains("#ev=0AAA") && md2.contains("#ev=1AAA") && md2.contains("#ev=2BBB") && !md2.contains("instead"), "{md2:.3000}");
        assert_eq!(asked.len(), 4, "{asked:?}");
        assert_eq!(asked[..3], [(0, FLOOR_LINK_BYTES), (1, FLOOR_LINK_BYTES), (2, FLOOR_LINK_BYTES)]);
        let (i, max) = asked[3];
        assert!(i == 2 && (FLOOR_LINK_BYTES..32 * 1024).contains(&max), "{asked:?}");
        // All of the room: a link one byte longer would not have fitted.
        assert!(md2.len() + COMMENT_CUT_NOTE.len() + 21 > MAX_COMMENT_BYTES, "{} of {MAX_COMMENT_BYTES}", md2.len());
        assert_eq!(tail(&md2), tail(&summary));
        let md3 = markdown_with_smaller_links(&a, &comment(&opts), &mut |s: &str| s.to_owned(), &mut |_, _| None);
        assert_eq!(md3, md);

        // Links of 31, 31 and 20 KiB: the first two whole would leave the
        // third too little for a slice (a window's link, before). Room is
        // kept for the third's 8 KiB first, so the second is a smaller
        // slice of the room left, and each finding links to its evidence.
        let three: Vec<Finding> = (0..3).map(|i| finding("2026-05-26T16:00:00Z", "2026-05-26T16:10:00Z", &format!("finding {i}"))).collect();
        let a = Analysis { findings: three, ..Default::default() };
        let links: Vec<Option<String>> = [31, 31, 20].iter().enumerate().map(|(i, k)| Some(format!("https://h/app/#ev={i}{}", "A".repeat(k * 1024)))).collect();
        let opts = ReportOptions { app_url: Some("https://h/app/".into()), finding_links: links, ..ReportOptions::default() };
        let mut asked = Vec::new();
        let md = markdown_with_smaller_links(&a, &comment(&opts), &mut |s: &str| s.to_owned(), &mut stand_in_slices(&mut asked));
        assert!(fits(&md), "{}", md.len());
        assert_eq!(heads(&md), ["[evidence]"; 3]);
        assert!(md.contains(&format!("#ev=0{}", "A".repeat(31 * 1024))), "the first whole");
        let link_of = |n: char| md.split(&format!("#ev={n}")).nth(1).unwrap().split(')').next().unwrap().len() + "https://h/app/#ev=0".len();
        assert!(md.contains("#ev=1BBB") && (20 * 1024..31 * 1024).contains(&link_of('1')), "{}", link_of('1'));
        // (The stand-in slice for `max` bytes is `max - 1` long.)
        assert_eq!((md.contains("#ev=2BBB"), link_of('2')), (true, FLOOR_LINK_BYTES - 1));
        assert!(!md.contains("instead"));
        assert_eq!(asked.iter().filter(|&&(i, _)| i == 2).count(), 1, "the third's floor is its link: {asked:?}");
        // The greedy way would have left it out: the first two whole leave
        // less than a smaller slice's least.
        let md = markdown_with_smaller_links(&a, &comment(&opts), &mut |s: &str| s.to_owned(), &mut |_, _| None);
        assert_eq!(heads(&md), ["[evidence]", "[evidence]", "[timeline]"]);
        assert!(MAX_COMMENT_BYTES - md.len() < MIN_SMALLER_LINK_BYTES, "{}", md.len());

        // Fifty findings of 2 KB each: fewer are listed, so that the tables
        // stay whole; the report says how many are not, and where they are.
        let many: Vec<Finding> =
            (0..50).map(|i| finding("2026-05-26T16:00:00Z", "2026-05-26T16:10:00Z", &format!("finding {i} {}", "x".repeat(2000)))).collect();
        let a = Analysis { findings: many, ..Default::default() };
        let opts = ReportOptions { app_url: Some("https://h/app/".into()), ..ReportOptions::default() };
        let summary = markdown(&a, &opts);
        assert!(summary.len() > 100_000 && !summary.contains("report cut"), "{}", summary.len());
        let md = markdown(&a, &comment(&opts));
        assert!(fits(&md) && !md.contains("report cut"), "{}", md.len());
        let listed = heads(&md).len();
        assert!((20..50).contains(&listed), "{listed}");
        let unlisted = format!(
            "{} more findings are not listed here, to keep the report within a comment's 65,536 characters: the app lists every finding (open the timeline and drop the same artifact), and so does `analyze --json`.",
            50 - listed
        );
        assert!(md.contains(&unlisted), "{md}");
        assert_eq!(tail(&md), tail(&summary));
        // As many as fit: one more would not.
        let item = |n: usize| summary.find(&format!("\n{n}. **")).unwrap();
        let next = &summary[item(listed + 1)..item(listed + 2)];
        assert!(md.len() + next.len() > MAX_COMMENT_BYTES, "{} + {}", md.len(), next.len());

        // Measured as it is sent: a redaction that lengthens every block.
        let mut longer = |s: &str| s.replace('x', "[redacted]");
        let md = markdown_with(&a, &comment(&opts), &mut longer);
        assert!(fits(&md) && !md.contains("report cut"), "{}", md.len());
        assert!(heads(&md).len() < listed, "fewer findings fit once redacted");
        // Without the app: no link, and the unlisted are in the JSON.
        let md = markdown(&a, &comment(&ReportOptions::default()));
        assert!(fits(&md) && md.contains("`analyze --json` lists every finding."), "{}", md.len());
    }
}
