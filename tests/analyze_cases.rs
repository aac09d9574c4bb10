//! Analysis cases beyond the incident: many workers, a log cut by --tail,
//! clock skew between files, a controller that never logs `Starting
//! workers`, and the shared corpus.

use std::path::Path;

#[path = "support/files.rs"]
mod files;

use reconscope::analyze::{analyze, Analysis, AnalyzeOptions, FindingKind};
use reconscope::model::ParsedFile;
use reconscope::pipeline::{LoadOptions, Loaded};

/// One zap console reconcile line of controller `c`.
fn line(ts: &str, level: &str, msg: &str, c: &str, obj: &str, rid: &str) -> String {
    format!(
        "{ts}\t{level}\t{msg}\t{{\"controller\": \"{c}\", \"controllerGroup\": \"example.io\", \"controllerKind\": \"Widget\", \"Widget\": {{\"name\":\"{obj}\",\"namespace\":\"ns\"}}, \"namespace\": \"ns\", \"name\": \"{obj}\", \"reconcileID\": \"{rid}\"}}\n"
    )
}

fn load(files: &[(&str, String)]) -> Vec<ParsedFile> {
    let mut l = Loaded::default();
    for (name, text) in files {
        l.add(name, text.clone().into_bytes(), &LoadOptions::default());
    }
    l.finish();
    l.files
}

fn run(files: &[(&str, String)], opts: &AnalyzeOptions) -> Analysis {
    analyze(&load(files), opts).0
}

fn ts(secs: u32) -> String {
    format!("2026-05-26T10:{:02}:{:02}Z", secs / 60, secs % 60)
}

#[test]
fn four_workers_overlap_in_four_lanes() {
    // `Starting workers` says 4; reconciles of 8 objects overlap, at most 4 at once.
    let mut log = "2026-05-26T10:00:00Z\tINFO\tStarting workers\t{\"controller\": \"widget\", \"controllerGroup\": \"example.io\", \"controllerKind\": \"Widget\", \"worker count\": 4}\n".to_string();
    let mut rid = 0;
    for round in 0..10u32 {
        let base = 1 + round * 10;
        // Four reconciles start together and end at different times.
        for k in 0..4u32 {
            rid += 1;
            let id = format!("00000000-0000-4000-8000-{rid:012}");
            let obj = format!("w{}", (round * 4 + k) % 8);
            log += &line(&ts(base), "INFO", "starting sync", "widget", &obj, &id);
            log += &line(&ts(base + 2 + k), "INFO", "synced", "widget", &obj, &id);
        }
    }
    // Sort lines by time as a real log would be.
    let mut lines: Vec<&str> = log.lines().collect();
    lines.sort_by_key(|l| l[..20].to_string());
    let log = lines.join("\n") + "\n";
    let a = run(&[("widget.log", log)], &AnalyzeOptions::default());
    assert_eq!(a.controllers.len(), 1);
    let c = &a.controllers[0];
    assert_eq!((c.workers, c.workers_source.as_str()), (4, "log"));
    assert_eq!(a.reconciles.len(), 40);
    let lanes: std::collections::BTreeSet<u32> = a.reconciles.iter().map(|r| r.lane).collect();
    assert_eq!(lanes.len(), 4, "{lanes:?}");
    // Within a lane, reconciles never overlap.
    for lane in lanes {
        let mut rs: Vec<_> = a.reconciles.iter().filter(|r| r.lane == lane).collect();
        rs.sort_by_key(|r| r.first);
        for w in rs.windows(2) {
            assert!(w[0].last <= w[1].first, "lane {lane}: {:?} overlaps {:?}", w[0].reconcile_id, w[1].reconcile_id);
        }
    }
    assert!(a.findings.iter().all(|f| f.kind != FindingKind::StalledWorker), "{:#?}", a.findings);
}

#[test]
fn late_first_lines_get_a_latent_start() {
    // One worker; the third reconcile's only line is an error at its end.
    let mut log = String::new();
    log += &line(&ts(1), "INFO", "starting sync", "widget", "a", "r1");
    log += &line(&ts(2), "INFO", "synced", "widget", "a", "r1");
    log += &line(&ts(3), "INFO", "starting sync", "widget", "b", "r2");
    log += &line(&ts(4), "INFO", "synced", "widget", "b", "r2");
    log += &line(&ts(50), "ERROR", "sync failed", "widget", "c", "r3");
    let a = run(&[("w.log", log)], &AnalyzeOptions::default());
    let r3 = a.reconciles.iter().find(|r| r.reconcile_id == "r3").unwrap();
    assert_eq!(r3.latent_start.map(|t| t.to_string()).as_deref(), Some("2026-05-26T10:00:04Z"));
    let r2 = a.reconciles.iter().find(|r| r.reconcile_id == "r2").unwrap();
    assert_eq!(r2.latent_start, None, "its first line is an opening line");
    // The worker was free from 10:00:04: r3 began then or later, so it ran
    // at most 46.999s (its line is written to the second), said rounded
    // up. That is longer than the 30s timeout, yet not known to be: no
    // slow-reconcile.
    assert_eq!((r3.stated_start, r3.duration_text().as_str()), (false, "at most 47s"));
    assert!(a.findings.iter().all(|f| f.kind != FindingKind::SlowReconcile), "{:#?}", a.findings);
    // In the JSON, r3's one line has no duration (its latent start is a
    // field of its own), and r2's two lines have theirs.
    let doc = reconscope::analyze::json::to_json(&[], &a);
    let json = |id: &str| doc["reconciles"].as_array().unwrap().iter().find(|r| r["reconcile_id"] == id).unwrap().clone();
    let r3 = json("r3");
    assert_eq!((&r3["lines"], &r3["latent_start"], &r3["latent_start_from"]), (&1.into(), &"2026-05-26T10:00:04Z".into(), &"worker".into()));
    assert!(json("r2")["latent_start_from"].is_null());
    assert!(r3["duration_nanos"].is_null() && r3["duration_nanos_at_least"].is_null() && r3["duration_nanos_at_most"].is_null(), "{r3}");
    let r2 = json("r2");
    assert_eq!(
        (&r2["duration_nanos"], &r2["duration_nanos_at_least"], &r2["duration_nanos_at_most"]),
        (&1_000_000_000i64.into(), &1.into(), &1_999_999_999i64.into())
    );
}

