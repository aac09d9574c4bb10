//! Plain data the analysis produces: reconciles, controller instances,
//! elections, object lifecycles and findings. No logic beyond accessors.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::model::Timestamp;

/// Where a record lives: file index and record index in that file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct RecordRef {
    pub file: u32,
    pub record: u32,
}

/// A Kubernetes object: `namespace/name`, or `name` when cluster-scoped.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize)]
pub struct ObjectRef {
    pub namespace: Option<String>,
    pub name: String,
}

impl fmt::Display for ObjectRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.namespace {
            Some(ns) if !ns.is_empty() => write!(f, "{ns}/{}", self.name),
            _ => f.write_str(&self.name),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// No line of it is an error or asks for a requeue, and a line of it
    /// says it returned ([`Reconcile::said_done`]), or the log goes on
    /// after its last line (then no line states it:
    /// [`Reconcile::outcome_logged`]).
    Success,
    Requeue,
    Error,
    /// No line of it is an error or asks for a requeue, and its last line
    /// is the last timed line of its log: the log stops while it may still
    /// run, so how it ended is unknown.
    Unfinished,
}

impl Outcome {
    /// Every outcome, in the order the legends list them.
    pub const ALL: [Outcome; 4] = [Outcome::Success, Outcome::Requeue, Outcome::Error, Outcome::Unfinished];

    /// Its word, as the JSON writes it (`success`, `requeue`, `error`,
    /// `unfinished`).
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Success => "success",
            Outcome::Requeue => "requeue",
            Outcome::Error => "error",
            Outcome::Unfinished => "unfinished",
        }
    }

    /// Its place in [`Outcome::ALL`] (the painters' colour index).
    pub fn index(self) -> usize {
        match self {
            Outcome::Success => 0,
            Outcome::Requeue => 1,
            Outcome::Error => 2,
            Outcome::Unfinished => 3,
        }
    }
}

/// One controller-runtime reconcile: every record with one `reconcileID`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Reconcile {
    pub reconcile_id: String,
    /// Index into [`Analysis::controllers`].
    pub controller: usize,
    /// Shared with every other reconcile of the same object.
    pub object: Option<std::sync::Arc<ObjectRef>>,
    pub kind: Option<std::sync::Arc<str>>,
    pub first: Timestamp,
    pub last: Timestamp,
    /// The earliest time it can have begun, when its first line came late.
    pub latent_start: Option<Timestamp>,
    /// Its latent start is the start one of its lines states (a duration
    /// it reports: Flux's `Reconciliation finished in 613ms`), so it did
    /// begin then. Otherwise a latent start is only the earliest its
    /// worker allows, and its duration from there an upper bound. (False
    /// in a link made before it was kept: read as a bound.)
    #[serde(default)]
    pub stated_start: bool,
    pub lines: u32,
    pub outcome: Outcome,
    /// A line of it says it returned (controller-runtime's `Reconcile
    /// successful`, logged at V(5); Flux's `Reconciliation finished in`).
    /// A `success` without one is read from what the log does not show
    /// (no error line, and the log goes on after it): see
    /// [`Reconcile::outcome_logged`]. (False in a link made before it was
    /// kept.)
    #[serde(default)]
    pub said_done: bool,
    pub error: Option<String>,
    /// Where the error line's error value (zap's `error`, klog's `err`, a
    /// recovered `panic`) begins in [`Reconcile::error`], after its
    /// message and `: `: the two are quoted apart ([`Reconcile::error_parts`]),
    /// as each is written in the log. `None` when the line has no such
    /// value (or in a link made before it was kept: then quoted whole).
    #[serde(default)]
    pub error_value_at: Option<u32>,
    /// It starts before, or ends after, the coverage of its log file.
    pub truncated: bool,
    /// Worker lane within its controller instance (0-based).
    pub lane: u32,
    /// Its records, in file order: a range of [`Analysis::record_refs`]
    /// (see [`Analysis::records_of`]).
    pub records: std::ops::Range<u32>,
}

impl Reconcile {
    /// The start to draw: the latent start when there is one.
    pub fn start(&self) -> Timestamp {
        self.latent_start.unwrap_or(self.first)
    }

    /// Seen on one line, with no latent start: it has no duration to state.
    pub fn is_one_line(&self) -> bool {
        self.lines <= 1 && self.latent_start.is_none()
    }

