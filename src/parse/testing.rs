//! Test support shared by the parser's tests and the `parse` fuzz target
//! (which cannot reach a private test module): a file parsed as the
//! browser's two workers parse it, and the check that two parses of the
//! same bytes are the same.

use super::ParseOptions;
use super::{Piece, PieceParser, StreamParser};
use crate::model::{ParsedFile, Record};

/// Parses `input` split at `tail_from` the way two workers do: the head
/// and the tail arrive side by side in `slice`-byte slices, the tail is
/// parsed by a [`PieceParser`] whose piece goes through its encoding, and
/// the head's [`StreamParser`] joins on it.
///
/// Panics if `tail_from` is not inside the file, or the piece does not
/// read back.
pub fn parse_split(input: &[u8], tail_from: usize, slice: usize, opts: &ParseOptions) -> ParsedFile {
    let slice = slice.max(1);
    let mut main = StreamParser::split("t.log", input.len(), tail_from, opts).expect("inside the file");
    let mut helper = PieceParser::new(tail_from as u64, input.len() - tail_from, opts);
    let (head, tail) = input.split_at(tail_from);
    let (mut h, mut t) = (head.chunks(slice), tail.chunks(slice).enumerate());
    loop {
        let a = h.next();
        if let Some(a) = a {
            main.push(a);
        }
        let b = t.next();
        if let Some((i, b)) = b {
            main.write(tail_from + i * slice, b).expect("in order");
            helper.push(b);
        }
        if a.is_none() && b.is_none() {
            break;
        }
    }
    assert!(main.is_complete());
    let piece = helper.finish().encode();
    Piece::check(&piece).expect("a piece reads back");
    main.finish_with(Some(&piece))
}

/// Asserts that two parses of the same bytes are the same: bytes, counts,
/// diagnostics, records (every field, spans included, but for where their
/// fields are kept: `fields_start`, `fields_len`, `fields_again_after`),
/// each record's fields (`ParsedFile::fields`, kept or parsed again) and
/// scratch. `how` names the second parse in a failure.
pub fn assert_same_parse(whole: &ParsedFile, other: &ParsedFile, how: &str) {
    assert_eq!(whole.bytes, other.bytes, "{how}: bytes");
    assert_eq!(whole.counts, other.counts, "{how}: counts");
    assert_eq!(whole.diagnostics, other.diagnostics, "{how}: diagnostics");
    assert_eq!(whole.records.len(), other.records.len(), "{how}: record count");
    for (i, (a, b)) in whole.records.iter().zip(&other.records).enumerate() {
        assert_eq!(stored_elsewhere(a), stored_elsewhere(b), "{how}: record {i}");
        assert_eq!(whole.fields(a), other.fields(b), "{how}: the fields of record {i}");
    }
    assert_eq!(whole.scratch, other.scratch, "{how}: scratch");
}

/// A record with where its fields are kept taken off.
pub fn stored_elsewhere(r: &Record) -> Record {
    Record { fields_start: 0, fields_len: 0, fields_again_after: None, ..r.clone() }
}
