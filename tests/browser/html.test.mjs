// Browser tests for the self-contained HTML report
// (`reconscope analyze INPUT... --html FILE`, src/htmlreport.rs): the CLI
// writes one file with the app and the inputs inlined; it is opened straight
// from disk (file://) and must show the analysis without any request but
// data:/blob: URLs. Needs dist/ (scripts/test.sh runs trunk first); by hand:
//   node --test tests/browser/html.test.mjs
// One test writes the report as a CI job that installed only the CLI does:
// from a folder without dist/, the app fetched from the served app at
// RECONSCOPE_URL (`--app-url`, checked against its reconscope-manifest.json).
//
// No --allow-file-access-from-files: the page loads nothing from disk (the
// wasm, the worker and the inputs are all inside the HTML file).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { launchChromium, watchedPage } from './chromium.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '..', '..');
const SCREENSHOTS = join(HERE, 'screenshots');
// The built app to inline (trunk's dist/, relative to the repository).
const APP_DIR = process.env.RECONSCOPE_APP_DIR || 'dist';

const HOSTILE_SCRIPT = '</script><script>alert(1)</script>';
const HOSTILE_IMG = '<img src=x onerror=alert(1)>';

let browser;
let tmp;

before(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  tmp = mkdtempSync(join(tmpdir(), 'reconscope-html-'));
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

/** Runs the CLI to write report.html from INPUTs; returns its path. */
function writeReport(name, ...inputs) {
  const out = join(tmp, name);
  execFileSync('cargo', ['run', '--quiet', '--bin', 'reconscope', '--', 'analyze', ...inputs, '--html', out, '--app-dir', APP_DIR], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return out;
}

/**
 * Runs the CLI in an empty folder (no dist/ there) to write NAME from
 * INPUTs (relative to the repository) with the app fetched from APP_URL;
 * returns the report's path.
 */
function writeReportFromUrl(name, appUrl, ...inputs) {
  const cwd = mkdtempSync(join(tmp, 'no-dist-'));
  const out = join(cwd, name);
  const args = ['run', '--quiet', '--manifest-path', join(ROOT, 'Cargo.toml'), '--bin', 'reconscope', '--', 'analyze'];
  execFileSync('cargo', [...args, ...inputs.map((i) => join(ROOT, i)), '--html', name, '--app-url', appUrl], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return out;
}

/** Opens a report from disk, recording requests, errors, CSP violations and dialogs. */
async function openReport(file) {
  const { context, page, seen } = await watchedPage(browser);
  seen.dialogs = [];
  page.on('dialog', async (d) => {
    seen.dialogs.push(`${d.type()}: ${d.message()}`);
    await d.dismiss();
  });
  const url = pathToFileURL(file).href;
  await page.goto(url, { waitUntil: 'load' });
  return { context, page, seen, url };
}

async function assertClean(page, seen, url) {
  assert.deepEqual(await page.evaluate(() => window.__cspViolations), [], 'CSP violations');
  assert.deepEqual(seen.pageErrors, [], 'uncaught exceptions');
  assert.deepEqual(seen.consoleErrors, [], 'console errors');
  assert.deepEqual(seen.dialogs, [], 'dialogs');
  // The document itself, then nothing but data: and blob: URLs.
  const others = seen.requests.filter((u) => u !== url && !u.startsWith('data:') && !u.startsWith('blob:'));
  assert.deepEqual(others, [], 'requests other than data:/blob:');
}

describe('the self-contained HTML report', { timeout: 240_000 }, () => {
  test('the incident folder, opened from file://: findings and timeline, no network', async () => {
    const file = writeReport('report.html', 'tests/fixtures/incident/cozyreport');
    console.log(`report.html: ${statSync(file).size} bytes`);
    const { context, page, seen, url } = await openReport(file);
    try {
      await page.waitForSelector('[data-finding-kind=stalled-worker]', { state: 'attached', timeout: 90_000 });
      const findings = page.getByTestId('findings');
      assert.equal(await findings.locator('[data-finding-kind=stalled-worker]').count(), 1);
      assert.equal(await findings.locator('[data-finding-kind=expired-context]').count(), 2);
      assert.equal(await findings.locator('[data-finding-kind=stuck-deletion]').count(), 1);
      assert.equal(await page.getByTestId('timeline').getAttribute('data-reconcile-count'), '359');
      await page.waitForFunction(() => Number(document.querySelector('[data-testid=timeline] canvas')?.dataset.drawnBars) > 0);
      await page.screenshot({ path: join(SCREENSHOTS, 'html-report.png'), fullPage: false });
      await assertClean(page, seen, url);
    } finally {
      await context.close();
    }
  });

  test('the app fetched from --app-url (no dist/ in the working folder): the same findings from file://', {
    skip: !process.env.RECONSCOPE_URL && 'set RECONSCOPE_URL to the served dist/ (scripts/test.sh does)',
  }, async () => {
    const file = writeReportFromUrl('fetched.html', process.env.RECONSCOPE_URL, 'tests/fixtures/incident/cozyreport');
    // The app inlined is the served one: the same bytes as dist/.
    const local = readFileSync(writeReport('local.html', 'tests/fixtures/incident/cozyreport'), 'utf8');
    assert.ok(readFileSync(file, 'utf8') === local, 'the report from --app-url equals the one from --app-dir dist');
    const { context, page, seen, url } = await openReport(file);
    try {
      await page.waitForSelector('[data-finding-kind=stalled-worker]', { state: 'attached', timeout: 90_000 });
      const findings = page.getByTestId('findings');
      assert.equal(await findings.locator('[data-finding-kind=stalled-worker]').count(), 1);
      assert.equal(await findings.locator('[data-finding-kind=expired-context]').count(), 2);
      assert.equal(await findings.locator('[data-finding-kind=stuck-deletion]').count(), 1);
      assert.equal(await page.getByTestId('timeline').getAttribute('data-reconcile-count'), '359');
      await page.waitForFunction(() => Number(document.querySelector('[data-testid=timeline] canvas')?.dataset.drawnBars) > 0);
      await assertClean(page, seen, url);
    } finally {
      await context.close();
    }
  });

  test('hostile log text and file names stay text: no dialog, no injected elements', async () => {
    const dir = join(tmp, 'hostile');
    mkdirSync(dir, { recursive: true });
    const id = '0b7c2a4e-1111-4222-8333-944455556666';
    const ctx = (msg) =>
      `{"controller": "tenantcontrolplane", "namespace": "ns", "name": "${HOSTILE_IMG}", "reconcileID": "${id}", "error": "${msg}"}`;
    writeFileSync(
      join(dir, `${HOSTILE_IMG}.log`),
      [
        `2026-05-26T16:21:07Z\tINFO\tStarting workers\t{"controller": "tenantcontrolplane", "worker count": 1}`,
        `2026-05-26T16:21:08Z\tINFO\tstart ${HOSTILE_SCRIPT}\t${ctx('x')}`,
        `2026-05-26T16:22:09Z\tERROR\tReconciler error ${HOSTILE_SCRIPT} ${HOSTILE_IMG}\t${ctx(HOSTILE_IMG)}`,
        '',
      ].join('\n'),
    );
    const file = writeReport('hostile.html', dir);
    const { context, page, seen, url } = await openReport(file);
    try {
      // The reconcile ran 61 s, past the 30 s timeout: a slow-reconcile finding.
      await page.waitForSelector('[data-finding-kind=slow-reconcile]', { state: 'attached', timeout: 90_000 });
      assert.equal(await page.getByTestId('timeline').getAttribute('data-reconcile-count'), '1');
      // The file name shows as text.
      await page.waitForFunction((name) => document.body.innerText.includes(name), `${HOSTILE_IMG}.log`);
      // The reconcile's log lines in the inspector show the messages as text.
      await page.locator('[data-finding-kind=slow-reconcile]').getByTestId('inspect-reconcile').click();
      const inspector = page.getByTestId('inspector');
      await inspector.waitFor({ state: 'attached', timeout: 10_000 });
      await page.waitForFunction(
        (t) => document.querySelector('[data-testid=inspector]')?.textContent.includes(t),
        `Reconciler error ${HOSTILE_SCRIPT} ${HOSTILE_IMG}`,
        { timeout: 10_000 },
      );
      assert.equal(await page.locator('img[src=x]').count(), 0);
      assert.equal(await page.locator('body script').count(), 0);
      await page.waitForTimeout(500);
      await page.screenshot({ path: join(SCREENSHOTS, 'html-report-hostile.png'), fullPage: true });
      await assertClean(page, seen, url);
    } finally {
      await context.close();
    }
  });
});
