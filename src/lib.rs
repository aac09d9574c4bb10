//! reconscope: controller-runtime reconcile timelines from CI artifacts.
//!
//! Dependency order: ARCHITECTURE.md's block, one line per module below,
//! each under everything it uses (`tests/architecture.rs` checks it).
//! Nothing in this library reads a clock, a file or the DOM: callers hand
//! over bytes and names, and results are pushed into sinks or returned.

pub mod analyze;
pub mod codec;
pub mod escape;
pub mod evidence;
pub mod goroutine;
pub mod htmlreport;
pub mod inert;
pub mod ingest;
pub mod layout;
pub mod model;
pub mod parse;
pub mod pipeline;
pub mod redact;
pub mod render;
pub mod report;
pub mod stats;
pub mod time;
pub mod timescale;
pub mod ui;
pub mod web;
pub mod words;
