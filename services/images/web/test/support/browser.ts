import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';

/**
 * Everything a page reports that must not happen: uncaught errors, console errors (a CSP or
 * Trusted Types refusal is one), and `securitypolicyviolation` events.
 */
export function watchForProblems(context: BrowserContext): { problems: string[] } {
  const problems: string[] = [];
  const watch = (page: Page) => {
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
    });
  };
  context.pages().forEach(watch);
  context.on('page', watch);
  // Reported from inside the page, to the test through a console error.
  void context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`);
    });
  });
  return { problems };
}

/** Where screenshots go: WEB_SCREENSHOT_DIR (`npm run screenshots` sets docs/screenshots), else a temp folder. */
export function screenshotDir(fallback: string): string {
  const dir = process.env.WEB_SCREENSHOT_DIR ? path.resolve(process.env.WEB_SCREENSHOT_DIR) : fallback;
  mkdirSync(dir, { recursive: true });
  return dir;
}
