//! A synthetic kamaji manager log, for benchmarks and tests.
//!
//! The output looks like what `kubectl logs` of the kamaji manager pod gives
//! (see FORMATS.md sections 1, 2, 3 and 8): the zap development console
//! encoder (`<ts>\t<LEVEL>\t[<logger>\t]<msg>\t{context}`), ERROR lines
//! followed by a Go stack, a few etcd client JSON lines interleaved, the
//! controller-runtime start-up lines, and the reconciles of a few hundred
//! tenant control planes, with kamaji's real messages.
//!
//! Everything is derived from the seed with a small xorshift generator, so
//! the same `(target_bytes, seed)` always gives the same bytes.
//!
//! Include it with `#[path = "../tests/support/gen.rs"] mod gen;` (benches)
//! or `#[path = "support/gen.rs"] mod gen;` (tests).

#![allow(dead_code)]

/// A kamaji manager log of about `target_bytes` bytes: it ends at the first
/// line boundary at or after `target_bytes`, so it is longer by less than a
/// line (a log cut there may end inside a stack).
pub fn kamaji_log(target_bytes: usize, seed: u64) -> Vec<u8> {
    let mut g = Gen::new(target_bytes, seed);
    g.startup();
    // One DataStore reconcile early, then more at random (cluster-scoped).
    g.datastore_reconcile();
    while g.out.len() < target_bytes {
        g.step();
    }
    let mut out = g.out;
    if out.len() > target_bytes {
        // Cut at the end of the line that crosses the target.
        let cut = memchr_nl(&out[target_bytes - 1..]).map_or(out.len(), |k| target_bytes + k);
        out.truncate(cut);
    }
    out
}

fn memchr_nl(s: &[u8]) -> Option<usize> {
    s.iter().position(|&b| b == b'\n')
}

// ------------------------------------------------------------------ PRNG

/// xorshift64* seeded through splitmix64 (so seed 0 works).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        Rng(if z == 0 { 0x2545_F491_4F6C_DD1D } else { z })
    }

    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (((self.next_u64() >> 32) * n as u64) >> 32) as usize
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    /// True with probability `per_mille / 1000`.
    pub fn chance(&mut self, per_mille: u32) -> bool {
        self.below(1000) < per_mille as usize
    }

    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
}

// ------------------------------------------------------------- vocabulary

const NS_WORDS: &[&str] = &[
    "root",
    "alpha",
    "bravo",
    "charlie",
    "delta",
    "echo",
    "foxtrot",
    "golf",
    "hotel",
    "india",
    "juliet",
    "kilo",
    "lima",
    "mike",
    "november",
    "oscar",
    "papa",
    "quebec",
    "romeo",
    "sierra",
    "tango",
    "uniform",
    "victor",
    "whiskey",
    "xray",
    "yankee",
    "zulu",
    "georg",
    "leotolstoi",
    "test",
    "prod",
    "staging",
    "dev",
    "qa",
    "acme",
    "globex",
    "initech",
    "umbrella",
    "hooli",
    "stark",
];

const TCP_WORDS: &[&str] = &["kubernetes", "k8s", "cluster", "tcp", "kamaji", "workload", "edge", "team"];

/// Names kamaji's resources return from GetName(), in reconcile order.
const RESOURCES: &[&str] = &[
    "ca",
    "front-proxy-ca",
    "sa-certificate",
    "datastore-certificate",
    "datastore-config",
    "datastore-setup",
    "api-server-certificate",
    "api-server-kubelet-client-certificate",
    "front-proxy-client-certificate",
    "admin-kubeconfig",
    "controller-manager-kubeconfig",
    "scheduler-kubeconfig",
    "kubeadm-config",
    "konnectivity-certificate",
    "konnectivity-kubeconfig",
    "konnectivity-egress-selector-configuration",
    "konnectivity",
    "service",
    "ingress",
    "deployment",
    "kubeadm-upgrade",
];

const SOOT_SUBS: &[(&str, &[&str])] = &[
    ("konnectivity_agent", &["konnectivity-agent", "konnectivity-sa", "konnectivity-clusterrolebinding"]),
    ("kube_proxy", &["kube-proxy", "kube-proxy-config"]),
    ("coredns", &["coredns", "coredns-config"]),
    ("migrate", &[]),
    ("writePermissions", &[]),
    ("PhaseUploadConfigKubeadm", &[]),
    ("PhaseUploadConfigKubelet", &[]),
    ("PhaseBootstrapToken", &[]),
    ("PhaseClusterAdminRBAC", &[]),
];

