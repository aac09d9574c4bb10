//! Data-driven tests: one `check(input, expect)` per behaviour over small
//! fixtures; the expectation is a compact rendering of every dump (and
//! `check_classify` / `check_groups` for what is made of the goroutines).
use super::*;

/// Renders dumps one item a line:
/// `dump <kind> L<first>-<last> [preamble=..] [total=N] [collected=<t>]`,
/// per goroutine `g<id|?> L<line> [<state>] [<N>m] [locked] [elided] [x<count>] [labels=..]`,
/// its frames `<func> <file>:<line>`, `created by <func> <file>:<line> [in <N>]`,
/// then the notes `note L<line>: <message>`.
fn render(dumps: &[Dump]) -> String {
    let mut out = String::new();
    for d in dumps {
        let kind = match d.kind {
            DumpKind::Traceback => "traceback",
            DumpKind::Debug1 => "debug1",
        };
        out.push_str(&format!("dump {kind} L{}-{}", d.first_line, d.last_line));
        if let Some(p) = &d.preamble {
            out.push_str(&format!(" preamble={p:?}"));
        }
        if let Some(t) = d.total {
            out.push_str(&format!(" total={t}"));
        }
        if let Some(t) = d.collected {
            out.push_str(&format!(" collected={t}"));
        }
        out.push('\n');
        for g in &d.goroutines {
            out.push_str(&format!("g{} L{} [{}]", g.id.map_or("?".into(), |i| i.to_string()), g.line, g.state));
            if let Some(m) = g.wait_minutes {
                out.push_str(&format!(" {m}m"));
            }
            if g.locked_to_thread {
                out.push_str(" locked");
            }
            if g.elided {
                out.push_str(" elided");
            }
            if g.count != 1 {
                out.push_str(&format!(" x{}", g.count));
            }
            if let Some(l) = &g.labels {
                out.push_str(&format!(" labels={l}"));
            }
            out.push('\n');
            for f in &g.frames {
                out.push_str(&format!("{} {}:{}\n", f.func, f.file, f.line));
            }
            if let Some(c) = &g.created_by {
                out.push_str(&format!("created by {} {}:{}", c.func, c.file, c.line));
                if let Some(p) = g.created_in {
                    out.push_str(&format!(" in {p}"));
                }
                out.push('\n');
            }
        }
        for n in &d.diagnostics {
            out.push_str(&format!("note L{}: {}\n", n.line, n.message));
        }
    }
    out
}

/// Compares renderings line by line, leading whitespace and blank lines ignored.
fn same(got: &str, expect: &str) {
    let norm = |s: &str| -> String { s.lines().map(str::trim_start).filter(|l| !l.is_empty()).map(|l| format!("{l}\n")).collect() };
    let (got, want) = (norm(got), norm(expect));
    assert_eq!(got, want, "\n--- got ---\n{got}--- want ---\n{want}");
}

/// Parses `input` (its first line is line 1) and compares the rendering.
fn check(input: &str, expect: &str) {
    same(&render(&parse_dumps(input.as_bytes(), 1)), expect);
}

/// One line per goroutine: `g<id|?> <role> [rec=<type> <func>] [blocked=<func>] [under=<func>]`.
fn check_classify(input: &str, expect: &str) {
    let mut out = String::new();
    for d in parse_dumps(input.as_bytes(), 1) {
        for g in &d.goroutines {
            let i = classify(g);
            out.push_str(&format!("g{} {:?}", g.id.map_or("?".into(), |i| i.to_string()), i.role));
            if let (Some(r), Some(f)) = (&i.reconciler, &i.reconciler_func) {
                out.push_str(&format!(" rec={r} {f}"));
            }
            if let Some(f) = &i.call {
                out.push_str(&format!(" blocked={}", f.func));
            }
            if let Some(f) = &i.under {
                out.push_str(&format!(" under={}", f.func));
            }
            out.push('\n');
        }
    }
    same(&out, expect);
}

/// One line per group: `x<count> [<state>] ids=<ids> [wait=<min>-<max>] <role> L<first> <innermost func>`.
fn check_groups(input: &str, expect: &str) {
    let mut out = String::new();
    for d in parse_dumps(input.as_bytes(), 1) {
        for gr in group(&d.goroutines) {
            let wait = match (gr.min_wait_minutes, gr.max_wait_minutes) {
                (Some(min), Some(max)) => format!(" wait={min}-{max}"),
                _ => String::new(),
            };
            let top = gr.frames.first().map_or("", |f| f.func.as_str());
            out.push_str(&format!("x{} [{}] ids={:?}{wait} {:?} L{} {top}\n", gr.count, gr.state, gr.ids, gr.info.role, gr.first_line));
        }
    }
    same(&out, expect);
}

#[test]
fn panic_preamble_recovered_and_signal() {
    check(
        "panic: boom [recovered]\n\
         \tpanic: boom\n\
         [signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x1]\n\
         \n\
         goroutine 7 [running]:\n\
         main.f({0x1?, 0x2})\n\
         \t/app/main.go:10 +0x1d\n\
         panic({0x2402060?, 0x420b580?})\n\
         \t/usr/local/go/src/runtime/panic.go:770 +0x132\n\
         main.main()\n\
         \t/app/main.go:20 +0x25\n",
        r#"
        dump traceback L1-11 preamble="panic: boom [recovered]"
        g7 L5 [running]
          main.f /app/main.go:10
          panic /usr/local/go/src/runtime/panic.go:770
          main.main /app/main.go:20
        "#,
    );
}

