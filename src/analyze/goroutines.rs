//! Where goroutine dumps meet the timeline: each dump found in the inputs
//! gets a time (and says where it came from), its stacks are grouped, busy
//! controller-runtime workers are matched to their controller instance,
//! and a blocked worker is linked to the stalled-worker finding (or the
//! open reconcile) it explains. The finding's sentence then names the call.
//!
//! A dump's time comes from, in order: the wrapper's collection time
//! (kubectl `--timestamps`, CRI), a timestamp in the file name, the archive
//! member's modification time, the log lines around it, the time the
//! person gives (`AnalyzeOptions::dump_time`).
//!
//! Go prints `[select, 15 minutes]` from the first garbage collection that
//! saw the goroutine blocked, not from when it blocked, so a goroutine
//! waiting M minutes at dump time T blocked at T−M or earlier: up to about
//! two minutes earlier (sysmon forces a GC at least every two minutes).

use crate::analyze::model::{Analysis, Blocked, DumpTimeSource, FindingKind, GoFrame, GoroutineDump, GoroutineGroup};
use crate::analyze::AnalyzeOptions;
use crate::goroutine::{self, DumpKind, Frame, Role};
use crate::model::{Format, ParsedFile, Timestamp};
use crate::time::{checked_civil_nanos, honest_duration, NANOS_PER_SEC};

use super::findings::{append, clock, Sentence};

/// Goroutine ids kept per group.
const MAX_IDS: usize = 50;

/// How much earlier than `T − M` a goroutine may have blocked: Go's wait
/// count starts at the first GC that saw it blocked (at most ~2 minutes
/// late), and minutes are rounded down.
const GC_LAG_NANOS: i64 = 3 * 60 * NANOS_PER_SEC;

/// Reads every goroutine dump in `files` (only files whose parser saw a Go
/// traceback are scanned) into `a.dumps` and `a.goroutines`.
pub fn read(a: &mut Analysis, files: &[ParsedFile], opts: &AnalyzeOptions) {
    for f in files {
        if f.counts.format(Format::GoTraceback) == 0 {
            continue;
        }
        let dumps: Vec<goroutine::Dump> = dump_regions(f)
            .into_iter()
            .filter_map(|r| Some((f.bytes.get(r.bytes)?, r.first_line)))
            .filter(|(b, _)| goroutine::has_dump(b))
            .flat_map(|(b, first_line)| goroutine::parse_dumps(&b, first_line))
            .collect();
        for d in dumps {
            let (time, time_source) = match dump_time(f, &d, opts) {
                Some((t, s)) => (Some(t), Some(s)),
                None => (None, None),
            };
            let dump = a.dumps.len();
            a.dumps.push(GoroutineDump {
                path: f.path.clone(),
                first_line: d.first_line,
                last_line: d.last_line,
                kind: match d.kind {
                    DumpKind::Traceback => "traceback",
                    DumpKind::Debug1 => "debug1",
                }
                .to_string(),
                preamble: d.preamble.clone(),
                goroutines: d.goroutines.iter().map(|g| g.count).sum(),
                time,
                time_source,
                notes: d.diagnostics.iter().map(|n| format!("line {}: {}", n.line, n.message)).collect(),
            });
            for (gi, g) in goroutine::group(&d.goroutines).into_iter().enumerate() {
                let controller = g.info.reconciler.as_deref().and_then(|r| controller_of(a, r));
                let blocked_since_at_most = match (time, g.max_wait_minutes) {
                    (Some(t), Some(m)) if m > 0 => minutes_before(t, m).map(|n| t.at(n, 0)),
                    _ => None,
                };
                a.goroutines.push(GoroutineGroup {
                    dump,
                    group: gi,
                    count: g.count,
                    ids: g.ids.iter().copied().take(MAX_IDS).collect(),
                    state: g.state.clone(),
                    min_wait_minutes: g.min_wait_minutes,
                    max_wait_minutes: g.max_wait_minutes,
                    role: match g.info.role {
                        Role::BusyWorker => "busy-worker",
                        Role::IdleWorker => "idle-worker",
                        Role::Other => "other",
                    }
                    .to_string(),
                    controller,
                    reconciler: g.info.reconciler.clone(),
                    call: g.info.call.as_ref().map(go_frame),
                    under: g.info.under.as_ref().map(go_frame),
                    blocked_since_at_most,
                    frames: g.frames.iter().map(go_frame).collect(),
                    created_by: g.created_by.as_ref().map(|f| f.func.clone()),
                    reconcile: None,
                    finding: None,
                });
            }
        }
    }
}

