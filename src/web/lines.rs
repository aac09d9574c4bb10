//! The inspector's lines: a reconcile's own raw lines and the untagged
//! ones between them.

use std::ops::ControlFlow;

use serde::{Deserialize, Serialize};

use crate::analyze::RecordRef;
use crate::model::{ParsedFile, Record};

/// A reconcile's raw lines, grouped by file, in file order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReconcileLines {
    pub reconcile: u32,
    pub reconcile_id: String,
    pub blocks: Vec<LineBlock>,
    /// Lines between the reconcile's own that carry no `reconcileID` and
    /// were left out to keep the answer small.
    pub omitted_context: u64,
    /// Lines of its own that the evidence it came from left out (from its
    /// middle, to fit a link).
    #[serde(default)]
    pub left_out_lines: u64,
}

/// Lines of one file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineBlock {
    pub path: String,
    pub lines: Vec<Line>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Line {
    /// 1-based line number in the file.
    pub number: u32,
    /// The raw text (decoded lossily), without its line break.
    pub text: String,
    /// True for the reconcile's own lines; false for lines in between that
    /// carry no `reconcileID` (shown as context).
    pub own: bool,
}

/// At most this many context lines (lines between a reconcile's own lines
/// that carry no `reconcileID`) are returned for one reconcile.
pub const MAX_CONTEXT_LINES: usize = 2000;

/// See [`Session::lines`](super::Session::lines). `refs` are the reconcile's records.
pub fn reconcile_lines(files: &[ParsedFile], refs: &[RecordRef], reconcile: u32, reconcile_id: &str, max_context: usize) -> ReconcileLines {
    let mut omitted = 0u64;
    let mut blocks: Vec<LineBlock> = Vec::new();
    Shown::default().walk(files, refs, max_context, |step| {
        let (pf, rec, own) = match step {
            Step::File(pf) => {
                blocks.push(LineBlock { path: pf.path.clone(), lines: Vec::new() });
                return ControlFlow::Continue(());
            }
            Step::Omitted(rec) => {
                omitted += u64::from(rec.line_count.max(1));
                return ControlFlow::Continue(());
            }
            Step::Own(pf, rec) => (pf, rec, true),
            Step::Context(pf, rec) => (pf, rec, false),
        };
        let Some(block) = blocks.last_mut() else { return ControlFlow::Continue(()) };
        let raw = pf.raw(rec);
        let text = String::from_utf8_lossy(&raw);
        for (i, l) in text.split('\n').enumerate() {
            block.lines.push(Line { number: rec.line + i as u32, text: l.strip_suffix('\r').unwrap_or(l).to_string(), own });
        }
        ControlFlow::Continue(())
    });
    ReconcileLines { reconcile, reconcile_id: reconcile_id.to_string(), blocks, omitted_context: omitted, left_out_lines: 0 }
}

/// One step of [`Shown::walk`].
pub(super) enum Step<'f> {
    /// The records of this file follow.
    File(&'f ParsedFile),
    /// One of the reconcile's own records.
    Own(&'f ParsedFile, &'f Record),
    /// A record between its own ones that carries no `reconcileID`, shown
    /// as context.
    Context(&'f ParsedFile, &'f Record),
    /// Such a record left out: the context budget was spent.
    Omitted(&'f Record),
}

/// What the inspector shows of a reconcile, record by record; its scratch
/// buffers are kept for the next reconcile (the filter walks every one).
#[derive(Debug, Default)]
pub(super) struct Shown {
    /// Files in order of first appearance.
    files: Vec<u32>,
    /// (that order, record index) of each own record.
    order: Vec<(u32, u32)>,
}

impl Shown {
    /// Visits what the inspector shows of the reconcile whose records are
    /// `refs`: per file (in order of their first appearance in `refs`),
    /// every record from its first own one to its last, in file order:
    /// its own, and those between that carry no `reconcileID` (at most
    /// `max_context` of them in all; later ones come as omitted); other
    /// reconciles' records are skipped. `visit` may stop the walk.
    pub(super) fn walk<'f>(&mut self, files: &'f [ParsedFile], refs: &[RecordRef], max_context: usize, mut visit: impl FnMut(Step<'f>) -> ControlFlow<()>) {
        self.files.clear();
        self.order.clear();
        for r in refs {
            let rank = match self.files.iter().position(|&f| f == r.file) {
                Some(k) => k,
                None => {
                    self.files.push(r.file);
                    self.files.len() - 1
                }
            };
            self.order.push((rank as u32, r.record));
        }
        self.order.sort_unstable();
        self.order.dedup();
        let mut context_budget = max_context;
        for run in self.order.chunk_by(|a, b| a.0 == b.0) {
            let Some(pf) = files.get(self.files[run[0].0 as usize] as usize) else { continue };
            if visit(Step::File(pf)).is_break() {
                return;
            }
            let (lo, hi) = (run[0].1, run[run.len() - 1].1);
            let mut next_own = 0;
            for idx in lo..=hi {
                let Some(rec) = pf.records.get(idx as usize) else { break };
                let step = if run.get(next_own).is_some_and(|o| o.1 == idx) {
                    next_own += 1;
                    Step::Own(pf, rec)
                } else if !rec.reconcile_id.is_empty() {
                    continue; // another reconcile's line
                } else if context_budget == 0 {
                    Step::Omitted(rec)
                } else {
                    context_budget -= 1;
                    Step::Context(pf, rec)
                };
                if visit(step).is_break() {
                    return;
                }
            }
        }
    }
}