#[test]
fn a_line_that_states_how_long_its_reconcile_ran_gives_its_start() {
    // Flux's reconcilers say how long they ran on their last line
    // (`time.Since(reconcileStart)`, taken at the top of `Reconcile`).
    let ms = |secs: u32, millis: u32| format!("2026-05-26T10:{:02}:{:02}.{millis:03}Z", secs / 60, secs % 60);
    let mut log = String::new();
    // One line, 2.5s after it began: no earlier line, yet a start.
    log += &line(&ms(10, 500), "INFO", "Reconciliation finished in 2.5s, next run in 10m0s", "kustomization", "a", "r1");
    // Its first line came 300ms after it began.
    log += &line(&ms(20, 300), "INFO", "server-side apply completed", "kustomization", "b", "r2");
    log += &line(&ms(20, 400), "ERROR", "Reconciliation failed after 400.5ms, next try in 1m0s", "kustomization", "b", "r2");
    // Lower case, with the error after a colon (Kluctl's wording).
    log += &line(&ms(30, 0), "INFO", "reconciliation failed after 1m2.25s, next try in 30s: boom", "kustomization", "c", "r3");
    // A duration no longer than its own lines: nothing earlier to state.
    log += &line(&ms(40, 0), "INFO", "applying", "kustomization", "d", "r4");
    log += &line(&ms(40, 100), "INFO", "Reconciliation finished in 50ms, next run in 1m0s", "kustomization", "d", "r4");
    // Written to the second: 613ms before second 45 is, to the second, 45.
    log += &line("2026-05-26T10:00:45Z", "INFO", "Reconciliation finished in 613ms, next run in 1m0s", "kustomization", "h", "r8");
    // Not a duration, or said in the middle of the message: no start.
    log += &line(&ms(50, 0), "INFO", "Reconciliation finished in a while", "kustomization", "e", "r5");
    log += &line(&ms(51, 0), "INFO", "Source artifact not found, retrying in 30s", "kustomization", "f", "r6");
    log += &line(&ms(59, 0), "INFO", "the last line", "kustomization", "g", "r7");
    let a = run(&[("flux.log", log)], &AnalyzeOptions::default());
    let got: Vec<(&str, Option<String>, String)> =
        a.reconciles.iter().map(|r| (r.reconcile_id.as_str(), r.latent_start.map(|t| t.to_string()), r.duration_text())).collect();
    assert_eq!(
        got,
        [
            // 10.500 less 2.5s; 2.5s shown in whole seconds, as every duration over one.
            ("r1", Some("2026-05-26T10:00:08.000Z".to_string()), "3s".to_string()),
            // 20.400 less 400.5ms is 19.9995: at the first millisecond
            // boundary after it, 20.000.
            ("r2", Some("2026-05-26T10:00:20.000Z".to_string()), "400ms".to_string()),
            ("r3", Some("2026-05-26T09:59:27.750Z".to_string()), "1m02s".to_string()),
            ("r4", None, "100ms".to_string()),
            ("r8", None, "one line".to_string()),
            ("r5", None, "one line".to_string()),
            ("r6", None, "one line".to_string()),
            ("r7", None, "one line".to_string()),
        ]
    );
    // Each of those starts is the log's word, not a bound.
    let stated: Vec<&str> = a.reconciles.iter().filter(|r| r.stated_start).map(|r| r.reconcile_id.as_str()).collect();
    assert_eq!(stated, ["r1", "r2", "r3"]);
    let doc = reconscope::analyze::json::to_json(&[], &a);
    let from: Vec<&serde_json::Value> = doc["reconciles"].as_array().unwrap().iter().map(|r| &r["latent_start_from"]).collect();
    assert_eq!(
        from,
        [
            &"stated".into(),
            &"stated".into(),
            &"stated".into(),
            &serde_json::Value::Null,
            &serde_json::Value::Null,
            &serde_json::Value::Null,
            &serde_json::Value::Null,
            &serde_json::Value::Null
        ]
    );
}

#[test]
fn a_stated_duration_within_its_first_line_leaves_no_start_from_the_worker() {
    // One worker: r1 ends at 10:00:01; r2's only line is an error that
    // says it ran 300µs, within its own millisecond. It began then, not
    // when the worker was free: no latent start, and no bound.
    let mut log = String::new();
    log += &line("2026-05-26T10:00:00.000Z", "INFO", "Reconciling", "kustomization", "a", "r1");
    log += &line("2026-05-26T10:00:01.000Z", "INFO", "Reconciliation finished in 1s, next run in 1m0s", "kustomization", "a", "r1");
    log += &line("2026-05-26T10:05:00.000Z", "ERROR", "Reconciliation failed after 300µs, next try in 1m0s", "kustomization", "b", "r2");
    let a = run(&[("flux.log", log)], &AnalyzeOptions::default());
    let got: Vec<(&str, Option<String>, bool, String)> =
        a.reconciles.iter().map(|r| (r.reconcile_id.as_str(), r.latent_start.map(|t| t.to_string()), r.stated_start, r.duration_text())).collect();
    assert_eq!(got, [("r1", None, false, "1s".to_string()), ("r2", None, false, "one line".to_string())]);
    assert!(a.findings.iter().all(|f| f.kind != FindingKind::StalledWorker), "{:#?}", a.findings);
}

