import { Parser } from 'htmlparser2';

export interface DiscoveredIcons {
  /** Icon URLs from the page's <link> tags, best first. */
  icons: string[];
  /** The web manifest's URL, when the page links one. */
  manifest: string | undefined;
}

interface Candidate {
  url: string;
  /** Higher is better: apple-touch icons and large sizes render crisp at 128 px. */
  score: number;
}

/** The largest side named in a sizes attribute ("32x32 180x180", "any" for SVG). */
function largestSize(sizes: string | undefined): number {
  if (!sizes) return 0;
  if (/\bany\b/i.test(sizes)) return 512;
  return Math.max(0, ...[...sizes.matchAll(/(\d+)\s*x\s*(\d+)/gi)].map((match) => Math.min(Number(match[1]), Number(match[2]))));
}

/** Sizes near the 128 px we render to score highest; far larger ones cost bytes for nothing. */
function sizeScore(pixels: number): number {
  if (pixels === 0) return 16;
  return pixels >= 128 ? 200 - Math.min(100, (pixels - 128) / 8) : pixels;
}

function resolved(href: string | undefined, base: string): string | undefined {
  if (!href) return undefined;
  try {
    const url = new URL(href.trim(), base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The icons a page names in its <head>: `<link rel="icon" | "shortcut icon" | "apple-touch-icon">` and
 * `<link rel="manifest">`, resolved against the page's URL (or its <base href>). Parsing stops at <body>.
 */
export function discoverIcons(html: string, pageUrl: string): DiscoveredIcons {
  const candidates: Candidate[] = [];
  let base = pageUrl;
  let manifest: string | undefined;
  let order = 0;
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (name === 'body') {
          parser.pause();
          return;
        }
        if (name === 'base' && attributes.href) base = resolved(attributes.href, pageUrl) ?? base;
        if (name !== 'link') return;
        const rels = (attributes.rel ?? '').toLowerCase().split(/\s+/);
        const url = resolved(attributes.href, base);
        if (!url) return;
        if (rels.includes('manifest')) manifest ??= url;
        const apple = rels.includes('apple-touch-icon') || rels.includes('apple-touch-icon-precomposed');
        if (!apple && !rels.includes('icon')) return;
        const svg = (attributes.type ?? '').toLowerCase() === 'image/svg+xml' || /\.svg(\?|$)/i.test(url);
        const pixels = svg ? 512 : largestSize(attributes.sizes) || (apple ? 180 : 0);
        // A mask icon (Safari's pinned tab) is one colour: a poor picture of the site.
        if (rels.includes('mask-icon')) return;
        candidates.push({ url, score: sizeScore(pixels) - order++ / 100 });
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();
  const icons = [...new Set(candidates.sort((a, b) => b.score - a.score).map((candidate) => candidate.url))];
  return { icons, manifest };
}

/** A web manifest's icons (`icons: [{src, sizes, type, purpose}]`), best first; none when it is not JSON. */
export function manifestIcons(text: string, manifestUrl: string): string[] {
  let manifest: unknown;
  try {
    manifest = JSON.parse(text);
  } catch {
    return [];
  }
  const icons = (manifest as { icons?: unknown })?.icons;
  if (!Array.isArray(icons)) return [];
  const candidates: Candidate[] = [];
  icons.forEach((icon: { src?: unknown; sizes?: unknown; purpose?: unknown }, index) => {
    const url = typeof icon?.src === 'string' ? resolved(icon.src, manifestUrl) : undefined;
    if (!url) return;
    // A monochrome icon is a silhouette; a maskable one is fine (it has a safe zone).
    if (typeof icon.purpose === 'string' && /^\s*monochrome\s*$/i.test(icon.purpose)) return;
    candidates.push({ url, score: sizeScore(largestSize(typeof icon.sizes === 'string' ? icon.sizes : undefined)) - index / 100 });
  });
  return [...new Set(candidates.sort((a, b) => b.score - a.score).map((candidate) => candidate.url))];
}
