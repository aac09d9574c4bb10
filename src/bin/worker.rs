//! reconscope's Web Worker: reads, parses and analyzes the inputs off the
//! page's thread, then keeps the parsed files to answer the inspector.
//!
//! Built by trunk as a classic worker (`data-type="worker"` with
//! `data-loader-shim` in `www/index.html`): `worker_loader.js` imports the
//! wasm-bindgen glue and starts this module. The protocol is
//! `reconscope::web` (the session logic lives there, tested natively):
//! every message is `{msg: Uint8Array}` (encoded JSON, transferred). A
//! [`ToWorker::File`] message also carries `data`, the file as a `Blob`
//! handle, which this worker reads in slices (the next slice is read while
//! this one is parsed; progress between slices); the finished load's reconciles go back as
//! `data` beside [`FromWorker::Loaded`] (see `reconscope::codec`).

#[cfg(target_arch = "wasm32")]
mod imp {
    use std::cell::{Cell, RefCell};
    use std::collections::VecDeque;

    use js_sys::{Array, Object, Reflect, Uint8Array};
    use reconscope::parse::StreamParser;
    use reconscope::web::{decode, encode, FromWorker, Matched, Phase, Session, ToWorker};
    use wasm_bindgen_futures::{spawn_local, JsFuture};
    use wasm_bindgen::prelude::*;
    use wasm_bindgen::JsCast;
    use web_sys::{Blob, DedicatedWorkerGlobalScope, MessageEvent};

    thread_local! {
        static SESSION: RefCell<Option<Session>> = const { RefCell::new(None) };
    }

    fn scope() -> DedicatedWorkerGlobalScope {
        js_sys::global().unchecked_into()
    }

    /// Posts a message, its encoded bytes transferred (not copied).
    fn post(msg: &FromWorker) {
        post_with(msg, None);
    }

    /// Posts a message with `data` beside it (both transferred).
    fn post_with(msg: &FromWorker, data: Option<&[u8]>) {
        let bytes = Uint8Array::from(encode(msg).as_slice());
        let obj = Object::new();
        let _ = Reflect::set(&obj, &JsValue::from_str("msg"), &bytes);
        let transfer = Array::of1(&bytes.buffer());
        if let Some(data) = data {
            let data = Uint8Array::from(data);
            let _ = Reflect::set(&obj, &JsValue::from_str("data"), &data);
            transfer.push(&data.buffer());
        }
        if let Err(e) = scope().post_message_with_transfer(&obj, &transfer) {
            web_sys::console::warn_2(&JsValue::from_str("reconscope worker: postMessage failed"), &e);
        }
    }

    /// Logs how long a step took (`reconscope worker: parse 123 ms`), for
    /// scripts/browser-bench.sh, which prints these lines.
    fn timed<T>(what: &str, f: impl FnOnce() -> T) -> T {
        let t0 = js_sys::Date::now();
        let r = f();
        debug(&format!("{what} {:.0} ms", js_sys::Date::now() - t0));
        r
    }

    fn debug(text: &str) {
        web_sys::console::debug_1(&JsValue::from_str(&format!("reconscope worker: {text}")));
    }

    fn with_session<T>(f: impl FnOnce(&mut Session) -> T) -> T {
        SESSION.with(|s| f(s.borrow_mut().get_or_insert_with(Session::default)))
    }

    /// Slices of this size are read at a time (progress between them).
    const READ_SLICE_BYTES: f64 = 16.0 * 1024.0 * 1024.0;

    /// Starts reading `blob[at..at + READ_SLICE_BYTES]` (the browser reads
    /// it on its own threads while this one parses the slice before).
    fn start_slice(blob: &Blob, at: f64) -> Result<JsFuture, String> {
        let end = (at + READ_SLICE_BYTES).min(blob.size());
        let slice = blob.slice_with_f64_and_f64(at, end).map_err(js_error)?;
        Ok(JsFuture::from(slice.array_buffer()))
    }

    fn js_error(e: JsValue) -> String {
        e.dyn_ref::<js_sys::Error>().map(|e| String::from(e.message())).unwrap_or_else(|| format!("{e:?}"))
    }

