//! The timeline layout: rows, bars, bands, markers and highlights from
//! hand-built analyses (rendered as text and compared), `visible_bars`
//! against a brute-force filter, and the incident fixture.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;

#[path = "support/files.rs"]
mod files;
use std::sync::Arc;

use reconscope::analyze::{
    analyze, Analysis, AnalyzeOptions, ControllerInstance, Election, Finding, FindingKind, ObjectLifecycle, ObjectRef, Outcome, Reconcile, Severity,
};
use reconscope::layout::{layout, Grouping, LayoutOptions, MarkerKind, Timeline};
use reconscope::model::Timestamp;
use reconscope::pipeline::{LoadOptions, Loaded};

const S: i64 = 1_000_000_000;

fn t(secs: i64) -> Timestamp {
    Timestamp::new(secs * S, 0)
}

fn obj(s: &str) -> ObjectRef {
    match s.split_once('/') {
        Some((ns, name)) => ObjectRef { namespace: Some(ns.into()), name: name.into() },
        None => ObjectRef { namespace: None, name: s.into() },
    }
}

fn ctrl(id: &str, workers: u32) -> ControllerInstance {
    ControllerInstance { id: id.into(), name: id.into(), controller: id.into(), group: None, kind: None, workers, workers_source: "log".into(), reconciles: 0 }
}

/// A reconcile of controller `c` on `object` ("" for none), from `first`
/// to `last` seconds, on `lane`. Every call makes a new `Arc`, so grouping
/// by value is exercised too.
fn rec(c: usize, object: &str, first: i64, last: i64, lane: u32) -> Reconcile {
    Reconcile {
        reconcile_id: format!("r{first}-{last}"),
        controller: c,
        object: (!object.is_empty()).then(|| Arc::new(obj(object))),
        kind: None,
        first: t(first),
        last: t(last),
        latent_start: None,
        stated_start: false,
        lines: 2,
        outcome: Outcome::Success,
        said_done: false,
        error_value_at: None,
        error: None,
        truncated: false,
        lane,
        records: 0..0,
    }
}

fn analysis(controllers: Vec<ControllerInstance>, reconciles: Vec<Reconcile>) -> Analysis {
    Analysis {
        controllers,
        reconciles,
        record_refs: vec![],
        elections: vec![],
        client_warnings: vec![],
        objects: vec![],
        findings: vec![],
        dumps: vec![],
        goroutines: vec![],
        year_unknown: false,
        year_from_mtime: false,
        zone_assumed: None,
        in_flight: vec![],
        coverage: Default::default(),
        leadership: vec![],
    }
}

fn finding(kind: FindingKind, controller: Option<usize>, object: Option<&str>, start: i64, end: i64, reconciles: Vec<usize>) -> Finding {
    Finding {
        blocked: None,
        silence: None,
        detail: None,
        kind,
        severity: Severity::Warning,
        controller,
        object: object.map(obj),
        start: t(start),
        end: t(end),
        reconciles,
        elections: vec![],
        message: String::new(),
        pieces: vec![],
    }
}

/// Seconds when whole, else seconds with a fraction.
fn secs(n: i64) -> String {
    if n % S == 0 {
        (n / S).to_string()
    } else {
        format!("{}", n as f64 / S as f64)
    }
}

