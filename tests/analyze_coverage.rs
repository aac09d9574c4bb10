//! Evidence coverage (issue 16, item 4): each log source's first and last
//! line and its gaps, silences qualified as covered or not, latent starts
//! that do not reach back across a hole, and the sources an artifact lacks
//! (no etcd log: elections unknown; a restarted container's previous log).
//! Fixtures are generated in the formats the tools write (controller-runtime's
//! zap console encoder, CRI files under the kubelet's `/var/log/pods`,
//! etcd 3.5's zap JSON); expectations are read from the generators below.

use reconscope::analyze::{analyze, Analysis, AnalyzeOptions, FindingKind};
use reconscope::pipeline::{LoadOptions, Loaded};
use reconscope::report::{markdown, ReportOptions};

#[path = "support/gfm.rs"]
mod gfm;

fn run(files: &[(&str, String)]) -> Analysis {
    let mut l = Loaded::default();
    for (name, text) in files {
        l.add(name, text.clone().into_bytes(), &LoadOptions::default());
    }
    l.finish();
    analyze(&l.files, &AnalyzeOptions::default()).0
}

/// 2026-05-26, `secs` after 10:00:00 UTC.
fn ts(secs: u32) -> String {
    format!("2026-05-26T{:02}:{:02}:{:02}Z", 10 + secs / 3600, secs / 60 % 60, secs % 60)
}

/// One zap console line of a reconcile of controller `c` (kind Widget).
fn zap(secs: u32, level: &str, msg: &str, c: &str, obj: &str, rid: &str, extra: &str) -> String {
    format!(
        "{}\t{level}\t{msg}\t{{\"controller\": \"{c}\", \"controllerGroup\": \"example.io\", \"controllerKind\": \"Widget\", \"Widget\": {{\"name\":\"{obj}\",\"namespace\":\"ns\"}}, \"namespace\": \"ns\", \"name\": \"{obj}\", \"reconcileID\": \"{rid}\"{extra}}}\n",
        ts(secs)
    )
}

fn rid(c: char, n: u32) -> String {
    format!("{}0000000-0000-4000-8000-{n:012}", c)
}

/// How the held reconcile of the `widget` controller begins.
#[derive(Clone, Copy, PartialEq)]
enum Held {
    /// Its only line is an error at 10:25:00: its first line came late.
    LateFirstLine,
    /// It opens at 10:04:52 and fails at 10:25:00.
    RanLong,
}

/// A manager's log, in time order, as `(secs, line)`: `widget` (one
/// worker) reconciles a, b, c every 10s (opening at 10k, done at 10k+1,
/// k = 0..29: the last ends at 10:04:51), is held by `stuck` until 10:25:00
/// (see [`Held`]), then reconciles three objects right after (10:25:02 to
/// 10:25:07); meanwhile `gadget` reconciles every 20s (20j+5 and 20j+6,
/// j = 0..80, up to 10:26:46). Lines strictly between `hole` are left out.
fn manager(held: Held, hole: Option<(u32, u32)>) -> Vec<(u32, String)> {
    manager_failing(held, hole, "etcd request failed")
}

/// [`manager`], the held reconcile failing with `error`.
fn manager_failing(held: Held, hole: Option<(u32, u32)>, error: &str) -> Vec<(u32, String)> {
    let mut out = Vec::new();
    for k in 0..30 {
        let obj = ["a", "b", "c"][k as usize % 3];
        out.push((10 * k, zap(10 * k, "INFO", "starting sync", "widget", obj, &rid('1', k), "")));
        out.push((10 * k + 1, zap(10 * k + 1, "INFO", "synced", "widget", obj, &rid('1', k), "")));
    }
    if held == Held::RanLong {
        out.push((292, zap(292, "INFO", "starting sync", "widget", "stuck", &rid('9', 0), "")));
    }
    out.push((1500, zap(1500, "ERROR", "sync failed", "widget", "stuck", &rid('9', 0), &format!(", \"error\": \"{error}\""))));
    for (n, obj) in ["d", "e", "f"].iter().enumerate() {
        let t = 1502 + 2 * n as u32;
        out.push((t, zap(t, "INFO", "starting sync", "widget", obj, &rid('2', n as u32), "")));
        out.push((t + 1, zap(t + 1, "INFO", "synced", "widget", obj, &rid('2', n as u32), "")));
    }
    for j in 0..81 {
        let obj = ["g1", "g2"][j as usize % 2];
        out.push((20 * j + 5, zap(20 * j + 5, "INFO", "starting sync", "gadget", obj, &rid('3', j), "")));
        out.push((20 * j + 6, zap(20 * j + 6, "INFO", "synced", "gadget", obj, &rid('3', j), "")));
    }
    out.sort_by_key(|(t, _)| *t);
    out.retain(|(t, _)| hole.is_none_or(|(a, b)| *t <= a || *t >= b));
    out
}

fn text(lines: &[(u32, String)]) -> String {
    lines.iter().map(|(_, l)| l.as_str()).collect()
}

/// Each line as the kubelet's CRI file holds it (stderr, whole lines).
fn cri(lines: &[(u32, String)]) -> String {
    lines.iter().map(|(t, l)| format!("{} stderr F {l}", ts(*t))).collect()
}

/// What the analysis says about coverage, one fact a line: sources with
/// their lines and gaps, stalls with their silence, silences not covered,
/// the held reconcile's latent start, and what is missing.
fn summary(a: &Analysis) -> String {
    let hms = |t: reconscope::model::Timestamp| t.to_string()[11..19].to_string();
    let mut s = String::new();
    for c in &a.coverage.sources {
        let gaps: Vec<String> = c.gaps.iter().map(|g| format!("{}–{}", hms(g.start), hms(g.end))).collect();
        s += &format!("source {} files={} lines={} {}–{} gaps=[{}]\n", c.path, c.files.len(), c.lines, hms(c.first), hms(c.last), gaps.join(" "));
    }
    for f in a.findings.iter().filter(|f| f.kind == FindingKind::StalledWorker) {
        let sl = f.silence.as_ref().expect("a stall rests on a silence");
        s += &format!(
            "stall {} {}–{} covered={} other_lines={}\n",
            a.controllers[f.controller.unwrap()].name,
            hms(f.start),
            hms(f.end),
            sl.covered,
            sl.other_lines
        );
    }
    for u in &a.coverage.uncovered {
        s += &format!("uncovered {} {}–{} other_lines={}\n", u.reconcile_id, hms(u.silence.start), hms(u.silence.end), u.silence.other_lines);
    }
    if let Some(r) = a.reconciles.iter().find(|r| r.reconcile_id == rid('9', 0)) {
        s += &format!("held latent_start={}\n", r.latent_start.map_or("none".into(), hms));
    }
    for m in &a.coverage.missing {
        s += &format!("missing {}\n", m.kind);
    }
    s
}

