// What the browser tests share: the paths, the CLI, one Chromium per test
// file, opening the app and the checks every page must pass.
//
// (Not a test file itself: scripts/test.sh runs `tests/browser/*.test.mjs`.)

import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, watchedPage } from './chromium.mjs';

export const HERE = dirname(fileURLToPath(import.meta.url));
export const ROOT = join(HERE, '..', '..');
export const SCREENSHOTS = join(HERE, 'screenshots');
/** The served dist/ (scripts/test.sh sets it, e.g. http://127.0.0.1:8123/reconscope/). */
export const BASE_URL = process.env.RECONSCOPE_URL;
/** The incident fixture, as the CLI reads it (a folder). */
export const INCIDENT = 'tests/fixtures/incident/cozyreport';
// The built-in example: the incident fixture as a zip holding a tgz
// (scripts/make-example.py writes it; trunk copies it into dist/example/).
export const EXAMPLE_ZIP = join(ROOT, 'www', 'example', 'cozyreport.zip');

/** The test file's Chromium, once `useChromium`'s `before` hook has launched it. */
export let browser;

/**
 * Launches Chromium (a fresh temporary profile every time) before the test
 * file's tests and closes it after them; with `app` (the default) it first
 * checks that RECONSCOPE_URL is set.
 */
export function useChromium({ app = true } = {}) {
  before(async () => {
    if (app) assert.ok(BASE_URL, 'set RECONSCOPE_URL to the served dist/ (scripts/test.sh does)');
    mkdirSync(SCREENSHOTS, { recursive: true });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
  });
}

/** Runs the CLI (`cargo run` builds it when needed; cargo test already has). */
export const cli = (args, encoding = 'utf8') =>
  execFileSync('cargo', ['run', '--quiet', '--offline', '--bin', 'reconscope', '--', ...args], { cwd: ROOT, encoding, maxBuffer: 64 << 20 });

/**
 * Opens the app at `url` in a new context of `browser` (no storage, no files) that
 * records what a person would not see: console errors, uncaught
 * exceptions, CSP violations and every request. Waits for the app to be
 * ready.
 */
export async function openApp(browser, contextOptions = {}, url = BASE_URL, { initScript } = {}) {
  const { context, page, seen } = await watchedPage(browser, contextOptions);
  if (initScript) await page.addInitScript(initScript);

  const response = await page.goto(url, { waitUntil: 'load' });
  assert.equal(response?.status(), 200, `GET ${url.slice(0, 120)}`);
  await page.waitForSelector('[data-testid=app-ready]', { state: 'attached', timeout: 30_000 });
  return { context, page, seen };
}

/** Fails on CSP violations, uncaught exceptions, console errors or requests that left the origin. */
export async function assertClean(page, seen) {
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
}

/** Presses Open example and waits for its 359 reconciles on the timeline. */
export async function openExample(page) {
  await page.getByTestId('open-example').click();
  await page.waitForSelector('[data-testid=timeline][data-reconcile-count="359"]', { state: 'attached', timeout: 60_000 });
}
