//! The findings about the process rather than one reconcile: `throttled`
//! (client-go's rate limiter, the API server's 429s), `lease-lost` and
//! `restart` (a container's previous log beside its current one), on
//! fixtures written in the formats controller-runtime and client-go write
//! (zap console, klog through klog's own output) and on the corpus.
//! Expectations are read from the fixtures, not from the tool.

use reconscope::analyze::{analyze, Analysis, AnalyzeOptions, Detail, Finding, FindingKind};
use reconscope::pipeline::{LoadOptions, Loaded};

fn run(files: &[(&str, &str)]) -> Analysis {
    let mut l = Loaded::default();
    for (name, text) in files {
        l.add(name, text.as_bytes().to_vec(), &LoadOptions::default());
    }
    l.finish();
    analyze(&l.files, &AnalyzeOptions::default()).0
}

fn of(a: &Analysis, k: FindingKind) -> Vec<&Finding> {
    a.findings.iter().filter(|f| f.kind == k).collect()
}

fn corpus(path: &str) -> String {
    std::fs::read_to_string(format!("{}/tests/corpus/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

/// A manager whose client is throttled while two reconciles run: klog's
/// own line (client-go before `klog.SetLogger`), then the same message
/// through controller-runtime's zap console logger, a 429 the API server
/// answered, and, after five quiet minutes, one more wait.
const THROTTLED: &str = r#"2026-05-26T10:00:00Z	INFO	Starting workers	{"controller": "widget", "controllerGroup": "example.io", "controllerKind": "Widget", "worker count": 2}
2026-05-26T10:00:01Z	INFO	Reconciling	{"controller": "widget", "controllerGroup": "example.io", "controllerKind": "Widget", "Widget": {"name":"w1","namespace":"ns"}, "namespace": "ns", "name": "w1", "reconcileID": "11111111-0000-4000-8000-000000000001"}
I0526 10:00:03.500000       1 request.go:697] Waited for 1.09s due to client-side throttling, not priority and fairness, request: GET:https://10.96.0.1:443/api/v1/namespaces/ns/secrets/w1-kubeconfig
2026-05-26T10:00:04Z	INFO	Reconciling	{"controller": "widget", "controllerGroup": "example.io", "controllerKind": "Widget", "Widget": {"name":"w2","namespace":"ns"}, "namespace": "ns", "name": "w2", "reconcileID": "11111111-0000-4000-8000-000000000002"}
2026-05-26T10:00:05.200Z	INFO	Waited for 2.5s due to client-side throttling, not priority and fairness, request: PUT:https://10.96.0.1:443/apis/kamaji.clastix.io/v1alpha1/namespaces/ns/tenantcontrolplanes/w1/status
2026-05-26T10:00:06Z	INFO	Reconcile successful	{"controller": "widget", "controllerGroup": "example.io", "controllerKind": "Widget", "Widget": {"name":"w2","namespace":"ns"}, "namespace": "ns", "name": "w2", "reconcileID": "11111111-0000-4000-8000-000000000002"}
2026-05-26T10:00:08Z	ERROR	failed to update status	{"error": "the server has received too many requests and has asked us to try again later (put tenantcontrolplanes.kamaji.clastix.io w2)"}
2026-05-26T10:00:12Z	INFO	Reconcile successful	{"controller": "widget", "controllerGroup": "example.io", "controllerKind": "Widget", "Widget": {"name":"w1","namespace":"ns"}, "namespace": "ns", "name": "w1", "reconcileID": "11111111-0000-4000-8000-000000000001"}
2026-05-26T10:03:00Z	INFO	Reconciling	{"controller": "widget", "controllerGroup": "example.io", "controllerKind": "Widget", "Widget": {"name":"w3","namespace":"ns"}, "namespace": "ns", "name": "w3", "reconcileID": "11111111-0000-4000-8000-000000000003"}
2026-05-26T10:03:02Z	INFO	Reconcile successful	{"controller": "widget", "controllerGroup": "example.io", "controllerKind": "Widget", "Widget": {"name":"w3","namespace":"ns"}, "namespace": "ns", "name": "w3", "reconcileID": "11111111-0000-4000-8000-000000000003"}
2026-05-26T10:05:00Z	INFO	Waited for 1.2s due to client-side throttling, not priority and fairness, request: GET:https://10.96.0.1:443/apis/coordination.k8s.io/v1/namespaces/ns/leases/widget-lock
"#;

#[test]
fn a_throttling_burst_is_one_window_with_its_count_wait_resources_and_reconciles() {
    let a = run(&[("manager.log", THROTTLED)]);
    let t = of(&a, FindingKind::Throttled);
    assert_eq!(t.len(), 2, "{:#?}", a.findings);
    // The burst: 10:00:03.5 (waited 1.09s, so from 10:00:02.41), 10:00:05.2
    // (2.5s, from 10:00:02.7) and the 429 at 10:00:08; five quiet minutes
    // close it.
    let w = t[0];
    assert_eq!(w.start.to_string(), "2026-05-26T10:00:02.410000Z");
    assert_eq!(w.end.to_string(), "2026-05-26T10:00:08Z");
    let Some(Detail::Throttle(d)) = w.detail.as_deref() else { panic!("no detail: {w:#?}") };
    assert_eq!((d.count, d.waits, d.too_many_requests), (3, 2, 1));
    assert_eq!(d.longest_wait_nanos, Some(2_500_000_000));
    assert_eq!(d.total_wait_nanos, 3_590_000_000);
    let res: Vec<(&str, u32)> = d.resources.iter().map(|r| (r.resource.as_str(), r.count)).collect();
    assert_eq!(res, [("secrets", 1), ("tenantcontrolplanes.kamaji.clastix.io/status", 1)]);
    // w1 (10:00:01–10:00:12) and w2 (10:00:04–10:00:06) overlap; w3 (10:03) does not.
    let ids: Vec<&str> = w.reconciles.iter().map(|&i| a.reconciles[i].reconcile_id.as_str()).collect();
    assert_eq!(ids, ["11111111-0000-4000-8000-000000000001", "11111111-0000-4000-8000-000000000002"]);
    assert_eq!(
        w.message,
        "In manager.log, 2 requests waited on the client's rate limit and 1 request was answered 429 Too Many Requests by the API server \
         from 10:00:02 to 10:00:08 (6s); the longest wait was 2.5s (`Waited for 2.5s due to client-side throttling, not priority and fairness, \
         request: PUT:https://10.96.0.1:443/apis/kamaji.clastix.io/v1alpha1/namespaces/ns/tenantcontrolplanes/w1/status`); requests to secrets (1), \
         tenantcontrolplanes.kamaji.clastix.io/status (1). 2 reconciles overlap the window: 11111111-0000-4000-8000-000000000001 of ns/w1, \
         11111111-0000-4000-8000-000000000002 of ns/w2."
    );
    // The lone wait five minutes later: its own window, no reconcile in it.
    let l = t[1];
    assert_eq!(l.end.to_string(), "2026-05-26T10:05:00Z");
    assert!(l.reconciles.is_empty());
    assert!(l.message.ends_with("requests to leases.coordination.k8s.io (1). No reconcile of this log overlaps the window."), "{}", l.message);
    // Nothing else: no lease-lost from the lease request, no restart.
    assert!(a.findings.iter().all(|f| f.kind == FindingKind::Throttled), "{:#?}", a.findings);
}

#[test]
fn the_json_gives_the_window_under_throttle_and_nothing_new_elsewhere() {
    let mut l = Loaded::default();
    l.add("manager.log", THROTTLED.as_bytes().to_vec(), &LoadOptions::default());
    l.finish();
    let a = analyze(&l.files, &AnalyzeOptions::default()).0;
    let inputs: Vec<_> = l.files.iter().map(reconscope::stats::FileStats::of).collect();
    let doc = reconscope::analyze::json::to_json(&inputs, &a);
    let f = &doc["findings"][0];
    assert_eq!(f["kind"], "throttled");
    let t = &f["throttle"];
    assert_eq!(t["source"], "manager.log");
    assert_eq!((t["count"].as_u64(), t["waits"].as_u64(), t["too_many_requests"].as_u64()), (Some(3), Some(2), Some(1)));
    assert_eq!(t["longest_wait_nanos"], 2_500_000_000i64);
    assert_eq!(t["resources"][0], serde_json::json!({"resource": "secrets", "count": 1}));
    assert_eq!(t["reconciles_overlapping"], 2);
    assert!(f.get("lease").is_none() && f.get("restart").is_none());
}

const PREVIOUS: &str = r#"2026-05-26T11:00:00Z	INFO	setup	starting manager
I0526 11:00:00.100000       1 leaderelection.go:250] attempting to acquire leader lease ns/widget-lock...
I0526 11:00:02.200000       1 leaderelection.go:260] successfully acquired lease ns/widget-lock
2026-05-26T11:00:02Z	INFO	Starting EventSource	{"controller": "widget", "controllerGroup": "example.io", "controllerKind": "Widget", "source": "kind source: *v1.Widget"}
2026-05-26T11:00:02Z	INFO	Starting Controller	{"controller": "widget", "controllerGroup": "example.io", "controllerKind": "Widget"}
2026-05-26T11:00:02Z	INFO	Starting workers	{"controller": "widget", "controllerGroup": "example.io", "controllerKind": "Widget", "worker count": 1}
2026-05-26T11:00:03Z	INFO	Reconciling	{"controller": "widget", "controllerGroup": "example.io", "controllerKind": "Widget", "Widget": {"name":"w1","namespace":"ns"}, "namespace": "ns", "name": "w1", "reconcileID": "22222222-0000-4000-8000-000000000001"}
2026-05-26T11:00:04Z	INFO	Reconcile successful	{"controller": "widget", "controllerGroup": "example.io", "controllerKind": "Widget", "Widget": {"name":"w1","namespace":"ns"}, "namespace": "ns", "name": "w1", "reconcileID": "22222222-0000-4000-8000-000000000001"}
2026-05-26T11:00:10Z	INFO	Reconciling	{"controller": "widget", "controllerGroup": "example.io", "controllerKind": "Widget", "Widget": {"name":"w2","namespace":"ns"}, "namespace": "ns", "name": "w2", "reconcileID": "22222222-0000-4000-8000-000000000002"}
2026-05-26T11:00:11Z	INFO	Reconcile successful	{"controller": "widget", "controllerGroup": "example.io", "controllerKind": "Widget", "Widget": {"name":"w2","namespace":"ns"}, "namespace": "ns", "name": "w2", "reconcileID": "22222222-0000-4000-8000-000000000002"}
2026-05-26T11:00:20Z	INFO	Reconciling	{"controller": "widget", "controllerGroup": "example.io", "controllerKind": "Widget", "Widget": {"name":"w3","namespace":"ns"}, "namespace": "ns", "name": "w3", "reconcileID": "22222222-0000-4000-8000-000000000003"}
E0526 11:00:25.300000       1 leaderelection.go:332] error retrieving resource lock ns/widget-lock: Get "https://10.96.0.1:443/apis/coordination.k8s.io/v1/namespaces/ns/leases/widget-lock?timeout=5s": context deadline exceeded
I0526 11:00:30.400000       1 leaderelection.go:285] failed to renew lease ns/widget-lock: timed out waiting for the condition
2026-05-26T11:00:30Z	INFO	Stopping and waiting for non leader election runnables
2026-05-26T11:00:30Z	ERROR	setup	problem running manager	{"error": "leader election lost"}
"#;