    /// Its duration as the logs support it: `one line`, `under 1s`, `3s`
    /// (no finer than its timestamps), from its stated start, else from its
    /// first line, with `at most 486ms` when its worker was free earlier
    /// (from the earliest it can have begun).
    pub fn duration_text(&self) -> String {
        if self.is_one_line() {
            "one line".to_string()
        } else if self.start_is_bound() {
            crate::time::at_most_duration(self.start(), self.last)
        } else {
            crate::time::honest_duration(self.start(), self.last)
        }
    }

    /// Its error as the log writes it: the error line's message, and its
    /// error value when it has one ([`Reconcile::error_value_at`]).
    pub fn error_parts(&self) -> Option<(&str, Option<&str>)> {
        let e = self.error.as_deref()?;
        Some(match self.error_value_at.and_then(|at| Some((e.get(..(at as usize).checked_sub(2)?)?, e.get(at as usize..)?))) {
            Some((message, value)) => (message, Some(value)),
            None => (e, None),
        })
    }

    /// Whether a line of it states its outcome: an error line, a requeue,
    /// or a line that says it returned ([`Reconcile::said_done`]). Not for
    /// `unfinished` (the log ends) or a `success` no line states, which is
    /// read from the absence of an error line where the log goes on.
    pub fn outcome_logged(&self) -> bool {
        match self.outcome {
            Outcome::Error | Outcome::Requeue => true,
            Outcome::Success => self.said_done,
            Outcome::Unfinished => false,
        }
    }

    /// Its outcome as people read it: `success (no error logged)` when no
    /// line of it says so ([`Reconcile::outcome_logged`]), else the word.
    pub fn outcome_text(&self) -> &'static str {
        match self.outcome {
            Outcome::Success if !self.outcome_logged() => "success (no error logged)",
            o => o.as_str(),
        }
    }

    /// Its drawn start is a latent start from its worker, not one a line
    /// states: only the earliest it can have begun, and its duration from
    /// there an upper bound.
    pub fn start_is_bound(&self) -> bool {
        self.latent_start.is_some() && !self.stated_start
    }

    /// Its start as the logs state it: the stated start, else its first
    /// line (a latent start from its worker is only the earliest it can
    /// have begun).
    pub fn known_start(&self) -> Timestamp {
        if self.stated_start {
            self.start()
        } else {
            self.first
        }
    }
}

/// A controller instance: one `Controller` of controller-runtime. Two
/// instances may share a name (kamaji's TCP reconciler and soot manager).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ControllerInstance {
    pub id: String,
    /// A name a person recognises.
    pub name: String,
    /// The `controller` value it logs (or its logger names); empty when no
    /// line names it (see [`ControllerInstance::is_named`]).
    pub controller: String,
    pub group: Option<String>,
    pub kind: Option<String>,
    /// Worker count, from `Starting workers`, `--workers`, or inferred.
    pub workers: u32,
    /// Where the worker count came from: `log`, `option` or `inferred`.
    pub workers_source: String,
    pub reconciles: usize,
}

impl ControllerInstance {
    /// Whether a line names the controller (a `controller` key or a
    /// controller's logger name).
    pub fn is_named(&self) -> bool {
        !self.controller.is_empty()
    }
}

/// A leader election of one etcd cluster.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Election {
    pub cluster: String,
    pub term: Option<u64>,
    pub start: Timestamp,
    /// `None` while the election was still open when the logs end.
    pub end: Option<Timestamp>,
    pub leader: Option<String>,
    pub previous_leader: Option<String>,
    /// From the first `lost leader`/`no leader` to the new leader, in ns.
    pub leaderless_nanos: Option<i64>,
    pub transfers: u32,
}

/// An etcd client warning (`retrying of unary invoker failed`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClientWarning {
    pub time: Timestamp,
    pub target: Option<String>,
    pub attempt: Option<u64>,
    pub error: Option<String>,
    pub record: RecordRef,
}