#[test]
fn header_variants() {
    check(
        "goroutine 1 gp=0xc000006c40 m=0 mp=0x6e6ec0 [running]:\n\
         main.main()\n\
         \t./main.go:3 +0x1 fp=0xc000 sp=0xc001 pc=0x2\n\
         \n\
         goroutine 2 gp=0xc000007500 m=nil [GC sweep wait]:\n\
         runtime.goparkunlock(...)\n\
         \truntime/proc.go:408\n\
         created by runtime.gcenable in goroutine 1\n\
         \truntime/mgc.go:203 +0x66\n\
         \n\
         goroutine 17 [syscall, 10175 minutes, locked to thread]:\n\
         runtime.goexit({})\n\
         \truntime/asm_amd64.s:1695 +0x1 pc=0x1\n\
         \n\
         goroutine 8 gp=0xc000003dc0 m=nil [sync.Cond.Wait, synctest group 6]:\n\
         main.a()\n\
         \t/a.go:1 +0x1\n\
         \n\
         goroutine 9 [select (durable), 1 minutes, synctest bubble 1]:\n\
         main.b()\n\
         \t/a.go:2 +0x1\n\
         \n\
         goroutine 10 [running (scan)]:\n\
         main.c()\n\
         \t/a.go:3 +0x1\n\
         \n\
         goroutine 38669 [chan receive] {pid: \"<ABC123.0.1041>\"}:\n\
         main.d()\n\
         \t/a.go:4 +0x1\n\
         \n\
         goroutine 24812 [IO wait, 3 minutes, leaked] {meta: \"Alias#<...>\", role: reader}:\n\
         main.e()\n\
         \t/a.go:5 +0x1\n",
        r#"
        dump traceback L1-33
        g1 L1 [running]
          main.main ./main.go:3
        g2 L5 [GC sweep wait]
          runtime.goparkunlock runtime/proc.go:408
          created by runtime.gcenable runtime/mgc.go:203 in 1
        g17 L11 [syscall] 10175m locked
          runtime.goexit runtime/asm_amd64.s:1695
        g8 L15 [sync.Cond.Wait]
          main.a /a.go:1
        g9 L19 [select (durable)] 1m
          main.b /a.go:2
        g10 L23 [running]
          main.c /a.go:3
        g38669 L27 [chan receive] labels={pid: "<ABC123.0.1041>"}
          main.d /a.go:4
        g24812 L31 [IO wait] 3m labels={meta: "Alias#<...>", role: reader}
          main.e /a.go:5
        "#,
    );
}

#[test]
fn frame_variants_and_indents() {
    check(
        "goroutine 5 [chan receive]:\n\
         k8s.io/client-go/util/workqueue.(*Typed[...]).Get(0x241eba0)\n\
         \t/go/pkg/mod/k8s.io/client-go@v0.32.3/util/workqueue/queue.go:277 +0xb2\n\
         sigs.k8s.io/controller-runtime/pkg/webhook/admission.(*Webhook).Handle(_, {_, _}, {{{0xc0007d10e0, 0x24}, ...}})\n  \
         /go/x/webhook.go:181 +0x224\n\
         io.ReadFull(...)\n        \
         /usr/local/go/src/io/io.go:354\n\
         net.(*TCPConn).Read(0x0?, {0xc00020e99c?, 0xc0000eb568?, 0x46d449?})\n\
         \t<autogenerated>:1 +0x25\n\
         main.win()\n\
         \tC:/Users/dev/go/src/app/main.go:42 +0x1f\n\
         github.com/docker/docker/api/server/router/container.(*containerRouter).(github.com/docker/docker/api/server/router/container.getContainersByName)-fm(0x1, 0x2)\n\
         \t/src/router.go:9 +0x6a\n\
         github.com/nats-io/nats%2ego.(*Conn).flusher(0xc000)\n\
         \t/src/nats.go:5 +0x1\n\
         main.spaces()\n\
         \t/home/me/My Project/main.go:7 +0x1\n\
         ...additional frames elided...\n\
         created by main.start\n\
         \t/app/main.go:5 +0x1\n",
        r#"
        dump traceback L1-20
        g5 L1 [chan receive] elided
          k8s.io/client-go/util/workqueue.(*Typed[...]).Get /go/pkg/mod/k8s.io/client-go@v0.32.3/util/workqueue/queue.go:277
          sigs.k8s.io/controller-runtime/pkg/webhook/admission.(*Webhook).Handle /go/x/webhook.go:181
          io.ReadFull /usr/local/go/src/io/io.go:354
          net.(*TCPConn).Read <autogenerated>:1
          main.win C:/Users/dev/go/src/app/main.go:42
          github.com/docker/docker/api/server/router/container.(*containerRouter).(github.com/docker/docker/api/server/router/container.getContainersByName)-fm /src/router.go:9
          github.com/nats-io/nats%2ego.(*Conn).flusher /src/nats.go:5
          main.spaces /home/me/My Project/main.go:7
          created by main.start /app/main.go:5
        "#,
    );
}

