//! `saturated-workers`: a 4-worker controller whose dependency hangs for
//! ten minutes, holding all 4 workers while the objects it reconciled every
//! 20 seconds wait. Generated in zap console lines as controller-runtime
//! writes them; expectations worked out from the schedule below.

use reconscope::analyze::{analyze, Analysis, AnalyzeOptions, Detail, FindingKind};
use reconscope::pipeline::{LoadOptions, Loaded};

fn line(secs: u32, level: &str, msg: &str, obj: &str, rid: &str, error: Option<&str>) -> (u32, String) {
    let ts = format!("2026-05-26T10:{:02}:{:02}Z", secs / 60, secs % 60);
    let err = error.map_or(String::new(), |e| format!(", \"error\": \"{e}\""));
    (
        secs,
        format!(
            "{ts}\t{level}\t{msg}\t{{\"controller\": \"widget\", \"controllerGroup\": \"example.io\", \"controllerKind\": \"Widget\", \"Widget\": {{\"name\":\"{obj}\",\"namespace\":\"ns\"}}, \"namespace\": \"ns\", \"name\": \"{obj}\", \"reconcileID\": \"{rid}\"{err}}}\n"
        ),
    )
}

/// The `Starting workers` line of `widget`, 4 workers, at 10:00:00.
fn starting_4_workers() -> (u32, String) {
    (0, "2026-05-26T10:00:00Z\tINFO\tStarting workers\t{\"controller\": \"widget\", \"controllerGroup\": \"example.io\", \"controllerKind\": \"Widget\", \"worker count\": 4}\n".to_string())
}

/// reconcileIDs `<prefix>-0000-4000-8000-000000000001`, `…02`, … in turn.
fn ids(prefix: &str) -> impl FnMut() -> String + '_ {
    let mut n = 0;
    move || {
        n += 1;
        format!("{prefix}-0000-4000-8000-{n:012}")
    }
}

/// Objects w0..w7 reconciled every 20s from 10:00:00 (w_k at +2k s, one
/// second each) until the round of 10:04:40; db0..db3 start at 10:05:00,
/// :01, :02, :03 and hang on their datastore until 10:15:00..:03 (their
/// deadline); then w0..w7 at 10:15:00 + k s.
fn log() -> String {
    let mut lines = vec![starting_4_workers()];
    let mut id = ids("44444444");
    for round in 0..15u32 {
        for k in 0..8u32 {
            let (t, rid, o) = (20 * round + 2 * k, id(), format!("w{k}"));
            lines.push(line(t, "INFO", "Reconciling", &o, &rid, None));
            lines.push(line(t + 1, "INFO", "Reconcile successful", &o, &rid, None));
        }
    }
    for k in 0..4u32 {
        let (rid, o) = (id(), format!("db{k}"));
        lines.push(line(300 + k, "INFO", "Reconciling", &o, &rid, None));
        lines.push(line(300 + k, "INFO", "connecting to the datastore", &o, &rid, None));
        lines.push(line(900 + k, "ERROR", "Reconciler error", &o, &rid, Some("unable to check the datastore: context deadline exceeded")));
    }
    for k in 0..8u32 {
        let (rid, o) = (id(), format!("w{k}"));
        lines.push(line(900 + k, "INFO", "Reconciling", &o, &rid, None));
        lines.push(line(901 + k, "INFO", "Reconcile successful", &o, &rid, None));
    }
    lines.sort_by_key(|(t, _)| *t);
    lines.into_iter().map(|(_, l)| l).collect()
}

fn run() -> Analysis {
    let mut l = Loaded::default();
    l.add("widget-manager.log", log().into_bytes(), &LoadOptions::default());
    l.finish();
    analyze(&l.files, &AnalyzeOptions::default()).0
}