/// What the logs and object dumps say about one object.
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize)]
pub struct ObjectLifecycle {
    pub object: ObjectRef,
    pub kind: Option<String>,
    pub created: Option<Timestamp>,
    /// managedFields update times (from dumps).
    pub updates: Vec<Timestamp>,
    pub deletion_requested: Option<Timestamp>,
    /// When deletion completed (log `resource deletions have been completed`).
    pub deleted: Option<Timestamp>,
    /// Finalizers present in the last dump that holds the object.
    pub finalizers: Vec<String>,
    pub generation: Option<i64>,
    pub observed_generation: Option<i64>,
    /// The object is in an object dump (so it still existed at dump time).
    pub in_dump: bool,
    /// First `marked for deletion` log line.
    pub marked_for_deletion: Option<Timestamp>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FindingKind {
    StalledWorker,
    ExpiredContext,
    StuckDeletion,
    SlowReconcile,
    HotLoop,
    ErrorBurst,
    ElectionOverlap,
    Throttled,
    LeaseLost,
    Restart,
    SaturatedWorkers,
}

impl FindingKind {
    pub const ALL: [FindingKind; 11] = [
        FindingKind::StalledWorker,
        FindingKind::ExpiredContext,
        FindingKind::StuckDeletion,
        FindingKind::SlowReconcile,
        FindingKind::HotLoop,
        FindingKind::ErrorBurst,
        FindingKind::ElectionOverlap,
        FindingKind::Throttled,
        FindingKind::LeaseLost,
        FindingKind::Restart,
        FindingKind::SaturatedWorkers,
    ];

    /// The kind named `stalled-worker` etc.
    pub fn parse(name: &str) -> Option<FindingKind> {
        FindingKind::ALL.into_iter().find(|k| k.as_str() == name)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            FindingKind::StalledWorker => "stalled-worker",
            FindingKind::ExpiredContext => "expired-context",
            FindingKind::StuckDeletion => "stuck-deletion",
            FindingKind::SlowReconcile => "slow-reconcile",
            FindingKind::HotLoop => "hot-loop",
            FindingKind::ErrorBurst => "error-burst",
            FindingKind::ElectionOverlap => "election-overlap",
            FindingKind::Throttled => "throttled",
            FindingKind::LeaseLost => "lease-lost",
            FindingKind::Restart => "restart",
            FindingKind::SaturatedWorkers => "saturated-workers",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    pub kind: FindingKind,
    pub severity: Severity,
    pub controller: Option<usize>,
    pub object: Option<ObjectRef>,
    pub start: Timestamp,
    pub end: Timestamp,
    /// Indexes into [`Analysis::reconciles`].
    pub reconciles: Vec<usize>,
    /// Indexes into [`Analysis::elections`].
    pub elections: Vec<usize>,
    /// One sentence a person can paste into an issue.
    pub message: String,
    /// Where a goroutine dump shows the stalled worker waiting.
    #[serde(default)]
    pub blocked: Option<Blocked>,
    /// The same sentence in pieces, so a renderer can set log text and
    /// commands apart without reading backticks out of `message` (log text
    /// may hold backticks). Empty in analyses made before it existed.
    #[serde(default)]
    pub pieces: Vec<Piece>,
    /// What a `throttled`, `lease-lost` or `restart` finding measured
    /// (none for the other kinds). Names, not indexes, so an evidence slice
    /// that renumbers reconciles keeps it true.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<Box<Detail>>,
    /// The silence the finding relies on (a stalled worker's), and whether
    /// its log covers it (see [`crate::analyze::coverage`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub silence: Option<Silence>,
}

/// A stretch in which a worker wrote no line, held against its log.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Silence {
    /// The log source (see [`SourceCoverage::path`]) of the worker's lines.
    pub source: String,
    pub start: Timestamp,
    pub end: Timestamp,
    /// Lines the same source wrote during it, the worker's own left out.
    pub other_lines: u32,
    /// The source wrote other lines during it and has no gap there: the
    /// silence is the controller's. Otherwise the log is missing there.
    pub covered: bool,
    /// No reconcile ended it: it lasts to the source's last line (`end`),
    /// and a goroutine dump shows the workers held.
    #[serde(default)]
    pub to_log_end: bool,
}

/// What the logs cover: each source's first and last line and its gaps,
/// and the sources an artifact like this one would hold but does not.
/// Plain data for the outputs (times are [`Timestamp`]s).
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize)]
pub struct Coverage {
    /// Every log source with a timed line, by path.
    pub sources: Vec<SourceCoverage>,
    /// Whether the artifact holds an etcd server log: without one, no
    /// election means "elections unknown", not "no elections".
    pub etcd: EtcdCoverage,
    /// The files read as etcd server logs.
    pub etcd_logs: Vec<String>,
    /// Sources expected but absent (a restarted container's previous log).
    pub missing: Vec<Missing>,
    /// Silences a finding would rest on that the log does not cover (a
    /// stall across a gap): reported here instead of as a finding.
    pub uncovered: Vec<Uncovered>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EtcdCoverage {
    /// Not measured (an analysis made before coverage existed).
    #[default]
    Unmeasured,
    /// No file is an etcd server log.
    Absent,
    Present,
}

/// One process's log: a file, or the files its layout says are one
/// container's (a CRI `0.log` and its rotated `0.log.<date>`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SourceCoverage {
    /// Its first file's path (the name it goes by).
    pub path: String,
    /// Every file of it, `path` first.
    pub files: Vec<String>,
    /// The pod and container, where the path tells.
    pub pod: Option<String>,
    pub container: Option<String>,
    pub first: Timestamp,
    pub last: Timestamp,
    /// Its timed lines (records).
    pub lines: u32,
    /// Its usual longest wait between lines (see [`crate::analyze::coverage`]),
    /// as written: known to [`SourceCoverage::tick_nanos`] (see
    /// [`SourceCoverage::normal_gap`]).
    pub normal_gap_nanos: i64,
    /// The coarsest precision of its lines' times (a second for
    /// `16:55:13Z`). 0 in a link made before it was kept: taken as exact.
    #[serde(default)]
    pub tick_nanos: i64,
    /// Silences far longer than that: the log may be missing there.
    pub gaps: Vec<LogGap>,
}