#[test]
fn other_thread_elided_and_ancestors() {
    check(
        "goroutine 3 [running]:\n\
         \tgoroutine running on other thread; stack unavailable\n\
         created by main.main in goroutine 1\n\
         \t/app/main.go:9 +0x1\n\
         \n\
         goroutine 4 [select]:\n\
         main.deep(...)\n\
         \t/app/main.go:20\n\
         ...49 frames elided...\n\
         main.main()\n\
         \t/app/main.go:30 +0x1\n\
         created by main.start in goroutine 1\n\
         \t/app/main.go:31 +0x2\n\
         [originating from goroutine 1]:\n\
         main.start(...)\n\
         \t/app/main.go:40 +0x3\n\
         ...additional frames elided...\n\
         created by main.init\n\
         \t/app/main.go:41 +0x4\n",
        r#"
        dump traceback L1-19
        g3 L1 [running]
          created by main.main /app/main.go:9 in 1
        g4 L6 [select] elided
          main.deep /app/main.go:20
          main.main /app/main.go:30
          created by main.start /app/main.go:31 in 1
        "#,
    );
}

#[test]
fn blank_lines_whitespace_lines_and_trailing_spaces() {
    check(
        "goroutine 1 [select]:  \n\
         main.a()\n\
         \t/a.go:1 +0x1 \n\
         \n\
         \n\
         goroutine 2 [select]:\n\
         main.b()\n\
         \t/a.go:2 +0x1\n    \n\
         goroutine 3 [select]:\r\n\
         main.c()\r\n\
         \t/a.go:3 +0x1\r\n",
        r#"
        dump traceback L1-12
        g1 L1 [select]
          main.a /a.go:1
        g2 L6 [select]
          main.b /a.go:2
        g3 L10 [select]
          main.c /a.go:3
        "#,
    );
}

#[test]
fn cri_prefix_with_empty_pieces_and_partial_lines() {
    check(
        "2024-01-02T03:04:05.1Z stderr F 2024-01-02T03:04:05.0Z\tINFO\tstarting\n\
         2024-01-02T03:04:05.123456789Z stderr F fatal error: concurrent map writes\n\
         2024-01-02T03:04:05.1234568Z stderr F\n\
         2024-01-02T03:04:05.2Z stderr F goroutine 9 [running]:\n\
         2024-01-02T03:04:05.2Z stderr P main.veryLong(0x1,\n\
         2024-01-02T03:04:05.2Z stderr F  0x2)\n\
         2024-01-02T03:04:05.3Z stderr F \t/app/main.go:3 +0x1\n\
         2024-01-02T03:04:05.3Z stderr F \n\
         2024-01-02T03:04:05.4Z stdout F goroutine 10 [select, 2 minutes]:\n\
         2024-01-02T03:04:05.4Z stdout F main.loop()\n\
         2024-01-02T03:04:05.4Z stdout F \t/app/main.go:9 +0x1\n",
        r#"
        dump traceback L2-11 preamble="fatal error: concurrent map writes" collected=2024-01-02T03:04:05.123456789Z
        g9 L4 [running]
          main.veryLong /app/main.go:3
        g10 L9 [select] 2m
          main.loop /app/main.go:9
        "#,
    );
}

#[test]
fn kubectl_timestamps_of_varying_width() {
    check(
        "2018-09-29T12:26:49.688386973Z panic: boom\n\
         2018-09-29T12:26:49.6883869Z \n\
         2018-09-29T12:26:49.68838Z goroutine 1 [running]:\n\
         2018-09-29T12:26:49.7Z main.main()\n\
         2018-09-29T12:26:49Z \t/go/src/app/main.go:5 +0x39\n\
         2018-09-29T12:26:50.1Z\n\
         2018-09-29T12:26:50.1Z goroutine 2 [select]:\n\
         2018-09-29T12:26:50.1Z main.loop()\n\
         2018-09-29T12:26:50.1Z   /go/src/app/main.go:9 +0x1\n",
        r#"
        dump traceback L1-9 preamble="panic: boom" collected=2018-09-29T12:26:49.688386973Z
        g1 L3 [running]
          main.main /go/src/app/main.go:5
        g2 L7 [select]
          main.loop /go/src/app/main.go:9
        "#,
    );
}

#[test]
fn docker_json_file_lines() {
    check(
        r#"{"log":"I0102 03:04:05.000000       1 main.go:1] started\n","stream":"stderr","time":"2024-05-06T07:08:08Z"}
{"log":"goroutine 1 [running]:\n","stream":"stderr","time":"2024-05-06T07:08:09.123456789Z"}
{"log":"main.main()\n","stream":"stderr","time":"2024-05-06T07:08:09.2Z"}
{"log":"\t/app/main.go:5 +0x1d\n","stream":"stderr","time":"2024-05-06T07:08:09.2Z"}
{"log":"\n","stream":"stderr","time":"2024-05-06T07:08:09.2Z"}
{"log":"goroutine 2 [select, 4 minutes]:\n","stream":"stderr","time":"2024-05-06T07:08:09.3Z"}
{"log":"main.wait(...)\n","stream":"stderr","time":"2024-05-06T07:08:09.3Z"}
{"log":"\t/app/main.go:9\n","stream":"stderr","time":"2024-05-06T07:08:09.3Z"}
"#,
        r#"
        dump traceback L2-8 collected=2024-05-06T07:08:09.123456789Z
        g1 L2 [running]
          main.main /app/main.go:5
        g2 L6 [select] 4m
          main.wait /app/main.go:9
        "#,
    );
}

