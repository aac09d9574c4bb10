//! Goroutine dumps: every dump of `tests/corpus/goroutines/` (provenance in
//! `tests/corpus/INDEX.md`) parses to what the file shows, workers are told
//! apart on real stacks and on a kamaji-like dump, and no input panics.

use std::path::Path;

use proptest::prelude::*;
use reconscope::goroutine::*;
use reconscope::time::parse_rfc3339;

fn corpus(prefix: &str) -> Vec<u8> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/goroutines");
    let entry = std::fs::read_dir(&dir)
        .expect("corpus dir")
        .map(|e| e.expect("dir entry").path())
        // (Not the `.expect` beside it, read by tests/corpus_expect.rs.)
        .find(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with(prefix)) && p.extension().is_none_or(|e| e != "expect"))
        .unwrap_or_else(|| panic!("no corpus file {prefix}*"));
    std::fs::read(entry).expect("corpus file")
}

/// The one dump of a corpus file.
fn one_dump(prefix: &str) -> Dump {
    let text = corpus(prefix);
    assert!(has_dump(&text), "{prefix}");
    let mut dumps = parse_dumps(&text, 1);
    assert_eq!(dumps.len(), 1, "{prefix}: {dumps:#?}");
    dumps.remove(0)
}

fn by_id(d: &Dump, id: u64) -> &Goroutine {
    d.goroutines.iter().find(|g| g.id == Some(id)).unwrap_or_else(|| panic!("goroutine {id}"))
}

fn frame(func: &str, file: &str, line: u32) -> Frame {
    Frame { func: func.into(), file: file.into(), line }
}

fn funcs(g: &Goroutine) -> Vec<&str> {
    g.frames.iter().map(|f| f.func.as_str()).collect()
}

fn notes(d: &Dump) -> Vec<(u32, &str)> {
    d.diagnostics.iter().map(|n| (n.line, n.message.as_str())).collect()
}

const CR: &str = "sigs.k8s.io/controller-runtime/pkg/internal/controller";

// ---------------------------------------------------------------------------
// The corpus, file by file.
// ---------------------------------------------------------------------------

#[test]
fn c01_cri_fatal_error_all_goroutines() {
    let d = one_dump("01_");
    assert_eq!(d.kind, DumpKind::Traceback);
    assert_eq!(d.preamble.as_deref(), Some("fatal error: concurrent map writes"));
    assert_eq!((d.first_line, d.last_line), (5, 1503));
    let collected = parse_rfc3339(b"2026-02-03T19:00:16.67870267Z", false, 0).map(|p| p.ts);
    assert_eq!(d.collected, collected);
    assert_eq!(d.goroutines.len(), 108);
    assert!(d.goroutines.iter().all(|g| g.id.is_some() && g.count == 1));
    assert_eq!(d.goroutines.iter().filter(|g| g.wait_minutes == Some(2)).count(), 66);
    assert_eq!(notes(&d), vec![]);

    let g = by_id(&d, 313);
    assert_eq!((g.state.as_str(), g.line), ("running", 7));
    assert_eq!(
        g.frames[0],
        frame(
            "github.com/project-codeflare/appwrapper/internal/webhook.(*appWrapperWebhook).lookupResource",
            "/workspace/internal/webhook/appwrapper_webhook.go",
            292
        )
    );
    // `_` arguments.
    assert_eq!(
        g.frames[3],
        frame(
            "sigs.k8s.io/controller-runtime/pkg/webhook/admission.(*validatorForType).Handle",
            "/go/pkg/mod/sigs.k8s.io/controller-runtime@v0.20.3/pkg/webhook/admission/validator_custom.go",
            94
        )
    );
    assert_eq!(g.created_by, Some(frame("net/http.(*Server).Serve", "/usr/local/go/src/net/http/server.go", 3360)));
    assert_eq!(g.created_in, Some(203));

    let main = by_id(&d, 1);
    assert_eq!((main.state.as_str(), main.wait_minutes), ("select", Some(2)));
    assert_eq!(main.frames.last(), Some(&frame("main.main", "/workspace/cmd/main.go", 165)));
    assert_eq!(main.created_by, None);
    assert_eq!(by_id(&d, 557).state, "runnable");
    assert_eq!(by_id(&d, 50).frames[0], frame("os/signal.signal_recv", "/usr/local/go/src/runtime/sigqueue.go", 152));

    // The controller workers are idle in the generic workqueue's Get.
    let w = by_id(&d, 192);
    assert_eq!((w.state.as_str(), w.wait_minutes), ("sync.Cond.Wait", Some(2)));
    assert_eq!(w.frames[2], frame("k8s.io/client-go/util/workqueue.(*Typed[...]).Get", "/go/pkg/mod/k8s.io/client-go@v0.32.3/util/workqueue/queue.go", 277));
    assert_eq!(w.created_by.as_ref().map(|c| c.func.as_str()), Some(&*format!("{CR}.(*Controller[...]).Start.func2")));
    assert_eq!(w.created_in, Some(134));
    let roles: Vec<(u64, Role)> = d.goroutines.iter().map(|g| (g.id.unwrap_or(0), classify(g).role)).filter(|(_, r)| *r != Role::Other).collect();
    assert_eq!(roles, vec![(192, Role::IdleWorker), (270, Role::IdleWorker), (286, Role::IdleWorker)]);
    let info = classify(w);
    assert_eq!(info.call.map(|f| f.func), Some(format!("{CR}.(*Controller[...]).processNextWorkItem")));
    assert_eq!(info.reconciler, None);

    // The three workers have one stack; 286 has waited less than a minute.
    let groups = group(&d.goroutines);
    let idle = groups.iter().find(|g| g.info.role == Role::IdleWorker).expect("idle group");
    assert_eq!((idle.count, &idle.ids[..]), (3, &[192, 270, 286][..]));
    assert_eq!((idle.min_wait_minutes, idle.max_wait_minutes), (Some(0), Some(2)));
    assert_eq!(groups.iter().map(|g| g.count).sum::<u64>(), 108);
}

