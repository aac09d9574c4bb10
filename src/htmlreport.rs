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
//!
//! The app build also carries a manifest (`reconscope-manifest.json`, written
//! by `examples/app_manifest.rs` after every trunk build): the files the
//! report needs with their sizes and sha256, so that the CLI can fetch a
//! deployed app (`--app-url`) and check every byte of it. [`manifest`] writes
//! it, [`parse_manifest`] reads it, [`assets_from_manifest`] checks the files.

use serde::{Deserialize, Serialize};
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
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
        0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
        0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
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

/// The manifest's file name, next to `index.html` in the app build.
pub const MANIFEST_NAME: &str = "reconscope-manifest.json";
/// The manifest format this library writes and the newest it reads.
pub const MANIFEST_FORMAT: u64 = 1;
/// A manifest larger than this is refused unread.
pub const MAX_MANIFEST_BYTES: usize = 1 << 20;
/// A file the manifest lists may be at most this large.
pub const MAX_FILE_BYTES: u64 = 64 << 20;
/// All the files a manifest lists, together, at most.
pub const MAX_TOTAL_BYTES: u64 = 256 << 20;

/// `reconscope-manifest.json`: what the HTML report needs from an app build.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// [`MANIFEST_FORMAT`] when written; a reader refuses a newer one.
    pub format: u64,
    /// Always `reconscope`.
    pub app: String,
    /// The Cargo package version the app was built from.
    pub version: String,
    /// The first 16 hex digits of the sha256 of the file list (path, size,
    /// sha256 per line): equal builds have equal ids.
    pub build: String,
    /// Sorted by path.
    pub files: Vec<ManifestFile>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ManifestFile {
    /// Relative to the app's folder (or URL), `/`-separated.
    pub path: String,
    pub role: Role,
    pub size: u64,
    /// Lowercase hex.
    pub sha256: String,
}

/// What a file of the app build is to the report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    /// `index.html` (listed, so a fetch checks the whole app is there).
    Index,
    /// `style-<hash>.css`.
    Style,
    /// `app-<hash>.js`.
    AppJs,
    /// `app-<hash>_bg.wasm`.
    AppWasm,
    /// `worker.js`.
    WorkerJs,
    /// `worker_bg.wasm`.
    WorkerWasm,
    /// `snippets/<crate>-<hash>/<name>.js`.
    Snippet,
}

impl Role {
    /// Roles of which a manifest lists exactly one file.
    const SINGLE: [Role; 6] = [Role::Index, Role::Style, Role::AppJs, Role::AppWasm, Role::WorkerJs, Role::WorkerWasm];

    fn name(self) -> &'static str {
        match self {
            Role::Index => "index.html",
            Role::Style => "style-*.css",
            Role::AppJs => "app-*.js",
            Role::AppWasm => "app-*_bg.wasm",
            Role::WorkerJs => "worker.js",
            Role::WorkerWasm => "worker_bg.wasm",
            Role::Snippet => "snippets/*.js",
        }
    }
}

/// The role of a file of trunk's `dist/` (path relative to it, `/`-separated),
/// or `None` for files the report does not need (boot.js, the example, ...).
pub fn role_of(path: &str) -> Option<Role> {
    let top = !path.contains('/');
    match path {
        "index.html" => Some(Role::Index),
        "worker.js" => Some(Role::WorkerJs),
        "worker_bg.wasm" => Some(Role::WorkerWasm),
        p if p.starts_with("snippets/") && p.ends_with(".js") => Some(Role::Snippet),
        p if top && p.starts_with("style-") && p.ends_with(".css") => Some(Role::Style),
        p if top && p.starts_with("app-") && p.ends_with("_bg.wasm") => Some(Role::AppWasm),
        p if top && p.starts_with("app-") && p.ends_with(".js") => Some(Role::AppJs),
        _ => None,
    }
}

