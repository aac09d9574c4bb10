// Browser tests for the reconscope web UI.
//
// scripts/test.sh builds dist/ with trunk, serves it under a sub-path on a
// free localhost port and sets RECONSCOPE_URL (e.g.
// http://127.0.0.1:8123/reconscope/). By hand, at the root:
//   python3 -m http.server 8123 --bind 127.0.0.1 --directory dist &
//   RECONSCOPE_URL=http://127.0.0.1:8123/ node --test tests/browser/
// The loading tests also run the CLI (`cargo run`) for the expected counts.
//
// Chromium is Debian's /usr/bin/chromium driven by playwright-core; never
// `npx playwright install` (it downloads a browser, which fails here).

import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BASE_URL, EXAMPLE_ZIP, INCIDENT, ROOT, SCREENSHOTS, assertClean, browser, cli, openApp, useChromium } from './helpers.mjs';

const PRIVACY_LINE =
  'Nothing is uploaded: your files are read in this browser tab and never leave it.';

useChromium();

/** The checks of every page (`assertClean`), and the wasm module was fetched. */
async function assertAppClean(page, seen) {
  await assertClean(page, seen);
  assert.ok(seen.requests.some((url) => url.endsWith('.wasm')), 'the wasm module was fetched');
}

describe('landing page', { timeout: 120_000 }, () => {
  test('renders under the CSP, offline, without errors', async () => {
    const { context, page, seen } = await openApp(browser);
    try {
      assert.equal((await page.locator('h1').innerText()).trim(), 'reconscope');
      assert.equal((await page.getByTestId('privacy').innerText()).trim(), PRIVACY_LINE);
      assert.equal(await page.locator('input[type=file]').count(), 1);
      assert.equal(await page.locator('input[type=file]').evaluate((el) => el.multiple), true);
      assert.equal(await page.getByTestId('drop-zone').count(), 1);
      // The page starts its worker as it opens and warms it up (parsing
      // and analyzing a small generated log), from this origin only.
      await page.waitForSelector('[data-worker=warm]', { state: 'attached', timeout: 30_000 });

      await page.screenshot({ path: join(SCREENSHOTS, 'landing.png'), fullPage: true });
      await assertAppClean(page, seen);
      assert.ok(seen.requests.some((url) => url.endsWith('/worker_bg.wasm')), 'the worker was started');
    } finally {
      await context.close();
    }
  });

  test('dark color scheme renders too', async () => {
    const { context, page, seen } = await openApp(browser, { colorScheme: 'dark' });
    try {
      const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      assert.equal(bg, 'rgb(17, 20, 24)', 'dark background from style.css');
      await page.screenshot({ path: join(SCREENSHOTS, 'landing-dark.png'), fullPage: true });
      await assertAppClean(page, seen);
    } finally {
      await context.close();
    }
  });

  test('lists files chosen with the picker or dropped on the zone', async () => {
    const { context, page, seen } = await openApp(browser);
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
      await assertAppClean(page, seen);
    } finally {
      await context.close();
    }
  });
});

/** What the CLI says about the incident fixture (the numbers the app must show). */
let cliAnalysis;
function incidentAnalysis() {
  if (!cliAnalysis) {
    cliAnalysis = JSON.parse(cli(['analyze', INCIDENT, '--json']));
  }
  return cliAnalysis;
}

/** Waits for the incident's findings and checks them and the timeline's counts. */
async function assertIncidentLoaded(page) {
  await page.waitForSelector('[data-finding-kind=stalled-worker]', { state: 'attached', timeout: 60_000 });
  const findings = page.getByTestId('findings');
  assert.equal(await findings.locator('[data-finding-kind=stalled-worker]').count(), 1);
  assert.equal(await findings.locator('[data-finding-kind=expired-context]').count(), 2);
  assert.equal(await findings.locator('[data-finding-kind=stuck-deletion]').count(), 1);

  const cli = incidentAnalysis();
  const timeline = page.getByTestId('timeline');
  // (A page that showed an evidence link first shows its slice until then.)
  await page.waitForSelector(`[data-testid=timeline][data-reconcile-count="${cli.reconciles.length}"]`, { state: 'attached', timeout: 60_000 });
  assert.equal(await timeline.getAttribute('data-reconcile-count'), String(cli.reconciles.length));
  assert.equal(await timeline.getAttribute('data-election-count'), '2');
  assert.equal(cli.elections.length, 2);
  // The canvas drew bars (its draw runs on the next animation frame).
  await page.waitForFunction(() => Number(document.querySelector('[data-testid=timeline] canvas')?.dataset.drawnBars) > 0);
}

