//! Lines that are about the process rather than one reconcile: throttled
//! API requests (client-go's rate limiter, the API server's 429s) and the
//! manager's own life (start-ups, its leader lease, exits). They usually
//! carry no reconcileID, so the one pass of [`crate::analyze::reconciles`]
//! picks them out with [`may_matter`] (as it does the etcd client's
//! warnings) and this module reads only those.
//!
//! Findings:
//! - `throttled`: per log file, throttled requests grouped into windows. A
//!   window ends when no throttled request (or 429) is logged for
//!   [`QUIET_NANOS`] after the last one; it starts where its first request
//!   began waiting (the line's time minus its wait).
//! - `lease-lost`: client-go's `failed to renew lease` (the renew loop gave
//!   up: leadership is gone) or `leader election lost` / `leaderelection
//!   lost` (the manager's error, the KCM's fatal line). Transient renew
//!   failures (`error retrieving resource lock`, `Failed to update lock`)
//!   followed by a renewal are counted, never a finding.
//! - `restart`: a container's current log beside its previous one (see
//!   [`pair_of`]).

use std::sync::LazyLock;

use memchr::memmem::Finder;

use crate::analyze::findings::{clock, cut_quote, Sentence};
use crate::analyze::model::{Analysis, Detail, Finding, FindingKind, Leadership, LeaseLoss, Outcome, ResourceCount, Restart, Severity, Throttle};
use crate::analyze::reconciles::time_of;
use crate::analyze::{AnalyzeOptions, RecordRef};
use crate::model::{Level, ParsedFile, Record, Timestamp};
use crate::time::{honest_duration, human_duration, NANOS_PER_SEC};
use crate::words::plural;

/// A throttling window ends after this long without a throttled request.
pub const QUIET_NANOS: i64 = 60 * NANOS_PER_SEC;

/// How the messages read here begin (the 429 and loss words are looked
/// for anywhere): prefixes cost next to nothing on the one pass over every
/// untagged record (an etcd log is all untagged lines).
const PREFIXES: &[&[u8]] = &[
    b"Waited for ",
    b"Waited before sending request",
    b"Throttling request took ",
    b"starting manager",
    b"Starting ",
    b"attempting to acquire leader lease",
    b"Attempting to acquire leader lease",
    b"successfully acquired lease",
    b"Successfully acquired lease",
    b"failed to renew lease",
    b"Failed to renew lease",
    b"error retrieving resource lock",
    b"Error retrieving resource lock",
    b"Failed to update lock",
    b"failed to update lock",
    b"problem running manager",
    b"unable to run the manager",
    b"panic:",
    b"fatal error:",
    b"Stopping and waiting for non leader election runnables",
];

static LOST: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"lection lost"));
static EQUESTS: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"equests"));

/// Whether a raw message may be a line this module reads: the cheap look
/// of the one pass over every record.
pub fn may_matter(raw: &[u8]) -> bool {
    let raw = raw.strip_prefix(b"\"").unwrap_or(raw);
    PREFIXES.iter().any(|p| raw.starts_with(p)) || LOST.find(raw).is_some() || says_too_many(raw)
}

/// Whether a warning or error line's `error` field may say 429.
pub fn error_may_matter(f: &ParsedFile, r: &Record) -> bool {
    let fields = f.fields(r);
    f.find_error(&fields).is_some_and(|fl| says_too_many(&f.span_bytes(fl.value)))
}

/// `too many requests`, `Too Many Requests`, `TooManyRequests`: the API
/// server's 429, in any case.
fn says_too_many(b: &[u8]) -> bool {
    if EQUESTS.find(b).is_none() {
        return false;
    }
    let s = String::from_utf8_lossy(b).to_ascii_lowercase();
    s.contains("too many requests") || s.contains("toomanyrequests")
}

/// One throttled request.
#[derive(Clone, Debug)]
struct Throttled {
    rr: RecordRef,
    time: Timestamp,
    /// How long it waited (none for a 429).
    wait: Option<i64>,
    resource: Option<String>,
    too_many: bool,
}

/// A Go `time.Duration` as `String()` writes it (`1.09778054s`,
/// `197.657513ms`, `1m2.5s`, `850µs`, `2h0m0s`), in nanoseconds, its
/// decimals exact (digits past the nanosecond dropped).
pub fn go_duration(s: &str) -> Option<i64> {
    let mut rest = s.trim();
    if rest.is_empty() {
        return None;
    }
    let mut total: i64 = 0;
    while !rest.is_empty() {
        let int_end = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
        let int: i64 = if int_end == 0 { 0 } else { rest[..int_end].parse().ok()? };
        rest = &rest[int_end..];
        let (mut frac, mut frac_digits) = (0i64, 0u32);
        if let Some(r) = rest.strip_prefix('.') {
            let end = r.find(|c: char| !c.is_ascii_digit()).unwrap_or(r.len());
            for d in r[..end].bytes().take(18) {
                frac = frac * 10 + i64::from(d - b'0');
                frac_digits += 1;
            }
            rest = &r[end..];
        } else if int_end == 0 {
            return None;
        }
        let unit_end = rest.find(|c: char| c.is_ascii_digit() || c == '.').unwrap_or(rest.len());
        let unit: i64 = match &rest[..unit_end] {
            "ns" => 1,
            "us" | "µs" | "μs" => 1_000,
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            "m" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            _ => return None,
        };
        rest = &rest[unit_end..];
        let frac_nanos = (i128::from(frac) * i128::from(unit) / 10i128.pow(frac_digits)) as i64;
        total = total.checked_add(int.checked_mul(unit)?)?.checked_add(frac_nanos)?;
    }
    Some(total)
}