#[derive(Debug, Error, PartialEq, Eq)]
pub enum ManifestError {
    #[error("the manifest is {0} bytes, more than the {MAX_MANIFEST_BYTES} a manifest may be")]
    TooBig(usize),
    #[error("not a reconscope manifest ({0})")]
    Invalid(String),
    #[error("manifest format {0} is newer than this reconscope reads (format {MANIFEST_FORMAT}); install a newer reconscope")]
    NewerFormat(u64),
    #[error("the app build has no {0}")]
    Missing(&'static str),
    #[error("the app build has more than one {0}")]
    Duplicate(&'static str),
    #[error("{path}: {size} bytes, more than the {MAX_FILE_BYTES} an app file may be")]
    FileTooBig { path: String, size: u64 },
    #[error("{path}: {got} bytes, but the manifest says {expected}")]
    Size { path: String, expected: u64, got: u64 },
    #[error("{path}: its sha256 differs from the manifest's")]
    Hash { path: String },
    #[error("{0}: not UTF-8 text")]
    NotText(String),
}

/// The manifest of an app build. `files` are the build's files (path
/// relative to `dist/`, `/`-separated, and bytes); those the report does
/// not need ([`role_of`] is `None`) are left out.
pub fn manifest(version: &str, files: &[(String, Vec<u8>)]) -> Result<Manifest, ManifestError> {
    let mut listed: Vec<ManifestFile> = files
        .iter()
        .filter_map(|(path, bytes)| Some(ManifestFile { path: path.clone(), role: role_of(path)?, size: bytes.len() as u64, sha256: hex(&sha256(bytes)) }))
        .collect();
    listed.sort_by(|a, b| a.path.cmp(&b.path));
    let m = Manifest { format: MANIFEST_FORMAT, app: "reconscope".into(), version: version.into(), build: build_id(&listed), files: listed };
    check(&m)?;
    Ok(m)
}

impl Manifest {
    /// The manifest as `reconscope-manifest.json` holds it.
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("a manifest serializes");
        s.push('\n');
        s
    }
}

fn build_id(files: &[ManifestFile]) -> String {
    let list: String = files.iter().map(|f| format!("{} {} {}\n", f.path, f.size, f.sha256)).collect();
    hex(&sha256(list.as_bytes()))[..16].to_string()
}

/// Reads `reconscope-manifest.json`: its format must be one this library
/// reads, its paths plain relative paths, its sizes within bounds, and it
/// must list exactly one file of each role but snippets.
pub fn parse_manifest(bytes: &[u8]) -> Result<Manifest, ManifestError> {
    if bytes.len() > MAX_MANIFEST_BYTES {
        return Err(ManifestError::TooBig(bytes.len()));
    }
    let invalid = |e: serde_json::Error| ManifestError::Invalid(e.to_string());
    // The format first: a newer manifest may have fields or roles this one lacks.
    let v: serde_json::Value = serde_json::from_slice(bytes).map_err(invalid)?;
    let format = v.get("format").and_then(|f| f.as_u64()).ok_or_else(|| ManifestError::Invalid("no `format` number".into()))?;
    if format > MANIFEST_FORMAT {
        return Err(ManifestError::NewerFormat(format));
    }
    if format == 0 {
        return Err(ManifestError::Invalid("format 0".into()));
    }
    let m: Manifest = serde_json::from_value(v).map_err(invalid)?;
    if m.app != "reconscope" {
        return Err(ManifestError::Invalid(format!("`app` is `{}`", m.app)));
    }
    check(&m)?;
    Ok(m)
}

fn check(m: &Manifest) -> Result<(), ManifestError> {
    let mut total = 0u64;
    for (i, f) in m.files.iter().enumerate() {
        if !safe_path(&f.path) {
            return Err(ManifestError::Invalid(format!("the path `{}` is not a plain relative path", f.path.escape_debug())));
        }
        if role_of(&f.path) != Some(f.role) {
            return Err(ManifestError::Invalid(format!("`{}` cannot be the {}", f.path, f.role.name())));
        }
        if m.files[..i].iter().any(|g| g.path == f.path) {
            return Err(ManifestError::Invalid(format!("`{}` is listed twice", f.path)));
        }
        if f.sha256.len() != 64 || !f.sha256.bytes().all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(&c)) {
            return Err(ManifestError::Invalid(format!("the sha256 of `{}` is not 64 lowercase hex digits", f.path)));
        }
        if f.size > MAX_FILE_BYTES {
            return Err(ManifestError::FileTooBig { path: f.path.clone(), size: f.size });
        }
        total += f.size;
    }
    if total > MAX_TOTAL_BYTES {
        return Err(ManifestError::Invalid(format!("its files add up to {total} bytes, more than {MAX_TOTAL_BYTES}")));
    }
    for role in Role::SINGLE {
        match m.files.iter().filter(|f| f.role == role).count() {
            0 => return Err(ManifestError::Missing(role.name())),
            1 => {}
            _ => return Err(ManifestError::Duplicate(role.name())),
        }
    }
    Ok(())
}

