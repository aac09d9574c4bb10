//! Where an analysis becomes a timeline: rows, bars, election bands,
//! lifecycle markers and finding highlights, as plain data with times in
//! nanoseconds. Nothing here draws; `render` and the app paint this.
//!
//! Pure and deterministic: no clock, no I/O, no hash-map order leaks (maps
//! are only looked up; rows, bars and markers are sorted).

use std::collections::BTreeSet;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use rustc_hash::FxHashMap as HashMap;
use rustc_hash::FxHashSet as HashSet;

use crate::analyze::{Analysis, Election, FindingKind, ObjectRef, Outcome};
use crate::words::plural;

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

/// One row of the chart, in display order: controller instances that a
/// finding names (by its controller, one of its reconciles, or its object)
/// before those no finding names, each followed by its rows, the object
/// (or lane) rows a finding names first (its object, else the objects of
/// its reconciles; the lanes of those reconciles); otherwise controllers in
/// `Analysis::controllers` order, objects by their first reconcile's start
/// then name (the unknown object last), lanes by number.
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

impl MarkerKind {
    /// How far right of its time the glyph's centre is drawn, in px: the
    /// square for finalizers left sits just after the end of the evidence,
    /// beside the last bars (a reconcile the log ends in ends there) rather
    /// than over them. The others are centred on their time.
    pub fn offset_px(self) -> f64 {
        match self {
            MarkerKind::FinalizerAtEnd => 7.0,
            _ => 0.0,
        }
    }
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
    /// Parallel to `bars`: the latest `end_nanos` of the bars of the same row
    /// up to and including this one (a running maximum, restarting at each
    /// row). Lets [`Timeline::visible_bars`] find the first bar that can reach
    /// into a window by binary search.
    #[serde(default)]
    pub max_end_prefix: Vec<i64>,
    pub bands: Vec<Band>,
    pub markers: Vec<Marker>,
    pub highlights: Vec<Highlight>,
    /// Goroutine dumps, at the time each was taken.
    #[serde(default)]
    pub dumps: Vec<DumpLine>,
    /// Reconciles in flight against the workers, in controller instances'
    /// group rows (those with more than one worker).
    #[serde(default)]
    pub in_flight: Vec<InFlightLane>,
    /// The log sources' lanes under the etcd lane: those with a gap, a
    /// lost lease or a restart first, then the others ([`SOURCE_LANES`]
    /// at most).
    #[serde(default)]
    pub sources: Vec<SourceLane>,
    /// How many log sources the analysis saw in all.
    #[serde(default)]
    pub sources_total: u32,
    /// How finely the times were written: the [`crate::time::tick_nanos`]
    /// of the most fractional digits any reconcile, election, client
    /// warning or dump time had (a second when every line was written to
    /// the second). No axis tick steps below it: a whole-second log gets
    /// no `15:53:29.100`. 0 when nothing was timed.
    #[serde(default)]
    pub precision_nanos: i64,
}

/// At most this many log sources get a lane (the others are counted).
pub const SOURCE_LANES: usize = 6;

/// A controller instance's reconciles in flight, drawn in its group row:
/// `peaks[i]` at most at once in `[start_nanos + i·bucket_nanos, +bucket_nanos)`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InFlightLane {
    pub row: u32,
    pub workers: u32,
    pub start_nanos: i64,
    pub bucket_nanos: i64,
    pub peaks: Vec<u16>,
}

impl InFlightLane {
    /// Runs of buckets at one level: (start, end, most in flight), for
    /// painting a step at a time.
    pub fn steps(&self) -> impl Iterator<Item = (i64, i64, u16)> + '_ {
        let mut i = 0;
        std::iter::from_fn(move || {
            let level = *self.peaks.get(i)?;
            let from = i;
            while self.peaks.get(i) == Some(&level) {
                i += 1;
            }
            let at = |k: usize| self.start_nanos.saturating_add((k as i64).saturating_mul(self.bucket_nanos));
            Some((at(from), at(i), level))
        })
    }
}

