//! The Markdown report as GitHub shows it: rendered with comrak (GFM), the
//! HTML must hold every finding in its own `<details>` with its whole
//! sentence, log text in `<code>`, commands byte for byte in `<pre><code>`,
//! square tables, and nothing a hostile log could have put there: no
//! element, link or image of its own.

use std::path::Path;

use reconscope::analyze::findings::plain;
use reconscope::analyze::{analyze, Analysis, AnalyzeOptions, Finding, FindingKind, GoFrame, GoroutineDump, GoroutineGroup, ObjectRef, Piece, Severity};
use reconscope::parse::{parse_file, resolve_years, ParseOptions};
use reconscope::report::{markdown, Destination, ReportOptions, MAX_COMMENT_BYTES};

#[path = "support/files.rs"]
mod files;
#[path = "support/gfm.rs"]
mod gfm;

const APP: &str = "https://example.org/reconscope/";
const DUMP: &str = "kamaji/pprof/kamaji-goroutines-20260526T164500Z.txt";

/// The incident fixture, with or without its goroutine dump.
fn incident(with_dump: bool) -> Analysis {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/incident/cozyreport");
    let files = files::parsed_under(&root, &root, |p| with_dump || !p.ends_with(DUMP));
    analyze(&files, &AnalyzeOptions::default()).0
}

