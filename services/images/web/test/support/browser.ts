import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/** Debian's Chromium: nothing here downloads a browser. */
export const CHROMIUM = '/usr/bin/chromium';

/**
 * The browser suite needs /usr/bin/chromium. Without it the suite is skipped, unless
 * REQUIRE_REAL_SERVICES=1 (CI, which installs it), where the skip becomes a failure.
 */
export function describeWithChromium(name: string, body: () => void): void {
  if (existsSync(CHROMIUM)) {
    describe(name, body);
  } else if (process.env.REQUIRE_REAL_SERVICES === '1') {
    describe(name, () => {
      it(`needs ${CHROMIUM} (REQUIRE_REAL_SERVICES=1)`, () => {
        throw new Error(`${CHROMIUM} is missing but REQUIRE_REAL_SERVICES=1: install Debian's chromium package (.ci/run does)`);
      });
    });
  } else {
    describe.skip(`${name} (needs ${CHROMIUM})`, body);
  }
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--lang=zh-CN'],
  });
}

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

const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[]; failureSummary?: string }>;
}

/**
 * Runs axe-core in the page (evaluated through the DevTools protocol, which the page's CSP does
 * not govern) and returns the serious and critical violations.
 */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      help: violation.help,
      nodes: violation.nodes.map((node) => ({ target: node.target, failureSummary: node.failureSummary })),
    }));
  });
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
}

/** Where screenshots go: WEB_SCREENSHOT_DIR (`npm run screenshots` sets docs/screenshots), else a temp folder. */
export function screenshotDir(fallback: string): string {
  const dir = process.env.WEB_SCREENSHOT_DIR ? path.resolve(process.env.WEB_SCREENSHOT_DIR) : fallback;
  mkdirSync(dir, { recursive: true });
  return dir;
}