#[test]
fn interleaved_log_lines_inside_and_between_blocks() {
    check(
        "goroutine 1 [running]:\n\
         main.main()\n\
         2024-01-02T03:04:05.000Z\tINFO\tcontroller\tReconciling\t{\"name\": \"x\"}\n\
         \t/app/main.go:5 +0x1d\n\
         2024-01-02T03:04:05.001Z\tINFO\tcontroller\tdone\n\
         \n\
         {\"level\":\"info\",\"msg\":\"still logging\"}\n\
         goroutine 2 [select, 3 minutes]:\n\
         main.loop()\n\
         \t/app/main.go:9 +0x1\n\
         I0102 03:04:05.002       1 controller.go:12] after the dump\n\
         I0102 03:04:05.003       1 controller.go:12] more\n",
        r#"
        dump traceback L1-10
        g1 L1 [running]
          main.main /app/main.go:5
        g2 L8 [select] 3m
          main.loop /app/main.go:9
        note L3: 3 log lines interleaved with the dump were skipped
        "#,
    );
}

#[test]
fn a_dump_goes_on_across_at_most_a_window_of_other_lines() {
    let text = |log_lines: u32| {
        let mut t = String::from("goroutine 1 [running]:\nmain.main()\n\t/a.go:1 +0x1\n");
        for i in 0..log_lines {
            t.push_str(&format!("log line {i}\n"));
        }
        t + "goroutine 2 [running]:\nmain.main()\n\t/a.go:2 +0x1\n"
    };
    let last = WINDOW_LINES + 6;
    check(
        &text(WINDOW_LINES),
        &format!(
            "dump traceback L1-{last}
            g1 L1 [running]
              main.main /a.go:1
            g2 L{} [running]
              main.main /a.go:2
            note L4: {WINDOW_LINES} log lines interleaved with the dump were skipped",
            last - 2
        ),
    );
    check(
        &text(WINDOW_LINES + 1),
        &format!(
            "dump traceback L1-3
            g1 L1 [running]
              main.main /a.go:1
            dump traceback L{}-{}
            g2 L{} [running]
              main.main /a.go:2",
            last - 1,
            last + 1,
            last - 1
        ),
    );
}

#[test]
fn cut_off_inside_a_frame() {
    check(
        "goroutine 42 [select, 15 minutes]:\n\
         google.golang.org/grpc/internal/transport.(*Stream).waitOnHeader(0xc0003acc60)\n\
         \t/go/pkg/mod/google.golang.org/grpc@v1.58.3/internal/transport/transport.go:327 +0x114\n\
         google.golang.org/grpc.(*ClientConn).Invoke(0xc0001, {0x2, 0x3})\n",
        r#"
        dump traceback L1-4
        g42 L1 [select] 15m
          google.golang.org/grpc/internal/transport.(*Stream).waitOnHeader /go/pkg/mod/google.golang.org/grpc@v1.58.3/internal/transport/transport.go:327
          google.golang.org/grpc.(*ClientConn).Invoke :0
        note L4: dump is cut off inside goroutine 42 (no file line after its last function)
        "#,
    );
}

#[test]
fn cut_off_after_a_header_or_inside_a_line() {
    check(
        "goroutine 1 [running]:\n\
         main.main()\n\
         \t/a.go:1 +0x1\n\
         \n\
         goroutine 2 [select]:\n",
        r#"
        dump traceback L1-5
        g1 L1 [running]
          main.main /a.go:1
        g2 L5 [select]
        note L5: dump is cut off after the header of goroutine 2
        "#,
    );
    check(
        "goroutine 41 [select, 10 minutes]:\n\
         google.golang.org/grpc.invoke({0x1d4dfd0, 0xc0003959b0})\n\
         \t/root/go/pkg/mod/google.golang.org/grpc@v1.58.3/call.go:73 +0x13a\n\
         google.golang.org/grpc.(*ClientConn).Invoke(0xc00020240\n",
        r#"
        dump traceback L1-3
        g41 L1 [select] 10m
          google.golang.org/grpc.invoke /root/go/pkg/mod/google.golang.org/grpc@v1.58.3/call.go:73
        note L4: dump is cut off inside goroutine 41: line 4 is a cut frame line
        "#,
    );
}