/// One process's log (a container's, with its rotated files): from its
/// first line to its last, its gaps cut out, when it held its leader
/// lease, and how it ended when a restart or a lost lease says so.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SourceLane {
    /// Its pod and container where the path tells (`etcd-0/etcd`), else
    /// its file name.
    pub label: String,
    pub path: String,
    pub first_nanos: i64,
    pub last_nanos: i64,
    /// No line from `.0` to `.1`: the log may be missing there.
    pub gaps: Vec<(i64, i64)>,
    /// Of `gaps`, those where an elision a person wrote (`...`) stands:
    /// lines were left out there.
    #[serde(default)]
    pub elided: Vec<(i64, i64)>,
    /// It held its leader lease from `.0` to `.1` (acquired, lost).
    pub leader: Vec<(i64, i64)>,
    /// How the process ended, at its last line (`lease lost`, `restarted
    /// after panic`), when a finding says.
    pub ended: Option<String>,
}

impl SourceLane {
    /// The stretches that had lines: first line to last, the gaps cut out,
    /// in time order (every painter draws these).
    pub fn spans(&self) -> Vec<(i64, i64)> {
        let mut out = Vec::with_capacity(self.gaps.len() + 1);
        let mut from = self.first_nanos;
        for &(gs, ge) in &self.gaps {
            out.push((from, gs));
            from = ge;
        }
        out.push((from, self.last_nanos));
        out
    }
}

/// A goroutine dump, drawn as a line across every row at its time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DumpLine {
    /// Index into `Analysis::dumps`.
    pub dump: u32,
    pub at_nanos: i64,
    pub label: String,
}

impl Timeline {
    /// The bars of `row` that can intersect `[t0, t1]`, in O(log n): every
    /// bar that starts at or before `t1` and ends at or after `t0` is in the
    /// slice. The slice is contiguous, so it may also hold a few bars that
    /// ended before `t0` while an earlier, longer bar of the same row was
    /// still running (only where bars of a row overlap: a collapsed group).
    /// Drawing them is harmless (they fall outside the window);
    /// [`Timeline::bars_between`] filters them out.
    pub fn visible_bars(&self, row: usize, t0: i64, t1: i64) -> &[Bar] {
        let Some(r) = self.rows.get(row) else { return &[] };
        let (s, e) = (r.bar_start as usize, (r.bar_end as usize).min(self.bars.len()));
        if s >= e {
            return &[];
        }
        let bars = &self.bars[s..e];
        let hi = bars.partition_point(|b| b.start_nanos <= t1);
        let lo = match self.max_end_prefix.get(s..e) {
            Some(pre) if self.max_end_prefix.len() == self.bars.len() => pre[..hi].partition_point(|&m| m < t0),
            // A timeline built without the prefix: scan from the row's start.
            _ => 0,
        };
        &bars[lo..hi]
    }

    /// Exactly the bars of `row` that intersect `[t0, t1]`, in start order.
    pub fn bars_between(&self, row: usize, t0: i64, t1: i64) -> impl Iterator<Item = &Bar> {
        self.visible_bars(row, t0, t1).iter().filter(move |b| b.end_nanos >= t0)
    }

    /// The index of the row with this key.
    pub fn row_index(&self, key: &str) -> Option<usize> {
        self.rows.iter().position(|r| r.key == key)
    }
}

/// One object's reconciles within one controller instance.
struct ObjGroup<'a> {
    object: Option<&'a ObjectRef>,
    /// The earliest start of its reconciles.
    first: i64,
    name: String,
    row: u32,
}

/// One controller instance's reconciles, grouped by object as they come.
#[derive(Default)]
struct Grouper<'a> {
    groups: Vec<ObjGroup<'a>>,
    /// Objects by their shared `Arc` (cheap), then by value when a pointer is new.
    by_ptr: HashMap<*const ObjectRef, u32>,
    by_value: HashMap<&'a ObjectRef, u32>,
    no_object: Option<u32>,
    bars: Vec<Bar>,
    /// One more than the highest lane seen.
    max_lane: u32,
}

impl<'a> Grouper<'a> {
    /// The group of `object`, made on first sight; widens its first start.
    fn group(&mut self, object: Option<&'a Arc<ObjectRef>>, start: i64) -> u32 {
        let gi = match object {
            None => match self.no_object {
                Some(gi) => gi,
                None => {
                    let gi = self.new_group(None, start);
                    self.no_object = Some(gi);
                    gi
                }
            },
            Some(o) => match self.by_ptr.get(&Arc::as_ptr(o)) {
                Some(&gi) => gi,
                None => {
                    let o: &'a ObjectRef = o;
                    let gi = match self.by_value.get(o) {
                        Some(&gi) => gi,
                        None => {
                            let gi = self.new_group(Some(o), start);
                            self.by_value.insert(o, gi);
                            gi
                        }
                    };
                    self.by_ptr.insert(o as *const ObjectRef, gi);
                    gi
                }
            },
        };
        let g = &mut self.groups[gi as usize];
        g.first = g.first.min(start);
        gi
    }

