//! Text from logs is inert in every output (issue 15, item 3): one table
//! of hostile strings, each placed in a log this test writes (the file's
//! name, an archive member's name, the controller, the namespace and name,
//! the message, the error, the reconcileID), run through the CLI's text,
//! `--json`, `--markdown`, `--svg`, `--html` and `share --file`, and
//! through what the app shows (the timeline's labels, `inert::label`).
//!
//! The rules, each written here from the issue rather than from the code:
//! - terminal: no C0 control but `\n`, no DEL, no C1 control, no
//!   bidirectional control; each one shown visibly (`\x1b`, `\u{202e}`);
//! - JSON: the values as the log had them (invalid UTF-8 as U+FFFD);
//! - Markdown: none of those characters either, square tables, no element
//!   or link a log could add (rendered with comrak, `support/gfm.rs`);
//! - SVG: parses as XML (roxmltree), no control or bidirectional
//!   character in its text;
//! - HTML report: log text only as base64;
//! - the app: every label of the timeline, the status, notices and
//!   progress line the state core keeps, and `inert::label`, hold no
//!   control (tab aside) or bidirectional character.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use reconscope::analyze::{analyze, AnalyzeOptions};
use reconscope::inert;
use reconscope::layout::{layout, LayoutOptions};
use reconscope::parse::{parse_file, resolve_years, ParseOptions};
use reconscope::ui::{Action, AppState, InputInfo};
use reconscope::web::{FromWorker, Phase, Progress};

#[path = "support/gfm.rs"]
mod gfm;
#[path = "support/tar.rs"]
mod tar;

/// The table: a name for failures, the bytes. Each is put between `x` and
/// `y`, so none is empty or starts a line.
fn hostile() -> Vec<(&'static str, Vec<u8>)> {
    let s = |name: &'static str, t: &str| (name, t.as_bytes().to_vec());
    vec![
        s("screen clear", "\x1b[2J\x1b[H"),
        s("window title", "\x1b]0;title\x07"),
        s("hyperlink", "\x1b]8;;http://evil\x1b\\click\x1b]8;;\x1b\\"),
        s("bell", "ring\x07"),
        s("nul", "a\0b"),
        s("c1", "next\u{85}line\u{9b}31m"),
        s("del and backspace", "x\x7fy\x08z"),
        s("cr", "over\rwrite"),
        s("vt and ff", "v\x0bf\x0c"),
        s("rlo", "evil\u{202e}gpj.exe"),
        s("isolates", "\u{2066}a\u{2067}b\u{2068}c\u{2069}"),
        s("marks", "\u{200e}l\u{200f}r\u{61c}"),
        s("bom", "\u{feff}bom"),
        ("invalid utf-8", b"bad\xff\xfe and \xed\xa0\x80 end".to_vec()),
        s("xml nonchars", "\u{fffe}\u{ffff}"),
        s("cdata end", "]]>"),
        s("script", "</script><script>alert(1)</script>"),
        s("img", "<img src=x onerror=alert(1)>"),
        s("entities", "&amp;&lt;&#0;"),
        s("markdown", "a|b `c` ](javascript:alert(1)) <details> **b** @mention"),
        s("heading", "\n# heading\n"),
        s("long", &"n".repeat(10_000)),
        s("unicode", "日本語 é 🎉"),
    ]
}

/// A character the terminal must not get (it would obey or hide it).
fn bad_for_terminal(c: char) -> bool {
    c.is_control() || is_bidi(c)
}

fn is_bidi(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{61c}')
}

/// How the issue asks a character to be shown: `\x1b` below 0x80,
/// `\u{202e}` above.
fn visible(c: char) -> String {
    if (c as u32) < 0x80 {
        format!("\\x{:02x}", c as u32)
    } else {
        format!("\\u{{{:x}}}", c as u32)
    }
}

