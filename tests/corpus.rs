//! Every file of the shared corpus (copied to `tests/corpus/`, provenance in
//! `tests/corpus/INDEX.md`) parses with no unparsed line, except the lines
//! listed here, each with the reason it is not a log line.

use std::collections::BTreeSet;
use std::path::Path;

#[path = "support/files.rs"]
mod files;

use reconscope::model::Format;
use reconscope::parse::{parse_file, ParseOptions};

/// (file, line, reason) of lines that genuinely are not log lines.
const NOT_LOG_LINES: &[(&str, u32, &str)] = &[
    ("chainsaw/chainsaw_stdout_format_docs.log", 1, "chainsaw summary text: no time, no level"),
    ("chainsaw/chainsaw_stdout_format_docs.log", 2, "chainsaw summary text: no time, no level"),
    ("chainsaw/chainsaw_stdout_format_docs.log", 25, "chainsaw summary text: no time, no level"),
    ("chainsaw/chainsaw_stdout_format_docs.log", 26, "chainsaw summary text: no time, no level"),
    ("chainsaw/chainsaw_stdout_format_docs.log", 27, "chainsaw summary text: no time, no level"),
    ("chainsaw/chainsaw_stdout_format_docs.log", 28, "chainsaw summary text: no time, no level"),
    ("chainsaw/chainsaw_stdout_format_docs.log", 29, "chainsaw summary text: no time, no level"),
    ("chainsaw/chainsaw_stdout_format_docs.log", 30, "chainsaw summary text: no time, no level"),
    ("chainsaw/chainsaw_stdout_format_docs.log", 33, "corpus annotation, not part of the original log"),
    ("chainsaw/chainsaw_stdout_format_docs.log", 50, "corpus annotation, not part of the original log"),
    ("controller-runtime/console_epoch_reconciler_error_v0.14.log", 6, "markdown fence from the issue the excerpt was copied from"),
    ("controller-runtime/json_leader_renew_failed_shutdown_cnpg_v0.22.log", 1, "the excerpt starts in the middle of a record"),
    ("controller-runtime/cri_kuberay_v1.2.2_rayjob_raycluster_kueue4508.log", 16, "corpus annotation, not part of the original log"),
    ("etcd/clientv3_retry_unary_invoker_variants.log", 3, "corpus annotation, not part of the original log"),
    ("etcd/clientv3_retry_unary_invoker_variants.log", 8, "corpus annotation, not part of the original log"),
    ("etcd/clientv3_retry_unary_invoker_variants.log", 11, "corpus annotation, not part of the original log"),
    ("etcd/clientv3_retry_unary_invoker_variants.log", 18, "corpus annotation, not part of the original log"),
    ("etcd/cri_containerd_kind_etcd_and_apiserver.log", 11, "corpus annotation, not part of the original log"),
    ("etcd/etcd35_zap_json_follower_stepdown_reelection_millis.log", 3, "corpus annotation, not part of the original log"),
    ("etcd/journald_etcd_raft_issue9668.log", 14, "corpus annotation, not part of the original log"),
    ("etcd/zap_early_epoch_issue10000.log", 6, "corpus annotation, not part of the original log"),
    ("github-actions/annotation_lines_error_warning.log", 5, "corpus annotation, not part of the original log"),
    ("github-actions/gh_run_view_log_and_api_formats.log", 6, "corpus annotation, not part of the original log"),
    ("github-actions/gh_run_view_log_and_api_formats.log", 12, "corpus annotation, not part of the original log"),
    ("github-actions/gh_run_view_log_and_api_formats.log", 24, "corpus annotation, not part of the original log"),
    ("github-actions/gh_run_view_log_and_api_formats.log", 25, "gh run view --log-failed output line that carries no timestamp"),
    ("github-actions/gh_run_view_log_and_api_formats.log", 26, "gh run view --log-failed output line that carries no timestamp"),
    ("github-actions/gh_run_view_log_and_api_formats.log", 27, "gh run view --log-failed output line that carries no timestamp"),
    (
        "goroutines/07_etcd-14487_clientv3-lease_grpc-newClientStream_select-and-IO-wait-14-minutes_go1.17.8_CORPUS-EXCERPTS.txt",
        1,
        "corpus annotation, not part of the original log",
    ),
    (
        "goroutines/07_etcd-14487_clientv3-lease_grpc-newClientStream_select-and-IO-wait-14-minutes_go1.17.8_CORPUS-EXCERPTS.txt",
        25,
        "corpus annotation, not part of the original log",
    ),
    (
        "goroutines/07_etcd-14487_clientv3-lease_grpc-newClientStream_select-and-IO-wait-14-minutes_go1.17.8_CORPUS-EXCERPTS.txt",
        41,
        "corpus annotation, not part of the original log",
    ),
    (
        "goroutines/07_etcd-14487_clientv3-lease_grpc-newClientStream_select-and-IO-wait-14-minutes_go1.17.8_CORPUS-EXCERPTS.txt",
        55,
        "corpus annotation, not part of the original log",
    ),
    (
        "goroutines/08_spark-operator-1570_client-go-workers_syscall-413-minutes-in-reconcile_vs_workqueue-Get-422-minutes_CORPUS-EXCERPTS.txt",
        1,
        "corpus annotation, not part of the original log",
    ),
    (
        "goroutines/08_spark-operator-1570_client-go-workers_syscall-413-minutes-in-reconcile_vs_workqueue-Get-422-minutes_CORPUS-EXCERPTS.txt",
        18,
        "corpus annotation, not part of the original log",
    ),
    (
        "goroutines/08_spark-operator-1570_client-go-workers_syscall-413-minutes-in-reconcile_vs_workqueue-Get-422-minutes_CORPUS-EXCERPTS.txt",
        39,
        "corpus annotation, not part of the original log",
    ),
    (
        "goroutines/08_spark-operator-1570_client-go-workers_syscall-413-minutes-in-reconcile_vs_workqueue-Get-422-minutes_CORPUS-EXCERPTS.txt",
        56,
        "corpus annotation, not part of the original log",
    ),
    (
        "goroutines/08_spark-operator-1570_client-go-workers_syscall-413-minutes-in-reconcile_vs_workqueue-Get-422-minutes_CORPUS-EXCERPTS.txt",
        70,
        "corpus annotation, not part of the original log",
    ),
    (
        "controller-runtime/console_kueue_envtest_ginkgo_dra_minus0500_pr6949.log",
        10,
        "ginkgo's `STEP:` line, the test's narration (its own time `@ 09/22/25 16:07:12.565`), not a log line",
    ),
    (
        "controller-runtime/console_kueue_envtest_ginkgo_dra_minus0500_pr6949.log",
        12,
        "ginkgo's `STEP:` line, the test's narration (its own time `@ 09/22/25 16:07:12.565`), not a log line",
    ),
    (
        "controller-runtime/console_kueue_envtest_ginkgo_dra_minus0500_pr6949.log",
        15,
        "ginkgo's `STEP:` line, the test's narration (its own time `@ 09/22/25 16:07:12.565`), not a log line",
    ),
    (
        "controller-runtime/console_kueue_envtest_ginkgo_dra_minus0500_pr6949.log",
        158,
        "ginkgo's `STEP:` line, the test's narration (its own time `@ 09/22/25 16:07:12.565`), not a log line",
    ),
    (
        "controller-runtime/console_kueue_envtest_ginkgo_dra_minus0500_pr6949.log",
        159,
        "ginkgo's `STEP:` line, the test's narration (its own time `@ 09/22/25 16:07:12.565`), not a log line",
    ),
    (
        "controller-runtime/console_kueue_envtest_ginkgo_dra_minus0500_pr6949.log",
        189,
        "a logr line with no time (`\"level\"=0 \"msg\"=\"manager stopped\"`, the test's own logger), not in a log format",
    ),
    (
        "controller-runtime/console_kueue_envtest_ginkgo_dra_minus0500_pr6949.log",
        190,
        "ginkgo's `STEP:` line, the test's narration (its own time `@ 09/22/25 16:07:12.565`), not a log line",
    ),
    (
        "controller-runtime/console_kueue_envtest_ginkgo_dra_minus0500_pr6949.log",
        287,
        "ginkgo's `STEP:` line, the test's narration (its own time `@ 09/22/25 16:07:12.565`), not a log line",
    ),
    (
        "controller-runtime/console_kueue_envtest_ginkgo_dra_minus0500_pr6949.log",
        297,
        "ginkgo's `STEP:` line, the test's narration (its own time `@ 09/22/25 16:07:12.565`), not a log line",
    ),
    (
        "controller-runtime/console_kueue_envtest_ginkgo_dra_minus0500_pr6949.log",
        298,
        "ginkgo's `STEP:` line, the test's narration (its own time `@ 09/22/25 16:07:12.565`), not a log line",
    ),
    (
        "controller-runtime/console_kueue_envtest_ginkgo_dra_minus0500_pr6949.log",
        328,
        "a logr line with no time (`\"level\"=0 \"msg\"=\"manager stopped\"`, the test's own logger), not in a log format",
    ),
    (
        "controller-runtime/console_kueue_envtest_ginkgo_dra_minus0500_pr6949.log",
        329,
        "ginkgo's `STEP:` line, the test's narration (its own time `@ 09/22/25 16:07:12.565`), not a log line",
    ),
    ("kamaji/issue375_webhook_debug_and_soot.log", 4, "kubeadm progress text printed to stdout, not a logger line"),
    ("kamaji/issue375_webhook_debug_and_soot.log", 9, "corpus annotation, not part of the original log"),
    ("kamaji/issue780_deletion_stuck_wrapped.log", 1, "the excerpt starts in the middle of a record"),
    ("kamaji/legacy_2022_epoch_format.log", 4, "corpus annotation, not part of the original log"),
    ("kamaji/legacy_2022_epoch_format.log", 8, "corpus annotation, not part of the original log"),
    ("klog/kcm_leader_election_docker_jsonfile_issue89466.log", 3, "corpus annotation, not part of the original log"),
    ("klog/kcm_leader_election_klog_text_issue108380.log", 5, "corpus annotation, not part of the original log"),
    ("klog/kcm_leader_event_and_failed_update_lock.log", 8, "corpus annotation, not part of the original log"),
    ("klog/kcm_leader_event_and_failed_update_lock.log", 11, "corpus annotation, not part of the original log"),
    ("terminal/flux_kustomize_controller_json_hardwrapped_107_issue725.log", 1, "the excerpt starts in the middle of a record"),
    ("controller-runtime/cri_kuberay_v1.2.2_rayjob_raycluster_kueue4508.log", 1, "a shell command the author ran, not a log line (noted by the parser)"),
    ("controller-runtime/cri_kueue_v1pod_webhook_refused_grep_issue4140.log", 1, "the grep the author ran, not a log line (noted by the parser)"),
    ("etcd/journalctl_etcd_json_cluster_id_mismatch_offset0530.log", 1, "a shell command the author ran, not a log line (noted by the parser)"),
    ("etcd/journalctl_microshift_embedded_etcd_json_inner_time_lags.log", 1, "a shell command the author ran, not a log line (noted by the parser)"),
    ("etcd/journalctl_microshift_embedded_etcd_json_inner_time_lags.log", 2, "the author's mark of output left out, not part of the log"),
    ("etcd/journalctl_microshift_embedded_etcd_json_inner_time_lags.log", 6, "the author's mark of output left out, not part of the log"),
    ("etcd/journalctl_microshift_embedded_etcd_json_inner_time_lags.log", 20, "the author's mark of output left out, not part of the log"),
    ("etcd/systemctl_status_etcd36_ellipsized_json.log", 1, "a shell command the author ran, not a log line (noted by the parser)"),
    ("etcd/systemctl_status_etcd36_ellipsized_json.log", 2, "`systemctl status` header (the unit's state), not a log line"),
    ("etcd/systemctl_status_etcd36_ellipsized_json.log", 3, "`systemctl status` header (the unit's state), not a log line"),
    ("etcd/systemctl_status_etcd36_ellipsized_json.log", 4, "`systemctl status` header (the unit's state), not a log line"),
    ("etcd/systemctl_status_etcd36_ellipsized_json.log", 5, "`systemctl status` header (the unit's state), not a log line"),
    ("etcd/systemctl_status_etcd36_ellipsized_json.log", 6, "`systemctl status` header (the unit's state), not a log line"),
    ("etcd/systemctl_status_etcd36_ellipsized_json.log", 7, "`systemctl status` header (the unit's state), not a log line"),
    ("etcd/systemctl_status_etcd36_ellipsized_json.log", 8, "`systemctl status` header (the unit's state), not a log line"),
    ("etcd/systemctl_status_etcd36_ellipsized_json.log", 9, "`systemctl status` header (the unit's state), not a log line"),
    ("etcd/systemctl_status_etcd36_ellipsized_json.log", 10, "`systemctl status` header (the unit's state), not a log line"),
    ("etcd/systemctl_status_etcd36_ellipsized_json.log", 11, "`systemctl status` header (the unit's state), not a log line"),
    ("etcd/systemctl_status_etcd36_ellipsized_json.log", 12, "`systemctl status` header (the unit's state), not a log line"),
    ("etcd/systemctl_status_etcd36_ellipsized_json.log", 24, "systemctl's own hint that it cut lines, not a log line"),
    ("etcd/systemctl_status_etcd_member_capnslog_utc_under_mst_journal.log", 1, "a shell command the author ran, not a log line (noted by the parser)"),
    ("etcd/systemctl_status_etcd_member_capnslog_utc_under_mst_journal.log", 2, "`systemctl status` header (the unit's state), not a log line"),
    ("etcd/systemctl_status_etcd_member_capnslog_utc_under_mst_journal.log", 3, "`systemctl status` header (the unit's state), not a log line"),
    ("etcd/systemctl_status_etcd_member_capnslog_utc_under_mst_journal.log", 4, "`systemctl status` header (the unit's state), not a log line"),
    ("etcd/systemctl_status_etcd_member_capnslog_utc_under_mst_journal.log", 5, "`systemctl status` header (the unit's state), not a log line"),
    ("etcd/systemctl_status_etcd_member_capnslog_utc_under_mst_journal.log", 6, "`systemctl status` header (the unit's state), not a log line"),
    ("etcd/systemctl_status_etcd_member_capnslog_utc_under_mst_journal.log", 7, "`systemctl status` header (the unit's state), not a log line"),
    ("etcd/systemctl_status_etcd_member_capnslog_utc_under_mst_journal.log", 8, "`systemctl status` header (the unit's state), not a log line"),
    ("etcd/systemctl_status_etcd_member_capnslog_utc_under_mst_journal.log", 9, "`systemctl status` header (the unit's state), not a log line"),
    ("etcd/systemctl_status_etcd_member_capnslog_utc_under_mst_journal.log", 10, "`systemctl status` header (the unit's state), not a log line"),
    ("etcd/systemctl_status_etcd_member_capnslog_utc_under_mst_journal.log", 11, "`systemctl status` header (the unit's state), not a log line"),
    ("etcd/systemctl_status_etcd_member_capnslog_utc_under_mst_journal.log", 12, "`systemctl status` header (the unit's state), not a log line"),
    ("etcd/systemctl_status_etcd_member_capnslog_utc_under_mst_journal.log", 13, "`systemctl status` header (the unit's state), not a log line"),
    ("etcd/systemctl_status_etcd_member_capnslog_utc_under_mst_journal.log", 14, "`systemctl status` header (the unit's state), not a log line"),
    ("etcd/systemctl_status_etcd_member_capnslog_utc_under_mst_journal.log", 15, "`systemctl status` header (the unit's state), not a log line"),
    ("etcd/systemctl_status_etcd_pager_chopped_offset0530.log", 1, "a shell command the author ran, not a log line (noted by the parser)"),
    ("etcd/systemctl_status_etcd_pager_chopped_offset0530.log", 2, "the `service` wrapper saying it runs systemctl, not a log line"),
    ("etcd/systemctl_status_etcd_pager_chopped_offset0530.log", 3, "`systemctl status` header (the unit's state), not a log line"),
    ("etcd/systemctl_status_etcd_pager_chopped_offset0530.log", 4, "`systemctl status` header (the unit's state), not a log line"),
    ("etcd/systemctl_status_etcd_pager_chopped_offset0530.log", 5, "`systemctl status` header (the unit's state), not a log line"),
    ("etcd/systemctl_status_etcd_pager_chopped_offset0530.log", 6, "`systemctl status` header (the unit's state), not a log line"),
    ("etcd/systemctl_status_etcd_pager_chopped_offset0530.log", 7, "`systemctl status` header (the unit's state), not a log line"),
    ("etcd/systemctl_status_etcd_pager_chopped_offset0530.log", 8, "`systemctl status` header (the unit's state), not a log line"),
    ("etcd/systemctl_status_etcd_pager_chopped_offset0530.log", 9, "`systemctl status` header (the unit's state), not a log line"),
    ("klog/cri_kube_apiserver_httplog_kind_kueue4508.log", 1, "a shell command the author ran, not a log line (noted by the parser)"),
    ("terminal/argocd_appset_v3.3.6_logrus_json_time_key_prompt_blank_lines.log", 1, "a shell command the author ran, not a log line (noted by the parser)"),
    ("terminal/capd_klog_kubectl_logs_grep_prompt_clustercache.log", 1, "a shell command the author ran, not a log line (noted by the parser)"),
    (
        "terminal/stern_kueue_pod_container_columns_klog_json_issue1407.log",
        1,
        "stern's header row for a container it follows (`+ <pod> › <container>`), not a log line",
    ),
    (
        "terminal/stern_kueue_pod_container_columns_klog_json_issue1407.log",
        2,
        "stern's header row for a container it follows (`+ <pod> › <container>`), not a log line",
    ),
];

