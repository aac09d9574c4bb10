//! The timeline picture (`render::svg`) of the incident and of hostile
//! logs: well-formed XML every time, and what an issue needs to be in it.

use std::collections::BTreeSet;
use std::path::Path;

use reconscope::analyze::{analyze, Analysis, AnalyzeOptions, FindingKind};
use reconscope::layout::{layout, Grouping, LayoutOptions, Timeline};
use reconscope::parse::{parse_file, ParseOptions};
use reconscope::pipeline::{LoadOptions, Loaded};
use reconscope::render::{self, View};

#[path = "support/files.rs"]
mod files;

fn incident() -> Analysis {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/incident");
    let files = files::parsed_under(&root.join("cozyreport"), &root, |p| p.extension().is_some_and(|e| e != "py"));
    analyze(&files, &AnalyzeOptions::default()).0
}

/// A log whose object names, controller and messages carry ESC, NUL, `<`,
/// `&`, U+202E and other controls.
fn hostile() -> Analysis {
    let evil = r#"<script>&amp; \u001b[31m \u0000 \u202e \u0008 \ufffe ]]> <!-- "#;
    let mut log = String::new();
    for i in 0..12 {
        log += &format!(
            "2026-05-26T10:00:{i:02}Z\tERROR\tboom {evil}\t{{\"controller\": \"w<b>&\\u001b\", \"namespace\": \"ns\\u0000<i>\", \"name\": \"o\\u202e&x{i}{evil}\", \"reconcileID\": \"r{i}\", \"error\": \"{evil}\"}}\n"
        );
    }
    let files = vec![parse_file("evil\u{1b}<&\u{202e}.log".to_string(), log.into_bytes(), &ParseOptions::default())];
    let (a, _) = analyze(&files, &AnalyzeOptions::default());
    assert!(a.reconciles.len() >= 12, "the hostile log parses: {}", a.reconciles.len());
    a
}

/// Every drawing of an analysis the tests check: both groupings, a folded
/// group, a zoomed window, a zone, a narrow picture.
fn views(a: &Analysis) -> Vec<(Timeline, View)> {
    let by_object = layout(a, &LayoutOptions::default());
    let by_lane = layout(a, &LayoutOptions { grouping: Grouping::ByLane, ..Default::default() });
    let folded =
        layout(a, &LayoutOptions { collapsed: by_object.rows.iter().filter(|r| r.depth == 0).map(|r| r.key.clone()).take(1).collect(), ..Default::default() });
    let mid = (by_object.start_nanos + by_object.end_nanos) / 2;
    let title = Some("cozyreport".to_string());
    vec![
        (by_object.clone(), View { title: title.clone(), ..View::default() }),
        (by_lane, View { title: title.clone(), ..View::default() }),
        (folded, View::default()),
        (
            by_object.clone(),
            View { window: Some((mid - 300_000_000_000, mid + 300_000_000_000)), utc_offset_secs: 7200, title: title.clone(), ..View::default() },
        ),
        (by_object, View { width_px: 600, utc_offset_secs: -5 * 3600 - 1800, title: Some("a \u{1b}<&\u{202e} title".into()), ..View::default() }),
    ]
}

/// Texts of the drawing: (x, y, font size, text) of every `<text>`, and
/// the `<title>`s.
struct Drawn {
    texts: Vec<(f64, f64, f64, String)>,
    titles: Vec<String>,
}

fn parse(svg: &str) -> Drawn {
    let doc = roxmltree::Document::parse(svg).unwrap_or_else(|e| panic!("not well-formed XML: {e}\n{svg:.2000}"));
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    let num = |n: roxmltree::Node, a: &str| n.attribute(a).and_then(|v| v.parse::<f64>().ok()).unwrap_or(f64::NAN);
    let mut d = Drawn { texts: Vec::new(), titles: Vec::new() };
    for n in doc.descendants() {
        let text: String = n.children().filter(|c| c.is_text()).filter_map(|c| c.text()).collect();
        // Nothing XML 1.0 forbids, nor text reversals, survives parsing.
        assert!(!text.chars().any(|c| (c < ' ' && c != '\n') || c == '\u{202e}' || c == '\u{fffe}'), "{text:?}");
        match n.tag_name().name() {
            "text" => d.texts.push((num(n, "x"), num(n, "y"), num(n, "font-size"), text)),
            "title" => d.titles.push(text),
            _ => {}
        }
    }
    d
}

