//! The parser: the whole file parsed at once must equal the same bytes
//! streamed into a `StreamParser` in slices of varying sizes (parsed in
//! pieces of varying sizes, packed as they are parsed or not), and a file
//! split between two workers at a byte (`StreamParser::split` and a
//! `PieceParser`, its piece through its encoding; and without a piece),
//! with the fields left to be parsed again (`keep_fields` off) or all kept,
//! and compared with the other way too. Slice sizes, the split byte and
//! the options come from a hash of the input, so the text itself stays the
//! corpus file as it is.
#![no_main]

use libfuzzer_sys::fuzz_target;
use reconscope::model::ParsedFile;
use reconscope::parse::testing::{assert_same_parse, parse_split};
use reconscope::parse::{parse_file, ParseOptions, StreamParser};

/// FNV-1a, then a xorshift stream of numbers from it.
struct Numbers(u64);

impl Numbers {
    fn of(data: &[u8]) -> Numbers {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for &b in data {
            h = (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
        }
        Numbers(h | 1)
    }
    fn next(&mut self, below: usize) -> usize {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        (x % below.max(1) as u64) as usize
    }
}

fn touch(f: &ParsedFile) {
    for r in &f.records {
        let _ = (f.message(r), f.raw(r));
        for field in f.fields(r).iter() {
            let _ = (f.key(field), f.value(field));
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let mut n = Numbers::of(data);
    let opts = ParseOptions {
        default_offset_secs: [0, 19_800, -18_000][n.next(3)],
        // Now and then a tiny line limit, so long lines are cut.
        max_line_bytes: if n.next(4) == 0 { 1 + n.next(300) } else { ParseOptions::default().max_line_bytes },
        threads: 1,
        keep_fields: n.next(2) == 0,
        keep_first_fields: n.next(2) == 0,
    };
    let whole = parse_file("t.log", data.to_vec(), &opts);
    touch(&whole);
    let other_way = parse_file("t.log", data.to_vec(), &ParseOptions { keep_fields: !opts.keep_fields, ..opts });
    assert_same_parse(&whole, &other_way, "fields kept the other way");

    // Streamed, in slices of 1 to 4096 bytes (a new size each time),
    // parsed in pieces of 1 to 8192 bytes, packed as it is parsed or not.
    let size_hint = if n.next(2) == 0 { data.len() } else { 0 };
    let packed = n.next(2) == 0;
    let sp = if packed { StreamParser::packed("t.log", size_hint, &opts) } else { StreamParser::new("t.log", size_hint, &opts) };
    let mut sp = sp.with_piece_bytes(1 + n.next(8192));
    let mut at = 0;
    while at < data.len() {
        let len = 1 + n.next(4096);
        let end = (at + len).min(data.len());
        sp.push(&data[at..end]);
        at = end;
    }
    assert_same_parse(&whole, &sp.finish(), if packed { "streamed, packed" } else { "streamed" });

    if data.len() < 2 {
        return;
    }
    // Split at a byte: head and tail arrive side by side.
    let tail_from = 1 + n.next(data.len() - 1);
    let slice = 1 + n.next(2048);
    let split = parse_split(data, tail_from, slice, &opts);
    assert_same_parse(&whole, &split, &format!("split at {tail_from}"));

    // The same split, the helper's piece lost: the head's parser parses all.
    let mut main = StreamParser::split("t.log", data.len(), tail_from, &opts).expect("inside the file");
    let (head, tail) = data.split_at(tail_from);
    main.push(head);
    main.write(tail_from, tail).expect("in order");
    assert_same_parse(&whole, &main.finish_with(None), &format!("split at {tail_from}, no piece"));
});
