//! Issue 13, item 1: every duration, gap and instant stated respects the
//! precision of the timestamps it came from.

use std::path::Path;

use reconscope::analyze::findings::after_start;
use reconscope::analyze::{analyze, Analysis, AnalyzeOptions, FindingKind};
use reconscope::model::{ParsedFile, Timestamp};
use reconscope::parse::{parse_file, resolve_years, ParseOptions};
use reconscope::time::{honest_duration, Gap};

#[path = "support/files.rs"]
mod files;

/// `16:55:13` plus `frac` nanoseconds, written with `digits` digits.
fn ts(frac: i64, digits: u8) -> Timestamp {
    Timestamp::new(1_779_814_513_000_000_000 + frac, digits)
}

/// What a pair of timestamps gives: the duration, the sentence, the bounds
/// (`None` when exact).
fn check(input: (Timestamp, Timestamp), expect: (&str, &str, Option<(i64, i64)>)) {
    let (start, end) = input;
    let g = Gap::between(start, end);
    let bounds = (!g.is_exact()).then_some((g.at_least, g.at_most));
    let got = (honest_duration(start, end), after_start(start, end), bounds);
    assert_eq!((got.0.as_str(), got.1.as_str(), got.2), expect, "{start} → {end}");
}

#[test]
fn precision_table() {
    const S: i64 = 1_000_000_000;
    let same_s = "within the same second it started (its start is logged to the second)";
    // s/s: same tick, one tick apart, far apart.
    check((ts(0, 0), ts(0, 0)), ("under 1s", same_s, Some((0, S - 1))));
    check((ts(0, 0), ts(S, 0)), ("1s", "1s after it started", Some((1, 2 * S - 1))));
    check((ts(0, 0), ts(95 * S, 0)), ("1m35s", "1m35s after it started", Some((94 * S + 1, 96 * S - 1))));
    // s/µs: the incident's 71µs is under a second.
    check((ts(0, 0), ts(71_000, 6)), ("under 1s", same_s, Some((0, S + 71_000 - 1))));
    check((ts(0, 0), ts(2_731_000_000, 6)), ("3s", "3s after it started", Some((1_731_000_001, 3_730_999_999))));
    // µs/s: the coarse one is the later line.
    check((ts(400_000_000, 6), ts(0, 0)), ("under 1s", "within the same second it started (that line is logged to the second)", Some((0, S - 1))));
    // ms/µs.
    check(
        (ts(5_000_000, 3), ts(5_071_000, 6)),
        ("under 1ms", "within the same millisecond it started (its start is logged to the millisecond)", Some((0, 1_070_999))),
    );
    check((ts(5_000_000, 3), ts(7_400_000, 6)), ("2ms", "2ms after it started", Some((1_400_001, 3_399_999))));
    // µs/µs.
    check((ts(10, 6), ts(10, 6)), ("under 1µs", "within the same microsecond it started (its start is logged to the microsecond)", Some((0, 999))));
    check((ts(1_000, 6), ts(72_000, 6)), ("71µs", "71µs after it started", Some((70_001, 71_999))));
    // ns/ns: exact.
    check((ts(0, 9), ts(71_400, 9)), ("71µs", "71µs after it started", None));
    check((ts(5, 9), ts(5, 9)), ("0ns", "0ns after it started", None));
}

fn incident() -> (Vec<ParsedFile>, Analysis) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/incident");
    let mut files: Vec<ParsedFile> = files::files_under(&root.join("cozyreport"))
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e != "py"))
        .map(|p| {
            let rel = p.strip_prefix(&root).unwrap().to_string_lossy().into_owned();
            parse_file(rel, std::fs::read(&p).unwrap(), &ParseOptions::default())
        })
        .collect();
    resolve_years(&mut files);
    let (a, _) = analyze(&files, &AnalyzeOptions::default());
    (files, a)
}

