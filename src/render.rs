//! Where a timeline becomes a picture, as an SVG document written by hand:
//! the CLI's `--svg` and `--png` and the app's "Export SVG" / "Export PNG"
//! all call [`svg`]. It draws what the app's canvas chart draws
//! (`src/bin/app/chart/`), through the same `timescale::TimeScale`, in the app's light colours: bars coloured by
//! outcome, latent starts hatched, single-line reconciles as ticks, election
//! bands (the leaderless part darker) labelled with their term, lifecycle
//! markers, finding outlines labelled with kind and duration, goroutine dump
//! lines, plus a title (artifact, date, zone) and a legend.
//!
//! Text from logs is written as escaped SVG text, never as markup, and
//! characters XML 1.0 forbids (or that reorder text, like U+202E) are
//! replaced, so every document is well-formed. Text widths are estimated
//! from DejaVu Sans metrics (the font the CLI's PNG uses; the browser's
//! usual sans fonts are narrower), so no font is needed to lay out.

use std::fmt::Write as _;

use crate::analyze::{Analysis, Outcome};
use crate::layout::{MarkerKind, Timeline};
use chrono::{Datelike, Timelike};

use crate::time::{human_duration, NANOS_PER_SEC};
use crate::words::plural;

/// What part of the timeline to draw, and how big.
#[derive(Clone, Debug, PartialEq)]
pub struct View {
    pub width_px: u32,
    /// Time window; `None`: the whole timeline.
    pub window: Option<(i64, i64)>,
    /// Offset east of UTC for times shown, in seconds (0: UTC).
    pub utc_offset_secs: i32,
    /// What was analysed (the artifact's or files' names), for the title.
    pub title: Option<String>,
}

/// 1200 px: scaled to the ~900 px GitHub gives an image in a comment, the
/// smallest text (13 px) is still about 10 px and the row labels 11 px.
pub const DEFAULT_WIDTH: u32 = 1200;

impl Default for View {
    fn default() -> Self {
        View { width_px: DEFAULT_WIDTH, window: None, utc_offset_secs: 0, title: None }
    }
}

/// The font stack of every text; widths are estimated for the first.
pub const FONT_FAMILY: &str = "DejaVu Sans, Verdana, Arial, Helvetica, sans-serif";
const FONT: f64 = 15.0;
const FONT_SMALL: f64 = 13.0;
const FONT_TITLE: f64 = 18.0;
const ROW_H: f64 = 24.0;
const BAR_PAD: f64 = 4.0;
const TITLE_H: f64 = 56.0;
/// A small line of the heading after the first (the title's caveats when
/// they are drawn under it, the counts when a narrow picture wraps them).
const HEADING_LINE_H: f64 = 18.0;
const AXIS_H: f64 = 28.0;
const LANE_H: f64 = 19.0;
/// A log source's lane (see [`crate::layout::SourceLane`]).
const SOURCE_H: f64 = 14.0;
/// At most this many lines of election, finding and dump labels.
const MAX_LANES: usize = 8;
const RIGHT_PAD: f64 = 14.0;
/// The label column: at least this wide, at most this share of the width.
pub const MIN_LABEL_W: f64 = 140.0;
pub const MAX_LABEL_SHARE: f64 = 0.36;
/// Left padding of a controller row's label, and of an object row's.
const INDENT: [f64; 2] = [8.0, 22.0];

/// The app's light theme (`www/style.css`, `prefers-color-scheme: light`).
pub struct Palette {
    pub bg: &'static str,
    pub grid: &'static str,
    pub text: &'static str,
    pub muted: &'static str,
    pub row_alt: &'static str,
    pub group_bg: &'static str,
    pub success: &'static str,
    pub requeue: &'static str,
    pub error: &'static str,
    pub unfinished: &'static str,
    /// Election bands: this colour at `band_opacity`, the leaderless part at
    /// `leaderless_opacity`.
    pub band: &'static str,
    pub band_opacity: f64,
    pub leaderless_opacity: f64,
    /// Election labels (a darker shade of `band`).
    pub band_text: &'static str,
    pub highlight_stroke: &'static str,
    pub highlight_opacity: f64,
    pub marker: &'static str,
    pub marker_delete: &'static str,
}

pub const LIGHT: Palette = Palette {
    bg: "#ffffff",
    grid: "#dde2e7",
    text: "#1c2127",
    muted: "#5b6570",
    row_alt: "#f6f8fa",
    group_bg: "#eaf0f6",
    success: "#2e8b57",
    requeue: "#c08a00",
    error: "#d32f2f",
    unfinished: "#6b7a90",
    band: "#7850dc",
    band_opacity: 0.10,
    leaderless_opacity: 0.26,
    band_text: "#5a35b5",
    highlight_stroke: "#d32f2f",
    highlight_opacity: 0.07,
    marker: "#0b62b0",
    marker_delete: "#b3261e",
};

fn outcome_colour(p: &Palette, o: Outcome) -> &'static str {
    match o {
        Outcome::Success => p.success,
        Outcome::Requeue => p.requeue,
        Outcome::Error => p.error,
        Outcome::Unfinished => p.unfinished,
    }
}

// ----- text -----

/// Advance widths of DejaVu Sans, U+0020..=U+007E, in 1/1000 em.
const DEJAVU: [u16; 95] = [
    318, 401, 460, 838, 636, 950, 780, 275, 390, 390, 500, 838, 318, 361, 318, 337, 636, 636, 636, 636, 636, 636, 636, 636, 636, 636, 337, 337, 838, 838, 838,
    531, 1000, 684, 686, 698, 770, 632, 575, 775, 752, 295, 295, 656, 557, 863, 748, 787, 603, 787, 695, 635, 611, 732, 684, 989, 685, 611, 685, 390, 337, 390,
    838, 500, 500, 613, 635, 550, 635, 615, 352, 635, 634, 278, 278, 579, 278, 974, 634, 612, 635, 635, 411, 521, 392, 634, 592, 818, 592, 592, 525, 636, 337,
    636, 838,
];
/// The same for DejaVu Sans Bold.
const DEJAVU_BOLD: [u16; 95] = [
    348, 456, 521, 838, 696, 1002, 872, 306, 457, 457, 523, 838, 380, 415, 380, 365, 696, 696, 696, 696, 696, 696, 696, 696, 696, 696, 400, 400, 838, 838, 838,
    580, 1000, 774, 762, 734, 830, 683, 683, 821, 837, 372, 372, 775, 637, 995, 837, 850, 733, 850, 770, 720, 682, 812, 774, 1103, 771, 724, 725, 457, 365,
    457, 838, 500, 500, 675, 716, 593, 716, 678, 435, 716, 712, 343, 343, 665, 343, 1042, 712, 687, 716, 716, 493, 595, 478, 712, 652, 924, 645, 652, 582, 712,
    365, 712, 838,
];

/// The estimated width of `s` drawn at `size` px (DejaVu Sans; outside
/// ASCII on the wide side: Latin letters 0.72 em, U+FFFD 1.12 em, the rest
/// a full em, as most scripts and CJK take).
pub fn text_width(s: &str, size: f64, bold: bool) -> f64 {
    let table = if bold { &DEJAVU_BOLD } else { &DEJAVU };
    let mut em = 0u32;
    for c in s.chars() {
        let u = c as u32;
        em += match u {
            0x20..=0x7e => table[(u - 0x20) as usize] as u32,
            0xb7 => 380,
            0x2013 => 540,
            0xa0..=0x24f => 760,
            0xfffd => 1120,
            _ => 1080,
        };
    }
    em as f64 / 1000.0 * size
}

/// `s` if it fits in `max_w` px, else cut in the middle with `…`, keeping
/// its start and a little more of its end (where names differ most:
/// `tenant-test/kubernetes-…-latest-version`).
pub fn middle_cut(s: &str, max_w: f64, size: f64, bold: bool) -> String {
    middle_cut_by(s, max_w, |t| text_width(t, size, bold))
}

