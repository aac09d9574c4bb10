//! Where the inputs come from: the file input, the folder picker, a drop
//! (files and whole folders), or the built-in example artifact.

use js_sys::{Array, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Blob, DataTransfer, File, FileList, Response};

/// One input: the name to show (a folder's files keep their relative path)
/// and its contents.
pub struct Input {
    pub name: String,
    pub blob: Blob,
}

/// The path a file was chosen with: `webkitRelativePath` when it came from
/// a folder, else its name.
fn file_path(file: &File) -> String {
    Reflect::get(file, &JsValue::from_str("webkitRelativePath")).ok().and_then(|v| v.as_string()).filter(|p| !p.is_empty()).unwrap_or_else(|| file.name())
}

/// The files of a `FileList`, in order.
pub fn from_file_list(list: &FileList) -> Vec<Input> {
    (0..list.length()).filter_map(|i| list.get(i)).map(|f| Input { name: file_path(&f), blob: f.into() }).collect()
}

// Walks dropped folders with the File and Directory Entries API. Entries
// must be taken from the DataTransfer during the drop event itself, so the
// synchronous part of this function does that before the first await. This
// is a wasm-bindgen snippet, served as its own file: no inline script.
#[wasm_bindgen(inline_js = r#"
export function collect_dropped(dt) {
  const items = Array.from(dt.items || []).filter((i) => i.kind === 'file');
  const entries = items.map((i) => (i.webkitGetAsEntry ? i.webkitGetAsEntry() : null));
  if (entries.length === 0 || entries.some((e) => !e)) {
    const files = Array.from(dt.files || []).map((f) => [f.name, f]);
    return Promise.resolve(files);
  }
  const out = [];
  const walk = async (entry, prefix) => {
    if (entry.isFile) {
      const file = await new Promise((ok, fail) => entry.file(ok, fail));
      out.push([prefix + entry.name, file]);
    } else if (entry.isDirectory) {
      const reader = entry.createReader();
      const all = [];
      for (;;) {
        const batch = await new Promise((ok, fail) => reader.readEntries(ok, fail));
        if (batch.length === 0) break;
        all.push(...batch);
      }
      all.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const e of all) await walk(e, prefix + entry.name + '/');
    }
  };
  return (async () => {
    for (const e of entries) await walk(e, '');
    return out;
  })();
}
"#)]
extern "C" {
    fn collect_dropped(dt: &DataTransfer) -> js_sys::Promise;
}

/// Starts collecting what was dropped (call it inside the drop handler);
/// the future gives every file, folders walked recursively.
pub fn dropped(dt: &DataTransfer) -> impl std::future::Future<Output = Result<Vec<Input>, String>> {
    let promise = collect_dropped(dt);
    async move {
        let list = JsFuture::from(promise).await.map_err(|e| format!("cannot read the dropped items: {e:?}"))?;
        let list: Array = list.unchecked_into();
        Ok(list
            .iter()
            .filter_map(|pair| {
                let pair: Array = pair.unchecked_into();
                let name = pair.get(0).as_string()?;
                let blob = pair.get(1).dyn_into::<Blob>().ok()?;
                Some(Input { name, blob })
            })
            .collect())
    }
}

/// The built-in example artifact (`www/example/cozyreport.zip`), fetched
/// from this page's own origin with a relative URL.
pub const EXAMPLE_URL: &str = "example/cozyreport.zip";

pub async fn fetch_example() -> Result<Input, String> {
    let window = web_sys::window().ok_or("no window")?;
    let resp = JsFuture::from(window.fetch_with_str(EXAMPLE_URL)).await.map_err(|e| format!("cannot fetch the example: {e:?}"))?;
    let resp: Response = resp.unchecked_into();
    if !resp.ok() {
        return Err(format!("cannot fetch the example: HTTP {}", resp.status()));
    }
    let blob = resp.blob().map_err(|e| format!("cannot read the example: {e:?}"))?;
    let blob: Blob = JsFuture::from(blob).await.map_err(|e| format!("cannot read the example: {e:?}"))?.unchecked_into();
    Ok(Input { name: "cozyreport.zip".into(), blob })
}
