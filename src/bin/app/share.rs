//! The view in the URL fragment (`#ev=…&from=…&to=…&sel=…`: the evidence
//! payload of a link, then the view), the clipboard and downloads. Nothing here talks to the network: the fragment is written
//! with `history.replaceState` (no reload) and downloads are `blob:` URLs.

use js_sys::{Array, Promise};
use reconscope::model::Timestamp;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Blob, BlobPropertyBag, HtmlAnchorElement, Url};

/// What the fragment holds.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Fragment {
    /// An evidence link's payload (`reconscope::evidence`), base64url.
    pub ev: Option<String>,
    /// Time window, absolute ns.
    pub window: Option<(i64, i64)>,
    /// `Some(true)`: rows are worker lanes.
    pub lanes: Option<bool>,
    pub collapsed: Vec<String>,
    /// The selected reconcile's `reconcileID`.
    pub sel: Option<String>,
    /// Filters: message regex, minimum level (0..=3), controller instance
    /// id, namespace/object substring.
    pub q: String,
    pub level: u8,
    pub ctl: String,
    pub obj: String,
}

fn enc(s: &str) -> String {
    String::from(js_sys::encode_uri_component(s))
}

fn dec(s: &str) -> String {
    js_sys::decode_uri_component(s).ok().map(String::from).unwrap_or_else(|| s.to_string())
}

fn parse_time(s: &str) -> Option<i64> {
    reconscope::time::parse_rfc3339(s.as_bytes(), false, 0).map(|p| p.ts.nanos)
}

/// Reads a fragment (with or without its `#`); accepts the CLI's
/// `#from=<RFC3339>&to=<RFC3339>`.
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
        let v = dec(v);
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
        parts.push(format!("from={}", enc(&Timestamp::new(a, 9).to_string())));
        parts.push(format!("to={}", enc(&Timestamp::new(b, 9).to_string())));
    }
    if f.lanes == Some(true) {
        parts.push("rows=lanes".into());
    }
    if !f.collapsed.is_empty() {
        parts.push(format!("collapsed={}", enc(&f.collapsed.join("\n"))));
    }
    if let Some(s) = &f.sel {
        parts.push(format!("sel={}", enc(s)));
    }
    for (k, v) in [("q", &f.q), ("ctl", &f.ctl), ("obj", &f.obj)] {
        if !v.is_empty() {
            parts.push(format!("{k}={}", enc(v)));
        }
    }
    if f.level > 0 {
        parts.push(format!("level={}", f.level));
    }
    format!("#{}", parts.join("&"))
}

/// The page's current fragment.
pub fn current() -> String {
    web_sys::window().and_then(|w| w.location().hash().ok()).unwrap_or_default()
}

/// Replaces the fragment without a reload or a history entry.
pub fn replace(hash: &str) {
    let Some(w) = web_sys::window() else { return };
    if current() == hash {
        return;
    }
    if let Ok(h) = w.history() {
        let _ = h.replace_state_with_url(&JsValue::NULL, "", Some(hash));
    }
}

/// The page's address.
pub fn href() -> String {
    web_sys::window().and_then(|w| w.location().href().ok()).unwrap_or_default()
}

/// The page's address without its fragment: what links start with.
pub fn base() -> String {
    let h = href();
    h.split('#').next().unwrap_or(&h).to_string()
}

/// Writes text to the clipboard; `Err` when the clipboard is unavailable or
/// refused.
pub async fn copy(text: &str) -> Result<(), String> {
    let w = web_sys::window().ok_or("no window")?;
    let clip = js_sys::Reflect::get(&w.navigator(), &JsValue::from_str("clipboard")).map_err(|_| "no clipboard")?;
    if clip.is_undefined() || clip.is_null() {
        return Err("no clipboard".into());
    }
    let clip: web_sys::Clipboard = clip.unchecked_into();
    let p: Promise = clip.write_text(text);
    JsFuture::from(p).await.map(|_| ()).map_err(|e| format!("{e:?}"))
}

/// A blob of `bytes` typed `mime`.
pub fn blob(bytes: &[u8], mime: &str) -> Result<Blob, String> {
    let arr = js_sys::Uint8Array::from(bytes);
    let parts = Array::of1(&arr);
    let opts = BlobPropertyBag::new();
    opts.set_type(mime);
    Blob::new_with_u8_array_sequence_and_options(&parts, &opts).map_err(|e| format!("{e:?}"))
}

/// Saves a blob as a download named `name`.
pub fn download(blob: &Blob, name: &str) -> Result<(), String> {
    let doc = web_sys::window().and_then(|w| w.document()).ok_or("no document")?;
    let url = Url::create_object_url_with_blob(blob).map_err(|e| format!("{e:?}"))?;
    let a: HtmlAnchorElement = doc.create_element("a").map_err(|e| format!("{e:?}"))?.unchecked_into();
    a.set_href(&url);
    a.set_download(name);
    a.set_hidden(true);
    if let Some(body) = doc.body() {
        let _ = body.append_child(&a);
    }
    a.click();
    a.remove();
    // Revoke once the download has started.
    let u = url.clone();
    let revoke = Closure::once_into_js(move || {
        let _ = Url::revoke_object_url(&u);
    });
    if let Some(w) = web_sys::window() {
        let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(revoke.unchecked_ref(), 10_000);
    }
    Ok(())
}

/// Draws an SVG onto an offscreen canvas at `scale`× and returns it as PNG.
pub async fn svg_to_png(svg: &str, scale: f64) -> Result<Blob, String> {
    let doc = web_sys::window().and_then(|w| w.document()).ok_or("no document")?;
    let svg_blob = blob(svg.as_bytes(), "image/svg+xml")?;
    let url = Url::create_object_url_with_blob(&svg_blob).map_err(|e| format!("{e:?}"))?;
    let img = web_sys::HtmlImageElement::new().map_err(|e| format!("{e:?}"))?;
    let loaded = Promise::new(&mut |resolve, reject| {
        img.set_onload(Some(&resolve));
        img.set_onerror(Some(&reject));
    });
    img.set_src(&url);
    let r = JsFuture::from(loaded).await;
    let _ = Url::revoke_object_url(&url);
    r.map_err(|_| "the SVG could not be drawn".to_string())?;
    let (w, h) = (img.natural_width().max(1) as f64, img.natural_height().max(1) as f64);
    let canvas: web_sys::HtmlCanvasElement = doc.create_element("canvas").map_err(|e| format!("{e:?}"))?.unchecked_into();
    canvas.set_width((w * scale) as u32);
    canvas.set_height((h * scale) as u32);
    let ctx: web_sys::CanvasRenderingContext2d = canvas.get_context("2d").ok().flatten().ok_or("no 2d context")?.unchecked_into();
    ctx.set_fill_style_str("#ffffff");
    ctx.fill_rect(0.0, 0.0, w * scale, h * scale);
    ctx.draw_image_with_html_image_element_and_dw_and_dh(&img, 0.0, 0.0, w * scale, h * scale).map_err(|e| format!("{e:?}"))?;
    let png = Promise::new(&mut |resolve, _reject| {
        let cb = Closure::once_into_js(move |b: JsValue| {
            let _ = resolve.call1(&JsValue::NULL, &b);
        });
        let _ = canvas.to_blob_with_type(cb.unchecked_ref(), "image/png");
    });
    let b = JsFuture::from(png).await.map_err(|e| format!("{e:?}"))?;
    b.dyn_into::<Blob>().map_err(|_| "the canvas gave no PNG".to_string())
}