const CURRENT: &str = r#"2026-05-26T11:00:41Z	INFO	setup	starting manager
I0526 11:00:41.100000       1 leaderelection.go:250] attempting to acquire leader lease ns/widget-lock...
I0526 11:00:58.300000       1 leaderelection.go:260] successfully acquired lease ns/widget-lock
2026-05-26T11:00:58Z	INFO	Starting EventSource	{"controller": "widget", "controllerGroup": "example.io", "controllerKind": "Widget", "source": "kind source: *v1.Widget"}
2026-05-26T11:00:58Z	INFO	Starting Controller	{"controller": "widget", "controllerGroup": "example.io", "controllerKind": "Widget"}
2026-05-26T11:00:58Z	INFO	Starting workers	{"controller": "widget", "controllerGroup": "example.io", "controllerKind": "Widget", "worker count": 1}
2026-05-26T11:00:59Z	INFO	Reconciling	{"controller": "widget", "controllerGroup": "example.io", "controllerKind": "Widget", "Widget": {"name":"w3","namespace":"ns"}, "namespace": "ns", "name": "w3", "reconcileID": "33333333-0000-4000-8000-000000000001"}
2026-05-26T11:01:00Z	INFO	Reconcile successful	{"controller": "widget", "controllerGroup": "example.io", "controllerKind": "Widget", "Widget": {"name":"w3","namespace":"ns"}, "namespace": "ns", "name": "w3", "reconcileID": "33333333-0000-4000-8000-000000000001"}
"#;

