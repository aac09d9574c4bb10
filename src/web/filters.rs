//! The filters over reconciles: text and level ([`matching_reconciles`])
//! and duration ([`reconciles_longer_than`], with [`crate::time::parse_duration`] for
//! what a person types).

use std::ops::ControlFlow;

use regex::bytes::Regex;
use serde::{Deserialize, Serialize};

use super::lines::{Shown, Step};
use super::MAX_CONTEXT_LINES;
use crate::analyze::{Reconcile, RecordRef};
use crate::model::{Level, ParsedFile, Record, Span, ValueKind};

/// A filter over the text of records (everything the inspector shows of
/// them) and their levels: see [`matching_reconciles`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MessageFilter {
    /// A regular expression, case-insensitive, over a record's text: its
    /// raw lines and its decoded message and field values (empty: any).
    pub pattern: String,
    /// The lowest level a record may have: 0 any, 1 info, 2 warn, 3 error.
    pub min_level: u8,
}

impl MessageFilter {
    pub fn is_empty(&self) -> bool {
        self.pattern.is_empty() && self.min_level == 0
    }
}

/// Indexes (ascending) of the reconciles (each a range of `refs`) that
/// `filter` lets through.
///
/// The pattern (a case-insensitive regular expression, `^`/`$` at line
/// ends) is matched against the text a person sees of a record:
/// - its raw lines as the inspector shows them (so its message, logger,
///   level and time, every field key and value as the line writes them —
///   `"error": "…"`, `key=value` in klog or logfmt — and the continuation
///   lines joined to it, a Go stack's frames);
/// - its message and each field value decoded, where the line writes them
///   escaped (JSON strings with `\"` or `\n`) or a wrapper's payload was
///   rewritten (docker json-file, lines joined in the parser's scratch);
///   with an anchor in the pattern, also each as it stands alone, so
///   `^tenant-` finds a value that begins so. A `key=value` form is not
///   made up for lines that write `"key": "value"` (zap, JSON).
///
/// A reconcile matches when one of its own records has a level at least
/// `filter.min_level` and matches the pattern, or when one of its own
/// records reaches that level and one of the lines the inspector shows
/// between its own ones without a `reconcileID` (an etcd client warning
/// logged mid-reconcile; at most [`MAX_CONTEXT_LINES`], as shown) matches
/// the pattern: such lines count for the text, never for the level.
///
/// `Err`: a bad pattern, in a short sentence.
pub fn matching_reconciles(files: &[ParsedFile], refs: &[RecordRef], reconciles: &[Reconcile], filter: &MessageFilter) -> Result<Vec<u32>, String> {
    let text = if filter.pattern.is_empty() { None } else { Some(TextMatcher::new(&filter.pattern)?) };
    let min = match filter.min_level {
        0 => Level::Unknown,
        1 => Level::Info,
        2 => Level::Warn,
        _ => Level::Error,
    };
    let record = |r: &RecordRef| files.get(r.file as usize).and_then(|f| Some((f, f.records.get(r.record as usize)?)));
    let mut shown = Shown::default();
    let mut out = Vec::new();
    for (i, r) in reconciles.iter().enumerate() {
        let Some(rs) = refs.get(r.records.start as usize..r.records.end as usize) else { continue };
        let mut level_reached = false;
        let mut hit = rs.iter().filter_map(record).any(|(f, rec)| {
            let level = rec.level >= min;
            level_reached |= level;
            level && text.as_ref().is_none_or(|t| t.matches(f, rec))
        });
        if let (false, true, Some(t)) = (hit, level_reached, &text) {
            shown.walk(files, rs, MAX_CONTEXT_LINES, |step| match step {
                Step::Context(f, rec) if t.matches(f, rec) => {
                    hit = true;
                    ControlFlow::Break(())
                }
                _ => ControlFlow::Continue(()),
            });
        }
        if hit {
            out.push(i as u32);
        }
    }
    Ok(out)
}