/// The timeline as compact text, after checking its invariants.
fn render(tl: &Timeline) -> String {
    assert_eq!(tl.max_end_prefix.len(), tl.bars.len());
    let mut out = format!("span {}..{}\n", secs(tl.start_nanos), secs(tl.end_nanos));
    let mut next = 0u32;
    for (i, row) in tl.rows.iter().enumerate() {
        assert_eq!(row.bar_start, next, "rows' bars are contiguous and in row order");
        next = row.bar_end;
        let indent = "  ".repeat(row.depth as usize);
        let collapsed = if row.collapsed { " (collapsed)" } else { "" };
        write!(out, "{i}: {indent}{} \"{}\"{collapsed}", row.key, row.label).unwrap();
        let bars = &tl.bars[row.bar_start as usize..row.bar_end as usize];
        let mut max_end = i64::MIN;
        for (k, b) in bars.iter().enumerate() {
            assert_eq!(b.row as usize, i);
            if k > 0 {
                assert!(bars[k - 1].start_nanos <= b.start_nanos, "sorted by start");
            }
            max_end = max_end.max(b.end_nanos);
            assert_eq!(tl.max_end_prefix[row.bar_start as usize + k], max_end);
            let o = match b.outcome {
                Outcome::Success => "ok",
                Outcome::Requeue => "requeue",
                Outcome::Error => "error",
                Outcome::Unfinished => "unfinished",
            };
            if b.tick {
                assert_eq!(b.start_nanos, b.first_nanos);
                write!(out, " r{}|{} {o}", b.reconcile, secs(b.first_nanos)).unwrap();
            } else if b.start_nanos != b.first_nanos {
                write!(out, " r{}[{}~{}-{} {o}]", b.reconcile, secs(b.start_nanos), secs(b.first_nanos), secs(b.end_nanos)).unwrap();
            } else {
                write!(out, " r{}[{}-{} {o}]", b.reconcile, secs(b.start_nanos), secs(b.end_nanos)).unwrap();
            }
        }
        out.push('\n');
    }
    assert_eq!(next as usize, tl.bars.len());
    for b in &tl.bands {
        let dark = b.leaderless_start_nanos.map(|l| format!(" leaderless from {}", secs(l))).unwrap_or_default();
        writeln!(out, "band e{} {}..{}{dark} \"{}\"", b.election, secs(b.start_nanos), secs(b.end_nanos), b.label).unwrap();
    }
    for m in &tl.markers {
        writeln!(out, "marker row {} @{} {:?} \"{}\"", m.row, secs(m.at_nanos), m.kind, m.label).unwrap();
    }
    for h in &tl.highlights {
        writeln!(out, "highlight f{} {} {}..{} rows {:?}", h.finding, h.kind.as_str(), secs(h.start_nanos), secs(h.end_nanos), h.rows).unwrap();
    }
    out
}

#[track_caller]
fn check(a: &Analysis, opts: &LayoutOptions, expect: &str) {
    let tl = layout(a, opts);
    let got = render(&tl);
    // Deterministic: the same input lays out the same way.
    assert_eq!(layout(a, opts), tl);
    let expect = expect.trim_start_matches('\n');
    assert_eq!(got, expect, "\n--- got ---\n{got}--- expected ---\n{expect}");
}

fn by(grouping: Grouping) -> LayoutOptions {
    LayoutOptions { grouping, ..Default::default() }
}

/// Two controllers; objects reconciled out of name order; one reconcile
/// without an object; equal objects in distinct `Arc`s.
fn two_controllers() -> Analysis {
    analysis(
        vec![ctrl("tcp", 2), ctrl("soot", 1)],
        vec![
            rec(0, "ns/b", 10, 12, 0),    // r0
            rec(0, "ns/a", 11, 13, 1),    // r1
            rec(0, "", 14, 15, 0),        // r2
            rec(0, "ns/b", 20, 25, 1),    // r3
            rec(1, "ns/a", 5, 6, 0),      // r4
            rec(0, "ns/c", 10, 11, 1),    // r5: same first time as ns/b: by name
            rec(0, "ns/a", 9, 9, 0),      // r6: ns/a's first reconcile comes earliest
            rec(0, "cluster", 30, 31, 0), // r7: cluster-scoped
        ],
    )
}

#[test]
fn by_object_orders_objects_by_first_reconcile_then_name() {
    check(
        &two_controllers(),
        &by(Grouping::ByObject),
        r#"
span 5..31
0: c:tcp "tcp · 2 workers"
1:   c:tcp/o:ns/a "ns/a" r6[9-9 ok] r1[11-13 ok]
2:   c:tcp/o:ns/b "ns/b" r0[10-12 ok] r3[20-25 ok]
3:   c:tcp/o:ns/c "ns/c" r5[10-11 ok]
4:   c:tcp/o:cluster "cluster" r7[30-31 ok]
5:   c:tcp/o:- "unknown object" r2[14-15 ok]
6: c:soot "soot · 1 worker"
7:   c:soot/o:ns/a "ns/a" r4[5-6 ok]
"#,
    );
}

#[test]
fn by_lane_has_one_row_per_worker() {
    let mut a = two_controllers();
    a.controllers[1].workers = 3; // lanes without reconciles still get rows
    check(
        &a,
        &by(Grouping::ByLane),
        r#"
span 5..31
0: c:tcp "tcp · 2 workers"
1:   c:tcp/l:0 "worker 1" r6[9-9 ok] r0[10-12 ok] r2[14-15 ok] r7[30-31 ok]
2:   c:tcp/l:1 "worker 2" r5[10-11 ok] r1[11-13 ok] r3[20-25 ok]
3: c:soot "soot · 3 workers"
4:   c:soot/l:0 "worker 1" r4[5-6 ok]
5:   c:soot/l:1 "worker 2"
6:   c:soot/l:2 "worker 3"
"#,
    );
}

