//! Evidence links (src/evidence.rs): a slice of the incident travels in a
//! link of at most 32 KiB and, opened with no artifact, shows the same
//! finding, bars, elections and raw lines; payloads round-trip; secrets
//! never travel.

#[path = "support/files.rs"]
mod files;
#[path = "support/gen.rs"]
mod gen;

use std::path::Path;

use proptest::prelude::*;
use reconscope::analyze::FindingKind;
use reconscope::evidence::{self, Evidence, EvidenceFile, EvidenceMeta, MAX_LINK_BYTES};
use reconscope::redact::RedactOptions;
use reconscope::web::{LoadResult, Session, ShareRequest};

const APP: &str = "https://example.org/reconscope/";

fn incident_session() -> (Session, LoadResult) {
    incident_session_with(|_, bytes| bytes)
}

/// The incident's files, each as `edit(name, bytes)` gives it back.
fn incident_session_with(edit: impl Fn(&str, Vec<u8>) -> Vec<u8>) -> (Session, LoadResult) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/incident");
    let paths = files::files_under(&root.join("cozyreport"));
    let mut s = Session::new(paths.len() as u32, 0);
    for p in &paths {
        let name = p.strip_prefix(&root).unwrap().to_string_lossy().into_owned();
        let bytes = edit(&name, std::fs::read(p).unwrap());
        s.add(&name, bytes);
    }
    let r = s.finish();
    (s, r)
}

fn request(finding: usize) -> ShareRequest {
    ShareRequest {
        finding: Some(finding as u32),
        taken_at_nanos: Some(1_780_000_000_000_000_000),
        max_payload_bytes: (MAX_LINK_BYTES - APP.len() - 200) as u64,
        ..ShareRequest::default()
    }
}

/// Opens a link's fragment as the app does with no artifact loaded.
fn open(fragment: &str) -> (Session, LoadResult) {
    let ev = evidence::from_payload(fragment).expect("the link decodes");
    let mut s = Session::from_evidence(ev);
    let r = s.finish();
    (s, r)
}

#[test]
fn the_stall_travels_in_a_link_with_its_bars_elections_and_raw_lines() {
    let (s, whole) = incident_session();
    let a = &whole.analysis;
    let stall_i = a.findings.iter().position(|f| f.kind == FindingKind::StalledWorker).unwrap();
    let stall = &a.findings[stall_i];
    let shared = s.share(&request(stall_i)).unwrap();
    let fragment = shared.fragment.expect("a link");
    let link = format!("{APP}{fragment}");
    assert!(link.len() <= MAX_LINK_BYTES, "link of {} bytes", link.len());
    assert!(link.bytes().all(|b| b.is_ascii_graphic()), "a link is plain URL characters");

    let (opened, r) = open(&fragment);
    let meta = r.evidence.clone().expect("the result says it is evidence");
    assert_eq!(meta.artifact, "cozyreport");
    assert_eq!(meta.total_reconciles, a.reconciles.len() as u64);
    assert!(meta.lines > 50 && meta.lines < meta.total_lines, "{} of {} lines", meta.lines, meta.total_lines);
    // The finding, word for word, and the one it is about.
    let f = r.analysis.findings[meta.finding.unwrap()].clone();
    let f = &f;
    assert_eq!(f.kind, FindingKind::StalledWorker);
    assert_eq!(f.message, stall.message);
    assert_eq!((f.start, f.end), (stall.start, stall.end));
    // Its reconcile, with the same times and latent start, and neighbours
    // around it so the chart is real.
    let held = &a.reconciles[stall.reconciles[0]];
    let carried = &r.analysis.reconciles[f.reconciles[0]];
    assert_eq!(carried.reconcile_id, held.reconcile_id);
    assert_eq!(
        (carried.first, carried.last, carried.latent_start, carried.stated_start, carried.lines),
        (held.first, held.last, held.latent_start, held.stated_start, held.lines)
    );
    assert_eq!(meta.selected.as_deref(), Some(held.reconcile_id.as_str()));
    assert!(r.analysis.reconciles.len() > 20, "{} reconciles", r.analysis.reconciles.len());
    // Both elections of etcd tenant-root, with their terms.
    let terms: Vec<Option<u64>> = r.analysis.elections.iter().map(|e| e.term).collect();
    assert_eq!(terms, vec![Some(8), Some(9)]);
    assert_eq!(f.elections.len(), 2);
    // The inspector: every raw line of the stalled reconcile, with its file
    // and line number, as in the artifact.
    let lines_there = s.lines(stall.reconciles[0] as u32).unwrap();
    let lines_here = opened.lines(f.reconciles[0] as u32).unwrap();
    let own = |l: &reconscope::web::ReconcileLines| {
        l.blocks.iter().flat_map(|b| b.lines.iter().filter(|x| x.own).map(move |x| (b.path.clone(), x.number, x.text.clone()))).collect::<Vec<_>>()
    };
    assert_eq!(own(&lines_here), own(&lines_there));
    assert_eq!(lines_here.left_out_lines, 0);
    // Its elections' raft lines travel too.
    let raft = opened.files().iter().filter(|f| f.path.contains("etcd")).map(|f| f.records.len()).sum::<usize>();
    assert!(raft >= 4, "{raft} raft lines");
    // The timeline lays out from it as from any load.
    let mut r = r;
    r.lay_out(Default::default());
    let t = r.timeline.as_ref().unwrap();
    assert!(t.bands.len() >= 2 && t.rows.len() > 3);
    // Filters run over its lines: the stalled reconcile's error.
    let hits = opened.matching(&reconscope::web::MessageFilter { pattern: "DataStore user".into(), min_level: 0 }).unwrap();
    assert!(hits.contains(&(f.reconciles[0] as u32)));
}

