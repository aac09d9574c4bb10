//! The page's side of the worker protocol (`reconscope::web`): starts
//! `worker_boot.js` as a classic Web Worker, queues messages until the
//! worker says it is ready, reads the input files in slices and sends them
//! (a few ahead of the worker at most), and hands its answers to a
//! callback — a finished load only once its reconciles and timeline are
//! decoded, which is done in short tasks.

use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};

use js_sys::{Array, ArrayBuffer, Object, Reflect, Uint8Array};
use reconscope::codec::{JsonChunkDecoder, ReconcileDecoder, TimelineDecoder};
use reconscope::web::{decode, encode, Beside, FromWorker, LoadResult, ToWorker};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::{spawn_local, JsFuture};
use web_sys::{Blob, ErrorEvent, Event, MessageEvent, ReadableStreamByobReader, Worker};
use yew::Callback;

/// The page reads the inputs in slices of this size.
const SLICE_BYTES: f64 = 8.0 * 1024.0 * 1024.0;
/// At most this many slices are sent and not yet taken in by the worker.
const SLICES_AHEAD: f64 = 4.0;
/// Plain logs at least this big are parsed by two workers at once: the
/// main worker parses the head, a helper the tail.
const SPLIT_MIN_BYTES: f64 = 32.0 * 1024.0 * 1024.0;
/// ... on a machine with at least this many logical cores: the page, the
/// browser's file reading and both workers each need one. (With two, the
/// second worker only slows the first down: measured on a 2-vCPU machine,
/// a 1 GiB load took 17 s split against 9.5 s not.)
const SPLIT_MIN_CORES: f64 = 4.0;
/// The share of a split file the helper parses. The main worker also
/// copies the tail in and joins the helper's piece on, so it takes less.
const HELPER_SHARE: f64 = 0.5;
/// A task of the page spends at most about this long decoding before it
/// gives the thread back (the browser draws and handles input between).
const TASK_BUDGET_MS: f64 = 20.0;

/// At most this many slice buffers given back by the workers are kept
/// for the next reads (see [`spare_buffer`]).
const SPARE_BUFFERS_MAX: usize = 8;

thread_local! {
    /// Slice buffers the workers gave back (`spent` beside their progress)
    /// while a read goes on (`None` between reads), and the number of the
    /// read they are kept for (see [`SpareBuffers`]).
    static SPARE_BUFFERS: RefCell<(u64, Option<Vec<ArrayBuffer>>)> = const { RefCell::new((0, None)) };
}

/// Keeps a buffer a worker gave back, if a read goes on and it is a whole
/// slice's.
fn keep_spare(buf: ArrayBuffer) {
    SPARE_BUFFERS.with(|b| {
        if let Some(pool) = b.borrow_mut().1.as_mut() {
            if buf.byte_length() as f64 == SLICE_BYTES && pool.len() < SPARE_BUFFERS_MAX {
                pool.push(buf);
            }
        }
    });
}

/// A buffer for the next slice of `len` bytes: one a worker gave back when
/// there is one (no new memory for the browser to map and fault in), else
/// a new one.
fn spare_buffer(len: u32, times: &ReadTimes) -> ArrayBuffer {
    let spare = SPARE_BUFFERS.with(|b| b.borrow_mut().1.as_mut().filter(|_| len as f64 == SLICE_BYTES).and_then(|p| p.pop()));
    match spare {
        Some(buf) => {
            times.reused.set(times.reused.get() + 1);
            buf
        }
        None => ArrayBuffer::new(len),
    }
}

/// While one lives (a read, from its start to its end or Cancel), buffers
/// given back are kept. A read that ends after the next one started (a
/// cancelled load's read loop wakes up later) leaves the next one's alone.
struct SpareBuffers(u64);

impl SpareBuffers {
    fn start() -> SpareBuffers {
        SPARE_BUFFERS.with(|b| {
            let mut b = b.borrow_mut();
            *b = (b.0 + 1, Some(Vec::new()));
            SpareBuffers(b.0)
        })
    }
}

impl Drop for SpareBuffers {
    fn drop(&mut self) {
        SPARE_BUFFERS.with(|b| {
            let mut b = b.borrow_mut();
            if b.0 == self.0 {
                b.1 = None;
            }
        });
    }
}

/// The worker script, relative to the page, so that the app works when it
/// is hosted under any sub-path (`/reconscope/`), not only at `/`.
const WORKER_URL: &str = "./worker_boot.js";