impl SourceCoverage {
    /// [`SourceCoverage::normal_gap_nanos`] with its precision: a wait
    /// between two lines is known to the coarser of their times.
    pub fn normal_gap(&self) -> crate::time::Gap {
        crate::time::Gap::written(self.normal_gap_nanos, self.tick_nanos)
    }
}

/// No line of a source from `start` (the last line before) to `end` (the
/// first line after).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogGap {
    pub start: Timestamp,
    pub end: Timestamp,
    /// An elision a person wrote (`...`) stands between the two lines:
    /// lines were left out there, whatever the wait.
    #[serde(default)]
    pub elided: bool,
}

/// A log the artifact would hold but does not.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Missing {
    /// `etcd` (no etcd server log) or `previous-log` (a restarted
    /// container's log before the restart).
    pub kind: String,
    /// The file that tells it is missing, when one does.
    pub path: Option<String>,
    /// One sentence for people.
    pub message: String,
}

/// A stall the logs cannot show: the worker's silence falls in a gap of
/// its log.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Uncovered {
    /// Index into [`Analysis::controllers`].
    pub controller: usize,
    pub lane: u32,
    /// The reconcile after the silence.
    pub reconcile_id: String,
    pub silence: Silence,
    pub message: String,
}

/// The figures behind a finding of the newer kinds, for the JSON.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum Detail {
    Throttle(Throttle),
    Lease(LeaseLoss),
    Restart(Restart),
    Saturation(Saturation),
}

/// Every worker of a controller instance held by the same reconciles.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Saturation {
    pub workers: u32,
    /// How long its reconciles usually take (the median, at least 1s).
    pub normal_nanos: i64,
    /// The reconciles that held the workers. The finding's `reconciles`
    /// are theirs first, in this order, then those of the objects that
    /// waited (`findings::explanations_first` reads them so).
    pub held: Vec<String>,
    /// Objects reconciled right after, with the estimated wait of each.
    pub waited: Vec<Waited>,
    /// The finding's start is the last holder's latent start from its
    /// worker (its first line came late): only the earliest it began, so
    /// the workers were all held at most from then. (False in a link made
    /// before it was kept.)
    #[serde(default)]
    pub start_is_bound: bool,
}

/// An object that waited for a worker.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Waited {
    pub object: String,
    pub reconcile_id: String,
    /// From when it was due (its usual period after its last reconcile, or
    /// the workers' all being held, whichever is later) to its start.
    pub estimated_wait_nanos: i64,
}

