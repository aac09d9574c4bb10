// Evidence links in Chromium: a link made by the app's Copy link or by the
// CLI's Markdown, opened in a fresh browser context with no files, shows the
// finding, its bars, the elections and the raw lines; no request leaves the
// origin; damaged links say so; hostile text in a payload stays text.
//
// Run by scripts/test.sh with RECONSCOPE_URL set (see app.test.mjs).

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BASE_URL, INCIDENT, SCREENSHOTS, assertClean, browser, cli, openApp, openExample, useChromium } from './helpers.mjs';

const STALLED_ID = 'c853721a-23af-4ffb-917c-6c12cb41287c';

useChromium();

/** A fresh context (no storage, no files) on `url`, 1280×800. */
const open = (url, contextOptions = {}) => openApp(browser, { viewport: { width: 1280, height: 800 }, ...contextOptions }, url);

/** The checks of every page (`assertClean`), and no fetch of an artifact nor of the fragment. */
async function assertEvidenceClean(page, seen) {
  await assertClean(page, seen);
  assert.deepEqual(seen.requests.filter((u) => u.includes('/example/')), [], 'the evidence needs no artifact');
  // The fragment never travels: no request carries it.
  assert.ok(seen.requests.every((u) => !u.includes('ev=')), 'a request carried the evidence');
}

/** The page shows the stall from a link: banner, finding, bars, elections, raw lines. */
async function assertStallEvidence(page) {
  const banner = page.getByTestId('evidence-banner');
  await banner.waitFor({ state: 'attached', timeout: 60_000 });
  const text = await banner.innerText();
  assert.match(text, /a slice of cozyreport(\.zip)?: /);
  assert.match(text, /\d+ of its \d+ lines and \d+ of its 359 reconciles/);
  assert.match(text, /taken \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/);
  assert.match(text, /Drop cozyreport(\.zip)? itself on this page to see everything/);
  await page.waitForSelector('[data-finding-kind=stalled-worker]', { state: 'attached' });
  const timeline = page.getByTestId('timeline');
  assert.equal(await timeline.getAttribute('data-election-count'), '2');
  const reconciles = Number(await timeline.getAttribute('data-reconcile-count'));
  assert.ok(reconciles > 20 && reconciles < 359, `${reconciles} reconciles in the slice`);
  await page.waitForFunction(() => Number(document.querySelector('[data-testid=timeline] canvas')?.dataset.drawnBars) > 20);
  // The inspector opens on the stalled reconcile with its raw lines.
  const inspector = page.getByTestId('inspector');
  await inspector.waitFor({ state: 'attached', timeout: 30_000 });
  assert.equal(await inspector.getAttribute('data-reconcile-id'), STALLED_ID);
  await inspector.locator('.line.own .text', { hasText: 'unable to create the DataStore user' }).first().waitFor({ state: 'attached', timeout: 30_000 });
  const locs = await inspector.locator('.line.own .loc').allInnerTexts();
  assert.ok(locs.every((l) => /^kamaji-controller\.log:\d+$/.test(l)), locs.join(' '));
}

/** The stalled-worker finding's link, made with the app's own "Copy link". */
async function appLinkForTheStall() {
  const { context, page, seen } = await open(BASE_URL);
  try {
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(BASE_URL).origin });
    await openExample(page);
    await page.locator('[data-finding-kind=stalled-worker] [data-testid=copy-finding-link]').click();
    const dialog = page.getByTestId('share-dialog');
    await dialog.getByTestId('share-copy').waitFor({ timeout: 30_000 });
    assert.match(await dialog.getByTestId('share-summary').innerText(), /The link carries \d+ of \d+ lines and \d+ of 359 reconciles of cozyreport\.zip/);
    assert.match(await dialog.getByTestId('share-redacted').innerText(), /Secrets are removed/);
    await page.screenshot({ path: join(SCREENSHOTS, 'share-dialog.png') });
    await dialog.getByTestId('share-copy').click();
    await page.getByTestId('share-dialog-notice').waitFor({ state: 'attached' });
    assert.equal(await page.getByTestId('share-dialog-notice').innerText(), 'Link copied.');
    assert.equal(await page.getByTestId('share-dialog-notice').getAttribute('aria-live'), 'polite');
    const link = await page.evaluate(() => navigator.clipboard.readText());
    await assertEvidenceClean(page, { ...seen, requests: seen.requests.filter((u) => !u.includes('/example/')) });
    return link;
  } finally {
    await context.close();
  }
}