#[test]
fn a_lane_beyond_the_worker_count_still_gets_a_row() {
    let a = analysis(vec![ctrl("x", 1)], vec![rec(0, "o", 1, 2, 0), rec(0, "o", 1, 3, 1)]);
    check(
        &a,
        &by(Grouping::ByLane),
        r#"
span 1..3
0: c:x "x · 1 worker"
1:   c:x/l:0 "worker 1" r0[1-2 ok]
2:   c:x/l:1 "worker 2" r1[1-3 ok]
"#,
    );
}

#[test]
fn a_collapsed_group_carries_its_controllers_bars() {
    let opts = LayoutOptions { collapsed: BTreeSet::from(["c:tcp".to_string()]), ..Default::default() };
    check(
        &two_controllers(),
        &opts,
        r#"
span 5..31
0: c:tcp "tcp · 2 workers" (collapsed) r6[9-9 ok] r0[10-12 ok] r5[10-11 ok] r1[11-13 ok] r2[14-15 ok] r3[20-25 ok] r7[30-31 ok]
1: c:soot "soot · 1 worker"
2:   c:soot/o:ns/a "ns/a" r4[5-6 ok]
"#,
    );
    let opts = LayoutOptions { grouping: Grouping::ByLane, ..opts };
    check(
        &two_controllers(),
        &opts,
        r#"
span 5..31
0: c:tcp "tcp · 2 workers" (collapsed) r6[9-9 ok] r0[10-12 ok] r5[10-11 ok] r1[11-13 ok] r2[14-15 ok] r3[20-25 ok] r7[30-31 ok]
1: c:soot "soot · 1 worker"
2:   c:soot/l:0 "worker 1" r4[5-6 ok]
"#,
    );
}

#[test]
fn only_keeps_the_selected_reconciles_and_their_rows() {
    // r1 and r3: ns/a and ns/b of tcp; soot has none selected and disappears;
    // out-of-range indexes are ignored.
    let opts = LayoutOptions { only: Some(BTreeSet::from([3, 1, 99])), ..Default::default() };
    check(
        &two_controllers(),
        &opts,
        r#"
span 11..25
0: c:tcp "tcp · 2 workers"
1:   c:tcp/o:ns/a "ns/a" r1[11-13 ok]
2:   c:tcp/o:ns/b "ns/b" r3[20-25 ok]
"#,
    );
    let opts = LayoutOptions { grouping: Grouping::ByLane, ..opts };
    check(
        &two_controllers(),
        &opts,
        r#"
span 11..25
0: c:tcp "tcp · 2 workers"
1:   c:tcp/l:0 "worker 1"
2:   c:tcp/l:1 "worker 2" r1[11-13 ok] r3[20-25 ok]
"#,
    );
    let opts = LayoutOptions { only: Some(BTreeSet::new()), ..Default::default() };
    check(&two_controllers(), &opts, "span 0..0\n");
}

#[test]
fn latent_starts_are_hatched_and_single_lines_are_ticks() {
    let mut a = analysis(vec![ctrl("x", 1)], vec![rec(0, "o", 10, 10, 0), rec(0, "o", 20, 20, 0), rec(0, "o", 30, 34, 0), rec(0, "o", 40, 40, 0)]);
    a.reconciles[0].lines = 1; // a tick
    a.reconciles[1].lines = 1;
    a.reconciles[1].latent_start = Some(t(12)); // one line, but came late: a bar
    a.reconciles[1].outcome = Outcome::Error;
    a.reconciles[2].latent_start = Some(t(25));
    a.reconciles[2].outcome = Outcome::Requeue;
    a.reconciles[3].lines = 3; // zero length but three lines: not a tick
    check(
        &a,
        &by(Grouping::ByObject),
        r#"
span 10..40
0: c:x "x · 1 worker"
1:   c:x/o:o "o" r0|10 ok r1[12~20-20 error] r2[25~30-34 requeue] r3[40-40 ok]
"#,
    );
}