fn check(files: &[(&str, String)], expect: &str) -> Analysis {
    let a = run(files);
    assert_eq!(summary(&a), expect, "{:#?}", a.findings);
    a
}

#[test]
fn a_stall_while_the_manager_kept_logging_is_covered() {
    // After 10:04:51 (widget's last end, from its next tick) to 10:25:00,
    // gadget logged at 20j+5 and 20j+6 for j = 15..74: 120 lines.
    let a = check(
        &[("manager.log", text(&manager(Held::LateFirstLine, None)))],
        "source manager.log files=1 lines=229 10:00:00–10:26:46 gaps=[]
stall widget 10:04:51–10:25:00 covered=true other_lines=120
held latent_start=10:04:51
missing etcd
",
    );
    let stall = a.findings.iter().find(|f| f.kind == FindingKind::StalledWorker).unwrap();
    assert!(stall.message.contains("; 3 objects waited and were reconciled right after (ns/d, ns/e, ns/f). Covered: manager.log logged 120 other lines meanwhile, so the worker, not the log, was silent."), "{}", stall.message);
    let doc = reconscope::analyze::json::to_json(&[], &a);
    let f = doc["findings"].as_array().unwrap().iter().find(|f| f["kind"] == "stalled-worker").unwrap();
    assert_eq!((f["silence"].as_str(), f["silence_other_lines"].as_u64()), (Some("covered"), Some(120)));
}

#[test]
fn rotated_files_of_one_container_are_one_source() {
    // The kubelet rotated the manager's log at 10:10:00: the rotated file
    // holds the lines up to it, `0.log` the rest. One process, no hole.
    let lines = manager(Held::LateFirstLine, None);
    let (before, after): (Vec<_>, Vec<_>) = lines.into_iter().partition(|(t, _)| *t < 600);
    let dir = "var/log/pods/cozy_kamaji-7d9_0a1b/manager";
    check(
        &[(&format!("{dir}/0.log.20260526-101000"), cri(&before)), (&format!("{dir}/0.log"), cri(&after))],
        &format!(
            "source {dir}/0.log.20260526-101000 files=2 lines=229 10:00:00–10:26:46 gaps=[]
stall widget 10:04:51–10:25:00 covered=true other_lines=120
held latent_start=10:04:51
missing etcd
"
        ),
    );
}

#[test]
fn a_first_line_right_after_a_hole_gets_no_latent_start_across_it() {
    // Nothing between 10:04:56 and 10:25:00: the last line before the hole
    // is widget's 10:04:51 (gadget's 10:04:45/46 before it), the first
    // after is the held reconcile's own error at 10:25:00. Its latent start
    // would reach back to 10:04:51 across the hole: none, and so no stall.
    check(
        &[("manager.log", text(&manager(Held::LateFirstLine, Some((295, 1500)))))],
        "source manager.log files=1 lines=109 10:00:00–10:26:46 gaps=[10:04:51–10:25:00]
held latent_start=none
missing etcd
",
    );
}

#[test]
fn an_elision_is_a_hole_however_short_the_time_across_it() {
    // The manager logs throughout, but whoever cut the excerpt wrote `...`
    // right before the held reconcile's error at 10:25:00 (after gadget's
    // 10:24:45 and 10:24:46): lines were left out there, maybe its own
    // earlier ones. The 14s across it is a gap, and its latent start does
    // not reach back across it to 10:04:51, so there is no stall.
    let mut lines = manager(Held::LateFirstLine, None);
    let at = lines.iter().position(|(t, _)| *t == 1500).unwrap();
    lines.insert(at, (1500, "...\n".to_string()));
    let a = check(
        &[("manager.log", text(&lines))],
        "source manager.log files=1 lines=229 10:00:00–10:26:46 gaps=[10:24:46–10:25:00]
held latent_start=none
missing etcd
",
    );
    assert!(a.coverage.sources[0].gaps[0].elided);
    // The source's usual wait is the same as without the elision: the 14s
    // across it is no wait of the log's.
    let plain = run(&[("manager.log", text(&manager(Held::LateFirstLine, None)))]);
    assert_eq!(a.coverage.sources[0].normal_gap_nanos, plain.coverage.sources[0].normal_gap_nanos);
    assert!(plain.findings.iter().any(|f| f.kind == FindingKind::StalledWorker), "{:#?}", plain.findings);
    let md = markdown(&a, &ReportOptions::default());
    let section = md.split("### What this artifact does not show\n\n").nth(1).expect("the section").split("\n\n").next().unwrap();
    assert_eq!(
        section,
        "- Lines left out of `manager.log` 10:24:46–10:25:00 (14s): an elision (`...`) stands there in the excerpt, so what happened then is not shown.
- Elections unknown: the artifact holds no etcd log, so no election found does not mean none happened."
    );
    // The line is said to be an elision, not a line in no format.
    let mut l = Loaded::default();
    l.add("manager.log", text(&lines).into_bytes(), &LoadOptions::default());
    l.finish();
    let diags = analyze(&l.files, &AnalyzeOptions::default()).1;
    let notes: Vec<String> = diags.iter().map(|d| format!("{}:{} {}", d.path, d.line.unwrap_or(0), d.message)).collect();
    assert_eq!(
        notes,
        [format!(
            "manager.log:{} this line is an elision (`...`): lines of the log were left out of the excerpt here: what they said is not known, and the time across it is a gap of the log, not a silence",
            at + 1
        )]
    );
}

#[test]
fn a_latent_start_is_clipped_to_the_first_line_after_the_hole() {
    // The hole ends with gadget's 10:24:45 and 10:24:46 (j = 74): the held
    // reconcile's latent start can reach back to 10:24:45, not across.
    check(
        &[("manager.log", text(&manager(Held::LateFirstLine, Some((295, 1480)))))],
        "source manager.log files=1 lines=111 10:00:00–10:26:46 gaps=[10:04:51–10:24:45]
held latent_start=10:24:45
missing etcd
",
    );
}

