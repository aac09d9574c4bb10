//! Data-driven tests: one `check(input, expect)` over small raw fixtures.
use super::*;
use crate::model::Level;

/// Renders every record of `input` as one line:
/// `L<line>+<extra lines> <format>[/<wrapper>] <level> <time|-> [collected <t>] [<logger>] <message> {k=v, ...}`
fn render(input: &str) -> String {
    let pf = parse_file("t.log", input.as_bytes().to_vec(), &ParseOptions::default());
    let mut out = String::new();
    for r in &pf.records {
        out.push_str(&format!("L{}", r.line));
        if r.line_count > 1 {
            out.push_str(&format!("+{}", r.line_count - 1));
        }
        out.push(' ');
        out.push_str(r.format.as_str());
        if r.wrapper != Wrapper::None {
            out.push('/');
            out.push_str(r.wrapper.as_str());
        }
        out.push(' ');
        out.push_str(r.level.as_str());
        out.push(' ');
        out.push_str(&r.time.map_or("-".into(), |t| t.to_string()));
        if let Some(c) = r.collected {
            out.push_str(&format!(" collected {c}"));
        }
        if !r.logger.is_empty() {
            out.push_str(&format!(" [{}]", pf.logger(r)));
        }
        out.push_str(&format!(" {:?}", pf.message(r)));
        let fs: Vec<String> = pf.fields(r).iter().map(|f| format!("{}={}", pf.key(f), pf.value(f))).collect();
        if !fs.is_empty() {
            out.push_str(&format!(" {{{}}}", fs.join(", ")));
        }
        out.push('\n');
    }
    out
}

fn check(input: &str, expect: &str) {
    assert_lines(&render(input), expect);
}

/// `got` against `expect`, one line each, `expect`'s lines trimmed at the
/// start and blank ones left out (so a fixture can be indented).
pub(super) fn assert_lines(got: &str, expect: &str) {
    let want: String = expect.lines().map(|l| l.trim_start()).filter(|l| !l.is_empty()).map(|l| format!("{l}\n")).collect();
    assert_eq!(got, want, "\n--- got ---\n{got}--- want ---\n{want}");
}

#[test]
fn zap_console_with_context_and_stack() {
    check(
        "2025-09-06T23:51:03Z\tERROR\tupdate of the resource failed\t{\"controller\": \"tenantcontrolplane\", \"TenantControlPlane\": {\"name\":\"master\",\"namespace\":\"kamaji-system\"}, \"namespace\": \"kamaji-system\", \"name\": \"master\", \"reconcileID\": \"705cdb90\", \"error\": \"boom \\\"x\\\"\"}\n\
github.com/clastix/kamaji/controllers.(*TenantControlPlaneReconciler).Reconcile\n\
\t/workspace/controllers/tenantcontrolplane_controller.go:123\n\
2025-09-06T23:51:04Z\tINFO\tsetup\tstarting manager\n",
        r#"L1+2 zap-console error 2025-09-06T23:51:03Z "update of the resource failed" {controller=tenantcontrolplane, TenantControlPlane={"name":"master","namespace":"kamaji-system"}, namespace=kamaji-system, name=master, reconcileID=705cdb90, error=boom "x"}
           L4 zap-console info 2025-09-06T23:51:04Z [setup] "starting manager""#,
    );
}

#[test]
fn zap_console_precisions_and_epoch() {
    check(
        "2021-09-10T09:06:15.419Z\tINFO\tcontroller-runtime.manager\tstarting metrics server\t{\"path\": \"/metrics\"}\n\
2021-09-10T09:06:15.419123Z\tDEBUG\tm\n\
2021-09-10T09:06:15.419123456+05:30\tINFO\tm\n\
1.6573084001213665e+09\tINFO\tcontroller.tenantcontrolplane\tdeployment has been configured\t{\"reconciler group\": \"kamaji.clastix.io\"}\n",
        r#"L1 zap-console info 2021-09-10T09:06:15.419Z [controller-runtime.manager] "starting metrics server" {path=/metrics}
           L2 zap-console debug 2021-09-10T09:06:15.419123Z "m"
           L3 zap-console info 2021-09-10T03:36:15.419123456Z "m"
           L4 zap-console info 2022-07-08T19:26:40.121366Z [controller.tenantcontrolplane] "deployment has been configured" {reconciler group=kamaji.clastix.io}"#,
    );
}

