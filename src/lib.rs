//! reconscope: controller-runtime reconcile timelines from CI artifacts.
//!
//! Dependency direction: `model` <- `parse` <- `ingest` (bytes in, files out)
//! <- `stats` <- `analyze` <- `layout` <- `render` <- ui / cli.
//! Nothing in this library reads a clock, a file or the DOM: callers hand
//! over bytes and names, and results are pushed into sinks or returned.

pub mod analyze;
pub mod codec;
pub mod evidence;
pub mod goroutine;
pub mod htmlreport;
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
pub mod web;
