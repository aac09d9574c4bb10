// The canvas timeline (src/bin/app/chart/): keyboard selection, filters
// that never move the window, "Show on timeline", the overview strip, row
// labels cut in the middle with their tooltip, and screenshots in light
// and dark to look at (etcd lane, bands, finding labels).
//
// RECONSCOPE_URL=http://127.0.0.1:PORT/reconscope/ node --test tests/browser/chart.test.mjs

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, watchedPage } from './chromium.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const SCREENSHOTS = join(HERE, 'screenshots');
const BASE_URL = process.env.RECONSCOPE_URL;
const CANVAS = '[data-testid=timeline] canvas';

let browser;

before(async () => {
  assert.ok(BASE_URL, 'set RECONSCOPE_URL to the served dist/');
  mkdirSync(SCREENSHOTS, { recursive: true });
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
});

/** The app with the example loaded, at 1280×800. */
async function openExample(contextOptions = {}) {
  const { context, page, seen } = await watchedPage(browser, { viewport: { width: 1280, height: 800 }, ...contextOptions });
  const response = await page.goto(BASE_URL, { waitUntil: 'load' });
  assert.equal(response?.status(), 200);
  await page.waitForSelector('[data-testid=app-ready]', { state: 'attached', timeout: 30_000 });
  await page.getByTestId('open-example').click();
  await page.waitForSelector('[data-finding-kind=stalled-worker]', { state: 'attached', timeout: 60_000 });
  await page.waitForFunction((c) => document.querySelector(c)?.dataset.viewStart, CANVAS);
  return { context, page, seen };
}

/** The canvas scrolled into view: its box on the page and its rows' top. */
async function rowsInView(page) {
  const canvas = page.locator(CANVAS);
  await canvas.scrollIntoViewIfNeeded();
  return { box: await canvas.boundingBox(), rowsTop: Number(await canvas.getAttribute('data-rows-top')) };
}

/** The drawn window, absolute ns (as Numbers: µs precision is plenty here). */
async function view(page) {
  return page.evaluate((c) => {
    const d = document.querySelector(c).dataset;
    return { start: BigInt(d.viewStart), end: BigInt(d.viewEnd) };
  }, CANVAS);
}

