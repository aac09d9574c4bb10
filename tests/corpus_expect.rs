//! Every corpus file's facts, as a person read them, against what the tool
//! says about the file.
//!
//! Beside each file of `tests/corpus/` lies `<file>.expect`, written by
//! reading the file (and its provenance in `tests/corpus/INDEX.md`), never
//! by running the tool. One fact a line, `#` starts a comment:
//!
//! - `records: N`: the entries, non-blank lines that begin one (a Go stack
//!   after an ERROR/WARN/panic line, a goroutine dump's lines, chainsaw's
//!   indented sections and a terminal's hard-wrapped continuations belong to
//!   the entry before them; corpus annotation lines are entries);
//! - `first:` / `last:`: the earliest and latest time an entry carries, UTC
//!   RFC3339 with the source's fractional digits; the inner time under a
//!   wrapper; a yearless time takes its year from dated times in the file,
//!   else is written `--MM-DDThh:mm:ss[.f]Z`; `none` when no entry has one;
//! - `reconcile: <id> controller=<name|null> object=<ns/name|name|null>`,
//!   one per distinct reconcileID, and where a person can tell from the
//!   lines, `outcome=<success|requeue|error|unfinished>` (`error`: a line
//!   of it is an error, or says it panicked; `unfinished`: the file's last
//!   timed line is its last, and none of its lines says how it ended);
//!   where a person can tell, `logged=<yes|no>`: whether a line of it
//!   states its outcome (an error line, a requeue, controller-runtime's
//!   `Reconcile successful`, Flux's `Reconciliation finished in`), `no`
//!   for a success read from no error line where the log goes on;
//!   and where a person can tell, `latent_start=<RFC3339|null>`: the
//!   tool's latent start; where a line of it states how long it had run
//!   (Flux's `Reconciliation finished in 613.16027ms`), that line's time
//!   less the duration, rounded up to the line's fractional digits (the
//!   first tick boundary it may be at), or `null` when that is no earlier
//!   than its first line;
//! - `error: <id> <text>`: where a person can tell from the lines, the
//!   error that reconcile failed with, as the tool writes it (the line's
//!   message, `: `, its `error`/`err` value): its first error line,
//!   unless the error it returned (controller-runtime's `Reconciler
//!   error`) is not in that line: then the `Reconciler error` line (a `#`
//!   in it would start a comment);
//! - `instances: <controller>=<n> ...`: how many controller instances
//!   reconciles of that `controller` value are, where a person can tell
//!   (the log shows each instance's `Starting workers`);
//! - `election: term=<n> leader=<member id|null>`, in order, and where
//!   a person can tell from the lines, `start=<RFC3339>` (the first sign
//!   of the election) and `leaderless=<n>ms|null` (from the leader's loss,
//!   else the first sign, to the new leader; whole milliseconds, rounded
//!   down);
//! - `known: <fact> => <what the tool says>`: a fact the tool cannot state
//!   yet, for a reason a `#` comment gives (a reconcile or an election whose
//!   lines carry no date cannot be placed in time). The tool must say
//!   exactly that; when it says anything else (it learned to read it), the
//!   test fails until the line is removed. It never hides a difference it
//!   does not name.
//!
//! Each file is loaded alone, as the CLI loads it (`pipeline::Loaded::add`,
//! `finish`, `analyze::analyze`, no modification time), and the facts are
//! read from the `reconscope.analysis/v1` document (`analyze --json`), the
//! thing users get. Every mismatch of every file is reported in one failure.
//! A corpus file without an `.expect`, or an `.expect` without its file,
//! fails too.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

#[path = "support/files.rs"]
mod files;

use reconscope::analyze::{self, AnalyzeOptions};
use reconscope::pipeline::{LoadOptions, Loaded};
use reconscope::stats::FileStats;

/// One reconcile as written in an `.expect` file: `None` is `null`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Reconcile {
    id: String,
    controller: Option<String>,
    object: Option<String>,
    /// The outcome, when the `.expect` states it (the tool's always).
    outcome: Option<String>,
    /// The latent start, when the `.expect` states it (`Some(None)`: `null`).
    latent_start: Option<Option<String>>,
    /// The error, when the `.expect` states it (an `error:` line).
    error: Option<String>,
    /// Whether a line states its outcome, when the `.expect` says.
    logged: Option<bool>,
}