/// Files that are not logs at all; every line of them is expected unparsed.
const NOT_LOG_FILES: &[(&str, &str)] = &[
    ("k8s-objects/", "object dumps and kubectl tables: the analysis reads them as objects, not log lines"),
    ("github-actions/run_logs_zip_layout.txt", "a listing of a run-logs zip's member names"),
];

#[test]
fn every_corpus_line_parses_or_is_listed() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    // INDEX.md is the provenance and `<file>.expect` the facts read from a file (tests/corpus_expect.rs): not corpus logs.
    let files: Vec<_> =
        files::files_under(&root).into_iter().filter(|p| p.file_name().unwrap() != "INDEX.md" && p.extension().is_none_or(|e| e != "expect")).collect();
    assert!(files.len() >= 50, "corpus went missing: {} files", files.len());
    let expected: BTreeSet<(String, u32)> = NOT_LOG_LINES.iter().map(|(f, l, _)| (f.to_string(), *l)).collect();
    let mut got = BTreeSet::new();
    let mut report = String::new();
    for path in &files {
        let rel = path.strip_prefix(&root).unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(path).unwrap();
        let pf = parse_file(rel.clone(), bytes, &ParseOptions::default());
        if NOT_LOG_FILES.iter().any(|(prefix, _)| rel.starts_with(prefix)) {
            continue;
        }
        for r in pf.records.iter().filter(|r| r.format == Format::Unparsed) {
            got.insert((rel.clone(), r.line));
            if !expected.contains(&(rel.clone(), r.line)) {
                let text = String::from_utf8_lossy(&pf.raw(r)).into_owned();
                report.push_str(&format!("    (\"{rel}\", {}, \"?\"), // {}\n", r.line, text.chars().take(120).collect::<String>()));
            }
        }
    }
    let stale: Vec<_> = expected.difference(&got).collect();
    assert!(report.is_empty() && stale.is_empty(), "unlisted unparsed lines:\n{report}\nlisted but now parsed: {stale:?}");
}

