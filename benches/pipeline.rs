//! Whole-pipeline throughput: ingest + parse of a large synthetic kamaji
//! manager log (tests/support/gen.rs), plain and gzipped.
//!
//! `RECONSCOPE_BENCH_MIB` sets the input size (default 256),
//! `RECONSCOPE_BENCH_SECS` the measurement time per benchmark (default 15;
//! 10 samples, flat sampling). Benchmarks:
//!
//! * `ingest+parse/plain`: `pipeline::Loaded::add` of an owned `kamaji.log`
//!   buffer (what the CLI does after reading the file), with big files
//!   parsed on every core as the CLI does;
//! * `ingest+parse/gzip`: the same bytes gzipped (`kamaji.log.gz`);
//! * `parts/parse`: `parse_file` alone (the input copy is made outside the
//!   timing);
//! * `parts/ingest-gzip`: ingest of the `.gz` alone (decompression), the
//!   member dropped unparsed.
//!
//! Run some with a filter (a regex, so escape the `+`):
//! `cargo bench --bench pipeline -- 'ingest\+parse/plain'`.
//! `scripts/bench.sh` runs them and prints MiB/s.

#[path = "../tests/support/gen.rs"]
mod gen;

use std::hint::black_box;
use std::io::Write;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, SamplingMode, Throughput};
use reconscope::ingest::{ingest, Event, IngestOptions};
use reconscope::parse::parse_file;
use reconscope::pipeline::{LoadOptions, Loaded};

fn env_num(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.trim().parse().ok()).filter(|&n| n > 0).unwrap_or(default)
}

/// The options the CLI uses: big files parsed on every core.
fn load_opts() -> LoadOptions {
    let mut o = LoadOptions::default();
    o.parse.threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    o
}

/// The library's whole reading path ([`Loaded::add`]) over an owned buffer,
/// as the CLI and the browser worker hand it over; returns the number of
/// records (and panics on any note, which would void the figure).
fn pipeline(name: &str, bytes: Vec<u8>, opts: &LoadOptions) -> u64 {
    let mut loaded = Loaded::default();
    loaded.add(name, bytes, opts);
    assert!(loaded.notes.is_empty(), "{:?}", loaded.notes);
    let records = loaded.files.iter().map(|f| f.counts.records()).sum();
    black_box(&loaded);
    records
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::with_capacity(bytes.len() / 8), flate2::Compression::fast());
    enc.write_all(bytes).expect("gzip");
    enc.finish().expect("gzip")
}

fn benches(c: &mut Criterion) {
    let mib = env_num("RECONSCOPE_BENCH_MIB", 256) as usize;
    // 10 samples of one iteration each take ~12 s at 256 MiB on a slow core.
    let secs = Duration::from_secs(env_num("RECONSCOPE_BENCH_SECS", 15));
    let t = Instant::now();
    let log = gen::kamaji_log(mib << 20, 0x6b61_6d61_6a69);
    let gen_time = t.elapsed();
    let t = Instant::now();
    let gz = gzip(&log);
    eprintln!(
        "input: {} bytes ({mib} MiB) generated in {:.2?}; gzip (fast) {} bytes, {:.1}x, in {:.2?}",
        log.len(),
        gen_time,
        gz.len(),
        log.len() as f64 / gz.len() as f64,
        t.elapsed()
    );
    // Sanity: both forms give the same records.
    let (a, b) = (pipeline("kamaji.log", log.clone(), &load_opts()), pipeline("kamaji.log.gz", gz.clone(), &load_opts()));
    assert_eq!(a, b, "plain and gzip inputs parse to different record counts");
    eprintln!("records per run: {a}");

    let bytes = Throughput::Bytes(log.len() as u64);

    let mut g = c.benchmark_group("ingest+parse");
    g.sample_size(10).sampling_mode(SamplingMode::Flat).warm_up_time(Duration::from_secs(1)).measurement_time(secs);
    g.throughput(bytes.clone());
    let opts = load_opts();
    g.bench_function("plain", |b| b.iter_batched(|| log.clone(), |v| black_box(pipeline("kamaji.log", v, &opts)), BatchSize::PerIteration));
    g.bench_function("gzip", |b| b.iter_batched(|| gz.clone(), |v| black_box(pipeline("kamaji.log.gz", v, &opts)), BatchSize::PerIteration));
    g.finish();

    let mut g = c.benchmark_group("parts");
    g.sample_size(10).sampling_mode(SamplingMode::Flat).warm_up_time(Duration::from_secs(1)).measurement_time(secs);
    g.throughput(bytes.clone());
    let opts = load_opts().parse;
    g.bench_function("parse", |b| b.iter_batched(|| log.clone(), |v| black_box(parse_file("kamaji.log", v, &opts).counts.records()), BatchSize::PerIteration));
    g.bench_function("ingest-gzip", |b| {
        b.iter(|| {
            let mut n = 0usize;
            ingest("kamaji.log.gz", black_box(&gz), &IngestOptions::default(), &mut |ev| {
                if let Event::File(m) = ev {
                    n += m.bytes.len();
                }
            });
            black_box(n)
        })
    });
    g.finish();

    // Analysis and layout of the same log, as the CLI and the app run them.
    let mut loaded = Loaded::default();
    loaded.add("kamaji.log", log.clone(), &load_opts());
    loaded.finish();
    let mut g = c.benchmark_group("after-parse");
    g.throughput(bytes.clone());
    g.sample_size(10).sampling_mode(SamplingMode::Flat).warm_up_time(Duration::from_secs(1)).measurement_time(secs);
    g.bench_function("analyze", |b| b.iter(|| black_box(reconscope::analyze::analyze(&loaded.files, &Default::default()).0.reconciles.len())));
    let (analysis, _) = reconscope::analyze::analyze(&loaded.files, &Default::default());
    g.bench_function("layout", |b| b.iter(|| black_box(reconscope::layout::layout(&analysis, &Default::default()).bars.len())));
    g.finish();
}

criterion_group!(pipeline_benches, benches);
criterion_main!(pipeline_benches);
