//! Goroutine dumps: any text, as a dump file or inside a log. Parsing and
//! grouping never panic; every dump lies inside the text, its notes are
//! sorted by line, and its groups hold every goroutine it counted.
#![no_main]

use libfuzzer_sys::fuzz_target;
use reconscope::goroutine::{classify, group, has_dump, parse_dumps};

fuzz_target!(|data: &[u8]| {
    let found = has_dump(data);
    let first_line = 7;
    let dumps = parse_dumps(data, first_line);
    if !found {
        assert!(dumps.is_empty(), "dumps in a text without a goroutine header");
    }
    let lines = data.iter().filter(|&&b| b == b'\n').count() as u32 + 1;
    let last_line = first_line + lines - 1;
    for d in &dumps {
        assert!(
            first_line <= d.first_line && d.first_line <= d.last_line && d.last_line <= last_line,
            "{}..{} of {first_line}..{last_line}",
            d.first_line,
            d.last_line
        );
        assert!(d.diagnostics.windows(2).all(|w| w[0].line <= w[1].line), "notes out of order: {:?}", d.diagnostics);
        for g in &d.goroutines {
            assert!(d.first_line <= g.line && g.line <= d.last_line, "goroutine at {} outside {}..{}", g.line, d.first_line, d.last_line);
            let _ = classify(g);
        }
        let groups = group(&d.goroutines);
        let counted: u128 = d.goroutines.iter().map(|g| u128::from(g.count)).sum();
        let grouped: u128 = groups.iter().map(|g| u128::from(g.count)).sum();
        // (A group's count saturates at u64::MAX.)
        if counted <= u128::from(u64::MAX) {
            assert_eq!(counted, grouped, "goroutines counted vs grouped");
        }
        for g in &groups {
            assert!(g.ids.windows(2).all(|w| w[0] <= w[1]), "ids not sorted: {:?}", g.ids);
            if let (Some(lo), Some(hi)) = (g.min_wait_minutes, g.max_wait_minutes) {
                assert!(lo <= hi);
            }
        }
    }
});
