//! Evidence: a slice of an analysis and its raw lines that travels in a
//! link's URL fragment (`#ev=…`) or a `.reconscope` file, so that whoever
//! opens it sees the same finding, chart and raw lines without the
//! artifact. One codec for the CLI (`share`, `--app-url` links) and the
//! app (Copy link, opening a link, dropping a file).
//!
//! What a slice holds: every line of the finding's reconciles, the
//! reconciles around them in the window (so the chart is real), the etcd
//! leader elections in the window and their raft lines, the untagged lines
//! (etcd client warnings among them) between a carried reconcile's own
//! lines, the object lifecycles of the objects shown, and the files' names
//! with line numbers. The analysis' results for these (controllers,
//! reconciles with their lanes and latent starts, elections, findings,
//! goroutine stacks a finding cites) are carried as they are, so the chart
//! and sentences are the ones the sender saw; the raw lines are parsed again
//! on arrival for the inspector and the filters.
//!
//! Wire form: `RSEV`, a format byte ([`FORMAT`]), then the JSON of
//! [`Evidence`] compressed with deflate; in a link, that in base64url
//! without padding. When a slice is larger than the budget
//! ([`ShareOptions::max_payload_bytes`]), context goes first: neighbouring
//! reconciles (farthest first), then the middle lines of long reconciles,
//! then untagged lines; [`EvidenceMeta::left_out`] says what went.
//! Redaction ([`crate::redact`]) applies to every line and every string of
//! the carried analysis before encoding.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{Read, Write};

use serde::{Deserialize, Serialize};

use crate::analyze::{Analysis, RecordRef};
use crate::model::{ParsedFile, Timestamp};
use crate::redact::{self, RedactOptions, Redactor};
use crate::time::NANOS_PER_SEC;
use crate::words::plural;

/// The evidence format this build writes and reads.
pub const FORMAT: u8 = 1;
const MAGIC: &[u8; 4] = b"RSEV";
/// A link must fit an issue comment: the whole URL at most 32 KiB.
pub const MAX_LINK_BYTES: usize = 32 * 1024;
/// Inflated evidence larger than this is refused (a bomb, not a slice).
const MAX_INFLATED_BYTES: u64 = 64 << 20;
/// At most this many untagged lines between one reconcile's own lines.
const MAX_CONTEXT_PER_RECONCILE: usize = 60;
/// At most this many raft lines per election.
const MAX_ELECTION_LINES: usize = 40;
/// At most this many neighbouring reconciles before any budget applies.
const MAX_NEIGHBOURS: usize = 400;

/// What a slice is about and how it was made.
#[derive(Clone, Debug, Default)]
pub struct ShareOptions {
    /// The finding (index into `Analysis::findings`) the slice is about.
    pub finding: Option<usize>,
    /// The time window shown (absolute ns); default: the finding's window
    /// with a margin, or the selected reconcile's, or everything.
    pub window: Option<(i64, i64)>,
    /// The reconcile the inspector opens on (index into
    /// `Analysis::reconciles`); default: the finding's first.
    pub selected: Option<usize>,
    /// A name for what was analyzed (`cozyreport.zip`).
    pub artifact: String,
    /// When the slice was taken (the caller's clock).
    pub taken_at_nanos: Option<i64>,
    pub redact: RedactOptions,
    /// Budget of the encoded payload (base64url characters); 0: no budget
    /// (a `.reconscope` file).
    pub max_payload_bytes: usize,
}

/// What left the sender, in numbers, for the banner.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EvidenceMeta {
    pub artifact: String,
    pub taken_at_nanos: Option<i64>,
    /// `reconscope 0.1.0`.
    pub made_by: String,
    /// Lines carried, and lines in the artifact's log files.
    pub lines: u64,
    pub total_lines: u64,
    /// Reconciles carried, and in the whole analysis.
    pub reconciles: u64,
    pub total_reconciles: u64,
    pub left_out: LeftOut,
    /// What redaction removed: kind and count.
    pub redacted: Vec<(redact::Kind, u64)>,
    pub masked_hosts: bool,
    /// The finding the slice is about (index into the carried findings).
    pub finding: Option<usize>,
    pub window: (i64, i64),
    /// The reconcileID the inspector opens on.
    pub selected: Option<String>,
}

/// What was left out to fit the budget.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeftOut {
    /// Reconciles in the window that were not carried.
    pub reconciles: u64,
    /// Lines of carried reconciles left out from their middle.
    pub middle_lines: u64,
    /// Untagged lines between a reconcile's own lines.
    pub context_lines: u64,
}

impl LeftOut {
    pub fn is_empty(&self) -> bool {
        *self == LeftOut::default()
    }

    /// "12 neighbouring reconciles, 40 lines from the middle of long
    /// reconciles" (empty when nothing was left out).
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if self.reconciles > 0 {
            parts.push(plural(self.reconciles, "neighbouring reconcile", "neighbouring reconciles"));
        }
        if self.middle_lines > 0 {
            parts.push(plural(self.middle_lines, "line from the middle of long reconciles", "lines from the middle of long reconciles"));
        }
        if self.context_lines > 0 {
            parts.push(plural(self.context_lines, "untagged line inside reconciles", "untagged lines inside reconciles"));
        }
        parts.join(", ")
    }
}