/// What a finding's `<details>` must say: its pieces as text.
fn sentence(f: &Finding) -> String {
    let words: Vec<String> = f
        .pieces
        .iter()
        .map(|p| match p {
            // A command is a block of its own, between paragraphs.
            Piece::Command(t) => format!(" {} ", code_text(t)),
            Piece::Text(t) | Piece::Code(t) => code_text(t),
        })
        .collect();
    words.concat().split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Renders the report and checks what holds for every report: only our
/// elements and links, square tables, one `<details>` per finding with
/// its sentence. Gives the HTML for more checks.
fn check(a: &Analysis, opts: &ReportOptions) -> String {
    for f in &a.findings {
        assert_eq!(f.message, plain(&f.pieces), "the message is its pieces");
    }
    let md = markdown(a, opts);
    let html = gfm::render(&md);
    // As the HTML writes them (`&` as `&amp;`).
    let mut links: Vec<String> = opts.finding_links.iter().flatten().map(|l| gfm::html_escape(l)).collect();
    links.extend(opts.app_url.as_ref().map(|u| format!("{u}#from=*")));
    let links: Vec<&str> = links.iter().map(String::as_str).collect();
    gfm::assert_inert(&html, &links);
    gfm::assert_tables_square(&html);
    let details = gfm::details(&html);
    assert_eq!(details.len(), a.findings.len().min(50), "one <details> per finding");
    for (d, f) in details.iter().zip(&a.findings) {
        assert!(d.starts_with("<summary>The finding in full</summary>\n<p>"), "{d}");
        let text = gfm::text(d.split_once("</summary>").unwrap().1);
        assert_eq!(text, sentence(f), "the sentence in <details>, whole");
    }
    html
}

#[test]
fn the_incident_reads_right() {
    let a = incident(true);
    let evidence = format!("{APP}#ev=AAAA-_0123");
    let opts = ReportOptions { app_url: Some(APP.into()), finding_links: vec![Some(evidence.clone())], ..ReportOptions::default() };
    let html = check(&a, &opts);
    assert!(html.contains("<p>Times are UTC, on 2026-05-26.</p>"), "{html}");
    let stall = "<li>\n<p><strong>stalled-worker · <code>tenant-test/kubernetes-test-latest-version</code> · 20m37s, 16:29:29–16:50:06</strong>";
    assert!(html.contains(&format!("{stall} · <a href=\"{evidence}\">evidence</a></p>")), "{html}");
    // Instants are at a time, not a range of one.
    assert!(html.contains("<strong>expired-context · <code>tenant-test/kubernetes-test-latest-version</code> · at 16:55:13</strong> · <a href=\"https://example.org/reconscope/#from=2026-05-26T16:55:13Z&amp;to=2026-05-26T16:55:13.000071Z\">timeline</a>"), "{html}");
    assert!(!html.contains("16:55:13–16:55:13"));
    // Log text and Go frames are code, with `*` as it is; an error line's
    // message and its error value apart, as the line writes them.
    for c in [
        "unable to create the DataStore user",
        "unable to check if user exists: cannot check if user exists: context deadline…",
        "marked for deletion, performing clean-up",
        "[select, 15 minutes]",
        "go.etcd.io/etcd/client/v3.(*authClient).UserGet",
        DUMP,
    ] {
        assert!(html.contains(&format!("<code>{c}</code>")), "{c} in code: {html}");
    }
    assert!(html.contains(
        "<td><code>unable to revoke privileges</code>: <code>unable to check if privileges exist: cannot check if grant exists: context deadline exceeded</code></td>"
    ));
    assert!(!html.contains('\u{200b}'), "no zero-width space needed in the incident");
}

#[test]
fn the_command_to_collect_a_dump_copies_as_it_is() {
    let a = incident(false);
    let html = check(&a, &ReportOptions { app_url: None, finding_links: vec![], ..ReportOptions::default() });
    let command = "kubectl port-forward deploy/<manager> 6060 &\ncurl -s 'http://127.0.0.1:6060/debug/pprof/goroutine?debug=2' > goroutines-$(date -u +%Y%m%dT%H%M%SZ).txt\n";
    let blocks: Vec<&str> = html.split("<pre><code>").skip(1).map(|b| &b[..b.find("</code></pre>").unwrap()]).collect();
    assert_eq!(blocks, [gfm::html_escape(command)], "{html}");
    // The README says the same.
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    assert!(readme.contains(&format!("```\n{command}```\n")));
    assert!(html.contains("<p>(a stall of 20m37s leaves time for it).</p>"), "{html}");
    assert!(html.contains("<code>--pprof-bind-address=:6060</code>"));
}

/// Hostile text everywhere a log or dump can put text.
const HOSTILE: &[&str] = &[
    "a|b|c",
    "<script>alert(1)</script>",
    "</details><details open><summary>x</summary>",
    "one `tick`, two ``ticks``",
    "```",
    "`leading and trailing`",
    "[x](http://evil.example/a)",
    "![i](http://evil.example/p.png)",
    "http://bare.example www.bare.example me@bare.example",
    "<img src=x onerror=alert(1)>",
    "*em* _em_ ~~del~~ **strong**",
    "line\nbreak\r\n\n# heading\n- item\n\n<details>",
    "zero\u{200b}width \u{202e}bidi",
    "esc \u{1b}[31mred\u{1b}[0m",
    "back\\|slash\\",
    "&lt;script&gt; &#60;b&#62;",
    "1. starts a list",
];

/// A log whose controller, object and errors are `evil`, with findings and
/// a goroutine dump of it added.
fn hostile(evil: &str) -> Analysis {
    let field = |s: &str| serde_json::to_string(s).unwrap();
    let mut log = String::new();
    for i in 0..12 {
        log += &format!(
            "2026-05-26T10:00:{i:02}Z\tERROR\tReconciler error\t{{\"controller\": {}, \"namespace\": \"ns\", \"name\": {}, \"reconcileID\": \"r{i}\", \"error\": {}}}\n",
            field(evil),
            field(evil),
            field(evil)
        );
    }
    let mut files = vec![parse_file("evil.log", log.into_bytes(), &ParseOptions::default())];
    resolve_years(&mut files);
    let mut a = analyze(&files, &AnalyzeOptions::default()).0;
    assert!(!a.reconciles.is_empty(), "{evil:?} parsed");
    let t = a.reconciles[0].first;
    let finding = |pieces: Vec<Piece>| Finding {
        kind: FindingKind::StalledWorker,
        severity: Severity::Error,
        controller: Some(0),
        object: Some(ObjectRef { namespace: Some(evil.into()), name: evil.into() }),
        start: t,
        end: a.reconciles[0].last,
        reconciles: vec![0],
        elections: vec![],
        message: plain(&pieces),
        blocked: None,
        silence: None,
        detail: None,
        pieces,
    };
    let text = |s: &str| Piece::Text(s.into());
    let code = |s: &str| Piece::Code(s.into());
    let found = vec![
        finding(vec![text("It ended with "), code(evil), text(" after "), text(evil), text(".")]),
        finding(vec![text(evil), text(" and "), code(evil)]),
        finding(vec![code(evil), text(" first")]),
        finding(vec![text("Run "), Piece::Command(format!("echo {evil}")), text(evil)]),
    ];
    a.findings.extend(found);
    let frame = GoFrame { func: evil.into(), file: evil.into(), line: 1 };
    a.dumps.push(GoroutineDump {
        path: evil.into(),
        first_line: 1,
        last_line: 9,
        kind: "traceback".into(),
        preamble: Some(evil.into()),
        goroutines: 1,
        time: Some(t),
        time_source: None,
        notes: vec![evil.into()],
    });
    a.goroutines.push(GoroutineGroup {
        dump: 0,
        group: 0,
        count: 1,
        ids: vec![1],
        state: evil.into(),
        min_wait_minutes: Some(3),
        max_wait_minutes: Some(3),
        role: "busy-worker".into(),
        controller: Some(0),
        reconciler: Some(evil.into()),
        call: Some(frame.clone()),
        under: Some(frame.clone()),
        blocked_since_at_most: None,
        frames: vec![frame],
        created_by: Some(evil.into()),
        reconcile: Some(0),
        finding: Some(0),
    });
    a
}

/// As GitHub shows text of a code span: one line, no control or
/// invisible characters.
fn code_text(s: &str) -> String {
    s.chars()
        .map(|c| if matches!(c, '\n' | '\r' | '\t') { ' ' } else { c })
        .filter(|&c| !c.is_control() && !matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}'))
        .collect()
}

#[test]
fn hostile_text_stays_text() {
    for evil in HOSTILE {
        let a = hostile(evil);
        let evidence = format!("{APP}#ev=QUJD");
        let html = check(&a, &ReportOptions { app_url: Some(APP.into()), finding_links: vec![Some(evidence)], ..ReportOptions::default() });
        let shown = gfm::html_escape(&code_text(evil));
        let in_code = format!("<code>{shown}</code>");
        // The three findings' quotes and the dump's path; the object in
        // each stalled-worker headline.
        assert!(html.matches(&in_code).count() >= 4, "{evil:?} in code: {in_code}\n{html}");
        assert!(html.contains(&format!("<p>Dump {in_code}, line 1:")), "{evil:?} the dump's path: {in_code}\n{html}");
        let object = format!(" · <code>{shown}/{shown}</code> · ");
        assert_eq!(html.matches(&object).count(), 4, "{evil:?} the object in each headline: {object}\n{html}");
        // In table cells: the frames and the error. A `\\` right before a
        // `|` shows doubled in comrak but not on GitHub (cmark-gfm removes
        // the backslash of every `\\|` in a cell): there only the cells
        // are checked, by `check`.
        if !evil.contains("\\|") {
            assert_eq!(html.matches(&format!("<td>{in_code}</td>")).count(), 2, "{evil:?} the frames: {in_code}\n{html}");
            let error = format!("<td><code>Reconciler error</code>: {in_code}</td>");
            assert!(html.contains(&error), "{evil:?} the error: {error}\n{html}");
        }
        // The command block holds the command's lines as they are, less
        // control and invisible characters.
        let lines: Vec<String> =
            format!("echo {evil}").lines().map(|l| l.chars().filter(|&c| c == '\t' || code_text(&c.to_string()) == c.to_string()).collect()).collect();
        let command = format!("<pre><code>{}\n</code></pre>", gfm::html_escape(&lines.join("\n")));
        assert!(html.contains(&command), "{evil:?} command: {command}\n{html}");
    }
}

#[test]
fn the_timeline_link_opens_on_what_the_logs_hold_never_on_1970() {
    let report = |text: &str| {
        let mut files = vec![parse_file("etcd.log", text.as_bytes().to_vec(), &ParseOptions::default())];
        resolve_years(&mut files);
        let a = analyze(&files, &AnalyzeOptions::default()).0;
        let md = markdown(&a, &ReportOptions { app_url: Some(APP.into()), ..ReportOptions::default() });
        md.lines().find(|l| l.starts_with("[Open the timeline]")).expect("the link").to_string()
    };
    // No reconcile and no finding: the lines' first and last times.
    assert_eq!(
        report(
            "{\"level\":\"info\",\"ts\":\"2022-08-30T09:17:30.387Z\",\"msg\":\"a\"}\n{\"level\":\"info\",\"ts\":\"2022-08-30T09:19:25.273Z\",\"msg\":\"b\"}\n"
        ),
        format!("[Open the timeline]({APP}#from=2022-08-30T09:17:30.387Z&to=2022-08-30T09:19:25.273Z) (drop the same artifact on the page).")
    );
    // No time at all: the app as it opens.
    assert_eq!(report("no time here\n"), format!("[Open the timeline]({APP}) (drop the same artifact on the page)."));
}

/// The app's **Copy Markdown** of the incident, with its findings' real
/// evidence links, is for a comment: within GitHub's 65,536 characters,
/// every finding listed, the tables whole, and a finding whose link did
/// not fit linked to its window, which the report says.
#[test]
fn the_incident_for_a_comment_fits_one() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/incident/cozyreport");
    let files = files::parsed_under(&root, &root, |_| true);
    let a = analyze(&files, &AnalyzeOptions::default()).0;
    let template = reconscope::evidence::ShareOptions { artifact: "cozyreport".into(), ..Default::default() };
    let links = reconscope::evidence::finding_links(&a, &files, APP, &template, 12);
    let sizes: Vec<usize> = links.iter().map(|l| l.as_ref().map_or(0, String::len)).collect();
    assert_eq!(a.findings.len(), 5);
    assert!(sizes.iter().sum::<usize>() > 65_536, "the links alone pass a comment: {sizes:?}");
    let summary = ReportOptions { app_url: Some(APP.into()), finding_links: links.clone(), ..ReportOptions::default() };
    let comment = ReportOptions { destination: Destination::Comment, ..summary.clone() };
    let (whole, md) = (markdown(&a, &summary), markdown(&a, &comment));
    assert!(whole.chars().count() > 65_536, "{}", whole.len());
    assert!(md.chars().count() <= 65_536 && md.len() <= MAX_COMMENT_BYTES, "{}", md.len());
    // Rendered as GitHub does: every finding in its <details>, the tables
    // square and the job summary's, row for row.
    let html = check(&a, &comment);
    let rows = |md: &str| md.lines().filter(|l| l.starts_with('|')).map(str::to_owned).collect::<Vec<_>>();
    assert!(rows(&md).len() > 10);
    assert_eq!(rows(&md), rows(&whole));
    // The links that fit are the findings' own, in order, each whole; the
    // others open the finding's window, and the report names them.
    let linked: Vec<bool> = (0..5).map(|i| md.contains(links[i].as_deref().unwrap())).collect();
    let unlinked: Vec<usize> = (0..5).filter(|&i| !linked[i]).map(|i| i + 1).collect();
    assert!(linked.iter().filter(|&&l| l).count() >= 3, "{sizes:?} {linked:?}");
    assert!(!unlinked.is_empty());
    for &n in &unlinked {
        let f = &a.findings[n - 1];
        let window = format!("[timeline]({APP}#from={}&to={})", f.start, f.end);
        assert!(md.lines().any(|l| l.starts_with(&format!("{n}. **")) && l.ends_with(&window)), "finding {n}: {window}");
    }
    let named = unlinked.iter().map(usize::to_string).collect::<Vec<_>>().join(" and ");
    let says = if unlinked.len() == 1 { format!("Finding {named} links to its") } else { format!("Findings {named} link to their") };
    assert!(gfm::text(&html).contains(&format!("{says} time window in the app instead")), "{says}");

    // As the app copies it: each finding keeps room for a smaller slice of
    // its evidence (at most 8 KiB) before the ones before it take theirs
    // whole, so every finding links to its evidence; the first (the stall)
    // whole, the others whole or a smaller slice (the link says what it
    // left out), and the report still fits, tables whole.
    let mut asked = Vec::new();
    let mut smaller = |i: usize, max: usize| {
        asked.push((i + 1, max));
        reconscope::evidence::finding_link_within(&a, &files, APP, &template, i, max)
    };
    let md2 = reconscope::report::markdown_with_smaller_links(&a, &comment, &mut |s: &str| s.to_owned(), &mut smaller);
    assert!(md2.chars().count() <= 65_536 && md2.len() <= MAX_COMMENT_BYTES, "{}", md2.len());
    assert_eq!(rows(&md2), rows(&whole));
    let items: Vec<&str> = md2.lines().filter(|l| l.len() > 3 && l.as_bytes()[0].is_ascii_digit() && l.contains(". **")).collect();
    assert_eq!(items.len(), 5, "{items:#?}");
    let mut partial = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let link = item.rsplit(" · [evidence](").next().filter(|_| item.contains(" · [evidence](")).unwrap_or_else(|| panic!("finding {}: {item:.200}", i + 1));
        let link = link.strip_suffix(')').unwrap();
        if Some(link) == links[i].as_deref() {
            continue;
        }
        partial.push(i + 1);
        let max = asked.iter().filter(|&&(n, _)| n == i + 1).map(|&(_, m)| m).max().unwrap();
        assert!(link.len() <= max && link.len() < links[i].as_ref().unwrap().len(), "finding {}: {} of {max}", i + 1, link.len());
        assert!(link.len() > 6 * 1024, "finding {}: a slice of {} bytes shows too little", i + 1, link.len());
        let payload = link.split("#ev=").nth(1).unwrap().split('&').next().unwrap();
        let ev = reconscope::evidence::from_payload(payload).expect("the smaller link opens");
        assert!(!ev.meta.left_out.is_empty(), "finding {}: it says what it left out", i + 1);
        assert_eq!(ev.analysis.findings[0].kind, a.findings[i].kind);
    }
    assert!(!partial.is_empty() && !partial.contains(&1), "{partial:?} {asked:?}");
    // Room was kept for the whole links' (8 KiB and less) and each larger
    // one's floor: the findings that did not fit whole are the ones that
    // now have a smaller slice.
    for n in &unlinked {
        assert!(partial.contains(n), "finding {n} has a slice: {partial:?}");
    }
    assert!(!md2.contains("instead"), "no finding is left without its evidence");
    check(&a, &comment);
}