/// The resource of an API path: `secrets`, `leases.coordination.k8s.io`,
/// `pods/status`, `discovery` for `/api`, `/apis/<group>/<version>`.
pub fn resource_of(url: &str) -> Option<String> {
    let path = match url.find("://") {
        Some(i) => &url[i + 3..][url[i + 3..].find('/')?..],
        None => url,
    };
    let path = path.split(['?', '#']).next().unwrap_or("");
    let segs: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let (group, mut rest) = match segs.first().copied() {
        Some("api") => ("", segs.get(2..).unwrap_or(&[])),
        Some("apis") => (segs.get(1).copied().unwrap_or(""), segs.get(3..).unwrap_or(&[])),
        _ => return None,
    };
    if rest.first() == Some(&"watch") {
        rest = &rest[1..];
    }
    if rest.first() == Some(&"namespaces") && rest.len() >= 3 {
        rest = &rest[2..];
    }
    let Some(res) = rest.first() else { return Some("discovery".into()) };
    let name = if group.is_empty() { res.to_string() } else { format!("{res}.{group}") };
    Some(match rest.get(2) {
        Some(sub) => format!("{name}/{sub}"),
        None => name,
    })
}

/// `GET:https://…/api/v1/namespaces/x/secrets/y` after `request: `.
fn request_resource(m: &str) -> Option<String> {
    let i = m.find("request: ")?;
    let req = m[i + 9..].split_whitespace().next()?;
    let url = req.split_once(':').map_or(req, |(_, u)| u);
    resource_of(url)
}

/// A throttled request in a record: client-go's `Waited for 1.09s due to
/// client-side throttling, not priority and fairness, request: GET:…`,
/// `Waited for 580ms, request: … retry-reason: due to server-side
/// throttling`, the older `Throttling request took 826ms, request: …`,
/// the structured `Waited before sending request` (`delay`, `verb`,
/// `URL`), or a 429 in the message or its `error` field.
fn throttled_of(f: &ParsedFile, r: &Record, rr: RecordRef, time: Timestamp) -> Option<Throttled> {
    let m = f.message(r);
    let wait_text = |rest: &str| rest.split([' ', ',']).next().and_then(go_duration);
    if let Some(rest) = m.strip_prefix("Waited for ") {
        if m.contains("throttling") {
            return Some(Throttled { rr, time, wait: wait_text(rest), resource: request_resource(&m), too_many: false });
        }
    }
    if let Some(rest) = m.strip_prefix("Throttling request took ") {
        return Some(Throttled { rr, time, wait: wait_text(rest), resource: request_resource(&m), too_many: false });
    }
    let fields = f.fields(r);
    let field = |key| f.find_field(&fields, key);
    if m.starts_with("Waited before sending request") {
        let wait = field("delay").and_then(|d| go_duration(&f.value(d)));
        let resource = field("URL").or_else(|| field("url")).and_then(|u| resource_of(&f.value(u)));
        return Some(Throttled { rr, time, wait, resource, too_many: false });
    }
    let err = f.find_error(&fields).map(|fl| f.span_bytes(fl.value));
    if says_too_many(&f.span_bytes(r.message)) || (r.level >= Level::Warn && err.is_some_and(|e| says_too_many(&e))) {
        return Some(Throttled { rr, time, wait: None, resource: None, too_many: true });
    }
    None
}

/// What a line says of the manager's life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Life {
    /// `starting manager`, `Starting EventSource / Controller / workers`.
    Start,
    /// `attempting to acquire leader lease`.
    Attempt,
    /// `successfully acquired lease`.
    Acquired,
    /// A renewal that failed, and may be retried.
    RenewFailed,
    /// Leadership is gone.
    Lost,
    /// `Stopping and waiting for non leader election runnables`: the
    /// manager began to stop.
    Stopping,
    Exit(Exit),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Exit {
    Panic,
    Fatal,
    /// `problem running manager`.
    Error,
}

fn starts_ci(m: &str, p: &str) -> bool {
    m.len() >= p.len() && m.as_bytes()[..p.len()].eq_ignore_ascii_case(p.as_bytes())
}

fn life_of(f: &ParsedFile, r: &Record) -> Option<Life> {
    let m = f.message(r);
    let m = m.trim_start_matches('"');
    let lost_words = |s: &str| s.contains("leader election lost") || s.contains("leaderelection lost");
    if starts_ci(m, "failed to renew lease") || lost_words(m) {
        return Some(Life::Lost);
    }
    if starts_ci(m, "problem running manager") || starts_ci(m, "unable to run the manager") {
        return Some(if f.field(r, "error").is_some_and(|e| lost_words(&e)) { Life::Lost } else { Life::Exit(Exit::Error) });
    }
    if m.starts_with("panic:") || m.starts_with("fatal error:") {
        return Some(Life::Exit(if m.starts_with("panic:") { Exit::Panic } else { Exit::Fatal }));
    }
    if r.level == Level::Fatal {
        return Some(Life::Exit(Exit::Fatal));
    }
    if starts_ci(m, "starting manager") || m.starts_with("Starting EventSource") || m.starts_with("Starting Controller") || m.starts_with("Starting workers") {
        return Some(Life::Start);
    }
    if starts_ci(m, "attempting to acquire leader lease") {
        return Some(Life::Attempt);
    }
    if starts_ci(m, "successfully acquired lease") {
        return Some(Life::Acquired);
    }
    if starts_ci(m, "error retrieving resource lock") || starts_ci(m, "failed to update lock") {
        return Some(Life::RenewFailed);
    }
    // The top-level manager's (a nested manager, kamaji's soot managers,
    // logs it under a logger of its own while its process goes on).
    if m.starts_with("Stopping and waiting for non leader election runnables") && f.logger(r).is_empty() {
        return Some(Life::Stopping);
    }
    None
}

