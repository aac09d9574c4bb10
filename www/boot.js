// Starts the wasm app. This replaces trunk's inline loader script, which the
// page's Content-Security-Policy (script-src 'self') would block. trunk's
// `pattern_script` (Trunk.toml) writes the hashed file names onto our tag.
const tag = document.querySelector('script[data-reconscope-js]');

try {
  // Both paths are relative ("./app-<hash>.js"): dist/ works under any sub-path.
  const { default: init } = await import(tag.dataset.reconscopeJs);
  await init({ module_or_path: tag.dataset.reconscopeWasm });
} catch (err) {
  console.error('reconscope failed to start', err);
  const p = document.createElement('p');
  p.className = 'boot-error';
  p.textContent =
    'reconscope could not start: this browser needs WebAssembly (with SIMD) support. ' + String(err);
  document.body.append(p);
}