#[test]
fn every_picture_of_the_incident_has_what_an_issue_needs() {
    let a = incident();
    for (t, view) in views(&a) {
        let svg = render::svg(&a, &t, &view);
        let d = parse(&svg);
        let has = |s: &str| d.texts.iter().any(|(_, _, _, t)| t == s);
        let ctx = format!("{:?} {} rows", view, t.rows.len());

        // The title: artifact, date, zone.
        let title = &d.texts[0].3;
        let zone = render::zone_name(view.utc_offset_secs);
        assert!(title.ends_with(&format!(" {zone}")), "{title} {ctx}");
        let (t0, t1) = view.window.unwrap_or((t.start_nanos, t.end_nanos));
        assert!(title.contains(&render::time_range(t0, t1, view.utc_offset_secs, false)), "{title} {ctx}");
        assert!(d.titles[0].ends_with(title.split_once(" · ").unwrap().1), "the document's <title> too: {:?}", d.titles[0]);
        if view.utc_offset_secs == 7200 {
            assert!(title.starts_with("cozyreport · 2026-05-26 "), "{title}");
        }

        // Every row's name in full, or cut in the middle with the full name
        // in a <title>.
        for row in &t.rows {
            let shown = has(&row.label) || d.titles.contains(&row.label) && d.texts.iter().any(|(_, _, _, s)| s.contains('…'));
            assert!(shown, "row {:?} {ctx}", row.label);
        }

        // The election terms and the finding labels, none over another.
        let visible = |s: i64, e: i64| view.window.is_none_or(|(w0, w1)| e >= w0 && s <= w1);
        for b in t.bands.iter().filter(|b| visible(b.start_nanos, b.end_nanos)) {
            let term = a.elections[b.election as usize].term.unwrap();
            assert!(d.texts.iter().any(|(_, _, _, s)| s.contains(&format!("term {term}"))), "term {term} {ctx}");
        }
        let mut labels = Vec::new();
        for h in t.highlights.iter().filter(|h| visible(h.start_nanos, h.end_nanos)) {
            let want = render::highlight_label(&a, h);
            if h.kind == FindingKind::ExpiredContext {
                // An instant: when, not a duration finer than its start.
                assert!(want.starts_with("expired-context at "), "{want}");
            }
            let found = d.texts.iter().find(|(_, _, _, s)| *s == want).unwrap_or_else(|| panic!("label {want} {ctx}"));
            labels.push(found.clone());
        }
        for (i, x) in labels.iter().enumerate() {
            for y in &labels[i + 1..] {
                let wx = render::text_width(&x.3, x.2, true);
                let wy = render::text_width(&y.3, y.2, true);
                let apart = (x.1 - y.1).abs() >= x.2 || x.0 + wx <= y.0 || y.0 + wy <= x.0;
                assert!(apart, "{x:?} overlaps {y:?} {ctx}");
            }
        }
    }
}

#[test]
fn the_stall_is_a_hatched_bar() {
    let a = incident();
    let stall = a.findings.iter().find(|f| f.kind == FindingKind::StalledWorker).expect("the stall");
    // The reconcile that held the worker: the longest latent start of the finding's.
    let latent = |r: usize| a.reconciles[r].latent_start.map_or(0, |l| a.reconciles[r].first.nanos - l.nanos);
    let holder = stall.reconciles.iter().copied().max_by_key(|&r| latent(r)).unwrap();
    assert!(latent(holder) > 15 * 60 * 1_000_000_000, "the stalled reconcile has a long latent start");
    let held = BTreeSet::from([holder]);
    let t = layout(&a, &LayoutOptions::default());
    let svg = render::svg(&a, &t, &View::default());
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let patterns: BTreeSet<String> = doc.descendants().filter(|n| n.has_tag_name("pattern")).filter_map(|n| n.attribute("id").map(String::from)).collect();
    let width: f64 = doc.root_element().attribute("width").unwrap().parse().unwrap();
    let mut seen = false;
    for n in doc.descendants().filter(|n| n.has_tag_name("rect")) {
        let Some(r) = n.attribute("data-reconcile").and_then(|v| v.parse::<usize>().ok()) else { continue };
        if !held.contains(&r) {
            continue;
        }
        let fill = n.attribute("fill").unwrap();
        let id = fill.strip_prefix("url(#").and_then(|f| f.strip_suffix(')')).unwrap_or_else(|| panic!("hatched: {fill}"));
        assert!(patterns.contains(id), "{id} is defined: {patterns:?}");
        let rc = &a.reconciles[r];
        let latent = (rc.first.nanos - rc.latent_start.unwrap().nanos) as f64 / (t.end_nanos - t.start_nanos) as f64;
        let w: f64 = n.attribute("width").unwrap().parse().unwrap();
        // Its share of the plot (more than half the picture wide).
        assert!(w >= latent * width * 0.5 && w > 100.0, "a bar, not a line: {w} px for {latent:.2} of the time");
        seen = true;
    }
    assert!(seen, "no hatched bar for the stalled reconcile");
}