#[test]
fn damaged_blocks_inside_a_dump() {
    // A cut frame line, an orphan file line (lines lost), frames whose header
    // was lost, a function with no file line.
    check(
        "goroutine 1 [IO wait, 14 minutes]:\n\
         internal/poll.runtime_pollWait(0x7f991c750580, 0x72)\n\
         \t/usr/local/go/src/runtime/netpoll.go:234 +0x89\n\
         internal/poll.(*pollDesc).wa\n\
         # ---- excerpt 2 ----\n\
         \t/go/pkg/mod/google.golang.org/grpc@v1.47.0/clientconn.go:929 +0x35\n\
         google.golang.org/grpc.(*csAttempt).getTransport(0xc0006ac0b0)\n\
         \t/go/pkg/mod/google.golang.org/grpc@v1.47.0/stream.go:430 +0x48\n\
         google.golang.org/grpc.invoke({0x10a48d8, 0xc000e08390})\n\
         google.golang.org/grpc.newClientStream({0x10a48d8, 0xc000e094a0})\n\
         \t/go/pkg/mod/google.golang.org/grpc@v1.47.0/stream.go:220 +0x4bf\n\
         \n\
         goroutine 2 [select]:\n\
         main.b()\n\
         \t/a.go:2 +0x1\n",
        r#"
        dump traceback L1-15
        g1 L1 [IO wait] 14m
          internal/poll.runtime_pollWait /usr/local/go/src/runtime/netpoll.go:234
        g? L7 []
          google.golang.org/grpc.(*csAttempt).getTransport /go/pkg/mod/google.golang.org/grpc@v1.47.0/stream.go:430
          google.golang.org/grpc.invoke :0
        g? L10 []
          google.golang.org/grpc.newClientStream /go/pkg/mod/google.golang.org/grpc@v1.47.0/stream.go:220
        g2 L13 [select]
          main.b /a.go:2
        note L4: line 4 is a cut frame line of goroutine 1 (skipped)
        note L5: 1 log line interleaved with the dump was skipped
        note L6: file line without a function line: goroutine 1 ends here
        note L7: frames without a goroutine header (its header line is missing)
        note L9: the goroutine at line 7: no file line after the function at line 9
        note L10: frames without a goroutine header (its header line is missing)
        "#,
    );
}

#[test]
fn frames_before_the_first_header_are_a_headerless_goroutine() {
    check(
        "I0102 03:04:05.000000       1 main.go:1] a log line\n\
         runtime.selectgo(0xc00042d490, 0xc00042d428, 0xc0005ee8f0?, 0x0, 0x10?, 0x1)\n        \
         runtime/select.go:327 +0x725 fp=0xc00042d3f0 sp=0xc00042d2d0 pc=0x1a1da05\n\
         main.main()\n        \
         ./main.go:217 +0x1093 fp=0xc00042df50 sp=0xc00042d768 pc=0x3133293\n\
         \n\
         goroutine 2 gp=0xc000006c40 m=nil [force gc (idle)]:\n\
         runtime.gopark(0x0?, 0x0?, 0x0?, 0x0?, 0x0?)\n        \
         runtime/proc.go:402 +0xce fp=0xc000074fa8 sp=0xc000074f88 pc=0x43bf8e\n",
        r#"
        dump traceback L2-9
        g? L2 []
          runtime.selectgo runtime/select.go:327
          main.main ./main.go:217
        g2 L7 [force gc (idle)]
          runtime.gopark runtime/proc.go:402
        note L2: frames without a goroutine header (its header line is missing)
        "#,
    );
    // Frames that do not lead to a header are not a dump (a Go stack in a log).
    check(
        "main.f(0x1)\n\
         \t/a.go:1 +0x1\n\
         I0102 03:04:05.000000       1 main.go:1] a log line\n\
         goroutine 2 [select]:\n\
         main.g()\n\
         \t/a.go:3 +0x1\n",
        r#"
        dump traceback L4-6
        g2 L4 [select]
          main.g /a.go:3
        "#,
    );
}

#[test]
fn debug1_profile_records() {
    check(
        "goroutine profile: total 7\n\
         5 @ 0x43c425 0x44c58f 0xb5230d 0x472521\n\
         # labels: {\"grpc.server.method\":\"/etcdserverpb.KV/Range\"}\n\
         #\t0xb5230c\tgithub.com/x/y.(*T).f+0xcc\t\t/src/y.go:621\n\
         #\t0x4a3859\tcontext.propagateCancel.func1+0xd9\t/usr/lib/go/src/context/context.go:279 \n\
         \n\
         2 @ 0x1 0x2\n\
         #   0x10   main.g+0x1   /src/main.go:3\n\
         #\t0x99\n\
         \n",
        r#"
        dump debug1 L1-9 preamble="goroutine profile: total 7" total=7
        g? L2 [] x5 labels={"grpc.server.method":"/etcdserverpb.KV/Range"}
          github.com/x/y.(*T).f /src/y.go:621
          context.propagateCancel.func1 /usr/lib/go/src/context/context.go:279
        g? L7 [] x2
          main.g /src/main.go:3
        "#,
    );
}

#[test]
fn several_dumps_in_one_text() {
    // Two SIGQUITs (the second echoed as `^\`), then a debug=1 profile, then
    // a debug=2 dump whose ids repeat.
    check(
        "SIGQUIT: quit\n\
         PC=0x47664e m=0 sigcode=128\n\
         \n\
         goroutine 1 [select]:\n\
         main.main()\n\
         \t/a.go:1 +0x1\n\
         \n\
         ^\\SIGQUIT: quit\n\
         PC=0x47664e m=0 sigcode=128\n\
         \n\
         goroutine 1 [select, 1 minutes]:\n\
         main.main()\n\
         \t/a.go:1 +0x1\n\
         goroutine profile: total 1\n\
         1 @ 0x1\n\
         #\t0x1\tmain.main+0x1\t/a.go:1\n\
         \n\
         goroutine 1 [running]:\n\
         main.main()\n\
         \t/a.go:1 +0x1\n\
         \n\
         goroutine 1 [running]:\n\
         main.main()\n\
         \t/a.go:2 +0x1\n",
        r#"
        dump traceback L1-6 preamble="SIGQUIT: quit"
        g1 L4 [select]
          main.main /a.go:1
        dump traceback L8-13 preamble="SIGQUIT: quit"
        g1 L11 [select] 1m
          main.main /a.go:1
        dump debug1 L14-16 preamble="goroutine profile: total 1" total=1
        g? L15 []
          main.main /a.go:1
        dump traceback L18-20
        g1 L18 [running]
          main.main /a.go:1
        dump traceback L22-24
        g1 L22 [running]
          main.main /a.go:2
        "#,
    );
}