#[test]
fn elections_are_bands_and_an_open_one_runs_to_the_end() {
    let mut a = analysis(vec![ctrl("x", 1)], vec![rec(0, "o", 10, 100, 0)]);
    a.elections = vec![
        Election {
            cluster: "etcd tenant-root".into(),
            term: Some(8),
            start: t(20),
            end: Some(t(30)),
            leader: Some("91bc3c398fb3c146".into()),
            previous_leader: Some("8e9e05c52164694d".into()),
            leaderless_nanos: Some(4 * S),
            transfers: 0,
        },
        Election {
            cluster: "etcd tenant-root".into(),
            term: None,
            start: t(90),
            end: None,
            leader: None,
            previous_leader: Some("91bc3c398fb3c146".into()),
            leaderless_nanos: None,
            transfers: 1,
        },
        // Before every bar: widens the span.
        Election {
            cluster: "etcd other".into(),
            term: Some(2),
            start: t(1),
            end: Some(t(3)),
            leader: Some("bb".into()),
            previous_leader: None,
            leaderless_nanos: Some(60 * S), // longer than the band: clamped to its start
            transfers: 0,
        },
    ];
    check(
        &a,
        &LayoutOptions::default(),
        r#"
span 1..100
0: c:x "x · 1 worker"
1:   c:x/o:o "o" r0[10-100 ok]
band e0 20..30 leaderless from 26 "etcd tenant-root: term 8, leader 91bc3c398fb3c146 (was 8e9e05c52164694d)"
band e1 90..100 "etcd tenant-root: no leader yet, 1 leadership transfer (was 91bc3c398fb3c146)"
band e2 1..3 leaderless from 1 "etcd other: term 2, leader bb"
"#,
    );
    // An open election after the last bar: the timeline ends where it starts.
    a.reconciles[0].last = t(50);
    let tl = layout(&a, &LayoutOptions::default());
    assert_eq!((tl.end_nanos, tl.bands[1].start_nanos, tl.bands[1].end_nanos), (90 * S, 90 * S, 90 * S));
}

fn lifecycles() -> Analysis {
    let mut a = two_controllers();
    a.objects = vec![
        ObjectLifecycle { object: obj("ns/a"), updates: vec![t(7), t(12)], marked_for_deletion: Some(t(21)), deleted: Some(t(26)), ..Default::default() },
        ObjectLifecycle {
            object: obj("ns/b"),
            deletion_requested: Some(t(18)),
            marked_for_deletion: Some(t(19)), // the dump's deletionTimestamp wins
            finalizers: vec!["finalizer.kamaji.clastix.io".into(), "other".into()],
            in_dump: true,
            ..Default::default()
        },
        // Finalizers but not in a dump (from logs only): no FinalizerAtEnd.
        ObjectLifecycle { object: obj("ns/c"), finalizers: vec!["f".into()], ..Default::default() },
        // No reconciles: no row, no markers (and it does not widen the span).
        ObjectLifecycle { object: obj("ns/ghost"), deleted: Some(t(500)), ..Default::default() },
    ];
    a
}

#[test]
fn lifecycle_markers_go_on_object_rows() {
    check(
        &lifecycles(),
        &LayoutOptions::default(),
        r#"
span 5..31
0: c:tcp "tcp · 2 workers"
1:   c:tcp/o:ns/a "ns/a" r6[9-9 ok] r1[11-13 ok]
2:   c:tcp/o:ns/b "ns/b" r0[10-12 ok] r3[20-25 ok]
3:   c:tcp/o:ns/c "ns/c" r5[10-11 ok]
4:   c:tcp/o:cluster "cluster" r7[30-31 ok]
5:   c:tcp/o:- "unknown object" r2[14-15 ok]
6: c:soot "soot · 1 worker"
7:   c:soot/o:ns/a "ns/a" r4[5-6 ok]
marker row 1 @7 SpecUpdate "ns/a: spec updated"
marker row 1 @12 SpecUpdate "ns/a: spec updated"
marker row 1 @21 DeletionRequested "ns/a: deletion requested"
marker row 1 @26 Deleted "ns/a: deleted"
marker row 2 @18 DeletionRequested "ns/b: deletion requested"
marker row 2 @31 FinalizerAtEnd "ns/b: finalizers at the end: finalizer.kamaji.clastix.io, other"
marker row 7 @7 SpecUpdate "ns/a: spec updated"
marker row 7 @12 SpecUpdate "ns/a: spec updated"
marker row 7 @21 DeletionRequested "ns/a: deletion requested"
marker row 7 @26 Deleted "ns/a: deleted"
"#,
    );
}

#[test]
fn lifecycle_markers_go_on_group_rows_by_lane_or_when_collapsed() {
    let mut a = lifecycles();
    a.objects[0].deleted = Some(t(40)); // after every bar: widens the span, moves FinalizerAtEnd
    let opts = LayoutOptions { grouping: Grouping::ByLane, collapsed: BTreeSet::from(["c:soot".to_string()]), ..Default::default() };
    check(
        &a,
        &opts,
        r#"
span 5..40
0: c:tcp "tcp · 2 workers"
1:   c:tcp/l:0 "worker 1" r6[9-9 ok] r0[10-12 ok] r2[14-15 ok] r7[30-31 ok]
2:   c:tcp/l:1 "worker 2" r5[10-11 ok] r1[11-13 ok] r3[20-25 ok]
3: c:soot "soot · 1 worker" (collapsed) r4[5-6 ok]
marker row 0 @7 SpecUpdate "ns/a: spec updated"
marker row 0 @12 SpecUpdate "ns/a: spec updated"
marker row 0 @18 DeletionRequested "ns/b: deletion requested"
marker row 0 @21 DeletionRequested "ns/a: deletion requested"
marker row 0 @40 Deleted "ns/a: deleted"
marker row 0 @40 FinalizerAtEnd "ns/b: finalizers at the end: finalizer.kamaji.clastix.io, other"
marker row 3 @7 SpecUpdate "ns/a: spec updated"
marker row 3 @12 SpecUpdate "ns/a: spec updated"
marker row 3 @21 DeletionRequested "ns/a: deletion requested"
marker row 3 @40 Deleted "ns/a: deleted"
"#,
    );
}

