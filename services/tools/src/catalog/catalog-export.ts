import { stringify } from 'csv-stringify/sync';
import { FULL_CSV_HEADER, joinCsvTags } from './import-sources';
import type { CatalogExport, ExportedCategory, ExportedTool } from './export-repository';

/**
 * The directory as a file each import format reads back to the same directory (test/import-export.test.ts
 * round-trips all three, subcategories included). Bookmark HTML is the browsers' Netscape format: categories are
 * folders (a subcategory's inside its parent's), and `data-*`
 * attributes that browsers ignore carry the fields a bookmark has no place for.
 */
export type ExportFormat = 'json' | 'csv' | 'html';
export const EXPORT_FORMATS: readonly ExportFormat[] = ['json', 'csv', 'html'];

export const EXPORT_MEDIA_TYPES: Record<ExportFormat, string> = {
  json: 'application/json; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
  html: 'text/html; charset=utf-8',
};

export function formatExport(catalog: CatalogExport, format: ExportFormat): string {
  if (format === 'json') return `${JSON.stringify(catalog, null, 2)}\n`;
  if (format === 'csv') return exportCsv(catalog);
  return exportBookmarkHtml(catalog);
}

function exportCsv({ categories, tools }: CatalogExport): string {
  const rows: unknown[][] = [[...FULL_CSV_HEADER]];
  for (const c of categories) rows.push(['category', c.slug, c.name, c.description, '', c.icon, '', '', '', c.sort_order, c.name_en, c.description_en, c.parent]);
  for (const t of tools) {
    rows.push(['tool', t.slug, t.name, t.description, t.url, t.icon, t.category, joinCsvTags(t.tags), t.is_featured, t.sort_order, t.name_en, t.description_en, '']);
  }
  return stringify(rows, { cast: { boolean: (value) => (value ? 'true' : 'false') } });
}

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
// A line break inside <DD> would be folded into a space on the way back: written as &#10; it stays one.
const escapeText = (text: string) => escapeHtml(text).replace(/\r/g, '&#13;').replace(/\n/g, '&#10;');

function attributes(entries: [string, string | number | undefined][]): string {
  return entries
    .filter(([, value]) => value !== undefined && value !== '')
    .map(([name, value]) => ` ${name}="${escapeText(String(value))}"`)
    .join('');
}

function exportBookmarkHtml({ categories, tools }: CatalogExport): string {
  const lines = [
    '<!DOCTYPE NETSCAPE-Bookmark-file-1>',
    '<!-- Exported by the tool directory; data-* attributes carry fields browsers have no place for. -->',
    '<META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=UTF-8">',
    '<TITLE>Bookmarks</TITLE>',
    '<H1>Bookmarks</H1>',
    '<DL><p>',
  ];
  const toolsByCategory = new Map<string, ExportedTool[]>();
  for (const tool of tools) {
    const list = toolsByCategory.get(tool.category);
    if (list) list.push(tool);
    else toolsByCategory.set(tool.category, [tool]);
  }
  const topLevel = new Set(categories.filter((category) => category.parent === '').map((category) => category.slug));
  const nested = (category: ExportedCategory) => category.parent !== '' && topLevel.has(category.parent);
  const subcategories = new Map<string, ExportedCategory[]>();
  for (const category of categories) if (nested(category)) subcategories.set(category.parent, [...(subcategories.get(category.parent) ?? []), category]);
  const folder = (category: ExportedCategory, indent: string) => {
    const heading = attributes([
      ['DATA-SLUG', category.slug],
      ['DATA-SORT-ORDER', category.sort_order],
      ['DATA-ICON', category.icon],
      ['DATA-NAME-EN', category.name_en],
      ['DATA-DESCRIPTION-EN', category.description_en],
    ]);
    lines.push(`${indent}<DT><H3${heading}>${escapeText(category.name)}</H3>`);
    if (category.description) lines.push(`${indent}<DD>${escapeText(category.description)}`);
    lines.push(`${indent}<DL><p>`);
    for (const tool of toolsByCategory.get(category.slug) ?? []) {
      const link = attributes([
        ['HREF', tool.url],
        ['ICON_URI', tool.icon],
        ['TAGS', tool.tags.join(',')],
        ['DATA-SLUG', tool.slug],
        ['DATA-TAGS', tool.tags.length > 0 ? JSON.stringify(tool.tags) : undefined],
        ['DATA-FEATURED', tool.is_featured ? 'true' : undefined],
        ['DATA-SORT-ORDER', tool.sort_order],
        ['DATA-NAME-EN', tool.name_en],
        ['DATA-DESCRIPTION-EN', tool.description_en],
      ]);
      lines.push(`${indent}    <DT><A${link}>${escapeText(tool.name)}</A>`);
      if (tool.description) lines.push(`${indent}    <DD>${escapeText(tool.description)}`);
    }
    // Subcategories as folders inside their parent's, after its own tools (the reader makes the second level `parent`).
    for (const child of subcategories.get(category.slug) ?? []) folder(child, `${indent}    `);
    lines.push(`${indent}</DL><p>`);
  };
  // Top-level categories, and (the two-level rules never let it happen) a subcategory whose parent is not top-level.
  for (const category of categories) if (!nested(category)) folder(category, '    ');
  lines.push('</DL><p>', '');
  return lines.join('\n');
}