#[test]
fn c02_panic_in_reconcile() {
    let d = one_dump("02_");
    assert_eq!(d.preamble.as_deref(), Some("panic: runtime error: invalid memory address or nil pointer dereference [recovered]"));
    assert_eq!((d.first_line, d.last_line), (1, 29));
    assert_eq!(d.goroutines.len(), 1);
    let g = &d.goroutines[0];
    assert_eq!((g.id, g.state.as_str(), g.line, g.frames.len()), (Some(1014), "running", 5, 11));
    assert_eq!(g.frames[1], frame("panic", "/usr/local/go/src/runtime/panic.go", 770));
    assert_eq!(
        g.frames[5],
        frame("sigs.k8s.io/kueue/pkg/controller/core.(*ClusterQueueReconciler).Reconcile", "/workspace/pkg/controller/core/clusterqueue_controller.go", 198)
    );
    assert_eq!(g.created_in, Some(820));

    let info = classify(g);
    assert_eq!(info.role, Role::BusyWorker);
    // Through the leaderAwareReconciler wrapper to the reconciler itself.
    assert_eq!(info.reconciler.as_deref(), Some("ClusterQueueReconciler"));
    assert_eq!(info.reconciler_func.as_deref(), Some("sigs.k8s.io/kueue/pkg/controller/core.(*ClusterQueueReconciler).Reconcile"));
    assert_eq!(controller_key("ClusterQueueReconciler"), "clusterqueue");
    assert_eq!(info.under.map(|f| f.func).as_deref(), Some("sigs.k8s.io/kueue/pkg/queue.(*ClusterQueue).Pending"));
}

#[test]
fn c03_sigquit_go123_gp_m_headers_and_fp_sp_pc() {
    let d = one_dump("03_");
    assert_eq!(d.preamble.as_deref(), Some("SIGQUIT: quit"));
    assert_eq!((d.first_line, d.last_line), (1, 88));
    let ids: Vec<Option<u64>> = d.goroutines.iter().map(|g| g.id).collect();
    assert_eq!(ids, vec![Some(0), Some(1), Some(2)]);
    let g0 = by_id(&d, 0);
    assert_eq!((g0.state.as_str(), g0.frames.len()), ("idle", 7));
    assert_eq!(g0.frames[0], frame("internal/runtime/syscall.Syscall6", "/home/michael/sdk/go1.23.0/src/internal/runtime/syscall/asm_linux_amd64.s", 36));
    let g1 = by_id(&d, 1);
    assert_eq!(g1.state, "IO wait");
    assert!(g1.frames.contains(&frame("net.(*TCPConn).Read", "<autogenerated>", 1)));
    assert!(g1.frames.contains(&frame("io.ReadFull", "/home/michael/sdk/go1.23.0/src/io/io.go", 354)));
    assert_eq!(g1.frames.last(), Some(&frame("runtime.goexit", "/home/michael/sdk/go1.23.0/src/runtime/asm_amd64.s", 1700)));
    assert_eq!(classify(g1).under.map(|f| f.func).as_deref(), Some("github.com/gokrazy/rsync/internal/rsyncwire.(*MultiplexReader).ReadMsg"));
    let g2 = by_id(&d, 2);
    assert_eq!(g2.state, "force gc (idle)");
    assert_eq!(g2.created_by, Some(frame("runtime.init.7", "/home/michael/sdk/go1.23.0/src/runtime/proc.go", 325)));
    assert_eq!(g2.created_in, Some(1));
    assert_eq!(notes(&d), vec![]);
}

#[test]
fn c04_debug1_in_kubectl_logs() {
    let d = one_dump("04_");
    assert_eq!(d.kind, DumpKind::Debug1);
    // The app's own log lines before the profile are not part of it.
    assert_eq!((d.first_line, d.last_line), (4, 44));
    assert_eq!((d.preamble.as_deref(), d.total), (Some("goroutine profile: total 83"), Some(83)));
    let counts: Vec<u64> = d.goroutines.iter().map(|g| g.count).collect();
    assert_eq!(counts, vec![9, 8, 5, 5, 5, 5, 5, 3, 3]);
    assert!(d.goroutines.iter().all(|g| g.id.is_none() && g.state.is_empty() && g.wait_minutes.is_none()));
    assert_eq!(
        d.goroutines[0].frames,
        vec![frame(
            "github.com/go-sql-driver/mysql.(*mysqlConn).startWatcher.func1",
            "/root/go/src/yunion.io/x/onecloud/vendor/github.com/go-sql-driver/mysql/connection.go",
            621
        )]
    );
    let watch = &d.goroutines[4];
    assert_eq!(watch.frames.len(), 15);
    assert_eq!(
        watch.frames[14],
        frame(
            "go.etcd.io/etcd/client/v3.(*watchGrpcStream).serveWatchClient",
            "/root/go/src/yunion.io/x/onecloud/vendor/go.etcd.io/etcd/client/v3/watch.go",
            757
        )
    );
    // Below grpc and the generated watch client, the clientv3 watch loop.
    assert_eq!(classify(watch).call, Some(watch.frames[14].clone()));
    // The last line has a trailing space.
    assert_eq!(d.goroutines[8].frames[0].line, 170);
    assert_eq!(notes(&d), vec![]);
}

#[test]
fn c05_debug1_mutex_pileup() {
    let d = one_dump("05_");
    assert_eq!((d.kind, d.total), (DumpKind::Debug1, Some(722373)));
    let counts: Vec<u64> = d.goroutines.iter().map(|g| g.count).collect();
    assert_eq!(counts, vec![717594, 4175, 1, 1]);
    assert_eq!(d.goroutines.iter().map(|g| g.frames.len()).sum::<usize>(), 73);
    let pileup = &d.goroutines[0];
    assert_eq!(
        pileup.frames[..2],
        [frame("sync.runtime_SemacquireMutex", "/usr/local/go/src/runtime/sema.go", 71), frame("sync.(*Mutex).Lock", "/usr/local/go/src/sync/mutex.go", 134)]
    );
    assert_eq!(classify(pileup).call.map(|f| f.func).as_deref(), Some("github.com/docker/docker/daemon.(*Daemon).ContainerInspectCurrent"));
    // The containerd call: vendored grpc frames are plumbing too.
    let exec = &d.goroutines[3];
    assert_eq!(exec.frames[0].func, "github.com/docker/docker/vendor/google.golang.org/grpc/transport.(*Stream).waitOnHeader");
    assert_eq!(
        classify(exec).call.map(|f| f.func).as_deref(),
        Some("github.com/docker/docker/vendor/github.com/containerd/containerd.namespaceInterceptor.unary")
    );
    let groups = group(&d.goroutines);
    assert_eq!(groups[0].count, 717594);
}

