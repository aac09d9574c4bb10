//! Goroutine dumps on the timeline: the incident fixture carries a pprof
//! `debug=2` dump taken at 16:45 (time in its file name) in which the
//! tenantcontrolplane worker sits `[select, 15 minutes]` in etcd's
//! Auth/UserGet; the stall finding must name that call. Also: every way a
//! dump gets its time, a dump that explains nothing, no dump at all, and a
//! damaged dump.

use std::path::Path;

use reconscope::analyze::{analyze, json, Analysis, AnalyzeOptions, DumpTimeSource, FindingKind};
use reconscope::model::ParsedFile;
use reconscope::parse::{parse_file, resolve_years, ParseOptions};
use reconscope::pipeline::{LoadOptions, Loaded};

#[path = "support/files.rs"]
mod files;
#[path = "support/tar.rs"]
mod tar_support;

const DUMP_PATH: &str = "kamaji/pprof/kamaji-goroutines-20260526T164500Z.txt";

fn root() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/incident/cozyreport")
}

fn dump_text() -> String {
    std::fs::read_to_string(root().join(DUMP_PATH)).unwrap()
}

/// The incident's log files (without its dump), plus `extra` (name, text),
/// which takes the place of the incident's file of that name.
fn incident_with(extra: &[(&str, String)], opts: &AnalyzeOptions) -> Analysis {
    let mut files: Vec<ParsedFile> = Vec::new();
    let paths = files::files_under(&root()).into_iter().filter(|p| !p.ends_with(DUMP_PATH) && !extra.iter().any(|(name, _)| p.ends_with(name)));
    for p in paths {
        let rel = p.strip_prefix(root()).unwrap().to_string_lossy().into_owned();
        files.push(parse_file(rel, std::fs::read(&p).unwrap(), &ParseOptions::default()));
    }
    for (name, text) in extra {
        files.push(parse_file(*name, text.as_bytes().to_vec(), &ParseOptions::default()));
    }
    resolve_years(&mut files);
    analyze(&files, opts).0
}

fn stall(a: &Analysis) -> &reconscope::analyze::Finding {
    let s: Vec<_> = a.findings.iter().filter(|f| f.kind == FindingKind::StalledWorker).collect();
    assert_eq!(s.len(), 1, "{:#?}", a.findings);
    s[0]
}

