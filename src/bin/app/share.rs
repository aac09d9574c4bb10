//! The URL fragment (read and replaced; its format is
//! `reconscope::ui::fragment`), the clipboard and downloads. Nothing here
//! talks to the network: the fragment is written with
//! `history.replaceState` (no reload) and downloads are `blob:` URLs.

use js_sys::{Array, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Blob, BlobPropertyBag, HtmlAnchorElement, Url};

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
