import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { launchChromium } from '@platform/kit/testing';

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

/**
 * Signs in through the app's own sign-in page as a user would (the Chinese form, or the English one
 * when the page shows English) and waits for the gallery.
 */
export async function signInThroughForm(page: Page, baseUrl: string, user: { name: string; password: string }, language: 'zh' | 'en' = 'zh'): Promise<void> {
  const labels = language === 'en' ? { name: 'Username', password: 'Password', submit: 'Sign in' } : { name: '用户名', password: '密码', submit: '登录' };
  await page.goto(`${baseUrl}/app/sign-in`);
  await page.getByLabel(labels.name).fill(user.name);
  await page.getByLabel(labels.password).fill(user.password);
  await page.getByRole('button', { name: labels.submit }).click();
  await page.waitForURL(`${baseUrl}/app/`);
}

/**
 * A Chromium (Chinese UI) with one context, a desktop window unless told, watched for problems
 * (`watchForProblems`), and its first page; `clipboardFor` grants that origin the clipboard.
 */
export async function openAppBrowser(
  options: BrowserContextOptions = {},
  { clipboardFor }: { clipboardFor?: string } = {},
): Promise<{ browser: Browser; context: BrowserContext; page: Page; problems: string[] }> {
  const browser = await launchChromium({ args: ['--lang=zh-CN'] });
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'zh-CN', ...options });
  if (clipboardFor) await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: clipboardFor });
  const { problems } = watchForProblems(context);
  return { browser, context, page: await context.newPage(), problems };
}