#[test]
fn the_line_that_ends_a_dump_can_start_the_next() {
    // A debug=1 profile, then a traceback whose first header was cut off.
    check(
        "goroutine profile: total 1\n\
         1 @ 0x1\n\
         #\t0x1\tmain.main+0x1\t/a.go:1\n\
         \n\
         main.f(0x1)\n\
         \t/a.go:2 +0x1\n\
         \n\
         goroutine 2 [select]:\n\
         main.g()\n\
         \t/a.go:3 +0x1\n",
        r#"
        dump debug1 L1-3 preamble="goroutine profile: total 1" total=1
        g? L2 []
          main.main /a.go:1
        dump traceback L5-10
        g? L5 []
          main.f /a.go:2
        g2 L8 [select]
          main.g /a.go:3
        note L5: frames without a goroutine header (its header line is missing)
        "#,
    );
}

#[test]
fn registers_and_exit_status_end_a_dump() {
    check(
        "panic: x\n\
         \n\
         goroutine 1 [running]:\n\
         main.main()\n\
         \t/a.go:1 +0x1\n\
         rax    0x0\n\
         rbx    0xc000012345\n\
         exit status 2\n\
         FAIL\tgithub.com/x/y\t0.01s\n\
         main.f()\n\
         \t/a.go:9 +0x1\n",
        r#"
        dump traceback L1-8 preamble="panic: x"
        g1 L3 [running]
          main.main /a.go:1
        "#,
    );
}

#[test]
fn runtime_stack_frames_are_dropped() {
    check(
        "fatal error: unexpected signal during runtime execution\n\
         [signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x1]\n\
         \n\
         runtime stack:\n\
         runtime.throw({0x1, 0x2})\n\
         \t/usr/local/go/src/runtime/panic.go:1047 +0x5d fp=0x1 sp=0x2 pc=0x3\n\
         runtime.sigpanic()\n\
         \t/usr/local/go/src/runtime/signal_unix.go:819 +0x369 fp=0x1 sp=0x2 pc=0x3\n\
         \n\
         goroutine 1 gp=0xc0000061c0 m=0 mp=0x1 [syscall]:\n\
         main.main()\n\
         \t/a.go:1 +0x1\n",
        r#"
        dump traceback L1-12 preamble="fatal error: unexpected signal during runtime execution"
        g1 L10 [syscall]
          main.main /a.go:1
        "#,
    );
}

#[test]
fn a_preamble_far_from_any_header_is_not_part_of_a_dump() {
    let mut text = String::from("panic: something else\n");
    for i in 0..WINDOW_LINES {
        text.push_str(&format!("log line {i}\n"));
    }
    text.push_str("goroutine 1 [running]:\nmain.main()\n\t/a.go:1 +0x1\n");
    check(&text, "dump traceback L22-24\ng1 L22 [running]\nmain.main /a.go:1");
}

#[test]
fn line_numbers_start_at_first_line() {
    let dumps = parse_dumps(b"x\ngoroutine 1 [running]:\nmain.main()\n\t/a.go:1 +0x1\n", 100);
    same(&render(&dumps), "dump traceback L101-103\ng1 L101 [running]\nmain.main /a.go:1");
}

#[test]
fn garbage_is_no_dump() {
    for text in [
        &b""[..],
        b"\n\n\n",
        b"goroutine 1 [",
        b"goroutine 1 [running]",
        b"goroutine x [running]:\nmain.main()\n",
        b"goroutine 99999999999999999999999 [running]:\n",
        b"\xff\xfe goroutine \x00 [\x01]:\n",
        b"{\"log\":\"goroutine",
    ] {
        assert_eq!(parse_dumps(text, 1), Vec::new(), "{:?}", String::from_utf8_lossy(text));
    }
}

#[test]
fn has_dump_finds_headers_and_profiles() {
    for yes in [
        &b"goroutine 1 [running]:\n"[..],
        b"log\n2024-01-02T03:04:05Z stderr F goroutine 12 gp=0xc0 m=nil [select, 3 minutes]:\n",
        b"{\"log\":\"goroutine 1 [running]:\\n\",\"stream\":\"stderr\"}\n",
        b"goroutine 38669 [chan receive] {pid: \"x\"}:",
        b"goroutine profile: total 83\n",
        b"goroutineleak profile: total 2\n",
    ] {
        assert!(has_dump(yes), "{:?}", String::from_utf8_lossy(yes));
    }
    for no in [&b""[..], b"panic: boom\n", b"started goroutine for worker\n", b"goroutine 1 finished\n", b"goroutine [running]:\n", b"goroutine 1 [running\n]:"]
    {
        assert!(!has_dump(no), "{:?}", String::from_utf8_lossy(no));
    }
}

// ---------------------------------------------------------------------------
// Classification.
// ---------------------------------------------------------------------------

const CR: &str = "sigs.k8s.io/controller-runtime/pkg/internal/controller";