/// The format each corpus file is mostly made of: detection must not drift.
#[test]
fn corpus_files_are_detected_as_their_format() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let cases: &[(&str, Format)] = &[
        ("kamaji/issue950_startup_and_error.log", Format::ZapConsole),
        ("kamaji/legacy_2022_epoch_format.log", Format::ZapConsole),
        ("controller-runtime/json_production_reconciler_error.log", Format::ZapJson),
        ("etcd/capnslog_etcd2_startup_issue6980.log", Format::EtcdCapnslog),
        ("etcd/journald_etcd_raft_issue9668.log", Format::Journald),
        ("etcd/etcd35_zap_json_single_node_election_micro_trimmed.log", Format::ZapJson),
        ("etcd/cri_containerd_kind_etcd_and_apiserver.log", Format::ZapJson),
        ("klog/kcm_leader_election_klog_text_issue108380.log", Format::Klog),
        ("klog/kcm_leaderelection_lost_rancher_prefix_2017.log", Format::Klog),
        ("github-actions/annotation_lines_error_warning.log", Format::Text),
        ("chainsaw/chainsaw_stdout_format_docs.log", Format::Chainsaw),
        ("goroutines/03_stapelberg-blog_gokr-rsync_go1.23_SIGQUIT_gp-m-mp-headers_fp-sp-pc.txt", Format::GoTraceback),
        // Issue 13 additions: the format the entries are written in (the inner one under CRI/journald wrappers).
        ("controller-runtime/json_kuberay_v1.2.2_raycluster_cr0.17_issue4078.log", Format::ZapJson),
        ("controller-runtime/cri_kuberay_v1.2.2_rayjob_raycluster_kueue4508.log", Format::ZapJson),
        ("controller-runtime/cri_kueue_v1pod_webhook_refused_grep_issue4140.log", Format::ZapConsole),
        ("controller-runtime/console_capi_kcp_offset_seconds_ts_pr12106.log", Format::ZapConsole),
        ("controller-runtime/json_pretty_printed_soperator_offset_ts_pr357.log", Format::ZapJson),
        ("controller-runtime/console_epoch_grafana_operator_reconcileID_pr1033.log", Format::ZapConsole),
        ("klog/cri_kube_apiserver_httplog_kind_kueue4508.log", Format::Klog),
        ("klog/capi_kcp_klog_pairs_quoted_reconcileID_pr9342.log", Format::Klog),
        ("klog/capi_kcp_cri_offset0800_klog_unquoted_reconcileID_issue8948.log", Format::Klog),
        ("etcd/journald_etcd35_json_hardwrapped_follower_election_patroni.log", Format::ZapJson),
        ("etcd/journalctl_etcd_json_cluster_id_mismatch_offset0530.log", Format::ZapJson),
        ("etcd/systemctl_status_etcd_member_capnslog_utc_under_mst_journal.log", Format::EtcdCapnslog),
        // The JSON is cut by systemd ("…") or the pager on every journal line, but what comes before the cut (level,
        // ts, caller) is etcd's JSON, read as such with the cut noted. ovs-vsctl text outnumbers the JSON in the
        // MicroShift file: journald is what it is mostly made of.
        ("etcd/systemctl_status_etcd36_ellipsized_json.log", Format::ZapJson),
        ("etcd/systemctl_status_etcd_pager_chopped_offset0530.log", Format::ZapJson),
        ("etcd/journalctl_microshift_embedded_etcd_json_inner_time_lags.log", Format::Journald),
        ("terminal/capi_kcp_klog_hardwrapped_unquoted_reconcileID_pr6836.log", Format::Klog),
        ("terminal/capd_klog_kubectl_logs_grep_prompt_clustercache.log", Format::Klog),
        ("terminal/argocd_appset_v3.3.6_logrus_json_time_key_prompt_blank_lines.log", Format::ZapJson),
        ("terminal/flux_kustomize_controller_json_hardwrapped_107_issue725.log", Format::ZapJson),
        ("slog/logrus_text_crunchy_pgo_reconciler_error_reconcileID.log", Format::Logrus),
        ("slog/slog_text_azurekeyvaultsync_duplicate_reconcile.log", Format::Logrus),
    ];
    // Every mismatch is reported, not only the first.
    let mut wrong = String::new();
    for (file, want) in cases {
        let pf = parse_file(*file, std::fs::read(root.join(file)).unwrap(), &ParseOptions::default());
        // Among the lines that parse (the others are listed, with their
        // reason, above: a `systemctl status` header, prompts).
        let parsed = Format::ALL.iter().copied().filter(|&f| f != Format::Unparsed && pf.counts.format(f) > 0);
        let top = parsed.max_by_key(|f| pf.counts.format(*f)).unwrap_or(Format::Unparsed);
        if top != *want {
            wrong.push_str(&format!("    {file}: want {want:?}, got {top:?} {:?}\n", pf.counts.formats));
        }
    }
    assert!(wrong.is_empty(), "detected as another format:\n{wrong}");
}
