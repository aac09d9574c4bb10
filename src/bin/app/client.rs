//! The page's side of the worker protocol (`reconscope::web`): starts
//! `worker_boot.js` as a classic Web Worker, queues messages until the
//! worker says it is ready, reads the input files in slices and sends them
//! (a few ahead of the worker at most), and hands its answers to a
//! callback — a finished load only once its reconciles and timeline are
//! decoded, which is done in short tasks.

use std::collections::VecDeque;
use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};

use js_sys::{Array, ArrayBuffer, Object, Reflect, Uint8Array};
use reconscope::codec::{JsonChunkDecoder, ReconcileDecoder, TimelineDecoder};
use reconscope::web::{decode, encode, Beside, FromWorker, LoadResult, ToWorker};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::{spawn_local, JsFuture};
use web_sys::{Blob, ErrorEvent, Event, MessageEvent, Worker};
use yew::Callback;

/// The page reads the inputs in slices of this size.
const SLICE_BYTES: f64 = 8.0 * 1024.0 * 1024.0;
/// At most this many slices are sent and not yet taken in by the worker.
const SLICES_AHEAD: f64 = 4.0;
/// Slices being read at once.
const READS_IN_FLIGHT: usize = 2;
/// A task of the page spends at most about this long decoding before it
/// gives the thread back (the browser draws and handles input between).
const TASK_BUDGET_MS: f64 = 30.0;

/// The worker script, relative to the page, so that the app works when it
/// is hosted under any sub-path (`/reconscope/`), not only at `/`.
const WORKER_URL: &str = "./worker_boot.js";