/// What a worker is for, which decides what a failed request means.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The load's worker: a request it could not answer is reported, and
    /// it goes on with the load.
    Main,
    /// A helper parsing a split file's tail: any failure and it is given
    /// nothing more (the main worker parses the tail itself).
    Helper,
}

pub struct WorkerClient {
    worker: Worker,
    ready: Rc<Cell<bool>>,
    queue: Rc<RefCell<Vec<(Object, Array)>>>,
    /// File slices posted to the worker, and taken in by it (from its
    /// progress messages).
    posted: Cell<u64>,
    acked: Rc<Cell<u64>>,
    /// The worker failed (it crashed; or, for a [`Role::Helper`], said a
    /// request failed): it is given no more work.
    gave_up: Rc<Cell<bool>>,
    /// A helper's parsed pieces ([`FromWorker::Part`]), by file name.
    parts: Rc<RefCell<Vec<(String, Uint8Array)>>>,
    /// Resolvers of promises waiting for `acked` to move.
    ack_waiters: Rc<RefCell<Vec<js_sys::Function>>>,
    /// False once dropped: the read loop and a finished load's decoding stop.
    alive: Rc<Cell<bool>>,
    /// The input being read is read only up to here (a cap): the read
    /// loop skips the rest ([`Progress::cut_at`](reconscope::web::Progress::cut_at)).
    cut: Rc<RefCell<Option<(String, u64)>>>,
    _onmessage: Closure<dyn FnMut(MessageEvent)>,
    _onerror: Closure<dyn FnMut(Event)>,
}