#[test]
fn the_stall_finding_names_the_call_the_worker_is_blocked_in() {
    let a = incident_with(&[(DUMP_PATH, dump_text())], &AnalyzeOptions::default());
    assert_eq!(a.dumps.len(), 1);
    let d = &a.dumps[0];
    assert_eq!(d.time.unwrap().to_string(), "2026-05-26T16:45:00Z");
    assert_eq!(d.time_source, Some(DumpTimeSource::FileName));
    assert_eq!((d.kind.as_str(), d.goroutines, d.first_line), ("traceback", 9, 1));

    let s = stall(&a);
    let b = s.blocked.as_ref().expect("the stall is explained by the dump");
    assert_eq!(b.call, "go.etcd.io/etcd/client/v3.(*authClient).UserGet");
    assert_eq!(b.under.as_deref(), Some("github.com/clastix/kamaji/internal/datastore.(*EtcdClient).UserExists"));
    for part in ["16:45:00", "time from the file name", "15+ minutes", "since 16:30:00 or earlier", "(*authClient).UserGet", "up to about 2 minutes"] {
        assert!(s.message.contains(part), "{part:?} missing from: {}", s.message);
    }
    let g = &a.goroutines[b.goroutine];
    assert_eq!((g.role.as_str(), g.state.as_str(), g.max_wait_minutes), ("busy-worker", "select", Some(15)));
    assert_eq!(reconscope::goroutine::doing(&g.state), "blocked");
    assert_eq!(g.reconciler.as_deref(), Some("TenantControlPlaneReconciler"));
    assert_eq!(a.controllers[g.controller.unwrap()].controller, "tenantcontrolplane");
    assert_eq!(g.blocked_since_at_most.unwrap().to_string(), "2026-05-26T16:30:00Z");
    let held = &a.reconciles[g.reconcile.unwrap()];
    assert!(held.reconcile_id.starts_with("c853721a"), "{}", held.reconcile_id);
    assert_eq!(g.finding, a.findings.iter().position(|f| f.kind == FindingKind::StalledWorker));
    assert!(g.frames.iter().any(|f| f.func.ends_with("(*Setup).CreateOrUpdate") && f.line == 131));

    // The idle workers (parked in the workqueue's Get for up to 23 minutes)
    // are waiting for work, not blocked: they explain nothing.
    let idle: Vec<_> = a.goroutines.iter().filter(|g| g.role == "idle-worker").collect();
    assert_eq!(idle.iter().map(|g| g.count).sum::<u64>(), 3);
    assert!(idle.iter().all(|g| g.finding.is_none() && g.reconcile.is_none()));
    assert_eq!(idle.iter().filter_map(|g| g.max_wait_minutes).max(), Some(23));

    // The JSON document: the documented fields.
    let doc = json::to_json(&[], &a);
    let f = doc["findings"].as_array().unwrap().iter().find(|f| f["kind"] == "stalled-worker").unwrap();
    assert_eq!(f["blocked_in"], "go.etcd.io/etcd/client/v3.(*authClient).UserGet");
    let gj = &doc["goroutines"][f["goroutine"].as_u64().unwrap() as usize];
    for key in ["dump", "time", "group", "count", "state", "wait_minutes", "controller", "blocked_in", "frames"] {
        assert!(!gj[key].is_null(), "goroutines[].{key} is null: {gj}");
    }
    assert_eq!(gj["time"], "2026-05-26T16:45:00Z");
    assert_eq!(gj["wait_minutes"], 15);
    assert_eq!(gj["frames"][0]["func"], "google.golang.org/grpc/internal/transport.(*Stream).waitOnHeader");
    assert_eq!(doc["dumps"][0]["time_source"], "file-name");
    // Findings without a dump's answer have null there.
    assert!(doc["findings"].as_array().unwrap().iter().filter(|f| f["kind"] != "stalled-worker").all(|f| f["blocked_in"].is_null()));

    // The Markdown report lists the dump and the blocked worker.
    let md = reconscope::report::markdown(&a, &Default::default());
    let section = &md[md.find("### Goroutine dumps").expect("a goroutine section")..];
    assert!(md.contains("Times are UTC, on 2026-05-26."), "{md}");
    assert!(section.contains("taken at 16:45:00 (time from the file name)"), "{section}");
    assert!(section.contains("| 1 | select, 15 minutes | busy-worker | tenantcontrolplane | `go.etcd.io/etcd/client/v3.(*authClient).UserGet` |"), "{section}");
}

#[test]
fn without_a_dump_the_finding_says_what_to_collect() {
    let a = incident_with(&[], &AnalyzeOptions::default());
    assert!(a.dumps.is_empty() && a.goroutines.is_empty());
    let s = stall(&a);
    assert!(s.blocked.is_none());
    assert!(s.message.contains("No goroutine dump was in the input"), "{}", s.message);
    assert!(s.message.contains("--pprof-bind-address"), "{}", s.message);
    assert!(s.message.contains("curl -s 'http://127.0.0.1:6060/debug/pprof/goroutine?debug=2'"), "{}", s.message);
}

