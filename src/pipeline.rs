//! The reading path every front end shares: named bytes in, parsed files
//! and notes out. Archives are opened, every log member parsed, yearless
//! times given a year. The CLI, the benchmark and the browser worker all
//! call this; none of them repeats it.

use std::borrow::Cow;

use crate::ingest::{self, Event, IngestOptions};
use crate::model::{Diagnostic, FileBytes, ParsedFile};
use crate::parse::{self, ParseOptions};

/// Options for [`Loaded::add`].
#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    pub ingest: IngestOptions,
    pub parse: ParseOptions,
}

/// Everything read so far.
#[derive(Debug, Default)]
pub struct Loaded {
    pub files: Vec<ParsedFile>,
    /// Problems by file (bad archives, skipped binaries, cut lines, ...).
    pub notes: Vec<Diagnostic>,
    /// Bytes the inputs produced so far (decompressed), against
    /// `IngestOptions::max_total_bytes`, which caps the run as a whole.
    pub total_bytes: u64,
}

impl Loaded {
    /// Reads one named input: a log file or an archive. A plain file's
    /// buffer is handed to the parser as it is, without a copy.
    pub fn add(&mut self, name: &str, bytes: impl Into<FileBytes>, opts: &LoadOptions) {
        self.add_with_mtime(name, bytes, None, opts);
    }

    /// [`Loaded::add`] for an input whose modification time is known (Unix
    /// seconds): times without a year take theirs from it when nothing in
    /// the logs gives one ([`crate::parse::resolve_years`]).
    pub fn add_with_mtime(&mut self, name: &str, bytes: impl Into<FileBytes>, mtime_secs: Option<i64>, opts: &LoadOptions) {
        let first = self.files.len();
        self.add_members(name, bytes.into(), opts);
        for f in &mut self.files[first..] {
            f.file_mtime_secs = mtime_secs;
        }
    }

    fn add_members(&mut self, name: &str, bytes: FileBytes, opts: &LoadOptions) {
        let mut whole: Option<String> = None;
        let mut members = Vec::new();
        let mut used = self.total_bytes;
        let plain = bytes.whole();
        ingest::ingest_counted(name, &plain, &opts.ingest, &mut used, &mut |ev| match ev {
            Event::File(m) => match m.bytes {
                Cow::Borrowed(b) if b.len() == bytes.len() => whole = Some(m.path),
                b => {
                    let mut f = parse::parse_file(m.path, b.into_owned(), &opts.parse);
                    f.mtime_secs = m.mtime_secs;
                    members.push(f);
                }
            },
            Event::Skipped { path, reason } => self.notes.push(Diagnostic { path, line: None, message: reason }),
            Event::Error(e) => {
                let path = e.path().to_string();
                let text = e.to_string();
                let message = text.strip_prefix(&format!("{path}: ")).unwrap_or(&text).to_string();
                self.notes.push(Diagnostic { path, line: None, message });
            }
        });
        self.total_bytes = used;
        if let Some(path) = whole {
            members.push(parse::parse_file(path, bytes, &opts.parse));
        }
        self.files.extend(members);
    }

    /// Adds a file parsed as it arrived ([`crate::parse::StreamParser`];
    /// see [`streamable`]).
    pub fn add_parsed(&mut self, file: ParsedFile) {
        self.total_bytes = self.total_bytes.saturating_add(file.bytes.len() as u64);
        self.files.push(file);
    }

    /// Call once every input is added: gives yearless times their year,
    /// moves skewed clocks onto their collector's clock, and gathers the
    /// parser's diagnostics into `notes`.
    pub fn finish(&mut self) {
        parse::resolve_years(&mut self.files);
        parse::align_clocks(&mut self.files);
        for f in &self.files {
            if f.bytes.is_empty() {
                // (A browser shows a pipe or a device in a folder as an
                // empty file.)
                self.notes.push(Diagnostic { path: f.path.clone(), line: None, message: "the file is empty: nothing to read".into() });
            }
            self.notes.extend(f.diagnostics.iter().cloned());
        }
    }
}

/// Whether an input whose first bytes are `head` is a plain log file that
/// can be parsed as it arrives (with [`crate::parse::StreamParser`], then
/// [`Loaded::add_parsed`]) rather than an archive to open whole with
/// [`Loaded::add`].
pub fn streamable(name: &str, head: &[u8]) -> bool {
    ingest::is_plain_text(name, head)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An input that yields nothing says so, whatever carried it: a plain
    /// empty file, or an empty member of a tar.
    #[test]
    fn empty_inputs_are_noted() {
        let mut tar = vec![0u8; 512];
        tar[..9].copy_from_slice(b"empty.log");
        tar[100..107].copy_from_slice(b"0000644");
        tar[124..135].copy_from_slice(b"00000000000");
        tar[156] = b'0';
        tar[257..262].copy_from_slice(b"ustar");
        tar[148..156].copy_from_slice(b"        ");
        let sum: u32 = tar.iter().map(|&b| b as u32).sum();
        tar[148..155].copy_from_slice(format!("{sum:06o}\0").as_bytes());
        tar.extend_from_slice(&[0; 1024]);
        let mut l = Loaded::default();
        l.add("a.log", Vec::new(), &LoadOptions::default());
        l.add("b.tar", tar, &LoadOptions::default());
        l.add("c.log", b"line\n".to_vec(), &LoadOptions::default());
        l.finish();
        let notes: Vec<(&str, &str)> = l.notes.iter().map(|n| (n.path.as_str(), n.message.as_str())).collect();
        assert_eq!(notes, [("a.log", "the file is empty: nothing to read"), ("b.tar!/empty.log", "the file is empty: nothing to read")]);
    }
}
