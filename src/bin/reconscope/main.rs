//! The native CLI: parses flags, reads files, and hands bytes to the
//! library. All the work is in the library; this file only dispatches.

use std::ffi::OsString;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use reconscope::analyze::{self, Analysis, AnalyzeOptions, FindingKind};
use reconscope::evidence::{self, ShareOptions};
use reconscope::htmlreport::{self, AppAssets};
use reconscope::layout::{self, LayoutOptions};
use reconscope::model::{Diagnostic, FileBytes, ParsedFile};
use reconscope::pipeline::{LoadOptions, Loaded};
use reconscope::redact::{RedactOptions, Redactor};
use reconscope::report::{self, ReportOptions};
use reconscope::stats::FileStats;
use reconscope::words::plural;
use reconscope::{inert, render};

mod mapped;

const USAGE: &str = "\
reconscope: reconcile timelines and stall findings from controller-runtime, etcd and CI logs

USAGE:
    reconscope stats INPUT... [--json] [options]
    reconscope analyze INPUT... [--json] [--markdown FILE|-] [--svg FILE] [--png FILE] [--html FILE [--app-dir DIR]]
                      [--fail-on KIND,...] [--app-url URL] [--reconcile-timeout DUR] [--workers CONTROLLER=N]... [--dump-time TIME] [options]
    reconscope share INPUT... --finding KIND|N [--app-url URL] [--file OUT.reconscope] [--mask-hosts] [options]

INPUT is a log file, a folder (read recursively) or an archive (.zip, .tar,
.tar.gz/.tgz, .gz; archives inside archives are opened too).

COMMANDS:
    stats     For each log file: bytes, records, unparsed lines, formats
              detected, first and last timestamp (RFC3339, UTC).
    analyze   Reconciles, controller instances, worker lanes, etcd elections,
              object lifecycles and findings (stalled-worker, expired-context,
              stuck-deletion, slow-reconcile, hot-loop, error-burst,
              election-overlap, saturated-workers, throttled, lease-lost,
              restart). --json prints schema reconscope.analysis/v1.
    share     Print an evidence link for one finding: the app at --app-url
              with the finding's slice of the logs in the URL fragment (at
              most 32 KiB; the fragment never reaches a server), so whoever
              clicks it sees the finding, its reconciles, the elections and
              the raw lines without the artifact. Secrets are redacted.

