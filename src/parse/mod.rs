//! Parsing: one file's bytes in, records out.
//!
//! Parsing never fails: it returns records plus diagnostics. Every line of
//! the file ends up in exactly one place: a record of its own, a
//! continuation of the record before it (a Go stack after an ERROR line, the
//! rest of a goroutine dump), or the count of blank lines.

pub mod json;
pub mod line;

use crate::model::{Diagnostic, Format, Timestamp, ParseCounts, ParsedFile, Record, Span, ValueKind, Wrapper};
use crate::time;
use line::{Ctx, LineOptions, LineOut, Origin};

/// Options for [`parse_file`].
#[derive(Clone, Copy, Debug)]
pub struct ParseOptions {
    /// Offset east of UTC, in seconds, for times written without a zone.
    pub default_offset_secs: i32,
    /// Lines longer than this are parsed on their first `max_line_bytes`
    /// only (the record still covers the whole line).
    pub max_line_bytes: usize,
}

impl Default for ParseOptions {
    fn default() -> Self {
        ParseOptions { default_offset_secs: 0, max_line_bytes: 1 << 20 }
    }
}

/// Files bigger than this are cut: spans are 32-bit.
pub const MAX_FILE_BYTES: usize = (u32::MAX >> 1) as usize;

/// Parses one file. `path` names it in records and diagnostics.
pub fn parse_file(path: impl Into<String>, mut bytes: Vec<u8>, opts: &ParseOptions) -> ParsedFile {
    let path = path.into();
    let mut diagnostics = Vec::new();
    if bytes.len() > MAX_FILE_BYTES {
        diagnostics.push(Diagnostic {
            path: path.clone(),
            line: None,
            message: format!("file is {} bytes; only the first {} are read", bytes.len(), MAX_FILE_BYTES),
        });
        bytes.truncate(MAX_FILE_BYTES);
    }
    let mut pf = ParsedFile { path, diagnostics, ..ParsedFile::default() };
    let counts = parse_into(&bytes, opts, &mut pf);
    pf.counts = counts;
    pf.bytes = bytes;
    pf
}

/// What the record before the current line lets a continuation line join.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Tail {
    /// Nothing may join (no record yet, or a plain INFO line).
    Closed,
    /// Stack frames may join (after an ERROR/WARN line or a frame).
    Stack,
    /// Lines of a goroutine dump join (a panic or goroutine dump).
    Dump,
    /// Indented lines join (chainsaw's `=== STDOUT` sections).
    Indented,
}

