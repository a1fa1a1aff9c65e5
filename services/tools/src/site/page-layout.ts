import { html, type Html } from './html';
import type { Localizer } from './localize';
import type { SiteAssets } from './site-assets';
import { LANGS, SITE_TEXT, type Lang, type SiteText } from './site-text';
import { pageUrl, searchAction, type PageLocation } from './site-urls';
import { themeHead, themeToggle } from './theme';
import { SUBMIT_TEXT } from './submit-text';

/** What every page is rendered with. */
export interface PageContext {
  lang: Lang;
  text: SiteText;
  /** Origin of absolute URLs (canonical, Open Graph, sitemap), without a trailing slash. */
  baseUrl: string;
  assets: SiteAssets;
  /** The directory's data in the page's language. */
  localize: Localizer;
  /** Our own URL of a tool's stored icon, by slug; none: the letter avatar alone. */
  iconUrl?: (slug: string) => string | undefined;
}

/** The og:image's size (assets/og-image.png, drawn by scripts/site-images.ts). */
const OG_IMAGE = { width: 1200, height: 630 };

export interface PageShell {
  title: string;
  description: string;
  /** The page's own address; absent for error pages (no canonical, no alternates). */
  location?: PageLocation;
  /** Search results and error pages are not for an index; their links are still followed. */
  noindex?: boolean;
  /**
   * Whether the page's main content is in English (editors filled the English fields). Only then are the
   * two languages offered as alternates (hreflang); otherwise the English page names the Chinese one as
   * its canonical, being the same content under English menus.
   */
  hasEnglish?: boolean;
  ogType?: 'website' | 'article';
  /** The search box's current text. */
  keyword?: string;
  /** The home page's banner: headline, tagline, big search box. */
  hero?: { heading: string; stats: string };
  main: Html;
}

function searchForm(context: PageContext, keyword: string, variant: 'bar' | 'hero'): Html {
  const { lang, text } = context;
  const id = `search-${variant}`;
  return html`<form class="search search--${variant}" role="search" action="${searchAction(lang)}" method="get" data-live-search>
  <label class="visually-hidden" for="${id}">${text.searchLabel}</label>
  <input id="${id}" class="search__input" type="search" name="q" value="${keyword}" placeholder="${text.searchPlaceholder}" maxlength="100" autocomplete="off" spellcheck="false" enterkeyhint="search">
  <button class="search__button" type="submit"><svg class="search__icon" aria-hidden="true" viewBox="0 0 24 24" width="18" height="18"><circle cx="11" cy="11" r="7"/><path d="m20 20-3.5-3.5"/></svg><span>${text.searchButton}</span></button>
</form>`;
}

export function renderPage(context: PageContext, shell: PageShell): string {
  const { lang, text, baseUrl, assets } = context;
  const other: Lang = lang === 'zh' ? 'en' : 'zh';
  const location = shell.location;
  const absolute = (path: string) => `${baseUrl}${path}`;
  const bilingual = Boolean(shell.hasEnglish) && !shell.noindex;
  const canonical = location ? absolute(pageUrl(bilingual || shell.noindex ? lang : 'zh', location)) : undefined;
  const switchHref = pageUrl(other, location ?? { kind: 'home' });
  const alternates = location && bilingual
    ? html`${LANGS.map((alternate) => html`
<link rel="alternate" hreflang="${SITE_TEXT[alternate].htmlLang}" href="${absolute(pageUrl(alternate, location))}">`)}
<link rel="alternate" hreflang="x-default" href="${absolute(pageUrl('zh', location))}">`
    : null;

  return html`<!doctype html>
<html lang="${text.htmlLang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${shell.title}</title>
<meta name="description" content="${shell.description}">
${shell.noindex ? html`<meta name="robots" content="noindex, follow">` : null}
${canonical ? html`<link rel="canonical" href="${canonical}">` : null}${alternates}
<meta property="og:type" content="${shell.ogType ?? 'website'}">
<meta property="og:site_name" content="${text.siteName}">
<meta property="og:title" content="${shell.title}">
<meta property="og:description" content="${shell.description}">
${canonical ? html`<meta property="og:url" content="${canonical}">` : null}
<meta property="og:locale" content="${text.ogLocale}">
${bilingual ? html`<meta property="og:locale:alternate" content="${SITE_TEXT[other].ogLocale}">` : null}
<meta property="og:image" content="${absolute(assets.url('og-image.png'))}">
<meta property="og:image:type" content="image/png">
<meta property="og:image:width" content="${OG_IMAGE.width}">
<meta property="og:image:height" content="${OG_IMAGE.height}">
<meta property="og:image:alt" content="${text.ogImageAlt}">
<meta name="twitter:card" content="summary_large_image">
${themeHead()}
<link rel="icon" href="/favicon.ico" sizes="16x16 32x32 48x48">
<link rel="icon" type="image/svg+xml" href="${assets.url('icon.svg')}">
<link rel="apple-touch-icon" href="${assets.url('icon-192.png')}">
<link rel="manifest" href="/manifest.webmanifest">
<link rel="stylesheet" href="${assets.url('site.css')}">
<script src="${assets.url('theme.js')}" defer></script>
<script src="${assets.url('site.js')}" defer></script>
</head>
<body>
<a class="skip-link" href="#main">${text.skipToContent}</a>
<header class="site-header">
  <div class="site-bar container">
    <a class="brand" href="${pageUrl(lang, { kind: 'home' })}"><img class="brand__logo" src="${assets.url('icon.svg')}" alt="" width="32" height="32"><span>${text.siteName}</span></a>
    ${shell.hero ? null : searchForm(context, shell.keyword ?? '', 'bar')}
    <nav class="site-nav" aria-label="${text.primaryNav}">
      <a href="${pageUrl(lang, { kind: 'home' })}#categories">${text.categories}</a>
      ${themeToggle(text.darkMode)}
      <a class="lang-switch" data-switch-lang href="${switchHref}" lang="${SITE_TEXT[other].htmlLang}" aria-label="${text.switchLanguageLabel}">${text.switchLanguage}</a>
    </nav>
  </div>
  ${shell.hero
    ? html`<div class="hero container">
    <h1 class="hero__title">${shell.hero.heading}</h1>
    <p class="hero__tagline">${text.tagline}</p>
    ${searchForm(context, shell.keyword ?? '', 'hero')}
    <p class="hero__stats">${shell.hero.stats}</p>
  </div>`
    : null}
</header>
<div id="live-status" class="visually-hidden" role="status" aria-live="polite"></div>
<main id="main" class="site-main container" tabindex="-1">
${shell.main}
</main>
<footer class="site-footer">
  <div class="container site-footer__inner">
    <p>${text.footerNote}</p>
    <p class="site-footer__links"><a href="${pageUrl(lang, { kind: 'submit' })}">${SUBMIT_TEXT[lang].link}</a><a href="/sitemap.xml">${text.footerSitemap}</a><a data-switch-lang href="${switchHref}" lang="${SITE_TEXT[other].htmlLang}">${text.switchLanguage}</a></p>
  </div>
</footer>
</body>
</html>
`.text;
}
