//! A log too big for a browser tab is packed as it is parsed
//! (`StreamParser::packed`: compressed in chunks of whole records, read
//! back a chunk at a time). What anyone sees of it must not change: every
//! corpus file and the incident (each file one chunk: a cut looks up to
//! 1,000 lines ahead), the incident's controller log many times over and a
//! generated log (in many chunks) give the same analysis document, the same
//! inspector lines for every reconcile, and the same filter matches as the
//! same files read plain.

use std::path::Path;

#[path = "support/files.rs"]
mod files;
#[path = "support/gen.rs"]
mod gen;

use reconscope::analyze::{self, AnalyzeOptions};
use reconscope::model::ParsedFile;
use reconscope::parse::StreamParser;
use reconscope::pipeline::{self, LoadOptions, Loaded};
use reconscope::web::{matching_reconciles, reconcile_lines, MessageFilter, MAX_CONTEXT_LINES};

/// The inputs as the browser's worker reads them: plain logs streamed, in
/// 64 KiB slices, packed (in pieces of `piece` bytes) or not; archives
/// opened whole.
fn load(inputs: &[(String, Vec<u8>)], packed: Option<usize>) -> Vec<ParsedFile> {
    let opts = LoadOptions::default();
    let mut loaded = Loaded::default();
    for (name, bytes) in inputs {
        if !pipeline::streamable(name, &bytes[..bytes.len().min(4096)]) {
            loaded.add(name, bytes.clone(), &opts);
            continue;
        }
        let mut sp = match packed {
            Some(piece) => StreamParser::packed(name.clone(), bytes.len(), &opts.parse).with_piece_bytes(piece),
            None => StreamParser::new(name.clone(), bytes.len(), &opts.parse),
        };
        for slice in bytes.chunks(64 << 10) {
            sp.push(slice);
        }
        loaded.add_parsed(sp.finish());
    }
    loaded.finish();
    loaded.files
}

fn document(files: &[ParsedFile]) -> (analyze::Analysis, String) {
    let (a, diags) = analyze::analyze(files, &AnalyzeOptions::default());
    let mut out = Vec::new();
    analyze::json::write_json(&mut out, &[], &a, analyze::json::Extras::default()).unwrap();
    let notes: Vec<String> = diags.iter().map(|d| d.to_string()).collect();
    (a, format!("{}\n{}", String::from_utf8(out).unwrap(), notes.join("\n")))
}

/// Packed or plain, the same document, inspector lines and filter matches.
fn check(what: &str, inputs: &[(String, Vec<u8>)], piece: usize) {
    let plain = load(inputs, None);
    let packed = load(inputs, Some(piece));
    let streamed: u64 = plain.iter().filter(|f| f.bytes.plain().is_some()).map(|f| f.bytes.len() as u64).sum();
    assert_eq!(packed.iter().map(|f| f.bytes.len()).sum::<usize>(), plain.iter().map(|f| f.bytes.len()).sum::<usize>(), "{what}: {streamed}");
    let (a, doc) = document(&plain);
    let (b, packed_doc) = document(&packed);
    assert_eq!(doc, packed_doc, "{what}: the analysis of the packed files");
    for (i, r) in a.reconciles.iter().enumerate() {
        let lines = |files: &[ParsedFile], an: &analyze::Analysis| {
            reconcile_lines(files, an.records_of(&an.reconciles[i]), i as u32, &r.reconcile_id, MAX_CONTEXT_LINES)
        };
        assert_eq!(lines(&plain, &a), lines(&packed, &b), "{what}: the inspector's lines of reconcile {i}");
    }
    for pattern in ["", "deadline", "(?i)^.*error", "reconcil.*done", "\"name\"", "é"] {
        for min_level in 0..4 {
            let filter = MessageFilter { pattern: pattern.to_string(), min_level };
            assert_eq!(
                matching_reconciles(&plain, &a.record_refs, &a.reconciles, &filter),
                matching_reconciles(&packed, &b.record_refs, &b.reconciles, &filter),
                "{what}: the reconciles matching {pattern:?} at level {min_level}"
            );
        }
    }
}

#[test]
fn the_corpus_and_the_incident_packed() {
    let (root, paths) = files::corpus_inputs();
    check("the corpus", &files::read(&root, &paths), 4096);
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/incident");
    let mut inputs = files::read(&root, &files::files_under(&root));
    check("the incident", &inputs, 4096);
    // Its controller log ten times over (the same reconciles again: each
    // reconcile's lines in several chunks).
    let log = inputs.iter_mut().find(|(n, _)| n.ends_with("kamaji/kamaji-controller.log")).unwrap();
    log.1 = log.1.repeat(10);
    let files = load(&inputs, Some(400_000));
    let chunks = files.iter().filter_map(|f| f.bytes.as_packed()).map(|p| p.chunks()).max();
    assert!(chunks > Some(8), "{chunks:?} chunks");
    check("the incident's controller log ten times", &inputs, 400_000);
}

#[test]
fn a_generated_log_packed_in_many_chunks() {
    let log = gen::kamaji_log(6 << 20, 11);
    let inputs = vec![("kamaji-controller.log".to_string(), log)];
    let files = load(&inputs, Some(500_000));
    let p = files[0].bytes.as_packed().unwrap();
    assert!(p.chunks() > 8 && p.packed_len() * 5 < files[0].bytes.len(), "{p:?}");
    check("a generated log", &inputs, 500_000);
}
