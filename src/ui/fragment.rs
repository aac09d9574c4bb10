//! The view in the URL fragment: `#ev=…&from=…&to=…&sel=…` (an evidence
//! link's payload, then the view: window, rows, folds, selection and
//! filters). Pure text in and out; the app reads and writes
//! `location.hash` itself.

use crate::model::Timestamp;

/// What the fragment holds.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Fragment {
    /// An evidence link's payload (`crate::evidence`), base64url.
    pub ev: Option<String>,
    /// Time window, absolute ns.
    pub window: Option<(i64, i64)>,
    /// `Some(true)`: rows are worker lanes.
    pub lanes: Option<bool>,
    pub collapsed: Vec<String>,
    /// The selected reconcile's `reconcileID`.
    pub sel: Option<String>,
    /// Filters: text regex, minimum level (0..=3), controller instance
    /// id, namespace/object substring, "longer than" as typed (`30s`).
    pub q: String,
    pub level: u8,
    pub ctl: String,
    pub obj: String,
    pub longer: String,
}

/// `encodeURIComponent`: everything but `A-Z a-z 0-9 - _ . ! ~ * ' ( )`
/// as UTF-8 `%XX`.
pub fn encode_component(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for &b in s.as_bytes() {
        if b.is_ascii_alphanumeric() || b"-_.!~*'()".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// `decodeURIComponent`, leniently: a bad escape or bytes that are not
/// UTF-8 give the text back as it was.
pub fn decode_component(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = b.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok()).and_then(|h| u8::from_str_radix(h, 16).ok());
            match hex {
                Some(v) => {
                    out.push(v);
                    i += 3;
                    continue;
                }
                None => return s.to_string(),
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| s.to_string())
}

fn parse_time(s: &str) -> Option<i64> {
    crate::time::parse_rfc3339(s.as_bytes(), false, 0).map(|p| p.ts.nanos)
}

/// Reads a fragment (with or without its `#`); accepts the CLI's
/// `#from=<RFC3339>&to=<RFC3339>`. Unknown keys are ignored.
pub fn parse(hash: &str) -> Fragment {
    let mut f = Fragment::default();
    let (mut from, mut to) = (None, None);
    for part in hash.trim_start_matches('#').split('&') {
        let (k, v) = part.split_once('=').unwrap_or((part, ""));
        if k == "ev" {
            // base64url: nothing to decode, and big.
            f.ev = (!v.is_empty()).then(|| v.to_string());
            continue;
        }
        let v = decode_component(v);
        match k {
            "from" => from = parse_time(&v),
            "to" => to = parse_time(&v),
            "rows" => f.lanes = Some(v == "lanes"),
            "collapsed" => f.collapsed = v.split('\n').filter(|s| !s.is_empty()).map(str::to_string).collect(),
            "sel" if !v.is_empty() => f.sel = Some(v),
            "q" => f.q = v,
            "level" => f.level = v.parse::<u8>().unwrap_or(0).min(3),
            "ctl" => f.ctl = v,
            "obj" => f.obj = v,
            "longer" => f.longer = v,
            _ => {}
        }
    }
    if let (Some(a), Some(b)) = (from, to) {
        if b > a {
            f.window = Some((a, b));
        }
    }
    f
}

/// Writes a fragment (with its `#`).
pub fn format(f: &Fragment) -> String {
    let mut parts = Vec::new();
    if let Some(ev) = &f.ev {
        parts.push(format!("ev={ev}"));
    }
    if let Some((a, b)) = f.window {
        parts.push(format!("from={}", encode_component(&Timestamp::new(a, 9).to_string())));
        parts.push(format!("to={}", encode_component(&Timestamp::new(b, 9).to_string())));
    }
    if f.lanes == Some(true) {
        parts.push("rows=lanes".into());
    }
    if !f.collapsed.is_empty() {
        parts.push(format!("collapsed={}", encode_component(&f.collapsed.join("\n"))));
    }
    if let Some(s) = &f.sel {
        parts.push(format!("sel={}", encode_component(s)));
    }
    for (k, v) in [("q", &f.q), ("ctl", &f.ctl), ("obj", &f.obj), ("longer", &f.longer)] {
        if !v.is_empty() {
            parts.push(format!("{k}={}", encode_component(v)));
        }
    }
    if f.level > 0 {
        parts.push(format!("level={}", f.level));
    }
    format!("#{}", parts.join("&"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(hash: &str, expect: Fragment) {
        let f = parse(hash);
        assert_eq!(f, expect, "{hash}");
        // What is written reads back the same.
        assert_eq!(parse(&format(&f)), f, "{}", format(&f));
    }

    #[test]
    fn fragments_read_and_write_back() {
        check("", Fragment::default());
        check("#q=deadline&level=2", Fragment { q: "deadline".into(), level: 2, ..Default::default() });
        check(
            "#from=2026-05-26T16%3A29%3A30Z&to=2026-05-26T16:59:30Z&rows=lanes&sel=c853721a",
            Fragment {
                window: Some((1_779_812_970_000_000_000, 1_779_814_770_000_000_000)),
                lanes: Some(true),
                sel: Some("c853721a".into()),
                ..Default::default()
            },
        );
        // A window backwards is no window; a level past 3 is 3.
        check("#from=2026-05-26T16:59:30Z&to=2026-05-26T16:29:30Z&level=9", Fragment { level: 3, ..Default::default() });
        check(
            "#ev=UlNFVgE&longer=1m30s&obj=tenant-root%2Fa%20b",
            Fragment { ev: Some("UlNFVgE".into()), longer: "1m30s".into(), obj: "tenant-root/a b".into(), ..Default::default() },
        );
        check("#collapsed=c%3Aa%0Ac%3Ab", Fragment { collapsed: vec!["c:a".into(), "c:b".into()], ..Default::default() });
    }

    #[test]
    fn components_encode_as_browsers_do() {
        assert_eq!(encode_component("a b/ü&=#*()'"), "a%20b%2F%C3%BC%26%3D%23*()'");
        assert_eq!(decode_component("a%20b%2F%C3%BC"), "a b/ü");
        // Bad escapes and bytes that are not UTF-8 give the text back.
        assert_eq!(decode_component("100%"), "100%");
        assert_eq!(decode_component("%ZZ"), "%ZZ");
        assert_eq!(decode_component("%FF"), "%FF");
    }
}