    fn new_group(&mut self, object: Option<&'a ObjectRef>, start: i64) -> u32 {
        let name = object.map(ToString::to_string).unwrap_or_default();
        self.groups.push(ObjGroup { object, first: start, name, row: NO_ROW });
        self.groups.len() as u32 - 1
    }
}

const NO_ROW: u32 = u32::MAX;

/// What the findings name, for the row order (see [`Row`]).
#[derive(Default)]
struct Named<'a> {
    /// Per controller instance.
    controllers: Vec<bool>,
    /// (controller, object) pairs; `None`: its reconciles without an object.
    objects: HashSet<(usize, Option<&'a ObjectRef>)>,
    /// Objects named without a controller: in every controller.
    anywhere: HashSet<&'a ObjectRef>,
    /// (controller, lane) pairs.
    lanes: HashSet<(usize, u32)>,
}

impl<'a> Named<'a> {
    fn of(a: &'a Analysis, per_ctrl: &[Grouper<'a>]) -> Named<'a> {
        let nc = a.controllers.len();
        let mut n = Named { controllers: vec![false; nc], ..Named::default() };
        for f in &a.findings {
            let ctrl = f.controller.filter(|&c| c < nc);
            match (ctrl, &f.object) {
                (Some(c), o) => {
                    n.controllers[c] = true;
                    if let Some(o) = o {
                        n.objects.insert((c, Some(o)));
                    }
                }
                (None, Some(o)) => {
                    n.anywhere.insert(o);
                }
                (None, None) => {}
            }
            // A finding with an object names its reconciles' controllers,
            // but only the object and the lanes of its reconciles of that
            // object (a stalled worker's list goes on with the reconciles
            // that waited for it, of other objects).
            for r in f.reconciles.iter().filter_map(|&i| a.reconciles.get(i)).filter(|r| r.controller < nc) {
                n.controllers[r.controller] = true;
                if f.object.is_none() || r.object.as_deref() == f.object.as_ref() {
                    n.objects.insert((r.controller, r.object.as_deref()));
                    n.lanes.insert((r.controller, r.lane));
                }
            }
        }
        if !n.anywhere.is_empty() {
            for (c, g) in per_ctrl.iter().enumerate() {
                n.controllers[c] |= g.groups.iter().any(|grp| grp.object.is_some_and(|o| n.anywhere.contains(o)));
            }
        }
        n
    }

    fn object(&self, c: usize, o: Option<&ObjectRef>) -> bool {
        self.objects.contains(&(c, o)) || o.is_some_and(|o| self.anywhere.contains(o))
    }
}