const ETCD_ERRORS: &[&str] = &[
    "rpc error: code = DeadlineExceeded desc = context deadline exceeded",
    "rpc error: code = DeadlineExceeded desc = context deadline exceeded",
    "rpc error: code = Canceled desc = grpc: the client connection is closing",
    "rpc error: code = Unavailable desc = etcdserver: leader changed",
    "rpc error: code = Unavailable desc = error reading from server: EOF",
];

const CR_MOD: &str = "/go/pkg/mod/sigs.k8s.io/controller-runtime@v0.22.4/pkg/internal/controller/controller.go";

/// Frames of controller-runtime under every Reconcile: (function, file, line).
const CR_FRAMES: &[(&str, &str, u32)] = &[
    ("sigs.k8s.io/controller-runtime/pkg/internal/controller.(*Controller[...]).Reconcile", CR_MOD, 216),
    ("sigs.k8s.io/controller-runtime/pkg/internal/controller.(*Controller[...]).reconcileHandler", CR_MOD, 461),
    ("sigs.k8s.io/controller-runtime/pkg/internal/controller.(*Controller[...]).processNextWorkItem", CR_MOD, 421),
    ("sigs.k8s.io/controller-runtime/pkg/internal/controller.(*Controller[...]).Start.func1.1", CR_MOD, 296),
];

/// Kamaji-side frames a resource error can come through, deepest first.
const KAMAJI_FRAMES: &[(&str, &str, u32)] = &[
    ("github.com/clastix/kamaji/internal/datastore.(*EtcdClient).CreateUser", "/workspace/internal/datastore/etcd.go", 87),
    ("github.com/clastix/kamaji/internal/resources/datastore.(*Setup).createUser", "/workspace/internal/resources/datastore/datastore_setup.go", 210),
    ("github.com/clastix/kamaji/internal/resources/datastore.(*Setup).CreateOrUpdate", "/workspace/internal/resources/datastore/datastore_setup.go", 118),
    (
        "github.com/clastix/kamaji/internal/resources.(*KubernetesDeploymentResource).mutate.func1",
        "/workspace/internal/resources/k8s_deployment_resource.go",
        96,
    ),
    (
        "sigs.k8s.io/controller-runtime/pkg/controller/controllerutil.mutate",
        "/go/pkg/mod/sigs.k8s.io/controller-runtime@v0.22.4/pkg/controller/controllerutil/controllerutil.go",
        536,
    ),
    (
        "sigs.k8s.io/controller-runtime/pkg/controller/controllerutil.CreateOrUpdate",
        "/go/pkg/mod/sigs.k8s.io/controller-runtime@v0.22.4/pkg/controller/controllerutil/controllerutil.go",
        370,
    ),
    ("github.com/clastix/kamaji/internal/utilities.CreateOrUpdateWithConflict.func1", "/workspace/internal/utilities/create_or_update.go", 26),
    ("k8s.io/client-go/util/retry.OnError.func1", "/go/pkg/mod/k8s.io/client-go@v0.34.1/util/retry/util.go", 51),
    ("k8s.io/apimachinery/pkg/util/wait.runConditionWithCrashProtection", "/go/pkg/mod/k8s.io/apimachinery@v0.34.1/pkg/util/wait/wait.go", 145),
    ("k8s.io/apimachinery/pkg/util/wait.ExponentialBackoff", "/go/pkg/mod/k8s.io/apimachinery@v0.34.1/pkg/util/wait/backoff.go", 477),
    ("k8s.io/client-go/util/retry.OnError", "/go/pkg/mod/k8s.io/client-go@v0.34.1/util/retry/util.go", 50),
    ("k8s.io/client-go/util/retry.RetryOnConflict", "/go/pkg/mod/k8s.io/client-go@v0.34.1/util/retry/util.go", 104),
    ("github.com/clastix/kamaji/internal/utilities.CreateOrUpdateWithConflict", "/workspace/internal/utilities/create_or_update.go", 24),
    (
        "github.com/clastix/kamaji/internal/resources.(*KubernetesDeploymentResource).CreateOrUpdate",
        "/workspace/internal/resources/k8s_deployment_resource.go",
        79,
    ),
    ("github.com/clastix/kamaji/internal/resources.createOrUpdate", "/workspace/internal/resources/resource.go", 93),
    ("github.com/clastix/kamaji/internal/resources.Handle", "/workspace/internal/resources/resource.go", 70),
];