/// A JSON string literal of raw bytes: quotes, backslashes and C0
/// controls escaped, everything else (invalid UTF-8 too) as it is.
fn json_str(b: &[u8]) -> Vec<u8> {
    let mut out = vec![b'"'];
    for &c in b {
        match c {
            b'"' | b'\\' => out.extend_from_slice(&[b'\\', c]),
            0..=0x1f => out.extend_from_slice(format!("\\u{:04x}", c).as_bytes()),
            c => out.push(c),
        }
    }
    out.push(b'"');
    out
}

/// `evil` made a name a file system takes: no `/` or NUL, at most 200 bytes.
fn fs_name(evil: &[u8]) -> Vec<u8> {
    let mut v: Vec<u8> = evil.iter().map(|&c| if c == b'/' || c == 0 { b'_' } else { c }).collect();
    v.truncate(200);
    v
}

/// A zap console log with `evil` everywhere: a slow reconcile (45 s, past
/// the 30 s timeout) that ends in an error, and one that fails on a
/// deadline after a second.
fn console_log(evil: &[u8]) -> Vec<u8> {
    let j = json_str(evil);
    // The message column ends at a tab or newline, and a NUL makes the
    // file binary (skipped): those are left out of it.
    let msg: Vec<u8> = evil.iter().copied().filter(|c| !matches!(c, b'\t' | b'\n' | 0)).collect();
    let mut log = Vec::new();
    let line = |log: &mut Vec<u8>, ts: &str, level: &str, msg: &[u8], id: &str, extra: &[u8]| {
        log.extend_from_slice(format!("2026-05-26T10:{ts}Z\t{level}\t").as_bytes());
        log.extend_from_slice(msg);
        log.extend_from_slice(b"\t{\"controller\": ");
        log.extend_from_slice(&j);
        log.extend_from_slice(b", \"namespace\": ");
        log.extend_from_slice(&j);
        log.extend_from_slice(b", \"name\": ");
        log.extend_from_slice(&j);
        log.extend_from_slice(format!(", \"reconcileID\": \"{id}\"").as_bytes());
        log.extend_from_slice(extra);
        log.extend_from_slice(b"}\n");
    };
    let mut reconciling = b"Reconciling ".to_vec();
    reconciling.extend_from_slice(&msg);
    let mut error = b", \"error\": ".to_vec();
    error.extend_from_slice(&j);
    let mut deadline = b", \"error\": ".to_vec();
    let mut d = b"context deadline exceeded: ".to_vec();
    d.extend_from_slice(evil);
    deadline.extend_from_slice(&json_str(&d));
    line(&mut log, "00:00", "INFO", &reconciling, "slow-1", b"");
    line(&mut log, "00:45", "ERROR", b"Reconciler error", "slow-1", &error);
    line(&mut log, "01:00", "INFO", &reconciling, "deadline-1", b"");
    line(&mut log, "01:01", "ERROR", b"Reconciler error", "deadline-1", &deadline);
    // A day that does not exist: a note naming the file.
    log.extend_from_slice(b"2026-02-30T10:03:00Z\tINFO\tlate\n");
    log
}

/// The same in zap JSON lines, the message a JSON string too.
fn json_log(evil: &[u8]) -> Vec<u8> {
    let j = json_str(evil);
    let mut log = Vec::new();
    for (ts, level, id, error) in [("02:00", "info", "json-1", false), ("02:50", "error", "json-1", true)] {
        log.extend_from_slice(format!("{{\"level\":\"{level}\",\"ts\":\"2026-05-26T10:{ts}Z\",\"msg\":").as_bytes());
        log.extend_from_slice(&j);
        for key in ["controller", "namespace", "name"] {
            log.extend_from_slice(format!(",\"{key}\":").as_bytes());
            log.extend_from_slice(&j);
        }
        log.extend_from_slice(format!(",\"reconcileID\":\"{id}\"").as_bytes());
        if error {
            log.extend_from_slice(b",\"error\":");
            log.extend_from_slice(&j);
        }
        log.extend_from_slice(b"}\n");
    }
    log
}