pub struct WorkerClient {
    worker: Worker,
    ready: Rc<Cell<bool>>,
    queue: Rc<RefCell<Vec<(Object, Array)>>>,
    /// Input bytes the worker has taken in (from its progress messages).
    acked: Rc<Cell<u64>>,
    /// Resolvers of promises waiting for `acked` to move.
    ack_waiters: Rc<RefCell<Vec<js_sys::Function>>>,
    /// False once dropped: the read loop and a finished load's decoding stop.
    alive: Rc<Cell<bool>>,
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
        let acked = Rc::new(Cell::new(0u64));
        let ack_waiters: Rc<RefCell<Vec<js_sys::Function>>> = Rc::default();
        let alive = Rc::new(Cell::new(true));
        let onmessage = {
            let (worker, ready, queue) = (worker.clone(), ready.clone(), queue.clone());
            let (acked, ack_waiters, alive) = (acked.clone(), ack_waiters.clone(), alive.clone());
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
                let decoded = decode::<FromWorker>(&bytes.to_vec());
                let ms = js_sys::Date::now() - t0;
                if ms > 20.0 {
                    debug(&format!("decode message {ms:.0} ms"));
                }
                match decoded {
                    Ok(FromWorker::Ready) => {
                        ready.set(true);
                        for (obj, transfer) in queue.borrow_mut().drain(..) {
                            let _ = worker.post_message_with_transfer(&obj, &transfer);
                        }
                    }
                    Ok(FromWorker::Progress(p)) => {
                        acked.set(acked.get().max(p.done_bytes));
                        wake(&ack_waiters);
                        on_message.emit(FromWorker::Progress(p));
                    }
                    // A finished load's reconciles and timeline come beside
                    // the message; they are decoded in short tasks.
                    Ok(FromWorker::Loaded(r)) => {
                        // Only handles here: the bytes are copied in by
                        // `attach`, in pieces.
                        let parts: Vec<(&'static str, Uint8Array)> = Beside::default()
                            .parts()
                            .iter()
                            .filter_map(|(name, _)| {
                                let part = Reflect::get(&ev.data(), &JsValue::from_str(name)).ok()?;
                                Some((*name, part.dyn_into::<Uint8Array>().ok()?))
                            })
                            .collect();
                        let (on_message, on_error, alive) = (on_message.clone(), on_error.clone(), alive.clone());
                        spawn_local(async move {
                            match attach(*r, parts, &alive).await {
                                Some(Ok(r)) => on_message.emit(FromWorker::Loaded(Box::new(r))),
                                Some(Err(e)) => on_error.emit(e),
                                None => {} // stopped: the load was cancelled
                            }
                        });
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
        Ok(WorkerClient {
            worker,
            ready,
            queue,
            acked,
            ack_waiters,
            alive,
            _onmessage: onmessage,
            _onerror: onerror,
        })
    }

    /// Reads the inputs in slices on this (mostly idle) thread and sends
    /// them to the worker as [`ToWorker::FileSlice`]s, at most
    /// [`SLICES_AHEAD`] slices ahead of what the worker has taken in, then
    /// sends `finish`. The worker parses one slice while the browser reads
    /// the next. A file that cannot be read is sent as
    /// [`ToWorker::Unreadable`] and the others go on. Stops when the client
    /// is dropped (Cancel).
    pub fn send_inputs(self: &Rc<Self>, inputs: Vec<(String, Blob)>, finish: ToWorker) {
        let me = Rc::downgrade(self);
        spawn_local(async move {
            let (mut read_ms, mut wait_ms, t0) = (0.0, 0.0, js_sys::Date::now());
            // Bytes handed over (a file that failed counts whole).
            let mut sent = 0.0f64;
            for (name, blob) in inputs {
                let size = blob.size();
                // Two reads in flight: the browser reads the next slice
                // while this one is handed over (reading is the slow part).
                let mut pending: VecDeque<(f64, f64, Result<JsFuture, String>)> = VecDeque::new();
                let (mut next_at, mut started_any) = (0.0f64, false);
                loop {
                    // (An empty file is one empty slice.)
                    while pending.len() < READS_IN_FLIGHT && (next_at < size || !started_any) {
                        let end = (next_at + SLICE_BYTES).min(size);
                        pending.push_back((next_at, end, start_slice(&blob, next_at, end)));
                        (next_at, started_any) = (end, true);
                    }
                    let Some((at, end, started)) = pending.pop_front() else { break };
                    let tw = js_sys::Date::now();
                    if !wait_for_room(&me, sent).await {
                        return;
                    }
                    let tr = js_sys::Date::now();
                    wait_ms += tr - tw;
                    let read = match started {
                        Ok(fut) => finish_slice(fut, at, end).await,
                        Err(e) => Err(e),
                    };
                    read_ms += js_sys::Date::now() - tr;
                    let Some(client) = me.upgrade().filter(|c| c.alive.get()) else { return };
                    match read {
                        Ok(buf) => {
                            let last = end >= size;
                            let msg = ToWorker::FileSlice { name: name.clone(), offset: at as u64, size: size as u64, last };
                            client.post_slice(&msg, &buf);
                            sent += end - at;
                            if last {
                                break;
                            }
                        }
                        Err(message) => {
                            client.send(&ToWorker::Unreadable { name: name.clone(), size: size as u64, message });
                            sent += size - at;
                            break;
                        }
                    }
                }
            }
            debug(&format!(
                "read inputs {:.0} ms (reading {read_ms:.0} ms, waiting for the worker {wait_ms:.0} ms)",
                js_sys::Date::now() - t0
            ));
            if let Some(me) = me.upgrade().filter(|c| c.alive.get()) {
                me.send(&finish);
            }
        });
    }

    /// Posts a slice, its buffer transferred.
    fn post_slice(&self, msg: &ToWorker, data: &ArrayBuffer) {
        let bytes = Uint8Array::from(encode(msg).as_slice());
        let obj = Object::new();
        let _ = Reflect::set(&obj, &JsValue::from_str("msg"), &bytes);
        let _ = Reflect::set(&obj, &JsValue::from_str("data"), data);
        let transfer = Array::of2(&bytes.buffer(), data);
        if self.ready.get() {
            let _ = self.worker.post_message_with_transfer(&obj, &transfer);
        } else {
            self.queue.borrow_mut().push((obj, transfer));
        }
    }

    /// Sends a message.
    pub fn send(&self, msg: &ToWorker) {
        let bytes = Uint8Array::from(encode(msg).as_slice());
        let obj = Object::new();
        let _ = Reflect::set(&obj, &JsValue::from_str("msg"), &bytes);
        let transfer = Array::of1(&bytes.buffer());
        if self.ready.get() {
            let _ = self.worker.post_message_with_transfer(&obj, &transfer);
        } else {
            self.queue.borrow_mut().push((obj, transfer));
        }
    }
}

impl Drop for WorkerClient {
    /// Stops the worker at once (Cancel, or a new load), freeing its memory;
    /// the read loop and any decoding stop too.
    fn drop(&mut self) {
        self.alive.set(false);
        wake(&self.ack_waiters);
        self.worker.set_onmessage(None);
        self.worker.set_onerror(None);
        self.worker.terminate();
    }
}

fn debug(text: &str) {
    web_sys::console::debug_1(&JsValue::from_str(&format!("reconscope app: {text}")));
}

/// Resolves every promise waiting for an acknowledgement.
fn wake(waiters: &RefCell<Vec<js_sys::Function>>) {
    for resolve in waiters.borrow_mut().drain(..) {
        let _ = resolve.call0(&JsValue::UNDEFINED);
    }
}

/// Waits until fewer than [`SLICES_AHEAD`] slices' worth of `sent` bytes
/// are waiting in the worker. False: the client is gone.
async fn wait_for_room(me: &Weak<WorkerClient>, sent: f64) -> bool {
    loop {
        let wait = {
            let Some(c) = me.upgrade().filter(|c| c.alive.get()) else { return false };
            if sent - c.acked.get() as f64 <= (SLICES_AHEAD - 1.0) * SLICE_BYTES {
                return true;
            }
            let waiters = c.ack_waiters.clone();
            js_sys::Promise::new(&mut |resolve, _| waiters.borrow_mut().push(resolve))
        };
        let _ = JsFuture::from(wait).await;
    }
}

/// `blob[at..end]` as an `ArrayBuffer` (the browser reads it off this
/// thread; its data arrives in small tasks).
/// Starts reading `blob[at..end]` (the browser reads it on its own).
fn start_slice(blob: &Blob, at: f64, end: f64) -> Result<JsFuture, String> {
    let slice = blob.slice_with_f64_and_f64(at, end).map_err(js_error)?;
    Ok(JsFuture::from(slice.array_buffer()))
}

/// The bytes of a slice started with [`start_slice`].
async fn finish_slice(fut: JsFuture, at: f64, end: f64) -> Result<ArrayBuffer, String> {
    let buf = fut.await.map_err(js_error)?;
    let buf: ArrayBuffer = buf.dyn_into().map_err(|_| "the browser gave no bytes".to_string())?;
    if buf.byte_length() as f64 != end - at {
        return Err("the file changed while it was read".into());
    }
    Ok(buf)
}

fn js_error(e: JsValue) -> String {
    e.dyn_ref::<js_sys::Error>().map(|e| String::from(e.message())).unwrap_or_else(|| format!("{e:?}"))
}

/// Gives the thread back to the browser for a moment (it may draw, handle
/// input, run other tasks): `scheduler.yield()` where there is one, else a
/// zero timeout.
async fn yield_now() {
    let global = js_sys::global();
    let yielded = Reflect::get(&global, &JsValue::from_str("scheduler"))
        .ok()
        .filter(|s| s.is_object())
        .and_then(|s| {
            let f = Reflect::get(&s, &JsValue::from_str("yield")).ok()?.dyn_into::<js_sys::Function>().ok()?;
            f.call0(&s).ok()?.dyn_into::<js_sys::Promise>().ok()
        });
    let promise = yielded.unwrap_or_else(|| {
        js_sys::Promise::new(&mut |resolve, _| {
            let set = web_sys::window().map(|w| w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 0));
            if !matches!(set, Some(Ok(_))) {
                let _ = resolve.call0(&JsValue::UNDEFINED);
            }
        })
    });
    let _ = JsFuture::from(promise).await;
}

/// Time slices of the page's thread for decoding: [`Budget::tick`] gives
/// the thread back to the browser once a task has run [`TASK_BUDGET_MS`].
struct Budget<'a> {
    alive: &'a Cell<bool>,
    task_start: f64,
    busy_ms: f64,
    tasks: u32,
}

impl Budget<'_> {
    fn new(alive: &Cell<bool>) -> Budget<'_> {
        Budget { alive, task_start: js_sys::Date::now(), busy_ms: 0.0, tasks: 1 }
    }

    /// Yields when this task has run long enough. False: the client was
    /// dropped meanwhile (stop).
    async fn tick(&mut self) -> bool {
        let now = js_sys::Date::now();
        if now - self.task_start < TASK_BUDGET_MS {
            return self.alive.get();
        }
        self.busy_ms += now - self.task_start;
        yield_now().await;
        self.tasks += 1;
        self.task_start = js_sys::Date::now();
        self.alive.get()
    }

    fn busy_ms(&self) -> f64 {
        self.busy_ms + js_sys::Date::now() - self.task_start
    }
}

