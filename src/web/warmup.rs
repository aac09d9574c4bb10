//! The warm-up load the page's spare worker runs as the page opens.

use super::{Received, Session};
use crate::layout::LayoutOptions;

/// Parses, analyzes, lays out and encodes (as for the page) a small
/// generated controller-runtime log, and forgets it: after this, a browser
/// that compiles hot code on the fly ("tiering up") has the parser's and
/// the analysis' hot code compiled. Returns how many reconciles it found.
pub fn warm_up() -> usize {
    let log = warm_up_log(2 << 20);
    let size = log.len() as u64;
    let mut s = Session::new(1, size);
    let slice = 256 << 10;
    for (i, piece) in log.chunks(slice).enumerate() {
        let offset = (i * slice) as u64;
        if s.receive("warm-up.log", offset, size, piece, offset + piece.len() as u64 == size) == Received::Complete {
            s.complete();
        }
    }
    let mut r = s.finish();
    let reconciles = r.analysis.reconciles.len();
    r.lay_out(LayoutOptions::default());
    r.detach();
    let _ = s.lines(0);
    reconciles
}

/// About `bytes` bytes of a kamaji-like manager log in controller-runtime's
/// zap console form: reconciles of a few controllers and objects (some
/// ending in an error with a stack), etcd client warnings in JSON.
fn warm_up_log(bytes: usize) -> Vec<u8> {
    const MESSAGES: [&str; 4] = ["Reconciling", "resource has been configured", "deployment has been configured", "has been reconciled"];
    let mut out = Vec::with_capacity(bytes + 1024);
    let mut i = 0u64;
    while out.len() < bytes {
        let secs = i / 4;
        let ts = |ms: u64| format!("2026-05-26T{:02}:{:02}:{:02}.{ms:03}Z", 10 + secs / 3600 % 10, secs / 60 % 60, secs % 60);
        let (ns, name) = (format!("tenant-{}", i % 7), format!("tcp-{}", i % 41));
        let ctx = format!(
            "{{\"controller\": \"tenantcontrolplane\", \"controllerGroup\": \"kamaji.clastix.io\", \"controllerKind\": \"TenantControlPlane\", \"TenantControlPlane\": {{\"name\":\"{name}\",\"namespace\":\"{ns}\"}}, \"namespace\": \"{ns}\", \"name\": \"{name}\", \"reconcileID\": \"{:08x}-0000-4000-8000-{:012x}\"}}",
            i, i * 7919
        );
        for (k, msg) in MESSAGES.iter().enumerate() {
            out.extend_from_slice(format!("{}\tINFO\t{msg}\t{ctx}\n", ts(k as u64 * 90)).as_bytes());
        }
        if i.is_multiple_of(13) {
            out.extend_from_slice(format!("{}\tERROR\tReconciler error\t{ctx}\nsigs.k8s.io/controller-runtime/pkg/internal/controller.(*Controller).reconcileHandler\n\t/go/pkg/mod/sigs.k8s.io/controller-runtime@v0.21.0/pkg/internal/controller/controller.go:353\n", ts(400)).as_bytes());
        }
        if i.is_multiple_of(5) {
            out.extend_from_slice(format!("{{\"level\":\"warn\",\"ts\":\"{}\",\"logger\":\"etcd-client\",\"msg\":\"retrying of unary invoker failed\",\"attempt\":0,\"error\":\"rpc error: code = DeadlineExceeded desc = context deadline exceeded\"}}\n", ts(500)).as_bytes());
        }
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_warm_up_runs_the_whole_load() {
        let log = warm_up_log(1 << 20);
        assert!(log.len() >= 1 << 20);
        let pf = crate::parse::parse_file("w.log", log, &Default::default());
        assert_eq!(pf.counts.unparsed(), 0);
        assert!(pf.counts.continuation_lines > 0, "stacks join their ERROR line");
        let reconciles = warm_up();
        assert!(reconciles > 1000, "{reconciles} reconciles");
    }
}