/// The text filter's regular expression, over a record's bytes.
struct TextMatcher {
    re: Regex,
    /// The pattern holds an anchor (or an escape, which may be one): the
    /// message and values are also tried alone, not only inside the line.
    anchored: bool,
    /// The pattern is plain ASCII text with no regex syntax (what people
    /// mostly type): searched for directly, ASCII case folded, before the
    /// regex (which has no literal prefilter in this build: its
    /// `perf-*` features are off).
    literal: Option<AsciiLiteral>,
}

/// A case-insensitive search for ASCII text.
struct AsciiLiteral {
    needle: Vec<u8>,
    /// The needle's first byte, in both cases.
    first: (u8, u8),
    /// It holds `k` or `s`, which Unicode case folding also matches with
    /// a non-ASCII letter (K KELVIN SIGN, ſ LONG S): then a haystack with
    /// non-ASCII bytes and no ASCII match goes to the regex.
    folds_beyond_ascii: bool,
}

impl AsciiLiteral {
    fn new(pattern: &str) -> Option<AsciiLiteral> {
        let plain = pattern.is_ascii() && !pattern.is_empty() && !pattern.contains(['\\', '.', '+', '*', '?', '(', ')', '|', '[', ']', '{', '}', '^', '$']);
        plain.then(|| {
            let needle = pattern.as_bytes().to_vec();
            let first = (needle[0].to_ascii_lowercase(), needle[0].to_ascii_uppercase());
            let folds_beyond_ascii = needle.iter().any(|b| matches!(b.to_ascii_lowercase(), b'k' | b's'));
            AsciiLiteral { needle, first, folds_beyond_ascii }
        })
    }

    /// `Some(found)` when that settles it; `None`: ask the regex.
    fn find(&self, hay: &[u8]) -> Option<bool> {
        let n = self.needle.len();
        let found = hay.len() >= n
            && memchr::memchr2_iter(self.first.0, self.first.1, &hay[..=hay.len() - n]).any(|i| hay[i..i + n].eq_ignore_ascii_case(&self.needle));
        if found || !self.folds_beyond_ascii || hay.is_ascii() {
            Some(found)
        } else {
            None
        }
    }
}

impl TextMatcher {
    fn new(pattern: &str) -> Result<TextMatcher, String> {
        let re = regex::bytes::RegexBuilder::new(pattern).case_insensitive(true).multi_line(true).size_limit(1 << 20).build().map_err(|e| match e {
            regex::Error::Syntax(s) => s.lines().last().unwrap_or("invalid regular expression").trim().to_string(),
            other => other.to_string(),
        })?;
        Ok(TextMatcher { re, anchored: pattern.contains(['^', '$', '\\']), literal: AsciiLiteral::new(pattern) })
    }

    fn is_match(&self, hay: &[u8]) -> bool {
        match self.literal.as_ref().and_then(|l| l.find(hay)) {
            Some(found) => found,
            None => self.re.is_match(hay),
        }
    }

    /// Whether the text a person sees of `rec` matches (see
    /// [`matching_reconciles`]). Allocates only to unescape a string that
    /// has escapes.
    fn matches(&self, f: &ParsedFile, rec: &Record) -> bool {
        let raw = f.raw(rec);
        if self.is_match(&raw) {
            return true;
        }
        let decoded = |span: Span, kind: ValueKind| {
            let bytes = f.span_bytes(span);
            if kind == ValueKind::JsonString && memchr::memchr(b'\\', &bytes).is_some() {
                self.is_match(crate::parse::json::unescape(&bytes).as_bytes())
            } else {
                (self.anchored || span.in_scratch()) && self.is_match(&bytes)
            }
        };
        // Fields not kept are in the raw line, as written: only an escape
        // in it or an anchored pattern can match them otherwise, so only
        // then are they parsed again.
        let fields_in_raw = rec.fields_again_after.is_some() && !self.anchored && memchr::memchr(b'\\', &raw).is_none();
        decoded(rec.message, rec.message_kind)
            || (!fields_in_raw && f.fields(rec).iter().any(|fl| decoded(fl.value, fl.kind) || (fl.key.in_scratch() && self.is_match(&f.span_bytes(fl.key)))))
    }
}