describe('chart', { timeout: 180_000 }, () => {
  test('arrow keys move the selection from bar to bar and Enter opens it', async () => {
    const { context, page, seen } = await openExample();
    try {
      const canvas = page.locator(CANVAS);
      await canvas.focus();
      assert.equal(await canvas.getAttribute('data-selected-reconcile'), null);
      await page.keyboard.press('ArrowRight');
      await page.waitForFunction((c) => document.querySelector(c).dataset.selectedReconcile, CANVAS);
      const first = await canvas.getAttribute('data-selected-reconcile');
      const selected = () => canvas.getAttribute('data-selected-reconcile');
      // Down: the nearest bar on the next row with bars (the example's first
      // rows hold one bar each); twenty rows down are rows with many bars.
      await page.keyboard.press('ArrowDown');
      await page.waitForFunction((args) => document.querySelector(args[0]).dataset.selectedReconcile !== args[1], [CANVAS, first]);
      for (let i = 0; i < 20; i++) await page.keyboard.press('ArrowDown');
      await page.waitForTimeout(100);
      const down = await selected();
      // Right and Left: the next and previous bar of the same row.
      await page.keyboard.press('ArrowRight');
      await page.waitForTimeout(100);
      const right = await selected();
      await page.keyboard.press('ArrowLeft');
      await page.waitForTimeout(100);
      const left = await selected();
      assert.ok(right !== down || left !== down, `left/right move along the row (${down} ${right} ${left})`);
      if (right !== down) assert.equal(left, down, 'Left comes back to the bar before');
      const chosen = await canvas.getAttribute('data-selected-reconcile');
      assert.ok(chosen, 'a bar is selected');
      assert.ok(await canvas.getAttribute('data-selected-rect'), 'the selected bar is drawn (in view)');
      await page.screenshot({ path: join(SCREENSHOTS, 'chart-keyboard.png') });
      await page.keyboard.press('Enter');
      const inspector = page.getByTestId('inspector');
      await inspector.waitFor({ state: 'attached' });
      assert.match(await inspector.innerText(), /reconcile/i);
      // Shift+arrows still pan.
      const before = await view(page);
      await canvas.focus();
      await page.keyboard.press('Shift+ArrowRight');
      await page.waitForFunction((args) => BigInt(document.querySelector(args[0]).dataset.viewStart) > BigInt(args[1]), [CANVAS, String(before.start)]);
      assert.deepEqual(seen.pageErrors, []);
    } finally {
      await context.close();
    }
  });

  test('a filter never moves the window', async () => {
    const { context, page, seen } = await openExample();
    try {
      const canvas = page.locator(CANVAS);
      // Zoom in a little first, so that the window is not the whole run.
      await canvas.focus();
      await page.keyboard.press('+');
      await page.keyboard.press('+');
      await page.waitForTimeout(200);
      const before = await view(page);
      const bars = Number(await canvas.getAttribute('data-drawn-bars'));
      await page.getByTestId('filter-message').fill('DataStore user');
      await page.waitForFunction((args) => Number(document.querySelector(args[0]).dataset.drawnBars) < args[1], [CANVAS, bars]);
      await page.waitForTimeout(300);
      assert.deepEqual(await view(page), before, 'the same window after filtering');
      await page.getByTestId('filter-message').fill('');
      await page.waitForFunction((args) => Number(document.querySelector(args[0]).dataset.drawnBars) >= args[1], [CANVAS, bars]);
      await page.waitForTimeout(300);
      assert.deepEqual(await view(page), before, 'and after clearing the filter');
      assert.deepEqual(seen.pageErrors, []);
    } finally {
      await context.close();
    }
  });

  for (const colorScheme of ['light', 'dark']) {
    test(`"Show on timeline" zooms onto the finding (${colorScheme})`, async () => {
      const { context, page, seen } = await openExample({ colorScheme });
      try {
        const canvas = page.locator(CANVAS);
        await page.getByTestId('reset-zoom').click();
        await page.waitForTimeout(200);
        const full = await view(page);
        await canvas.scrollIntoViewIfNeeded();
        await page.screenshot({ path: join(SCREENSHOTS, `chart-${colorScheme}.png`) });
        await page.locator('[data-finding-kind=stalled-worker] button[title]').first().click();
        await page.waitForFunction((c) => document.querySelector(c).dataset.focusFinding !== undefined, CANVAS);
        await page.waitForFunction((args) => {
          const d = document.querySelector(args[0]).dataset;
          return BigInt(d.viewEnd) - BigInt(d.viewStart) < BigInt(args[1]);
        }, [CANVAS, String(full.end - full.start)]);
        const zoomed = await view(page);
        assert.ok(zoomed.end - zoomed.start < full.end - full.start, 'zoomed in');
        assert.ok(zoomed.start >= full.start - (full.end - full.start) && zoomed.end <= full.end + (full.end - full.start), 'around the run');
        await canvas.scrollIntoViewIfNeeded();
        await page.waitForTimeout(200);
        await canvas.screenshot({ path: join(SCREENSHOTS, `chart-focus-${colorScheme}.png`) });
        assert.deepEqual(seen.pageErrors, []);
      } finally {
        await context.close();
      }
    });
  }

  test('the overview strip moves the window: dragging its box, clicking elsewhere', async () => {
    const { context, page, seen } = await openExample();
    try {
      const canvas = page.locator(CANVAS);
      // The whole run first (the strip maps it onto the plot's width), then
      // the stall's window, a box on the strip.
      await page.getByTestId('reset-zoom').click();
      await page.waitForTimeout(200);
      const whole = await view(page);
      await page.locator('[data-finding-kind=stalled-worker] [data-testid=show-on-timeline]').click();
      await page.waitForTimeout(300);
      const zoomed = await view(page);
      const span = zoomed.end - zoomed.start;
      await canvas.scrollIntoViewIfNeeded();
      const box = await canvas.boundingBox();
      const left = Number(await canvas.getAttribute('data-plot-left'));
      const width = Number(await canvas.getAttribute('data-plot-width'));
      const y = box.y + box.height - 9; // the strip: the canvas's last 18 px
      const frac = (t) => Number(t - whole.start) / Number(whole.end - whole.start);
      const mid = box.x + left + width * frac((zoomed.start + zoomed.end) / 2n);
      await page.mouse.move(mid, y);
      await page.mouse.down();
      await page.mouse.move(mid + 50, y, { steps: 5 });
      await page.mouse.move(mid + 100, y, { steps: 5 });
      await page.mouse.up();
      await page.waitForTimeout(200);
      const dragged = await view(page);
      assert.ok(dragged.start > zoomed.start, `dragged later: ${zoomed.start} → ${dragged.start}`);
      const moved = dragged.end - dragged.start;
      assert.ok(moved * 100n > span * 99n && moved * 100n < span * 101n, 'the same span');
      // A click on the strip near the run's start jumps there.
      await page.mouse.click(box.x + left + 3, y);
      await page.waitForTimeout(200);
      const jumped = await view(page);
      assert.ok(jumped.start < dragged.start, 'jumped earlier');
      assert.ok(frac(jumped.start) < 0.2, `near the run's start: ${frac(jumped.start)}`);
      assert.deepEqual(seen.pageErrors, []);
    } finally {
      await context.close();
    }
  });

  test('a label too long is cut in the middle, and the tooltip says it in full', async () => {
    const { context, page, seen } = await openExample();
    try {
      const { box, rowsTop } = await rowsInView(page);
      // The secret controller's objects (certificate secrets with long
      // names) are drawn cut; hover each row's label until the tooltip
      // names one in full.
      let full = null;
      for (let row = 0; row < 40 && !full; row++) {
        await page.mouse.move(box.x + 60, box.y + rowsTop + 10 + row * 20);
        await page.waitForTimeout(30);
        const t = await page.locator('[data-testid=timeline] .tooltip').evaluate((el) => (el.classList.contains('hidden') ? '' : el.textContent));
        if (/-certificate/.test(t)) full = t;
      }
      assert.ok(full, 'a tooltip named a certificate secret in full');
      assert.match(full, /tenant-[a-z]+\/kubernetes-[a-z-]+-certificate/);
      assert.ok(!full.includes('…'), full);
      assert.deepEqual(seen.pageErrors, []);
    } finally {
      await context.close();
    }
  });

  test('the square for finalizers left is drawn whole just after the last line, and says what it is', async () => {
    const { context, page, seen } = await openExample();
    try {
      const { box, rowsTop } = await rowsInView(page);
      const width = box.width;
      // Row 1 is the stuck TenantControlPlane (its controller's group row
      // is row 0): its red pixels across the row's middle, right to left.
      // The square's right and left sides are the rightmost two runs, 8 px
      // apart (its 2 px strokes).
      const cy = rowsTop + 20 + 10;
      const runs = await page.evaluate(
        ([c, cy]) => {
          const el = document.querySelector(c);
          const k = el.width / el.getBoundingClientRect().width;
          const row = el.getContext('2d').getImageData(0, Math.round(cy * k), el.width, 1).data;
          const red = (x) => row[4 * x] > 150 && row[4 * x + 1] < 90 && row[4 * x + 2] < 90;
          const out = [];
          for (let x = el.width - 1; x >= 0 && out.length < 2; x--) {
            if (red(x) && !red(x + 1)) out.push(x / k);
          }
          return out;
        },
        [CANVAS, cy],
      );
      assert.equal(runs.length, 2, `two red strokes: ${runs}`);
      const [right, left] = runs;
      assert.ok(right - left >= 7 && right - left <= 9, `one square, 8 px wide: ${left}–${right}`);
      assert.ok(right <= width - 6, `whole, short of the scroll hint: right side at ${right} of ${width}`);
      await page.mouse.move(box.x + (left + right) / 2, box.y + cy);
      await page.waitForTimeout(50);
      const tip = await page.locator('[data-testid=timeline] .tooltip').evaluate((el) => (el.classList.contains('hidden') ? '' : el.textContent));
      assert.match(tip, /tenant-test\/kubernetes-test-latest-version: finalizers at the end: finalizer\.kamaji\.clastix\.io/);
      assert.deepEqual(seen.pageErrors, []);
    } finally {
      await context.close();
    }
  });

  test('the axis steps no finer than the times were written', async () => {
    // Four reconciles over 3 s: written to the second, then the same lines
    // to the millisecond. The first gets whole seconds, never `10:00:00.500`.
    const log = (frac) =>
      [0, 1, 2, 3]
        .map((i) => `2026-05-26T10:00:0${i}${frac}Z\tINFO\tReconciling\t{"controller": "widget", "namespace": "ns", "name": "w${i}", "reconcileID": "r${i}"}\n`)
        .join('');
    const steps = {};
    for (const [name, frac] of [['seconds', ''], ['millis', '.000']]) {
      const { context, page, seen } = await watchedPage(browser, { viewport: { width: 1280, height: 800 } });
      try {
        await page.goto(BASE_URL, { waitUntil: 'load' });
        await page.waitForSelector('[data-testid=app-ready]', { state: 'attached', timeout: 30_000 });
        await page.locator('input[type=file]').setInputFiles([{ name: 'manager.log', mimeType: 'text/plain', buffer: Buffer.from(log(frac)) }]);
        await page.waitForFunction((c) => document.querySelector(c)?.dataset.tickStep, CANVAS, { timeout: 60_000 });
        steps[name] = Number(await page.locator(CANVAS).getAttribute('data-tick-step'));
        await page.locator(CANVAS).scrollIntoViewIfNeeded();
        await page.locator('[data-testid=timeline]').screenshot({ path: join(SCREENSHOTS, `axis-${name}-all.png`) });
        // Zoomed in far, still no step under the second.
        const canvas = page.locator(CANVAS);
        await canvas.focus();
        for (let i = 0; i < 6; i++) await page.keyboard.press('+');
        await page.waitForTimeout(300);
        steps[`${name} zoomed`] = Number(await canvas.getAttribute('data-tick-step'));
        await canvas.scrollIntoViewIfNeeded();
        await page.locator('[data-testid=timeline]').screenshot({ path: join(SCREENSHOTS, `axis-${name}-zoomed.png`) });
        assert.deepEqual(seen.pageErrors, []);
      } finally {
        await context.close();
      }
    }
    assert.equal(steps.seconds, 1e9, JSON.stringify(steps));
    assert.equal(steps['seconds zoomed'], 1e9, JSON.stringify(steps));
    assert.ok(steps.millis < 1e9 && steps['millis zoomed'] < steps.millis, JSON.stringify(steps));
  });
});
