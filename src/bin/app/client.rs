//! The page's side of the worker protocol (`reconscope::web`): starts
//! `worker_boot.js` as a classic Web Worker, queues messages until the
//! worker says it is ready, and hands its answers to a callback.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use js_sys::{Array, Object, Reflect, Uint8Array};
use reconscope::web::{decode, encode, FromWorker, ToWorker};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Blob, ErrorEvent, Event, MessageEvent, Worker};
use yew::Callback;

/// The worker script, relative to the page, so that the app works when it
/// is hosted under any sub-path (`/reconscope/`), not only at `/`.
const WORKER_URL: &str = "./worker_boot.js";

pub struct WorkerClient {
    worker: Worker,
    ready: Rc<Cell<bool>>,
    queue: Rc<RefCell<Vec<(Object, Array)>>>,
    _onmessage: Closure<dyn FnMut(MessageEvent)>,
    _onerror: Closure<dyn FnMut(Event)>,
}

impl WorkerClient {
    /// Starts a worker. `on_message` gets every answer; `on_error` gets a
    /// failure of the worker itself (it could not load, or it crashed).
    pub fn spawn(on_message: Callback<FromWorker>, on_error: Callback<String>) -> Result<WorkerClient, String> {
        // A self-contained HTML report (`reconscope analyze --html`) starts
        // the worker from a Blob URL it puts in `RECONSCOPE_WORKER_URL`.
        let url = Reflect::get(&js_sys::global(), &JsValue::from_str("RECONSCOPE_WORKER_URL"))
            .ok()
            .and_then(|v| v.as_string())
            .unwrap_or_else(|| WORKER_URL.to_string());
        let worker = Worker::new(&url).map_err(|e| format!("cannot start the worker: {e:?}"))?;
        let ready = Rc::new(Cell::new(false));
        let queue: Rc<RefCell<Vec<(Object, Array)>>> = Rc::default();
        let onmessage = {
            let (worker, ready, queue) = (worker.clone(), ready.clone(), queue.clone());
            let on_error = on_error.clone();
            Closure::<dyn FnMut(MessageEvent)>::new(move |ev: MessageEvent| {
                let bytes = Reflect::get(&ev.data(), &JsValue::from_str("msg"))
                    .ok()
                    .and_then(|m| m.dyn_into::<Uint8Array>().ok());
                let Some(bytes) = bytes else {
                    on_error.emit("the worker sent a message without `msg`".into());
                    return;
                };
                let t0 = js_sys::Date::now();
                let mut decoded = decode::<FromWorker>(&bytes.to_vec());
                // A finished load's reconciles come beside the message.
                if let Ok(FromWorker::Loaded(r)) = &mut decoded {
                    let data = Reflect::get(&ev.data(), &JsValue::from_str("data"))
                        .ok()
                        .and_then(|d| d.dyn_into::<Uint8Array>().ok())
                        .map(|d| d.to_vec())
                        .unwrap_or_default();
                    if let Err(e) = r.attach(&data) {
                        decoded = Err(e.to_string());
                    }
                }
                let ms = js_sys::Date::now() - t0;
                if ms > 20.0 {
                    web_sys::console::debug_1(&JsValue::from_str(&format!("reconscope app: decode {ms:.0} ms")));
                }
                match decoded {
                    Ok(FromWorker::Ready) => {
                        ready.set(true);
                        for (obj, transfer) in queue.borrow_mut().drain(..) {
                            let _ = worker.post_message_with_transfer(&obj, &transfer);
                        }
                    }
                    Ok(msg) => on_message.emit(msg),
                    Err(e) => on_error.emit(e),
                }
            })
        };
        let onerror = Closure::<dyn FnMut(Event)>::new(move |ev: Event| {
            ev.prevent_default();
            let detail = ev.dyn_ref::<ErrorEvent>().map(|e| e.message()).unwrap_or_default();
            on_error.emit(if detail.is_empty() {
                "the worker could not be started or stopped unexpectedly".to_string()
            } else {
                format!("the worker failed: {detail}")
            });
        });
        worker.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
        worker.set_onerror(Some(onerror.as_ref().unchecked_ref()));
        Ok(WorkerClient { worker, ready, queue, _onmessage: onmessage, _onerror: onerror })
    }

    /// Sends a message.
    pub fn send(&self, msg: &ToWorker) {
        self.post(msg, None);
    }

    /// Sends a message with a file beside it. The `Blob` is only a handle
    /// (structured clone shares its data): the worker reads it in slices
    /// straight into its memory, so a 1 GiB file never sits in this
    /// thread's memory and the worker can say how far into it it is.
    pub fn send_file(&self, msg: &ToWorker, file: &Blob) {
        self.post(msg, Some(file));
    }

    fn post(&self, msg: &ToWorker, file: Option<&Blob>) {
        let bytes = Uint8Array::from(encode(msg).as_slice());
        let obj = Object::new();
        let _ = Reflect::set(&obj, &JsValue::from_str("msg"), &bytes);
        let transfer = Array::of1(&bytes.buffer());
        if let Some(file) = file {
            let _ = Reflect::set(&obj, &JsValue::from_str("data"), file);
        }
        if self.ready.get() {
            let _ = self.worker.post_message_with_transfer(&obj, &transfer);
        } else {
            self.queue.borrow_mut().push((obj, transfer));
        }
    }
}

impl Drop for WorkerClient {
    /// Stops the worker at once (Cancel, or a new load), freeing its memory.
    fn drop(&mut self) {
        self.worker.set_onmessage(None);
        self.worker.set_onerror(None);
        self.worker.terminate();
    }
}