#[test]
fn a_latent_start_does_not_reach_back_across_a_long_quiet_of_a_short_log() {
    // A log of a few lines has no gaps (too few lines to tell a hole from
    // its usual quiet), nor can it say a worker was busy across a wait of
    // more than 5 minutes: an excerpt pasted in fragments, hours apart, as
    // a blog's CAPMOX log is. widget reconciles a (10:00:00, 10:00:01) and
    // b (10:00:10, 10:00:11); the held reconcile's first line is its error.
    let short = |later: &[(u32, String)], error_at: u32| {
        let mut lines = vec![
            (0, zap(0, "INFO", "starting sync", "widget", "a", &rid('1', 0), "")),
            (1, zap(1, "INFO", "synced", "widget", "a", &rid('1', 0), "")),
            (10, zap(10, "INFO", "starting sync", "widget", "b", &rid('1', 1), "")),
            (11, zap(11, "INFO", "synced", "widget", "b", &rid('1', 1), "")),
        ];
        lines.extend_from_slice(later);
        lines.push((error_at, zap(error_at, "ERROR", "sync failed", "widget", "stuck", &rid('9', 0), ", \"error\": \"etcd request failed\"")));
        text(&lines)
    };
    // 2h22m of nothing, then the error: no latent start.
    check(
        &[("excerpt.log", short(&[], 8531))],
        "source excerpt.log files=1 lines=5 10:00:00–12:22:11 gaps=[]
held latent_start=none
missing etcd
",
    );
    // Clipped to the line that ends the quiet: gadget's at 10:07:00.
    check(
        &[("excerpt.log", short(&[(420, zap(420, "INFO", "starting sync", "gadget", "g1", &rid('3', 0), ""))], 450))],
        "source excerpt.log files=1 lines=6 10:00:00–10:07:30 gaps=[]
held latent_start=10:07:00
missing etcd
",
    );
    // Waits of 5 minutes at most: it reaches back to b's end.
    check(
        &[("excerpt.log", short(&[(300, zap(300, "INFO", "starting sync", "gadget", "g1", &rid('3', 0), ""))], 600))],
        "source excerpt.log files=1 lines=6 10:00:00–10:10:00 gaps=[]
held latent_start=10:00:11
missing etcd
",
    );
    // With 10 lines or more the source's own gaps decide: with 20 more
    // lines, a second apart, the 2h22m wait is one, and cuts the latent
    // start.
    let many: Vec<(u32, String)> = (0..20).map(|j| (20 + j, zap(20 + j, "INFO", "starting sync", "gadget", "g1", &rid('3', j), ""))).collect();
    check(
        &[("excerpt.log", short(&many, 8531))],
        "source excerpt.log files=1 lines=25 10:00:00–12:22:11 gaps=[10:00:39–12:22:11]
held latent_start=none
missing etcd
",
    );
}

/// The notes the analysis gives on `files`.
fn notes(files: &[(&str, String)]) -> Vec<String> {
    let mut l = Loaded::default();
    for (name, text) in files {
        l.add(name, text.clone().into_bytes(), &LoadOptions::default());
    }
    l.finish();
    analyze(&l.files, &AnalyzeOptions::default()).1.iter().map(|d| format!("{}:{} {}", d.path, d.line.unwrap_or(0), d.message)).collect()
}

#[test]
fn a_file_whose_time_goes_back_gets_a_note() {
    // Two pods' logs one after the other, as `kubectl logs -l` prints
    // them: the second starts 25s before the first ends.
    let pod = |from: u32, c: char| -> Vec<(u32, String)> {
        (0..6).map(|k| (from + 5 * k, zap(from + 5 * k, "INFO", "starting sync", "widget", "a", &rid(c, k), ""))).collect()
    };
    let (a, b) = (pod(0, '1'), pod(0, '2'));
    let mut two = text(&a);
    two += &text(&b[1..]);
    assert_eq!(
        notes(&[("pods.log", two)]),
        ["pods.log:7 time goes back 20s here (and at 3 more lines after): this line's time is 2026-05-26T10:00:05Z, line 6's 2026-05-26T10:00:25Z. \
          One process writes its lines in time order, so the file may hold more than one log one after the other (`kubectl logs -l` prints each pod's log in turn, with no name), \
          or a writer was held up; reconscope places each line at its own time"]
    );
    // Out of order by a second and less, or within the tick of a line
    // written to the second: no note.
    let at = |t: &str| {
        format!("{t}\tINFO\tstarting sync\t{{\"controller\": \"widget\", \"namespace\": \"ns\", \"name\": \"a\", \"reconcileID\": \"{}\"}}\n", rid('1', 0))
    };
    let close = [at("2026-05-26T10:00:01.900Z"), at("2026-05-26T10:00:00.900Z"), at("2026-05-26T10:00:03Z"), at("2026-05-26T10:00:01.100Z")].concat();
    assert_eq!(notes(&[("close.log", close)]), Vec::<String>::new());
    // A millisecond over: a note, at the line.
    let over = [at("2026-05-26T10:00:02.001Z"), at("2026-05-26T10:00:01Z"), at("2026-05-26T10:00:03Z"), at("2026-05-26T10:00:00.999Z")].concat();
    assert_eq!(notes(&[("over.log", over)]).len(), 1);
    assert!(notes(&[("over.log", [at("2026-05-26T10:00:03Z"), at("2026-05-26T10:00:00.999Z")].concat())])[0]
        .starts_with("over.log:2 time goes back 2s here: this line's time is 2026-05-26T10:00:00.999Z, line 1's 2026-05-26T10:00:03Z."));
}

#[test]
fn a_deadline_right_after_a_hole_is_not_an_expired_context() {
    // The held reconcile fails on a deadline in its first line, right after
    // the hole: when it began is not in the log, so it cannot be said to
    // have failed far inside the timeout.
    let deadline = "unable to check if user exists: context deadline exceeded";
    let a = run(&[("manager.log", text(&manager_failing(Held::LateFirstLine, Some((295, 1500)), deadline)))]);
    assert!(a.findings.iter().all(|f| f.kind != FindingKind::ExpiredContext), "{:#?}", a.findings);
    // Without the hole its latent start reaches back to 10:04:51: it ran
    // long, a real timeout, not an expired context either; and the stall.
    let a = run(&[("manager.log", text(&manager_failing(Held::LateFirstLine, None, deadline)))]);
    let kinds: Vec<FindingKind> = a.findings.iter().map(|f| f.kind).collect();
    assert_eq!(kinds, [FindingKind::StalledWorker]);
}

#[test]
fn a_reconcile_across_a_hole_in_its_only_log_is_not_a_stall() {
    // It opened at 10:04:52, the log has nothing from then to 10:25:00: the
    // worker's silence is not covered, so it is listed, not a stall.
    let a = check(
        &[("manager.log", text(&manager(Held::RanLong, Some((295, 1500)))))],
        "source manager.log files=1 lines=110 10:00:00–10:26:46 gaps=[10:04:52–10:25:00]
uncovered 90000000-0000-4000-8000-000000000000 10:04:51–10:25:00 other_lines=0
held latent_start=none
missing etcd
",
    );
    let md = markdown(&a, &ReportOptions::default());
    let section = md.split("### What this artifact does not show\n\n").nth(1).expect("the section").split("\n\n").next().unwrap();
    assert_eq!(
        section,
        "- Worker 1 of widget ended no reconcile 10:04:51 → 10:25:00 (reconcile 90000000-0000-4000-8000-000000000000 held it), but its log manager.log has no line at all from 10:04:52 to 10:25:00: the log may be missing there, so this is not reported as a stall.
- No line in `manager.log` 10:04:52–10:25:00 (20m08s; it usually logs at least every 18s): its log is missing there, or the process was silent.
- Elections unknown: the artifact holds no etcd log, so no election found does not mean none happened."
    );
    // As GitHub renders it: a heading and a list of three items.
    let html = gfm::render(&md);
    let list = html.split("<h3>What this artifact does not show</h3>\n").nth(1).expect("the heading");
    assert!(list.starts_with("<ul>\n<li>Worker 1 of widget"), "{list}");
    assert_eq!(list[..list.find("</ul>").unwrap()].matches("<li>").count(), 3, "{list}");
    gfm::assert_inert(&html, &[]);
}