/// [`middle_cut`] with widths measured by `width` (the app's canvas
/// measures its own text).
pub fn middle_cut_by(s: &str, max_w: f64, width: impl Fn(&str) -> f64) -> String {
    middle_cut_apart_by(s, SharedEnds::default(), max_w, width)
}

/// How many characters a label shares with the most alike of the other
/// labels it is drawn among: at its start and at its end ([`shared_ends`]).
/// A cut that keeps no character past both shows the same text as that
/// other label's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SharedEnds {
    pub prefix_chars: usize,
    pub suffix_chars: usize,
}

/// Each label's [`SharedEnds`] among the other labels of `labels`, each
/// pair compared (for the few labels a cut made the same). A label the same
/// as it is not another.
pub fn shared_ends(labels: &[&str]) -> Vec<SharedEnds> {
    let chars: Vec<Vec<char>> = labels.iter().map(|l| l.chars().collect()).collect();
    let mut out = vec![SharedEnds::default(); labels.len()];
    for (i, a) in chars.iter().enumerate() {
        for b in chars.iter().filter(|b| *b != a) {
            let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
            let suffix = a.iter().rev().zip(b.iter().rev()).take_while(|(x, y)| x == y).count();
            out[i].prefix_chars = out[i].prefix_chars.max(prefix);
            out[i].suffix_chars = out[i].suffix_chars.max(suffix);
        }
    }
    out
}

/// [`middle_cut_by`], keeping a few of the characters that tell the label
/// apart from the others it shares its ends with (`shared`): two object
/// names alike at both ends (`tenant-test/…-latest-version-konnectivity-
/// certificate` and `…-previous-version-…`) would otherwise be cut to the
/// same text. The end the kept part can show more of them at is moved.
pub fn middle_cut_apart_by(s: &str, shared: SharedEnds, max_w: f64, width: impl Fn(&str) -> f64) -> String {
    if width(s) <= max_w {
        return s.to_string();
    }
    let chars: Vec<char> = s.chars().collect();
    if chars.len() < 2 {
        return "…".to_string();
    }
    // Characters past a shared end to show, at most.
    const APART: usize = 8;
    let split = |keep: usize| -> (usize, usize) {
        let tail = (keep.div_ceil(2) + keep / 10).min(keep);
        let head = keep - tail;
        let (p, q) = (shared.prefix_chars, shared.suffix_chars);
        if head > p || tail > q {
            return (head, tail);
        }
        // Apart by the end: the tail reaches past the shared suffix;
        // by the start: the head past the shared prefix.
        let by_end = (keep.min(q + APART)).saturating_sub(q);
        let by_start = (keep.min(p + APART)).saturating_sub(p);
        if by_end == 0 && by_start == 0 {
            (head, tail)
        } else if by_end >= by_start {
            let tail = keep.min(q + APART);
            (keep - tail, tail)
        } else {
            let head = keep.min(p + APART);
            (head, keep - head)
        }
    };
    let cut = |keep: usize| -> String {
        let (head, tail) = split(keep);
        let mut t: String = chars[..head].iter().collect();
        t.push('…');
        t.extend(&chars[chars.len() - tail..]);
        t
    };
    // The most characters kept that fit (the width grows with `keep`).
    let (mut lo, mut hi) = (0usize, chars.len() - 1);
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if width(&cut(mid)) <= max_w {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    cut(lo)
}

/// A group row's label (`widget · 4 workers · at most 4 at once`) cut to
/// `max_w` by dropping its last ` · ` parts whole, then, if its first part
/// alone is too wide, cutting that in the middle: a count cut in half
/// says nothing. Labels without ` · ` are cut as [`middle_cut_by`] does.
pub fn parts_cut_by(s: &str, max_w: f64, width: impl Fn(&str) -> f64) -> String {
    if width(s) <= max_w {
        return s.to_string();
    }
    let parts: Vec<&str> = s.split(" · ").collect();
    for k in (1..parts.len()).rev() {
        let t = parts[..k].join(" · ");
        if width(&t) <= max_w {
            return t;
        }
    }
    middle_cut_by(parts[0], max_w, width)
}

/// A row's label cut to `max_w`: a group row's ([`parts_cut_by`]) by its
/// parts, any other in the middle.
pub fn row_label_cut_by(s: &str, depth: u8, max_w: f64, width: impl Fn(&str) -> f64) -> String {
    if depth == 0 {
        parts_cut_by(s, max_w, width)
    } else {
        middle_cut_by(s, max_w, width)
    }
}

/// Every row's label as every painter shows it: `label(r)` cut to
/// `max_w(depth)` by [`row_label_cut_by`], then the labels of other rows
/// that came out the same cut again apart ([`middle_cut_apart_by`], with
/// the ends they share among themselves). `width(text, depth)`.
pub fn row_labels_cut_by(
    rows: &[crate::layout::Row],
    label: impl Fn(usize) -> String,
    max_w: impl Fn(u8) -> f64,
    width: impl Fn(&str, u8) -> f64,
) -> Vec<String> {
    let full: Vec<String> = (0..rows.len()).map(label).collect();
    let mut cut: Vec<String> = full.iter().zip(rows).map(|(l, r)| row_label_cut_by(l, r.depth, max_w(r.depth), |t| width(t, r.depth))).collect();
    // The cut rows, by what they show.
    let mut same: std::collections::BTreeMap<&str, Vec<usize>> = std::collections::BTreeMap::new();
    for (i, r) in rows.iter().enumerate() {
        if r.depth > 0 && cut[i] != full[i] {
            same.entry(cut[i].as_str()).or_default().push(i);
        }
    }
    // Rows that show the same for different labels (a few: their ends are
    // compared pair by pair; past 64, left as they are).
    let groups: Vec<Vec<usize>> = same.into_values().filter(|g| g.len() <= 64 && g.iter().any(|&i| full[i] != full[g[0]])).collect();
    for g in groups {
        let shared = shared_ends(&g.iter().map(|&i| full[i].as_str()).collect::<Vec<_>>());
        for (&i, sh) in g.iter().zip(shared) {
            let depth = rows[i].depth;
            cut[i] = middle_cut_apart_by(&full[i], sh, max_w(depth), |t| width(t, depth));
        }
    }
    cut
}

/// Font size and weight of a row's label.
fn row_font(depth: u8) -> (f64, bool) {
    if depth == 0 {
        (FONT, true)
    } else {
        (FONT, false)
    }
}

/// The label column's width: the widest label (with its indent and
/// padding), between [`MIN_LABEL_W`] and `MAX_LABEL_SHARE` of `width`.
/// Labels wider than that are cut with [`middle_cut`].
pub fn label_column_width<'a>(labels: impl IntoIterator<Item = (&'a str, u8)>, width: f64) -> f64 {
    let max = (width * MAX_LABEL_SHARE).max(MIN_LABEL_W);
    let mut widest: f64 = 0.0;
    for (label, depth) in labels {
        let (size, bold) = row_font(depth);
        let w = INDENT[depth.min(1) as usize] + text_width(&clean(label), size, bold) + 10.0;
        widest = widest.max(w);
        if widest >= max {
            break;
        }
    }
    widest.clamp(MIN_LABEL_W, max).ceil()
}

/// Characters XML 1.0 forbids (C0 controls other than tab and newline,
/// U+FFFE, U+FFFF), C1 controls, and bidi controls (U+202E would reverse
/// the text after it) become U+FFFD; tabs and newlines become spaces.
pub fn clean(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '\t' | '\n' | '\r' => ' ',
            '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}' | '\u{fffe}' | '\u{ffff}' => '\u{fffd}',
            c if crate::inert::is_bidi_control(c) => '\u{fffd}',
            c => c,
        })
        .collect()
}

/// Text for an SVG text node or attribute value: cleaned and escaped.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in clean(s).chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// A title for loaded files: their common top folder (a dropped
/// `cozyreport/`), the one name, or the first and how many more.
pub fn artifact_name(names: &[String]) -> Option<String> {
    let first = names.first()?;
    let top = |n: &str| n.split('/').next().unwrap_or("").to_string();
    if names.len() > 1 && first.contains('/') && names.iter().all(|n| n.contains('/') && top(n) == top(first)) {
        return Some(top(first));
    }
    Some(match names.len() {
        1 => first.clone(),
        n => format!("{first} and {} more", n - 1),
    })
}