/// One election: `term=`, `leader=` (`None` is `null`); `start=` and
/// `leaderless=` when the `.expect` states them (`None`: not stated).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Election {
    term: Option<u64>,
    leader: Option<String>,
    start: Option<String>,
    leaderless_ms: Option<Option<u64>>,
}

impl Election {
    /// As the `.expect` writes it, with the keys `stated` states.
    fn show(&self, stated: Option<&Election>) -> String {
        let mut s = format!("term={} leader={}", show(&self.term), show(&self.leader));
        if stated.is_some_and(|e| e.start.is_some()) {
            s += &format!(" start={}", show(&self.start));
        }
        if stated.is_some_and(|e| e.leaderless_ms.is_some()) {
            s += &format!(" leaderless={}", self.leaderless_ms.flatten().map_or("null".to_string(), |ms| format!("{ms}ms")));
        }
        s
    }
}

/// What a person read in a corpus file. `first`/`last`: `None` is `none`.
#[derive(Debug, Default)]
struct Expect {
    records: u64,
    first: Option<String>,
    last: Option<String>,
    reconciles: Vec<Reconcile>,
    elections: Vec<Election>,
    /// Controller value, how many instances.
    instances: Vec<(String, usize)>,
    /// (fact, what the tool says instead): see the module's doc.
    known: Vec<(String, String)>,
}

fn null_or(v: &str) -> Option<String> {
    (v != "null").then(|| v.to_string())
}

/// Reads an `.expect` file; an unknown or malformed line is an error, so a
/// typo cannot make a fact go unchecked.
fn parse_expect(text: &str) -> Result<Expect, String> {
    let mut e = Expect::default();
    let (mut records, mut first, mut last) = (None, None, None);
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let at = |what: &str| format!("line {}: {what}: {raw:?}", i + 1);
        let (key, value) = line.split_once(':').ok_or_else(|| at("no `key:`"))?;
        let value = value.trim();
        match key.trim() {
            "records" => records = Some(value.parse::<u64>().map_err(|_| at("records is not a number"))?),
            "first" => first = Some((value != "none").then(|| value.to_string())),
            "last" => last = Some((value != "none").then(|| value.to_string())),
            "reconcile" => {
                let mut parts = value.split_whitespace();
                let id = parts.next().ok_or_else(|| at("reconcile without an id"))?.to_string();
                let (mut controller, mut object, mut outcome, mut latent_start, mut logged) = (None, None, None, None, None);
                for p in parts {
                    match p.split_once('=') {
                        Some(("controller", v)) => controller = Some(null_or(v)),
                        Some(("object", v)) => object = Some(null_or(v)),
                        Some(("outcome", v @ ("success" | "requeue" | "error" | "unfinished"))) => outcome = Some(v.to_string()),
                        Some(("latent_start", v)) => latent_start = Some(null_or(v)),
                        Some(("logged", v @ ("yes" | "no"))) => logged = Some(v == "yes"),
                        _ => {
                            return Err(at(
                                "reconcile takes controller=, object=, outcome=<success|requeue|error|unfinished>, logged=<yes|no> and latent_start=",
                            ))
                        }
                    }
                }
                let (Some(controller), Some(object)) = (controller, object) else {
                    return Err(at("reconcile needs both controller= and object="));
                };
                e.reconciles.push(Reconcile { id, controller, object, outcome, latent_start, error: None, logged });
            }
            "error" => {
                let (id, text) = value.split_once(' ').ok_or_else(|| at("error takes `<id> <text>`"))?;
                let r = e.reconciles.iter_mut().find(|r| r.id == id).ok_or_else(|| at("error: no `reconcile:` line above with that id"))?;
                if r.error.replace(text.trim().to_string()).is_some() {
                    return Err(at("a second error for that id"));
                }
            }
            "election" => {
                let (mut term, mut leader, mut start, mut leaderless_ms) = (None, None, None, None);
                for p in value.split_whitespace() {
                    match p.split_once('=') {
                        Some(("start", v)) => start = Some(v.to_string()),
                        Some(("leaderless", "null")) => leaderless_ms = Some(None),
                        Some(("leaderless", v)) => {
                            let ms = v.strip_suffix("ms").and_then(|n| n.parse::<u64>().ok()).ok_or_else(|| at("leaderless is <n>ms or null"))?;
                            leaderless_ms = Some(Some(ms));
                        }
                        Some(("term", "null")) => term = Some(None),
                        Some(("term", v)) => term = Some(Some(v.parse::<u64>().map_err(|_| at("term is not a number"))?)),
                        Some(("leader", v)) => leader = Some(null_or(v)),
                        _ => return Err(at("election takes term=, leader=, start= and leaderless=")),
                    }
                }
                let (Some(term), Some(leader)) = (term, leader) else {
                    return Err(at("election needs both term= and leader="));
                };
                e.elections.push(Election { term, leader, start, leaderless_ms });
            }
            "instances" => {
                for p in value.split_whitespace() {
                    let (c, n) = p.rsplit_once('=').ok_or_else(|| at("instances takes <controller>=<n>"))?;
                    e.instances.push((c.to_string(), n.parse::<usize>().map_err(|_| at("instances: not a number"))?));
                }
            }
            "known" => {
                let (what, says) = value.split_once(" => ").ok_or_else(|| at("known takes `<fact> => <what the tool says>`"))?;
                e.known.push((what.trim().to_string(), says.trim().to_string()));
            }
            _ => return Err(at("unknown key")),
        }
    }
    e.records = records.ok_or("no `records:` line")?;
    e.first = first.ok_or("no `first:` line")?;
    e.last = last.ok_or("no `last:` line")?;
    Ok(e)
}

