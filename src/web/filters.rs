//! The message and level filter over reconciles.

use serde::{Deserialize, Serialize};

use crate::analyze::RecordRef;
use crate::model::{Level, ParsedFile};

/// A filter over records' messages and levels.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MessageFilter {
    /// A regular expression over the message, case-insensitive (empty:
    /// any message).
    pub pattern: String,
    /// The lowest level a record may have: 0 any, 1 info, 2 warn, 3 error.
    pub min_level: u8,
}

impl MessageFilter {
    pub fn is_empty(&self) -> bool {
        self.pattern.is_empty() && self.min_level == 0
    }
}

/// Indexes of the reconciles (each a range of `refs`) with at least one
/// record whose message matches `filter.pattern` (case-insensitive regex)
/// and whose level is at least `filter.min_level`. `Err`: a bad pattern.
pub fn matching_reconciles(
    files: &[ParsedFile],
    refs: &[RecordRef],
    reconciles: &[crate::analyze::Reconcile],
    filter: &MessageFilter,
) -> Result<Vec<u32>, String> {
    let re = if filter.pattern.is_empty() {
        None
    } else {
        let re = regex::RegexBuilder::new(&filter.pattern).case_insensitive(true).size_limit(1 << 20).build().map_err(|e| match e {
            regex::Error::Syntax(s) => s.lines().last().unwrap_or("invalid regular expression").trim().to_string(),
            other => other.to_string(),
        })?;
        Some(re)
    };
    let min = match filter.min_level {
        0 => Level::Unknown,
        1 => Level::Info,
        2 => Level::Warn,
        _ => Level::Error,
    };
    let mut out = Vec::new();
    for (i, r) in reconciles.iter().enumerate() {
        let range = &r.records;
        let Some(rs) = refs.get(range.start as usize..range.end as usize) else { continue };
        let hit = rs.iter().any(|r| {
            let Some(rec) = files.get(r.file as usize).and_then(|f| f.records.get(r.record as usize).map(|x| (f, x))) else {
                return false;
            };
            let (f, rec) = rec;
            rec.level >= min && re.as_ref().is_none_or(|re| re.is_match(&f.message(rec)))
        });
        if hit {
            out.push(i as u32);
        }
    }
    Ok(out)
}
