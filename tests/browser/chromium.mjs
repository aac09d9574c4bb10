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
