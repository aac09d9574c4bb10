//! The self-contained HTML report (`reconscope analyze --html FILE`): one
//! file holding the web app (CSS, wasm-bindgen glue, both wasm binaries) and
//! the original inputs, which re-runs the whole pipeline in the browser when
//! opened straight from disk (`file://`), with no network at all.
//!
//! Pure: takes bytes, returns the HTML text. Everything binary (the wasm
//! modules, the worker glue, the inputs and their names) is base64 inside
//! non-executing `<script type="application/octet-stream">` blocks, so no
//! text from a log ever appears in the HTML source. The only executable
//! inline script (the app glue plus its boot code) and the inline style are
//! allowed by sha256 hashes in the page's Content-Security-Policy.

use thiserror::Error;

/// The built web app (trunk's `dist/`) as bytes.
#[derive(Debug, Clone, Default)]
pub struct AppAssets {
    /// `style-<hash>.css`.
    pub style_css: String,
    /// `app-<hash>.js`: wasm-bindgen glue (`--target web`, an ES module).
    pub app_js: String,
    /// `app-<hash>_bg.wasm`.
    pub app_wasm: Vec<u8>,
    /// Files the glue imports, by path relative to dist/
    /// (`snippets/<crate>-<hash>/inline0.js`).
    pub snippets: Vec<(String, String)>,
    /// `worker.js`: wasm-bindgen glue (`--target no-modules`, defines `wasm_bindgen`).
    pub worker_js: String,
    /// `worker_bg.wasm`.
    pub worker_wasm: Vec<u8>,
}

#[derive(Debug, Error, PartialEq, Eq)]
pub enum HtmlError {
    #[error("the app glue imports `{0}`, which the app build does not contain")]
    MissingSnippet(String),
    #[error("{0}: cannot be inlined ({1})")]
    Unsupported(String, &'static str),
}

/// Decodes base64 (standard alphabet) into bytes; the page's twin in JS.
const DECODE_JS: &str = "function __reconscopeBytes(b64) {\n  const bin = atob(b64.trim());\n  const out = new Uint8Array(bin.length);\n  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);\n  return out;\n}\n";

/// Starts the worker from a Blob URL, then the app from bytes, then drops
/// the embedded inputs on the page (the app takes drops anywhere).
const BOOT_JS: &str = r#"
{
  const text = (id) => document.getElementById(id).textContent;
  const decoder = new TextDecoder();
  try {
    // The worker: its glue, then a start call with the wasm bytes. A blob
    // worker inherits this page's CSP (worker-src blob:, 'wasm-unsafe-eval').
    const workerSrc = [
      decoder.decode(__reconscopeBytes(text('reconscope-worker-js'))),
      '\n;', __RECONSCOPE_DECODE,
      'wasm_bindgen({ module_or_path: __reconscopeBytes("', text('reconscope-worker-wasm').trim(), '") })',
      '.catch((err) => { console.error("reconscope worker failed to start", err); throw err; });\n',
    ];
    globalThis.RECONSCOPE_WORKER_URL = URL.createObjectURL(new Blob(workerSrc, { type: 'text/javascript' }));
    await __wbg_init({ module_or_path: __reconscopeBytes(text('reconscope-app-wasm')) });
    const files = Array.from(document.querySelectorAll('script.reconscope-input'), (el) =>
      new File([__reconscopeBytes(el.textContent)], decoder.decode(__reconscopeBytes(el.dataset.name))));
    if (files.length > 0) {
      // Wait until the app has mounted (its drop listener is on window).
      for (let i = 0; i < 500 && !document.getElementById('file-input'); i++) {
        await new Promise((ok) => setTimeout(ok, 20));
      }
      const dt = new DataTransfer();
      for (const f of files) dt.items.add(f);
      window.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    }
  } catch (err) {
    console.error('reconscope failed to start', err);
    const p = document.createElement('p');
    p.className = 'boot-error';
    p.textContent = 'reconscope could not start: this browser needs WebAssembly (with SIMD) support. ' + String(err);
    document.body.append(p);
  }
}
"#;

/// Builds the report page. `inputs` are the original input files (name,
/// bytes), fed to the app as dropped files when the page opens.
pub fn build(app: &AppAssets, inputs: &[(String, Vec<u8>)]) -> Result<String, HtmlError> {
    let css = &app.style_css;
    if contains_ci(css, "</style") {
        return Err(HtmlError::Unsupported("style.css".into(), "it contains `</style`"));
    }
    let script = app_script(app)?;
    let csp = format!(
        "default-src 'none'; script-src 'sha256-{}' 'wasm-unsafe-eval'; style-src 'sha256-{}'; img-src data: blob:; \
         worker-src blob:; connect-src 'none'; object-src 'none'; base-uri 'none'; form-action 'none'",
        base64(&sha256(script.as_bytes())),
        base64(&sha256(css.as_bytes())),
    );
    let mut html = String::with_capacity(
        (app.app_wasm.len() + app.worker_wasm.len() + app.worker_js.len() + inputs.iter().map(|i| i.1.len()).sum::<usize>()) * 4 / 3
            + script.len()
            + css.len()
            + 4096,
    );
    html.push_str("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    html.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    html.push_str(&format!("<meta http-equiv=\"Content-Security-Policy\" content=\"{csp}\">\n"));
    html.push_str("<meta name=\"color-scheme\" content=\"dark light\">\n<title>reconscope report</title>\n");
    html.push_str("<link rel=\"icon\" href=\"data:,\">\n");
    html.push_str(&format!("<style>{css}</style>\n"));
    push_data(&mut html, "id=\"reconscope-app-wasm\"", &app.app_wasm);
    push_data(&mut html, "id=\"reconscope-worker-wasm\"", &app.worker_wasm);
    push_data(&mut html, "id=\"reconscope-worker-js\"", app.worker_js.as_bytes());
    for (name, bytes) in inputs {
        let attrs = format!("class=\"reconscope-input\" data-name=\"{}\"", base64(name.as_bytes()));
        push_data(&mut html, &attrs, bytes);
    }
    html.push_str(&format!("<script type=\"module\">{script}</script>\n"));
    html.push_str("</head>\n<body>\n<noscript>reconscope runs entirely in your browser and needs JavaScript and WebAssembly.</noscript>\n</body>\n</html>\n");
    Ok(html)
}

