//! Archive ingestion: every archive is built here by small hand-written
//! writers, so each test controls exactly which bytes are there.

use std::borrow::Cow;
use std::io::Write;

use flate2::write::{DeflateEncoder, GzEncoder};
use flate2::{Compression, Crc};
use proptest::prelude::*;
use reconscope::ingest::*;

#[path = "support/tar.rs"]
mod tar_support;
use tar_support::{tar_entry, tar_header};

// ---------------------------------------------------------------- helpers

fn run<'a>(name: &str, bytes: &'a [u8], opts: &IngestOptions) -> Vec<Event<'a>> {
    let mut events = Vec::new();
    ingest(name, bytes, opts, &mut |e| events.push(e));
    events
}

fn files<'e, 'a>(events: &'e [Event<'a>]) -> Vec<&'e Member<'a>> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::File(m) => Some(m),
            _ => None,
        })
        .collect()
}

fn paths(events: &[Event<'_>]) -> Vec<String> {
    files(events).iter().map(|m| m.path.clone()).collect()
}

fn errors(events: &[Event<'_>]) -> Vec<IngestError> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Error(err) => Some(err.clone()),
            _ => None,
        })
        .collect()
}

fn skipped(events: &[Event<'_>]) -> Vec<(String, String)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Skipped { path, reason } => Some((path.clone(), reason.clone())),
            _ => None,
        })
        .collect()
}