/// A goroutine dump (as a SIGQUIT prints it) whose frames and creator
/// name a package and a file after `evil`, less what would end a line,
/// and with `_` for spaces (a Go symbol has none).
fn dump(evil: &[u8]) -> Vec<u8> {
    let name = go_name(evil);
    let mut out = b"goroutine 7 [select, 12 minutes]:\nexample.com/".to_vec();
    for part in [&b".(*R).Reconcile(0xc000123456)\n\t/src/"[..], b"/r.go:12 +0x1d\ncreated by example.com/", b".Start in goroutine 1\n\t/src/"] {
        out.extend_from_slice(&name);
        out.extend_from_slice(part);
    }
    out.extend_from_slice(&name);
    out.extend_from_slice(b"/s.go:3 +0x2a\n");
    out
}

/// `evil` as the dump's package name.
fn go_name(evil: &[u8]) -> Vec<u8> {
    evil.iter().filter(|c| !matches!(c, b'\t' | b'\n' | b'\r' | 0)).map(|&c| if c == b' ' { b'_' } else { c }).collect()
}

/// A tar holding the JSON log under a pax name with `evil` in it.
fn archive(evil: &[u8]) -> Vec<u8> {
    let mut path = b"member-".to_vec();
    path.extend_from_slice(evil);
    path.extend_from_slice(b".log");
    let mut record = b" path=".to_vec();
    record.extend_from_slice(&path);
    record.push(b'\n');
    // The record's length counts its own digits.
    let mut n = record.len() + 1;
    while (n.to_string().len() + record.len()) != n {
        n = n.to_string().len() + record.len();
    }
    let mut pax = n.to_string().into_bytes();
    pax.extend_from_slice(&record);
    let mut out = Vec::new();
    tar::tar_entry(&mut out, "PaxHeader", &pax, b'x', 0);
    tar::tar_entry(&mut out, "member.log", &json_log(evil), b'0', 1_780_000_000);
    out.extend_from_slice(&[0u8; 1024]);
    out
}

/// The files of a fake app build, enough for `--html`.
fn fake_app(dir: &Path) {
    for (p, b) in [
        ("index.html", &b"<!doctype html><title>reconscope</title>"[..]),
        ("style-1a2b.css", b"body { color: rebeccapurple }"),
        ("app-1a2b.js", b"function __wbg_init(m) { return m; }\nexport { __wbg_init as default };\n"),
        ("app-1a2b_bg.wasm", b"\0asm\x01\0\0\0fake app module"),
        ("worker.js", b"let wasm_bindgen = (function(){ return () => 1; })();\n"),
        ("worker_bg.wasm", b"\0asm\x01\0\0\0fake worker module"),
    ] {
        std::fs::write(dir.join(p), b).unwrap();
    }
    let files: Vec<(String, Vec<u8>)> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap()).map(|e| (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap())).collect();
    let m = reconscope::htmlreport::manifest(env!("CARGO_PKG_VERSION"), &files).unwrap();
    std::fs::write(dir.join(reconscope::htmlreport::MANIFEST_NAME), m.to_json()).unwrap();
}

struct Case {
    name: &'static str,
    /// `x` + the hostile bytes + `y`.
    evil: Vec<u8>,
    /// The same as the JSON reads it: invalid UTF-8 as U+FFFD.
    text: String,
    root: PathBuf,
    logs: PathBuf,
}

impl Case {
    fn new(i: usize, name: &'static str, bytes: &[u8]) -> Case {
        let evil = [b"x", bytes, b"y"].concat();
        let text = String::from_utf8_lossy(&evil).into_owned();
        let root = std::env::temp_dir().join(format!("reconscope-hostile-{}-{i}", std::process::id()));
        std::fs::remove_dir_all(&root).ok();
        // The folder named on the command line: the artifact's name in
        // the SVG's title and the evidence.
        let logs = root.join(OsStr::from_bytes(&[b"in-", &fs_name(&evil)[..]].concat()));
        std::fs::create_dir_all(&logs).unwrap();
        let file = [b"pod-", &fs_name(&evil)[..], b".log"].concat();
        std::fs::write(logs.join(OsStr::from_bytes(&file)), console_log(&evil)).unwrap();
        std::fs::write(logs.join("logs.tar"), archive(&evil)).unwrap();
        // Dated by its name.
        let dump_file = [b"goroutines-20260526T100030Z-", &fs_name(&evil)[..], b".txt"].concat();
        std::fs::write(logs.join(OsStr::from_bytes(&dump_file)), dump(&evil)).unwrap();
        Case { name, evil, text, root, logs }
    }

