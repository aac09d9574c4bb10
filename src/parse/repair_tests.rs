//! Copies made by people: one `check(input, expect)` over raw fixtures.
//! `expect` lists the records, then the notes as `note L<line>: <message>`.

use crate::parse::{parse_file, ParseOptions};

/// Each record as `L<line>[+<more lines>] <format> <level> <time> <message> {k=v, ...}`
/// (`yearless` for a time without a year: `resolve_years` gives it one
/// later), then each note.
fn render(input: &str) -> String {
    let pf = parse_file("t.log", input.as_bytes().to_vec(), &ParseOptions::default());
    let mut out = String::new();
    for r in &pf.records {
        out.push_str(&format!("L{}", r.line));
        if r.line_count > 1 {
            out.push_str(&format!("+{}", r.line_count - 1));
        }
        let time = match r.time {
            _ if r.yearless() => "yearless".to_owned(),
            Some(t) => t.to_string(),
            None => "-".to_owned(),
        };
        out.push_str(&format!(" {} {} {time} {:?}", r.format.as_str(), r.level.as_str(), pf.message(r)));
        let fs: Vec<String> = pf.fields(r).iter().map(|f| format!("{}={}", pf.key(f), pf.value(f))).collect();
        if !fs.is_empty() {
            out.push_str(&format!(" {{{}}}", fs.join(", ")));
        }
        out.push('\n');
    }
    for d in &pf.diagnostics {
        out.push_str(&format!("note L{}: {}\n", d.line.map_or("-".into(), |l| l.to_string()), d.message));
    }
    out
}

fn check(input: &str, expect: &str) {
    crate::parse::tests::assert_lines(&render(input), expect);
}

#[test]
fn rows_of_one_width_are_rejoined() {
    // zap console, its TABs expanded to spaces, wrapped at 64 columns; the
    // third row starts with the space the terminal broke at.
    check(
        r##"2025-04-07T18:31:29Z    INFO    reconcile started    {"controlle
r": "tenantcontrolplane", "namespace": "tenant-root", "name": "k
8s-1", "reconcileID": "040a71f8"}
2025-04-07T18:31:30Z    INFO    reconcile done
"##,
        r##"L1+2 zap-console info 2025-04-07T18:31:29Z "reconcile started" {controller=tenantcontrolplane, namespace=tenant-root, name=k8s-1, reconcileID=040a71f8}
           L4 zap-console info 2025-04-07T18:31:30Z "reconcile done"
           note L2: 2 lines hard-wrapped at 64 columns were re-joined (first at line 2)"##,
    );
}

#[test]
fn one_row_after_a_cut_json_line_is_rejoined() {
    check(
        r##"{"level":"info","ts":"2025-10-08T05:54:14.522054Z","logger":"etcd-client","msg":
"retrying of unary invoker failed","attempt":0}
{"level":"info","ts":"2025-10-08T05:54:15Z","msg":"next"}
"##,
        r##"L1+1 zap-json info 2025-10-08T05:54:14.522054Z "retrying of unary invoker failed" {attempt=0}
           L3 zap-json info 2025-10-08T05:54:15Z "next"
           note L2: 1 line hard-wrapped at 80 columns was re-joined (first at line 2)"##,
    );
}

/// An excerpt whose author cut a JSON line short and wrote `...` under it
/// (Karpenter's Azure workshop, `docs/workshops/kubecon_azure_track.md`,
/// lines 85-87, its fields shortened here to 80 columns): the `...` is
/// no row of a wrap, and the cut line is said once.
#[test]
fn an_elision_under_a_cut_json_line_is_no_row_of_it() {
    check(
        r##"{"level":"info","ts":1731024135.0687907,"logger":"fallback","msg":"Selected i
        ...
{"level":"info","ts":1731024136.088467,"logger":"fallback","msg":"Selected"}
"##,
        r##"L1 zap-json info 2024-11-08T00:02:15.068790Z ""
           L2 unparsed unknown - "        ..."
           L3 zap-json info 2024-11-08T00:02:16.088467Z "Selected"
           note L1: line is cut off inside its JSON object; the fields before the cut were kept"##,
    );
}

