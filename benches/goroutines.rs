//! Goroutine dump parsing throughput: `goroutine::parse_dumps` over a large
//! generated `?debug=2` dump, and `goroutine::group` over its goroutines.
//!
//! The dump is generated deterministically (a fixed-seed xorshift): a
//! SIGQUIT preamble, then a controller manager's mix of idle workqueue
//! workers, workers blocked in etcd calls through gRPC, HTTP/2 and TLS
//! connection readers, informer goroutines, deep application stacks and a
//! few elided 100-frame stacks, with `N minutes`, Go 1.17+ arguments and
//! `created by .. in goroutine N` lines.
//!
//! `RECONSCOPE_BENCH_GOROUTINES` sets the number of goroutines (default
//! 10000). Run: `cargo bench --bench goroutines`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, SamplingMode, Throughput};
use reconscope::goroutine::{group, parse_dumps};

#[path = "../tests/support/gen.rs"]
mod gen;
use gen::Rng;

const CR: &str = "sigs.k8s.io/controller-runtime/pkg/internal/controller";
const CR_FILE: &str = "/go/pkg/mod/sigs.k8s.io/controller-runtime@v0.20.3/pkg/internal/controller/controller.go";
const GRPC: &str = "/go/pkg/mod/google.golang.org/grpc@v1.65.0";
const GOROOT: &str = "/usr/local/go/src";

/// One frame: function, arguments, file, line.
type F = (String, String, String, u32);

fn frame(func: &str, file: &str, line: u32, rng: &mut Rng) -> F {
    let args = match rng.below(4) {
        0 => "...".to_string(),
        1 => format!("0xc{:09x}", rng.below(1 << 36)),
        2 => format!("0xc{:09x}, {{0x{:07x}?, 0xc{:09x}}}", rng.below(1 << 36), rng.below(1 << 28), rng.below(1 << 36)),
        _ => format!("{{0x{:07x}, 0xc{:09x}}}, 0x{:x}?", rng.below(1 << 28), rng.below(1 << 36), rng.below(4096)),
    };
    (func.to_string(), args, file.to_string(), line)
}

fn runtime_park(rng: &mut Rng, select: bool) -> Vec<F> {
    let mut v = vec![frame("runtime.gopark", &format!("{GOROOT}/runtime/proc.go"), 424, rng)];
    if select {
        v.push(frame("runtime.selectgo", &format!("{GOROOT}/runtime/select.go"), 335, rng));
    }
    v
}

fn worker_tail(rng: &mut Rng, v: &mut Vec<F>) {
    v.push(frame(&format!("{CR}.(*Controller[...]).processNextWorkItem"), CR_FILE, 271, rng));
    v.push(frame(&format!("{CR}.(*Controller[...]).Start.func2.2"), CR_FILE, 249, rng));
}

fn idle_worker(rng: &mut Rng) -> Vec<F> {
    let mut v = runtime_park(rng, false);
    v.push(frame("runtime.goparkunlock", &format!("{GOROOT}/runtime/proc.go"), 430, rng));
    v.push(frame("sync.runtime_notifyListWait", &format!("{GOROOT}/runtime/sema.go"), 587, rng));
    v.push(frame("sync.(*Cond).Wait", &format!("{GOROOT}/sync/cond.go"), 71, rng));
    v.push(frame("k8s.io/client-go/util/workqueue.(*Typed[...]).Get", "/go/pkg/mod/k8s.io/client-go@v0.32.3/util/workqueue/queue.go", 277, rng));
    worker_tail(rng, &mut v);
    v
}

