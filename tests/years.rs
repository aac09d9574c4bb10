//! Issue 13: no invented year. Times written without one (klog, journald)
//! take it from the input, or are shown without it, in every output.

use reconscope::analyze::{analyze, json::to_json, AnalyzeOptions};
use reconscope::layout::{layout, LayoutOptions};
use reconscope::pipeline::{LoadOptions, Loaded};
use reconscope::render::{svg, View};
use reconscope::report::{markdown, ReportOptions};
use reconscope::stats::FileStats;

/// A klog controller (lines as controller-runtime writes them through klog,
/// after tests/corpus/klog/controller_runtime_via_klog_text_panic.log) and
/// etcd under journald (after tests/corpus/etcd/journald_etcd_raft_issue9668.log).
const KLOG: &str = r#"I0429 11:15:30.100000   22431 controller.go:220] "Starting workers" controller="konnectextension" controllerGroup="konnect.konghq.com" controllerKind="KonnectExtension" worker count=1
I0429 11:15:31.000000   22431 reconciler.go:10] "Reconciling" controller="konnectextension" KonnectExtension="ns1/ext" namespace="ns1" name="ext" reconcileID="33e41619-3d67-42a3-8e8e-b170af70f982"
E0429 11:15:40.288104   22431 controller.go:474] "Reconciler error" err="context deadline exceeded" controller="konnectextension" KonnectExtension="ns1/ext" namespace="ns1" name="ext" reconcileID="33e41619-3d67-42a3-8e8e-b170af70f982"
"#;
const JOURNAL: &str = "Apr 29 11:15:33 k8s-master-2 etcd[1188]: raft.node: 91d25258d70ad868 lost leader 134af6e5d3e35861 at term 12262
Apr 29 11:15:34 k8s-master-2 etcd[1188]: 91d25258d70ad868 became candidate at term 12263
Apr 29 11:15:36 k8s-master-2 etcd[1188]: raft.node: 91d25258d70ad868 elected leader 91d25258d70ad868 at term 12263
";

struct Outputs {
    json: serde_json::Value,
    markdown: String,
    svg: String,
    notes: Vec<String>,
}

fn outputs(mtime_secs: Option<i64>) -> Outputs {
    let mut loaded = Loaded::default();
    let opts = LoadOptions::default();
    loaded.add_with_mtime("manager.log", KLOG.as_bytes().to_vec(), mtime_secs, &opts);
    loaded.add_with_mtime("etcd-journal.txt", JOURNAL.as_bytes().to_vec(), mtime_secs, &opts);
    loaded.finish();
    let (a, _) = analyze(&loaded.files, &AnalyzeOptions::default());
    let stats: Vec<FileStats> = loaded.files.iter().map(FileStats::of).collect();
    let t = layout(&a, &LayoutOptions::default());
    Outputs {
        json: to_json(&stats, &a),
        markdown: markdown(&a, &ReportOptions::default()),
        svg: svg(&a, &t, &View::default()),
        notes: loaded.notes.iter().map(|d| d.to_string()).collect(),
    }
}