/// The lease a line names: `kube-system/kube-controller-manager` in
/// `attempting to acquire leader lease  kube-system/kube-controller-manager...`,
/// `failed to renew lease cnpg-system/db9c8771.cnpg.io: …`, or its `lock` field.
fn lease_in(f: &ParsedFile, r: &Record) -> Option<String> {
    if let Some(l) = f.field(r, "lock") {
        return Some(l.into_owned());
    }
    let m = f.message(r);
    let i = m.find(" lease ")?;
    let w = m[i + 7..].split_whitespace().next()?;
    let w = w.trim_end_matches("...").trim_end_matches(':');
    w.contains('/').then(|| w.to_string())
}

/// A line of the manager's life in one file.
#[derive(Clone, Debug)]
struct Event {
    rr: RecordRef,
    time: Timestamp,
    life: Life,
}

/// Reads the picked records and adds `throttled`, `lease-lost` and
/// `restart` findings to `a.findings`.
pub fn find(a: &mut Analysis, files: &[ParsedFile], records: &[RecordRef], opts: &AnalyzeOptions) {
    let mut throttled: Vec<Vec<Throttled>> = vec![Vec::new(); files.len()];
    let mut life: Vec<Vec<Event>> = vec![Vec::new(); files.len()];
    for &rr in records {
        let f = &files[rr.file as usize];
        let r = &f.records[rr.record as usize];
        let Some(time) = time_of(r) else { continue };
        if let Some(t) = throttled_of(f, r, rr, time) {
            throttled[rr.file as usize].push(t);
        } else if let Some(l) = life_of(f, r) {
            life[rr.file as usize].push(Event { rr, time, life: l });
        }
    }
    // A 429 a failed reconcile returned (`Reconciler error` with the
    // server's answer in its error) is one too.
    for rc in &a.reconciles {
        if rc.outcome != Outcome::Error || !rc.error.as_deref().is_some_and(|e| says_too_many(e.as_bytes())) {
            continue;
        }
        for &rr in a.records_of(rc) {
            let f = &files[rr.file as usize];
            let r = &f.records[rr.record as usize];
            if r.level < Level::Warn || records.binary_search(&rr).is_ok() {
                continue;
            }
            if let (Some(time), true) = (time_of(r), error_may_matter(f, r)) {
                throttled[rr.file as usize].push(Throttled { rr, time, wait: None, resource: None, too_many: true });
            }
        }
    }
    a.leadership = leadership(files, &life);
    let pairs = pairs(files);
    let losses = life.iter().any(|ev| ev.iter().any(|x| x.life == Life::Lost));
    if throttled.iter().all(Vec::is_empty) && !losses && pairs.is_empty() {
        return;
    }
    // Each reconcile's file (that of its first line) and its span.
    let spans: Vec<(u32, Timestamp, Timestamp)> =
        a.reconciles.iter().map(|r| (a.records_of(r).first().map_or(u32::MAX, |rr| rr.file), r.start(), r.last)).collect();
    let mut out = Vec::new();
    if throttled.iter().any(|t| !t.is_empty()) {
        let by_start = ByStart::of(&spans);
        for (fi, mut ts) in throttled.into_iter().enumerate() {
            ts.sort_by_key(|t| (t.time, t.rr));
            throttle_windows(a, &files[fi], fi as u32, &ts, &spans, &by_start, &mut out);
        }
    }
    if losses || !pairs.is_empty() {
        let ended = ended(a, files, &spans);
        for (fi, ev) in life.iter().enumerate() {
            lease_losses(a, files, fi, ev, &spans, &ended, opts, &mut out);
        }
        restarts(a, files, &pairs, &life, &spans, &ended, opts, &mut out);
    }
    a.findings.extend(out);
}

/// When each log's process held its leader lease: from `successfully
/// acquired lease` to its loss, its manager's stop or exit (`None`: held
/// to the log's last line, as far as it shows).
fn leadership(files: &[ParsedFile], life: &[Vec<Event>]) -> Vec<Leadership> {
    let mut out = Vec::new();
    for (fi, ev) in life.iter().enumerate() {
        let mut open: Option<Timestamp> = None;
        for x in ev {
            match x.life {
                Life::Acquired if open.is_none() => open = Some(x.time),
                Life::Lost | Life::Stopping | Life::Exit(_) => {
                    if let Some(acquired) = open.take() {
                        out.push(Leadership { source: files[fi].path.clone(), acquired, lost: Some(x.time) });
                    }
                }
                _ => {}
            }
        }
        if let Some(acquired) = open {
            out.push(Leadership { source: files[fi].path.clone(), acquired, lost: None });
        }
    }
    out
}

/// A wait as client-go writes it, to the millisecond: `197ms`, `1.09s`,
/// `22.824s`; a minute or more as [`human_duration`].
pub fn wait_text(nanos: i64) -> String {
    let ms = nanos.saturating_add(500_000) / 1_000_000;
    if ms < 1000 {
        format!("{ms}ms")
    } else if ms < 60_000 {
        let s = format!("{}.{:03}", ms / 1000, ms % 1000);
        format!("{}s", s.trim_end_matches('0').trim_end_matches('.'))
    } else {
        human_duration(nanos)
    }
}

/// `a (3), b (1)`: the first five resources, most first.
fn resources_text(rs: &[ResourceCount]) -> String {
    let shown: Vec<String> = rs.iter().take(5).map(|r| format!("{} ({})", r.resource, r.count)).collect();
    let more = if rs.len() > 5 { format!(" and {} more", rs.len() - 5) } else { String::new() };
    format!("{}{more}", shown.join(", "))
}