/// Indexes (ascending) of the reconciles that lasted at least `min_nanos`
/// as far as the logs tell: the lower bound of the time from the
/// reconcile's start to its last line (its latent start when it has one,
/// as the chart draws its bar and `Reconcile::duration_text` states it;
/// give or take the coarser timestamp's tick, [`Gap::at_least`], the
/// bound the JSON gives as `duration_nanos_at_least`). So a reconcile
/// whose lines read `16:55:13Z` and `16:55:15Z` lasted at least 1 s, and
/// one whose lines all read the same second at least 0 s. A one-line
/// reconcile has no duration: only a `min_nanos` of 0 or less lets it
/// through (as it lets every reconcile through). A latent start from the
/// worker is only the earliest it can have begun (`at most 20m38s`): such a
/// reconcile passes when it may have lasted that long (the upper bound,
/// [`Gap::at_most`]), so a stall whose first line came late is not
/// filtered out of its own picture.
///
/// [`Gap::at_least`]: crate::time::Gap
pub fn reconciles_longer_than(reconciles: &[Reconcile], min_nanos: i64) -> Vec<u32> {
    let lasted = |r: &Reconcile| {
        let g = crate::time::Gap::between(r.start(), r.last);
        match (r.is_one_line(), r.start_is_bound()) {
            (true, _) => 0,
            (false, true) => g.at_most,
            (false, false) => g.at_least,
        }
    };
    reconciles.iter().enumerate().filter(|(_, r)| min_nanos <= 0 || lasted(r) >= min_nanos).map(|(i, _)| i as u32).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::FindingKind;
    use crate::web::testutil::incident;
    use crate::web::Session;

    /// Loads `files` (name, text) and checks, for each case (pattern,
    /// min_level, the reconcileIDs it should find), what the filter finds;
    /// every mismatch in one failure.
    fn check(files: &[(&str, &str)], cases: &[(&str, u8, &[&str])]) {
        let mut s = Session::new(files.len() as u32, 0);
        for (name, text) in files {
            s.add(name, text.as_bytes().to_vec());
        }
        let r = s.finish();
        let mut wrong = Vec::new();
        for &(pattern, min_level, want) in cases {
            let got = s.matching(&MessageFilter { pattern: pattern.into(), min_level }).map(|m| {
                let mut ids: Vec<&str> = m.iter().map(|&i| r.analysis.reconciles[i as usize].reconcile_id.as_str()).collect();
                ids.sort_unstable();
                ids
            });
            let mut want = want.to_vec();
            want.sort_unstable();
            if got != Ok(want.clone()) {
                wrong.push(format!("{pattern:?} (level {min_level}): got {got:?}, want {want:?}"));
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    /// kamaji's zap console lines (FORMATS.md §1) with etcd client warnings
    /// (§3) between them: one inside `r-del` (between its first and last
    /// lines), a warn one inside `r-ok`, one between the two reconciles.
    const ZAP: &str = r#"2026-05-26T16:55:13Z	INFO	marked for deletion, performing clean-up	{"controller": "tenantcontrolplane", "controllerGroup": "kamaji.clastix.io", "controllerKind": "TenantControlPlane", "namespace": "tenant-test", "name": "kubernetes-a", "reconcileID": "r-del"}
{"level":"warn","ts":"2026-05-26T16:55:13.000071Z","logger":"etcd-client","caller":"v3@v3.5.21/retry_interceptor.go:63","msg":"retrying of unary invoker failed","target":"etcd-endpoints://0xc000d52b40/etcd.tenant-root.svc:2379","attempt":0,"error":"rpc error: code = DeadlineExceeded desc = context deadline exceeded"}
2026-05-26T16:55:13Z	ERROR	Reconciler error	{"controller": "tenantcontrolplane", "controllerGroup": "kamaji.clastix.io", "controllerKind": "TenantControlPlane", "namespace": "tenant-test", "name": "kubernetes-a", "reconcileID": "r-del", "error": "unable to revoke privileges: context deadline exceeded"}
sigs.k8s.io/controller-runtime/pkg/internal/controller.(*Controller[...]).reconcileHandler
	/go/pkg/mod/sigs.k8s.io/controller-runtime@v0.22.4/pkg/internal/controller/controller.go:461
{"level":"info","ts":"2026-05-26T16:55:14.000000Z","logger":"etcd-client","msg":"leader changed","target":"etcd-endpoints://0xc000d52b40/etcd.tenant-root.svc:2379"}
2026-05-26T16:55:14Z	INFO	service has been configured	{"controller": "tenantcontrolplane", "controllerGroup": "kamaji.clastix.io", "controllerKind": "TenantControlPlane", "namespace": "tenant-b", "name": "kubernetes-b", "reconcileID": "r-ok"}
{"level":"warn","ts":"2026-05-26T16:55:14.500000Z","logger":"etcd-client","msg":"slow fdatasync","took":"1.2s"}
2026-05-26T16:55:15Z	INFO	kubernetes-b has been reconciled	{"controller": "tenantcontrolplane", "controllerGroup": "kamaji.clastix.io", "controllerKind": "TenantControlPlane", "namespace": "tenant-b", "name": "kubernetes-b", "reconcileID": "r-ok"}
"#;

    /// controller-runtime's JSON lines (FORMATS.md §2), an error with
    /// escaped quotes and a newline.
    const JSON: &str = r#"{"level":"info","ts":"2026-05-26T16:56:00Z","msg":"Reconciling","controller":"cluster","namespace":"ns","name":"c1","reconcileID":"r-json"}
{"level":"error","ts":"2026-05-26T16:56:01Z","msg":"Reconciler error","controller":"cluster","namespace":"ns","name":"c1","reconcileID":"r-json","error":"update \"c1\": the object has been modified\nretry"}
"#;

    /// A zap console line inside docker's json-file wrapper (FORMATS.md
    /// §4): the parser reads its payload unescaped, in scratch.
    const DOCKER: &str = r#"{"log":"2026-05-26T16:57:00Z\tINFO\tapplied \"quoted\" patch\t{\"controller\": \"tenantcontrolplane\", \"namespace\": \"d\", \"name\": \"x\", \"reconcileID\": \"r-docker\"}\n","stream":"stderr","time":"2026-05-26T16:57:00.123456789Z"}
"#;

    #[test]
    fn the_text_filter_matches_what_a_person_sees() {
        check(
            &[("zap.log", ZAP), ("json.log", JSON), ("docker.log", DOCKER)],
            &[
                ("marked for deletion", 0, &["r-del"]),
                // The error, field values, keys as written, a stack frame.
                ("unable to revoke", 0, &["r-del"]),
                ("tenant-b", 0, &["r-ok"]),
                ("controllerKind", 0, &["r-del", "r-ok"]),
                (r#""namespace": "tenant-test""#, 0, &["r-del"]),
                ("controller.go:461", 0, &["r-del"]),
                // An etcd warning inside r-del, shown there as context.
                ("DeadlineExceeded", 0, &["r-del"]),
                ("deadline", 0, &["r-del"]),
                // Untagged lines count for the text, not for the level.
                ("DeadlineExceeded", 3, &["r-del"]),
                ("fdatasync", 0, &["r-ok"]),
                ("fdatasync", 1, &["r-ok"]),
                ("fdatasync", 2, &[]),
                ("", 2, &["r-del", "r-json"]),
                // An untagged line outside every reconcile.
                ("leader changed", 0, &[]),
                // Anchors hold at the message's and a value's ends.
                ("^Reconciler error$", 0, &["r-del", "r-json"]),
                ("^tenant-b$", 0, &["r-ok"]),
                // Escaped JSON strings decoded; docker's payload too.
                (r#"update "c1""#, 0, &["r-json"]),
                (r"modified\s+retry", 0, &["r-json"]),
                (r#"applied "quoted" patch"#, 0, &["r-docker"]),
                ("RECONCILER ERROR", 3, &["r-del", "r-json"]),
                ("no such text 1f2e", 0, &[]),
            ],
        );
    }

    /// Plain text is searched for without the regex, with the regex's
    /// answers (Unicode case folding included).
    #[test]
    fn plain_text_is_found_as_the_regex_finds_it() {
        let hays =
            ["", "a", "Deadline", "xxDEADLINE exceeded", "deadlin", "the \u{212A}ubelet said", "Kubelet", "ſecret", "SECRET", "caf\u{e9} dead line", "tcp-41"];
        for pattern in ["deadline", "kubelet", "secret", "dead line", "tcp-4", "a", "zz"] {
            let t = TextMatcher::new(pattern).unwrap();
            assert!(t.literal.is_some(), "{pattern}");
            for hay in hays {
                assert_eq!(t.is_match(hay.as_bytes()), t.re.is_match(hay.as_bytes()), "{pattern:?} in {hay:?}");
            }
        }
        assert!(TextMatcher::new("kubelet").unwrap().is_match("the \u{212A}ubelet said".as_bytes()));
        for pattern in ["dead.ine", "a|b", "^a", "caf\u{e9}", r"\d"] {
            assert!(TextMatcher::new(pattern).unwrap().literal.is_none(), "{pattern}");
        }
    }

    #[test]
    fn a_bad_pattern_is_a_short_error() {
        let mut s = Session::new(1, 0);
        s.add("zap.log", ZAP.as_bytes().to_vec());
        s.finish();
        for pattern in ["(", "[a", "a{2,1}"] {
            let e = s.matching(&MessageFilter { pattern: pattern.into(), min_level: 0 }).unwrap_err();
            assert!(!e.is_empty() && e.len() < 80 && !e.contains('\n'), "{pattern:?}: {e:?}");
        }
    }

    /// The incident (its reconcileIDs read from
    /// `kamaji/kamaji-controller.log`): "deadline" is in the errors of the
    /// three reconciles that failed with `context deadline exceeded`
    /// (c853721a…, the stalled one, at line 919; 19e80ab0… at 1237-1263;
    /// bff740a5… at 1620-1646). "DeadlineExceeded" is only in the etcd
    /// client's warnings (lines 918, 1236, 1619, no reconcileID): 1236 and
    /// 1619 lie between the first and last lines of 19e80ab0… and
    /// bff740a5…, 918 comes before c853721a…'s first line (919), so the
    /// inspector does not show it there. "RoleGet" is nowhere in the
    /// fixture. A frame of the stall's stack (`datastore_setup.go:131`,
    /// line 921) is only c853721a…'s.
    #[test]
    fn the_incident_filtered_by_text() {
        const STALLED: &str = "c853721a-23af-4ffb-917c-6c12cb41287c";
        const REVOKE_1: &str = "19e80ab0-1cfa-4899-8593-2f0a0dc27014";
        const REVOKE_2: &str = "bff740a5-b9bc-4c5e-8507-2ab0d5cb5f92";
        let (s, r) = incident();
        let a = &r.analysis;
        let ids = |pattern: &str, min_level| {
            let m = s.matching(&MessageFilter { pattern: pattern.into(), min_level }).unwrap();
            let mut ids: Vec<&str> = m.iter().map(|&i| a.reconciles[i as usize].reconcile_id.as_str()).collect();
            ids.sort_unstable();
            ids
        };
        let mut all = [STALLED, REVOKE_1, REVOKE_2];
        all.sort_unstable();
        assert_eq!(ids("deadline", 0), all);
        assert_eq!(ids("context deadline exceeded", 3), all);
        assert_eq!(ids("DeadlineExceeded", 0), [REVOKE_1, REVOKE_2]);
        assert_eq!(ids("DeadlineExceeded", 3), [REVOKE_1, REVOKE_2]);
        assert_eq!(ids("RoleGet", 0), Vec::<&str>::new());
        assert_eq!(ids(r"datastore_setup\.go:131", 0), [STALLED]);
        assert_eq!(ids("no such text anywhere 1f2e", 0), Vec::<&str>::new());
        assert!(s.matching(&MessageFilter { pattern: "(".into(), min_level: 0 }).is_err());
        // What matched is what the inspector shows.
        for id in [REVOKE_1, REVOKE_2] {
            let i = a.reconciles.iter().position(|r| r.reconcile_id == id).unwrap();
            let l = s.lines(i as u32).unwrap();
            assert!(l.blocks.iter().flat_map(|b| &b.lines).any(|l| !l.own && l.text.contains("DeadlineExceeded")), "{id}");
        }
        let stalled = a.findings.iter().find(|f| f.kind == FindingKind::StalledWorker).unwrap();
        assert_eq!(a.reconciles[stalled.reconciles[0]].reconcile_id, STALLED);
    }

    #[test]
    fn reconciles_by_duration() {
        // r-30: 30 s apart at the second (at least 29 s and a nanosecond);
        // r-fine: 2.5 s at the microsecond (at least 2.5 s less 999 ns);
        // r-one: one line.
        const LOG: &str = r#"2026-05-26T16:00:00Z	INFO	Reconciling	{"controller": "c", "namespace": "n", "name": "a", "reconcileID": "r-30"}
2026-05-26T16:00:01.000000Z	INFO	Reconciling	{"controller": "c", "namespace": "n", "name": "b", "reconcileID": "r-fine"}
2026-05-26T16:00:03.500000Z	INFO	done	{"controller": "c", "namespace": "n", "name": "b", "reconcileID": "r-fine"}
2026-05-26T16:00:10Z	INFO	Reconciling	{"controller": "c", "namespace": "n", "name": "c", "reconcileID": "r-one"}
2026-05-26T16:00:30Z	INFO	done	{"controller": "c", "namespace": "n", "name": "a", "reconcileID": "r-30"}
"#;
        let mut sess = Session::new(1, 0);
        sess.add("a.log", LOG.as_bytes().to_vec());
        let a = sess.finish().analysis;
        let s = 1_000_000_000i64;
        let mut wrong = Vec::new();
        for (min, want) in [
            (0, &["r-30", "r-fine", "r-one"][..]),
            (1, &["r-30", "r-fine"]),
            (2 * s, &["r-30", "r-fine"]),
            (5 * s / 2 - 999, &["r-30", "r-fine"]),
            (5 * s / 2 - 998, &["r-30"]),
            (5 * s / 2, &["r-30"]),
            (29 * s, &["r-30"]),
            (29 * s + 1, &["r-30"]),
            (29 * s + 2, &[]),
            (30 * s, &[]),
        ] {
            let mut got: Vec<&str> = reconciles_longer_than(&a.reconciles, min).iter().map(|&i| a.reconciles[i as usize].reconcile_id.as_str()).collect();
            got.sort_unstable();
            let mut want = want.to_vec();
            want.sort_unstable();
            if got != want {
                wrong.push(format!("{min} ns: got {got:?}, want {want:?}"));
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    /// The stalled reconcile's lines all read 16:50:06Z; its latent start
    /// (the chart's bar) is what makes it long.
    #[test]
    fn the_incident_stall_is_long() {
        let (_, r) = incident();
        let a = &r.analysis;
        let stalled = a.findings.iter().find(|f| f.kind == FindingKind::StalledWorker).unwrap().reconciles[0] as u32;
        let min = crate::time::parse_duration("10m").unwrap();
        let long = reconciles_longer_than(&a.reconciles, min);
        assert!(long.contains(&stalled), "{:?}", a.reconciles[stalled as usize]);
        for &i in &long {
            let rc = &a.reconciles[i as usize];
            assert!(rc.last.nanos.saturating_sub(rc.start().nanos) >= min, "{rc:?}");
        }
        assert!(long.len() < a.reconciles.len());
        // Its worker was free from 16:29:29; its lines, written to the
        // second, read 16:50:06: it ran at most 20m37.999s, which the
        // inspector says as `at most 20m38s`. "Longer than 20m37s" keeps
        // it, "longer than 20m38s" does not.
        let r = &a.reconciles[stalled as usize];
        assert_eq!((r.stated_start, r.duration_text().as_str()), (false, "at most 20m38s"));
        let at = |text: &str| reconciles_longer_than(&a.reconciles, crate::time::parse_duration(text).unwrap()).contains(&stalled);
        assert_eq!((at("20m37s"), at("20m38s")), (true, false));
    }
}