impl EvidenceMeta {
    /// "redacted: 2 JWTs, 1 value of a key named like a secret", or that
    /// nothing needed it.
    pub fn redacted_words(&self) -> String {
        if self.redacted.is_empty() {
            return "nothing needed redacting".into();
        }
        let parts: Vec<String> = self.redacted.iter().map(|(k, n)| k.counted(*n)).collect();
        format!("redacted: {}", parts.join(", "))
    }
}

/// One file's carried lines.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EvidenceFile {
    pub path: String,
    /// (1-based line number, text), ascending.
    pub lines: Vec<(u32, String)>,
}

/// A decoded slice. In `analysis.record_refs` and
/// `analysis.client_warnings[].record`, `file` indexes [`Evidence::files`]
/// and `record` is the record's first line number in that file.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Evidence {
    pub meta: EvidenceMeta,
    pub files: Vec<EvidenceFile>,
    pub analysis: Analysis,
}

/// Why a payload could not be read.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum EvidenceError {
    #[error("the link holds no evidence")]
    Empty,
    #[error("the evidence is damaged: character {0} is not base64url")]
    BadBase64(usize),
    #[error("this is not reconscope evidence")]
    NotEvidence,
    #[error("the evidence was made by a newer reconscope (format {0}; this app reads format {FORMAT}): open it with a newer reconscope, or drop the artifact itself")]
    NewerFormat(u8),
    #[error("the evidence is cut short or damaged (its compressed data ends early): copy the whole link again")]
    Truncated,
    #[error("the evidence is larger than {} MiB when inflated", MAX_INFLATED_BYTES >> 20)]
    TooLarge,
    #[error("the evidence is damaged: {0}")]
    Damaged(String),
    #[error("even without any context this evidence takes {0} bytes, over the link budget of {1}: share it as a .reconscope file")]
    TooBigForLink(usize, usize),
}

/// A slice ready to travel.
#[derive(Clone, Debug)]
pub struct Shared {
    /// base64url payload for `#ev=`.
    pub payload: String,
    pub meta: EvidenceMeta,
    /// Carried lines where something was redacted (at most
    /// [`MAX_PREVIEW_LINES`]), as they will travel: for a preview.
    pub redacted_lines: Vec<PreviewLine>,
}

/// A carried line, for a preview of what is shared.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PreviewLine {
    pub path: String,
    pub line: u32,
    pub text: String,
}

/// At most this many redacted lines in [`Shared::redacted_lines`].
pub const MAX_PREVIEW_LINES: usize = 30;

impl Shared {
    fn of(ev: Evidence, payload: String) -> Shared {
        let mut redacted_lines = Vec::new();
        'files: for f in &ev.files {
            for (n, text) in &f.lines {
                if redact::is_redacted(text) {
                    if redacted_lines.len() == MAX_PREVIEW_LINES {
                        break 'files;
                    }
                    redacted_lines.push(PreviewLine { path: f.path.clone(), line: *n, text: text.clone() });
                }
            }
        }
        Shared { payload, meta: ev.meta, redacted_lines }
    }
}

/// What was carried in a slice, at one trimming level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Level {
    /// Neighbouring reconciles carried (the nearest first).
    neighbours: usize,
    /// Records kept at each end of a long reconcile (`usize::MAX`: all).
    ends: usize,
    /// Untagged lines per reconcile.
    context: usize,
}

