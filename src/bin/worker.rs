//! reconscope's Web Worker: reads, parses and analyzes the inputs off the
//! page's thread, then keeps the parsed files to answer the inspector.
//!
//! Built by trunk as a classic worker (`data-type="worker"` in
//! `www/index.html`; wasm-bindgen's `no-modules` glue, unhashed as
//! `worker.js`): `www/worker_boot.js` imports the glue and starts this
//! module. The protocol is
//! `reconscope::web` (the session logic lives there, tested natively):
//! every message is `{msg: Uint8Array}` (encoded JSON, transferred). A
//! [`ToWorker::FileSlice`] message also carries `data`, a slice of a file
//! the page read (a transferred `ArrayBuffer`), taken in by
//! `Session::receive` (a plain log is parsed as it arrives) and
//! acknowledged with a progress message. The finished load's big parts (reconciles, the first
//! view's timeline laid out here, client warnings, findings) go back beside
//! [`FromWorker::Loaded`] as buffers named as `web::Beside`'s fields (see
//! `reconscope::codec`).

#[cfg(target_arch = "wasm32")]
mod imp {
    use std::cell::RefCell;

    use js_sys::{Array, Object, Reflect, Uint8Array};
    use reconscope::parse::Piece;
    use reconscope::web::{decode, encode, FromWorker, Matched, PartJob, Phase, Progress, ReadLimits, Received, Session, ToWorker};
    use wasm_bindgen::prelude::*;
    use wasm_bindgen::JsCast;
    use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

    thread_local! {
        static SESSION: RefCell<Option<Session>> = const { RefCell::new(None) };
        /// As a helper: the tail of a big file being parsed.
        static PART: RefCell<Option<PartJob>> = const { RefCell::new(None) };
    }

    fn scope() -> DedicatedWorkerGlobalScope {
        js_sys::global().unchecked_into()
    }

    /// Posts a message, its encoded bytes transferred (not copied).
    fn post(msg: &FromWorker) {
        post_with(msg, &[]);
    }

    /// Posts a message with bytes beside it, copied out of wasm memory, as
    /// properties named by `beside` (all transferred).
    fn post_with(msg: &FromWorker, beside: &[(&str, &[u8])]) {
        let arrays: Vec<(&str, Uint8Array)> = beside.iter().map(|(name, data)| (*name, Uint8Array::from(*data))).collect();
        post_arrays(msg, &arrays);
    }

    /// Posts progress with a slice's buffer beside it as `spent`,
    /// transferred back to the page, which reads the next slice into it:
    /// a fresh 8 MiB buffer per slice costs the page's process its page
    /// faults (about 0.3-0.5 s of CPU per GiB here).
    fn post_progress_returning(progress: Progress, spent: &Uint8Array) {
        post_arrays(&FromWorker::Progress(progress), &[("spent", spent.clone())]);
    }