#[test]
fn c06_debug2_two_space_indents_777_minutes() {
    let d = one_dump("06_");
    assert_eq!((d.first_line, d.last_line), (1, 61));
    assert_eq!(d.goroutines.len(), 2);
    let g = by_id(&d, 87725);
    assert_eq!((g.state.as_str(), g.wait_minutes), ("select", Some(635)));
    let g = by_id(&d, 87733);
    assert_eq!((g.state.as_str(), g.wait_minutes, g.line, g.frames.len()), ("select", Some(777), 15, 22));
    assert_eq!(g.frames[1].line, 333);
    assert_eq!(g.frames[21], frame("net/http.(*conn).serve", "/usr/local/go/src/net/http/server.go", 1919));
    assert_eq!(g.created_by, Some(frame("net/http.(*Server).Serve", "/usr/local/go/src/net/http/server.go", 2957)));
    assert_eq!(g.created_in, None);
    let info = classify(g);
    assert_eq!(info.role, Role::Other);
    // The innermost frame below the grpc Invoke that is not grpc.
    assert_eq!(info.call.map(|f| f.func).as_deref(), Some("github.com/docker/docker/vendor/github.com/containerd/containerd.namespaceInterceptor.unary"));
    assert_eq!(notes(&d), vec![]);
}

#[test]
fn c07_excerpts_with_cut_blocks() {
    let d = one_dump("07_");
    // Line 1 is an annotation; frames whose header was cut start the dump.
    assert_eq!((d.first_line, d.last_line), (2, 80));
    let heads: Vec<(Option<u64>, u32)> = d.goroutines.iter().map(|g| (g.id, g.line)).collect();
    assert_eq!(
        heads,
        vec![(None, 2), (Some(14936), 15), (Some(14954), 21), (None, 27), (None, 42), (None, 57), (Some(14942), 62), (Some(14910), 70), (Some(14955), 76)]
    );
    let first = &d.goroutines[0];
    assert_eq!(first.frames[0], frame("go.etcd.io/etcd/client/v3.(*retryLeaseClient).LeaseGrant", "/home/runner/work/etcd/etcd/client/v3/retry.go", 144));
    assert_eq!(first.created_by.as_ref().map(|c| c.func.as_str()), Some("go.etcd.io/etcd/client/v3/leasing.NewKV"));
    assert_eq!(classify(first).call.map(|f| f.func).as_deref(), Some("go.etcd.io/etcd/client/v3.(*lessor).Grant"));
    let io = by_id(&d, 14954);
    assert_eq!((io.state.as_str(), io.wait_minutes), ("IO wait", Some(14)));
    assert_eq!(io.frames, vec![frame("internal/poll.runtime_pollWait", "/opt/hostedtoolcache/go/1.17.8/x64/src/runtime/netpoll.go", 234)]);
    assert_eq!(d.goroutines[5].frames.last(), Some(&frame("main.main", "_testmain.go", 175)));
    assert_eq!(by_id(&d, 14955).wait_minutes, Some(14));
    let n = notes(&d);
    assert!(n.contains(&(2, "frames without a goroutine header (its header line is missing)")), "{n:?}");
    assert!(n.contains(&(24, "line 24 is a cut frame line of goroutine 14954 (skipped)")), "{n:?}");
}

#[test]
fn c08_client_go_workers_stuck_and_idle() {
    let d = one_dump("08_");
    assert_eq!((d.first_line, d.last_line), (2, 85));
    let ids: Vec<u64> = d.goroutines.iter().filter_map(|g| g.id).collect();
    assert_eq!(ids, vec![243, 191, 236, 25, 193, 251]);

    let stuck = by_id(&d, 243);
    assert_eq!((stuck.state.as_str(), stuck.wait_minutes), ("syscall", Some(413)));
    let info = classify(stuck);
    assert_eq!(info.call, Some(frame("os/exec.(*Cmd).Wait", "/usr/local/go/src/os/exec/exec.go", 474)));
    // The excerpt stops before the worker's frames: nothing tells it is one.
    assert_eq!(info.role, Role::Other);

    let submit = classify(by_id(&d, 191));
    assert_eq!(submit.call.map(|f| f.func).as_deref(), Some("os/exec.(*Cmd).Wait"));
    assert_eq!(
        submit.under.map(|f| f.func).as_deref(),
        Some("github.com/GoogleCloudPlatform/spark-on-k8s-operator/pkg/controller/sparkapplication.runSparkSubmit")
    );

    let idle = by_id(&d, 236);
    assert_eq!((idle.state.as_str(), idle.wait_minutes), ("sync.Cond.Wait", Some(422)));
    assert_eq!(classify(idle).role, Role::IdleWorker);
    assert_eq!(classify(by_id(&d, 251)).role, Role::IdleWorker);
    assert_eq!(by_id(&d, 251).wait_minutes, None);
    assert_eq!(by_id(&d, 25).wait_minutes, Some(1383));
    // The separator made of four spaces.
    assert_eq!(by_id(&d, 193).line, 63);
    assert!(notes(&d).contains(&(86, "dump is cut off inside goroutine 251: line 86 is a cut frame line")));
}

#[test]
fn c09_grpc_invoke_cut_off() {
    let d = one_dump("09_");
    let g = by_id(&d, 41);
    assert_eq!((g.state.as_str(), g.wait_minutes, g.frames.len()), ("select", Some(10), 7));
    assert_eq!(
        g.frames[0],
        frame(
            "google.golang.org/grpc/internal/transport.(*Stream).waitOnHeader",
            "/root/go/pkg/mod/google.golang.org/grpc@v1.58.3/internal/transport/transport.go",
            327
        )
    );
    // Every visible frame is grpc: the caller is in the lines that were cut.
    assert_eq!(classify(g).call, None);
    assert_eq!(notes(&d), vec![(16, "dump is cut off inside goroutine 41: line 16 is a cut frame line")]);
}