#[test]
fn a_stated_duration_past_the_timeout_is_a_slow_reconcile() {
    // Flux's one line after 1m30s of work: the reconcile ran 1m30s, as the
    // line states, though the log holds no earlier line of it.
    let mut log = String::new();
    log += &line("2026-05-26T10:02:00.250Z", "ERROR", "Reconciliation failed after 1m30.000125s, next try in 1m0s", "kustomization", "a", "r1");
    // Under the timeout: 29s.
    log += &line("2026-05-26T10:03:00.000Z", "INFO", "Reconciliation finished in 29s, next run in 10m0s", "kustomization", "b", "r2");
    let a = run(&[("flux.log", log)], &AnalyzeOptions::default());
    let slow: Vec<(&str, String, String)> = a
        .findings
        .iter()
        .filter(|f| f.kind == FindingKind::SlowReconcile)
        .map(|f| (a.reconciles[f.reconciles[0]].reconcile_id.as_str(), f.start.to_string(), f.message.clone()))
        .collect();
    assert_eq!(
        slow,
        [(
            "r1",
            // 02:00.250 less 1m30.000125s is 00:30.249875: up to the
            // millisecond, 00:30.250.
            "2026-05-26T10:00:30.250Z".to_string(),
            "Reconcile r1 of ns/a ran 1m30s (10:00:30–10:02:00, as a line of it states), longer than a 30s reconcile timeout (assumed, `--reconcile-timeout`)."
                .to_string()
        )]
    );
}

#[test]
fn stated_starts_of_back_to_back_reconciles_keep_one_worker() {
    // One worker runs reconciles back to back, each 700.4ms from the end
    // of the one before; the log writes its times to the millisecond (cut).
    // Each start the last line states lies in the millisecond after the
    // one before ended: none overlaps it, and one worker is enough.
    let at = |micros: u64| format!("2026-05-26T10:00:{:02}.{:03}Z", micros / 1_000_000, micros / 1000 % 1000);
    let mut log = String::new();
    for k in 0..6u64 {
        let (start, end) = (k * 700_400, (k + 1) * 700_400);
        let rid = format!("r{k}");
        log += &line(&at(start + 300_000), "INFO", "server-side apply completed", "kustomization", "a", &rid);
        log += &line(&at(end), "INFO", "Reconciliation finished in 700.4ms, next run in 1m0s", "kustomization", "a", &rid);
    }
    let a = run(&[("flux.log", log)], &AnalyzeOptions::default());
    let c = &a.controllers[0];
    assert_eq!((c.workers, c.workers_source.as_str()), (1, "inferred"));
    assert!(a.in_flight.is_empty());
    let starts: Vec<String> = a.reconciles.iter().map(|r| r.start().to_string()).collect();
    assert_eq!(
        starts,
        [
            // 0.700 less 0.7004 is -0.0004: at the first millisecond after, 0.000.
            "2026-05-26T10:00:00.000Z",
            // 1.400 less 0.7004 is 0.6996: 0.700, where r0 ended.
            "2026-05-26T10:00:00.700Z",
            "2026-05-26T10:00:01.401Z",
            "2026-05-26T10:00:02.101Z",
            "2026-05-26T10:00:02.802Z",
            "2026-05-26T10:00:03.502Z",
        ]
    );
}

#[test]
fn a_log_cut_by_tail_marks_the_cut_reconciles() {
    // The first reconcile lost its start to --tail; the last lost its end.
    let mut log = String::new();
    log += &line(&ts(1), "INFO", "synced", "widget", "a", "r1");
    log += &line(&ts(3), "INFO", "starting sync", "widget", "b", "r2");
    log += &line(&ts(4), "INFO", "synced", "widget", "b", "r2");
    log += &line(&ts(5), "INFO", "starting sync", "widget", "c", "r3");
    let a = run(&[("w.log", log)], &AnalyzeOptions::default());
    let cut: Vec<(&str, bool)> = a.reconciles.iter().map(|r| (r.reconcile_id.as_str(), r.truncated)).collect();
    assert_eq!(cut, [("r1", true), ("r2", false), ("r3", true)]);
}