    fn run(&self, args: &[&str]) -> std::process::Output {
        let out = Command::new(env!("CARGO_BIN_EXE_reconscope")).args(args).arg(&self.logs).current_dir(&self.root).output().expect("run reconscope");
        assert!(out.status.code() == Some(0), "{}: {args:?}: {}", self.name, String::from_utf8_lossy(&out.stderr));
        out
    }

    /// What the terminal must show for the text: each bad character in
    /// its visible form.
    fn shown(&self) -> String {
        self.text.chars().map(|c| if bad_for_terminal(c) { visible(c) } else { c.to_string() }).collect()
    }
}

/// The bytes a terminal gets: valid UTF-8 with no character it would
/// obey or hide.
fn assert_terminal_inert(case: &str, what: &str, bytes: &[u8]) {
    let text = std::str::from_utf8(bytes).unwrap_or_else(|e| panic!("{case}: {what} is not UTF-8: {e}"));
    if let Some(c) = text.chars().find(|&c| c != '\n' && bad_for_terminal(c)) {
        panic!("{case}: {what} prints {c:?}: {text:.2000}");
    }
}

/// No character a page or a Markdown viewer would obey or hide: controls
/// (tab and newline aside) and bidirectional controls.
fn assert_no_raw(case: &str, what: &str, text: &str) {
    if let Some(c) = text.chars().find(|&c| !matches!(c, '\n' | '\t') && (c.is_control() || is_bidi(c))) {
        let at = text.find(c).unwrap();
        panic!("{case}: {what} holds {c:?} at {at}: {:.300}", &text[at.saturating_sub(100)..]);
    }
}

/// Runs each check of each case, and fails once at the end naming every
/// case and output that failed (each failure's message is printed as it
/// happens).
fn all_of(checks: Vec<(String, Box<dyn FnOnce() + '_>)>) {
    let failed: Vec<String> =
        checks.into_iter().filter_map(|(what, check)| std::panic::catch_unwind(std::panic::AssertUnwindSafe(check)).is_err().then_some(what)).collect();
    assert!(failed.is_empty(), "{} failed: {failed:#?}", failed.len());
}

#[test]
fn hostile_strings_are_inert_in_every_output() {
    let cases: Vec<Case> = hostile().into_iter().enumerate().map(|(i, (name, bytes))| Case::new(i, name, &bytes)).collect();
    let mut checks: Vec<(String, Box<dyn FnOnce()>)> = Vec::new();
    for case in &cases {
        checks.push((format!("{}: text", case.name), Box::new(|| check_text(case))));
        checks.push((format!("{}: json", case.name), Box::new(|| check_json(case))));
        checks.push((format!("{}: reports written", case.name), Box::new(|| write_reports(case))));
        checks.push((format!("{}: markdown", case.name), Box::new(|| check_markdown(case))));
        checks.push((format!("{}: svg", case.name), Box::new(|| check_svg(case))));
        checks.push((format!("{}: html", case.name), Box::new(|| check_html(case))));
        checks.push((format!("{}: evidence", case.name), Box::new(|| check_evidence(case))));
    }
    // The folders go whether the checks pass or not.
    let checked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| all_of(checks)));
    for case in &cases {
        std::fs::remove_dir_all(&case.root).ok();
    }
    if let Err(failed) = checked {
        std::panic::resume_unwind(failed);
    }
}