#[test]
fn c10_trimpath_fp_sp_pc_gp_m_nil() {
    let d = one_dump("10_");
    assert_eq!((d.first_line, d.last_line), (1, 20));
    let main = &d.goroutines[0];
    assert_eq!(main.id, None);
    assert_eq!(main.frames[0], frame("runtime.selectgo", "runtime/select.go", 327));
    assert!(main.frames.contains(&frame("main.main", "./main.go", 217)));
    assert_eq!(main.frames.last(), Some(&frame("runtime.goexit", "runtime/asm_amd64.s", 1695)));
    let g2 = by_id(&d, 2);
    assert_eq!((g2.state.as_str(), g2.frames.len()), ("force gc (idle)", 0));
    assert_eq!(
        notes(&d),
        vec![(1, "frames without a goroutine header (its header line is missing)"), (21, "dump is cut off inside goroutine 2: line 21 is a cut frame line")]
    );
}

#[test]
fn c11_gp_m_nil_with_minutes() {
    let d = one_dump("11_");
    let g = by_id(&d, 131);
    assert_eq!((g.state.as_str(), g.wait_minutes), ("select", Some(3)));
    assert_eq!(funcs(g), vec!["runtime.gopark", "runtime.selectgo", "google.golang.org/grpc.(*pickerWrapper).pick"]);
    assert_eq!(g.frames[2].line, 120);
}

#[test]
fn c12_debug1_kube_apiserver() {
    let d = one_dump("12_");
    assert_eq!((d.kind, d.total), (DumpKind::Debug1, Some(49531)));
    assert_eq!(d.goroutines.len(), 1);
    let g = &d.goroutines[0];
    assert_eq!(g.count, 20276);
    assert_eq!(g.frames[0].func, "k8s.io/kubernetes/vendor/google.golang.org/grpc/transport.wait");
    assert_eq!(g.frames[0].line, 577);
    assert_eq!(g.frames.last().map(|f| (f.func.as_str(), f.line)), Some(("k8s.io/kubernetes/vendor/google.golang.org/grpc.invoke", 191)));
}

// ---------------------------------------------------------------------------
// A kamaji controller manager, stuck in etcd.
// ---------------------------------------------------------------------------

const KAMAJI: &str = "\
SIGQUIT: quit
PC=0x47664e m=0 sigcode=128

goroutine 1337 [select, 15 minutes]:
google.golang.org/grpc/internal/transport.(*Stream).waitOnHeader(0xc0012a4d80)
\t/go/pkg/mod/google.golang.org/grpc@v1.67.1/internal/transport/transport.go:331 +0x1f9
google.golang.org/grpc/internal/transport.(*Stream).RecvCompress(...)
\t/go/pkg/mod/google.golang.org/grpc@v1.67.1/internal/transport/transport.go:346
google.golang.org/grpc.(*csAttempt).recvMsg(0xc000f2e1a0, {0x2a1b5e0, 0xc0011f8a00}, 0x0)
\t/go/pkg/mod/google.golang.org/grpc@v1.67.1/stream.go:1066 +0xab
google.golang.org/grpc.(*clientStream).RecvMsg.func1(0x0?)
\t/go/pkg/mod/google.golang.org/grpc@v1.67.1/stream.go:917 +0x1f
google.golang.org/grpc.(*clientStream).withRetry(0xc0014b6000, 0xc001893a38, 0xc001893a08)
\t/go/pkg/mod/google.golang.org/grpc@v1.67.1/stream.go:768 +0x13a
google.golang.org/grpc.(*clientStream).RecvMsg(0xc0014b6000, {0x2a1b5e0?, 0xc0011f8a00?})
\t/go/pkg/mod/google.golang.org/grpc@v1.67.1/stream.go:916 +0x110
google.golang.org/grpc.invoke({0x2e3a4b8?, 0xc0012a4c00?}, {0x29c7d1a?, 0x0?}, {0x2979560, 0xc001b0e0f0}, {0x2a1b5e0, 0xc0011f8a00}, 0x0?, {0xc0003c2f00, ...})
\t/go/pkg/mod/google.golang.org/grpc@v1.67.1/call.go:73 +0xd7
go.etcd.io/etcd/client/v3.(*Client).unaryClientInterceptor.func1({0x2e3a4b8, 0xc0012a4c00}, {0x29c7d1a, 0x1d}, {0x2979560, 0xc001b0e0f0}, {0x2a1b5e0, 0xc0011f8a00}, 0xc000438c08, 0x2b8f1e8, ...)
\t/go/pkg/mod/go.etcd.io/etcd/client/v3@v3.5.17/retry_interceptor.go:63 +0x1b4
google.golang.org/grpc.(*ClientConn).Invoke(0xc000438c08, {0x2e3a4b8?, 0xc0012a4c00?}, {0x29c7d1a?, 0x1d?}, {0x2979560?, 0xc001b0e0f0?}, {0x2a1b5e0?, 0xc0011f8a00?}, {0xc0003c2ec0?, ...})
\t/go/pkg/mod/google.golang.org/grpc@v1.67.1/call.go:35 +0x223
go.etcd.io/etcd/api/v3/etcdserverpb.(*authClient).UserGet(0xc000a16c70, {0x2e3a4b8, 0xc0012a4c00}, 0xc001b0e0f0, {0xc0003c2ec0, 0x3, 0x3})
\t/go/pkg/mod/go.etcd.io/etcd/api/v3@v3.5.17/etcdserverpb/rpc.pb.go:7312 +0xc8
go.etcd.io/etcd/client/v3.(*authClient).UserGet(0xc000a16c80, {0x2e3a4b8, 0xc0012a4c00}, {0xc0014e2a80?, 0x0?})
\t/go/pkg/mod/go.etcd.io/etcd/client/v3@v3.5.17/auth.go:193 +0x9b
github.com/clastix/kamaji/internal/datastore.(*EtcdClient).UserExists(0xc0006b3e30, {0x2e3a4b8, 0xc0012a4c00}, {0xc0014e2a80, 0x1a})
\t/workspace/internal/datastore/etcd.go:97 +0x7c
github.com/clastix/kamaji/internal/resources/datastore.(*Setup).CreateOrUpdate(0xc0010e2f00, {0x2e3a4b8, 0xc0012a4c00}, 0xc001a4c008)
\t/workspace/internal/resources/datastore/datastore_setup.go:112 +0x1c5
github.com/clastix/kamaji/internal/resources.Handle({0x2e3a4b8, 0xc0012a4c00}, {0x2e5c0a0, 0xc0010e2f00}, 0xc001a4c008)
\t/workspace/internal/resources/resource.go:69 +0x7e
github.com/clastix/kamaji/controllers.(*TenantControlPlaneReconciler).Reconcile(0xc0004e2a20, {0x2e3a4b8, 0xc0012a4a80}, {{{0xc001432a40, 0xd}, {0xc001432a30, 0x6}}})
\t/workspace/controllers/tenantcontrolplane_controller.go:211 +0x13d4
sigs.k8s.io/controller-runtime/pkg/internal/controller.(*Controller[...]).Reconcile(0xc0013d2a50?, {0x2e3a4b8?, 0xc0012a4a80?}, {{{0xc001432a40?, 0x0?}, {0xc001432a30?, 0x0?}}})
\t/go/pkg/mod/sigs.k8s.io/controller-runtime@v0.20.4/pkg/internal/controller/controller.go:116 +0xbf
sigs.k8s.io/controller-runtime/pkg/internal/controller.(*Controller[...]).reconcileHandler(0x2e5ec60, {0x2e3a4f0, 0xc0005d7f40}, {{{0xc001432a40, 0xd}, {0xc001432a30, 0x6}}}, 0x0)
\t/go/pkg/mod/sigs.k8s.io/controller-runtime@v0.20.4/pkg/internal/controller/controller.go:303 +0x3a7
sigs.k8s.io/controller-runtime/pkg/internal/controller.(*Controller[...]).processNextWorkItem(0x2e5ec60, {0x2e3a4f0, 0xc0005d7f40})
\t/go/pkg/mod/sigs.k8s.io/controller-runtime@v0.20.4/pkg/internal/controller/controller.go:263 +0x20e
sigs.k8s.io/controller-runtime/pkg/internal/controller.(*Controller[...]).Start.func2.2()
\t/go/pkg/mod/sigs.k8s.io/controller-runtime@v0.20.4/pkg/internal/controller/controller.go:224 +0x85
created by sigs.k8s.io/controller-runtime/pkg/internal/controller.(*Controller[...]).Start.func2 in goroutine 250
\t/go/pkg/mod/sigs.k8s.io/controller-runtime@v0.20.4/pkg/internal/controller/controller.go:220 +0x48d

