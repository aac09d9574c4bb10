//! The files under a folder, for tests that read a fixture or the corpus.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// Every file below `dir`, at any depth, in sorted path order.
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    walk(dir, &mut out);
    out
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            walk(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// The files below `dir` that `keep` accepts, each parsed under its path
/// relative to `base`, with yearless times given their year: the fixture
/// as `pipeline` would read it from a folder.
pub fn parsed_under(dir: &Path, base: &Path, keep: impl Fn(&Path) -> bool) -> Vec<reconscope::model::ParsedFile> {
    let mut files: Vec<_> = files_under(dir)
        .into_iter()
        .filter(|p| keep(p))
        .map(|p| {
            let rel = p.strip_prefix(base).unwrap().to_string_lossy().into_owned();
            reconscope::parse::parse_file(rel, std::fs::read(&p).unwrap(), &Default::default())
        })
        .collect();
    reconscope::parse::resolve_years(&mut files);
    files
}

/// Each of `paths` read whole, named by its path relative to `root`.
pub fn read(root: &Path, paths: &[PathBuf]) -> Vec<(String, Vec<u8>)> {
    paths.iter().map(|p| (p.strip_prefix(root).unwrap().to_string_lossy().into_owned(), std::fs::read(p).unwrap())).collect()
}

/// The logs and dumps of `tests/corpus` (not its `.expect` files and
/// notes), and the folder they are under.
pub fn corpus_inputs() -> (PathBuf, Vec<PathBuf>) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let paths = files_under(&root).into_iter().filter(|p| p.extension().is_none_or(|e| e != "expect" && e != "md")).collect();
    (root, paths)
}
