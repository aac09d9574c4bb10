//! The incident reconscope exists for (tests/fixtures/README.md): the
//! analysis must find exactly the stall, the two expired contexts and the
//! stuck deletion, and nothing for the object that was deleted cleanly.

use std::path::Path;

use reconscope::analyze::{analyze, Analysis, AnalyzeOptions, FindingKind, Outcome};
use reconscope::model::ParsedFile;

#[path = "support/files.rs"]
mod files;

fn incident() -> (Vec<ParsedFile>, Analysis) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/incident");
    let files = files::parsed_under(&root.join("cozyreport"), &root, |p| p.extension().is_some_and(|e| e != "py"));
    let (a, diags) = analyze(&files, &AnalyzeOptions::default());
    // The one file of the artifact that is no log: a `kubectl get tcp`
    // table of 8 lines.
    let notes: Vec<String> = diags.iter().map(|d| d.to_string()).collect();
    assert_eq!(
        notes,
        ["cozyreport/kamaji/tenantcontrolplanes.txt:1: no line of it is in a format reconscope reads (8 lines, the first: `NAMESPACE        NAME                             VERSION   ...`): the analysis does not use it"]
    );
    (files, a)
}

fn hms(t: reconscope::model::Timestamp) -> String {
    t.to_string()[11..19].to_string()
}

#[test]
fn finds_the_stall_the_expired_contexts_and_the_stuck_deletion() {
    let (_, a) = incident();
    let of = |k: FindingKind| a.findings.iter().filter(move |f| f.kind == k).collect::<Vec<_>>();

    let stalls = of(FindingKind::StalledWorker);
    assert_eq!(stalls.len(), 1, "{:#?}", a.findings);
    let s = stalls[0];
    assert_eq!((hms(s.start), hms(s.end)), ("16:29:29".into(), "16:50:06".into()));
    let held = &a.reconciles[s.reconciles[0]];
    assert_eq!(hms(held.last), "16:50:06");
    assert_eq!(held.outcome, Outcome::Error);
    assert!(held.error.as_deref().unwrap().contains("unable to create the DataStore user"));
    assert_eq!(held.object.as_ref().unwrap().to_string(), "tenant-test/kubernetes-test-latest-version");
    assert_eq!(held.latent_start.map(hms).as_deref(), Some("16:29:29"), "the held reconcile began when the lane was last free");
    assert!(s.message.contains(&held.reconcile_id), "{}", s.message);
    assert!(!s.elections.is_empty(), "the stall overlaps the elections");
    for &e in &s.elections {
        let e = &a.elections[e];
        assert!(e.cluster.contains("tenant-root"));
        assert!(hms(e.start).as_str() >= "16:31:39" && e.end.map(hms).unwrap().as_str() <= "16:33:04");
    }

    let overlap = of(FindingKind::ElectionOverlap);
    assert_eq!(overlap.len(), 1, "{overlap:#?}");
    assert_eq!((overlap[0].start, overlap[0].end), (s.start, s.end));
    assert_eq!(overlap[0].elections, s.elections);

    let expired = of(FindingKind::ExpiredContext);
    let times: Vec<String> = expired.iter().map(|f| hms(f.start)).collect();
    assert_eq!(times, ["16:55:13", "17:01:56"]);
    for f in &expired {
        assert!(
            f.message.contains("attempt 0")
                && f.message.contains("within the same second it started (its start is logged to the second)")
                // The logs do not say the operator's timeout: the one assumed.
                && f.message.contains("far inside a 30s reconcile timeout (assumed, `--reconcile-timeout`)"),
            "{}",
            f.message
        );
    }

    let stuck = of(FindingKind::StuckDeletion);
    assert_eq!(stuck.len(), 1, "{stuck:#?}");
    assert_eq!(stuck[0].object.as_ref().unwrap().to_string(), "tenant-test/kubernetes-test-latest-version");
    assert!(stuck[0].message.contains("finalizer.kamaji.clastix.io"));
    assert!(stuck[0].message.contains("generation 5 but observedGeneration 3"));
    // The stalled reconcile may have been running when the deletion came
    // at 16:36:59: its lines all read 16:50:06, and its worker was last
    // free at 16:29:29, so it began then at the earliest; it is not one of
    // the deletion's. After the request: the soot manager's at 16:36:59,
    // and the two that failed at 16:55:13 and 17:01:56.
    assert!(
        stuck[0].message.ends_with(
            "; 3 deletion reconciles ran after the request, 2 failed; the reconcile that may have been running when it came \
             (begun no earlier than 16:29:29, its first line at 16:50:06) failed at 16:50:06."
        ),
        "{}",
        stuck[0].message
    );
    assert_eq!(stuck[0].reconciles.len(), 4, "the one running is evidence too");
}

#[test]
fn previous_version_was_deleted_cleanly() {
    let (_, a) = incident();
    let prev = a.objects.iter().find(|o| o.object.name == "kubernetes-test-previous-version").expect("lifecycle");
    let (req, done) = (prev.marked_for_deletion.unwrap(), prev.deleted.unwrap());
    assert!(done.nanos - req.nanos < 1_000_000_000, "deleted in under a second");
    assert_eq!(hms(req), "16:27:19");
    assert!(!a.findings.iter().any(|f| f.object.as_ref().is_some_and(|o| o.name == "kubernetes-test-previous-version")));
}

#[test]
fn tenantcontrolplane_splits_into_the_reconciler_and_the_soot_manager() {
    let (_, a) = incident();
    let tcp: Vec<_> = a.controllers.iter().filter(|c| c.controller == "tenantcontrolplane").collect();
    assert_eq!(tcp.len(), 2, "{:#?}", a.controllers);
    assert!(tcp.iter().any(|c| c.name.contains("soot manager")));
    let main = tcp.iter().find(|c| !c.name.contains("soot")).unwrap();
    assert_eq!(main.workers, 1, "one worker inferred without a Starting workers line");
}

#[test]
fn json_document_follows_the_v1_schema() {
    let (files, a) = incident();
    let inputs: Vec<_> = files.iter().map(reconscope::stats::FileStats::of).collect();
    let doc = reconscope::analyze::json::to_json(&inputs, &a);
    assert_eq!(doc["schema"], "reconscope.analysis/v1");
    for key in ["inputs", "controllers", "reconciles", "elections", "objects", "findings"] {
        assert!(doc[key].as_array().is_some_and(|v| !v.is_empty()), "{key}");
    }
    let f = doc["findings"].as_array().unwrap().iter().find(|f| f["kind"] == "stalled-worker").unwrap();
    assert_eq!(f["start"], "2026-05-26T16:29:29Z");
    assert_eq!(f["controller"], "tenantcontrolplane");
    let r = &doc["reconciles"][0];
    for key in ["reconcile_id", "controller", "object", "first", "last", "latent_start", "lines", "outcome", "error", "truncated"] {
        assert!(r.get(key).is_some(), "reconciles[].{key}");
    }
}