goroutine 1338 [sync.Cond.Wait, 15 minutes]:
sync.runtime_notifyListWait(0xc0005ee690, 0x12)
\t/usr/local/go/src/runtime/sema.go:587 +0x159
sync.(*Cond).Wait(0xc0005ee680?)
\t/usr/local/go/src/sync/cond.go:71 +0x85
k8s.io/client-go/util/workqueue.(*Typed[...]).Get(0x2e5f000)
\t/go/pkg/mod/k8s.io/client-go@v0.32.3/util/workqueue/queue.go:277 +0xb2
sigs.k8s.io/controller-runtime/pkg/internal/controller.(*Controller[...]).processNextWorkItem(0x2e5ec60, {0x2e3a4f0, 0xc0005d7f40})
\t/go/pkg/mod/sigs.k8s.io/controller-runtime@v0.20.4/pkg/internal/controller/controller.go:257 +0x5e
sigs.k8s.io/controller-runtime/pkg/internal/controller.(*Controller[...]).Start.func2.2()
\t/go/pkg/mod/sigs.k8s.io/controller-runtime@v0.20.4/pkg/internal/controller/controller.go:224 +0x85
created by sigs.k8s.io/controller-runtime/pkg/internal/controller.(*Controller[...]).Start.func2 in goroutine 250
\t/go/pkg/mod/sigs.k8s.io/controller-runtime@v0.20.4/pkg/internal/controller/controller.go:220 +0x48d

goroutine 1339 [sync.Cond.Wait, 15 minutes]:
sync.runtime_notifyListWait(0xc0005ee690, 0x13)
\t/usr/local/go/src/runtime/sema.go:587 +0x159
sync.(*Cond).Wait(0xc0005ee680?)
\t/usr/local/go/src/sync/cond.go:71 +0x85
k8s.io/client-go/util/workqueue.(*Typed[...]).Get(0x2e5f000)
\t/go/pkg/mod/k8s.io/client-go@v0.32.3/util/workqueue/queue.go:277 +0xb2
sigs.k8s.io/controller-runtime/pkg/internal/controller.(*Controller[...]).processNextWorkItem(0x2e5ec60, {0x2e3a4f0, 0xc0005d7f40})
\t/go/pkg/mod/sigs.k8s.io/controller-runtime@v0.20.4/pkg/internal/controller/controller.go:257 +0x5e
sigs.k8s.io/controller-runtime/pkg/internal/controller.(*Controller[...]).Start.func2.2()
\t/go/pkg/mod/sigs.k8s.io/controller-runtime@v0.20.4/pkg/internal/controller/controller.go:224 +0x85
created by sigs.k8s.io/controller-runtime/pkg/internal/controller.(*Controller[...]).Start.func2 in goroutine 250
\t/go/pkg/mod/sigs.k8s.io/controller-runtime@v0.20.4/pkg/internal/controller/controller.go:220 +0x48d

