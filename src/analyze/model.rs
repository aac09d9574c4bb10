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
    Success,
    Requeue,
    Error,
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
    pub lines: u32,
    pub outcome: Outcome,
    pub error: Option<String>,
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
}

/// A controller instance: one `Controller` of controller-runtime. Two
/// instances may share a name (kamaji's TCP reconciler and soot manager).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ControllerInstance {
    pub id: String,
    /// A name a person recognises.
    pub name: String,
    /// The `controller` value it logs.
    pub controller: String,
    pub group: Option<String>,
    pub kind: Option<String>,
    /// Worker count, from `Starting workers`, `--workers`, or inferred.
    pub workers: u32,
    /// Where the worker count came from: `log`, `option` or `inferred`.
    pub workers_source: String,
    pub reconciles: usize,
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
}

impl FindingKind {
    pub const ALL: [FindingKind; 7] = [
        FindingKind::StalledWorker,
        FindingKind::ExpiredContext,
        FindingKind::StuckDeletion,
        FindingKind::SlowReconcile,
        FindingKind::HotLoop,
        FindingKind::ErrorBurst,
        FindingKind::ElectionOverlap,
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
}

impl Analysis {
    /// A reconcile's records, in file order.
    pub fn records_of(&self, r: &Reconcile) -> &[RecordRef] {
        &self.record_refs[r.records.start as usize..r.records.end as usize]
    }
}