/// A worker on a thread (`[running]`) or ready for one (`[runnable]`) is
/// not waiting: the finding says it runs in the call, and the JSON and the
/// report do not call that call the one it is blocked in.
#[test]
fn a_running_worker_is_said_to_run_not_to_wait() {
    for (state, doing) in [("running", "running (`[running]`)"), ("runnable", "ready to run (`[runnable]`)")] {
        let text = dump_text().replace("goroutine 412 [select, 15 minutes]:", &format!("goroutine 412 [{state}]:"));
        let a = incident_with(&[(DUMP_PATH, text)], &AnalyzeOptions::default());
        let s = stall(&a);
        let b = s.blocked.as_ref().expect("the dump shows the stalled worker");
        let g = &a.goroutines[b.goroutine];
        assert_eq!((g.state.as_str(), g.max_wait_minutes, g.is_blocked()), (state, None, false));
        // (The app's inspector says it with the same words.)
        assert!(doing.starts_with(reconscope::goroutine::doing(&g.state)), "{doing}");
        let expected = format!("shows the worker {doing} in `go.etcd.io/etcd/client/v3.(*authClient).UserGet` under");
        assert!(s.message.contains(&expected), "{expected:?} missing from: {}", s.message);
        assert!(!s.message.contains("waiting") && !s.message.contains("blocked"), "{}", s.message);

        let doc = json::to_json(&[], &a);
        let f = doc["findings"].as_array().unwrap().iter().find(|f| f["kind"] == "stalled-worker").unwrap();
        assert_eq!((&f["blocked_in"], &f["running_in"]), (&serde_json::Value::Null, &"go.etcd.io/etcd/client/v3.(*authClient).UserGet".into()));
        let gj = &doc["goroutines"][f["goroutine"].as_u64().unwrap() as usize];
        assert!(gj["blocked_in"].is_null() && gj["blocked_in_at"].is_null(), "{gj}");
        assert_eq!(gj["running_in"], "go.etcd.io/etcd/client/v3.(*authClient).UserGet");
        assert_eq!(gj["running_in_at"], "/go/pkg/mod/go.etcd.io/etcd/client/v3@v3.5.17/auth.go:204");
        // Every other worker of the dump waits, and is said to.
        for g in doc["goroutines"].as_array().unwrap().iter().filter(|g| g["state"] != state && !g["blocked_in"].is_null()) {
            assert!(g["running_in"].is_null(), "{g}");
        }

        let md = reconscope::report::markdown(&a, &Default::default());
        assert!(md.contains(&format!("| 1 | {state} | busy-worker | tenantcontrolplane | `go.etcd.io/etcd/client/v3.(*authClient).UserGet` |")), "{md}");
        assert!(md.contains("| blocked or running in |"), "{md}");
    }
}

/// The dump renamed so that its name holds no time.
fn undated(text: &str) -> (&'static str, String) {
    ("kamaji/goroutines.txt", text.to_string())
}

#[test]
fn dump_time_from_a_wrapper() {
    // `kubectl logs --timestamps` around a SIGQUIT dump: the prefix dates it.
    let text: String = dump_text().lines().map(|l| format!("2026-05-26T16:45:01.5Z {l}\n")).collect();
    let a = incident_with(&[("kamaji/previous.log", text)], &AnalyzeOptions::default());
    assert_eq!(a.dumps[0].time_source, Some(DumpTimeSource::Wrapper));
    assert_eq!(a.dumps[0].time.unwrap().to_string(), "2026-05-26T16:45:01.5Z");
    assert!(stall(&a).blocked.is_some());
}

#[test]
fn dump_time_from_the_log_lines_around_it() {
    // A SIGQUIT dump printed into the manager's own log, between its lines.
    let text = format!(
        "2026-05-26T16:44:58Z\tINFO\tbefore the dump\nSIGQUIT: quit\nPC=0x47664e m=0 sigcode=0\n\n{}\n2026-05-26T16:46:10Z\tINFO\tafter\n",
        dump_text().trim_end()
    );
    let a = incident_with(&[("kamaji/manager-with-dump.log", text)], &AnalyzeOptions::default());
    assert_eq!(a.dumps.len(), 1, "{:#?}", a.dumps);
    assert_eq!(a.dumps[0].time_source, Some(DumpTimeSource::LogLines));
    assert_eq!(a.dumps[0].time.unwrap().to_string(), "2026-05-26T16:44:58Z");
    assert_eq!(a.dumps[0].preamble.as_deref(), Some("SIGQUIT: quit"));
    assert!(stall(&a).blocked.is_some());
}