/// `reconcile a of ns/x, reconcile b of ns/y and 3 more`.
fn reconciles_text(a: &Analysis, idx: &[usize]) -> String {
    let shown: Vec<String> = idx
        .iter()
        .take(5)
        .map(|&i| {
            let r = &a.reconciles[i];
            format!("{} of {}", r.reconcile_id, r.object.as_ref().map_or("an unknown object".to_string(), |o| o.to_string()))
        })
        .collect();
    let more = if idx.len() > 5 { format!(" and {} more", idx.len() - 5) } else { String::new() };
    format!("{}{more}", shown.join(", "))
}

/// The reconciles by start, with the latest end among each prefix: the
/// reconciles overlapping a window are found from the window's end back to
/// where no earlier one reaches its start (a log may have a million
/// reconciles and a thousand windows).
struct ByStart {
    /// (start, reconcile index), sorted.
    order: Vec<(Timestamp, usize)>,
    /// The latest end among `order[..=i]`.
    reach: Vec<Timestamp>,
}

impl ByStart {
    fn of(spans: &[(u32, Timestamp, Timestamp)]) -> ByStart {
        let mut order: Vec<(Timestamp, usize)> = spans.iter().enumerate().map(|(i, s)| (s.1, i)).collect();
        order.sort_unstable();
        let mut reach = Vec::with_capacity(order.len());
        for &(_, i) in &order {
            let r = reach.last().map_or(spans[i].2, |&m: &Timestamp| m.max(spans[i].2));
            reach.push(r);
        }
        ByStart { order, reach }
    }

    /// Reconciles of file `fi` that overlap `start..=end`, in index order.
    fn overlapping(&self, spans: &[(u32, Timestamp, Timestamp)], fi: u32, start: Timestamp, end: Timestamp) -> Vec<usize> {
        let mut k = self.order.partition_point(|&(s, _)| s <= end);
        let mut out = Vec::new();
        while k > 0 && self.reach[k - 1] >= start {
            k -= 1;
            let i = self.order[k].1;
            if spans[i].0 == fi && spans[i].2 >= start {
                out.push(i);
            }
        }
        out.sort_unstable();
        out
    }
}

/// At most this many reconciles are named in a throttling finding (all are counted).
const MAX_NAMED: usize = 50;

fn throttle_windows(
    a: &Analysis,
    f: &ParsedFile,
    fi: u32,
    ts: &[Throttled],
    spans: &[(u32, Timestamp, Timestamp)],
    by_start: &ByStart,
    out: &mut Vec<Finding>,
) {
    let mut i = 0;
    while i < ts.len() {
        let mut j = i + 1;
        while j < ts.len() && ts[j].time.nanos.saturating_sub(ts[j - 1].time.nanos) <= QUIET_NANOS {
            j += 1;
        }
        let w = &ts[i..j];
        i = j;
        let waits: Vec<&Throttled> = w.iter().filter(|t| !t.too_many).collect();
        let too_many = w.len() - waits.len();
        let longest = waits.iter().filter(|t| t.wait.is_some()).max_by_key(|t| (t.wait, std::cmp::Reverse(t.rr)));
        let start_nanos = w.iter().map(|t| t.time.nanos.saturating_sub(t.wait.unwrap_or(0))).min().unwrap_or(w[0].time.nanos);
        let first = w[0].time;
        let start = first.at(start_nanos, first.digits);
        let end = w[w.len() - 1].time;
        let mut by_res: std::collections::BTreeMap<&str, u32> = Default::default();
        for t in &waits {
            if let Some(r) = &t.resource {
                *by_res.entry(r.as_str()).or_default() += 1;
            }
        }
        let mut resources: Vec<ResourceCount> = by_res.into_iter().map(|(r, c)| ResourceCount { resource: r.to_string(), count: c }).collect();
        resources.sort_by(|x, y| y.count.cmp(&x.count).then_with(|| x.resource.cmp(&y.resource)));
        let overlapping = by_start.overlapping(spans, fi, start, end);
        let when =
            if start == end { format!("at {}", clock(end)) } else { format!("from {} to {} ({})", clock(start), clock(end), honest_duration(start, end)) };
        let mut what = Vec::new();
        if !waits.is_empty() {
            what.push(format!("{} waited on the client's rate limit", plural(waits.len(), "request", "requests")));
        }
        if too_many > 0 {
            what.push(format!("{} answered 429 Too Many Requests by the API server", plural(too_many, "request was", "requests were")));
        }
        let mut s = Sentence::default().text(format!("In {}, {} {when}", crate::model::file_name(&f.path), what.join(" and ")));
        if let Some(l) = longest {
            let rec = &f.records[l.rr.record as usize];
            s = s.text(format!("; the longest wait was {} (", wait_text(l.wait.unwrap_or(0)))).code(cut_quote(&f.message(rec), 200)).text(")");
        }
        if !resources.is_empty() {
            s = s.text(format!("; requests to {}", resources_text(&resources)));
        }
        s = if overlapping.is_empty() {
            s.text(". No reconcile of this log overlaps the window.")
        } else {
            s.text(format!(". {} the window: {}.", plural(overlapping.len(), "reconcile overlaps", "reconciles overlap"), reconciles_text(a, &overlapping)))
        };
        let detail = Throttle {
            source: f.path.clone(),
            count: w.len() as u32,
            waits: waits.len() as u32,
            too_many_requests: too_many as u32,
            longest_wait_nanos: longest.and_then(|l| l.wait),
            total_wait_nanos: waits.iter().filter_map(|t| t.wait).sum(),
            resources,
            reconcile_ids: overlapping.iter().take(MAX_NAMED).map(|&i| a.reconciles[i].reconcile_id.clone()).collect(),
            reconciles_overlapping: overlapping.len() as u32,
        };
        let mut overlapping = overlapping;
        overlapping.truncate(MAX_NAMED);
        out.push(Finding {
            kind: FindingKind::Throttled,
            severity: Severity::Warning,
            controller: None,
            object: None,
            start,
            end,
            reconciles: overlapping,
            elections: Vec::new(),
            message: s.plain(),
            pieces: s.0,
            blocked: None,
            silence: None,
            detail: Some(Box::new(Detail::Throttle(detail))),
        });
    }
}