#[test]
fn zap_json_variants() {
    check(
        r#"{"level":"warn","ts":"2025-10-08T05:54:14.522054Z","logger":"etcd-client","caller":"v3/retry_interceptor.go:65","msg":"retrying of unary invoker failed","attempt":0,"error":"rpc error: code = DeadlineExceeded desc = context deadline exceeded"}
{"level":"info","ts":"2022-04-26T16:27:01.999+0800","caller":"raft/raft.go:923","msg":"de86b2266eac1de6 is starting a new election at term 144"}
{"level":"info","ts":1737643238.5336082,"logger":"galera","msg":"healthy"}
{"level":"error","ts":"2025-08-22T03:20:13Z","msg":"Reconciler error","controller":"x","stacktrace":"a\tb"}
{"level":"info","ts":"2023-09-03T16:55:11.4992Z","msg":"cut","x":"1","y":"#,
        r#"L1 zap-json warn 2025-10-08T05:54:14.522054Z [etcd-client] "retrying of unary invoker failed" {caller=v3/retry_interceptor.go:65, attempt=0, error=rpc error: code = DeadlineExceeded desc = context deadline exceeded}
           L2 zap-json info 2022-04-26T08:27:01.999Z "de86b2266eac1de6 is starting a new election at term 144" {caller=raft/raft.go:923}
           L3 zap-json info 2025-01-23T14:40:38.533608Z [galera] "healthy"
           L4 zap-json error 2025-08-22T03:20:13Z "Reconciler error" {controller=x, stacktrace=a	b}
           L5 zap-json info 2023-09-03T16:55:11.4992Z "cut" {x=1}"#,
    );
}

#[test]
fn etcd_text_formats() {
    check(
        "2021-09-11 14:46:26.865712 I | raft: raft.node: 305e2d98af38bb40 elected leader 7752c0b6a21319fe at term 58\n\
Apr 29 11:22:25 k8s-master-2 etcd[1188]: 91d25258d70ad868 became follower at term 12263\n\
17:07:59.527067 raft.go:419: raft: 4ed8a71b21f7187a is starting a new election at term 1\n",
        r#"L1 etcd-capnslog info 2021-09-11T14:46:26.865712Z [raft] "raft.node: 305e2d98af38bb40 elected leader 7752c0b6a21319fe at term 58"
           L2 journald unknown 2000-04-29T11:22:25Z [etcd] "91d25258d70ad868 became follower at term 12263" {=k8s-master-2}
           L3 go-log info - "raft: 4ed8a71b21f7187a is starting a new election at term 1" {=raft.go:419}"#,
    );
}

#[test]
fn klog_plain_and_structured() {
    check(
        "I0910 09:06:15.416743       1 leaderelection.go:243] attempting to acquire leader lease kubewarden/a4ddbf36.kubewarden.io...\n\
E1121 02:37:45.120069       1 run.go:74] \"command failed\" err=\"context deadline exceeded\" pod=\"kube-system/etcd-0\" n=3\n",
        r#"L1 klog info 2000-09-10T09:06:15.416743Z "attempting to acquire leader lease kubewarden/a4ddbf36.kubewarden.io..." {=leaderelection.go:243}
           L2 klog error 2000-11-21T02:37:45.120069Z "command failed" {=run.go:74, err=context deadline exceeded, pod=kube-system/etcd-0, n=3}"#,
    );
}

#[test]
fn wrappers_are_peeled_and_both_times_kept() {
    check(
        "2026-05-25T16:29:29.123456789Z 2026-05-25T16:29:29Z\tINFO\tx has been reconciled\t{\"reconcileID\": \"r1\"}\n\
2022-11-21T02:50:53.90545154Z stderr F {\"level\":\"info\",\"ts\":\"2022-11-21T02:50:53.905Z\",\"logger\":\"raft\",\"msg\":\"became leader at term 5\"}\n\
{\"log\":\"I0324 03:40:10.801139       1 leaderelection.go:235] attempting to acquire leader lease\\n\",\"stream\":\"stderr\",\"time\":\"2020-03-24T03:40:10.801173872Z\"}\n\
[pod/kamaji-0/manager] 2026-05-25T16:29:30Z\tINFO\tstarted\n\
\u{feff}2026-04-25T05:18:16.2685185Z ##[error]Process completed with exit code 1.\n\
manager 2026-08-06T08:44:27Z    INFO    reconciling dragonfly instance    {\"controller\": \"Dragonfly\"}\n",
        r###"L1 zap-console/kubectl-timestamps info 2026-05-25T16:29:29Z collected 2026-05-25T16:29:29.123456789Z "x has been reconciled" {reconcileID=r1}
           L2 zap-json/cri info 2022-11-21T02:50:53.905Z collected 2022-11-21T02:50:53.90545154Z [raft] "became leader at term 5"
           L3 klog/docker-json info 2020-03-24T03:40:10.801139Z collected 2020-03-24T03:40:10.801173872Z "attempting to acquire leader lease" {=leaderelection.go:235, stream=stderr}
           L4 zap-console/kubectl-prefix info 2026-05-25T16:29:30Z "started" {pod=kamaji-0/manager}
           L5 text/github-actions error - collected 2026-04-25T05:18:16.2685185Z "##[error]Process completed with exit code 1."
           L6 zap-console/name-prefix info 2026-08-06T08:44:27Z "reconciling dragonfly instance" {controller=Dragonfly}"###,
    );
}

/// `stern` writes a pod's and a container's name before each line;
/// `kubectl logs --prefix=false` piped through a tool may leave one name.
/// Both are peeled whatever the line under them (klog, zap JSON), and a
/// name followed by words is no name column.
#[test]
fn name_columns_before_klog_and_json_lines() {
    check(
        "kamaji-7d9-x2 manager I1213 21:12:29.976211       1 leaderelection.go:260] successfully acquired lease kamaji-system/799b98bc.clastix.io\n\
kamaji-7d9-x2 manager {\"level\":\"info\",\"ts\":\"2023-12-13T21:12:30.077Z\",\"msg\":\"Starting workers\",\"controller\":\"tcp\",\"worker count\":1}\n\
manager I1213 21:12:31.5       1 main.go:9] one column\n\
kamaji said I1213 was fine\n",
        r#"L1 klog/name-prefix info 2000-12-13T21:12:29.976211Z "successfully acquired lease kamaji-system/799b98bc.clastix.io" {=leaderelection.go:260}
           L2 zap-json/name-prefix info 2023-12-13T21:12:30.077Z "Starting workers" {controller=tcp, worker count=1}
           L3 klog/name-prefix info 2000-12-13T21:12:31.5Z "one column" {=main.go:9}
           L4 unparsed unknown - "kamaji said I1213 was fine""#,
    );
}

#[test]
fn tracebacks_blank_lines_and_unparsed() {
    check(
        "2024-07-26T07:18:29Z\tINFO\tObserved a panic in reconciler: boom\t{\"reconcileID\": \"3f\"}\n\
panic: runtime error: index out of range [0] with length 0 [recovered]\n\
\tpanic: runtime error: index out of range [0] with length 0\n\
\n\
goroutine 594 [running]:\n\
sigs.k8s.io/controller-runtime/pkg/internal/controller.(*Controller).Reconcile.func1()\n\
\t/go/pkg/mod/sigs.k8s.io/controller-runtime@v0.18.4/pkg/internal/controller/controller.go:111 +0x1e5\n\
[upload-config] Storing the configuration\r\n\
time=\"2021-03-30T03:39:38Z\" level=info msg=\"STATUS: Healthy\"\n\
INFO[2022-04-26T16:27:00.030902332+08:00] Reconciling bootstrap data \n",
        r#"L1 zap-console info 2024-07-26T07:18:29Z "Observed a panic in reconciler: boom" {reconcileID=3f}
           L2+5 go-traceback fatal - "panic: runtime error: index out of range [0] with length 0 [recovered]"
           L8 unparsed unknown - "[upload-config] Storing the configuration"
           L9 logrus info 2021-03-30T03:39:38Z "STATUS: Healthy"
           L10 logrus info 2022-04-26T08:27:00.030902332Z "Reconciling bootstrap data""#,
    );
}

#[test]
fn lines_indented_as_a_whole_are_read_after_their_indent() {
    // Ginkgo indents the output it captured (kueue's envtest log, PR
    // #6304); a stack under an error line, a dump's frames and the lines
    // of a message printed over many lines stay where they belong. (Each
    // line apart: a string's line continuation would eat the indents.)
    let lines = [
        "  2025-07-31T15:31:47.02217+02:00\tLEVEL(-2)\tcore/workload_controller.go:157\tReconcile Workload\t{\"controller\": \"workload_controller\", \"reconcileID\": \"7d\"}",
        "  2025-07-31T15:31:47.02246+02:00\tLEVEL(-2)\tlocalqueue-reconciler\tcore/localqueue_controller.go:228\tQueue update event",
        "    I0731 13:31:49.000001       1 leaderelection.go:250] attempting to acquire leader lease",
        "\t{\"level\":\"error\",\"ts\":\"2025-07-31T13:31:48Z\",\"msg\":\"Reconciler error\",\"reconcileID\":\"8e\"}",
        "\tsigs.k8s.io/controller-runtime/pkg/internal/controller.(*Controller).reconcileHandler",
        "\t\t/go/pkg/mod/sigs.k8s.io/controller-runtime@v0.18.4/pkg/internal/controller/controller.go:316",
        "  2025-07-31T15:31:50+02:00 this line is text after a time",
        "    level=info msg=\"no time here\"",
        "  2025-07-31T15:31:51+02:00\tERROR\tReconciler error\t{\"reconcileID\": \"9f\", \"error\": \"boom\"}",
        "  sigs.k8s.io/controller-runtime/pkg/internal/controller.(*Controller).reconcileHandler",
        "  \t/go/pkg/mod/sigs.k8s.io/controller-runtime@v0.18.4/pkg/internal/controller/controller.go:316",
        "  2025-07-31T15:31:52+02:00\tINFO\tafter the stack",
        // CRI lines pasted in a Markdown list (kueue #2463): each line of a
        // stack carries its own CRI prefix.
        "  2024-06-17T15:28:01.547941Z stderr F 2024-06-17T15:28:01.547834Z\tLEVEL(-2)\tjobframework/reconciler.go:308\tReconciling Job\t{\"reconcileID\": \"ea\"}",
        "  2024-06-17T15:28:01.564131Z stderr F 2024-06-17T15:28:01.564014Z\tERROR\tcontroller/controller.go:329\tReconciler error\t{\"reconcileID\": \"ea\"}",
        "  2024-06-17T15:28:01.564132Z stderr F sigs.k8s.io/controller-runtime/pkg/internal/controller.(*Controller).reconcileHandler",
        "  2024-06-17T15:28:01.564133Z stderr F \t/go/pkg/mod/sigs.k8s.io/controller-runtime@v0.18.4/pkg/internal/controller/controller.go:329",
        "  2024-06-17T15:28:01.569550Z stderr F 2024-06-17T15:28:01.569426Z\tLEVEL(-2)\tjobframework/reconciler.go:308\tReconciling Job\t{\"reconcileID\": \"5a\"}",
    ];
    check(
        &(lines.join("\n") + "\n"),
        r#"L1 zap-console debug 2025-07-31T13:31:47.02217Z "Reconcile Workload" {controller=workload_controller, reconcileID=7d, =core/workload_controller.go:157}
           L2 zap-console debug 2025-07-31T13:31:47.02246Z [localqueue-reconciler] "Queue update event" {=core/localqueue_controller.go:228}
           L3 klog info 2000-07-31T13:31:49.000001Z "attempting to acquire leader lease" {=leaderelection.go:250}
           L4+2 zap-json error 2025-07-31T13:31:48Z "Reconciler error" {reconcileID=8e}
           L7 unparsed unknown - "  2025-07-31T15:31:50+02:00 this line is text after a time"
           L8 unparsed unknown - "    level=info msg=\"no time here\""
           L9+2 zap-console error 2025-07-31T13:31:51Z "Reconciler error" {reconcileID=9f, error=boom}
           L12 zap-console info 2025-07-31T13:31:52Z "after the stack"
           L13 zap-console/cri debug 2024-06-17T15:28:01.547834Z collected 2024-06-17T15:28:01.547941Z "Reconciling Job" {reconcileID=ea, =jobframework/reconciler.go:308}
           L14+2 zap-console/cri error 2024-06-17T15:28:01.564014Z collected 2024-06-17T15:28:01.564131Z "Reconciler error" {reconcileID=ea, =controller/controller.go:329}
           L17 zap-console/cri debug 2024-06-17T15:28:01.569426Z collected 2024-06-17T15:28:01.569550Z "Reconciling Job" {reconcileID=5a, =jobframework/reconciler.go:308}"#,
    );
}

#[test]
fn counts_lossy_utf8_crlf_and_long_lines() {
    let mut input = b"2025-09-06T23:50:07Z\tINFO\tbad \xff byte\r\n\r\n".to_vec();
    input.extend_from_slice(b"2025-09-06T23:50:08Z\tINFO\t");
    input.extend(std::iter::repeat_n(b'x', 3 << 20));
    input.push(b'\n');
    let pf = parse_file("t.log", input, &ParseOptions::default());
    assert_eq!(pf.records.len(), 2);
    assert_eq!(pf.counts.invalid_utf8_lines, 1);
    assert_eq!(pf.counts.blank_lines, 1);
    assert_eq!(pf.counts.overlong_lines, 1);
    assert_eq!(pf.message(&pf.records[0]), "bad \u{fffd} byte");
    assert_eq!(pf.records[1].byte_len as usize, 3 + (3 << 20) + 23);
    assert_eq!(pf.records[0].level, Level::Info);
    assert!(pf.diagnostics.iter().any(|d| d.message.contains("not valid UTF-8")));
}

#[test]
fn years_come_from_other_files_nearest_the_turn_of_the_year() {
    let mut files = vec![
        parse_file("klog.log", b"I1231 23:59:59.000000       1 x.go:1] late\nI0101 00:00:01.000000       1 x.go:1] early\n".to_vec(), &ParseOptions::default()),
        parse_file("zap.log", b"2026-01-01T00:00:00Z\tINFO\tnew year\n".to_vec(), &ParseOptions::default()),
    ];
    resolve_years(&mut files);
    let t: Vec<String> = files[0].records.iter().map(|r| r.time.unwrap().to_string()).collect();
    assert_eq!(t, ["2025-12-31T23:59:59.000000Z", "2026-01-01T00:00:01.000000Z"]);
}

/// Lines copied from a terminal (`repair`): a shell command, a line
/// hard-wrapped at 64 columns, a k9s frame around a line wrapped at its
/// width, a `less` end.
const COPIED: &str = "$ kubectl logs -n kamaji-system deploy/kamaji\n\
2025-04-07T18:31:29Z    INFO    reconcile started    {\"controlle\n\
r\": \"tenantcontrolplane\", \"namespace\": \"tenant-root\", \"name\": \"k\n\
8s-1\", \"reconcileID\": \"040a71f8\"}\n\
┌───────────── Logs(kamaji-system/kamaji:manager)[tail] ─────────────┐\n\
│ 2025-04-07T18:31:30Z    ERROR    failed    {\"reconcileID\": \"9f1c\", │\n\
│ \"error\": \"etcd is not ready\"}                                      │\n\
└────────────────────────────────────────────────────────────────────┘\n\
(END)\n";

#[test]
fn threads_give_the_same_result() {
    // A mixed file over the parallel threshold, with stacks, dumps, docker
    // json (scratch spans) and klog, so cuts land among all of them.
    let block = "2025-09-06T23:51:03Z\tERROR\tfailed\t{\"reconcileID\": \"r1\", \"error\": \"x\"}\n\
github.com/a/b.(*T).M(0x1)\n\t/workspace/a.go:12 +0x1\n\
{\"log\":\"I0324 03:40:10.801139       1 x.go:1] \\\"m\\\" k=\\\"v\\\"\\n\",\"stream\":\"stderr\",\"time\":\"2020-03-24T03:40:10.801173872Z\"}\n\
panic: boom\n\ngoroutine 1 [running]:\nmain.main()\n\t/m.go:1 +0x1\n\
{\"level\":\"warn\",\"ts\":\"2025-10-08T05:54:14.522054Z\",\"msg\":\"retrying\",\"attempt\":0}\n\
not a log line \u{ff}\n\n";
    let mut input = Vec::new();
    while input.len() < (MIN_PARALLEL_BYTES * 3) {
        input.extend_from_slice(block.as_bytes());
        input.extend_from_slice(COPIED.as_bytes());
    }
    let three = ParseOptions { threads: 3, ..ParseOptions::default() };
    assert_eq!(split_points(&input, &three).len(), 4, "three pieces");
    let one = parse_file("t.log", input.clone(), &ParseOptions::default());
    let many = parse_file("t.log", input, &ParseOptions { threads: 3, ..ParseOptions::default() });
    assert_same(&one, &many);
}

#[test]
fn files_indented_as_a_whole_are_cut_for_threads() {
    // Indented lines with a caller column (`core/workload_controller.go:157`)
    // look like stack frames, yet start with a date: places to cut. Ginkgo's
    // capture (kueue #6304) and CRI lines in a Markdown list (kueue #2463),
    // each repeated over the parallel threshold.
    for name in ["console_kueue_envtest_ginkgo_indented_pr6304.log", "cri_kueue_v0.7_two_workload_controllers_indented_pr2463.log"] {
        let path = format!("{}/tests/corpus/controller-runtime/{name}", env!("CARGO_MANIFEST_DIR"));
        let block = std::fs::read(&path).unwrap();
        let mut input = Vec::new();
        while input.len() < MIN_PARALLEL_BYTES * 3 {
            input.extend_from_slice(&block);
        }
        let three = ParseOptions { threads: 3, ..ParseOptions::default() };
        assert_eq!(split_points(&input, &three).len(), 4, "{name}: three pieces");
        let one = parse_file(name, input.clone(), &ParseOptions::default());
        let many = parse_file(name, input, &three);
        assert_same(&one, &many);
    }
}

/// Two parses give the same records, fields, counts and diagnostics.
fn assert_same(one: &ParsedFile, many: &ParsedFile) {
    assert_eq!(one.counts, many.counts);
    assert_eq!(one.records.len(), many.records.len());
    for (a, b) in one.records.iter().zip(&many.records) {
        assert_eq!((a.line, a.line_count, a.offset, a.format, a.time), (b.line, b.line_count, b.offset, b.format, b.time));
        assert_eq!(one.message(a), many.message(b));
        let fa: Vec<_> = one.fields(a).iter().map(|f| (one.key(f).into_owned(), one.value(f).into_owned())).collect();
        let fb: Vec<_> = many.fields(b).iter().map(|f| (many.key(f).into_owned(), many.value(f).into_owned())).collect();
        assert_eq!(fa, fb);
    }
    assert_eq!(one.diagnostics, many.diagnostics);
    assert_eq!(one.bytes, many.bytes);
}

#[test]
fn streaming_gives_the_same_result() {
    // The mixed file of `threads_give_the_same_result`, pushed in slices
    // of odd sizes (cutting lines, CRLFs and UTF-8 sequences anywhere).
    let block = "2025-09-06T23:51:03Z\tERROR\tfailed\t{\"reconcileID\": \"r1\", \"error\": \"x\"}\r\n\
github.com/a/b.(*T).M(0x1)\n\t/workspace/a.go:12 +0x1\n\
2022-11-21T02:50:53.1Z stderr P {\"level\":\"info\",\"ts\":\"2022-11-21T02:50:53.905Z\",\n\
2022-11-21T02:50:53.3Z stderr F \"msg\":\"became leader at term 5\"}\n\
panic: boom\n\ngoroutine 1 [running]:\nmain.main()\n\t/m.go:1 +0x1\n\
{\"level\":\"warn\",\"ts\":\"2025-10-08T05:54:14.522054Z\",\"msg\":\"retrying\",\"attempt\":0}\n\
not a log line \u{ff} é\n\n\
{\n  \"level\": \"info\",\n  \"ts\": \"2025-01-24T11:50:36+01:00\",\n  \"msg\": \"printed by jq\",\n  \"SlurmCluster\": {\n    \"name\": \"slurm\"\n  },\n  \"reconcileID\": \"r2\"\n}\n";
    let mut input = Vec::new();
    while input.len() < 5 * STREAM_PIECE_BYTES {
        input.extend_from_slice(block.as_bytes());
        input.extend_from_slice(COPIED.as_bytes());
    }
    input.extend_from_slice(b"last line without a break");
    let whole = parse_file("t.log", input.clone(), &ParseOptions::default());
    for slice in [1_000_003usize, 4 << 20, 16 << 20] {
        let mut sp = StreamParser::new("t.log", input.len(), &ParseOptions::default());
        for piece in input.chunks(slice) {
            sp.push(piece);
        }
        assert!(sp.pieces > 1, "it parsed while reading ({slice})");
        assert_same(&whole, &sp.finish());
    }
    // Nothing pushed: an empty file.
    let empty = StreamParser::new("e.log", 0, &ParseOptions::default()).finish();
    assert_same(&parse_file("e.log", Vec::new(), &ParseOptions::default()), &empty);
    // Packed as it is parsed: the same records, read back from chunks.
    for slice in [1_000_003usize, 16 << 20] {
        let mut sp = StreamParser::packed("t.log", input.len(), &ParseOptions::default());
        for piece in input.chunks(slice) {
            sp.push(piece);
        }
        assert!(sp.pieces > 1 && sp.bytes.len() < 3 * STREAM_PIECE_BYTES, "it packed while reading ({slice})");
        let packed = sp.finish();
        assert!(packed.bytes.plain().is_none() && packed.bytes.as_packed().is_some_and(|p| p.packed_len() < input.len() / 4));
        assert_same(&whole, &packed);
        testing::assert_same_parse(&whole, &packed, "packed");
    }
    let empty = StreamParser::packed("e.log", 0, &ParseOptions::default()).finish();
    assert_same(&parse_file("e.log", Vec::new(), &ParseOptions::default()), &empty);
}

/// Packed in small pieces (cut at every kind of record boundary: stacks,
/// dumps, CRI pieces, printed JSON, terminal copies; a cut looks up to 1,000
/// lines ahead, so a piece is at least that), with the parser's options
/// each way: the same parse as the whole file.
#[test]
fn packing_in_small_pieces_gives_the_same_result() {
    let mut input = mixed_file(3 << 20);
    // A name column seen (`kubectl logs --prefix`-like viewers) is peeled
    // from the lines after it: what the parser carries past a cut.
    for i in 0..20_000 {
        input.extend_from_slice(
            format!("manager 2025-09-06T23:51:{:02}Z\tERROR\tfailed {i}\t{{\"reconcileID\": \"r{}\"}}\nmanager github.com/a/b.(*T).M(0x1)\n", i % 60, i % 7)
                .as_bytes(),
        );
        input.extend_from_slice(format!("2025-09-06T23:52:{:02}Z\tINFO\tunprefixed {i}\nmanager words after the column {i}\n", i % 60).as_bytes());
    }
    input.extend_from_slice(b"last line without a break");
    for opts in [
        ParseOptions::default(),
        ParseOptions { keep_fields: true, ..ParseOptions::default() },
        ParseOptions { keep_first_fields: true, ..ParseOptions::default() },
    ] {
        let whole = parse_file("t.log", input.clone(), &opts);
        for (piece, slice) in [(100_000, 997), (150_001, 4096), (300_000, 1 << 20)] {
            let mut sp = StreamParser::packed("t.log", 0, &opts).with_piece_bytes(piece);
            for s in input.chunks(slice) {
                sp.push(s);
            }
            assert!(sp.pieces > 2, "{piece}: {} pieces", sp.pieces);
            let packed = sp.finish();
            testing::assert_same_parse(&whole, &packed, &format!("packed in pieces of {piece}, slices of {slice}"));
        }
    }
    // Cut to its last line (a cap), packed or not: the same.
    let cut_at = input.len() / 3;
    let (mut plain, mut packed) =
        (StreamParser::new("t.log", 0, &ParseOptions::default()), StreamParser::packed("t.log", 0, &ParseOptions::default()).with_piece_bytes(100_000));
    for sp in [&mut plain, &mut packed] {
        sp.push(&input[..cut_at]);
        sp.cut_to_last_line();
    }
    assert_eq!(plain.len(), packed.len());
    testing::assert_same_parse(&plain.finish(), &packed.finish(), "cut");
}

#[test]
fn cri_partial_pieces_are_one_record() {
    check(
        "2022-11-21T02:50:53.1Z stderr P {\"level\":\"info\",\"ts\":\"2022-11-21T02:50:53.905Z\",\n\
2022-11-21T02:50:53.2Z stderr P \"logger\":\"raft\",\n\
2022-11-21T02:50:53.3Z stderr F \"msg\":\"became leader at term 5\"}\n\
2022-11-21T02:50:54.4Z stdout P plain text \n\
2022-11-21T02:50:54.5Z stdout F continued\n",
        r#"L1+2 zap-json/cri info 2022-11-21T02:50:53.905Z collected 2022-11-21T02:50:53.1Z [raft] "became leader at term 5"
           L4+1 text/cri unknown - collected 2022-11-21T02:50:54.4Z "plain text continued""#,
    );
}

#[test]
fn cri_partial_pieces_indented_as_a_whole_are_one_record() {
    // The pieces of `cri_partial_pieces_are_one_record`, pasted in a
    // Markdown list (as the mirror of kueue #2463 in the corpus is): the
    // same records.
    let lines = [
        "  2022-11-21T02:50:53.1Z stderr P {\"level\":\"info\",\"ts\":\"2022-11-21T02:50:53.905Z\",",
        "  2022-11-21T02:50:53.2Z stderr P \"logger\":\"raft\",",
        "  2022-11-21T02:50:53.3Z stderr F \"msg\":\"became leader at term 5\"}",
        "  2022-11-21T02:50:54.4Z stdout P plain text ",
        "  2022-11-21T02:50:54.5Z stdout F continued",
    ];
    check(
        &(lines.join("\n") + "\n"),
        r#"L1+2 zap-json/cri info 2022-11-21T02:50:53.905Z collected 2022-11-21T02:50:53.1Z [raft] "became leader at term 5"
           L4+1 text/cri unknown - collected 2022-11-21T02:50:54.4Z "plain text continued""#,
    );
}

/// A file of every kind of line (stacks, dumps, CRI pieces and docker
/// json-file in scratch, klog, CRLF, bad UTF-8, blank lines, a cut JSON
/// line, lines copied from a terminal, a cut last line), `len` bytes or a
/// little more.
fn mixed_file(len: usize) -> Vec<u8> {
    let block = "2025-09-06T23:51:03Z\tERROR\tfailed\t{\"reconcileID\": \"r1\", \"error\": \"x\"}\r\n\
github.com/a/b.(*T).M(0x1)\n\t/workspace/a.go:12 +0x1\n\
2022-11-21T02:50:53.1Z stderr P {\"level\":\"info\",\"ts\":\"2022-11-21T02:50:53.905Z\",\n\
2022-11-21T02:50:53.3Z stderr F \"msg\":\"became leader at term 5\"}\n\
{\"log\":\"I0324 03:40:10.801139       1 x.go:1] \\\"m\\\" k=\\\"v\\\"\\n\",\"stream\":\"stderr\",\"time\":\"2020-03-24T03:40:10.801173872Z\"}\n\
panic: boom\n\ngoroutine 1 [running]:\nmain.main()\n\t/m.go:1 +0x1\n\
{\"level\":\"warn\",\"ts\":\"2025-10-08T05:54:14.522054Z\",\"msg\":\"retrying\",\"attempt\":0}\n\
{\"level\":\"info\",\"ts\":\"2025-10-08T05:54:15Z\",\"msg\":\"cut\n\
not a log line \u{ff} é\n\n\
{\n  \"level\": \"info\",\n  \"ts\": \"2025-01-24T11:50:36+01:00\",\n  \"msg\": \"printed by jq\",\n  \"SlurmCluster\": {\n    \"name\": \"slurm\"\n  },\n  \"reconcileID\": \"r2\"\n}\n";
    let mut input = Vec::new();
    while input.len() < len {
        input.extend_from_slice(block.as_bytes());
        input.extend_from_slice(COPIED.as_bytes());
    }
    input.extend_from_slice(b"{\"level\":\"info\",\"ts\":\"2025-10-08T05:54:15Z\",\"msg\":\"the last line, cut");
    input
}

/// The same records (every field, spans included), fields and scratch.
fn assert_identical(one: &ParsedFile, two: &ParsedFile) {
    testing::assert_same_parse(one, two, "");
}

/// [`testing::parse_split`] with the default options.
fn parse_split(input: &[u8], tail_from: usize, slice: usize) -> ParsedFile {
    testing::parse_split(input, tail_from, slice, &ParseOptions::default())
}

#[test]
fn a_file_split_at_any_byte_parses_the_same() {
    let input = mixed_file(2_000);
    let whole = parse_file("t.log", input.clone(), &ParseOptions::default());
    for repaired in ["hard-wrapped at 64-66 columns", "a terminal frame was removed", "shell commands", "the last line is cut mid-record"] {
        assert!(whole.diagnostics.iter().any(|d| d.message.contains(repaired)), "{repaired}: {:?}", whole.diagnostics);
    }
    for tail_from in 1..input.len() {
        assert_identical(&whole, &parse_split(&input, tail_from, 97));
    }
}

#[test]
fn a_big_split_file_parses_the_same_while_both_halves_arrive() {
    let input = mixed_file(5 * STREAM_PIECE_BYTES);
    let whole = parse_file("t.log", input.clone(), &ParseOptions::default());
    for (tail_from, slice) in [(input.len() / 2, 1 << 20), (input.len() / 3 + 7, 3_000_017)] {
        assert_identical(&whole, &parse_split(&input, tail_from, slice));
    }
}

#[test]
fn without_a_fitting_piece_the_head_parser_parses_the_tail() {
    let input = mixed_file(50_000);
    let whole = parse_file("t.log", input.clone(), &ParseOptions::default());
    let opts = ParseOptions::default();
    let from = input.len() / 2;
    let full = |piece: Option<Vec<u8>>| {
        let mut main = StreamParser::split("t.log", input.len(), from, &opts).unwrap();
        main.push(&input[..from]);
        main.write(from, &input[from..]).unwrap();
        main.finish_with(piece.as_deref())
    };
    let piece_from = |at: usize, bytes: &[u8]| {
        let mut p = PieceParser::new(at as u64, bytes.len(), &opts);
        p.push(bytes);
        p.finish()
    };
    // Bytes that are not a piece.
    assert_identical(&whole, &full(Some(b"not a piece".to_vec())));
    // No piece (the helper failed).
    assert_identical(&whole, &full(None));
    // A piece of another place in the file, or of fewer bytes.
    assert_identical(&whole, &full(Some(piece_from(from + 1, &input[from + 1..]).encode())));
    assert_identical(&whole, &full(Some(piece_from(from, &input[from..input.len() - 1]).encode())));
    // A tail with no line that is a record of its own in 10,000 lines:
    // the piece has no cut, and the head's parser parses it all.
    let mut dump = b"panic: boom\n\ngoroutine 1 [running]:\n".to_vec();
    while dump.len() < 400_000 {
        dump.extend_from_slice(b"main.f()\n\t/m.go:1 +0x1\n");
    }
    let piece = piece_from(10, &dump[10..]);
    assert_eq!(piece.cut(), None);
    let mut main = StreamParser::split("d.log", dump.len(), 10, &opts).unwrap();
    main.push(&dump[..10]);
    main.write(10, &dump[10..]).unwrap();
    assert_identical(&parse_file("d.log", dump.clone(), &opts), &main.finish_with(Some(&piece.encode())));
}

#[test]
fn split_files_take_bytes_only_in_order_and_say_when_some_are_missing() {
    let input = mixed_file(10_000);
    let opts = ParseOptions::default();
    assert!(StreamParser::split("t.log", input.len(), 0, &opts).is_none());
    assert!(StreamParser::split("t.log", input.len(), input.len(), &opts).is_none());
    let from = 6_000;
    let mut main = StreamParser::split("t.log", input.len(), from, &opts).unwrap();
    assert_eq!(main.write(10, &input[10..20]), Err(OutOfOrder { offset: 10 }));
    assert_eq!(main.write(from + 1, &input[from + 1..from + 2]), Err(OutOfOrder { offset: from as u64 + 1 }));
    main.write(0, &input[..from - 100]).unwrap();
    // The head may not run into the tail, nor the tail past the end.
    assert!(main.write(from - 100, &input[from - 100..from + 1]).is_err());
    main.write(from, &input[from..]).unwrap();
    assert!(main.write(input.len(), b"x").is_err());
    assert!(!main.is_complete());
    assert_eq!(main.received(), input.len() - 100);
    // 100 bytes of the head never came: the file is what arrived in order.
    let cut = main.finish_with(None);
    assert_eq!(cut.bytes.plain(), Some(&input[..from - 100]));
    assert!(cut.diagnostics.iter().any(|d| d.message == format!("only the first {} of its {} bytes arrived", from - 100, input.len())));
}

#[test]
fn bad_piece_bytes_are_an_error_not_a_panic() {
    let input = mixed_file(3_000);
    let mut p = PieceParser::new(100, input.len() - 100, &ParseOptions::default());
    p.push(&input[100..]);
    let bytes = p.finish().encode();
    assert!(Piece::check(&bytes).is_ok());
    for n in 0..bytes.len() {
        assert!(Piece::check(&bytes[..n]).is_err(), "cut at {n}");
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(Piece::check(&longer).is_err());
    // Every byte flipped in turn: an error, or a piece that joins without
    // a panic (its spans may point anywhere; reading them is checked).
    let whole = parse_file("t.log", input.clone(), &ParseOptions::default());
    for i in 0..bytes.len() {
        let mut bad = bytes.clone();
        bad[i] ^= 0xa5;
        let mut main = StreamParser::split("t.log", input.len(), 100, &ParseOptions::default()).unwrap();
        main.push(&input[..100]);
        main.write(100, &input[100..]).unwrap();
        let pf = main.finish_with(Some(&bad));
        if Piece::check(&bad).is_err() {
            assert_identical(&whole, &pf);
        }
        for r in &pf.records {
            let _ = (pf.message(r), pf.raw(r), pf.fields(r).len());
        }
    }
}

/// One line with an impossible timestamp: `expect` is its record (as
/// [`render`] writes it), and the file gets one note on line 1.
fn check_impossible(input: &str, expect: &str) {
    check(input, expect);
    let pf = parse_file("t.log", input.as_bytes().to_vec(), &ParseOptions::default());
    let notes: Vec<String> = pf.diagnostics.iter().map(|d| d.to_string()).collect();
    assert_eq!(notes.len(), 1, "{input}: {notes:?}");
    assert!(notes[0].starts_with("t.log:1: timestamp is impossible"), "{input}: {notes:?}");
    assert_eq!(pf.counts.impossible_times, 1, "{input}");
}

#[test]
fn impossible_timestamps_are_records_without_a_time() {
    for (input, expect) in [
        // RFC3339 / ISO8601 forms
        ("2025-02-31T10:00:00Z\tINFO\tm", r#"L1 zap-console info - "m""#),
        ("2025-02-30T10:00:00.123Z\tINFO\tm", r#"L1 zap-console info - "m""#),
        ("2025-04-31T10:00:00.123+02:00\tERROR\tboom", r#"L1 zap-console error - "boom""#),
        ("2025-02-29T10:00:00Z\tINFO\tnot a leap year", r#"L1 zap-console info - "not a leap year""#),
        ("2025-13-01T10:00:00Z\tINFO\tm", r#"L1 zap-console info - "m""#),
        ("2025-01-10T24:00:00Z\tINFO\tm", r#"L1 zap-console info - "m""#),
        ("2025-01-10T24:00:00Z    INFO    tabs lost", r#"L1 zap-console info - "tabs lost""#),
        ("2025-01-10T25:00:00Z\tINFO\tm", r#"L1 zap-console info - "m""#),
        ("2025-01-10T10:60:00Z\tINFO\tm", r#"L1 zap-console info - "m""#),
        ("2025-01-10T10:00:61Z\tINFO\tm", r#"L1 zap-console info - "m""#),
        ("4052-01-10T10:00:00Z\tINFO\tfar", r#"L1 zap-console info - "far""#),
        ("1600-01-10T10:00:00Z\tINFO\tfar", r#"L1 zap-console info - "far""#),
        (r#"{"level":"info","ts":"2025-02-31T10:00:00.000Z","msg":"m"}"#, r#"L1 zap-json info - "m""#),
        (r#"{"level":"info","ts":"4052-02-01T10:00:00.000000+0530","msg":"m"}"#, r#"L1 zap-json info - "m""#),
        (r#"{"level":"info","ts":99999999999999999999,"msg":"m"}"#, r#"L1 zap-json info - "m""#),
        ("2025-13-01 10:00:00.000001 I | raft: m", r#"L1 etcd-capnslog info - [raft] "m""#),
        ("INFO[2025-02-31T10:00:00Z] m", r#"L1 logrus info - "m""#),
        ("time=2025-02-31T10:00:00Z level=info msg=m", r#"L1 logrus info - "m""#),
        ("2009/02/30 23:00:00 m", r#"L1 go-log info - "m""#),
        // yearless: klog, journald/syslog
        ("I0230 10:00:00.000000       1 main.go:10] m", r#"L1 klog info - "m" {=main.go:10}"#),
        ("E0431 10:00:00.000000       1 main.go:10] m", r#"L1 klog error - "m" {=main.go:10}"#),
        ("I0101 24:00:00.000000       1 main.go:10] m", r#"L1 klog info - "m" {=main.go:10}"#),
        ("Feb 30 10:00:00 host etcd[1]: m", r#"L1 journald unknown - [etcd] "m" {=host}"#),
        ("Apr 29 25:00:00 host etcd[1]: m", r#"L1 journald unknown - [etcd] "m" {=host}"#),
        // wrapper times: kubectl --timestamps, CRI, GitHub Actions, docker json-file
        ("2025-02-31T10:00:00.123456789Z plain text", r#"L1 text/kubectl-timestamps unknown - "plain text""#),
        ("2025-02-31T10:00:00.123456789Z 2026-05-25T16:29:29Z\tINFO\tm", r#"L1 zap-console/kubectl-timestamps info 2026-05-25T16:29:29Z "m""#),
        ("2025-02-31T10:00:00.1234567Z ##[error]boom", r###"L1 text/github-actions error - "##[error]boom""###),
        ("2025-04-31T10:00:00.12345Z stdout F hello", r#"L1 text/cri unknown - "hello""#),
        ("2025-04-31T10:00:00.12345Z stdout P hel\n2025-04-31T10:00:00.12346Z stdout F lo", r#"L1+1 text/cri unknown - "hello""#),
        // a viewer's M/D/YYYY column glued before the line
        ("2/30/2024 1:02:03 AM2026-05-25T16:29:30Z\tINFO\tm", r#"L1 zap-console/timestamp-prefix info 2026-05-25T16:29:30Z "m""#),
        (r#"{"log":"hello\n","stream":"stdout","time":"2025-02-31T10:00:00.1Z"}"#, r#"L1 text/docker-json unknown - "hello" {stream=stdout}"#),
    ] {
        check_impossible(input, expect);
    }
}

#[test]
fn possible_edge_timestamps_are_times() {
    check(
        "2024-02-29T10:00:00Z\tINFO\tleap day\n\
2025-01-10T23:59:60Z\tINFO\tleap second\n\
1678-01-01T00:00:00Z\tINFO\tfirst year\n\
2262-04-11T00:00:00Z\tINFO\tlast day\n\
2/29/2024 1:02:03 PM2026-05-25T16:29:30Z\tINFO\tm\n",
        r#"L1 zap-console info 2024-02-29T10:00:00Z "leap day"
           L2 zap-console info 2025-01-11T00:00:00Z "leap second"
           L3 zap-console info 1678-01-01T00:00:00Z "first year"
           L4 zap-console info 2262-04-11T00:00:00Z "last day"
           L5 zap-console/timestamp-prefix info 2026-05-25T16:29:30Z collected 2024-02-29T13:02:03Z "m""#,
    );
}

#[test]
fn impossible_timestamps_get_one_note_per_file_naming_the_first() {
    let input = "2025-01-10T10:00:00Z\tINFO\tfine\n\
2025-02-31T10:00:00Z\tINFO\tfirst\n\
4052-01-10T10:00:00Z\tINFO\tsecond\n\
2025-01-10T10:00:01Z\tINFO\tfine\n\
I0230 10:00:00.000000       1 main.go:10] third\n";
    check(
        input,
        r#"L1 zap-console info 2025-01-10T10:00:00Z "fine"
           L2 zap-console info - "first"
           L3 zap-console info - "second"
           L4 zap-console info 2025-01-10T10:00:01Z "fine"
           L5 klog info - "third" {=main.go:10}"#,
    );
    let pf = parse_file("t.log", input.as_bytes().to_vec(), &ParseOptions::default());
    let notes: Vec<String> = pf.diagnostics.iter().map(|d| d.to_string()).collect();
    assert_eq!(
        notes,
        ["t.log:2: timestamp is impossible: not a calendar date and time (Feb 30, hour 24, ...) or outside the years 1678-2262; 3 lines in all (this is the first) are kept without a time"]
    );
    // The same on many threads (the pieces' counts add up, one note).
    let big: String = input.repeat(30_000);
    let one = parse_file("t.log", big.as_bytes().to_vec(), &ParseOptions::default());
    let many = parse_file("t.log", big.as_bytes().to_vec(), &ParseOptions { threads: 4, ..ParseOptions::default() });
    assert_eq!(one.counts.impossible_times, 90_000);
    assert_same(&one, &many);
}

#[test]
fn a_leap_day_without_a_year_needs_a_leap_year() {
    let mut files = vec![parse_file("klog.log", b"I0229 10:00:00.000000       1 x.go:1] leap\n".to_vec(), &ParseOptions::default())];
    files[0].file_mtime_secs = Some(1_748_736_000); // 2025-06-01
    resolve_years(&mut files);
    assert_eq!(files[0].records[0].time, None);
    let notes: Vec<String> = files[0].diagnostics.iter().map(|d| d.to_string()).collect();
    assert!(notes.iter().any(|n| n.starts_with("klog.log:1: timestamp is impossible: Feb 29")), "{notes:?}");
    let mut files = vec![parse_file("klog.log", b"I0229 10:00:00.000000       1 x.go:1] leap\n".to_vec(), &ParseOptions::default())];
    files[0].file_mtime_secs = Some(1_717_200_000); // 2024-06-01
    resolve_years(&mut files);
    assert_eq!(files[0].records[0].time.map(|t| t.to_string()).as_deref(), Some("2024-02-29T10:00:00.000000Z"));
}

#[test]
fn a_leap_day_takes_the_year_nearest_its_reference_or_none() {
    // Collected on 2025-03-01: the nearest Feb 29 would be 2025's, which
    // has none (2024's is a year away): no time, and the note.
    check(
        "2025-03-01T00:00:00.000000000Z I0229 23:59:00.000000       1 x.go:1] late\n\
2024-03-01T00:00:00.000000000Z I0229 23:59:00.000000       1 x.go:1] leap\n",
        r#"L1 klog/kubectl-timestamps info - collected 2025-03-01T00:00:00.000000000Z "late" {=x.go:1}
           L2 klog/kubectl-timestamps info 2024-02-29T23:59:00.000000Z collected 2024-03-01T00:00:00.000000000Z "leap" {=x.go:1}"#,
    );
}

#[test]
fn json_logs_with_any_common_key_set() {
    check(
        r#"{"Timestamp":"2026-05-26T16:29:30.123456+02:00","message":"Reconciling","reconcileID":"r1"}
{"time":"2026-05-26T16:29:30.123Z","level":"INFO","msg":"slog json","controller":"tcp"}
{"level":"info","msg":"logrus json","time":"2026-05-26T16:29:30+02:00"}
{"ts":1716000000.123456,"v":0,"msg":"klog json"}
{"ts":1716000000123,"level":"debug","msg":"epoch millis"}
{"time":"1716000000123456","level":"warn","msg":"epoch micros as a string"}
{"timestamp":1716000000123456789,"severity":"ERROR","message":"epoch nanos"}
{"@timestamp":"2026-05-26T16:29:30.1Z","Level":"Warning","Message":"capitalised"}
{"T":"2026-05-26T16:29:30.000Z","L":"INFO","N":"setup","M":"zap development keys"}
{"time":"2026-05-26T16:29:30Z","level":"info","name":"my-app","msg":"name is the logger"}
{"level":"info","ts":"2026-05-26T16:29:30Z","msg":"Reconciling","controller":"tcp","namespace":"ns","name":"obj","reconcileID":"r2"}"#,
        r#"L1 zap-json unknown 2026-05-26T14:29:30.123456Z "Reconciling" {reconcileID=r1}
           L2 zap-json info 2026-05-26T16:29:30.123Z "slog json" {controller=tcp}
           L3 zap-json info 2026-05-26T14:29:30Z "logrus json"
           L4 zap-json unknown 2024-05-18T02:40:00.123456Z "klog json" {v=0}
           L5 zap-json debug 2024-05-18T02:40:00.123Z "epoch millis"
           L6 zap-json warn 2024-05-18T02:40:00.123456Z "epoch micros as a string"
           L7 zap-json error 2024-05-18T02:40:00.123456789Z "epoch nanos"
           L8 zap-json warn 2026-05-26T16:29:30.1Z "capitalised"
           L9 zap-json info 2026-05-26T16:29:30.000Z [setup] "zap development keys"
           L10 zap-json info 2026-05-26T16:29:30Z [my-app] "name is the logger" {name=my-app}
           L11 zap-json info 2026-05-26T16:29:30Z "Reconciling" {controller=tcp, namespace=ns, name=obj, reconcileID=r2}"#,
    );
    let pf = parse_file("t.log", br#"{"Timestamp":"2026-05-26T16:29:30Z","message":"Reconciling","reconcileID":"r1"}"#.to_vec(), &ParseOptions::default());
    assert_eq!(pf.text(pf.records[0].reconcile_id), "r1");
}

#[test]
fn slog_text_and_logfmt_lines() {
    check(
        r#"time=2026-05-26T16:29:30.123Z level=INFO msg="Reconciling" controller=tenantcontrolplane namespace=ns name=obj reconcileID=7d1c-1
time=2026-05-26T16:29:31.5+02:00 level=ERROR msg="Reconciler error" controller=tenantcontrolplane reconcileID=7d1c-1 error="boom \"x\""
ts=2026-05-26T16:29:32Z level=warn logger=setup msg=go-kit
ts=1716000000.5 level=debug msg="epoch seconds""#,
        r#"L1 logrus info 2026-05-26T16:29:30.123Z "Reconciling" {controller=tenantcontrolplane, namespace=ns, name=obj, reconcileID=7d1c-1}
           L2 logrus error 2026-05-26T14:29:31.5Z "Reconciler error" {controller=tenantcontrolplane, reconcileID=7d1c-1, error=boom "x"}
           L3 logrus warn 2026-05-26T16:29:32Z [setup] "go-kit"
           L4 logrus debug 2024-05-18T02:40:00.5Z "epoch seconds""#,
    );
    let pf = parse_file(
        "t.log",
        b"time=2026-05-26T16:29:30.123Z level=INFO msg=\"Reconciling\" controller=tcp reconcileID=7d1c-1\n".to_vec(),
        &ParseOptions::default(),
    );
    assert_eq!(pf.text(pf.records[0].reconcile_id), "7d1c-1");
}

#[test]
fn inner_times_win_under_syslog_and_journald_prefixes() {
    // etcd's JSON under `journalctl -u etcd` / `systemctl status etcd`: the
    // prefix has no year and only seconds; the JSON has both.
    check(
        r#"Apr 23 08:04:00 node1 etcd[1234]: {"level":"info","ts":"2024-04-23T08:04:00.123456Z","caller":"raft/raft.go:923","msg":"8e9e05c52164694d is starting a new election at term 5"}
Dec 31 23:59:59 node1 etcd[1234]: {"level":"info","ts":"2025-01-01T00:00:00.5Z","msg":"x"}
Apr 23 08:04:01 node1 kubelet[812]: I0423 08:04:01.123456     812 kubelet.go:2194] "SyncLoop ADD" source="api"
Apr 23 08:04:02 node1 etcd[1234]: raft: 8e9e05c52164694d became leader at term 5
2024-04-23T08:04:03+0000 node1 etcd[1234]: {"level":"warn","ts":"2024-04-23T08:04:03.25Z","msg":"slow fdatasync"}
"#,
        r#"L1 zap-json/journald info 2024-04-23T08:04:00.123456Z collected 2024-04-23T08:04:00Z "8e9e05c52164694d is starting a new election at term 5" {caller=raft/raft.go:923}
           L2 zap-json/journald info 2025-01-01T00:00:00.5Z collected 2024-12-31T23:59:59Z "x"
           L3 klog/journald info 2000-04-23T08:04:01.123456Z "SyncLoop ADD" {=kubelet.go:2194, source=api}
           L4 journald unknown 2000-04-23T08:04:02Z [etcd] "raft: 8e9e05c52164694d became leader at term 5" {=node1}
           L5 zap-json/journald warn 2024-04-23T08:04:03.25Z collected 2024-04-23T08:04:03Z "slow fdatasync""#,
    );
}

/// Parses one file, moves its clocks as the loader does, and renders its
/// record times and notes: `t1 t2 ... | note`.
fn check_clocks(text: &str, expect: &str) {
    let mut f = vec![parse_file("x.log", text.as_bytes().to_vec(), &ParseOptions::default())];
    align_clocks(&mut f);
    let times: Vec<String> = f[0].records.iter().map(|r| r.time.map_or("-".into(), |t| t.to_string())).collect();
    let notes: Vec<&str> = f[0].diagnostics.iter().map(|d| d.message.as_str()).collect();
    assert_lines(&format!("{} | {}\n", times.join(" "), notes.join("; ")), expect);
}

#[test]
fn zoneless_lines_interleaved_with_utc_ones_move_onto_their_clock() {
    // etcd 3.3: capnslog in local time (UTC+8 here) with no zone, raft lines
    // as zap JSON with an epoch `ts` (after
    // tests/corpus/etcd/etcd33_capnslog_local_time_beside_epoch_json.log).
    const CAPNS: &str = "2019-01-19 15:30:43.746310 I | etcdserver: restarting member\n";
    const JSON: &str = "{\"level\":\"info\",\"ts\":1547883043.746382,\"msg\":\"became follower at term 2\"}\n";
    const LATER: &str = "2019-01-19 15:30:43.748731 W | auth: simple token\n";
    const JSON2: &str = "{\"level\":\"info\",\"ts\":1547883044.74815,\"msg\":\"elected leader at term 3\"}\n";
    const LAST: &str = "2019-01-19 15:30:44.748717 I | etcdserver: published\n";
    check_clocks(
        &[CAPNS, JSON, LATER, JSON2, LAST].concat(),
        "2019-01-19T07:30:43.746310Z 2019-01-19T07:30:43.746382Z 2019-01-19T07:30:43.748731Z 2019-01-19T07:30:44.74815Z 2019-01-19T07:30:44.748717Z \
         | its etcd capnslog lines carry no zone and read 8h00m ahead of its zap lines' UTC times beside them: they were moved onto that clock",
    );
    // Go's `log` too, behind UTC (UTC-5).
    check_clocks(
        "2024/01/29 11:04:41 http: panic serving\n2024-01-29T16:04:41.5Z\tINFO\tx\n2024/01/29 11:04:42 again\n",
        "2024-01-29T16:04:41Z 2024-01-29T16:04:41.5Z 2024-01-29T16:04:42Z \
         | its Go log lines carry no zone and read 5h00m behind its zap lines' UTC times beside them: they were moved onto that clock",
    );
    // One place where the kinds meet could be a real gap (a restart hours
    // later, logging the other way): nothing moves.
    // (So the capnslog lines' times rest on the offset assumed, UTC.)
    check_clocks(
        &[CAPNS, LATER, JSON2].concat(),
        "2019-01-19T15:30:43.746310Z 2019-01-19T15:30:43.748731Z 2019-01-19T07:30:44.74815Z \
         | 2 lines write their times with no zone (this is the first): they are read as UTC (if the logs were written in another zone, the CLI's --utc-offset reads them in it)",
    );
    // Already on one clock (the right --utc-offset, or a zone of UTC): nothing moves.
    check_clocks(
        "2019-01-19 07:30:43.746310 I | a\n{\"ts\":1547883043.746382,\"msg\":\"b\"}\n2019-01-19 07:30:43.748731 I | c\n",
        "2019-01-19T07:30:43.746310Z 2019-01-19T07:30:43.746382Z 2019-01-19T07:30:43.748731Z | ",
    );
    // Apart by no whole number of quarter hours: not a zone, nothing moves.
    check_clocks(
        "2019-01-19 07:37:43.7 I | a\n{\"ts\":1547883043.7,\"msg\":\"b\"}\n2019-01-19 07:37:43.8 I | c\n",
        "2019-01-19T07:37:43.7Z 2019-01-19T07:30:43.7Z 2019-01-19T07:37:43.8Z \
         | 2 lines write their times with no zone (this is the first): they are read as UTC (if the logs were written in another zone, the CLI's --utc-offset reads them in it)",
    );
}

/// Parses `(path, member mtime, file mtime, text)` files, gives their
/// yearless times a year, and renders each file's record times and its
/// year note: `path: t1 t2 ... | note`.
fn check_years(files: &[(&str, Option<i64>, Option<i64>, &str)], expect: &str) {
    let mut parsed: Vec<ParsedFile> = files
        .iter()
        .map(|&(path, member, file, text)| {
            let mut f = parse_file(path, text.as_bytes().to_vec(), &ParseOptions::default());
            f.mtime_secs = member;
            f.file_mtime_secs = file;
            f
        })
        .collect();
    resolve_years(&mut parsed);
    let mut got = String::new();
    for f in &parsed {
        let times: Vec<String> = f.records.iter().map(|r| r.time.map_or("-".into(), |t| t.to_string())).collect();
        let notes: Vec<&str> = f.diagnostics.iter().map(|d| d.message.as_str()).collect();
        got.push_str(&format!("{}: {} | {}\n", f.path, times.join(" "), notes.join("; ")));
    }
    assert_lines(&got, expect);
}

const KLOG_APR: &str = "I0423 08:04:00.000001       1 x.go:1] a\nI1231 23:59:59.5       1 x.go:1] b\n";

#[test]
fn years_come_from_dated_lines_nearest_in_the_same_file() {
    // Each yearless line takes the year of the dated line nearest it.
    check_years(
        &[("mixed.log", None, Some(0), "2023-12-31T23:59:58Z\tINFO\told\nI1231 23:59:59.000000       1 x.go:1] near the 2023 line\nI0101 00:00:01.000000       1 x.go:1] x\nI0101 00:00:02.000000       1 x.go:1] y\n2024-01-01T00:00:03Z\tINFO\tnew\n")],
        "mixed.log: 2023-12-31T23:59:58Z 2023-12-31T23:59:59.000000Z 2024-01-01T00:00:01.000000Z 2024-01-01T00:00:02.000000Z 2024-01-01T00:00:03Z | its times carry no year; the year was taken from the dated timestamps near them in the same file",
    );
}

#[test]
fn years_come_from_other_files_then_member_then_file_mtime() {
    // Another file's dates win over any modification time.
    check_years(
        &[("klog.log", Some(0), Some(0), KLOG_APR), ("zap.log", None, None, "2026-01-01T00:00:00Z\tINFO\tnew year\n")],
        "klog.log: 2026-04-23T08:04:00.000001Z 2025-12-31T23:59:59.5Z | its times carry no year; the year was taken from the dated timestamps of the other files in the input
         zap.log: 2026-01-01T00:00:00Z | ",
    );
    // An archive member's time (2024-06-01), before the archive file's (2030).
    check_years(
        &[("a.tgz!/klog.log", Some(1_717_200_000), Some(1_900_000_000), KLOG_APR)],
        "a.tgz!/klog.log: 2024-04-23T08:04:00.000001Z 2023-12-31T23:59:59.5Z | its times carry no year; each was given the latest year that puts it no later than the archive member's modification time (2024-06-01)",
    );
    // The file's own time (2025-01-02): a Dec 31 line is of the year before.
    check_years(
        &[("klog.log", None, Some(1_735_776_000), KLOG_APR)],
        "klog.log: 2024-04-23T08:04:00.000001Z 2024-12-31T23:59:59.5Z | its times carry no year; each was given the latest year that puts it no later than the file's modification time (2025-01-02)",
    );
    // A file with nothing of its own takes the year of one dated by its mtime.
    check_years(
        &[("a.log", None, None, KLOG_APR), ("b.log", None, Some(1_735_776_000), "I0423 09:00:00.000000       1 x.go:1] c\n")],
        "a.log: 2024-04-23T08:04:00.000001Z 2023-12-31T23:59:59.5Z | its times carry no year; the year was taken from the dated timestamps of the other files in the input
         b.log: 2024-04-23T09:00:00.000000Z | its times carry no year; each was given the latest year that puts it no later than the file's modification time (2025-01-02)",
    );
}

#[test]
fn without_any_year_source_times_have_no_year() {
    check_years(
        &[("journal.txt", None, None, "Apr 23 08:04:00 node1 etcd[1234]: raft: x\n")],
        "journal.txt: --04-23T08:04:00Z | its times carry no year and nothing in the input gives one (no dated line, no modification time): they are shown without a year",
    );
    let mut f = vec![parse_file("k.log", KLOG_APR.as_bytes().to_vec(), &ParseOptions::default())];
    resolve_years(&mut f);
    let t = f[0].records[0].time.unwrap();
    assert!(t.yearless && f[0].year_source == Some(YearSource::Unknown));
    assert_eq!(crate::time::format_date(t), "Apr 23");
}

#[test]
fn collector_tags_zap_v_levels_and_blank_dump_lines_under_cri() {
    // juju/pebble's `<time> [container] ` over a legacy console line (after
    // tests/corpus/controller-runtime/console_legacy_with_juju_prefix.log);
    // zap's `LEVEL(-2)` for logr's V(2); a dump's blank line under CRI.
    check(
        "2024-10-01T13:07:25.847Z [jupyter-controller] 1.7277880458479142e+09\tERROR\tcontroller.notebook\tReconciler error\t{\"name\": \"nb\"}\n\
2026-02-03T19:00:16.662074027Z stderr F 2026-02-03T19:00:16.661797884Z\tLEVEL(-2)\tadmission\tlogr@v1.4.2/logr.go:280\tApplying defaults\n\
2026-02-03T19:00:16.67870267Z stderr F fatal error: concurrent map writes\n\
2026-02-03T19:00:16.681953925Z stderr F \n\
2026-02-03T19:00:16.681965326Z stderr F goroutine 313 [running]:\n\
2026-02-03T19:00:16.681969566Z stderr F main.f(0xc00052e540)\n",
        r#"L1 zap-console/timestamp-prefix error 2024-10-01T13:07:25.847914Z collected 2024-10-01T13:07:25.847Z [controller.notebook] "Reconciler error" {name=nb}
           L2 zap-console/cri debug 2026-02-03T19:00:16.661797884Z collected 2026-02-03T19:00:16.662074027Z [admission] "Applying defaults" {=logr@v1.4.2/logr.go:280}
           L3+3 go-traceback/cri fatal - collected 2026-02-03T19:00:16.67870267Z "fatal error: concurrent map writes""#,
    );
}

#[test]
fn a_yearless_date_is_the_logs_own_at_its_offset() {
    // `Mar 1 00:30` at +01:00 is Feb 28 23:30 UTC in 2023: the year is
    // chosen for the date the log wrote, not the UTC one (Feb 29).
    let opts = ParseOptions { default_offset_secs: 3600, ..ParseOptions::default() };
    let mut files = vec![
        parse_file("klog.log", b"I0301 00:30:00.000000       1 x.go:1] m\n".to_vec(), &opts),
        parse_file("zap.log", b"2023-03-01T10:00:00Z\tINFO\tdated\n".to_vec(), &opts),
    ];
    resolve_years(&mut files);
    assert_eq!(files[0].records[0].time.map(|t| t.to_string()).as_deref(), Some("2023-02-28T23:30:00.000000Z"));
    assert!(files[0].diagnostics.iter().all(|d| !d.message.contains("impossible")), "{:?}", files[0].diagnostics);
    // And a local Feb 29 (Mar 1 UTC) still needs a leap year.
    let mut files = vec![parse_file(
        "klog.log",
        b"I0229 23:30:00.000000       1 x.go:1] m\n".to_vec(),
        &ParseOptions { default_offset_secs: -3600, ..ParseOptions::default() },
    )];
    files[0].file_mtime_secs = Some(1_685_577_600); // 2023-06-01
    resolve_years(&mut files);
    assert_eq!(files[0].records[0].time, None);
}

#[test]
fn json_printed_over_many_lines_is_one_record() {
    // `kubectl logs | jq` (after
    // tests/corpus/controller-runtime/json_pretty_printed_soperator_offset_ts_pr357.log);
    // a `{` line that never closes stays lines of its own.
    check(
        "{\n  \"level\": \"info\",\n  \"ts\": \"2025-01-24T11:50:36+01:00\",\n  \"msg\": \"Finished reconciliation\",\n  \"SlurmCluster\": {\n    \"name\": \"slurm\",\n    \"namespace\": \"slurm\"\n  },\n  \"reconcileID\": \"53453617\"\n}\n{\nnot json\n",
        r#"L1+9 zap-json info 2025-01-24T10:50:36Z "Finished reconciliation" {SlurmCluster={ "name": "slurm", "namespace": "slurm" }, reconcileID=53453617}
           L11 unparsed unknown - "{"
           L12 unparsed unknown - "not json""#,
    );
}

/// The default parse, which leaves the fields a record's line gives back
/// to be parsed again (`keep_fields: false`), against one that keeps
/// every field: the same records, reconcile ids, fields (kept or parsed
/// again, to the span), counts, notes and scratch. Returns how many
/// records with fields kept them and how many left them to be parsed
/// again.
fn check_without_fields(name: &str, input: &[u8], threads: usize) -> (usize, usize) {
    let full = parse_file(name, input.to_vec(), &ParseOptions { threads, keep_fields: true, ..ParseOptions::default() });
    let compact = parse_file(name, input.to_vec(), &ParseOptions { threads, ..ParseOptions::default() });
    assert!(full.records.iter().all(|r| r.fields_again_after.is_none()), "{name}: keep_fields left fields out");
    testing::assert_same_parse(&full, &compact, name);
    // Keeping what the analysis reads changes only where fields are: the
    // first line of each reconcile id and warnings keep theirs.
    let first = parse_file(name, input.to_vec(), &ParseOptions { threads, keep_first_fields: true, ..ParseOptions::default() });
    testing::assert_same_parse(&full, &first, &format!("{name}, keep_first_fields"));
    let mut seen = std::collections::HashSet::new();
    for (i, r) in first.records.iter().enumerate() {
        let new_id = !r.reconcile_id.is_empty() && seen.insert(first.span_bytes(r.reconcile_id));
        if new_id || r.level >= crate::model::Level::Warn {
            assert!(r.fields_again_after.is_none(), "{name}: record {i}, the first of its reconcile or a warning, left its fields out");
        }
    }
    assert!(first.fields.len() >= compact.fields.len(), "{name}");
    let kept = compact.records.iter().filter(|r| r.fields_len > 0).count();
    let again = compact.records.iter().filter(|r| r.fields_again_after.is_some()).count();
    assert!(compact.fields.len() <= full.fields.len(), "{name}");
    (kept, again)
}

#[test]
fn records_are_the_same_without_their_fields() {
    // The mixed file: wrapped rows parsed again from scratch, CRI pieces,
    // docker json-file payloads, a dump, printed JSON, a cut last line; its
    // reconcile ids r1 (a field of a console line), r2 (of the printed
    // JSON, in scratch) and the terminal copy's 040a71f8 and 9f1c (of rows
    // joined again).
    let input = mixed_file(MIN_PARALLEL_BYTES + (1 << 20));
    let full = parse_file("t.log", input.clone(), &ParseOptions::default());
    let ids: std::collections::BTreeSet<std::borrow::Cow<[u8]>> = full.records.iter().map(|r| full.span_bytes(r.reconcile_id)).collect();
    assert_eq!(ids.into_iter().collect::<Vec<_>>(), [&b""[..], b"040a71f8", b"9f1c", b"r1", b"r2"]);
    assert!(!full.fields.is_empty());
    for threads in [1, 3] {
        let (kept, again) = check_without_fields("t.log", &input, threads);
        // (Its console lines give their fields back; its rows joined again,
        // printed JSON and docker payloads keep theirs.)
        assert!(kept > 0 && again > 0, "{kept} kept, {again} parsed again");
    }
    // Every file of the corpus.
    fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).expect("corpus folder") {
            let p = e.expect("corpus entry").path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x != "expect" && x != "md") {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus"), &mut files);
    assert!(files.len() > 50, "{} corpus files", files.len());
    let (mut kept, mut again) = (0, 0);
    for p in files {
        let (k, a) = check_without_fields(&p.display().to_string(), &std::fs::read(&p).expect("corpus file"), 1);
        (kept, again) = (kept + k, again + a);
    }
    // Most records of real logs give their fields back.
    assert!(again > 4 * kept, "{kept} records kept their fields, {again} left them to be parsed again");
}

#[test]
fn a_printed_json_line_counts_brackets_outside_strings() {
    let check = |line: &str, expect: (i64, i64, bool)| {
        let l = JsonLine::scan(line.as_bytes());
        assert_eq!((l.delta, l.lowest, l.in_string), expect, "{line}");
    };
    check(r#"  "spec": {"#, (1, 0, false));
    check(r#"  "msg": "a } and a [ in text","#, (0, 0, false));
    check(r#"  "q": "an \" escaped quote { ","#, (0, 0, false));
    check(r#"  }, {"#, (0, -1, false));
    check(r#"}]"#, (-2, -2, false));
    check(r#"  "cut": "no end"#, (0, 0, true));
}

/// Parses one file at `offset_secs` (the CLI's `--utc-offset`), moves its
/// clocks as the loader does, and renders how many of its records rest on
/// an assumed zone and the note that says so: `n @line: note`, or `none`.
fn check_zone(text: &str, offset_secs: i32, expect: &str) {
    let opts = ParseOptions { default_offset_secs: offset_secs, ..ParseOptions::default() };
    let mut f = vec![parse_file("x.log", text.as_bytes().to_vec(), &opts)];
    align_clocks(&mut f);
    let f = &f[0];
    let notes: Vec<String> =
        f.diagnostics.iter().filter(|d| d.message.contains("no zone (")).map(|d| format!("@{}: {}", d.line.unwrap_or(0), d.message)).collect();
    let got = if f.zoneless_times == 0 && notes.is_empty() { "none".to_string() } else { format!("{} {}", f.zoneless_times, notes.join("; ")) };
    assert_lines(&format!("{got}\n"), expect);
}

#[test]
fn times_with_no_zone_are_noted_unless_a_clock_with_one_vouches_for_them() {
    const READ_AS_UTC: &str = "they are read as UTC (if the logs were written in another zone, the CLI's --utc-offset reads them in it)";
    const IT_IS_READ_AS_UTC: &str = "it is read as UTC (if the logs were written in another zone, the CLI's --utc-offset reads them in it)";
    // klog writes the process's local clock with no zone (and no year).
    let klog = "I0423 08:04:00.000001       1 x.go:1] a\nI0423 08:04:01.5       1 x.go:1] b\n";
    check_zone(klog, 0, &format!("2 @1: 2 lines write their times with no zone (this is the first): {READ_AS_UTC}"));
    check_zone(klog, 7200, "2 @1: 2 lines write their times with no zone (this is the first): they are read at UTC+02:00, as --utc-offset says");
    // Under the kubelet's CRI stamps, which write their zone: agreeing
    // within 2 s, the lines' clock is UTC's; 2 hours apart, the lines are
    // moved onto the stamps' clock. Either way nothing rests on a guess.
    check_zone(
        "2024-04-23T08:04:00.000002Z stdout F I0423 08:04:00.000001       1 x.go:1] a\n\
         2024-04-23T08:04:01.6Z stdout F I0423 08:04:01.5       1 x.go:1] b\n",
        0,
        "none",
    );
    check_zone(
        "2024-04-23T06:04:00.000002Z stdout F I0423 08:04:00.000001       1 x.go:1] a\n\
         2024-04-23T06:04:01.6Z stdout F I0423 08:04:01.5       1 x.go:1] b\n",
        0,
        "none",
    );
    // zap's console and logrus's key=value lines write a zone, or may not.
    check_zone("2024-01-29T16:04:41.5Z\tINFO\tx\n2024-01-29T16:04:42+01:00\tINFO\ty\n", 0, "none");
    check_zone(
        "2024-01-29T16:04:41.5Z\tINFO\tx\n2024-01-29T16:04:42.5\tINFO\ty\n",
        0,
        &format!("1 @2: 1 line writes its time with no zone (this one): {IT_IS_READ_AS_UTC}"),
    );
    check_zone(
        "time=\"2021-03-30T03:39:38\" level=info msg=\"a\"\ntime=\"2021-03-30T03:39:39Z\" level=info msg=\"b\"\n",
        0,
        &format!("1 @1: 1 line writes its time with no zone (this one): {IT_IS_READ_AS_UTC}"),
    );
    // A journal's stamps (no zone) 5 hours ahead of etcd's JSON lines
    // inside them (with one): moved onto the lines' clock, the line with
    // only a stamp too.
    let journal = "Jan 19 12:30:43 host etcd[1]: {\"level\":\"info\",\"ts\":\"2019-01-19T07:30:43.746Z\",\"msg\":\"a\"}\n\
                   Jan 19 12:30:44 host etcd[1]: {\"level\":\"info\",\"ts\":\"2019-01-19T07:30:44.100Z\",\"msg\":\"b\"}\n\
                   Jan 19 12:30:45 host systemd[1]: Started etcd.\n";
    check_zone(journal, 0, "none");
    // The same with klog lines inside: the stamps move onto a clock that
    // is itself assumed, so all three lines rest on the guess.
    check_zone(
        "Jan 19 12:30:43 host kcm[1]: I0119 07:30:43.746000       1 x.go:1] a\n\
         Jan 19 12:30:44 host kcm[1]: I0119 07:30:44.100000       1 x.go:1] b\n\
         Jan 19 12:30:45 host systemd[1]: Started kcm.\n",
        0,
        &format!("3 @1: 3 lines write their times with no zone (this is the first): {READ_AS_UTC}"),
    );
    // Lines with no time at all are not counted.
    check_zone(
        "I0423 08:04:00.000001       1 x.go:1] a\nplain text\n",
        0,
        &format!("1 @1: 1 line writes its time with no zone (this one): {IT_IS_READ_AS_UTC}"),
    );
}
