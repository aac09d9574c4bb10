//! The native CLI as a user runs it: output shapes and exit codes.

use std::process::Command;

fn reconscope(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_reconscope")).args(args).current_dir(env!("CARGO_MANIFEST_DIR")).output().expect("run reconscope")
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
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["schema"], "reconscope.analysis/v1");
    let kinds: Vec<&str> = v["findings"].as_array().unwrap().iter().map(|f| f["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds.iter().filter(|k| **k == "stalled-worker").count(), 1, "{kinds:?}");
    assert_eq!(kinds.iter().filter(|k| **k == "expired-context").count(), 2, "{kinds:?}");
    assert_eq!(kinds.iter().filter(|k| **k == "stuck-deletion").count(), 1, "{kinds:?}");
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
