//! reconscope's Web Worker: reads, parses and analyzes the inputs off the
//! page's thread, then keeps the parsed files to answer the inspector.
//!
//! Built by trunk as a classic worker (`data-type="worker"` with
//! `data-loader-shim` in `www/index.html`): `worker_loader.js` imports the
//! wasm-bindgen glue and starts this module. The protocol is
//! `reconscope::web` (the session logic lives there, tested natively):
//! every message is `{msg: Uint8Array}` (encoded JSON, transferred), and a
//! [`ToWorker::File`] message also carries `data`, the file's bytes as a
//! transferred `ArrayBuffer`.

#[cfg(target_arch = "wasm32")]
mod imp {
    use std::cell::RefCell;

    use js_sys::{Array, ArrayBuffer, Object, Reflect, Uint8Array};
    use reconscope::web::{decode, encode, FromWorker, Matched, Phase, Session, ToWorker};
    use wasm_bindgen::prelude::*;
    use wasm_bindgen::JsCast;
    use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

    thread_local! {
        static SESSION: RefCell<Option<Session>> = const { RefCell::new(None) };
    }

    fn scope() -> DedicatedWorkerGlobalScope {
        js_sys::global().unchecked_into()
    }

    /// Posts a message, its encoded bytes transferred (not copied).
    fn post(msg: &FromWorker) {
        let bytes = Uint8Array::from(encode(msg).as_slice());
        let obj = Object::new();
        let _ = Reflect::set(&obj, &JsValue::from_str("msg"), &bytes);
        let transfer = Array::of1(&bytes.buffer());
        if let Err(e) = scope().post_message_with_transfer(&obj, &transfer) {
            web_sys::console::warn_2(&JsValue::from_str("reconscope worker: postMessage failed"), &e);
        }
    }

    fn handle(data: JsValue) {
        let msg = Reflect::get(&data, &JsValue::from_str("msg"))
            .ok()
            .and_then(|m| m.dyn_into::<Uint8Array>().ok())
            .map(|m| decode::<ToWorker>(&m.to_vec()));
        let msg = match msg {
            Some(Ok(m)) => m,
            Some(Err(e)) => return post(&FromWorker::Failed { message: e }),
            None => return post(&FromWorker::Failed { message: "message without `msg`".into() }),
        };
        match msg {
            ToWorker::Begin { files, total_bytes } => {
                SESSION.with(|s| *s.borrow_mut() = Some(Session::new(files, total_bytes)));
            }
            ToWorker::File { name } => {
                let bytes = Reflect::get(&data, &JsValue::from_str("data"))
                    .ok()
                    .and_then(|d| d.dyn_into::<ArrayBuffer>().ok())
                    .map(|b| Uint8Array::new(&b).to_vec())
                    .unwrap_or_default();
                let progress = SESSION.with(|s| {
                    let mut s = s.borrow_mut();
                    let s = s.get_or_insert_with(Session::default);
                    s.starting(&name);
                    s.progress(Phase::Reading)
                });
                post(&FromWorker::Progress(progress));
                let progress = SESSION.with(|s| {
                    let mut s = s.borrow_mut();
                    let s = s.get_or_insert_with(Session::default);
                    s.add(&name, bytes);
                    s.progress(Phase::Reading)
                });
                post(&FromWorker::Progress(progress));
            }
            ToWorker::Finish => {
                let progress =
                    SESSION.with(|s| s.borrow().as_ref().map(|s| s.progress(Phase::Analyzing)));
                if let Some(p) = progress {
                    post(&FromWorker::Progress(p));
                }
                let result = SESSION.with(|s| s.borrow_mut().get_or_insert_with(Session::default).finish());
                post(&FromWorker::Loaded(Box::new(result)));
            }
            ToWorker::Inspect { reconcile } => {
                let lines = SESSION.with(|s| s.borrow().as_ref().and_then(|s| s.lines(reconcile)));
                post(&match lines {
                    Some(l) => FromWorker::Lines(l),
                    None => FromWorker::Failed { message: format!("no reconcile #{reconcile} is loaded") },
                });
            }
            ToWorker::Filter { seq, filter } => {
                let r = SESSION.with(|s| s.borrow().as_ref().map(|s| s.matching(&filter)));
                post(&FromWorker::Matched(match r {
                    Some(Ok(reconciles)) => Matched { seq, reconciles, error: None },
                    Some(Err(e)) => Matched { seq, reconciles: Vec::new(), error: Some(e) },
                    None => Matched { seq, reconciles: Vec::new(), error: Some("nothing is loaded".into()) },
                }));
            }
        }
    }

    pub fn start() {
        let onmessage = Closure::<dyn FnMut(MessageEvent)>::new(|ev: MessageEvent| handle(ev.data()));
        scope().set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
        // The handler lives as long as the worker.
        onmessage.forget();
        post(&FromWorker::Ready);
    }
}

#[cfg(target_arch = "wasm32")]
fn main() {
    imp::start();
}

/// The worker only exists in the browser.
#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("`worker` is the browser app's Web Worker: build it with `trunk build` (see Makefile)");
    std::process::exit(2);
}