/// Whether a line says each reconcile ended: its last line is
/// controller-runtime's `Reconcile successful` / `Reconcile done…` /
/// `Reconciler error`, or it failed or asked for a requeue. In a file where
/// no reconcile has such a line (kamaji at debug level), every reconcile
/// counts as ended at its last line but one that reaches the file's last
/// line.
fn ended(a: &Analysis, files: &[ParsedFile], spans: &[(u32, Timestamp, Timestamp)]) -> Vec<bool> {
    let said: Vec<bool> = a
        .reconciles
        .iter()
        .map(|r| {
            matches!(r.outcome, Outcome::Error | Outcome::Requeue)
                || a.records_of(r).last().is_some_and(|rr| {
                    let f = &files[rr.file as usize];
                    let m = f.span_bytes(f.records[rr.record as usize].message);
                    m.starts_with(b"Reconcile successful") || m.starts_with(b"Reconcile done") || m.starts_with(b"Reconciler error")
                })
        })
        .collect();
    let mut file_says = vec![false; files.len()];
    for (i, s) in spans.iter().enumerate() {
        if said[i] && (s.0 as usize) < files.len() {
            file_says[s.0 as usize] = true;
        }
    }
    a.reconciles.iter().enumerate().map(|(i, r)| said[i] || (!file_says.get(spans[i].0 as usize).copied().unwrap_or(false) && !r.truncated)).collect()
}

/// The reconciles of file `fi` around `t`: the last that ended at or
/// before it, and those in flight (begun before it, no line saying they
/// ended, their last line after it or within the reconcile timeout before).
/// The most time between two renewals that failed in one streak (and
/// between the last and the loss).
const RENEW_STREAK_NANOS: i64 = 60 * NANOS_PER_SEC;

fn around(spans: &[(u32, Timestamp, Timestamp)], ended: &[bool], fi: u32, t: Timestamp, timeout: i64) -> (Option<usize>, Vec<usize>) {
    let mut last: Option<usize> = None;
    let mut in_flight = Vec::new();
    for (i, s) in spans.iter().enumerate() {
        if s.0 != fi || s.1 > t {
            continue;
        }
        if !ended[i] && (s.2 >= t || t.nanos.saturating_sub(s.2.nanos) <= timeout) {
            in_flight.push(i);
        } else if ended[i] && s.2 <= t && last.is_none_or(|l| spans[l].2 <= s.2) {
            last = Some(i);
        }
    }
    (last, in_flight)
}

