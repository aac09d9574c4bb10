//! The analysis gathers the records on several threads (`analyze` in the
//! CLI), each taking a stretch of them, and joins the stretches; and the
//! parser keeps the fields the analysis reads (`keep_first_fields`). Neither
//! may change what the analysis says: every corpus file, the incident and
//! generated logs, cut into 1 to 6 stretches anywhere (a reconcile's lines
//! in several, a message first seen in a later one), give the same
//! reconciles, lines, outcomes, deletion steps and picked records, and the
//! same `analyze --json` document.

use std::path::Path;

#[path = "support/files.rs"]
mod files;
#[path = "support/gen.rs"]
mod gen;

use reconscope::analyze::{self, reconciles, AnalyzeOptions};
use reconscope::model::ParsedFile;
use reconscope::parse::ParseOptions;
use reconscope::pipeline::{LoadOptions, Loaded};

/// The inputs read as the CLI reads them, the parser keeping the
/// analysis' fields or not.
fn load(inputs: &[(String, Vec<u8>)], keep_first_fields: bool) -> Vec<ParsedFile> {
    let opts = LoadOptions { parse: ParseOptions { keep_first_fields, ..ParseOptions::default() }, ..LoadOptions::default() };
    let mut loaded = Loaded::default();
    for (name, bytes) in inputs {
        loaded.add(name, bytes.clone(), &opts);
    }
    loaded.finish();
    loaded.files
}

fn on(threads: usize) -> AnalyzeOptions {
    AnalyzeOptions { threads, min_records_per_thread: 1, ..AnalyzeOptions::default() }
}

fn json(files: &[ParsedFile], opts: &AnalyzeOptions) -> String {
    let (a, _) = analyze::analyze(files, opts);
    let mut out = Vec::new();
    analyze::json::write_json(&mut out, &[], &a, analyze::json::Extras::default()).unwrap();
    String::from_utf8(out).unwrap()
}

/// Gathered on 2 to 6 threads, the same as on one; the analysis' document
/// the same too, and with the fields kept where the parser keeps them.
fn check(what: &str, inputs: &[(String, Vec<u8>)]) {
    let files = load(inputs, false);
    let one = reconciles::build(&files, &AnalyzeOptions::default());
    for threads in 2..=6 {
        let many = reconciles::build(&files, &on(threads));
        assert_eq!(one.reconciles, many.reconciles, "{what}: the reconciles on {threads} threads");
        assert_eq!(one.controllers, many.controllers, "{what}: the controllers on {threads} threads");
        assert_eq!(one.record_refs, many.record_refs, "{what}: the reconciles' records on {threads} threads");
        assert_eq!(one.deletions, many.deletions, "{what}: the deletion steps on {threads} threads");
        assert_eq!(one.etcd_records, many.etcd_records, "{what}: the etcd records on {threads} threads");
        assert_eq!(one.signal_records, many.signal_records, "{what}: the signals' records on {threads} threads");
    }
    let doc = json(&files, &AnalyzeOptions::default());
    assert_eq!(doc, json(&files, &on(4)), "{what}: the document on 4 threads");
    let kept = load(inputs, true);
    assert_eq!(doc, json(&kept, &on(3)), "{what}: the document with the analysis' fields kept, on 3 threads");
    // The caller's work beside the join (the CLI's per-file statistics,
    // whose first and last times come from one pass now) comes back as
    // it would have alone, and changes nothing in the analysis.
    let spans: Vec<_> = files.iter().map(|f| f.first_time().zip(f.last_time())).collect();
    for threads in [1, 3] {
        let (a, _, beside) = analyze::analyze_beside(&files, &on(threads), || files.iter().map(ParsedFile::time_span).collect::<Vec<_>>());
        assert_eq!(beside, spans, "{what}: each file's first and last time, beside the analysis on {threads} threads");
        let mut out = Vec::new();
        analyze::json::write_json(&mut out, &[], &a, analyze::json::Extras::default()).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), doc, "{what}: the document with work beside it on {threads} threads");
    }
}

#[test]
fn every_corpus_file_alone_and_all_together() {
    let (root, paths) = files::corpus_inputs();
    assert!(paths.len() >= 50, "corpus went missing");
    let with_reconciles = paths
        .iter()
        .filter(|p| {
            let inputs = files::read(&root, std::slice::from_ref(p));
            check(&inputs[0].0, &inputs);
            !reconciles::build(&load(&inputs, false), &AnalyzeOptions::default()).reconciles.is_empty()
        })
        .count();
    // (The stretches cut reconciles only in files that have some.)
    assert!(with_reconciles >= 10, "{with_reconciles} corpus files with reconciles");
    check("the whole corpus", &files::read(&root, &paths));
}