/// A stretch of a file that holds Go traceback records.
struct Region {
    bytes: std::ops::Range<usize>,
    first_line: u32,
}

/// The parts of a file to read dumps from: the parser's Go traceback
/// records, with the lines between two of them that are at most
/// [`goroutine::WINDOW_LINES`] lines apart (log lines written into a dump),
/// so that a big log with one dump is not scanned whole.
fn dump_regions(f: &ParsedFile) -> Vec<Region> {
    let mut out: Vec<(Region, u32)> = Vec::new();
    for r in f.records.iter().filter(|r| r.format == Format::GoTraceback) {
        let (start, end) = (r.offset as usize, r.offset as usize + r.byte_len as usize);
        let last_line = r.line + r.line_count.max(1) - 1;
        match out.last_mut() {
            Some((reg, reg_last)) if r.line <= *reg_last + goroutine::WINDOW_LINES + 1 => {
                reg.bytes.end = end.max(reg.bytes.end);
                *reg_last = last_line;
            }
            _ => out.push((Region { bytes: start..end, first_line: r.line }, last_line)),
        }
    }
    out.into_iter()
        .map(|(mut reg, _)| {
            reg.bytes.end = reg.bytes.end.min(f.bytes.len());
            reg.bytes.start = reg.bytes.start.min(reg.bytes.end);
            reg
        })
        .collect()
}

fn go_frame(f: &Frame) -> GoFrame {
    GoFrame { func: f.func.clone(), file: f.file.clone(), line: f.line }
}

/// The controller instance a reconciler type belongs to:
/// `TenantControlPlaneReconciler` → the instance logging
/// `"controller": "tenantcontrolplane"` (or of that kind). With two
/// instances of one name, the one with more reconciles.
fn controller_of(a: &Analysis, reconciler: &str) -> Option<usize> {
    let key = goroutine::controller_key(reconciler);
    let norm = |s: &str| s.to_ascii_lowercase().replace(['-', '_', '.'], "");
    a.controllers
        .iter()
        .enumerate()
        .filter(|(_, c)| norm(&c.controller) == key || c.kind.as_deref().is_some_and(|k| norm(k) == key))
        .max_by_key(|(i, c)| (c.reconciles, usize::MAX - i))
        .map(|(i, _)| i)
}

/// When a dump was taken, and from what.
fn dump_time(f: &ParsedFile, d: &goroutine::Dump, opts: &AnalyzeOptions) -> Option<(Timestamp, DumpTimeSource)> {
    if let Some(t) = d.collected {
        return Some((t, DumpTimeSource::Wrapper));
    }
    let base = f.path.rsplit(['/', '!', '\\']).next().unwrap_or(&f.path);
    if let Some(nanos) = time_in_name(base) {
        return Some((Timestamp::new(nanos, 0), DumpTimeSource::FileName));
    }
    if let Some(secs) = f.mtime_secs.filter(|_| f.path.contains('!')) {
        return Some((Timestamp::new(secs.saturating_mul(NANOS_PER_SEC), 0), DumpTimeSource::ArchiveMtime));
    }
    // The last timed line before the dump, else the first after it.
    let before = f.records.iter().rev().find(|r| r.line < d.first_line && r.time.is_some() && r.format != Format::GoTraceback);
    let after = || f.records.iter().find(|r| r.line > d.last_line && r.time.is_some() && r.format != Format::GoTraceback);
    if let Some(t) = before.or_else(after).and_then(|r| r.time) {
        return Some((t, DumpTimeSource::LogLines));
    }
    opts.dump_time_nanos.map(|n| (Timestamp::new(n, 0), DumpTimeSource::User))
}