/// Lays an analysis out as a timeline.
///
/// With [`LayoutOptions::only`] set, controllers and objects none of whose
/// reconciles are selected get no rows (lane rows of a shown controller are
/// all kept), and findings whose rows are all hidden get no highlight.
pub fn layout(a: &Analysis, opts: &LayoutOptions) -> Timeline {
    let nc = a.controllers.len();
    let by_lane = opts.grouping == Grouping::ByLane;

    // One pass over the selected reconciles (in index order): each
    // controller's bars, with `row` holding, for now, the object group
    // (by object) or the lane (by lane).
    let mut per_ctrl: Vec<Grouper> = (0..nc).map(|_| Grouper::default()).collect();
    let mut add = |i: usize| {
        let Some(r) = a.reconciles.get(i) else { return };
        let Some(g) = per_ctrl.get_mut(r.controller) else { return };
        let start = r.start().nanos;
        let slot = g.group(r.object.as_ref(), start);
        g.max_lane = g.max_lane.max(r.lane + 1);
        g.bars.push(Bar {
            row: if by_lane { r.lane } else { slot },
            reconcile: i as u32,
            start_nanos: start,
            first_nanos: r.first.nanos,
            end_nanos: r.last.nanos,
            outcome: r.outcome,
            tick: r.lines == 1 && r.latent_start.is_none(),
        });
    };
    match &opts.only {
        None => (0..a.reconciles.len()).for_each(&mut add),
        Some(set) => set.iter().for_each(|&i| add(i as usize)),
    }

    let mut rows: Vec<Row> = Vec::new();
    let mut bars: Vec<Bar> = Vec::with_capacity(per_ctrl.iter().map(|g| g.bars.len()).sum());
    // Row of each laid-out reconcile.
    let mut reconcile_row = vec![NO_ROW; a.reconciles.len()];
    // Per controller: its group row, its object rows, its lane rows.
    let mut group_row = vec![NO_ROW; nc];
    let mut object_row: Vec<HashMap<&ObjectRef, u32>> = (0..nc).map(|_| HashMap::default()).collect();
    let mut lane_rows: Vec<Vec<u32>> = vec![Vec::new(); nc];
    // Per object: (controller, row) where its lifecycle markers go.
    let mut object_rows: HashMap<&ObjectRef, Vec<(usize, u32)>> = HashMap::default();

    // Controllers a finding names first (see `Row`).
    let named = Named::of(a, &per_ctrl);
    let mut ctrl_order: Vec<usize> = (0..nc).collect();
    ctrl_order.sort_by_key(|&c| !named.controllers[c]);
    for c in ctrl_order {
        let ctrl = &a.controllers[c];
        let Grouper { mut groups, bars: mut cbars, max_lane, .. } = std::mem::take(&mut per_ctrl[c]);
        if opts.only.is_some() && cbars.is_empty() {
            continue;
        }
        let key = format!("c:{}", ctrl.id);
        let collapsed = opts.collapsed.contains(&key);
        let g = rows.len() as u32;
        group_row[c] = g;
        let workers = match a.in_flight.iter().find(|l| l.controller == c) {
            _ if ctrl.workers == 1 => "1 worker".to_string(),
            Some(l) => format!("{} workers · at most {} at once", ctrl.workers, l.peak),
            None => format!("{} workers", ctrl.workers),
        };
        rows.push(Row { key: key.clone(), label: format!("{} · {workers}", ctrl.name), depth: 0, controller: c as u32, collapsed, bar_start: 0, bar_end: 0 });

        if by_lane {
            let lanes = ctrl.workers.max(max_lane);
            lane_rows[c] = vec![g; lanes as usize];
            if !collapsed {
                let mut order: Vec<u32> = (0..lanes).collect();
                order.sort_by_key(|&n| !named.lanes.contains(&(c, n)));
                for n in order {
                    lane_rows[c][n as usize] = rows.len() as u32;
                    rows.push(child(format!("{key}/l:{n}"), format!("worker {}", n + 1), c));
                }
            }
            for b in &mut cbars {
                b.row = lane_rows[c][b.row as usize];
            }
            for grp in &mut groups {
                grp.row = g;
            }
        } else {
            let mut order: Vec<u32> = (0..groups.len() as u32).collect();
            order.sort_by(|&x, &y| {
                let (x, y) = (&groups[x as usize], &groups[y as usize]);
                let first = |g: &ObjGroup| !named.object(c, g.object);
                (first(x), x.object.is_none(), x.first, &x.name).cmp(&(first(y), y.object.is_none(), y.first, &y.name))
            });
            for gi in order {
                let grp = &mut groups[gi as usize];
                grp.row = if collapsed {
                    g
                } else {
                    let (k, label) = match grp.object {
                        Some(_) => (format!("{key}/o:{}", grp.name), grp.name.clone()),
                        None => (format!("{key}/o:-"), "unknown object".to_string()),
                    };
                    rows.push(child(k, label, c));
                    rows.len() as u32 - 1
                };
            }
            for b in &mut cbars {
                b.row = groups[b.row as usize].row;
            }
        }
        for b in &cbars {
            reconcile_row[b.reconcile as usize] = b.row;
        }
        for grp in &groups {
            if let Some(o) = grp.object {
                object_row[c].insert(o, grp.row);
                object_rows.entry(o).or_default().push((c, if by_lane { g } else { grp.row }));
            }
        }
        bars.append(&mut cbars);
    }

    // Bars by row (a counting sort), then by start within each row. Within
    // a row they arrive in reconcile order, so a stable sort by start leaves
    // ties in reconcile order; logs are mostly in time order already.
    let mut counts = vec![0u32; rows.len()];
    for b in &bars {
        counts[b.row as usize] += 1;
    }
    let mut cursor = 0u32;
    for (row, n) in rows.iter_mut().zip(counts) {
        row.bar_start = cursor;
        cursor += n;
        row.bar_end = cursor;
    }
    let mut next: Vec<u32> = rows.iter().map(|r| r.bar_start).collect();
    let mut placed = bars.clone();
    for b in &bars {
        let at = &mut next[b.row as usize];
        placed[*at as usize] = *b;
        *at += 1;
    }
    let mut bars = placed;
    for row in &rows {
        bars[row.bar_start as usize..row.bar_end as usize].sort_by_key(|b| b.start_nanos);
    }
    let mut max_end_prefix = Vec::with_capacity(bars.len());
    for row in &rows {
        let mut m = i64::MIN;
        for b in &bars[row.bar_start as usize..row.bar_end as usize] {
            m = m.max(b.end_nanos);
            max_end_prefix.push(m);
        }
    }

    // The timeline's extent: bars, elections and lifecycle events.
    let mut span: Option<(i64, i64)> = None;
    let mut see = |t0: i64, t1: i64| {
        span = Some(match span {
            None => (t0, t1),
            Some((s, e)) => (s.min(t0), e.max(t1)),
        })
    };
    for b in &bars {
        see(b.start_nanos, b.end_nanos.max(b.start_nanos));
    }
    for e in &a.elections {
        let end = e.end.map_or(e.start.nanos, |t| t.nanos.max(e.start.nanos));
        see(e.start.nanos, end);
    }
    // No reconcile to draw (an etcd log, a CI log): the logs' own lines.
    if bars.is_empty() {
        for src in &a.coverage.sources {
            see(src.first.nanos, src.last.nanos.max(src.first.nanos));
        }
    }
    // Markers (FinalizerAtEnd is placed at the end once it is known).
    let mut markers: Vec<Marker> = Vec::new();
    let mut at_end: Vec<(u32, String)> = Vec::new();
    for ol in &a.objects {
        let Some(places) = object_rows.get(&ol.object) else { continue };
        let name = ol.object.to_string();
        let deletion = ol.deletion_requested.or(ol.marked_for_deletion);
        for &(_, row) in places {
            for u in &ol.updates {
                markers.push(Marker { row, at_nanos: u.nanos, kind: MarkerKind::SpecUpdate, label: format!("{name}: spec updated") });
            }
            if let Some(t) = deletion {
                markers.push(Marker { row, at_nanos: t.nanos, kind: MarkerKind::DeletionRequested, label: format!("{name}: deletion requested") });
            }
            if let Some(t) = ol.deleted {
                markers.push(Marker { row, at_nanos: t.nanos, kind: MarkerKind::Deleted, label: format!("{name}: deleted") });
            }
            if ol.in_dump && !ol.finalizers.is_empty() {
                at_end.push((row, format!("{name}: finalizers at the end: {}", ol.finalizers.join(", "))));
            }
        }
    }
    for m in &markers {
        see(m.at_nanos, m.at_nanos);
    }
    // Goroutine dumps with a time: a line across every row.
    let mut dumps: Vec<DumpLine> = a
        .dumps
        .iter()
        .enumerate()
        .filter_map(|(i, d)| {
            let t = d.time?;
            let blocked = a.goroutines.iter().filter(|g| g.dump == i && g.role == "busy-worker").map(|g| g.count).sum::<u64>();
            let base = d.path.rsplit(['/', '!']).next().unwrap_or(&d.path);
            Some(DumpLine {
                dump: i as u32,
                at_nanos: t.nanos,
                label: format!(
                    "goroutine dump {base}: {}, {}",
                    plural(d.goroutines, "goroutine", "goroutines"),
                    plural(blocked, "busy worker", "busy workers")
                ),
            })
        })
        .collect();
    dumps.sort_by_key(|d| (d.at_nanos, d.dump));
    for d in &dumps {
        see(d.at_nanos, d.at_nanos);
    }
    let (start_nanos, end_nanos) = span.unwrap_or((0, 0));
    for (row, label) in at_end {
        markers.push(Marker { row, at_nanos: end_nanos, kind: MarkerKind::FinalizerAtEnd, label });
    }
    markers.sort_by(|x, y| (x.row, x.at_nanos, x.kind as u8, &x.label).cmp(&(y.row, y.at_nanos, y.kind as u8, &y.label)));

    let mut bands: Vec<Band> = a
        .elections
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let start = e.start.nanos;
            let end = e.end.map_or(end_nanos, |t| t.nanos).max(start);
            Band {
                election: i as u32,
                start_nanos: start,
                end_nanos: end,
                leaderless_start_nanos: e.leaderless_nanos.map(|l| (end - l).clamp(start, end)),
                label: band_label(e),
            }
        })
        .collect();

    // Highlights: the finding's object rows (or its controller's group row
    // when collapsed / by lane), its reconciles' rows, its controller's group row.
    let mut highlights = Vec::new();
    for (fi, f) in a.findings.iter().enumerate() {
        let ctrl = f.controller.filter(|&c| c < nc);
        if ctrl.is_none() && f.object.is_none() && f.reconciles.is_empty() {
            highlights.push(Highlight { finding: fi as u32, kind: f.kind, start_nanos: f.start.nanos, end_nanos: f.end.nanos, rows: Vec::new() });
            continue;
        }
        let mut hl: Vec<u32> = Vec::new();
        let with_group = |c: usize, row: u32, hl: &mut Vec<u32>| {
            if row != NO_ROW {
                hl.push(row);
                if group_row[c] != NO_ROW {
                    hl.push(group_row[c]);
                }
            }
        };
        if let Some(c) = ctrl {
            if group_row[c] != NO_ROW {
                hl.push(group_row[c]);
            }
        }
        if let Some(o) = &f.object {
            for &(c, row) in object_rows.get(o).map_or(&[][..], |v| v) {
                if ctrl.is_none_or(|fc| fc == c) {
                    with_group(c, row, &mut hl);
                }
            }
        }
        for &i in &f.reconciles {
            let Some(r) = a.reconciles.get(i) else { continue };
            if r.controller >= nc {
                continue;
            }
            let mut row = reconcile_row[i];
            if row == NO_ROW {
                // Not selected by `only`: the row it would be on, if shown.
                row = if by_lane {
                    lane_rows[r.controller].get(r.lane as usize).copied().unwrap_or(NO_ROW)
                } else {
                    r.object.as_deref().and_then(|o| object_row[r.controller].get(o).copied()).unwrap_or(NO_ROW)
                };
            }
            with_group(r.controller, row, &mut hl);
        }
        if hl.is_empty() {
            continue; // everything it concerns is hidden
        }
        hl.sort_unstable();
        hl.dedup();
        highlights.push(Highlight { finding: fi as u32, kind: f.kind, start_nanos: f.start.nanos, end_nanos: f.end.nanos, rows: hl });
    }

    // Labels are for people: the log text in them (names, terms, leaders)
    // is made inert here once, for the app's chart and the SVG alike.
    let labels = rows.iter_mut().map(|r| &mut r.label).chain(markers.iter_mut().map(|m| &mut m.label));
    for l in labels.chain(bands.iter_mut().map(|b| &mut b.label)).chain(dumps.iter_mut().map(|d| &mut d.label)) {
        if let std::borrow::Cow::Owned(shown) = crate::inert::label(l) {
            *l = shown;
        }
    }
    let in_flight = a
        .in_flight
        .iter()
        .filter_map(|l| {
            let row = *group_row.get(l.controller)?;
            (row != NO_ROW).then(|| InFlightLane { row, workers: l.workers, start_nanos: l.start.nanos, bucket_nanos: l.bucket_nanos, peaks: l.peaks.clone() })
        })
        .collect();
    let (sources, sources_total) = source_lanes(a);
    let precision_nanos = precision_nanos(a);
    Timeline { start_nanos, end_nanos, rows, bars, max_end_prefix, bands, markers, highlights, dumps, in_flight, sources, sources_total, precision_nanos }
}

