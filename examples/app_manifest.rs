//! Writes `reconscope-manifest.json` into an app build: the files the HTML
//! report needs with their sizes and sha256 (`reconscope::htmlreport::manifest`),
//! which `reconscope analyze --html --app-url URL` checks what it fetches
//! against.
//!
//! Run by trunk after every build (the `post_build` hook in Trunk.toml), on
//! the staging folder it is about to turn into dist/; by hand:
//!   cargo run --example app_manifest -- dist

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use reconscope::htmlreport::{self, MANIFEST_NAME};

fn main() -> ExitCode {
    let dir = match std::env::args_os().nth(1).or_else(|| std::env::var_os("TRUNK_STAGING_DIR")) {
        Some(d) => PathBuf::from(d),
        None => {
            eprintln!("app_manifest: give the app build's folder (or run it as trunk's post_build hook)");
            return ExitCode::from(2);
        }
    };
    match write(&dir) {
        Ok(n) => {
            println!("app_manifest: {} lists {n} files", dir.join(MANIFEST_NAME).display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("app_manifest: {}: {e}", dir.display());
            ExitCode::FAILURE
        }
    }
}

fn write(dir: &Path) -> Result<usize, String> {
    let mut paths = Vec::new();
    walk(dir, "", &mut paths).map_err(|e| format!("cannot read the folder ({e})"))?;
    let mut files = Vec::new();
    for rel in paths.into_iter().filter(|p| htmlreport::role_of(p).is_some()) {
        let bytes = std::fs::read(dir.join(&rel)).map_err(|e| format!("{rel}: cannot read ({e})"))?;
        files.push((rel, bytes));
    }
    let m = htmlreport::manifest(env!("CARGO_PKG_VERSION"), &files).map_err(|e| e.to_string())?;
    std::fs::write(dir.join(MANIFEST_NAME), m.to_json()).map_err(|e| format!("cannot write {MANIFEST_NAME} ({e})"))?;
    Ok(m.files.len())
}

/// Every file under `dir`, as `/`-separated paths relative to the app's folder.
fn walk(dir: &Path, prefix: &str, out: &mut Vec<String>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        let rel = if prefix.is_empty() { name } else { format!("{prefix}/{name}") };
        if entry.file_type()?.is_dir() {
            walk(&entry.path(), &rel, out)?;
        } else {
            out.push(rel);
        }
    }
    Ok(())
}
