//! Ingestion: the input's bytes named as each archive kind in turn (and as
//! a plain log), under small caps. It must never panic, every member and
//! error must name a path inside the input, and the members together must
//! stay within the cap on decompressed bytes. Each member is then parsed.
#![no_main]

use libfuzzer_sys::fuzz_target;
use reconscope::ingest::{self, Event};
use reconscope::parse::{self, ParseOptions};
use reconscope_fuzz::ingest_options;

const NAMES: [&str; 6] = ["input.zip", "input.tar", "input.tar.gz", "input.tgz", "input.log.gz", "input.log"];

fuzz_target!(|data: &[u8]| {
    let opts = ingest_options();
    for name in NAMES {
        let mut emitted = 0u64;
        let mut used = 0u64;
        let mut members = Vec::new();
        ingest::ingest_counted(name, data, &opts, &mut used, &mut |ev| match ev {
            Event::File(m) => {
                assert!(m.path.starts_with(name), "{name}: member {:?}", m.path);
                emitted += m.bytes.len() as u64;
                members.push((m.path, m.bytes.into_owned()));
            }
            Event::Skipped { path, reason } => {
                assert!(path.starts_with(name), "{name}: skipped {path:?}");
                assert!(!reason.is_empty());
            }
            Event::Error(e) => assert!(e.path().starts_with(name), "{name}: error {e}"),
        });
        assert!(emitted <= opts.max_total_bytes, "{name}: {emitted} bytes emitted over the cap");
        for (path, bytes) in members {
            let f = parse::parse_file(path, bytes, &ParseOptions::default());
            for r in &f.records {
                let _ = (f.message(r), f.raw(r), f.fields(r).len());
            }
        }
    }
});
