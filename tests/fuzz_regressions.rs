//! Inputs the fuzz targets of `fuzz/` found (`scripts/fuzz.sh`), minimized,
//! through the same code path as the target that found them. Each is a
//! bug that was fixed; the test fails if it comes back.

use reconscope::model::ParsedFile;
use reconscope::parse::{parse_file, ParseOptions, Piece, PieceParser, StreamParser};

/// The `parse` target's property: the whole file parsed at once, streamed
/// in slices, and split between two workers at every byte (the tail's
/// piece joined, or lost and parsed by the head's parser) give the same
/// records, fields, scratch, counts and diagnostics. Returns the whole
/// parse.
fn check(input: &[u8], opts: &ParseOptions) -> ParsedFile {
    let whole = parse_file("t.log", input.to_vec(), opts);
    for slice in [1, 7, 64] {
        let mut sp = StreamParser::new("t.log", input.len(), opts);
        for part in input.chunks(slice) {
            sp.push(part);
        }
        assert_same(&whole, &sp.finish(), &format!("streamed in {slice}-byte slices"));
    }
    for tail_from in 1..input.len() {
        let (head, tail) = input.split_at(tail_from);
        let mut helper = PieceParser::new(tail_from as u64, tail.len(), opts);
        helper.push(tail);
        let piece = helper.finish().encode();
        assert!(Piece::check(&piece).is_ok());
        for piece in [Some(piece.as_slice()), None] {
            let mut main = StreamParser::split("t.log", input.len(), tail_from, opts).expect("inside the file");
            main.push(head);
            main.write(tail_from, tail).expect("in order");
            let how = format!("split at {tail_from}, {}", if piece.is_some() { "piece joined" } else { "no piece" });
            assert_same(&whole, &main.finish_with(piece), &how);
        }
    }
    whole
}

fn assert_same(whole: &ParsedFile, other: &ParsedFile, how: &str) {
    assert_eq!(whole.counts, other.counts, "{how}: counts");
    assert_eq!(whole.diagnostics, other.diagnostics, "{how}: diagnostics");
    assert!(whole.records == other.records, "{how}: records\n{:#?}\n{:#?}", whole.records, other.records);
    assert_eq!(whole.fields, other.fields, "{how}: fields");
    assert_eq!(whole.scratch, other.scratch, "{how}: scratch");
}

/// The lines of the whole parse's diagnostics that say a line is cut.
fn cut_lines(f: &ParsedFile) -> Vec<u32> {
    f.diagnostics.iter().filter(|d| d.message.starts_with("line is cut off inside its JSON object")).filter_map(|d| d.line).collect()
}

/// A line is parsed trying the previous line's format first, and a cut
/// (where a piece starts with no previous format) was taken at a line that
/// parses otherwise after another format: line 2, after line 1's JSON,
/// parsed as a journald line; from a fresh start, as JSON in a journald
/// wrapper. A cut is now only taken at a line that parses the same after
/// any format.
#[test]
fn a_cut_line_parses_the_same_whatever_came_before() {
    check(b"0 {\"level\":Z}\nDec 09 09:40:431 8: {\"level\":i,\"ts\":\"2\"}\n", &ParseOptions::default());
}

/// A line that ends a hard-wrapped group is read again after the group is
/// settled, but what parsing it the first time taught the context (its
/// format) stayed, and the group's joined text was parsed with it: line 2
/// joined line 1 only when line 3 came after it in the same piece.
#[test]
fn a_line_read_again_after_a_wrapped_group_leaves_no_context() {
    let input = b"Jan 10 12:50:00eer etcd: {\"level\":\"info\",\"ts\":\"6-01-10T \n.5\"}ion\",\"clu\x00\x00\x00\x00\x00\x00mber\x0f\x00\x00\x00\x00\x00\x00\x00\x00\x00\x001e1Autoscroll:3.5\"}\n{\"level\":i \n";
    // (The fuzzer found it with a short line limit: every limit it tries.)
    for max_line_bytes in (1..=300).chain([ParseOptions::default().max_line_bytes]) {
        check(input, &ParseOptions { max_line_bytes, ..ParseOptions::default() });
    }
}