#[test]
fn the_same_run_with_the_manager_logging_throughout_is_a_stall() {
    // The control for the case above: the same reconciles, no hole.
    check(
        &[("manager.log", text(&manager(Held::RanLong, None)))],
        "source manager.log files=1 lines=230 10:00:00–10:26:46 gaps=[]
stall widget 10:04:51–10:25:00 covered=true other_lines=120
held latent_start=none
missing etcd
",
    );
}

#[test]
fn a_hole_in_one_container_is_not_covered_by_another_container_of_the_pod() {
    // The manager container's log has the hole; the pod's sidecar logged
    // a line every 30s all along (10:00:00 to 10:30:00). Another process:
    // the manager's silence is still not covered.
    let pod = "var/log/pods/cozy_kamaji-7d9_0a1b";
    let sidecar: String = (0..61).map(|i| format!("{} stdout F I0526 {}.000000       1 proxy.go:42] proxied\n", ts(30 * i), &ts(30 * i)[11..19])).collect();
    check(
        &[(&format!("{pod}/manager/0.log"), cri(&manager(Held::RanLong, Some((295, 1500))))), (&format!("{pod}/sidecar/0.log"), sidecar)],
        &format!(
            "source {pod}/manager/0.log files=1 lines=110 10:00:00–10:26:46 gaps=[10:04:52–10:25:00]
source {pod}/sidecar/0.log files=1 lines=61 10:00:00–10:30:00 gaps=[]
uncovered 90000000-0000-4000-8000-000000000000 10:04:51–10:25:00 other_lines=0
held latent_start=none
missing etcd
"
        ),
    );
}

#[test]
fn a_quiet_controller_has_no_gap_and_no_stall() {
    // A reconcile every 4 minutes (opening and done in the same second
    // pair), one pause of 20 minutes: 5 of its usual waits, no gap.
    let mut log = String::new();
    let mut times: Vec<u32> = (0..12).map(|k| 240 * k).collect();
    times.extend((0..3).map(|k| 240 * 11 + 1200 + 240 * k));
    for (k, t) in times.iter().enumerate() {
        log += &zap(*t, "INFO", "starting sync", "widget", "a", &rid('4', k as u32), "");
        log += &zap(t + 1, "INFO", "synced", "widget", "a", &rid('4', k as u32), "");
    }
    // 12 + 3 reconciles, 30 lines: 10:00:00 to 11:12:01 (240·13 + 1200 + 1 s).
    let a = run(&[("quiet.log", log)]);
    let c = &a.coverage.sources[0];
    assert_eq!((c.lines, c.gaps.len()), (30, 0), "{c:#?}");
    assert_eq!(c.last.to_string(), "2026-05-26T11:12:01Z");
    assert!(a.findings.iter().all(|f| f.kind != FindingKind::StalledWorker), "{:#?}", a.findings);
    assert!(a.coverage.uncovered.is_empty());
}

/// etcd 3.5's zap JSON, through the kubelet's CRI file: routine lines, no
/// election.
fn etcd_log() -> String {
    (0..5)
        .map(|i| {
            let t = ts(300 * i);
            format!(
                "{t} stderr F {{\"level\":\"info\",\"ts\":\"{}\",\"caller\":\"mvcc/index.go:214\",\"msg\":\"compact tree index\",\"revision\":{}}}\n",
                &t,
                43913 + i
            )
        })
        .collect()
}

#[test]
fn without_an_etcd_log_elections_are_unknown_and_with_one_there_are_none() {
    let manager_log = ("manager.log", text(&manager(Held::LateFirstLine, None)));
    let a = run(std::slice::from_ref(&manager_log));
    let doc = reconscope::analyze::json::to_json(&[], &a);
    assert_eq!(doc["coverage"]["etcd"], "absent");
    assert_eq!(doc["coverage"]["missing"][0]["kind"], "etcd");
    let md = markdown(&a, &ReportOptions::default());
    // (The held reconcile failed.)
    assert!(md.contains("reconciles (1 failed) in 2 controller instances, elections unknown (the artifact holds no etcd log), 1 finding."), "{md}");
    assert!(md.contains("### etcd leader elections\n\nUnknown: the artifact holds no etcd log"), "{md}");
    assert!(!md.contains("0 etcd leader elections"), "{md}");
    // The picture says the same.
    let svg = reconscope::render::svg(&a, &reconscope::layout::layout(&a, &Default::default()), &Default::default());
    assert!(svg.contains(" controller instances · elections unknown (no etcd log) · 1 finding</text>"), "{svg}");

    let etcd = ("var/log/pods/kube-system_etcd-node1_9f8e/etcd/0.log", etcd_log());
    let a = run(&[manager_log, etcd]);
    let doc = reconscope::analyze::json::to_json(&[], &a);
    assert_eq!(doc["coverage"]["etcd"], "present");
    assert_eq!(doc["coverage"]["etcd_logs"], serde_json::json!(["var/log/pods/kube-system_etcd-node1_9f8e/etcd/0.log"]));
    assert_eq!(doc["coverage"]["missing"], serde_json::json!([]));
    let md = markdown(&a, &ReportOptions::default());
    assert!(md.contains("reconciles (1 failed) in 2 controller instances, 0 etcd leader elections, 1 finding."), "{md}");
    let svg = reconscope::render::svg(&a, &reconscope::layout::layout(&a, &Default::default()), &Default::default());
    assert!(svg.contains(" reconciles (1 failed) · 2 controller instances · 0 etcd elections · 1 finding</text>"), "{svg}");
    assert!(md.contains("### etcd leader elections\n\nNone in the etcd logs."), "{md}");
    assert!(!md.contains("What this artifact does not show"), "nothing missing: {md}");

    // etcd under systemd (capnslog's journald formatter: the bare message
    // after the journal's prefix), nothing about an election.
    let journal = "May 26 10:00:00 node1 etcd[1188]: published {Name:node1 ClientURLs:[https://10.0.0.1:2379]} to cluster 5f8e0b2d\n\
                   May 26 10:00:01 node1 etcd[1188]: ready to serve client requests\n";
    let a = run(&[("manager.log", text(&manager(Held::LateFirstLine, None))), ("node1/journal.txt", journal.to_string())]);
    assert_eq!(a.coverage.etcd_logs, ["node1/journal.txt"]);
}

