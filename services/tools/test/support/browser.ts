import fs from 'node:fs';
import type { Browser } from 'playwright-core';

/** Debian's Chromium: the browser tests drive it with playwright-core; nothing downloads a browser. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Browser tests run where Chromium is installed. Without it they are skipped, unless REQUIRE_REAL_SERVICES=1
 * (CI, which installs it), where the would-be skip is a failing test.
 */
export function describeWithChromium(name: string, body: () => void): void {
  if (fs.existsSync(CHROMIUM_PATH)) {
    describe(name, body);
  } else if (process.env.REQUIRE_REAL_SERVICES === '1') {
    describe(name, () => {
      it(`needs ${CHROMIUM_PATH} (REQUIRE_REAL_SERVICES=1)`, () => {
        throw new Error(`${CHROMIUM_PATH} is missing but REQUIRE_REAL_SERVICES=1: install it (apt-get install chromium)`);
      });
    });
  } else {
    describe.skip(`${name} (needs ${CHROMIUM_PATH})`, body);
  }
}

export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
}