/// `a/b-1.js`, never `/a`, `a//b`, `../a`, `a\b`, `a?b` or `%2e`: safe to
/// join to a folder or to a URL without escaping.
fn safe_path(p: &str) -> bool {
    !p.is_empty()
        && p.len() <= 200
        && p.bytes().all(|c| c.is_ascii_alphanumeric() || b"._-/".contains(&c))
        && p.split('/').all(|seg| !seg.is_empty() && !seg.starts_with('.'))
}

impl ManifestFile {
    /// Checks `bytes` against the size and sha256 listed.
    pub fn verify(&self, bytes: &[u8]) -> Result<(), ManifestError> {
        if bytes.len() as u64 != self.size {
            return Err(ManifestError::Size { path: self.path.clone(), expected: self.size, got: bytes.len() as u64 });
        }
        if hex(&sha256(bytes)) != self.sha256 {
            return Err(ManifestError::Hash { path: self.path.clone() });
        }
        Ok(())
    }
}

/// The app as the report inlines it, from the files a manifest lists:
/// `get` gives each file's bytes (the caller reads or fetches them, in the
/// manifest's order), and each is checked against its size and sha256
/// before the next is asked for.
pub fn assets_from_manifest<E: From<ManifestError>>(m: &Manifest, mut get: impl FnMut(&ManifestFile) -> Result<Vec<u8>, E>) -> Result<AppAssets, E> {
    let mut app = AppAssets::default();
    for f in &m.files {
        let bytes = get(f)?;
        f.verify(&bytes)?;
        let text = |b: Vec<u8>| String::from_utf8(b).map_err(|_| ManifestError::NotText(f.path.clone()));
        match f.role {
            Role::Index => {}
            Role::Style => app.style_css = text(bytes)?,
            Role::AppJs => app.app_js = text(bytes)?,
            Role::AppWasm => app.app_wasm = bytes,
            Role::WorkerJs => app.worker_js = text(bytes)?,
            Role::WorkerWasm => app.worker_wasm = bytes,
            Role::Snippet => app.snippets.push((f.path.clone(), text(bytes)?)),
        }
    }
    Ok(app)
}