describe('loading and the timeline', { timeout: 180_000 }, () => {
  test('the example artifact (zip holding a tgz) through the file input: findings, timeline, inspector', async () => {
    const { context, page, seen } = await openApp(browser, { viewport: { width: 1280, height: 800 } });
    const steps = [];
    page.on('console', (msg) => {
      if (msg.type() === 'debug') steps.push(msg.text());
    });
    try {
      await page.waitForSelector('[data-worker=warm]', { state: 'attached', timeout: 30_000 });
      const warmUps = () => steps.filter((s) => s.startsWith('reconscope worker: warm up ')).length;
      // A worker's console message may reach the test after the page shows
      // what followed it: wait for the first warm-up's before counting.
      const seenWarmUps = async (n) => {
        for (let t = 0; t < 100 && warmUps() < n; t++) await page.waitForTimeout(100);
        return warmUps();
      };
      const before = await seenWarmUps(1);
      assert.equal(before, 1, steps.join('\n'));
      await page.locator('input[type=file]').setInputFiles(EXAMPLE_ZIP);
      await assertIncidentLoaded(page);
      // The load took the warm worker (no warm-up of its own); a second
      // later a new one is warm for the next load.
      assert.equal(warmUps(), before, steps.join('\n'));
      await page.waitForSelector('[data-worker=warm]', { state: 'attached', timeout: 30_000 });
      assert.equal(await seenWarmUps(before + 1), before + 1, steps.join('\n'));
      // With how many failed, as the CLI's JSON counts them.
      const failed = incidentAnalysis().reconciles.filter((r) => r.outcome === 'error').length;
      assert.ok(failed > 0);
      assert.match(await page.getByTestId('summary').innerText(), new RegExp(` ${incidentAnalysis().reconciles.length} reconciles \\(${failed} failed\\) · `));
      // The example holds etcd logs: its elections are counted.
      assert.ok(incidentAnalysis().elections.length > 0);
      assert.match(await page.getByTestId('summary').innerText(), new RegExp(` · ${incidentAnalysis().elections.length} etcd elections · `));

      // The chart, as a person sees it at 1280×800.
      await page.getByTestId('timeline').scrollIntoViewIfNeeded();
      await page.getByTestId('timeline').evaluate((el) => el.scrollIntoView({ block: 'start' }));
      await page.screenshot({ path: join(SCREENSHOTS, 'timeline.png') });

      // The stalled finding focuses the chart; its button opens the inspector
      // on the reconcile that held the worker.
      const stalledId = incidentAnalysis().findings.find((f) => f.kind === 'stalled-worker').reconcile_ids[0];
      const stalled = page.locator('[data-finding-kind=stalled-worker]');
      await stalled.click();
      await stalled.getByTestId('inspect-reconcile').click();
      const inspector = page.getByTestId('inspector');
      await inspector.waitFor({ state: 'attached' });
      assert.equal(await inspector.getAttribute('data-reconcile-id'), stalledId);
      await inspector
        .locator('.line .text', { hasText: 'unable to create the DataStore user' })
        .first()
        .waitFor({ state: 'attached', timeout: 30_000 });
      // Log text is text, never markup; every line says where it is from.
      assert.equal(await inspector.locator('.line .text *').count(), 0);
      const locs = await inspector.locator('.line .loc').allInnerTexts();
      assert.ok(locs.length > 0 && locs.every((l) => /^kamaji-controller\.log:\d+$/.test(l)), locs.slice(0, 3).join());
      const paths = await inspector.locator('.block-path').allInnerTexts();
      assert.ok(paths.every((p) => p.startsWith('cozyreport.zip!/cozyreport.tgz!/cozyreport/')), paths.join());

      // Previous/next reconcile of the same object.
      await inspector.getByTestId('prev-reconcile').click();
      await page.waitForFunction(
        (id) => document.querySelector('[data-testid=inspector]')?.dataset.reconcileId !== id,
        stalledId,
      );
      // The one before it succeeded as far as the log shows: no line of it
      // says so (the kamaji log is not at V(5)), and the meta line says
      // that rather than a plain `success`.
      const prevId = await inspector.getAttribute('data-reconcile-id');
      const prev = incidentAnalysis().reconciles.find((r) => r.reconcile_id === prevId);
      assert.deepEqual([prev.outcome, prev.outcome_logged], ['success', false]);
      assert.match(await inspector.locator('.meta').innerText(), / · success \(no error logged\) · /);
      await inspector.getByTestId('next-reconcile').click();
      await page.waitForFunction(
        (id) => document.querySelector('[data-testid=inspector]')?.dataset.reconcileId === id,
        stalledId,
      );
      await inspector.locator('.line .text', { hasText: 'unable to create the DataStore user' }).first().waitFor({ state: 'attached' });
      await page.screenshot({ path: join(SCREENSHOTS, 'inspector.png'), fullPage: true });

      // Hover the selected (stalled) bar: its tooltip names it.
      const canvas = page.getByTestId('timeline').locator('canvas');
      await canvas.scrollIntoViewIfNeeded();
      await page.waitForFunction(() => document.querySelector('[data-testid=timeline] canvas').dataset.selectedRect);
      const box = await canvas.boundingBox();
      const [sx, sy, sw, sh] = (await canvas.getAttribute('data-selected-rect')).split(',').map(Number);
      await page.mouse.move(box.x + sx + Math.min(sw / 2, 40), box.y + sy + sh / 2);
      const tooltip = page.getByTestId('timeline').locator('.tooltip');
      await page.waitForFunction(() => !document.querySelector('[data-testid=timeline] .tooltip').classList.contains('hidden'));
      assert.match(await tooltip.innerText(), new RegExp(stalledId));
      assert.match(await tooltip.innerText(), /unable to create the DataStore user/);

      // Wheel zooms in around the cursor, Shift+arrow keys pan, reset shows all.
      const view = async () => (await canvas.getAttribute('data-view')).split(',').map(Number);
      const spanOf = ([a, b]) => b - a;
      await page.getByTestId('reset-zoom').click();
      await page.waitForTimeout(100);
      const full = await view();
      await canvas.scrollIntoViewIfNeeded();
      const box2 = await canvas.boundingBox();
      await page.mouse.move(box2.x + box2.width * 0.6, box2.y + box2.height * 0.5);
      await page.mouse.wheel(0, -400);
      await page.waitForFunction((s) => {
        const [a, b] = document.querySelector('[data-testid=timeline] canvas').dataset.view.split(',').map(Number);
        return b - a < s * 0.8;
      }, spanOf(full));
      const zoomed = await view();
      await canvas.focus();
      // Shift+arrows pan (plain arrows move the selection from bar to bar).
      await page.keyboard.press('Shift+ArrowRight');
      await page.waitForFunction((a0) => Number(document.querySelector('[data-testid=timeline] canvas').dataset.view.split(',')[0]) > a0, zoomed[0]);
      await page.getByTestId('reset-zoom').click();
      await page.waitForFunction((s) => {
        const [a, b] = document.querySelector('[data-testid=timeline] canvas').dataset.view.split(',').map(Number);
        return Math.abs(b - a - s) < 1e6;
      }, spanOf(full));
      // Dragging pans back in time.
      const beforeDrag = await view();
      await page.mouse.move(box2.x + box2.width * 0.5, box2.y + box2.height * 0.5);
      await page.mouse.down();
      await page.mouse.move(box2.x + box2.width * 0.5 + 150, box2.y + box2.height * 0.5, { steps: 5 });
      await page.mouse.up();
      await page.waitForFunction((a0) => Number(document.querySelector('[data-testid=timeline] canvas').dataset.view.split(',')[0]) < a0, beforeDrag[0]);
      await page.getByTestId('reset-zoom').click();

      // Clicking a controller's label folds its rows (reset scrolled to the top).
      const rowCount = async () => Number(await page.getByTestId('timeline').getAttribute('data-row-count'));
      const rowsBefore = await rowCount();
      const box3 = await canvas.boundingBox();
      // The first row's top (under the axis and the etcd lane).
      const rowsTop = Number(await canvas.getAttribute('data-rows-top'));
      await page.mouse.click(box3.x + 20, box3.y + rowsTop + 10);
      await page.waitForFunction((n) => Number(document.querySelector('[data-testid=timeline]').dataset.rowCount) < n, rowsBefore);
      await page.mouse.click(box3.x + 20, box3.y + rowsTop + 10);
      await page.waitForFunction((n) => Number(document.querySelector('[data-testid=timeline]').dataset.rowCount) === n, rowsBefore);

      await page.getByTestId('zone').click();
      assert.equal((await page.getByTestId('zone').innerText()).trim(), 'Time: local');
      await page.getByTestId('grouping').click();
      await page.waitForFunction(() => Number(document.querySelector('[data-testid=timeline]').dataset.rowCount) > 0);
      await assertAppClean(page, seen);
    } finally {
      await context.close();
    }
  });

  test('Open example loads the built-in artifact from this origin', async () => {
    const { context, page, seen } = await openApp(browser, { viewport: { width: 1280, height: 800 } });
    try {
      await page.getByTestId('open-example').click();
      await assertIncidentLoaded(page);
      assert.deepEqual(await page.getByTestId('file-list').locator('li').allInnerTexts(), ['cozyreport.zip']);
      assert.ok(
        seen.requests.some((url) => new URL(url).pathname.endsWith('/example/cozyreport.zip')),
        'the example was fetched from this origin',
      );
      assert.ok(seen.requests.some((url) => url.endsWith('/worker_bg.wasm')), 'the worker started');
      await assertAppClean(page, seen);
    } finally {
      await context.close();
    }
  });

  test('a folder through "Choose a folder…" keeps its relative paths', async () => {
    const { context, page, seen } = await openApp(browser);
    try {
      const chooser = page.waitForEvent('filechooser');
      await page.getByTestId('pick-folder').click();
      await (await chooser).setFiles(join(ROOT, 'tests', 'fixtures', 'incident', 'cozyreport'));
      await assertIncidentLoaded(page);
      const names = await page.getByTestId('file-list').locator('li').allInnerTexts();
      assert.ok(names.includes('cozyreport/kamaji/kamaji-controller.log'), names.join());
      await assertAppClean(page, seen);
    } finally {
      await context.close();
    }
  });

  test('a file dropped anywhere on the page loads', async () => {
    const { context, page, seen } = await openApp(browser);
    try {
      await page.locator('h1').evaluate(async (h1) => {
        const bytes = await (await fetch('example/cozyreport.zip')).arrayBuffer();
        const dt = new DataTransfer();
        dt.items.add(new File([bytes], 'dropped.zip', { type: 'application/zip' }));
        h1.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
        h1.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
      });
      await assertIncidentLoaded(page);
      assert.deepEqual(await page.getByTestId('file-list').locator('li').allInnerTexts(), ['dropped.zip']);
      await assertAppClean(page, seen);
    } finally {
      await context.close();
    }
  });

  test("a log without years takes its year from the file's modification time, and says so", async () => {
    // klog lines write no year; the file was last modified on 2024-05-02
    // (File.lastModified), so the April lines are of 2024, never 2000.
    const { context, page, seen } = await openApp(browser);
    try {
      await page.locator('h1').evaluate(async (h1) => {
        const text = [
          'I0429 11:15:31.000000   22431 reconciler.go:10] "Reconciling" controller="konnectextension" KonnectExtension="ns1/ext" namespace="ns1" name="ext" reconcileID="33e41619-3d67-42a3-8e8e-b170af70f982"',
          'E0429 11:15:40.288104   22431 controller.go:474] "Reconciler error" err="context deadline exceeded" controller="konnectextension" KonnectExtension="ns1/ext" namespace="ns1" name="ext" reconcileID="33e41619-3d67-42a3-8e8e-b170af70f982"',
          '',
        ].join('\n');
        const dt = new DataTransfer();
        dt.items.add(new File([text], 'manager.log', { type: 'text/plain', lastModified: Date.UTC(2024, 4, 2) }));
        h1.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
        h1.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
      });
      await page.waitForFunction(() => Number(document.querySelector('[data-testid=timeline]')?.dataset.reconcileCount) === 1, null, { timeout: 60_000 });
      const notes = await page.getByTestId('note').allInnerTexts();
      assert.ok(
        notes.some((n) => n === "manager.log: its times carry no year; each was given the latest year that puts it no later than the file's modification time (2024-05-02)"),
        notes.join('\n'),
      );
      const text = await page.locator('body').innerText();
      assert.match(text, /2024-04-29/);
      assert.doesNotMatch(text, /2000-04-29/);
      // No etcd log was read: no election found is not "0 etcd elections".
      const summary = await page.getByTestId('summary').innerText();
      assert.match(summary, / · elections unknown \(no etcd log\) · /);
      assert.doesNotMatch(summary, /0 etcd elections/);
      await assertAppClean(page, seen);
    } finally {
      await context.close();
    }
  });

  test('Cancel stops a load', async () => {
    // Big enough that reading takes a while: 4 files of 48 MiB of log lines,
    // each split between the worker and a helper (the page is told it runs
    // on 8 cores): Cancel stops both.
    const dir = mkdtempSync(join(tmpdir(), 'reconscope-cancel-'));
    const line = '2026-05-26T16:21:07Z\tINFO\tReconciling\t{"controller": "tenantcontrolplane", "reconcileID": "c719e353-ed34-4947-8ec3-d0a3a988adac"}\n';
    const chunk = Buffer.from(line.repeat(Math.ceil((48 << 20) / line.length)));
    const files = [0, 1, 2, 3].map((i) => {
      const p = join(dir, `big-${i}.log`);
      writeFileSync(p, chunk);
      return p;
    });
    const { context, page, seen } = await openApp(browser, {}, BASE_URL, {
      initScript: () => Object.defineProperty(Navigator.prototype, 'hardwareConcurrency', { get: () => 8 }),
    });
    try {
      await page.locator('input[type=file]').setInputFiles(files);
      await page.getByTestId('progress').waitFor({ state: 'attached' });
      assert.equal(await page.locator('[data-testid=progress] progress').getAttribute('max'), String(4 * chunk.length));
      await page.getByTestId('cancel').click({ timeout: 10_000 });
      await page.getByTestId('status').waitFor({ state: 'attached' });
      assert.equal((await page.getByTestId('status').innerText()).trim(), 'Cancelled.');
      assert.equal(await page.getByTestId('progress').count(), 0);
      assert.equal(await page.getByTestId('timeline').count(), 0);
      await assertAppClean(page, seen);
    } finally {
      await context.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/**
 * Presses Copy Markdown and returns the report: from the clipboard, or from
 * the field the page shows when the clipboard is not allowed.
 */
async function copyMarkdown(page) {
  await page.getByTestId('copy-markdown').click();
  await page.waitForFunction(() => /Markdown|report/.test(document.querySelector('[data-testid=share-notice]')?.textContent ?? ''));
  return (await page.getByTestId('share-field').count()) > 0
    ? page.getByTestId('share-field').inputValue()
    : page.evaluate(() => navigator.clipboard.readText());
}

/** Drops the example artifact on the page, as a person would. */
async function dropExample(page) {
  await page.locator('h1').evaluate(async (h1) => {
    const bytes = await (await fetch('example/cozyreport.zip')).arrayBuffer();
    const dt = new DataTransfer();
    dt.items.add(new File([bytes], 'cozyreport.zip', { type: 'application/zip' }));
    h1.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
    h1.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  });
  await assertIncidentLoaded(page);
}

const canvasView = (page) =>
  page.getByTestId('timeline').locator('canvas').getAttribute('data-view');

describe('sharing and export', { timeout: 180_000 }, () => {
  test('Copy link puts the view in the URL; opening it and dropping the artifact restores it', async () => {
    const viewport = { width: 1280, height: 800 };
    const { context, page, seen } = await openApp(browser, { viewport });
    let href;
    let view;
    const stalledId = incidentAnalysis().findings.find((f) => f.kind === 'stalled-worker').reconcile_ids[0];
    try {
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(BASE_URL).origin });
      await dropExample(page);
      const stalled = page.locator('[data-finding-kind=stalled-worker]');
      await stalled.click();
      await stalled.getByTestId('inspect-reconcile').click();
      await page.getByTestId('inspector').waitFor({ state: 'attached' });
      // Zoom in a little so the window is not the default one.
      const canvas = page.getByTestId('timeline').locator('canvas');
      await canvas.scrollIntoViewIfNeeded();
      const before = await canvasView(page);
      const box = await canvas.boundingBox();
      await page.mouse.move(box.x + box.width * 0.6, box.y + box.height * 0.5);
      await page.mouse.wheel(0, -200);
      await page.waitForFunction(
        (v) => document.querySelector('[data-testid=timeline] canvas').dataset.view !== v,
        before,
      );
      await page.waitForTimeout(200);
      await page.getByTestId('copy-link').click();
      // The share dialog makes an evidence link of the view; without
      // clipboard permission the link is shown in a selected field.
      await page.getByTestId('share-copy').click();
      await page.getByTestId('share-notice').waitFor({ state: 'attached' });
      view = await canvasView(page);
      href = (await page.getByTestId('share-field').count()) > 0
        ? await page.getByTestId('share-field').inputValue()
        : await page.evaluate(() => navigator.clipboard.readText());
      assert.ok(href.startsWith(BASE_URL), href.slice(0, 100));
      assert.ok(href.length <= 32 * 1024, `a link of ${href.length} bytes`);
      const hash = new URL(href).hash;
      assert.match(hash, /^#ev=[A-Za-z0-9_-]+&from=\d{4}-\d\d-\d\dT[^&]+&to=[^&]+/);
      assert.match(hash, new RegExp(`sel=${stalledId}`));
      const [a, b] = view.split(',').map(Number);
      const p = new URLSearchParams(hash.slice(1));
      assert.ok(Math.abs(Date.parse(p.get('from')) * 1e6 - a) < 1e6, `${p.get('from')} vs ${a}`);
      assert.ok(Math.abs(Date.parse(p.get('to')) * 1e6 - b) < 1e6, `${p.get('to')} vs ${b}`);
      await assertAppClean(page, seen);
    } finally {
      await context.close();
    }

    // Opened elsewhere, the link shows its evidence; dropping the artifact
    // then shows everything in the same view.
    const second = await openApp(browser, { viewport }, href);
    try {
      await second.page.getByTestId('evidence-banner').waitFor({ state: 'attached', timeout: 30_000 });
      await dropExample(second.page);
      assert.equal(await second.page.getByTestId('evidence-banner').count(), 0);
      const inspector = second.page.getByTestId('inspector');
      await inspector.waitFor({ state: 'attached' });
      assert.equal(await inspector.getAttribute('data-reconcile-id'), stalledId);
      await second.page.waitForFunction(
        (v) => document.querySelector('[data-testid=timeline] canvas')?.dataset.view === v,
        view,
        { timeout: 10_000 },
      );
      await inspector
        .locator('.line .text', { hasText: 'unable to create the DataStore user' })
        .first()
        .waitFor({ state: 'attached', timeout: 30_000 });
      await assertAppClean(second.page, second.seen);
    } finally {
      await second.context.close();
    }
  });

  test("the CLI's #from=…&to=… fragment sets the window", async () => {
    const viewport = { width: 1280, height: 800 };
    // The link `analyze --app-url` writes into the Markdown report.
    const md = cli(['analyze', INCIDENT, '--markdown', '-', '--app-url', 'http://app.invalid/']);
    const fragment = md.match(/http:\/\/app\.invalid\/(#from=[^&)\s]+&to=[^)\s]+)/)[1];
    const p = new URLSearchParams(fragment.slice(1));
    const { context, page, seen } = await openApp(browser, { viewport }, `${BASE_URL}${fragment}`);
    try {
      await dropExample(page);
      const want = `${Date.parse(p.get('from')) * 1e6},${Date.parse(p.get('to')) * 1e6}`;
      await page.waitForFunction(
        (v) => document.querySelector('[data-testid=timeline] canvas')?.dataset.view === v,
        want,
        { timeout: 10_000 },
      );
      await assertAppClean(page, seen);
    } finally {
      await context.close();
    }
  });

  test('Export SVG, Export PNG and Copy Markdown', async () => {
    const { context, page, seen } = await openApp(browser, { viewport: { width: 1280, height: 800 } });
    try {
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(BASE_URL).origin });
      await dropExample(page);

      const svgDownload = page.waitForEvent('download');
      await page.getByTestId('export-svg').click();
      const svg = readFileSync(await (await svgDownload).path(), 'utf8');
      assert.ok(svg.startsWith('<svg'), svg.slice(0, 80));
      assert.ok(svg.includes('<rect'));

      const pngDownload = page.waitForEvent('download');
      await page.getByTestId('export-png').click();
      const dl = await pngDownload;
      assert.match(dl.suggestedFilename(), /\.png$/);
      const png = readFileSync(await dl.path());
      assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

      // The report as a list of findings, for a comment: GitHub takes
      // 65,536 characters there. The five evidence links would pass it:
      // each finding keeps room for a smaller slice of its evidence before
      // the ones before it take theirs whole, so the stuck deletion's (the
      // largest) is a smaller slice, and every finding links to evidence.
      const md = await copyMarkdown(page);
      assert.ok(md.includes('1. **stalled-worker · '), md.slice(0, 400));
      assert.ok([...md].length <= 65536, `${[...md].length} characters`);
      const evidence = [...md.matchAll(/\n(\d)\. \*\*(\S+) [^\n]* · \[evidence\]\((http[^)]*#ev=[A-Za-z0-9_-]+&from=[^)]*)\)\n/g)];
      assert.deepEqual(evidence.map((m) => m[1]), ['1', '2', '3', '4', '5'], md.slice(0, 400));
      const stuck = evidence[2][3];
      assert.equal(evidence[2][2], 'stuck-deletion');
      assert.ok(stuck.length < 16 * 1024, `${stuck.length} bytes`);
      assert.ok(!md.includes('instead'), md);
      assert.ok(md.includes('\n### Slowest reconciles\n'), md);
      await assertAppClean(page, seen);
      // Opened where the artifact is not: the stuck deletion's evidence,
      // and what it left out to fit.
      const fresh = await openApp(browser, {}, stuck);
      try {
        await fresh.page.getByTestId('evidence-banner').waitFor({ state: 'attached', timeout: 30_000 });
        assert.match(await fresh.page.getByTestId('evidence-left-out').innerText(), /^To fit the link it leaves out /);
        await fresh.page.waitForFunction(() => /stuck-deletion/.test(document.querySelector('[data-testid=findings]')?.textContent ?? ''), null, { timeout: 30_000 });
        await assertAppClean(fresh.page, fresh.seen);
      } finally {
        await fresh.context.close();
      }
    } finally {
      await context.close();
    }
  });
});

describe('filters', { timeout: 180_000 }, () => {
  test('a message regex keeps the matching reconciles; a bad regex filters nothing', async () => {
    const { context, page, seen } = await openApp(browser, { viewport: { width: 1280, height: 800 } });
    try {
      await dropExample(page);
      const timeline = page.getByTestId('timeline');
      const total = Number(await timeline.getAttribute('data-reconcile-count'));
      assert.equal(Number(await timeline.getAttribute('data-shown-count')), total);
      const barsBefore = Number(await timeline.locator('canvas').getAttribute('data-drawn-bars'));
      assert.equal((await page.getByTestId('shown-count').innerText()).trim(), `${total} of ${total} reconciles shown`);

      await page.getByTestId('filter-message').fill('DataStore user');
      await page.waitForFunction(
        (n) => Number(document.querySelector('[data-testid=timeline]').dataset.shownCount) < n,
        total,
      );
      await page.waitForFunction(
        (n) => Number(document.querySelector('[data-testid=timeline] canvas').dataset.drawnBars) < n,
        barsBefore,
      );
      const shown = Number(await timeline.getAttribute('data-shown-count'));
      assert.ok(shown > 0);
      assert.equal((await page.getByTestId('shown-count').innerText()).trim(), `${shown} of ${total} reconciles shown`);
      assert.match(await page.evaluate(() => location.hash), /q=DataStore%20user/);
      // Findings stay listed, and the stalled reconcile's bar is still drawn.
      assert.equal(await page.locator('[data-finding-kind=stalled-worker]').count(), 1);
      const stalled = page.locator('[data-finding-kind=stalled-worker]');
      await stalled.click();
      await stalled.getByTestId('inspect-reconcile').click();
      await page.waitForFunction(() => document.querySelector('[data-testid=timeline] canvas').dataset.selectedRect);
      await page.getByTestId('filters').evaluate((el) => el.scrollIntoView({ block: 'start' }));
      await page.screenshot({ path: join(SCREENSHOTS, 'filters.png') });

      // The level filter narrows further; "any" brings them back.
      await page.getByTestId('filter-level').selectOption('3');
      await page.waitForFunction(() => location.hash.includes('level=3'));
      assert.ok(Number(await timeline.getAttribute('data-shown-count')) <= shown);
      await page.getByTestId('filter-level').selectOption('0');

      // A bad regex: an inline error, nothing filtered.
      await page.getByTestId('filter-message').fill('(');
      await page.getByTestId('filter-error').waitFor({ state: 'attached' });
      assert.match(await page.getByTestId('filter-error').innerText(), /Invalid regular expression/);
      await page.waitForFunction(
        (n) => Number(document.querySelector('[data-testid=timeline]').dataset.shownCount) === n,
        total,
      );
      await page.getByTestId('filters').evaluate((el) => el.scrollIntoView({ block: 'start' }));
      await page.screenshot({ path: join(SCREENSHOTS, 'filters-error.png') });

      // Namespace/object substring and controller filters run in the page.
      await page.getByTestId('filter-message').fill('');
      await page.waitForFunction(() => !document.querySelector('[data-testid=filter-error]'));
      await page.getByTestId('filter-object').fill('zzz-no-such-object');
      await page.waitForFunction(() => document.querySelector('[data-testid=timeline]').dataset.shownCount === '0');
      await page.getByTestId('filter-object').fill('');
      const controllers = await page.getByTestId('filter-controller').locator('option').count();
      assert.ok(controllers > 1);
      await page.getByTestId('filter-controller').selectOption({ index: 1 });
      await page.waitForFunction(
        (n) => Number(document.querySelector('[data-testid=timeline]').dataset.shownCount) < n,
        total,
      );

      // The from/to fields follow the zoom, and typing a window zooms.
      const [v0] = (await canvasView(page)).split(',').map(Number);
      await page.waitForFunction(() => document.querySelector('[data-testid=filter-from]').value !== '');
      const fromText = await page.getByTestId('filter-from').inputValue();
      assert.ok(Math.abs(Date.parse(fromText) * 1e6 - v0) < 1e6, `${fromText} vs ${v0}`);
      await page.getByTestId('filter-from').fill('2026-05-26T16:30:00Z');
      await page.getByTestId('filter-to').fill('2026-05-26T16:40:00Z');
      await page.getByTestId('filter-to').press('Enter');
      await page.waitForFunction(
        (v) => document.querySelector('[data-testid=timeline] canvas').dataset.view === v,
        `${Date.parse('2026-05-26T16:30:00Z') * 1e6},${Date.parse('2026-05-26T16:40:00Z') * 1e6}`,
      );
      await page.getByTestId('filter-from').fill('not a time');
      await page.getByTestId('filter-from').press('Enter');
      await page.getByTestId('window-error').waitFor({ state: 'attached' });
      await assertAppClean(page, seen);
    } finally {
      await context.close();
    }
  });
});

describe('goroutine dumps', { timeout: 180_000 }, () => {
  test('a log saved while the worker was still stuck: the stall to the log\'s end, shown by the dump', async () => {
    // The incident cut before the first line of the reconcile that held the
    // worker (16:50:06): no line names it, and only the dump shows the
    // worker held.
    const dir = mkdtempSync(join(tmpdir(), 'reconscope-stuck-'));
    const tree = join(dir, 'cozyreport');
    cpSync(join(ROOT, INCIDENT), tree, { recursive: true });
    const log = join(tree, 'kamaji', 'kamaji-controller.log');
    const text = readFileSync(log, 'utf8');
    writeFileSync(log, text.slice(0, text.lastIndexOf('\n', text.indexOf('c853721a')) + 1));
    const expected = JSON.parse(cli(['analyze', tree, '--json']));
    const stall = expected.findings.find((f) => f.kind === 'stalled-worker');
    assert.equal(stall.silence_to_log_end, true);
    const { context, page, seen } = await openApp(browser, { viewport: { width: 1280, height: 800 } });
    try {
      const chooser = page.waitForEvent('filechooser');
      await page.getByTestId('pick-folder').click();
      await (await chooser).setFiles(tree);
      await page.waitForSelector(`[data-testid=timeline][data-reconcile-count="${expected.reconciles.length}"]`, { state: 'attached', timeout: 60_000 });
      const found = page.locator('[data-testid=findings] [data-finding-kind=stalled-worker]');
      assert.equal(await found.count(), 1);
      // Its subject is the controller (no line names the object), and it
      // has no reconcile to inspect.
      const headline = await found.getByTestId('finding-headline').innerText();
      assert.match(headline, /tenantcontrolplane.*16:29:29.*16:50:06/s);
      assert.equal(await found.getByTestId('inspect-reconcile').count(), 0);
      await found.getByTestId('finding-headline').click();
      const sentence = await found.locator('.sentence').textContent();
      assert.match(sentence, /ended no reconcile for the last 20m37s of its log/);
      assert.match(sentence, /its last reconcile line is reconcile 5a0f75a8-e353-42e2-aa8a-9cb940f2df16 .* and no line after it names a reconcile of tenantcontrolplane/);
      assert.match(sentence, /A goroutine dump at 16:45:00 .* in `go\.etcd\.io\/etcd\/client\/v3\.\(\*authClient\)\.UserGet`/);
      await page.screenshot({ path: join(SCREENSHOTS, 'stall-to-log-end.png') });
      await assertAppClean(page, seen);
    } finally {
      await context.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('the example holds a pprof dump: the stall names the blocked call, the panel lists stacks, the inspector shows it', async () => {
    const { context, page, seen } = await openApp(browser, { viewport: { width: 1280, height: 800 } });
    try {
      await page.locator('input[type=file]').setInputFiles(EXAMPLE_ZIP);
      await assertIncidentLoaded(page);
      const cli = incidentAnalysis();
      const stall = cli.findings.find((f) => f.kind === 'stalled-worker');
      assert.equal(stall.blocked_in, 'go.etcd.io/etcd/client/v3.(*authClient).UserGet');
      // The finding's sentence in the page names the call, as the CLI's does.
      const sentence = await page.locator('[data-finding-kind=stalled-worker] .sentence').textContent();
      assert.match(sentence, /\(\*authClient\)\.UserGet/);
      assert.match(sentence, /16:45:00/);

      // One dump on the chart, at 16:45:00.
      const timeline = page.getByTestId('timeline');
      assert.equal(await timeline.getAttribute('data-dump-count'), '1');

      // The panel: the dump with its time and source, the busy worker first.
      const panel = page.getByTestId('goroutines');
      await panel.waitFor({ state: 'attached' });
      assert.equal(await panel.locator('h2').innerText(), `Goroutines (1 dump, ${cli.goroutines.length} stack groups)`);
      assert.match(await panel.getByTestId('dump').innerText(), /kamaji-goroutines-20260526T164500Z\.txt:1 · 9 goroutines · taken .*16:45:00.* \(time from the file name\)/);
      const groups = panel.getByTestId('goroutine-group');
      assert.equal(await groups.count(), cli.goroutines.length);
      assert.equal(await groups.first().getAttribute('data-role'), 'busy-worker');
      const first = await groups.first().innerText();
      assert.match(first, /1 × \[select, 15 minutes\] · busy-worker · tenantcontrolplane · in go\.etcd\.io\/etcd\/client\/v3\.\(\*authClient\)\.UserGet/);
      assert.match(first, /Blocked since .*16:30:00.* or earlier/);
      // Its blocked-in frame is marked in the stack.
      assert.equal(await groups.first().locator('.blocked-frame .func').innerText(), 'go.etcd.io/etcd/client/v3.(*authClient).UserGet');

      // Filters: workers only drops the other goroutines; text narrows.
      await panel.getByTestId('goroutine-workers').check();
      const workers = cli.goroutines.filter((g) => g.role !== 'other').length;
      await page.waitForFunction((n) => document.querySelectorAll('[data-testid=goroutine-group]').length === n, workers);
      await panel.getByTestId('goroutine-filter').fill('workqueue');
      await page.waitForFunction(() => {
        const g = [...document.querySelectorAll('[data-testid=goroutine-group]')];
        return g.length > 0 && g.every((x) => x.dataset.role === 'idle-worker');
      });
      await panel.getByTestId('goroutine-filter').fill('');
      await panel.getByTestId('goroutine-workers').uncheck();

      // The busy worker links to the reconcile it was running; the
      // inspector shows the stack.
      await groups.first().getByTestId('goroutine-inspect').click();
      const inspector = page.getByTestId('inspector');
      await inspector.waitFor({ state: 'attached' });
      assert.equal(await inspector.getAttribute('data-reconcile-id'), stall.reconcile_ids[0]);
      const stack = inspector.getByTestId('inspector-stack');
      assert.match(await stack.locator('h3').innerText(), /Goroutine dump at .*16:45:00.*: \[select, 15 minutes\], blocked in go\.etcd\.io\/etcd\/client\/v3\.\(\*authClient\)\.UserGet/);
      assert.ok((await stack.locator('li').count()) >= 20);
      await stack.scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(SCREENSHOTS, 'goroutines-inspector.png') });
      await panel.scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(SCREENSHOTS, 'goroutines-panel.png') });

      // Hovering the dashed dump line on the chart names the dump.
      const canvas = timeline.locator('canvas');
      await page.getByTestId('reset-zoom').click();
      await canvas.scrollIntoViewIfNeeded();
      const [v0, v1] = (await canvas.getAttribute('data-view')).split(',').map(Number);
      const at = Date.parse('2026-05-26T16:45:00Z') * 1e6;
      const plot = await canvas.evaluate((el) => ({ left: Number(el.dataset.plotLeft), width: Number(el.dataset.plotWidth) }));
      const box = await canvas.boundingBox();
      const x = box.x + plot.left + ((at - v0) / (v1 - v0)) * plot.width;
      await page.mouse.move(x, box.y + box.height - 20);
      await page.waitForFunction(() => /goroutine dump/.test(document.querySelector('[data-testid=timeline] .tooltip').innerText));
      await page.screenshot({ path: join(SCREENSHOTS, 'goroutines-timeline.png') });
      await assertAppClean(page, seen);
    } finally {
      await context.close();
    }
  });
});

describe('many findings', { timeout: 120_000 }, () => {
  test('past 50 of a kind, findings wait behind a button but each one is still an element', async () => {
    // 60 reconciles of 45 s each (the timeout is 30 s): 60 slow-reconcile findings.
    const dir = mkdtempSync(join(tmpdir(), 'reconscope-many-'));
    const lines = [];
    for (let i = 0; i < 60; i++) {
      const a = new Date(Date.UTC(2026, 4, 26, 10, i, 0));
      const b = new Date(a.getTime() + 45_000);
      const id = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
      for (const [t, msg] of [[a, 'Reconciling'], [b, 'Reconciled']]) {
        const ctx = { controller: 'widget', controllerGroup: 'example.io', controllerKind: 'Widget', namespace: 'ns', name: `w${i}`, reconcileID: id };
        lines.push(`${t.toISOString().replace('.000Z', 'Z')}\tINFO\t${msg}\t${JSON.stringify(ctx)}`);
      }
    }
    const file = join(dir, 'widget-manager.log');
    writeFileSync(file, lines.join('\n') + '\n');
    const { context, page, seen } = await openApp(browser, { viewport: { width: 1280, height: 800 } });
    try {
      await page.locator('input[type=file]').setInputFiles(file);
      await page.waitForSelector('[data-finding-kind=slow-reconcile]', { state: 'attached', timeout: 60_000 });
      const all = page.locator('[data-testid=findings] [data-finding-kind=slow-reconcile]');
      assert.equal(await all.count(), 60, 'one element per finding');
      assert.equal(await page.locator('[data-testid=findings] [data-finding-kind=slow-reconcile]:not([hidden])').count(), 50);
      const more = page.getByTestId('more-findings');
      assert.equal(await more.innerText(), 'Show 10 more slow-reconcile findings');
      await more.click();
      await page.waitForFunction(() => document.querySelectorAll('[data-testid=findings] [data-finding-kind=slow-reconcile]:not([hidden])').length === 60);
      assert.equal(await page.getByTestId('more-findings').count(), 0);
      assert.equal(await page.getByTestId('goroutines').count(), 0, 'no goroutine panel without a dump');
      await assertAppClean(page, seen);
    } finally {
      await context.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a spare worker that finishes warming up after a load took it does not mark the page warm', async () => {
    // The page starts a spare worker as it opens and warms it up; a load
    // takes it, warm or not. Here its "warmed up" answer reaches the page
    // 3 s late, after the load took it: the page must not count it (the
    // next spare, started after the load, is what makes it warm).
    const { context, page, seen } = await openApp(browser, { viewport: { width: 1280, height: 800 } }, BASE_URL, {
      initScript: () => {
        const log = (window.__warm = { workers: 0, delivered: [], marked: [] });
        const onmessage = Object.getOwnPropertyDescriptor(Worker.prototype, 'onmessage');
        Object.defineProperty(Worker.prototype, 'onmessage', {
          configurable: true,
          get() {
            return onmessage.get.call(this);
          },
          set(handler) {
            const n = this.__worker ?? (this.__worker = ++log.workers);
            const late = (ev) => {
              const msg = ev.data?.msg;
              const text = msg instanceof Uint8Array ? new TextDecoder().decode(msg) : '';
              if (!text.includes('"warmed-up"')) return handler(ev);
              setTimeout(() => {
                log.delivered.push({ worker: n, at: performance.now() });
                handler(ev);
              }, 3000);
            };
            onmessage.set.call(this, handler && late);
          },
        });
        new MutationObserver((records) => {
          for (const r of records) {
            if (r.target.dataset.worker === 'warm') log.marked.push(performance.now());
          }
        }).observe(document, { subtree: true, attributes: true, attributeFilter: ['data-worker'] });
      },
    });
    try {
      await page.locator('input[type=file]').setInputFiles(EXAMPLE_ZIP);
      await assertIncidentLoaded(page);
      // The next spare warms up (its answer also 3 s late).
      await page.waitForSelector('[data-worker=warm]', { state: 'attached', timeout: 30_000 });
      const log = await page.evaluate(() => window.__warm);
      assert.deepEqual(log.delivered.map((d) => d.worker), [1, 2], JSON.stringify(log));
      assert.equal(log.marked.length, 1, JSON.stringify(log));
      assert.ok(log.marked[0] >= log.delivered[1].at, JSON.stringify(log));
      await assertAppClean(page, seen);
    } finally {
      await context.close();
    }
  });
});

describe('big logs', { timeout: 300_000 }, () => {
  test('on 8 cores, a 40 MiB log is parsed by two workers and gives what the CLI gives', async () => {
    // A generated kamaji manager log (tests/support/gen.rs) over the 32 MiB
    // at which the app splits a plain log between its worker and a helper,
    // on a machine with 4 cores or more (this one has 2: the page is told 8).
    const dir = mkdtempSync(join(tmpdir(), 'reconscope-split-'));
    const file = join(dir, 'kamaji-manager.log');
    const cargo = (args) => execFileSync('cargo', ['run', '--quiet', '--offline', ...args], { cwd: ROOT, encoding: 'utf8', maxBuffer: 256 << 20 });
    cargo(['--example', 'gen_kamaji_log', '--', file, '40', '7']);
    const cli = JSON.parse(cargo(['--bin', 'reconscope', '--', 'analyze', file, '--json']));
    const cliMarkdown = cargo(['--bin', 'reconscope', '--', 'analyze', file, '--markdown', '-']);
    const { context, page, seen } = await openApp(browser, { viewport: { width: 1280, height: 800 } }, BASE_URL, {
      initScript: () => Object.defineProperty(Navigator.prototype, 'hardwareConcurrency', { get: () => 8 }),
    });
    const steps = [];
    page.on('console', (msg) => {
      if (msg.type() === 'debug') steps.push(msg.text());
    });
    try {
      assert.equal(await page.evaluate(() => navigator.hardwareConcurrency), 8);
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(BASE_URL).origin });
      await page.locator('input[type=file]').setInputFiles(file);
      await page.waitForFunction(() => Number(document.querySelector('[data-testid=timeline]')?.dataset.reconcileCount) > 0, null, { timeout: 120_000 });
      // The helper parsed the tail and the worker joined its piece on.
      assert.ok(steps.some((s) => /reconscope app: helper: kamaji-manager\.log: \d+ records parsed/.test(s)), steps.join('\n'));
      assert.ok(steps.some((s) => /reconscope worker: part of kamaji-manager\.log: copy and check/.test(s)), steps.join('\n'));
      assert.ok(!steps.some((s) => /parsing it here/.test(s)), steps.join('\n'));
      // The same analysis as the CLI's, which parses the file in one piece.
      await assertLoadedAsCli(page, cli);
      // The Markdown report's tables (findings, slowest reconciles,
      // elections, counts) are the CLI's, row for row.
      const md = await copyMarkdown(page);
      const rows = (text) => text.split('\n').filter((l) => l.startsWith('|'));
      assert.ok(rows(cliMarkdown).length > 10);
      assert.deepEqual(rows(md), rows(cliMarkdown));
      // The inspector reads the lines of a reconcile from the tail: the
      // last one a finding links to.
      const buttons = page.locator('[data-testid=findings] [data-testid=inspect-reconcile]');
      const indexes = (await buttons.evaluateAll((bs) => bs.map((b) => Number(b.dataset.reconcile)))).filter((i) => i >= 0);
      const last = Math.max(...indexes);
      await page.locator(`[data-testid=findings] [data-testid=inspect-reconcile][data-reconcile="${last}"]`).first().click();
      const inspector = page.getByTestId('inspector');
      await inspector.waitFor({ state: 'attached' });
      assert.equal(await inspector.getAttribute('data-reconcile-id'), cli.reconciles[last].reconcile_id);
      await inspector.locator('.line .loc').first().waitFor({ state: 'attached', timeout: 30_000 });
      const lineNumbers = (await inspector.locator('.line.own .loc').allInnerTexts()).map((l) => Number(l.split(':').pop()));
      const fileLines = readFileSync(file, 'utf8').split('\n').length - 1;
      assert.ok(Math.max(...lineNumbers) > fileLines / 2, `line ${Math.max(...lineNumbers)} of ${fileLines}: in the helper's half`);
      await assertAppClean(page, seen);
    } finally {
      await context.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
  // A generated kamaji manager log of 50 MiB, made once for the tests
  // below that need a log of many slices, with the CLI's analysis of it.
  let sliced = null;
  const slicedLog = () => {
    if (!sliced) {
      const dir = mkdtempSync(join(tmpdir(), 'reconscope-slices-'));
      const file = join(dir, 'kamaji-manager.log');
      const cargo = (args) => execFileSync('cargo', ['run', '--quiet', '--offline', ...args], { cwd: ROOT, encoding: 'utf8', maxBuffer: 256 << 20 });
      cargo(['--example', 'gen_kamaji_log', '--', file, '50', '3']);
      sliced = { dir, file, cli: JSON.parse(cargo(['--bin', 'reconscope', '--', 'analyze', file, '--json'])) };
    }
    return sliced;
  };
  after(() => sliced && rmSync(sliced.dir, { recursive: true, force: true }));

  /** Asserts the loaded page shows the CLI's reconcile, election and finding counts. */
  async function assertLoadedAsCli(page, cli) {
    const timeline = page.getByTestId('timeline');
    await page.waitForFunction(() => Number(document.querySelector('[data-testid=timeline]')?.dataset.reconcileCount) > 0, null, { timeout: 120_000 });
    assert.equal(await timeline.getAttribute('data-reconcile-count'), String(cli.reconciles.length));
    assert.equal(await timeline.getAttribute('data-election-count'), String(cli.elections.length));
    const kinds = {};
    for (const f of cli.findings) kinds[f.kind] = (kinds[f.kind] ?? 0) + 1;
    assert.ok(Object.keys(kinds).length > 0, 'the generated log has findings');
    for (const [kind, n] of Object.entries(kinds)) {
      assert.equal(await page.locator(`[data-testid=findings] [data-finding-kind=${kind}]`).count(), n, kind);
    }
  }

  /** Opens the app, collecting its debug lines (the loading steps) into `steps`. */
  async function openWithSteps() {
    const opened = await openApp(browser, { viewport: { width: 1280, height: 800 } });
    const steps = [];
    opened.page.on('console', (msg) => {
      if (msg.type() === 'debug') steps.push(msg.text());
    });
    return { ...opened, steps };
  }

  /** Asserts one read got to its end, of the 7 slices of `slicedLog`, 2–5 into buffers given back. */
  /** The last read (of `reads` reads in all) read its 7 slices, 2-5 into buffers given back. */
  function assertReadIntoGivenBack(steps, reads = 1) {
    const done = steps.map((s) => /read inputs .*; (\d+) of (\d+) slices read into a buffer given back/.exec(s)).filter(Boolean);
    assert.ok(done.length >= 1 && done.length <= reads, steps.join('\n'));
    const last = done[done.length - 1];
    const [reused, slices] = [Number(last[1]), Number(last[2])];
    assert.equal(slices, 7, last[0]);
    assert.ok(reused >= 2 && reused <= 5, last[0]);
  }

  test('a log of many slices is read into buffers the worker gives back, and loads as the CLI reads it', async () => {
    // 50 MiB: the page reads 7 slices (6 of 8 MiB), at most 4 ahead of the
    // worker, so the 5th and 6th wait for the worker to take the 1st and
    // 2nd in; it gives their buffers back with its progress, and the page
    // reads into them (a fresh buffer each time costs the page's process
    // its page faults). The 1st slice comes before any buffer is given
    // back, and the short 7th gets a buffer of its own.
    const { file, cli } = slicedLog();
    const { context, page, seen, steps } = await openWithSteps();
    try {
      await page.locator('input[type=file]').setInputFiles(file);
      await assertLoadedAsCli(page, cli);
      assertReadIntoGivenBack(steps);
      await assertAppClean(page, seen);
    } finally {
      await context.close();
    }
  });

  test('the log chosen again while it is read: the new read still reads into buffers given back', async () => {
    // The first load's read loop ends when its pending read comes back,
    // after the second load started; it must leave the second's spare
    // buffers alone.
    const { file, cli } = slicedLog();
    const { context, page, seen, steps } = await openWithSteps();
    try {
      const input = page.locator('input[type=file]');
      await input.setInputFiles(file);
      await page.getByTestId('progress').waitFor({ state: 'attached' });
      await input.setInputFiles(file);
      await assertLoadedAsCli(page, cli);
      // The second read got to its end (the first too, when it was done
      // before the file was chosen again: a fast machine).
      assertReadIntoGivenBack(steps, 2);
      await assertAppClean(page, seen);
    } finally {
      await context.close();
    }
  });

  test('a request the worker cannot answer during a load is reported, and the load goes on', async () => {
    // Before the first slice the page also posts the worker a message it
    // cannot read; the worker answers that it failed before it
    // acknowledges the slice, and the 5th slice waits for that
    // acknowledgement. (The page used to stop reading then: the load
    // never ended.)
    const { file, cli } = slicedLog();
    const { context, page, seen } = await openApp(browser, { viewport: { width: 1280, height: 800 } }, BASE_URL, {
      initScript: () => {
        const post = Worker.prototype.postMessage;
        let sent = false;
        Worker.prototype.postMessage = function (message, transfer) {
          if (!sent && message?.data instanceof ArrayBuffer) {
            sent = true;
            post.call(this, { junk: true });
          }
          return post.call(this, message, transfer);
        };
      },
    });
    try {
      await page.locator('input[type=file]').setInputFiles(file);
      await page.getByTestId('status').filter({ hasText: 'message without `msg`' }).waitFor({ timeout: 60_000 });
      await assertLoadedAsCli(page, cli);
      await assertAppClean(page, seen);
    } finally {
      await context.close();
    }
  });
});

describe('keyboard', { timeout: 120_000 }, () => {
  test('everything needed to reach the answer works from the keyboard alone', async () => {
    const { context, page, seen } = await openApp(browser, { viewport: { width: 1280, height: 800 } });
    // Presses Tab until `selector` has the focus (at most `max` times).
    const tabTo = async (selector, max = 60) => {
      for (let i = 0; i < max; i++) {
        if (await page.evaluate((s) => document.activeElement?.matches(s), selector)) return;
        await page.keyboard.press('Tab');
      }
      assert.fail(`Tab never reached ${selector}`);
    };
    try {
      await tabTo('[data-testid=open-example]');
      await page.keyboard.press('Enter');
      await page.waitForSelector('[data-finding-kind=stalled-worker]', { state: 'attached', timeout: 60_000 });
      // The stalled finding: "Show on timeline", then "Inspect reconcile".
      await tabTo('[data-finding-kind=stalled-worker] button[title]');
      await page.keyboard.press('Enter');
      await page.waitForSelector('[data-finding-kind=stalled-worker].focused');
      await tabTo('[data-finding-kind=stalled-worker] [data-testid=inspect-reconcile]');
      await page.keyboard.press('Enter');
      await page.getByTestId('inspector').waitFor({ state: 'attached' });
      // The chart takes the keys: + zooms in.
      await tabTo('[data-testid=timeline] canvas', 200);
      const before = await page.getByTestId('timeline').locator('canvas').getAttribute('data-view');
      await page.keyboard.press('+');
      await page.waitForFunction((v) => document.querySelector('[data-testid=timeline] canvas').dataset.view !== v, before);
      // The goroutine panel's stack groups open with the keyboard.
      await tabTo('[data-testid=goroutine-group] summary', 200);
      const open = () => page.evaluate(() => document.activeElement.parentElement.open);
      const was = await open();
      await page.keyboard.press('Enter');
      assert.equal(await open(), !was);
      await assertAppClean(page, seen);
    } finally {
      await context.close();
    }
  });
});

describe('an undated goroutine dump', { timeout: 180_000 }, () => {
  test('the person gives its time in the panel, and the stall finding then names the call', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'reconscope-undated-'));
    const kamaji = join(ROOT, 'tests/fixtures/incident/cozyreport/kamaji');
    const log = join(dir, 'kamaji-controller.log');
    const dump = join(dir, 'goroutines.txt');
    writeFileSync(log, readFileSync(join(kamaji, 'kamaji-controller.log')));
    writeFileSync(dump, readFileSync(join(kamaji, 'pprof/kamaji-goroutines-20260526T164500Z.txt')));
    const { context, page, seen } = await openApp(browser, { viewport: { width: 1280, height: 800 } });
    try {
      await page.locator('input[type=file]').setInputFiles([log, dump]);
      await page.waitForSelector('[data-finding-kind=stalled-worker]', { state: 'attached', timeout: 60_000 });
      // (textContent: the sentence is folded under its headline until clicked.)
      const sentence = () => page.locator('[data-finding-kind=stalled-worker] .sentence').textContent();
      assert.match(await sentence(), /nothing dates it/);
      const panel = page.getByTestId('goroutines');
      assert.match(await panel.getByTestId('dump').innerText(), /time unknown/);
      assert.equal(await page.getByTestId('timeline').getAttribute('data-dump-count'), '0');
      // A bad time is refused with a message; a good one re-runs the analysis.
      await panel.getByTestId('dump-time').fill('quarter to five');
      await panel.getByTestId('use-dump-time').click();
      await panel.getByTestId('dump-time-error').waitFor({ state: 'attached' });
      await panel.getByTestId('dump-time').fill('2026-05-26T16:45:00Z');
      await panel.getByTestId('use-dump-time').click();
      await page.waitForFunction(() => /UserGet/.test(document.querySelector('[data-finding-kind=stalled-worker] .sentence')?.textContent ?? ''));
      assert.match(await sentence(), /time given by the user/);
      assert.match(await panel.getByTestId('dump').innerText(), /taken .*16:45:00.* \(time given by the user\)/);
      assert.equal(await page.getByTestId('timeline').getAttribute('data-dump-count'), '1');
      assert.equal(await page.getByTestId('dump-time').count(), 0, 'no dump left undated');
      await assertAppClean(page, seen);
    } finally {
      await context.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