const POD: &str = "cozyreport/kubernetes/pods/ns/widget-manager-7d9f/";

#[test]
fn a_manager_that_loses_its_lease_and_restarts() {
    let prev = format!("{POD}logs-manager-previous.txt");
    let cur = format!("{POD}logs-manager.txt");
    let a = run(&[(&cur, CURRENT), (&prev, PREVIOUS)]);
    let lost = of(&a, FindingKind::LeaseLost);
    assert_eq!(lost.len(), 1, "{:#?}", a.findings);
    let l = lost[0];
    assert_eq!(l.start.to_string(), "2026-05-26T11:00:30.400000Z");
    assert_eq!(
        l.message,
        "The manager in logs-manager-previous.txt lost its leader lease ns/widget-lock at 11:00:30 (`failed to renew lease ns/widget-lock: \
         timed out waiting for the condition`), 28s after it acquired it at 11:00:02, after 1 renewal that failed; at 11:00:30 it logged \
         `problem running manager` and stopped reconciling: it began to stop at 11:00:30. Its last reconcile before that was \
         22222222-0000-4000-8000-000000000002 of ns/w2, ended at 11:00:11; 1 reconcile was in flight (no line says it ended): \
         22222222-0000-4000-8000-000000000003 of ns/w3."
    );
    let Some(Detail::Lease(d)) = l.detail.as_deref() else { panic!() };
    assert_eq!(d.lease.as_deref(), Some("ns/widget-lock"));
    assert_eq!(d.renew_failures, 1);
    assert_eq!(d.last_reconcile_id.as_deref(), Some("22222222-0000-4000-8000-000000000002"));

    let restarts = of(&a, FindingKind::Restart);
    assert_eq!(restarts.len(), 1, "{:#?}", a.findings);
    let r = restarts[0];
    assert_eq!(
        r.message,
        "logs-manager.txt is a new process of the container whose previous process logged logs-manager-previous.txt: that one's last line \
         is at 11:00:30 (it logged at 11:00:30 `failed to renew lease ns/widget-lock: timed out waiting for the condition`); the new one \
         began logging at 11:00:41, 11s later (`starting manager` at 11:00:41), acquired the leader lease at 11:00:58 and resumed \
         reconciling at 11:00:59 (reconcile 33333333-0000-4000-8000-000000000001 of ns/w3); of the previous process, 1 reconcile was cut \
         off (no line says it ended): 22222222-0000-4000-8000-000000000003 of ns/w3."
    );
    let Some(Detail::Restart(d)) = r.detail.as_deref() else { panic!() };
    assert_eq!((d.previous.as_str(), d.current.as_str(), d.previous_exit.as_str()), (prev.as_str(), cur.as_str(), "lease-lost"));
    assert_eq!(d.cut_off, ["22222222-0000-4000-8000-000000000003"]);
    assert_eq!(d.resumed.map(|t| t.to_string()).as_deref(), Some("2026-05-26T11:00:59Z"));
    // A one-worker manager that only restarted: nothing stalled or expired.
    for k in [FindingKind::StalledWorker, FindingKind::ExpiredContext, FindingKind::Throttled] {
        assert!(of(&a, k).is_empty(), "{k:?}: {:#?}", a.findings);
    }
}