fn with_findings() -> Analysis {
    let mut a = two_controllers();
    a.findings = vec![
        // Controller and object: the object's row and the group row.
        finding(FindingKind::StalledWorker, Some(0), Some("ns/b"), 12, 20, vec![0, 3]),
        // Reconciles on two objects, no object.
        finding(FindingKind::ErrorBurst, Some(0), None, 9, 15, vec![6, 2]),
        // An object without a controller: every controller's row of it.
        finding(FindingKind::StuckDeletion, None, Some("ns/a"), 11, 31, vec![]),
        // Nothing in particular: the whole chart.
        finding(FindingKind::ElectionOverlap, None, None, 1, 2, vec![]),
        // Controller only.
        finding(FindingKind::HotLoop, Some(1), None, 5, 6, vec![]),
    ];
    a
}

#[test]
fn highlights_cover_the_rows_a_finding_concerns() {
    check(
        &with_findings(),
        &LayoutOptions::default(),
        r#"
span 5..31
0: c:tcp "tcp · 2 workers"
1:   c:tcp/o:ns/a "ns/a" r6[9-9 ok] r1[11-13 ok]
2:   c:tcp/o:ns/b "ns/b" r0[10-12 ok] r3[20-25 ok]
3:   c:tcp/o:- "unknown object" r2[14-15 ok]
4:   c:tcp/o:ns/c "ns/c" r5[10-11 ok]
5:   c:tcp/o:cluster "cluster" r7[30-31 ok]
6: c:soot "soot · 1 worker"
7:   c:soot/o:ns/a "ns/a" r4[5-6 ok]
highlight f0 stalled-worker 12..20 rows [0, 2]
highlight f1 error-burst 9..15 rows [0, 1, 3]
highlight f2 stuck-deletion 11..31 rows [0, 1, 6, 7]
highlight f3 election-overlap 1..2 rows []
highlight f4 hot-loop 5..6 rows [6]
"#,
    );
}

/// The rows as `controller[row row …]`, unknown objects as `-`.
fn row_order(tl: &Timeline) -> String {
    let mut out = String::new();
    for r in &tl.rows {
        match r.depth {
            0 => {
                if !out.is_empty() {
                    out.push_str("] ");
                }
                write!(out, "{}[", r.label.split(" · ").next().unwrap()).unwrap();
            }
            _ => {
                if !out.ends_with('[') {
                    out.push(' ');
                }
                out.push_str(if r.label == "unknown object" { "-" } else { &r.label });
            }
        }
    }
    out.push(']');
    out
}