goroutine 1341 [select, 12 minutes]:
google.golang.org/grpc/internal/transport.(*Stream).waitOnHeader(0xc0015a8000)
\t/go/pkg/mod/google.golang.org/grpc@v1.67.1/internal/transport/transport.go:331 +0x1f9
google.golang.org/grpc/internal/transport.(*Stream).RecvCompress(...)
\t/go/pkg/mod/google.golang.org/grpc@v1.67.1/internal/transport/transport.go:346
google.golang.org/grpc.(*csAttempt).recvMsg(0xc001c2e1a0, {0x2a1b5e0, 0xc0011f9b00}, 0x0)
\t/go/pkg/mod/google.golang.org/grpc@v1.67.1/stream.go:1066 +0xab
google.golang.org/grpc.(*clientStream).RecvMsg.func1(0x0?)
\t/go/pkg/mod/google.golang.org/grpc@v1.67.1/stream.go:917 +0x1f
google.golang.org/grpc.(*clientStream).withRetry(0xc0015b6000, 0xc001993a38, 0xc001993a08)
\t/go/pkg/mod/google.golang.org/grpc@v1.67.1/stream.go:768 +0x13a
google.golang.org/grpc.(*clientStream).RecvMsg(0xc0015b6000, {0x2a1b5e0?, 0xc0011f9b00?})
\t/go/pkg/mod/google.golang.org/grpc@v1.67.1/stream.go:916 +0x110
google.golang.org/grpc.invoke({0x2e3a4b8?, 0xc0013a4c00?}, {0x29c7d1a?, 0x0?}, {0x2979560, 0xc001c0e0f0}, {0x2a1b5e0, 0xc0011f9b00}, 0x0?, {0xc0004c2f00, ...})
\t/go/pkg/mod/google.golang.org/grpc@v1.67.1/call.go:73 +0xd7
go.etcd.io/etcd/client/v3.(*Client).unaryClientInterceptor.func1({0x2e3a4b8, 0xc0013a4c00}, {0x29c7d1a, 0x1d}, {0x2979560, 0xc001c0e0f0}, {0x2a1b5e0, 0xc0011f9b00}, 0xc000438c08, 0x2b8f1e8, ...)
\t/go/pkg/mod/go.etcd.io/etcd/client/v3@v3.5.17/retry_interceptor.go:63 +0x1b4
google.golang.org/grpc.(*ClientConn).Invoke(0xc000438c08, {0x2e3a4b8?, 0xc0013a4c00?}, {0x29c7d1a?, 0x1d?}, {0x2979560?, 0xc001c0e0f0?}, {0x2a1b5e0?, 0xc0011f9b00?}, {0xc0004c2ec0?, ...})
\t/go/pkg/mod/google.golang.org/grpc@v1.67.1/call.go:35 +0x223
go.etcd.io/etcd/api/v3/etcdserverpb.(*authClient).UserGet(0xc000a16c70, {0x2e3a4b8, 0xc0013a4c00}, 0xc001c0e0f0, {0xc0004c2ec0, 0x3, 0x3})
\t/go/pkg/mod/go.etcd.io/etcd/api/v3@v3.5.17/etcdserverpb/rpc.pb.go:7312 +0xc8
go.etcd.io/etcd/client/v3.(*authClient).UserGet(0xc000a16c80, {0x2e3a4b8, 0xc0013a4c00}, {0xc0015e2a80?, 0x0?})
\t/go/pkg/mod/go.etcd.io/etcd/client/v3@v3.5.17/auth.go:193 +0x9b
github.com/clastix/kamaji/internal/datastore.(*EtcdClient).UserExists(0xc0006b3e30, {0x2e3a4b8, 0xc0013a4c00}, {0xc0015e2a80, 0x1a})
\t/workspace/internal/datastore/etcd.go:97 +0x7c
github.com/clastix/kamaji/internal/resources/datastore.(*Setup).CreateOrUpdate(0xc0011e2f00, {0x2e3a4b8, 0xc0013a4c00}, 0xc001b4c008)
\t/workspace/internal/resources/datastore/datastore_setup.go:112 +0x1c5
github.com/clastix/kamaji/internal/resources.Handle({0x2e3a4b8, 0xc0013a4c00}, {0x2e5c0a0, 0xc0011e2f00}, 0xc001b4c008)
\t/workspace/internal/resources/resource.go:69 +0x7e
github.com/clastix/kamaji/controllers.(*TenantControlPlaneReconciler).Reconcile(0xc0004e2a20, {0x2e3a4b8, 0xc0013a4a80}, {{{0xc001532a40, 0xd}, {0xc001532a30, 0x6}}})
\t/workspace/controllers/tenantcontrolplane_controller.go:211 +0x13d4
sigs.k8s.io/controller-runtime/pkg/internal/controller.(*Controller[...]).Reconcile(0xc0013d2a50?, {0x2e3a4b8?, 0xc0013a4a80?}, {{{0xc001532a40?, 0x0?}, {0xc001532a30?, 0x0?}}})
\t/go/pkg/mod/sigs.k8s.io/controller-runtime@v0.20.4/pkg/internal/controller/controller.go:116 +0xbf
sigs.k8s.io/controller-runtime/pkg/internal/controller.(*Controller[...]).reconcileHandler(0x2e5ec60, {0x2e3a4f0, 0xc0005d7f40}, {{{0xc001532a40, 0xd}, {0xc001532a30, 0x6}}}, 0x0)
\t/go/pkg/mod/sigs.k8s.io/controller-runtime@v0.20.4/pkg/internal/controller/controller.go:303 +0x3a7
sigs.k8s.io/controller-runtime/pkg/internal/controller.(*Controller[...]).processNextWorkItem(0x2e5ec60, {0x2e3a4f0, 0xc0005d7f40})
\t/go/pkg/mod/sigs.k8s.io/controller-runtime@v0.20.4/pkg/internal/controller/controller.go:263 +0x20e
sigs.k8s.io/controller-runtime/pkg/internal/controller.(*Controller[...]).Start.func2.2()
\t/go/pkg/mod/sigs.k8s.io/controller-runtime@v0.20.4/pkg/internal/controller/controller.go:224 +0x85
created by sigs.k8s.io/controller-runtime/pkg/internal/controller.(*Controller[...]).Start.func2 in goroutine 250
\t/go/pkg/mod/sigs.k8s.io/controller-runtime@v0.20.4/pkg/internal/controller/controller.go:220 +0x48d

