//! JSON string escapes: the decoding of a string literal's body, shared by
//! the data model (a record's message and field values are kept escaped, as
//! written, and decoded when asked for) and the parsers (docker json-file
//! payloads, by the line parser and the goroutine dump reader). A leaf:
//! it uses nothing else in the crate.

use std::borrow::Cow;

/// Decodes the inside of a JSON string (no quotes). Invalid escapes are
/// kept as written; invalid UTF-8 is replaced.
pub fn unescape(raw: &[u8]) -> Cow<'_, str> {
    if memchr::memchr(b'\\', raw).is_none() {
        return String::from_utf8_lossy(raw);
    }
    let mut out: Vec<u8> = Vec::with_capacity(raw.len());
    unescape_into(raw, &mut out);
    Cow::Owned(String::from_utf8_lossy(&out).into_owned())
}

fn hex4(s: &[u8]) -> Option<u32> {
    if s.len() < 4 {
        return None;
    }
    let t = std::str::from_utf8(&s[..4]).ok()?;
    u32::from_str_radix(t, 16).ok()
}

/// Appends the decoded bytes of a JSON string body to `out`.
pub fn unescape_into(raw: &[u8], out: &mut Vec<u8>) {
    let mut i = 0;
    while i < raw.len() {
        let Some(k) = memchr::memchr(b'\\', &raw[i..]) else {
            out.extend_from_slice(&raw[i..]);
            return;
        };
        out.extend_from_slice(&raw[i..i + k]);
        i += k;
        let Some(&c) = raw.get(i + 1) else {
            out.push(b'\\');
            return;
        };
        i += 2;
        match c {
            b'n' => out.push(b'\n'),
            b't' => out.push(b'\t'),
            b'r' => out.push(b'\r'),
            b'b' => out.push(8),
            b'f' => out.push(12),
            b'"' | b'\\' | b'/' => out.push(c),
            b'u' => {
                let Some(mut cp) = hex4(&raw[i..]) else {
                    out.extend_from_slice(b"\\u");
                    continue;
                };
                i += 4;
                if (0xD800..0xDC00).contains(&cp) && raw.get(i) == Some(&b'\\') && raw.get(i + 1) == Some(&b'u') {
                    if let Some(lo) = hex4(&raw[i + 2..]) {
                        if (0xDC00..0xE000).contains(&lo) {
                            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                            i += 6;
                        }
                    }
                }
                let ch = char::from_u32(cp).unwrap_or('\u{FFFD}');
                let mut buf = [0u8; 4];
                out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
            }
            other => {
                out.push(b'\\');
                out.push(other);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unescapes() {
        assert_eq!(unescape(br#"a\nb\t\"c\" \u00e9 \ud83d\ude00"#), "a\nb\t\"c\" é 😀");
        assert_eq!(unescape(br"bad \x"), "bad \\x");
        assert_eq!(unescape(br"end \"), "end \\");
    }
}
