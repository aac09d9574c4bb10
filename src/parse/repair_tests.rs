//! Copies made by people: one `check(input, expect)` over raw fixtures.
//! `expect` lists the records (as `parse::tests::render` writes them),
//! then the notes as `note L<line>: <message>`.

use crate::parse::{parse_file, ParseOptions};

fn render(input: &str) -> String {
    let mut out = crate::parse::tests::render(input);
    let pf = parse_file("t.log", input.as_bytes().to_vec(), &ParseOptions::default());
    for d in &pf.diagnostics {
        out.push_str(&format!(
            "note L{}: {}\n",
            d.line.map_or("-".into(), |l| l.to_string()),
            d.message
        ));
    }
    out
}

fn check(input: &str, expect: &str) {
    let got = render(input);
    let want: String = expect
        .lines()
        .map(|l| l.trim_start())
        .filter(|l| !l.is_empty())
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(got, want, "\n--- got ---\n{got}--- want ---\n{want}");
}

#[test]
fn debug_corpus() {
    for f in [
        "kamaji/issue780_deletion_stuck_wrapped.log",
        "klog/kcm_leader_election_klog_text_issue108380.log",
        "kamaji/issue497_observed_panic_v0.18_unrecovered.log",
    ] {
        let s = std::fs::read_to_string(format!("{}/tests/corpus/{f}", env!("CARGO_MANIFEST_DIR")))
            .unwrap();
        println!("=== {f}\n{}", render(&s));
    }
}