/// Builds the slice for `opts` and encodes it within the budget.
/// `files` are the parsed files the analysis was made from.
pub fn share(a: &Analysis, files: &[ParsedFile], opts: &ShareOptions) -> Result<Shared, EvidenceError> {
    let plan = Plan::new(a, files, opts);
    let full = Level { neighbours: plan.neighbours.len(), ends: usize::MAX, context: MAX_CONTEXT_PER_RECONCILE };
    let fits = |payload: &str| opts.max_payload_bytes == 0 || payload.len() <= opts.max_payload_bytes;
    let (ev, payload) = plan.encode(full);
    if fits(&payload) {
        return Ok(Shared::of(ev, payload));
    }
    // Fewest neighbours first to go: the largest count that fits.
    let at = |neighbours, ends, context| Level { neighbours, ends, context };
    let (mut lo, mut hi) = (0usize, plan.neighbours.len());
    if fits(&plan.encode(at(0, usize::MAX, MAX_CONTEXT_PER_RECONCILE)).1) {
        while lo < hi {
            let mid = (lo + hi).div_ceil(2);
            if fits(&plan.encode(at(mid, usize::MAX, MAX_CONTEXT_PER_RECONCILE)).1) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        let (ev, payload) = plan.encode(at(lo, usize::MAX, MAX_CONTEXT_PER_RECONCILE));
        return Ok(Shared::of(ev, payload));
    }
    // Then the middle of long reconciles, then the untagged lines.
    for context in [MAX_CONTEXT_PER_RECONCILE, 10, 0] {
        for ends in [200, 100, 50, 25, 12, 6, 3, 1] {
            let (ev, payload) = plan.encode(at(0, ends, context));
            if fits(&payload) {
                return Ok(Shared::of(ev, payload));
            }
        }
    }
    let smallest = plan.encode(at(0, 1, 0)).1.len();
    Err(EvidenceError::TooBigForLink(smallest, opts.max_payload_bytes))
}

/// The fragment of an evidence link: the payload, the window and the
/// selected reconcile, as the app reads them (`#ev=…&from=…&to=…&sel=…`).
pub fn fragment(shared: &Shared) -> String {
    let (from, to) = shared.meta.window;
    let mut s = format!("#ev={}&from={}&to={}", shared.payload, exact(from), exact(to));
    if let Some(sel) = &shared.meta.selected {
        s.push_str("&sel=");
        s.push_str(&percent_encode(sel));
    }
    s
}

/// The CLI links at most this many findings (each slice scans every
/// reconcile; the Markdown report lists 50).
pub const MAX_LINKED_FINDINGS: usize = 50;

/// An evidence link for each of the first `max` findings (`None` past them
/// or where even the smallest slice is over the budget): `app_url`
/// followed by the fragment, within [`MAX_LINK_BYTES`] in all. `template`
/// gives the artifact name, the clock and redaction.
pub fn finding_links(a: &Analysis, files: &[ParsedFile], app_url: &str, template: &ShareOptions, max: usize) -> Vec<Option<String>> {
    (0..a.findings.len())
        .map(|i| {
            if i >= max {
                return None;
            }
            let opts = ShareOptions { finding: Some(i), window: None, selected: None, max_payload_bytes: link_budget(app_url), ..template.clone() };
            share(a, files, &opts).ok().map(|s| format!("{app_url}{}", fragment(&s)))
        })
        .collect()
}

/// Finding `finding`'s evidence link to `app_url` in at most `max_bytes`
/// in all (a smaller slice than [`finding_links`] makes, when need be);
/// `None` when even its smallest slice is longer.
pub fn finding_link_within(a: &Analysis, files: &[ParsedFile], app_url: &str, template: &ShareOptions, finding: usize, max_bytes: usize) -> Option<String> {
    let budget = link_budget(app_url).min(max_bytes.saturating_sub(MAX_LINK_BYTES - link_budget(app_url)));
    let opts = ShareOptions { finding: Some(finding), window: None, selected: None, max_payload_bytes: budget.max(1), ..template.clone() };
    share(a, files, &opts).ok().map(|s| format!("{app_url}{}", fragment(&s))).filter(|l| l.len() <= max_bytes)
}

/// The payload budget of a link to `app_url`: what is left of
/// [`MAX_LINK_BYTES`] after the address and the view fields.
pub fn link_budget(app_url: &str) -> usize {
    // `&from=…&to=…` (two 30-character times) and `&sel=` with a
    // reconcileID, percent-encoded at worst.
    const VIEW: usize = 2 * 40 + 6 + 3 * 64;
    MAX_LINK_BYTES.saturating_sub(app_url.len() + "#ev=".len() + VIEW)
}

/// A time with as many fractional digits as it needs to be exact.
fn exact(nanos: i64) -> Timestamp {
    let mut digits = 9u8;
    while digits > 0 && nanos.rem_euclid(10i64.pow(10 - u32::from(digits))) == 0 {
        digits -= 1;
    }
    Timestamp::new(nanos, digits)
}

/// Encodes what is not unreserved in a URL fragment value.
fn percent_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The candidates for a slice, before trimming.
struct Plan<'a> {
    a: &'a Analysis,
    files: &'a [ParsedFile],
    opts: &'a ShareOptions,
    window: (i64, i64),
    /// The finding's reconciles (or the selected one).
    focus: Vec<usize>,
    /// Other reconciles in the window, the nearest first.
    neighbours: Vec<usize>,
    elections: Vec<usize>,
    findings: Vec<usize>,
    /// Raft lines of the elections: (file, record).
    election_records: Vec<RecordRef>,
    selected: Option<usize>,
    total_lines: u64,
}