/// Lowercase hex.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
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
            app_js:
                "import * as import1 from \"./snippets/x-1/inline0.js\"\nfunction __wbg_init(m) { return import1.f(m); }\nexport { __wbg_init as default };\n"
                    .into(),
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

    /// The files of a fake app build, as trunk's dist/ has them.
    fn fake_dist() -> Vec<(String, Vec<u8>)> {
        let a = fake();
        vec![
            ("index.html".into(), b"<!doctype html><title>reconscope</title>".to_vec()),
            ("boot.js".into(), b"// not needed by the report".to_vec()),
            ("example/cozyreport.zip".into(), b"PK".to_vec()),
            ("style-1.css".into(), a.style_css.into_bytes()),
            ("app-1.js".into(), a.app_js.into_bytes()),
            ("app-1_bg.wasm".into(), a.app_wasm),
            ("worker.js".into(), a.worker_js.into_bytes()),
            ("worker_bg.wasm".into(), a.worker_wasm),
            (a.snippets[0].0.clone(), a.snippets[0].1.clone().into_bytes()),
        ]
    }

    /// Gives the manifest's files from `dist`, as the CLI would.
    fn from_dist(m: &Manifest, dist: &[(String, Vec<u8>)]) -> Result<AppAssets, ManifestError> {
        assets_from_manifest(m, |f| Ok::<_, ManifestError>(dist.iter().find(|(p, _)| *p == f.path).map(|(_, b)| b.clone()).unwrap_or_default()))
    }

    #[test]
    fn manifest_round_trips_and_gives_the_app() {
        let dist = fake_dist();
        let m = manifest("0.1.0", &dist).unwrap();
        let paths: Vec<&str> = m.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, ["app-1.js", "app-1_bg.wasm", "index.html", "snippets/x-1/inline0.js", "style-1.css", "worker.js", "worker_bg.wasm"]);
        assert_eq!(m.files[1].role, Role::AppWasm);
        assert_eq!(m.files[1].size, fake().app_wasm.len() as u64);
        assert_eq!(m.files[5].sha256, hex(&sha256(fake().worker_js.as_bytes())));
        assert_eq!((m.format, m.app.as_str(), m.version.as_str(), m.build.len()), (1, "reconscope", "0.1.0", 16));
        let json = m.to_json();
        assert!(json.contains("\"role\": \"worker-wasm\""), "{json}");
        let back = parse_manifest(json.as_bytes()).unwrap();
        assert_eq!(back, m);
        // The same files give the same build id; another file another one.
        assert_eq!(manifest("0.1.0", &dist).unwrap().build, m.build);
        let mut other = dist.clone();
        other[3].1.push(b' ');
        assert_ne!(manifest("0.1.0", &other).unwrap().build, m.build);
        // The app it gives is the one the report inlines.
        let app = from_dist(&back, &dist).unwrap();
        let want = fake();
        assert_eq!((app.style_css, app.app_js, app.app_wasm, app.snippets), (want.style_css, want.app_js, want.app_wasm, want.snippets));
        assert_eq!((app.worker_js, app.worker_wasm), (want.worker_js, want.worker_wasm));
    }

    #[test]
    fn a_file_that_differs_from_the_manifest_is_refused() {
        let dist = fake_dist();
        let m = manifest("0.1.0", &dist).unwrap();
        // One byte changed, same size: the hash.
        let mut tampered = dist.clone();
        tampered[7].1[0] ^= 1;
        assert_eq!(from_dist(&m, &tampered).unwrap_err(), ManifestError::Hash { path: "worker_bg.wasm".into() });
        // One byte more: the size.
        let mut longer = dist.clone();
        longer[5].1.push(0);
        let n = dist[5].1.len() as u64;
        assert_eq!(from_dist(&m, &longer).unwrap_err(), ManifestError::Size { path: "app-1_bg.wasm".into(), expected: n, got: n + 1 });
        // A file the manifest lists but the build lacks.
        let missing: Vec<_> = dist.iter().filter(|(p, _)| p != "style-1.css").cloned().collect();
        assert!(matches!(from_dist(&m, &missing).unwrap_err(), ManifestError::Size { path, got: 0, .. } if path == "style-1.css"));
        // A text file that is not UTF-8 (listed with its real hash).
        let mut binary = dist.clone();
        binary[6].1 = vec![0xff, 0xfe];
        let mb = manifest("0.1.0", &binary).unwrap();
        assert_eq!(from_dist(&mb, &binary).unwrap_err(), ManifestError::NotText("worker.js".into()));
        // The caller's own error stops the reading at once.
        let mut asked = 0;
        let err = assets_from_manifest(&m, |_| {
            asked += 1;
            Err::<Vec<u8>, _>(ManifestError::Missing("network"))
        });
        assert!(err.is_err() && asked == 1);
    }

    #[test]
    fn a_build_without_one_of_the_files_has_no_manifest() {
        let dist = fake_dist();
        let without: Vec<_> = dist.iter().filter(|(p, _)| p != "worker_bg.wasm").cloned().collect();
        assert_eq!(manifest("0.1.0", &without).unwrap_err(), ManifestError::Missing("worker_bg.wasm"));
        let mut two = dist.clone();
        two.push(("app-2.js".into(), b"x".to_vec()));
        assert_eq!(manifest("0.1.0", &two).unwrap_err(), ManifestError::Duplicate("app-*.js"));
        // Snippets are optional.
        let no_snippets: Vec<_> = dist.iter().filter(|(p, _)| !p.starts_with("snippets/")).cloned().collect();
        assert!(manifest("0.1.0", &no_snippets).is_ok());
    }

    #[test]
    fn manifests_that_cannot_be_trusted_are_refused() {
        let good = manifest("0.1.0", &fake_dist()).unwrap();
        let edit = |f: &dyn Fn(&mut serde_json::Value)| {
            let mut v = serde_json::to_value(&good).unwrap();
            f(&mut v);
            parse_manifest(v.to_string().as_bytes())
        };
        assert_eq!(edit(&|v| v["format"] = 2.into()).unwrap_err(), ManifestError::NewerFormat(2));
        // A newer format is reported as such even with fields or roles this reader lacks.
        let newer = edit(&|v| {
            v["format"] = 3.into();
            v["files"][0]["role"] = "service-worker".into();
            v["signature"] = "x".into();
        });
        assert_eq!(newer.unwrap_err(), ManifestError::NewerFormat(3));
        assert!(matches!(edit(&|v| v["format"] = 0.into()), Err(ManifestError::Invalid(_))));
        assert!(matches!(edit(&|v| v["format"] = "1".into()), Err(ManifestError::Invalid(_))));
        assert!(matches!(edit(&|v| v["app"] = "other".into()), Err(ManifestError::Invalid(_))));
        assert!(matches!(edit(&|v| v["files"][0]["role"] = "snippet".into()), Err(ManifestError::Invalid(_))));
        assert!(matches!(edit(&|v| v["files"][1]["sha256"] = "abc".into()), Err(ManifestError::Invalid(_))));
        let upper = good.files[1].sha256.to_uppercase();
        assert!(matches!(edit(&|v| v["files"][1]["sha256"] = upper.clone().into()), Err(ManifestError::Invalid(_))));
        assert!(matches!(edit(&|v| v["files"][1]["size"] = (-1).into()), Err(ManifestError::Invalid(_))));
        assert_eq!(
            edit(&|v| v["files"][1]["size"] = (MAX_FILE_BYTES + 1).into()).unwrap_err(),
            ManifestError::FileTooBig { path: "app-1_bg.wasm".into(), size: MAX_FILE_BYTES + 1 }
        );
        assert_eq!(
            edit(&|v| {
                v["files"].as_array_mut().unwrap().remove(5);
            })
            .unwrap_err(),
            ManifestError::Missing("worker.js")
        );
        let twice = edit(&|v| {
            let f = v["files"][3].clone();
            v["files"].as_array_mut().unwrap().push(f);
        });
        assert!(matches!(twice, Err(ManifestError::Invalid(_))));
        // Paths that would leave the app's folder or need escaping.
        for bad in [
            "../snippets/a.js",
            "snippets/../../x.js",
            "/snippets/a.js",
            "snippets//a.js",
            "snippets/a b.js",
            "snippets\\a.js",
            "snippets/a.js?x",
            "snippets/%2e%2e/a.js",
            "snippets/.a.js",
        ] {
            assert!(matches!(edit(&|v| v["files"][3]["path"] = bad.into()), Err(ManifestError::Invalid(_))), "{bad}");
        }
        // Garbage.
        for junk in [&b""[..], b"{", b"null", b"[]", b"<!doctype html><h1>404</h1>", b"{\"format\": 1}", &[0xff, 0xfe, 0]] {
            assert!(matches!(parse_manifest(junk), Err(ManifestError::Invalid(_))), "{}", String::from_utf8_lossy(junk));
        }
        let huge = vec![b' '; MAX_MANIFEST_BYTES + 1];
        assert_eq!(parse_manifest(&huge).unwrap_err(), ManifestError::TooBig(MAX_MANIFEST_BYTES + 1));
        // The messages say what is wrong and what to do.
        assert_eq!(ManifestError::NewerFormat(2).to_string(), "manifest format 2 is newer than this reconscope reads (format 1); install a newer reconscope");
        assert_eq!(ManifestError::Hash { path: "worker_bg.wasm".into() }.to_string(), "worker_bg.wasm: its sha256 differs from the manifest's");
    }

    #[test]
    fn roles_of_dist_files() {
        assert_eq!(role_of("app-abc123.js"), Some(Role::AppJs));
        assert_eq!(role_of("app-abc123_bg.wasm"), Some(Role::AppWasm));
        assert_eq!(role_of("style-abc.css"), Some(Role::Style));
        assert_eq!(role_of("snippets/reconscope-abc/inline0.js"), Some(Role::Snippet));
        for none in ["boot.js", "worker_boot.js", "favicon-1.svg", "example/cozyreport.zip", "x/app-1.js", MANIFEST_NAME] {
            assert_eq!(role_of(none), None, "{none}");
        }
    }
}