#[test]
fn incident_expired_contexts_say_within_the_same_second() {
    let (files, a) = incident();
    let expired: Vec<_> = a.findings.iter().filter(|f| f.kind == FindingKind::ExpiredContext).collect();
    assert_eq!(expired.len(), 2);
    for f in &expired {
        assert!(!f.message.contains("71µs") && !f.message.contains("74µs"), "{}", f.message);
        assert!(
            f.message.contains("logged DeadlineExceeded on attempt 0 within the same second it started (its start is logged to the second)"),
            "{}",
            f.message
        );
        assert!(f.is_instant() && f.duration_text().is_none(), "{f:?}");
    }
    let json = reconscope::analyze::json::to_json(&[], &a);
    let fs = json["findings"].as_array().unwrap();
    for f in fs.iter().filter(|f| f["kind"] == "expired-context") {
        assert_eq!(f["gap_nanos_at_least"], 0, "{f}");
        let hi = f["gap_nanos_at_most"].as_i64().unwrap();
        assert!((999_999_999..1_001_000_000).contains(&hi), "{f}");
    }
    for f in fs.iter().filter(|f| f["kind"] != "expired-context") {
        assert!(f["gap_nanos"].is_null() && f["gap_nanos_at_most"].is_null(), "{f}");
    }
    // A one-line reconcile: no duration, in the text and the JSON.
    let (i, one) = a.reconciles.iter().enumerate().find(|(_, r)| r.is_one_line()).expect("a one-line reconcile");
    assert_eq!(one.duration_text(), "one line");
    let r = &json["reconciles"][i];
    assert!(r["duration_nanos"].is_null() && r["duration_nanos_at_most"].is_null(), "{r}");
    // Second-precision reconciles have bounds a tick either side.
    let many = a.reconciles.iter().position(|r| !r.is_one_line() && r.first.digits == 0 && r.last.digits == 0).unwrap();
    let r = &json["reconciles"][many];
    let d = r["duration_nanos"].as_i64().unwrap();
    assert_eq!(r["duration_nanos_at_most"].as_i64().unwrap(), d + 999_999_999, "{r}");
    assert!(!a.reconciles[many].duration_text().contains('.'));
    let _ = files;
}

#[test]
fn quoted_errors_are_cut_at_a_word_with_an_ellipsis() {
    use reconscope::analyze::findings::cut_quote;
    let check = |input: &str, max: usize, expect: &str| assert_eq!(cut_quote(input, max), expect, "{input:?}");
    check("short", 120, "short");
    check("failed: context deadline exceeded", 28, "failed: context deadline…");
    check("abcdefghij", 5, "abcd…");
    check("a b", 3, "a b");
}

/// An epoch float of 7 fractional digits is a float64 printed in its
/// shortest form: near 1.7e9 seconds a float64 steps by 238 ns, so each
/// time is known to about ±238 ns, not to the 100 ns its last digit says.
/// The bounds of a duration between two such lines hold both lines' steps.
#[test]
fn epoch_floats_are_as_precise_as_a_float64_holds() {
    let text = br#"{"level":"info","ts":1737643238.5336082,"msg":"Reconciling","controller":"c","reconcileID":"r1"}
{"level":"info","ts":1737643238.8811067,"msg":"Reconcile successful","controller":"c","reconcileID":"r1"}
"#;
    let f = parse_file("zap.json", text.to_vec(), &ParseOptions::default());
    let t: Vec<Timestamp> = f.records.iter().map(|r| r.time.expect("a time")).collect();
    assert_eq!(t.len(), 2);
    let g = Gap::between(t[0], t[1]);
    // 0.8811067 − 0.5336082 as written.
    let written = 347_498_500;
    assert_eq!(t[1].nanos - t[0].nanos, written);
    // A float64 there steps by 2^-22 s; the printed digits are within half
    // a step of it, and it within half a step of the instant.
    let step = 238;
    assert!(g.at_least <= written - 2 * step && g.at_most >= written + 2 * step, "{} ..= {}", g.at_least, g.at_most);
    assert_eq!(honest_duration(t[0], t[1]), "347ms");
}