/// A UTC time written in a file name: `20260526T164500Z`,
/// `2026-05-26T16-45-00Z`, `2026-05-26_16:45:00`, `20260526-164500`, or
/// Unix seconds (`goroutines-1779813900.txt`).
pub fn time_in_name(name: &str) -> Option<i64> {
    let b = name.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_digit() && (i == 0 || !b[i - 1].is_ascii_digit()) {
            if let Some(n) = civil_at(&b[i..]) {
                return Some(n);
            }
            let run = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
            if run == 10 {
                let secs: i64 = name[i..i + 10].parse().ok()?;
                if (1_000_000_000..4_000_000_000).contains(&secs) {
                    return Some(secs * NANOS_PER_SEC);
                }
            }
            i += run;
        } else {
            i += 1;
        }
    }
    None
}

/// `YYYY MM DD HH MM SS` at the start of `b`, each group possibly after one
/// separator (`-`, `:`, `T`, `_`, `.`).
fn civil_at(b: &[u8]) -> Option<i64> {
    let widths = [4, 2, 2, 2, 2, 2];
    let mut vals = [0u32; 6];
    let mut i = 0;
    for (k, w) in widths.iter().enumerate() {
        if k > 0 && b.get(i).is_some_and(|c| b"-:T_.".contains(c)) {
            i += 1;
        }
        let digits = b.get(i..i + w)?;
        if !digits.iter().all(u8::is_ascii_digit) {
            return None;
        }
        vals[k] = digits.iter().fold(0, |v, d| v * 10 + u32::from(d - b'0'));
        i += w;
    }
    if b.get(i).is_some_and(u8::is_ascii_digit) {
        return None;
    }
    let [y, mo, d, h, mi, s] = vals;
    // A date that does not exist (Feb 31) is no time.
    if !(1970..2200).contains(&y) {
        return None;
    }
    checked_civil_nanos(i64::from(y), mo, d, h, mi, s, 0)
}

/// Links busy workers of each dump to the stalled-worker finding or open
/// reconcile they explain, and writes the blocked-in call into the
/// finding's sentence. A stalled-worker finding with no dump to explain it
/// says what to collect next time.
/// What to run to collect a goroutine dump next time (README's goroutine
/// section): one command a line.
pub const COLLECT_GOROUTINES: &str =
    "kubectl port-forward deploy/<manager> 6060 &\ncurl -s 'http://127.0.0.1:6060/debug/pprof/goroutine?debug=2' > goroutines-$(date -u +%Y%m%dT%H%M%SZ).txt";