#[test]
fn the_incident() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/incident");
    let inputs = files::read(&root, &files::files_under(&root));
    check("the incident", &inputs);
    // The same log twice (a pod's log beside the artifact's copy of it):
    // each reconcile's lines in two files, so in two stretches.
    let twice: Vec<_> = inputs.iter().cloned().chain(inputs.iter().map(|(n, b)| (format!("copy/{n}"), b.clone()))).collect();
    check("the incident twice", &twice);
}

/// Hand-made lines whose reconciles a cut splits, where the merge has
/// work: an error or a requeue only in a later stretch, the error a
/// reconcile returned in a later stretch than its first error line, a deletion's steps
/// in two, ids that are not UUIDs, and a message whose first line names
/// another object than the reconcile's first line (the word is normalised
/// with the reconcile's object).
#[test]
fn reconciles_split_across_stretches() {
    let line = |s: u32, level: &str, msg: &str, id: &str, name: &str, extra: &str| {
        format!(
            "2026-05-26T16:{:02}:{:02}Z\t{level}\t{msg}\t{{\"controller\": \"tenantcontrolplane\", \"namespace\": \"ns\", \"name\": \"{name}\", \"reconcileID\": \"{id}\"{extra}}}\n",
            s / 60,
            s % 60
        )
    };
    let a = "0a1b2c3d-0000-4000-8000-00000000000a";
    let b = "not-a-uuid-b";
    let mut log = String::new();
    log += &line(0, "INFO", "Reconciling", a, "one", "");
    log += &line(1, "INFO", "Reconciling", b, "two", "");
    log += &line(2, "INFO", "marked for deletion, performing clean-up", a, "one", "");
    log += &line(3, "INFO", "two is ready", b, "three", "");
    log += &line(4, "INFO", "two is ready", a, "one", "");
    log += &line(5, "INFO", "Reconcile done, requeueing after 5s", b, "two", "");
    log += &line(6, "ERROR", "Reconciler error", a, "one", ", \"error\": \"context deadline exceeded\"");
    log += &line(7, "INFO", "resource deletions have been completed", a, "one", "");
    log += &line(8, "ERROR", "Reconciler error", b, "two", ", \"error\": \"later error\"");
    // c logs an error and goes on to return another (kueue #6949), d
    // returns the error it logged (kamaji): the first line and the
    // `Reconciler error` are in different stretches.
    let (c, d) = ("0a1b2c3d-0000-4000-8000-00000000000c", "0a1b2c3d-0000-4000-8000-00000000000d");
    log += &line(9, "ERROR", "Failed to process resources", c, "four", ", \"error\": \"not mapped\"");
    log += &line(10, "ERROR", "unable to create the DataStore user", d, "five", ", \"error\": \"cannot check: deadline\"");
    for k in 11..17 {
        log += &line(k, "INFO", "two is ready", b, "two", "");
    }
    log += &line(17, "ERROR", "Reconciler error", c, "four", ", \"error\": \"queue inactive\"");
    log += &line(18, "ERROR", "Reconciler error", d, "five", ", \"error\": \"cannot check: deadline\"");
    let inputs = vec![("m.log".to_string(), log.into_bytes())];
    check("split reconciles", &inputs);
    let files = load(&inputs, false);
    let built = reconciles::build(&files, &on(6));
    let got: Vec<_> = built.reconciles.iter().map(|r| (r.reconcile_id.as_str(), r.lines, r.outcome, r.error.clone())).collect();
    assert_eq!(
        got,
        [
            (a, 5, analyze::Outcome::Error, Some("Reconciler error: context deadline exceeded".to_string())),
            (b, 10, analyze::Outcome::Error, Some("Reconciler error: later error".to_string())),
            (c, 2, analyze::Outcome::Error, Some("Reconciler error: queue inactive".to_string())),
            (d, 2, analyze::Outcome::Error, Some("unable to create the DataStore user: cannot check: deadline".to_string())),
        ]
    );
    let steps: Vec<_> = built.deletions.iter().map(|d| (d.0, d.2)).collect();
    assert_eq!(steps, [(0, reconciles::Deletion::Requested), (0, reconciles::Deletion::Completed)]);
}

#[test]
fn generated_logs() {
    // Three controllers' logs of a few MB, several workers each.
    let inputs: Vec<_> = (1..=3).map(|seed| (format!("kamaji-{seed}.log"), gen::kamaji_log(2 << 20, seed))).collect();
    check("generated logs", &inputs);
}