/// Puts back the parts of a finished load that came beside its message
/// (reconciles, client warnings and findings a chunk at a time, then the
/// timeline), giving the thread back to the browser between chunks.
/// `None`: the client was dropped meanwhile.
async fn attach(
    mut r: LoadResult,
    parts: Vec<(&'static str, Uint8Array)>,
    alive: &Cell<bool>,
) -> Option<Result<LoadResult, String>> {
    let t0 = js_sys::Date::now();
    let mut budget = Budget::new(alive);
    let mut beside = std::mem::take(&mut r.beside);
    // Into wasm memory, a few MiB per step (one copy of 100 MB is a long task).
    const PIECE: u32 = 4 << 20;
    for (name, part) in parts {
        let Some(slot) = beside.part_mut(name) else { continue };
        let n = part.length();
        slot.clear();
        if slot.try_reserve_exact(n as usize).is_err() {
            return Some(Err("the result does not fit in the tab's memory".into()));
        }
        let mut at = 0;
        while at < n {
            let end = n.min(at + PIECE);
            slot.resize(end as usize, 0);
            part.subarray(at, end).copy_to(&mut slot[at as usize..]);
            at = end;
            if !budget.tick().await {
                return None;
            }
        }
    }
    let tc = js_sys::Date::now();
    let a = &mut r.analysis;
    if !beside.reconciles.is_empty() {
        let mut d = match ReconcileDecoder::new(&beside.reconciles) {
            Ok(d) => d,
            Err(e) => return Some(Err(e.to_string())),
        };
        let mut out = Vec::with_capacity(d.len());
        while !d.is_done() {
            if let Err(e) = d.next_chunk(2048, &mut out) {
                return Some(Err(e.to_string()));
            }
            if !budget.tick().await {
                return None;
            }
        }
        a.reconciles = out;
    }
    let t1 = js_sys::Date::now();
    for (bytes, field) in [(&beside.client_warnings, 0), (&beside.findings, 1)] {
        if bytes.is_empty() {
            continue;
        }
        let mut d = match JsonChunkDecoder::new(bytes) {
            Ok(d) => d,
            Err(e) => return Some(Err(e.to_string())),
        };
        while !d.is_done() {
            let r = if field == 0 { d.next_chunk(&mut a.client_warnings) } else { d.next_chunk(&mut a.findings) };
            if let Err(e) = r {
                return Some(Err(e.to_string()));
            }
            if !budget.tick().await {
                return None;
            }
        }
    }
    let t2 = js_sys::Date::now();
    let mut timeline_head_ms = 0.0;
    if !beside.timeline.is_empty() {
        let mut d = match TimelineDecoder::new(&beside.timeline) {
            Ok(d) => d,
            Err(e) => return Some(Err(e.to_string())),
        };
        timeline_head_ms = js_sys::Date::now() - t2;
        while !d.is_done() {
            if let Err(e) = d.next_chunk(16_384) {
                return Some(Err(e.to_string()));
            }
            if !budget.tick().await {
                return None;
            }
        }
        match d.finish() {
            Ok(t) => r.timeline = Some(t),
            Err(e) => return Some(Err(e.to_string())),
        }
    } else {
        r.timeline = None;
        r.layout = None;
    }
    let t3 = js_sys::Date::now();
    drop(beside);
    debug(&format!(
        "decode {:.0} ms in {} tasks ({:.0} ms with the gaps): copy {:.0} ms, reconciles {:.0} ms, warnings and findings {:.0} ms, timeline {:.0} ms (rows etc. {timeline_head_ms:.0} ms)",
        budget.busy_ms(),
        budget.tasks,
        t3 - t0,
        tc - t0,
        t1 - tc,
        t2 - t1,
        t3 - t2
    ));
    // The page takes it over in a task of its own.
    yield_now().await;
    alive.get().then_some(Ok(r))
}
