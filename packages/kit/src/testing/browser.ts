import { existsSync, readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';

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
  if (existsSync(CHROMIUM_PATH)) {
    describe(name, body);
  } else if (process.env.REQUIRE_REAL_SERVICES === '1') {
    describe(name, () => {
      it(`needs ${CHROMIUM_PATH} (REQUIRE_REAL_SERVICES=1)`, () => {
        throw new Error(`${CHROMIUM_PATH} is missing but REQUIRE_REAL_SERVICES=1: install Debian's chromium package (.ci/run does)`);
      });
    });
  } else {
    describe.skip(`${name} (needs ${CHROMIUM_PATH})`, body);
  }
}

/** Headless Chromium with the flags every suite here needs; `args` adds a suite's own (a language, say). */
export async function launchChromium(options: { args?: string[] } = {}): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: [...CHROMIUM_ARGS, ...(options.args ?? [])] });
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  /** CSS selectors of the offending elements, each joined into one string. */
  targets: string[];
}

let axeSource: string | undefined;

/**
 * Runs axe-core in the page (evaluated through the DevTools protocol, which the page's CSP does not
 * govern) and returns the serious and critical violations: what the suites assert is `[]`.
 */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  axeSource ??= readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    type Result = { violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: string[] }> }> };
    const axe = (globalThis as unknown as { axe: { run(options: object): Promise<Result> } }).axe;
    const result = await axe.run({ resultTypes: ['violations'] });
    return result.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      help: violation.help,
      targets: violation.nodes.map((node) => node.target.join(' ')),
    }));
  });
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
}
