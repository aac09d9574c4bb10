// Browser benchmark for the reconscope web app (issue 4 item 12). Not a test:
// it asserts nothing, it prints numbers. Run it through
// scripts/browser-bench.sh, which generates the log and serves dist/; by hand:
//   RECONSCOPE_URL=http://127.0.0.1:PORT/ node tests/browser/bench/bench.mjs LOG [LABEL]
//
// What it measures, in one fresh headless Chromium page:
//   1. load: once the page has warmed its worker up (data-worker=warm, as it
//      has by the time a person chooses a file), from the `change` event of
//      <input type=file> (the file is given
//      with setInputFiles, as a person choosing it in the picker) to
//      [data-testid=timeline] having a non-zero data-reconcile-count, and to
//      its canvas having drawn bars. Both times are taken inside the page
//      (a MutationObserver stamps performance.now()), so Playwright's polling
//      does not add to them.
//   2. the longest main-thread task while loading: a PerformanceObserver for
//      'longtask' (tasks > 50 ms), plus 'long-animation-frame' entries for
//      script attribution, registered by addInitScript before the app loads.
//   3. pan/zoom smoothness: ~5 s of mouse-wheel zooms and drag-pans over the
//      timeline canvas while an injected requestAnimationFrame loop counts
//      frames -> frames per second (60 is the ceiling of a headless tab).
//
// Exit codes: 0 ok, 3 the file did not load (timeout or crashed tab), 1 other.

import { basename } from 'node:path';
import { statSync } from 'node:fs';
import { launchChromium } from '../chromium.mjs';

const [, , LOG, LABEL] = process.argv;
const BASE_URL = process.env.RECONSCOPE_URL;
const LOAD_TIMEOUT_MS = Number(process.env.BENCH_LOAD_TIMEOUT_MS || 180_000);
const PAN_ZOOM_MS = 5_000;
if (!LOG || !BASE_URL) {
  console.error('usage: RECONSCOPE_URL=http://127.0.0.1:PORT/ node bench.mjs LOG [LABEL]');
  process.exit(1);
}

// As in tests/browser/*.test.mjs (see /work/shared/TOOLCHAIN.md). A bigger
// V8 heap only when asked (BENCH_BIG_HEAP=1): the app keeps its data in wasm
// memory, which this flag does not limit.
const EXTRA_ARGS = process.env.BENCH_BIG_HEAP === '1' ? ['--js-flags=--max-old-space-size=8192'] : [];

// Runs in the page before any app script.
function instrument() {
  const b = (window.__bench = {
    longtasks: [], // { start, duration, name, attribution }
    loafs: [], // long animation frames with script attribution
    changeAt: null, // input change event
    countAt: null, // data-reconcile-count > 0
    drawnAt: null, // canvas data-drawn-bars > 0
    frames: 0,
    counting: false,
  });
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        b.longtasks.push({
          start: e.startTime,
          duration: e.duration,
          name: e.name,
          attribution: (e.attribution || []).map((a) => `${a.containerType || ''}:${a.name || ''}`).join(','),
        });
      }
    }).observe({ type: 'longtask', buffered: true });
  } catch (err) {
    b.longtaskError = String(err);
  }
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        b.loafs.push({
          start: e.startTime,
          duration: e.duration,
          blocking: e.blockingDuration,
          // The rendering phase at the end of the frame: rAF callbacks, style, layout, paint.
          render: e.renderStart ? e.startTime + e.duration - e.renderStart : 0,
          scripts: (e.scripts || []).map((s) => ({
            duration: Math.round(s.duration),
            invoker: s.invoker,
            fn: s.sourceFunctionName,
            url: (s.sourceURL || '').split('/').pop(),
          })),
        });
      }
    }).observe({ type: 'long-animation-frame', buffered: true });
  } catch {
    // Not every Chromium has the Long Animation Frames API.
  }
  document.addEventListener('change', (e) => {
    if (e.target instanceof HTMLInputElement && e.target.type === 'file') b.changeAt = performance.now();
  }, true);
  const check = () => {
    const tl = document.querySelector('[data-testid=timeline]');
    if (b.countAt === null && Number(tl?.dataset.reconcileCount) > 0) b.countAt = performance.now();
    if (b.drawnAt === null && Number(tl?.querySelector('canvas')?.dataset.drawnBars) > 0) b.drawnAt = performance.now();
  };
  new MutationObserver(check).observe(document, { subtree: true, childList: true, attributes: true });
  const tick = () => {
    if (b.counting) b.frames++;
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}