goroutine 212 [IO wait, 15 minutes]:
internal/poll.runtime_pollWait(0x7f4e849ef8a8, 0x72)
\t/usr/local/go/src/runtime/netpoll.go:351 +0x85
internal/poll.(*pollDesc).wait(0xc0001f5780?, 0xc000b9aa80?, 0x0)
\t/usr/local/go/src/internal/poll/fd_poll_runtime.go:84 +0x27
internal/poll.(*pollDesc).waitRead(...)
\t/usr/local/go/src/internal/poll/fd_poll_runtime.go:89
internal/poll.(*FD).Accept(0xc0001f5780)
\t/usr/local/go/src/internal/poll/fd_unix.go:620 +0x295
net.(*netFD).accept(0xc0001f5780)
\t/usr/local/go/src/net/fd_unix.go:172 +0x29
net.(*TCPListener).accept(0xc000b3e0c0)
\t/usr/local/go/src/net/tcpsock_posix.go:159 +0x1e
net.(*TCPListener).Accept(0xc000b3e0c0)
\t/usr/local/go/src/net/tcpsock.go:372 +0x30
net/http.(*Server).Serve(0xc0002f8c00, {0x2e2a9d0, 0xc000b3e0c0})
\t/usr/local/go/src/net/http/server.go:3330 +0x30c
sigs.k8s.io/controller-runtime/pkg/manager.(*Server).serve(0xc0004c2a80)
\t/go/pkg/mod/sigs.k8s.io/controller-runtime@v0.20.4/pkg/manager/server.go:107 +0x5c
created by sigs.k8s.io/controller-runtime/pkg/manager.(*Server).Start in goroutine 213
\t/go/pkg/mod/sigs.k8s.io/controller-runtime@v0.20.4/pkg/manager/server.go:80 +0xd5
";

#[test]
fn kamaji_worker_stuck_in_etcd() {
    let dumps = parse_dumps(KAMAJI.as_bytes(), 1);
    assert_eq!(dumps.len(), 1);
    let d = &dumps[0];
    assert_eq!(d.preamble.as_deref(), Some("SIGQUIT: quit"));
    assert_eq!(notes(d), vec![]);
    let g = by_id(d, 1337);
    assert_eq!((g.state.as_str(), g.wait_minutes, g.created_in, g.frames.len()), ("select", Some(15), Some(250), 19));

    let info = classify(g);
    assert_eq!(info.role, Role::BusyWorker);
    assert_eq!(info.reconciler.as_deref(), Some("TenantControlPlaneReconciler"));
    assert_eq!(info.reconciler_func.as_deref(), Some("github.com/clastix/kamaji/controllers.(*TenantControlPlaneReconciler).Reconcile"));
    assert_eq!(controller_key(info.reconciler.as_deref().unwrap_or_default()), "tenantcontrolplane");
    assert_eq!(info.call, Some(frame("go.etcd.io/etcd/client/v3.(*authClient).UserGet", "/go/pkg/mod/go.etcd.io/etcd/client/v3@v3.5.17/auth.go", 193)));
    assert_eq!(info.under, Some(frame("github.com/clastix/kamaji/internal/datastore.(*EtcdClient).UserExists", "/workspace/internal/datastore/etcd.go", 97)));

    for id in [1338, 1339] {
        let info = classify(by_id(d, id));
        assert_eq!((info.role, info.reconciler), (Role::IdleWorker, None));
    }
    let server = classify(by_id(d, 212));
    assert_eq!(server.role, Role::Other);
    assert_eq!(server.call.map(|f| f.func).as_deref(), Some("sigs.k8s.io/controller-runtime/pkg/manager.(*Server).serve"));
    assert_eq!(server.under, None);
}

#[test]
fn kamaji_groups() {
    let d = &parse_dumps(KAMAJI.as_bytes(), 1)[0];
    let groups = group(&d.goroutines);
    let summary: Vec<String> =
        groups.iter().map(|g| format!("x{} [{}] {:?} {:?}-{:?} {:?}", g.count, g.state, g.ids, g.min_wait_minutes, g.max_wait_minutes, g.info.role)).collect();
    assert_eq!(
        summary,
        [
            "x2 [select] [1337, 1341] Some(12)-Some(15) BusyWorker",
            "x2 [sync.Cond.Wait] [1338, 1339] Some(15)-Some(15) IdleWorker",
            "x1 [IO wait] [212] Some(15)-Some(15) Other",
        ]
    );
    assert_eq!(groups[0].first_line, 4);
    assert_eq!(groups[0].info.reconciler.as_deref(), Some("TenantControlPlaneReconciler"));
}

// ---------------------------------------------------------------------------
// The same dump damaged or wrapped.
// ---------------------------------------------------------------------------

/// Goroutines without their line numbers, to compare dumps whose lines moved.
fn stacks(d: &Dump) -> Vec<Goroutine> {
    d.goroutines.iter().map(|g| Goroutine { line: 0, ..g.clone() }).collect()
}

#[test]
fn kamaji_wrapped_by_cri_kubectl_docker_and_spaces() {
    let plain = &parse_dumps(KAMAJI.as_bytes(), 1)[0];
    let times = ["2025-09-06T23:51:03.123456789Z", "2025-09-06T23:51:03.12345Z", "2025-09-06T23:51:03Z"];
    let wrap = |f: &dyn Fn(usize, &str) -> String| -> Vec<u8> { KAMAJI.lines().enumerate().map(|(i, l)| f(i, l) + "\n").collect::<String>().into_bytes() };
    let cri = wrap(&|i, l| {
        if l.is_empty() && i % 2 == 0 {
            format!("{} stderr F", times[i % 3])
        } else {
            format!("{} stderr F {l}", times[i % 3])
        }
    });
    let kubectl = wrap(&|i, l| format!("{} {l}", times[i % 3]));
    let docker = wrap(&|i, l| {
        let escaped = l.replace('\\', "\\\\").replace('"', "\\\"").replace('\t', "\\t");
        format!("{{\"log\":\"{escaped}\\n\",\"stream\":\"stderr\",\"time\":\"{}\"}}", times[i % 3])
    });
    let spaces = KAMAJI.replace('\t', "        ").into_bytes();
    let first = parse_rfc3339(times[0].as_bytes(), false, 0).map(|p| p.ts);
    for (name, text, collected) in [("cri", cri, first), ("kubectl", kubectl, first), ("docker", docker, first), ("spaces", spaces, None)] {
        let dumps = parse_dumps(&text, 1);
        assert_eq!(dumps.len(), 1, "{name}");
        assert_eq!(dumps[0].goroutines, plain.goroutines, "{name}");
        assert_eq!((dumps[0].first_line, dumps[0].last_line, dumps[0].collected), (plain.first_line, plain.last_line, collected), "{name}");
        assert_eq!(notes(&dumps[0]), vec![], "{name}");
    }
}