#[test]
fn controller_runtime_workers_idle_and_busy() {
    check_classify(
        &format!(
            "goroutine 1 [sync.Cond.Wait, 9 minutes]:\n\
             sync.runtime_notifyListWait(0xc0005ee690, 0x0)\n\
             \t/usr/local/go/src/runtime/sema.go:587 +0x159\n\
             sync.(*Cond).Wait(0x16d45d9?)\n\
             \t/usr/local/go/src/sync/cond.go:71 +0x85\n\
             k8s.io/client-go/util/workqueue.(*Typed[...]).Get(0x241eba0)\n\
             \t/q.go:277 +0xb2\n\
             {CR}.(*Controller[...]).processNextWorkItem(0x242b540, {{0x240c908, 0xc0003e9bd0}})\n\
             \t/c.go:271 +0x5e\n\
             \n\
             goroutine 2 [chan receive, 5 minutes]:\n\
             sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue.(*priorityqueue[...]).GetWithPriority(0x1)\n\
             \t/pq.go:1 +0x1\n\
             {CR}.(*Controller[...]).processNextWorkItem(0x1)\n\
             \t/c.go:271 +0x5e\n\
             \n\
             goroutine 3 [select]:\n\
             example.com/op/internal/ctl.(*Reconciler[...]).sync(...)\n\
             \t/r.go:20\n\
             example.com/op/internal/ctl.(*Reconciler[...]).Reconcile(0x1)\n\
             \t/r.go:10 +0x1\n\
             sigs.k8s.io/controller-runtime/pkg/reconcile.TypedFunc[...].Reconcile(0x1)\n\
             \t/f.go:1 +0x1\n\
             example.com/op/internal/ctl.wrapper.Reconcile(0x1)\n\
             \t/w.go:1 +0x1\n\
             {CR}.(*Controller[...]).Reconcile(0x1)\n\
             \t/c.go:116 +0x1\n\
             {CR}.(*Controller[...]).reconcileHandler(0x1)\n\
             \t/c.go:303 +0x1\n\
             \n\
             goroutine 4 [IO wait]:\n\
             example.com/op.FooReconciler.Reconcile(0x1)\n\
             \t/r.go:10 +0x1\n\
             {CR}.(*Controller).reconcileHandler(0x1)\n\
             \t/c.go:2 +0x1\n\
             {CR}.(*Controller).processNextWorkItem(0x1)\n\
             \t/c.go:3 +0x1\n\
             {CR}.(*Controller).worker(...)\n\
             \t/c.go:4\n\
             \n\
             goroutine 5 [select]:\n\
             time.Sleep(0x1)\n\
             \t/usr/local/go/src/runtime/time.go:1 +0x1\n\
             example.com/op.poll(0x1)\n\
             \t/p.go:1 +0x1\n\
             created by {CR}.(*Controller).Start.func1.2 in goroutine 9\n\
             \t/c.go:5 +0x1\n"
        ),
        &format!(
            "g1 IdleWorker blocked={CR}.(*Controller[...]).processNextWorkItem\n\
             g2 IdleWorker blocked={CR}.(*Controller[...]).processNextWorkItem\n\
             g3 BusyWorker rec=Reconciler example.com/op/internal/ctl.(*Reconciler[...]).Reconcile \
             blocked=example.com/op/internal/ctl.(*Reconciler[...]).sync under=example.com/op/internal/ctl.(*Reconciler[...]).sync\n\
             g4 BusyWorker rec=FooReconciler example.com/op.FooReconciler.Reconcile \
             blocked=example.com/op.FooReconciler.Reconcile under=example.com/op.FooReconciler.Reconcile\n\
             g5 BusyWorker blocked=example.com/op.poll under=example.com/op.poll\n"
        ),
    );
}