/// A reconcile whose last line is its log's last timed line may still have
/// been running when the log stopped: it is `unfinished`, not a success,
/// unless a line of it says it failed or asked for a requeue. One the log
/// goes on after is a success (no error line, and controller-runtime logs
/// every failed reconcile); so is a reconcile that ends one file and is
/// not the last of another. So is one that a later reconcile of the same
/// object by the same controller begins after, in a log whose lines all
/// share its last time (whole seconds): controller-runtime hands an object
/// to one worker at a time. The same whether the records are gathered on
/// one thread or cut into parts.
#[test]
fn a_reconcile_the_log_stops_in_is_unfinished() {
    let widget = |ts_: u32, msg: &str, obj: &str, rid: &str| line(&ts(ts_), "INFO", msg, "widget", obj, rid);
    // Each case: the log, and each reconcile's outcome.
    let cases: Vec<(String, Vec<(&str, &str)>)> = vec![
        // The log stops in r3.
        (
            widget(1, "starting sync", "a", "r1")
                + &widget(2, "synced", "a", "r1")
                + &widget(3, "starting sync", "b", "r3")
                + &widget(4, "creating", "b", "r3"),
            vec![("r1", "success (no error logged)"), ("r3", "unfinished")],
        ),
        // A line after r3's last, of no reconcile: the log goes on.
        (
            widget(1, "starting sync", "a", "r1") + &widget(3, "starting sync", "b", "r3") + &ts(5) + "\tINFO\tleader lease renewed\n",
            vec![("r1", "success (no error logged)"), ("r3", "success (no error logged)")],
        ),
        // A line after r3's last in the file, but timed before it or at
        // its time (writers sharing a file, as in kueue's envtest log): no
        // time is seen passing after r3.
        (
            widget(1, "starting sync", "a", "r1") + &widget(3, "starting sync", "b", "r3") + &ts(2) + "\tINFO\tleader lease renewed\n",
            vec![("r1", "success (no error logged)"), ("r3", "unfinished")],
        ),
        (
            widget(1, "starting sync", "a", "r1") + &widget(3, "starting sync", "b", "r3") + &ts(3) + "\tINFO\tleader lease renewed\n",
            vec![("r1", "success (no error logged)"), ("r3", "unfinished")],
        ),
        // Every line in one second (JobSet's whole-second log in kueue
        // #2096): the next reconcile of the same object shows that the
        // one before had ended; the last is unfinished.
        (
            widget(5, "Reconciling", "a", "r1") + &widget(5, "Reconciling", "a", "r2") + &widget(5, "Reconciling", "a", "r3"),
            vec![("r1", "success (no error logged)"), ("r2", "success (no error logged)"), ("r3", "unfinished")],
        ),
        // Another object's reconcile shows nothing (another worker may run
        // it), nor another controller's of the same object, nor one that
        // begins before the earlier one's last line.
        (widget(5, "Reconciling", "a", "r1") + &widget(5, "Reconciling", "b", "r2"), vec![("r1", "unfinished"), ("r2", "unfinished")]),
        (widget(5, "Reconciling", "a", "r1") + &line(&ts(5), "INFO", "Reconciling", "gadget", "a", "r2"), vec![("r1", "unfinished"), ("r2", "unfinished")]),
        (
            widget(5, "Reconciling", "a", "r1") + &widget(5, "Reconciling", "a", "r2") + &widget(5, "synced", "a", "r1"),
            vec![("r1", "unfinished"), ("r2", "unfinished")],
        ),
        // Nor reconciles of a controller no line names (they may be two
        // controllers').
        (
            ts(5)
                + "\tINFO\tReconciling\t{\"namespace\": \"ns\", \"name\": \"a\", \"reconcileID\": \"r1\"}\n"
                + &ts(5)
                + "\tINFO\tReconciling\t{\"namespace\": \"ns\", \"name\": \"a\", \"reconcileID\": \"r2\"}\n",
            vec![("r1", "unfinished"), ("r2", "unfinished")],
        ),
        // The last line is an error, or asks for a requeue: how it ended is said.
        (widget(1, "starting sync", "a", "r1") + &line(&ts(2), "ERROR", "Reconciler error", "widget", "a", "r1"), vec![("r1", "error")]),
        (widget(1, "starting sync", "a", "r1") + &widget(2, "Reconcile done, requeueing after 5s", "a", "r1"), vec![("r1", "requeue")]),
        // Or it is controller-runtime's own line for a reconcile that
        // returned with no error and no requeue (logged at V(5)): a
        // success a line states, where others are read from no error line.
        (widget(1, "Reconciling", "a", "r1") + &widget(2, "Reconcile successful", "a", "r1"), vec![("r1", "success")]),
        // Flux's reconcilers say both (kustomize-controller: `return
        // ctrl.Result{RequeueAfter: …}` after the first, the reconcile's
        // last line is the second); a retry mid-message is no requeue.
        (
            widget(1, "Source artifact not found, retrying in 30s", "a", "r1")
                + &widget(31, "server-side apply completed", "a", "r2")
                + &widget(31, "Reconciliation finished in 168.982584ms, next run in 10m0s", "a", "r2"),
            vec![("r1", "requeue"), ("r2", "success")],
        ),
        (
            widget(1, "conflict, retrying in 5s: object was modified", "a", "r1") + &widget(2, "synced", "b", "r2") + &widget(3, "synced", "b", "r2"),
            vec![("r1", "success (no error logged)"), ("r2", "unfinished")],
        ),
        // Only the last line says so: a retry inside the reconcile is none.
        (
            widget(1, "status conflict, retrying in 1s", "a", "r1") + &widget(2, "synced", "a", "r1") + &widget(3, "synced", "b", "r2"),
            vec![("r1", "success (no error logged)"), ("r2", "unfinished")],
        ),
        // Read from the whole message: these two share their first 80
        // characters, where a word of the vocabulary is cut.
        (
            widget(1, &format!("{}, done", "waiting for the dependency to report ready ".repeat(2)), "a", "r1")
                + &widget(2, &format!("{}, retrying in 30s", "waiting for the dependency to report ready ".repeat(2)), "a", "r2")
                + &widget(3, "synced", "b", "r3"),
            vec![("r1", "success (no error logged)"), ("r2", "requeue"), ("r3", "unfinished")],
        ),
        // An unrecovered panic, which controller-runtime logs at INFO.
        (
            widget(1, "starting sync", "a", "r1")
                + &widget(2, "Observed a panic in reconciler: runtime error: index out of range", "a", "r1")
                + &widget(9, "starting sync", "b", "r2")
                + &widget(10, "synced", "b", "r2"),
            vec![("r1", "error"), ("r2", "unfinished")],
        ),
    ];
    for (log, want) in &cases {
        for min_records_per_thread in [50_000, 1] {
            let opts = AnalyzeOptions { threads: 2, min_records_per_thread, ..AnalyzeOptions::default() };
            let a = run(&[("w.log", log.clone())], &opts);
            let got: Vec<(&str, &str)> = a.reconciles.iter().map(|r| (r.reconcile_id.as_str(), r.outcome_text())).collect();
            assert_eq!(&got, want, "{log}");
        }
    }
    // Two files: r1 runs to the end of a.log, r2 to the end of b.log.
    // r1 goes on in b.log, where the log continues after it.
    let a_log = widget(1, "starting sync", "a", "r1") + &widget(2, "creating", "a", "r1");
    let b_log = widget(3, "created", "a", "r1") + &widget(4, "starting sync", "b", "r2");
    for min_records_per_thread in [50_000, 1] {
        let opts = AnalyzeOptions { threads: 2, min_records_per_thread, ..AnalyzeOptions::default() };
        let a = run(&[("a.log", a_log.clone()), ("b.log", b_log.clone())], &opts);
        let got: Vec<(&str, &str)> = a.reconciles.iter().map(|r| (r.reconcile_id.as_str(), r.outcome_text())).collect();
        assert_eq!(got, [("r1", "success (no error logged)"), ("r2", "unfinished")]);
    }
}

#[test]
fn without_starting_workers_the_count_is_inferred_or_given() {
    let mut log = String::new();
    // Two reconciles overlap: at least two workers.
    log += &line(&ts(1), "INFO", "starting sync", "widget", "a", "r1");
    log += &line(&ts(2), "INFO", "starting sync", "widget", "b", "r2");
    log += &line(&ts(3), "INFO", "synced", "widget", "a", "r1");
    log += &line(&ts(4), "INFO", "synced", "widget", "b", "r2");
    let files = [("w.log", log)];
    let a = run(&files, &AnalyzeOptions::default());
    assert_eq!((a.controllers[0].workers, a.controllers[0].workers_source.as_str()), (2, "inferred"));
    let mut opts = AnalyzeOptions::default();
    opts.workers.insert("widget".into(), 3);
    let a = run(&files, &opts);
    assert_eq!((a.controllers[0].workers, a.controllers[0].workers_source.as_str()), (3, "option"));
}