fn push_data(html: &mut String, attrs: &str, bytes: &[u8]) {
    html.push_str(&format!("<script type=\"application/octet-stream\" {attrs}>"));
    html.push_str(&base64(bytes));
    html.push_str("</script>\n");
}

/// The one executable inline script: the app glue with its snippet imports
/// replaced by the snippets' own code, then the boot code.
fn app_script(app: &AppAssets) -> Result<String, HtmlError> {
    let mut out = String::with_capacity(app.app_js.len() + 8192);
    for line in app.app_js.lines() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("import * as ") {
            // import * as import1 from "./snippets/x/inline0.js"
            let (binding, path) = rest
                .split_once(" from ")
                .map(|(b, p)| (b.trim(), p.trim().trim_end_matches(';').trim_matches(|c| c == '"' || c == '\'')))
                .ok_or_else(|| HtmlError::Unsupported("app glue".into(), "an import it cannot read"))?;
            let rel = path.trim_start_matches("./");
            let (_, text) = app.snippets.iter().find(|(p, _)| p == rel).ok_or_else(|| HtmlError::MissingSnippet(rel.into()))?;
            out.push_str(&format!("const {binding} = (() => {{\n{}}})();\n", snippet_body(rel, text)?));
        } else if t.starts_with("import ") || t.starts_with("import{") {
            return Err(HtmlError::Unsupported("app glue".into(), "an import other than `import * as`"));
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    if !out.contains("__wbg_init") {
        return Err(HtmlError::Unsupported("app glue".into(), "no `__wbg_init`: not wasm-bindgen's web target"));
    }
    out.push_str(&format!("const __RECONSCOPE_DECODE = {};\n", js_string(DECODE_JS)));
    out.push_str(DECODE_JS);
    out.push_str(BOOT_JS);
    if contains_ci(&out, "</script") || out.contains("<!--") {
        return Err(HtmlError::Unsupported("app glue".into(), "it contains `</script` or `<!--`"));
    }
    Ok(out)
}

/// A snippet module as a function body that returns its exports.
fn snippet_body(name: &str, text: &str) -> Result<String, HtmlError> {
    let mut body = String::new();
    let mut exports = Vec::new();
    for line in text.lines() {
        let mut l = line.to_string();
        if let Some(rest) = line.strip_prefix("export ") {
            let decl = ["async function ", "function ", "const ", "let ", "class "]
                .iter()
                .find_map(|k| rest.strip_prefix(k))
                .ok_or_else(|| HtmlError::Unsupported(name.into(), "an export form other than a declaration"))?;
            let ident: String = decl.chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '$').collect();
            exports.push(ident);
            l = rest.to_string();
        } else if line.starts_with("import ") {
            return Err(HtmlError::Unsupported(name.into(), "it imports other modules"));
        }
        body.push_str(&l);
        body.push('\n');
    }
    body.push_str(&format!("return {{ {} }};\n", exports.join(", ")));
    Ok(body)
}

