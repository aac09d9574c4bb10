// Browser tests of what a load reads (issue 15): a folder chosen with the
// folder picker (links, a pipe, beside a real log), the "Read at most" cap
// over several inputs, and a log larger than the tab holds.
//
// Run by scripts/test.sh with the others; by hand as app.test.mjs says.

import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, copyFileSync, mkdirSync, mkdtempSync, openSync, readSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BASE_URL, INCIDENT, ROOT, SCREENSHOTS, assertClean, browser, cli, openApp, useChromium } from './helpers.mjs';

useChromium();

const dirs = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const tempDir = (prefix) => {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
};
const cargo = (args) => execFileSync('cargo', ['run', '--quiet', '--offline', ...args], { cwd: ROOT, encoding: 'utf8', maxBuffer: 256 << 20 });

/** `n` bytes as the app writes them (reconscope::ingest::human_bytes). */
function human(n) {
  for (const [unit, size] of [['TiB', 2 ** 40], ['GiB', 2 ** 30], ['MiB', 2 ** 20], ['KiB', 2 ** 10]]) {
    if (n >= size) return n % size === 0 ? `${n / size} ${unit}` : `${(n / size).toFixed(1)} ${unit}`;
  }
  return `${n} bytes`;
}

/** The load's notes as the Files panel lists them. */
const notes = async (page) => (await page.getByTestId('note').allTextContents()).map((t) => t.trim());

