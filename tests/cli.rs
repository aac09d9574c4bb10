//! The native CLI as a user runs it: output shapes and exit codes.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};

use reconscope::htmlreport;

#[path = "support/gfm.rs"]
mod gfm;

fn reconscope(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_reconscope")).args(args).current_dir(env!("CARGO_MANIFEST_DIR")).output().expect("run reconscope")
}

/// Runs the CLI in `dir` (a folder with no dist/ of its own).
fn reconscope_in(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_reconscope")).args(args).current_dir(dir).output().expect("run reconscope")
}

/// A fresh, empty folder for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("reconscope-{name}-{}", std::process::id()));
    std::fs::remove_dir_all(&dir).ok();
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A small log of the corpus, by absolute path.
fn corpus_log() -> String {
    format!("{}/tests/corpus/kamaji/issue950_startup_and_error.log", env!("CARGO_MANIFEST_DIR"))
}

/// The files of a fake app build (what `htmlreport::build` can inline), as
/// trunk's dist/ has them, without the manifest.
fn fake_app() -> Vec<(String, Vec<u8>)> {
    [
        ("index.html", &b"<!doctype html><title>reconscope</title>"[..]),
        ("boot.js", b"// not needed by the report"),
        ("style-1a2b.css", b"body { color: rebeccapurple }"),
        (
            "app-1a2b.js",
            b"import * as import1 from \"./snippets/x-1/inline0.js\"\nfunction __wbg_init(m) { return import1.f(m); }\nexport { __wbg_init as default };\n",
        ),
        ("app-1a2b_bg.wasm", b"\0asm\x01\0\0\0fake app module"),
        ("snippets/x-1/inline0.js", b"export function f(x) { return x; }\n"),
        ("worker.js", b"let wasm_bindgen = (function(){ return () => 1; })();\n"),
        ("worker_bg.wasm", b"\0asm\x01\0\0\0fake worker module\xff"),
    ]
    .iter()
    .map(|(p, b)| (p.to_string(), b.to_vec()))
    .collect()
}

/// `files` plus the manifest the app build writes for them.
fn with_manifest(files: &[(String, Vec<u8>)]) -> Vec<(String, Vec<u8>)> {
    let m = htmlreport::manifest(env!("CARGO_PKG_VERSION"), files).unwrap();
    let mut out = files.to_vec();
    out.push((htmlreport::MANIFEST_NAME.to_string(), m.to_json().into_bytes()));
    out
}

/// Serves `files` under /app/ on 127.0.0.1 from a thread (one request per
/// connection, 404 for anything else); returns the app's URL and the paths
/// asked for.
fn serve(files: Vec<(String, Vec<u8>)>) -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let asked = Arc::new(Mutex::new(Vec::new()));
    let log = asked.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut req = Vec::new();
            let mut buf = [0u8; 1024];
            while !req.windows(4).any(|w| w == b"\r\n\r\n") {
                match stream.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => req.extend_from_slice(&buf[..n]),
                }
            }
            let head = String::from_utf8_lossy(&req).lines().next().unwrap_or("").to_string();
            let path = head.split(' ').nth(1).unwrap_or("").to_string();
            let found = path.strip_prefix("/app/").and_then(|p| files.iter().find(|(n, _)| n == p));
            let (status, body) = match found {
                Some((_, b)) => ("200 OK", b.clone()),
                None => ("404 Not Found", b"not found".to_vec()),
            };
            log.lock().unwrap().push(path);
            let head = format!("HTTP/1.1 {status}\r\nContent-Type: application/octet-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", body.len());
            stream.write_all(head.as_bytes()).ok();
            stream.write_all(&body).ok();
        }
    });
    (format!("http://127.0.0.1:{port}/app/"), asked)
}

