import { createHash } from 'node:crypto';
import { html, rawHtml, type Html } from './html';

/**
 * The one inline script of the site, in <head> before the stylesheet is applied: it puts the visitor's
 * saved theme (see assets/theme.js) on <html data-theme> before the first paint, so a dark page never
 * flashes light. Inline because a file would be fetched after the first paint; allowed by its hash in
 * the Content-Security-Policy, not by 'unsafe-inline'. Without a saved choice (or without JavaScript)
 * the stylesheet follows the system's prefers-color-scheme.
 */
export const THEME_STORAGE_KEY = 'theme';

export const THEME_BOOT_SCRIPT = `try{var t=localStorage.getItem('${THEME_STORAGE_KEY}');if(t==='dark'||t==='light')document.documentElement.setAttribute('data-theme',t)}catch(e){}`;

/** The script's CSP source expression. */
export const THEME_BOOT_HASH = `'sha256-${createHash('sha256').update(THEME_BOOT_SCRIPT, 'utf8').digest('base64')}'`;

/** What goes in <head> of a themed page (the site's and the admin's): the colour schemes offered and the boot script. */
export function themeHead(): Html {
  return html`<meta name="color-scheme" content="light dark">
<meta name="theme-color" content="#4f46e5" media="(prefers-color-scheme: light)">
<meta name="theme-color" content="#1e1b4b" media="(prefers-color-scheme: dark)">
<script>${rawHtml(THEME_BOOT_SCRIPT)}</script>`;
}

/** The light/dark button (assets/theme.js shows it and wires it; hidden without JavaScript). `label`: its name. */
export function themeToggle(label: string): Html {
  return html`<button class="theme-toggle" type="button" data-theme-toggle aria-pressed="false" hidden><svg class="theme-toggle__moon" aria-hidden="true" viewBox="0 0 24 24" width="18" height="18"><path d="M20 14.5A8 8 0 0 1 9.5 4a8 8 0 1 0 10.5 10.5Z"/></svg><svg class="theme-toggle__sun" aria-hidden="true" viewBox="0 0 24 24" width="18" height="18"><circle cx="12" cy="12" r="4"/><path d="M12 2v2M12 20v2M4.9 4.9l1.4 1.4M17.7 17.7l1.4 1.4M2 12h2M20 12h2M4.9 19.1l1.4-1.4M17.7 6.3l1.4-1.4"/></svg><span class="visually-hidden">${label}</span></button>`;
}