impl<'a> Plan<'a> {
    fn new(a: &'a Analysis, files: &'a [ParsedFile], opts: &'a ShareOptions) -> Plan<'a> {
        let finding = opts.finding.and_then(|i| a.findings.get(i));
        let mut focus: Vec<usize> = finding.map(|f| f.reconciles.clone()).unwrap_or_default();
        focus.retain(|&r| r < a.reconciles.len());
        let selected = opts.selected.filter(|&r| r < a.reconciles.len()).or_else(|| focus.first().copied());
        if let Some(s) = selected {
            if !focus.contains(&s) {
                focus.push(s);
            }
        }
        let span = |rs: &[usize]| -> Option<(i64, i64)> {
            let lo = rs.iter().map(|&r| a.reconciles[r].start().nanos).min()?;
            let hi = rs.iter().map(|&r| a.reconciles[r].last.nanos).max()?;
            Some((lo, hi))
        };
        let window = opts
            .window
            .filter(|w| w.1 > w.0)
            .or_else(|| finding.map(|f| pad(f.start.nanos, f.end.nanos)))
            .or_else(|| span(&focus).map(|(lo, hi)| pad(lo, hi)))
            .or_else(|| span(&(0..a.reconciles.len()).collect::<Vec<_>>()))
            .unwrap_or((0, 1));
        let (w0, w1) = window;
        let (f0, f1) = span(&focus).unwrap_or(window);
        let focus_controllers: BTreeSet<usize> = focus.iter().map(|&r| a.reconciles[r].controller).collect();
        let focus_set: BTreeSet<usize> = focus.iter().copied().collect();
        let mut neighbours: Vec<(bool, i64, usize)> = a
            .reconciles
            .iter()
            .enumerate()
            .filter(|(i, r)| !focus_set.contains(i) && r.start().nanos <= w1 && r.last.nanos >= w0)
            .map(|(i, r)| {
                let distance = if r.last.nanos < f0 {
                    f0.saturating_sub(r.last.nanos)
                } else if r.start().nanos > f1 {
                    r.start().nanos.saturating_sub(f1)
                } else {
                    0
                };
                (!focus_controllers.contains(&r.controller), distance, i)
            })
            .collect();
        neighbours.sort_unstable();
        neighbours.truncate(MAX_NEIGHBOURS);
        let neighbours = neighbours.into_iter().map(|(_, _, i)| i).collect();
        let overlaps = |s: i64, e: i64| s <= w1 && e >= w0;
        let mut elections: BTreeSet<usize> =
            a.elections.iter().enumerate().filter(|(_, e)| overlaps(e.start.nanos, e.end.map_or(e.start.nanos, |t| t.nanos))).map(|(i, _)| i).collect();
        let mut findings: Vec<usize> =
            a.findings.iter().enumerate().filter(|(i, f)| Some(*i) == opts.finding || overlaps(f.start.nanos, f.end.nanos)).map(|(i, _)| i).collect();
        findings.sort_by_key(|&i| (Some(i) != opts.finding, i));
        for &fi in &findings {
            elections.extend(a.findings[fi].elections.iter().copied().filter(|&e| e < a.elections.len()));
        }
        let elections: Vec<usize> = elections.into_iter().collect();
        let election_records = election_records(a, files, &elections);
        let total_lines = files.iter().map(|f| f.records.last().map_or(0, |r| u64::from(r.line + r.line_count.max(1) - 1))).sum();
        Plan { a, files, opts, window, focus, neighbours, elections, findings, election_records, selected, total_lines }
    }

    /// The slice at `level`, and its payload.
    fn encode(&self, level: Level) -> (Evidence, String) {
        let ev = self.build(level);
        let payload = to_payload(&ev);
        (ev, payload)
    }

    fn build(&self, level: Level) -> Evidence {
        let a = self.a;
        let mut redactor = Redactor::new(self.opts.redact);
        let mut left = LeftOut::default();
        let mut carried: Vec<usize> = self.focus.clone();
        carried.extend(self.neighbours.iter().take(level.neighbours));
        left.reconciles = (self.neighbours.len() - level.neighbours.min(self.neighbours.len())) as u64;
        carried.sort_unstable();
        carried.dedup();
        // Records to carry, by original (file, record).
        let mut records: BTreeSet<RecordRef> = BTreeSet::new();
        let mut kept_refs: Vec<Vec<RecordRef>> = Vec::with_capacity(carried.len());
        for &ri in &carried {
            let r = &a.reconciles[ri];
            let own = a.records_of(r);
            let keep: Vec<RecordRef> = if own.len() > level.ends.saturating_mul(2) {
                let cut = &own[level.ends..own.len() - level.ends];
                left.middle_lines += cut.iter().map(|rr| u64::from(self.record(*rr).map_or(1, |x| x.line_count.max(1)))).sum::<u64>();
                own[..level.ends].iter().chain(&own[own.len() - level.ends..]).copied().collect()
            } else {
                own.to_vec()
            };
            records.extend(keep.iter().copied());
            // Untagged lines between its own, per file.
            let mut by_file: BTreeMap<u32, (u32, u32)> = BTreeMap::new();
            for rr in &keep {
                let e = by_file.entry(rr.file).or_insert((rr.record, rr.record));
                e.0 = e.0.min(rr.record);
                e.1 = e.1.max(rr.record);
            }
            for (file, (lo, hi)) in by_file {
                let Some(pf) = self.files.get(file as usize) else {
                    continue;
                };
                let mut taken = 0;
                for idx in lo..=hi {
                    let Some(rec) = pf.records.get(idx as usize) else {
                        break;
                    };
                    if !rec.reconcile_id.is_empty() {
                        continue;
                    }
                    if taken < level.context {
                        records.insert(RecordRef { file, record: idx });
                        taken += 1;
                    } else {
                        left.context_lines += u64::from(rec.line_count.max(1));
                    }
                }
            }
            kept_refs.push(keep);
        }
        records.extend(self.election_records.iter().copied());

        // Files and lines.
        let mut file_index: BTreeMap<u32, usize> = BTreeMap::new();
        let mut out_files: Vec<EvidenceFile> = Vec::new();
        let mut lines_carried = 0u64;
        for rr in &records {
            let Some(pf) = self.files.get(rr.file as usize) else {
                continue;
            };
            let Some(rec) = pf.records.get(rr.record as usize) else {
                continue;
            };
            let fi = *file_index.entry(rr.file).or_insert_with(|| {
                out_files.push(EvidenceFile { path: pf.path.clone(), lines: Vec::new() });
                out_files.len() - 1
            });
            let raw = pf.raw(rec);
            let text = String::from_utf8_lossy(&raw);
            let text = redactor.redact(&text);
            for (i, l) in text.split('\n').enumerate() {
                out_files[fi].lines.push((rec.line + i as u32, l.strip_suffix('\r').unwrap_or(l).to_string()));
                lines_carried += 1;
            }
        }
        let remap = |rr: RecordRef| -> Option<RecordRef> {
            let fi = *file_index.get(&rr.file)?;
            let rec = self.files.get(rr.file as usize)?.records.get(rr.record as usize)?;
            Some(RecordRef { file: fi as u32, record: rec.line })
        };

        // The carried analysis, indexes remapped.
        let mut out = Analysis::default();
        let mut controller_index: BTreeMap<usize, usize> = BTreeMap::new();
        let mut reconcile_index: BTreeMap<usize, usize> = BTreeMap::new();
        for (k, &ri) in carried.iter().enumerate() {
            let r = &a.reconciles[ri];
            let ci = *controller_index.entry(r.controller).or_insert_with(|| {
                out.controllers.push(a.controllers[r.controller].clone());
                out.controllers.len() - 1
            });
            let start = out.record_refs.len() as u32;
            out.record_refs.extend(kept_refs[k].iter().filter_map(|&rr| remap(rr)));
            let mut r = r.clone();
            r.controller = ci;
            r.records = start..out.record_refs.len() as u32;
            reconcile_index.insert(ri, out.reconciles.len());
            out.reconciles.push(r);
        }
        let mut election_index: BTreeMap<usize, usize> = BTreeMap::new();
        for &ei in &self.elections {
            election_index.insert(ei, out.elections.len());
            out.elections.push(a.elections[ei].clone());
        }
        out.client_warnings = a
            .client_warnings
            .iter()
            .filter(|w| records.contains(&w.record))
            .filter_map(|w| {
                let mut w = w.clone();
                w.record = remap(w.record)?;
                Some(w)
            })
            .collect();
        let shown: BTreeSet<String> = out.reconciles.iter().filter_map(|r| r.object.as_ref().map(|o| o.to_string())).collect();
        let mut goroutine_index: BTreeMap<usize, usize> = BTreeMap::new();
        let mut dump_index: BTreeMap<usize, usize> = BTreeMap::new();
        let mut finding_of_target = None;
        for &fi in &self.findings {
            let mut f = a.findings[fi].clone();
            if Some(fi) == self.opts.finding {
                finding_of_target = Some(out.findings.len());
            }
            f.reconciles = f.reconciles.iter().filter_map(|r| reconcile_index.get(r).copied()).collect();
            f.elections = f.elections.iter().filter_map(|e| election_index.get(e).copied()).collect();
            f.controller = f.controller.and_then(|c| controller_index.get(&c).copied());
            if let Some(b) = &mut f.blocked {
                match a.goroutines.get(b.goroutine) {
                    Some(g) => {
                        let gi = *goroutine_index.entry(b.goroutine).or_insert_with(|| {
                            let mut g = g.clone();
                            let di = *dump_index.entry(g.dump).or_insert_with(|| {
                                out.dumps.push(a.dumps[g.dump].clone());
                                out.dumps.len() - 1
                            });
                            g.dump = di;
                            g.controller = g.controller.and_then(|c| controller_index.get(&c).copied());
                            g.reconcile = g.reconcile.and_then(|r| reconcile_index.get(&r).copied());
                            g.finding = None;
                            out.goroutines.push(g);
                            out.goroutines.len() - 1
                        });
                        b.goroutine = gi;
                    }
                    None => f.blocked = None,
                }
            }
            out.findings.push(f);
        }
        for (fi, f) in out.findings.iter().enumerate() {
            if let Some(b) = &f.blocked {
                out.goroutines[b.goroutine].finding = Some(fi);
            }
        }
        // Whether the artifact had etcd logs and what it lacks hold for the
        // slice too (its sources and gaps are the artifact's, not carried).
        out.coverage.etcd = a.coverage.etcd;
        out.coverage.missing = a.coverage.missing.clone();
        // And how its times were read: the slice's times are the artifact's.
        (out.year_unknown, out.year_from_mtime, out.zone_assumed) = (a.year_unknown, a.year_from_mtime, a.zone_assumed);
        let finding_objects: BTreeSet<String> = out.findings.iter().filter_map(|f| f.object.as_ref().map(|o| o.to_string())).collect();
        out.objects = a
            .objects
            .iter()
            .filter(|o| {
                let k = o.object.to_string();
                shown.contains(&k) || finding_objects.contains(&k)
            })
            .cloned()
            .collect();

        // Redact every string of the carried analysis but the ids, names
        // and times (which never hold secrets and must stay exact).
        let mut value = serde_json::to_value(&out).unwrap_or_default();
        redact_value(&mut value, &mut redactor, None);
        let out: Analysis = serde_json::from_value(value).unwrap_or(out);

        let meta = EvidenceMeta {
            artifact: self.opts.artifact.clone(),
            taken_at_nanos: self.opts.taken_at_nanos,
            made_by: format!("reconscope {}", env!("CARGO_PKG_VERSION")),
            lines: lines_carried,
            total_lines: self.total_lines,
            reconciles: out.reconciles.len() as u64,
            total_reconciles: a.reconciles.len() as u64,
            left_out: left,
            redacted: redactor.counts().iter().map(|(k, n)| (*k, *n)).collect(),
            masked_hosts: self.opts.redact.mask_hosts,
            finding: finding_of_target,
            window: self.window,
            selected: self.selected.map(|r| a.reconciles[r].reconcile_id.clone()),
        };
        Evidence { meta, files: out_files, analysis: out }
    }

    fn record(&self, rr: RecordRef) -> Option<&crate::model::Record> {
        self.files.get(rr.file as usize)?.records.get(rr.record as usize)
    }
}

/// A window around `lo..hi`: a tenth of its length on each side, at least
/// 30 s, out to whole seconds.
fn pad(lo: i64, hi: i64) -> (i64, i64) {
    let margin = (hi.saturating_sub(lo) / 10).max(30 * NANOS_PER_SEC);
    let (lo, hi) = (lo.saturating_sub(margin), hi.saturating_add(margin));
    (lo.div_euclid(NANOS_PER_SEC).saturating_mul(NANOS_PER_SEC), hi.div_euclid(NANOS_PER_SEC).saturating_add(1).saturating_mul(NANOS_PER_SEC))
}

/// Keys whose strings are carried exactly: ids, names, paths, kinds and
/// times never hold secrets, and the app matches on them.
const EXACT_KEYS: &[&str] = &[
    "reconcile_id",
    "id",
    "name",
    "namespace",
    "controller",
    "group",
    "kind",
    "cluster",
    "leader",
    "previous_leader",
    "workers_source",
    "outcome",
    "severity",
    "path",
    "role",
    "state",
    "func",
    "file",
    "reconciler",
    "time_source",
    "target",
];

fn redact_value(v: &mut serde_json::Value, r: &mut Redactor, key: Option<&str>) {
    match v {
        serde_json::Value::String(s) => {
            if key.is_some_and(|k| EXACT_KEYS.contains(&k)) {
                return;
            }
            if let std::borrow::Cow::Owned(o) = r.redact(s) {
                *s = o;
            }
        }
        serde_json::Value::Array(items) => {
            for i in items {
                redact_value(i, r, key);
            }
        }
        serde_json::Value::Object(m) => {
            for (k, v) in m.iter_mut() {
                redact_value(v, r, Some(k.as_str()));
            }
        }
        _ => {}
    }
}

/// The raft lines of `elections`: records whose message may be a raft line
/// ([`crate::analyze::etcd::may_matter`]) within a second of each window,
/// at most [`MAX_ELECTION_LINES`] each.
fn election_records(a: &Analysis, files: &[ParsedFile], elections: &[usize]) -> Vec<RecordRef> {
    let mut out = BTreeSet::new();
    for &ei in elections {
        let e = &a.elections[ei];
        let lo = e.start.nanos.saturating_sub(NANOS_PER_SEC);
        let hi = e.end.map_or(e.start.nanos, |t| t.nanos).saturating_add(NANOS_PER_SEC);
        let mut n = 0;
        'files: for (fi, f) in files.iter().enumerate() {
            for (ri, r) in f.records.iter().enumerate() {
                let Some(t) = r.time else { continue };
                if t.nanos < lo || t.nanos > hi || !r.reconcile_id.is_empty() {
                    continue;
                }
                let msg = f.message(r);
                if crate::analyze::etcd::may_matter(msg.as_bytes()) && msg != "retrying of unary invoker failed" {
                    out.insert(RecordRef { file: fi as u32, record: ri as u32 });
                    n += 1;
                    if n >= MAX_ELECTION_LINES {
                        break 'files;
                    }
                }
            }
        }
    }
    out.into_iter().collect()
}

