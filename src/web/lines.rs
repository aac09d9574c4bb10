//! The inspector's lines: a reconcile's own raw lines and the untagged
//! ones between them.

use serde::{Deserialize, Serialize};

use crate::analyze::RecordRef;
use crate::model::ParsedFile;

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
    // Own records per file, files in order of first appearance.
    let mut by_file: Vec<(u32, Vec<u32>)> = Vec::new();
    for r in refs {
        match by_file.iter_mut().find(|(f, _)| *f == r.file) {
            Some((_, v)) => v.push(r.record),
            None => by_file.push((r.file, vec![r.record])),
        }
    }
    let mut context_budget = max_context;
    let mut omitted = 0u64;
    let mut blocks = Vec::new();
    for (file, mut own) in by_file {
        let Some(pf) = files.get(file as usize) else { continue };
        own.sort_unstable();
        own.dedup();
        let (Some(&lo), Some(&hi)) = (own.first(), own.last()) else { continue };
        let mut lines = Vec::new();
        for idx in lo..=hi {
            let Some(rec) = pf.records.get(idx as usize) else { break };
            let is_own = own.binary_search(&idx).is_ok();
            if !is_own {
                if !rec.reconcile_id.is_empty() {
                    continue; // another reconcile's line
                }
                if context_budget == 0 {
                    omitted += u64::from(rec.line_count.max(1));
                    continue;
                }
                context_budget -= 1;
            }
            let text = String::from_utf8_lossy(pf.raw(rec));
            for (i, l) in text.split('\n').enumerate() {
                lines.push(Line { number: rec.line + i as u32, text: l.strip_suffix('\r').unwrap_or(l).to_string(), own: is_own });
            }
        }
        blocks.push(LineBlock { path: pf.path.clone(), lines });
    }
    ReconcileLines { reconcile, reconcile_id: reconcile_id.to_string(), blocks, omitted_context: omitted, left_out_lines: 0 }
}