pub fn link(a: &mut Analysis) {
    for gi in 0..a.goroutines.len() {
        let g = &a.goroutines[gi];
        if g.role != "busy-worker" {
            continue;
        }
        let Some(t) = a.dumps[g.dump].time else { continue };
        // When it blocked: at or before T − M, and not long before that.
        let wait = i64::from(g.max_wait_minutes.unwrap_or(0)).saturating_mul(60 * NANOS_PER_SEC);
        let (b_lo, b_hi) = (t.nanos.saturating_sub(wait).saturating_sub(GC_LAG_NANOS), t.nanos.saturating_sub(wait));
        let fits_controller = |c: Option<usize>| g.controller.is_none() || c == g.controller;
        let finding = a.findings.iter().position(|f| {
            f.kind == FindingKind::StalledWorker
                && f.blocked.is_none()
                && fits_controller(f.controller)
                && f.start.nanos.saturating_sub(60 * NANOS_PER_SEC) <= b_hi
                && b_lo <= f.end.nanos
                && f.start.nanos <= t.nanos
                // (A stall to the log's end goes on after it: a dump taken
                // later shows it too.)
                && (t.nanos <= f.end.nanos || f.silence.as_ref().is_some_and(|s| s.to_log_end))
        });
        let reconcile = match finding {
            Some(fi) => a.findings[fi].reconciles.first().copied(),
            // An open reconcile of its controller that was in flight at T
            // (its latent start counts), the one that began nearest the
            // blocking time.
            None => a
                .reconciles
                .iter()
                .enumerate()
                .filter(|(_, r)| fits_controller(Some(r.controller)) && r.start().nanos <= t.nanos && t.nanos <= r.last.nanos)
                .min_by_key(|(i, r)| (r.start().nanos.abs_diff(b_hi), *i))
                .map(|(i, _)| i),
        };
        let call = g.call.as_ref().or(g.frames.first()).map(|f| f.func.clone());
        let under = g.under.as_ref().filter(|u| Some(&u.func) != call.as_ref()).map(|f| f.func.clone());
        let g = &mut a.goroutines[gi];
        g.reconcile = reconcile;
        g.finding = finding;
        let Some(fi) = finding else { continue };
        let Some(call) = call else { continue };
        let g = &a.goroutines[gi];
        let d = &a.dumps[g.dump];
        let source = d.time_source.map_or("", DumpTimeSource::describe);
        let waited = match g.max_wait_minutes {
            Some(m) if m > 0 => {
                Sentence::default().text(format!(" blocked {m}+ minutes (")).code(format!("[{}, {m} minutes]", g.state)).text(match minutes_before(t, m) {
                    Some(since) => format!(
                        ": since {} or earlier, as Go counts the wait from the first garbage collection that saw it, up to about 2 minutes late)",
                        clock(Timestamp::new(since, 0)),
                    ),
                    // (More minutes than a time before the dump can hold.)
                    None => ")".to_string(),
                })
            }
            // Not waiting at all: on a thread, or ready for one.
            _ if !g.is_blocked() => Sentence::default().text(format!(" {} (", crate::goroutine::doing(&g.state))).code(format!("[{}]", g.state)).text(")"),
            _ => Sentence::default().text(" waiting (").code(format!("[{}]", g.state)).text(")"),
        };
        let under_clause = under.as_deref().map_or(Sentence::default(), |u| Sentence::default().text(" under ").code(u));
        let base = d.path.rsplit(['/', '!', '\\']).next().unwrap_or(&d.path);
        let sentence = Sentence::default()
            .text(format!(
                " A goroutine dump at {} ({base}, {source}) shows {}",
                clock(t),
                if g.count == 1 { "the worker".to_string() } else { format!("{} workers", g.count) }
            ))
            .then(waited)
            .text(" in ")
            .code(call.clone())
            .then(under_clause)
            .text(".");
        let f = &mut a.findings[fi];
        append(f, sentence);
        f.blocked = Some(Blocked { goroutine: gi, call, under });
    }
    for f in &mut a.findings {
        if f.kind != FindingKind::StalledWorker || f.blocked.is_some() {
            continue;
        }
        let covering: Vec<String> = a.dumps.iter().filter_map(|d| d.time).map(clock).collect();
        if covering.is_empty() && !a.dumps.is_empty() {
            let s = Sentence::default()
                .text(" A goroutine dump is in the input but nothing dates it (no wrapper time, no time in its file name, no archive time, no log lines around it): give its time (")
                .code("--dump-time")
                .text(", or in the app's goroutine panel) to match it to this stall.");
            append(f, s);
        } else if covering.is_empty() {
            let s = Sentence::default()
                .text(" No goroutine dump was in the input, so the call it waited in is unknown: next time run the manager with pprof on (kamaji: ")
                .code("--pprof-bind-address=:6060")
                .text(") and, when the suite fails, save ")
                .command(COLLECT_GOROUTINES)
                .text(format!(" (a stall of {} leaves time for it).", honest_duration(f.start, f.end)));
            append(f, s);
        } else {
            append(
                f,
                Sentence::default().text(if covering.len() == 1 {
                    format!(" The goroutine dump in the input (at {}) shows no busy worker of this controller during the stall.", covering[0])
                } else {
                    format!(" The goroutine dumps in the input (at {}) show no busy worker of this controller during the stall.", covering.join(", "))
                }),
            );
        }
    }
}