#[test]
fn one_row_that_breaks_a_word_of_a_long_line_is_rejoined() {
    check(
        r##"E0227 22:49:30.007315       1 leaderelection.go:330] error retrieving resource lock kube-system/kube-controlle
r-manager: Get "https://127.0.0.1:6443/apis": net/http: request canceled (Client.Timeout exceeded)
I0227 22:49:57.219037       1 leaderelection.go:258] successfully acquired lease kube-system/kube-controller-manager
"##,
        r##"L1+1 klog error yearless "error retrieving resource lock kube-system/kube-controller-manager: Get \"https://127.0.0.1:6443/apis\": net/http: request canceled (Client.Timeout exceeded)" {=leaderelection.go:330}
           L3 klog info yearless "successfully acquired lease kube-system/kube-controller-manager" {=leaderelection.go:258}
           note L2: 1 line hard-wrapped at 110 columns was re-joined (first at line 2)"##,
    );
}

#[test]
fn columns_as_runs_of_spaces_are_read() {
    // (Copies of the TAB-separated console encoder, as terminals give them.)
    check(
        r##"2024-10-30T08:12:01Z    INFO    resource have been deleted, skipping    {"controller": "tenantcontrolplane", "reconcileID": "a1"}
2024-10-30T08:12:02Z  ERROR  Reconciler error  {"controller": "tenantcontrolplane", "reconcileID": "a2", "error": "x"}
2024-10-30T08:12:03Z	DEBUG   controller-runtime.webhook.webhooks	received request	{"webhook": "/mutate"}
"##,
        r##"L1 zap-console info 2024-10-30T08:12:01Z "resource have been deleted, skipping" {controller=tenantcontrolplane, reconcileID=a1}
           L2 zap-console error 2024-10-30T08:12:02Z "Reconciler error" {controller=tenantcontrolplane, reconcileID=a2, error=x}
           L3 zap-console debug 2024-10-30T08:12:03Z "received request" {webhook=/mutate}"##,
    );
}