/// Controllers a finding names come first, and in each the objects (or
/// lanes) a finding names; otherwise the order stays.
#[test]
fn rows_a_finding_names_come_first() {
    use FindingKind::*;
    let mut base = two_controllers();
    base.controllers.push(ctrl("late", 1));
    base.reconciles.push(rec(2, "ns/z", 1, 2, 0)); // r8
    let cases: &[(&str, Vec<Finding>, Grouping, &str)] = &[
        ("none", vec![], Grouping::ByObject, "tcp[ns/a ns/b ns/c cluster -] soot[ns/a] late[ns/z]"),
        ("a controller only", vec![finding(HotLoop, Some(1), None, 5, 6, vec![])], Grouping::ByObject, "soot[ns/a] tcp[ns/a ns/b ns/c cluster -] late[ns/z]"),
        (
            "controller and object",
            vec![finding(StalledWorker, Some(0), Some("ns/c"), 10, 11, vec![5])],
            Grouping::ByObject,
            "tcp[ns/c ns/a ns/b cluster -] soot[ns/a] late[ns/z]",
        ),
        (
            "by its reconciles only",
            vec![finding(SlowReconcile, None, None, 1, 2, vec![8])],
            Grouping::ByObject,
            "late[ns/z] tcp[ns/a ns/b ns/c cluster -] soot[ns/a]",
        ),
        (
            "an object, no controller",
            vec![finding(StuckDeletion, None, Some("ns/z"), 1, 2, vec![])],
            Grouping::ByObject,
            "late[ns/z] tcp[ns/a ns/b ns/c cluster -] soot[ns/a]",
        ),
        (
            "an object, and another controller",
            vec![finding(StuckDeletion, None, Some("cluster"), 1, 2, vec![]), finding(HotLoop, Some(2), None, 1, 2, vec![])],
            Grouping::ByObject,
            "tcp[cluster ns/a ns/b ns/c -] late[ns/z] soot[ns/a]",
        ),
        (
            "the unknown object",
            vec![finding(ErrorBurst, Some(0), None, 14, 15, vec![2])],
            Grouping::ByObject,
            "tcp[- ns/a ns/b ns/c cluster] soot[ns/a] late[ns/z]",
        ),
        (
            "the whole chart",
            vec![finding(ElectionOverlap, None, None, 1, 2, vec![])],
            Grouping::ByObject,
            "tcp[ns/a ns/b ns/c cluster -] soot[ns/a] late[ns/z]",
        ),
        (
            "its object, not the others its reconciles name",
            vec![finding(StalledWorker, Some(0), Some("ns/c"), 10, 11, vec![5, 0])],
            Grouping::ByObject,
            "tcp[ns/c ns/a ns/b cluster -] soot[ns/a] late[ns/z]",
        ),
        (
            "the lanes of its object's reconciles",
            vec![finding(StalledWorker, Some(0), Some("ns/b"), 20, 25, vec![3, 6])],
            Grouping::ByLane,
            "tcp[worker 2 worker 1] soot[worker 1] late[worker 1]",
        ),
        ("a lane", vec![finding(StalledWorker, Some(0), None, 11, 13, vec![1])], Grouping::ByLane, "tcp[worker 2 worker 1] soot[worker 1] late[worker 1]"),
        (
            "lanes, by lane",
            vec![finding(SlowReconcile, Some(1), None, 5, 6, vec![4])],
            Grouping::ByLane,
            "soot[worker 1] tcp[worker 1 worker 2] late[worker 1]",
        ),
    ];
    let mut wrong = Vec::new();
    for (name, findings, grouping, want) in cases {
        let mut a = base.clone();
        a.findings = findings.clone();
        let tl = layout(&a, &by(*grouping));
        render(&tl); // invariants
        let got = row_order(&tl);
        if got != *want {
            wrong.push(format!("{name}:\n  got  {got}\n  want {want}"));
        }
        // Highlights still find their rows.
        for h in &tl.highlights {
            assert!(h.rows.iter().all(|&r| (r as usize) < tl.rows.len()), "{name}");
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn highlights_by_lane_collapsed_and_filtered() {
    let a = with_findings();
    let opts = LayoutOptions { grouping: Grouping::ByLane, ..Default::default() };
    let tl = layout(&a, &opts);
    let rows: Vec<_> = tl.highlights.iter().map(|h| (h.finding, h.rows.clone())).collect();
    // f0: r0 on lane 0, r3 on lane 1; f1: r6 and r2 on lane 0; f2: group rows of both controllers.
    assert_eq!(rows, [(0, vec![0, 1, 2]), (1, vec![0, 1]), (2, vec![0, 3]), (3, vec![]), (4, vec![3])]);

    let opts = LayoutOptions { collapsed: BTreeSet::from(["c:tcp".to_string()]), ..Default::default() };
    let tl = layout(&a, &opts);
    let rows: Vec<_> = tl.highlights.iter().map(|h| (h.finding, h.rows.clone())).collect();
    assert_eq!(rows, [(0, vec![0]), (1, vec![0]), (2, vec![0, 1, 2]), (3, vec![]), (4, vec![1])]);

    // Only r3 (ns/b): f0 still covers ns/b; f1's reconciles are hidden but
    // its controller is shown; f2's ns/a and f4's soot are hidden: no highlight.
    let opts = LayoutOptions { only: Some(BTreeSet::from([3])), ..Default::default() };
    let tl = layout(&a, &opts);
    let rows: Vec<_> = tl.highlights.iter().map(|h| (h.finding, h.rows.clone())).collect();
    assert_eq!(rows, [(0, vec![0, 1]), (1, vec![0]), (3, vec![])]);
}

/// xorshift64*: deterministic, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Reconciles with random times and lengths (some very long), overlapping.
fn random_analysis(rng: &mut Rng, n: usize, objects: usize) -> Analysis {
    let shared: Vec<Arc<ObjectRef>> = (0..objects).map(|i| Arc::new(obj(&format!("ns/o{i}")))).collect();
    let reconciles = (0..n)
        .map(|_| {
            let c = rng.below(2) as usize;
            let first = rng.below(100_000) as i64 * 1_000_000;
            let len = match rng.below(20) {
                0 => rng.below(20_000) as i64 * 1_000_000,
                1 => 0,
                _ => rng.below(500) as i64 * 1_000_000,
            };
            let mut r = rec(c, "", 0, 0, rng.below(3) as u32);
            r.first = Timestamp::new(first, 3);
            r.last = Timestamp::new(first + len, 3);
            if rng.below(5) == 0 {
                r.latent_start = Some(Timestamp::new(first - rng.below(2_000) as i64 * 1_000_000, 3));
            }
            r.object = (rng.below(10) != 0).then(|| shared[rng.below(objects as u64) as usize].clone());
            r
        })
        .collect();
    analysis(vec![ctrl("a", 3), ctrl("b", 3)], reconciles)
}

#[test]
fn visible_bars_match_a_brute_force_filter() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for round in 0..6 {
        let a = random_analysis(&mut rng, 3000, 7);
        let opts = LayoutOptions {
            grouping: if round % 2 == 0 { Grouping::ByObject } else { Grouping::ByLane },
            collapsed: if round >= 2 { BTreeSet::from(["c:b".to_string()]) } else { BTreeSet::new() },
            ..Default::default()
        };
        let tl = layout(&a, &opts);
        render(&tl); // invariants
        assert_eq!(tl.bars.len(), 3000);
        for row in 0..tl.rows.len() + 1 {
            let all = tl.rows.get(row).map_or(&[][..], |r| &tl.bars[r.bar_start as usize..r.bar_end as usize]);
            for _ in 0..300 {
                let t0 = rng.below(110_000) as i64 * 1_000_000 - 5_000_000_000;
                let t1 = t0 + rng.below(30_000) as i64 * 1_000_000;
                let brute: Vec<_> = all.iter().filter(|b| b.start_nanos <= t1 && b.end_nanos >= t0).collect();
                let exact: Vec<_> = tl.bars_between(row, t0, t1).collect();
                assert_eq!(exact, brute, "row {row} [{t0}, {t1}]");
                let slice = tl.visible_bars(row, t0, t1);
                assert!(slice.iter().all(|b| b.start_nanos <= t1), "nothing that starts after the window");
                if let Some(f) = slice.first() {
                    assert!(f.end_nanos >= t0, "the slice starts at a visible bar");
                    // It ends at the row's last bar that starts by t1.
                    let at = all.iter().position(|b| std::ptr::eq(b, f)).unwrap();
                    assert_eq!(at + slice.len(), all.partition_point(|b| b.start_nanos <= t1));
                } else {
                    assert!(brute.is_empty());
                }
            }
        }
    }
}

#[test]
fn visible_bars_without_the_prefix_still_answer() {
    let mut rng = Rng(7);
    let a = random_analysis(&mut rng, 500, 3);
    let mut tl = layout(&a, &LayoutOptions::default());
    let full: Vec<Vec<_>> = (0..tl.rows.len()).map(|r| tl.bars_between(r, 10_000_000_000, 20_000_000_000).copied().collect()).collect();
    tl.max_end_prefix.clear(); // e.g. a timeline deserialized from elsewhere
    let without: Vec<Vec<_>> = (0..tl.rows.len()).map(|r| tl.bars_between(r, 10_000_000_000, 20_000_000_000).copied().collect()).collect();
    assert_eq!(full, without);
}

/// 200,000 reconciles lay out completely (speed is measured by the
/// `layout` benchmark in benches/pipeline.rs, not here).
#[test]
fn lays_out_200000_reconciles() {
    let mut rng = Rng(42);
    let a = random_analysis(&mut rng, 200_000, 500);
    for grouping in [Grouping::ByObject, Grouping::ByLane] {
        let tl = layout(&a, &by(grouping));
        assert_eq!(tl.bars.len(), 200_000);
        assert_eq!(tl.max_end_prefix.len(), tl.bars.len());
    }
}

// ---------------------------------------------------------------------------
// The incident fixture.
// ---------------------------------------------------------------------------

fn hms(nanos: i64) -> String {
    Timestamp::new(nanos, 0).to_string()[11..19].to_string()
}

#[test]
fn incident_timeline() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/incident");
    let mut l = Loaded::default();
    for p in files::files_under(&root.join("cozyreport")).into_iter().filter(|p| p.extension().is_some_and(|e| e != "py")) {
        let rel = p.strip_prefix(&root).unwrap().to_string_lossy().into_owned();
        l.add(&rel, std::fs::read(&p).unwrap(), &LoadOptions::default());
    }
    l.finish();
    let (a, _) = analyze(&l.files, &AnalyzeOptions::default());
    let tl = layout(&a, &LayoutOptions::default());
    let text = render(&tl); // invariants
    if std::env::var_os("LAYOUT_PRINT").is_some() {
        eprintln!("{text}");
    }

    let (i, row) = tl
        .rows
        .iter()
        .enumerate()
        .find(|(_, r)| {
            r.depth == 1
                && r.label == "tenant-test/kubernetes-test-latest-version"
                && a.controllers[r.controller as usize].controller == "tenantcontrolplane"
                && !a.controllers[r.controller as usize].name.contains("soot")
        })
        .expect("a row for the stuck object under the TCP reconciler");
    assert!(row.key.ends_with("/o:tenant-test/kubernetes-test-latest-version"), "{}", row.key);
    let bars = &tl.bars[row.bar_start as usize..row.bar_end as usize];
    let held = bars
        .iter()
        .find(|b| hms(b.end_nanos) == "16:50:06")
        .unwrap_or_else(|| panic!("the held reconcile: {:?}", bars.iter().map(|b| (hms(b.start_nanos), hms(b.end_nanos))).collect::<Vec<_>>()));
    assert_eq!(hms(held.start_nanos), "16:29:29", "drawn from its latent start");
    assert!(held.first_nanos > held.start_nanos);
    assert_eq!(held.outcome, Outcome::Error);

    let on_row: Vec<_> = tl.markers.iter().filter(|m| m.row as usize == i).collect();
    assert!(on_row.iter().any(|m| m.kind == MarkerKind::DeletionRequested && hms(m.at_nanos) == "16:36:59"), "{on_row:#?}");
    let fin = on_row.iter().find(|m| m.kind == MarkerKind::FinalizerAtEnd).expect("finalizer at the end");
    assert_eq!(fin.at_nanos, tl.end_nanos);
    assert!(fin.label.contains("finalizer.kamaji.clastix.io"), "{}", fin.label);

    assert_eq!(tl.bands.len(), 2, "{:#?}", tl.bands);
    for b in &tl.bands {
        assert!(b.label.starts_with("etcd tenant-root: "), "{}", b.label);
        assert!(tl.start_nanos <= b.start_nanos && b.end_nanos <= tl.end_nanos);
    }

    let stall = tl.highlights.iter().find(|h| h.kind == FindingKind::StalledWorker).expect("stall highlight");
    assert!(stall.rows.contains(&(i as u32)), "{:?}", stall.rows);
    assert!(stall.rows.contains(&(tl.rows.iter().position(|r| r.depth == 0 && r.controller == row.controller).unwrap() as u32)));
    assert_eq!((hms(stall.start_nanos), hms(stall.end_nanos)), ("16:29:29".into(), "16:50:06".into()));
    assert_eq!(tl.highlights.len(), a.findings.len());
    assert!(tl.start_nanos <= held.start_nanos && tl.end_nanos >= held.end_nanos);

    // The stalled worker's controller comes first, its object within the
    // first rows (objects named by findings first), in both groupings.
    let stalled = a.findings.iter().find(|f| f.kind == FindingKind::StalledWorker).unwrap();
    let stalled_ctrl = a.reconciles[stalled.reconciles[0]].controller as u32;
    assert_eq!((tl.rows[0].depth, tl.rows[0].controller), (0, stalled_ctrl), "{}", tl.rows[0].label);
    assert_eq!(row.controller, stalled_ctrl);
    assert_eq!(i, 1, "the stalled object's row");
    let lanes = layout(&a, &by(Grouping::ByLane));
    assert_eq!((lanes.rows[0].depth, lanes.rows[0].controller), (0, stalled_ctrl));
    let lane = a.reconciles[stalled.reconciles[0]].lane;
    let at = lanes.row_index(&format!("{}/l:{lane}", lanes.rows[0].key)).unwrap();
    assert!(at <= 3, "the stalled lane's row is row {at}");
}

/// Labels are text for people: control and bidirectional characters in
/// names from the logs are shown (`\x1b`, `\u{202e}`), never obeyed; row
/// keys keep the names as they are.
#[test]
fn labels_show_control_characters_visibly() {
    let mut a = analysis(vec![ctrl("w\x1b]0;t\x07", 1)], vec![rec(0, "ns\u{202e}/o\0b\tc", 1, 2, 0)]);
    a.controllers[0].id = "w".into();
    check(
        &a,
        &by(Grouping::ByObject),
        "span 1..2\n\
         0: c:w \"w\\x1b]0;t\\x07 · 1 worker\"\n\
         1:   c:w/o:ns\u{202e}/o\0b\tc \"ns\\u{202e}/o\\x00b\tc\" r0[1-2 ok]\n",
    );
}
