//! The synthetic kamaji log of `tests/support/gen.rs` (used by the
//! `pipeline` bench) is deterministic, has the asked size, and parses
//! completely: no unparsed record, every ERROR with its stack.

#[path = "support/gen.rs"]
mod gen;

use std::collections::HashSet;

use reconscope::model::{Format, Level};
use reconscope::parse::{parse_file, ParseOptions};

const TARGET: usize = 2 << 20;

#[test]
fn deterministic_for_a_seed() {
    let a = gen::kamaji_log(256 << 10, 7);
    let b = gen::kamaji_log(256 << 10, 7);
    let c = gen::kamaji_log(256 << 10, 8);
    assert!(a == b, "same seed, different output");
    assert!(a != c, "different seeds, same output");
    // A smaller target is a prefix-sized cut of the same stream.
    let small = gen::kamaji_log(64 << 10, 7);
    assert!(a.starts_with(&small));
}

#[test]
fn size_is_target_plus_less_than_a_line() {
    for target in [1_000usize, 100_000, TARGET] {
        let log = gen::kamaji_log(target, 1);
        assert!(log.len() >= target, "{} < {target}", log.len());
        assert_eq!(log.last(), Some(&b'\n'));
        // The last line is the one that crossed the target.
        let body = &log[..log.len() - 1];
        let last_nl = body.iter().rposition(|&b| b == b'\n').map_or(0, |k| k + 1);
        assert!(last_nl < target, "more than one line past the target: line starts at {last_nl}, target {target}");
    }
}

#[test]
fn parses_completely() {
    let log = gen::kamaji_log(TARGET, 42);
    let len = log.len();
    let text = std::str::from_utf8(&log).expect("utf-8");
    let lines = text.lines().count();
    // Realistic line lengths: reconcile lines are ~250-400 bytes.
    let reconcile: Vec<usize> = text.lines().filter(|l| l.contains("\"reconcileID\"")).map(str::len).collect();
    let avg = reconcile.iter().sum::<usize>() / reconcile.len();
    assert!((250..=400).contains(&avg), "average reconcile line length {avg}");

    let pf = parse_file("kamaji.log", log, &ParseOptions::default());
    assert_eq!(pf.bytes.len(), len);
    assert_eq!(pf.counts.lines as usize, lines);
    assert_eq!(pf.counts.unparsed(), 0, "unparsed records: {:?}", first_unparsed(&pf));
    assert!(pf.counts.format(Format::ZapConsole) > 0);
    assert!(pf.counts.format(Format::ZapJson) > 0, "no etcd client JSON lines");
    assert_eq!(pf.counts.blank_lines, 0);

    let mut errors = 0;
    let last = pf.records.len() - 1;
    for (i, r) in pf.records.iter().enumerate() {
        if r.level == Level::Error && i != last {
            errors += 1;
            assert!(r.line_count > 1, "ERROR at line {} has no stack: {}", r.line, String::from_utf8_lossy(&pf.raw(r)));
        }
    }
    assert!(errors > 50, "only {errors} ERROR records");
    assert!(pf.counts.continuation_lines > 500);

    // etcd JSON lines are about 2% of the lines.
    let json = pf.counts.format(Format::ZapJson) as f64 / pf.counts.lines as f64;
    assert!((0.005..0.05).contains(&json), "etcd JSON share {json}");

    let ids: HashSet<String> = pf.records.iter().filter_map(|r| pf.field(r, "reconcileID")).map(|c| c.into_owned()).collect();
    eprintln!(
        "lines {} records {} cont {} json {} errors {errors} ids {}",
        pf.counts.lines,
        pf.counts.records(),
        pf.counts.continuation_lines,
        pf.counts.format(Format::ZapJson),
        ids.len()
    );
    assert!(ids.len() > 1_000, "only {} distinct reconcileIDs", ids.len());
    for id in ids.iter().take(100) {
        assert_eq!(id.len(), 36);
        assert_eq!(id.as_bytes()[14], b'4', "not a v4 UUID: {id}");
    }

    // Cluster-scoped DataStore reconciles are there too.
    let ds = pf.records.iter().filter(|r| pf.field(r, "controller").as_deref() == Some("datastore") && pf.field(r, "reconcileID").is_some()).count();
    assert!(ds >= 1, "no DataStore reconcile");
    let ds_ns = pf
        .records
        .iter()
        .find(|r| pf.field(r, "controller").as_deref() == Some("datastore") && pf.field(r, "reconcileID").is_some())
        .and_then(|r| pf.field(r, "namespace"));
    assert_eq!(ds_ns.as_deref(), Some(""));

    // Start-up: two `Starting workers` for tenantcontrolplane.
    let workers =
        pf.records.iter().filter(|r| pf.message(r) == "Starting workers" && pf.field(r, "controller").as_deref() == Some("tenantcontrolplane")).count();
    assert_eq!(workers, 2);
    // Named `setup` logger lines.
    assert!(pf.records.iter().any(|r| pf.logger(r) == "setup"));
}

fn first_unparsed(pf: &reconscope::model::ParsedFile) -> Vec<String> {
    pf.records.iter().filter(|r| r.format == Format::Unparsed).take(5).map(|r| format!("line {}: {}", r.line, String::from_utf8_lossy(&pf.raw(r)))).collect()
}
