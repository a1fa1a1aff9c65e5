/// <reference lib="dom" />
import type { Page } from 'playwright-core';

/**
 * The scripts an admin page holds: only the theme's (the inline boot script in <head> and theme.js, which
 * wires the light/dark button); the admin itself needs none. Hashed file names are given without their hash.
 */
export const ADMIN_SCRIPTS = ['inline', '/assets/theme.js'];

export function scriptsOf(page: Page): Promise<string[]> {
  return page.evaluate(() => Array.from(document.scripts, (script) => (script.src ? new URL(script.src).pathname.replace(/\.[0-9a-f]{12}\.js$/, '.js') : 'inline')));
}