/// The text output: nothing obeyed, the names shown visibly.
fn check_text(case: &Case) {
    for args in [&["analyze"][..], &["stats"]] {
        let out = case.run(args);
        assert_terminal_inert(case.name, &format!("{args:?} stdout"), &out.stdout);
        assert_terminal_inert(case.name, &format!("{args:?} stderr"), &out.stderr);
        let text = String::from_utf8_lossy(&out.stdout);
        let shown = case.shown();
        if args[0] == "analyze" {
            assert!(text.contains(&format!("  controller {shown} (")), "{}: the controller shown visibly: {shown:.300}\n{text:.3000}", case.name);
            assert!(text.contains("slow-reconcile ") && text.contains("expired-context "), "{}: the findings: {text:.3000}", case.name);
            // A note names the file, shown as it is.
            let file = format!("pod-{}.log", String::from_utf8_lossy(&fs_name(&case.evil)));
            let file_shown: String = file.chars().map(|c| if bad_for_terminal(c) { visible(c) } else { c.to_string() }).collect();
            assert!(
                text.lines().any(|l| l.starts_with("note: ") && l.contains(&file_shown) && l.contains("timestamp is impossible")),
                "{}: the note: {text:.3000}",
                case.name
            );
            // The sentences name the object, shown as it is.
            assert!(text.contains(&format!("Reconcile deadline-1 of {shown}/{shown} ")), "{}: the sentence: {text:.3000}", case.name);
        } else {
            assert!(text.contains(&format!("!/member-{shown}.log\n")), "{}: the member's name shown visibly: {shown:.300}\n{text:.3000}", case.name);
        }
    }
}

/// `--json`: valid JSON, the names as the log wrote them.
fn check_json(case: &Case) {
    let out = case.run(&["analyze", "--json"]);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{}: --json: {e}", case.name));
    let controllers: Vec<&str> = doc["controllers"].as_array().unwrap().iter().filter_map(|c| c["name"].as_str()).collect();
    assert!(controllers.contains(&case.text.as_str()), "{}: controller {:.200?} in {controllers:.300?}", case.name, case.text);
    let object = format!("{0}/{0}", case.text);
    let reconciles = doc["reconciles"].as_array().unwrap();
    assert_eq!(reconciles.len(), 3, "{}: {reconciles:.500?}", case.name);
    assert!(reconciles.iter().all(|r| r["object"] == object.as_str()), "{}: objects {:.500?}", case.name, reconciles);
    let paths: Vec<&str> = doc["inputs"].as_array().unwrap().iter().map(|i| i["path"].as_str().unwrap()).collect();
    let member = format!("logs.tar!/member-{}.log", case.text);
    assert!(paths.iter().any(|p| p.ends_with(&member)), "{}: {member:.300} in {paths:.500?}", case.name);
    let file = format!("pod-{}.log", String::from_utf8_lossy(&fs_name(&case.evil)));
    assert!(paths.iter().any(|p| p.ends_with(&file)), "{}: {file:.300} in {paths:.500?}", case.name);
    let errors: Vec<&str> = reconciles.iter().filter_map(|r| r["error"].as_str()).collect();
    for want in [format!("Reconciler error: {}", case.text), format!("Reconciler error: context deadline exceeded: {}", case.text)] {
        assert!(errors.contains(&want.as_str()), "{}: the error {want:.300?} in {errors:.500?}", case.name);
    }
    let dump = format!("goroutines-20260526T100030Z-{}.txt", String::from_utf8_lossy(&fs_name(&case.evil)));
    let dumps: Vec<&str> = doc["dumps"].as_array().unwrap().iter().map(|d| d["path"].as_str().unwrap()).collect();
    assert!(dumps.len() == 1 && dumps[0].ends_with(&dump), "{}: {dump:.300} in {dumps:.500?}", case.name);
    let func = format!("example.com/{}.(*R).Reconcile", String::from_utf8_lossy(&go_name(&case.evil)));
    let groups = doc["goroutines"].as_array().unwrap();
    assert!(groups.iter().any(|g| g["frames"][0]["func"] == func.as_str()), "{}: {func:.300?} in {groups:.800?}", case.name);
    // The expired context's sentence quotes the reconcile's first message
    // (quotes of up to 80 characters are whole).
    let first = format!("Reconciling {}", String::from_utf8_lossy(&case.evil).replace(['\t', '\n', '\0'], ""));
    if first.chars().count() <= 80 {
        let expired = doc["findings"].as_array().unwrap().iter().find(|f| f["kind"] == "expired-context").unwrap();
        let code: Vec<&str> = expired["pieces"].as_array().unwrap().iter().filter(|p| p["kind"] == "code").map(|p| p["text"].as_str().unwrap()).collect();
        assert!(code.contains(&first.as_str()), "{}: {first:?} quoted in {code:?}", case.name);
        assert!(expired["message"].as_str().unwrap().contains(&format!("`{first}`")), "{}: {first:?} in {expired}", case.name);
    }
    let notes: Vec<&str> = doc["notes"].as_array().unwrap().iter().map(|n| n.as_str().unwrap()).collect();
    assert!(notes.iter().any(|n| n.contains(&file) && n.contains("timestamp is impossible")), "{}: a note names {file:.300} in {notes:.800?}", case.name);
    let kinds: Vec<&str> = doc["findings"].as_array().unwrap().iter().map(|f| f["kind"].as_str().unwrap()).collect();
    assert!(kinds.contains(&"slow-reconcile") && kinds.contains(&"expired-context"), "{}: {kinds:?}", case.name);

    let out = case.run(&["stats", "--json"]);
    let stats: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{}: stats --json: {e}", case.name));
    let stats_paths: Vec<&str> = stats["inputs"].as_array().unwrap().iter().map(|i| i["path"].as_str().unwrap()).collect();
    assert_eq!(stats_paths, paths, "{}: stats names the same inputs", case.name);
}