/// At most 20 cut lines are listed, but the note on impossible times took
/// one of the 20 places in the whole file and none in a piece after it, so
/// a split file listed one cut line more.
#[test]
fn the_listed_cut_lines_do_not_depend_on_other_notes() {
    let mut input = b"{\"level\":\"info\",\"ts\":\"2026-02-30T10:00:00Z\",\"msg\":\"no such day\"}\n".to_vec();
    for i in 0..22 {
        input.extend_from_slice(format!("{{\"level\":\"info\",\"ts\":\"2026-05-26T16:21:{i:02}Z\",\"msg\":\"cut\n").as_bytes());
    }
    input.extend_from_slice(b"{\"level\":\"info\",\"ts\":\"2026-05-26T16:22:00Z\",\"msg\":\"whole\"}\n");
    let whole = check(&input, &ParseOptions::default());
    // Lines 2 to 23 are cut; the first 20 are listed, and a note counts all.
    assert_eq!(cut_lines(&whole), (2..=21).collect::<Vec<_>>());
    assert!(whole.diagnostics.iter().any(|d| d.message.starts_with("22 lines in all are cut off")), "{:#?}", whole.diagnostics);
    assert!(whole.diagnostics.iter().any(|d| d.line == Some(1) && d.message.starts_with("timestamp is impossible")), "{:#?}", whole.diagnostics);
}

/// A line that is a JSON record of its own was taken for a cut inside a
/// JSON object printed over many lines (one record, lines 1 to 4): a cut
/// is not taken where a line `}` closing more than it opens follows.
#[test]
fn no_cut_inside_a_json_object_printed_over_lines() {
    let whole = check(b"{\n\"level\":\n{\"level\":\x00}\n}", &ParseOptions::default());
    assert_eq!(whole.records.len(), 1, "{:#?}", whole.records);
    assert_eq!((whole.records[0].line, whole.records[0].line_count), (1, 4));
}

/// A line like a stack frame joins the ERROR line before it before it is
/// parsed, but it was taken for a cut because on its own it parses (as a
/// chainsaw line): a cut is never taken at a line like a frame.
#[test]
fn no_cut_at_a_line_like_a_stack_frame() {
    let whole = check(b"2025-04-16T16:04:18Z E \n | 10:44:26.go:\n", &ParseOptions::default());
    assert_eq!(whole.records.len(), 1, "{:#?}", whole.records);
    assert_eq!(whole.records[0].line_count, 2);
}

/// The same, the tail arriving a byte at a time: the piece's parser takes
/// no cut before it has seen as far as such an object may reach.
#[test]
fn no_cut_inside_printed_json_whose_end_has_not_arrived() {
    let input = b"{\"level\":\"info\",\"ts\":\"2026-05-26T16:21:07Z\",\"msg\":\"a\"}\n{\n\"level\": \"info\",\n\"SlurmCluster\":\n{\"level\":\"info\",\"ts\":\"2026-05-26T16:21:08Z\",\"msg\":\"inner\"}\n}\n";
    let opts = ParseOptions::default();
    let whole = parse_file("t.log", input.to_vec(), &opts);
    assert_eq!(whole.records.iter().map(|r| (r.line, r.line_count)).collect::<Vec<_>>(), [(1, 1), (2, 5)]);
    for tail_from in 1..input.len() {
        let (head, tail) = input.split_at(tail_from);
        let mut helper = PieceParser::new(tail_from as u64, tail.len(), &opts);
        for b in tail.chunks(1) {
            helper.push(b);
        }
        let piece = helper.finish().encode();
        let mut main = StreamParser::split("t.log", input.len(), tail_from, &opts).expect("inside the file");
        main.push(head);
        main.write(tail_from, tail).expect("in order");
        assert_same(&whole, &main.finish_with(Some(&piece)), &format!("split at {tail_from}, the tail a byte at a time"));
    }
}