#[test]
fn a_restarted_container_without_its_previous_log_is_noted() {
    let dir = "var/log/pods/cozy_kamaji-7d9_0a1b/manager";
    let lines = manager(Held::LateFirstLine, None);
    let a = run(&[(&format!("{dir}/2.log"), cri(&lines))]);
    let m: Vec<(&str, Option<&str>)> = a.coverage.missing.iter().map(|m| (m.kind.as_str(), m.path.as_deref())).collect();
    assert_eq!(m, [("etcd", None), ("previous-log", Some(format!("{dir}/2.log").as_str()))]);
    assert!(a.coverage.missing[1].message.contains(&format!("{dir}/1.log, the log of the run before, is absent")), "{}", a.coverage.missing[1].message);
    // Runs 0 and 1 beside each other: nothing missing but etcd.
    let (zero, one): (Vec<_>, Vec<_>) = lines.into_iter().partition(|(t, _)| *t < 600);
    let a = run(&[(&format!("{dir}/0.log"), cri(&zero)), (&format!("{dir}/1.log"), cri(&one))]);
    let m: Vec<&str> = a.coverage.missing.iter().map(|m| m.kind.as_str()).collect();
    assert_eq!(m, ["etcd"]);
}

#[test]
fn a_silence_with_no_other_line_is_not_covered_even_without_a_gap() {
    // widget alone: a, b, c every 10s up to 10:04:51, `stuck` from 10:04:52
    // to 10:08:52 (4 minutes: past the stall's 200s, 20 of its usual 10s,
    // but no gap under the 5-minute floor), then d, e, f. Nothing else in
    // the log (its last line is f's at 10:08:59): nothing shows the process
    // was logging.
    let mut log = String::new();
    for k in 0..30 {
        let obj = ["a", "b", "c"][k as usize % 3];
        log += &zap(10 * k, "INFO", "starting sync", "widget", obj, &rid('1', k), "");
        log += &zap(10 * k + 1, "INFO", "synced", "widget", obj, &rid('1', k), "");
    }
    log += &zap(292, "INFO", "starting sync", "widget", "stuck", &rid('9', 0), "");
    log += &zap(532, "ERROR", "sync failed", "widget", "stuck", &rid('9', 0), ", \"error\": \"etcd request failed\"");
    for (n, obj) in ["d", "e", "f"].iter().enumerate() {
        let t = 534 + 2 * n as u32;
        log += &zap(t, "INFO", "starting sync", "widget", obj, &rid('2', n as u32), "");
        log += &zap(t + 1, "INFO", "synced", "widget", obj, &rid('2', n as u32), "");
    }
    let a = check(
        &[("manager.log", log)],
        "source manager.log files=1 lines=68 10:00:00–10:08:59 gaps=[]
uncovered 90000000-0000-4000-8000-000000000000 10:04:51–10:08:52 other_lines=0
held latent_start=none
missing etcd
",
    );
    assert!(a.coverage.uncovered[0]
        .message
        .ends_with("but its log manager.log wrote no other line then: nothing shows the process was logging, so this is not reported as a stall."));
}

/// `kubectl get pods -o yaml` of the kamaji pod: its manager container
/// restarted twice, its sidecar never.
const PODS_YAML: &str = r#"apiVersion: v1
items:
- apiVersion: v1
  kind: Pod
  metadata:
    creationTimestamp: "2026-05-26T09:00:00Z"
    name: kamaji-7d9
    namespace: cozy
  spec:
    containers:
    - image: clastix/kamaji:edge-26.8.1
      name: manager
  status:
    containerStatuses:
    - image: clastix/kamaji:edge-26.8.1
      lastState:
        terminated:
          exitCode: 2
          reason: Error
      name: manager
      ready: true
      restartCount: 2
      started: true
    - name: sidecar
      ready: true
      restartCount: 0
    phase: Running
kind: List
metadata:
  resourceVersion: ""
"#;

#[test]
fn a_dump_s_restart_count_without_a_previous_log_is_noted() {
    let current = "snap/namespaces/cozy/v1/pod/kamaji-7d9/manager/current.log";
    let lines = text(&manager(Held::LateFirstLine, None));
    let a = run(&[("snap/pods.yaml", PODS_YAML.to_string()), (current, lines.clone())]);
    let m: Vec<(&str, Option<&str>)> = a.coverage.missing.iter().map(|m| (m.kind.as_str(), m.path.as_deref())).collect();
    assert_eq!(m, [("etcd", None), ("previous-log", Some(current))]);
    assert!(
        a.coverage.missing[1].message.starts_with("Container manager of pod kamaji-7d9 restarted 2 times (snap/pods.yaml says so)"),
        "{}",
        a.coverage.missing[1].message
    );
    // Its previous log beside it (crust-gather's `previous.log`): nothing.
    let previous = "snap/namespaces/cozy/v1/pod/kamaji-7d9/manager/previous.log";
    let a = run(&[("snap/pods.yaml", PODS_YAML.to_string()), (previous, lines.clone()), (current, lines)]);
    let m: Vec<&str> = a.coverage.missing.iter().map(|m| m.kind.as_str()).collect();
    assert_eq!(m, ["etcd"]);
}

/// The hole of the test above is drawn: the log's lane open from 10:04:52
/// to 10:25:00 and outlined, in the timeline and the SVG.
#[test]
fn a_hole_is_open_on_its_log_s_lane() {
    use reconscope::layout::{layout, LayoutOptions};
    let a = run(&[("manager.log", text(&manager(Held::RanLong, Some((295, 1500)))))]);
    let tl = layout(&a, &LayoutOptions::default());
    assert_eq!(tl.sources.len(), 1);
    let at = |s: &str| reconscope::time::parse_rfc3339(format!("2026-05-26T{s}Z").as_bytes(), false, 0).unwrap().ts.nanos;
    assert_eq!((tl.sources[0].label.as_str(), tl.sources[0].gaps.clone()), ("manager.log", vec![(at("10:04:52"), at("10:25:00"))]));
    // What has lines, as every painter draws it: to the hole, and after it.
    let (first, last) = (tl.sources[0].first_nanos, tl.sources[0].last_nanos);
    assert_eq!((hms_of(first), hms_of(last)), ("10:00:00".to_string(), "10:26:46".to_string()));
    assert_eq!(tl.sources[0].spans(), [(first, at("10:04:52")), (at("10:25:00"), last)]);
    let svg = reconscope::render::svg(&a, &tl, &reconscope::render::View::default());
    let doc = roxmltree::Document::parse(&svg).expect("well-formed");
    assert_eq!(doc.descendants().filter(|n| n.attribute("data-gap") == Some("1")).count(), 1);
    // A log with no hole has its lane too, whole.
    let a = run(&[("manager.log", text(&manager(Held::RanLong, None)))]);
    let tl = layout(&a, &LayoutOptions::default());
    assert_eq!(tl.sources.iter().map(|s| (s.label.as_str(), s.gaps.len())).collect::<Vec<_>>(), [("manager.log", 0)]);
    assert_eq!(tl.sources[0].spans(), [(tl.sources[0].first_nanos, tl.sources[0].last_nanos)]);
}

