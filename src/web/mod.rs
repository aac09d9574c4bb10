//! What the browser app and its worker say to each other, and the worker's
//! work as plain code (so it is tested natively, like the rest of the
//! library).
//!
//! The app (`src/bin/app/`) reads each input file in slices and sends them
//! to the worker (`src/bin/worker.rs`) as [`ToWorker::FileSlice`] messages,
//! each slice a transferred `ArrayBuffer` beside its message; the worker
//! parses a plain log as its slices arrive ([`Session::receive`]) and acknowledges each
//! with a [`FromWorker::Progress`] (the page keeps only a few slices in
//! flight). Reading on the page's idle thread lets the worker parse one
//! slice while the browser reads the next. On
//! [`ToWorker::Finish`] the worker analyzes everything, lays out the first
//! view, and answers with [`FromWorker::Loaded`]. The parsed files stay in
//! the worker, which answers [`ToWorker::Inspect`] with a reconcile's raw
//! lines.
//!
//! Messages are encoded with [`encode`] (JSON bytes, moved between threads as
//! a transferred `Uint8Array`, never as a JS string).

mod filters;
mod lines;
mod protocol;
mod session;
mod split;
#[cfg(test)]
pub(crate) mod testutil;
mod warmup;

pub use filters::{matching_reconciles, reconciles_longer_than, MessageFilter};
pub use lines::{reconcile_lines, Line, LineBlock, ReconcileLines, MAX_CONTEXT_LINES};
pub use protocol::{
    cli_reads, decode, encode, Beside, FileSummary, FromWorker, LeftOut, LeftOutReason, LoadResult, Matched, Note, Phase, Progress, ShareRequest,
    SharedEvidence, ToWorker, MARKDOWN_LINKS,
};
pub use session::{is_evidence_name, ReadLimits, Received, Session, TAB_ARCHIVE_BYTES, TAB_LOG_BYTES, TAB_PLAIN_BYTES};
pub use split::PartJob;
pub use warmup::warm_up;
