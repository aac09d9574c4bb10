//! The inspector's fields view: the key/value pairs of one structured log
//! line, read from its raw text (a JSON object anywhere in the line, as
//! zap's JSON and console encoders, slog and logrus write them, behind any
//! collector's prefix; else `key=value` pairs as logfmt and klog write
//! them). Pure text in, pairs out, in the line's order.

/// A JSON object's nested objects are shown with dotted keys down to this
/// depth (deeper ones as compact JSON).
const MAX_DEPTH: usize = 3;

/// The line's fields, or nothing when it holds no JSON object and fewer
/// than two `key=value` pairs.
pub fn line_fields(text: &str) -> Vec<(String, String)> {
    if let Some(v) = json_object(text) {
        let mut out = Vec::new();
        flatten("", v, 0, &mut out);
        return out;
    }
    let pairs = key_values(text);
    if pairs.len() >= 2 {
        pairs
    } else {
        Vec::new()
    }
}

/// The first `{` from which the rest of the line (up to its last `}`) is
/// one JSON object.
fn json_object(text: &str) -> Option<Vec<(String, Node)>> {
    let end = text.rfind('}')?;
    for (i, _) in text.match_indices('{').take(8) {
        if i >= end {
            break;
        }
        if let Ok(Node::Object(m)) = serde_json::from_str(&text[i..=end]) {
            return Some(m);
        }
    }
    None
}

/// A JSON value with its objects' keys in the line's order (serde_json's
/// own map sorts them).
enum Node {
    Object(Vec<(String, Node)>),
    Other(serde_json::Value),
}

