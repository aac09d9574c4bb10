//! Times the analysis of log files step by step:
//! `cargo run --release --example time_analyze -- FILE... [--runs N] [--cli]`.
//!
//! By default as the browser worker (wasm, one thread) runs it: the
//! records gathered on one thread, each reconcile's first line parsed again
//! for its fields. With `--cli`, as `reconscope analyze` runs it: the
//! parser keeps the fields the analysis reads (`keep_first_fields`) and the
//! records are gathered on two threads.
//!
//! The files are parsed first (on two threads: parsing is not what is
//! timed). Then each run calls the steps of `analyze::analyze` one after
//! the other, timing each, then `analyze::analyze` itself, then the
//! `--json` document of its analysis, written as the CLI writes it (into a
//! 64 KiB buffer, here in front of nothing).

use std::time::{Duration, Instant};

use reconscope::analyze::{self, coverage, etcd, findings, goroutines, objects, reconciles, Analysis, AnalyzeOptions};
use reconscope::parse::ParseOptions;
use reconscope::pipeline::{LoadOptions, Loaded};

fn ms(d: Duration) -> String {
    format!("{:8.1}", d.as_secs_f64() * 1e3)
}

fn main() -> std::io::Result<()> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut runs = 3usize;
    let cli = args.iter().any(|a| a == "--cli");
    args.retain(|a| a != "--cli");
    if let Some(i) = args.iter().position(|a| a == "--runs") {
        runs = args.get(i + 1).and_then(|s| s.parse().ok()).unwrap_or(runs);
        args.drain(i..(i + 2).min(args.len()));
    }
    if args.is_empty() {
        eprintln!("usage: time_analyze FILE... [--runs N] [--cli]");
        std::process::exit(2);
    }
    let load = LoadOptions { parse: ParseOptions { threads: 2, keep_first_fields: cli, ..Default::default() }, ..Default::default() };
    let mut loaded = Loaded::default();
    let t = Instant::now();
    for path in &args {
        loaded.add(path, std::fs::read(path)?, &load);
    }
    loaded.finish();
    let files = &loaded.files;
    let records: usize = files.iter().map(|f| f.records.len()).sum();
    eprintln!("parsed {records} records in {} ms", ms(t.elapsed()).trim());
    let opts = AnalyzeOptions { threads: if cli { 2 } else { 1 }, ..AnalyzeOptions::default() };
    println!(
        "{:>8} {:>8} {:>8} {:>8} {:>8} {:>8} | {:>8} | {:>8} {:>8}",
        "build", "etcd+cov", "objects", "gorout", "findings", "link", "steps", "analyze", "json"
    );
    // The VM is noisy: the least of each column over the runs is the figure.
    let mut best = [Duration::MAX; 9];
    for _ in 0..runs {
        let mut diags = Vec::new();
        let t0 = Instant::now();
        let built = reconciles::build(files, &opts);
        let t1 = Instant::now();
        let reconciles::Built { controllers, mut reconciles, record_refs, deletions, etcd_records, .. } = built;
        let (elections, client_warnings) = etcd::analyze(files, &etcd_records);
        let (coverage, cover) = coverage::measure(files, &elections);
        coverage::clip_latent_starts(&mut reconciles, &record_refs, &coverage, &cover);
        let t2 = Instant::now();
        let objects = objects::build(files, &reconciles, &deletions, &mut diags);
        let t3 = Instant::now();
        let mut a = Analysis { controllers, reconciles, record_refs, elections, client_warnings, objects, coverage, ..Default::default() };
        goroutines::read(&mut a, files, &opts);
        let t4 = Instant::now();
        findings::find(&mut a, files, &opts, &cover);
        let t5 = Instant::now();
        goroutines::link(&mut a);
        let t6 = Instant::now();
        let n = a.reconciles.len();
        drop(a);
        let t7 = Instant::now();
        let whole = analyze::analyze(files, &opts);
        let t8 = Instant::now();
        let mut w = std::io::BufWriter::with_capacity(1 << 16, std::io::sink());
        analyze::json::write_json(&mut w, &[], &whole.0, analyze::json::Extras { threads: 2, ..Default::default() }).expect("the JSON document");
        drop(w);
        let t9 = Instant::now();
        drop(whole);
        let row = [t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4, t6 - t5, t6 - t0, t8 - t7, t9 - t8];
        for (b, d) in best.iter_mut().zip(row) {
            *b = (*b).min(d);
        }
        let r: Vec<String> = row.iter().map(|&d| ms(d)).collect();
        println!("{} | {} | {} {}   ({n} reconciles)", r[..6].join(" "), r[6], r[7], r[8]);
    }
    let b: Vec<String> = best.iter().map(|&d| ms(d)).collect();
    println!("{} | {} | {} {}   (least)", b[..6].join(" "), b[6], b[7], b[8]);
    Ok(())
}