#[test]
fn a_clean_restart_is_a_restart_and_no_lease_lost() {
    // SIGTERM: the manager stops its runnables and exits; no lease trouble.
    let prev: String = PREVIOUS
        .lines()
        .filter(|l| !l.contains("resource lock") && !l.contains("renew") && !l.contains("problem running"))
        .chain(["2026-05-26T11:00:30Z\tINFO\tWait completed, proceeding to shutdown the manager"])
        .map(|l| format!("{l}\n"))
        .collect();
    let a = run(&[(&format!("{POD}logs-manager-previous.txt"), &prev), (&format!("{POD}logs-manager.txt"), CURRENT)]);
    assert!(of(&a, FindingKind::LeaseLost).is_empty(), "{:#?}", a.findings);
    let r = of(&a, FindingKind::Restart);
    assert_eq!(r.len(), 1, "{:#?}", a.findings);
    assert!(r[0].message.contains("(it began a clean stop at 11:00:30 `Stopping and waiting for non leader election runnables`)"), "{}", r[0].message);
    let Some(Detail::Restart(d)) = r[0].detail.as_deref() else { panic!() };
    assert_eq!(d.previous_exit, "shutdown");
    // w3 began at 11:00:20, 10s before the stop, and no line says it ended.
    assert_eq!(d.cut_off, ["22222222-0000-4000-8000-000000000003"]);
}

#[test]
fn a_current_log_alone_is_no_restart() {
    let a = run(&[(&format!("{POD}logs-manager.txt"), CURRENT)]);
    assert!(a.findings.is_empty(), "{:#?}", a.findings);
}