#[test]
fn a_link_made_before_stated_starts_were_kept_still_opens() {
    // A link's JSON as a build before `stated_start` wrote it: the same
    // slice with the key taken out of every reconcile.
    let (s, whole) = incident_session();
    let stall_i = whole.analysis.findings.iter().position(|f| f.kind == FindingKind::StalledWorker).unwrap();
    let fragment = s.share(&request(stall_i)).unwrap().fragment.expect("a link");
    let ev = evidence::from_payload(&fragment).unwrap();
    let mut json = serde_json::to_value(&ev).unwrap();
    let reconciles = json["analysis"]["reconciles"].as_array_mut().unwrap();
    assert!(!reconciles.is_empty());
    for r in reconciles {
        assert!(r.as_object_mut().unwrap().remove("stated_start").is_some(), "{r}");
    }
    let mut bytes = evidence::to_bytes(&ev)[..5].to_vec();
    let mut deflate = flate2::write::DeflateEncoder::new(&mut bytes, flate2::Compression::default());
    std::io::Write::write_all(&mut deflate, &serde_json::to_vec(&json).unwrap()).unwrap();
    deflate.finish().unwrap();
    let old = evidence::from_bytes(&bytes).expect("an old link opens");
    let held = &whole.analysis.reconciles[whole.analysis.findings[stall_i].reconciles[0]];
    let stalled = old.analysis.reconciles.iter().find(|r| r.reconcile_id == held.reconcile_id).expect("the stalled reconcile");
    // Read as what it is: the earliest its worker allows.
    assert!(!stalled.stated_start);
    assert_eq!(stalled.duration_text(), "at most 20m38s");
}

#[test]
fn every_finding_of_the_incident_gets_a_link_under_32_kib() {
    let (s, whole) = incident_session();
    for (i, f) in whole.analysis.findings.iter().enumerate() {
        let shared = s.share(&request(i)).unwrap();
        let fragment = shared.fragment.unwrap_or_else(|| panic!("no link for {:?}", f.kind));
        assert!(APP.len() + fragment.len() <= MAX_LINK_BYTES);
        let (_, r) = open(&fragment);
        let meta = r.evidence.unwrap();
        assert_eq!(r.analysis.findings[meta.finding.unwrap()].message, f.message);
        // When context was left out, the whole slice is offered as a file.
        assert_eq!(meta.left_out.is_empty(), shared.file.is_none(), "{:?}", meta.left_out);
    }
}

#[test]
fn a_stall_to_the_log_s_end_travels_with_the_dump_that_shows_it() {
    // The controller log cut before the first line of the reconcile that
    // held the worker (16:50:06): only the dump shows the worker held.
    let (s, whole) = incident_session_with(|name, bytes| {
        if !name.ends_with("kamaji/kamaji-controller.log") {
            return bytes;
        }
        let at = memchr::memmem::find(&bytes, b"c853721a").unwrap();
        bytes[..memchr::memrchr(b'\n', &bytes[..at]).unwrap() + 1].to_vec()
    });
    let a = &whole.analysis;
    let stall_i = a.findings.iter().position(|f| f.kind == FindingKind::StalledWorker).unwrap();
    let stall = &a.findings[stall_i];
    assert!(stall.silence.as_ref().unwrap().to_log_end && stall.reconciles.is_empty() && stall.blocked.is_some());
    let fragment = s.share(&request(stall_i)).unwrap().fragment.expect("a link");
    assert!(APP.len() + fragment.len() <= MAX_LINK_BYTES);
    let (_, r) = open(&fragment);
    let meta = r.evidence.clone().unwrap();
    let f = &r.analysis.findings[meta.finding.unwrap()];
    assert_eq!((f.kind, &f.message, f.start, f.end), (FindingKind::StalledWorker, &stall.message, stall.start, stall.end));
    assert!(f.silence.as_ref().unwrap().to_log_end);
    // The dump travels: the call is named, from the slice alone.
    assert_eq!(f.blocked.as_ref().map(|b| b.call.as_str()), Some("go.etcd.io/etcd/client/v3.(*authClient).UserGet"));
    assert_eq!(meta.selected, None, "no reconcile to select");
}