/// A window of throttled API requests in one log file (see
/// [`crate::analyze::signals`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Throttle {
    /// The log file the lines are in (one process's client).
    pub source: String,
    /// Lines in the window: client-side waits plus 429 answers.
    pub count: u32,
    /// `Waited for …` (client-go's rate limiter, or a server-side retry).
    pub waits: u32,
    /// API-server 429 (`Too Many Requests`) answers.
    pub too_many_requests: u32,
    /// The longest wait one line states.
    pub longest_wait_nanos: Option<i64>,
    /// The waits added up.
    pub total_wait_nanos: i64,
    /// Requests by resource (`secrets`, `tenantcontrolplanes.kamaji.clastix.io`), most first.
    pub resources: Vec<ResourceCount>,
    /// The reconcileIDs whose time overlaps the window (at most 50).
    pub reconcile_ids: Vec<String>,
    /// Reconciles overlapping, all of them.
    pub reconciles_overlapping: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResourceCount {
    pub resource: String,
    pub count: u32,
}

/// A manager that lost its leader lease.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LeaseLoss {
    pub source: String,
    /// The lease (`cnpg-system/db9c8771.cnpg.io`), when a line names it.
    pub lease: Option<String>,
    /// When it acquired it, when the log shows that.
    pub acquired: Option<Timestamp>,
    pub lost: Timestamp,
    /// What the log said when it lost it.
    pub said: String,
    /// Renewals that failed before (`error retrieving resource lock`, `Failed to update lock`).
    pub renew_failures: u32,
    /// When the process stopped or exited after it, when the log shows that.
    pub stopped: Option<Timestamp>,
    /// The last reconcile of this log that ended before the loss.
    pub last_reconcile_id: Option<String>,
    pub last_reconcile_end: Option<Timestamp>,
}

/// A new process of the same container, its previous one's log beside it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Restart {
    pub previous: String,
    pub current: String,
    /// The previous process's last line.
    pub previous_end: Timestamp,
    /// How it ended: `lease-lost`, `panic`, `fatal`, `error`, `shutdown` or `unknown` (the log just stops).
    pub previous_exit: String,
    /// When the new process started (its first line, or its `starting manager`).
    pub started: Timestamp,
    /// When the new process acquired its leader lease, when its log says.
    #[serde(default)]
    pub acquired: Option<Timestamp>,
    /// Its first reconcile line.
    pub resumed: Option<Timestamp>,
    /// Reconciles of the previous process that were in flight when it ended.
    pub cut_off: Vec<String>,
}

impl Finding {
    /// Its end is within its start's precision (or the end's, if coarser):
    /// an instant, with no duration to state.
    pub fn is_instant(&self) -> bool {
        let g = crate::time::Gap::between(self.start, self.end);
        g.nanos == 0 || g.within_tick()
    }

    /// Its duration no finer than its timestamps, or `None` for an instant.
    pub fn duration_text(&self) -> Option<String> {
        if self.is_instant() {
            return None;
        }
        // Saturated workers held from a holder's latent start from its
        // worker: an upper bound, said rounded up.
        Some(match self.detail.as_deref() {
            Some(Detail::Saturation(s)) if s.start_is_bound => crate::time::at_most_duration(self.start, self.end),
            _ => crate::time::honest_duration(self.start, self.end),
        })
    }
}

/// A piece of a finding's sentence. `message` is the pieces joined, with
/// `Code` in backticks and a `Command`'s lines joined by spaces.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "text", rename_all = "lowercase")]
pub enum Piece {
    /// The sentence's own words, and names (objects, controllers, ids).
    Text(String),
    /// Text quoted from the logs or a dump, or a flag: shown as code.
    Code(String),
    /// A shell command to run, one line each: shown as a code block.
    Command(String),
}

/// The call a goroutine dump shows a stalled worker blocked in (or, when
/// the dump caught it running, running in).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Blocked {
    /// Index into [`Analysis::goroutines`].
    pub goroutine: usize,
    /// `go.etcd.io/etcd/client/v3.(*authClient).UserGet`.
    pub call: String,
    /// The application's innermost frame above it.
    pub under: Option<String>,
}

/// A goroutine dump found in the inputs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GoroutineDump {
    pub path: String,
    pub first_line: u32,
    pub last_line: u32,
    /// `traceback` (a crash, SIGQUIT or pprof `debug=2`) or `debug1`
    /// (pprof `goroutine profile: total N`).
    pub kind: String,
    /// `SIGQUIT: quit`, `panic: ...`, `goroutine profile: total 123`.
    pub preamble: Option<String>,
    /// Goroutines in it.
    pub goroutines: u64,
    /// When it was taken.
    pub time: Option<Timestamp>,
    /// Where that time came from (see [`DumpTimeSource`]).
    pub time_source: Option<DumpTimeSource>,
    /// Problems reading it (cut off, log lines in between).
    pub notes: Vec<String>,
}