#[allow(clippy::too_many_arguments)]
fn lease_losses(
    a: &Analysis,
    files: &[ParsedFile],
    fi: usize,
    ev: &[Event],
    spans: &[(u32, Timestamp, Timestamp)],
    ended: &[bool],
    opts: &AnalyzeOptions,
    out: &mut Vec<Finding>,
) {
    let f = &files[fi];
    let mut k = 0;
    while k < ev.len() {
        if ev[k].life != Life::Lost {
            k += 1;
            continue;
        }
        let lost = &ev[k];
        // One loss: its lines within a minute (`failed to renew lease`,
        // then the exit's `leaderelection lost`).
        let mut e = k + 1;
        for (j, x) in ev.iter().enumerate().skip(k + 1) {
            if x.time.nanos.saturating_sub(lost.time.nanos) > 60 * NANOS_PER_SEC {
                break;
            }
            if x.life == Life::Lost {
                e = j + 1;
            }
        }
        let rec = |x: &Event| &f.records[x.rr.record as usize];
        let lease = ev[k..e].iter().find_map(|x| lease_in(f, rec(x)));
        // Lines about the same lease (or one no line names).
        let same = |x: &Event| lease.is_none() || lease_in(f, rec(x)).is_none_or(|l| Some(l) == lease);
        let before = &ev[..k];
        let acquired = before.iter().rev().find(|x| x.life == Life::Acquired && same(x));
        // The renewals that failed in a row up to the loss: each within
        // `RENEW_STREAK_NANOS` of the next (client-go retries every few
        // seconds; a renewal that succeeds logs nothing, so an older failure
        // may have been followed by a lease renewed for days).
        let mut renew_failures = 0;
        let mut next = lost.time;
        for x in before.iter().rev().filter(|x| x.life == Life::RenewFailed && same(x) && acquired.is_none_or(|a| x.time >= a.time) && x.time <= lost.time) {
            if next.nanos.saturating_sub(x.time.nanos) > RENEW_STREAK_NANOS {
                break;
            }
            renew_failures += 1;
            next = x.time;
        }
        let stopped =
            ev[k + 1..].iter().find(|x| matches!(x.life, Life::Stopping | Life::Exit(_)) || (x.life == Life::Lost && x.time > lost.time)).map(|x| x.time);
        let said = f.message(rec(lost)).into_owned();
        let (last, in_flight) = around(spans, ended, fi as u32, lost.time, opts.reconcile_timeout_nanos);
        let mut s = Sentence::default().text(format!("The manager in {} lost its leader lease", crate::model::file_name(&f.path)));
        if let Some(l) = &lease {
            s = s.text(format!(" {l}"));
        }
        s = s.text(format!(" at {} (", clock(lost.time))).code(cut_quote(&said, 120)).text(")");
        if let Some(acq) = acquired {
            s = s.text(format!(", {} after it acquired it at {}", honest_duration(acq.time, lost.time), clock(acq.time)));
        }
        if renew_failures > 0 {
            s = s.text(format!(", after {} that failed", plural(renew_failures, "renewal", "renewals")));
        }
        if let Some(x) = ev[k + 1..e].iter().rfind(|x| x.life == Life::Lost) {
            s = s.text(format!("; at {} it logged ", clock(x.time))).code(cut_quote(&f.message(rec(x)), 80));
        }
        // Reconciles of this log begun after the loss: then it did not stop.
        let later = spans.iter().enumerate().filter(|(_, x)| x.0 == fi as u32 && x.1 > lost.time).min_by_key(|(i, x)| (x.1, *i));
        // A log with no reconcile at all (kube-controller-manager's) does
        // not show whether reconciling stopped.
        let reconciles = spans.iter().any(|x| x.0 == fi as u32);
        s = match (stopped, later) {
            (Some(t), None) if !reconciles => s.text(format!("; it began to stop at {}", clock(t))),
            (None, None) if !reconciles => s,
            (_, Some((i, x))) => s.text(format!(
                "; it did not stop reconciling: {} began after it (the first, {} of {}, at {})",
                plural(spans.iter().filter(|y| y.0 == fi as u32 && y.1 > lost.time).count(), "reconcile", "reconciles"),
                a.reconciles[i].reconcile_id,
                a.reconciles[i].object.as_ref().map_or("an unknown object".to_string(), |o| o.to_string()),
                clock(x.1)
            )),
            (Some(t), None) => s.text(format!(" and stopped reconciling: it began to stop at {}", clock(t))),
            (None, None) => s.text(" and stopped reconciling: no reconcile of this log began after it"),
        };
        s = match last {
            Some(l) => s.text(format!(
                ". Its last reconcile before that was {} of {}, ended at {}",
                a.reconciles[l].reconcile_id,
                a.reconciles[l].object.as_ref().map_or("an unknown object".to_string(), |o| o.to_string()),
                clock(a.reconciles[l].last)
            )),
            None if reconciles => s.text(". This log holds no reconcile before that"),
            None => s.text(". This log holds no controller-runtime reconcile, before or after it, so it does not show whether reconciling stopped"),
        };
        if !in_flight.is_empty() {
            s = s.text(format!(
                "; {} in flight (no line says {} ended): {}",
                plural(in_flight.len(), "reconcile was", "reconciles were"),
                if in_flight.len() == 1 { "it" } else { "they" },
                reconciles_text(a, &in_flight)
            ));
        }
        s = s.text(".");
        let end = stopped.unwrap_or(ev[e - 1].time).max(lost.time);
        let detail = LeaseLoss {
            source: f.path.clone(),
            lease,
            acquired: acquired.map(|x| x.time),
            lost: lost.time,
            said,
            renew_failures: renew_failures as u32,
            stopped,
            last_reconcile_id: last.map(|l| a.reconciles[l].reconcile_id.clone()),
            last_reconcile_end: last.map(|l| a.reconciles[l].last),
        };
        out.push(Finding {
            kind: FindingKind::LeaseLost,
            severity: Severity::Error,
            controller: last.map(|l| a.reconciles[l].controller),
            object: None,
            start: lost.time,
            end,
            reconciles: last.into_iter().chain(in_flight).collect(),
            elections: Vec::new(),
            message: s.plain(),
            pieces: s.0,
            blocked: None,
            silence: None,
            detail: Some(Box::new(Detail::Lease(detail))),
        });
        k = e;
    }
}

/// The key of a container's log that its previous and current logs share,
/// and whether this one is the previous: `kubectl logs --previous` saved
/// as `<name>-previous.<ext>` (or `previous.log` beside `current.log`),
/// CRI's `<container>/0.log`, `1.log` (the restart count), crust-gather's
/// `namespaces/<ns>/v1/pod/<pod>/<container>/current.log` beside
/// `previous.log` in its folder or `previous-logs/<ns>_<pod>_<container>.log`
/// at the snapshot's root.
pub fn pair_of(path: &str) -> Option<(String, PairRole)> {
    let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
    let (stem, ext) = name.rsplit_once('.').unwrap_or((name, ""));
    // crust-gather: `…/<container>/previous.log` beside `current.log`, or
    // (as the cozystack e2e snapshots hold it) `previous-logs/<ns>_<pod>_<container>.log`.
    if let Some(root) = dir.strip_suffix("previous-logs").filter(|root| root.is_empty() || root.ends_with('/')) {
        let parts: Vec<&str> = stem.split('_').collect();
        if parts.len() == 3 {
            return Some((format!("pc:{root}namespaces/{}/v1/pod/{}/{}/.{ext}", parts[0], parts[1], parts[2]), PairRole::Previous));
        }
    }
    if stem == "previous" || stem == "current" {
        let role = if stem == "previous" { PairRole::Previous } else { PairRole::Current(0) };
        return Some((format!("pc:{dir}/.{ext}"), role));
    }
    // `tei-previous.log` beside `tei-current.log`.
    for suffix in ["-current", "_current", ".current"] {
        if let Some(s) = stem.strip_suffix(suffix) {
            return Some((format!("kp:{dir}/{s}.{ext}"), PairRole::Current(0)));
        }
    }
    for suffix in ["-previous", "_previous", ".previous"] {
        if let Some(s) = stem.strip_suffix(suffix) {
            return Some((format!("kp:{dir}/{s}.{ext}"), PairRole::Previous));
        }
    }
    if ext == "log" && !stem.is_empty() && stem.bytes().all(|b| b.is_ascii_digit()) {
        return stem.parse().ok().map(|n: u32| (format!("cri:{dir}"), PairRole::Restart(n)));
    }
    Some((format!("kp:{dir}/{stem}.{ext}"), PairRole::Current(0)))
}