/// The wire bytes of a slice (magic, format, deflated JSON).
pub fn to_bytes(ev: &Evidence) -> Vec<u8> {
    let json = serde_json::to_vec(ev).unwrap_or_default();
    let mut enc = flate2::write::DeflateEncoder::new(Vec::with_capacity(json.len() / 4 + 16), flate2::Compression::best());
    let mut out = MAGIC.to_vec();
    out.push(FORMAT);
    // Writing into a Vec cannot fail.
    let _ = enc.write_all(&json);
    out.extend(enc.finish().unwrap_or_default());
    out
}

/// A slice as a link payload (base64url of [`to_bytes`]).
pub fn to_payload(ev: &Evidence) -> String {
    base64url(&to_bytes(ev))
}

/// Reads a link payload (base64url) or a `.reconscope` file's text.
pub fn from_payload(payload: &str) -> Result<Evidence, EvidenceError> {
    let text = payload.trim();
    let text = text.strip_prefix("#").unwrap_or(text);
    let text = text.strip_prefix("ev=").unwrap_or(text);
    let text = text.split('&').next().unwrap_or("");
    if text.is_empty() {
        return Err(EvidenceError::Empty);
    }
    from_bytes(&unbase64url(text)?)
}

/// Reads wire bytes ([`to_bytes`]), checking that every index in the
/// carried analysis points where it should.
pub fn from_bytes(bytes: &[u8]) -> Result<Evidence, EvidenceError> {
    if bytes.len() < MAGIC.len() + 1 || &bytes[..4] != MAGIC {
        return Err(EvidenceError::NotEvidence);
    }
    let format = bytes[4];
    if format > FORMAT {
        return Err(EvidenceError::NewerFormat(format));
    }
    if format == 0 {
        return Err(EvidenceError::NotEvidence);
    }
    let mut json = Vec::new();
    let mut dec = flate2::read::DeflateDecoder::new(&bytes[5..]).take(MAX_INFLATED_BYTES + 1);
    dec.read_to_end(&mut json).map_err(|_| EvidenceError::Truncated)?;
    if json.len() as u64 > MAX_INFLATED_BYTES {
        return Err(EvidenceError::TooLarge);
    }
    let ev: Evidence = serde_json::from_slice(&json).map_err(|e| if e.is_eof() { EvidenceError::Truncated } else { EvidenceError::Damaged(e.to_string()) })?;
    validate(&ev).map_err(EvidenceError::Damaged)?;
    Ok(ev)
}

