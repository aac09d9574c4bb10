// How every browser test and benchmark launches Debian's Chromium.
// Running as root needs --no-sandbox; the network flags keep Chromium from
// calling home (the machine has no network but the package registries).
import { chromium } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Launches headless Chromium with the flags above, plus `extra`. */
export function launchChromium(extra = []) {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: [...CHROMIUM_ARGS, ...extra] });
}

/**
 * A new context and page in `browser` that record what a person would not
 * see: requests, console errors, uncaught exceptions and CSP violations
 * (in `window.__cspViolations`, set up before any page script runs).
 */
export async function watchedPage(browser, contextOptions = {}) {
  const context = await browser.newContext(contextOptions);
  const seen = { consoleErrors: [], pageErrors: [], requests: [] };
  context.on('request', (req) => seen.requests.push(req.url()));
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
  return { context, page, seen };
}