/// A CRI `P` piece and the line that ends it are one record, but a split
/// file's tail that began inside the `P` line did not see its header, and
/// took the next line for a cut: the tail's first line is never a cut when
/// the line before it began before the tail (found by the `parse` target,
/// split inside such a line). Nor is a line after a `P` piece in a
/// terminal's frame (k9s), which the parser reads inside the frame.
#[test]
fn no_cut_after_a_cri_partial_line_begun_before_the_tail() {
    let input = b"2026-02-03T19:00:16.681965326Z stderr P goroutine 31\n2026-02-03T19:00:16.681965326Z stderr F {\"level\":\"error\",\"msg\":\"Reconciler error\"}\n2026-02-03T19:00:17.1Z stderr F {\"level\":\"info\",\"msg\":\"b\"}\n";
    // Each through `check` with whole lines and with lines cut as the
    // target's input had them (at 95 bytes), fields kept both ways.
    let check_cut_too = |input: &[u8]| {
        for max_line_bytes in [40, 60, 95] {
            for keep_fields in [false, true] {
                check(input, &ParseOptions { max_line_bytes, keep_fields, ..ParseOptions::default() });
            }
        }
        check(input, &ParseOptions::default())
    };
    let whole = check_cut_too(input);
    assert_eq!(whole.records.iter().map(|r| (r.line, r.line_count)).collect::<Vec<_>>(), [(1, 2), (3, 1)]);
    assert_eq!(whole.message(&whole.records[0]), "goroutine 31{\"level\":\"error\",\"msg\":\"Reconciler error\"}");

    let framed = "x\n\u{2502} 2026-02-03T19:00:16.681965326Z stderr P goroutine 31 \u{2502}\n2026-02-03T19:00:16.7Z stderr F {\"level\":\"error\",\"msg\":\"Reconciler error\"}\n2026-02-03T19:00:17.1Z stderr F {\"level\":\"info\",\"msg\":\"b\"}\n";
    let whole = check_cut_too(framed.as_bytes());
    assert_eq!(whole.records.iter().map(|r| (r.line, r.line_count)).collect::<Vec<_>>(), [(1, 1), (2, 2), (4, 1)]);
}

/// An epoch time with a huge exponent (`1.5e99999999999`, saturated to
/// `i32::MAX`) overflowed when scaled to nanoseconds: it is no time.
#[test]
fn an_epoch_time_with_a_huge_exponent_is_no_time() {
    let whole = check(b"{\"level\":\"info\",\"ts\":1.5e99999999999,\"msg\":\"x\"}\n", &ParseOptions::default());
    assert_eq!(whole.records.len(), 1);
    assert_eq!(whole.records[0].time, None);
}

/// A controller whose usual gap between reconcile ends, or whose usual
/// reconcile, is longer than 14.6 years (an i64 of nanoseconds over 20)
/// overflowed the threshold of the stall and saturation findings, twenty
/// times that (the `pipeline` target, 2026-12-03): it saturates.
#[test]
fn a_usual_wait_of_centuries_is_no_overflow() {
    use reconscope::analyze::{self, AnalyzeOptions};
    use reconscope::pipeline::{LoadOptions, Loaded};
    let line = |t: &str, msg: &str, id: &str| {
        format!("{t}\tINFO\t{msg}\t{{\"controller\": \"c\", \"namespace\": \"n\", \"name\": \"o{id}\", \"reconcileID\": \"{id}\"}}\n")
    };
    // Reconciles of a few seconds, ending 60 years apart.
    let mut apart = String::new();
    for (i, year) in [1700, 1760, 1820, 1880, 1940, 2000].iter().enumerate() {
        apart += &line(&format!("{year}-03-05T22:40:00Z"), "Reconciling", &format!("a{i}"));
        apart += &line(&format!("{year}-03-05T22:40:02Z"), "Reconcile done", &format!("a{i}"));
    }
    // Two workers, each reconcile 100 years long.
    let mut long = "1700-01-01T00:00:00Z\tINFO\tStarting workers\t{\"controller\": \"c\", \"worker count\": 2}\n".to_string();
    for i in 0..6 {
        long += &line(&format!("{}-01-01T00:00:00Z", 1700 + 20 * i), "Reconciling", &format!("b{i}"));
        long += &line(&format!("{}-01-01T00:00:00Z", 1800 + 20 * i), "Reconcile done", &format!("b{i}"));
    }
    let mut long_sorted: Vec<&str> = long.lines().collect();
    long_sorted.sort_by_key(|l| &l[..20]);
    let long = long_sorted.join("\n") + "\n";
    for log in [apart, long] {
        let mut loaded = Loaded::default();
        loaded.add("manager.log", log.into_bytes(), &LoadOptions::default());
        loaded.finish();
        let (a, _) = analyze::analyze(&loaded.files, &AnalyzeOptions::default());
        assert_eq!(a.reconciles.len(), 6);
        let tl = reconscope::layout::layout(&a, &Default::default());
        let _ = (reconscope::report::markdown(&a, &Default::default()), reconscope::render::svg(&a, &tl, &Default::default()));
    }
}