fn js_string(s: &str) -> String {
    let mut o = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '\n' => o.push_str("\\n"),
            '<' => o.push_str("\\u003c"),
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

fn contains_ci(hay: &str, needle: &str) -> bool {
    hay.to_ascii_lowercase().contains(needle)
}

/// Standard base64 with padding.
pub fn base64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for c in bytes.chunks(3) {
        let n = (c[0] as u32) << 16 | (*c.get(1).unwrap_or(&0) as u32) << 8 | *c.get(2).unwrap_or(&0) as u32;
        out.push(A[(n >> 18) as usize & 63] as char);
        out.push(A[(n >> 12) as usize & 63] as char);
        out.push(if c.len() > 1 { A[(n >> 6) as usize & 63] as char } else { '=' });
        out.push(if c.len() > 2 { A[n as usize & 63] as char } else { '=' });
    }
    out
}

/// SHA-256 (FIPS 180-4), for the CSP hashes.
pub fn sha256(data: &[u8]) -> [u8; 32] {
    const K: [u32; 64] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01,
        0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc,
        0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
        0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08,
        0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
        0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ];
    let mut h: [u32; 8] = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];
    let mut msg = data.to_vec();
    msg.push(0x80);
    while msg.len() % 64 != 56 {
        msg.push(0);
    }
    msg.extend_from_slice(&((data.len() as u64) * 8).to_be_bytes());
    for block in msg.chunks(64) {
        let mut w = [0u32; 64];
        for i in 0..16 {
            w[i] = u32::from_be_bytes([block[4 * i], block[4 * i + 1], block[4 * i + 2], block[4 * i + 3]]);
        }
        for i in 16..64 {
            let s0 = w[i - 15].rotate_right(7) ^ w[i - 15].rotate_right(18) ^ (w[i - 15] >> 3);
            let s1 = w[i - 2].rotate_right(17) ^ w[i - 2].rotate_right(19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16].wrapping_add(s0).wrapping_add(w[i - 7]).wrapping_add(s1);
        }
        let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut hh] = h;
        for i in 0..64 {
            let s1 = e.rotate_right(6) ^ e.rotate_right(11) ^ e.rotate_right(25);
            let ch = (e & f) ^ (!e & g);
            let t1 = hh.wrapping_add(s1).wrapping_add(ch).wrapping_add(K[i]).wrapping_add(w[i]);
            let s0 = a.rotate_right(2) ^ a.rotate_right(13) ^ a.rotate_right(22);
            let maj = (a & b) ^ (a & c) ^ (b & c);
            let t2 = s0.wrapping_add(maj);
            hh = g;
            g = f;
            f = e;
            e = d.wrapping_add(t1);
            d = c;
            c = b;
            b = a;
            a = t1.wrapping_add(t2);
        }
        for (x, y) in h.iter_mut().zip([a, b, c, d, e, f, g, hh]) {
            *x = x.wrapping_add(y);
        }
    }
    let mut out = [0u8; 32];
    for (i, v) in h.iter().enumerate() {
        out[4 * i..4 * i + 4].copy_from_slice(&v.to_be_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unbase64(s: &str) -> Vec<u8> {
        let val = |c: u8| match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => panic!("not base64: {c}"),
        };
        let mut out = Vec::new();
        for q in s.as_bytes().chunks(4) {
            let n = q.iter().take_while(|c| **c != b'=').fold(0u32, |n, c| n << 6 | val(*c) as u32) << (6 * (4 - q.iter().filter(|c| **c != b'=').count()));
            let pad = q.iter().filter(|c| **c == b'=').count();
            out.extend_from_slice(&[(n >> 16) as u8, (n >> 8) as u8, n as u8][..3 - pad]);
        }
        out
    }

    fn fake() -> AppAssets {
        AppAssets {
            style_css: "body { color: red }".into(),
            app_js: "import * as import1 from \"./snippets/x-1/inline0.js\"\nfunction __wbg_init(m) { return import1.f(m); }\nexport { __wbg_init as default };\n".into(),
            app_wasm: b"\0asm\x01\0\0\0app".to_vec(),
            snippets: vec![("snippets/x-1/inline0.js".into(), "export function f(x) { return x; }\n".into())],
            worker_js: "let wasm_bindgen = (function(){ return () => 1; })();\n".into(),
            worker_wasm: b"\0asm\x01\0\0\0worker\xff\xfe".to_vec(),
        }
    }

    /// The text between the first `open` after `from` and the next `close`.
    fn between<'a>(s: &'a str, open: &str, close: &str) -> Vec<&'a str> {
        s.split(open).skip(1).map(|p| &p[..p.find(close).unwrap()]).collect()
    }

    #[test]
    fn sha256_and_base64_known_answers() {
        assert_eq!(base64(&sha256(b"")), "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=");
        assert_eq!(base64(&sha256(b"abc")), "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=");
        let long = vec![b'a'; 1000];
        assert_eq!(base64(&sha256(&long)), "Qe3s5C1j6Nm/UVqbppMuHCDLyfWl0TRkWttdsblzfqM=");
        for n in 0..10 {
            let b: Vec<u8> = (0..n).map(|i| (i * 37) as u8).collect();
            assert_eq!(unbase64(&base64(&b)), b);
        }
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
        assert_eq!(base64(b"fo"), "Zm8=");
    }

    #[test]
    fn page_is_self_contained_and_hashes_match() {
        let hostile = b"</script><script>alert(1)</script> <img src=x onerror=alert(1)> http://evil.example/".to_vec();
        let inputs = vec![("dir/</script>.log".to_string(), hostile.clone()), ("b.zip".to_string(), vec![0, 1, 2, 255])];
        let html = build(&fake(), &inputs).unwrap();
        assert!(!html.contains("src=\"http"));
        assert!(!html.contains("http://") && !html.contains("https://"), "no external URL");
        assert!(!html.contains("alert(1)") && !html.contains("</script>.log"), "log text never in the source");
        assert_eq!(html.matches("http-equiv=\"Content-Security-Policy\"").count(), 1);
        let csp = between(&html, "http-equiv=\"Content-Security-Policy\" content=\"", "\"")[0];
        // Every executable inline script and style is allowed by its hash, and nothing else.
        let scripts = between(&html, "<script type=\"module\">", "</script>");
        assert_eq!(scripts.len(), 1);
        assert!(scripts[0].contains("return { f };"), "snippet inlined");
        assert!(!scripts[0].contains("import * as"));
        let hashes: Vec<&str> = between(csp, "'sha256-", "'");
        assert_eq!(hashes, vec![base64(&sha256(scripts[0].as_bytes())), base64(&sha256(b"body { color: red }"))]);
        assert!(csp.contains("script-src 'sha256-") && csp.contains("'wasm-unsafe-eval'") && csp.contains("connect-src 'none'"));
        assert!(!csp.contains("unsafe-inline") && !csp.contains("'self'"));
        assert_eq!(html.matches("<script").count(), 1 + 3 + inputs.len());
        assert_eq!(html.matches("<script type=\"application/octet-stream\"").count(), 3 + inputs.len());
        // The base64 blocks round-trip.
        let app = between(&html, "id=\"reconscope-app-wasm\">", "</script>")[0];
        assert_eq!(unbase64(app), fake().app_wasm);
        let worker = between(&html, "id=\"reconscope-worker-wasm\">", "</script>")[0];
        assert_eq!(unbase64(worker), fake().worker_wasm);
        let wjs = between(&html, "id=\"reconscope-worker-js\">", "</script>")[0];
        assert_eq!(unbase64(wjs), fake().worker_js.as_bytes());
        let names = between(&html, "data-name=\"", "\"");
        let datas = between(&html, "class=\"reconscope-input\" data-name=\"", "</script>");
        for (i, (name, bytes)) in inputs.iter().enumerate() {
            assert_eq!(unbase64(names[i]), name.as_bytes());
            assert_eq!(unbase64(datas[i].split_once("\">").unwrap().1), *bytes);
        }
    }

    #[test]
    fn refuses_what_it_cannot_inline() {
        let mut a = fake();
        a.snippets.clear();
        assert!(matches!(build(&a, &[]), Err(HtmlError::MissingSnippet(_))));
        let mut a = fake();
        a.style_css = "x{}</style><script>".into();
        assert!(build(&a, &[]).is_err());
        let mut a = fake();
        a.app_js.push_str("const s = '</script>';\n");
        assert!(build(&a, &[]).is_err());
    }
}