/// A failing reconcile of no object (Karpenter's `provisioner`, a
/// singleton reconciler whose request names none: the corpus file's one
/// failed reconcile, `de0771eb`, with five ERROR lines `could not
/// schedule pod`) is `–` in the errors table's objects cell, as in the
/// other tables, not an empty cell.
#[test]
fn an_error_of_no_object_shows_a_dash() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/controller-runtime/json_karpenter_v1.4_singleton_and_phase_reconcilers_lp4k.log");
    let mut files = vec![parse_file(path.display().to_string(), std::fs::read(&path).unwrap(), &ParseOptions::default())];
    resolve_years(&mut files);
    let a = analyze(&files, &AnalyzeOptions::default()).0;
    let md = markdown(&a, &ReportOptions::default());
    let table = md.split("### Most frequent reconcile errors").nth(1).unwrap().split("\n### ").next().unwrap();
    let rows: Vec<&str> = table.lines().filter(|l| l.starts_with("| ") && !l.starts_with("| count")).collect();
    assert_eq!(rows.len(), 1, "{table}");
    assert!(rows[0].starts_with("| 1 | `could not schedule pod`: `incompatible with nodepool"), "{}", rows[0]);
    assert!(rows[0].ends_with(" | – |"), "{}", rows[0]);
    check(&a, &ReportOptions::default());
}

