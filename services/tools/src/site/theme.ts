import { createHash } from 'node:crypto';

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