fn hms_of(nanos: i64) -> String {
    reconscope::time::Timestamp::new(nanos, 9).to_string()[11..19].to_string()
}

#[test]
fn a_reconcile_whose_first_line_is_its_deadline_is_not_an_expired_context() {
    // Its only line is its error (tests/corpus/controller-runtime/
    // json_production_reconciler_error.log): when it began is not logged,
    // so nothing says the deadline came soon after.
    let failed = |secs| zap(secs, "ERROR", "Reconciler error", "widget", "a", &rid('a', 1), ", \"error\": \"context deadline exceeded\"");
    let a = run(&[("manager.log", failed(0))]);
    assert!(a.findings.iter().all(|f| f.kind != FindingKind::ExpiredContext), "{:#?}", a.findings);
    // A line before it says when it began: the deadline came at once.
    let a = run(&[("manager.log", zap(0, "INFO", "Reconciling", "widget", "a", &rid('a', 1), "") + &failed(0))]);
    let kinds: Vec<FindingKind> = a.findings.iter().map(|f| f.kind).collect();
    assert_eq!(kinds, [FindingKind::ExpiredContext]);
    // klog's `err` says it as zap's `error` does.
    let klog = format!(
        "I0526 10:00:00.000001       1 controller.go:1] \"Reconciling\" controller=\"widget\" namespace=\"ns\" name=\"a\" reconcileID=\"{0}\"\n\
         E0526 10:00:00.000002       1 controller.go:2] \"Reconciler error\" err=\"context deadline exceeded\" controller=\"widget\" namespace=\"ns\" name=\"a\" reconcileID=\"{0}\"\n",
        rid('a', 1)
    );
    let a = run(&[("manager.log", klog)]);
    let kinds: Vec<FindingKind> = a.findings.iter().map(|f| f.kind).collect();
    assert_eq!(kinds, [FindingKind::ExpiredContext]);
    assert_eq!(a.reconciles[0].error.as_deref(), Some("Reconciler error: context deadline exceeded"));
}

#[test]
fn a_reconcile_error_is_its_error_field_or_its_message_alone() {
    let line = |n, msg: &str, extra: &str| zap(0, "ERROR", msg, "widget", "a", &rid('a', n), extra);
    let a = run(&[(
        "manager.log",
        [
            line(1, "Reconciler error", ", \"error\": \"boom\""),
            // controller-runtime's recovered panic names it in `panic`.
            line(2, "Observed a panic", ", \"panic\": \"failpoint panic: {}\""),
            line(3, "Connect failed", ""),
        ]
        .concat(),
    )]);
    let errors: Vec<Option<&str>> = a.reconciles.iter().map(|r| r.error.as_deref()).collect();
    assert_eq!(errors, [Some("Reconciler error: boom"), Some("Observed a panic: failpoint panic: {}"), Some("Connect failed")]);
}

#[test]
fn lines_naming_a_reconcile_id_left_out_get_a_note() {
    // After tests/corpus/kamaji/issue780_deletion_stuck_wrapped.log (line 1,
    // the tail of a record cut off) and a paste that lost an epoch's first
    // digit; then a line whose time is impossible (Feb 30).
    let cut = format!(".6801626021565094e+09\tERROR\tReconciler error\t{{\"controller\": \"widget\", \"reconcileID\": \"{}\"}}\n", rid('a', 1));
    let feb30 = format!("{{\"level\":\"error\",\"ts\":\"2026-02-30T10:00:00Z\",\"msg\":\"Reconciler error\",\"reconcileID\":\"{}\"}}\n", rid('b', 2));
    let notes = |text: String| {
        let mut l = Loaded::default();
        l.add("manager.log", text.into_bytes(), &LoadOptions::default());
        l.finish();
        analyze(&l.files, &AnalyzeOptions::default()).1.iter().map(|d| d.to_string()).filter(|n| n.contains("reconcileID")).collect::<Vec<_>>()
    };
    assert_eq!(notes(cut.clone()), ["manager.log:1: this line names a reconcileID but is in no reconcile: no format could read it"]);
    assert_eq!(
        notes(zap(0, "INFO", "Reconciling", "widget", "a", &rid('c', 3), "") + &cut + &feb30),
        ["manager.log:2: 2 lines name a reconcileID but are in no reconcile (the first is this one): 1 no format could read, 1 carries no time that could be read"]
    );
    // Every line in a reconcile: no note.
    assert!(notes(zap(0, "INFO", "Reconciling", "widget", "a", &rid('c', 3), "")).is_empty());
    // Lines joined to a goroutine dump, or to the stack under an error
    // line, because they looked like its lines (indented, naming a `.go:`
    // file): before indented log lines were read, kueue's envtest log was
    // one traceback of 49 lines, and nothing said so.
    let dump = "panic: boom\n\ngoroutine 7 [running]:\nmain.main()\n\t/src/main.go:12 +0x1d\n  [10:00:01] syncing {\"reconcileID\": \"r1\"}\n  [10:00:02] synced {\"reconcileID\": \"r1\"}\n";
    assert_eq!(
        notes(dump.to_string()),
        ["manager.log:6: 2 lines that name a reconcileID (the first is this one) were read as lines of a Go traceback or stack, not as log lines: the analysis does not use them"]
    );
    let stack = zap(0, "ERROR", "Reconciler error", "widget", "a", &rid('d', 4), "")
        + "sigs.k8s.io/controller-runtime/pkg/internal/controller.(*Controller).reconcileHandler\n"
        + "\t/src/sync.go:3 syncing reconcileID=r2\n";
    assert_eq!(
        notes(stack),
        ["manager.log:3: this line names a reconcileID but was read as a line of a Go traceback or stack, not as a log line: the analysis does not use it"]
    );
    // A line naming it twice is one line; each line is counted by its own
    // number, past lines that name none.
    let twice = zap(0, "ERROR", "Reconciler error", "widget", "a", &rid('d', 4), "")
        + "sigs.k8s.io/controller-runtime/pkg/internal/controller.(*Controller).reconcileHandler\n"
        + "\t/src/sync.go:3 +0x1d\n"
        + "\t/src/sync.go:4 reconcileID=r2 reconcileID=r3\n"
        + "\t/src/sync.go:5 +0x2e\n"
        + "\t/src/sync.go:6 reconcileID=r4\n";
    assert_eq!(
        notes(twice),
        ["manager.log:4: 2 lines that name a reconcileID (the first is this one) were read as lines of a Go traceback or stack, not as log lines: the analysis does not use them"]
    );
    // kueue #1015's paste (lines 10-11 of its third block): GitHub put a
    // link into a time, so the line's start is no time, and naming a `.go:`
    // file it was taken for a traceback's line of its own.
    let mangled = "  2023-07-24T09:48:03.516689125Z\tLEVEL(-2)\tcluster-queue-reconciler\tcore/clusterqueue_controller.go:262\tGot generic event\t{\"obj\": {\"name\":\"model-c\"}, \"kind\": \"/, Kind=\"}\n  \
                   2023-07-24T09:48:03.5[200](https://prow.k8s.io/view/gs/kubernetes-jenkins/pr-logs/pull/kubernetes-sigs_kueue/1011/pull-kueue-test-integration-main/1683413143272820736#1:build-log.txt%3A200)75657Z\tLEVEL(-2)\tcore/resourceflavor_controller.go:78\tReconciling ResourceFlavor\t{\"controller\": \"resourceflavor\", \"controllerGroup\": \"kueue.x-k8s.io\", \"controllerKind\": \"ResourceFlavor\", \"ResourceFlavor\": {\"name\":\"model-c\"}, \"namespace\": \"\", \"name\": \"model-c\", \"reconcileID\": \"1365d11c-2ce8-4fc6-a3ab-8e0e5bbf6a27\"}\n";
    assert_eq!(
        notes(mangled.to_string()),
        ["manager.log:2: this line names a reconcileID but was read as a line of a Go traceback or stack, not as a log line: the analysis does not use it"]
    );
    // A stack's own lines name none: no note.
    let plain = zap(0, "ERROR", "Reconciler error", "widget", "a", &rid('d', 4), "")
        + "sigs.k8s.io/controller-runtime/pkg/internal/controller.(*Controller).reconcileHandler\n\t/src/controller.go:316 +0x3c\n";
    assert!(notes(plain).is_empty());
}