#[test]
fn with_no_year_anywhere_every_output_says_so_and_none_invents_one() {
    let o = outputs(None);
    let j = &o.json;
    assert_eq!(j["year_known"], false);
    assert!(j["year_from"].is_null(), "{}", j["year_from"]);
    assert_eq!(j["reconciles"][0]["first"], "--04-29T11:15:31.000000Z");
    assert_eq!(j["reconciles"][0]["last"], "--04-29T11:15:40.288104Z");
    assert_eq!(j["elections"][0]["start"], "--04-29T11:15:33Z");
    assert_eq!(j["elections"][0]["term"], 12263);
    for f in ["manager.log", "etcd-journal.txt"] {
        assert!(o.notes.iter().any(|n| n.starts_with(f) && n.contains("carry no year and nothing in the input gives one")), "{f}: {:?}", o.notes);
    }
    assert!(o.markdown.contains("Times are UTC, on Apr 29; the logs give no year."), "{}", o.markdown);
    assert!(o.svg.contains("Apr 29 11:15:31 – 11:15:41 UTC, no year in the logs"), "{}", &o.svg[..2000.min(o.svg.len())]);
    // The placeholder year shows nowhere.
    let svg = o.svg.replace("http://www.w3.org/2000/svg", "");
    // (Durations in ns are numbers that may hold the digits: `2000000000`
    // for 2s between journal lines; a year would be in a time's text.)
    let json = serde_json::to_string(j).unwrap();
    let json = regex::Regex::new(r#"_nanos":\d+"#).unwrap().replace_all(&json, r#"_nanos":0"#);
    let all = format!("{json}\n{}\n{svg}", o.markdown);
    assert!(!all.contains("2000"), "a placeholder year leaked");
}

#[test]
fn a_file_time_gives_the_year_and_a_note_says_so() {
    // 2024-05-02: the April lines are of 2024.
    let o = outputs(Some(1_714_608_000));
    // Known, but not from the logs: a consumer of the JSON can tell.
    assert_eq!((&o.json["year_known"], &o.json["year_from"]), (&true.into(), &"file-time".into()));
    assert_eq!(o.json["reconciles"][0]["first"], "2024-04-29T11:15:31.000000Z");
    assert_eq!(o.json["elections"][0]["start"], "2024-04-29T11:15:33Z");
    assert!(
        o.notes.iter().any(|n| n.starts_with(
            "manager.log: its times carry no year; each was given the latest year that puts it no later than the file's modification time (2024-05-02)"
        )),
        "{:?}",
        o.notes
    );
    // The year is not the logs' own: the Markdown and the picture say so.
    assert!(
        o.markdown.contains(
            "Times are UTC, on 2024-04-29 (the logs write no year: each time has the latest year that puts it no later than its file's modification time)."
        ),
        "{}",
        o.markdown
    );
    assert!(o.svg.contains("2024-04-29 11:15:31 – 11:15:41 UTC, the year from file times"), "{}", &o.svg[..2000.min(o.svg.len())]);
}

#[test]
fn etcd_json_under_journald_keeps_its_own_time_and_its_elections() {
    // `journalctl -u etcd` over etcd 3.5's JSON: the prefix has no year; the
    // JSON has the full time, which wins. (Lines after the election of
    // tests/corpus/etcd/etcd35_zap_json_single_node_election_millis.log.)
    let journal = r#"Dec 31 23:59:58 master etcd[812]: {"level":"info","ts":"2024-12-31T23:59:58.101Z","logger":"raft","caller":"etcdserver/zap_raft.go:77","msg":"8e9e05c52164694d is starting a new election at term 4"}
Dec 31 23:59:58 master etcd[812]: {"level":"info","ts":"2024-12-31T23:59:58.102Z","logger":"raft","caller":"etcdserver/zap_raft.go:77","msg":"8e9e05c52164694d became candidate at term 5"}
Jan 01 00:00:00 master etcd[812]: {"level":"info","ts":"2025-01-01T00:00:00.503Z","logger":"raft","caller":"etcdserver/zap_raft.go:77","msg":"raft.node: 8e9e05c52164694d elected leader 8e9e05c52164694d at term 5"}
"#;
    let mut loaded = Loaded::default();
    loaded.add("etcd.journal", journal.as_bytes().to_vec(), &LoadOptions::default());
    loaded.finish();
    let (a, _) = analyze(&loaded.files, &AnalyzeOptions::default());
    let j = to_json(&[], &a);
    assert_eq!((&j["year_known"], &j["year_from"]), (&true.into(), &"logs".into()));
    assert_eq!(j["elections"].as_array().map(Vec::len), Some(1), "{}", j["elections"]);
    let e = &j["elections"][0];
    assert_eq!(
        (e["start"].as_str(), e["end"].as_str(), e["term"].as_u64(), e["leader"].as_str()),
        (Some("2024-12-31T23:59:58.101Z"), Some("2025-01-01T00:00:00.503Z"), Some(5), Some("8e9e05c52164694d"))
    );
    // No note about a missing year: the lines had theirs.
    assert!(loaded.notes.is_empty(), "{:?}", loaded.notes);
}

#[test]
fn local_stamps_with_no_zone_move_onto_the_lines_own_clock() {
    // `systemctl status etcd` on a host in IST (after
    // tests/corpus/etcd/systemctl_status_etcd_pager_chopped_offset0530.log):
    // the journal's prefix is local time, etcd's own `ts` has its offset;
    // the systemd line, which has only the prefix, lines up with them.
    let text = r#"Aug 29 12:11:02 pgsql03 bash[199723]: {"level":"info","ts":"2024-08-29T12:11:02.000562+0530","caller":"rafthttp/stream.go:294","msg":"stopped TCP streaming connection with remote peer"}
Aug 29 12:11:02 pgsql03 bash[199723]: {"level":"info","ts":"2024-08-29T12:11:02.00693+0530","caller":"etcdmain/main.go:50","msg":"successfully notified init daemon"}
Aug 29 12:11:02 pgsql03 systemd[1]: etcd.service: Deactivated successfully.
"#;
    let mut loaded = Loaded::default();
    loaded.add("status.txt", text.as_bytes().to_vec(), &LoadOptions::default());
    loaded.finish();
    let f = &loaded.files[0];
    let times: Vec<String> = f.records.iter().map(|r| r.time.unwrap().to_string()).collect();
    assert_eq!(times, ["2024-08-29T06:41:02.000562Z", "2024-08-29T06:41:02.00693Z", "2024-08-29T06:41:02Z"]);
    assert!(loaded.notes.iter().any(|n| n.message.contains("read 5h30m ahead of the lines' own times")), "{:?}", loaded.notes);
}
