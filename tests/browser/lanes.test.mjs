// Browser tests of the timeline's lanes (issue 16): a 4-worker controller
// whose dependency hangs (its reconciles in flight drawn in its row, all
// four busy for ten minutes, and its log silent meanwhile) beside a log
// with a hole (its source lane open there, and the tooltip says so), from
// logs this test writes in
// controller-runtime's zap console format. Screenshots in light and dark.

import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SCREENSHOTS, assertClean, browser, cli, openApp, useChromium } from './helpers.mjs';

useChromium();

const dir = mkdtempSync(join(tmpdir(), 'reconscope-lanes-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const ts = (secs) => `2026-05-26T10:${String(Math.floor(secs / 60)).padStart(2, '0')}:${String(secs % 60).padStart(2, '0')}Z`;

/** As tests/analyze_saturation.rs: w0..w7 every 20 s, then db0..db3 hold all 4 workers from 10:05:00 to 10:15:00. */
function widgetLog() {
  const line = (secs, level, msg, obj, rid, error) =>
    [
      secs,
      `${ts(secs)}\t${level}\t${msg}\t{"controller": "widget", "controllerGroup": "example.io", "controllerKind": "Widget", ` +
        `"Widget": {"name":"${obj}","namespace":"ns"}, "namespace": "ns", "name": "${obj}", "reconcileID": "${rid}"${error ? `, "error": "${error}"` : ''}}\n`,
    ];
  const lines = [[0, `${ts(0)}\tINFO\tStarting workers\t{"controller": "widget", "controllerGroup": "example.io", "controllerKind": "Widget", "worker count": 4}\n`]];
  let n = 0;
  const id = () => `44444444-0000-4000-8000-${String(++n).padStart(12, '0')}`;
  for (let round = 0; round < 15; round++) {
    for (let k = 0; k < 8; k++) {
      const [t, rid] = [20 * round + 2 * k, id()];
      lines.push(line(t, 'INFO', 'Reconciling', `w${k}`, rid), line(t + 1, 'INFO', 'Reconcile successful', `w${k}`, rid));
    }
  }
  for (let k = 0; k < 4; k++) {
    const rid = id();
    lines.push(line(300 + k, 'INFO', 'Reconciling', `db${k}`, rid), line(300 + k, 'INFO', 'connecting to the datastore', `db${k}`, rid));
    lines.push(line(900 + k, 'ERROR', 'Reconciler error', `db${k}`, rid, 'unable to check the datastore: context deadline exceeded'));
  }
  for (let k = 0; k < 8; k++) {
    const rid = id();
    lines.push(line(900 + k, 'INFO', 'Reconciling', `w${k}`, rid), line(901 + k, 'INFO', 'Reconcile successful', `w${k}`, rid));
  }
  return lines.sort((a, b) => a[0] - b[0]).map((l) => l[1]).join('');
}

/** Another manager's log, a line every 10 s, with nothing from 10:03:00 to 10:12:00. */
function holeLog() {
  const out = [];
  for (let s = 0; s <= 1000; s += 10) {
    if (s > 180 && s < 720) continue;
    out.push(`${ts(s)}\tINFO\tcontroller-runtime.metrics\tserving metrics\t{"bindAddress": ":8080"}\n`);
  }
  return out.join('');
}

describe('lanes', { timeout: 120_000 }, () => {
  const widget = join(dir, 'widget-manager.log');
  const other = join(dir, 'other-manager.log');
  writeFileSync(widget, widgetLog());
  writeFileSync(other, holeLog());

  for (const colorScheme of ['light', 'dark']) {
    test(`all workers busy in the controller's row, a hole open on its log's lane (${colorScheme})`, async () => {
      const expected = JSON.parse(cli(['analyze', widget, other, '--json']));
      assert.equal(expected.in_flight.length, 1);
      assert.equal(expected.in_flight[0].peak, 4);
      const { context, page, seen } = await openApp(browser, { viewport: { width: 1280, height: 800 }, colorScheme });
      try {
        await page.locator('input[type=file]').setInputFiles([widget, other]);
        const canvas = page.locator('[data-testid=timeline] canvas');
        await page.waitForFunction(() => Number(document.querySelector('[data-testid=timeline] canvas')?.dataset.drawnBars) > 0, null, { timeout: 60_000 });
        assert.equal(await canvas.getAttribute('data-in-flight-lanes'), '1');
        // Both logs have a hole: the widget manager wrote nothing while
        // its four workers were held (10:05:03 to 10:15:00).
        assert.equal(await canvas.getAttribute('data-source-lanes'), '2');
        await page.locator('[data-finding-kind=saturated-workers]').first().waitFor();
        // The source lane's tooltip over the hole names it.
        await canvas.scrollIntoViewIfNeeded();
        const box = await canvas.boundingBox();
        const [left, width, top] = ['data-plot-left', 'data-plot-width', 'data-sources-top'].map(async (a) => Number(await canvas.getAttribute(a)));
        const [l, w, t] = [await left, await width, await top];
        const [v0, v1] = (await canvas.getAttribute('data-view')).split(',').map(Number);
        const x = (nanos) => box.x + l + ((nanos - v0) / (v1 - v0)) * w;
        const hole = Date.parse('2026-05-26T10:07:00Z') * 1e6;
        const tip = page.locator('[data-testid=timeline] .tooltip');
        let text = '';
        for (let lane = 0; lane < 2 && !text.startsWith('log other-manager.log'); lane++) {
          await page.mouse.move(x(hole), box.y + t + 7 + lane * 14);
          await page.waitForFunction(() => !document.querySelector('[data-testid=timeline] .tooltip')?.classList.contains('hidden'));
          text = await tip.textContent();
        }
        assert.match(text, /^log other-manager\.log/);
        assert.match(text, /no line .*10:03:00.* → .*10:12:00.*: the log may be missing there/);
        await page.mouse.move(box.x + 5, box.y + 5);
        await page.screenshot({ path: join(SCREENSHOTS, `lanes-${colorScheme}.png`) });
        await assertClean(page, seen);
      } finally {
        await context.close();
      }
    });
  }
});