#[test]
fn cri_and_crust_gather_layouts_pair_too() {
    let a = run(&[
        ("node/var/log/pods/ns_widget-manager-7d9f_0f1e/manager/0.log", PREVIOUS),
        ("node/var/log/pods/ns_widget-manager-7d9f_0f1e/manager/1.log", CURRENT),
    ]);
    assert_eq!(of(&a, FindingKind::Restart).len(), 1, "{:#?}", a.findings);
    let a = run(&[
        ("snapshots/e2e/previous-logs/ns_widget-manager-7d9f_manager.log", PREVIOUS),
        ("snapshots/e2e/namespaces/ns/v1/pod/widget-manager-7d9f/manager/current.log", CURRENT),
    ]);
    assert_eq!(of(&a, FindingKind::Restart).len(), 1, "{:#?}", a.findings);
    // Two different containers' logs are not a restart.
    let a = run(&[(&format!("{POD}logs-manager-previous.txt"), PREVIOUS), (&format!("{POD}logs-sidecar.txt"), CURRENT)]);
    assert!(of(&a, FindingKind::Restart).is_empty(), "{:#?}", a.findings);
}

/// The corpus (provenance in `tests/corpus/INDEX.md`): what each file says,
/// read from it.
#[test]
fn corpus_leader_election_lines() {
    // cnpg: `failed to renew lease cnpg-system/db9c8771.cnpg.io: context
    // deadline exceeded` at 11:44:04.648345487, then the manager stops
    // (`Stopping and waiting for non leader election runnables` at 11:44:08.410576554).
    let a = run(&[("json_leader_renew_failed_shutdown_cnpg_v0.22.log", &corpus("controller-runtime/json_leader_renew_failed_shutdown_cnpg_v0.22.log"))]);
    let l = of(&a, FindingKind::LeaseLost);
    assert_eq!(l.len(), 1, "{:#?}", a.findings);
    assert_eq!(l[0].start.to_string(), "2026-01-09T11:44:04.648345487Z");
    let Some(Detail::Lease(d)) = l[0].detail.as_deref() else { panic!() };
    assert_eq!(d.lease.as_deref(), Some("cnpg-system/db9c8771.cnpg.io"));
    assert_eq!(d.stopped.map(|t| t.to_string()).as_deref(), Some("2026-01-09T11:44:08.410576554Z"));
    assert!(l[0].message.starts_with("The manager in json_leader_renew_failed_shutdown_cnpg_v0.22.log lost its leader lease cnpg-system/db9c8771.cnpg.io at 11:44:04 (`failed to renew lease cnpg-system/db9c8771.cnpg.io: context deadline exceeded`)"), "{}", l[0].message);

    // Rancher 2017: `failed to renew lease kube-system/kube-controller-manager`
    // at 05:17:54.489851, then `F… leaderelection lost` at 05:17:54.489977:
    // one loss, the fatal line its exit.
    let a = run(&[("kcm_leaderelection_lost_rancher_prefix_2017.log", &corpus("klog/kcm_leaderelection_lost_rancher_prefix_2017.log"))]);
    let l = of(&a, FindingKind::LeaseLost);
    assert_eq!(l.len(), 1, "{:#?}", a.findings);
    let Some(Detail::Lease(d)) = l[0].detail.as_deref() else { panic!() };
    assert_eq!(d.lease.as_deref(), Some("kube-system/kube-controller-manager"));
    assert!(l[0].message.contains("; at 05:17:54 it logged `leaderelection lost`"), "{}", l[0].message);
    // kube-controller-manager is no controller-runtime manager: its log has
    // no reconcile, so nothing is said to have stopped reconciling (the
    // fatal line is where it began to stop).
    assert!(
        l[0].message.ends_with("; it began to stop at 05:17:54. This log holds no controller-runtime reconcile, before or after it, so it does not show whether reconciling stopped."),
        "{}",
        l[0].message
    );

    // Issue 108380: `error retrieving resource lock`, then `successfully
    // acquired lease`: renewals failing, no loss.
    let a = run(&[("kcm_leader_election_klog_text_issue108380.log", &corpus("klog/kcm_leader_election_klog_text_issue108380.log"))]);
    assert!(of(&a, FindingKind::LeaseLost).is_empty(), "{:#?}", a.findings);

    // kubewarden: `attempting to acquire leader lease kubewarden/a4ddbf36.kubewarden.io...`,
    // `successfully acquired lease` 31s later, `Starting EventSource`: a
    // start-up, no loss, no restart (one log).
    let a = run(&[("mixed_klog_and_controller_runtime_console_kubewarden.log", &corpus("klog/mixed_klog_and_controller_runtime_console_kubewarden.log"))]);
    assert!(a.findings.is_empty(), "{:#?}", a.findings);

    // Docker json-file: two managers attempting, one acquiring: no loss.
    let a = run(&[("kcm_leader_election_docker_jsonfile_issue89466.log", &corpus("klog/kcm_leader_election_docker_jsonfile_issue89466.log"))]);
    assert!(of(&a, FindingKind::LeaseLost).is_empty(), "{:#?}", a.findings);

    // Three excerpts; (c) says `failed to renew lease default/lcustom-ease:
    // timed out waiting for the condition` at 05:55:02.543563.
    let a = run(&[("kcm_leader_event_and_failed_update_lock.log", &corpus("klog/kcm_leader_event_and_failed_update_lock.log"))]);
    let l = of(&a, FindingKind::LeaseLost);
    assert_eq!(l.len(), 1, "{:#?}", a.findings);
    let Some(Detail::Lease(d)) = l[0].detail.as_deref() else { panic!() };
    assert_eq!(d.lease.as_deref(), Some("default/lcustom-ease"));
    // Nothing after the line: no stop, and no reconcile either way.
    assert!(l[0].message.ends_with("`failed to renew lease default/lcustom-ease: timed out waiting for the condition`). This log holds no controller-runtime reconcile, before or after it, so it does not show whether reconciling stopped."), "{}", l[0].message);
}