#[test]
fn hostile_text_stays_well_formed_text() {
    let a = hostile();
    for (t, view) in views(&a) {
        let svg = render::svg(&a, &t, &view);
        assert!(!svg.contains("<script") && !svg.contains("<i>") && !svg.contains("<!-- ") && !svg.contains("]]>"), "{svg:.3000}");
        let d = parse(&svg);
        let names = t.rows.iter().any(|r| r.label.contains("<i>"));
        // Row labels are the app's (`layout` made them inert: controls
        // shown as `\x00`); `render::clean` keeps the rest XML.
        let shown = d.texts.iter().map(|t| &t.3).chain(&d.titles).any(|s| s.contains("ns\\x00<i>/o\\u{202e}&x"));
        assert_eq!(shown, names, "object names are shown as text (grouped by lane there are none)");
        assert!(d.texts.iter().any(|t| t.3.starts_with("w<b>&\\x1b · ")), "the controller's name");
        let raw = |c: char| c.is_control() || matches!(c, '\u{202e}' | '\u{fffe}');
        assert!(!d.texts.iter().map(|t| &t.3).chain(&d.titles).any(|s| s.contains(raw)), "no control character drawn");
    }
    // Nothing at all to draw is a picture too.
    let empty = Analysis::default();
    let d = parse(&render::svg(&empty, &Timeline::default(), &View::default()));
    assert!(d.texts.iter().any(|(_, _, _, s)| s.contains("No reconciles")));
}

#[test]
fn png_of_the_incident() {
    let a = incident();
    let t = layout(&a, &LayoutOptions::default());
    let svg = render::svg(&a, &t, &View::default());
    let png = render::png(&svg, 2.0).expect("a font on this machine (see scripts/setup.sh)");
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let w = u32::from_be_bytes(png[16..20].try_into().unwrap());
    let h = u32::from_be_bytes(png[20..24].try_into().unwrap());
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let attr = |n: &str| doc.root_element().attribute(n).unwrap().parse::<u32>().unwrap();
    assert_eq!((w, h), (attr("width") * 2, attr("height") * 2));
}

#[test]
fn a_picture_without_reconciles_spans_the_logs_lines() {
    // An etcd log alone: its lines from 09:17:30.387 and an election at
    // 09:19:24.5–09:19:25.273 (after tests/corpus/etcd/
    // etcd35_zap_json_follower_stepdown_reelection_millis.log).
    let text = "{\"level\":\"info\",\"ts\":\"2022-08-30T09:17:30.387Z\",\"msg\":\"serving client traffic\"}\n\
{\"level\":\"info\",\"ts\":\"2022-08-30T09:19:24.521Z\",\"msg\":\"raft.node: 1 lost leader 2 at term 154\"}\n\
{\"level\":\"info\",\"ts\":\"2022-08-30T09:19:25.273Z\",\"msg\":\"raft.node: 1 elected leader 3 at term 154\"}\n";
    let files = vec![parse_file("etcd.log", text.as_bytes().to_vec(), &ParseOptions::default())];
    let a = analyze(&files, &AnalyzeOptions::default()).0;
    assert_eq!(a.elections.len(), 1);
    let t = layout(&a, &LayoutOptions::default());
    let at = |s: &str| chrono::DateTime::parse_from_rfc3339(s).unwrap().timestamp_nanos_opt().unwrap();
    assert_eq!((t.start_nanos, t.end_nanos), (at("2022-08-30T09:17:30.387Z"), at("2022-08-30T09:19:25.273Z")));
    let svg = render::svg(&a, &t, &View::default());
    assert!(!svg.contains("1970"), "no placeholder date");
    // The sentence is drawn right of the labels (their column hid it).
    let msg = "No reconciles to draw: the inputs hold no controller-runtime reconcile logs.";
    let at_x: f64 = svg.split(msg).next().unwrap().rsplit("<text x=\"").next().unwrap().split('"').next().unwrap().parse().unwrap();
    assert!(at_x > 100.0, "drawn at x={at_x}, under the labels");
}

