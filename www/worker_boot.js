// Starts reconscope's Web Worker (src/bin/worker.rs). A classic worker:
// trunk builds it with wasm-bindgen's `no-modules` target, whose glue
// (worker.js) defines the global `wasm_bindgen`. Both paths are relative to
// this script, so the app works under any sub-path.
importScripts('./worker.js');
wasm_bindgen({ module_or_path: './worker_bg.wasm' }).catch((err) => {
  console.error('reconscope worker failed to start', err);
  throw err;
});
