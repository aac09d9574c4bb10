//! What a goroutine is doing: controller worker recognition, the call it is
//! blocked in, the application code it runs under, and panicparse-style
//! grouping of identical stacks.
//!
//! Function names are matched by import path, after dropping a vendor
//! directory (`github.com/docker/docker/vendor/google.golang.org/grpc` is
//! `google.golang.org/grpc`). The import path of `pkg/path.(*T).M` ends at
//! the first `.` after its last `/` (Go escapes dots in that element as `%2e`).
//!
//! **Workers.** A goroutine is a controller worker when its frames contain
//! controller-runtime's `(*Controller).processNextWorkItem` (or
//! `(*Controller).worker`, v0.5), or it was created by controller-runtime's
//! `(*Controller).Start.func2` (`Start.func1.2` in v0.8); or, for plain
//! client-go controllers, when it calls the workqueue's `Get` or runs a
//! `processNextWorkItem` / `processNextItem` of its own. A worker is
//! **idle** when its innermost frame outside the runtime and `sync` is the
//! queue's `Get` (client-go `(*Type).Get` / `(*Typed[...]).Get`, or
//! controller-runtime's priority queue), however long it has waited; any
//! other worker, and any goroutine inside controller-runtime's
//! `reconcileHandler` or `(*Controller).Reconcile`, is **busy**.
//!
//! **Reconciler.** From controller-runtime's innermost `(*Controller).Reconcile`
//! (or `reconcileHandler`, for versions that call the reconciler directly)
//! inwards, the frames that are `Reconcile` methods called one from the
//! next; the innermost of them outside controller-runtime is the user's
//! reconciler. Following the chain, rather than taking the first one,
//! looks through wrapper reconcilers (kueue's `leaderAwareReconciler`).
//!
//! **Blocked in.** The innermost frame outside [`WAITING`]: the Go runtime
//! and the packages whose frames only wait on something else (locks,
//! timers, sockets, gRPC streams, etcd's gRPC stubs and retry wrappers, the
//! workqueue). What is left is the call that waits, e.g. etcd clientv3's
//! `(*authClient).UserGet` under grpc's `waitOnHeader`, or `os/exec.(*Cmd).Wait`.
//!
//! **Under.** The innermost frame in the application's own code: not the
//! standard library (an import path whose first element has no dot, except
//! `main`) and not one of the [`LIBRARIES`].

use rustc_hash::FxHashMap;

use super::{Frame, Goroutine, Group, Role, WorkerInfo};

/// How much of an import path a [`WAITING`] entry covers.
#[derive(Clone, Copy, Debug)]
enum Reach {
    /// That package only.
    Package,
    /// That package and the packages below it.
    Tree,
    /// Functions of that package whose name (after `pkg.`) starts with one of these.
    Funcs(&'static [&'static str]),
}

/// etcd clientv3's gRPC plumbing: the retrying wrappers of the generated
/// clients and the interceptors of `retry_interceptor.go`.
const CLIENTV3_PLUMBING: Reach = Reach::Funcs(&[
    "(*retry",
    "(*Client).unaryClientInterceptor",
    "(*Client).streamClientInterceptor",
    "(*serverStreamingRetryingStream)",
    "(*Client).newRetryWrapper",
    "(*Client).newAuthRetryWrapper",
    "waitRetryBackoff",
]);

/// Frames that only wait on something else: the "blocked in" call is the
/// innermost frame outside this table.
const WAITING: &[(&str, Reach)] = &[
    // The Go runtime (`panic` is how tracebacks print runtime.gopanic).
    ("runtime", Reach::Tree),
    ("internal", Reach::Tree),
    ("panic", Reach::Package),
    // Standard-library waiting: locks, timers, contexts, syscalls, process
    // waits (`os`, not `os/exec`: `(*Cmd).Wait` is the call that waits),
    // sockets, HTTP transport and server plumbing, TLS, readers and buffers,
    // `reflect.Select`.
    ("sync", Reach::Tree),
    ("time", Reach::Package),
    ("context", Reach::Package),
    ("syscall", Reach::Package),
    ("os", Reach::Package),
    ("net", Reach::Package),
    ("net/http", Reach::Package),
    ("crypto/tls", Reach::Package),
    ("io", Reach::Package),
    ("bufio", Reach::Package),
    ("bytes", Reach::Package),
    ("reflect", Reach::Package),
    ("golang.org/x/net/http2", Reach::Tree),
    // gRPC: transport, streams, invoke, picker...
    ("google.golang.org/grpc", Reach::Tree),
    // etcd's generated gRPC stubs (current and older import paths).
    ("go.etcd.io/etcd/api/v3/etcdserverpb", Reach::Package),
    ("go.etcd.io/etcd/etcdserver/etcdserverpb", Reach::Package),
    ("github.com/coreos/etcd/etcdserver/etcdserverpb", Reach::Package),
    ("go.etcd.io/etcd/client/v3", CLIENTV3_PLUMBING),
    ("go.etcd.io/etcd/clientv3", CLIENTV3_PLUMBING),
    ("github.com/coreos/etcd/clientv3", CLIENTV3_PLUMBING),
    // The queues an idle worker waits in.
    ("k8s.io/client-go/util/workqueue", Reach::Package),
    ("sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue", Reach::Package),
];