/// Which log of a container a file is (see [`pair_of`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum PairRole {
    Previous,
    /// The current one (the number is always 0).
    Current(u32),
    /// CRI's `N.log`: the container's Nth restart.
    Restart(u32),
}

/// Consecutive processes of one container: (previous file, current file).
fn pairs(files: &[ParsedFile]) -> Vec<(usize, usize)> {
    let mut by_key: std::collections::BTreeMap<String, Vec<(PairRole, usize)>> = Default::default();
    for (i, f) in files.iter().enumerate() {
        if let Some((k, role)) = pair_of(&f.path) {
            by_key.entry(k).or_default().push((role, i));
        }
    }
    let mut out = Vec::new();
    for (_, mut v) in by_key {
        v.sort();
        let prev: Vec<usize> = v.iter().filter(|(r, _)| *r == PairRole::Previous).map(|x| x.1).collect();
        let cur: Vec<usize> = v.iter().filter(|(r, _)| matches!(r, PairRole::Current(_))).map(|x| x.1).collect();
        if let ([p], [c]) = (prev.as_slice(), cur.as_slice()) {
            out.push((*p, *c));
        }
        let cri: Vec<(u32, usize)> = v.iter().filter_map(|(r, i)| if let PairRole::Restart(n) = r { Some((*n, *i)) } else { None }).collect();
        for w in cri.windows(2) {
            if w[1].0 == w[0].0 + 1 {
                out.push((w[0].1, w[1].1));
            }
        }
    }
    out.sort();
    out
}