#[test]
fn four_workers_held_by_a_hanging_dependency() {
    let a = run();
    assert_eq!(a.controllers.len(), 1);
    assert_eq!(a.controllers[0].workers, 4);
    let sat: Vec<_> = a.findings.iter().filter(|f| f.kind == FindingKind::SaturatedWorkers).collect();
    assert_eq!(sat.len(), 1, "{:#?}", a.findings);
    let f = sat[0];
    // From the fourth holder's start to the first holder's end.
    assert_eq!((f.start.to_string().as_str(), f.end.to_string().as_str()), ("2026-05-26T10:05:03Z", "2026-05-26T10:15:00Z"));
    // w_k was last started at 10:04:40 + 2k, every 20s: due at 10:05:00 + 2k
    // (10:05:03 at the earliest, when all 4 were held), started 10:15:00 + k.
    let db = |k: u32| format!("44444444-0000-4000-8000-{:012}", 121 + k);
    assert_eq!(
        f.message,
        format!(
            "All 4 workers of widget were held by the same reconciles for 9m57s (10:05:03 → 10:15:00; its reconciles usually take 1s): \
             {} of ns/db0 (from 10:05:00), {} of ns/db1 (from 10:05:01), {} of ns/db2 (from 10:05:02), {} of ns/db3 (from 10:05:03); \
             8 objects waited and were reconciled right after (ns/w0 ~9m57s, ns/w1 ~9m58s, ns/w2 ~9m58s, ns/w3 ~9m57s, ns/w4 ~9m56s and 3 more), \
             the longest an estimated 9m58s.",
            db(0),
            db(1),
            db(2),
            db(3)
        )
    );
    let Some(Detail::Saturation(d)) = f.detail.as_deref() else { panic!() };
    assert_eq!(d.workers, 4);
    assert_eq!(d.held, [db(0), db(1), db(2), db(3)]);
    let waits: Vec<(&str, i64)> = d.waited.iter().map(|w| (w.object.as_str(), w.estimated_wait_nanos / 1_000_000_000)).collect();
    assert_eq!(waits, [("ns/w0", 597), ("ns/w1", 598), ("ns/w2", 598), ("ns/w3", 597), ("ns/w4", 596), ("ns/w5", 595), ("ns/w6", 594), ("ns/w7", 593)]);
    // Each holder ran ten minutes and then hit its deadline: slow, not an
    // expired context; the lane stalls are this finding's, not their own.
    let kinds = |k: FindingKind| a.findings.iter().filter(|f| f.kind == k).count();
    assert_eq!(kinds(FindingKind::ExpiredContext), 0, "{:#?}", a.findings);
    assert_eq!(kinds(FindingKind::SlowReconcile), 4, "{:#?}", a.findings);
    assert_eq!(kinds(FindingKind::StalledWorker), 0, "{:#?}", a.findings);
    assert_eq!(a.findings.len(), 5, "{:#?}", a.findings);
    // The saturation explains the four slow reconciles (its holders, which
    // started before it): it is read first.
    let order: Vec<(&str, Option<&str>)> = a.findings.iter().map(|f| (f.kind.as_str(), f.object.as_ref().map(|o| o.name.as_str()))).collect();
    assert_eq!(
        order,
        [
            ("saturated-workers", None),
            ("slow-reconcile", Some("db0")),
            ("slow-reconcile", Some("db1")),
            ("slow-reconcile", Some("db2")),
            ("slow-reconcile", Some("db3"))
        ]
    );
}

#[test]
fn the_json_gives_the_saturation() {
    let mut l = Loaded::default();
    l.add("widget-manager.log", log().into_bytes(), &LoadOptions::default());
    l.finish();
    let a = analyze(&l.files, &AnalyzeOptions::default()).0;
    let inputs: Vec<_> = l.files.iter().map(reconscope::stats::FileStats::of).collect();
    let doc = reconscope::analyze::json::to_json(&inputs, &a);
    let f = doc["findings"].as_array().unwrap().iter().find(|f| f["kind"] == "saturated-workers").unwrap();
    assert_eq!(f["saturation"]["workers"], 4);
    assert_eq!(f["saturation"]["normal_nanos"], 1_000_000_000i64);
    assert_eq!(f["saturation"]["held"].as_array().unwrap().len(), 4);
    assert_eq!(
        f["saturation"]["waited"][1],
        serde_json::json!({"object": "ns/w1", "reconcile_id": "44444444-0000-4000-8000-000000000126", "estimated_wait_nanos": 598_000_000_000i64})
    );
}

#[test]
fn a_busy_but_flowing_controller_is_not_saturated() {
    // The same schedule without the hang: never all 4 held for long.
    let text: String = log().lines().filter(|l| !l.contains("\"db")).map(|l| format!("{l}\n")).collect();
    let mut l = Loaded::default();
    l.add("widget-manager.log", text.into_bytes(), &LoadOptions::default());
    l.finish();
    let a = analyze(&l.files, &AnalyzeOptions::default()).0;
    assert!(a.findings.iter().all(|f| f.kind != FindingKind::SaturatedWorkers), "{:#?}", a.findings);
}