#[test]
fn dump_time_from_the_user_and_none_at_all() {
    let (name, text) = undated(&dump_text());
    let a = incident_with(&[(name, text.clone())], &AnalyzeOptions::default());
    assert_eq!((a.dumps[0].time, a.dumps[0].time_source), (None, None));
    let s = stall(&a);
    assert!(s.blocked.is_none());
    assert!(s.message.contains("nothing dates it") && s.message.contains("--dump-time"), "{}", s.message);

    let opts = AnalyzeOptions { dump_time_nanos: Some(parse_time("2026-05-26T16:45:00Z")), ..Default::default() };
    let a = incident_with(&[(name, text)], &opts);
    assert_eq!(a.dumps[0].time_source, Some(DumpTimeSource::User));
    assert_eq!(stall(&a).blocked.as_ref().unwrap().call, "go.etcd.io/etcd/client/v3.(*authClient).UserGet");
}

fn parse_time(s: &str) -> i64 {
    reconscope::time::parse_rfc3339(s.as_bytes(), false, 0).unwrap().ts.nanos
}

#[test]
fn dump_time_from_the_archive_member() {
    // A tarball (as a CI step would save it) holding the dump under a name
    // without a time: the member's modification time dates it.
    let (name, text) = undated(&dump_text());
    let mut tar = Vec::new();
    let mtime = (parse_time("2026-05-26T16:45:00Z") / 1_000_000_000) as u64;
    tar_support::tar_entry(&mut tar, name, text.as_bytes(), b'0', mtime);
    tar.extend_from_slice(&[0; 1024]);
    let mut loaded = Loaded::default();
    loaded.add("pprof.tar", tar, &LoadOptions::default());
    loaded.finish();
    let f = &loaded.files[0];
    assert_eq!(f.path, format!("pprof.tar!/{name}"));
    let a = analyze(&loaded.files, &AnalyzeOptions::default()).0;
    assert_eq!(a.dumps[0].time_source, Some(DumpTimeSource::ArchiveMtime));
    assert_eq!(a.dumps[0].time.unwrap().to_string(), "2026-05-26T16:45:00Z");
}

#[test]
fn a_dump_outside_the_stall_explains_nothing() {
    // Taken at 16:20, before the stall began: the worker was then busy with
    // something else, and the finding says the dump does not cover it.
    let text = dump_text();
    let a = incident_with(&[("kamaji/goroutines-20260526T162000Z.txt", text)], &AnalyzeOptions::default());
    let s = stall(&a);
    assert!(s.blocked.is_none(), "{}", s.message);
    assert!(s.message.contains("(at 16:20:00) shows no busy worker of this controller during the stall"), "{}", s.message);
    assert!(a.goroutines.iter().all(|g| g.finding.is_none()));
}

#[test]
fn a_damaged_dump_still_explains_the_stall() {
    // Log lines written in the middle of the dump, and the text cut off
    // inside the last goroutine.
    let mut lines: Vec<String> = dump_text().lines().map(str::to_string).collect();
    lines.insert(40, "2026-05-26T16:45:00Z\tINFO\tlogged while the dump was written".into());
    lines.insert(5, "2026-05-26T16:45:00Z\tINFO\tand another".into());
    let cut = lines.len() - 3;
    let text = lines[..cut].join("\n");
    let a = incident_with(&[("kamaji/goroutines-20260526T164500Z.txt", text)], &AnalyzeOptions::default());
    assert_eq!(a.dumps.len(), 1, "{:#?}", a.dumps);
    let notes = a.dumps[0].notes.join("\n");
    assert!(notes.contains("skipped") && notes.contains("cut off"), "{notes}");
    assert_eq!(stall(&a).blocked.as_ref().unwrap().call, "go.etcd.io/etcd/client/v3.(*authClient).UserGet");
}

