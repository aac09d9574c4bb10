// What a recipient gets, rendered as they see it: the CLI's Markdown report
// rendered with a GFM renderer (marked) and shown in Chromium, and the
// exported PNG at the ~900 px GitHub shows an image in a comment.
// Screenshots go to tests/browser/screenshots/ (report.png, export-900.png).

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { marked } from 'marked';
import { INCIDENT, SCREENSHOTS, browser, cli, useChromium } from './helpers.mjs';

// The app's address in the links (any will do: nothing here opens it).
const APP = process.env.RECONSCOPE_URL || 'https://example.org/reconscope/';

useChromium({ app: false });

// A page styled roughly as GitHub renders a comment, with no network.
const page = (body) => `<!doctype html><meta charset=utf-8>
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<style>
body { font: 14px/1.5 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; max-width: 880px; margin: 16px auto; color: #1f2328; }
code { font: 12px ui-monospace, monospace; background: #eff1f3; padding: .1em .3em; border-radius: 4px; }
pre { background: #f6f8fa; padding: 12px; overflow: auto; } pre code { background: none; }
table { border-collapse: collapse; } td, th { border: 1px solid #d1d9e0; padding: 4px 10px; }
a { color: #0969da; } details { margin: .3em 0 .8em; } summary { cursor: pointer; color: #59636e; }
</style>${body}`;

/** Renders GFM in Chromium (no script, no network) and returns the page. */
async function rendered(md) {
  const html = marked.parse(md, { gfm: true });
  const context = await browser.newContext({ viewport: { width: 920, height: 1200 } });
  const requests = [];
  context.on('request', (r) => requests.push(r.url()));
  const p = await context.newPage();
  await p.setContent(page(html), { waitUntil: 'load' });
  return { context, page: p, html, requests };
}

describe('what a recipient gets', { timeout: 180_000 }, () => {
  test('the Markdown report, rendered with GFM: headlines, evidence links, details, code', async () => {
    const md = cli(['analyze', INCIDENT, '--markdown', '-', '--app-url', APP]);
    const { context, page: p, html, requests } = await rendered(md);
    try {
      // One list item per finding, each with a link to its evidence and
      // its sentence folded in <details>.
      assert.equal(await p.locator('ol > li > p > strong').count(), 5);
      assert.equal(await p.locator('details').count(), 5);
      const links = await p.locator('a').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
      assert.ok(links.length >= 6, links.join(' '));
      assert.ok(links.every((h) => h.startsWith(APP)), 'every link is to the app');
      assert.equal(links.filter((h) => h.includes('#ev=')).length, 5);
      // Log text lands in <code>, without invisible characters.
      const codes = await p.locator('code').allInnerTexts();
      assert.ok(codes.some((c) => c.includes('unable to create the DataStore user')), codes.join('\n'));
      assert.ok(codes.every((c) => !/[\u200b-\u200f\u2060\ufeff]/.test(c)));
      // Times: the date and zone once; instants as "at".
      assert.match(await p.locator('body').innerText(), /Times are UTC, on 2026-05-26\./);
      assert.ok(!/16:55:13[–-]16:55:13/.test(md));
      assert.equal((html.match(/<script/g) ?? []).length, 0);
      await p.locator('details').first().evaluate((d) => { d.open = true; });
      await p.screenshot({ path: join(SCREENSHOTS, 'report.png'), fullPage: true });
      assert.deepEqual(requests.filter((u) => !u.startsWith('data:') && u !== 'about:blank'), []);
    } finally {
      await context.close();
    }
  });

  test('hostile log text renders as text: no HTML, links or images from it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'reconscope-md-'));
    try {
      const id = '5f0d2b7e-3c1a-4a9b-8e2d-6b4c1f0a9e33';
      const name = 'x|y<script>alert(1)</script>';
      const ctx = (extra) =>
        JSON.stringify({ controller: 'widget', controllerKind: 'Widget', Widget: { name, namespace: 'ns' }, namespace: 'ns', name, reconcileID: id, ...extra });
      const log = [
        `2026-05-26T16:00:00Z\tINFO\tstart ![i](http://evil.example/p.png) [x](http://evil.example)\t${ctx({})}`,
        `2026-05-26T16:01:10Z\tERROR\tReconciler error\t${ctx({ error: '</details><img src=x onerror=alert(2)> ``` http://bare.example ` token=s3cr3tvalue' })}`,
      ].join('\n');
      const file = join(dir, 'hostile.log');
      writeFileSync(file, `${log}\n`);
      const md = cli(['analyze', file, '--markdown', '-', '--app-url', APP]);
      const { context, page: p, html } = await rendered(md);
      try {
        assert.equal(await p.locator('script, img, iframe').count(), 0, html);
        const links = await p.locator('a').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
        assert.ok(links.every((h) => h.startsWith(APP)), links.join(' '));
        assert.ok(!md.includes('s3cr3tvalue'), 'a secret reached the report');
        assert.ok((await p.locator('body').innerText()).includes('<script>alert(1)</script>'));
        assert.equal(await p.locator('details').count(), (md.match(/<details>/g) ?? []).length);
      } finally {
        await context.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('the exported PNG, shown 900 px wide as in a GitHub comment', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'reconscope-png-'));
    try {
      const png = join(dir, 'timeline.png');
      cli(['analyze', INCIDENT, '--png', png]);
      const bytes = readFileSync(png);
      assert.deepEqual([...bytes.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
      const context = await browser.newContext({ viewport: { width: 900, height: 900 } });
      try {
        const p = await context.newPage();
        await p.setContent(page(`<img width=900 src="data:image/png;base64,${bytes.toString('base64')}">`).replace('max-width: 880px; margin: 16px auto;', 'margin: 0;'));
        const size = await p.locator('img').evaluate((i) => [i.naturalWidth, i.clientWidth]);
        assert.ok(size[0] >= 1800 && size[1] === 900, String(size));
        await p.locator('img').screenshot({ path: join(SCREENSHOTS, 'export-900.png') });
      } finally {
        await context.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