/// Where a dump's time came from, in the order they are tried.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DumpTimeSource {
    /// The collection time of a wrapper (kubectl `--timestamps`, CRI).
    Wrapper,
    /// A timestamp in the file name.
    FileName,
    /// The archive member's modification time.
    ArchiveMtime,
    /// The log lines around it.
    LogLines,
    /// Given by the person (`--dump-time`, or the app's goroutine panel).
    User,
}

impl DumpTimeSource {
    pub fn describe(self) -> &'static str {
        match self {
            DumpTimeSource::Wrapper => "time from the log wrapper",
            DumpTimeSource::FileName => "time from the file name",
            DumpTimeSource::ArchiveMtime => "time from the archive member's modification time",
            DumpTimeSource::LogLines => "time from the log lines around it",
            DumpTimeSource::User => "time given by the user",
        }
    }
}

/// One frame of a goroutine's stack.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GoFrame {
    pub func: String,
    pub file: String,
    pub line: u32,
}

/// Goroutines of one dump with the same stack (same frames, state and
/// creator; arguments ignored).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GoroutineGroup {
    /// Index into [`Analysis::dumps`].
    pub dump: usize,
    /// Its place among the dump's groups (blocked workers first).
    pub group: usize,
    pub count: u64,
    /// Goroutine ids (at most 50).
    pub ids: Vec<u64>,
    pub state: String,
    pub min_wait_minutes: Option<u32>,
    pub max_wait_minutes: Option<u32>,
    /// `busy-worker`, `idle-worker` or `other`.
    pub role: String,
    /// Index into [`Analysis::controllers`], when its reconciler names one.
    pub controller: Option<usize>,
    /// The reconciler's type (`TenantControlPlaneReconciler`).
    pub reconciler: Option<String>,
    /// The innermost call that is not the runtime or a library that only
    /// waits: the call it is blocked in, or, running or runnable
    /// ([`GoroutineGroup::is_blocked`]), the call it runs in. (Serialised as
    /// `blocked_in`, its name before running ones were told apart, so the
    /// links made then still open.)
    #[serde(rename = "blocked_in")]
    pub call: Option<GoFrame>,
    /// The application's innermost frame.
    pub under: Option<GoFrame>,
    /// Blocked since this time or earlier (dump time minus the wait).
    pub blocked_since_at_most: Option<Timestamp>,
    /// Innermost first.
    pub frames: Vec<GoFrame>,
    pub created_by: Option<String>,
    /// The reconcile it was running (index into [`Analysis::reconciles`]).
    pub reconcile: Option<usize>,
    /// The stalled-worker finding it explains (index into [`Analysis::findings`]).
    pub finding: Option<usize>,
}

impl GoroutineGroup {
    /// Whether its goroutines wait (every state but `running` and
    /// `runnable`): [`GoroutineGroup::call`] is then where they are blocked.
    pub fn is_blocked(&self) -> bool {
        crate::goroutine::is_blocked(&self.state)
    }
}

/// Everything the analysis found.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Analysis {
    pub controllers: Vec<ControllerInstance>,
    pub reconciles: Vec<Reconcile>,
    /// Every reconcile's records, reconcile after reconcile.
    pub record_refs: Vec<RecordRef>,
    pub elections: Vec<Election>,
    pub client_warnings: Vec<ClientWarning>,
    pub objects: Vec<ObjectLifecycle>,
    pub findings: Vec<Finding>,
    /// Goroutine dumps found in the inputs, and their stacks grouped.
    #[serde(default)]
    pub dumps: Vec<GoroutineDump>,
    #[serde(default)]
    pub goroutines: Vec<GoroutineGroup>,
    /// The logs wrote their times without a year and nothing in the input
    /// gave one: every time is [`Timestamp::yearless`], shown without it.
    #[serde(default)]
    pub year_unknown: bool,
    /// The logs wrote their times without a year, and a file's or an
    /// archive member's modification time gave it (a note says which):
    /// the year is not the logs' own.
    #[serde(default)]
    pub year_from_mtime: bool,
    /// Some logs wrote times with no zone that no clock with one confirmed
    /// or moved (`Record::zoneless`): they were read at an offset the
    /// reader assumed. `None` when every time carried its zone.
    #[serde(default)]
    pub zone_assumed: Option<ZoneAssumed>,
    /// Reconciles in flight per controller instance with more than one
    /// worker ([`crate::analyze::inflight`]).
    #[serde(default)]
    pub in_flight: Vec<InFlight>,
    /// What the logs cover, and what they miss.
    #[serde(default)]
    pub coverage: Coverage,
    /// When each manager held its leader lease, as its log shows.
    #[serde(default)]
    pub leadership: Vec<Leadership>,
}