/// Every dump of the corpus (tests/corpus/goroutines, provenance in
/// tests/corpus/INDEX.md) goes through the whole reading path and the
/// analysis: each file yields at least one dump with goroutines.
#[test]
fn corpus_dumps_reach_the_analysis() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/goroutines");
    // (Each dump's `.expect` beside it is read by tests/corpus_expect.rs.)
    let names: Vec<_> = files::files_under(&dir).into_iter().filter(|p| p.extension().is_none_or(|e| e != "expect")).collect();
    assert_eq!(names.len(), 12);
    for p in names {
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        let mut loaded = Loaded::default();
        loaded.add(&name, std::fs::read(&p).unwrap(), &LoadOptions::default());
        loaded.finish();
        let a = analyze(&loaded.files, &AnalyzeOptions::default()).0;
        assert!(!a.dumps.is_empty(), "{name}: no dump");
        assert!(a.dumps.iter().all(|d| d.goroutines > 0), "{name}: {:?}", a.dumps);
        assert!(a.goroutines.iter().all(|g| g.dump < a.dumps.len() && g.count > 0), "{name}");
        if name.starts_with("01_") {
            // A CRI log: the wrapper dates the dump; the idle workers are idle.
            assert_eq!(a.dumps[0].time_source, Some(DumpTimeSource::Wrapper), "{name}");
            assert!(a.goroutines.iter().any(|g| g.role == "idle-worker" && g.max_wait_minutes == Some(2)), "{name}");
        }
        if name.starts_with("02_") {
            // A panic inside Reconcile: the worker is busy in kueue's reconciler.
            assert!(a.dumps[0].preamble.as_deref().is_some_and(|p| p.starts_with("panic: runtime error")), "{name}");
            let g = a.goroutines.iter().find(|g| g.role == "busy-worker").expect("the panicking worker");
            assert_eq!(g.reconciler.as_deref(), Some("ClusterQueueReconciler"));
        }
        if name.starts_with("04_") || name.starts_with("05_") || name.starts_with("12_") {
            assert!(a.dumps.iter().any(|d| d.kind == "debug1"), "{name}");
        }
    }
}

const LOG_PATH: &str = "kamaji/kamaji-controller.log";

/// The incident's controller log cut before the first line of the
/// reconcile that held the worker (line 919, 16:50:06): its last
/// tenantcontrolplane reconcile (5a0f75a8-…) ends at 16:29:29 (line 871,
/// `kubernetes-test-latest-version has been reconciled`), and 47 more
/// lines follow (soot managers, the etcd client's warning at
/// 16:50:06.412873, the log's last line). No line names the reconcile
/// that held the worker, as in a log saved while it was still stuck.
fn cut_before_the_held_reconcile() -> String {
    let log = std::fs::read_to_string(root().join(LOG_PATH)).unwrap();
    let at = log.find("c853721a").unwrap();
    log[..log[..at].rfind('\n').unwrap() + 1].to_string()
}

#[test]
fn a_stall_that_lasts_to_the_log_s_end_is_found_with_a_dump() {
    let a = incident_with(&[(LOG_PATH, cut_before_the_held_reconcile()), (DUMP_PATH, dump_text())], &AnalyzeOptions::default());
    let s = stall(&a);
    assert_eq!(a.controllers[s.controller.unwrap()].name, "tenantcontrolplane");
    assert_eq!((s.object.as_ref(), s.reconciles.len()), (None, 0), "no line says what held the worker");
    assert_eq!((s.start.to_string(), s.end.to_string()), ("2026-05-26T16:29:29Z".into(), "2026-05-26T16:50:06.412873Z".into()));
    let silence = s.silence.as_ref().unwrap();
    assert!(silence.to_log_end && silence.covered, "{silence:?}");
    assert_eq!(silence.other_lines, 47);
    for part in [
        "Worker 1 of tenantcontrolplane (1 worker) ended no reconcile for the last 20m37s of its log (16:29:29 → 16:50:06, where kamaji-controller.log ends",
        "its last reconcile line is reconcile 5a0f75a8-e353-42e2-aa8a-9cb940f2df16 of tenant-test/kubernetes-test-latest-version at 16:29:29 (`kubernetes-test-latest-version has been reconciled`), and no line after it names a reconcile of tenantcontrolplane",
        "it overlaps 2 etcd leader elections",
        "logged 47 other lines meanwhile",
        "A goroutine dump at 16:45:00",
        "since 16:30:00 or earlier",
    ] {
        assert!(s.message.contains(part), "{part:?} missing from: {}", s.message);
    }
    assert_eq!(s.blocked.as_ref().unwrap().call, "go.etcd.io/etcd/client/v3.(*authClient).UserGet");
    assert!(a.findings.iter().any(|f| f.kind == FindingKind::ElectionOverlap && f.start == s.start));
    // Nothing in the log was in flight at the dump: it names no reconcile.
    assert_eq!(a.goroutines[s.blocked.as_ref().unwrap().goroutine].reconcile, None);

    // The deletion asked at 16:36:59 is not gone as late as the logs
    // show: the etcd logs' last line, 17:07:52.008813.
    let stuck = a.findings.iter().find(|f| f.kind == FindingKind::StuckDeletion).unwrap();
    assert!(stuck.message.contains("asked to be deleted at 16:36:59 but is not gone 30m53s later"), "{}", stuck.message);

    let doc = json::to_json(&[], &a);
    let f = doc["findings"].as_array().unwrap().iter().find(|f| f["kind"] == "stalled-worker").unwrap();
    assert_eq!((&f["silence"], &f["silence_to_log_end"], &f["object"]), (&"covered".into(), &true.into(), &serde_json::Value::Null));
    assert_eq!(f["reconcile_ids"], serde_json::json!([]));
    let md = reconscope::report::markdown(&a, &Default::default());
    assert!(md.contains("**stalled-worker · tenantcontrolplane · 20m37s, 16:29:29–16:50:06**"), "{md}");

    // The whole log's stall ends with the held reconcile's error.
    let whole = incident_with(&[(DUMP_PATH, dump_text())], &AnalyzeOptions::default());
    assert!(!stall(&whole).silence.as_ref().unwrap().to_log_end);
    let doc = json::to_json(&[], &whole);
    let f = doc["findings"].as_array().unwrap().iter().find(|f| f["kind"] == "stalled-worker").unwrap();
    assert_eq!(f["silence_to_log_end"], false);
}

