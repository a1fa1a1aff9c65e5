/**
 * HTML built with the `html` tag: every interpolated value is escaped unless it is already `Html` (the
 * result of another `html` call, or `rawHtml` for markup this code wrote itself). Names, descriptions,
 * tags and URLs come from imports, so escaping is the default and cannot be forgotten at a call site.
 */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text for an element's content or a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ESCAPES[character]!);
}

export type HtmlValue = Html | string | number | boolean | null | undefined | readonly HtmlValue[];

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false || value === true) return '';
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): Html {
  let out = strings[0]!;
  for (let index = 0; index < values.length; index += 1) out += render(values[index]) + strings[index + 1]!;
  return new Html(out);
}

/** Markup written by this code (never data): a JSON-LD block, a prebuilt fragment. */
export function rawHtml(text: string): Html {
  return new Html(text);
}

/**
 * The URL when it is an absolute http(s) URL, in its normalized form; null otherwise. Only such links and
 * image sources are rendered: a `javascript:` or `data:` URL in an import never becomes a link.
 */
export function httpUrl(url: string): string | null {
  if (!/^https?:\/\//i.test(url)) return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.href : null;
  } catch {
    return null;
  }
}