// ----- time -----

use crate::timescale::{tick_label, zone, TimeScale};

/// (year, month, day, seconds of day, nanos) of an instant at an offset.
fn civil(nanos: i64, offset_secs: i32) -> (i64, u32, u32, i64, i64) {
    let t = crate::time::utc(nanos).with_timezone(&zone(offset_secs));
    (i64::from(t.year()), t.month(), t.day(), i64::from(t.num_seconds_from_midnight()), i64::from(t.nanosecond()))
}

/// `2026-05-26`, or `Apr 23` when the logs gave no year.
fn date(nanos: i64, offset_secs: i32, yearless: bool) -> String {
    let (y, m, d, _, _) = civil(nanos, offset_secs);
    if yearless {
        return crate::time::month_day(m, d);
    }
    format!("{y:04}-{m:02}-{d:02}")
}

fn hms(sod: i64) -> String {
    format!("{:02}:{:02}:{:02}", sod / 3600, sod % 3600 / 60, sod % 60)
}

pub use crate::time::zone_name;

/// `2026-05-26 16:21:04 – 16:44:10 UTC` (the end's date too when it differs):
/// whole seconds, the start rounded down and the end up, so the range holds
/// what is drawn and claims no precision of its own. Without a year in
/// the logs: `Apr 23 08:04:00 – 08:05:10 UTC, no year in the logs`.
pub fn time_range(t0: i64, t1: i64, offset_secs: i32, yearless: bool) -> String {
    let end = t1.div_euclid(NANOS_PER_SEC) * NANOS_PER_SEC;
    let end = if end < t1 { end + NANOS_PER_SEC } else { end };
    let (_, _, _, s0, _) = civil(t0, offset_secs);
    let (_, _, _, s1, _) = civil(end, offset_secs);
    let (d0, d1) = (date(t0, offset_secs, yearless), date(end, offset_secs, yearless));
    let end_text = if d0 == d1 { hms(s1) } else { format!("{d1} {}", hms(s1)) };
    let no_year = if yearless { ", no year in the logs" } else { "" };
    format!("{d0} {} – {end_text} {}{no_year}", hms(s0), zone_name(offset_secs))
}

// ----- drawing -----

/// A label above the rows: an election's term, a finding's kind and
/// duration, a goroutine dump.
struct Note {
    x: f64,
    text: String,
    colour: &'static str,
    bold: bool,
    /// Where a connector goes down to (a finding's box top), if anywhere.
    to_y: Option<f64>,
    /// Placed in this order: findings 0, elections 1, dumps 2.
    priority: u8,
}

/// Puts notes in lanes, findings first (then elections, then dumps), each
/// from the left in the first lane where it overlaps no other. Returns
/// (lane, text x) per note; `None`: no room left.
fn stack(notes: &[Note], right: f64) -> Vec<Option<(usize, f64)>> {
    let mut order: Vec<usize> = (0..notes.len()).collect();
    order.sort_by(|&a, &b| notes[a].priority.cmp(&notes[b].priority).then(notes[a].x.total_cmp(&notes[b].x)));
    // Per lane, the (left, right) spans taken.
    let mut lanes: Vec<Vec<(f64, f64)>> = Vec::new();
    let mut out = vec![None; notes.len()];
    for i in order {
        let n = &notes[i];
        let w = text_width(&n.text, FONT_SMALL, n.bold);
        let x = (n.x + 3.0).min(right - w).max(0.0);
        let free = |spans: &Vec<(f64, f64)>| spans.iter().all(|&(l, r)| x + w + 10.0 <= l || r + 10.0 <= x);
        let lane = match lanes.iter().position(free) {
            Some(l) => l,
            None if lanes.len() < MAX_LANES => {
                lanes.push(Vec::new());
                lanes.len() - 1
            }
            None => continue,
        };
        lanes[lane].push((x, x + w));
        out[i] = Some((lane, x));
    }
    out
}

fn num(v: f64) -> String {
    let r = (v * 10.0).round() / 10.0;
    if r == r.trunc() {
        format!("{}", r as i64)
    } else {
        format!("{r:.1}")
    }
}

/// An SVG being written.
struct Doc {
    out: String,
}

