//! The Markdown report rendered as GitHub renders it (comrak, GFM) and
//! checks on the HTML.
#![allow(dead_code)]

/// GFM with the extensions GitHub uses (table, autolink, strikethrough)
/// and raw HTML allowed, as GitHub allows some: log text must not get
/// through as HTML on its own. Comrak dropped the tagfilter extension
/// (0.56); without it a `<script>` that got through would show here
/// as it is, rather than be defused, so the checks are stricter.
pub fn render(md: &str) -> String {
    let mut o = comrak::Options::default();
    o.extension.table = true;
    o.extension.autolink = true;
    o.extension.strikethrough = true;
    o.render.r#unsafe = true;
    comrak::markdown_to_html(md, &o)
}

/// The elements the report may make; anything else came from log text.
const ELEMENTS: &[&str] = &["h2", "h3", "p", "ol", "ul", "li", "strong", "code", "pre", "a", "details", "summary", "table", "thead", "tbody", "tr", "th", "td"];

/// Every element is one the report makes, and every link one of `links`
/// (an exact link, or a prefix ending in `*`).
pub fn assert_inert(html: &str, links: &[&str]) {
    for (i, _) in html.match_indices('<') {
        let tag = &html[i + 1..];
        let name: String = tag.trim_start_matches('/').chars().take_while(|c| c.is_ascii_alphanumeric()).collect();
        assert!(ELEMENTS.contains(&name.as_str()), "<{name}> from log text: {:.80}", &html[i..]);
    }
    for (i, _) in html.match_indices("href=\"") {
        let href = &html[i + 6..];
        let href = &href[..href.find('"').unwrap()];
        let ours = links.iter().any(|l| match l.strip_suffix('*') {
            Some(prefix) => href.starts_with(prefix),
            None => href == *l,
        });
        assert!(ours, "a link from log text: {href:.80}");
    }
    assert_eq!(html.matches("<a ").count(), html.matches("href=\"").count(), "no <a> without href");
    assert!(!html.contains('\u{1b}'), "no escape characters");
}

/// Every table row has as many cells as its header.
pub fn assert_tables_square(html: &str) {
    for table in html.split("<table>").skip(1) {
        let table = &table[..table.find("</table>").expect("closed table")];
        let (head, body) = table.split_once("</thead>").expect("a header");
        let cells = |html: &str, tag: &str| html.matches(&format!("<{tag}>")).count() + html.matches(&format!("<{tag} ")).count();
        let cols = cells(head, "th");
        assert!(cols > 0);
        for row in body.split("<tr>").skip(1) {
            assert_eq!(cells(row, "td"), cols, "a row of {cols} cells: {row}");
        }
    }
}

/// The `<details>` blocks, in order: each one's inner HTML.
pub fn details(html: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(i) = rest.find("<details>") {
        let end = rest[i..].find("</details>").expect("closed details") + i;
        let inner = &rest[i + "<details>".len()..end];
        assert!(!inner.contains("<details"), "details inside details: {inner}");
        out.push(inner);
        rest = &rest[end..];
    }
    assert_eq!(html.matches("<details").count(), out.len());
    assert_eq!(html.matches("</details>").count(), out.len());
    out
}

/// The text of some HTML: tags dropped, entities decoded, the zero-width
/// spaces that keep URLs text dropped, white space made single spaces.
pub fn text(html: &str) -> String {
    let mut out = String::new();
    let mut rest = html;
    while let Some(i) = rest.find('<') {
        out.push_str(&rest[..i]);
        rest = &rest[i + rest[i..].find('>').unwrap() + 1..];
    }
    out.push_str(rest);
    let out = out.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&#39;", "'").replace("&amp;", "&").replace('\u{200b}', "");
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Text as comrak writes it in HTML.
pub fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}