#[test]
fn corpus_throttling_line_under_a_terminal_copy() {
    // Line 14: `I0915 14:58:21.046324 … Waited for 1.090126399s due to client-side throttling …`.
    let a = run(&[(
        "flux_kustomize_controller_json_hardwrapped_107_issue725.log",
        &corpus("terminal/flux_kustomize_controller_json_hardwrapped_107_issue725.log"),
    )]);
    let t = of(&a, FindingKind::Throttled);
    assert!(!t.is_empty(), "{:#?}", a.findings);
    let Some(Detail::Throttle(d)) = t[0].detail.as_deref() else { panic!() };
    assert_eq!(d.longest_wait_nanos, Some(1_090_126_399));
}

#[test]
fn the_markdown_has_tables_for_throttling_and_the_manager() {
    let prev = format!("{POD}logs-manager-previous.txt");
    let cur = format!("{POD}logs-manager.txt");
    let a = run(&[(&cur, CURRENT), (&prev, PREVIOUS), ("manager.log", THROTTLED)]);
    let md = reconscope::report::markdown(&a, &reconscope::report::ReportOptions::default());
    // Every time is on 2026-05-26: clocks alone, no dates.
    assert!(md.contains("### Throttled API requests"), "{md}");
    assert!(md.contains("| 10:00:02–10:00:08 | manager.log | 2 | 1 | 2.5s | secrets (1), tenantcontrolplanes.kamaji.clastix.io/status (1) | 2 |"), "{md}");
    assert!(md.contains("### Manager processes"), "{md}");
    assert!(
        md.contains("| lease lost | logs-manager-previous.txt | 11:00:30 | `failed to renew lease ns/widget-lock: timed out waiting for the condition` (stopping from 11:00:30) |"),
        "{md}"
    );
    assert!(
        md.contains("| restart | logs-manager-previous.txt → logs-manager.txt | 11:00:30 → 11:00:41 | previous ended: lease-lost; reconciling resumed at 11:00:59; 1 cut off |"),
        "{md}"
    );
    assert!(md.contains("**lease-lost · "), "{md}");
    assert!(md.contains("**restart · "), "{md}");
    assert!(md.contains("**throttled · "), "{md}");
}

#[test]
fn the_structured_wait_of_newer_client_go_in_klog_and_json() {
    // client-go 1.32+: `"Waited before sending request" delay=… reason=… verb=… URL=…`
    // (klog text), and the same through controller-runtime's JSON logger.
    let klog = "I0526 12:00:01.200000       1 request.go:752] \"Waited before sending request\" delay=\"1.200875613s\" reason=\"client-side throttling, not priority and fairness\" verb=\"POST\" URL=\"https://10.96.0.1:443/api/v1/namespaces/ns/pods/p-1/eviction\"\n\
2026-05-26T12:00:00Z\tINFO\tsetup\tstarting manager\n";
    let json = "{\"level\":\"info\",\"ts\":\"2026-05-26T12:00:02.5Z\",\"msg\":\"Waited before sending request\",\"delay\":\"3.5s\",\"reason\":\"client-side throttling, not priority and fairness\",\"verb\":\"GET\",\"URL\":\"https://10.96.0.1:443/apis/apps/v1/namespaces/ns/deployments/d\"}\n";
    let a = run(&[("kubectl-drain.log", klog), ("operator.log", json)]);
    let t = of(&a, FindingKind::Throttled);
    assert_eq!(t.len(), 2, "{:#?}", a.findings);
    let detail = |f: &Finding| match f.detail.as_deref() {
        Some(Detail::Throttle(d)) => d.clone(),
        _ => panic!(),
    };
    // By start: the JSON line's wait began at 11:59:59 (12:00:02.5 − 3.5s),
    // the klog line's at 12:00:00 (12:00:01.2 − 1.2s).
    let (j, k) = (detail(t[0]), detail(t[1]));
    assert_eq!((k.source.as_str(), k.longest_wait_nanos, k.resources[0].resource.as_str()), ("kubectl-drain.log", Some(1_200_875_613), "pods/eviction"));
    assert_eq!((j.source.as_str(), j.longest_wait_nanos, j.resources[0].resource.as_str()), ("operator.log", Some(3_500_000_000), "deployments.apps"));
}