#[test]
fn the_markdown_has_a_table_of_saturated_workers() {
    let md = reconscope::report::markdown(&run(), &reconscope::report::ReportOptions::default());
    assert!(md.contains("**saturated-workers · widget · 9m57s, 10:05:03–10:15:00**"), "{md}");
    assert!(md.contains("| widget | 4 | 9m57s | 10:05:03–10:15:00 | 8 | 9m58s |"), "{md}");
}

/// The lane: the controller's group row shows its reconciles in flight
/// against its 4 workers, all 4 busy from the fourth holder's start
/// (10:05:03) to 10:15:01 (the first holder ends at 10:15:00 as w0 begins;
/// at 10:15:01 db1 and w0 end, and w1 begins: 3), and the SVG draws it
/// there (red where all are busy), as well-formed XML.
#[test]
fn the_timeline_shows_all_four_workers_busy_in_the_controller_s_row() {
    use reconscope::layout::{layout, LayoutOptions};
    let a = run();
    let tl = layout(&a, &LayoutOptions::default());
    assert_eq!(tl.rows[0].label, "widget · 4 workers · at most 4 at once");
    assert_eq!(tl.in_flight.len(), 1);
    let lane = &tl.in_flight[0];
    assert_eq!((lane.row, lane.workers), (0, 4));
    let at = |h: u32, m: u32, s: u32| reconscope::time::parse_rfc3339(format!("2026-05-26T{h:02}:{m:02}:{s:02}Z").as_bytes(), false, 0).unwrap().ts.nanos;
    // Buckets of the 16m49s run: the four held from 10:05:03 to 10:15:00
    // cover every bucket between whole; before 10:05:00 at most 1 ran at
    // once (a second each, 2 s apart).
    let full: Vec<(i64, i64)> = lane.steps().filter(|s| s.2 >= 4).map(|s| (s.0, s.1)).collect();
    assert_eq!(full.len(), 1, "{full:?}");
    let (s, e) = full[0];
    assert!(s <= at(10, 5, 3) && at(10, 5, 3) - s <= lane.bucket_nanos, "{s}");
    assert!(e >= at(10, 15, 1) && e - at(10, 15, 1) <= lane.bucket_nanos, "{e}");
    assert!(lane.steps().filter(|st| st.1 <= at(10, 5, 0)).all(|st| st.2 <= 1));
    let svg = reconscope::render::svg(&a, &tl, &reconscope::render::View::default());
    let doc = roxmltree::Document::parse(&svg).expect("well-formed");
    let busy: Vec<roxmltree::Node> = doc.descendants().filter(|n| n.attribute("data-in-flight") == Some("4")).collect();
    assert_eq!(busy.len(), 1);
    assert_eq!(busy[0].attribute("fill"), Some(reconscope::render::LIGHT.error));
}

