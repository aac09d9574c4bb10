//! Helpers the web module's tests share.

use std::path::{Path, PathBuf};

use super::{LoadResult, Phase, Received, Session};

pub(crate) fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for e in entries {
        if e.is_dir() {
            walk(&e, out)
        } else {
            out.push(e)
        }
    }
}

/// Sends `bytes` to the session in slices of `slice` bytes.
pub(crate) fn send(s: &mut Session, name: &str, bytes: &[u8], slice: usize) -> Vec<Received> {
    let size = bytes.len() as u64;
    let mut out = Vec::new();
    let mut at = 0;
    loop {
        let end = (at + slice).min(bytes.len());
        let last = end == bytes.len();
        let r = s.receive(name, at as u64, size, &bytes[at..end], last);
        assert!(s.receiving().done_bytes <= s.progress(Phase::Reading).total_bytes);
        if r == Received::Complete {
            s.complete();
        }
        out.push(r);
        at = end;
        if last {
            return out;
        }
    }
}

pub(crate) fn summary(r: &LoadResult) -> Vec<(String, u64)> {
    r.files.iter().map(|f| (f.path.clone(), f.records)).collect()
}

/// 3000 lines of 1000 reconciles, each line `line` (a format string
/// with the time's `{s}` seconds and `{i}` micros and the reconcile's
/// `{r}`), and the example artifact; and the two as one session loads
/// them whole.
pub(crate) fn log_and_zip(line: impl Fn(usize, usize, usize) -> String) -> (Vec<u8>, Vec<u8>, LoadResult) {
    let mut log = Vec::new();
    for i in 0..3000 {
        log.extend_from_slice(line(i % 60, i, i / 3).as_bytes());
    }
    let zip = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("www/example/cozyreport.zip")).unwrap();
    let mut whole = Session::new(2, (log.len() + zip.len()) as u64);
    whole.add("a.log", log.clone());
    whole.add("c.zip", zip.clone());
    let whole = whole.finish();
    (log, zip, whole)
}

/// The incident fixture read into a session as the worker reads it (each
/// file whole, named from `cozyreport/`), and its load.
pub(crate) fn incident() -> (Session, LoadResult) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/incident/cozyreport");
    let mut paths = Vec::new();
    walk(&root, &mut paths);
    let total: u64 = paths.iter().map(|p| std::fs::metadata(p).unwrap().len()).sum();
    let mut s = Session::new(paths.len() as u32, total);
    for p in &paths {
        let name = p.strip_prefix(root.parent().unwrap()).unwrap().to_string_lossy().into_owned();
        s.add(&name, std::fs::read(p).unwrap());
    }
    let r = s.finish();
    (s, r)
}