#[test]
fn a_big_log_is_trimmed_to_fit_and_says_what_it_left_out() {
    let log = gen::kamaji_log(8 << 20, 3);
    let mut s = Session::new(1, log.len() as u64);
    s.add("kamaji.log", log);
    let whole = s.finish();
    let a = &whole.analysis;
    assert!(a.reconciles.len() > 1000);
    // A window over everything: far more than fits.
    let lo = a.reconciles.iter().map(|r| r.start().nanos).min().unwrap();
    let hi = a.reconciles.iter().map(|r| r.last.nanos).max().unwrap();
    let req = ShareRequest { window: Some((lo, hi)), selected: Some(500), ..request(0) };
    let req = ShareRequest { finding: None, ..req };
    let shared = s.share(&req).unwrap();
    let fragment = shared.fragment.unwrap();
    assert!(fragment.len() <= req.max_payload_bytes as usize + 200);
    let meta = shared.meta.unwrap();
    assert!(meta.left_out.reconciles > 0, "{:?}", meta.left_out);
    assert_eq!(meta.selected.as_deref(), Some(a.reconciles[500].reconcile_id.as_str()));
    // The file holds more than the link, and opens too.
    let file = shared.file.expect("a file when context was left out");
    let file_meta = shared.file_meta.unwrap();
    assert!(file_meta.reconciles > meta.reconciles);
    let mut from_file = Session::new(1, 0);
    from_file.add("slice.reconscope", file.into_bytes());
    let r = from_file.finish();
    assert_eq!(r.evidence.unwrap().reconciles, file_meta.reconciles);
    assert_eq!(r.analysis.reconciles.len() as u64, file_meta.reconciles);
}

#[test]
fn secrets_in_lines_never_travel_and_ids_stay() {
    let jwt = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzeXN0ZW06c2EifQ.c2lnbmF0dXJlc2lnbmF0dXJl";
    let log = format!(
        "2026-05-26T16:29:30Z\tINFO\tReconciling\t{{\"controller\": \"tenantcontrolplane\", \"TenantControlPlane\": {{\"name\": \"kubernetes-test\", \"namespace\": \"tenant-test\"}}, \"reconcileID\": \"c853721a-23af-4ffb-917c-6c12cb41287c\"}}\n\
         2026-05-26T16:29:31Z\tINFO\tcalling\t{{\"controller\": \"tenantcontrolplane\", \"reconcileID\": \"c853721a-23af-4ffb-917c-6c12cb41287c\", \"Authorization\": \"Bearer {jwt}\", \"password\": \"hunter2\", \"url\": \"https://admin:s3cret@10.0.0.7:6443/api\"}}\n\
         2026-05-26T16:29:32Z\tERROR\tReconciler error\t{{\"controller\": \"tenantcontrolplane\", \"reconcileID\": \"c853721a-23af-4ffb-917c-6c12cb41287c\", \"error\": \"token ghp_0123456789abcdefghijklmnopqrstuvwxyz refused by 10.0.0.7\"}}\n"
    );
    let mut s = Session::new(1, 0);
    s.add("m.log", log.into_bytes());
    let whole = s.finish();
    assert_eq!(whole.analysis.reconciles.len(), 1);
    for mask_hosts in [false, true] {
        let req = ShareRequest { finding: None, selected: Some(0), redact: RedactOptions { mask_hosts }, ..request(0) };
        let shared = s.share(&req).unwrap();
        let fragment = shared.fragment.unwrap();
        let ev = evidence::from_payload(&fragment).unwrap();
        let everything = serde_json::to_string(&ev).unwrap();
        for secret in [jwt, "hunter2", "s3cret", "ghp_0123456789abcdefghijklmnopqrstuvwxyz"] {
            assert!(!everything.contains(secret), "{secret} travelled");
        }
        assert_eq!(everything.contains("10.0.0.7"), !mask_hosts);
        for kept in ["c853721a-23af-4ffb-917c-6c12cb41287c", "tenant-test", "kubernetes-test", "2026-05-26T16:29:30Z"] {
            assert!(everything.contains(kept), "{kept} was redacted");
        }
        let kinds: Vec<&str> = ev.meta.redacted.iter().map(|(k, _)| k.as_str()).collect();
        for k in ["authorization", "secret-value", "url-credentials", "token"] {
            assert!(kinds.contains(&k), "{k} not counted: {kinds:?}");
        }
        assert_eq!(kinds.contains(&"ip"), mask_hosts);
        // The reconcile's error, carried in the analysis, is redacted too.
        assert!(!ev.analysis.reconciles[0].error.as_deref().unwrap_or("").contains("ghp_"));
    }
}