/// The time `m` minutes before `t`, in nanoseconds; `None` when a time
/// cannot hold it (a dump's minutes are the dump's text: any number).
fn minutes_before(t: Timestamp, m: u32) -> Option<i64> {
    i64::from(m).checked_mul(60 * NANOS_PER_SEC).and_then(|w| t.nanos.checked_sub(w))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A dump's minutes are any number it writes: more than a time before
    /// the dump holds is no time, never a wrap.
    #[test]
    fn minutes_before_a_time_are_checked() {
        let t = Timestamp::new(90 * 60 * NANOS_PER_SEC, 0);
        assert_eq!(minutes_before(t, 30), Some(60 * 60 * NANOS_PER_SEC));
        assert_eq!(minutes_before(t, 90), Some(0));
        assert_eq!(minutes_before(Timestamp::new(i64::MIN + 1, 0), 1), None);
        // 8,171 years of minutes.
        assert_eq!(minutes_before(t, u32::MAX), None);
    }

    #[test]
    fn only_the_dump_part_of_a_log_is_read() {
        let line = |i: usize| format!("2026-05-26T16:{:02}:{:02}Z\tINFO\tline {i}\n", i / 60 % 60, i % 60);
        let mut text: String = (0..1000).map(line).collect();
        text.push_str("SIGQUIT: quit\n\ngoroutine 1 [select, 3 minutes]:\nmain.main()\n\t/m.go:1 +0x1\n\n");
        text.push_str(&line(5000));
        text.push_str("goroutine 2 [running]:\nmain.f()\n\t/m.go:2 +0x1\n");
        text.extend((1000..2000).map(line));
        let f = crate::parse::parse_file("m.log", text.into_bytes(), &Default::default());
        let regions = dump_regions(&f);
        assert_eq!(regions.len(), 1, "the log line inside the dump does not split it");
        let r = &regions[0];
        assert_eq!(r.first_line, 1001);
        let part = f.bytes.get(r.bytes.clone()).unwrap();
        let part = std::str::from_utf8(&part).unwrap();
        assert!(part.starts_with("SIGQUIT: quit") && part.ends_with("\t/m.go:2 +0x1"), "{part:?}");
        let dumps = goroutine::parse_dumps(part.as_bytes(), r.first_line);
        assert_eq!(dumps.len(), 1);
        assert_eq!(dumps[0].goroutines.len(), 2);
        assert_eq!(dumps[0].first_line, 1001);
    }

    #[test]
    fn times_in_file_names() {
        let t = |s: &str| time_in_name(s).map(|n| crate::time::format_rfc3339(Timestamp::new(n, 0)));
        let want = Some("2026-05-26T16:45:00Z".to_string());
        assert_eq!(t("kamaji-goroutines-20260526T164500Z.txt"), want);
        assert_eq!(t("goroutines-2026-05-26T16-45-00Z.txt"), want);
        assert_eq!(t("dump_2026-05-26_16:45:00.log"), want);
        assert_eq!(t("20260526-164500.txt"), want);
        assert_eq!(t("goroutines-1779813900.txt"), want);
        assert_eq!(t("goroutine-v2.txt"), None);
        assert_eq!(t("pod-7d9f8b6c5-x2x9k.log"), None);
        assert_eq!(t("20261399T999999Z.txt"), None, "not a date");
        assert_eq!(t("goroutines-20250231T101500Z.txt"), None, "Feb 31 does not exist");
        assert_eq!(t("goroutines-20240229T101500Z.txt"), Some("2024-02-29T10:15:00Z".to_string()));
        assert_eq!(t("goroutines-20250229T101500Z.txt"), None, "2025 is not a leap year");
        assert_eq!(t("123456789012345678"), None);
    }
}