/// The objects cell names objects first: a reconcile of no object that
/// failed first takes none of the five places, and is counted with the rest.
#[test]
fn the_errors_table_names_objects_before_a_dash() {
    let line = |i: u32, object: &str| {
        format!(
            "2026-05-26T10:00:{i:02}Z\tERROR\tReconciler error\t{{\"controller\": \"w\", \"namespace\": \"{}\", \"name\": \"{object}\", \"reconcileID\": \"r{i}\", \"error\": \"boom\"}}\n",
            if object.is_empty() { "" } else { "ns" }
        )
    };
    let row = |objects: &[&str]| {
        let log: String = objects.iter().enumerate().map(|(i, o)| line(i as u32, o)).collect();
        let a = analyze(&[parse_file("w.log", log.into_bytes(), &ParseOptions::default())], &AnalyzeOptions::default()).0;
        let md = markdown(&a, &ReportOptions::default());
        let table = md.split("### Most frequent reconcile errors").nth(1).unwrap().split("\n### ").next().unwrap().to_string();
        table.lines().find(|l| l.starts_with("| ") && !l.starts_with("| count")).unwrap().to_string()
    };
    // No object first, then two objects, one of them twice.
    assert_eq!(row(&["", "a", "b", "a"]), "| 4 | `Reconciler error`: `boom` | ns/a, ns/b, – |");
    // Five objects besides: the five, then the dash counted.
    assert_eq!(row(&["", "a", "b", "c", "d", "e"]), "| 6 | `Reconciler error`: `boom` | ns/a, ns/b, ns/c, ns/d, ns/e and 1 more |");
    assert_eq!(row(&["a", "b", "c", "d", "e", "f", "g"]), "| 7 | `Reconciler error`: `boom` | ns/a, ns/b, ns/c, ns/d, ns/e and 2 more |");
}

