import type { SiteAssets } from './site-assets';
import type { SiteText } from './site-text';

/** `/manifest.webmanifest`: what a browser needs to add the site to a home screen (name, icons, colours). */
export function renderManifest(text: SiteText, assets: SiteAssets): string {
  return JSON.stringify({
    name: text.siteName,
    short_name: text.siteName,
    description: text.tagline,
    lang: text.htmlLang,
    start_url: '/',
    scope: '/',
    display: 'standalone',
    background_color: '#f5f6fa',
    theme_color: '#4f46e5',
    icons: [
      { src: assets.url('icon-192.png'), sizes: '192x192', type: 'image/png' },
      { src: assets.url('icon-512.png'), sizes: '512x512', type: 'image/png' },
      { src: assets.url('icon.svg'), sizes: 'any', type: 'image/svg+xml' },
    ],
  });
}
