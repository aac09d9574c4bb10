//! The library's dependency order, as ARCHITECTURE.md declares it, held
//! against the code.
//!
//! ARCHITECTURE.md's "Dependency order" block has one line per module of
//! `src/lib.rs`, each followed by the modules it uses (`-`: none). This
//! test checks that every module of `src/lib.rs` has its line, that a line
//! names only modules on lines above it (so the order is a DAG), and that
//! what a module's files name as `crate::<module>` (code, doc links and
//! comments alike) is exactly what its line says. A module the block names
//! that `src/lib.rs` does not have yet is skipped, on its own line and in
//! the others' lists.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

const MARKER: &str = "<!-- dependency order: checked by tests/architecture.rs -->";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The declared order: (module, what it uses), first line first.
fn declared() -> Vec<(String, BTreeSet<String>)> {
    let doc = fs::read_to_string(root().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let after = doc.split_once(MARKER).unwrap_or_else(|| panic!("ARCHITECTURE.md has no `{MARKER}`")).1;
    let body = after.split_once("```").and_then(|(_, rest)| rest.split_once('\n')).map(|(_, rest)| rest).expect("a fenced block after the marker");
    let body = body.split_once("```").expect("the block's closing fence").0;
    body.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let mut words = l.split_whitespace();
            let module = words.next().unwrap().to_string();
            let uses = words.filter(|w| *w != "-").map(|w| w.trim_matches(',').to_string()).collect();
            (module, uses)
        })
        .collect()
}

/// The modules `src/lib.rs` declares.
fn lib_modules() -> BTreeSet<String> {
    let lib = fs::read_to_string(root().join("src/lib.rs")).expect("src/lib.rs");
    lib.lines()
        .filter_map(|l| {
            let l = l.trim();
            let l = l.strip_prefix("pub ").unwrap_or(l);
            l.strip_prefix("mod ")?.strip_suffix(';').map(|m| m.trim().to_string())
        })
        .collect()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// A module's files: `src/m.rs` and everything under `src/m/`.
fn module_files(module: &str) -> Vec<PathBuf> {
    let src = root().join("src");
    let mut files = Vec::new();
    let single = src.join(format!("{module}.rs"));
    if single.is_file() {
        files.push(single);
    }
    let dir = src.join(module);
    if dir.is_dir() {
        rust_files(&dir, &mut files);
    }
    files.sort();
    files
}

fn ident(s: &str) -> &str {
    let end = s.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(s.len());
    &s[..end]
}

/// The first path segment after each `crate::` in `text`, including the
/// items of a `crate::{a, b::c}` group.
fn crate_names(text: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut rest = text;
    while let Some(i) = rest.find("crate::") {
        let before = rest[..i].chars().next_back();
        rest = &rest[i + "crate::".len()..];
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
            continue; // `my_crate::`, not `crate::`
        }
        if let Some(group) = rest.strip_prefix('{') {
            let (mut depth, mut item_start) = (0usize, true);
            for (j, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => item_start = true,
                    c if item_start && !c.is_whitespace() => {
                        names.insert(ident(&group[j..]).to_string());
                        item_start = false;
                    }
                    _ => {}
                }
            }
        } else {
            names.insert(ident(rest).to_string());
        }
    }
    names
}

#[test]
fn modules_use_only_what_is_above_them() {
    let declared = declared();
    let modules = lib_modules();
    let mut problems = Vec::new();

    let mut position = BTreeMap::new();
    for (i, (module, _)) in declared.iter().enumerate() {
        if position.insert(module.clone(), i).is_some() {
            problems.push(format!("ARCHITECTURE.md names `{module}` twice"));
        }
    }
    for module in &modules {
        if !position.contains_key(module) {
            problems.push(format!("src/lib.rs has `{module}`, which ARCHITECTURE.md's dependency order does not place"));
        }
    }
    for (i, (module, uses)) in declared.iter().enumerate() {
        for used in uses {
            match position.get(used) {
                Some(&j) if j < i => {}
                Some(_) => problems.push(format!("ARCHITECTURE.md: `{module}` uses `{used}`, which is not above it")),
                None => problems.push(format!("ARCHITECTURE.md: `{module}` uses `{used}`, which has no line of its own")),
            }
        }
    }

    for (module, uses) in &declared {
        if !modules.contains(module) {
            continue; // declared ahead of its arrival
        }
        let files = module_files(module);
        if files.is_empty() {
            problems.push(format!("no src/{module}.rs nor src/{module}/"));
        }
        let mut named: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for file in &files {
            let text = fs::read_to_string(file).unwrap();
            let shown = file.strip_prefix(root()).unwrap().display().to_string();
            for name in crate_names(&text) {
                if name != *module && modules.contains(&name) {
                    named.entry(name).or_default().push(shown.clone());
                }
            }
        }
        for (name, files) in &named {
            if !uses.contains(name) {
                let below = position.get(name).is_some_and(|&j| j < position[module]);
                let why = if below { "not on its line in ARCHITECTURE.md" } else { "a module above it: a cycle or a wrong direction" };
                problems.push(format!("`{module}` names `crate::{name}` ({why}) in {}", files.join(", ")));
            }
        }
        for used in uses {
            if modules.contains(used) && !named.contains_key(used) {
                problems.push(format!("ARCHITECTURE.md says `{module}` uses `{used}`, but no file of it names `crate::{used}`"));
            }
        }
    }

    assert!(problems.is_empty(), "the dependency order does not hold:\n  {}", problems.join("\n  "));
}

#[test]
fn crate_names_are_read() {
    let names = crate_names("use crate::model::Span; my_crate::no; use crate::{time::{self, Gap}, parse};\n[`crate::escape`]");
    assert_eq!(names.into_iter().collect::<Vec<_>>(), ["escape", "model", "parse", "time"]);
}