/// Reconciles of one controller name that share no message (Karpenter's
/// `nodeclaim.lifecycle` logs one phase per reconcile: `launched
/// nodeclaim`, `registered nodeclaim`) are one instance when the log shows
/// the one start of that name before them; otherwise the messages split
/// them, as kamaji's two managers that share a controller name need.
#[test]
fn a_controller_started_once_before_its_reconciles_is_one_instance() {
    let start = |secs: u32| {
        format!("{}\tINFO\tStarting workers\t{{\"controller\": \"lifecycle\", \"controllerGroup\": \"example.io\", \"controllerKind\": \"Widget\", \"worker count\": 1000}}\n", ts(secs))
    };
    let phases = |from: u32| {
        let mut log = String::new();
        for k in 0..6 {
            log += &line(&ts(from + 2 * k), "INFO", "launched widget", "lifecycle", &format!("w{k}"), &format!("l{k}"));
            log += &line(&ts(from + 2 * k + 1), "INFO", "registered widget", "lifecycle", &format!("w{k}"), &format!("g{k}"));
        }
        log
    };
    let instances = |log: String| {
        let a = run(&[("k.log", log)], &AnalyzeOptions::default());
        a.controllers.iter().map(|c| (c.reconciles, c.workers, c.workers_source.clone())).collect::<Vec<_>>()
    };
    // Started once, before them: one instance, with the log's worker count.
    assert_eq!(instances(start(0) + &phases(1)), [(12, 1000, "log".to_string())]);
    // No start in the log, a start after the first reconcile (an instance
    // ran before it), or two starts: the messages split them.
    assert_eq!(instances(phases(1)).len(), 2);
    let p = phases(1);
    let (first, rest) = p.split_at(p.find('\n').unwrap() + 1);
    assert_eq!(instances(first.to_string() + &start(2) + rest).len(), 2);
    assert_eq!(instances(start(0) + &start(0) + &phases(1)).len(), 2);
}

/// An etcd member's raft line under the kubelet `--timestamps` prefix.
fn etcd(collected: &str, inner: &str, msg: &str) -> String {
    format!("{collected} {{\"level\":\"info\",\"ts\":\"{inner}\",\"logger\":\"raft\",\"caller\":\"etcdserver/zap_raft.go:78\",\"msg\":\"{msg}\"}}\n")
}

#[test]
fn clock_skew_between_files_is_measured_and_corrected() {
    // etcd-1's clock runs 90 s ahead of the node's; etcd-0's is right.
    let e0 = etcd("2026-05-26T10:00:01.000000100Z", "2026-05-26T10:00:01.000000Z", "raft.node: aaaa lost leader bbbb at term 7")
        + &etcd("2026-05-26T10:00:02.000000100Z", "2026-05-26T10:00:02.000000Z", "raft.node: aaaa elected leader cccc at term 8");
    let e1 = etcd("2026-05-26T10:00:01.500000100Z", "2026-05-26T10:01:31.500000Z", "cccc is starting a new election at term 7")
        + &etcd("2026-05-26T10:00:01.900000100Z", "2026-05-26T10:01:31.900000Z", "cccc became leader at term 8");
    let files = load(&[("snap/namespaces/tenant-root/v1/pod/etcd-0/etcd/current.log", e0), ("snap/namespaces/tenant-root/v1/pod/etcd-1/etcd/current.log", e1)]);
    let skewed = &files[1];
    assert!(skewed.diagnostics.iter().any(|d| d.message.contains("clock") && d.message.contains("1m30s ahead")), "{:?}", skewed.diagnostics);
    let t = skewed.records[0].time.unwrap().to_string();
    assert_eq!(t, "2026-05-26T10:00:01.500000Z", "corrected onto the collector's clock");
    let (a, _) = analyze(&files, &AnalyzeOptions::default());
    assert_eq!(a.elections.len(), 1, "{:#?}", a.elections);
    let e = &a.elections[0];
    assert_eq!((e.term, e.leader.as_deref()), (Some(8), Some("cccc")));
    assert_eq!(e.start.to_string(), "2026-05-26T10:00:01.000000Z");
}

#[test]
fn the_shared_corpus_analyzes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut l = Loaded::default();
    for p in files::files_under(&root).into_iter().filter(|p| p.extension().is_none_or(|e| e != "expect")) {
        let name = p.strip_prefix(&root).unwrap().to_string_lossy().into_owned();
        l.add(&name, std::fs::read(&p).unwrap(), &LoadOptions::default());
    }
    l.finish();
    l.files.sort_by(|a, b| a.path.cmp(&b.path));
    let (a, _) = analyze(&l.files, &AnalyzeOptions::default());
    // Reconciles from the controller-runtime and kamaji samples.
    assert!(a.reconciles.len() >= 10, "{}", a.reconciles.len());
    assert!(a.controllers.iter().any(|c| c.controller == "tenantcontrolplane"));
    // The single-node elections in the etcd samples are found and closed.
    let single: Vec<_> = a.elections.iter().filter(|e| e.cluster.contains("etcd") && e.end.is_some()).collect();
    assert!(single.len() >= 3, "{:#?}", a.elections);
    assert!(a.client_warnings.len() >= 5);
    // The sample TCP dump gives the object's finalizers and generation.
    let tcp = a.objects.iter().find(|o| o.object.name == "kubernetes-test4" && o.in_dump).expect("tcp from the dump");
    assert!(tcp.finalizers.iter().any(|f| f == "finalizer.kamaji.clastix.io"));
}