/// Times written with no zone, read at an assumed offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ZoneAssumed {
    /// The offset east of UTC they were read at (the CLI's `--utc-offset`,
    /// 0 by default and in the app).
    pub utc_offset_secs: i32,
    /// How many files have such times.
    pub files: u32,
}

impl ZoneAssumed {
    /// The assumed zone of `files`' times, from their [`ParsedFile::zoneless_times`].
    pub fn of(files: &[crate::model::ParsedFile]) -> Option<ZoneAssumed> {
        let mut with = files.iter().filter(|f| f.zoneless_times > 0);
        let first = with.next()?;
        Some(ZoneAssumed { utc_offset_secs: first.zone_offset_secs, files: 1 + with.count() as u32 })
    }

    /// How the times were read: `as UTC`, or `at UTC+02:00`.
    pub fn read(self) -> String {
        match self.utc_offset_secs {
            0 => "as UTC".into(),
            off => format!("at {}", crate::time::zone_name(off)),
        }
    }
}

/// A manager's leader lease, from its acquisition to its loss (or its
/// stop), in one log.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Leadership {
    pub source: String,
    pub acquired: Timestamp,
    /// `None`: still held at the log's last line.
    pub lost: Option<Timestamp>,
}

/// A controller instance's reconciles in flight against its workers: the
/// most in flight at once in each of `peaks.len()` buckets of
/// `bucket_nanos` from `start` (the run's first reconcile's start).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InFlight {
    /// Index into [`Analysis::controllers`].
    pub controller: usize,
    pub workers: u32,
    pub start: Timestamp,
    pub bucket_nanos: i64,
    pub peaks: Vec<u16>,
    /// The most in flight at once over the run.
    pub peak: u16,
}

impl Analysis {
    /// The times have a year, and it is a modification time's, not the
    /// logs' own: every output says so where it shows the times.
    pub fn year_is_file_time(&self) -> bool {
        self.year_from_mtime && !self.year_unknown
    }

    /// A reconcile's records, in file order.
    pub fn records_of(&self, r: &Reconcile) -> &[RecordRef] {
        &self.record_refs[r.records.start as usize..r.records.end as usize]
    }

    /// `359 reconciles (3 failed)`: the count, with how many failed when
    /// any did (failures no finding names are failures still), as the
    /// Markdown, the pictures and the app's summary say it.
    pub fn reconciles_text(&self) -> String {
        let failed: u32 = self.failed_per_controller().iter().sum();
        let n = crate::words::plural(self.reconciles.len(), "reconcile", "reconciles");
        if failed > 0 {
            format!("{n} ({failed} failed)")
        } else {
            n
        }
    }

    /// Whether the elections are unknown rather than none: no etcd log was
    /// read, so no election found does not mean none happened.
    pub fn elections_unknown(&self) -> bool {
        self.coverage.etcd == EtcdCoverage::Absent && self.elections.is_empty()
    }

    /// `2 etcd elections`, or `elections unknown (no etcd log)` when
    /// [`Analysis::elections_unknown`]: as the text output, the pictures
    /// and the app's summary say it.
    pub fn elections_text(&self) -> String {
        if self.elections_unknown() {
            "elections unknown (no etcd log)".to_string()
        } else {
            crate::words::plural(self.elections.len(), "etcd election", "etcd elections")
        }
    }

    /// How many reconciles of each controller instance failed (by index
    /// into [`Analysis::controllers`]): said beside each, as a failure no
    /// finding names (fewer than an error burst) is still a failure.
    pub fn failed_per_controller(&self) -> Vec<u32> {
        let mut failed = vec![0u32; self.controllers.len()];
        for r in self.reconciles.iter().filter(|r| r.outcome == Outcome::Error) {
            if let Some(n) = failed.get_mut(r.controller) {
                *n += 1;
            }
        }
        failed
    }
}