fn etcd_worker(rng: &mut Rng) -> Vec<F> {
    let mut v = runtime_park(rng, true);
    for (f, file, line) in [
        ("google.golang.org/grpc/internal/transport.(*Stream).waitOnHeader", "internal/transport/transport.go", 331),
        ("google.golang.org/grpc/internal/transport.(*Stream).RecvCompress", "internal/transport/transport.go", 346),
        ("google.golang.org/grpc.(*csAttempt).recvMsg", "stream.go", 1066),
        ("google.golang.org/grpc.(*clientStream).RecvMsg.func1", "stream.go", 917),
        ("google.golang.org/grpc.(*clientStream).withRetry", "stream.go", 768),
        ("google.golang.org/grpc.(*clientStream).RecvMsg", "stream.go", 916),
        ("google.golang.org/grpc.invoke", "call.go", 73),
        ("google.golang.org/grpc.(*ClientConn).Invoke", "call.go", 40),
    ] {
        v.push(frame(f, &format!("{GRPC}/{file}"), line, rng));
    }
    let etcd = "/go/pkg/mod/go.etcd.io/etcd/client/v3@v3.5.17";
    let api = "/go/pkg/mod/go.etcd.io/etcd/api/v3@v3.5.17";
    v.push(frame("go.etcd.io/etcd/client/v3.(*Client).unaryClientInterceptor.func1", &format!("{etcd}/retry_interceptor.go"), 63, rng));
    v.push(frame("google.golang.org/grpc.(*ClientConn).Invoke", &format!("{GRPC}/call.go"), 35, rng));
    v.push(frame("go.etcd.io/etcd/api/v3/etcdserverpb.(*authClient).UserGet", &format!("{api}/etcdserverpb/rpc.pb.go"), 7312, rng));
    v.push(frame("go.etcd.io/etcd/client/v3.(*authClient).UserGet", &format!("{etcd}/auth.go"), 193, rng));
    let app = "github.com/clastix/kamaji";
    for (f, file, line) in [
        ("internal/datastore.(*EtcdClient).UserExists", "internal/datastore/etcd.go", 97),
        ("internal/resources/datastore.(*Setup).CreateOrUpdate", "internal/resources/datastore/datastore_setup.go", 112),
        ("internal/resources.Handle", "internal/resources/resource.go", 69),
        ("controllers.(*TenantControlPlaneReconciler).Reconcile", "controllers/tenantcontrolplane_controller.go", 211),
    ] {
        v.push(frame(&format!("{app}/{f}"), &format!("/workspace/{file}"), line, rng));
    }
    v.push(frame(&format!("{CR}.(*Controller[...]).Reconcile"), CR_FILE, 116, rng));
    v.push(frame(&format!("{CR}.(*Controller[...]).reconcileHandler"), CR_FILE, 303, rng));
    worker_tail(rng, &mut v);
    v
}

fn tls_reader(rng: &mut Rng) -> Vec<F> {
    let mut v = runtime_park(rng, false);
    for (f, file, line) in [
        ("runtime.netpollblock", "runtime/netpoll.go", 575),
        ("internal/poll.runtime_pollWait", "runtime/netpoll.go", 351),
        ("internal/poll.(*pollDesc).wait", "internal/poll/fd_poll_runtime.go", 84),
        ("internal/poll.(*pollDesc).waitRead", "internal/poll/fd_poll_runtime.go", 89),
        ("internal/poll.(*FD).Read", "internal/poll/fd_unix.go", 165),
        ("net.(*netFD).Read", "net/fd_posix.go", 55),
        ("net.(*conn).Read", "net/net.go", 189),
        ("crypto/tls.(*atLeastReader).Read", "crypto/tls/conn.go", 809),
        ("bytes.(*Buffer).ReadFrom", "bytes/buffer.go", 211),
        ("crypto/tls.(*Conn).readFromUntil", "crypto/tls/conn.go", 831),
        ("crypto/tls.(*Conn).readRecordOrCCS", "crypto/tls/conn.go", 629),
        ("crypto/tls.(*Conn).readRecord", "crypto/tls/conn.go", 591),
        ("crypto/tls.(*Conn).Read", "crypto/tls/conn.go", 1385),
        ("bufio.(*Reader).Read", "bufio/bufio.go", 241),
        ("io.ReadAtLeast", "io/io.go", 335),
        ("io.ReadFull", "io/io.go", 354),
    ] {
        v.push(frame(f, &format!("{GOROOT}/{file}"), line, rng));
    }
    let h2 = "/go/pkg/mod/golang.org/x/net@v0.37.0/http2";
    v.push(frame("golang.org/x/net/http2.readFrameHeader", &format!("{h2}/frame.go"), 237, rng));
    v.push(frame("golang.org/x/net/http2.(*Framer).ReadFrame", &format!("{h2}/frame.go"), 501, rng));
    v.push(frame("golang.org/x/net/http2.(*clientConnReadLoop).run", &format!("{h2}/transport.go"), 2258, rng));
    v.push(frame("golang.org/x/net/http2.(*ClientConn).readLoop", &format!("{h2}/transport.go"), 2127, rng));
    v
}

fn informer(rng: &mut Rng) -> Vec<F> {
    let mut v = runtime_park(rng, true);
    let cg = "/go/pkg/mod/k8s.io/client-go@v0.32.3/tools/cache";
    let am = "/go/pkg/mod/k8s.io/apimachinery@v0.32.3/pkg/util/wait";
    for (f, file, line) in [
        ("k8s.io/client-go/tools/cache.(*processorListener).run.func1", format!("{cg}/shared_informer.go"), 972),
        ("k8s.io/apimachinery/pkg/util/wait.BackoffUntil.func1", format!("{am}/backoff.go"), 226),
        ("k8s.io/apimachinery/pkg/util/wait.BackoffUntil", format!("{am}/backoff.go"), 227),
        ("k8s.io/apimachinery/pkg/util/wait.JitterUntil", format!("{am}/backoff.go"), 204),
        ("k8s.io/apimachinery/pkg/util/wait.Until", format!("{am}/backoff.go"), 161),
        ("k8s.io/client-go/tools/cache.(*processorListener).run", format!("{cg}/shared_informer.go"), 968),
        ("k8s.io/apimachinery/pkg/util/wait.(*Group).Start.func1", format!("{am}/wait.go"), 72),
    ] {
        v.push(frame(f, &file, line, rng));
    }
    v
}