#[test]
fn slow_reconciles_hot_loops_and_error_bursts() {
    let mut log = String::new();
    // A reconcile of `slow` that runs 45 s (timeout 30 s).
    log += &line(&ts(0), "INFO", "starting sync", "widget", "slow", "s1");
    log += &line(&ts(45), "INFO", "synced", "widget", "slow", "s1");
    // `hot` reconciled 40 times within a minute, 12 of them failing.
    for i in 0..40u32 {
        let id = format!("h{i}");
        log += &line(&ts(60 + i), "INFO", "starting sync", "widget", "hot", &id);
        let level = if i < 12 { "ERROR" } else { "INFO" };
        log += &line(&ts(60 + i), level, if i < 12 { "sync failed" } else { "synced" }, "widget", "hot", &id);
    }
    let mut opts = AnalyzeOptions::default();
    opts.workers.insert("widget".into(), 2);
    let a = run(&[("w.log", log)], &opts);
    let kinds = |k: FindingKind| a.findings.iter().filter(|f| f.kind == k).collect::<Vec<_>>();
    let slow = kinds(FindingKind::SlowReconcile);
    assert_eq!(slow.len(), 1, "{:#?}", a.findings);
    assert!(slow[0].message.contains("ran 45s"), "{}", slow[0].message);
    // The timeout is the one assumed, not the operator's: the logs do not say it.
    assert!(slow[0].message.ends_with("longer than a 30s reconcile timeout (assumed, `--reconcile-timeout`)."), "{}", slow[0].message);
    let hot = kinds(FindingKind::HotLoop);
    assert_eq!(hot.len(), 1, "{:#?}", a.findings);
    assert_eq!(hot[0].object.as_ref().unwrap().to_string(), "ns/hot");
    assert!(hot[0].message.contains("40 times within a minute"), "{}", hot[0].message);
    let burst = kinds(FindingKind::ErrorBurst);
    assert_eq!(burst.len(), 1, "{:#?}", a.findings);
    // All of one object, with one error: both said, and the 12 are its
    // reconciles (the app inspects them, a link carries them).
    assert_eq!(burst[0].message, "12 reconciles of widget, all of ns/hot, failed within a minute from 10:01:00, each with `sync failed`.");
    assert_eq!(burst[0].object.as_ref().map(|o| o.to_string()).as_deref(), Some("ns/hot"));
    let ids: Vec<&str> = burst[0].reconciles.iter().map(|&r| a.reconciles[r].reconcile_id.as_str()).collect();
    assert_eq!(ids, (0..12).map(|i| format!("h{i}")).collect::<Vec<_>>());
}

/// An error burst over several objects names none; the error most of its
/// reconciles ended with is quoted, and none when no error is most.
#[test]
fn an_error_burst_names_the_error_most_of_it_ended_with() {
    let burst = |boom: u32| {
        let mut log = String::new();
        for i in 0..10u32 {
            let (id, o) = (format!("e{i}"), if i % 2 == 0 { "a" } else { "b" });
            log += &line(&ts(2 * i), "INFO", "starting sync", "widget", o, &id);
            log += &line(&ts(2 * i + 1), "ERROR", if i < boom { "boom" } else { "bang" }, "widget", o, &id);
        }
        let a = run(&[("w.log", log)], &AnalyzeOptions::default());
        let f = a.findings.iter().find(|f| f.kind == FindingKind::ErrorBurst).expect("a burst").clone();
        assert_eq!((f.object, f.reconciles.len()), (None, 10));
        f.message
    };
    assert_eq!(burst(6), "10 reconciles of widget failed within a minute from 10:00:01, 6 of them with `boom`.");
    assert_eq!(burst(5), "10 reconciles of widget failed within a minute from 10:00:01.");
}

/// What each reconcile of `log` is said to be: `id controller kind object`,
/// `-` where unknown.
fn check_identity(log: &str, expect: &str) {
    let files = load(&[("op.log", log.to_string())]);
    let (a, notes) = analyze(&files, &AnalyzeOptions::default());
    let mut got = String::new();
    for r in &a.reconciles {
        let c = &a.controllers[r.controller];
        let name = if c.is_named() { c.controller.as_str() } else { "-" };
        let object = r.object.as_ref().map_or("-".to_string(), |o| o.to_string());
        got.push_str(&format!("{} {name} {} {object}\n", r.reconcile_id, r.kind.as_deref().unwrap_or("-")));
    }
    for n in notes {
        got.push_str(&format!("note {n}\n"));
    }
    let want: String = expect.lines().map(str::trim_start).filter(|l| !l.is_empty()).map(|l| format!("{l}\n")).collect();
    assert_eq!(got, want, "\n--- got ---\n{got}--- want ---\n{want}");
}