fn parse_into(bytes: &[u8], opts: &ParseOptions, pf: &mut ParsedFile) -> ParseCounts {
    let mut counts = ParseCounts::default();
    let mut records: Vec<Record> = Vec::with_capacity(bytes.len() / 200 + 1);
    let mut fields = Vec::with_capacity(bytes.len() / 40 + 1);
    let mut scratch = Vec::new();
    let mut cx = Ctx {
        opts: LineOptions { default_offset_secs: opts.default_offset_secs },
        fields: &mut fields,
        scratch: &mut scratch,
        last_format: Format::Unparsed,
        name_prefix: Vec::new(),
    };
    let mut tail = Tail::Closed;
    let mut truncated_reported = 0usize;
    let mut pos = 0usize;
    let mut line_no = 0u32;
    // CRI partial lines (`P`) are joined with what follows in scratch.
    while pos < bytes.len() {
        let nl = memchr::memchr(b'\n', &bytes[pos..]).map_or(bytes.len(), |k| pos + k);
        let mut end = nl;
        if end > pos && bytes[end - 1] == b'\r' {
            end -= 1;
        }
        line_no = line_no.saturating_add(1);
        counts.lines += 1;
        let full = &bytes[pos..end];
        let start = pos;
        pos = nl + 1;
        if std::str::from_utf8(full).is_err() {
            counts.invalid_utf8_lines += 1;
        }
        if full.iter().all(|&b| b == b' ' || b == b'\t') {
            counts.blank_lines += 1;
            continue;
        }
        let s = if full.len() > opts.max_line_bytes {
            counts.overlong_lines += 1;
            &full[..opts.max_line_bytes]
        } else {
            full
        };
        let mark = cx.fields.len();
        let mut out = LineOut::default();
        let ok = line::parse_line(s, Origin { start, scratch: false }, &mut cx, &mut out);
        let fmt = if ok { out.format.unwrap_or(Format::Unparsed) } else { Format::Unparsed };
        // Continuation: a line with no format of its own (or only a wrapper's
        // time) after a record that takes it; inside a dump, also the next
        // goroutine's header.
        let joinable = matches!(fmt, Format::Unparsed | Format::Text) || (tail == Tail::Dump && fmt == Format::GoTraceback);
        if joinable && tail != Tail::Closed {
            let inner = &bytes[out.inner.0.min(end)..out.inner.1.min(end)];
            let inner = if out.inner.0 >= start && out.inner.1 <= end && out.wrapper != Wrapper::DockerJson { inner } else { s };
            let joins = match tail {
                Tail::Dump => line::is_dump_line(inner),
                Tail::Indented => inner.first().is_some_and(|&b| b == b' ' || b == b'\t') || line::is_stack_line(inner),
                _ => line::is_stack_line(inner),
            };
            if joins {
                if let Some(prev) = records.last_mut() {
                    cx.fields.truncate(mark);
                    prev.line_count = line_no - prev.line + 1;
                    prev.byte_len = (end - prev.offset as usize) as u32;
                    counts.continuation_lines += 1;
                    continue;
                }
            }
        }
        if out.truncated && truncated_reported < 20 {
            truncated_reported += 1;
            pf.diagnostics.push(Diagnostic {
                path: pf.path.clone(),
                line: Some(line_no),
                message: "line is cut off inside its JSON object; the fields before the cut were kept".into(),
            });
        }
        // A wrapper's collection time gives a yearless inner time its year.
        if out.yearless {
            if let (Some(t), Some(c)) = (out.time, out.collected) {
                out.time = Some(nearest_year(t, c.nanos));
                out.yearless = false;
            }
        }
        // A stack with no record before it (a dump cut at its start) is a
        // dump fragment of its own.
        let mut fmt = fmt;
        if fmt == Format::Unparsed {
            let inner = &bytes[out.inner.0.min(end)..out.inner.1.min(end)];
            if out.wrapper != Wrapper::DockerJson && line::is_stack_line(inner) {
                fmt = Format::GoTraceback;
                out.level = crate::model::Level::Unknown;
                out.message = Span::raw(out.inner.0, out.inner.1.min(end));
            }
        }
        let message = if fmt == Format::Unparsed { Span::raw(start, start + s.len()) } else { out.message };
        tail = match fmt {
            Format::GoTraceback => Tail::Dump,
            Format::Chainsaw => Tail::Indented,
            _ if out.level >= crate::model::Level::Warn => Tail::Stack,
            _ => Tail::Closed,
        };
        counts.formats[fmt as usize] += 1;
        if out.wrapper != Wrapper::None {
            *counts.wrappers.entry(out.wrapper.as_str()).or_insert(0) += 1;
        }
        let nfields = (cx.fields.len() - mark).min(u16::MAX as usize);
        records.push(Record {
            time: if fmt == Format::Unparsed { None } else { out.time },
            collected: out.collected,
            yearless: out.yearless,
            level: out.level,
            format: fmt,
            wrapper: out.wrapper,
            logger: out.logger,
            message,
            message_kind: out.message_kind.unwrap_or(ValueKind::Text),
            fields_start: mark as u32,
            fields_len: nfields as u16,
            line: line_no,
            line_count: 1,
            offset: start as u64,
            byte_len: (end - start) as u32,
        });
    }
    if truncated_reported >= 20 {
        pf.diagnostics.push(Diagnostic {
            path: pf.path.clone(),
            line: None,
            message: "more lines are cut off inside their JSON object; only the first 20 are listed".into(),
        });
    }
    if counts.invalid_utf8_lines > 0 {
        pf.diagnostics.push(Diagnostic {
            path: pf.path.clone(),
            line: None,
            message: format!("{} lines are not valid UTF-8 and were decoded lossily", counts.invalid_utf8_lines),
        });
    }
    drop(cx);
    pf.records = records;
    pf.fields = fields;
    pf.scratch = scratch;
    counts
}

/// Places a yearless time in the year that puts it nearest `reference_nanos`.
fn nearest_year(t: Timestamp, reference_nanos: i64) -> Timestamp {
    let y = time::year_of(Timestamp::new(reference_nanos, 0));
    [y - 1, y, y + 1]
        .into_iter()
        .map(|y| time::with_year(t, y))
        .min_by_key(|c| (c.nanos - reference_nanos).unsigned_abs())
        .unwrap_or(t)
}

/// Gives yearless times (klog, journald) a year: the year that puts each one
/// nearest its reference, which is the record's own collection time when a
/// wrapper gave one, else the median of the file's other times, else the
/// median over all files, else `fallback_year`.
pub fn resolve_years(files: &mut [ParsedFile], fallback_year: Option<i64>) {
    fn median_of(files: &[&ParsedFile]) -> Option<i64> {
        let mut v: Vec<i64> = files
            .iter()
            .flat_map(|f| f.records.iter())
            .filter(|r| !r.yearless)
            .filter_map(|r| r.time.or(r.collected).map(|t| t.nanos))
            .collect();
        if v.is_empty() {
            return None;
        }
        let mid = v.len() / 2;
        Some(*v.select_nth_unstable(mid).1)
    }
    let all: Vec<&ParsedFile> = files.iter().collect();
    let global = median_of(&all);
    for f in files.iter_mut() {
        if !f.records.iter().any(|r| r.yearless) {
            continue;
        }
        let local = median_of(&[&*f]).or(global);
        let mut used_fallback = false;
        for r in f.records.iter_mut().filter(|r| r.yearless) {
            let Some(t) = r.time else { continue };
            let reference = r.collected.map(|c| c.nanos).or(local);
            let new = match reference {
                Some(refn) => nearest_year(t, refn),
                None => match fallback_year {
                    Some(y) => {
                        used_fallback = true;
                        time::with_year(t, y)
                    }
                    None => continue,
                },
            };
            r.time = Some(new);
            r.yearless = false;
        }
        if used_fallback {
            f.diagnostics.push(Diagnostic {
                path: f.path.clone(),
                line: None,
                message: "times without a year and no other dated line in the input: assumed the current year".into(),
            });
        }
    }
}

#[cfg(test)]
mod tests;