/// Every index in range, every range inside its list.
fn validate(ev: &Evidence) -> Result<(), String> {
    let a = &ev.analysis;
    let (nc, nr, ne, nrefs) = (a.controllers.len(), a.reconciles.len(), a.elections.len(), a.record_refs.len());
    for (i, r) in a.reconciles.iter().enumerate() {
        if r.controller >= nc {
            return Err(format!("reconcile {i} names controller {} of {nc}", r.controller));
        }
        if r.records.start > r.records.end || r.records.end as usize > nrefs {
            return Err(format!("reconcile {i} has records {:?} of {nrefs}", r.records));
        }
    }
    for rr in a.record_refs.iter().chain(a.client_warnings.iter().map(|w| &w.record)) {
        if rr.file as usize >= ev.files.len() {
            return Err(format!("a line refers to file {} of {}", rr.file, ev.files.len()));
        }
    }
    for (i, f) in a.findings.iter().enumerate() {
        if f.reconciles.iter().any(|&r| r >= nr) || f.elections.iter().any(|&e| e >= ne) || f.controller.is_some_and(|c| c >= nc) {
            return Err(format!("finding {i} refers past the carried data"));
        }
        if f.blocked.as_ref().is_some_and(|b| b.goroutine >= a.goroutines.len()) {
            return Err(format!("finding {i} refers to a missing goroutine"));
        }
    }
    for (i, g) in a.goroutines.iter().enumerate() {
        if g.dump >= a.dumps.len()
            || g.controller.is_some_and(|c| c >= nc)
            || g.reconcile.is_some_and(|r| r >= nr)
            || g.finding.is_some_and(|f| f >= a.findings.len())
        {
            return Err(format!("goroutine group {i} refers past the carried data"));
        }
    }
    if ev.meta.finding.is_some_and(|f| f >= a.findings.len()) {
        return Err("the finding it is about is missing".into());
    }
    if ev.meta.window.1 < ev.meta.window.0 {
        return Err("its window ends before it starts".into());
    }
    Ok(())
}