#[test]
fn damaged_and_cut_links_are_refused_with_a_reason() {
    let (s, whole) = incident_session();
    let i = whole.analysis.findings.iter().position(|f| f.kind == FindingKind::ExpiredContext).unwrap();
    let fragment = s.share(&request(i)).unwrap().fragment.unwrap();
    let payload = fragment.trim_start_matches("#ev=").split('&').next().unwrap().to_string();
    assert!(evidence::from_payload(&payload).is_ok());
    let cut = &payload[..payload.len() * 2 / 3];
    assert!(evidence::from_payload(cut).unwrap_err().to_string().contains("cut short"));
    let mut damaged = payload.clone().into_bytes();
    damaged[40] = b'!';
    assert!(evidence::from_payload(std::str::from_utf8(&damaged).unwrap()).unwrap_err().to_string().contains("not base64url"));
    // Flipped bits in the compressed data: refused, never a panic.
    for at in [12usize, 100, 400] {
        let mut flipped = payload.clone().into_bytes();
        flipped[at] = if flipped[at] == b'A' { b'B' } else { b'A' };
        let _ = evidence::from_payload(std::str::from_utf8(&flipped).unwrap());
    }
}

fn arb_evidence() -> impl Strategy<Value = Evidence> {
    let line = (1u32..100_000, "[ -~\u{e9}\u{202e}\u{1b}]{0,80}");
    let file = ("[a-z/]{1,20}\\.log", proptest::collection::vec(line, 0..20));
    (proptest::collection::vec(file, 0..4), "[ -~]{0,30}", any::<Option<i64>>(), any::<u64>()).prop_map(|(files, artifact, taken_at_nanos, lines)| Evidence {
        meta: EvidenceMeta { artifact, taken_at_nanos, lines, made_by: "test".into(), ..EvidenceMeta::default() },
        files: files.into_iter().map(|(path, lines)| EvidenceFile { path, lines }).collect(),
        analysis: Default::default(),
    })
}

proptest! {
    #[test]
    fn payloads_round_trip(ev in arb_evidence()) {
        let payload = evidence::to_payload(&ev);
        let back = evidence::from_payload(&payload).unwrap();
        prop_assert_eq!(serde_json::to_value(&back).unwrap(), serde_json::to_value(&ev).unwrap());
    }

    #[test]
    fn any_payload_text_is_refused_or_read_never_a_panic(s in "[A-Za-z0-9_-]{0,200}") {
        let _ = evidence::from_payload(&s);
    }
}

/// A slice carries how the artifact's times were read: a year taken from a
/// file's modification time and a zone the logs did not write are said to
/// whoever opens the link, as to the sender.
#[test]
fn a_link_says_how_its_times_were_read() {
    // klog (no year, no zone), as tests/corpus/klog/kcm_leader_event_and_failed_update_lock.log writes it.
    let log = "I1203 05:55:01.100000       1 leaderelection.go:258] successfully acquired lease default/lease\n\
               I1203 05:55:02.543563       1 leaderelection.go:285] failed to renew lease default/lease: timed out waiting for the condition\n";
    let mut s = Session::new(1, 0);
    s.modified("kcm.log", 1_714_608_000); // 2024-05-02
    s.add("kcm.log", log.as_bytes().to_vec());
    let whole = s.finish();
    let a = &whole.analysis;
    assert!(a.year_from_mtime, "{:?}", whole.notes);
    assert_eq!(a.zone_assumed, Some(reconscope::analyze::ZoneAssumed { utc_offset_secs: 0, files: 1 }));
    let lost = a.findings.iter().position(|f| f.kind == FindingKind::LeaseLost).expect("a lease-lost finding");
    let (opened, r) = open(&s.share(&request(lost)).unwrap().fragment.unwrap());
    assert_eq!((r.analysis.year_from_mtime, r.analysis.zone_assumed), (true, a.zone_assumed));
    let md = opened.markdown(APP, None, RedactOptions::default());
    assert!(
        md.contains("Times are UTC, on 2023-12-03 (the logs write no year: each time has the latest year that puts it no later than its file's modification time). Times written with no zone (1 file) are read as UTC."),
        "{md}"
    );
}
