//! Text from logs made inert for each place it is shown: a log line, a
//! file name inside an archive or an object name may hold escape
//! sequences (window titles, screen clears, fake hyperlinks), characters
//! XML 1.0 forbids, or bidirectional overrides that reverse what follows.
//! Each function gives the text back unchanged (borrowed) when it holds
//! none, and otherwise shows each such character visibly (`\x1b`,
//! `\u{202e}`), so that nothing is hidden and nothing is obeyed. (The SVG
//! has its own rule, `render::clean`: U+FFFD for what XML 1.0 forbids.)

use std::borrow::Cow;
use std::fmt::Write;

/// Bidirectional embedding, override and isolate controls, and the marks.
pub fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{061c}')
}

fn escape_if(s: &str, bad: impl Fn(char) -> bool) -> Cow<'_, str> {
    if !s.chars().any(&bad) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if !bad(c) {
            out.push(c);
        } else if (c as u32) < 0x80 {
            let _ = write!(out, "\\x{:02x}", c as u32);
        } else {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
    }
    Cow::Owned(out)
}

/// For a terminal: C0 and C1 controls (ESC, BEL, CR, LF and the rest),
/// DEL and bidirectional controls are shown as `\x1b` or `\u{9b}`; one
/// value prints as one line.
pub fn terminal(s: &str) -> Cow<'_, str> {
    escape_if(s, |c| c.is_control() || is_bidi_control(c))
}

/// For labels on the page (the DOM shows control characters as nothing
/// and obeys bidirectional overrides): both shown as `\u{202e}`.
pub fn label(s: &str) -> Cow<'_, str> {
    escape_if(s, |c| (c.is_control() && c != '\t') || is_bidi_control(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each hostile string through each function: what it shows.
    #[test]
    fn hostile_strings_are_shown_not_obeyed() {
        let table: &[(&str, &str, &str)] = &[
            // input, terminal, label
            ("plain tenant-root/tcp-1", "plain tenant-root/tcp-1", "plain tenant-root/tcp-1"),
            ("\x1b]0;pwned\x07title", "\\x1b]0;pwned\\x07title", "\\x1b]0;pwned\\x07title"),
            ("clear\x1b[2J\x1b[H", "clear\\x1b[2J\\x1b[H", "clear\\x1b[2J\\x1b[H"),
            (
                "\x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\",
                "\\x1b]8;;https://evil.example\\x1b\\link\\x1b]8;;\\x1b\\",
                "\\x1b]8;;https://evil.example\\x1b\\link\\x1b]8;;\\x1b\\",
            ),
            ("nul\0byte", "nul\\x00byte", "nul\\x00byte"),
            ("csi\u{9b}31m", "csi\\u{9b}31m", "csi\\u{9b}31m"),
            ("evil\u{202e}txt.exe", "evil\\u{202e}txt.exe", "evil\\u{202e}txt.exe"),
            ("iso\u{2067}late", "iso\\u{2067}late", "iso\\u{2067}late"),
            ("two\nlines\r\n", "two\\x0alines\\x0d\\x0a", "two\\x0alines\\x0d\\x0a"),
            ("tab\there", "tab\\x09here", "tab\there"),
            ("del\x7f", "del\\x7f", "del\\x7f"),
            ("bad\u{fffe}xml", "bad\u{fffe}xml", "bad\u{fffe}xml"),
            ("ünïcödé 日本 ok", "ünïcödé 日本 ok", "ünïcödé 日本 ok"),
        ];
        for (input, t, l) in table {
            assert_eq!(terminal(input), *t, "terminal {input:?}");
            assert_eq!(label(input), *l, "label {input:?}");
        }
        assert!(matches!(terminal("fine"), Cow::Borrowed(_)));
    }
}