/// The carried lines as files to parse: each file's lines in order, and
/// the original line number of each line (index: line in the text - 1).
pub fn texts(ev: &Evidence) -> Vec<(String, Vec<u8>, Vec<u32>)> {
    ev.files
        .iter()
        .map(|f| {
            let mut lines = f.lines.clone();
            lines.sort_by_key(|l| l.0);
            lines.dedup_by_key(|l| l.0);
            let mut text = Vec::new();
            let mut numbers = Vec::with_capacity(lines.len());
            for (n, l) in lines {
                // A carried line never holds a line break (one per entry).
                text.extend(l.replace(['\n', '\r'], " ").as_bytes());
                text.push(b'\n');
                numbers.push(n);
            }
            (f.path.clone(), text, numbers)
        })
        .collect()
}

/// Gives the records of `file` (parsed from [`texts`]) their original line
/// numbers.
pub fn renumber(file: &mut ParsedFile, numbers: &[u32]) {
    for r in &mut file.records {
        if let Some(&n) = (r.line as usize).checked_sub(1).and_then(|i| numbers.get(i)) {
            r.line = n;
        }
    }
}

/// The record of `file` (renumbered) that holds original line `line`.
pub fn record_at(file: &ParsedFile, line: u32) -> Option<u32> {
    let i = file.records.partition_point(|r| r.line <= line);
    let i = i.checked_sub(1)?;
    Some(i as u32)
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// base64url without padding.
pub fn base64url(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..=chunk.len() {
            out.push(B64[(n >> (18 - 6 * i) & 63) as usize] as char);
        }
    }
    out
}