/// One run writing the Markdown, the SVG and the HTML report; the
/// checks below read them.
fn write_reports(case: &Case) {
    let app = case.root.join("dist");
    std::fs::create_dir_all(&app).unwrap();
    fake_app(&app);
    let out = case.run(&[
        "analyze",
        "--markdown",
        case.root.join("r.md").to_str().unwrap(),
        "--svg",
        case.root.join("r.svg").to_str().unwrap(),
        "--html",
        case.root.join("r.html").to_str().unwrap(),
        "--app-dir",
        app.to_str().unwrap(),
        "--app-url",
        "https://app.example/",
    ]);
    assert_terminal_inert(case.name, "analyze with files", &out.stdout);
}

fn check_markdown(case: &Case) {
    let md = std::fs::read_to_string(case.root.join("r.md")).unwrap();
    assert_no_raw(case.name, "the Markdown", &md);
    let html = gfm::render(&md);
    gfm::assert_inert(&html, &["https://app.example/#*"]);
    gfm::assert_tables_square(&html);
    gfm::details(&html);
    assert!(md.contains("slow-reconcile") && md.contains("expired-context"), "{}: {md:.3000}", case.name);
    // A mention would notify someone: in code, or kept apart from its
    // word by a zero-width space.
    for (i, _) in html.match_indices("@mention") {
        let before = &html[..i];
        let in_code = before.matches("<code>").count() > before.matches("</code>").count();
        assert!(in_code || before.ends_with('\u{200b}'), "{}: a live mention: {:.200}", case.name, &html[i.saturating_sub(100)..]);
    }
}

fn check_svg(case: &Case) {
    let svg = std::fs::read_to_string(case.root.join("r.svg")).unwrap();
    let doc = roxmltree::Document::parse(&svg).unwrap_or_else(|e| panic!("{}: the SVG is not XML: {e}", case.name));
    for node in doc.descendants() {
        if let Some(t) = node.text() {
            assert_no_raw(case.name, "an SVG text", t);
        }
        for a in node.attributes() {
            assert_no_raw(case.name, "an SVG attribute", a.value());
        }
    }
    // The title names the folder, as XML allows: controls, bidi controls
    // and U+FFFE/U+FFFF as U+FFFD, line breaks and tabs as spaces.
    let folder: String = format!("in-{}", String::from_utf8_lossy(&fs_name(&case.evil)))
        .chars()
        .map(|c| match c {
            '\t' | '\n' | '\r' => ' ',
            c if c.is_control() || is_bidi(c) || matches!(c, '\u{fffe}' | '\u{ffff}') => '\u{fffd}',
            c => c,
        })
        .take(20)
        .collect();
    let title = doc.root_element().children().find(|n| n.has_tag_name("title")).and_then(|n| n.text()).unwrap_or_default();
    assert!(title.starts_with(&folder), "{}: the title {title:?} names {folder:?}", case.name);
    // The rows' labels show the names as the app does: bad characters
    // in their visible form (a long name is cut in the middle), and the
    // two characters XML 1.0 forbids that are not controls as U+FFFD.
    let start: String = inert::label(&case.text).chars().take(12).map(|c| if matches!(c, '\u{fffe}' | '\u{ffff}') { '\u{fffd}' } else { c }).collect();
    let texts: Vec<&str> = doc.descendants().filter(|n| n.has_tag_name("text")).filter_map(|n| n.text()).collect();
    assert!(texts.iter().any(|t| t.starts_with(&start)), "{}: a row label starting {start:?} in {texts:.1000?}", case.name);
}