/// How often a log usually writes is said no finer than its times: lines
/// written to the second, many a second, usually log "at least once a
/// second" (not "every 0ns"); a wait between a line written to the second
/// and one written to the millisecond is known to the second; only lines
/// all written to the millisecond give a figure in milliseconds. The JSON
/// bounds the figure as it does every duration.
#[test]
fn how_often_a_log_writes_is_said_no_finer_than_its_times() {
    // (time written, precision) of each line: 10:00:00 to 10:00:20, a hole,
    // then 10:10:00 to 10:10:20.
    let line = |ms: u32, digits: u8| {
        let (s, frac) = (ms / 1000, ms % 1000);
        let t = ts(s);
        let t = if digits == 3 { format!("{}.{frac:03}Z", &t[..t.len() - 1]) } else { t };
        format!("{t}\tINFO\tsetup\tstill here\n")
    };
    let log = |each: &dyn Fn(u32) -> Vec<(u32, u8)>| -> String { (0..=20).chain(600..=620).flat_map(each).map(|(ms, d)| line(ms, d)).collect() };
    let cases: [(&str, String, &str, [serde_json::Value; 3]); 3] = [
        (
            "25 lines a second, to the second",
            log(&|s| vec![(s * 1000, 0); 25]),
            "it usually logs at least once a second",
            [0.into(), 0.into(), 999_999_999.into()],
        ),
        (
            "to the second and to the millisecond, alternately",
            log(&|s| vec![(s * 1000, 0), (s * 1000 + 500, 3)]),
            "it usually logs at least once a second",
            [500_000_000.into(), 0.into(), 1_499_999_999.into()],
        ),
        (
            "to the millisecond",
            log(&|s| vec![(s * 1000, 3), (s * 1000 + 500, 3)]),
            "it usually logs at least every 500ms",
            [500_000_000.into(), 499_000_001.into(), 500_999_999.into()],
        ),
    ];
    for (what, text, said, [nanos, lo, hi]) in cases {
        let a = run(&[("manager.log", text)]);
        let md = markdown(&a, &ReportOptions::default());
        let gap_line = md.lines().find(|l| l.starts_with("- No line in `manager.log`")).unwrap_or_else(|| panic!("{what}: no gap in {md}"));
        assert!(gap_line.contains(&format!("–10:10:00 (9m40s; {said})")), "{what}: {gap_line}");
        let doc = reconscope::analyze::json::to_json(&[], &a);
        let src = &doc["coverage"]["sources"][0];
        assert_eq!([&src["normal_gap_nanos"], &src["normal_gap_nanos_at_least"], &src["normal_gap_nanos_at_most"]], [&nanos, &lo, &hi], "{what}: {src}");
        // The hole: from the last line before it (10:00:20, or 10:00:20.500
        // when the lines alternate) to 10:10:00 (written to the second but in
        // the last case), known to the coarser of the two.
        let gap = &src["gaps"][0];
        let (written, tick): (i64, i64) = match what {
            "25 lines a second, to the second" => (580_000_000_000, 1_000_000_000),
            "to the second and to the millisecond, alternately" => (579_500_000_000, 1_000_000_000),
            _ => (579_500_000_000, 1_000_000),
        };
        assert_eq!(
            [gap["nanos"].as_i64(), gap["nanos_at_least"].as_i64(), gap["nanos_at_most"].as_i64()],
            [Some(written), Some(written - tick + 1), Some(written + tick - 1)],
            "{what}: {gap}"
        );
    }
}