#[test]
fn the_slowest_reconciles_say_where_a_duration_comes_from() {
    let line = |at: &str, level: &str, msg: &str, object: &str, rid: &str| {
        format!(
            "2026-05-26T10:00:{at}Z\t{level}\t{msg}\t{{\"controller\": \"w\", \"namespace\": \"ns\", \"name\": \"{object}\", \"reconcileID\": \"{rid}\"}}\n"
        )
    };
    let table = |log: String| {
        let a = analyze(&[parse_file("w.log", log.into_bytes(), &ParseOptions::default())], &AnalyzeOptions::default()).0;
        let md = markdown(&a, &ReportOptions::default());
        md.split("### Slowest reconciles\n\n").nth(1).unwrap().split("\n### ").next().unwrap().to_string()
    };
    // A start the log states: its duration, and where it comes from.
    let stated = table(line("02.000", "INFO", "Reconciliation finished in 1.5s, next run in 1m0s", "a", "r1"));
    assert_eq!(stated.lines().nth(2), Some("| 2s (from the start its log states) | w | ns/a | 10:00:00 | success | r1 |"), "{stated}");
    assert!(!stated.contains("At most"), "{stated}");
    assert!(!stated.contains("first line to its last"), "{stated}");
    // A first line that came late (an error), after the worker's last
    // reconcile ended: at most the time since (10:00:02 to 10:00:09.999,
    // rounded up), and a note once.
    let mut log = line("01.000", "INFO", "Reconciling", "a", "r1");
    log += &line("02.000", "INFO", "Reconciled", "a", "r1");
    log += &line("09.000", "ERROR", "Reconciler error", "b", "r2");
    let late = table(log);
    assert_eq!(late.lines().nth(2), Some("| at most 8s | w | ns/b | 10:00:02 | error | r2 |"), "{late}");
    assert_eq!(late.matches("\"At most\" means a reconcile's first line came late").count(), 1, "{late}");
    // The first reconcile's two lines, a second apart: the least it ran,
    // said once as such. No line of it says it returned (the second one
    // stated it): its success is read from no error line.
    assert_eq!(late.lines().nth(3), Some("| 1s | w | ns/a | 10:00:01 | success (no error logged) | r1 |"), "{late}");
    let spans = "A duration with neither \"at most\" nor a start its log states runs from a reconcile's first line to its last: it may have run longer.";
    assert_eq!(late.matches(spans).count(), 1, "{late}");
}

