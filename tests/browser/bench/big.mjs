// Big inputs in the browser (issue 15 item 6). Not a test: it asserts
// nothing, it prints numbers. Run it through scripts/browser-big.sh, which
// generates the logs and serves dist/; by hand:
//   RECONSCOPE_URL=http://127.0.0.1:PORT/ node tests/browser/bench/big.mjs LOG...
//
// For each LOG, in a fresh headless Chromium: chooses it with the file
// picker, waits until the timeline shows its reconciles, and prints
//   - load: from choosing the file to the timeline's reconcile count
//     (measured in the page, after the spare worker warmed up);
//   - the tab's peak memory: the largest sum of the resident memory (VmRSS)
//     of Chromium's renderer processes, sampled every 100 ms from /proc
//     while loading (the page and its workers run in the renderer);
//   - what was read: the summary's bytes, and the left-out banner if any.
// Exit codes: 0 ok, 3 a file did not load (timeout or crashed tab), 1 other.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { launchChromium } from '../chromium.mjs';

const LOGS = process.argv.slice(2);
const BASE_URL = process.env.RECONSCOPE_URL;
const LOAD_TIMEOUT_MS = Number(process.env.BENCH_LOAD_TIMEOUT_MS || 600_000);
if (!LOGS.length || !BASE_URL) {
  console.error('usage: RECONSCOPE_URL=http://127.0.0.1:PORT/ node big.mjs LOG...');
  process.exit(1);
}

/** The pids under `root` (its descendants), from /proc. */
function descendants(root) {
  const children = new Map();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(d));
    } catch {
      // gone meanwhile
    }
  }
  const out = [];
  const walk = (p) => (children.get(p) || []).forEach((c) => (out.push(c), walk(c)));
  walk(root);
  return out;
}

/** Bytes resident in the renderer processes under `root`. */
function rendererRss(root) {
  let sum = 0;
  for (const pid of descendants(root)) {
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('--type=renderer')) continue;
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (m) sum += Number(m[1]) * 1024;
    } catch {
      // gone meanwhile
    }
  }
  return sum;
}

const gib = (n) => `${(n / 2 ** 30).toFixed(2)} GiB`;
let status = 0;
for (const log of LOGS) {
  const browser = await launchChromium();
  // Chromium runs as a child of this process (Playwright spawns it).
  const root = process.pid;
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  let crashed = false;
  page.on('crash', () => (crashed = true));
  try {
    await page.goto(BASE_URL);
    await page.waitForSelector('[data-testid=app-ready]', { state: 'attached', timeout: 60_000 });
    await page.waitForSelector('[data-worker=warm]', { state: 'attached', timeout: 60_000 }).catch(() => {});
    const idle = rendererRss(root);
    let peak = idle;
    const sampler = setInterval(() => (peak = Math.max(peak, rendererRss(root))), 100);
    const t0 = Date.now();
    await page.locator('input[type=file]').setInputFiles(log);
    let loaded = true;
    await page
      .waitForFunction(() => Number(document.querySelector('[data-testid=timeline]')?.dataset.reconcileCount) > 0, null, { timeout: LOAD_TIMEOUT_MS, polling: 200 })
      .catch(() => (loaded = false));
    const ms = Date.now() - t0;
    clearInterval(sampler);
    peak = Math.max(peak, rendererRss(root));
    const text = async (id) => (await page.getByTestId(id).count()) ? (await page.getByTestId(id).first().textContent()).trim() : '';
    const size = statSync(log).size;
    console.log(`\n${basename(log)}: ${gib(size)}`);
    if (!loaded || crashed) {
      status = 3;
      console.log(`  did not load within ${LOAD_TIMEOUT_MS / 1000} s${crashed ? ' (the tab crashed)' : ''}; status: ${await text('status').catch(() => '?')}`);
    } else {
      const count = await page.getByTestId('timeline').getAttribute('data-reconcile-count');
      console.log(`  load ${(ms / 1000).toFixed(1)} s, ${count} reconciles`);
      console.log(`  tab memory: peak ${gib(peak)} (renderer processes, ${gib(idle)} before the load)`);
      console.log(`  summary: ${await text('summary')}`);
      const banner = await text('left-out-banner');
      console.log(`  banner: ${banner || '(none: read whole)'}`);
    }
  } catch (e) {
    status = status || 1;
    console.log(`${basename(log)}: ${e}`);
  } finally {
    await browser.close();
  }
}
process.exit(status);