/// Reads base64url (padding and standard `+` `/` also accepted).
pub fn unbase64url(s: &str) -> Result<Vec<u8>, EvidenceError> {
    let mut out = Vec::with_capacity(s.len() / 4 * 3 + 3);
    let (mut acc, mut bits) = (0u32, 0u32);
    for (i, c) in s.bytes().enumerate() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'-' | b'+' => 62,
            b'_' | b'/' => 63,
            b'=' => break,
            _ => return Err(EvidenceError::BadBase64(i + 1)),
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_was_left_out_and_redacted_is_counted_in_words() {
        let left = LeftOut { reconciles: 1, middle_lines: 2, context_lines: 1 };
        assert_eq!(left.describe(), "1 neighbouring reconcile, 2 lines from the middle of long reconciles, 1 untagged line inside reconciles");
        let meta = EvidenceMeta { redacted: vec![(redact::Kind::Jwt, 2), (redact::Kind::SecretValue, 1)], ..Default::default() };
        assert_eq!(meta.redacted_words(), "redacted: 2 JWTs, 1 value of a key named like a secret");
        assert_eq!(EvidenceMeta::default().redacted_words(), "nothing needed redacting");
    }

    #[test]
    fn fragment_times_are_exact_and_short() {
        assert_eq!(exact(1_780_000_000 * NANOS_PER_SEC).to_string(), "2026-05-28T20:26:40Z");
        assert_eq!(exact(1_780_000_000 * NANOS_PER_SEC + 120_000_000).to_string(), "2026-05-28T20:26:40.12Z");
        assert_eq!(exact(1_780_000_000 * NANOS_PER_SEC + 1).to_string(), "2026-05-28T20:26:40.000000001Z");
        assert_eq!(pad(10 * NANOS_PER_SEC + 5, 20 * NANOS_PER_SEC), (-20 * NANOS_PER_SEC, 51 * NANOS_PER_SEC));
    }

    #[test]
    fn base64url_round_trips_every_length() {
        for n in 0..70usize {
            let bytes: Vec<u8> = (0..n).map(|i| (i * 37 + 11) as u8).collect();
            let s = base64url(&bytes);
            assert!(s.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_'), "{s}");
            assert_eq!(unbase64url(&s).unwrap(), bytes);
        }
        assert_eq!(base64url(b"\xfb\xff"), "-_8");
        assert_eq!(unbase64url("a!b"), Err(EvidenceError::BadBase64(2)));
    }

    #[test]
    fn bad_payloads_say_what_is_wrong() {
        let ev = Evidence { meta: EvidenceMeta::default(), files: Vec::new(), analysis: Analysis::default() };
        let bytes = to_bytes(&ev);
        assert!(from_bytes(&bytes).is_ok());
        assert_eq!(from_payload("").unwrap_err(), EvidenceError::Empty);
        assert_eq!(from_payload("#ev=&from=x").unwrap_err(), EvidenceError::Empty);
        assert_eq!(from_bytes(b"RSE").unwrap_err(), EvidenceError::NotEvidence);
        assert_eq!(from_bytes(b"PK\x03\x04\x01").unwrap_err(), EvidenceError::NotEvidence);
        let mut newer = bytes.clone();
        newer[4] = FORMAT + 1;
        assert_eq!(from_bytes(&newer).unwrap_err(), EvidenceError::NewerFormat(FORMAT + 1));
        assert!(from_bytes(&newer).unwrap_err().to_string().contains("newer reconscope"));
        for cut in [6, bytes.len() / 2, bytes.len() - 1] {
            assert_eq!(from_bytes(&bytes[..cut]).unwrap_err(), EvidenceError::Truncated, "cut at {cut}");
        }
        // Valid deflate of JSON that is not evidence.
        let mut enc = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(br#"{"meta":1}"#).unwrap();
        let mut other = b"RSEV\x01".to_vec();
        other.extend(enc.finish().unwrap());
        assert!(matches!(from_bytes(&other).unwrap_err(), EvidenceError::Damaged(_)));
    }

    #[test]
    fn indexes_past_the_carried_data_are_refused() {
        let a: Analysis = serde_json::from_value(serde_json::json!({
            "controllers": [], "reconciles": [], "record_refs": [], "elections": [], "client_warnings": [],
            "objects": [],
            "findings": [{"kind": "slow-reconcile", "severity": "warning", "controller": 3, "object": null,
                "start": {"nanos": 0, "digits": 0}, "end": {"nanos": 0, "digits": 0},
                "reconciles": [7], "elections": [], "message": ""}]
        }))
        .unwrap();
        let ev = Evidence { meta: EvidenceMeta::default(), files: Vec::new(), analysis: a };
        assert!(matches!(from_bytes(&to_bytes(&ev)).unwrap_err(), EvidenceError::Damaged(m) if m.contains("finding 0")));
    }
}