#[test]
fn a_429_a_reconcile_returned_is_a_throttled_window_naming_it() {
    let log = r#"2026-05-26T13:00:00Z	INFO	Reconciling	{"controller": "widget", "controllerGroup": "example.io", "controllerKind": "Widget", "Widget": {"name":"w1","namespace":"ns"}, "namespace": "ns", "name": "w1", "reconcileID": "55555555-0000-4000-8000-000000000001"}
2026-05-26T13:00:01Z	ERROR	Reconciler error	{"controller": "widget", "controllerGroup": "example.io", "controllerKind": "Widget", "Widget": {"name":"w1","namespace":"ns"}, "namespace": "ns", "name": "w1", "reconcileID": "55555555-0000-4000-8000-000000000001", "error": "failed to get secret: the server has received too many requests and has asked us to try again later (get secrets w1-kubeconfig)"}
2026-05-26T13:00:30Z	INFO	Reconciling	{"controller": "widget", "controllerGroup": "example.io", "controllerKind": "Widget", "Widget": {"name":"w1","namespace":"ns"}, "namespace": "ns", "name": "w1", "reconcileID": "55555555-0000-4000-8000-000000000002"}
2026-05-26T13:00:31Z	INFO	Reconcile successful	{"controller": "widget", "controllerGroup": "example.io", "controllerKind": "Widget", "Widget": {"name":"w1","namespace":"ns"}, "namespace": "ns", "name": "w1", "reconcileID": "55555555-0000-4000-8000-000000000002"}
"#;
    let a = run(&[("manager.log", log)]);
    let t = of(&a, FindingKind::Throttled);
    assert_eq!(t.len(), 1, "{:#?}", a.findings);
    assert_eq!(
        t[0].message,
        "In manager.log, 1 request was answered 429 Too Many Requests by the API server at 13:00:01. 1 reconcile overlaps the window: \
         55555555-0000-4000-8000-000000000001 of ns/w1."
    );
}

#[test]
fn the_json_gives_the_lease_loss_and_the_restart() {
    let mut l = Loaded::default();
    l.add(&format!("{POD}logs-manager-previous.txt"), PREVIOUS.as_bytes().to_vec(), &LoadOptions::default());
    l.add(&format!("{POD}logs-manager.txt"), CURRENT.as_bytes().to_vec(), &LoadOptions::default());
    l.finish();
    let a = analyze(&l.files, &AnalyzeOptions::default()).0;
    let inputs: Vec<_> = l.files.iter().map(reconscope::stats::FileStats::of).collect();
    let doc = reconscope::analyze::json::to_json(&inputs, &a);
    let find = |k: &str| doc["findings"].as_array().unwrap().iter().find(|f| f["kind"] == k).cloned().unwrap();
    let lost = find("lease-lost");
    assert_eq!(lost["lease"]["lease"], "ns/widget-lock");
    assert_eq!(lost["lease"]["lost"], "2026-05-26T11:00:30.400000Z");
    assert_eq!(lost["lease"]["acquired"], "2026-05-26T11:00:02.200000Z");
    assert_eq!(lost["lease"]["said"], "failed to renew lease ns/widget-lock: timed out waiting for the condition");
    assert_eq!(lost["lease"]["renew_failures"], 1);
    assert_eq!(lost["lease"]["last_reconcile_id"], "22222222-0000-4000-8000-000000000002");
    let restart = find("restart");
    assert_eq!(restart["restart"]["previous_exit"], "lease-lost");
    assert_eq!(restart["restart"]["previous_end"], "2026-05-26T11:00:30.400000Z");
    assert_eq!(restart["restart"]["started"], "2026-05-26T11:00:41Z");
    assert_eq!(restart["restart"]["resumed"], "2026-05-26T11:00:59Z");
    assert_eq!(restart["restart"]["cut_off"], serde_json::json!(["22222222-0000-4000-8000-000000000003"]));
    assert!(lost.get("restart").is_none() && restart.get("lease").is_none() && lost.get("throttle").is_none());
}