describe('evidence links', { timeout: 300_000 }, () => {
  test("the app's Copy link on the stall opens, in a fresh context with no files, on the stall", async () => {
    const link = await appLinkForTheStall();
    assert.ok(link.startsWith(BASE_URL), link.slice(0, 80));
    assert.ok(link.length <= 32 * 1024, `a link of ${link.length} bytes`);
    assert.match(new URL(link).hash, /^#ev=[A-Za-z0-9_-]+&from=[^&]+&to=[^&]+&sel=c853721a/);
    const { context, page, seen } = await open(link);
    try {
      await assertStallEvidence(page);
      await page.screenshot({ path: join(SCREENSHOTS, 'evidence-view.png'), fullPage: true });
      await assertEvidenceClean(page, seen);
    } finally {
      await context.close();
    }
  });

  test("the CLI Markdown's evidence link for the stall opens on the stall", async () => {
    const md = cli(['analyze', INCIDENT, '--markdown', '-', '--app-url', BASE_URL]);
    const link = md.match(/1\. \*\*stalled-worker [^\n]*\[evidence\]\(([^)\s]+)\)/)[1];
    assert.ok(link.length <= 32 * 1024, `a link of ${link.length} bytes`);
    const { context, page, seen } = await open(link);
    try {
      await assertStallEvidence(page);
      // `share` prints the same kind of link.
      const shared = cli(['share', INCIDENT, '--finding', 'stalled-worker', '--app-url', BASE_URL]).trim();
      assert.ok(shared.startsWith(`${BASE_URL}#ev=`) && shared.length <= 32 * 1024);
      await assertEvidenceClean(page, seen);
    } finally {
      await context.close();
    }
  });

  test('a link pasted into an open tab applies; with the artifact loaded its view applies to all of it', async () => {
    const md = cli(['analyze', INCIDENT, '--markdown', '-', '--app-url', BASE_URL]);
    const links = [...md.matchAll(/\*\*(\S+) [^\n]*\[evidence\]\(([^)\s]+)\)/g)].map((m) => ({ kind: m[1], url: m[2] }));
    const stall = links.find((l) => l.kind === 'stalled-worker').url;
    const expired = links.find((l) => l.kind === 'expired-context').url;
    const { context, page, seen } = await open(stall);
    try {
      await assertStallEvidence(page);
      // Another link pasted into the same tab: its evidence replaces this.
      await page.evaluate((h) => { location.hash = h; }, new URL(expired).hash);
      await page.waitForFunction(() => document.querySelector('[data-testid=inspector]')?.dataset.reconcileId === '19e80ab0-1cfa-4899-8593-2f0a0dc27014', null, { timeout: 30_000 });
      await page.getByTestId('evidence-banner').waitFor({ state: 'attached' });
      await assertEvidenceClean(page, seen);
    } finally {
      await context.close();
    }
    // The artifact loaded first, then the stall's link pasted: its view
    // (the window, the stalled reconcile) applies to the whole data.
    const second = await open(BASE_URL);
    try {
      await openExample(second.page);
      const hash = new URL(stall).hash;
      await second.page.evaluate((h) => { location.hash = h; }, hash);
      await second.page.waitForFunction((id) => document.querySelector('[data-testid=inspector]')?.dataset.reconcileId === id, STALLED_ID, { timeout: 30_000 });
      const p = new URLSearchParams(hash.slice(1));
      const want = `${Date.parse(p.get('from')) * 1e6},${Date.parse(p.get('to')) * 1e6}`;
      await second.page.waitForFunction((v) => document.querySelector('[data-testid=timeline] canvas')?.dataset.view === v, want, { timeout: 10_000 });
      assert.equal(await second.page.getByTestId('timeline').getAttribute('data-reconcile-count'), '359');
      assert.equal(await second.page.getByTestId('evidence-banner').count(), 0);
    } finally {
      await second.context.close();
    }
  });

  test('damaged, cut-short and newer-format links say so and show the landing page', async () => {
    const link = cli(['share', INCIDENT, '--finding', 'expired-context', '--app-url', BASE_URL]).trim();
    const payload = new URL(link).hash.match(/ev=([^&]+)/)[1];
    // The same payload with its format byte (the fifth) raised.
    const bytes = Buffer.from(payload, 'base64url');
    bytes[4] = 9;
    const cases = [
      [`ev=${payload.slice(0, Math.floor(payload.length / 2))}`, /cut short or damaged/],
      ['ev=not*base64', /damaged: character 4 is not base64url/],
      ['ev=UlNFVgE', /cut short or damaged/],
      ['ev=AAAAAAAA', /not reconscope evidence/],
      [`ev=${bytes.toString('base64url')}`, /newer reconscope \(format 9/],
    ];
    for (const [hash, why] of cases) {
      const { context, page, seen } = await open(`${BASE_URL}#${hash}`);
      try {
        const status = page.getByTestId('status');
        await status.waitFor({ state: 'attached', timeout: 30_000 });
        const text = await status.innerText();
        assert.match(text, /^This link could not be opened: /, text);
        assert.match(text, why, text);
        // The landing page, ready for the artifact.
        assert.equal(await page.getByTestId('timeline').count(), 0);
        assert.equal(await page.getByTestId('evidence-banner').count(), 0);
        assert.ok(await page.getByTestId('drop-zone').isVisible());
        await assertEvidenceClean(page, seen);
      } finally {
        await context.close();
      }
    }
  });

  test('hostile text in a payload stays text', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'reconscope-hostile-'));
    try {
      const id = '0d6c3c2e-5b1a-4f9e-9c1d-2a7b8e4f6a10';
      const name = '<img src=x onerror=window.__pwned=1>';
      const ctx = (extra) =>
        JSON.stringify({ controller: 'widget', controllerKind: 'Widget', Widget: { name, namespace: 'ns' }, namespace: 'ns', name, reconcileID: id, ...extra });
      const log = [
        `2026-05-26T16:00:00Z\tINFO\tStarting reconcile <script>window.__pwned=2</script>\t${ctx({})}`,
        `2026-05-26T16:00:30Z\tINFO\t<svg onload=window.__pwned=3> [x](javascript:alert(1))\t${ctx({})}`,
        `2026-05-26T16:01:10Z\tERROR\tReconciler error\t${ctx({ error: '"><iframe src=javascript:window.__pwned=4>' })}`,
      ].join('\n');
      const file = join(dir, 'hostile.log');
      writeFileSync(file, `${log}\n`);
      const link = cli(['share', file, '--finding', 'slow-reconcile', '--app-url', BASE_URL]).trim();
      const { context, page, seen } = await open(link);
      try {
        await page.getByTestId('evidence-banner').waitFor({ state: 'attached', timeout: 30_000 });
        await page.waitForSelector('[data-finding-kind=slow-reconcile]', { state: 'attached' });
        const inspector = page.getByTestId('inspector');
        await inspector.locator('.line.own .text', { hasText: '<script>window.__pwned=2</script>' }).first().waitFor({ state: 'attached', timeout: 30_000 });
        assert.equal(await page.evaluate(() => window.__pwned), undefined);
        assert.equal(await page.locator('img, iframe, svg, script:not([src])').count(), 0);
        assert.ok((await page.getByTestId('findings').innerText()).includes(name));
        await assertEvidenceClean(page, seen);
      } finally {
        await context.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('an evidence file saved from the share dialog opens when dropped', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'reconscope-evfile-'));
    try {
      const file = join(dir, 'stall.reconscope');
      cli(['share', INCIDENT, '--finding', 'stalled-worker', '--file', file]);
      const { context, page, seen } = await open(BASE_URL);
      try {
        await page.locator('input[type=file]').setInputFiles(file);
        await page.getByTestId('evidence-banner').waitFor({ state: 'attached', timeout: 60_000 });
        await page.waitForSelector('[data-finding-kind=stalled-worker]', { state: 'attached' });
        assert.equal(await page.getByTestId('timeline').getAttribute('data-election-count'), '2');
        // Its share dialog offers the file again.
        await page.locator('[data-finding-kind=stalled-worker] [data-testid=copy-finding-link]').click();
        const download = page.waitForEvent('download');
        await page.getByTestId('share-download').click();
        const saved = readFileSync(await (await download).path(), 'utf8');
        assert.match(saved, /^[A-Za-z0-9_-]+$/);
        await assertEvidenceClean(page, seen);
      } finally {
        await context.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