/// The rects of a drawing: (x, y, width, height, fill).
fn rects(svg: &str) -> Vec<(f64, f64, f64, f64, String)> {
    let doc = roxmltree::Document::parse(svg).unwrap();
    let num = |n: roxmltree::Node, a: &str| n.attribute(a).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    doc.descendants()
        .filter(|n| n.has_tag_name("rect") && n.ancestors().all(|a| !a.has_tag_name("pattern")))
        .map(|n| (num(n, "x"), num(n, "y"), num(n, "width"), num(n, "height"), n.attribute("fill").unwrap_or("").to_string()))
        .collect()
}

#[test]
fn the_square_for_finalizers_left_hides_no_bar() {
    // In the incident, every tenant still holds its finalizer at the end
    // of the logs, and most rows have a reconcile there: tenant-alpha's
    // last one is unfinished (the log ends in it), a bar 2 px wide at the
    // right edge.
    let a = incident();
    let t = layout(&a, &LayoutOptions::default());
    let on_rows = t.markers.iter().filter(|m| m.kind == reconscope::layout::MarkerKind::FinalizerAtEnd).count();
    assert!(on_rows >= 7, "{on_rows} rows with finalizers left");
    for width_px in [1200, 900, 600] {
        let svg = render::svg(&a, &t, &View { width_px, ..View::default() });
        let all = rects(&svg);
        let squares: Vec<_> = all.iter().filter(|r| r.2 == 8.0 && r.3 == 8.0 && r.4 == "none").collect();
        // (The legend has one too.)
        assert_eq!(squares.len(), on_rows + 1, "{width_px} px");
        // Bars are 20 px high, coloured by outcome.
        let bars: Vec<_> = all.iter().filter(|r| r.3 == 20.0 && r.4 != "none" && !r.4.starts_with("url(")).collect();
        assert!(bars.len() > 300, "{} bars", bars.len());
        let mut beside = 0;
        for s in &squares {
            let (sx0, sx1) = (s.0 - 1.0, s.0 + s.2 + 1.0); // with its stroke
            for b in bars.iter().filter(|b| b.1 <= s.1 && s.1 + s.3 <= b.1 + b.3) {
                assert!(b.0 + b.2 <= sx0 || sx1 <= b.0, "{width_px} px: the square at x {}–{} covers a bar at x {}–{}", s.0, s.0 + s.2, b.0, b.0 + b.2);
                beside += usize::from(sx0 - (b.0 + b.2) < 4.0);
            }
            assert!(sx1 <= width_px as f64, "{width_px} px: the square is drawn inside the picture, to x {sx1}");
        }
        assert!(beside >= 3, "{width_px} px: the squares sit right after the last bars ({beside})");
    }
}

#[test]
fn how_the_times_were_read_stays_inside_a_narrow_picture() {
    // klog: no year (taken from the file's modification time) and no zone.
    let text = "I0831 12:45:03.100000       1 controller.go:1] \"Reconciling\" controller=\"widget\" namespace=\"ns\" name=\"a\" reconcileID=\"r1\"\n\
I0831 12:45:05.200000       1 controller.go:2] \"Reconcile successful\" controller=\"widget\" namespace=\"ns\" name=\"a\" reconcileID=\"r1\"\n";
    // Read at --utc-offset 5:30, its year from a file time of 2026-08-31
    // 13:00 UTC, as the CLI loads it.
    let load = LoadOptions { parse: ParseOptions { default_offset_secs: 19800, ..ParseOptions::default() }, ..LoadOptions::default() };
    let mut loaded = Loaded::default();
    loaded.add_with_mtime("klog.log", text.as_bytes().to_vec(), Some(1_788_181_200), &load);
    loaded.finish();
    let a = analyze(&loaded.files, &AnalyzeOptions::default()).0;
    assert!(a.year_is_file_time(), "the year from the file time");
    assert_eq!(a.zone_assumed.map(|z| z.utc_offset_secs), Some(19800));
    let t = layout(&a, &LayoutOptions::default());
    let caveats = "the year from file times, times with no zone read at UTC+05:30";
    for (width_px, title) in [(1200, "ci"), (1200, "a-very-long-artifact-name-from-a-ci-run-of-the-e2e-suite"), (900, "ci"), (600, "ci")] {
        let view = View { width_px, title: Some(title.into()), ..View::default() };
        let svg = render::svg(&a, &t, &view);
        let d = parse(&svg);
        let width = width_px as f64;
        // The heading's lines (the axis' labels are centred on their ticks).
        for (x, y, size, s) in d.texts.iter().filter(|t| t.0 == 8.0 && t.1 < 100.0) {
            let bold = *size >= 18.0;
            assert!(x + render::text_width(s, *size, bold) <= width, "{width_px} px: {s:?} at x {x}, y {y} runs off the picture");
        }
        let title_line = &d.texts[0].3;
        assert!(title_line.starts_with(&format!("{title} · ")) || title_line.contains('…'), "{title_line}");
        // Beside the times when they fit, else on a line of their own
        // right under the title, before the counts.
        let on_title = title_line.ends_with(&format!(", {caveats}"));
        let under = d.texts.iter().position(|t| t.3.eq_ignore_ascii_case(caveats));
        assert!(on_title != under.is_some(), "{width_px} px, {title}: once: {title_line:?} {under:?}");
        if let Some(i) = under {
            assert_eq!(i, 1, "{width_px} px: right under the title");
            assert!(d.texts[1].3.starts_with("The year"), "{}", d.texts[1].3);
            let counts = d.texts.iter().find(|t| t.3.starts_with("reconscope: ")).unwrap();
            assert!(counts.1 >= d.texts[1].1 + 13.0, "the counts below it: {counts:?}");
        }
        assert_eq!(on_title, (width_px, title) == (1200, "ci"), "{width_px} px, {title}: {title_line:?}");
        // The document's title says it all, whatever the width.
        assert!(d.titles[0].starts_with(&format!("{title} · 2026-08-31 07:15:03 – 07:15:06 UTC, {caveats}")), "{}", d.titles[0]);
    }
}

