//! Where an analysis becomes a timeline: rows, bars, election bands,
//! lifecycle markers and finding highlights, as plain data with times in
//! nanoseconds. Nothing here draws; `render` and the app paint this.
//!
//! (API agreed for issue 4; implementation in progress.)

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::analyze::{Analysis, FindingKind, Outcome};

/// How rows are grouped under each controller instance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Grouping {
    /// controller instance → object (one row per object).
    #[default]
    ByObject,
    /// controller instance → worker lane (one row per lane).
    ByLane,
}

/// Options for [`layout`].
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize)]
pub struct LayoutOptions {
    pub grouping: Grouping,
    /// Keys ([`Row::key`]) of group rows whose children are hidden.
    pub collapsed: BTreeSet<String>,
    /// Only these reconciles (indexes into `Analysis::reconciles`); `None`: all.
    pub only: Option<BTreeSet<u32>>,
}

/// One row of the chart, in display order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// Stable identity, e.g. `c:tenantcontrolplane` or `c:tenantcontrolplane/o:ns/name`.
    pub key: String,
    pub label: String,
    /// 0: a controller instance's group row; 1: an object or lane row.
    pub depth: u8,
    /// Index into `Analysis::controllers`.
    pub controller: u32,
    pub collapsed: bool,
    /// Bars of this row: `bars[bar_start..bar_end]`, sorted by start.
    pub bar_start: u32,
    pub bar_end: u32,
}

/// One reconcile.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Bar {
    pub row: u32,
    /// Index into `Analysis::reconciles`.
    pub reconcile: u32,
    /// Where the bar is drawn from: the latent start when there is one.
    pub start_nanos: i64,
    /// The first line's time; `start_nanos..first_nanos` is drawn hatched.
    pub first_nanos: i64,
    pub end_nanos: i64,
    pub outcome: Outcome,
    /// A single-line reconcile with no latent start: drawn as a tick.
    pub tick: bool,
}

/// An etcd leader election, across every row.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Band {
    /// Index into `Analysis::elections`.
    pub election: u32,
    pub start_nanos: i64,
    /// The election's end, or the timeline's end while still open.
    pub end_nanos: i64,
    /// The leaderless part (drawn darker): from this to `end_nanos`.
    pub leaderless_start_nanos: Option<i64>,
    /// `etcd tenant-root: term 8, leader 91bc3c398fb3c146`.
    pub label: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum MarkerKind {
    SpecUpdate,
    DeletionRequested,
    Deleted,
    /// Finalizers still present at the end of the evidence.
    FinalizerAtEnd,
}

/// An object lifecycle event, on the object's row (or its controller's).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Marker {
    pub row: u32,
    pub at_nanos: i64,
    pub kind: MarkerKind,
    pub label: String,
}

/// A finding's window, over the rows it concerns.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Highlight {
    /// Index into `Analysis::findings`.
    pub finding: u32,
    pub kind: FindingKind,
    pub start_nanos: i64,
    pub end_nanos: i64,
    /// Rows it covers (sorted); empty: the whole chart.
    pub rows: Vec<u32>,
}

/// Everything to paint, in chart order.
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize)]
pub struct Timeline {
    pub start_nanos: i64,
    pub end_nanos: i64,
    pub rows: Vec<Row>,
    pub bars: Vec<Bar>,
    pub bands: Vec<Band>,
    pub markers: Vec<Marker>,
    pub highlights: Vec<Highlight>,
}

/// Lays an analysis out as a timeline.
pub fn layout(_a: &Analysis, _opts: &LayoutOptions) -> Timeline {
    Timeline::default()
}