describe('what a load reads', { timeout: 900_000 }, () => {
  test('a folder: links are not followed, a pipe is an empty file, the real log loads', async () => {
    // A copied pod-log export: the real kamaji log, beside a link to a
    // secret outside the folder, a link loop, a dangling link, a link to
    // the log itself, and a named pipe.
    const root = tempDir('reconscope-folder-');
    const outside = join(root, 'outside');
    const tree = join(root, 'artifact');
    mkdirSync(outside);
    mkdirSync(join(tree, 'pods', 'kamaji'), { recursive: true });
    mkdirSync(join(tree, 'pods', 'other'), { recursive: true });
    writeFileSync(join(outside, 'credentials'), 'SECRET-TOKEN-5d41402abc4b2a76\n');
    copyFileSync(join(ROOT, INCIDENT, 'kamaji/kamaji-controller.log'), join(tree, 'pods', 'kamaji', 'manager.log'));
    symlinkSync(join(outside, 'credentials'), join(tree, 'pods', 'other', 'escape.log'));
    symlinkSync('..', join(tree, 'pods', 'other', 'loop'));
    symlinkSync('missing.log', join(tree, 'pods', 'other', 'dangling.log'));
    symlinkSync('../kamaji/manager.log', join(tree, 'pods', 'other', 'again.log'));
    execFileSync('mkfifo', [join(tree, 'pods', 'other', 'pipe.log')]);
    const expected = JSON.parse(cli(['analyze', join(tree, 'pods', 'kamaji', 'manager.log'), '--json']));

    const { context, page, seen } = await openApp(browser, { viewport: { width: 1280, height: 800 } });
    try {
      const chooser = page.waitForEvent('filechooser');
      await page.getByTestId('pick-folder').click();
      await (await chooser).setFiles(tree);
      await page.waitForFunction(() => Number(document.querySelector('[data-testid=timeline]')?.dataset.reconcileCount) > 0, null, { timeout: 60_000 });
      // The browser lists the folder's regular files and the pipe (as an
      // empty file); it follows no link, so the log is read once.
      const names = (await page.getByTestId('file-list').locator('li').allTextContents()).map((t) => t.trim()).sort();
      assert.deepEqual(names, ['artifact/pods/kamaji/manager.log', 'artifact/pods/other/pipe.log']);
      assert.equal(await page.getByTestId('timeline').getAttribute('data-reconcile-count'), String(expected.reconciles.length));
      assert.ok((await notes(page)).includes('artifact/pods/other/pipe.log: the file is empty: nothing to read'), (await notes(page)).join('\n'));
      // Nothing of the secret reached the page.
      assert.ok(!(await page.content()).includes('SECRET-TOKEN'), 'the secret outside the folder was read');
      await assertClean(page, seen);
    } finally {
      await context.close();
    }
  });

  test('"Read at most" caps three inputs together: the first whole, the second up to the cap, the third not at all', async () => {
    const dir = tempDir('reconscope-cap-');
    const logs = ['a', 'b', 'c'].map((n, i) => {
      const file = join(dir, `${n}.log`);
      cargo(['--example', 'gen_kamaji_log', '--', file, '2', String(i + 1)]);
      return file;
    });
    const sizes = logs.map((f) => statSync(f).size);
    const cap = 3 << 20;
    // What the app reads of b.log: its bytes up to the cap, to the last
    // whole line. The CLI on those bytes, with a.log, is the expectation.
    const room = cap - sizes[0];
    const fd = openSync(logs[1], 'r');
    const head = Buffer.alloc(room);
    readSync(fd, head, 0, room, 0);
    closeSync(fd);
    const kept = head.lastIndexOf(10) + 1;
    const cut = join(dir, 'cut');
    mkdirSync(cut);
    copyFileSync(logs[0], join(cut, 'a.log'));
    writeFileSync(join(cut, 'b.log'), head.subarray(0, kept));
    const expected = JSON.parse(cli(['analyze', join(cut, 'a.log'), join(cut, 'b.log'), '--json']));

    const { context, page, seen } = await openApp(browser, { viewport: { width: 1280, height: 800 } });
    try {
      await page.getByTestId('read-at-most').fill('2 parsecs');
      assert.match(await page.getByTestId('read-at-most-error').textContent(), /`parsecs` is not a unit/);
      await page.getByTestId('read-at-most').fill('3MB');
      assert.equal(await page.getByTestId('read-at-most-error').count(), 0);
      await page.locator('input[type=file]').setInputFiles(logs);
      await page.getByTestId('left-out-banner').waitFor({ timeout: 60_000 });
      const banner = (await page.getByTestId('left-out-banner').textContent()).trim();
      const mib = human;
      assert.equal(
        banner,
        `Read ${mib(sizes[0] + kept)} of ${mib(sizes[0] + sizes[1] + sizes[2])}: the last ${mib(sizes[1] - kept + sizes[2])} of b.log, c.log were left out ` +
          '("Read at most" is 3 MiB). What is shown ends there; the CLI reads all of it: reconscope analyze b.log',
      );
      assert.equal(await page.getByTestId('timeline').getAttribute('data-reconcile-count'), String(expected.reconciles.length));
      const n = await notes(page);
      assert.ok(n.some((t) => t.startsWith(`b.log: read only in part: its first ${mib(kept)} of ${mib(sizes[1])} (to the last whole line)`)), n.join('\n'));
      assert.ok(n.some((t) => t.startsWith(`c.log: not read (${mib(sizes[2])}): the load's cap is 3 MiB`)), n.join('\n'));
      await assertClean(page, seen);
    } finally {
      await context.close();
    }
  });

  test('a log larger than the tab holds is packed as it is parsed, read up to what the tab holds, analysed and shown, with a banner', async () => {
    // reconscope::web::TAB_LOG_BYTES (3.375 GiB), and a generated log 128 MiB
    // over it: past the first GiB (TAB_PLAIN_BYTES) the worker packs it as
    // it parses it, and reads its lines back for the inspector and filters.
    const TAB = 3456 * 2 ** 20;
    const dir = tempDir('reconscope-tab-');
    const file = join(dir, 'kamaji-manager.log');
    execFileSync('cargo', ['run', '--quiet', '--offline', '--release', '--example', 'gen_kamaji_log', '--', file, String(3456 + 128), '5'], { cwd: ROOT });
    const size = statSync(file).size;
    const fd = openSync(file, 'r');
    const tail = Buffer.alloc(1 << 20);
    readSync(fd, tail, 0, tail.length, TAB - tail.length);
    closeSync(fd);
    const kept = TAB - tail.length + tail.lastIndexOf(10) + 1;
    // What the CLI says of the bytes the tab reads, under the same cap (it
    // cuts at the last whole line too; its text output: the JSON of 3 GiB
    // of logs is over a gigabyte): reconciles, elections, findings (a
    // line each, `kind [time] sentence`), and the note of what it read.
    const text = execFileSync('cargo', ['run', '--quiet', '--offline', '--release', '--bin', 'reconscope', '--', 'analyze', file, '--max-total-bytes', String(TAB)], {
      cwd: ROOT,
      encoding: 'utf8',
      maxBuffer: 256 << 20,
    });
    assert.ok(text.includes(`kamaji-manager.log: read only in part: its first ${human(kept)} of ${human(size)}`), text.slice(0, 2000));
    const head = /^1 file, (\d+) reconciles, \d+ controller instances, (?:(\d+) etcd elections|elections unknown)/.exec(text);
    assert.ok(head, text.slice(0, 300));
    const expected = { reconciles: Number(head[1]), elections: Number(head[2] || 0), findings: text.split('\n').filter((l) => /^[a-z-]+ \[\d{4}-\d\d-\d\dT/.test(l)).length };
    assert.ok(expected.reconciles > 1_500_000 && expected.findings > 0, JSON.stringify(expected));

    const { context, page, seen } = await openApp(browser, { viewport: { width: 1280, height: 800 } });
    try {
      await page.locator('input[type=file]').setInputFiles(file);
      await page.getByTestId('left-out-banner').waitFor({ timeout: 300_000 });
      const [gib, mib] = [human, human];
      assert.equal(
        (await page.getByTestId('left-out-banner').textContent()).trim(),
        `Read ${gib(kept)} of ${gib(size)}: the last ${mib(size - kept)} of kamaji-manager.log were left out (the tab holds at most 3.4 GiB of logs). ` +
          'What is shown ends there; the CLI reads all of it: reconscope analyze kamaji-manager.log',
      );
      // What is shown is the analysis of the bytes read.
      const timeline = page.getByTestId('timeline');
      const total = Number(await timeline.getAttribute('data-reconcile-count'));
      assert.equal(total, expected.reconciles);
      assert.equal(await timeline.getAttribute('data-election-count'), String(expected.elections));
      assert.equal(await page.locator('[data-testid=findings] [data-finding-kind]').count(), expected.findings);
      await page.screenshot({ path: join(SCREENSHOTS, 'left-out-banner.png') });

      // A finding's reconcile in the inspector: its lines, read back out
      // of the packed log, as the file has them.
      const finding = page.locator('[data-testid=findings] [data-finding-kind]').first();
      await finding.click();
      await finding.getByTestId('inspect-reconcile').click();
      const inspector = page.getByTestId('inspector');
      await inspector.waitFor({ state: 'attached' });
      const id = await inspector.getAttribute('data-reconcile-id');
      await inspector.locator('.line .text', { hasText: id }).first().waitFor({ state: 'attached', timeout: 60_000 });
      const loc = await inspector.locator('.line .loc').last().innerText();
      const line = Number(/^kamaji-manager\.log:(\d+)$/.exec(loc)[1]);
      const shownText = await inspector.locator('.line .text').last().innerText();
      const fileText = execFileSync('awk', [`NR==${line} { print; exit }`, file], { encoding: 'utf8', maxBuffer: 16 << 20 }).replace(/\n$/, '');
      assert.equal(shownText, fileText, `line ${line}`);
      await page.screenshot({ path: join(SCREENSHOTS, 'packed-inspector.png') });

      // A text filter reads every line back: some reconciles, not all.
      await page.getByTestId('filter-message').fill('update of the resource failed');
      await page.waitForFunction((n) => Number(document.querySelector('[data-testid=timeline]').dataset.shownCount) < n, total, { timeout: 120_000 });
      const shown = Number(await timeline.getAttribute('data-shown-count'));
      assert.ok(shown > 0, `${shown} of ${total}`);
      await assertClean(page, seen);
    } finally {
      await context.close();
    }
  });
});