/// Times far apart (1679 and 2025, more than the 292 years an i64 of
/// nanoseconds spans) overflowed the wait between them, in the coverage's
/// gaps first (the `pipeline` target, 2026-12-02). Every analysis step and
/// writer takes them: the wait between two such lines saturates, never
/// wraps, and the logs' gap is still a gap.
#[test]
fn times_far_apart_have_a_gap_between_them() {
    use reconscope::analyze::{self, AnalyzeOptions};
    use reconscope::pipeline::{LoadOptions, Loaded};
    let mut log = String::new();
    let line = |t: &str, msg: &str, id: &str| {
        format!("{t}\tINFO\t{msg}\t{{\"controller\": \"c\", \"namespace\": \"n\", \"name\": \"o\", \"reconcileID\": \"{id}\"}}\n")
    };
    for i in 0..12 {
        log += &line(&format!("1679-03-05T22:40:{i:02}Z"), "Reconciling", &format!("a{i}"));
        log += &line(&format!("1679-03-05T22:41:{i:02}Z"), "Reconcile done, requeueing after 10s", &format!("a{i}"));
    }
    // One reconcile across the centuries, and then more of them.
    log += &line("2025-03-05T22:40:41.747Z", "Reconcile done", "a11");
    for i in 0..12 {
        log += &line(&format!("2262-03-05T22:42:{i:02}Z"), "Reconciling", &format!("b{i}"));
        log += &line(&format!("2262-03-05T22:43:{i:02}Z"), "Reconciler error", &format!("b{i}"));
    }
    let mut loaded = Loaded::default();
    loaded.add("manager.log", log.into_bytes(), &LoadOptions::default());
    loaded.finish();
    let (a, _) = analyze::analyze(&loaded.files, &AnalyzeOptions::default());
    assert_eq!(a.reconciles.len(), 24);
    let source = &a.coverage.sources[0];
    assert_eq!(source.gaps.len(), 2, "{:?}", source.gaps);
    assert!(source.gaps.iter().all(|g| g.end > g.start));
    // The writers too.
    let doc = analyze::json::to_json(&[], &a);
    let gaps = doc["coverage"]["sources"][0]["gaps"].as_array().expect("gaps").clone();
    assert_eq!(gaps.len(), 2);
    assert!(gaps.iter().all(|g| g["nanos"].as_i64().is_some_and(|n| n > 0)), "{gaps:?}");
    let md = reconscope::report::markdown(&a, &Default::default());
    let tl = reconscope::layout::layout(&a, &Default::default());
    let _ = reconscope::render::svg(&a, &tl, &Default::default());
    // The reconcile across the centuries is the slowest, its duration said
    // in hours; the evidence of each finding pads its window.
    let slow = a.findings.iter().find(|f| f.kind == analyze::FindingKind::SlowReconcile && f.message.contains("a11"));
    assert!(slow.is_some_and(|f| f.message.contains("h")), "{:#?}", a.findings.iter().map(|f| &f.message).collect::<Vec<_>>());
    assert!(md.contains("a11"));
    // The longest wait a time holds, as people read it.
    assert_eq!(reconscope::time::human_duration(i64::MAX), "2562047h47m");
    for i in 0..a.findings.len() {
        let opts = reconscope::evidence::ShareOptions { finding: Some(i), artifact: "a.zip".into(), ..Default::default() };
        let shared = reconscope::evidence::share(&a, &loaded.files, &opts).expect("evidence");
        reconscope::evidence::from_payload(&shared.payload).expect("evidence reads back");
    }
}