#[test]
fn a_lost_lease_with_reconciles_after_it_does_not_claim_they_stopped() {
    // The loss, then a reconcile begins 5s later in the same process.
    let log = PREVIOUS.lines().filter(|l| !l.contains("Stopping and waiting") && !l.contains("problem running")).map(|l| format!("{l}\n")).collect::<String>()
        + "2026-05-26T11:00:35Z\tINFO\tReconciling\t{\"controller\": \"widget\", \"controllerGroup\": \"example.io\", \"controllerKind\": \"Widget\", \"Widget\": {\"name\":\"w4\",\"namespace\":\"ns\"}, \"namespace\": \"ns\", \"name\": \"w4\", \"reconcileID\": \"22222222-0000-4000-8000-000000000004\"}\n";
    let a = run(&[("manager.log", &log)]);
    let l = of(&a, FindingKind::LeaseLost);
    assert_eq!(l.len(), 1, "{:#?}", a.findings);
    assert!(
        l[0].message
            .contains("; it did not stop reconciling: 1 reconcile began after it (the first, 22222222-0000-4000-8000-000000000004 of ns/w4, at 11:00:35)."),
        "{}",
        l[0].message
    );
}

/// The manager's life as lanes: the previous process's log with its
/// leader lease shaded from 11:00:02.2 (acquired) to 11:00:30.4 (lost), ended
/// by the lost lease; the new process's log after it, leader from its
/// acquisition at 11:00:58.3 to its last line; in the SVG too.
#[test]
fn the_timeline_has_a_lane_per_process_with_its_leadership() {
    use reconscope::layout::{layout, LayoutOptions};
    let prev = format!("{POD}logs-manager-previous.txt");
    let cur = format!("{POD}logs-manager.txt");
    let a = run(&[(&cur, CURRENT), (&prev, PREVIOUS)]);
    let tl = layout(&a, &LayoutOptions::default());
    let at = |s: &str| reconscope::time::parse_rfc3339(format!("2026-05-26T{s}Z").as_bytes(), false, 0).unwrap().ts.nanos;
    // The lease as each log shows it: the previous process lost it, the
    // new one holds it at its last line.
    let held: Vec<(&str, i64, Option<i64>)> = a.leadership.iter().map(|l| (l.source.as_str(), l.acquired.nanos, l.lost.map(|t| t.nanos))).collect();
    assert_eq!(held, [(cur.as_str(), at("11:00:58.300000"), None), (prev.as_str(), at("11:00:02.200000"), Some(at("11:00:30.400000")))]);
    let json = reconscope::analyze::json::to_json(&[], &a);
    assert_eq!(json["leadership"][0]["lost"], serde_json::Value::Null);
    assert_eq!(json["leadership"][1]["lost"], "2026-05-26T11:00:30.400000Z");
    type Lane<'a> = (&'a str, &'a str, Vec<(i64, i64)>, Option<&'a str>);
    let lanes: Vec<Lane> = tl.sources.iter().map(|s| (s.label.as_str(), s.path.as_str(), s.leader.clone(), s.ended.as_deref())).collect();
    assert_eq!(
        lanes,
        [
            ("logs-manager.txt", cur.as_str(), vec![(at("11:00:58.300000"), at("11:01:00"))], None),
            (
                "logs-manager-previous.txt",
                prev.as_str(),
                vec![(at("11:00:02.200000"), at("11:00:30.400000"))],
                Some("ended: lease-lost; a new process followed")
            ),
        ]
    );
    assert_eq!(tl.sources_total, 2);
    let svg = reconscope::render::svg(&a, &tl, &reconscope::render::View::default());
    let doc = roxmltree::Document::parse(&svg).expect("well-formed");
    let leader = doc.descendants().filter(|n| n.attribute("data-leader") == Some("1")).count();
    assert_eq!(leader, 2);
    let titles: Vec<&str> = doc.descendants().filter(|n| n.has_tag_name("title")).filter_map(|n| n.text()).filter(|t| t.starts_with("log ")).collect();
    assert!(titles.iter().any(|t| t.contains("held its leader lease") && t.contains("lease-lost")), "{titles:?}");
}