#[allow(clippy::too_many_arguments)]
fn restarts(
    a: &Analysis,
    files: &[ParsedFile],
    pairs: &[(usize, usize)],
    life: &[Vec<Event>],
    spans: &[(u32, Timestamp, Timestamp)],
    ended: &[bool],
    opts: &AnalyzeOptions,
    out: &mut Vec<Finding>,
) {
    for &(p, c) in pairs {
        let (pf, cf) = (&files[p], &files[c]);
        let (Some(prev_end), Some(cur_first)) = (pf.last_time(), cf.first_time()) else { continue };
        // The previous process ended before the current one began.
        if prev_end > cur_first {
            continue;
        }
        let pev = &life[p];
        let rec = |f: &'_ ParsedFile, x: &Event| f.message(&f.records[x.rr.record as usize]).into_owned();
        let exit = pev.iter().find(|x| matches!(x.life, Life::Lost | Life::Exit(_)));
        let stopping = pev.iter().find(|x| x.life == Life::Stopping);
        let exit_word = match exit.map(|x| x.life) {
            Some(Life::Lost) => "lease-lost",
            Some(Life::Exit(Exit::Panic)) => "panic",
            Some(Life::Exit(Exit::Fatal)) => "fatal",
            Some(Life::Exit(Exit::Error)) => "error",
            _ if stopping.is_some() => "shutdown",
            _ => "unknown",
        };
        // In flight when the process ended (or began to stop).
        let stop_at = exit.or(stopping).map_or(prev_end, |x| x.time);
        let (_, cut) = around(spans, ended, p as u32, stop_at, opts.reconcile_timeout_nanos);
        let cev = &life[c];
        let started_ev = cev.iter().find(|x| x.life == Life::Start || x.life == Life::Attempt);
        let started = cur_first;
        let acquired = cev.iter().find(|x| x.life == Life::Acquired);
        let resumed = spans.iter().enumerate().filter(|(_, s)| s.0 == c as u32).min_by_key(|(i, s)| (s.1, *i)).map(|(i, _)| i);
        let mut s = Sentence::default().text(format!(
            "{} is a new process of the container whose previous process logged {}: that one's last line is at {}",
            crate::model::file_name(&cf.path),
            crate::model::file_name(&pf.path),
            clock(prev_end)
        ));
        if let Some(x) = exit {
            s = s.text(format!(" (it logged at {} ", clock(x.time))).code(cut_quote(&rec(pf, x), 100)).text(")");
        } else if let Some(x) = stopping {
            s = s.text(format!(" (it began a clean stop at {} ", clock(x.time))).code(cut_quote(&rec(pf, x), 100)).text(")");
        } else {
            s = s.text(" (its log just stops: no exit, no stop)");
        }
        s = s.text(format!("; the new one began logging at {}, {} later", clock(started), honest_duration(prev_end, started)));
        if let Some(x) = started_ev {
            s = s.text(" (").code(cut_quote(&rec(cf, x), 60)).text(format!(" at {})", clock(x.time)));
        }
        if let Some(x) = acquired {
            s = s.text(format!(", acquired the leader lease at {}", clock(x.time)));
        }
        s = match resumed {
            Some(i) => s.text(format!(
                " and resumed reconciling at {} (reconcile {} of {})",
                clock(spans[i].1),
                a.reconciles[i].reconcile_id,
                a.reconciles[i].object.as_ref().map_or("an unknown object".to_string(), |o| o.to_string())
            )),
            None => s.text(" and logged no reconcile"),
        };
        s = if cut.is_empty() {
            s.text("; no reconcile of the previous process was cut off.")
        } else {
            s.text(format!(
                "; of the previous process, {} cut off (no line says {} ended): {}.",
                plural(cut.len(), "reconcile was", "reconciles were"),
                if cut.len() == 1 { "it" } else { "they" },
                reconciles_text(a, &cut)
            ))
        };
        let end = resumed.map_or(started, |i| spans[i].1).max(started);
        let detail = Restart {
            previous: pf.path.clone(),
            current: cf.path.clone(),
            previous_end: prev_end,
            previous_exit: exit_word.to_string(),
            started,
            acquired: acquired.map(|x| x.time),
            resumed: resumed.map(|i| spans[i].1),
            cut_off: cut.iter().map(|&i| a.reconciles[i].reconcile_id.clone()).collect(),
        };
        out.push(Finding {
            kind: FindingKind::Restart,
            // A clean stop (a rollout, a drain) is a restart worth knowing of.
            severity: if exit_word == "shutdown" { Severity::Info } else { Severity::Warning },
            controller: resumed.map(|i| a.reconciles[i].controller),
            object: None,
            start: prev_end,
            end,
            reconciles: cut.into_iter().chain(resumed).collect(),
            elections: Vec::new(),
            message: s.plain(),
            pieces: s.0,
            blocked: None,
            silence: None,
            detail: Some(Box::new(Detail::Restart(detail))),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resources_of_api_paths() {
        let r = |u: &str| resource_of(u);
        assert_eq!(r("https://10.96.0.1:443/api/v1/namespaces/x/secrets/y").as_deref(), Some("secrets"));
        assert_eq!(r("https://h/apis/kamaji.clastix.io/v1alpha1/namespaces/t/tenantcontrolplanes/a").as_deref(), Some("tenantcontrolplanes.kamaji.clastix.io"));
        assert_eq!(
            r("https://h/apis/kamaji.clastix.io/v1alpha1/namespaces/t/tenantcontrolplanes/a/status").as_deref(),
            Some("tenantcontrolplanes.kamaji.clastix.io/status")
        );
        assert_eq!(r("https://h/apis/apps/v1/namespaces/gitlab/replicasets").as_deref(), Some("replicasets.apps"));
        assert_eq!(r("https://h/api/v1/namespaces/kube-system").as_deref(), Some("namespaces"));
        assert_eq!(r("https://h/api/v1/nodes?limit=500").as_deref(), Some("nodes"));
        assert_eq!(r("https://h/apis/custom.metrics.k8s.io/v1beta1?timeout=32s").as_deref(), Some("discovery"));
        assert_eq!(r("https://h/api?timeout=32s").as_deref(), Some("discovery"));
        assert_eq!(r("https://h/healthz"), None);
    }

    #[test]
    fn overlaps_found_from_the_end_back_are_all_of_them() {
        // A small LCG: starts, lengths (some long), files 0 and 1.
        let mut x: u64 = 7;
        let mut next = |m: u64| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (x >> 33) % m
        };
        let t = |n: u64| Timestamp::new(n as i64 * NANOS_PER_SEC, 0);
        let spans: Vec<(u32, Timestamp, Timestamp)> = (0..400)
            .map(|_| {
                let s = next(1000);
                let len = if next(10) == 0 { next(500) } else { next(5) };
                (next(2) as u32, t(s), t(s + len))
            })
            .collect();
        let by = ByStart::of(&spans);
        for _ in 0..200 {
            let (s, len, fi) = (next(1100), next(30), next(2) as u32);
            let brute: Vec<usize> = (0..spans.len()).filter(|&i| spans[i].0 == fi && spans[i].1 <= t(s + len) && spans[i].2 >= t(s)).collect();
            assert_eq!(by.overlapping(&spans, fi, t(s), t(s + len)), brute);
        }
    }

    #[test]
    fn go_durations_exactly() {
        assert_eq!(go_duration("1.09778054s"), Some(1_097_780_540));
        assert_eq!(go_duration("197.657513ms"), Some(197_657_513));
        assert_eq!(go_duration("1m2.5s"), Some(62_500_000_000));
        assert_eq!(go_duration("850µs"), Some(850_000));
        assert_eq!(go_duration("2h0m0s"), Some(7_200_000_000_000));
        assert_eq!(go_duration("10.0s"), Some(10_000_000_000));
        assert_eq!(go_duration("1.2345678919s"), Some(1_234_567_891));
        assert_eq!(go_duration("soon"), None);
        assert_eq!(go_duration("3"), None);
        assert_eq!(go_duration(""), None);
    }

    #[test]
    fn waits_read_as_written() {
        assert_eq!(wait_text(197_657_513), "198ms");
        assert_eq!(wait_text(1_090_000_000), "1.09s");
        assert_eq!(wait_text(2_500_000_000), "2.5s");
        assert_eq!(wait_text(22_823_955_974), "22.824s");
        assert_eq!(wait_text(3_000_000_000), "3s");
        assert_eq!(wait_text(90 * 1_000_000_000), "1m30s");
    }

    #[test]
    fn pairs_by_layout() {
        let p = |s: &str| pair_of(s).unwrap();
        assert_eq!(p("a/pods/ns/pod/logs-manager-previous.txt"), (p("a/pods/ns/pod/logs-manager.txt").0, PairRole::Previous));
        assert_eq!(p("x/manager/previous.log").0, p("x/manager/current.log").0);
        assert_eq!(p("snap/t/previous-logs/ns_pod-1_manager.log").0, p("snap/t/namespaces/ns/v1/pod/pod-1/manager/current.log").0);
        assert_eq!(p("snap/t/namespaces/ns/v1/pod/pod-1/manager/previous.log").0, p("snap/t/namespaces/ns/v1/pod/pod-1/manager/current.log").0);
        assert_eq!(p("ci/logs/pod-1.previous.log"), (p("ci/logs/pod-1.log").0, PairRole::Previous));
        assert_eq!(p("ws/tei-previous.log").0, p("ws/tei-current.log").0);
        assert_eq!(p("var/log/pods/ns_pod_uid/manager/0.log"), (p("var/log/pods/ns_pod_uid/manager/1.log").0, PairRole::Restart(0)));
        assert_ne!(p("a/one.log").0, p("a/two.log").0);
    }
}
