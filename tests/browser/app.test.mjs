// Browser tests for the reconscope web UI.
//
// scripts/test.sh builds dist/ with trunk, serves it on a free localhost port
// and sets RECONSCOPE_URL (e.g. http://127.0.0.1:8123/). By hand:
//   python3 -m http.server 8123 --bind 127.0.0.1 --directory dist &
//   RECONSCOPE_URL=http://127.0.0.1:8123/ node --test tests/browser/
//
// Chromium is Debian's /usr/bin/chromium driven by playwright-core; never
// `npx playwright install` (it downloads a browser, which fails here).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const HERE = dirname(fileURLToPath(import.meta.url));
const SCREENSHOTS = join(HERE, 'screenshots');
const BASE_URL = process.env.RECONSCOPE_URL;
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const PRIVACY_LINE =
  'Nothing is uploaded: your files are read in this browser tab and never leave it.';

// Running as root needs --no-sandbox; the network flags keep Chromium from
// calling home (the machine has no network but the package registries).
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

let browser;

before(async () => {
  assert.ok(BASE_URL, 'set RECONSCOPE_URL to the served dist/ (scripts/test.sh does)');
  mkdirSync(SCREENSHOTS, { recursive: true });
  // chromium.launch starts from a fresh temporary profile every time.
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
});

after(async () => {
  await browser?.close();
});

/**
 * Opens the app in a new context and records what a person would not see:
 * console errors, uncaught exceptions, CSP violations and every request.
 */
async function openApp(contextOptions = {}) {
  const context = await browser.newContext(contextOptions);
  const seen = { consoleErrors: [], pageErrors: [], requests: [] };
  context.on('request', (req) => seen.requests.push(req.url()));
  // Runs before any page script; CSP reports land in window.__cspViolations.
  await context.addInitScript(() => {
    window.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      window.__cspViolations.push(`${e.violatedDirective} blocked ${e.blockedURI || '(inline)'}`);
    });
  });
  const page = await context.newPage();
  page.on('console', (msg) => {
    if (msg.type() === 'error') seen.consoleErrors.push(msg.text());
  });
  page.on('pageerror', (err) => seen.pageErrors.push(String(err)));

  const response = await page.goto(BASE_URL, { waitUntil: 'load' });
  assert.equal(response?.status(), 200, `GET ${BASE_URL}`);
  await page.waitForSelector('[data-testid=app-ready]', { state: 'attached', timeout: 30_000 });
  return { context, page, seen };
}

/** Fails on console errors, exceptions, CSP violations or off-origin requests. */
async function assertClean(page, seen) {
  const violations = await page.evaluate(() => window.__cspViolations);
  assert.deepEqual(violations, [], 'CSP violations');
  assert.deepEqual(seen.pageErrors, [], 'uncaught exceptions');
  assert.deepEqual(seen.consoleErrors, [], 'console errors');

  const origin = new URL(BASE_URL).origin;
  const offOrigin = seen.requests.filter((url) => {
    const u = new URL(url);
    if (u.protocol === 'data:' || u.protocol === 'blob:') return false; // stays in the tab
    return u.origin !== origin;
  });
  assert.deepEqual(offOrigin, [], `requests that left ${origin}`);
  assert.ok(seen.requests.some((url) => url.endsWith('.wasm')), 'the wasm module was fetched');
}

describe('landing page', { timeout: 120_000 }, () => {
  test('renders under the CSP, offline, without errors', async () => {
    const { context, page, seen } = await openApp();
    try {
      assert.equal((await page.locator('h1').innerText()).trim(), 'reconscope');
      assert.equal((await page.getByTestId('privacy').innerText()).trim(), PRIVACY_LINE);
      assert.equal(await page.locator('input[type=file]').count(), 1);
      assert.equal(await page.locator('input[type=file]').evaluate((el) => el.multiple), true);
      assert.equal(await page.getByTestId('drop-zone').count(), 1);

      await page.screenshot({ path: join(SCREENSHOTS, 'landing.png'), fullPage: true });
      await assertClean(page, seen);
    } finally {
      await context.close();
    }
  });

  test('dark color scheme renders too', async () => {
    const { context, page, seen } = await openApp({ colorScheme: 'dark' });
    try {
      const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      assert.equal(bg, 'rgb(17, 20, 24)', 'dark background from style.css');
      await page.screenshot({ path: join(SCREENSHOTS, 'landing-dark.png'), fullPage: true });
      await assertClean(page, seen);
    } finally {
      await context.close();
    }
  });

  test('lists files chosen with the picker or dropped on the zone', async () => {
    const { context, page, seen } = await openApp();
    try {
      await page.locator('input[type=file]').setInputFiles([
        { name: 'manager.log', mimeType: 'text/plain', buffer: Buffer.from('hello\n') },
        { name: 'artifacts.tar.gz', mimeType: 'application/gzip', buffer: Buffer.from([0x1f, 0x8b]) },
      ]);
      await page.getByTestId('file-list').waitFor({ state: 'attached' });
      assert.deepEqual(await page.getByTestId('file-list').locator('li').allInnerTexts(), [
        'manager.log',
        'artifacts.tar.gz',
      ]);

      // A synthetic drop, as a person dragging a file from the desktop.
      await page.getByTestId('drop-zone').evaluate((zone) => {
        const dt = new DataTransfer();
        dt.items.add(new File(['x'], 'etcd.log', { type: 'text/plain' }));
        zone.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
        zone.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
      });
      await page.waitForFunction(
        () => document.querySelector('[data-testid=file-list]')?.textContent === 'etcd.log',
      );
      await assertClean(page, seen);
    } finally {
      await context.close();
    }
  });
});
