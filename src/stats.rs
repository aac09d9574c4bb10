//! Per-file statistics, the numbers `reconscope stats` prints.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::model::{Format, ParsedFile};

/// One input file's summary. `formats` counts records by inner format and
/// lines by wrapper (`wrapper:<name>`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileStats {
    pub path: String,
    pub bytes: u64,
    pub records: u64,
    pub unparsed: u64,
    pub formats: BTreeMap<String, u64>,
    pub first: Option<String>,
    pub last: Option<String>,
}

impl FileStats {
    pub fn of(pf: &ParsedFile) -> FileStats {
        let mut formats = BTreeMap::new();
        for f in Format::ALL {
            let n = pf.counts.format(f);
            if n > 0 && f != Format::Unparsed {
                formats.insert(f.as_str().to_string(), n);
            }
        }
        for (w, n) in &pf.counts.wrappers {
            formats.insert(format!("wrapper:{w}"), *n);
        }
        let span = pf.time_span();
        FileStats {
            path: pf.path.clone(),
            bytes: pf.bytes.len() as u64,
            records: pf.counts.records(),
            unparsed: pf.counts.unparsed(),
            formats,
            first: span.map(|(first, _)| first.to_string()),
            last: span.map(|(_, last)| last.to_string()),
        }
    }
}