fn content<'e>(events: &'e [Event<'_>], path: &str) -> &'e [u8] {
    let member = files(events).into_iter().find(|m| m.path == path);
    &member.unwrap_or_else(|| panic!("no member {path} in {:?}", paths(events))).bytes
}

/// Log-like text that compresses only moderately (about 2:1).
fn text(seed: u64, len: usize) -> Vec<u8> {
    let mut state = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
    let mut out = Vec::with_capacity(len + 100);
    let mut line = 0u64;
    while out.len() < len {
        state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        writeln!(out, "2024-05-01T10:{:02}:00Z INFO reconcile id={:016x} line={line}", line % 60, state).unwrap();
        line += 1;
    }
    out.truncate(len);
    out
}

fn crc32(data: &[u8]) -> u32 {
    let mut crc = Crc::new();
    crc.update(data);
    crc.sum()
}

fn deflate(data: &[u8]) -> Vec<u8> {
    let mut enc = DeflateEncoder::new(Vec::new(), Compression::default());
    enc.write_all(data).unwrap();
    enc.finish().unwrap()
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut enc = GzEncoder::new(Vec::new(), Compression::default());
    enc.write_all(data).unwrap();
    enc.finish().unwrap()
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Method {
    Stored,
    Deflate,
}

#[derive(Clone, Copy, Default)]
struct ZipLayout {
    /// Write the central directory and end record.
    no_central: bool,
    /// Sizes and CRC in a data descriptor after the data (flag bit 3).
    descriptors: bool,
    /// ZIP64 sizes, offsets and end records.
    zip64: bool,
}

/// 2024-03-05 14:30:22 as DOS (date, time).
const DOS_DATE: u16 = ((2024 - 1980) << 9) | (3 << 5) | 5;
const DOS_TIME: u16 = (14 << 11) | (30 << 5) | 11;
const DOS_UNIX: i64 = 1_709_649_022;

/// A minimal zip writer. Returns the archive and the offset of each local header.
fn zip_with(entries: &[(&str, &[u8], Method)], layout: ZipLayout) -> (Vec<u8>, Vec<usize>) {
    let mut out = Vec::new();
    let mut central = Vec::new();
    let mut offsets = Vec::new();
    for &(name, data, method) in entries {
        let body = match method {
            Method::Stored => data.to_vec(),
            Method::Deflate => deflate(data),
        };
        let (code, crc) = (if method == Method::Stored { 0u16 } else { 8 }, crc32(data));
        let flags: u16 = if layout.descriptors { 8 } else { 0 };
        let sat = 0xffff_ffffu32;
        let (csize, usize_) = (body.len() as u32, data.len() as u32);
        let offset = out.len();
        offsets.push(offset);
        // Local header.
        let mut local_extra = Vec::new();
        if layout.zip64 {
            local_extra.extend_from_slice(&1u16.to_le_bytes());
            local_extra.extend_from_slice(&16u16.to_le_bytes());
            let (u, c) = if layout.descriptors { (0, 0) } else { (data.len() as u64, body.len() as u64) };
            local_extra.extend_from_slice(&u.to_le_bytes());
            local_extra.extend_from_slice(&c.to_le_bytes());
        }
        out.extend_from_slice(b"PK\x03\x04");
        out.extend_from_slice(&20u16.to_le_bytes());
        out.extend_from_slice(&flags.to_le_bytes());
        out.extend_from_slice(&code.to_le_bytes());
        out.extend_from_slice(&DOS_TIME.to_le_bytes());
        out.extend_from_slice(&DOS_DATE.to_le_bytes());
        if layout.descriptors {
            out.extend_from_slice(&[0; 4]);
            let zero_or_sat = if layout.zip64 { sat } else { 0 };
            out.extend_from_slice(&zero_or_sat.to_le_bytes());
            out.extend_from_slice(&zero_or_sat.to_le_bytes());
        } else {
            out.extend_from_slice(&crc.to_le_bytes());
            out.extend_from_slice(&(if layout.zip64 { sat } else { csize }).to_le_bytes());
            out.extend_from_slice(&(if layout.zip64 { sat } else { usize_ }).to_le_bytes());
        }
        out.extend_from_slice(&(name.len() as u16).to_le_bytes());
        out.extend_from_slice(&(local_extra.len() as u16).to_le_bytes());
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(&local_extra);
        out.extend_from_slice(&body);
        if layout.descriptors {
            out.extend_from_slice(b"PK\x07\x08");
            out.extend_from_slice(&crc.to_le_bytes());
            if layout.zip64 {
                out.extend_from_slice(&(body.len() as u64).to_le_bytes());
                out.extend_from_slice(&(data.len() as u64).to_le_bytes());
            } else {
                out.extend_from_slice(&csize.to_le_bytes());
                out.extend_from_slice(&usize_.to_le_bytes());
            }
        }
        // Central directory entry.
        let mut extra = Vec::new();
        if layout.zip64 {
            extra.extend_from_slice(&1u16.to_le_bytes());
            extra.extend_from_slice(&24u16.to_le_bytes());
            extra.extend_from_slice(&(data.len() as u64).to_le_bytes());
            extra.extend_from_slice(&(body.len() as u64).to_le_bytes());
            extra.extend_from_slice(&(offset as u64).to_le_bytes());
        }
        central.extend_from_slice(b"PK\x01\x02");
        central.extend_from_slice(&20u16.to_le_bytes());
        central.extend_from_slice(&20u16.to_le_bytes());
        central.extend_from_slice(&flags.to_le_bytes());
        central.extend_from_slice(&code.to_le_bytes());
        central.extend_from_slice(&DOS_TIME.to_le_bytes());
        central.extend_from_slice(&DOS_DATE.to_le_bytes());
        central.extend_from_slice(&crc.to_le_bytes());
        let z = |v: u32| if layout.zip64 { sat } else { v };
        central.extend_from_slice(&z(csize).to_le_bytes());
        central.extend_from_slice(&z(usize_).to_le_bytes());
        central.extend_from_slice(&(name.len() as u16).to_le_bytes());
        central.extend_from_slice(&(extra.len() as u16).to_le_bytes());
        central.extend_from_slice(&[0; 10]); // comment length, disk, attributes
        central.extend_from_slice(&z(offset as u32).to_le_bytes());
        central.extend_from_slice(name.as_bytes());
        central.extend_from_slice(&extra);
    }
    if layout.no_central {
        return (out, offsets);
    }
    let cd_offset = out.len();
    out.extend_from_slice(&central);
    let count = entries.len();
    if layout.zip64 {
        let record = out.len();
        out.extend_from_slice(b"PK\x06\x06");
        out.extend_from_slice(&44u64.to_le_bytes());
        out.extend_from_slice(&45u16.to_le_bytes());
        out.extend_from_slice(&45u16.to_le_bytes());
        out.extend_from_slice(&[0; 8]);
        out.extend_from_slice(&(count as u64).to_le_bytes());
        out.extend_from_slice(&(count as u64).to_le_bytes());
        out.extend_from_slice(&(central.len() as u64).to_le_bytes());
        out.extend_from_slice(&(cd_offset as u64).to_le_bytes());
        out.extend_from_slice(b"PK\x06\x07");
        out.extend_from_slice(&[0; 4]);
        out.extend_from_slice(&(record as u64).to_le_bytes());
        out.extend_from_slice(&1u32.to_le_bytes());
    }
    out.extend_from_slice(b"PK\x05\x06");
    out.extend_from_slice(&[0; 4]);
    let n = if layout.zip64 { 0xffff } else { count as u16 };
    out.extend_from_slice(&n.to_le_bytes());
    out.extend_from_slice(&n.to_le_bytes());
    out.extend_from_slice(&(central.len() as u32).to_le_bytes());
    let off = if layout.zip64 { 0xffff_ffff } else { cd_offset as u32 };
    out.extend_from_slice(&off.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    (out, offsets)
}

fn zip(entries: &[(&str, &[u8], Method)]) -> Vec<u8> {
    zip_with(entries, ZipLayout::default()).0
}

fn tar(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut out = Vec::new();
    for (name, data) in entries {
        tar_entry(&mut out, name, data, b'0', 1_700_000_000);
    }
    out.extend_from_slice(&[0; 1024]);
    out
}

fn pax_record(key: &str, value: &str) -> String {
    let body = format!(" {key}={value}\n");
    let mut len = body.len() + 1;
    while format!("{len}{body}").len() != len {
        len += 1;
    }
    format!("{len}{body}")
}

fn opts() -> IngestOptions {
    IngestOptions::default()
}

// ---------------------------------------------------------------- tests

#[test]
fn plain_file_passes_through_borrowed() {
    let input = b"line one\nline two\n".to_vec();
    let events = run("logs/app.log", &input, &opts());
    assert_eq!(events.len(), 1, "{events:?}");
    let Event::File(m) = &events[0] else { panic!("{events:?}") };
    assert_eq!(m.path, "logs/app.log");
    assert!(matches!(m.bytes, Cow::Borrowed(b) if b.as_ptr() == input.as_ptr()));
    assert_eq!(m.mtime_secs, None);
}

#[test]
fn empty_and_invalid_utf8_inputs_are_text() {
    let events = run("empty.log", b"", &opts());
    assert_eq!(paths(&events), ["empty.log"]);
    let latin1 = b"caf\xe9 au lait\n";
    let events = run("latin1.log", latin1, &opts());
    assert_eq!(content(&events, "latin1.log"), latin1);
}

#[test]
fn zip_stored_and_deflate_members() {
    let a = text(1, 5_000);
    let b = text(2, 70_000);
    let archive = zip(&[("a.log", &a, Method::Stored), ("dir/", b"", Method::Stored), ("dir/b.log", &b, Method::Deflate), ("./c.log", b"", Method::Deflate)]);
    let events = run("logs.zip", &archive, &opts());
    assert_eq!(errors(&events), []);
    assert_eq!(paths(&events), ["logs.zip!/a.log", "logs.zip!/dir/b.log", "logs.zip!/c.log"]);
    let members = files(&events);
    assert_eq!(&*members[0].bytes, &a[..]);
    assert!(matches!(members[0].bytes, Cow::Borrowed(_)), "stored members of a top-level zip are not copied");
    assert_eq!(&*members[1].bytes, &b[..]);
    assert!(matches!(members[1].bytes, Cow::Owned(_)));
    assert!(members[2].bytes.is_empty());
    assert!(members.iter().all(|m| m.mtime_secs == Some(DOS_UNIX)));
}

#[test]
fn zip64_records_and_extra_fields() {
    let a = text(3, 3_000);
    let (archive, _) = zip_with(&[("a.log", &a, Method::Deflate), ("b.log", b"bee\n", Method::Stored)], ZipLayout { zip64: true, ..Default::default() });
    let events = run("z64.zip", &archive, &opts());
    assert_eq!(errors(&events), []);
    assert_eq!(content(&events, "z64.zip!/a.log"), &a[..]);
    assert_eq!(content(&events, "z64.zip!/b.log"), b"bee\n");
}

#[test]
fn an_empty_archive_yields_nothing_but_says_so() {
    let archive = zip(&[]);
    assert!(archive.starts_with(b"PK\x05\x06"));
    let events = run("empty.zip", &archive, &opts());
    assert_eq!(skipped(&events), [("empty.zip".to_string(), "a zip archive with no files in it: nothing to read".to_string())]);
    assert!(files(&events).is_empty());
    // An empty tarball, plain or gzipped.
    let empty_tar = vec![0u8; 10240];
    let events = run("empty.tar", &empty_tar, &opts());
    assert_eq!(skipped(&events), [("empty.tar".to_string(), "an empty tar archive (only zero blocks): nothing to read".to_string())]);
    let tgz = gzip(&empty_tar);
    let events = run("empty.tgz", &tgz, &opts());
    assert_eq!(skipped(&events), [("empty.tgz".to_string(), "an empty tar archive (only zero blocks): nothing to read".to_string())]);
    // A tar of one folder and no files.
    let mut end = tar(&[]);
    let mut header = vec![0u8; 512];
    header[..5].copy_from_slice(b"logs/");
    header[156] = b'5';
    header[257..263].copy_from_slice(b"ustar\0");
    header[263..265].copy_from_slice(b"00");
    header[100..108].copy_from_slice(b"0000755\0");
    header[124..136].copy_from_slice(b"00000000000\0");
    header[148..156].copy_from_slice(b"        ");
    let sum: u32 = header.iter().map(|&b| u32::from(b)).sum();
    header[148..155].copy_from_slice(format!("{sum:06o}\0").as_bytes());
    header.append(&mut end);
    let events = run("dirs.tar", &header, &opts());
    assert_eq!(skipped(&events), [("dirs.tar".to_string(), "a tar archive with no files in it: nothing to read".to_string())]);
}

/// A gzipped file whose text starts with NUL bytes (two zero blocks, as an
/// empty tarball starts) is not taken for an empty tar, whatever its name:
/// it is a member of its own, skipped as binary with a note.
#[test]
fn a_gz_whose_text_starts_with_nul_bytes_is_not_an_empty_tar() {
    let mut data = vec![0u8; 1024];
    data.extend_from_slice(b"2026-05-26T16:29:30Z INFO after the zeros\n");
    for name in ["app.log.gz", "app.tgz", "app.tar.gz"] {
        let gz = gzip(&data);
        let events = run(name, &gz, &opts());
        let s = skipped(&events);
        assert_eq!(s.len(), 1, "{name}: {events:?}");
        assert!(s[0].1.contains("NUL bytes"), "{name}: {s:?}");
        assert!(files(&events).is_empty(), "{name}");
    }
}

#[test]
fn zip_in_tgz_in_zip() {
    let log = text(4, 20_000);
    let innermost = zip(&[("a.log", &log, Method::Deflate)]);
    let tarball = tar(&[("dir/nested.zip", &innermost), ("dir/readme.txt", b"hello\n")]);
    let tgz = gzip(&tarball);
    let outer = zip(&[("inner.tgz", &tgz, Method::Deflate), ("top.log", b"top\n", Method::Stored)]);
    let events = run("outer.zip", &outer, &opts());
    assert_eq!(errors(&events), []);
    assert_eq!(paths(&events), ["outer.zip!/inner.tgz!/dir/nested.zip!/a.log", "outer.zip!/inner.tgz!/dir/readme.txt", "outer.zip!/top.log"]);
    assert_eq!(content(&events, "outer.zip!/inner.tgz!/dir/nested.zip!/a.log"), &log[..]);
    let readme = files(&events)[1];
    assert_eq!(readme.mtime_secs, Some(1_700_000_000));
}

#[test]
fn nesting_beyond_max_depth_is_an_error() {
    let innermost = zip(&[("a.log", b"deep\n", Method::Stored)]);
    let middle = zip(&[("inner.zip", &innermost, Method::Stored)]);
    let outer = zip(&[("middle.zip", &middle, Method::Stored)]);
    let events = run("outer.zip", &outer, &IngestOptions { max_depth: 3, ..opts() });
    assert_eq!(paths(&events), ["outer.zip!/middle.zip!/inner.zip!/a.log"]);
    let events = run("outer.zip", &outer, &IngestOptions { max_depth: 2, ..opts() });
    assert_eq!(paths(&events), Vec::<String>::new());
    let errs = errors(&events);
    assert!(matches!(&errs[..], [IngestError::TooDeep { path, max_depth: 2 }] if path == "outer.zip!/middle.zip!/inner.zip"));
    assert!(errs[0].to_string().contains("--max-depth"));
}

#[test]
fn truncated_zip_yields_members_before_the_cut() {
    let a = text(5, 4_000);
    let b = text(6, 6_000);
    let c = text(7, 200_000);
    for method in [Method::Deflate, Method::Stored] {
        let (full, offsets) = zip_with(&[("a.log", &a, Method::Deflate), ("b.log", &b, Method::Stored), ("c.log", &c, method)], ZipLayout::default());
        let third = offsets[2];
        let cd = full.windows(4).rposition(|w| w == b"PK\x01\x02").unwrap();
        let cut = &full[..third + (cd - third) / 2];
        let events = run("t.zip", cut, &opts());
        assert_eq!(content(&events, "t.zip!/a.log"), &a[..]);
        assert_eq!(content(&events, "t.zip!/b.log"), &b[..]);
        // What there is of the third member is kept: logs are useful even cut.
        let partial = content(&events, "t.zip!/c.log");
        assert!(!partial.is_empty() && partial.len() < c.len());
        assert_eq!(partial, &c[..partial.len()]);
        let errs = errors(&events);
        assert!(errs.iter().any(|e| matches!(e, IngestError::Truncated { path, .. } if path == "t.zip!/c.log")), "{errs:?}");
        let archive_err = errs.iter().find(|e| e.path() == "t.zip").expect("archive-level error");
        assert!(matches!(archive_err, IngestError::TruncatedArchive { .. }));
        assert_eq!(archive_err.to_string(), "t.zip: truncated archive: central directory missing; read 3 members from local headers");
    }
}

#[test]
fn truncated_zip_cut_inside_a_header() {
    let (full, offsets) = zip_with(&[("a.log", b"alpha\n", Method::Stored), ("b.log", b"beta\n", Method::Deflate)], ZipLayout::default());
    let events = run("h.zip", &full[..offsets[1] + 10], &opts());
    assert_eq!(paths(&events), ["h.zip!/a.log"]);
    assert_eq!(errors(&events).len(), 1);
}

#[test]
fn zip_with_data_descriptors() {
    let a = text(8, 30_000);
    let b = text(9, 2_000);
    let entries = [("a.log", &a[..], Method::Deflate), ("b.log", &b[..], Method::Stored), ("c.log", b"sea\n", Method::Deflate)];
    for zip64 in [false, true] {
        // Streamed without a central directory: read through the local headers.
        let (archive, _) = zip_with(&entries, ZipLayout { no_central: true, descriptors: true, zip64 });
        let events = run("s.zip", &archive, &opts());
        assert_eq!(paths(&events), ["s.zip!/a.log", "s.zip!/b.log", "s.zip!/c.log"]);
        assert_eq!(content(&events, "s.zip!/a.log"), &a[..]);
        assert_eq!(content(&events, "s.zip!/b.log"), &b[..]);
        assert_eq!(content(&events, "s.zip!/c.log"), b"sea\n");
        let errs = errors(&events);
        assert!(matches!(&errs[..], [IngestError::TruncatedArchive { path, .. }] if path == "s.zip"), "{errs:?}");
        // The same with its central directory: no complaint at all.
        let (archive, _) = zip_with(&entries, ZipLayout { descriptors: true, zip64, ..Default::default() });
        let events = run("s.zip", &archive, &opts());
        assert_eq!(errors(&events), []);
        assert_eq!(content(&events, "s.zip!/a.log"), &a[..]);
    }
}

#[test]
fn damaged_central_directory_falls_back_to_local_headers() {
    let (mut archive, _) = zip_with(&[("a.log", b"alpha\n", Method::Stored), ("b.log", b"beta\n", Method::Deflate)], ZipLayout::default());
    let cd = archive.windows(4).position(|w| w == b"PK\x01\x02").unwrap();
    archive[cd + 1] = b'X';
    let events = run("d.zip", &archive, &opts());
    assert_eq!(paths(&events), ["d.zip!/a.log", "d.zip!/b.log"]);
    let errs = errors(&events);
    assert!(matches!(&errs[..], [IngestError::Corrupt { path, detail }] if path == "d.zip" && detail.contains("read 2 members")), "{errs:?}");
}

#[test]
fn corrupt_member_data_is_reported_and_others_still_read() {
    let b = text(10, 50_000);
    let (mut archive, offsets) =
        zip_with(&[("a.log", b"alpha\n", Method::Stored), ("b.log", &b, Method::Deflate), ("c.log", b"c\n", Method::Stored)], ZipLayout::default());
    // Damage the middle of b's deflate data, and a.log's stored bytes.
    let mid = (offsets[1] + offsets[2]) / 2;
    for byte in &mut archive[mid..mid + 64] {
        *byte ^= 0x5a;
    }
    archive[offsets[0] + 30 + 5] = b'A';
    let events = run("c.zip", &archive, &opts());
    assert_eq!(content(&events, "c.zip!/a.log"), b"Alpha\n");
    assert_eq!(content(&events, "c.zip!/c.log"), b"c\n");
    let errs = errors(&events);
    assert!(errs.iter().any(|e| e.path() == "c.zip!/a.log" && e.to_string().contains("CRC")), "{errs:?}");
    assert!(errs.iter().any(|e| e.path() == "c.zip!/b.log"), "{errs:?}");
}

#[test]
fn unsupported_method_and_encryption() {
    let (mut archive, offsets) =
        zip_with(&[("a.log", b"alpha\n", Method::Stored), ("b.log", b"beta\n", Method::Stored), ("c.log", b"c\n", Method::Stored)], ZipLayout::default());
    let cd: Vec<usize> = archive.windows(4).enumerate().filter(|(_, w)| *w == b"PK\x01\x02").map(|(i, _)| i).collect();
    // a.log: bzip2 (method 12); b.log: encrypted (flag bit 0).
    archive[cd[0] + 10] = 12;
    archive[offsets[0] + 8] = 12;
    archive[cd[1] + 8] = 1;
    archive[offsets[1] + 6] = 1;
    let events = run("m.zip", &archive, &opts());
    assert_eq!(paths(&events), ["m.zip!/c.log"]);
    let errs = errors(&events);
    assert!(matches!(&errs[..], [IngestError::Unsupported { path, detail }] if path == "m.zip!/a.log" && detail.contains("bzip2")));
    assert_eq!(skipped(&events), [("m.zip!/b.log".to_string(), "encrypted, skipped".to_string())]);
}

#[test]
fn gzip_bomb_trips_the_ratio_cap() {
    let payload = vec![b'a'; 8 << 20];
    let bomb = gzip(&payload);
    assert!(bomb.len() * 200 < payload.len());
    let events = run("bomb.log.gz", &bomb, &opts());
    assert_eq!(paths(&events), Vec::<String>::new());
    let errs = errors(&events);
    assert!(matches!(&errs[..], [IngestError::RatioCap { path, max_ratio: 200 }] if path == "bomb.log.gz!/bomb.log"), "{errs:?}");
    let message = errs[0].to_string();
    assert!(message.starts_with("bomb.log.gz!/bomb.log: compression ratio above 200:1"), "{message}");
    assert!(message.contains("--max-ratio"));

    // Allowed with a higher cap.
    let events = run("bomb.log.gz", &bomb, &IngestOptions { max_ratio: 100_000, ..opts() });
    assert_eq!(errors(&events), []);
    assert_eq!(content(&events, "bomb.log.gz!/bomb.log").len(), payload.len());

    // The same in a zip member and in a tarball.
    let archive = zip(&[("big.log", &payload, Method::Deflate), ("small.log", b"ok\n", Method::Deflate)]);
    let events = run("z.zip", &archive, &opts());
    assert_eq!(paths(&events), ["z.zip!/small.log"]);
    assert!(matches!(&errors(&events)[..], [IngestError::RatioCap { path, .. }] if path == "z.zip!/big.log"));
    let tgz = gzip(&tar(&[("first.log", b"first\n"), ("big.log", &payload)]));
    let events = run("t.tgz", &tgz, &opts());
    assert_eq!(paths(&events), ["t.tgz!/first.log"]);
    assert!(matches!(&errors(&events)[..], [IngestError::RatioCap { path, .. }] if path == "t.tgz!/big.log"));
}

#[test]
fn total_cap_stops_at_the_member_that_crosses_it() {
    let one = text(11, 1 << 20);
    let two = text(12, 1 << 20);
    let capped = IngestOptions { max_total_bytes: 3 << 19, ..opts() };
    for method in [Method::Deflate, Method::Stored] {
        let archive = zip(&[("one.log", &one, method), ("two.log", &two, method), ("three.log", &one, method)]);
        let events = run("cap.zip", &archive, &capped);
        assert_eq!(paths(&events), ["cap.zip!/one.log"]);
        assert_eq!(content(&events, "cap.zip!/one.log"), &one[..]);
        let errs = errors(&events);
        assert_eq!(errs.len(), 2, "{errs:?}");
        assert!(matches!(&errs[0], IngestError::TotalCap { path, cap } if path == "cap.zip!/two.log" && *cap == 3 << 19));
        assert_eq!(errs[0].to_string(), "cap.zip!/two.log: left out: the run's input is over the 1.5 MiB total cap (--max-total-bytes counts the decompressed bytes of all inputs together)");
        assert_eq!(errs[1].path(), "cap.zip!/three.log");
    }
    // The plain top-level file counts too.
    let events = run("big.log", &two, &IngestOptions { max_total_bytes: 1000, ..opts() });
    assert!(matches!(&errors(&events)[..], [IngestError::TotalCap { path, .. }] if path == "big.log"));
}

/// Rewrites a one-entry zip so that its central directory lists that entry `n` times.
fn repeat_central_entry(archive: &[u8], n: u16) -> Vec<u8> {
    let end = archive.windows(4).rposition(|w| w == b"PK\x05\x06").unwrap();
    let cd = u32::from_le_bytes(archive[end + 16..end + 20].try_into().unwrap()) as usize;
    let mut out = archive[..cd].to_vec();
    for _ in 0..n {
        out.extend_from_slice(&archive[cd..end]);
    }
    out.extend_from_slice(b"PK\x05\x06\0\0\0\0");
    out.extend_from_slice(&n.to_le_bytes());
    out.extend_from_slice(&n.to_le_bytes());
    out.extend_from_slice(&((end - cd) as u32 * u32::from(n)).to_le_bytes());
    out.extend_from_slice(&(cd as u32).to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out
}

/// A directory that lists the same data many times (a zip made to inflate
/// one stream over and over) is read once; every other listing is noted.
#[test]
fn entries_listed_many_times_are_read_once() {
    let capped = IngestOptions { max_total_bytes: 4 << 20, ..opts() };
    let overlap = |e: &IngestError| matches!(e, IngestError::Corrupt { detail, .. } if detail.contains("overlaps that of o.zip!/"));
    for method in [Method::Stored, Method::Deflate] {
        // The same text, listed 100 times.
        let log = text(25, 1 << 20);
        let archive = repeat_central_entry(&zip(&[("big.log", &log, method)]), 100);
        let events = run("o.zip", &archive, &capped);
        assert_eq!(files(&events).len(), 1, "{method:?}");
        let errs = errors(&events);
        assert_eq!(errs.len(), 99, "{method:?}");
        assert!(errs.iter().all(overlap), "{errs:?}");
    }
    // The same stored nested archive (holding only a binary member), listed 100 times.
    let inner = zip(&[("core.bin", &vec![0u8; 1 << 20], Method::Stored)]);
    let archive = repeat_central_entry(&zip(&[("inner.zip", &inner, Method::Stored)]), 100);
    let events = run("o.zip", &archive, &capped);
    assert_eq!(skipped(&events).len(), 1);
    let errs = errors(&events);
    assert_eq!(errs.len(), 99);
    assert!(errs.iter().all(overlap), "{errs:?}");
}

/// A directory entry whose size disagrees with its data is noted (its
/// content is kept: the CRC matched).
#[test]
fn a_lying_size_is_noted() {
    let log = text(26, 5_000);
    let mut archive = zip(&[("a.log", &log, Method::Deflate)]);
    let cd = archive.windows(4).position(|w| w == b"PK\x01\x02").unwrap();
    archive[cd + 24..cd + 28].copy_from_slice(&1u32.to_le_bytes());
    let events = run("l.zip", &archive, &opts());
    assert_eq!(content(&events, "l.zip!/a.log"), &log[..]);
    assert_eq!(
        errors(&events),
        [IngestError::Corrupt { path: "l.zip!/a.log".into(), detail: format!("its directory entry says 1 bytes, its data holds {}", log.len()) }]
    );
}

#[test]
fn truncated_tar_gz_keeps_members_before_the_cut() {
    let a = text(13, 40_000);
    let b = text(14, 40_000);
    let c = text(15, 200_000);
    let full = gzip(&tar(&[("x/a.log", &a), ("x/b.log", &b), ("x/c.log", &c)]));
    let cut = &full[..full.len() * 6 / 10];
    let events = run("x.tar.gz", cut, &opts());
    assert_eq!(content(&events, "x.tar.gz!/x/a.log"), &a[..]);
    assert_eq!(content(&events, "x.tar.gz!/x/b.log"), &b[..]);
    let partial = content(&events, "x.tar.gz!/x/c.log");
    assert_eq!(partial, &c[..partial.len()]);
    let errs = errors(&events);
    assert!(errs.iter().any(|e| e.path() == "x.tar.gz!/x/c.log" && e.to_string().contains("of 200000 bytes")), "{errs:?}");
    let stream = errs.iter().find(|e| e.path() == "x.tar.gz").expect("stream error");
    assert!(stream.to_string().starts_with("x.tar.gz: truncated: gzip stream ends after"), "{stream}");
}

#[test]
fn corrupt_gzip_keeps_what_came_before() {
    let data = text(16, 300_000);
    let mut gz = gzip(&data);
    let mid = gz.len() / 2;
    for byte in &mut gz[mid..mid + 200] {
        *byte = 0xff;
    }
    let events = run("c.log.gz", &gz, &opts());
    // Output before the damaged region is intact (damage may garble a little
    // output before the decoder notices, so only the first third is compared).
    let got = content(&events, "c.log.gz!/c.log");
    assert!(got.len() >= 100_000, "kept {} bytes", got.len());
    assert!(got[..100_000] == data[..100_000]);
    let errs = errors(&events);
    assert!(matches!(&errs[..], [IngestError::CorruptGzip { path, .. }] if path == "c.log.gz"), "{errs:?}");
    assert!(errs[0].to_string().starts_with("c.log.gz: corrupt gzip stream after "));
}

#[test]
fn truncated_plain_tar_emits_partial_member() {
    let a = text(17, 1000);
    let b = text(18, 5000);
    let archive = tar(&[("a.log", &a), ("b.log", &b)]);
    let cut = &archive[..512 + 1024 + 512 + 1000];
    let events = run("p.tar", cut, &opts());
    assert_eq!(content(&events, "p.tar!/a.log"), &a[..]);
    assert!(matches!(files(&events)[0].bytes, Cow::Borrowed(_)));
    assert_eq!(content(&events, "p.tar!/b.log"), &b[..1000]);
    let errs = errors(&events);
    assert_eq!(errs.len(), 1);
    assert_eq!(errs[0].to_string(), "p.tar!/b.log: truncated: 1000 of 5000 bytes");
}

#[test]
fn multi_member_gzip_is_read_fully() {
    let first = text(19, 10_000);
    let second = text(20, 20_000);
    let mut both = gzip(&first);
    both.extend_from_slice(&gzip(&second));
    let events = run("m.log.gz", &both, &opts());
    assert_eq!(errors(&events), []);
    let mut expected = first.clone();
    expected.extend_from_slice(&second);
    assert_eq!(content(&events, "m.log.gz!/m.log"), &expected[..]);
    // Also a tarball split over two members.
    let tarball = tar(&[("a.log", &first), ("b.log", &second)]);
    let mut split = gzip(&tarball[..3000]);
    split.extend_from_slice(&gzip(&tarball[3000..]));
    let events = run("s.tgz", &split, &opts());
    assert_eq!(errors(&events), []);
    assert_eq!(content(&events, "s.tgz!/b.log"), &second[..]);
}

#[test]
fn gzip_member_detected_by_content() {
    let data = b"hello from a gzip without the suffix\n";
    let gz = gzip(data);
    let events = run("logs/blob", &gz, &opts());
    assert_eq!(paths(&events), ["logs/blob!/blob"]);
    let events = run("b.tgz", &gz, &opts());
    assert_eq!(paths(&events), ["b.tgz!/b.tar"]);
}

#[test]
fn binary_members_are_skipped() {
    let mut core = b"header".to_vec();
    core.extend_from_slice(&[0, 1, 2, 3]);
    let archive = zip(&[
        ("img.png", b"\x89PNG\r\n\x1a\n....", Method::Stored),
        ("core.bin", &core, Method::Deflate),
        ("ok.log", b"fine\n", Method::Deflate),
        ("latin1.log", b"caf\xe9\n", Method::Stored),
    ]);
    let events = run("b.zip", &archive, &opts());
    assert_eq!(paths(&events), ["b.zip!/ok.log", "b.zip!/latin1.log"]);
    assert_eq!(
        skipped(&events),
        [("b.zip!/img.png".to_string(), "PNG image, skipped".to_string()), ("b.zip!/core.bin".to_string(), "binary file (NUL bytes), skipped".to_string()),]
    );
    assert_eq!(errors(&events), []);
}

#[test]
fn tar_long_names_pax_and_prefix() {
    let long = format!("{}/deep.log", "d".repeat(140));
    let mut archive = Vec::new();
    // GNU long name.
    let mut name = long.clone().into_bytes();
    name.push(0);
    tar_entry(&mut archive, "././@LongLink", &name, b'L', 0);
    tar_entry(&mut archive, &long[..99], b"gnu\n", b'0', 1_600_000_000);
    // pax path and mtime; the header's own name is a stand-in.
    let pax = format!("{}{}", pax_record("path", "pax/very/long/name.log"), pax_record("mtime", "1650000000.5"));
    tar_entry(&mut archive, "PaxHeaders/x", pax.as_bytes(), b'x', 0);
    tar_entry(&mut archive, "short-stand-in", b"pax\n", b'0', 1_600_000_000);
    // A global pax header is ignored; a directory and a symlink are passed over.
    tar_entry(&mut archive, "global", pax_record("comment", "hi").as_bytes(), b'g', 0);
    tar_entry(&mut archive, "dir/", b"", b'5', 0);
    tar_entry(&mut archive, "link", b"", b'2', 0);
    // ustar prefix.
    archive.extend_from_slice(&tar_header("file.log", 7, b'0', 1_600_000_000, "prefix/dir"));
    archive.extend_from_slice(b"prefix\n");
    archive.resize(archive.len().next_multiple_of(512), 0);
    archive.extend_from_slice(&[0; 1024]);

    let events = run("n.tar", &archive, &opts());
    assert_eq!(errors(&events), []);
    assert_eq!(paths(&events), [format!("n.tar!/{long}"), "n.tar!/pax/very/long/name.log".to_string(), "n.tar!/prefix/dir/file.log".to_string()]);
    let members = files(&events);
    assert_eq!(&*members[0].bytes, b"gnu\n");
    assert_eq!(members[0].mtime_secs, Some(1_600_000_000));
    assert_eq!(&*members[1].bytes, b"pax\n");
    assert_eq!(members[1].mtime_secs, Some(1_650_000_000));
    assert_eq!(&*members[2].bytes, b"prefix\n");
}

#[test]
fn corrupt_tar_header_is_reported() {
    let mut archive = tar(&[("a.log", b"a\n"), ("b.log", b"b\n")]);
    archive[1024 + 10] ^= 1;
    let events = run("c.tar", &archive, &opts());
    assert_eq!(paths(&events), ["c.tar!/a.log"]);
    let errs = errors(&events);
    assert!(matches!(&errs[..], [IngestError::Corrupt { path, detail }] if path == "c.tar" && detail.contains("checksum")), "{errs:?}");
}

#[test]
fn error_messages_name_their_path() {
    let samples = [
        IngestError::TotalCap { path: "cozyreport.zip!/big.log".into(), cap: 8 << 30 },
        IngestError::RatioCap { path: "a.zip!/x.log".into(), max_ratio: 200 },
        IngestError::CorruptGzip { path: "a.tar.gz".into(), after: 1_048_576, detail: "invalid distance".into() },
    ];
    assert_eq!(samples[0].to_string(), "cozyreport.zip!/big.log: left out: the run's input is over the 8 GiB total cap (--max-total-bytes counts the decompressed bytes of all inputs together)");
    assert_eq!(samples[1].to_string(), "a.zip!/x.log: compression ratio above 200:1 (possible decompression bomb; raise --max-ratio)");
    assert_eq!(samples[2].to_string(), "a.tar.gz: corrupt gzip stream after 1048576 bytes: invalid distance");
    for e in &samples {
        assert!(e.to_string().starts_with(e.path()));
    }
}

// ---------------------------------------------------------------- never panics

fn drain(name: &str, bytes: &[u8]) -> usize {
    let opts = IngestOptions { max_total_bytes: 64 << 20, ..IngestOptions::default() };
    let mut n = 0;
    ingest(name, bytes, &opts, &mut |e| {
        let path = match &e {
            Event::File(m) => m.path.clone(),
            Event::Skipped { path, .. } => path.clone(),
            Event::Error(err) => err.path().to_string(),
        };
        assert!(path.starts_with(name), "{path} does not start with {name}");
        n += 1;
    });
    n
}

fn sample_zip() -> Vec<u8> {
    let nested = zip(&[("n.log", b"nested\n", Method::Deflate)]);
    zip(&[("a.log", &text(21, 3000), Method::Deflate), ("b.log", b"stored member\n", Method::Stored), ("inner.zip", &nested, Method::Stored)])
}

fn sample_streamed_zip() -> Vec<u8> {
    zip_with(
        &[("a.log", &text(22, 2000), Method::Deflate), ("b.log", b"stored member\n", Method::Stored)],
        ZipLayout { no_central: true, descriptors: true, zip64: false },
    )
    .0
}

fn sample_tgz() -> Vec<u8> {
    let nested = zip(&[("n.log", b"nested\n", Method::Deflate)]);
    gzip(&tar(&[("a.log", &text(23, 3000)), ("b.zip", &nested), ("c.log", b"c\n")]))
}

fn mutate(mut bytes: Vec<u8>, cut: usize, flips: &[(usize, u8)]) -> Vec<u8> {
    for &(at, mask) in flips {
        if !bytes.is_empty() {
            let at = at % bytes.len();
            bytes[at] ^= mask.max(1);
        }
    }
    bytes.truncate(cut % (bytes.len() + 1));
    bytes
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn never_panics_on_arbitrary_bytes(
        bytes in proptest::collection::vec(any::<u8>(), 0..2048),
        prefix in prop::sample::select(vec![&b""[..], b"PK\x03\x04", b"PK\x05\x06", b"\x1f\x8b\x08", b"PK\x07\x08PK\x03\x04"]),
        name in prop::sample::select(vec!["x", "x.zip", "x.tar", "x.tgz", "x.gz"]),
    ) {
        let mut input = prefix.to_vec();
        input.extend_from_slice(&bytes);
        drain(name, &input);
    }

    #[test]
    fn never_panics_on_damaged_archives(
        which in 0usize..3,
        cut in any::<usize>(),
        flips in proptest::collection::vec((any::<usize>(), any::<u8>()), 0..8),
    ) {
        let (name, valid) = match which {
            0 => ("s.zip", sample_zip()),
            1 => ("s.zip", sample_streamed_zip()),
            _ => ("s.tgz", sample_tgz()),
        };
        let len = valid.len();
        let damaged = mutate(valid, if cut % 4 == 0 { len } else { cut }, &flips);
        drain(name, &damaged);
    }

    #[test]
    fn never_panics_on_damaged_tar_headers(
        cut in any::<usize>(),
        flips in proptest::collection::vec((0usize..1536, any::<u8>()), 1..6),
    ) {
        let valid = tar(&[("a.log", b"alpha\n"), ("b.log", &text(24, 700))]);
        drain("s.tar", &mutate(valid, cut, &flips));
    }
}