/// A deep application stack (recursion through a resource tree).
fn deep_app(rng: &mut Rng, depth: usize) -> Vec<F> {
    let mut v = runtime_park(rng, true);
    v.push(frame("github.com/example/operator/internal/render.(*Walker).wait", "/workspace/internal/render/walk.go", 41, rng));
    for i in 0..depth {
        let f = ["visit", "expand", "resolve"][i % 3];
        v.push(frame(&format!("github.com/example/operator/internal/render.(*Walker).{f}"), "/workspace/internal/render/walk.go", 60 + i as u32 % 90, rng));
    }
    worker_tail(rng, &mut v);
    v
}

/// The text of one dump of `goroutines` goroutines.
fn generate(goroutines: u64) -> Vec<u8> {
    let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
    let mut out = String::with_capacity(goroutines as usize * 3000);
    out.push_str("SIGQUIT: quit\nPC=0x47664e m=0 sigcode=128\n\n");
    for id in 1..=goroutines {
        // (state, frames, elided in the middle, a controller worker)
        let (state, frames, elided, worker) = match rng.below(100) {
            0..=19 => ("sync.Cond.Wait", idle_worker(&mut rng), false, true),
            20..=44 => ("select", etcd_worker(&mut rng), false, true),
            45..=64 => ("IO wait", tls_reader(&mut rng), false, false),
            65..=74 => ("select", informer(&mut rng), false, false),
            75..=92 => {
                let depth = 40 + rng.below(30);
                ("select", deep_app(&mut rng, depth), false, true)
            }
            _ => ("select", deep_app(&mut rng, 100), true, true),
        };
        out.push_str(&format!("goroutine {id} [{state}"));
        if rng.below(3) > 0 {
            out.push_str(&format!(", {} minutes", 1 + rng.below(900)));
        }
        out.push_str("]:\n");
        for (i, (func, args, file, line)) in frames.iter().enumerate() {
            // Go 1.21+: 50 innermost frames, a count, 50 outermost ones.
            if elided && (50..frames.len() - 50).contains(&i) {
                if i == 50 {
                    out.push_str(&format!("...{} frames elided...\n", frames.len() - 100));
                }
                continue;
            }
            if args == "..." {
                out.push_str(&format!("{func}(...)\n\t{file}:{line}\n"));
            } else {
                out.push_str(&format!("{func}({args})\n\t{file}:{line} +0x{:x}\n", rng.below(0x800)));
            }
        }
        let creator = if worker { format!("{CR}.(*Controller[...]).Start.func2") } else { "k8s.io/apimachinery/pkg/util/wait.(*Group).Start".to_string() };
        out.push_str(&format!("created by {creator} in goroutine {}\n\t{CR_FILE}:245 +0x6b8\n\n", 1 + rng.below(300)));
    }
    out.into_bytes()
}

fn bench(c: &mut Criterion) {
    let n = std::env::var("RECONSCOPE_BENCH_GOROUTINES").ok().and_then(|v| v.parse().ok()).filter(|&n| n > 0).unwrap_or(10_000);
    let text = generate(n);
    let dumps = parse_dumps(&text, 1);
    assert_eq!(dumps.len(), 1, "one dump");
    let goroutines = &dumps[0].goroutines;
    assert_eq!(goroutines.len() as u64, n);
    assert!(dumps[0].diagnostics.is_empty(), "{:?}", &dumps[0].diagnostics[..1]);
    let frames: usize = goroutines.iter().map(|g| g.frames.len()).sum();
    eprintln!(
        "goroutine dump: {n} goroutines, {:.1} frames each, {:.1} MiB, {} groups",
        frames as f64 / n as f64,
        text.len() as f64 / (1024.0 * 1024.0),
        group(goroutines).len()
    );

    let mut g = c.benchmark_group("goroutines");
    g.sampling_mode(SamplingMode::Flat).sample_size(10).measurement_time(Duration::from_secs(10));
    g.throughput(Throughput::Bytes(text.len() as u64));
    g.bench_function("parse_dumps", |b| b.iter(|| black_box(parse_dumps(black_box(&text), 1))));
    g.throughput(Throughput::Elements(n));
    g.bench_function("group", |b| b.iter(|| black_box(group(black_box(goroutines)))));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