/// Libraries that are not the application's own code (stdlib aside). An
/// entry covers that path and everything below it.
const LIBRARIES: &[&str] = &[
    "google.golang.org",
    "golang.org/x",
    "go.etcd.io",
    "github.com/coreos/etcd",
    "go.uber.org",
    "github.com/go-logr",
    "github.com/prometheus",
    "github.com/grpc-ecosystem",
    "github.com/golang/protobuf",
    "github.com/gogo/protobuf",
    // Kubernetes libraries; applications also live under k8s.io and
    // sigs.k8s.io (kubernetes itself, kueue), so these are listed one by one.
    "k8s.io/api",
    "k8s.io/apiextensions-apiserver",
    "k8s.io/apimachinery",
    "k8s.io/apiserver",
    "k8s.io/client-go",
    "k8s.io/component-base",
    "k8s.io/klog",
    "k8s.io/kube-openapi",
    "k8s.io/utils",
    "sigs.k8s.io/controller-runtime",
    "sigs.k8s.io/json",
    "sigs.k8s.io/structured-merge-diff",
    "sigs.k8s.io/yaml",
];

/// controller-runtime's controller package.
const CR_CONTROLLER: &str = "sigs.k8s.io/controller-runtime/pkg/internal/controller";
/// controller-runtime's priority queue (an alternative to the workqueue).
const CR_PRIORITY_QUEUE: &str = "sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue";
const WORKQUEUE: &str = "k8s.io/client-go/util/workqueue";

/// Splits a function name into its import path (vendor directory dropped)
/// and the rest: `pkg/path.(*T).M` -> (`pkg/path`, `(*T).M`).
fn split(func: &str) -> (&str, &str) {
    let head = &func[..func.find('(').unwrap_or(func.len())];
    let slash = head.rfind('/').map_or(0, |i| i + 1);
    let dot = func[slash..].find('.').map_or(func.len(), |i| slash + i);
    let path = &func[..dot];
    let path = path.rfind("/vendor/").map_or(path, |i| &path[i + "/vendor/".len()..]);
    (path, func.get(dot + 1..).unwrap_or(""))
}

/// `path` is `root` or below it.
fn within(path: &str, root: &str) -> bool {
    path.strip_prefix(root).is_some_and(|r| r.is_empty() || r.starts_with('/'))
}

fn is_waiting(func: &str) -> bool {
    let (path, name) = split(func);
    WAITING.iter().any(|&(root, reach)| match reach {
        Reach::Package => path == root,
        Reach::Tree => within(path, root),
        Reach::Funcs(prefixes) => path == root && prefixes.iter().any(|p| name.starts_with(p)),
    })
}

fn is_app(func: &str) -> bool {
    let (path, _) = split(func);
    let first = &path[..path.find('/').unwrap_or(path.len())];
    (first.contains('.') || path == "main") && !LIBRARIES.iter().any(|root| within(path, root))
}

/// The method of controller-runtime's `(*Controller)` or
/// `(*Controller[...])`: `(*Controller[...]).Start.func2` -> `Start.func2`.
fn controller_method<'a>(path: &str, name: &'a str) -> Option<&'a str> {
    if path != CR_CONTROLLER {
        return None;
    }
    let r = name.strip_prefix("(*Controller")?;
    let close = r.find(").")?;
    (close == 0 || r.starts_with('[')).then(|| &r[close + 2..])
}

/// The queue `Get` an idle worker is parked in.
fn is_queue_get(path: &str, name: &str) -> bool {
    let method = name.rsplit_once(").").map_or(name, |(_, m)| m);
    (path == WORKQUEUE && (name.starts_with("(*Type") || name.starts_with("(*Typed")) && method == "Get")
        || (path == CR_PRIORITY_QUEUE && (method == "Get" || method == "GetWithPriority"))
}

/// The receiver type of a `Reconcile` method: `(*T).Reconcile`,
/// `(*T[...]).Reconcile`, `T.Reconcile` -> `T`.
fn reconcile_receiver(name: &str) -> Option<&str> {
    let recv = name.strip_suffix(".Reconcile")?;
    let recv = recv.strip_prefix("(*").and_then(|r| r.strip_suffix(')')).unwrap_or(recv);
    let recv = &recv[..recv.find('[').unwrap_or(recv.len())];
    let ident = !recv.is_empty() && !recv.contains(['.', '(', ')', '*']);
    ident.then_some(recv)
}