/// [`Timeline::precision_nanos`]: the analysis' times, whatever the view
/// selects (the precision is the logs', not the selection's).
fn precision_nanos(a: &Analysis) -> i64 {
    let reconciles = a.reconciles.iter().flat_map(|r| [r.first, r.last]);
    let elections = a.elections.iter().flat_map(|e| std::iter::once(e.start).chain(e.end));
    let others = a.client_warnings.iter().map(|w| w.time).chain(a.dumps.iter().filter_map(|d| d.time));
    let mut digits = None;
    for t in reconciles.chain(elections).chain(others) {
        digits = digits.max(Some(t.digits));
        if t.digits >= 9 {
            break;
        }
    }
    digits.map_or(0, crate::time::tick_nanos)
}

/// A lane per log source, at most [`SOURCE_LANES`]: those with something
/// to show (a gap, a lost lease, a restart: its previous and its current
/// log) first, then the others, each group in the analysis' order.
fn source_lanes(a: &Analysis) -> (Vec<SourceLane>, u32) {
    use crate::analyze::Detail;
    let cov = &a.coverage.sources;
    let of = |path: &str| cov.iter().position(|s| s.path == path || s.files.iter().any(|f| f == path));
    let mut leader: Vec<Vec<(i64, i64)>> = vec![Vec::new(); cov.len()];
    let mut ended: Vec<Option<String>> = vec![None; cov.len()];
    for l in &a.leadership {
        if let Some(i) = of(&l.source) {
            leader[i].push((l.acquired.nanos, l.lost.map_or(cov[i].last.nanos, |t| t.nanos)));
        }
    }
    for f in &a.findings {
        match f.detail.as_deref() {
            Some(Detail::Lease(l)) => {
                if let Some(i) = of(&l.source) {
                    ended[i].get_or_insert_with(|| "lease lost".into());
                }
            }
            Some(Detail::Restart(r)) => {
                if let Some(i) = of(&r.previous) {
                    ended[i] = Some(match r.previous_exit.as_str() {
                        "unknown" => "its log stops; a new process followed".to_string(),
                        exit => format!("ended: {exit}; a new process followed"),
                    });
                }
                if let Some(i) = of(&r.current) {
                    ended[i].get_or_insert_with(String::new);
                }
            }
            _ => {}
        }
    }
    // Those with something to show first, then the others, in order.
    let mut order: Vec<usize> = (0..cov.len()).collect();
    order.sort_by_key(|&i| cov[i].gaps.is_empty() && leader[i].is_empty() && ended[i].is_none());
    let lanes = order
        .into_iter()
        .map(|i| (i, &cov[i]))
        .take(SOURCE_LANES)
        .map(|(i, s)| {
            let name = match (&s.pod, &s.container) {
                (Some(p), Some(c)) => format!("{p}/{c}"),
                (None, Some(c)) => c.clone(),
                _ => crate::model::file_name(&s.path).to_string(),
            };
            SourceLane {
                label: crate::inert::label(&name).into_owned(),
                path: s.path.clone(),
                first_nanos: s.first.nanos,
                last_nanos: s.last.nanos,
                gaps: s.gaps.iter().map(|g| (g.start.nanos, g.end.nanos)).collect(),
                elided: s.gaps.iter().filter(|g| g.elided).map(|g| (g.start.nanos, g.end.nanos)).collect(),
                leader: leader[i].clone(),
                ended: ended[i].clone().filter(|e| !e.is_empty()),
            }
        })
        .collect();
    (lanes, cov.len() as u32)
}

fn child(key: String, label: String, c: usize) -> Row {
    Row { key, label, depth: 1, controller: c as u32, collapsed: false, bar_start: 0, bar_end: 0 }
}

/// `etcd tenant-root: term 8, leader 91bc3c398fb3c146 (was 8e9e05c52164694d)`.
fn band_label(e: &Election) -> String {
    let mut parts: Vec<String> = Vec::new();
    if let Some(t) = e.term {
        parts.push(format!("term {t}"));
    }
    match (&e.leader, e.end) {
        (Some(l), _) => parts.push(format!("leader {l}")),
        (None, None) => parts.push("no leader yet".into()),
        (None, Some(_)) => {}
    }
    if parts.is_empty() {
        parts.push("election".into());
    }
    if e.transfers > 0 {
        parts.push(plural(e.transfers, "leadership transfer", "leadership transfers"));
    }
    let mut s = format!("{}: {}", e.cluster, parts.join(", "));
    if let Some(p) = &e.previous_leader {
        s.push_str(&format!(" (was {p})"));
    }
    s
}