#[test]
fn kamaji_with_interleaved_log_lines() {
    let plain = &parse_dumps(KAMAJI.as_bytes(), 1)[0];
    let mut text = String::new();
    let mut inserted = 0;
    let lines = KAMAJI.lines().count();
    for (i, l) in KAMAJI.lines().enumerate() {
        text.push_str(l);
        text.push('\n');
        if i > 3 && i % 7 == 0 && i + 1 < lines {
            text.push_str("2025-09-06T23:51:03Z\tINFO\tcontroller\tReconciling\t{\"controller\": \"tenantcontrolplane\", \"reconcileID\": \"705cdb90\"}\n");
            inserted += 1;
        }
    }
    let dumps = parse_dumps(text.as_bytes(), 1);
    assert_eq!(dumps.len(), 1);
    assert_eq!(stacks(&dumps[0]), stacks(plain));
    let message = format!("{inserted} log lines interleaved with the dump were skipped");
    assert_eq!(notes(&dumps[0]), vec![(9, message.as_str())]);
}

#[test]
fn kamaji_cut_at_every_line() {
    let lines: Vec<&str> = KAMAJI.lines().collect();
    for cut in 1..lines.len() {
        let text = lines[..cut].join("\n");
        let dumps = parse_dumps(text.as_bytes(), 1);
        let headers = lines[..cut].iter().filter(|l| l.starts_with("goroutine ")).count();
        let goroutines: usize = dumps.iter().map(|d| d.goroutines.len()).sum();
        assert_eq!(goroutines, headers, "cut after line {cut}");
        // A cut inside a goroutine block (after a header, function or
        // `created by` line) says so.
        let inside = headers > 0 && !lines[cut - 1].is_empty() && !lines[cut - 1].starts_with('\t');
        let cut_note = dumps.iter().flat_map(|d| &d.diagnostics).any(|n| n.message.starts_with("dump is cut off"));
        assert_eq!(cut_note, inside, "cut after line {cut}: {:?}", dumps.iter().map(|d| &d.diagnostics).collect::<Vec<_>>());
    }
    // And in the middle of every line of a block: never a panic.
    for cut in 0..KAMAJI.len().min(4000) {
        if KAMAJI.is_char_boundary(cut) {
            let _ = parse_dumps(&KAMAJI.as_bytes()[..cut], 1);
        }
    }
}

// ---------------------------------------------------------------------------
// Any input.
// ---------------------------------------------------------------------------

/// Fragments dumps are made of, so random input reaches every state.
const PIECES: &[&str] = &[
    "goroutine 1 [running]:",
    "goroutine 2 gp=0xc0 m=nil [select, 3 minutes, locked to thread] {a: b}:",
    "goroutine 1",
    " [",
    "]:",
    "main.main()",
    "pkg.(*T[...]).M({0x1?, 0x2}, ...)",
    "panic({0x1?})",
    "\t/a.go:12 +0x1d",
    "  runtime/proc.go:402 +0xce fp=0x1 sp=0x2 pc=0x3",
    "\t<autogenerated>:1",
    "created by main.f in goroutine 7",
    "...additional frames elided...",
    "...5 frames elided...",
    "\tgoroutine running on other thread; stack unavailable",
    "[originating from goroutine 3]:",
    "panic: boom [recovered]",
    "\tpanic: boom",
    "fatal error: x",
    "SIGQUIT: quit",
    "PC=0x1 m=0 sigcode=0",
    "runtime stack:",
    "[signal SIGSEGV: segmentation violation]",
    "goroutine profile: total 3",
    "3 @ 0x1 0x2",
    "# labels: {\"a\":\"b\"}",
    "#\t0x1\tmain.f+0x1\t\t/a.go:3",
    "#\t0x9",
    "rax    0x0",
    "exit status 2",
    "2024-01-02T03:04:05.1Z stderr F ",
    "2024-01-02T03:04:05.1Z stderr P ",
    "2024-01-02T03:04:05.123Z ",
    "{\"log\":\"",
    "\\n\",\"time\":\"2024-01-02T03:04:05Z\"}",
    "\\t",
    "I0102 03:04:05.000 1 x.go:1] log",
    "\n",
    "\r\n",
    "\t",
    " ",
    "\u{ff}",
    "\x1c",
    "^\\",
];

fn assemble(idx: Vec<(usize, u8)>) -> Vec<u8> {
    let mut out = Vec::new();
    for (i, b) in idx {
        match PIECES.get(i) {
            Some(p) => out.extend_from_slice(p.as_bytes()),
            None => out.push(b),
        }
    }
    out
}

fn check_invariants(text: &[u8]) {
    let dumps = parse_dumps(text, 1);
    if !has_dump(text) {
        assert!(dumps.is_empty());
    }
    let lines = text.split(|&b| b == b'\n').count() as u32;
    let mut previous_end = 0;
    for d in &dumps {
        assert!(previous_end < d.first_line && d.first_line <= d.last_line && d.last_line <= lines, "{d:?}");
        previous_end = d.last_line;
        for g in &d.goroutines {
            assert!((d.first_line..=d.last_line).contains(&g.line), "{g:?} outside {}-{}", d.first_line, d.last_line);
            assert!(g.id.is_some() || d.kind == DumpKind::Debug1 || g.state.is_empty());
        }
        assert!(d.diagnostics.windows(2).all(|w| w[0].line <= w[1].line));
        let _ = group(&d.goroutines);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn fragments_never_panic(idx in proptest::collection::vec((0..PIECES.len() + 8, any::<u8>()), 0..120)) {
        check_invariants(&assemble(idx));
    }

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        check_invariants(&bytes);
    }

    #[test]
    fn garbled_dumps_never_panic(cuts in proptest::collection::vec((0..KAMAJI.len(), any::<u8>()), 1..12)) {
        let mut text = KAMAJI.as_bytes().to_vec();
        for (at, b) in cuts {
            let at = at.min(text.len().saturating_sub(1));
            text[at] = b;
        }
        check_invariants(&text);
    }
}