#[test]
fn client_go_workers_and_vendored_paths() {
    check_classify(
        "goroutine 236 [sync.Cond.Wait, 422 minutes]:\n\
         runtime.goparkunlock(...)\n\
         \t/usr/local/go/src/runtime/proc.go:307\n\
         sync.(*Cond).Wait(0xc0000df200)\n\
         \t/usr/local/go/src/sync/cond.go:56 +0x91\n\
         github.com/x/op/vendor/k8s.io/client-go/util/workqueue.(*Type).Get(0xc0006dab40, 0x0, 0x0, 0x0)\n\
         \t/go/src/github.com/x/op/vendor/k8s.io/client-go/util/workqueue/queue.go:145 +0x90\n\
         github.com/x/op/pkg/controller.(*Controller).processNextItem(0xc00036c480, 0x14d3900)\n\
         \t/go/src/github.com/x/op/pkg/controller/controller.go:124 +0x46\n\
         \n\
         goroutine 7 [select, 3 minutes]:\n\
         github.com/x/op/pkg/controller.(*Controller).sync(0x1)\n\
         \t/c.go:200 +0x1\n\
         github.com/x/op/pkg/controller.(*Controller).processNextWorkItem(0x1)\n\
         \t/c.go:124 +0x1\n\
         \n\
         goroutine 8 [select, 3 minutes]:\n\
         k8s.io/kubernetes/vendor/google.golang.org/grpc/transport.wait(0x1)\n\
         \t/t.go:577 +0x1\n\
         k8s.io/kubernetes/vendor/google.golang.org/grpc.invoke(0x1)\n\
         \t/c.go:191 +0x1\n\
         k8s.io/kubernetes/vendor/github.com/coreos/etcd/etcdserver/etcdserverpb.(*kVClient).Range(0x1)\n\
         \t/rpc.pb.go:1 +0x1\n\
         k8s.io/kubernetes/vendor/github.com/coreos/etcd/clientv3.(*retryKVClient).Range(0x1)\n\
         \t/retry.go:1 +0x1\n\
         k8s.io/kubernetes/vendor/github.com/coreos/etcd/clientv3.(*kv).Do(0x1)\n\
         \t/kv.go:1 +0x1\n\
         k8s.io/kubernetes/vendor/k8s.io/apiserver/pkg/storage/etcd3.(*store).Get(0x1)\n\
         \t/store.go:1 +0x1\n\
         k8s.io/kubernetes/pkg/registry/core/pod.(*REST).Get(0x1)\n\
         \t/rest.go:1 +0x1\n\
         \n\
         goroutine 9 [syscall, 413 minutes]:\n\
         syscall.Syscall6(0xf7, 0x1)\n\
         \t/usr/local/go/src/syscall/asm_linux_amd64.s:44 +0x5\n\
         os.(*Process).Wait(...)\n\
         \t/usr/local/go/src/os/exec.go:125\n\
         os/exec.(*Cmd).Wait(0xc0011dedc0, 0x0, 0x0)\n\
         \t/usr/local/go/src/os/exec/exec.go:474 +0x61\n\
         main.main()\n\
         \t/main.go:1 +0x1\n",
        "g236 IdleWorker blocked=github.com/x/op/pkg/controller.(*Controller).processNextItem under=github.com/x/op/pkg/controller.(*Controller).processNextItem\n\
         g7 BusyWorker blocked=github.com/x/op/pkg/controller.(*Controller).sync under=github.com/x/op/pkg/controller.(*Controller).sync\n\
         g8 Other blocked=k8s.io/kubernetes/vendor/github.com/coreos/etcd/clientv3.(*kv).Do under=k8s.io/kubernetes/pkg/registry/core/pod.(*REST).Get\n\
         g9 Other blocked=os/exec.(*Cmd).Wait under=main.main\n",
    );
}

#[test]
fn controller_keys() {
    for (reconciler, key) in [
        ("TenantControlPlaneReconciler", "tenantcontrolplane"),
        ("ClusterQueueReconciler", "clusterqueue"),
        ("SparkApplicationController", "sparkapplication"),
        ("Reconciler", "reconciler"),
        ("Foo", "foo"),
    ] {
        assert_eq!(controller_key(reconciler), key);
    }
}

#[test]
fn groups_collapse_identical_stacks() {
    let worker = |id: u32, wait: &str, arg: &str| {
        format!(
            "goroutine {id} [sync.Cond.Wait{wait}]:\n\
             sync.(*Cond).Wait({arg})\n\
             \t/usr/local/go/src/sync/cond.go:71 +0x85\n\
             k8s.io/client-go/util/workqueue.(*Typed[...]).Get(0x241eba0)\n\
             \t/q.go:277 +0xb2\n\
             {CR}.(*Controller[...]).processNextWorkItem(0x242b540, {arg})\n\
             \t/c.go:271 +0x5e\n\
             created by {CR}.(*Controller[...]).Start.func2 in goroutine {id}\n\
             \t/c.go:245 +0x6b8\n\n"
        )
    };
    let mut text = worker(30, ", 2 minutes", "0x1?") + &worker(12, "", "0x2") + &worker(20, ", 7 minutes", "{0x3, 0x4}");
    text += "goroutine 5 [select, 1 minutes]:\n\
             example.com/op.(*R).call(0x1)\n\
             \t/r.go:9 +0x1\n\
             example.com/op.(*R).Reconcile(0x1)\n\
             \t/r.go:3 +0x1\n\
             sigs.k8s.io/controller-runtime/pkg/internal/controller.(*Controller).Reconcile(0x1)\n\
             \t/c.go:116 +0x1\n\n\
             goroutine 6 [select, 1 minutes]:\n\
             example.com/op.(*R).call(0x9)\n\
             \t/r.go:9 +0x1\n\
             example.com/op.(*R).Reconcile(0x9)\n\
             \t/r.go:3 +0x1\n\
             sigs.k8s.io/controller-runtime/pkg/internal/controller.(*Controller).Reconcile(0x9)\n\
             \t/c.go:116 +0x1\n\n\
             goroutine 4 [chan receive, 40 minutes]:\n\
             sync.(*Cond).Wait(0x1)\n\
             \t/usr/local/go/src/sync/cond.go:71 +0x85\n\n\
             goroutine 8 [running]:\n\
             example.com/op.(*R).call(0x1)\n\
             \t/r.go:9 +0x1\n\
             example.com/op.(*R).Reconcile(0x1)\n\
             \t/r.go:3 +0x1\n\
             sigs.k8s.io/controller-runtime/pkg/internal/controller.(*Controller).Reconcile(0x1)\n\
             \t/c.go:116 +0x1\n";
    check_groups(
        &text,
        r#"
        x2 [select] ids=[5, 6] wait=1-1 BusyWorker L31 example.com/op.(*R).call
        x1 [chan receive] ids=[4] wait=40-40 Other L47 sync.(*Cond).Wait
        x3 [sync.Cond.Wait] ids=[12, 20, 30] wait=0-7 IdleWorker L1 sync.(*Cond).Wait
        x1 [running] ids=[8] BusyWorker L51 example.com/op.(*R).call
        "#,
    );
}