const fmtMs = (ms) => `${Math.round(ms)} ms`;

async function main() {
  const size = statSync(LOG).size;
  const browser = await launchChromium(EXTRA_ARGS);
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.addInitScript(instrument);
  const page = await context.newPage();
  const errors = [];
  let crashed = false;
  page.on('pageerror', (err) => errors.push(String(err)));
  // The app and its worker log each loading step's time as
  // `reconscope worker: parse 123 ms` (console.debug); printed below.
  const steps = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(msg.text());
    if (msg.text().startsWith('reconscope ')) steps.push(msg.text());
  });
  page.on('crash', () => {
    crashed = true;
  });

  const out = [];
  out.push(`input: ${LABEL || basename(LOG)} (${(size / 2 ** 20).toFixed(0)} MiB on disk)`);
  try {
    await page.goto(BASE_URL, { waitUntil: 'load' });
    await page.waitForSelector('input[type=file]', { state: 'attached' });
    // As a person opening the page and then choosing a file: the app has
    // started its worker and warmed it up (a second or so) by then.
    const opened = Date.now();
    await page.waitForSelector('[data-worker=warm]', { state: 'attached', timeout: 30_000 });
    out.push(`worker warm ${((Date.now() - opened) / 1000).toFixed(1)} s after the page loaded`);

    // 1. load. With a local browser Playwright hands Chromium the path, so
    // the page gets a disk-backed File, as from the picker.
    const wall0 = Date.now();
    await page.locator('input[type=file]').setInputFiles(LOG);
    try {
      await page.waitForFunction(() => window.__bench.countAt !== null && window.__bench.drawnAt !== null, null, {
        timeout: LOAD_TIMEOUT_MS,
        polling: 250,
      });
    } catch (err) {
      const wall = ((Date.now() - wall0) / 1000).toFixed(1);
      const why = crashed ? 'the tab crashed (out of memory?)' : String(err).split('\n')[0];
      let status = '';
      try {
        status = await page.evaluate(() => document.querySelector('[data-testid=progress], progress, [role=progressbar]')?.closest('section,div')?.innerText?.slice(0, 300) || '');
      } catch {}
      console.log(out.join('\n'));
      console.log(`load: FAILED after ${wall} s: ${why}`);
      if (status) console.log(`  last progress text: ${status.replace(/\s+/g, ' ')}`);
      for (const e of errors.slice(0, 5)) console.log(`  page error: ${e.slice(0, 300)}`);
      await browser.close();
      process.exit(3);
    }
    // The app may still work after the first draw (findings, a second draw):
    // wait until one second passes without a long task (at most 60 s), so
    // that pan/zoom measures the loaded app, not the end of loading.
    const settled = await page.evaluate(async () => {
      const b = window.__bench;
      const start = performance.now();
      for (;;) {
        const last = b.longtasks.reduce((m, t) => Math.max(m, t.start + t.duration), 0);
        const now = performance.now();
        if (now - Math.max(last, b.drawnAt) >= 1000 || now - start > 60_000) return { at: Math.max(last, b.drawnAt) - b.changeAt, quiet: now - start <= 60_000 };
        await new Promise((r) => setTimeout(r, 100));
      }
    });
    const quietLine = `main thread quiet (no long task for 1 s) from: ${(settled.at / 1000).toFixed(1)} s` + (settled.quiet ? '' : ' (never quiet within 60 s)');
    const load = await page.evaluate(() => {
      const b = window.__bench;
      const tl = document.querySelector('[data-testid=timeline]');
      const during = b.longtasks.filter((t) => t.start + t.duration >= b.changeAt && t.start <= b.drawnAt);
      const longest = during.reduce((m, t) => (t.duration > (m?.duration ?? 0) ? t : m), null);
      const loafs = b.loafs
        .filter((f) => f.start + f.duration >= b.changeAt && f.start <= b.drawnAt)
        .sort((x, y) => y.duration - x.duration)
        .slice(0, 5);
      return {
        // BENCH_DEBUG=1: every long task while loading, [start s, duration ms].
        debug: during.map((t) => [+((t.start - b.changeAt) / 1000).toFixed(1), Math.round(t.duration)]),
        reconciles: Number(tl.dataset.reconcileCount),
        toCount: b.countAt - b.changeAt,
        toDrawn: b.drawnAt - b.changeAt,
        longest,
        count: during.length,
        total: during.reduce((s, t) => s + t.duration, 0),
        loafs,
        longtaskError: b.longtaskError,
        heap: performance.memory?.usedJSHeapSize,
        domNodes: document.getElementsByTagName('*').length,
        // The element with the most direct children (a long list is a
        // common cause of slow style, layout and commit).
        widest: (() => {
          let best = null;
          for (const el of document.getElementsByTagName('*')) if (!best || el.childElementCount > best.childElementCount) best = el;
          const owner = best?.closest('[data-testid]')?.dataset.testid;
          return best ? `${best.tagName.toLowerCase()}${owner ? ` in [data-testid=${owner}]` : ''} with ${best.childElementCount} children` : '';
        })(),
      };
    });
    out[0] = `input: ${LABEL || basename(LOG)} (${load.reconciles} reconciles)`;
    out.push(`load (file chosen -> timeline drawn): ${(load.toDrawn / 1000).toFixed(1)} s` +
      ` (reconcile count set at ${(load.toCount / 1000).toFixed(1)} s)`);
    if (load.longtaskError) out.push(`longest main-thread task while loading: unavailable (${load.longtaskError})`);
    else out.push(`longest main-thread task while loading: ${load.longest ? fmtMs(load.longest.duration) : 'none over 50 ms'}` +
      ` (${load.count} long tasks, ${fmtMs(load.total)} in total)`);
    for (const f of load.loafs) {
      const s = f.scripts.sort((x, y) => y.duration - x.duration)[0];
      out.push(`  long frame ${fmtMs(f.duration)} at +${(Math.max(0, f.start - (await page.evaluate(() => window.__bench.changeAt))) / 1000).toFixed(1)} s` +
        (s ? `: ${s.invoker || '?'}${s.fn ? ` ${s.fn}` : ''} (${s.url || '?'}) ${s.duration} ms` : '') +
        (f.render > 50 ? `; render phase (rAF callbacks, style, layout, paint) ${fmtMs(f.render)}` : '') +
        (!s && f.render <= 50 ? '; no script attributed (GC, input or a browser task)' : ''));
    }


    if (steps.length) out.push(`  steps: ${steps.map((t) => t.replace(/^reconscope /, '')).join('; ')}`);
    out.push(quietLine);
    if (process.env.BENCH_DEBUG === '1') {
      console.error(`long tasks while loading: ${JSON.stringify(load.debug)}`);
      console.error(`long frames while loading: ${JSON.stringify(await page.evaluate(() => {
        const b = window.__bench;
        return b.loafs.filter((f) => f.start + f.duration >= b.changeAt && f.start <= b.drawnAt)
          .map((f) => [+((f.start - b.changeAt) / 1000).toFixed(2), Math.round(f.duration), Math.round(f.render), f.scripts.map((x) => `${x.invoker} ${x.duration}`).join('|')]);
      }))}`);
    }
    out.push(`page after loading: ${load.domNodes} DOM elements (largest: ${load.widest})` +
      (load.heap ? `, JS heap ${(load.heap / 2 ** 20).toFixed(0)} MiB` : ''));

    // 2. pan/zoom over the canvas for ~5 s, counting animation frames.
    const canvas = page.getByTestId('timeline').locator('canvas');
    await canvas.scrollIntoViewIfNeeded();
    const box = await canvas.boundingBox();
    const cx = box.x + box.width * 0.5;
    const cy = box.y + Math.min(box.height * 0.5, 300);
    const view0 = await canvas.getAttribute('data-view');
    const views = new Set([view0]);
    await page.evaluate(() => {
      const b = window.__bench;
      b.frames = 0;
      b.panStart = performance.now();
      b.counting = true;
    });
    // BENCH_TRACE=FILE: a Chrome trace of the pan/zoom phase (chrome://tracing).
    if (process.env.BENCH_TRACE) await browser.startTracing(page, { path: process.env.BENCH_TRACE, screenshots: false });
    const t0 = Date.now();
    let step = 0;
    while (Date.now() - t0 < PAN_ZOOM_MS) {
      await page.mouse.move(cx, cy);
      // Zoom in for the first half of each cycle and out in the second, so
      // the view keeps covering many bars; drag-pan left and right between.
      const phase = step % 8;
      await page.mouse.wheel(0, phase < 4 ? -240 : 240);
      await page.mouse.down();
      await page.mouse.move(cx + (step % 2 ? -120 : 120), cy, { steps: 6 });
      await page.mouse.up();
      views.add(await canvas.getAttribute('data-view'));
      step++;
    }
    if (process.env.BENCH_TRACE) await browser.stopTracing();
    const pan = await page.evaluate(async () => {
      const b = window.__bench;
      b.counting = false;
      const ms = performance.now() - b.panStart;
      // Performance entries arrive a little later than the tasks they time.
      await new Promise((r) => setTimeout(r, 1000));
      const byInvoker = {};
      for (const f of b.loafs.filter((f) => f.start >= b.panStart && f.start <= b.panStart + ms)) {
        for (const s of f.scripts) byInvoker[s.invoker] = (byInvoker[s.invoker] || 0) + s.duration;
      }
      const during = b.longtasks.filter((t) => t.start >= b.panStart && t.start <= b.panStart + ms);
      const frame = b.loafs.filter((f) => f.start >= b.panStart && f.start <= b.panStart + ms).sort((x, y) => y.duration - x.duration)[0];
      const script = frame?.scripts.sort((x, y) => y.duration - x.duration)[0];
      return {
        debug: {
          longtasks: during.map((t) => [Math.round(t.start - b.panStart), Math.round(t.duration)]),
          loafs: b.loafs.filter((f) => f.start >= b.panStart && f.start <= b.panStart + ms).map((f) => [Math.round(f.start - b.panStart), Math.round(f.duration), Math.round(f.render), f.scripts.map((x) => `${x.invoker} ${x.duration}`).join('|')]),
        },
        invokers: Object.entries(byInvoker).sort((x, y) => y[1] - x[1]).slice(0, 3).map(([k, v]) => `${k} ${Math.round(v)} ms`).join(', '),
        worst: frame ? `${Math.round(frame.duration)} ms frame: ${script ? `${script.invoker} ${script.duration} ms, ` : ''}render phase ${Math.round(frame.render)} ms` : '',
        ms,
        fps: (b.frames * 1000) / ms,
        longest: during.reduce((m, t) => Math.max(m, t.duration), 0),
        count: during.length,
        bars: Number(document.querySelector('[data-testid=timeline] canvas').dataset.drawnBars),
        size: (({ width, height }) => `${width}x${height}`)(document.querySelector('[data-testid=timeline] canvas')),
      };
    });
    out.push(`pan/zoom: ${pan.fps.toFixed(0)} fps over ${(pan.ms / 1000).toFixed(1)} s` +
      ` (${step} wheel+drag steps, ${views.size - 1} distinct views, longest task ${pan.longest ? fmtMs(pan.longest) : '< 50 ms'}, ${pan.count} long tasks; last draw ${pan.bars} bars on a ${pan.size} px canvas)`);
    // BENCH_DEBUG=1: every long task and long frame of the pan/zoom phase
    // ([start ms, duration ms] and [start, duration, render phase, scripts]).
    if (process.env.BENCH_DEBUG === '1') console.error(JSON.stringify(pan.debug));
    if (pan.worst) out.push(`  worst pan/zoom frame: ${pan.worst}`);
    if (pan.invokers) out.push(`  script time in long frames during pan/zoom: ${pan.invokers}`);
    if (errors.length) out.push(`page errors: ${errors.length} (first: ${errors[0].slice(0, 200)})`);
    console.log(out.join('\n'));
  } finally {
    await browser.close();
  }
}

main().catch((err) => {
  console.error(`bench failed: ${err?.stack || err}`);
  process.exit(1);
});