impl Doc {
    fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, attrs: &str) {
        let _ = writeln!(self.out, r#"<rect x="{}" y="{}" width="{}" height="{}" {attrs}/>"#, num(x), num(y), num(w.max(0.0)), num(h.max(0.0)));
    }

    fn line(&mut self, x0: f64, y0: f64, x1: f64, y1: f64, attrs: &str) {
        let _ = writeln!(self.out, r#"<line x1="{}" y1="{}" x2="{}" y2="{}" {attrs}/>"#, num(x0), num(y0), num(x1), num(y1));
    }

    /// Text with its baseline's middle at `y`; `attrs` adds fill, weight...
    fn text(&mut self, x: f64, y: f64, size: f64, text: &str, attrs: &str) {
        let _ = writeln!(self.out, r#"<text x="{}" y="{}" font-size="{}" {attrs}>{}</text>"#, num(x), num(y + size * 0.36), num(size), esc(text));
    }
}

/// Draws the timeline as an SVG document.
/// A finding box's label: its kind and duration, no finer than the
/// finding's timestamps (`expired-context at 16:55:13` for an instant).
pub fn highlight_label(a: &Analysis, h: &crate::layout::Highlight) -> String {
    match a.findings.get(h.finding as usize) {
        Some(f) => match f.duration_text() {
            Some(d) => format!("{} {d}", h.kind.as_str()),
            None => format!("{} at {}", h.kind.as_str(), crate::analyze::findings::clock(f.start)),
        },
        None => format!("{} {}", h.kind.as_str(), human_duration(h.end_nanos.saturating_sub(h.start_nanos))),
    }
}

/// An election band's label: `etcd tenant-root: term 8 · 3s leaderless`
/// (the app's etcd lane writes the same).
pub fn election_label(a: &Analysis, b: &crate::layout::Band) -> String {
    let e = a.elections.get(b.election as usize);
    let mut text = match e.and_then(|e| e.term) {
        Some(term) => format!("term {term}"),
        None => "election".to_string(),
    };
    if let Some(l) = b.leaderless_start_nanos {
        text.push_str(&format!(" · {} leaderless", human_duration(b.end_nanos.saturating_sub(l))));
    }
    if let Some(e) = e {
        text = format!("{}: {text}", e.cluster);
    }
    text
}

/// How the times were read where the logs did not say: a year they did not
/// write is a guess, and so is a zone.
fn time_caveats(a: &Analysis) -> Vec<String> {
    let mut out = Vec::new();
    if a.year_is_file_time() {
        out.push("the year from file times".to_string());
    }
    if let Some(z) = a.zone_assumed {
        out.push(format!("times with no zone read {}", z.read()));
    }
    out
}

/// The caveats as lines of their own, the first capitalised.
fn caveat_lines(caveats: &[String], max_w: f64) -> Vec<String> {
    let mut lines = fill_lines(caveats, ", ", max_w);
    if let Some(first) = lines.first_mut() {
        if let Some(c) = first.get(..1) {
            *first = format!("{}{}", c.to_ascii_uppercase(), &first[1..]);
        }
    }
    lines
}

/// `parts` joined by `sep` in lines of at most `max_w` px in the small
/// font: as many to a line as fit (a part wider than a line is cut in the
/// middle).
fn fill_lines(parts: &[String], sep: &str, max_w: f64) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for part in parts {
        let joined = lines.last().map(|l| format!("{l}{sep}{part}"));
        match joined {
            Some(j) if text_width(&j, FONT_SMALL, false) <= max_w => *lines.last_mut().unwrap() = j,
            _ => lines.push(middle_cut(part, max_w, FONT_SMALL, false)),
        }
    }
    lines
}

pub fn svg(a: &Analysis, t: &Timeline, view: &View) -> String {
    let p = &LIGHT;
    let (t0, t1) = view.window.unwrap_or((t.start_nanos, t.end_nanos.max(t.start_nanos.saturating_add(NANOS_PER_SEC))));
    let t1 = t1.max(t0.saturating_add(1));
    let width = (view.width_px as f64).max(600.0).round();
    let off = zone(view.utc_offset_secs).local_minus_utc();
    let label_w = label_column_width(t.rows.iter().map(|r| (r.label.as_str(), r.depth)), width);
    let (px0, px1) = (label_w, width - RIGHT_PAD);
    let plot_w = px1 - px0;
    let scale = TimeScale::new(t0, t1, px0, plot_w);
    let x_of = |n: i64| -> f64 { scale.x(n) };
    let cx = |x: f64| x.clamp(px0, px1);
    let visible = |s: i64, e: i64| scale.overlaps(s, e);

    // The title: what, when, where; and how the times were read when the
    // logs did not say (beside the times, or under them when the title
    // would not hold them).
    let what = clean(view.title.as_deref().map(str::trim).filter(|s| !s.is_empty()).unwrap_or("reconscope timeline"));
    let range = if t.rows.is_empty() && t.start_nanos == 0 && t.end_nanos == 0 { zone_name(off) } else { time_range(t0, t1, off, a.year_unknown) };
    let caveats = time_caveats(a);
    let when = std::iter::once(range.clone()).chain(caveats.iter().cloned()).collect::<Vec<_>>().join(", ");
    let caveat_lines = if caveats.is_empty() || text_width(&format!("{what} · {when}"), FONT_TITLE, true) <= width - 24.0 {
        Vec::new()
    } else {
        caveat_lines(&caveats, width - 16.0)
    };
    let shown_when = if caveat_lines.is_empty() { when.clone() } else { range };
    // What was found, on as many lines as the width needs.
    // No etcd log: no election found is not "0 elections" (as the Markdown says it).
    let elections = a.elections_text();
    let counts = [
        format!("reconscope: {}", a.reconciles_text()),
        plural(a.controllers.len(), "controller instance", "controller instances"),
        elections,
        plural(a.findings.len(), "finding", "findings"),
    ];
    let count_lines = fill_lines(&counts, " · ", width - 16.0);

    // Rows, with the y of each bar and highlight known before the notes.
    let axis_top = TITLE_H + HEADING_LINE_H * (caveat_lines.len() + count_lines.len() - 1) as f64;
    let lanes_top = axis_top + AXIS_H;
    let mut notes: Vec<Note> = Vec::new();
    for b in t.bands.iter().filter(|b| visible(b.start_nanos, b.end_nanos)) {
        let text = election_label(a, b);
        notes.push(Note { x: cx(x_of(b.start_nanos)), text, colour: p.band_text, bold: true, to_y: None, priority: 1 });
    }
    for d in t.dumps.iter().filter(|d| visible(d.at_nanos, d.at_nanos)) {
        notes.push(Note { x: x_of(d.at_nanos), text: "goroutine dump".into(), colour: p.text, bold: false, to_y: None, priority: 2 });
    }
    let first_finding_note = notes.len();
    for h in t.highlights.iter().filter(|h| visible(h.start_nanos, h.end_nanos)) {
        let text = highlight_label(a, h);
        // The box top is filled in once the rows' place is known.
        notes.push(Note {
            x: cx(x_of(h.start_nanos)),
            text,
            colour: p.highlight_stroke,
            bold: true,
            to_y: Some(h.rows.first().map_or(-1.0, |&r| r as f64)),
            priority: 0,
        });
    }
    let placed = stack(&notes, px1);
    let lanes = placed.iter().flatten().map(|&(l, _)| l + 1).max().unwrap_or(0);
    let unlabelled = placed[first_finding_note..].iter().filter(|p| p.is_none()).count();
    // Log sources' lanes under the notes (those with a gap, a lost lease
    // or a restart first), and a line counting the others.
    let sources_top = lanes_top + lanes as f64 * LANE_H + if lanes > 0 { 6.0 } else { 0.0 };
    let more_sources = !t.sources.is_empty() && t.sources_total as usize > t.sources.len();
    let sources_h = if t.sources.is_empty() { 0.0 } else { (t.sources.len() + usize::from(more_sources)) as f64 * SOURCE_H + 4.0 };
    let rows_top = sources_top + sources_h;
    let row_y = |r: usize| rows_top + r as f64 * ROW_H;
    let rows_bottom = row_y(t.rows.len().max(if t.rows.is_empty() { 2 } else { 0 }));
    for n in &mut notes[first_finding_note..] {
        n.to_y = n.to_y.map(|r| if r < 0.0 { rows_top } else { row_y(r as usize) });
    }

    // The legend, laid out in lines.
    let mut legend = legend_items(p);
    // The lanes' keys, when the chart has them.
    if !t.in_flight.is_empty() {
        legend.push(LegendItem {
            text: "workers busy (in a controller's row; red: all)",
            draw: |d, p, x, y| {
                d.rect(x, y - 1.0, 8.0, 7.0, &format!(r#"fill="{}" fill-opacity="0.22""#, p.muted));
                d.rect(x + 8.0, y - 6.0, 8.0, 12.0, &format!(r#"fill="{}" fill-opacity="0.45""#, p.error));
            },
        });
    }
    if !t.sources.is_empty() {
        legend.push(LegendItem {
            text: "log: lines, gap with none",
            draw: |d, p, x, y| {
                d.rect(x, y - 4.5, 7.0, 9.0, &format!(r#"fill="{}" fill-opacity="0.35""#, p.muted));
                d.rect(x + 8.5, y - 4.0, 7.0, 8.0, &format!(r#"fill="none" stroke="{}" stroke-dasharray="3 2""#, p.error));
            },
        });
        if t.sources.iter().any(|s| !s.leader.is_empty()) {
            legend.push(LegendItem { text: "leader lease held", draw: |d, p, x, y| d.rect(x, y - 2.5, 16.0, 5.0, &format!(r#"fill="{}""#, p.band_text)) });
        }
    }
    let mut legend_lines: Vec<Vec<(f64, &LegendItem)>> = vec![Vec::new()];
    let mut lx = 8.0;
    for item in &legend {
        let w = 22.0 + text_width(item.text, FONT_SMALL, false) + 16.0;
        if lx + w > width - 8.0 && lx > 8.0 {
            legend_lines.push(Vec::new());
            lx = 8.0;
        }
        legend_lines.last_mut().unwrap().push((lx, item));
        lx += w;
    }
    let legend_top = rows_bottom + 14.0;
    let height = (legend_top + legend_lines.len() as f64 * 20.0 + if unlabelled > 0 { 20.0 } else { 0.0 } + 6.0).ceil();

    let shown = middle_cut(&what, width - 24.0 - text_width(&format!(" · {shown_when}"), FONT_TITLE, true), FONT_TITLE, true);
    let mut d = Doc { out: String::new() };
    let _ = writeln!(
        d.out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="{FONT_FAMILY}">"#,
        w = num(width),
        h = num(height)
    );
    // The document's title (hover, screen readers): the heading, never cut.
    let _ = writeln!(d.out, "<title>{}</title>", esc(&format!("{what} · {when}")));
    let mut defs = String::from("<defs>\n");
    for o in Outcome::ALL {
        let (c, name) = (outcome_colour(p, o), o.as_str());
        let _ = writeln!(
            defs,
            r#"<pattern id="latent-{name}" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="{c}" fill-opacity="0.12"/><rect width="2.5" height="6" fill="{c}"/></pattern>"#
        );
    }
    defs.push_str("</defs>\n");
    d.out.push_str(&defs);
    d.rect(0.0, 0.0, width, height, &format!(r#"fill="{}""#, p.bg));

    d.text(8.0, 19.0, FONT_TITLE, &format!("{shown} · {shown_when}"), &format!(r#"font-weight="bold" fill="{}""#, p.text));
    for (i, line) in caveat_lines.iter().enumerate() {
        d.text(8.0, 40.0 + HEADING_LINE_H * i as f64, FONT_SMALL, line, &format!(r#"fill="{}""#, p.text));
    }
    for (i, line) in count_lines.iter().enumerate() {
        d.text(8.0, 42.0 + HEADING_LINE_H * (caveat_lines.len() + i) as f64, FONT_SMALL, line, &format!(r#"fill="{}""#, p.muted));
    }

    // Row stripes, the whole width.
    for (r, row) in t.rows.iter().enumerate() {
        let fill = if row.depth == 0 {
            Some(p.group_bg)
        } else if r % 2 == 1 {
            Some(p.row_alt)
        } else {
            None
        };
        if let Some(f) = fill {
            d.rect(0.0, row_y(r), width, ROW_H, &format!(r#"fill="{f}""#));
        }
    }

    // Time axis: grid lines and labels that never collide, no finer
    // than the times were written.
    let step = scale.tick_step(90.0).max(t.precision_nanos);
    let mut last_right = f64::NEG_INFINITY;
    for tick in scale.ticks(step, off) {
        let x = x_of(tick);
        let label = tick_label(tick, step, off, a.year_unknown);
        let w = text_width(&label, FONT_SMALL, false);
        if x - w / 2.0 >= last_right + 10.0 && x + w / 2.0 <= width - 2.0 {
            d.line(x, axis_top + AXIS_H - 6.0, x, rows_bottom, &format!(r#"stroke="{}""#, p.grid));
            d.text(x, axis_top + AXIS_H / 2.0 - 3.0, FONT_SMALL, &label, &format!(r#"text-anchor="middle" fill="{}""#, p.text));
            last_right = x + w / 2.0;
        }
    }
    d.line(0.0, axis_top + AXIS_H - 0.5, width, axis_top + AXIS_H - 0.5, &format!(r#"stroke="{}""#, p.grid));

    // Reconciles in flight in a controller's group row, against its
    // workers: a step as high as the share of the workers busy, red where
    // all of them are.
    for l in &t.in_flight {
        let y = row_y(l.row as usize);
        for (s, e, level) in l.steps().filter(|st| st.2 > 0 && visible(st.0, st.1)) {
            let (x0, x1) = (cx(x_of(s)), cx(x_of(e)));
            let full = u32::from(level) >= l.workers;
            let h = (ROW_H - 4.0) * (f64::from(level) / f64::from(l.workers.max(1))).min(1.0);
            let (c, o) = if full { (p.error, 0.45) } else { (p.muted, 0.22) };
            d.rect(x0, y + ROW_H - 2.0 - h, (x1 - x0).max(0.5), h, &format!(r#"fill="{c}" fill-opacity="{o}" data-in-flight="{level}""#));
        }
    }

    // The log sources' lanes: from the first line to the last, gaps left
    // open and outlined, the leader lease shaded.
    for (i, src) in t.sources.iter().enumerate() {
        let y = sources_top + i as f64 * SOURCE_H;
        let (bh, by) = (SOURCE_H - 5.0, y + 2.5);
        let mut title = format!("log {}", src.path);
        match src.gaps.len().saturating_sub(src.elided.len()) {
            0 => {}
            1 => title.push_str(": 1 gap with no line (the log may be missing there)"),
            n => title.push_str(&format!(": {n} gaps with no line (the log may be missing there)")),
        }
        match src.elided.len() {
            0 => {}
            1 => title.push_str(": lines left out at 1 elision (`...`) of the excerpt"),
            n => title.push_str(&format!(": lines left out at {n} elisions (`...`) of the excerpt")),
        }
        if !src.leader.is_empty() {
            title.push_str("; dark: it held its leader lease");
        }
        if let Some(e) = &src.ended {
            title.push_str(&format!("; {e}"));
        }
        let _ = writeln!(d.out, "<g data-source=\"{}\"><title>{}</title>", esc(&clean(&src.path)), esc(&clean(&title)));
        d.text(
            8.0,
            y + SOURCE_H / 2.0,
            FONT_SMALL,
            &middle_cut(&format!("log {}", clean(&src.label)), label_w - 16.0, FONT_SMALL, false),
            &format!(r#"fill="{}""#, p.muted),
        );
        for (s0, s1) in src.spans().into_iter().filter(|&(a, b)| visible(a, b)) {
            let (x0, x1) = (cx(x_of(s0)), cx(x_of(s1)));
            d.rect(x0, by, (x1 - x0).max(1.5), bh, &format!(r#"fill="{}" fill-opacity="0.35""#, p.muted));
        }
        for &(gs, ge) in src.gaps.iter().filter(|g| visible(g.0, g.1)) {
            let (x0, x1) = (cx(x_of(gs)), cx(x_of(ge)));
            d.rect(x0, by, (x1 - x0).max(1.5), bh, &format!(r#"fill="none" stroke="{}" stroke-dasharray="3 2" data-gap="1""#, p.error));
        }
        for &(ls, le) in src.leader.iter().filter(|l| visible(l.0, l.1)) {
            let (x0, x1) = (cx(x_of(ls)), cx(x_of(le)));
            d.rect(x0, by + bh / 4.0, (x1 - x0).max(1.5), bh / 2.0, &format!(r#"fill="{}" data-leader="1""#, p.band_text));
        }
        d.out.push_str("</g>\n");
    }
    if more_sources {
        let y = sources_top + t.sources.len() as f64 * SOURCE_H + SOURCE_H / 2.0;
        let more = format!("{} more log sources", t.sources_total as usize - t.sources.len());
        d.text(px0 + 4.0, y, FONT_SMALL, &more, &format!(r#"fill="{}""#, p.muted));
    }

    // Election bands, from the axis down across every row; the leaderless
    // part darker.
    for b in t.bands.iter().filter(|b| visible(b.start_nanos, b.end_nanos)) {
        let (x0, x1) = (cx(x_of(b.start_nanos)), cx(x_of(b.end_nanos)));
        let fill = |o: f64| format!(r#"fill="{}" fill-opacity="{o}""#, p.band);
        d.rect(x0, lanes_top, (x1 - x0).max(2.0), rows_bottom - lanes_top, &fill(p.band_opacity));
        if let Some(l) = b.leaderless_start_nanos {
            let xl = cx(x_of(l));
            d.rect(xl, lanes_top, (x1 - xl).max(2.0), rows_bottom - lanes_top, &fill(p.leaderless_opacity));
        }
        // The band's mark in the axis, as the app draws it.
        d.rect(x0, axis_top + AXIS_H - 5.0, (x1 - x0).max(2.0), 4.0, &fill(p.leaderless_opacity));
    }

    // Finding highlights over their rows (each run of adjacent rows one box).
    for h in t.highlights.iter().filter(|h| visible(h.start_nanos, h.end_nanos)) {
        let (x0, x1) = (cx(x_of(h.start_nanos)), cx(x_of(h.end_nanos)));
        let x1 = x1.max(x0 + 3.0);
        let mut runs: Vec<(f64, f64)> = Vec::new();
        if h.rows.is_empty() {
            runs.push((rows_top, rows_bottom));
        } else {
            let mut i = 0;
            while i < h.rows.len() {
                let mut j = i;
                while j + 1 < h.rows.len() && h.rows[j + 1] == h.rows[j] + 1 {
                    j += 1;
                }
                runs.push((row_y(h.rows[i] as usize), row_y(h.rows[j] as usize) + ROW_H));
                i = j + 1;
            }
        }
        for (ya, yb) in runs {
            let attrs = format!(
                r#"fill="{c}" fill-opacity="{o}" stroke="{c}" stroke-width="1.5" data-finding="{f}""#,
                c = p.highlight_stroke,
                o = p.highlight_opacity,
                f = h.finding
            );
            d.rect(x0 + 0.75, ya + 0.75, x1 - x0 - 1.5, yb - ya - 1.5, &attrs);
        }
    }

    // Bars: latent parts hatched (with an outline), the rest solid; a
    // single-line reconcile is a tick.
    for (r, row) in t.rows.iter().enumerate() {
        let y = row_y(r) + BAR_PAD / 2.0;
        let bh = ROW_H - BAR_PAD;
        for bar in &t.bars[row.bar_start as usize..row.bar_end as usize] {
            if !visible(bar.start_nanos, bar.end_nanos) {
                continue;
            }
            let c = outcome_colour(p, bar.outcome);
            let (xs, xf, xe) = (cx(x_of(bar.start_nanos)), cx(x_of(bar.first_nanos)), cx(x_of(bar.end_nanos)));
            if bar.tick {
                d.rect(xs - 1.0, y, 2.0, bh, &format!(r#"fill="{c}""#));
                continue;
            }
            // Under a pixel wide it would be an outline of nothing.
            if xf - xs >= 1.5 {
                let attrs = format!(r#"fill="url(#latent-{})" stroke="{c}" stroke-opacity="0.6" data-reconcile="{}""#, bar.outcome.as_str(), bar.reconcile);
                d.rect(xs + 0.5, y + 0.5, xf - xs - 1.0, bh - 1.0, &attrs);
            }
            d.rect(xf, y, (xe - xf).max(2.0), bh, &format!(r#"fill="{c}""#));
        }
    }

    // Lifecycle markers, as the app draws them.
    for m in &t.markers {
        if !visible(m.at_nanos, m.at_nanos) {
            continue;
        }
        let (x, cy) = (x_of(m.at_nanos) + m.kind.offset_px(), row_y(m.row as usize) + ROW_H / 2.0);
        marker(&mut d, p, m.kind, x, cy);
    }

    // Goroutine dumps: a dashed line across every row.
    for dl in t.dumps.iter().filter(|dl| visible(dl.at_nanos, dl.at_nanos)) {
        let x = x_of(dl.at_nanos);
        d.line(x, lanes_top, x, rows_bottom, &format!(r#"stroke="{}" stroke-width="1.5" stroke-dasharray="4 3""#, p.text));
    }

    // Notes above the rows, with a connector down to a finding's box.
    let lane_y = |lane: usize| lanes_top + lane as f64 * LANE_H + LANE_H / 2.0;
    for (n, place) in notes.iter().zip(&placed) {
        if let (Some((lane, _)), Some(to)) = (*place, n.to_y) {
            let x = n.x + 0.75;
            d.line(x, lane_y(lane) + 4.0, x, to, &format!(r#"stroke="{}" stroke-width="1" stroke-dasharray="2 2""#, n.colour));
        }
    }
    for (n, place) in notes.iter().zip(&placed) {
        let Some((lane, tx)) = *place else { continue };
        let y = lane_y(lane);
        let w = text_width(&n.text, FONT_SMALL, n.bold);
        // A backing so labels stay readable over bands and grid lines.
        d.rect(tx - 2.0, y - LANE_H / 2.0 + 1.0, w + 4.0, LANE_H - 2.0, &format!(r#"fill="{}" fill-opacity="0.85""#, p.bg));
        let weight = if n.bold { r#" font-weight="bold""# } else { "" };
        d.text(tx, y, FONT_SMALL, &n.text, &format!(r#"fill="{}"{weight}"#, n.colour));
    }

    // Row labels, over a plain column.
    d.rect(0.0, rows_top, label_w, rows_bottom - rows_top, &format!(r#"fill="{}""#, p.bg));
    let shown = row_labels_cut_by(
        &t.rows,
        |r| clean(&t.rows[r].label),
        |depth| label_w - INDENT[depth.min(1) as usize] - 8.0,
        |text, depth| {
            let (size, bold) = row_font(depth);
            text_width(text, size, bold)
        },
    );
    for (r, row) in t.rows.iter().enumerate() {
        let y = row_y(r);
        if row.depth == 0 {
            d.rect(0.0, y, label_w, ROW_H, &format!(r#"fill="{}""#, p.group_bg));
        } else if r % 2 == 1 {
            d.rect(0.0, y, label_w, ROW_H, &format!(r#"fill="{}""#, p.row_alt));
        }
        let (size, bold) = row_font(row.depth);
        let indent = INDENT[row.depth.min(1) as usize];
        let (full, shown) = (clean(&row.label), &shown[r]);
        let attrs = if bold { format!(r#"fill="{}" font-weight="bold""#, p.text) } else { format!(r#"fill="{}""#, p.text) };
        if *shown != full {
            let _ = writeln!(d.out, "<g><title>{}</title>", esc(&full));
            d.text(indent, y + ROW_H / 2.0, size, shown, &attrs);
            d.out.push_str("</g>\n");
        } else {
            d.text(indent, y + ROW_H / 2.0, size, shown, &attrs);
        }
    }
    d.line(label_w - 0.5, rows_top, label_w - 0.5, rows_bottom, &format!(r#"stroke="{}""#, p.grid));
    // The date and zone in the label column's axis corner, as the app has it.
    d.text(8.0, axis_top + AXIS_H / 2.0 - 3.0, FONT_SMALL, &format!("{} {}", date(t0, off, a.year_unknown), zone_name(off)), &format!(r#"fill="{}""#, p.muted));

    // Over the bands drawn across the rows, right of the labels.
    if t.rows.is_empty() {
        let msg = if a.reconciles.is_empty() {
            "No reconciles to draw: the inputs hold no controller-runtime reconcile logs."
        } else {
            "The timeline layout is empty."
        };
        d.text(px0 + 4.0, rows_top + ROW_H, FONT, msg, &format!(r#"fill="{}""#, p.muted));
    }

    // Legend.
    for (i, line) in legend_lines.iter().enumerate() {
        let y = legend_top + i as f64 * 20.0 + 10.0;
        for &(x, item) in line {
            (item.draw)(&mut d, p, x, y);
            d.text(x + 22.0, y, FONT_SMALL, item.text, &format!(r#"fill="{}""#, p.text));
        }
    }
    if unlabelled > 0 {
        let y = legend_top + legend_lines.len() as f64 * 20.0 + 10.0;
        let s = format!("{} outlined without a label", plural(unlabelled, "more finding", "more findings"));
        d.text(8.0, y, FONT_SMALL, &s, &format!(r#"fill="{}""#, p.muted));
    }
    d.out.push_str("</svg>\n");
    d.out
}

/// Turns SVGs from [`svg`] into PNG with the system's fonts (natively
/// only; the app has the browser's).
#[cfg(not(target_arch = "wasm32"))]
pub struct Rasterizer {
    opt: resvg::usvg::Options<'static>,
}

#[cfg(not(target_arch = "wasm32"))]
impl Rasterizer {
    /// Loads the system's fonts. No usable font is an error: a picture
    /// without its text would be no use.
    pub fn new() -> Result<Rasterizer, String> {
        let mut opt = resvg::usvg::Options::default();
        let db = opt.fontdb_mut();
        db.load_system_fonts();
        // The family every text asks for first, else a common sans, else
        // any; also what a text falls back to.
        let families: Vec<String> = db.faces().flat_map(|f| f.families.iter().map(|(n, _)| n.clone())).collect();
        let family = ["DejaVu Sans", "Verdana", "Liberation Sans", "Arial", "Noto Sans", "FreeSans", "Helvetica"]
            .iter()
            .find(|f| families.iter().any(|n| n == *f))
            .map(|f| f.to_string())
            .or_else(|| families.first().cloned())
            .ok_or("no font found to draw the text with (install one, e.g. Debian's fonts-dejavu-core)")?;
        db.set_sans_serif_family(family.clone());
        db.set_serif_family(family.clone());
        opt.font_family = family;
        Ok(Rasterizer { opt })
    }

    /// The PNG of an SVG at `scale` (2: sharp on high-density screens).
    pub fn png(&self, svg: &str, scale: f32) -> Result<Vec<u8>, String> {
        use resvg::{tiny_skia, usvg};
        let tree = usvg::Tree::from_str(svg, &self.opt).map_err(|e| format!("the SVG could not be read: {e}"))?;
        let size = tree.size();
        let (w, h) = ((size.width() * scale).ceil() as u32, (size.height() * scale).ceil() as u32);
        let mut pixmap = tiny_skia::Pixmap::new(w, h).ok_or_else(|| format!("a {w}×{h} picture is too big"))?;
        resvg::render(&tree, tiny_skia::Transform::from_scale(scale, scale), &mut pixmap.as_mut());
        pixmap.encode_png().map_err(|e| format!("PNG encoding failed: {e}"))
    }
}

/// [`Rasterizer::png`] with a new [`Rasterizer`].
#[cfg(not(target_arch = "wasm32"))]
pub fn png(svg: &str, scale: f32) -> Result<Vec<u8>, String> {
    Rasterizer::new()?.png(svg, scale)
}

fn marker(d: &mut Doc, p: &Palette, kind: MarkerKind, x: f64, cy: f64) {
    match kind {
        MarkerKind::SpecUpdate => {
            let _ = writeln!(d.out, r#"<circle cx="{}" cy="{}" r="3.5" fill="{}"/>"#, num(x), num(cy), p.marker);
        }
        MarkerKind::DeletionRequested => {
            let _ =
                writeln!(d.out, r#"<path d="M{} {}H{}L{} {}Z" fill="{}"/>"#, num(x - 5.0), num(cy - 6.0), num(x + 5.0), num(x), num(cy + 2.0), p.marker_delete);
        }
        MarkerKind::Deleted => {
            let _ = writeln!(
                d.out,
                r#"<path d="M{a} {b}L{c} {e}M{c} {b}L{a} {e}" stroke="{}" stroke-width="2" fill="none"/>"#,
                p.marker_delete,
                a = num(x - 4.0),
                b = num(cy - 4.0),
                c = num(x + 4.0),
                e = num(cy + 4.0)
            );
        }
        MarkerKind::FinalizerAtEnd => {
            d.rect(x - 4.0, cy - 4.0, 8.0, 8.0, &format!(r#"fill="none" stroke="{}" stroke-width="2""#, p.marker_delete));
        }
    }
}

struct LegendItem {
    text: &'static str,
    draw: fn(&mut Doc, &Palette, f64, f64),
}

fn legend_items(_p: &Palette) -> Vec<LegendItem> {
    vec![
        LegendItem { text: "success", draw: |d, p, x, y| d.rect(x, y - 6.0, 16.0, 12.0, &format!(r#"fill="{}""#, p.success)) },
        LegendItem { text: "requeue", draw: |d, p, x, y| d.rect(x, y - 6.0, 16.0, 12.0, &format!(r#"fill="{}""#, p.requeue)) },
        LegendItem { text: "error", draw: |d, p, x, y| d.rect(x, y - 6.0, 16.0, 12.0, &format!(r#"fill="{}""#, p.error)) },
        LegendItem { text: "unfinished (the log ends)", draw: |d, p, x, y| d.rect(x, y - 6.0, 16.0, 12.0, &format!(r#"fill="{}""#, p.unfinished)) },
        LegendItem {
            text: "before its first line (begun there at the earliest)",
            draw: |d, p, x, y| d.rect(x + 0.5, y - 5.5, 15.0, 11.0, &format!(r#"fill="url(#latent-success)" stroke="{}" stroke-opacity="0.6""#, p.success)),
        },
        LegendItem { text: "single-line reconcile", draw: |d, p, x, y| d.rect(x + 7.0, y - 6.0, 2.0, 12.0, &format!(r#"fill="{}""#, p.success)) },
        LegendItem {
            text: "etcd election",
            draw: |d, p, x, y| d.rect(x, y - 6.0, 16.0, 12.0, &format!(r#"fill="{}" fill-opacity="{}""#, p.band, num(p.band_opacity * 1.5))),
        },
        LegendItem {
            text: "leaderless",
            draw: |d, p, x, y| d.rect(x, y - 6.0, 16.0, 12.0, &format!(r#"fill="{}" fill-opacity="{}""#, p.band, p.leaderless_opacity)),
        },
        LegendItem {
            text: "finding",
            draw: |d, p, x, y| {
                d.rect(
                    x + 0.75,
                    y - 5.25,
                    14.5,
                    10.5,
                    &format!(r#"fill="{c}" fill-opacity="{}" stroke="{c}" stroke-width="1.5""#, p.highlight_opacity, c = p.highlight_stroke),
                )
            },
        },
        LegendItem { text: "spec update", draw: |d, p, x, y| marker(d, p, MarkerKind::SpecUpdate, x + 8.0, y) },
        LegendItem { text: "deletion asked", draw: |d, p, x, y| marker(d, p, MarkerKind::DeletionRequested, x + 8.0, y + 2.0) },
        LegendItem { text: "deleted", draw: |d, p, x, y| marker(d, p, MarkerKind::Deleted, x + 8.0, y) },
        LegendItem { text: "finalizers left", draw: |d, p, x, y| marker(d, p, MarkerKind::FinalizerAtEnd, x + 8.0, y) },
        LegendItem {
            text: "goroutine dump",
            draw: |d, p, x, y| d.line(x + 8.0, y - 7.0, x + 8.0, y + 7.0, &format!(r#"stroke="{}" stroke-width="1.5" stroke-dasharray="4 3""#, p.text)),
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn middle_cut_keeps_both_ends() {
        let name = "tenant-test/kubernetes-test-latest-version";
        let full = text_width(name, FONT, false);
        assert_eq!(middle_cut(name, full, FONT, false), name, "fits: unchanged");
        let cut = middle_cut(name, full * 0.7, FONT, false);
        assert!(text_width(&cut, FONT, false) <= full * 0.7, "{cut}");
        let (head, tail) = cut.split_once('…').expect("an ellipsis in the middle");
        assert!(head.len() >= 8 && name.starts_with(head), "{cut}");
        assert!(name.ends_with(tail) && tail.ends_with("-latest-version"), "the end is kept: {cut}");
        assert!(tail.len() >= head.len(), "a little more of the end: {cut}");
        // Two names that differ only at the end stay apart.
        let other = middle_cut("tenant-test/kubernetes-test-latest-release", full * 0.7, FONT, false);
        assert_ne!(cut, other);
        // Nothing fits: just the ellipsis, never a panic.
        assert_eq!(middle_cut(name, 1.0, FONT, false), "…");
        assert_eq!(middle_cut("ab", 0.0, FONT, false), "…");
    }

    #[test]
    fn label_column_fits_the_names_up_to_a_maximum() {
        let short = [("kamaji · 1", 0u8), ("ns/a", 1)];
        assert_eq!(label_column_width(short, 1200.0), MIN_LABEL_W, "short names: the minimum");
        let name = "tenant-test/kubernetes-test-latest-version";
        let rows = [("tenantcontrolplane · 1 worker", 0u8), (name, 1)];
        let w = label_column_width(rows, 1200.0);
        let need = INDENT[1] + text_width(name, FONT, false);
        assert!(w >= need && w <= need + 12.0, "{w} for {need}");
        assert_eq!(middle_cut(name, w - INDENT[1] - 8.0, FONT, false), name, "the name is drawn in full");
        // Past the maximum: the column stops there and names are cut.
        let long = "ns/".to_string() + &"x".repeat(300);
        let w = label_column_width([(long.as_str(), 1u8)], 1200.0);
        assert_eq!(w, (1200.0 * MAX_LABEL_SHARE).ceil());
        assert!(middle_cut(&long, w - INDENT[1] - 8.0, FONT, false).contains('…'));
    }

    #[test]
    fn labels_alike_at_both_ends_are_cut_apart() {
        // One unit a character.
        let w = |s: &str| s.chars().count() as f64;
        let labels = [
            "tenant-test/kubernetes-test-latest-version-konnectivity-certificate",
            "tenant-test/kubernetes-test-previous-version-konnectivity-certificate",
            "tenant-test/kubernetes-test-latest-version-ca",
            "kube-system/coredns",
        ];
        let shared = shared_ends(&labels);
        assert_eq!(shared[0], SharedEnds { prefix_chars: 43, suffix_chars: 33 }, "latest…-ca at the start, previous at the end");
        assert_eq!(shared[1], SharedEnds { prefix_chars: 28, suffix_chars: 33 });
        assert_eq!(shared[2], SharedEnds { prefix_chars: 43, suffix_chars: 0 });
        assert_eq!(shared[3], SharedEnds { prefix_chars: 0, suffix_chars: 0 });
        for max in [30.0, 40.0, 50.0] {
            let cuts: Vec<String> = labels.iter().zip(&shared).map(|(l, &sh)| middle_cut_apart_by(l, sh, max, w)).collect();
            for (c, l) in cuts.iter().zip(labels) {
                assert!(w(c) <= max, "{c} wider than {max}");
                let (head, tail) = c.split_once('…').unwrap_or((c, ""));
                assert!(l.starts_with(head) && l.ends_with(tail), "{c} is {l} cut");
            }
            assert_ne!(cuts[0], cuts[1], "cut to {max}");
            // Nothing shared: cut as ever.
            assert_eq!(cuts[3], middle_cut_by(labels[3], max, w));
        }
        // The kept characters show where they differ, at the end that shows
        // more of it.
        let cut = |i: usize| middle_cut_apart_by(labels[i], shared[i], 40.0, w);
        assert_eq!(cut(0), "…latest-version-konnectivity-certificate");
        assert_eq!(cut(1), "tenant-test/kubernetes-test-previous…ate");
        // Too narrow to reach past either shared end: cut as ever.
        assert_eq!(middle_cut_apart_by(labels[0], shared[0], 20.0, w), middle_cut_by(labels[0], 20.0, w));
        // Plain middle cuts would be the same.
        assert_eq!(middle_cut_by(labels[0], 40.0, w), middle_cut_by(labels[1], 40.0, w));
    }

    #[test]
    fn rows_cut_to_the_same_label_are_cut_apart_and_no_other() {
        let w = |s: &str, _: u8| s.chars().count() as f64;
        let row = |label: &str, depth: u8| crate::layout::Row {
            key: label.into(),
            label: label.into(),
            depth,
            controller: 0,
            collapsed: false,
            bar_start: 0,
            bar_end: 0,
        };
        // The incident's secrets (tenant-test's two versions' alike at both
        // ends), two that their plain cut tells apart, and a group row.
        let rows = [
            row("tenantcontrolplane · 1 worker", 0),
            row("tenant-test/kubernetes-test-latest-version-konnectivity-certificate", 1),
            row("tenant-beta/kubernetes-beta-api-server-kubelet-client-certificate", 1),
            row("tenant-test/kubernetes-test-previous-version-konnectivity-certificate", 1),
            row("tenant-delta/kubernetes-delta-api-server-kubelet-client-certificate", 1),
            row("tenant-test/kubernetes-test-latest-version-konnectivity-certificate", 1),
        ];
        let cut = row_labels_cut_by(&rows, |r| rows[r].label.clone(), |_| 40.0, w);
        let plain = |r: usize| row_label_cut_by(&rows[r].label, rows[r].depth, 40.0, |t| w(t, 0));
        assert_eq!(plain(1), plain(3), "the plain cut says the same for both");
        assert_eq!(cut[1], "tenant-test/kubernetes-test-latest-v…ate");
        assert_eq!(cut[3], "tenant-test/kubernetes-test-previous…ate");
        assert_eq!(cut[5], cut[1], "the same object's label stays the same");
        for r in [0, 2, 4] {
            assert_eq!(cut[r], plain(r), "row {r}: told apart already, cut as ever");
        }
    }

    #[test]
    fn a_group_label_drops_its_last_parts_before_it_is_cut() {
        // One unit a character.
        let w = |s: &str| s.chars().count() as f64;
        let label = "widget · 4 workers · at most 4 at once";
        assert_eq!(parts_cut_by(label, 100.0, w), label);
        assert_eq!(parts_cut_by(label, 30.0, w), "widget · 4 workers");
        assert_eq!(parts_cut_by(label, 18.0, w), "widget · 4 workers");
        assert_eq!(parts_cut_by(label, 17.0, w), "widget");
        assert_eq!(parts_cut_by("tenantcontrolplane · 1 worker", 10.0, w), "tena…plane");
        assert_eq!(parts_cut_by("ns/a-long-object-name", 10.0, w), middle_cut_by("ns/a-long-object-name", 10.0, w));
        // Only a group row (depth 0) is cut by its parts.
        assert_eq!(row_label_cut_by(label, 0, 30.0, w), "widget · 4 workers");
        assert_eq!(row_label_cut_by(label, 1, 30.0, w), middle_cut_by(label, 30.0, w));
    }

    #[test]
    fn hostile_text_is_clean_xml_text() {
        let s = esc("a\u{1b}[31m<b>&\u{0}\u{202e}x\"'\u{ffff}\u{85}");
        assert_eq!(s, "a\u{fffd}[31m&lt;b&gt;&amp;\u{fffd}\u{fffd}x&quot;&apos;\u{fffd}\u{fffd}");
    }

    #[test]
    fn artifact_names() {
        let v = |s: &[&str]| s.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(artifact_name(&[]), None);
        assert_eq!(artifact_name(&v(&["cozyreport.zip"])).as_deref(), Some("cozyreport.zip"));
        assert_eq!(artifact_name(&v(&["cozyreport/a.log", "cozyreport/etcd/b.log"])).as_deref(), Some("cozyreport"));
        assert_eq!(artifact_name(&v(&["a.log", "b.log", "c.log"])).as_deref(), Some("a.log and 2 more"));
    }

    #[test]
    fn time_range_says_seconds_and_zone() {
        let t0 = crate::time::checked_civil_nanos(2026, 5, 26, 16, 21, 4, 250_000_000).unwrap();
        let t1 = crate::time::checked_civil_nanos(2026, 5, 26, 16, 44, 9, 100).unwrap();
        assert_eq!(time_range(t0, t1, 0, false), "2026-05-26 16:21:04 – 16:44:10 UTC");
        assert_eq!(time_range(t0, t1, 9 * 3600, false), "2026-05-27 01:21:04 – 01:44:10 UTC+09:00");
        assert_eq!(time_range(t0, t1, -(5 * 3600 + 1800), false), "2026-05-26 10:51:04 – 11:14:10 UTC-05:30");
        let t2 = crate::time::checked_civil_nanos(2026, 5, 27, 0, 0, 1, 0).unwrap();
        assert_eq!(time_range(t0, t2, 0, false), "2026-05-26 16:21:04 – 2026-05-27 00:00:01 UTC");
        // No year in the logs: the placeholder year is never shown.
        let y0 = crate::time::checked_civil_nanos(2000, 4, 23, 8, 4, 0, 0).unwrap();
        let y1 = crate::time::checked_civil_nanos(2000, 4, 23, 8, 5, 9, 1).unwrap();
        assert_eq!(time_range(y0, y1, 0, true), "Apr 23 08:04:00 – 08:05:10 UTC, no year in the logs");
    }

    #[test]
    fn notes_that_overlap_go_to_separate_lanes() {
        let n = |x: f64, text: &str| Note { x, text: text.into(), colour: "#000", bold: true, to_y: None, priority: 0 };
        let notes = [n(100.0, "stalled-worker 20m36s"), n(110.0, "stuck-deletion 24m10s"), n(600.0, "term 8")];
        let placed = stack(&notes, 1000.0);
        assert_eq!(placed[0].unwrap().0, 0);
        assert_eq!(placed[1].unwrap().0, 1, "overlaps the first: the next lane");
        assert_eq!(placed[2].unwrap().0, 0, "clear of the first: its lane");
        // Near the right edge a note moves left to fit.
        let placed = stack(&[n(995.0, "term 9")], 1000.0);
        let x = placed[0].unwrap().1;
        assert!(x + text_width("term 9", FONT_SMALL, true) <= 1000.0);
    }
}