    /// Reads one input into wasm memory a slice at a time, and parses it as
    /// it arrives when it is a plain log file (an archive is opened whole at
    /// the end). Posts progress after each slice.
    async fn read_input(name: &str, blob: &Blob) -> Result<(), String> {
        let size = blob.size();
        let mut stream: Option<StreamParser> = None;
        let mut whole: Vec<u8> = Vec::new();
        let mut at = 0.0;
        let mut next = if size > 0.0 { Some(start_slice(blob, 0.0)?) } else { None };
        let (mut wait_ms, mut copy_ms, mut push_ms) = (0.0, 0.0, 0.0);
        while let Some(pending) = next.take() {
            let t0 = js_sys::Date::now();
            let buf = Uint8Array::new(&pending.await.map_err(js_error)?);
            let t1 = js_sys::Date::now();
            wait_ms += t1 - t0;
            let n = buf.length() as f64;
            at += n;
            if n > 0.0 && at < size {
                next = Some(start_slice(blob, at)?);
            }
            let chunk = buf.to_vec();
            let t2 = js_sys::Date::now();
            copy_ms += t2 - t1;
            if stream.is_none() && whole.is_empty() {
                if reconscope::pipeline::streamable(name, &chunk) {
                    stream = Some(StreamParser::new(name, size as usize, &Default::default()));
                } else {
                    whole.try_reserve_exact(size as usize).map_err(|_| "the file does not fit in the tab's memory".to_string())?;
                }
            }
            match &mut stream {
                Some(p) => p.push(&chunk),
                None => whole.extend_from_slice(&chunk),
            }
            push_ms += js_sys::Date::now() - t2;
            post(&FromWorker::Progress(with_session(|s| s.reading(name, at as u64))));
        }
        debug(&format!("waiting for slices {wait_ms:.0} ms, copying {copy_ms:.0} ms, parsing while reading {push_ms:.0} ms"));
        post(&FromWorker::Progress(with_session(|s| {
            let mut p = s.reading(name, size as u64);
            p.phase = Phase::Parsing;
            p
        })));
        match stream {
            Some(p) => {
                let file = timed("finish parsing", || p.finish());
                with_session(|s| s.add_parsed(name, size as u64, file));
            }
            None => timed("open and parse", || with_session(|s| s.add(name, whole))),
        }
        Ok(())
    }

    thread_local! {
        /// Messages not handled yet: a file is read asynchronously, and the
        /// messages after it wait their turn.
        static QUEUE: RefCell<VecDeque<JsValue>> = const { RefCell::new(VecDeque::new()) };
        static BUSY: Cell<bool> = const { Cell::new(false) };
    }

    fn enqueue(data: JsValue) {
        QUEUE.with(|q| q.borrow_mut().push_back(data));
        if !BUSY.with(|b| b.replace(true)) {
            spawn_local(async {
                while let Some(d) = QUEUE.with(|q| q.borrow_mut().pop_front()) {
                    handle(d).await;
                }
                BUSY.with(|b| b.set(false));
            });
        }
    }

    async fn handle(data: JsValue) {
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
                let blob = Reflect::get(&data, &JsValue::from_str("data")).ok().and_then(|d| d.dyn_into::<Blob>().ok());
                let size = blob.as_ref().map_or(0, |b| b.size() as u64);
                post(&FromWorker::Progress(with_session(|s| s.reading(&name, 0))));
                let t0 = js_sys::Date::now();
                let read = match &blob {
                    Some(b) => read_input(&name, b).await,
                    None => Err("no file arrived with the message".to_string()),
                };
                debug(&format!("read and parse {} {:.0} ms", name, js_sys::Date::now() - t0));
                if let Err(e) = read {
                    with_session(|s| s.unreadable(&name, size, &e));
                }
                post(&FromWorker::Progress(with_session(|s| s.progress(Phase::Reading))));
            }
            ToWorker::Finish => {
                let progress =
                    SESSION.with(|s| s.borrow().as_ref().map(|s| s.progress(Phase::Analyzing)));
                if let Some(p) = progress {
                    post(&FromWorker::Progress(p));
                }
                let result = timed("analyze", || {
                    SESSION.with(|s| s.borrow_mut().get_or_insert_with(Session::default).finish())
                });
                timed("encode and post", || {
                    let mut result = result;
                    result.detach();
                    let beside = std::mem::take(&mut result.reconciles);
                    post_with(&FromWorker::Loaded(Box::new(result)), Some(&beside));
                });
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
        let onmessage = Closure::<dyn FnMut(MessageEvent)>::new(|ev: MessageEvent| enqueue(ev.data()));
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
