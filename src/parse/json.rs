//! A small, allocation-free JSON object scanner: it finds the keys and
//! values of one flat object and reports them as byte ranges. Nested
//! objects and arrays are skipped over and reported whole.
//!
//! It is lenient where logs need it: a line cut in the middle of an object
//! still yields every key/value pair before the cut.

/// The string decoding lives in [`crate::escape`] (the data model uses it
/// too); named here as well for the paths that had it here.
pub use crate::escape::{unescape, unescape_into};
use crate::model::ValueKind;

/// One `"key": value` pair, as byte ranges into the scanned buffer. For
/// strings the range excludes the quotes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pair {
    pub key: (usize, usize),
    pub value: (usize, usize),
    pub kind: ValueKind,
    /// The string value contains backslash escapes.
    pub escaped: bool,
}

/// How an object scan ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// The closing `}` is at index-1; the scan ended at this index.
    Closed(usize),
    /// The object is malformed or cut off at this index.
    Broken(usize),
}

#[inline]
fn skip_ws(s: &[u8], mut i: usize) -> usize {
    while let Some(b' ' | b'\t' | b'\r' | b'\n') = s.get(i) {
        i += 1;
    }
    i
}

/// Scans a string whose opening quote is at `i`. Returns (end after the
/// closing quote, whether it had escapes).
#[inline]
pub fn scan_string(s: &[u8], i: usize) -> Option<(usize, bool)> {
    let mut j = i + 1;
    let mut escaped = false;
    loop {
        let k = j + memchr::memchr2(b'"', b'\\', s.get(j..)?)?;
        if s[k] == b'"' {
            return Some((k + 1, escaped));
        }
        escaped = true;
        j = k + 2;
    }
}

/// Skips a nested object or array starting at `i`. Returns the end index.
fn skip_nested(s: &[u8], i: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut j = i;
    while j < s.len() {
        match s[j] {
            b'"' => {
                j = scan_string(s, j)?.0;
                continue;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(j + 1);
                }
            }
            _ => {}
        }
        j += 1;
    }
    None
}

/// Scans the object whose `{` is at `start`, calling `visit` for each pair.
pub fn scan_object(s: &[u8], start: usize, mut visit: impl FnMut(Pair)) -> End {
    let mut i = skip_ws(s, start + 1);
    if s.get(i) == Some(&b'}') {
        return End::Closed(i + 1);
    }
    loop {
        if s.get(i) != Some(&b'"') {
            return End::Broken(i);
        }
        let Some((kend, _)) = scan_string(s, i) else { return End::Broken(i) };
        let key = (i + 1, kend - 1);
        i = skip_ws(s, kend);
        if s.get(i) != Some(&b':') {
            return End::Broken(i);
        }
        i = skip_ws(s, i + 1);
        let (value, kind, escaped, vend) = match s.get(i) {
            Some(b'"') => match scan_string(s, i) {
                Some((e, esc)) => ((i + 1, e - 1), ValueKind::JsonString, esc, e),
                None => return End::Broken(i),
            },
            Some(b'{' | b'[') => match skip_nested(s, i) {
                Some(e) => ((i, e), ValueKind::JsonRaw, false, e),
                None => return End::Broken(i),
            },
            Some(_) => {
                let mut e = i;
                while let Some(&b) = s.get(e) {
                    if matches!(b, b',' | b'}' | b' ' | b'\t' | b'\r' | b'\n') {
                        break;
                    }
                    e += 1;
                }
                if e == i || e == s.len() {
                    return End::Broken(i);
                }
                ((i, e), ValueKind::JsonRaw, false, e)
            }
            None => return End::Broken(i),
        };
        visit(Pair { key, value, kind, escaped });
        i = skip_ws(s, vend);
        match s.get(i) {
            Some(b',') => i = skip_ws(s, i + 1),
            Some(b'}') => return End::Closed(i + 1),
            _ => return End::Broken(i),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(input: &str, expect: &[(&str, &str)], closed: bool) {
        let s = input.as_bytes();
        let mut got = Vec::new();
        let end = scan_object(s, 0, |p| {
            got.push((String::from_utf8_lossy(&s[p.key.0..p.key.1]).into_owned(), String::from_utf8_lossy(&s[p.value.0..p.value.1]).into_owned()))
        });
        let want: Vec<(String, String)> = expect.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
        assert_eq!(got, want, "{input}");
        assert_eq!(matches!(end, End::Closed(_)), closed, "{input}: {end:?}");
    }

    #[test]
    fn flat_and_nested() {
        check(
            r#"{"controller": "tcp", "TenantControlPlane": {"name":"a","namespace":"b"}, "worker count": 1, "ok": true}"#,
            &[("controller", "tcp"), ("TenantControlPlane", r#"{"name":"a","namespace":"b"}"#), ("worker count", "1"), ("ok", "true")],
            true,
        );
        check(r#"{"a":"x\"y","b":[1,{"c":"]"}]}"#, &[("a", r#"x\"y"#), ("b", r#"[1,{"c":"]"}]"#)], true);
        check("{}", &[], true);
    }

    #[test]
    fn truncated_keeps_prefix() {
        check(r#"{"a": "1", "b": "2", "c": "tru"#, &[("a", "1"), ("b", "2")], false);
        check(r#"{"a": 5"#, &[], false);
    }

    /// What `scan_string` must give: a byte at a time.
    fn scan_string_reference(s: &[u8], i: usize) -> Option<(usize, bool)> {
        let (mut j, mut escaped) = (i + 1, false);
        loop {
            match s.get(j)? {
                b'"' => return Some((j + 1, escaped)),
                b'\\' => {
                    escaped = true;
                    j += 2;
                }
                _ => j += 1,
            }
        }
    }

    #[test]
    fn scan_string_is_the_byte_loop() {
        // Strings of up to 70 bytes, mostly `a`, with quotes, backslashes
        // and high bytes scattered over them.
        let alphabet = [b'a', b'"', b'\\', 0xC3, 0x22 ^ 0x80, 0x5C ^ 0x01];
        for len in 0..70usize {
            for seed in 0..40u64 {
                let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ len as u64;
                let mut s = vec![b'"'];
                for k in 0..len {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    // Mostly plain bytes, so long strings occur.
                    s.push(if x.is_multiple_of(7) || k == len - 1 { alphabet[(x >> 8) as usize % alphabet.len()] } else { b'a' });
                }
                assert_eq!(scan_string(&s, 0), scan_string_reference(&s, 0), "{:?}", String::from_utf8_lossy(&s));
            }
        }
    }
}