const RECONCILE_FRAME: (&str, &str, u32) =
    ("github.com/clastix/kamaji/controllers.(*TenantControlPlaneReconciler).Reconcile", "/workspace/controllers/tenantcontrolplane_controller.go", 205);

// -------------------------------------------------------------- generator

struct Tenant {
    ns: String,
    name: String,
    /// Soot sub-controller logger prefix `soot_<ns>_<name>`.
    soot: String,
}

struct Gen {
    rng: Rng,
    out: Vec<u8>,
    /// Unix seconds of the current line.
    now: i64,
    ts_cache_secs: i64,
    ts_cache: [u8; 20],
    tenants: Vec<Tenant>,
    etcd_clients: Vec<String>,
}

impl Gen {
    fn new(target: usize, seed: u64) -> Gen {
        let mut rng = Rng::new(seed);
        let mut tenants = Vec::new();
        for i in 0..200 {
            let ns = format!("tenant-{}{}", NS_WORDS[i % NS_WORDS.len()], i / NS_WORDS.len() + 1);
            for _ in 0..rng.range(1, 4) {
                let name = format!("{}-{}{}", rng.pick(TCP_WORDS), rng.pick(NS_WORDS), rng.below(200));
                let soot = format!("soot_{ns}_{name}");
                tenants.push(Tenant { ns: ns.clone(), name, soot });
            }
        }
        let etcd_clients = (0..4).map(|_| format!("0xc{:09x}", (rng.next_u64() & 0xf_ffff_ffc0) | 0x40)).collect();
        // 2026-05-26T08:00:00Z plus up to a day.
        let now = 1_779_782_400 + rng.below(86_400) as i64;
        Gen { rng, out: Vec::with_capacity(target + 64 * 1024), now, ts_cache_secs: i64::MIN, ts_cache: [0; 20], tenants, etcd_clients }
    }

    // ---- primitives

    fn s(&mut self, s: &str) {
        self.out.extend_from_slice(s.as_bytes());
    }