/// A line's fields left to be parsed again (`keep_fields` off) were parsed
/// from its bytes with one more `\r` taken off their end than the line
/// loop took: `i=\r` (the line `ts= i=\r\r`, its `\r\n` or last `\r`
/// taken off) came back as `i=`. Now only a `\r` before a `\n` inside a
/// record's bytes is taken off: the last line's, and the first line's of a
/// record of several lines (an error and its stack).
#[test]
fn a_line_ending_in_two_carriage_returns_gives_back_the_fields_it_kept() {
    let stack = b"level=error i=\r\r\ngithub.com/a/b.F()\r\n\t/go/src/a.go:1 +0x1d\r\n";
    for (input, lines) in [(&b"ts= i=\r\r"[..], 1), (b"ts= i=\r\r\n", 1), (stack, 3)] {
        let kept = parse_file("t.log", input.to_vec(), &ParseOptions { keep_fields: true, ..ParseOptions::default() });
        let again = check(input, &ParseOptions::default());
        reconscope::parse::testing::assert_same_parse(&kept, &again, &format!("{input:?}"));
        let r = &again.records[0];
        assert_eq!((again.records.len(), r.line_count), (1, lines), "{input:?}");
        assert!(r.fields_again_after.is_some(), "{input:?}: its fields were kept");
        let fields: Vec<(String, String)> = again.fields(r).iter().map(|f| (again.key(f).into(), again.value(f).into())).collect();
        assert_eq!(fields, [("i".to_string(), "\r".to_string())], "{input:?}");
    }
}

/// A file whose lines' clock runs centuries behind its collector's (CRI
/// stamps of 2200, lines of 1950: the median skew) has its times moved
/// onto the collector's clock; a line of its own time far the other way
/// (2100, moved by 250 years) overflowed the move (the `pipeline` target,
/// 2026-12-04, on cee8470: `align_clocks`). Such a line is kept without a
/// time, and the note says so; the skew's checks saturate too.
#[test]
fn a_time_moved_past_what_a_time_holds_is_no_time() {
    use reconscope::analyze::{self, AnalyzeOptions};
    use reconscope::pipeline::{LoadOptions, Loaded};
    let line = |collected: &str, t: &str, msg: &str, id: &str| {
        format!("{collected} stderr F {{\"level\":\"info\",\"ts\":\"{t}\",\"msg\":\"{msg}\",\"controller\":\"c\",\"namespace\":\"n\",\"name\":\"o\",\"reconcileID\":\"{id}\"}}\n")
    };
    let mut log = String::new();
    log += &line("2200-03-05T22:40:41.000000001Z", "1950-03-05T22:40:41.000Z", "Reconciling", "a");
    log += &line("2200-03-05T22:40:42.000000001Z", "1950-03-05T22:40:42.000Z", "Reconcile done", "a");
    log += &line("2200-03-05T22:40:43.000000001Z", "2100-03-05T22:40:43.000Z", "Reconciling", "b");
    let mut loaded = Loaded::default();
    loaded.add("manager.log", log.into_bytes(), &LoadOptions::default());
    loaded.finish();
    let f = &loaded.files[0];
    assert_eq!(f.records.len(), 3);
    let year = |i: usize| f.records[i].time.map(reconscope::time::year_of);
    assert_eq!((year(0), year(1), year(2)), (Some(2200), Some(2200), None), "{:#?}", f.records);
    let notes: Vec<&str> = f.diagnostics.iter().map(|d| d.message.as_str()).collect();
    assert!(
        notes
            .iter()
            .any(|m| m.contains("behind the collector's timestamps")
                && m.contains("(1 line whose time moved would leave the years 1678-2262 kept without a time)")),
        "{notes:#?}"
    );
    let (a, _) = analyze::analyze(&loaded.files, &AnalyzeOptions::default());
    let tl = reconscope::layout::layout(&a, &Default::default());
    let _ = (reconscope::report::markdown(&a, &Default::default()), reconscope::render::svg(&a, &tl, &Default::default()));
    let _ = analyze::json::to_json(&[], &a);
}