fn check_html(case: &Case) {
    let report = std::fs::read_to_string(case.root.join("r.html")).unwrap();
    // Outside the base64 of each inlined script there is only the app's
    // page: nothing from the logs.
    let mut outside = String::new();
    let mut names = Vec::new();
    let mut rest = report.as_str();
    while let Some(i) = rest.find("<script") {
        outside.push_str(&rest[..i]);
        let open = &rest[i..i + rest[i..].find('>').unwrap() + 1];
        outside.push_str(open);
        if let Some(n) = open.split("data-name=\"").nth(1) {
            names.push(n[..n.find('"').unwrap()].to_string());
        }
        let end = rest[i..].find("</script>").unwrap() + i;
        let body = &rest[i + open.len()..end];
        if open.contains("application/octet-stream") {
            assert!(body.bytes().all(|b| b.is_ascii_alphanumeric() || b"+/=".contains(&b)), "{}: an inlined input is base64", case.name);
        }
        rest = &rest[end..];
    }
    outside.push_str(rest);
    assert_no_raw(case.name, "the HTML report", &report);
    for bad in ["alert(", "onerror", "javascript:", "日本語", "]]>", "&amp;&lt;"] {
        assert!(!outside.contains(bad), "{}: {bad} in the report's page: {outside:.2000}", case.name);
    }
    assert_eq!(report.matches("<script").count(), report.matches("</script>").count(), "{}", case.name);
    // Each input's name, base64 too, reads back as the file's.
    let mut names: Vec<String> = names.iter().map(|n| String::from_utf8(base64_decode(n)).unwrap()).collect();
    names.sort();
    let fs = String::from_utf8_lossy(&fs_name(&case.evil)).into_owned();
    let want = [format!("in-{fs}/goroutines-20260526T100030Z-{fs}.txt"), format!("in-{fs}/logs.tar"), format!("in-{fs}/pod-{fs}.log")];
    assert_eq!(names, want, "{}: the inputs inlined", case.name);
}