#[test]
fn controllers_and_objects_are_read_from_every_place_real_logs_put_them() {
    check_identity(
        concat!(
            // KubeRay: the logger names the controller, a Kind key the object.
            r#"{"level":"info","ts":"2024-03-05T10:12:01.123Z","logger":"controllers.RayCluster","msg":"reconcilePods","RayCluster":{"name":"raycluster-kuberay","namespace":"default"},"reconcileID":"2c5e6f1c-9d3b-4a8e-b1f2-3c4d5e6f7a8b"}"#,
            "\n",
            // klog structured pairs, `Kind="ns/name"` (klog.KRef).
            r#"I0305 10:12:03.000000       1 controller.go:10] "Reconciling" controller="cluster" controllerGroup="cluster.x-k8s.io" controllerKind="Cluster" Cluster="default/capi-quickstart" reconcileID="7b2c6a8e-0f41-4d57-9a0b-1c2d3e4f5a6b""#,
            "\n",
            // controller-runtime before v0.12: logger `controller.<name>`, `reconciler kind`, `request`
            // (of 2022, among lines of 2024: the time goes back, a note says).
            "1.6573084001213665e+09\tINFO\tcontroller.tenantcontrolplane\tdone\t{\"reconciler group\": \"kamaji.clastix.io\", \"reconciler kind\": \"TenantControlPlane\", \"request\": \"tenants/tcp1\", \"reconcileID\": \"r-legacy\"}\n",
            // An `object` key; a Kind key that is not the controller's kind is no object.
            r#"{"level":"info","ts":"2024-03-05T10:12:04Z","controller":"widget","controllerKind":"Widget","Secret":{"name":"s","namespace":"ns"},"msg":"m","reconcileID":"r-other-kind"}"#,
            "\n",
            r#"{"level":"info","ts":"2024-03-05T10:12:05Z","controller":"widget","object":{"name":"w1","namespace":"ns"},"msg":"m","reconcileID":"r-object"}"#,
            "\n",
            // No `controller` key, and a logger of the reconciler's own
            // (kueue's `LogConstructor`): the controller goes by the
            // logger's name, with a note.
            r#"{"level":"info","ts":"2024-03-05T10:12:06Z","logger":"workload-reconciler","msg":"Reconcile Workload","namespace":"ns","name":"wl","reconcileID":"r-logger"}"#,
            "\n",
            // Nothing names them: unknown, with a note.
            r#"{"level":"info","ts":"2024-03-05T10:12:07Z","msg":"orphan","reconcileID":"r-orphan"}"#,
            "\n",
            // An empty `name` is a request for no object (Karpenter's
            // singleton controllers): a Kind-named key beside it is some
            // other object, and no kind of the controller's.
            r#"{"level":"INFO","time":"2024-03-05T10:12:08Z","message":"found provisionable pod(s)","controller":"provisioner","namespace":"","name":"","reconcileID":"r-singleton","Pods":"default/inflate-5cd8878fd4-kfmxn"}"#,
            "\n",
        ),
        "2c5e6f1c-9d3b-4a8e-b1f2-3c4d5e6f7a8b RayCluster RayCluster default/raycluster-kuberay
         7b2c6a8e-0f41-4d57-9a0b-1c2d3e4f5a6b cluster Cluster default/capi-quickstart
         r-legacy tenantcontrolplane TenantControlPlane tenants/tcp1
         r-other-kind widget Widget -
         r-object widget - ns/w1
         r-logger workload-reconciler - ns/wl
         r-orphan - - -
         r-singleton provisioner - -
         note op.log:7: reconcile r-orphan names no controller (no `controller` key, no logger name): shown as \"unknown controller\", `null` in the JSON
         note op.log:6: reconcile r-logger names no controller (no `controller` key): controllers are named after the loggers that wrote their lines (`workload-reconciler`)
         note op.log:4: 3 reconciles (the first: r-other-kind) name no object (no `name`/`namespace`, Kind-named or `object` key, or an empty `name`): shown as unknown, `null` in the JSON
         note op.log:3: time goes back 14534h45m here: this line's time is 2022-07-08T19:26:40.121366Z, line 2's 2024-03-05T10:12:03.000000Z. One process writes its lines in time order, so the file may hold more than one log one after the other (`kubectl logs -l` prints each pod's log in turn, with no name), or a writer was held up; reconscope places each line at its own time",
    );
}

#[test]
fn reconciles_under_docker_json_file_lines_are_found() {
    // docker's json-file driver over zap JSON: the payload is unescaped
    // into scratch, its reconcileID with it.
    check_identity(
        r#"{"log":"{\"level\":\"info\",\"ts\":\"2024-03-05T10:12:01Z\",\"msg\":\"m\",\"controller\":\"widget\",\"namespace\":\"ns\",\"name\":\"w1\",\"reconcileID\":\"r1\"}\n","stream":"stderr","time":"2024-03-05T10:12:01.000000001Z"}
"#,
        "r1 widget - ns/w1",
    );
}

/// One worker logs its reconciles one after the other, so in a file their
/// lines come in time order, each reconcile's after the one before's.
/// Lines that do not (two reconciles that never ran at once in time) were
/// written by two workers at least; with a count only inferred, no lane's
/// end says when a reconcile whose first line came late began.
#[test]
fn lines_out_of_one_workers_order_show_two_workers() {
    // kueue #8437: the workload controller (5 workers in that binary, no
    // `Starting workers` line in the excerpt) logs three one-line
    // `Reconciler error` reconciles; the third is 950 ns earlier than the
    // first.
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/controller-runtime/console_kueue_workload_5_workers_times_back_issue8437.log");
    let text = std::fs::read_to_string(&path).unwrap();
    let a = run(&[("kueue.log", text)], &AnalyzeOptions::default());
    let c = &a.controllers[0];
    assert_eq!((a.controllers.len(), c.workers, c.workers_source.as_str()), (1, 2, "inferred"));
    let got: Vec<(&str, Option<String>, &str)> =
        a.reconciles.iter().map(|r| (&r.reconcile_id[..8], r.latent_start.map(|t| t.to_string()), r.duration_text().leak() as &str)).collect();
    assert_eq!(got, [("ff5261ed", None, "one line"), ("289b6574", None, "one line"), ("077bda7a", None, "one line")]);
    // The two that are 950 ns apart are in two lanes.
    let lane = |id: &str| a.reconciles.iter().find(|r| r.reconcile_id.starts_with(id)).unwrap().lane;
    assert_ne!(lane("ff5261ed"), lane("077bda7a"));

    // Each case: lines (time, reconcile) in file order, all of one
    // controller; the workers inferred.
    let cases: &[(&[(u32, &str)], u32)] = &[
        // In time order, one reconcile after the other: one worker.
        (&[(1, "r1"), (2, "r1"), (3, "r2"), (4, "r2"), (5, "r3")], 1),
        // The same second (second-precision logs): still in order.
        (&[(1, "r1"), (1, "r1"), (1, "r2"), (2, "r2")], 1),
        // r2's line is earlier than r1's, below it.
        (&[(2, "r1"), (1, "r2")], 2),
        // r2 (3-4 s) begins in the file before r1 (1-2 s) has ended: never
        // at once in time, but not one worker's order.
        (&[(1, "r1"), (3, "r2"), (2, "r1"), (4, "r2")], 2),
        // In one second, r1's lines around r2's.
        (&[(1, "r1"), (1, "r2"), (1, "r1")], 2),
        // At once in time: the count of those, as before.
        (&[(1, "r1"), (2, "r2"), (3, "r3"), (4, "r1"), (5, "r2"), (6, "r3")], 3),
    ];
    for (lines, want) in cases {
        let log: String = lines.iter().map(|(t, id)| line(&ts(*t), "INFO", "step", "widget", &format!("o-{id}"), id)).collect();
        let a = run(&[("w.log", log.clone())], &AnalyzeOptions::default());
        assert_eq!((a.controllers[0].workers, a.controllers[0].workers_source.as_str()), (*want, "inferred"), "{log}");
    }
    // In two files (a container's previous and current logs), each file in
    // order: one worker, whatever the files' order.
    let a = run(
        &[
            ("current.log", line(&ts(5), "INFO", "step", "widget", "a", "r3") + &line(&ts(6), "INFO", "step", "widget", "a", "r3")),
            ("previous.log", line(&ts(1), "INFO", "step", "widget", "a", "r1") + &line(&ts(2), "INFO", "step", "widget", "b", "r2")),
        ],
        &AnalyzeOptions::default(),
    );
    assert_eq!(a.controllers[0].workers, 1);
}

/// With workers the log counts, a reconcile whose first line came late may
/// have begun on whichever worker was free: the one free the longest bounds
/// when, and a worker never used yet bounds nothing.
#[test]
fn a_late_first_line_begins_no_later_than_the_worker_free_the_longest() {
    let start = "2026-05-26T10:00:00Z\tINFO\tStarting workers\t{\"controller\": \"widget\", \"controllerGroup\": \"example.io\", \"controllerKind\": \"Widget\", \"worker count\": 2}\n";
    let open = |t: u32, o: &str, id: &str| line(&ts(t), "INFO", "starting sync", "widget", o, id);
    let end = |t: u32, o: &str, id: &str| line(&ts(t), "INFO", "synced", "widget", o, id);
    // r1 on one worker 1-5 s, r2 on the other 3-10 s, then r3's only line
    // an error at 20 s: it began after 5 s at the earliest, on r1's worker
    // (not after 10 s, on r2's).
    let log = start.to_string()
        + &open(1, "a", "r1")
        + &open(3, "b", "r2")
        + &end(5, "a", "r1")
        + &end(10, "b", "r2")
        + &line(&ts(20), "ERROR", "sync failed", "widget", "c", "r3");
    let a = run(&[("w.log", log)], &AnalyzeOptions::default());
    assert_eq!((a.controllers[0].workers, a.controllers[0].workers_source.as_str()), (2, "log"));
    let r = |id: &str| a.reconciles.iter().find(|r| r.reconcile_id == id).unwrap().clone();
    assert_eq!(r("r3").latent_start.map(|t| t.to_string()).as_deref(), Some("2026-05-26T10:00:05Z"));
    assert_eq!(r("r3").lane, r("r1").lane);
    // With r1 and r2 one after the other, on one worker, and the second
    // never used, r3 may have begun at any time before its line.
    let log = start.to_string()
        + &open(1, "a", "r1")
        + &end(2, "a", "r1")
        + &open(3, "b", "r2")
        + &end(10, "b", "r2")
        + &line(&ts(20), "ERROR", "sync failed", "widget", "c", "r3");
    let a = run(&[("w.log", log)], &AnalyzeOptions::default());
    let lanes: Vec<u32> = a.reconciles.iter().map(|r| r.lane).collect();
    assert!(lanes[0] == lanes[1] && lanes[2] != lanes[0], "r1 and r2 on one worker, r3 on the other: {lanes:?}");
    let r3 = a.reconciles.iter().find(|r| r.reconcile_id == "r3").unwrap();
    assert_eq!(r3.latent_start, None, "a worker was never used: {r3:?}");
}

/// A reconcile whose first line came late began no earlier than its worker
/// was free: a deletion asked for meanwhile may have come before it began,
/// and the stuck-deletion sentence says so, or says it was running when its
/// first line came before the request.
#[test]
fn a_deletion_during_a_latent_start_says_what_the_log_knows() {
    // One worker of `widget`: r1 of ns/a ends at 10:00:04. r2 of ns/c is
    // first seen at `first` on a line that opens no reconcile (r1's and
    // r3's second), and fails at 10:15:00. The soot controller asks to
    // delete ns/c at 10:01:00 and the logs go on to 10:40:00 with ns/c
    // never deleted.
    let log = |first: u32| {
        let mut log = String::new();
        log += &line(&ts(1), "INFO", "starting sync", "widget", "a", "r1");
        log += &line(&ts(2), "INFO", "calling the datastore", "widget", "a", "r1");
        log += &line(&ts(4), "INFO", "synced", "widget", "a", "r1");
        log += &line(&ts(first), "INFO", "calling the datastore", "widget", "c", "r2");
        log += &line(&ts(900), "ERROR", "sync failed", "widget", "c", "r2");
        log += &line(&ts(2400), "INFO", "starting sync", "widget", "a", "r3");
        log += &line(&ts(2400), "INFO", "calling the datastore", "widget", "a", "r3");
        log += &line(&ts(2401), "INFO", "synced", "widget", "a", "r3");
        let soot = line(&ts(60), "INFO", "marked for deletion, performing clean-up", "soot", "c", "s1")
            + &line(&ts(61), "INFO", "waiting for the finalizer", "soot", "c", "s1");
        run(&[("widget.log", log), ("soot.log", soot)], &AnalyzeOptions::default())
    };
    let stuck = |a: &Analysis| a.findings.iter().find(|f| f.kind == FindingKind::StuckDeletion).map(|f| f.message.clone()).unwrap_or_default();
    // First seen at 10:01:40, after the request: it may have begun after it.
    let a = log(100);
    let r2 = a.reconciles.iter().find(|r| r.reconcile_id == "r2").unwrap();
    assert_eq!((r2.latent_start.map(|t| t.to_string()), r2.stated_start), (Some("2026-05-26T10:00:04Z".to_string()), false));
    assert!(
        stuck(&a).ends_with(
            "; 1 deletion reconcile ran after the request, 0 failed; the reconcile that may have been running when it came \
             (begun no earlier than 10:00:04, its first line at 10:01:40) failed at 10:15:00."
        ),
        "{}",
        stuck(&a)
    );
    // First seen at 10:00:40, before the request: it was running, from
    // 10:00:04 at the earliest.
    let a = log(40);
    assert!(
        stuck(&a).ends_with(
            "; 1 deletion reconcile ran after the request, 0 failed; the reconcile running when it came (begun no earlier than 10:00:04) failed at 10:15:00."
        ),
        "{}",
        stuck(&a)
    );
}