impl WorkerClient {
    /// Starts a worker. `on_message` gets every answer; `on_error` gets a
    /// failure of the worker itself (it could not load, or it crashed).
    pub fn spawn(role: Role, on_message: Callback<FromWorker>, on_error: Callback<String>) -> Result<WorkerClient, String> {
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
        let gave_up = Rc::new(Cell::new(false));
        let parts: Rc<RefCell<Vec<(String, Uint8Array)>>> = Rc::default();
        let cut: Rc<RefCell<Option<(String, u64)>>> = Rc::default();
        let onmessage = {
            let cut = cut.clone();
            let (worker, ready, queue) = (worker.clone(), ready.clone(), queue.clone());
            let (acked, ack_waiters, alive) = (acked.clone(), ack_waiters.clone(), alive.clone());
            let (gave_up, parts) = (gave_up.clone(), parts.clone());
            let on_error = on_error.clone();
            Closure::<dyn FnMut(MessageEvent)>::new(move |ev: MessageEvent| {
                let bytes = Reflect::get(&ev.data(), &JsValue::from_str("msg")).ok().and_then(|m| m.dyn_into::<Uint8Array>().ok());
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
                        if let Some(spent) = Reflect::get(&ev.data(), &JsValue::from_str("spent")).ok().and_then(|b| b.dyn_into::<Uint8Array>().ok()) {
                            keep_spare(spent.buffer());
                        }
                        acked.set(acked.get().max(p.slices));
                        *cut.borrow_mut() = p.cut_at.map(|c| (p.current.clone(), c));
                        wake(&ack_waiters);
                        on_message.emit(FromWorker::Progress(p));
                    }
                    // A helper's piece: kept for the read loop to pass on.
                    Ok(FromWorker::Part { name, records }) => {
                        let piece = Reflect::get(&ev.data(), &JsValue::from_str("piece")).ok().and_then(|p| p.dyn_into::<Uint8Array>().ok());
                        match piece {
                            Some(piece) => {
                                debug(&format!("helper: {name}: {records} records parsed"));
                                parts.borrow_mut().push((name, piece));
                            }
                            None => gave_up.set(true),
                        }
                        wake(&ack_waiters);
                    }
                    Ok(FromWorker::Failed { message }) => {
                        if role == Role::Helper {
                            gave_up.set(true);
                            wake(&ack_waiters);
                        }
                        on_message.emit(FromWorker::Failed { message });
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
        let onerror = {
            let (gave_up, ack_waiters) = (gave_up.clone(), ack_waiters.clone());
            Closure::<dyn FnMut(Event)>::new(move |ev: Event| {
                ev.prevent_default();
                gave_up.set(true);
                wake(&ack_waiters);
                let detail = ev.dyn_ref::<ErrorEvent>().map(|e| e.message()).unwrap_or_default();
                on_error.emit(if detail.is_empty() {
                    "the worker could not be started or stopped unexpectedly".to_string()
                } else {
                    format!("the worker failed: {detail}")
                });
            })
        };
        worker.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
        worker.set_onerror(Some(onerror.as_ref().unchecked_ref()));
        Ok(WorkerClient {
            worker,
            ready,
            queue,
            posted: Cell::new(0),
            acked,
            gave_up,
            parts,
            ack_waiters,
            alive,
            cut,
            _onmessage: onmessage,
            _onerror: onerror,
        })
    }

    /// Reads the inputs in slices on this (mostly idle) thread and sends
    /// them to the worker as [`ToWorker::FileSlice`]s, at most
    /// [`SLICES_AHEAD`] slices ahead of what the worker has taken in, then
    /// sends `finish`. The worker parses one slice while the browser reads
    /// the next. A plain log of at least [`SPLIT_MIN_BYTES`] is parsed by
    /// two workers at once on a machine with [`SPLIT_MIN_CORES`] (see
    /// [`send_split`]). A file that cannot be
    /// read is sent as [`ToWorker::Unreadable`] and the others go on.
    /// Stops when the client is dropped (Cancel).
    pub fn send_inputs(self: &Rc<Self>, inputs: Vec<(String, Blob)>, finish: ToWorker) {
        let me = Rc::downgrade(self);
        // The second worker, only when some input may be split. It is
        // stopped (its memory freed) once every input is sent.
        let cores = web_sys::window().map_or(1.0, |w| w.navigator().hardware_concurrency());
        let helper = (cores >= SPLIT_MIN_CORES && inputs.iter().any(|(_, b)| b.size() >= SPLIT_MIN_BYTES)).then(spawn_helper).flatten();
        spawn_local(async move {
            let t0 = js_sys::Date::now();
            let times = Rc::new(ReadTimes::default());
            let _spares = SpareBuffers::start();
            for (name, blob) in inputs {
                let size = blob.size();
                // A file's own time dates lines written without a year.
                if let Some(ms) = blob.dyn_ref::<web_sys::File>().map(|f| f.last_modified()).filter(|ms| ms.is_finite() && *ms > 0.0) {
                    if let Some(c) = me.upgrade() {
                        c.send(&ToWorker::Modified { name: name.clone(), secs: (ms / 1000.0).floor() as i64 });
                    }
                }
                // The first slice alone: it tells a plain log from an archive.
                let first_end = SLICE_BYTES.min(size);
                if !wait_for_room(&me, SLICES_AHEAD).await {
                    return;
                }
                let first = match SliceReader::new(&blob, 0.0, first_end, times.clone()).next().await {
                    Some((_, _, read)) => read,
                    None => Err("the browser gave no bytes".into()),
                };
                let Some(client) = me.upgrade().filter(|c| c.alive.get()) else { return };
                let first = match first {
                    Ok(buf) => buf,
                    Err(message) => {
                        client.send(&ToWorker::Unreadable { name, size: size as u64, message });
                        continue;
                    }
                };
                let file = Rc::new(FileToSend { name, blob, size, failed: Cell::new(false) });
                let tail_from = helper.as_ref().filter(|h| h.usable()).and_then(|_| split_point(&file, &first));
                let going = match (tail_from, &helper) {
                    (Some(tail_from), Some(helper)) => send_split(&me, helper, &file, first, tail_from, &times).await,
                    _ => {
                        let last = first_end >= size;
                        let msg = ToWorker::FileSlice { name: file.name.clone(), offset: 0, size: size as u64, last };
                        client.post_slice(&msg, &first);
                        drop(client);
                        last || send_range(me.clone(), None, file.clone(), first_end, size, times.clone()).await
                    }
                };
                if !going {
                    return;
                }
            }
            debug(&format!(
                "read inputs {:.0} ms (reading {:.0} ms, waiting for the worker {:.0} ms; {} of {} slices read into a buffer given back)",
                js_sys::Date::now() - t0,
                times.read_ms.get(),
                times.wait_ms.get(),
                times.reused.get(),
                times.slices.get()
            ));
            if let Some(me) = me.upgrade().filter(|c| c.alive.get()) {
                me.send(&finish);
            }
            drop(helper);
        });
    }

    /// Whether this worker can take work (it started and has not failed).
    pub fn usable(&self) -> bool {
        self.alive.get() && !self.gave_up.get()
    }

    /// Posts a slice, its buffer transferred.
    fn post_slice(&self, msg: &ToWorker, data: &ArrayBuffer) {
        self.posted.set(self.posted.get() + 1);
        self.post_with(msg, "data", data);
    }

    /// Posts a message with `data` beside it as `name`, transferred.
    fn post_with(&self, msg: &ToWorker, name: &str, data: &ArrayBuffer) {
        let bytes = Uint8Array::from(encode(msg).as_slice());
        let obj = Object::new();
        let _ = Reflect::set(&obj, &JsValue::from_str("msg"), &bytes);
        let _ = Reflect::set(&obj, &JsValue::from_str(name), data);
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

/// Waits until fewer than `limit` of the slices posted to the worker are
/// waiting there. False: the client is gone (or, a helper, it failed).
async fn wait_for_room(me: &Weak<WorkerClient>, limit: f64) -> bool {
    loop {
        let wait = {
            let Some(c) = me.upgrade().filter(|c| c.alive.get()) else { return false };
            if c.gave_up.get() {
                return false;
            }
            if (c.posted.get().saturating_sub(c.acked.get()) as f64) < limit {
                return true;
            }
            let waiters = c.ack_waiters.clone();
            js_sys::Promise::new(&mut |resolve, _| waiters.borrow_mut().push(resolve))
        };
        let _ = JsFuture::from(wait).await;
    }
}

/// The helper worker for split files; `None` if it cannot start (the
/// main worker then parses everything, as it would anyway).
fn spawn_helper() -> Option<Rc<WorkerClient>> {
    let on_error = Callback::from(|e: String| debug(&format!("helper: {e}")));
    match WorkerClient::spawn(Role::Helper, Callback::noop(), on_error) {
        Ok(h) => Some(Rc::new(h)),
        Err(e) => {
            debug(&format!("no helper: {e}"));
            None
        }
    }
}

/// One input file being sent.
struct FileToSend {
    name: String,
    blob: Blob,
    size: f64,
    /// A slice could not be read: the worker was told, and the file's
    /// other stream sends nothing more.
    failed: Cell<bool>,
}

/// Where the page's reading time went (for scripts/browser-bench.sh).
#[derive(Default)]
struct ReadTimes {
    read_ms: Cell<f64>,
    wait_ms: Cell<f64>,
    /// Slices read, and how many of them into a buffer a worker gave back.
    slices: Cell<u32>,
    reused: Cell<u32>,
}

/// Where to split `file` between the workers (the helper parses from
/// there on), if it is a plain log big enough to be worth it. `first` is
/// its first slice.
fn split_point(file: &FileToSend, first: &ArrayBuffer) -> Option<u64> {
    // (A file bigger than the tab holds plain is packed as it is parsed,
    // by the main worker alone.)
    if file.size < SPLIT_MIN_BYTES || file.size > reconscope::web::TAB_PLAIN_BYTES as f64 {
        return None;
    }
    let head = Uint8Array::new(first).to_vec();
    reconscope::pipeline::streamable(&file.name, &head).then(|| (file.size * (1.0 - HELPER_SHARE)).round() as u64)
}

/// Sends a big plain log to two workers: the main worker gets the whole
/// file (its head from 0 and its tail from `tail_from`, read side by side)
/// and parses the head; the helper gets a copy of the tail and parses it;
/// its piece is then passed on to the main worker, which joins it on (or,
/// if the helper failed, parses the tail itself). False: stopped.
async fn send_split(
    me: &Weak<WorkerClient>,
    helper: &Rc<WorkerClient>,
    file: &Rc<FileToSend>,
    first: ArrayBuffer,
    tail_from: u64,
    times: &Rc<ReadTimes>,
) -> bool {
    let Some(client) = me.upgrade().filter(|c| c.alive.get()) else { return false };
    let (name, size) = (file.name.clone(), file.size as u64);
    client.send(&ToWorker::Split { name: name.clone(), size, tail_from });
    helper.send(&ToWorker::BeginPart { name: name.clone(), size, from: tail_from });
    let first_end = first.byte_length() as f64;
    client.post_slice(&ToWorker::FileSlice { name: name.clone(), offset: 0, size, last: false }, &first);
    drop(client);
    let head = send_range(me.clone(), None, file.clone(), first_end, tail_from as f64, times.clone());
    let tail = send_range(me.clone(), Some(helper.clone()), file.clone(), tail_from as f64, file.size, times.clone());
    if !both(head, tail).await {
        return false;
    }
    if file.failed.get() {
        // The worker was told the file is unreadable and dropped it; the
        // helper got only part of the tail and sends no piece.
        return true;
    }
    let piece = wait_for_part(helper, &name).await;
    let Some(client) = me.upgrade().filter(|c| c.alive.get()) else { return false };
    match piece {
        Some(piece) => client.post_with(&ToWorker::Part { name }, "piece", &piece.buffer()),
        // The main worker parses the tail itself.
        None => client.send(&ToWorker::Part { name }),
    }
    true
}

/// Waits for the helper's piece of the file `name`; `None` if the helper
/// failed (or the file failed, and the helper was given no more of it).
async fn wait_for_part(helper: &Rc<WorkerClient>, name: &str) -> Option<Uint8Array> {
    loop {
        let wait = {
            let mut parts = helper.parts.borrow_mut();
            if let Some(i) = parts.iter().position(|(n, _)| n == name) {
                return Some(parts.remove(i).1);
            }
            if !helper.usable() {
                return None;
            }
            let waiters = helper.ack_waiters.clone();
            js_sys::Promise::new(&mut |resolve, _| waiters.borrow_mut().push(resolve))
        };
        let _ = JsFuture::from(wait).await;
    }
}

/// Sends `file[from..to]` to the worker in slices ([`SliceReader`]), at
/// most [`SLICES_AHEAD`] slices ahead of the worker. With a `helper` (a
/// split file's tail) each slice also goes to the helper, as a copy, and
/// the helper sets the pace. False: stopped (the client is gone).
async fn send_range(me: Weak<WorkerClient>, helper: Option<Rc<WorkerClient>>, file: Rc<FileToSend>, from: f64, to: f64, times: Rc<ReadTimes>) -> bool {
    let helper_weak = helper.as_ref().map(Rc::downgrade);
    // The main worker takes a tail's slices in quickly (it only copies
    // them) but behind the head's: allow it more of them.
    let main_limit = if helper.is_some() { 2.0 * SLICES_AHEAD } else { SLICES_AHEAD };
    let mut reader = SliceReader::new(&file.blob, from, to, times.clone());
    loop {
        let tw = js_sys::Date::now();
        if !wait_for_room(&me, main_limit).await {
            return false;
        }
        // A helper that failed is given nothing more: the main worker
        // parses the tail.
        let helping = match &helper_weak {
            Some(h) => wait_for_room(h, SLICES_AHEAD).await,
            None => false,
        };
        let tr = js_sys::Date::now();
        times.wait_ms.set(times.wait_ms.get() + tr - tw);
        if helper.is_none() && reader.past_cut(&me, &file.name) {
            // The worker reads no more of this file: one empty last slice.
            let Some(client) = me.upgrade().filter(|c| c.alive.get()) else { return false };
            let size = file.size as u64;
            client.post_slice(&ToWorker::FileSlice { name: file.name.clone(), offset: size, size, last: true }, &ArrayBuffer::new(0));
            debug(&format!("{}: read up to {} of {} bytes (a cap); the rest skipped", file.name, reader.at, size));
            return true;
        }
        let Some((at, end, read)) = reader.next().await else { return true };
        times.read_ms.set(times.read_ms.get() + js_sys::Date::now() - tr);
        let Some(client) = me.upgrade().filter(|c| c.alive.get()) else { return false };
        if file.failed.get() {
            // The other stream of this file failed, and said so.
            return true;
        }
        let size = file.size as u64;
        match read {
            Ok(buf) => {
                let last = end >= file.size;
                let msg = ToWorker::FileSlice { name: file.name.clone(), offset: at as u64, size, last };
                if let Some(h) = helper.as_ref().filter(|_| helping) {
                    h.post_slice(&msg, &buf.slice(0));
                }
                client.post_slice(&msg, &buf);
            }
            Err(message) => {
                file.failed.set(true);
                client.send(&ToWorker::Unreadable { name: file.name.clone(), size, message });
                return true;
            }
        }
    }
}

/// Runs two sends side by side; true if both went on to their end.
async fn both(a: impl std::future::Future<Output = bool> + 'static, b: impl std::future::Future<Output = bool> + 'static) -> bool {
    let a = wasm_bindgen_futures::future_to_promise(async move { Ok(JsValue::from_bool(a.await)) });
    let b = wasm_bindgen_futures::future_to_promise(async move { Ok(JsValue::from_bool(b.await)) });
    match JsFuture::from(js_sys::Promise::all(&Array::of2(&a, &b))).await {
        Ok(v) => Array::from(&v).iter().all(|x| x.as_bool() == Some(true)),
        Err(_) => false,
    }
}

/// Reads `blob[from..to]` in slices of [`SLICE_BYTES`], each its own
/// `ArrayBuffer` (to be transferred to a worker). With a "bring your own
/// buffer" reader of the blob's stream where the browser has one: in
/// Chromium that takes about half the CPU time of `Blob.slice().arrayBuffer()`
/// per slice (measured on 1 GiB: 1.65 s against 3.3-4.6 s), and on a
/// machine whose cores are busy parsing, reading is time taken from it.
struct SliceReader {
    blob: Blob,
    /// The next slice starts here.
    at: f64,
    to: f64,
    byob: Option<ReadableStreamByobReader>,
    times: Rc<ReadTimes>,
}

impl SliceReader {
    fn new(blob: &Blob, from: f64, to: f64, times: Rc<ReadTimes>) -> SliceReader {
        let byob = blob.slice_with_f64_and_f64(from, to).ok().and_then(|part| ReadableStreamByobReader::new(&part.stream()).ok());
        SliceReader { blob: blob.clone(), at: from, to, byob, times }
    }

    /// Whether the worker said it reads `name` only up to a point this
    /// reader has passed (the rest is then not read: the stream is
    /// cancelled).
    fn past_cut(&mut self, me: &Weak<WorkerClient>, name: &str) -> bool {
        let Some(client) = me.upgrade() else { return false };
        let past = client.cut.borrow().as_ref().is_some_and(|(n, c)| n == name && self.at >= *c as f64 && self.at < self.to);
        if past {
            if let Some(r) = self.byob.take() {
                let _ = r.cancel();
            }
        }
        past
    }

    /// The next slice and where it starts and ends; `None` past the end.
    async fn next(&mut self) -> Option<(f64, f64, Result<ArrayBuffer, String>)> {
        if self.at >= self.to && !(self.at == 0.0 && self.to == 0.0) {
            return None;
        }
        let (at, end) = (self.at, (self.at + SLICE_BYTES).min(self.to));
        // (An empty file is one empty slice.)
        self.at = if end > at { end } else { f64::INFINITY };
        self.times.slices.set(self.times.slices.get() + 1);
        let read = match &self.byob {
            Some(reader) => fill(reader, spare_buffer((end - at) as u32, &self.times)).await,
            None => match self.blob.slice_with_f64_and_f64(at, end) {
                Ok(part) => JsFuture::from(part.array_buffer())
                    .await
                    .map_err(js_error)
                    .and_then(|b| b.dyn_into::<ArrayBuffer>().map_err(|_| "the browser gave no bytes".to_string())),
                Err(e) => Err(js_error(e)),
            },
        };
        let read = read.and_then(|buf| match buf.byte_length() as f64 == end - at {
            true => Ok(buf),
            false => Err("the file changed while it was read".into()),
        });
        Some((at, end, read))
    }
}

/// Fills `buf` from a BYOB reader (less of it if the stream ends first:
/// the buffer returned is then cut to what was read).
async fn fill(reader: &ReadableStreamByobReader, mut buf: ArrayBuffer) -> Result<ArrayBuffer, String> {
    let len = buf.byte_length();
    let mut filled = 0;
    while filled < len {
        let view = Uint8Array::new_with_byte_offset_and_length(&buf, filled, len - filled);
        let result = JsFuture::from(reader.read_with_array_buffer_view(&view)).await.map_err(js_error)?;
        let value = Reflect::get(&result, &JsValue::from_str("value")).ok().and_then(|v| v.dyn_into::<Uint8Array>().ok());
        let done = Reflect::get(&result, &JsValue::from_str("done")).ok().and_then(|d| d.as_bool()).unwrap_or(true);
        // The view's buffer was handed to the stream and comes back as
        // `value`'s.
        let Some(value) = value else { break };
        buf = value.buffer();
        filled += value.byte_length();
        if done {
            break;
        }
    }
    Ok(if filled == len { buf } else { buf.slice_with_end(0, filled) })
}

fn js_error(e: JsValue) -> String {
    e.dyn_ref::<js_sys::Error>().map(|e| String::from(e.message())).unwrap_or_else(|| format!("{e:?}"))
}

/// Gives the thread back to the browser for a moment (it may draw, handle
/// input, run other tasks): `scheduler.yield()` where there is one, else a
/// zero timeout.
async fn yield_now() {
    let global = js_sys::global();
    let yielded = Reflect::get(&global, &JsValue::from_str("scheduler")).ok().filter(|s| s.is_object()).and_then(|s| {
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
async fn attach(mut r: LoadResult, parts: Vec<(&'static str, Uint8Array)>, alive: &Cell<bool>) -> Option<Result<LoadResult, String>> {
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