OPTIONS:
    --json                  Print JSON instead of text.
    --markdown FILE|-       Write the Markdown report (findings, slowest reconciles,
                            elections, frequent errors, counts) to FILE, or stdout.
    --svg FILE              Write the timeline as SVG, as the app draws it: one row
                            per object, one bar per reconcile (latent starts hatched),
                            election bands with their term, findings labelled with
                            kind and duration, lifecycle markers, date and zone.
    --png FILE              Write the same picture as PNG (2x; needs a font, e.g.
                            Debian's fonts-dejavu-core).
    --html FILE             Write one self-contained HTML file: the web app and the
                            inputs inlined, no network; open it from disk and it
                            re-runs the analysis in the browser.
    --app-dir DIR           The built web app for --html (default: ./dist, else
                            <exe dir>/../share/reconscope/dist, else --app-url).
    --fail-on KIND,...      Exit 1 when a finding of one of these kinds is found
                            (stalled-worker, expired-context, stuck-deletion,
                            slow-reconcile, hot-loop, error-burst, election-overlap,
                            saturated-workers, throttled, lease-lost, restart).
    --app-url URL           Where the app is served: each finding in the Markdown
                            (and findings[].link in --json) links to its evidence there;
                            and --html fetches the app from it when there is no
                            --app-dir, ./dist or installed copy (every file checked
                            against URL/reconscope-manifest.json).
    --finding KIND|N        share: the first finding of that kind, or the Nth (1-based).
    --file OUT.reconscope   share: also write the slice as a file to drop on the app
                            (holds what the link had to leave out to fit).
    --mask-hosts            Also redact IP addresses and host names from links and files.
    --reconcile-timeout DUR The operator's reconcile timeout (default 30s).
    --workers NAME=N        Worker count of a controller whose log lacks
                            `Starting workers` (repeatable).
    --dump-time TIME        When goroutine dumps in the input were taken (RFC3339),
                            for a dump nothing else dates (no wrapper time, no
                            time in its file name, no archive time, no log lines
                            around it).
    --utc-offset OFFSET     Offset from UTC of times written without a zone: hours
                            (2, -5.5) or +HH:MM (default 0 = UTC).
    --max-total-bytes N     Cap on decompressed bytes over all input (default 8 GiB);
                            a number of bytes or a size: 3GB, 500MiB (binary units).
    --max-ratio N           Cap on any member's compression ratio (default 200).
    --no-mmap               Read input files instead of mapping them (for logs
                            that may be cut while read: logrotate's copytruncate).
    --timings               Say on stderr how long reading and parsing, the analysis
                            and writing the output took (wall-clock seconds).
    -h, --help              Show this help.

EXIT CODES:
    0  success
    1  analyze found a finding named by --fail-on
    2  bad usage or unreadable input (one line on stderr naming the file)

On a terminal a progress line is shown on stderr; otherwise stderr stays quiet.

EXAMPLES:
    reconscope stats kamaji-controller.log
    reconscope stats cozyreport.zip --json
    reconscope stats ./artifacts/
    reconscope analyze cozyreport.zip --json > analysis.json
    reconscope analyze kamaji.log etcd-0.log --workers tenantcontrolplane=1 --reconcile-timeout 30s
    reconscope analyze cozyreport.zip --markdown \"$GITHUB_STEP_SUMMARY\" --fail-on stalled-worker,stuck-deletion
    reconscope share cozyreport.zip --finding stalled-worker --app-url https://you.github.io/reconscope/
    reconscope analyze cozyreport.zip --png timeline.png
";

/// Command-line options shared by the commands.
struct Options {
    inputs: Vec<PathBuf>,
    json: bool,
    load: LoadOptions,
    analyze: AnalyzeOptions,
    /// `--markdown`: a path, or `-` for stdout.
    markdown: Option<String>,
    svg: Option<String>,
    /// `--png`: the timeline as PNG.
    png: Option<String>,
    /// `--html`: the self-contained report to write.
    html: Option<PathBuf>,
    /// `--app-dir`: trunk's dist/ for `--html`.
    app_dir: Option<PathBuf>,
    fail_on: Vec<FindingKind>,
    report: ReportOptions,
    /// `share --finding`: a kind, or a 1-based number.
    finding: Option<String>,
    /// `share --file`.
    evidence_file: Option<PathBuf>,
    redact: RedactOptions,
    /// False with `--no-mmap`: plain files are read, not mapped.
    mmap: bool,
    /// `--timings`: the steps' durations on stderr.
    timings: bool,
}

/// The wall-clock time of a command's steps, said on stderr at its end
/// with `--timings` (and measured either way: it costs a clock reading
/// per step).
struct Timings {
    on: bool,
    last: std::time::Instant,
    steps: Vec<(&'static str, std::time::Duration)>,
}

impl Timings {
    fn start(on: bool) -> Timings {
        Timings { on, last: std::time::Instant::now(), steps: Vec::new() }
    }

    /// Ends the step called `name`, which began where the last one ended.
    fn step(&mut self, name: &'static str) {
        let now = std::time::Instant::now();
        self.steps.push((name, now - self.last));
        self.last = now;
    }

    /// `timings: read and parse 0.212 s, analysis 0.157 s, output 0.027 s
    /// (in all 0.396 s)`, to the millisecond.
    fn line(&self) -> String {
        let secs = |d: std::time::Duration| format!("{:.3} s", d.as_secs_f64());
        let steps: Vec<String> = self.steps.iter().map(|(name, d)| format!("{name} {}", secs(*d))).collect();
        format!("timings: {} (in all {})", steps.join(", "), secs(self.steps.iter().map(|s| s.1).sum()))
    }

    fn report(&self) {
        if self.on {
            eprintln!("reconscope: {}", self.line());
        }
    }
}

/// A usage or input error: exit code 2.
#[derive(Debug)]
struct ExitTwo(String);

impl std::fmt::Display for ExitTwo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for ExitTwo {}

fn main() -> ExitCode {
    // As the OS gives them: a path need not be UTF-8 (`std::env::args`
    // would panic on one).
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    match run(args) {
        Ok(code) => code,
        Err(e) => {
            // One line, naming the file where there is one.
            // Names from archives may hold escape sequences: shown, not obeyed.
            let msg = format!("{e:#}").replace('\n', " ");
            eprintln!("reconscope: {}", inert::terminal(&msg));
            ExitCode::from(2)
        }
    }
}

fn run(args: Vec<OsString>) -> Result<ExitCode> {
    let Some(cmd) = args.first() else {
        print!("{USAGE}");
        return Err(ExitTwo("missing command; see `reconscope --help`".into()).into());
    };
    match cmd.to_string_lossy().as_ref() {
        "-h" | "--help" | "help" => {
            print!("{USAGE}");
            Ok(ExitCode::SUCCESS)
        }
        "stats" => {
            let opts = parse_options(&args[1..])?;
            stats(&opts)
        }
        "analyze" => analyze_cmd(&for_analysis(parse_options(&args[1..])?)),
        "share" => share_cmd(&for_analysis(parse_options(&args[1..])?)),
        other => bail!(ExitTwo(format!("unknown command `{other}`; see `reconscope --help`"))),
    }
}

/// The options of a command that analyses: the parser keeps the fields
/// the analysis reads (each reconcile's first line, warnings, errors), and
/// the records are gathered on as many threads as they were parsed on.
fn for_analysis(mut o: Options) -> Options {
    o.load.parse.keep_first_fields = true;
    o.analyze.threads = o.load.parse.threads;
    o
}

fn parse_options(args: &[OsString]) -> Result<Options> {
    let mut o = Options {
        inputs: Vec::new(),
        json: false,
        load: LoadOptions::default(),
        analyze: AnalyzeOptions::default(),
        markdown: None,
        svg: None,
        png: None,
        html: None,
        app_dir: None,
        fail_on: Vec::new(),
        report: ReportOptions::default(),
        finding: None,
        evidence_file: None,
        mmap: true,
        timings: false,
        redact: RedactOptions::default(),
    };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        // An argument that is not UTF-8 can only be an input's path.
        let Some(a) = arg.to_str() else {
            o.inputs.push(PathBuf::from(arg));
            continue;
        };
        // An option's value is text (a path given as one too).
        let mut value = |name: &str| -> Result<String> {
            let v = it.next().ok_or_else(|| ExitTwo(format!("{name} needs a value")))?;
            v.to_str().map(str::to_string).ok_or_else(|| ExitTwo(format!("{name}: `{}` is not UTF-8", v.to_string_lossy())).into())
        };
        match a {
            "--json" => o.json = true,
            "--utc-offset" => {
                let v = value(a)?;
                let off = utc_offset(&v)
                    .ok_or_else(|| ExitTwo(format!("--utc-offset: `{v}` is not an offset from UTC like 2, -5.5 or +05:30 (less than 24 hours)")))?;
                o.load.parse.default_offset_secs = off.local_minus_utc();
            }
            "--reconcile-timeout" => {
                let v = value(a)?;
                o.analyze.reconcile_timeout_nanos = match reconscope::time::parse_duration(&v) {
                    Ok(n) if n > 0 => n,
                    Ok(_) => bail!(ExitTwo(format!("--reconcile-timeout: `{v}`: give a duration longer than 0, like 30s or 2m"))),
                    Err(e) => bail!(ExitTwo(format!("--reconcile-timeout: `{v}`: {e}"))),
                };
            }
            "--dump-time" => {
                let v = value(a)?;
                let p = reconscope::time::parse_rfc3339(v.trim().as_bytes(), true, 0)
                    .ok_or_else(|| ExitTwo(format!("--dump-time: `{v}` is not an RFC3339 time like 2026-05-26T16:45:00Z")))?;
                o.analyze.dump_time_nanos = Some(p.ts.nanos);
            }
            "--markdown" => o.markdown = Some(value(a)?),
            "--svg" => o.svg = Some(value(a)?),
            "--png" => o.png = Some(value(a)?),
            "--html" => o.html = Some(PathBuf::from(value(a)?)),
            "--app-dir" => o.app_dir = Some(PathBuf::from(value(a)?)),
            "--app-url" => o.report.app_url = Some(value(a)?),
            "--finding" => o.finding = Some(value(a)?),
            "--file" => o.evidence_file = Some(PathBuf::from(value(a)?)),
            "--mask-hosts" => o.redact.mask_hosts = true,
            "--fail-on" => {
                let v = value(a)?;
                for name in v.split(',').map(str::trim).filter(|n| !n.is_empty()) {
                    let kind = FindingKind::parse(name).ok_or_else(|| ExitTwo(format!("--fail-on: unknown finding kind `{name}`")))?;
                    o.fail_on.push(kind);
                }
            }
            "--workers" => {
                let v = value(a)?;
                let (name, n) = v
                    .split_once('=')
                    .and_then(|(c, n)| Some((c.to_string(), n.parse::<u32>().ok().filter(|n| *n > 0)?)))
                    .ok_or_else(|| ExitTwo(format!("--workers: `{v}` is not CONTROLLER=N")))?;
                o.analyze.workers.insert(name, n);
            }
            "--max-total-bytes" => {
                let v = value(a)?;
                o.load.ingest.max_total_bytes = reconscope::ingest::parse_bytes(&v).map_err(|e| ExitTwo(format!("--max-total-bytes: {e}")))?;
            }
            "--no-mmap" => o.mmap = false,
            "--timings" => o.timings = true,
            "--max-ratio" => {
                let v = value(a)?;
                o.load.ingest.max_ratio = v.parse().map_err(|_| ExitTwo(format!("--max-ratio: `{v}` is not a number")))?;
            }
            "-h" | "--help" => {
                print!("{USAGE}");
                std::process::exit(0);
            }
            s if s.starts_with('-') && s.len() > 1 => bail!(ExitTwo(format!("unknown option `{s}`"))),
            s => o.inputs.push(PathBuf::from(s)),
        }
    }
    // Big files are parsed on every core (and `--json`'s reconciles
    // rendered on them).
    o.load.parse.threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    if o.inputs.is_empty() {
        bail!(ExitTwo("no INPUT given; see `reconscope --help`".into()));
    }
    if o.json && o.markdown.as_deref() == Some("-") {
        bail!(ExitTwo("--json and --markdown - both want stdout; give --markdown a FILE".into()));
    }
    if o.app_dir.is_some() && o.html.is_none() {
        bail!(ExitTwo("--app-dir only goes with --html FILE".into()));
    }
    Ok(o)
}

/// Every regular file under `path` (or `path` itself), sorted, with the
/// name to show for it.
/// `--utc-offset`: hours (`2`, `-5.5`) or `±HH:MM` (`+05:30`), as chrono's
/// `FixedOffset`; `None` for anything else or a day or more from UTC.
fn utc_offset(v: &str) -> Option<chrono::FixedOffset> {
    let v = v.trim();
    if v.contains(':') {
        return v.parse().ok();
    }
    let hours: f64 = v.parse().ok()?;
    let secs = (hours * 3600.0).round();
    // (NaN and infinities are not finite; a day or more saturates the cast
    // and FixedOffset refuses it.)
    if !secs.is_finite() || secs.abs() >= 86_400.0 {
        return None;
    }
    chrono::FixedOffset::east_opt(secs as i32)
}

/// The files under the inputs, each read once, and what the walk left out.
#[derive(Default)]
struct Walk {
    files: Vec<(PathBuf, String)>,
    notes: Vec<Diagnostic>,
    /// Folders walked and files taken, by their real path.
    dirs: std::collections::HashSet<PathBuf>,
    seen: std::collections::HashMap<PathBuf, String>,
}

impl Walk {
    fn note(&mut self, path: &Path, message: impl Into<String>) {
        self.notes.push(Diagnostic { path: path.display().to_string(), line: None, message: message.into() });
    }

    /// An input named on the command line: it must exist (a typo is an
    /// error); a folder is walked with [`Walk::dir`], its real path the top
    /// no symbolic link below it may leave.
    fn input(&mut self, path: &Path) -> Result<()> {
        let meta = std::fs::metadata(path).with_context(|| format!("{}: cannot read", path.display()))?;
        if meta.is_dir() {
            let top = std::fs::canonicalize(path).with_context(|| format!("{}: cannot read folder", path.display()))?;
            self.dir(path, &top);
        } else {
            self.file(path, std::fs::canonicalize(path).ok());
        }
        Ok(())
    }

    /// A folder's entries in name order. Symbolic links are followed only
    /// to what lies inside `top`, each folder and file once; whatever
    /// cannot be read is noted by name and the walk goes on.
    fn dir(&mut self, dir: &Path, top: &Path) {
        match std::fs::canonicalize(dir) {
            Ok(real) => {
                if !self.dirs.insert(real) {
                    return self.note(dir, "a folder already read (a symbolic link loop): not read again");
                }
            }
            Err(e) => return self.note(dir, format!("cannot read folder: {e}")),
        }
        let entries = match std::fs::read_dir(dir) {
            Ok(r) => r,
            Err(e) => return self.note(dir, format!("cannot read folder: {e}")),
        };
        let mut paths = Vec::new();
        for e in entries {
            match e {
                Ok(e) => paths.push(e.path()),
                Err(e) => self.note(dir, format!("cannot list an entry: {e}")),
            }
        }
        paths.sort();
        for path in paths {
            let lmeta = match std::fs::symlink_metadata(&path) {
                Ok(m) => m,
                Err(e) => {
                    self.note(&path, format!("cannot read: {e}"));
                    continue;
                }
            };
            let real = if lmeta.file_type().is_symlink() {
                let target = std::fs::read_link(&path).map(|t| t.display().to_string()).unwrap_or_default();
                match std::fs::canonicalize(&path) {
                    Err(e) => {
                        self.note(&path, format!("a symbolic link to {target} that cannot be followed ({e}): not read"));
                        continue;
                    }
                    Ok(real) if !real.starts_with(top) => {
                        self.note(&path, format!("a symbolic link to {} outside {}: not followed", real.display(), top.display()));
                        continue;
                    }
                    Ok(real) => real,
                }
            } else {
                path.clone()
            };
            let meta = match std::fs::metadata(&real) {
                Ok(m) => m,
                Err(e) => {
                    self.note(&path, format!("cannot read: {e}"));
                    continue;
                }
            };
            if meta.is_dir() {
                self.dir(&path, top);
            } else if meta.is_file() {
                self.file(&path, std::fs::canonicalize(&real).ok());
            } else {
                // A FIFO, socket or device: reading it may never end.
                self.note(&path, "not a regular file: not read");
            }
        }
    }

    fn file(&mut self, path: &Path, real: Option<PathBuf>) {
        let name = path.display().to_string();
        if let Some(real) = real {
            if let Some(first) = self.seen.get(&real) {
                let message = format!("the same file as {first}: read once");
                return self.note(path, message);
            }
            self.seen.insert(real, name.clone());
        }
        self.files.push((path.to_path_buf(), name));
    }
}

/// Reads the file at `path` (named `name`); a plain log bigger than `room`
/// only up to it, cut at its last whole line, with its whole size (an
/// archive is read whole: `ingest` caps what its members produce). A
/// regular file of [`mapped::MIN_MAP_BYTES`] or more is mapped, not read,
/// unless `map` is false (`--no-mmap`).
fn read_capped(path: &Path, name: &str, room: u64, map: bool) -> std::io::Result<(FileBytes, Option<u64>)> {
    use std::io::{Read, Seek};
    let mut f = std::fs::File::open(path)?;
    let meta = f.metadata()?;
    let size = meta.len();
    // (A file in /proc says it is empty and is not: it is read.)
    let map = map && meta.is_file() && size >= mapped::MIN_MAP_BYTES;
    // A file system that cannot map (some FUSE mounts) is read instead.
    let try_map = |f: &std::fs::File, len: u64| map.then(|| mapped::map(f, len).ok()).flatten();
    let whole = |f: &mut std::fs::File| -> std::io::Result<FileBytes> {
        if let Some(b) = try_map(f, size) {
            return Ok(b);
        }
        let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
        f.read_to_end(&mut bytes)?;
        Ok(bytes.into())
    };
    if size <= room {
        return Ok((whole(&mut f)?, None));
    }
    let mut head = Vec::new();
    (&mut f).take(64 << 10).read_to_end(&mut head)?;
    f.rewind()?;
    if !reconscope::pipeline::streamable(name, &head) {
        return Ok((whole(&mut f)?, None));
    }
    let mut bytes: FileBytes = match try_map(&f, room) {
        Some(b) => b,
        None => {
            let mut bytes = Vec::new();
            f.take(room).read_to_end(&mut bytes)?;
            bytes.into()
        }
    };
    let end = memchr::memrchr(b'\n', bytes.plain().unwrap_or_default()).map_or(0, |i| i + 1);
    bytes.truncate(end);
    Ok((bytes, Some(size)))
}

/// Walks every input (see [`Walk`]).
fn walk(inputs: &[PathBuf]) -> Result<Walk> {
    let mut w = Walk::default();
    for input in inputs {
        w.input(input)?;
    }
    Ok(w)
}

/// Reads all inputs and parses every log file in them. Archive problems are
/// notes; a file that cannot be read at all is an error (exit 2).
fn load(opts: &Options) -> Result<(Vec<ParsedFile>, Vec<String>)> {
    let Walk { files, notes: walk_notes, .. } = walk(&opts.inputs)?;
    let named: std::collections::HashSet<&Path> = opts.inputs.iter().map(PathBuf::as_path).collect();
    let mut loaded = Loaded { notes: walk_notes, ..Loaded::default() };
    // A progress line on a terminal only; pipes and CI logs stay quiet.
    let progress = std::io::stderr().is_terminal();
    let total = files.len();
    let mut done_bytes = 0u64;
    // A plain log was cut at the cap: what follows is not read.
    let mut spent = false;
    for (i, (path, name)) in files.into_iter().enumerate() {
        // The run's cap is spent: the rest is left out unread, each named.
        let cap = opts.load.ingest.max_total_bytes;
        if spent || loaded.total_bytes >= cap {
            let text = reconscope::ingest::IngestError::TotalCap { path: name.clone(), cap }.to_string();
            let message = text.strip_prefix(&format!("{name}: ")).unwrap_or(&text).to_string();
            loaded.notes.push(Diagnostic { path: name, line: None, message });
            continue;
        }
        // A file named on the command line must be read; one found in a
        // folder that cannot be is noted, and the others are read.
        let bytes = match read_capped(&path, &name, cap - loaded.total_bytes, opts.mmap) {
            Ok((b, None)) => b,
            Ok((b, Some(size))) => {
                // A plain log over what is left of the cap: read up to it.
                spent = true;
                let h = reconscope::ingest::human_bytes;
                let message = if b.is_empty() {
                    format!("left out: the run's input is over the {} total cap (--max-total-bytes counts the decompressed bytes of all inputs together) before its first whole line", h(cap))
                } else {
                    format!(
                        "read only in part: its first {} of {} (to the last whole line); the last {} were left out: the run's input is over the {} total cap (--max-total-bytes counts the decompressed bytes of all inputs together)",
                        h(b.len() as u64),
                        h(size),
                        h(size - b.len() as u64),
                        h(cap)
                    )
                };
                loaded.notes.push(Diagnostic { path: name.clone(), line: None, message });
                if b.is_empty() {
                    continue;
                }
                b
            }
            Err(e) if !named.contains(path.as_path()) => {
                loaded.notes.push(Diagnostic { path: name, line: None, message: format!("cannot read: {e}") });
                continue;
            }
            Err(e) => return Err(anyhow::Error::new(e).context(format!("{name}: cannot read"))),
        };
        done_bytes += bytes.len() as u64;
        if progress {
            let shown: String = name.chars().rev().take(60).collect::<Vec<_>>().into_iter().rev().collect();
            eprint!("\r\x1b[2Kreading {}/{} ({} MB) {}", i + 1, total, done_bytes >> 20, inert::terminal(&shown));
        }
        // Times written without a year may take theirs from it.
        let mtime = std::fs::metadata(&path)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .and_then(|d| i64::try_from(d.as_secs()).ok());
        loaded.add_with_mtime(&name, bytes, mtime, &opts.load);
    }
    if progress {
        eprint!("\r\x1b[2K");
    }
    if loaded.files.is_empty() && !loaded.notes.is_empty() {
        let why: Vec<String> = loaded.notes.iter().take(3).map(|d| d.to_string()).collect();
        bail!("nothing could be read: {}", why.join("; "));
    }
    loaded.finish();
    let notes = loaded.notes.iter().map(|d| d.to_string()).collect();
    Ok((loaded.files, notes))
}

fn stats(opts: &Options) -> Result<ExitCode> {
    let mut timings = Timings::start(opts.timings);
    let (parsed, notes) = load(opts)?;
    timings.step("read and parse");
    let inputs: Vec<FileStats> = parsed.iter().map(FileStats::of).collect();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    if opts.json {
        let doc = serde_json::json!({ "inputs": inputs, "notes": notes });
        serde_json::to_writer_pretty(&mut out, &doc)?;
        writeln!(out)?;
    } else {
        for s in &inputs {
            writeln!(out, "{}", inert::terminal(&s.path))?;
            writeln!(out, "  bytes     {}", s.bytes)?;
            writeln!(out, "  records   {}", s.records)?;
            writeln!(out, "  unparsed  {}", s.unparsed)?;
            let f: Vec<String> = s.formats.iter().map(|(k, v)| format!("{k}={v}")).collect();
            writeln!(out, "  formats   {}", f.join(" "))?;
            writeln!(out, "  first     {}", s.first.as_deref().unwrap_or("-"))?;
            writeln!(out, "  last      {}", s.last.as_deref().unwrap_or("-"))?;
        }
        for n in &notes {
            writeln!(out, "note: {}", inert::terminal(n))?;
        }
    }
    out.flush()?;
    timings.step("output");
    timings.report();
    // The process ends now: the OS frees the buffers faster than drops would.
    std::mem::forget(parsed);
    Ok(ExitCode::SUCCESS)
}

fn analyze_cmd(opts: &Options) -> Result<ExitCode> {
    // The app build is checked before the (possibly long) analysis.
    let app = opts.html.as_ref().map(|_| read_app(opts.app_dir.as_deref(), opts.report.app_url.as_deref())).transpose()?;
    // So are the fonts for --png.
    let raster = opts.png.as_ref().map(|_| render::Rasterizer::new().map_err(|e| ExitTwo(format!("--png: {e}")))).transpose()?;
    let mut timings = Timings::start(opts.timings);
    let (parsed, mut notes) = load(opts)?;
    timings.step("read and parse");
    // Each input's statistics, for the JSON, on the analysis' second thread
    // while the first joins what the two gathered.
    let (analysis, diags, inputs) = analyze::analyze_beside(&parsed, &opts.analyze, || parsed.iter().map(FileStats::of).collect::<Vec<_>>());
    timings.step("analysis");
    notes.extend(diags.iter().map(|d| d.to_string()));
    let mut out = std::io::stdout().lock();
    // Each finding's evidence link, for the Markdown and the JSON.
    let links = match &opts.report.app_url {
        Some(url) if opts.markdown.is_some() || opts.json => {
            evidence::finding_links(&analysis, &parsed, &app_url(url), &share_template(opts), evidence::MAX_LINKED_FINDINGS)
        }
        _ => Vec::new(),
    };
    if let Some(target) = &opts.markdown {
        let report_opts = ReportOptions { finding_links: links.clone(), ..opts.report.clone() };
        // Secrets never reach a job summary (links are redacted already).
        // Measured as it is written: redacted.
        let mut redactor = Redactor::new(opts.redact);
        let md = report::markdown_with(&analysis, &report_opts, &mut |s| redactor.redact_markdown(s));
        if target == "-" {
            out.write_all(md.as_bytes())?;
        } else {
            std::fs::write(target, md).with_context(|| format!("{target}: cannot write the Markdown report"))?;
        }
    }
    if opts.svg.is_some() || opts.png.is_some() {
        let timeline = layout::layout(&analysis, &LayoutOptions::default());
        // The title names what was analysed: the inputs' last path parts.
        let view = render::View { title: Some(input_names(opts).join(", ")), ..render::View::default() };
        // Log text in the picture is redacted as in the Markdown.
        let svg = Redactor::new(opts.redact).redact(&render::svg(&analysis, &timeline, &view)).into_owned();
        if let (Some(target), Some(raster)) = (&opts.png, &raster) {
            let png = raster.png(&svg, 2.0).map_err(|e| ExitTwo(format!("--png: {e}")))?;
            std::fs::write(target, png).with_context(|| format!("{target}: cannot write the PNG"))?;
        }
        if let Some(target) = &opts.svg {
            std::fs::write(target, svg).with_context(|| format!("{target}: cannot write the SVG"))?;
        }
    }
    if let (Some(target), Some(app)) = (&opts.html, &app) {
        let html = htmlreport::build(app, &html_inputs(&opts.inputs)?).map_err(|e| ExitTwo(format!("--html: {e}")))?;
        std::fs::write(target, html).with_context(|| format!("{}: cannot write the HTML report", target.display()))?;
    }
    if opts.json {
        if opts.report.app_url.is_some() && analysis.findings.len() > evidence::MAX_LINKED_FINDINGS {
            notes.push(format!("evidence links were made for the first {} findings only", evidence::MAX_LINKED_FINDINGS));
        }
        // Streamed through a buffer: an unbuffered pretty printer makes a
        // write call per token.
        let mut w = std::io::BufWriter::with_capacity(1 << 16, &mut out);
        // The reconciles rendered on as many threads as parsed the logs.
        let extras = analyze::json::Extras { links: Some(&links), notes: Some(&notes), threads: opts.load.parse.threads };
        analyze::json::write_json(&mut w, &inputs, &analysis, extras)?;
        writeln!(w)?;
        w.flush()?;
    } else if opts.markdown.as_deref() != Some("-") {
        let elections = analysis.elections_text();
        // A year the logs did not write is said to be a guess here too.
        let year = if analysis.year_is_file_time() {
            "; times with no year have the latest year that puts them no later than their files' modification times"
        } else {
            ""
        };
        // And a zone the logs did not write.
        let zone = analysis
            .zone_assumed
            .map_or(String::new(), |z| format!("; times written with no zone ({}) are read {}", plural(z.files, "file", "files"), z.read()));
        writeln!(
            out,
            "{}, {}, {}, {elections}{year}{zone}",
            plural(inputs.len(), "file", "files"),
            plural(analysis.reconciles.len(), "reconcile", "reconciles"),
            plural(analysis.controllers.len(), "controller instance", "controller instances")
        )?;
        for (c, failed) in analysis.controllers.iter().zip(analysis.failed_per_controller()) {
            writeln!(
                out,
                "  controller {} ({}, {}): {}{}",
                inert::terminal(&c.name),
                plural(c.workers, "worker", "workers"),
                c.workers_source,
                plural(c.reconciles, "reconcile", "reconciles"),
                if failed > 0 { format!(", {failed} failed") } else { String::new() }
            )?;
        }
        if analysis.findings.is_empty() {
            writeln!(out, "no findings")?;
        }
        for f in &analysis.findings {
            writeln!(out, "{} [{}] {}", f.kind.as_str(), f.start, inert::terminal(&f.message))?;
        }
        // What the artifact does not show (the Markdown's section).
        let cov = &analysis.coverage;
        for u in &cov.uncovered {
            writeln!(out, "not covered: {}", inert::terminal(&u.message))?;
        }
        for (src, g) in cov.sources.iter().flat_map(|s| s.gaps.iter().map(move |g| (s, g))) {
            let what = if g.elided { "lines left out (an elision, `...`)" } else { "no line" };
            writeln!(out, "log gap: {} has {what} {} → {}", inert::terminal(&src.path), g.start, g.end)?;
        }
        for m in &cov.missing {
            writeln!(out, "missing: {}", inert::terminal(&m.message))?;
        }
        for n in &notes {
            writeln!(out, "note: {}", inert::terminal(n))?;
        }
    }
    out.flush()?;
    timings.step("output");
    timings.report();
    let failed = analysis.findings.iter().any(|f| opts.fail_on.contains(&f.kind));
    // The process ends now: the OS frees the buffers faster than drops would.
    std::mem::forget((parsed, analysis));
    Ok(if failed { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// The app's address as links use it: no fragment, nothing that would end
/// a Markdown link.
fn app_url(url: &str) -> String {
    let url = url.split('#').next().unwrap_or("");
    url.chars().filter(|c| !c.is_whitespace() && !matches!(c, '(' | ')' | '<' | '>' | '"')).collect()
}

/// The inputs' last path parts (`cozyreport.zip`, `artifacts`): what was
/// analysed, for titles and banners.
fn input_names(opts: &Options) -> Vec<String> {
    opts.inputs.iter().map(|p| p.file_name().unwrap_or(p.as_os_str()).to_string_lossy().into_owned()).collect()
}

/// What every evidence slice of this run shares: the artifact's name, the
/// time it is taken, redaction.
fn share_template(opts: &Options) -> ShareOptions {
    let artifact = render::artifact_name(&input_names(opts)).unwrap_or_default();
    let taken_at_nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).ok().and_then(|d| i64::try_from(d.as_nanos()).ok());
    ShareOptions { artifact, taken_at_nanos, redact: opts.redact, ..ShareOptions::default() }
}

/// The finding `--finding` names: a kind (its first finding) or a 1-based
/// number.
fn pick_finding(a: &Analysis, spec: &str) -> Result<usize> {
    if let Ok(n) = spec.parse::<usize>() {
        if n == 0 || n > a.findings.len() {
            bail!(ExitTwo(format!("--finding {n}: there are {} findings (numbered from 1)", a.findings.len())));
        }
        return Ok(n - 1);
    }
    let kind = FindingKind::parse(spec).ok_or_else(|| ExitTwo(format!("--finding: `{spec}` is neither a finding kind nor a number")))?;
    a.findings.iter().position(|f| f.kind == kind).ok_or_else(|| ExitTwo(format!("--finding {spec}: no such finding in the input")).into())
}

/// `share`: one finding's evidence link on stdout (and the whole slice in
/// `--file`).
fn share_cmd(opts: &Options) -> Result<ExitCode> {
    let Some(spec) = &opts.finding else {
        bail!(ExitTwo("share needs --finding KIND|N".into()));
    };
    let mut timings = Timings::start(opts.timings);
    let (parsed, _notes) = load(opts)?;
    timings.step("read and parse");
    let (analysis, _) = analyze::analyze(&parsed, &opts.analyze);
    timings.step("analysis");
    let i = pick_finding(&analysis, spec)?;
    let url = opts.report.app_url.as_deref().map(app_url).unwrap_or_default();
    let mut share_opts = ShareOptions { finding: Some(i), max_payload_bytes: evidence::link_budget(&url), ..share_template(opts) };
    let link = evidence::share(&analysis, &parsed, &share_opts);
    let mut err = std::io::stderr().lock();
    match &link {
        Ok(l) => {
            println!("{url}{}", evidence::fragment(l));
            let m = &l.meta;
            writeln!(err, "reconscope: {} of {} lines, {} of {} reconciles; {}", m.lines, m.total_lines, m.reconciles, m.total_reconciles, m.redacted_words())?;
            if !m.left_out.is_empty() && opts.evidence_file.is_none() {
                writeln!(err, "reconscope: to fit the link, {} left out; `--file OUT.reconscope` writes the whole slice", m.left_out.describe())?;
            }
        }
        Err(e) => writeln!(err, "reconscope: no link: {}", inert::terminal(&e.to_string()))?,
    }
    if url.is_empty() {
        writeln!(err, "reconscope: give --app-url URL (where the app is served) to make a whole link")?;
    }
    if let Some(path) = &opts.evidence_file {
        share_opts.max_payload_bytes = 0;
        let file = evidence::share(&analysis, &parsed, &share_opts).map_err(|e| ExitTwo(e.to_string()))?;
        std::fs::write(path, &file.payload).with_context(|| format!("{}: cannot write the evidence file", path.display()))?;
    } else if let Err(e) = link {
        bail!(ExitTwo(e.to_string()));
    }
    timings.step("output");
    timings.report();
    std::mem::forget((parsed, analysis));
    Ok(ExitCode::SUCCESS)
}

/// The built web app for `--html`, from the first there is of: `--app-dir`,
/// `./dist`, `<exe dir>/../share/reconscope/dist`, `--app-url` (fetched).
fn read_app(app_dir: Option<&Path>, app_url: Option<&str>) -> Result<AppAssets> {
    let dir = match app_dir {
        Some(d) => d.to_path_buf(),
        None => {
            let installed = std::env::current_exe().ok().and_then(|e| Some(e.parent()?.join("../share/reconscope/dist")));
            match (installed, app_url) {
                _ if Path::new("dist/index.html").exists() => PathBuf::from("dist"),
                (Some(d), _) if d.join("index.html").exists() => d,
                (_, Some(url)) => return fetch_app(url),
                _ => bail!(ExitTwo(
                    "--html needs the built web app and there is none here: no ./dist (run `make build`), none installed in \
                     <exe dir>/../share/reconscope/dist, and no --app-url; give --app-url URL of the deployed app \
                     (e.g. https://OWNER.github.io/reconscope/) or --app-dir DIR"
                        .into()
                )),
            }
        }
    };
    let missing = |what: &str| ExitTwo(format!("{}: no {what} of the web app there; run `make build` first (or give --app-dir DIR)", dir.display()));
    if !dir.join("index.html").is_file() {
        bail!(missing("index.html"));
    }
    let names: Vec<String> = std::fs::read_dir(&dir)
        .with_context(|| format!("{}: cannot read folder", dir.display()))?
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .collect();
    let find = |prefix: &str, suffix: &str| -> Result<PathBuf> {
        let mut m: Vec<&String> = names.iter().filter(|n| n.starts_with(prefix) && n.ends_with(suffix)).collect();
        m.sort();
        match m.as_slice() {
            [one] => Ok(dir.join(one)),
            [] => Err(missing(&format!("{prefix}*{suffix}")).into()),
            _ => Err(ExitTwo(format!("{}: more than one {prefix}*{suffix}; rebuild it with `make build`", dir.display())).into()),
        }
    };
    let text = |p: PathBuf| std::fs::read_to_string(&p).with_context(|| format!("{}: cannot read", p.display()));
    let bytes = |p: PathBuf| std::fs::read(&p).with_context(|| format!("{}: cannot read", p.display()));
    for f in ["worker.js", "worker_bg.wasm"] {
        if !dir.join(f).is_file() {
            bail!(missing(f));
        }
    }
    let mut snippets = Vec::new();
    let snip_dir = dir.join("snippets");
    if snip_dir.is_dir() {
        for (path, _) in walk(std::slice::from_ref(&snip_dir))?.files {
            let rel = path.strip_prefix(&dir).unwrap_or(&path).components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/");
            snippets.push((rel, text(path)?));
        }
    }
    Ok(AppAssets {
        style_css: text(find("style-", ".css")?)?,
        app_js: text(find("app-", ".js")?)?,
        app_wasm: bytes(find("app-", "_bg.wasm")?)?,
        snippets,
        worker_js: text(dir.join("worker.js"))?,
        worker_wasm: bytes(dir.join("worker_bg.wasm"))?,
    })
}

/// The web app deployed at `url` (`--app-url`): its manifest, then every
/// file the manifest lists, each checked against its size and sha256.
fn fetch_app(url: &str) -> Result<AppAssets> {
    use htmlreport::{ManifestError, MANIFEST_NAME, MAX_MANIFEST_BYTES};
    let base = app_base_url(url)?;
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_connect(Some(std::time::Duration::from_secs(15)))
        .timeout_global(Some(std::time::Duration::from_secs(120)))
        .http_status_as_error(false)
        .user_agent(concat!("reconscope/", env!("CARGO_PKG_VERSION")))
        .build()
        .into();
    let redo = "redeploy the app there (or wait for its deploy to finish), or give --app-dir DIR";
    // One file, at most `limit` bytes; `missing` says what a 404 means.
    let get = |rel: &str, limit: u64, missing: &str| -> Result<Vec<u8>> {
        let file_url = format!("{base}{rel}");
        let fail = |what: String| -> anyhow::Error { ExitTwo(format!("--app-url: {file_url}: {what}")).into() };
        let mut resp = agent.get(&file_url).call().map_err(|e| fail(format!("cannot fetch it ({e}); check the URL and the network, or give --app-dir DIR")))?;
        let status = resp.status();
        if !status.is_success() {
            return Err(fail(format!("HTTP {}; {}", status.as_u16(), if status.as_u16() == 404 { missing } else { redo })));
        }
        resp.body_mut().with_config().limit(limit).read_to_vec().map_err(|e| match e {
            ureq::Error::BodyExceedsLimit(_) => fail(format!("more than the {limit} bytes it may be; {redo}")),
            e => fail(format!("cannot read it ({e}); check the network, or give --app-dir DIR")),
        })
    };
    let no_manifest = "no app with a manifest is deployed there (deploy it with the Pages workflow, or build it with `make build`), \
                       or give --app-dir DIR";
    let bytes = get(MANIFEST_NAME, MAX_MANIFEST_BYTES as u64, no_manifest)?;
    let manifest = htmlreport::parse_manifest(&bytes).map_err(|e| ExitTwo(format!("--app-url: {base}{MANIFEST_NAME}: {e}; {redo}")))?;
    let listed_but_gone = format!("{MANIFEST_NAME} lists it but the site lacks it; {redo}");
    htmlreport::assets_from_manifest(&manifest, |f| get(&f.path, f.size, &listed_but_gone)).map_err(|e| match e.downcast::<ManifestError>() {
        Ok(e) => ExitTwo(format!("--app-url: {base}: {e}; {redo}")).into(),
        Err(e) => e,
    })
}

/// `--app-url` as the folder the app's files are in: `https://h/p/` for
/// `https://h/p`, `https://h/p/`, `https://h/p/index.html` or `https://h/p/#w=…`.
fn app_base_url(url: &str) -> Result<String> {
    let u = url.trim();
    let u = u.split_once('#').map_or(u, |(u, _)| u);
    let scheme = u.split_once("://").map(|(s, _)| s.to_ascii_lowercase());
    if !matches!(scheme.as_deref(), Some("https" | "http")) || u.contains('?') || u.contains(char::is_whitespace) {
        bail!(ExitTwo(format!("--app-url: `{url}` is not the http(s) URL of the deployed app (like https://OWNER.github.io/reconscope/)")));
    }
    let u = u.strip_suffix("/index.html").map_or(u, |d| &u[..d.len() + 1]);
    Ok(if u.ends_with('/') { u.to_string() } else { format!("{u}/") })
}

/// The inputs as the browser would get them when dropped: a file by its
/// name, a folder's files by their path below the folder's parent.
fn html_inputs(inputs: &[PathBuf]) -> Result<Vec<(String, Vec<u8>)>> {
    let mut out = Vec::new();
    for input in inputs {
        // The same walk as the analysis' (its notes were printed with it).
        let w = walk(std::slice::from_ref(input))?;
        let base = input.parent().unwrap_or(Path::new(""));
        for (path, _) in w.files {
            let rel = path.strip_prefix(base).unwrap_or(&path);
            let shown = rel.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/");
            if let Ok(bytes) = std::fs::read(&path) {
                out.push((shown, bytes));
            }
        }
    }
    Ok(out)
}