#[test]
fn a_k9s_log_view_is_unframed() {
    // The title border, the status row, a row, a line wrapped at the
    // frame's width (its first row fills the frame), an empty row, the
    // bottom border.
    check(
        r##"┌────────────────────── Logs(kamaji-system/kamaji-7d9c8b5f4-x2x9k:manager)[tail] ──────────────────────┐
│                   Autoscroll:On     FullScreen:Off     Timestamps:Off     Wrap:On                    │
│ 2025-04-07T18:31:29Z    INFO    Starting workers    {"controller": "tenantcontrolplane"}             │
│ 2025-04-07T18:31:30Z    ERROR    Reconciler error    {"controller": "tenantcontrolplane", "namespace │
│ ": "tenant-root", "name": "k8s-1", "reconcileID": "9f1c", "error": "etcd is not ready"}              │
│                                                                                                      │
└──────────────────────────────────────────────────────────────────────────────────────────────────────┘
"##,
        r##"L1 unparsed unknown - "┌────────────────────── Logs(kamaji-system/kamaji-7d9c8b5f4-x2x9k:manager)[tail] ──────────────────────┐"
           L2 unparsed unknown - "                  Autoscroll:On     FullScreen:Off     Timestamps:Off     Wrap:On"
           L3 zap-console info 2025-04-07T18:31:29Z "Starting workers" {controller=tenantcontrolplane}
           L4+1 zap-console error 2025-04-07T18:31:30Z "Reconciler error" {controller=tenantcontrolplane, namespace=tenant-root, name=k8s-1, reconcileID=9f1c, error=etcd is not ready}
           L7 unparsed unknown - "└──────────────────────────────────────────────────────────────────────────────────────────────────────┘"
           note L5: 1 line hard-wrapped at 100 columns was re-joined (first at line 5)
           note L2: a terminal frame was removed from 5 lines (first at line 2)
           note L1: 2 lines are a terminal frame's border, not log lines (first at line 1)
           note L2: 1 line is a pager's or terminal UI's screen (`~`, `(END)`, a `:` prompt, a status line), not a log line (line 2)"##,
    );
}

#[test]
fn a_tmux_pane_is_unframed() {
    // The left pane of a split window, 72 columns wide: each row ends at
    // the pane border; long lines wrap at it.
    check(
        r##"2025-04-07T18:31:29Z    INFO    Starting EventSource    {"controller": "│
x"}                                                                     │
2025-04-07T18:31:30Z    INFO    Starting workers    {"controller": "tena│
ntcontrolplane", "worker count": 1}                                     │
"##,
        r##"L1+1 zap-console info 2025-04-07T18:31:29Z "Starting EventSource" {controller=x}
           L3+1 zap-console info 2025-04-07T18:31:30Z "Starting workers" {controller=tenantcontrolplane, worker count=1}
           note L2: 2 lines hard-wrapped at 72 columns were re-joined (first at line 2)
           note L1: a terminal frame was removed from 4 lines (first at line 1)"##,
    );
}

#[test]
fn a_less_screen_is_named() {
    check(
        r##"2025-04-07T18:31:29Z    INFO    Starting workers    {"controller": "x"}
~
~
(END)
"##,
        r##"L1 zap-console info 2025-04-07T18:31:29Z "Starting workers" {controller=x}
           L2 unparsed unknown - "~"
           L3 unparsed unknown - "~"
           L4 unparsed unknown - "(END)"
           note L2: 3 lines are a pager's or terminal UI's screen (`~`, `(END)`, a `:` prompt, a status line), not log lines (first at line 2)"##,
    );
    check(
        "{\"level\":\"info\",\"ts\":\"2025-10-08T05:54:14Z\",\"msg\":\"a\"}\n:\n",
        r##"L1 zap-json info 2025-10-08T05:54:14Z "a"
           L2 unparsed unknown - ":"
           note L2: 1 line is a pager's or terminal UI's screen (`~`, `(END)`, a `:` prompt, a status line), not a log line (line 2)"##,
    );
}

#[test]
fn shell_prompts_and_commands_are_named() {
    check(
        r##"$ kubectl logs -n kamaji-system deploy/kamaji --tail=2
2025-04-07T18:31:29Z    INFO    Starting workers    {"controller": "x"}
2025-04-07T18:31:30Z    INFO    Starting workers    {"controller": "y"}
[root@master01 ~]# journalctl -u etcd --no-pager -o cat
{"level":"info","ts":"2025-04-07T18:31:31Z","msg":"elected leader"}
"##,
        r##"L1 unparsed unknown - "$ kubectl logs -n kamaji-system deploy/kamaji --tail=2"
           L2 zap-console info 2025-04-07T18:31:29Z "Starting workers" {controller=x}
           L3 zap-console info 2025-04-07T18:31:30Z "Starting workers" {controller=y}
           L4 unparsed unknown - "[root@master01 ~]# journalctl -u etcd --no-pager -o cat"
           L5 zap-json info 2025-04-07T18:31:31Z "elected leader"
           note L1: 2 lines are shell commands, not log lines (the first, line 1: `kubectl logs -n kamaji-system deploy/kamaji --tail=2`)"##,
    );
    check(
        "# journalctl -u etcd\n{\"level\":\"info\",\"ts\":\"2025-04-07T18:31:31Z\",\"msg\":\"elected leader\"}\n",
        r##"L1 unparsed unknown - "# journalctl -u etcd"
           L2 zap-json info 2025-04-07T18:31:31Z "elected leader"
           note L1: line 1 is a shell command (`journalctl -u etcd`), not a log line"##,
    );
}

#[test]
fn a_last_line_cut_mid_record_is_said_once() {
    check(
        r##"{"level":"info","ts":"2025-10-08T05:54:14Z","msg":"a"}
{"level":"info","ts":"2025-10-08T05:54:15Z","msg":"b","x":"cu"##,
        r##"L1 zap-json info 2025-10-08T05:54:14Z "a"
           L2 zap-json info 2025-10-08T05:54:15Z "b"
           note L2: the last line is cut mid-record: its JSON object is cut short; the fields before the cut were kept"##,
    );
    // A cut line that is not the last keeps its own note.
    check(
        r##"{"level":"info","ts":"2025-10-08T05:54:15Z","msg":"b","x":"cu
{"level":"info","ts":"2025-10-08T05:54:16Z","msg":"c"}
"##,
        r##"L1 zap-json info 2025-10-08T05:54:15Z "b"
           L2 zap-json info 2025-10-08T05:54:16Z "c"
           note L1: line is cut off inside its JSON object; the fields before the cut were kept"##,
    );
    // A klog line whose quote is not closed, then the pager's end.
    check(
        r##"I0227 22:49:57.219037       1 leaderelection.go:258] successfully acquired lease kube-system/kube-controller-manager
E0227 22:53:22.771806       1 leaderelection.go:330] error retrieving resource lock: Get "https://127.0.0.1:6443/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-controller-manager?
(END)
"##,
        r##"L1 klog info yearless "successfully acquired lease kube-system/kube-controller-manager" {=leaderelection.go:258}
           L2 klog error yearless "error retrieving resource lock: Get \"https://127.0.0.1:6443/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-controller-manager?" {=leaderelection.go:330}
           L3 unparsed unknown - "(END)"
           note L3: 1 line is a pager's or terminal UI's screen (`~`, `(END)`, a `:` prompt, a status line), not a log line (line 3)
           note L2: the last line is cut mid-record: a quoted string in it is not closed"##,
    );
}

#[test]
fn long_real_lines_are_never_joined() {
    // Lines of one width that each start with their own time or object.
    check(
        r##"{"level":"info","ts":"2025-10-08T05:54:14Z","msg":"aaaa"}
{"level":"info","ts":"2025-10-08T05:54:15Z","msg":"bbbb"}
2025-04-07T18:31:29Z    INFO    Starting workers    {"controller": "x"}
2025-04-07T18:31:30Z    INFO    Starting workers    {"controller": "y"}
"##,
        r##"L1 zap-json info 2025-10-08T05:54:14Z "aaaa"
           L2 zap-json info 2025-10-08T05:54:15Z "bbbb"
           L3 zap-console info 2025-04-07T18:31:29Z "Starting workers" {controller=x}
           L4 zap-console info 2025-04-07T18:31:30Z "Starting workers" {controller=y}"##,
    );
    // A row wider than the line before it is no wrap of it.
    check(
        r##"I0227 22:49:25.006393       1 leaderelection.go:248] attempting to acquire leader lease kube-system/kube-controller-manager
output of the command that ran before this one was longer than the line above it, so it is no wrap of it at all, not one bit
"##,
        r##"L1 klog info yearless "attempting to acquire leader lease kube-system/kube-controller-manager" {=leaderelection.go:248}
           L2 unparsed unknown - "output of the command that ran before this one was longer than the line above it, so it is no wrap of it at all, not one bit""##,
    );
    // One row: the line ends at a word's end ...
    check(
        r##"E0227 22:49:30.007315       1 reflector.go:138] failed to run the command, its output follows on the next lines:
exit status 1
"##,
        r##"L1 klog error yearless "failed to run the command, its output follows on the next lines:" {=reflector.go:138}
           L2 unparsed unknown - "exit status 1""##,
    );
    // ... or the row starts with a capital (a word of its own) ...
    check(
        r##"E0227 22:49:30.007315       1 apply.go:12] error: unable to recognize "manifests/deploy.yaml": no matches for kind
Deployment in version apps/v1
"##,
        r##"L1 klog error yearless "error: unable to recognize \"manifests/deploy.yaml\": no matches for kind" {=apply.go:12}
           L2 unparsed unknown - "Deployment in version apps/v1""##,
    );
    // ... or the line is too short to say it was cut by a terminal.
    check(
        r##"E0227 22:49:30.007315       1 leaderelection.go:330] request can
celed
"##,
        r##"L1 klog error yearless "request can" {=leaderelection.go:330}
           L2 unparsed unknown - "celed""##,
    );
    // Stack frames after an ERROR line join it as they always did.
    check(
        "2025-09-06T23:51:03Z\tERROR\tReconciler error\t{\"controller\": \"tenantcontrolplane\", \"reconcileID\": \"705cdb90\", \"error\": \"boom\"}\n\
sigs.k8s.io/controller-runtime/pkg/internal/controller.(*Controller).reconcileHandler\n\
\t/go/pkg/mod/sigs.k8s.io/controller-runtime@v0.20.4/pkg/internal/controller/controller.go:316\n",
        r##"L1+2 zap-console error 2025-09-06T23:51:03Z "Reconciler error" {controller=tenantcontrolplane, reconcileID=705cdb90, error=boom}"##,
    );
    // Unparsed lines of one width with no record before them.
    check(
        "the first line of some text that is no log\nthe other line of some text that is no log\n",
        r##"L1 unparsed unknown - "the first line of some text that is no log"
           L2 unparsed unknown - "the other line of some text that is no log""##,
    );
}

/// The corpus file `rel`, read.
fn corpus(rel: &str) -> String {
    std::fs::read_to_string(format!("{}/tests/corpus/{rel}", env!("CARGO_MANIFEST_DIR"))).expect("corpus file")
}

#[test]
fn kamaji_issue780_wrapped_at_190_columns() {
    // Line 1 is the end of a record the excerpt starts inside. Lines 2-7
    // are one ERROR record wrapped at 190 columns (lines 2-6 are 190 wide,
    // 7 is 123); it ends inside "errorVerbose", so the file ends mid-record.
    check(
        &corpus("kamaji/issue780_deletion_stuck_wrapped.log"),
        r##"L1 unparsed unknown - "TenantControlPlane\": {\"name\":\"kubernetes-deu1\",\"namespace\":\"tenant-root\"}, \"namespace\": \"tenant-root\", \"name\": \"kubernetes-deu1\", \"reconcileID\": \"040a71f8-ce6c-4a4e-92b9-e99019974181\"}"
           L2+5 zap-console error 2025-04-07T18:31:29Z "cannot retrieve Tenant Control Plane address" {controller=tenantcontrolplane, controllerGroup=kamaji.clastix.io, controllerKind=TenantControlPlane, TenantControlPlane={"name":"kubernetes-chaunin2","namespace":"tenant-root"}, namespace=tenant-root, name=kubernetes-chaunin2, reconcileID=edc181ce-bc44-45f9-9b4f-f4f2424656fc, resource=service, error=cannot retrieve Service for the TenantControlPlane: Service "kubernetes-chaunin2" not found}
           note L3: 5 lines hard-wrapped at 190 columns were re-joined (first at line 3)
           note L7: the last line is cut mid-record: its JSON object is cut short; the fields before the cut were kept"##,
    );
}

#[test]
fn klog_issue108380_line_2_wrapped_at_265_columns() {
    // Line 2 (265 columns) ends "request can", line 3 goes on "celed
    // (Client.Timeout ...)". Line 5 is the corpus' separator; line 6 is cut
    // inside the quoted URL.
    check(
        &corpus("klog/kcm_leader_election_klog_text_issue108380.log"),
        r##"L1 klog info yearless "attempting to acquire leader lease kube-system/kube-controller-manager..." {=leaderelection.go:248}
           L2+1 klog error yearless "error retrieving resource lock kube-system/kube-controller-manager: Get \"https://127.0.0.1:6443/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-controller-manager?timeout=5s\": net/http: request canceled (Client.Timeout exceeded while awaiting headers)" {=leaderelection.go:330}
           L4 klog info yearless "successfully acquired lease kube-system/kube-controller-manager" {=leaderelection.go:258}
           L5 unparsed unknown - "# --- second block ---"
           L6 klog error yearless "error retrieving resource lock kube-system/kube-controller-manager: Get \"https://127.0.0.1:6443/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-controller-manager?" {=leaderelection.go:330}
           note L3: 1 line hard-wrapped at 265 columns was re-joined (first at line 3)
           note L6: the last line is cut mid-record: a quoted string in it is not closed"##,
    );
}

#[test]
fn corpus_console_lines_with_spaces_for_tabs_are_read() {
    // The corpus files whose TAB columns a terminal turned into spaces:
    // every line that starts `<time>  <LEVEL>  ` is a zap-console record
    // of that level, its message trimmed, its fields named.
    let files = [
        "controller-runtime/console_epoch_reconciler_error_v0.14.log",
        "controller-runtime/console_observed_a_panic_v0.23.log",
        "controller-runtime/console_observed_panic_v0.14_substratus.log",
        "controller-runtime/console_reconciler_error_with_stacktrace.log",
        "kamaji/issue491_turn14_resource_deleted_skipping_2024.log",
        "kamaji/issue497_observed_panic_v0.18_unrecovered.log",
        "kamaji/issue780_deletion_stuck_wrapped.log",
        "kamaji/issue787_datastore_channel_full.log",
        "kamaji/legacy_2022_epoch_format.log",
    ];
    for rel in files {
        let text = corpus(rel);
        let pf = parse_file(rel, text.clone().into_bytes(), &ParseOptions::default());
        let mut seen = 0;
        for (i, line) in text.lines().enumerate() {
            let mut words = line.split("  ").filter(|w| !w.is_empty()).map(str::trim);
            let (Some(ts), Some(level)) = (words.next(), words.next()) else {
                continue;
            };
            let timed = ts.starts_with("20") || ts.ends_with("e+09");
            let Some(want) = crate::model::Level::parse(level.as_bytes()).filter(|_| timed && !ts.contains(' ')) else {
                continue;
            };
            seen += 1;
            let n = i as u32 + 1;
            let r = pf.records.iter().find(|r| r.line == n).unwrap_or_else(|| panic!("{rel}:{n} starts no record"));
            assert_eq!((r.format, r.level), (crate::model::Format::ZapConsole, want), "{rel}:{n}");
            let m = pf.message(r);
            assert!(!m.is_empty() && m.trim() == m, "{rel}:{n}: message {m:?}");
            assert!(pf.fields(r).iter().all(|f| !pf.key(f).trim().is_empty()), "{rel}:{n}: a field without a key");
        }
        assert!(seen > 0, "{rel}: no console line");
    }
}

#[test]
fn corpus_lines_cut_and_continued_on_the_next_line_are_one_record() {
    // Two copies whose first record goes on, mid-token, on line 2: the
    // v0.23 one at 1000 columns (`/go/pkg/mod/go` + `.etcd.io/gofail@...`,
    // and cut again at the end), the substratus one after 381 columns (its
    // reconcileID `...-819e-8` + `391ee5fdba0`; its rows padded to 127).
    let cases = [
        (
            "controller-runtime/console_observed_a_panic_v0.23.log",
            crate::model::Level::Error,
            "Observed a panic",
            "769c23b3-4174-442a-a192-a0b50ccb17c1",
            vec![
                "1 line hard-wrapped at 1000 columns was re-joined (first at line 2)",
                "the last line is cut mid-record: its JSON object is cut short; the fields before the cut were kept",
            ],
        ),
        (
            "controller-runtime/console_observed_panic_v0.14_substratus.log",
            crate::model::Level::Info,
            "Observed a panic in reconciler: runtime error: invalid memory address or nil pointer dereference",
            "ce0ac48d-3c9c-4a41-819e-8391ee5fdba0",
            vec!["1 line hard-wrapped at 381 columns was re-joined (first at line 2)"],
        ),
    ];
    for (rel, level, message, id, notes) in cases {
        let pf = parse_file(rel, corpus(rel).into_bytes(), &ParseOptions::default());
        let r = &pf.records[0];
        assert_eq!((r.line, r.line_count, r.format, r.level), (1, 2, crate::model::Format::ZapConsole, level), "{rel}");
        assert_eq!(pf.message(r), message, "{rel}");
        assert_eq!(pf.reconcile_id(r).as_deref(), Some(id.as_bytes()), "{rel}");
        let got: Vec<&str> = pf.diagnostics.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(got, notes, "{rel}");
    }
}

/// Every repair note the corpus gets, each checked by reading its file:
/// the wraps (issue780, issue497, issue108380, and the two lines that go
/// on mid-token), the shell commands before the kubectl tables, and the
/// excerpts cut inside their last record. No other file gets one.
#[test]
fn the_corpus_gets_these_repair_notes_and_no_others() {
    const CUT_JSON: &str = "the last line is cut mid-record: its JSON object is cut short; the fields before the cut were kept";
    const CUT_QUOTE: &str = "the last line is cut mid-record: a quoted string in it is not closed";
    let want: &[(&str, u32, &str)] = &[
        ("controller-runtime/console_observed_a_panic_v0.23.log", 2, "1 line hard-wrapped at 1000 columns was re-joined (first at line 2)"),
        ("controller-runtime/console_observed_a_panic_v0.23.log", 2, CUT_JSON),
        ("controller-runtime/console_observed_panic_v0.14_substratus.log", 2, "1 line hard-wrapped at 381 columns was re-joined (first at line 2)"),
        ("controller-runtime/json_leader_renew_failed_shutdown_cnpg_v0.22.log", 11, CUT_JSON),
        ("controller-runtime/json_mariadb_epoch_ts_with_ui_prefix.log", 2, CUT_JSON),
        ("controller-runtime/json_production_reconciler_error.log", 2, CUT_JSON),
        ("etcd/clientv3_retry_unary_invoker_variants.log", 19, CUT_JSON),
        ("etcd/etcd34_zap_json_no_logger_key.log", 7, CUT_JSON),
        ("etcd/k3s_embedded_etcd34_json_with_logrus.log", 8, CUT_JSON),
        (
            "k8s-objects/kamajicontrolplane_status_conditions_capi_pr69.yaml",
            51,
            "line 51 is a shell command (`k get kamajicontrolplane -o custom-columns=\"name\":.metadata....`), not a log line",
        ),
        ("k8s-objects/kubectl_get_tcp_table_issue183.txt", 1, "2 lines are shell commands, not log lines (the first, line 1: `kubectl -n tenants get tcp`)"),
        ("kamaji/issue497_observed_panic_v0.18_unrecovered.log", 2, "2 lines hard-wrapped at 190 columns were re-joined (first at line 2)"),
        ("kamaji/issue780_deletion_stuck_wrapped.log", 3, "5 lines hard-wrapped at 190 columns were re-joined (first at line 3)"),
        ("kamaji/issue780_deletion_stuck_wrapped.log", 7, CUT_JSON),
        ("kamaji/issue787_datastore_channel_full.log", 1, CUT_JSON),
        ("klog/controller_runtime_via_klog_text_panic.log", 6, CUT_QUOTE),
        ("klog/kcm_leader_election_klog_text_issue108380.log", 3, "1 line hard-wrapped at 265 columns was re-joined (first at line 3)"),
        ("klog/kcm_leader_election_klog_text_issue108380.log", 6, CUT_QUOTE),
        ("klog/mixed_klog_and_controller_runtime_console_kubewarden.log", 9, CUT_JSON),
        // The excerpts found for issue 13, each read: the prompts and
        // commands their authors copied, the wraps (widths counted), the
        // klog lines cut inside a quoted value, the `jq` output.
        (
            "controller-runtime/cri_kuberay_v1.2.2_rayjob_raycluster_kueue4508.log",
            1,
            "line 1 is a shell command (`cat ray.log | grep e2e-tas-rayjob-lgmbj`), not a log line",
        ),
        // Its author's grep, read for issue 15's follow-up.
        (
            "controller-runtime/cri_kueue_v1pod_webhook_refused_grep_issue4140.log",
            1,
            "line 1 is a shell command (`grep \"test-pod\" ./worker2-kueue-controller-manager.log`), not a log line",
        ),
        (
            "controller-runtime/json_pretty_printed_soperator_offset_ts_pr357.log",
            1,
            "2 JSON objects printed over many lines were read as one record each (first at line 1)",
        ),
        (
            "etcd/journalctl_etcd_json_cluster_id_mismatch_offset0530.log",
            1,
            "line 1 is a shell command (`journalctl -u etcd.service -n 100 -f`), not a log line",
        ),
        ("etcd/journalctl_microshift_embedded_etcd_json_inner_time_lags.log", 1, "line 1 is a shell command (`journalctl -f`), not a log line"),
        ("etcd/journald_etcd35_json_hardwrapped_follower_election_patroni.log", 2, "5 lines hard-wrapped at 135 columns were re-joined (first at line 2)"),
        ("etcd/systemctl_status_etcd36_ellipsized_json.log", 1, "line 1 is a shell command (`systemctl status etcd --no-pager`), not a log line"),
        ("klog/capi_kcp_cri_offset0800_klog_unquoted_reconcileID_issue8948.log", 2, CUT_QUOTE),
        ("klog/capi_kcp_klog_pairs_quoted_reconcileID_pr9342.log", 3, CUT_QUOTE),
        (
            "klog/cri_kube_apiserver_httplog_kind_kueue4508.log",
            1,
            "line 1 is a shell command (`cat api.log | grep e2e-tas-rayjob-lgmbj/pods | grep POST | g...`), not a log line",
        ),
        (
            "terminal/argocd_appset_v3.3.6_logrus_json_time_key_prompt_blank_lines.log",
            1,
            "line 1 is a shell command (`k logs argocd-applicationset-controller-cf6df4d44-z84ns -n a...`), not a log line",
        ),
        (
            "terminal/capd_klog_kubectl_logs_grep_prompt_clustercache.log",
            1,
            "line 1 is a shell command (`kubectl logs -n capd-system capd-controller-manager-6cf4bf67...`), not a log line",
        ),
        ("terminal/capi_kcp_klog_hardwrapped_unquoted_reconcileID_pr6836.log", 2, "3 lines hard-wrapped at 337 columns were re-joined (first at line 2)"),
        ("terminal/capi_kcp_klog_hardwrapped_unquoted_reconcileID_pr6836.log", 6, CUT_QUOTE),
        ("terminal/flux_kustomize_controller_json_hardwrapped_107_issue725.log", 3, "10 lines hard-wrapped at 107 columns were re-joined (first at line 3)"),
    ];
    let root = std::path::PathBuf::from(format!("{}/tests/corpus", env!("CARGO_MANIFEST_DIR")));
    let mut dirs = vec![root.clone()];
    let mut got = Vec::new();
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).expect("corpus folder") {
            let p = e.expect("entry").path();
            if p.is_dir() {
                dirs.push(p);
                continue;
            }
            // (Not the facts read in a file, beside it.)
            if p.extension().is_some_and(|e| e == "expect") {
                continue;
            }
            let rel = p.strip_prefix(&root).expect("under the corpus").to_string_lossy().into_owned();
            let pf = parse_file(rel.clone(), std::fs::read(&p).expect("file"), &ParseOptions::default());
            let repairs = ["hard-wrapped", "terminal frame", "shell command", "pager", "the last line is cut", "printed over many lines"];
            for d in pf.diagnostics.iter().filter(|d| repairs.iter().any(|r| d.message.contains(r))) {
                got.push((rel.clone(), d.line.unwrap_or(0), d.message.clone()));
            }
        }
    }
    got.sort();
    let mut want: Vec<(String, u32, String)> = want.iter().map(|(f, l, m)| (f.to_string(), *l, m.to_string())).collect();
    want.sort();
    assert_eq!(got, want);
}