/// Standard base64 (with padding) back to bytes.
fn base64_decode(s: &str) -> Vec<u8> {
    const ABC: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = Vec::new();
    let (mut acc, mut bits) = (0u32, 0);
    for c in s.bytes().take_while(|&c| c != b'=') {
        acc = acc << 6 | ABC.iter().position(|&a| a == c).expect("a base64 character") as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    out
}

/// `share --file`: the evidence slice holds the names as the log had them,
/// and reads back.
fn check_evidence(case: &Case) {
    let file = case.root.join("ev.reconscope");
    let out = case.run(&["share", "--finding", "expired-context", "--app-url", "https://app.example/", "--file", file.to_str().unwrap()]);
    assert_terminal_inert(case.name, "share stdout", &out.stdout);
    assert_terminal_inert(case.name, "share stderr", &out.stderr);
    let ev =
        reconscope::evidence::from_payload(&std::fs::read_to_string(&file).unwrap()).unwrap_or_else(|e| panic!("{}: the evidence reads back: {e}", case.name));
    assert!(ev.analysis.controllers.iter().any(|c| c.name == case.text), "{}: the controller in the evidence", case.name);
    assert_eq!(ev.meta.artifact, format!("in-{}", String::from_utf8_lossy(&fs_name(&case.evil))), "{}: the artifact", case.name);
    assert!(
        ev.files.iter().any(|f| f.path.contains(&format!("pod-{}.log", String::from_utf8_lossy(&fs_name(&case.evil))))),
        "{}: the file in the evidence",
        case.name
    );
}

/// What the app shows, natively: the timeline's labels (rows, markers,
/// bands, dumps) and `inert::label` over each string.
#[test]
fn hostile_strings_are_inert_in_the_apps_labels() {
    let table = hostile();
    all_of(table.iter().map(|(name, bytes)| (name.to_string(), Box::new(move || check_labels(name, bytes)) as Box<dyn FnOnce()>)).collect());
}

fn check_labels(name: &str, bytes: &[u8]) {
    {
        let evil = [b"x", bytes, b"y"].concat();
        let text = String::from_utf8_lossy(&evil).into_owned();
        let label = inert::label(&text);
        assert_no_raw(name, "inert::label", &label);
        // Nothing but the bad characters changes, each shown visibly.
        let shown: String = text.chars().map(|c| if c != '\t' && (c.is_control() || is_bidi(c)) { visible(c) } else { c.to_string() }).collect();
        assert_eq!(label, shown, "{name}");

        let mut files = vec![
            parse_file(format!("pod-{text}.log"), console_log(&evil), &ParseOptions::default()),
            parse_file(format!("logs.tar!/member-{text}.log"), json_log(&evil), &ParseOptions::default()),
            // Its date is in its file's name, the last part of the path
            // (after a `/` or, as in a zip made on Windows, a `\`).
            parse_file(format!("goroutines-20260526T100030Z-{}.txt", text.replace(['/', '\\'], "_")), dump(&evil), &ParseOptions::default()),
        ];
        resolve_years(&mut files);
        let (a, _) = analyze(&files, &AnalyzeOptions::default());
        assert_eq!(a.reconciles.len(), 3, "{name}");
        let t = layout(&a, &LayoutOptions::default());
        assert!(!t.rows.is_empty(), "{name}");
        assert_eq!(t.dumps.len(), 1, "{name}: the dump, dated by its file's name");
        let labels = t
            .rows
            .iter()
            .map(|r| &r.label)
            .chain(t.markers.iter().map(|m| &m.label))
            .chain(t.bands.iter().map(|b| &b.label))
            .chain(t.dumps.iter().map(|d| &d.label));
        for l in labels {
            assert_no_raw(name, "a timeline label", l);
        }
        assert!(t.rows.iter().any(|r| r.label.contains(&label.as_ref()[..label.len().min(200)])), "{name}: a row names the object visibly");

        // The page's status, notices and progress line, as the state core
        // keeps them for the page to show as they are.
        let (mut s, _) = AppState::new("https://app.example/", "", 0.0);
        s.reduce(Action::Chosen(vec![InputInfo { name: text.clone(), size: 5 }]), 1.0);
        assert_eq!(s.loading.as_ref().unwrap().progress.current, label, "{name}: the progress line's file");
        let worker = s.workers.load.unwrap();
        let progress =
            Progress { phase: Phase::Parsing, done_bytes: 5, total_bytes: 5, files_done: 0, files: 1, current: text.clone(), slices: 1, cut_at: None };
        s.reduce(Action::Worker(worker, FromWorker::Progress(progress)), 2.0);
        assert_eq!(s.loading.as_ref().unwrap().progress.current, label, "{name}: the worker's progress");
        s.reduce(Action::Notice(format!("Saving {text} failed")), 3.0);
        assert_eq!(s.notice, Some(format!("Saving {label} failed")), "{name}: a notice");
        s.reduce(Action::Worker(worker, FromWorker::Failed { message: text.clone() }), 4.0);
        assert_eq!(s.status.as_deref(), Some(label.as_ref()), "{name}: the worker's failure");
        s.reduce(Action::Failed(text.clone()), 5.0);
        assert_eq!(s.status.as_deref(), Some(label.as_ref()), "{name}: a failure");
    }
}