    /// Posts a message with JavaScript arrays beside it, as properties
    /// named by `beside`, their buffers transferred (not copied).
    fn post_arrays(msg: &FromWorker, beside: &[(&str, Uint8Array)]) {
        let bytes = Uint8Array::from(encode(msg).as_slice());
        let obj = Object::new();
        let _ = Reflect::set(&obj, &JsValue::from_str("msg"), &bytes);
        let transfer = Array::of1(&bytes.buffer());
        for (name, data) in beside {
            let _ = Reflect::set(&obj, &JsValue::from_str(name), data);
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

    thread_local! {
        /// Times of the slices taken in so far (see [`take_slice`]).
        static SLICE_TIMES: RefCell<SliceTimes> = const { RefCell::new(SliceTimes::new()) };
    }

    /// Where the time of a file's slices went, logged when it is complete.
    struct SliceTimes {
        /// When the last slice was done with (0: none yet).
        last_end: f64,
        idle_ms: f64,
        copy_ms: f64,
        take_ms: f64,
        slices: u32,
    }

    impl SliceTimes {
        const fn new() -> SliceTimes {
            SliceTimes { last_end: 0.0, idle_ms: 0.0, copy_ms: 0.0, take_ms: 0.0, slices: 0 }
        }
    }

    /// As a helper: takes a slice of the tail it parses, acknowledges it,
    /// and sends the parsed piece after the last.
    fn take_part_slice(name: &str, offset: u64, data: &Uint8Array) {
        let t0 = js_sys::Date::now();
        // Copied from JavaScript straight into the tail's buffer.
        let len = data.length() as usize;
        let received =
            PART.with(|p| p.borrow_mut().as_mut().map(|job| job.receive_with(name, offset, len, |room| data.subarray(0, room.len() as u32).copy_to(room))));
        PART.with(|p| {
            if let Some(job) = p.borrow().as_ref() {
                post_progress_returning(job.progress(), data);
            }
        });
        SLICE_TIMES.with(|t| t.borrow_mut().take_ms += js_sys::Date::now() - t0);
        match received {
            Some(Ok(false)) | None => {}
            Some(Ok(true)) => {
                let Some(job) = PART.with(|p| p.borrow_mut().take()) else { return };
                let name = job.name().to_string();
                let piece = timed(&format!("part of {name}: finish"), || job.finish());
                let bytes = timed("part: encode", || piece.encode());
                SLICE_TIMES.with(|t| {
                    debug(&format!("part of {name}: parsing while receiving {:.0} ms", t.borrow().take_ms));
                    *t.borrow_mut() = SliceTimes::new();
                });
                post_with(&FromWorker::Part { name, records: piece.records() as u64 }, &[("piece", &bytes)]);
            }
            Some(Err(e)) => {
                // The page sends the tail in order; if it did not, the
                // main worker parses the tail itself.
                PART.with(|p| *p.borrow_mut() = None);
                post(&FromWorker::Failed { message: e });
            }
        }
    }

    /// Copies a slice into wasm memory and hands it to the session (which
    /// parses a plain log as it arrives); posts progress (the page's
    /// acknowledgement), and parses or opens the file after its last slice.
    fn take_slice(name: &str, offset: u64, size: u64, last: bool, data: &Uint8Array) {
        let t0 = js_sys::Date::now();
        // The slice is copied from JavaScript straight into the file's
        // buffer in wasm memory.
        let mut copy_ms = 0.0;
        let len = data.length() as usize;
        let received = with_session(|s| {
            s.receive_with(name, offset, size, len, last, |room| {
                let t = js_sys::Date::now();
                data.subarray(0, room.len() as u32).copy_to(room);
                copy_ms = js_sys::Date::now() - t;
            })
        });
        SLICE_TIMES.with(|t| {
            let mut t = t.borrow_mut();
            if t.last_end > 0.0 && offset > 0 {
                t.idle_ms += t0 - t.last_end;
            }
            t.copy_ms += copy_ms;
            t.take_ms += js_sys::Date::now() - t0 - copy_ms;
            t.slices += 1;
        });
        complete_if(received, name);
        post_progress_returning(with_session(|s| s.receiving()), data);
        SLICE_TIMES.with(|t| {
            let mut t = t.borrow_mut();
            t.last_end = js_sys::Date::now();
            if last {
                debug(&format!(
                    "{name}: {} slices, idle between slices {:.0} ms, copying {:.0} ms, parsing while receiving {:.0} ms",
                    t.slices, t.idle_ms, t.copy_ms, t.take_ms
                ));
                *t = SliceTimes::new();
            }
        });
    }

    /// Parses or opens the input once [`Session::receive`] or
    /// [`Session::part`] says it is complete.
    fn complete_if(received: Received, name: &str) {
        if received == Received::Complete {
            post(&FromWorker::Progress(with_session(|s| {
                let mut p = s.receiving();
                p.phase = Phase::Parsing;
                p
            })));
            timed(&format!("finish {name}"), || with_session(|s| s.complete()));
        }
    }

    /// The bytes that came beside a message as `name`, if any.
    fn beside(data: &JsValue, name: &str) -> Option<Uint8Array> {
        Reflect::get(data, &JsValue::from_str(name))
            .ok()
            .filter(|d| d.is_instance_of::<js_sys::ArrayBuffer>() || d.is_instance_of::<Uint8Array>())
            .map(|d| Uint8Array::new(&d))
    }

    fn handle(data: JsValue) {
        let msg = Reflect::get(&data, &JsValue::from_str("msg")).ok().and_then(|m| m.dyn_into::<Uint8Array>().ok()).map(|m| decode::<ToWorker>(&m.to_vec()));
        let msg = match msg {
            Some(Ok(m)) => m,
            Some(Err(e)) => return post(&FromWorker::Failed { message: e }),
            None => return post(&FromWorker::Failed { message: "message without `msg`".into() }),
        };
        match msg {
            ToWorker::Begin { files, total_bytes, max_total_bytes } => {
                let limits = ReadLimits { max_total_bytes, ..ReadLimits::default() };
                SESSION.with(|s| *s.borrow_mut() = Some(Session::with_limits(files, total_bytes, limits)));
            }
            ToWorker::FileSlice { name, offset, size, last } => {
                let helping = PART.with(|p| p.borrow().is_some());
                match beside(&data, "data") {
                    Some(b) if helping => take_part_slice(&name, offset, &b),
                    Some(b) => take_slice(&name, offset, size, last, &b),
                    None if helping => {
                        PART.with(|p| *p.borrow_mut() = None);
                        post(&FromWorker::Failed { message: format!("{name}: a part of the file arrived without its bytes") });
                    }
                    None => {
                        with_session(|s| s.unreadable(&name, size, "a part of the file arrived without its bytes"));
                        post(&FromWorker::Progress(with_session(|s| s.receiving())));
                    }
                }
            }
            ToWorker::Modified { name, secs } => with_session(|s| s.modified(&name, secs)),
            ToWorker::Split { name, size, tail_from } => with_session(|s| s.split(&name, size, tail_from)),
            ToWorker::BeginPart { name, size, from } => {
                PART.with(|p| *p.borrow_mut() = Some(PartJob::new(&name, size, from)));
            }
            ToWorker::Part { name } => {
                let piece = beside(&data, "piece").map(|b| {
                    let t0 = js_sys::Date::now();
                    let bytes = b.to_vec();
                    match Piece::check(&bytes) {
                        Ok(()) => debug(&format!("part of {name}: copy and check {:.0} ms", js_sys::Date::now() - t0)),
                        Err(e) => debug(&format!("part of {name}: {e}; parsing it here")),
                    }
                    bytes
                });
                let received = with_session(|s| s.part(&name, piece));
                complete_if(received, &name);
                post(&FromWorker::Progress(with_session(|s| s.receiving())));
            }
            ToWorker::Unreadable { name, size, message } => {
                with_session(|s| s.unreadable(&name, size, &message));
                post(&FromWorker::Progress(with_session(|s| s.receiving())));
            }
            ToWorker::Finish { .. } | ToWorker::Reanalyze { .. } => {
                let progress = SESSION.with(|s| s.borrow().as_ref().map(|s| s.progress(Phase::Analyzing)));
                if let Some(p) = progress {
                    post(&FromWorker::Progress(p));
                }
                let (again, layout) = match msg {
                    ToWorker::Reanalyze { dump_time_nanos, layout } => (Some(dump_time_nanos), layout),
                    ToWorker::Finish { layout } => (None, layout),
                    _ => (None, None),
                };
                let result = timed("analyze", || {
                    SESSION.with(|s| {
                        let mut s = s.borrow_mut();
                        let s = s.get_or_insert_with(Session::default);
                        match again {
                            Some(t) => s.reanalyze(t),
                            None => s.finish(),
                        }
                    })
                });
                let mut result = result;
                if let Some(opts) = layout {
                    timed("layout", || result.lay_out(opts));
                }
                timed("encode and post", || {
                    result.detach();
                    let beside = std::mem::take(&mut result.beside);
                    post_with(&FromWorker::Loaded(Box::new(result)), &beside.parts());
                });
            }
            ToWorker::WarmUp => {
                let reconciles = timed("warm up", reconscope::web::warm_up);
                debug(&format!("warmed up on {reconciles} reconciles"));
                post(&FromWorker::WarmedUp);
            }
            ToWorker::Inspect { reconcile } => {
                let lines = SESSION.with(|s| s.borrow().as_ref().and_then(|s| s.lines(reconcile)));
                post(&match lines {
                    Some(l) => FromWorker::Lines(l),
                    None => FromWorker::Failed { message: format!("no reconcile #{reconcile} is loaded") },
                });
            }
            ToWorker::Share { seq, request } => {
                let r = timed("share", || SESSION.with(|s| s.borrow().as_ref().map(|s| s.share(&request))));
                let result = r.unwrap_or_else(|| Err("nothing is loaded".into()));
                post(&FromWorker::Shared { seq, result: Box::new(result) });
            }
            ToWorker::Markdown { seq, app_url, taken_at_nanos, redact } => {
                let text = timed("markdown", || SESSION.with(|s| s.borrow().as_ref().map(|s| s.markdown(&app_url, taken_at_nanos, redact))));
                post(&FromWorker::Text { seq, text: text.unwrap_or_default() });
            }
            ToWorker::Redact { seq, text, redact } => {
                let text = reconscope::redact::Redactor::new(redact).redact(&text).into_owned();
                post(&FromWorker::Text { seq, text });
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