impl<'de> serde::Deserialize<'de> for Node {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Node, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Node;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut m: A) -> Result<Node, A::Error> {
                let mut out = Vec::new();
                while let Some((k, v)) = m.next_entry::<String, Node>()? {
                    out.push((k, v));
                }
                Ok(Node::Object(out))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut s: A) -> Result<Node, A::Error> {
                let mut out = Vec::new();
                while let Some(v) = s.next_element::<Node>()? {
                    out.push(v.into_value());
                }
                Ok(Node::Other(serde_json::Value::Array(out)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Node, E> {
                Ok(Node::Other(v.into()))
            }
            fn visit_string<E>(self, v: String) -> Result<Node, E> {
                Ok(Node::Other(v.into()))
            }
            fn visit_bool<E>(self, v: bool) -> Result<Node, E> {
                Ok(Node::Other(v.into()))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Node, E> {
                Ok(Node::Other(v.into()))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Node, E> {
                Ok(Node::Other(v.into()))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Node, E> {
                Ok(Node::Other(v.into()))
            }
            fn visit_unit<E>(self) -> Result<Node, E> {
                Ok(Node::Other(serde_json::Value::Null))
            }
        }
        d.deserialize_any(V)
    }
}

impl Node {
    fn into_value(self) -> serde_json::Value {
        match self {
            Node::Other(v) => v,
            Node::Object(m) => serde_json::Value::Object(m.into_iter().map(|(k, v)| (k, v.into_value())).collect()),
        }
    }
}

fn flatten(prefix: &str, m: Vec<(String, Node)>, depth: usize, out: &mut Vec<(String, String)>) {
    for (k, v) in m {
        let key = if prefix.is_empty() { k } else { format!("{prefix}.{k}") };
        match v {
            Node::Object(inner) if depth + 1 < MAX_DEPTH && !inner.is_empty() => flatten(&key, inner, depth + 1, out),
            Node::Other(serde_json::Value::String(s)) => out.push((key, s)),
            other => out.push((key, other.into_value().to_string())),
        }
    }
}

/// `key=value` and `key="quoted value"` pairs (logfmt, klog).
fn key_values(text: &str) -> Vec<(String, String)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        // A key starts a word.
        if i > 0 && !b[i - 1].is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && (b[i].is_ascii_alphanumeric() || b"_.-/".contains(&b[i])) {
            i += 1;
        }
        if i == start || i >= b.len() || b[i] != b'=' || !b[start].is_ascii_alphabetic() && b[start] != b'_' {
            i = i.max(start + 1);
            continue;
        }
        let key = &text[start..i];
        i += 1;
        let value = if b.get(i) == Some(&b'"') {
            // A quoted value, with backslash escapes.
            let mut v = String::new();
            let mut j = i + 1;
            let mut closed = false;
            while j < b.len() {
                match b[j] {
                    b'\\' if j + 1 < b.len() => {
                        let c = text[j + 1..].chars().next().unwrap_or('\\');
                        v.push(match c {
                            'n' => '\n',
                            't' => '\t',
                            c => c,
                        });
                        j += 1 + c.len_utf8();
                    }
                    b'"' => {
                        closed = true;
                        j += 1;
                        break;
                    }
                    _ => {
                        let c = text[j..].chars().next().unwrap_or(' ');
                        v.push(c);
                        j += c.len_utf8();
                    }
                }
            }
            if !closed {
                break;
            }
            i = j;
            v
        } else {
            let s = i;
            while i < b.len() && !b[i].is_ascii_whitespace() {
                i += 1;
            }
            text[s..i].to_string()
        };
        out.push((key.to_string(), value));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::line_fields;

    fn check(line: &str, expect: &[(&str, &str)]) {
        let got = line_fields(line);
        let got: Vec<(&str, &str)> = got.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        assert_eq!(got, expect, "{line}");
    }

    #[test]
    fn zap_console_and_json_lines() {
        // controller-runtime's zap console encoder: the fields as JSON at the end.
        check(
            r#"2026-05-26T16:35:10.123Z	ERROR	Reconciler error	{"controller": "tenantcontrolplane", "TenantControlPlane": {"name":"tcp-1","namespace":"tenant-root"}, "reconcileID": "c853721a-1", "error": "context deadline exceeded"}"#,
            &[
                ("controller", "tenantcontrolplane"),
                ("TenantControlPlane.name", "tcp-1"),
                ("TenantControlPlane.namespace", "tenant-root"),
                ("reconcileID", "c853721a-1"),
                ("error", "context deadline exceeded"),
            ],
        );
        // A JSON line behind a kubectl --timestamps prefix; numbers and
        // arrays as JSON.
        check(
            r#"2026-05-26T16:35:10.123456789Z {"level":"info","ts":1779813310.1,"msg":"Reconciling","attempts":[1,2],"ok":true}"#,
            &[("level", "info"), ("ts", "1779813310.1"), ("msg", "Reconciling"), ("attempts", "[1,2]"), ("ok", "true")],
        );
        // A `{` in the message before the fields is skipped.
        check(r#"INFO	msg with {brace	{"a": "1"}"#, &[("a", "1")]);
    }

    #[test]
    fn logfmt_and_klog_pairs() {
        check(
            r#"time="2026-05-26T16:35:10Z" level=warning msg="Waited for 1.09s due to client-side throttling" reqs=3"#,
            &[("time", "2026-05-26T16:35:10Z"), ("level", "warning"), ("msg", "Waited for 1.09s due to client-side throttling"), ("reqs", "3")],
        );
        check(
            r#"I0526 16:35:10.123456       1 leaderelection.go:258] "successfully acquired lease" lease="kamaji-system/799b98bc.clastix.io" id="a\"b""#,
            &[("lease", "kamaji-system/799b98bc.clastix.io"), ("id", "a\"b")],
        );
    }

    #[test]
    fn plain_lines_have_no_fields() {
        check("panic: runtime error: index out of range [3] with length 3", &[]);
        check("only one=pair here", &[]);
        check("{not json", &[]);
        check("", &[]);
        // An unclosed quote ends the pairs before it.
        check(r#"a=1 b=2 c="open"#, &[("a", "1"), ("b", "2")]);
    }
}
