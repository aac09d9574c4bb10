//! What the fuzz targets share: how one fuzz input becomes named files,
//! and the small caps that keep an input from taking the machine.

use reconscope::ingest::IngestOptions;
use reconscope::pipeline::{LoadOptions, Loaded};

/// Decompressed bytes one fuzz input may produce (all archives together):
/// far below libFuzzer's `-rss_limit_mb`, so a bomb is cut, not an OOM.
pub const MAX_TOTAL_BYTES: u64 = 8 << 20;

/// Files one input may name.
const MAX_FILES: usize = 8;

/// The ingest options of every target: the defaults with a small total.
pub fn ingest_options() -> IngestOptions {
    IngestOptions { max_total_bytes: MAX_TOTAL_BYTES, ..IngestOptions::default() }
}

/// The files a fuzz input stands for. An input that starts with the line
/// `#files` holds several, each after a line `#file NAME`:
///
/// ```text
/// #files
/// #file kamaji/kamaji-controller.log
/// ...its bytes...
/// #file etcd-0/current.log
/// ...
/// ```
///
/// (names matter: `.yaml` is an object dump, `-previous.log` a restart,
/// `.zip` an archive). Any other input is one file named `default_name`,
/// so every corpus log is a seed as it is.
pub fn files<'a>(data: &'a [u8], default_name: &str) -> Vec<(String, &'a [u8])> {
    let Some(rest) = data.strip_prefix(b"#files\n") else {
        return vec![(default_name.to_string(), data)];
    };
    let mut out = Vec::new();
    // Each file starts at `#file ` at the start of the rest or after a
    // line break.
    let mut starts: Vec<usize> = Vec::new();
    if rest.starts_with(b"#file ") {
        starts.push(0);
    }
    starts.extend(memchr_all(rest).into_iter().filter(|&i| rest[i + 1..].starts_with(b"#file ")).map(|i| i + 1));
    for (k, &s) in starts.iter().enumerate().take(MAX_FILES) {
        // The previous file's last line break belongs to the marker.
        let end = starts.get(k + 1).map_or(rest.len(), |&n| n - 1);
        let section = &rest[s + b"#file ".len()..end.max(s + b"#file ".len())];
        let (name, body) = match section.iter().position(|&b| b == b'\n') {
            Some(nl) => (&section[..nl], &section[nl + 1..]),
            None => (section, &section[section.len()..]),
        };
        let name: String = String::from_utf8_lossy(name).chars().take(200).collect();
        let name = if name.trim().is_empty() { default_name.to_string() } else { name };
        out.push((name, body));
    }
    out
}

fn memchr_all(b: &[u8]) -> Vec<usize> {
    b.iter().enumerate().filter(|(_, &c)| c == b'\n').map(|(i, _)| i).collect()
}

/// Reads the files as the CLI does ([`Loaded::add`], then
/// [`Loaded::finish`]).
pub fn load(files: &[(String, &[u8])]) -> Loaded {
    let opts = LoadOptions { ingest: ingest_options(), ..LoadOptions::default() };
    let mut loaded = Loaded::default();
    for (name, bytes) in files {
        loaded.add(name, bytes.to_vec(), &opts);
    }
    loaded.finish();
    loaded
}