#[test]
fn html_report_with_the_app_fetched_from_app_url() {
    let dir = scratch("app-url");
    let app = fake_app();
    let (url, asked) = serve(with_manifest(&app));
    let log = corpus_log();
    let out = reconscope_in(&dir, &["analyze", &log, "--html", "fetched.html", "--app-url", &url]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    let html = std::fs::read_to_string(dir.join("fetched.html")).unwrap();
    // Every file the report needs was fetched (the manifest first), nothing else.
    let asked = asked.lock().unwrap().clone();
    assert_eq!(asked[0], "/app/reconscope-manifest.json");
    let mut want: Vec<String> = app.iter().filter(|(p, _)| p != "boot.js").map(|(p, _)| format!("/app/{p}")).collect();
    want.sort();
    assert_eq!(asked[1..], want[..]);
    // Inlined: the style, the app glue with its snippet, both wasm modules, the worker glue.
    let file = |name: &str| &app.iter().find(|(p, _)| p == name).unwrap().1;
    assert!(html.contains("<style>body { color: rebeccapurple }</style>"));
    assert!(html.contains("function __wbg_init(m)") && html.contains("return { f };"));
    for name in ["app-1a2b_bg.wasm", "worker_bg.wasm", "worker.js"] {
        assert!(html.contains(&htmlreport::base64(file(name))), "{name} inlined");
    }
    assert!(!html.contains(&url), "the report itself does not load from the URL");
    // The app's page or folder without its slash name the same app.
    for other in [format!("{url}index.html#w=1"), url.trim_end_matches('/').to_string()] {
        let out = reconscope_in(&dir, &["analyze", &log, "--html", "again.html", "--app-url", &other]);
        assert_eq!(out.status.code(), Some(0), "{other}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(std::fs::read_to_string(dir.join("again.html")).unwrap() == html, "{other}");
    }
    // The same report as from the same files on disk (--app-dir).
    let app_dir = dir.join("app");
    for (p, b) in &app {
        std::fs::create_dir_all(app_dir.join(p).parent().unwrap()).unwrap();
        std::fs::write(app_dir.join(p), b).unwrap();
    }
    let out = reconscope_in(&dir, &["analyze", &log, "--html", "local.html", "--app-dir", "app"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(std::fs::read_to_string(dir.join("local.html")).unwrap() == html, "fetched and local reports differ");
    // A local app build comes first: with ./dist, --app-url is not used.
    std::fs::rename(&app_dir, dir.join("dist")).unwrap();
    let (down, _) = dead_url();
    let out = reconscope_in(&dir, &["analyze", &log, "--html", "dist.html", "--app-url", &down]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(std::fs::read_to_string(dir.join("dist.html")).unwrap() == html);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_fetched_file_that_differs_from_the_manifest_is_exit_2() {
    let dir = scratch("app-url-tampered");
    let app = fake_app();
    let mut served = with_manifest(&app);
    // Same size, one byte changed after the manifest was written.
    let wasm = served.iter_mut().find(|(p, _)| p == "worker_bg.wasm").unwrap();
    let last = wasm.1.len() - 1;
    wasm.1[last] ^= 0x55;
    let (url, _) = serve(served);
    let out = reconscope_in(&dir, &["analyze", &corpus_log(), "--html", "out.html", "--json", "--app-url", &url]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains(&url) && err.contains("worker_bg.wasm") && err.contains("sha256 differs"), "{err}");
    assert!(err.contains("redeploy") && err.contains("--app-dir"), "says what to do: {err}");
    assert!(!dir.join("out.html").exists(), "no report written");
    assert!(out.stdout.is_empty(), "nothing half-printed");
    // A file cut short: the size.
    let mut served = with_manifest(&app);
    served.iter_mut().find(|(p, _)| p == "app-1a2b.js").unwrap().1.pop();
    let (url, _) = serve(served);
    let out = reconscope_in(&dir, &["analyze", &corpus_log(), "--html", "out.html", "--app-url", &url]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("app-1a2b.js") && err.contains("bytes, but the manifest says"), "{err}");
    // A file the manifest lists that the site lacks.
    let served: Vec<_> = with_manifest(&app).into_iter().filter(|(p, _)| p != "style-1a2b.css").collect();
    let (url, _) = serve(served);
    let out = reconscope_in(&dir, &["analyze", &corpus_log(), "--html", "out.html", "--app-url", &url]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&format!("{url}style-1a2b.css")) && err.contains("HTTP 404"), "{err}");
    assert!(!dir.join("out.html").exists());
    std::fs::remove_dir_all(&dir).ok();
}

/// The URL of a port nothing listens on (it was bound, then let go).
fn dead_url() -> (String, u16) {
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    (format!("http://127.0.0.1:{port}/app/"), port)
}

#[test]
fn html_report_without_a_reachable_app_is_exit_2() {
    let dir = scratch("app-url-down");
    let log = corpus_log();
    // The server is down.
    let (url, port) = dead_url();
    let out = reconscope_in(&dir, &["analyze", &log, "--html", "out.html", "--app-url", &url]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains(&format!("127.0.0.1:{port}/app/reconscope-manifest.json")) && err.contains("cannot fetch"), "{err}");
    assert!(err.contains("--app-dir"), "{err}");
    // A site without a manifest (an app built before manifests, or no app at all).
    let (url, _) = serve(fake_app());
    let out = reconscope_in(&dir, &["analyze", &log, "--html", "out.html", "--app-url", &url]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("reconscope-manifest.json: HTTP 404") && err.contains("Pages workflow"), "{err}");
    // Something else answers with a page, not a manifest.
    let (url, _) = serve(vec![(htmlreport::MANIFEST_NAME.into(), b"<!doctype html><h1>Site not found</h1>".to_vec())]);
    let out = reconscope_in(&dir, &["analyze", &log, "--html", "out.html", "--app-url", &url]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not a reconscope manifest"), "{err}");
    // Not an http(s) URL.
    let out = reconscope_in(&dir, &["analyze", &log, "--html", "out.html", "--app-url", "file:///tmp/dist"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not the http(s) URL"));
    // No app anywhere and no --app-url: the line names the ways to get one.
    let out = reconscope_in(&dir, &["analyze", &log, "--html", "out.html"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("make build") && err.contains("--app-url URL") && err.contains("--app-dir DIR"), "{err}");
    assert!(!dir.join("out.html").exists());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn stats_json_has_the_documented_shape() {
    let out = reconscope(&["stats", "tests/corpus/kamaji/issue950_startup_and_error.log", "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let f = &v["inputs"][0];
    assert_eq!(f["path"], "tests/corpus/kamaji/issue950_startup_and_error.log");
    assert_eq!(f["unparsed"], 0);
    assert!(f["records"].as_u64().unwrap() >= 5);
    assert!(f["formats"]["zap-console"].as_u64().unwrap() >= 5);
    assert_eq!(f["first"], "2025-09-06T23:50:07Z");
    assert!(f["bytes"].as_u64().unwrap() > 0 && f["last"].is_string());
}

/// `--utc-offset` places times written without a zone: the capnslog file's
/// first line is `2016-12-13 11:16:21.420835 I | etcdmain: ...`.
#[test]
fn utc_offset_places_zoneless_times() {
    let log = "tests/corpus/etcd/capnslog_etcd2_startup_issue6980.log";
    for (offset, first) in [
        (None, "2016-12-13T11:16:21.420835Z"),
        (Some("2"), "2016-12-13T09:16:21.420835Z"),
        (Some("-5.5"), "2016-12-13T16:46:21.420835Z"),
        (Some("+05:30"), "2016-12-13T05:46:21.420835Z"),
        (Some("-08:00"), "2016-12-13T19:16:21.420835Z"),
        (Some("12"), "2016-12-12T23:16:21.420835Z"),
    ] {
        let mut args = vec!["stats", log, "--json"];
        args.extend(offset.iter().flat_map(|o| ["--utc-offset", *o]));
        let out = reconscope(&args);
        assert!(out.status.success(), "{offset:?}: {}", String::from_utf8_lossy(&out.stderr));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["inputs"][0]["first"], first, "{offset:?}");
    }
}

/// An offset that is none (a day or more, not a number) is bad usage, not
/// a silent shift of every time (`1e12` hours once moved them 68 years back).
#[test]
fn bad_utc_offsets_exit_2() {
    let log = "tests/corpus/etcd/capnslog_etcd2_startup_issue6980.log";
    for bad in ["1e12", "24", "-24", "NaN", "inf", "+24:00", "+05:60", "two", ""] {
        let out = reconscope(&["stats", log, "--utc-offset", bad]);
        assert_eq!(out.status.code(), Some(2), "{bad:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{bad:?}: {err}");
        assert!(err.contains("--utc-offset") && err.contains(&format!("`{bad}`")), "{bad:?}: {err}");
        assert!(out.stdout.is_empty(), "{bad:?}");
    }
}

#[test]
fn unreadable_input_exits_2_with_one_line_naming_it() {
    let out = reconscope(&["stats", "tests/corpus/kamaji/issue950_startup_and_error.log", "no/such/file.log"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("no/such/file.log"), "{err}");
    assert!(out.stdout.is_empty(), "nothing half-printed");
}

#[test]
fn bad_usage_exits_2() {
    for args in [&["frobnicate"][..], &["stats"], &["analyze", "--reconcile-timeout", "soon", "x"], &["analyze", "--workers", "tcp", "x"]] {
        let out = reconscope(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&out.stderr).lines().count(), 1, "{args:?}");
    }
}

#[test]
fn analyze_json_of_the_incident_folder() {
    let out = reconscope(&["analyze", "tests/fixtures/incident/cozyreport", "--json", "--reconcile-timeout", "30s"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stderr.is_empty(), "no progress output when stderr is not a terminal");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["schema"], "reconscope.analysis/v1");
    let kinds: Vec<&str> = v["findings"].as_array().unwrap().iter().map(|f| f["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds.iter().filter(|k| **k == "stalled-worker").count(), 1, "{kinds:?}");
    assert_eq!(kinds.iter().filter(|k| **k == "expired-context").count(), 2, "{kinds:?}");
    assert_eq!(kinds.iter().filter(|k| **k == "stuck-deletion").count(), 1, "{kinds:?}");
    // Each message in pieces: code in backticks, as the message has it.
    for f in v["findings"].as_array().unwrap() {
        let joined: String = f["pieces"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| match p["kind"].as_str().unwrap() {
                "text" => p["text"].as_str().unwrap().to_string(),
                _ => format!("`{}`", p["text"].as_str().unwrap().replace('\n', " ")),
            })
            .collect();
        assert_eq!(f["message"], joined.as_str());
    }
    // The error line's message and its error value, quoted apart.
    let stall = &v["findings"][0]["pieces"];
    assert_eq!(
        stall.as_array().unwrap()[1..4],
        [
            serde_json::json!({"kind": "code", "text": "unable to create the DataStore user"}),
            serde_json::json!({"kind": "text", "text": ": "}),
            serde_json::json!({"kind": "code", "text": "unable to check if user exists: cannot check if user exists: context deadline…"}),
        ]
    );
}

#[test]
fn a_damaged_archive_still_yields_its_readable_members() {
    // A gzip cut in half: what inflated before the cut is parsed, and a note names it.
    let dir = std::env::temp_dir().join(format!("reconscope-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = std::fs::read("tests/fixtures/incident/cozyreport/kamaji/kamaji-controller.log").unwrap();
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut enc, &log).unwrap();
    let gz = enc.finish().unwrap();
    let path = dir.join("kamaji.log.gz");
    std::fs::write(&path, &gz[..gz.len() / 2]).unwrap();
    let out = reconscope(&["stats", path.to_str().unwrap(), "--json"]);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["inputs"][0]["records"].as_u64().unwrap() > 100);
    let notes = v["notes"].to_string();
    assert!(notes.contains("kamaji.log.gz"), "{notes}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn fail_on_sets_exit_code_1() {
    let dir = "tests/fixtures/incident/cozyreport";
    let out = reconscope(&["analyze", dir, "--fail-on", "stalled-worker"]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let out = reconscope(&["analyze", dir, "--fail-on", "hot-loop,error-burst"]);
    assert_eq!(out.status.code(), Some(0));
    let out = reconscope(&["analyze", dir, "--fail-on", "stalled-workers"]);
    assert_eq!(out.status.code(), Some(2), "unknown kind is bad usage");
}

/// The text summary counts in words: `1 worker`, never `1 workers`.
#[test]
fn the_text_summary_says_one_worker_in_the_singular() {
    let out = reconscope(&["analyze", "tests/fixtures/incident/cozyreport"]);
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().take(4).collect();
    assert_eq!(
        lines,
        [
            "7 files, 359 reconciles, 3 controller instances, 2 etcd elections",
            "  controller secret (1 worker, inferred): 23 reconciles",
            // The stall and the two expired contexts.
            "  controller tenantcontrolplane (1 worker, inferred): 334 reconciles, 3 failed",
            "  controller tenantcontrolplane (soot manager) (1 worker, inferred): 2 reconciles",
        ],
        "{text}"
    );
}

/// The Markdown report of the incident, compared with the stored golden
/// copy (`UPDATE_GOLDEN=1 cargo test --test cli` rewrites it).
#[test]
fn markdown_report_of_the_incident_is_golden() {
    let out = reconscope(&["analyze", "tests/fixtures/incident/cozyreport", "--markdown", "-", "--app-url", "https://example.org/reconscope/"]);
    assert!(out.status.success());
    let got = String::from_utf8(out.stdout).unwrap();
    // Each finding links to its evidence; the payloads (which hold the
    // time they were taken) are checked here and stand as `#ev=…` in the
    // golden copy.
    let mut payloads = 0;
    let mut normalised = String::new();
    let mut rest = got.as_str();
    while let Some(at) = rest.find("#ev=") {
        normalised.push_str(&rest[..at + 4]);
        rest = &rest[at + 4..];
        let end = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_')).unwrap_or(rest.len());
        let ev = reconscope::evidence::from_payload(&rest[..end]).expect("an evidence link decodes");
        assert_eq!(ev.meta.artifact, "cozyreport");
        assert!(ev.meta.finding.is_some() && !ev.analysis.reconciles.is_empty());
        assert!(end + 200 < reconscope::evidence::MAX_LINK_BYTES);
        normalised.push('…');
        rest = &rest[end..];
        payloads += 1;
    }
    normalised.push_str(rest);
    assert_eq!(payloads, 5, "one evidence link per finding");
    let got = normalised;
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/incident.md");
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, &got).unwrap();
    }
    let want = std::fs::read_to_string(&path).expect("golden file; run with UPDATE_GOLDEN=1 once");
    assert_eq!(got, want);
    // Every table row has the same number of cells as its header.
    let mut cols = 0;
    for l in got.lines() {
        if l.starts_with("|---") {
            continue;
        }
        if l.starts_with('|') {
            let n = l.replace("\\|", "").matches('|').count();
            if cols == 0 {
                cols = n;
            }
            assert_eq!(n, cols, "{l}");
        } else {
            cols = 0;
        }
    }
}

#[test]
fn hostile_log_text_stays_inert_in_markdown() {
    let dir = std::env::temp_dir().join(format!("reconscope-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let evil = r#"boom | <script>alert(1)</script> [click](https://evil.example) ![x](http://e/x.png) **bold** `code` www.evil.example"#;
    let line = |ts: &str, level: &str, msg: &str, rid: &str| {
        format!(
            "{ts}\t{level}\t{msg}\t{{\"controller\": \"w|<b>\", \"namespace\": \"ns\", \"name\": \"o|<i>\", \"reconcileID\": \"{rid}\", \"error\": \"{}\"}}\n",
            evil.replace('"', "\\\"")
        )
    };
    let mut log = String::new();
    for i in 0..12 {
        log += &line(&format!("2026-05-26T10:00:{:02}Z", i), "ERROR", evil, &format!("r{i}"));
    }
    let path = dir.join("evil.log");
    std::fs::write(&path, log).unwrap();
    let svg_path = dir.join("evil.svg");
    let out = reconscope(&["analyze", path.to_str().unwrap(), "--markdown", "-", "--svg", svg_path.to_str().unwrap()]);
    assert!(out.status.success());
    let svg = std::fs::read_to_string(&svg_path).unwrap();
    assert!(!svg.contains("<script") && !svg.contains("<i>") && svg.contains("&lt;i&gt;"), "log text is SVG text, not markup");
    assert_well_formed(&svg);
    let md = String::from_utf8(out.stdout).unwrap();
    assert!(md.contains("boom"), "{md}");
    // Rendered as GitHub does: no element, link or image from the log, the
    // error in a code span, every table square.
    let html = gfm::render(&md);
    gfm::assert_inert(&html, &[]);
    gfm::assert_tables_square(&html);
    assert!(html.contains(&format!("<td><code>{}", gfm::html_escape(evil))), "{html}");
    assert!(html.contains("<td>ns/o|&lt;i&gt;</td>"), "{html}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn svg_timeline_of_the_incident() {
    let path = std::env::temp_dir().join(format!("reconscope-{}.svg", std::process::id()));
    let out = reconscope(&["analyze", "tests/fixtures/incident/cozyreport", "--svg", path.to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let reconciles = v["reconciles"].as_array().unwrap().len();
    let svg = std::fs::read_to_string(&path).unwrap();
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    // One <rect> per reconcile, plus bands, row backgrounds and highlights.
    assert!(svg.matches("<rect").count() >= reconciles, "{} rects for {reconciles} reconciles", svg.matches("<rect").count());
    assert!(
        svg.contains(">tenant-test/kubernetes-test-latest-version<") && svg.contains(">tenant-test/kubernetes-test-previous-version<"),
        "row labels in full"
    );
    assert!(svg.contains(">cozyreport · 2026-05-26 "), "the title: artifact and date");
    assert!(svg.contains(">stalled-worker 20m37s<") && svg.contains(">stuck-deletion 31m06s<"), "finding labels");
    assert!(svg.contains(">etcd tenant-root: term 8") && svg.contains(">etcd tenant-root: term 9"), "election terms");
    assert!(svg.contains(r#"fill="url(#latent-error)""#), "the stall's hatched bar");
    assert!(svg.contains(">\n16:30\n<") || svg.contains("16:30"), "time axis labels");
    assert_eq!(svg.matches("<svg").count(), 1);
    assert!(!svg.contains("<script"));
    assert_well_formed(&svg);
    let golden = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/incident.svg");
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&golden, &svg).unwrap();
    }
    assert_eq!(svg, std::fs::read_to_string(&golden).expect("golden file; run with UPDATE_GOLDEN=1 once"));
    std::fs::remove_file(&path).ok();
}

#[test]
fn png_timeline_of_the_incident() {
    let dir = std::env::temp_dir().join(format!("reconscope-png-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (png, svg) = (dir.join("t.png"), dir.join("t.svg"));
    let out = reconscope(&["analyze", "tests/fixtures/incident/cozyreport", "--png", png.to_str().unwrap(), "--svg", svg.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let bytes = std::fs::read(&png).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "PNG signature");
    assert_eq!(&bytes[12..16], b"IHDR");
    let (w, h) = (u32::from_be_bytes(bytes[16..20].try_into().unwrap()), u32::from_be_bytes(bytes[20..24].try_into().unwrap()));
    // Twice the SVG's size, which is 1200 px wide.
    let svg = std::fs::read_to_string(&svg).unwrap();
    let attr = |name: &str| -> u32 { svg.split(&format!(" {name}=\"")).nth(1).unwrap().split('"').next().unwrap().parse().unwrap() };
    assert_eq!(attr("width"), 1200);
    assert_eq!((w, h), (2 * attr("width"), 2 * attr("height")));
    // Drawn, not blank: more than a few kilobytes of compressed pixels.
    assert!(bytes.len() > 50_000, "{} bytes", bytes.len());

    // No font to draw text with: exit 2 and one line, not a picture without text.
    let empty = dir.join("no-fonts");
    std::fs::create_dir_all(&empty).unwrap();
    let conf = dir.join("fonts.conf");
    std::fs::write(&conf, format!("<?xml version=\"1.0\"?>\n<fontconfig><dir>{}</dir></fontconfig>\n", empty.display())).unwrap();
    let nofont = dir.join("nofont.png");
    let out = Command::new(env!("CARGO_BIN_EXE_reconscope"))
        .args(["analyze", "tests/fixtures/incident/cozyreport", "--png", nofont.to_str().unwrap()])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("FONTCONFIG_FILE", &conf)
        .env("HOME", &empty)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("--png") && err.contains("font"), "{err}");
    assert!(!nofont.exists());
    assert!(out.stdout.is_empty(), "checked before the analysis: nothing printed");
    std::fs::remove_dir_all(&dir).ok();
}

/// Tags open and close in order, and text holds no raw `<` or `&`.
fn assert_well_formed(xml: &str) {
    let mut stack: Vec<String> = Vec::new();
    let mut rest = xml;
    while let Some(i) = rest.find('<') {
        let text = &rest[..i];
        assert!(!text.contains('>'), "stray > in text: {text}");
        for (k, _) in text.match_indices('&') {
            let ent = &text[k..];
            assert!(["&lt;", "&gt;", "&amp;", "&quot;", "&apos;", "&#"].iter().any(|e| ent.starts_with(e)), "raw & in text: {ent:.20}");
        }
        let end = rest[i..].find('>').expect("unclosed tag") + i;
        let tag = &rest[i + 1..end];
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(stack.pop().as_deref(), Some(name.trim()), "mismatched </{name}>");
        } else if !tag.ends_with('/') && !tag.starts_with('?') && !tag.starts_with('!') {
            stack.push(tag.split_whitespace().next().unwrap_or("").to_string());
        }
        rest = &rest[end + 1..];
    }
    assert!(stack.is_empty(), "unclosed: {stack:?}");
}

#[test]
fn help_has_examples() {
    let out = reconscope(&["--help"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("EXAMPLES:") && text.contains("reconscope analyze cozyreport.zip --markdown"), "{text}");
}

/// A pod-log export as people copy them: symbolic links inside the tree
/// (read once), to a file outside it (never read: it could be a
/// credentials file, inlined in `--html`), a loop, a dangling link and a
/// FIFO. Each is noted by name and the real logs are all read.
#[test]
fn the_folder_walk_stays_inside_and_notes_what_it_leaves_out() {
    use std::os::unix::fs::symlink;
    let root = scratch("walk");
    let logs = root.join("logs");
    std::fs::create_dir_all(logs.join("sub")).unwrap();
    std::fs::copy(corpus_log(), logs.join("a.log")).unwrap();
    std::fs::copy(corpus_log(), logs.join("sub/b.log")).unwrap();
    std::fs::write(root.join("secret.txt"), "aws_secret_access_key=hunter2-never-read\n").unwrap();
    symlink("a.log", logs.join("same-as-a.log")).unwrap();
    symlink("../secret.txt", logs.join("outside.log")).unwrap();
    symlink("/etc/hostname", logs.join("etc.log")).unwrap();
    symlink(".", logs.join("loop")).unwrap();
    symlink("nowhere.log", logs.join("dangling.log")).unwrap();
    let fifo = Command::new("mkfifo").arg(logs.join("pipe")).status().map(|s| s.success()).unwrap_or(false);

    let out = reconscope(&["analyze", "--json", logs.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains("hunter2"), "a file outside the folder was read");
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    let inputs: Vec<&str> = doc["inputs"].as_array().unwrap().iter().map(|i| i["path"].as_str().unwrap()).collect();
    let name = |f: &str| logs.join(f).display().to_string();
    assert_eq!(inputs, [name("a.log"), name("sub/b.log")], "each real log once, nothing else");
    let notes: Vec<String> = doc["notes"].as_array().unwrap().iter().map(|n| n.as_str().unwrap().to_string()).collect();
    let note = |f: &str, says: &str| {
        let n = notes.iter().find(|n| n.starts_with(&name(f))).unwrap_or_else(|| panic!("no note for {f}: {notes:#?}"));
        assert!(n.contains(says), "{n}");
    };
    note("same-as-a.log", &format!("the same file as {}: read once", name("a.log")));
    note("outside.log", "outside");
    note("outside.log", "not followed");
    note("etc.log", "not followed");
    note("loop", "already read");
    note("dangling.log", "cannot be followed");
    if fifo {
        note("pipe", "not a regular file");
    }

    // Nothing readable at all: exit 2, saying why.
    let empty = root.join("only-links");
    std::fs::create_dir_all(&empty).unwrap();
    symlink("nowhere.log", empty.join("dangling.log")).unwrap();
    let out = reconscope(&["stats", empty.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("nothing could be read") && err.contains("dangling.log"), "{err}");
    std::fs::remove_dir_all(&root).ok();
}

/// Escape sequences in log text and in file names (a window title, a
/// screen clear, a fake hyperlink, a right-to-left override) are printed
/// visibly, never emitted to the terminal.
#[test]
fn text_from_logs_is_printed_inert() {
    let dir = scratch("inert");
    let hostile = "\x1b]0;pwned\x07\x1b[2J\u{202e}";
    let name = dir.join(format!("pod{hostile}.log"));
    let line = |t: &str, msg: &str, extra: &str| {
        format!("2026-05-26T16:29:{t}Z\tERROR\t{msg}\t{{\"controller\": \"widget{hostile}\", \"namespace\": \"ns\", \"name\": \"obj{hostile}\", \"reconcileID\": \"11111111-2222-3333-4444-555555555555\"{extra}}}\n")
    };
    let log = line("30", "Reconciler error", ", \"error\": \"boom\"") + &line("31", &format!("Reconciler error{hostile}"), ", \"error\": \"boom\"");
    std::fs::write(&name, log).unwrap();
    for args in [&["analyze"][..], &["stats"]] {
        let mut a: Vec<&str> = args.to_vec();
        a.push(dir.to_str().unwrap());
        let out = reconscope(&a);
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        for (what, bytes) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
            let text = String::from_utf8_lossy(bytes);
            assert!(!text.contains('\x1b') && !text.contains('\x07') && !text.contains('\u{202e}'), "{args:?} {what}: {text:?}");
        }
        let text = String::from_utf8_lossy(&out.stdout);
        let shown = if args[0] == "stats" { "pod\\x1b]0;pwned\\x07\\x1b[2J\\u{202e}.log" } else { "widget\\x1b]0;pwned\\x07\\x1b[2J\\u{202e}" };
        assert!(text.contains(shown), "{args:?}: shown as it is: {text}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// `--max-total-bytes` caps the run, not each input: three copies of a log
/// under a cap of one and a half of them read the first whole, the second
/// up to the cap (to its last whole line, as the app does), the third not
/// at all; the notes say so. The cap may be written as a size.
#[test]
fn the_byte_cap_holds_over_the_whole_run() {
    let dir = scratch("cap");
    let log = std::fs::read(corpus_log()).unwrap();
    for n in ["a.log", "b.log", "c.log"] {
        std::fs::write(dir.join(n), &log).unwrap();
    }
    let cap = log.len() * 3 / 2;
    let out = reconscope(&["stats", "--json", "--max-total-bytes", &cap.to_string(), dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let inputs: Vec<(&str, u64)> = doc["inputs"].as_array().unwrap().iter().map(|i| (i["path"].as_str().unwrap(), i["bytes"].as_u64().unwrap())).collect();
    let kept = log[..cap - log.len()].iter().rposition(|&b| b == b'\n').unwrap() + 1;
    let (a, b) = (dir.join("a.log").display().to_string(), dir.join("b.log").display().to_string());
    assert_eq!(inputs, [(a.as_str(), log.len() as u64), (b.as_str(), kept as u64)]);
    let notes: Vec<&str> = doc["notes"].as_array().unwrap().iter().map(|n| n.as_str().unwrap()).collect();
    assert!(notes.iter().any(|t| t.starts_with(&format!("{b}: read only in part: its first ")) && t.contains("total cap")), "{notes:?}");
    let c = dir.join("c.log").display().to_string();
    assert!(notes.iter().any(|t| t.starts_with(&c) && t.contains("left out") && t.contains("total cap")), "{notes:?}");
    // A size a person writes; and one that is not.
    let out = reconscope(&["stats", "--json", "--max-total-bytes", "1GB", dir.to_str().unwrap()]);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["inputs"].as_array().unwrap().len(), 3);
    let out = reconscope(&["stats", "--max-total-bytes", "3 parsecs", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--max-total-bytes: `3 parsecs`: `parsecs` is not a unit"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// The plain output names what the artifact does not show: a hole in a
/// log (the corpus file is two excerpts of one etcd log, lines 14 and 15
/// four hours apart), and, without an etcd log, elections as unknown.
#[test]
fn analyze_says_what_the_artifact_does_not_show() {
    let out = reconscope(&["analyze", "tests/corpus/etcd/capnslog_etcd2_startup_issue6980.log"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    // (capnslog writes its local clock with no zone.)
    assert!(
        text.starts_with("1 file, 0 reconciles, 0 controller instances, 0 etcd elections; times written with no zone (1 file) are read as UTC\n"),
        "{text}"
    );
    assert!(
        text.contains(
            "log gap: tests/corpus/etcd/capnslog_etcd2_startup_issue6980.log has no line 2016-12-13T11:16:21.423280Z → 2016-12-13T15:05:07.863702Z\n"
        ),
        "{text}"
    );
    assert!(!text.contains("missing:"), "{text}");
    let out = reconscope(&["analyze", "tests/corpus/kamaji/issue787_datastore_channel_full.log"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains(", elections unknown (no etcd log)\n"), "{text}");
    assert!(text.contains("missing: Elections unknown: the artifact holds no etcd log"), "{text}");
    assert!(!text.contains("log gap:"), "{text}");
}

/// A log of a mebibyte or more is mapped, not read (`--no-mmap` reads it):
/// the figures, the analysis and a cut at the byte cap are the same both
/// ways. (Smaller files, every other test's, are always read.)
#[test]
fn a_mapped_log_reads_as_a_read_one() {
    let dir = scratch("mapped");
    let log = std::fs::read(corpus_log()).unwrap();
    let big: Vec<u8> = log.iter().copied().cycle().take(log.len() * (3 * (1 << 20) / log.len() + 1)).collect();
    assert!(big.len() > 3 << 20);
    let path = dir.join("big.log");
    std::fs::write(&path, &big).unwrap();
    let p = path.to_str().unwrap();
    let cap = (2_200_000).to_string();
    for args in [vec!["stats", "--json", p], vec!["analyze", "--json", p], vec!["stats", "--json", "--max-total-bytes", &cap, p]] {
        let mapped = reconscope(&args);
        let read = reconscope(&[&args[..], &["--no-mmap"]].concat());
        assert_eq!(mapped.status.code(), Some(0), "{}", String::from_utf8_lossy(&mapped.stderr));
        assert_eq!(String::from_utf8_lossy(&mapped.stdout), String::from_utf8_lossy(&read.stdout), "{args:?}");
    }
    let out = reconscope(&["stats", "--json", "--max-total-bytes", &cap, p]);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let kept = big[..2_200_000].iter().rposition(|&b| b == b'\n').unwrap() + 1;
    assert_eq!(doc["inputs"][0]["bytes"], kept as u64);
    // The same figures as a file that holds just what was kept.
    let head = dir.join("head.log");
    std::fs::write(&head, &big[..kept]).unwrap();
    let whole: serde_json::Value = serde_json::from_slice(&reconscope(&["stats", "--json", head.to_str().unwrap()]).stdout).unwrap();
    for key in ["records", "unparsed", "formats", "first", "last"] {
        assert_eq!(doc["inputs"][0][key], whole["inputs"][0][key], "{key}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// A file over 2 GiB is read whole (spans are 32-bit offsets: the CLI
/// reads up to 4 GiB of a file): lines at its start (64 KiB, more than the
/// binary sniff reads), 2.25 GiB of a hole (NUL bytes, one long unparsed
/// line), then a reconcile's lines at its end, whose offsets are past 2^31.
#[test]
fn a_file_over_2_gib_is_read_to_its_end() {
    use std::io::Write;
    let dir = scratch("over-2gib");
    let path = dir.join("big.log");
    let mut f = std::fs::File::create(&path).unwrap();
    for _ in 0..1400 {
        f.write_all(b"2026-05-26T16:21:07Z\tINFO\tsetup\tstarting manager\n").unwrap();
    }
    let hole = (2u64 << 30) + (256 << 20);
    f.set_len(hole).unwrap();
    let mut f = std::fs::OpenOptions::new().append(true).open(&path).unwrap();
    let id = "3f2504e0-4f89-41d3-9a0c-0305e82c3301";
    for (s, msg) in [(8, "Reconciling"), (9, "ready"), (12, "Reconcile successful")] {
        writeln!(f, "\n2026-05-26T16:21:{s:02}Z\tINFO\tcontroller\t{msg}\t{{\"controller\": \"tenantcontrolplane\", \"namespace\": \"ns\", \"name\": \"tcp\", \"reconcileID\": \"{id}\"}}").unwrap();
    }
    drop(f);
    let size = std::fs::metadata(&path).unwrap().len();
    let out = reconscope(&["analyze", "--json", path.to_str().unwrap()]);
    std::fs::remove_dir_all(&dir).ok();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["inputs"][0]["bytes"], size);
    assert_eq!((v["inputs"][0]["first"].as_str(), v["inputs"][0]["last"].as_str()), (Some("2026-05-26T16:21:07Z"), Some("2026-05-26T16:21:12Z")));
    let r = &v["reconciles"][0];
    assert_eq!((r["reconcile_id"].as_str(), r["lines"].as_u64(), r["object"].as_str()), (Some(id), Some(3), Some("ns/tcp")));
    assert_eq!(v["reconciles"].as_array().unwrap().len(), 1);
    // Nothing is left out for a cap; the hole, one line that no format
    // reads, is named, its NUL bytes shown, not written.
    let notes: Vec<&str> = v["notes"].as_array().unwrap().iter().filter_map(|n| n.as_str()).collect();
    assert!(!notes.iter().any(|n| n.contains("are read") || n.contains("left out")), "{notes:?}");
    let hole_note = format!("{}:1401: this line is in no format reconscope reads (`{}...`): the analysis does not use it", path.display(), "\\x00".repeat(15));
    assert_eq!(notes, [hole_note.as_str()]);
}

/// `--timings` says on stderr how long each step of a command took, and
/// leaves everything else as it was: stdout byte for byte, the exit code.
#[test]
fn timings_are_said_on_stderr_and_change_nothing_else() {
    let incident = "tests/fixtures/incident/cozyreport";
    let step = |name: &str| format!(r"{name} (\d+\.\d{{3}}) s");
    let check = |args: &[&str], steps: &[&str]| {
        let plain = reconscope(args);
        let timed = reconscope(&[args, &["--timings"]].concat());
        assert!(plain.status.success(), "{}", String::from_utf8_lossy(&plain.stderr));
        assert_eq!(plain.status.code(), timed.status.code());
        assert_eq!(plain.stdout, timed.stdout, "{args:?}");
        assert!(plain.stderr.is_empty(), "{}", String::from_utf8_lossy(&plain.stderr));
        let err = String::from_utf8(timed.stderr).unwrap();
        let pattern = format!(r"^reconscope: timings: {} \(in all (\d+\.\d{{3}}) s\)\n$", steps.iter().map(|s| step(s)).collect::<Vec<_>>().join(", "));
        let c = regex::Regex::new(&pattern).unwrap().captures(&err).unwrap_or_else(|| panic!("{args:?}: {err:?}"));
        // "In all" is the sum of the steps (each rounded to the millisecond).
        let ms = |i: usize| (c[i].parse::<f64>().unwrap() * 1e3).round() as i64;
        let sum: i64 = (1..=steps.len()).map(ms).sum();
        assert!((sum - ms(steps.len() + 1)).abs() <= steps.len() as i64, "{err}");
    };
    check(&["stats", incident], &["read and parse", "output"]);
    check(&["stats", incident, "--json"], &["read and parse", "output"]);
    check(&["analyze", incident, "--json"], &["read and parse", "analysis", "output"]);
    check(&["analyze", incident], &["read and parse", "analysis", "output"]);
    check(&["analyze", incident, "--markdown", "-"], &["read and parse", "analysis", "output"]);
    // `share` says more on stderr (what its link holds): the timings last.
    let out = reconscope(&["share", incident, "--finding", "stalled-worker", "--app-url", "https://app.example/", "--timings"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let err = String::from_utf8(out.stderr).unwrap();
    let last = err.lines().last().unwrap_or("");
    let pattern = format!(r"^reconscope: timings: {}, {}, {} \(in all \d+\.\d{{3}} s\)$", step("read and parse"), step("analysis"), step("output"));
    assert!(regex::Regex::new(&pattern).unwrap().is_match(last), "{err}");
    assert!(String::from_utf8(out.stdout).unwrap().starts_with("https://app.example/#"));
}

/// A year no line wrote, taken from the file's modification time, is said
/// to be that in the text's first line and in the JSON (`year_from`), not
/// only in a note at the end.
#[test]
fn a_year_from_the_file_time_is_said_where_the_times_are() {
    let dir = scratch("year-from-mtime");
    let path = dir.join("kcm.log");
    // Yearless klog (tests/corpus/klog/kcm_leader_event_and_failed_update_lock.log's form).
    std::fs::write(&path, "I1203 05:55:02.543563       1 leaderelection.go:285] failed to renew lease default/lease: timed out\n").unwrap();
    let may_2024 = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_714_608_000);
    std::fs::File::options().write(true).open(&path).unwrap().set_modified(may_2024).unwrap();
    let p = path.to_str().unwrap();
    let out = reconscope(&["analyze", p]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        text.lines().next(),
        Some(
            "1 file, 0 reconciles, 0 controller instances, elections unknown (no etcd log); times with no year have the latest year that puts them no later than their files' modification times; times written with no zone (1 file) are read as UTC"
        ),
        "{text}"
    );
    let out = reconscope(&["analyze", "--json", p]);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((&doc["year_known"], &doc["year_from"]), (&true.into(), &"file-time".into()));
    // With the year written, neither.
    std::fs::write(&path, "2023-12-03T05:55:02Z\tINFO\tstarted\n").unwrap();
    let text = String::from_utf8_lossy(&reconscope(&["analyze", p]).stdout).into_owned();
    assert!(!text.contains("modification time"), "{text}");
    let doc: serde_json::Value = serde_json::from_slice(&reconscope(&["analyze", "--json", p]).stdout).unwrap();
    assert_eq!(doc["year_from"], "logs");
    std::fs::remove_dir_all(&dir).ok();
}

/// Times written with no zone, read at an offset the reader assumed, are
/// said to be that wherever the times are: the text's first line, the
/// Markdown's line of dates, the picture's title, the JSON, a note naming
/// the first such line; at `--utc-offset`'s offset when it is given.
#[test]
fn a_zone_the_logs_did_not_write_is_said_where_the_times_are() {
    let dir = scratch("zone-assumed");
    // klog, as capi's KCP writes it (tests/corpus/klog/capi_kcp_klog_pairs_quoted_reconcileID_pr9342.log's form),
    // beside zap lines with their zone.
    let klog = dir.join("kcp.log");
    std::fs::write(
        &klog,
        "I0831 12:45:03.963264       1 controller.go:340] \"Reconcile KubeadmControlPlane\" controller=\"kubeadmcontrolplane\" reconcileID=\"e6052bad-883f-44b8-a227-85e7e6f06622\"\n\
         I0831 12:45:03.986402       1 controller.go:432] \"Scaling up control plane\" controller=\"kubeadmcontrolplane\" reconcileID=\"e6052bad-883f-44b8-a227-85e7e6f06622\"\n",
    )
    .unwrap();
    let zap = dir.join("kamaji.log");
    std::fs::write(&zap, "2023-08-31T12:45:01Z\tINFO\tstarted\n").unwrap();
    let (k, z) = (klog.to_str().unwrap(), zap.to_str().unwrap());
    let text = String::from_utf8(reconscope(&["analyze", k, z]).stdout).unwrap();
    assert_eq!(
        text.lines().next(),
        Some("2 files, 1 reconcile, 1 controller instance, elections unknown (no etcd log); times written with no zone (1 file) are read as UTC"),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "note: {k}:1: 2 lines write their times with no zone (this is the first): they are read as UTC (if the logs were written in another zone, the CLI's --utc-offset reads them in it)\n"
        )),
        "{text}"
    );
    assert!(!text.contains(&format!("note: {z}")), "{text}");
    // The year is the zap line's, 2023.
    let md = String::from_utf8(reconscope(&["analyze", k, z, "--markdown", "-"]).stdout).unwrap();
    assert!(md.contains("\nTimes are UTC, on 2023-08-31. Times written with no zone (1 file) are read as UTC.\n"), "{md}");
    let md = String::from_utf8(reconscope(&["analyze", k, z, "--utc-offset", "+05:30", "--markdown", "-"]).stdout).unwrap();
    assert!(md.contains("\nTimes are UTC, on 2023-08-31. Times written with no zone (1 file) are read at UTC+05:30, as `--utc-offset` says.\n"), "{md}");
    // klog's 12:45 at +05:30 is 07:15 UTC.
    assert!(md.contains("| 07:15:03 |"), "{md}");
    let doc: serde_json::Value = serde_json::from_slice(&reconscope(&["analyze", "--json", k, z, "--utc-offset", "2"]).stdout).unwrap();
    assert_eq!(doc["zone_assumed"], serde_json::json!({"utc_offset_secs": 7200, "files": 1}));
    let svg = dir.join("t.svg");
    assert!(reconscope(&["analyze", k, z, "--svg", svg.to_str().unwrap()]).status.success());
    let svg = std::fs::read_to_string(&svg).unwrap();
    assert!(svg.contains(", times with no zone read as UTC</title>"), "{}", &svg[..svg.len().min(600)]);
    // Every time with its zone: none of these.
    let doc: serde_json::Value = serde_json::from_slice(&reconscope(&["analyze", "--json", z]).stdout).unwrap();
    assert_eq!(doc["zone_assumed"], serde_json::Value::Null);
    let text = String::from_utf8(reconscope(&["analyze", z, "--markdown", "-"]).stdout).unwrap();
    assert!(!text.contains("no zone"), "{text}");
    std::fs::remove_dir_all(&dir).ok();
}

/// Failed reconciles that no finding names (kueue #4140's excerpt: 5 of
/// v1_pod's 8 fail, fewer than an error burst) are still counted: beside
/// their controller in the text, in the Markdown's first line.
#[test]
fn failures_no_finding_names_are_counted() {
    let log = "tests/corpus/controller-runtime/cri_kueue_v1pod_webhook_refused_grep_issue4140.log";
    let out = reconscope(&["analyze", log]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().take(6).collect();
    assert_eq!(
        lines,
        [
            "1 file, 19 reconciles, 4 controller instances, elections unknown (no etcd log)",
            "  controller multikueue-workload (1 worker, inferred): 5 reconciles",
            "  controller tas-topology-ungater (1 worker, inferred): 2 reconciles",
            "  controller v1_pod (1 worker, inferred): 8 reconciles, 5 failed",
            "  controller workload (1 worker, inferred): 4 reconciles",
            "no findings",
        ]
    );
    let out = reconscope(&["analyze", "--markdown", "-", log]);
    let md = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        md.lines().nth(2),
        Some("19 reconciles (5 failed) in 4 controller instances, elections unknown (the artifact holds no etcd log), 0 findings."),
        "{md}"
    );
}