/// The axis' tick labels of a drawing: the texts that read as a time of day.
fn tick_labels(svg: &str) -> Vec<String> {
    let time = regex::Regex::new(r"^\d\d:\d\d(:\d\d(\.\d+)?)?$").unwrap();
    parse(svg).texts.into_iter().map(|t| t.3).filter(|s| time.is_match(s)).collect()
}

#[test]
fn axis_ticks_are_no_finer_than_the_times_were_written() {
    // Four reconciles over 3 s, written to the second, then the same
    // lines written to the millisecond.
    let log = |frac: &str| {
        (0..4)
            .map(|i| {
                format!("2026-05-26T10:00:0{i}{frac}Z\tINFO\tReconciling\t{{\"controller\": \"widget\", \"namespace\": \"ns\", \"name\": \"w{i}\", \"reconcileID\": \"r{i}\"}}\n")
            })
            .collect::<String>()
    };
    let drawn = |text: String| {
        let files = vec![parse_file("manager.log", text.into_bytes(), &ParseOptions::default())];
        let a = analyze(&files, &AnalyzeOptions::default()).0;
        assert_eq!(a.reconciles.len(), 4);
        let t = layout(&a, &LayoutOptions::default());
        (t.precision_nanos, tick_labels(&render::svg(&a, &t, &View::default())))
    };
    let (precision, seconds) = drawn(log(""));
    assert_eq!(precision, 1_000_000_000);
    // (The last second's label, at the picture's right edge, does not fit.)
    assert_eq!(seconds, ["10:00:00", "10:00:01", "10:00:02"]);
    // Written to the millisecond, the same span has ticks between the seconds.
    let (precision, millis) = drawn(log(".000"));
    assert_eq!(precision, 1_000_000);
    assert!(millis.len() > 4 && millis.iter().any(|s| s.ends_with(".5")), "{millis:?}");
    // Written to tenths of a second: ticks between the seconds, labelled
    // to the tenth, not `10:00:00.500`.
    let (precision, tenths) = drawn(log(".0"));
    assert_eq!(precision, 100_000_000);
    let decimals = |s: &String| s.split_once('.').map_or(0, |(_, f)| f.len());
    assert!(tenths.len() > 4 && tenths.iter().all(|s| decimals(s) <= 1), "{tenths:?}");

    // A real log written to the second, all at one instant (kueue issue
    // #2096's JobSet log): its one second, not `15:53:29.100`.
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/controller-runtime/console_jobset_v0.5_seconds_midstack_start_kueue_issue2096.log");
    let files = vec![parse_file(path.display().to_string(), std::fs::read(&path).unwrap(), &ParseOptions::default())];
    let a = analyze(&files, &AnalyzeOptions::default()).0;
    let t = layout(&a, &LayoutOptions::default());
    let labels = tick_labels(&render::svg(&a, &t, &View::default()));
    assert!(!labels.is_empty() && labels.iter().all(|s| !s.contains('.')), "{labels:?}");
}
