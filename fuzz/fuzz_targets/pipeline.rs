//! The whole analysis and every writer, on one or several named files (see
//! `reconscope_fuzz::files`): read as the CLI reads them, analysed, then
//! written as JSON (streamed and as a value: the same document), Markdown
//! (within its size limit, redacted), the timeline laid out both ways and
//! drawn as SVG (well-formed XML; not redacted here: the redaction's regexes
//! run on the whole picture, which took nine tenths of each run), the codec's
//! forms the worker sends (each decodes to what was encoded), the analysis
//! as the JSON the worker posts (it reads back the same), and an evidence
//! slice of the first finding (its payload reads back). The records
//! gathered in stretches on three threads, as the CLI gathers them, give the
//! same reconciles as on one.
#![no_main]

use libfuzzer_sys::fuzz_target;
use reconscope::analyze::{self, json::Extras, reconciles, Analysis, AnalyzeOptions};
use reconscope::layout::{self, Grouping, LayoutOptions};
use reconscope::redact::{RedactOptions, Redactor};
use reconscope::report::{self, ReportOptions};
use reconscope::stats::FileStats;
use reconscope::{codec, evidence, render};
use reconscope_fuzz::{files, load};

fuzz_target!(|data: &[u8]| {
    let named = files(data, "kamaji-controller.log");
    let loaded = load(&named);
    let (a, _diags) = analyze::analyze(&loaded.files, &AnalyzeOptions::default());

    // Gathered in three stretches, each on a thread: the same.
    let one = reconciles::build(&loaded.files, &AnalyzeOptions::default());
    let three = reconciles::build(&loaded.files, &AnalyzeOptions { threads: 3, min_records_per_thread: 1, ..AnalyzeOptions::default() });
    assert!(one.reconciles == three.reconciles && one.controllers == three.controllers, "reconciles gathered on three threads differ");
    assert!(one.record_refs == three.record_refs && one.deletions == three.deletions, "lines gathered on three threads differ");
    assert!(one.etcd_records == three.etcd_records && one.signal_records == three.signal_records, "records picked on three threads differ");

    // JSON: streamed and as a value, the same document.
    let inputs: Vec<FileStats> = loaded.files.iter().map(FileStats::of).collect();
    let mut out = Vec::new();
    analyze::json::write_json(&mut out, &inputs, &a, Extras::default()).expect("JSON written");
    let streamed: serde_json::Value = serde_json::from_slice(&out).expect("JSON reads back");
    assert!(streamed == analyze::json::to_json(&inputs, &a), "write_json and to_json differ");

    // Markdown, as the CLI writes it.
    let md = report::markdown(&a, &ReportOptions { app_url: Some("https://example.test/app/".into()), ..ReportOptions::default() });
    assert!(md.len() <= report::MAX_BYTES, "Markdown of {} bytes", md.len());
    let _ = Redactor::new(RedactOptions::default()).redact_markdown(&md);

    // Layout both ways, SVG, codec.
    for grouping in [Grouping::ByObject, Grouping::ByLane] {
        let tl = layout::layout(&a, &LayoutOptions { grouping, ..LayoutOptions::default() });
        let svg = render::svg(&a, &tl, &render::View { title: Some("fuzz.zip".into()), ..render::View::default() });
        if let Err(e) = roxmltree::Document::parse(&svg) {
            panic!("SVG is not well-formed: {e}");
        }
        let back = codec::decode_timeline(&codec::encode_timeline(tl.clone())).expect("timeline decodes");
        assert!(back == tl, "timeline round trip");
    }
    let back = codec::decode_reconciles(&codec::encode_reconciles(&a.reconciles)).expect("reconciles decode");
    assert!(back == a.reconciles, "reconciles round trip");
    let back: Vec<analyze::Finding> = codec::decode_json_chunks(&codec::encode_json_chunks(&a.findings, 3)).expect("findings decode");
    assert!(back == a.findings, "findings round trip");
    let back: Vec<analyze::ClientWarning> = codec::decode_json_chunks(&codec::encode_json_chunks(&a.client_warnings, 2)).expect("warnings decode");
    assert!(back == a.client_warnings, "client warnings round trip");

    // The analysis as JSON (what the worker posts beside the codec parts).
    let text = serde_json::to_string(&a).expect("analysis serializes");
    let again: Analysis = serde_json::from_str(&text).expect("analysis reads back");
    assert!(serde_json::to_value(&again).ok() == serde_json::to_value(&a).ok(), "analysis JSON round trip");

    // Evidence of the first finding, as a `.reconscope` file (no budget).
    if !a.findings.is_empty() {
        let opts = evidence::ShareOptions { finding: Some(0), artifact: "fuzz.zip".into(), ..evidence::ShareOptions::default() };
        if let Ok(shared) = evidence::share(&a, &loaded.files, &opts) {
            if let Err(e) = evidence::from_payload(&shared.payload) {
                panic!("evidence does not read back: {e}");
            }
        }
    }
});