/// The holders' first lines came late (a message their controller's
/// reconciles log second): each began no earlier than its worker was last
/// free, so how long all four were held is a bound, and the sentence says
/// both. Objects w0..w3 are reconciled at once every 20 s from 10:00:00
/// (one second each, their lanes all free from 10:04:41), db0..db3 are
/// first seen at 10:05:00..:03 and fail at 10:15:00..:03, then w0..w3 run
/// at 10:15:00 + k s.
#[test]
fn holders_first_seen_late_are_held_at_most_from_their_worker_s_last_end() {
    let mut lines = vec![starting_4_workers()];
    let mut id = ids("55555555");
    for round in 0..15u32 {
        for k in 0..4u32 {
            let (t, rid, o) = (20 * round, id(), format!("w{k}"));
            lines.push(line(t, "INFO", "Reconciling", &o, &rid, None));
            lines.push(line(t, "INFO", "connecting to the datastore", &o, &rid, None));
            lines.push(line(t + 1, "INFO", "Reconcile successful", &o, &rid, None));
        }
    }
    let mut db = Vec::new();
    for k in 0..4u32 {
        let (rid, o) = (id(), format!("db{k}"));
        lines.push(line(300 + k, "INFO", "connecting to the datastore", &o, &rid, None));
        lines.push(line(900 + k, "ERROR", "Reconciler error", &o, &rid, Some("unable to check the datastore: context deadline exceeded")));
        db.push(rid);
    }
    for k in 0..4u32 {
        let (rid, o) = (id(), format!("w{k}"));
        lines.push(line(900 + k, "INFO", "Reconciling", &o, &rid, None));
        lines.push(line(901 + k, "INFO", "Reconcile successful", &o, &rid, None));
    }
    lines.sort_by_key(|(t, _)| *t);
    let mut l = Loaded::default();
    l.add("widget-manager.log", lines.into_iter().map(|(_, l)| l).collect::<String>().into_bytes(), &LoadOptions::default());
    l.finish();
    let a = analyze(&l.files, &AnalyzeOptions::default()).0;
    for rid in &db {
        let r = a.reconciles.iter().find(|r| &r.reconcile_id == rid).unwrap();
        assert_eq!((r.latent_start.map(|t| t.to_string()), r.start_is_bound()), (Some("2026-05-26T10:04:41Z".to_string()), true), "{r:?}");
    }
    let sat: Vec<_> = a.findings.iter().filter(|f| f.kind == FindingKind::SaturatedWorkers).collect();
    assert_eq!(sat.len(), 1, "{:#?}", a.findings);
    // 10:04:41 to 10:15:00, both written to the second: at most
    // 10m19.999s, said rounded up. w_k, last begun at 10:04:40, was due at
    // 10:05:00 and began at 10:15:00 + k.
    assert_eq!(
        sat[0].message,
        format!(
            "All 4 workers of widget were held by the same reconciles for at most 10m20s (10:04:41 → 10:15:00; its reconciles usually take 1s): \
             {} of ns/db0 (begun no earlier than 10:04:41), {} of ns/db1 (begun no earlier than 10:04:41), \
             {} of ns/db2 (begun no earlier than 10:04:41), {} of ns/db3 (begun no earlier than 10:04:41); \
             4 objects waited and were reconciled right after (ns/w0 ~10m00s, ns/w1 ~10m01s, ns/w2 ~10m02s, ns/w3 ~10m03s), \
             the longest an estimated 10m03s.",
            db[0], db[1], db[2], db[3]
        )
    );
    // The same bound in the finding's duration (the app's list, the
    // chart's and the SVG's labels), the Markdown's heading and table, and
    // the JSON; the first test's holders, seen from their start, give none.
    assert_eq!(sat[0].duration_text().as_deref(), Some("at most 10m20s"));
    let Some(Detail::Saturation(d)) = sat[0].detail.as_deref() else { panic!() };
    assert!(d.start_is_bound);
    let md = reconscope::report::markdown(&a, &reconscope::report::ReportOptions::default());
    assert!(md.contains("**saturated-workers · widget · at most 10m20s, 10:04:41–10:15:00**"), "{md}");
    assert!(md.contains("| widget | 4 | at most 10m20s | 10:04:41–10:15:00 | 4 | 10m03s |"), "{md}");
    let doc = reconscope::analyze::json::to_json(&[], &a);
    let f = doc["findings"].as_array().unwrap().iter().find(|f| f["kind"] == "saturated-workers").unwrap();
    assert_eq!(f["saturation"]["start_is_bound"], true);
    let tl = reconscope::layout::layout(&a, &reconscope::layout::LayoutOptions::default());
    let h = tl.highlights.iter().find(|h| h.kind == FindingKind::SaturatedWorkers).unwrap();
    assert_eq!(reconscope::render::highlight_label(&a, h), "saturated-workers at most 10m20s");
    // A finding from a link made before `start_is_bound` was kept reads
    // as one held from a known start.
    let mut v = serde_json::to_value(sat[0]).unwrap();
    assert!(v["detail"].as_object_mut().unwrap().remove("start_is_bound").is_some(), "{v}");
    let old: reconscope::analyze::Finding = serde_json::from_value(v).unwrap();
    assert_eq!(old.duration_text().as_deref(), Some("10m19s"));
    let first = run();
    let f = first.findings.iter().find(|f| f.kind == FindingKind::SaturatedWorkers).unwrap();
    assert_eq!(f.duration_text().as_deref(), Some("9m57s"));
    assert!(matches!(f.detail.as_deref(), Some(Detail::Saturation(d)) if !d.start_is_bound));
}