/// Lines no format reads that no other note names get one note per file:
/// how many, the first, and what it says; a file none of whose lines is
/// read says so. A terminal's rows, lines naming a reconcileID and object
/// dumps have notes of their own (or none to make), and are not counted
/// again. An input with no time at all has no year to know: `year_known`
/// is `null`.
#[test]
fn lines_no_format_reads_get_a_note() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let read = |rel: &str| std::fs::read_to_string(root.join(rel)).unwrap();
    let analysed = |files: &[(&str, String)]| {
        let mut l = Loaded::default();
        for (name, text) in files {
            l.add(name, text.clone().into_bytes(), &LoadOptions::default());
        }
        l.finish();
        let (a, diags) = analyze(&l.files, &AnalyzeOptions::default());
        let notes: Vec<String> = l.notes.iter().chain(&diags).map(|d| d.to_string()).collect();
        (a, notes)
    };
    let unread = |notes: &[String]| notes.iter().filter(|n| n.contains("format reconscope reads")).cloned().collect::<Vec<_>>();

    // A real excerpt with two separator lines between its blocks (read in
    // the file: lines 4 and 8).
    let (_, notes) = analysed(&[("legacy.log", read("kamaji/legacy_2022_epoch_format.log"))]);
    assert_eq!(
        unread(&notes),
        ["legacy.log:4: 2 lines are in no format reconscope reads (the first is this one: `# --- PR #83 ---`): the analysis does not use them"]
    );

    // An elision a person wrote into a paste, a shell command line (the
    // parser names it), and a cut line naming a reconcileID (noted as such).
    let cut = format!(".6801626021565094e+09\tERROR\tReconciler error\t{{\"controller\": \"widget\", \"reconcileID\": \"{}\"}}\n", rid('a', 1));
    let text = format!(
        "$ kubectl logs deploy/manager\n{}...\n{cut}{}",
        zap(0, "INFO", "Reconciling", "widget", "a", &rid('c', 3), ""),
        zap(9, "INFO", "Reconcile done", "widget", "a", &rid('c', 3), "")
    );
    let (a, notes) = analysed(&[("paste.log", text)]);
    assert_eq!(unread(&notes), Vec::<String>::new());
    assert!(notes.iter().any(|n| n.starts_with("paste.log:3: this line is an elision (`...`): lines of the log were left out")), "{notes:#?}");
    assert!(notes.iter().any(|n| n.starts_with("paste.log:1: line 1 is a shell command")), "{notes:#?}");
    assert!(notes.iter().any(|n| n.starts_with("paste.log:4: this line names a reconcileID")), "{notes:#?}");
    assert_eq!(a.reconciles.len(), 1);

    // Not a log at all, beside an object dump (read whole: no note).
    let long = "x".repeat(80);
    let (a, notes) = analysed(&[("notes.txt", format!("{long}\nsecond line\n")), ("tcp.yaml", read("k8s-objects/tenantcontrolplane_issue497_metadata.yaml"))]);
    assert_eq!(
        unread(&notes),
        [format!("notes.txt:1: no line of it is in a format reconscope reads (2 lines, the first: `{}...`): the analysis does not use it", "x".repeat(60))],
        "{notes:#?}"
    );
    // Files that are no logs are said together: the first, and the others
    // by name (three, then how many more); a control character in a line
    // is shown, not written.
    let table = read("k8s-objects/kubectl_get_tcp_table_issue183.txt");
    let others: Vec<(String, String)> = (1..=4).map(|i| (format!("other-{i}.txt"), "plain words\n".to_string())).collect();
    let mut files = vec![("bell.txt", "\x07ring\n".to_string()), ("table.txt", table)];
    files.extend(others.iter().map(|(n, t)| (n.as_str(), t.clone())));
    let (_, notes) = analysed(&files);
    assert_eq!(
        unread(&notes),
        ["bell.txt:1: no line of it (1 line, the first: `\\x07ring`), nor of 5 other files (`table.txt`, `other-1.txt`, `other-2.txt`, 2 more), is in a format reconscope reads: the analysis does not use them"],
        "{notes:#?}"
    );
    // No time anywhere: whether the logs give a year is unknown.
    let doc = reconscope::analyze::json::to_json(&[], &a);
    assert!(doc["year_known"].is_null(), "{}", doc["year_known"]);
    let (a, _) = analysed(&[("legacy.log", read("kamaji/legacy_2022_epoch_format.log"))]);
    assert_eq!(reconscope::analyze::json::to_json(&[], &a)["year_known"], true);
}

/// A reconcile's lines that name no reconcileID: controller-runtime before
/// v0.12 (its `Successfully Reconciled` and `Reconciler error` with a
/// `request`, as a 2019 kubebuilder operator's `make run` logged them),
/// a reconciler that logs on its own (Crossplane's `Reconciling` with a
/// `controller` and a `request`), a `Reconciler error` line cut before its
/// keys. No reconcile is made of them; one note per file says so, with
/// each message's count, instead of nothing at all. `Reconciling` with no
/// `controller` key is some other line, and a line with a reconcileID is
/// in a reconcile.
#[test]
fn reconcile_lines_without_a_reconcile_id_get_a_note() {
    let old = [
        "2019-10-28T18:29:01.537+0200\tINFO\tcontroller-runtime.controller\tStarting workers\t{\"controller\": \"tfserv\", \"worker count\": 1}",
        "2019-10-28T18:29:01.570+0200\tDEBUG\tcontroller-runtime.controller\tSuccessfully Reconciled\t{\"controller\": \"tfserv\", \"request\": \"default/tfserv-sample\"}",
        "2019-10-28T18:29:01.592+0200\tERROR\tcontroller-runtime.controller\tReconciler error\t{\"controller\": \"tfserv\", \"request\": \"default/tfserv-sample\", \"error\": \"conflict\"}",
        "2019-10-28T18:29:02.000+0200\tINFO\tsetup\tReconciling\t{\"phase\": \"startup\"}",
        "2019-10-28T18:29:02.632+0200\tDEBUG\tcontroller-runtime.controller\tSuccessfully Reconciled\t{\"controller\": \"tfserv\", \"request\": \"default/tfserv-sample\"}",
        "",
    ]
    .join("\n");
    let crossplane = "2025-04-10T14:12:36+02:00\tDEBUG\tprovider\tReconciling\t{\"controller\": \"managed/x\", \"request\": {\"name\":\"repo\"}}\n";
    let cut = "E0131 16:44:25.119065       1 controller.go:324] \"Reconciler error\" err=\"failed to reconcile VM: cannot reserve\n";
    let modern = zap(0, "ERROR", "Reconciler error", "widget", "a", &rid('a', 1), ", \"error\": \"boom\"");
    let mut l = Loaded::default();
    for (name, text) in [("old.log", old), ("crossplane.log", crossplane.to_string()), ("cut.log", cut.to_string()), ("modern.log", modern)] {
        l.add(name, text.into_bytes(), &LoadOptions::default());
    }
    l.finish();
    let (a, diags) = analyze(&l.files, &AnalyzeOptions::default());
    assert_eq!(a.reconciles.len(), 1);
    let why = "reconscope groups a reconcile's lines by the reconcileID that controller-runtime writes from v0.12 on (older versions and reconcilers that log on their own write none, and a line cut short may have lost it)";
    let notes: Vec<String> = diags.iter().filter(|d| d.message.contains("no reconcileID")).map(|d| d.to_string()).collect();
    assert_eq!(
        notes,
        [
            format!("old.log:2: 3 lines are reconciles' (1 `Reconciler error`, 2 `Successfully Reconciled`; the first is this one) but name no reconcileID: {why}, so they are in no reconcile"),
            format!("crossplane.log:1: this line is a reconcile's (`Reconciling`) but names no reconcileID: {why}, so it is in no reconcile"),
            format!("cut.log:1: this line is a reconcile's (`Reconciler error`) but names no reconcileID: {why}, so it is in no reconcile"),
        ]
    );
}