#[test]
fn a_log_that_ends_in_silence_is_no_stall_without_a_dump_of_the_held_worker() {
    // Without a dump the worker may as well be idle.
    let a = incident_with(&[(LOG_PATH, cut_before_the_held_reconcile())], &AnalyzeOptions::default());
    assert!(a.findings.iter().all(|f| f.kind != FindingKind::StalledWorker), "{:#?}", a.findings);
    // A dump of a worker blocked since 16:44 at the latest: it was free
    // for most of the silence, so the silence is not shown to be a stall.
    let lately = dump_text().replace("[select, 15 minutes]", "[select, 1 minutes]");
    let a = incident_with(&[(LOG_PATH, cut_before_the_held_reconcile()), (DUMP_PATH, lately)], &AnalyzeOptions::default());
    assert!(a.findings.iter().all(|f| f.kind != FindingKind::StalledWorker), "{:#?}", a.findings);
    assert_eq!(a.goroutines.iter().filter(|g| g.role == "busy-worker").count(), 1);
}

#[test]
fn every_worker_must_be_shown_held_for_a_stall_to_the_log_s_end() {
    let opts = AnalyzeOptions { workers: [("tenantcontrolplane".to_string(), 2)].into(), ..AnalyzeOptions::default() };
    // Two workers, one of them busy in the dump: the other was free, so
    // the instance was not held.
    let a = incident_with(&[(LOG_PATH, cut_before_the_held_reconcile()), (DUMP_PATH, dump_text())], &opts);
    assert_eq!(a.controllers.iter().find(|c| c.name == "tenantcontrolplane").unwrap().workers, 2);
    assert!(a.findings.iter().all(|f| f.kind != FindingKind::StalledWorker), "{:#?}", a.findings);
    // Both busy: the busy worker's goroutine twice (412 and 413), one stack.
    let text = dump_text();
    let from = text.find("goroutine 412 [").unwrap();
    let to = from + text[from..].find("\n\n").unwrap() + 2;
    let both = format!("{}{}{}", &text[..to], text[from..to].replace("goroutine 412 [", "goroutine 413 ["), &text[to..]);
    let a = incident_with(&[(LOG_PATH, cut_before_the_held_reconcile()), (DUMP_PATH, both)], &opts);
    let s = stall(&a);
    for part in [
        "Both workers of tenantcontrolplane ended no reconcile for the last 20m37s of its log",
        "so the workers, not the log, were silent",
        "shows 2 workers blocked 15+ minutes",
    ] {
        assert!(s.message.contains(part), "{part:?} missing from: {}", s.message);
    }
}