/// What a goroutine is doing; see the module docs for the rules.
pub fn classify(g: &Goroutine) -> WorkerInfo {
    let names: Vec<(&str, &str)> = g.frames.iter().map(|f| split(&f.func)).collect();
    let created_by_worker_start = g.created_by.as_ref().is_some_and(|c| {
        let (path, name) = split(&c.func);
        matches!(controller_method(path, name), Some("Start.func2" | "Start.func1.2" | "worker"))
    });
    let worker = created_by_worker_start
        || names.iter().any(|f| {
            matches!(controller_method(f.0, f.1), Some("processNextWorkItem" | "worker"))
                || is_queue_get(f.0, f.1)
                || matches!(f.1.rsplit('.').next(), Some("processNextWorkItem" | "processNextItem"))
        });
    let idle = names
        .iter()
        .find(|(path, _)| !(within(path, "runtime") || within(path, "internal") || within(path, "sync")))
        .is_some_and(|&(path, name)| is_queue_get(path, name));
    let reconciling = names.iter().position(|&(path, name)| matches!(controller_method(path, name), Some("Reconcile" | "reconcileHandler")));
    let role = if idle {
        Role::IdleWorker
    } else if worker || reconciling.is_some() {
        Role::BusyWorker
    } else {
        Role::Other
    };

    // The user reconciler: the chain of Reconcile methods inward from
    // controller-runtime's; its innermost link outside controller-runtime.
    let mut reconciler = None;
    for i in (0..reconciling.unwrap_or(0)).rev() {
        let (path, name) = names[i];
        let Some(recv) = reconcile_receiver(name) else { break };
        if !within(path, "sigs.k8s.io/controller-runtime") {
            reconciler = Some((recv, i));
        }
    }

    WorkerInfo {
        role,
        reconciler: reconciler.map(|(recv, _)| recv.to_string()),
        reconciler_func: reconciler.map(|(_, i)| g.frames[i].func.clone()),
        call: g.frames.iter().find(|f| !is_waiting(&f.func)).cloned(),
        under: g.frames.iter().find(|f| is_app(&f.func)).cloned(),
    }
}

/// Names a controller from a reconciler type: `TenantControlPlaneReconciler`
/// -> `tenantcontrolplane` (a trailing `Reconciler` or `Controller` dropped,
/// lowercased), to match the `controller` names in logs.
pub fn controller_key(reconciler: &str) -> String {
    let base = reconciler.strip_suffix("Reconciler").or_else(|| reconciler.strip_suffix("Controller")).unwrap_or(reconciler);
    let base = if base.is_empty() { reconciler } else { base };
    base.to_lowercase()
}

/// Collapses goroutines with the same state, frames (function, file, line)
/// and creator function into groups. Order: busy workers that are blocked
/// (not running or runnable) first, then by longest wait, then by count
/// (both descending), then by first line.
pub fn group(goroutines: &[Goroutine]) -> Vec<Group> {
    type Key<'a> = (&'a str, &'a [Frame], Option<&'a str>);
    let mut index: FxHashMap<Key<'_>, usize> = FxHashMap::default();
    let mut groups: Vec<Group> = Vec::new();
    // Per group: the shortest wait seen, and whether a goroutine had none.
    let mut shortest: Vec<(Option<u32>, bool)> = Vec::new();
    for g in goroutines {
        let key = (g.state.as_str(), g.frames.as_slice(), g.created_by.as_ref().map(|c| c.func.as_str()));
        let k = *index.entry(key).or_insert_with(|| {
            groups.push(Group {
                state: g.state.clone(),
                count: 0,
                ids: Vec::new(),
                min_wait_minutes: None,
                max_wait_minutes: None,
                frames: g.frames.clone(),
                created_by: g.created_by.clone(),
                first_line: g.line,
                info: classify(g),
            });
            shortest.push((None, false));
            groups.len() - 1
        });
        let gr = &mut groups[k];
        gr.count = gr.count.saturating_add(g.count);
        gr.ids.extend(g.id);
        gr.first_line = gr.first_line.min(g.line);
        gr.max_wait_minutes = gr.max_wait_minutes.max(g.wait_minutes);
        let (min, none) = &mut shortest[k];
        match g.wait_minutes {
            Some(w) => *min = Some(min.map_or(w, |m| m.min(w))),
            None => *none = true,
        }
    }
    // A goroutine without `N minutes` waited less than a minute: it counts
    // as 0 for the minimum once any goroutine of the group has a wait.
    for (gr, (min, none)) in groups.iter_mut().zip(shortest) {
        gr.ids.sort_unstable();
        gr.min_wait_minutes = if none { min.map(|_| 0) } else { min };
    }
    let blocked_busy = |g: &Group| g.info.role == Role::BusyWorker && super::is_blocked(&g.state);
    groups.sort_by(|a, b| {
        blocked_busy(b)
            .cmp(&blocked_busy(a))
            .then(b.max_wait_minutes.cmp(&a.max_wait_minutes))
            .then(b.count.cmp(&a.count))
            .then(a.first_line.cmp(&b.first_line))
    });
    groups
}