    fn num(&mut self, mut n: u64) {
        let mut buf = [0u8; 20];
        let mut i = buf.len();
        loop {
            i -= 1;
            buf[i] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        self.out.extend_from_slice(&buf[i..]);
    }

    fn ts(&mut self) {
        if self.ts_cache_secs != self.now {
            self.ts_cache = rfc3339(self.now);
            self.ts_cache_secs = self.now;
        }
        let t = self.ts_cache;
        self.out.extend_from_slice(&t);
    }

    fn uuid(&mut self) -> [u8; 36] {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let a = self.rng.next_u64();
        let b = self.rng.next_u64();
        let mut raw = [0u8; 16];
        raw[..8].copy_from_slice(&a.to_le_bytes());
        raw[8..].copy_from_slice(&b.to_le_bytes());
        raw[6] = (raw[6] & 0x0f) | 0x40;
        raw[8] = (raw[8] & 0x3f) | 0x80;
        let mut s = [b'-'; 36];
        let mut j = 0;
        for (i, byte) in raw.iter().enumerate() {
            if matches!(i, 4 | 6 | 8 | 10) {
                j += 1;
            }
            s[j] = HEX[(byte >> 4) as usize];
            s[j + 1] = HEX[(byte & 15) as usize];
            j += 2;
        }
        s
    }

    /// `<ts>\t<LEVEL>\t[<logger>\t]`
    fn head(&mut self, level: &str, logger: Option<&str>) {
        self.ts();
        self.s("\t");
        self.s(level);
        self.s("\t");
        if let Some(l) = logger {
            self.s(l);
            self.s("\t");
        }
    }

    /// A JSON string body with `"` and `\` escaped.
    fn json_str(&mut self, v: &str) {
        for &b in v.as_bytes() {
            match b {
                b'"' => self.s("\\\""),
                b'\\' => self.s("\\\\"),
                _ => self.out.push(b),
            }
        }
    }

    /// A controller-runtime line with the reconcile context of tenant `t`.
    /// `extra` are (key, string value) pairs after reconcileID.
    fn tcp_line(&mut self, level: &str, msg: &str, t: usize, rid: &[u8; 36], extra: &[(&str, &str)]) {
        self.head(level, None);
        self.s(msg);
        self.s("\t{\"controller\": \"tenantcontrolplane\", \"controllerGroup\": \"kamaji.clastix.io\", \"controllerKind\": \"TenantControlPlane\", \"TenantControlPlane\": {\"name\":\"");
        let tn = std::mem::take(&mut self.tenants[t].name);
        let tns = std::mem::take(&mut self.tenants[t].ns);
        self.s(&tn);
        self.s("\",\"namespace\":\"");
        self.s(&tns);
        self.s("\"}, \"namespace\": \"");
        self.s(&tns);
        self.s("\", \"name\": \"");
        self.s(&tn);
        self.s("\", \"reconcileID\": \"");
        self.out.extend_from_slice(rid);
        self.s("\"");
        for (k, v) in extra {
            self.s(", \"");
            self.s(k);
            self.s("\": \"");
            self.json_str(v);
            self.s("\"");
        }
        self.s("}\n");
        self.tenants[t].name = tn;
        self.tenants[t].ns = tns;
    }

    /// A Go stack as zap's development encoder writes it: function, then
    /// TAB + file:line.
    fn stack(&mut self, frames: &[(&str, &str, u32)]) {
        for (func, file, line) in frames {
            self.s(func);
            self.s("\n\t");
            self.s(file);
            self.s(":");
            self.num(*line as u64);
            self.s("\n");
        }
    }

    /// The stack of an error logged by kamaji inside Reconcile: 8 to 20
    /// frames (a kamaji call chain, Reconcile, controller-runtime's frames).
    fn kamaji_stack(&mut self) {
        let inner = self.rng.range(3, KAMAJI_FRAMES.len() - 1);
        let mut frames: Vec<(&str, &str, u32)> = KAMAJI_FRAMES[KAMAJI_FRAMES.len() - inner..].to_vec();
        frames.push(RECONCILE_FRAME);
        frames.extend_from_slice(CR_FRAMES);
        self.stack(&frames);
    }

    /// `Reconciler error` is logged by controller-runtime's reconcileHandler.
    fn reconciler_error_stack(&mut self) {
        self.stack(&CR_FRAMES[1..]);
    }

    fn etcd_line(&mut self) {
        let client = self.rng.below(self.etcd_clients.len());
        let attempts = if self.rng.chance(200) { self.rng.range(2, 4) } else { 1 };
        let err = *self.rng.pick(ETCD_ERRORS);
        for attempt in 0..attempts {
            let micros = self.rng.below(1_000_000);
            let t = rfc3339(self.now);
            self.s("{\"level\":\"warn\",\"ts\":\"");
            self.out.extend_from_slice(&t[..19]);
            self.s(".");
            let m = format!("{micros:06}");
            self.s(&m);
            self.s("Z\",\"logger\":\"etcd-client\",\"caller\":\"v3@v3.5.21/retry_interceptor.go:63\",\"msg\":\"retrying of unary invoker failed\",\"target\":\"etcd-endpoints://");
            let c = self.etcd_clients[client].clone();
            self.s(&c);
            self.s("/kamaji-etcd.kamaji-system.svc:2379\",\"attempt\":");
            self.num(attempt as u64);
            self.s(",\"error\":\"");
            self.s(err);
            self.s("\"}\n");
        }
    }

    // ---- scenes

    fn startup(&mut self) {
        for m in [
            "Kamaji version 26.8.1-edge ddbabd87",
            "Build from: https://github.com/clastix/kamaji",
            "Build date: 2026-05-20T09:12:44",
            "Go Version: go1.25.3",
            "Go OS/Arch: linux/amd64",
            "Telemetry enabled: true",
        ] {
            self.head("INFO", Some("setup"));
            self.s(m);
            self.s("\n");
        }
        self.head("INFO", Some("setup"));
        self.s("starting manager\n");
        self.now += 2;
        let controllers: &[(&str, &str, &str, &[&str])] = &[
            (
                "tenantcontrolplane",
                "kamaji.clastix.io",
                "TenantControlPlane",
                &[
                    "kind source: *v1alpha1.TenantControlPlane",
                    "kind source: *v1.ConfigMap",
                    "kind source: *v1.Secret",
                    "kind source: *v1.Deployment",
                    "kind source: *v1.Service",
                    "kind source: *v1.Ingress",
                    "kind source: *v1alpha1.DataStore",
                ],
            ),
            ("datastore", "kamaji.clastix.io", "DataStore", &["kind source: *v1alpha1.DataStore", "channel source: 0xc000a2f1c0"]),
            ("secret", "", "Secret", &["kind source: *v1.Secret"]),
            ("tenantcontrolplane", "kamaji.clastix.io", "TenantControlPlane", &["kind source: *v1alpha1.TenantControlPlane", "channel source: 0xc000b81e40"]),
        ];
        for (c, g, k, sources) in controllers {
            for src in *sources {
                self.controller_line("Starting EventSource", c, g, k, Some(("source", src)));
            }
        }
        for (c, g, k, _) in controllers {
            self.controller_line("Starting Controller", c, g, k, None);
            self.controller_line("Starting workers", c, g, k, Some(("worker count", "1")));
        }
    }

    fn controller_line(&mut self, msg: &str, c: &str, g: &str, k: &str, extra: Option<(&str, &str)>) {
        self.head("INFO", None);
        self.s(msg);
        self.s("\t{\"controller\": \"");
        self.s(c);
        self.s("\", \"controllerGroup\": \"");
        self.s(g);
        self.s("\", \"controllerKind\": \"");
        self.s(k);
        self.s("\"");
        if let Some((key, v)) = extra {
            self.s(", \"");
            self.s(key);
            self.s("\": ");
            if key == "worker count" {
                self.s(v);
            } else {
                self.s("\"");
                self.s(v);
                self.s("\"");
            }
        }
        self.s("}\n");
    }

    /// A tenant, with a few hot ones getting most reconciles.
    fn tenant(&mut self) -> usize {
        let n = self.tenants.len();
        if self.rng.chance(400) {
            self.rng.below(n.div_ceil(20))
        } else {
            self.rng.below(n)
        }
    }

    /// One reconcile (or other burst of lines) and the time step after it.
    fn step(&mut self) {
        self.now += self.rng.below(3) as i64;
        if self.rng.chance(70) {
            self.etcd_line();
        }
        let roll = self.rng.below(1000);
        match roll {
            0..=579 => self.tcp_reconcile(),
            580..=679 => self.tcp_sentinel(),
            680..=849 => self.soot_manager(),
            850..=899 => self.soot_subcontrollers(),
            900..=929 => self.tcp_deletion(),
            930..=954 => self.tcp_enqueue_back(),
            955..=979 => self.tcp_resource_error(),
            980..=997 => self.tcp_reconciler_error(),
            _ => {
                if self.rng.chance(100) {
                    self.datastore_reconcile()
                } else {
                    self.tcp_reconcile()
                }
            }
        }
    }

    /// Some `<resource> has been configured` lines (in kamaji's order).
    fn configured(&mut self, t: usize, rid: &[u8; 36], n: usize) {
        let start = self.rng.below(RESOURCES.len() - n + 1);
        for r in &RESOURCES[start..start + n] {
            let msg = format!("{r} has been configured");
            self.tcp_line("INFO", &msg, t, rid, &[]);
        }
    }

    fn tcp_reconcile(&mut self) {
        let t = self.tenant();
        let rid = self.uuid();
        let n = self.rng.range(0, 9);
        self.configured(t, &rid, n);
        let msg = format!("{} has been reconciled", self.tenants[t].name);
        self.tcp_line("INFO", &msg, t, &rid, &[]);
    }

    fn tcp_sentinel(&mut self) {
        let t = self.tenant();
        let rid = self.uuid();
        let n = self.rng.range(0, 5);
        self.configured(t, &rid, n);
        if self.rng.chance(300) {
            self.tcp_line("INFO", "acquire timed out, current process is blocked by another reconciliation", t, &rid, &[]);
        }
        self.tcp_line("DEBUG", "sentinel error, enqueuing back request", t, &rid, &[]);
    }

    fn tcp_enqueue_back(&mut self) {
        let t = self.tenant();
        let rid = self.uuid();
        let n = self.rng.range(1, 6);
        self.configured(t, &rid, n);
        self.head("INFO", None);
        self.s("requested enqueuing back");
        // The context is written here because `resources` is an array.
        let tn = self.tenants[t].name.clone();
        let tns = self.tenants[t].ns.clone();
        self.s("\t{\"controller\": \"tenantcontrolplane\", \"controllerGroup\": \"kamaji.clastix.io\", \"controllerKind\": \"TenantControlPlane\", \"TenantControlPlane\": {\"name\":\"");
        self.s(&tn);
        self.s("\",\"namespace\":\"");
        self.s(&tns);
        self.s("\"}, \"namespace\": \"");
        self.s(&tns);
        self.s("\", \"name\": \"");
        self.s(&tn);
        self.s("\", \"reconcileID\": \"");
        self.out.extend_from_slice(&rid);
        self.s("\", \"resources\": [\"");
        let a = *self.rng.pick(RESOURCES);
        self.s(a);
        self.s("\", \"");
        let b = *self.rng.pick(RESOURCES);
        self.s(b);
        self.s("\"]}\n");
    }

    fn soot_manager(&mut self) {
        let t = self.tenant();
        let rid = self.uuid();
        let msg = match self.rng.below(20) {
            0 => "skipping start of the soot manager for a not ready instance",
            1 => "soot manager waiting for kubeconfig, enqueuing back",
            _ => "soot manager completed its process",
        };
        self.tcp_line("INFO", msg, t, &rid, &[]);
    }

    fn soot_subcontrollers(&mut self) {
        let t = self.tenant();
        let soot = self.tenants[t].soot.clone();
        for _ in 0..self.rng.range(1, 3) {
            let (sub, resources) = *self.rng.pick(SOOT_SUBS);
            let logger = format!("{soot}.{sub}");
            if resources.is_empty() {
                self.head("INFO", Some(&logger));
                self.s("start processing\n");
            } else {
                for r in resources.iter() {
                    self.s_logger_kv("start processing", &logger, r);
                    self.s_logger_kv("resource processed", &logger, r);
                }
            }
            self.head("INFO", Some(&logger));
            self.s("reconciliation completed\n");
        }
    }

    fn s_logger_kv(&mut self, msg: &str, logger: &str, resource: &str) {
        self.head("INFO", Some(logger));
        self.s(msg);
        self.s("\t{\"resource\": \"");
        self.s(resource);
        self.s("\"}\n");
    }

    fn tcp_deletion(&mut self) {
        let t = self.tenant();
        let rid = self.uuid();
        self.tcp_line("INFO", "marked for deletion, performing clean-up", t, &rid, &[]);
        if self.rng.chance(150) {
            let err = "cannot delete the DataStore resources: etcdserver: request timed out";
            self.tcp_line("ERROR", "resource deletion failed", t, &rid, &[("resource", "datastore-setup"), ("error", err)]);
            self.kamaji_stack();
        } else {
            self.tcp_line("INFO", "resource deletions have been completed", t, &rid, &[]);
        }
    }

    fn error_text(&mut self, t: usize) -> String {
        let name = &self.tenants[t].name;
        let ns = &self.tenants[t].ns;
        match self.rng.below(6) {
            0 => format!("cannot retrieve Service for the TenantControlPlane: Service \"{name}\" not found"),
            1 => "context deadline exceeded".to_string(),
            2 => format!(
                "Operation cannot be fulfilled on tenantcontrolplanes.kamaji.clastix.io \"{name}\": the object has been modified; please apply your changes to the latest version and try again"
            ),
            3 => format!("cannot create the DataStore user {ns}_{}: etcdserver: request timed out", name.replace('-', "_")),
            4 => format!("secrets \"{name}-admin-kubeconfig\" not found"),
            _ => "cannot reconcile since DataStore is not ready: DataStore default is not ready".to_string(),
        }
    }

    fn tcp_resource_error(&mut self) {
        let t = self.tenant();
        let rid = self.uuid();
        let n = self.rng.range(0, 6);
        self.configured(t, &rid, n);
        let err = self.error_text(t);
        let (msg, res) = match self.rng.below(4) {
            0 => ("unable to create the DataStore user", "datastore-setup"),
            1 => ("unable to create the DataStore data", "datastore-setup"),
            2 => ("update of the resource failed", *self.rng.pick(RESOURCES)),
            _ => ("handling of resource failed", *self.rng.pick(RESOURCES)),
        };
        self.tcp_line("ERROR", msg, t, &rid, &[("resource", res), ("error", &err)]);
        self.kamaji_stack();
        if self.rng.chance(700) {
            self.tcp_line("ERROR", "Reconciler error", t, &rid, &[("error", &err)]);
            self.reconciler_error_stack();
        }
    }

    fn tcp_reconciler_error(&mut self) {
        let t = self.tenant();
        let rid = self.uuid();
        let n = self.rng.range(0, 8);
        self.configured(t, &rid, n);
        let err = self.error_text(t);
        self.tcp_line("ERROR", "Reconciler error", t, &rid, &[("error", &err)]);
        self.reconciler_error_stack();
    }

    fn datastore_reconcile(&mut self) {
        let rid = self.uuid();
        let t = self.tenant();
        let obj = format!("{}/{}", self.tenants[t].ns, self.tenants[t].name);
        self.head("ERROR", None);
        self.s("can't push DataStore reconciliation for object ");
        self.s(&obj);
        self.s("\t{\"controller\": \"datastore\", \"controllerGroup\": \"kamaji.clastix.io\", \"controllerKind\": \"DataStore\", \"DataStore\": {\"name\":\"default\"}, \"namespace\": \"\", \"name\": \"default\", \"reconcileID\": \"");
        self.out.extend_from_slice(&rid);
        self.s("\", \"error\": \"channel is full\"}\n");
        let mut frames = vec![("github.com/clastix/kamaji/controllers.(*DataStore).Reconcile", "/workspace/controllers/datastore_controller.go", 82u32)];
        frames.extend_from_slice(CR_FRAMES);
        // Pad to at least 8 frames with the DataStore reconcile's callees.
        let pre: &[(&str, &str, u32)] = &[
            ("github.com/clastix/kamaji/controllers.(*DataStore).enqueueTenantControlPlanes", "/workspace/controllers/datastore_controller.go", 121),
            ("github.com/clastix/kamaji/controllers.(*DataStore).enqueueTenantControlPlanes.func1", "/workspace/controllers/datastore_controller.go", 109),
            ("github.com/clastix/kamaji/controllers.(*DataStore).pushChannel", "/workspace/controllers/datastore_controller.go", 95),
        ];
        let mut all: Vec<(&str, &str, u32)> = pre.iter().rev().copied().collect();
        all.extend(frames);
        self.stack(&all);
    }
}

/// `YYYY-MM-DDTHH:MM:SSZ` for Unix seconds (proleptic Gregorian, UTC).
fn rfc3339(secs: i64) -> [u8; 20] {
    let days = secs.div_euclid(86_400);
    let sod = secs.rem_euclid(86_400);
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let mut y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    if m <= 2 {
        y += 1;
    }
    let (hh, mm, ss) = (sod / 3600, sod / 60 % 60, sod % 60);
    let mut o = *b"0000-00-00T00:00:00Z";
    let put = |o: &mut [u8; 20], at: usize, v: i64, w: usize| {
        let mut v = v;
        for k in (0..w).rev() {
            o[at + k] = b'0' + (v % 10) as u8;
            v /= 10;
        }
    };
    put(&mut o, 0, y, 4);
    put(&mut o, 5, m, 2);
    put(&mut o, 8, d, 2);
    put(&mut o, 11, hh, 2);
    put(&mut o, 14, mm, 2);
    put(&mut o, 17, ss, 2);
    o
}

#[cfg(test)]
mod self_tests {
    #[test]
    fn rfc3339_known() {
        assert_eq!(&super::rfc3339(0), b"1970-01-01T00:00:00Z");
        assert_eq!(&super::rfc3339(1_779_782_400), b"2026-05-26T08:00:00Z");
        assert_eq!(&super::rfc3339(951_782_400), b"2000-02-29T00:00:00Z");
    }
}