/// The `analyze --json` document of one file loaded alone, as the CLI
/// loads it (no modification time: a plain file has none).
fn analysis_json(rel: &str, bytes: Vec<u8>) -> Value {
    let mut loaded = Loaded::default();
    loaded.add(rel, bytes, &LoadOptions::default());
    loaded.finish();
    let (analysis, _notes) = analyze::analyze(&loaded.files, &AnalyzeOptions::default());
    let inputs: Vec<FileStats> = loaded.files.iter().map(FileStats::of).collect();
    analyze::json::to_json(&inputs, &analysis)
}

fn show(v: &Option<impl std::fmt::Display>) -> String {
    v.as_ref().map_or_else(|| "null".to_string(), |s| s.to_string())
}

fn show_time(v: &Option<String>) -> String {
    v.clone().unwrap_or_else(|| "none".to_string())
}

/// The controller a JSON reconcile names: its instance's `controller`
/// value when the document gives one, else the instance id without the
/// `#N` that tells a name's second and later instances apart.
fn controller_of(doc: &Value, r: &Value) -> Option<String> {
    let id = r["controller"].as_str()?;
    let inst = doc["controllers"].as_array().and_then(|cs| cs.iter().find(|c| c["id"].as_str() == Some(id)));
    if let Some(c) = inst.and_then(|c| c.get("controller")) {
        return c.as_str().map(str::to_string);
    }
    let base = match id.rsplit_once('#') {
        Some((base, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => base,
        _ => id,
    };
    Some(base.to_string())
}

/// Notes `what` when the two accounts of it differ.
fn differ(out: &mut Vec<String>, what: &str, expected: String, got: String) {
    if expected != got {
        out.push(format!("{what}: expected (read from the file) {expected}, tool says {got}"));
    }
}

/// Every way the tool's account of one file differs from what was read in
/// it, one sentence each.
fn check(rel: &str, bytes: Vec<u8>, expect: &Expect) -> Vec<String> {
    let doc = analysis_json(rel, bytes);
    let mut out = Vec::new();
    let inputs = doc["inputs"].as_array().cloned().unwrap_or_default();
    differ(&mut out, "inputs", "1".into(), inputs.len().to_string());
    let records: u64 = inputs.iter().map(|i| i["records"].as_u64().unwrap_or(0)).sum();
    differ(&mut out, "records", expect.records.to_string(), records.to_string());
    let time = |key: &str| inputs.first().and_then(|i| i[key].as_str()).map(str::to_string);
    differ(&mut out, "first", show_time(&expect.first), show_time(&time("first")));
    differ(&mut out, "last", show_time(&expect.last), show_time(&time("last")));

    // Reconciles by id (the document's order is the tool's, by time).
    let mut got: BTreeMap<String, Reconcile> = BTreeMap::new();
    for r in doc["reconciles"].as_array().into_iter().flatten() {
        let id = r["reconcile_id"].as_str().unwrap_or("").to_string();
        let rec = Reconcile {
            id: id.clone(),
            controller: controller_of(&doc, r),
            object: r["object"].as_str().map(str::to_string),
            outcome: r["outcome"].as_str().map(str::to_string),
            latent_start: Some(r["latent_start"].as_str().map(str::to_string)),
            error: r["error"].as_str().map(str::to_string),
            logged: r["outcome_logged"].as_bool(),
        };
        got.entry(id).or_insert(rec);
    }
    for e in &expect.reconciles {
        match got.remove(&e.id) {
            None => out.push(format!(
                "reconcile {}: expected (read from the file) controller={} object={}, tool says no such reconcile",
                e.id,
                show(&e.controller),
                show(&e.object)
            )),
            Some(g) => {
                differ(&mut out, &format!("reconcile {} controller", e.id), show(&e.controller), show(&g.controller));
                differ(&mut out, &format!("reconcile {} object", e.id), show(&e.object), show(&g.object));
                if e.outcome.is_some() {
                    differ(&mut out, &format!("reconcile {} outcome", e.id), show(&e.outcome), show(&g.outcome));
                }
                if e.error.is_some() {
                    differ(&mut out, &format!("reconcile {} error", e.id), show(&e.error), show(&g.error));
                }
                if let Some(want) = e.logged {
                    differ(&mut out, &format!("reconcile {} outcome_logged", e.id), want.to_string(), g.logged.map_or("no such key".into(), |b| b.to_string()));
                }
                if let Some(want) = &e.latent_start {
                    differ(&mut out, &format!("reconcile {} latent_start", e.id), show(want), show(&g.latent_start.clone().flatten()));
                }
            }
        }
    }
    for g in got.values() {
        out.push(format!(
            "reconcile {}: expected (read from the file) no such reconcile, tool says controller={} object={}",
            g.id,
            show(&g.controller),
            show(&g.object)
        ));
    }

    for (c, n) in &expect.instances {
        // The distinct instances of the reconciles of that `controller`.
        let mut of: Vec<&str> = doc["reconciles"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|r| controller_of(&doc, r).as_deref() == Some(c.as_str()))
            .filter_map(|r| r["controller_instance"].as_str())
            .collect();
        of.sort_unstable();
        of.dedup();
        let got = of.len();
        differ(&mut out, &format!("instances of {c}"), n.to_string(), got.to_string());
    }

    // Elections in order.
    let elections: Vec<Election> = doc["elections"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|e| Election {
            term: e["term"].as_u64(),
            leader: e["leader"].as_str().map(str::to_string),
            start: e["start"].as_str().map(str::to_string),
            leaderless_ms: Some(e["leaderless_nanos"].as_u64().map(|n| n / 1_000_000)),
        })
        .collect();
    // The tool's, with the keys the `.expect` states for each.
    let list = |es: &[Election]| {
        if es.is_empty() {
            "none".to_string()
        } else {
            es.iter().enumerate().map(|(i, e)| e.show(expect.elections.get(i))).collect::<Vec<_>>().join("; ")
        }
    };
    differ(&mut out, "elections", list(&expect.elections), list(&elections));
    out
}

fn corpus_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus")
}

fn rel(root: &Path, p: &Path) -> String {
    p.strip_prefix(root).unwrap().to_string_lossy().into_owned()
}

#[test]
fn every_corpus_file_has_its_facts_asserted() {
    let root = corpus_root();
    let all = files::files_under(&root);
    let is_expect = |p: &Path| p.extension().is_some_and(|e| e == "expect");
    let corpus: Vec<&PathBuf> = all.iter().filter(|p| !is_expect(p) && p.file_name().unwrap() != "INDEX.md").collect();
    assert!(corpus.len() >= 50, "corpus went missing: {} files", corpus.len());
    let mut report = String::new();
    // An expectation with no corpus file beside it is stale.
    for p in all.iter().filter(|p| is_expect(p)) {
        let target = p.with_extension("");
        if !target.is_file() {
            report.push_str(&format!("{}: an expectation for a file that is not in the corpus\n", rel(&root, p)));
        }
    }
    let mut failing = 0;
    for path in &corpus {
        let name = rel(&root, path);
        let mut exp_path = path.as_os_str().to_owned();
        exp_path.push(".expect");
        let Ok(text) = std::fs::read_to_string(&exp_path) else {
            report.push_str(&format!("{name}: no {name}.expect (write one by reading the file)\n"));
            failing += 1;
            continue;
        };
        let expect = match parse_expect(&text) {
            Ok(e) => e,
            Err(e) => {
                report.push_str(&format!("{name}.expect: {e}\n"));
                failing += 1;
                continue;
            }
        };
        let mut problems = check(&name, std::fs::read(path).unwrap(), &expect);
        for (what, says) in &expect.known {
            let before = problems.len();
            problems.retain(|p| !(p.starts_with(&format!("{what}:")) && p.ends_with(&format!("tool says {says}"))));
            if problems.len() == before {
                problems.push(format!("known: {what} => {says}: the tool no longer says that; check it and remove the line"));
            }
        }
        if !problems.is_empty() {
            failing += 1;
            report.push_str(&format!("{name}:\n"));
            for p in problems {
                report.push_str(&format!("    {p}\n"));
            }
        }
    }
    assert!(report.is_empty(), "{failing} of {} corpus files differ from what was read in them:\n{report}", corpus.len());
}

/// The `.expect` reader itself: it must refuse what it cannot check.
#[test]
fn expect_files_are_read_strictly() {
    let ok = parse_expect(
        "# a summary\nrecords: 3\nfirst: 2025-04-09T10:00:00.123Z # a comment\nlast: none\n\
         reconcile: abc controller=tcp object=null\nreconcile: def controller=null object=a/b outcome=unfinished logged=no\nerror: def Reconciler error: it:  failed \nelection: term=5 leader=null\n\
         election: term=6 leader=a start=2025-04-09T10:00:01Z leaderless=1500ms\nelection: term=7 leader=null leaderless=null\n",
    )
    .unwrap();
    assert_eq!(ok.records, 3);
    assert_eq!(ok.first.as_deref(), Some("2025-04-09T10:00:00.123Z"));
    assert_eq!(ok.last, None);
    assert_eq!(
        ok.reconciles,
        vec![
            Reconcile { id: "abc".into(), controller: Some("tcp".into()), object: None, outcome: None, latent_start: None, error: None, logged: None },
            Reconcile {
                id: "def".into(),
                controller: None,
                object: Some("a/b".into()),
                outcome: Some("unfinished".into()),
                latent_start: None,
                error: Some("Reconciler error: it:  failed".into()),
                logged: Some(false),
            },
        ]
    );
    let stated = |term, leader: Option<&str>, start: Option<&str>, leaderless_ms| Election {
        term: Some(term),
        leader: leader.map(str::to_string),
        start: start.map(str::to_string),
        leaderless_ms,
    };
    assert_eq!(
        ok.elections,
        vec![stated(5, None, None, None), stated(6, Some("a"), Some("2025-04-09T10:00:01Z"), Some(Some(1500))), stated(7, None, None, Some(None))]
    );
    for bad in [
        "first: none\nlast: none\n",
        "records: 1\nlast: none\n",
        "records: 1\nfirst: none\nlast: none\nrecrods: 2\n",
        "records: 1\nfirst: none\nlast: none\nreconcile: abc controller=x\n",
        "records: 1\nfirst: none\nlast: none\nelection: term=five leader=null\n",
        "records: 1\nfirst: none\nlast: none\nreconcile: abc controller=x object=null outcome=ok\n",
        "records: 1\nfirst: none\nlast: none\nelection: term=5 leader=null leaderless=1.5s\n",
        "records: 1\nfirst: none\nlast: none\nerror: abc it failed\n",
        "records: 1\nfirst: none\nlast: none\nreconcile: abc controller=x object=null logged=true\n",
        "records: 1\nfirst: none\nlast: none\nreconcile: abc controller=x object=null\nerror: abc\n",
        "records: 1\nfirst: none\nlast: none\nreconcile: abc controller=x object=null\nerror: abc a\nerror: abc b\n",
    ] {
        assert!(parse_expect(bad).is_err(), "accepted {bad:?}");
    }
}