/// Every error the report quotes can be found in the log as quoted: the
/// error line's message and its `error` value are quoted apart (the tool
/// joins them with `: `, which no line writes), in the findings'
/// sentences and the table of frequent errors.
#[test]
fn quoted_errors_are_found_in_the_log_as_quoted() {
    let a = incident(false);
    let log = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/incident/cozyreport/kamaji/kamaji-controller.log")).unwrap();
    let md = markdown(&a, &ReportOptions::default());
    let table = md.split("### Most frequent reconcile errors\n\n").nth(1).unwrap().split("\n### ").next().unwrap();
    // The code spans of the table's error column, and of the stall's
    // sentence after "ended with".
    let stall = a.findings.iter().find(|f| f.kind == FindingKind::StalledWorker).unwrap();
    let ended = stall.message.split(" ended with ").nth(1).unwrap();
    let mut quoted: Vec<&str> = table.lines().skip(2).filter_map(|row| row.split(" | ").nth(1)).chain([ended.split("; ").next().unwrap()]).collect();
    quoted.retain(|q| !q.is_empty());
    assert_eq!(quoted.len(), 3, "{table}\n{ended}");
    for q in quoted {
        // `message`: `value` (a cut value ends `…` after its span).
        let spans: Vec<&str> = q.split('`').skip(1).step_by(2).collect();
        assert_eq!(spans.len(), 2, "{q}");
        assert!(q.starts_with('`') && q.contains("`: `"), "{q}");
        for s in spans {
            // (A quote cut short ends `…`.)
            let s = s.strip_suffix('…').unwrap_or(s);
            assert!(log.contains(s), "not in the log: {s:?} (of {q})");
        }
    }
}
