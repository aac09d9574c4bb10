//! Property tests: the line parser never panics, whatever the bytes, and
//! never loses a line.

use proptest::prelude::*;
use reconscope::parse::{parse_file, ParseOptions};

/// Fragments real lines are made of, so random input reaches deep into each
/// format's parser instead of failing on the first byte.
const PIECES: &[&str] = &[
    "2025-09-06T23:50:07Z",
    "2026-05-25T16:29:29.123456789Z ",
    "1.6573084001213665e+09",
    "\t",
    " ",
    "INFO",
    "ERROR",
    "{\"",
    "\":",
    "\"",
    "}",
    "{\"log\":\"",
    "\\n\",\"time\":\"",
    " stdout F ",
    "[pod/x/c] ",
    "I0910 09:06:15.416743",
    "       1 x.go:12] ",
    "Apr 29 11:15:36 host etcd[1]: ",
    "panic: ",
    "goroutine 1 [running]:",
    "\n",
    "\r\n",
    "\u{feff}",
    "\\u00",
    "time=\"",
    " level=",
    "INFO[",
    "]",
    "    | 10:44:26 |",
    "manager ",
    "\u{ff}",
    "2021-09-11 14:46:23.606939 I | raft: ",
    "github.com/x/y.(*T).M(",
    "\t/workspace/a.go:12 +0x1",
    "4/11/2017 12:17:46 AM",
    "[info 220331 03:30:29 a.go:1] ",
    // Copies from terminals: frames, prompts, pager rows, rows of one width.
    "│",
    " │",
    "┌───",
    "──┘",
    "$ kubectl logs ",
    "[root@n ~]# ",
    "(END)",
    "~",
    "\n0123456789abcdefghij0123456789abcdefghij",
];

fn assemble(idx: Vec<(usize, u8)>) -> Vec<u8> {
    let mut out = Vec::new();
    for (i, b) in idx {
        if i < PIECES.len() {
            out.extend_from_slice(PIECES[i].as_bytes());
        } else {
            out.push(b);
        }
    }
    out
}

fn check_invariants(bytes: Vec<u8>) {
    let lines = bytes.split(|&b| b == b'\n').count() as u64 - u64::from(bytes.last() == Some(&b'\n') || bytes.is_empty());
    let pf = parse_file("fuzz.log", bytes, &ParseOptions { max_line_bytes: 64, ..ParseOptions::default() });
    let c = &pf.counts;
    // Every line is a record, a continuation or blank.
    let record_lines: u64 = pf.records.iter().map(|r| r.line_count as u64).sum();
    assert_eq!(c.lines, lines);
    assert!(record_lines + c.blank_lines >= c.lines, "{c:?}");
    for r in &pf.records {
        let _ = pf.message(r);
        let _ = pf.raw(r);
        for f in pf.fields(r).iter() {
            let _ = pf.value(f);
            let _ = pf.key(f);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        check_invariants(bytes);
    }

    #[test]
    fn format_fragments_never_panic(idx in proptest::collection::vec((0..PIECES.len() + 8, any::<u8>()), 0..40)) {
        check_invariants(assemble(idx));
    }
}
