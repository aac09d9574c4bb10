//! The CLI's file maps (`src/bin/reconscope/mapped.rs`, included here as
//! it is): a mapped file cut while it is read ends the process with a
//! message and exit 2, not a silent death by SIGBUS.

#[path = "../src/bin/reconscope/mapped.rs"]
#[allow(dead_code)]
mod mapped;

use std::process::Command;

const CHILD: &str = "RECONSCOPE_MAPPED_TEST_CHILD";

/// In a child process (this test binary run again): maps a 2 MiB file,
/// cuts it to nothing, then reads the map's last byte.
#[test]
fn a_file_cut_while_mapped_is_exit_2_with_a_message() {
    if let Some(path) = std::env::var_os(CHILD) {
        let file = std::fs::OpenOptions::new().read(true).write(true).open(&path).unwrap();
        let bytes = mapped::map(&file, 2 << 20).unwrap();
        let plain = bytes.plain().unwrap();
        assert_eq!(plain[0], b'x', "the map reads the file before the cut");
        file.set_len(0).unwrap();
        // Past the file's new end: SIGBUS, which the handler turns into exit 2.
        let last = std::hint::black_box(plain[plain.len() - 1]);
        println!("read {last} after the cut");
        std::process::exit(0);
    }
    let dir = std::env::temp_dir().join(format!("reconscope-mapped-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("rotated.log");
    std::fs::write(&path, vec![b'x'; 2 << 20]).unwrap();
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "a_file_cut_while_mapped_is_exit_2_with_a_message", "--nocapture", "--test-threads", "1"])
        .env(CHILD, &path)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {stderr}\nstdout: {}", String::from_utf8_lossy(&out.stdout));
    assert!(
        stderr.contains("reconscope: an input file shrank while it was read (rotated by truncation, as logrotate's copytruncate does?): run again on a copy, or with --no-mmap"),
        "{stderr}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// What a map reads is the file; `FileBytes` cuts it by length only.
#[test]
fn a_map_reads_as_the_file_and_cuts_by_length() {
    let dir = std::env::temp_dir().join(format!("reconscope-mapped-cut-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("a.log");
    let text: Vec<u8> = (0..100_000u32).flat_map(|i| format!("line {i}\n").into_bytes()).collect();
    std::fs::write(&path, &text).unwrap();
    let file = std::fs::File::open(&path).unwrap();
    let mut bytes = mapped::map(&file, text.len() as u64).unwrap();
    assert!(bytes.is_held());
    assert_eq!(bytes.plain(), Some(&text[..]));
    bytes.truncate(12);
    assert_eq!(bytes.plain(), Some(&b"line 0\nline "[..]));
    bytes.truncate(100);
    assert_eq!(bytes.len(), 12, "truncate never grows");
    std::fs::remove_dir_all(&dir).ok();
}
