import { parse as parseCsv } from 'csv-parse/sync';
import { catalogMessage, englishText, type CatalogMessage } from './catalog-messages';

/**
 * Reading an import file into rows of fields, before validation (importer.ts checks and writes them).
 * JSON rows keep their types; CSV cells are strings, except tags (split on "|", see splitCsvTags) and is_featured.
 */
export const CSV_HEADER = ['slug', 'name', 'description', 'url', 'icon', 'category', 'tags', 'is_featured'] as const;
/** Columns a CSV file may add after CSV_HEADER, in this order (a file without them stays valid). */
export const CSV_OPTIONAL_COLUMNS = ['name_en', 'description_en'] as const;
/**
 * The whole-directory CSV (what `export --format csv` writes): one row per category (`record` = category: slug,
 * name, description, icon, sort_order, name_en, description_en, parent = the parent's slug, '' for a top-level
 * category) or tool (every column but icon's meaning is the same as in the tools-only form; parent stays empty).
 * Files written before categories had parents lack the `parent` column and still import (every category top-level).
 */
export const FULL_CSV_HEADER = ['record', 'slug', 'name', 'description', 'url', 'icon', 'category', 'tags', 'is_featured', 'sort_order', 'name_en', 'description_en', 'parent'] as const;
const FULL_CSV_HEADER_WITHOUT_PARENT = FULL_CSV_HEADER.slice(0, -1);

/**
 * A row before validation, as read from JSON or CSV. A reader marks a row it leaves out with `__skip` and a
 * row it cannot split into fields with `__badColumns`, each a CatalogMessage.
 */
export interface SourceRow {
  row: number;
  fields: Record<string, unknown>;
}

export interface ParsedSource {
  categories: SourceRow[];
  tools: SourceRow[];
}

/** A file that cannot be read at all: `reason` for the admin to word, `message` in English (the CLI). */
export class ImportFormatError extends Error {
  constructor(readonly reason: CatalogMessage) {
    super(englishText(reason));
  }
}

export function parseJsonSource(text: string): ParsedSource {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new ImportFormatError(catalogMessage('invalidJson', { detail: (error as Error).message }));
  }
  const tools = Array.isArray(document) ? document : (document as { tools?: unknown } | null)?.tools;
  const categories = Array.isArray(document) ? [] : ((document as { categories?: unknown } | null)?.categories ?? []);
  if (!Array.isArray(tools)) throw new ImportFormatError(catalogMessage('jsonShape'));
  if (!Array.isArray(categories)) throw new ImportFormatError(catalogMessage('categoriesNotArray'));
  const asFields = (value: unknown): Record<string, unknown> =>
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).filter(([, field]) => field !== null)) // null = not given
      : { __notAnObject: true };
  return {
    categories: categories.map((fields, index) => ({ row: index + 1, fields: asFields(fields) })),
    tools: tools.map((fields, index) => ({ row: index + 1, fields: asFields(fields) })),
  };
}

/**
 * The line each record starts on, as an editor shows it: skipped blank lines and quoted fields spanning lines
 * move the count (csv-parse's own `info.lines` counts a CR and an LF inside quotes as two lines). `info.bytes`
 * is the byte offset just past the record, BOM included.
 */
function recordStartLines(text: string, records: { info: { bytes: number } }[]): number[] {
  const bytes = Buffer.from(text, 'utf8');
  const LF = 0x0a;
  const CR = 0x0d;
  let offset = 0;
  let line = 1;
  return records.map(({ info }) => {
    while (offset < info.bytes && (bytes[offset] === LF || bytes[offset] === CR)) {
      if (bytes[offset] === LF) line += 1;
      offset += 1;
    }
    const start = line;
    for (; offset < info.bytes; offset += 1) if (bytes[offset] === LF) line += 1;
    return start;
  });
}

export function parseCsvSource(text: string): ParsedSource {
  let records: { record: string[]; info: { bytes: number } }[];
  try {
    records = parseCsv(text, { bom: true, skip_empty_lines: true, relax_column_count: true, info: true }) as unknown as typeof records;
  } catch (error) {
    throw new ImportFormatError(catalogMessage('invalidCsv', { detail: (error as Error).message }));
  }
  const startLines = recordStartLines(text, records);
  const [headerRecord, ...rows] = records;
  const normalizedHeader = (headerRecord?.record ?? []).map((cell) => cell.trim().toLowerCase());
  if (normalizedHeader[0] === 'record') return fullCsvRows(normalizedHeader, rows, startLines);
  const optional = normalizedHeader.slice(CSV_HEADER.length);
  const optionalAllowed = CSV_OPTIONAL_COLUMNS.slice(0, optional.length);
  if (normalizedHeader.slice(0, CSV_HEADER.length).join(',') !== CSV_HEADER.join(',') || optional.join(',') !== optionalAllowed.join(',')) {
    throw new ImportFormatError(catalogMessage('csvHeader', { columns: CSV_HEADER.join(','), optional: CSV_OPTIONAL_COLUMNS.join(',') }));
  }
  const columns: readonly string[] = normalizedHeader;
  return {
    categories: [],
    tools: rows.map((parsed, index) => {
      const cells = parsed.record;
      const row = startLines[index + 1]!;
      if (cells.length !== columns.length) {
        return { row, fields: { __badColumns: catalogMessage('columnCount', { expected: columns.length, found: cells.length }), slug: cells[0] } };
      }
      const cell = (name: string) => cells[columns.indexOf(name)] ?? '';
      const english = Object.fromEntries(optional.map((name) => [name, cell(name)]));
      return { row, fields: { ...csvToolFields(cell), ...english } };
    }),
  };
}

/**
 * A CSV tags cell: tags separated by `|`; a `|` inside a tag is written `\|`, a backslash `\\`. Any other
 * backslash is kept as it is, so files written before this rule read the same unless they hold `\|` or `\\`.
 */
export function splitCsvTags(cell: string): string[] {
  const tags: string[] = [];
  let tag = '';
  for (let i = 0; i < cell.length; i += 1) {
    const char = cell[i]!;
    if (char === '\\' && (cell[i + 1] === '|' || cell[i + 1] === '\\')) {
      tag += cell[i + 1];
      i += 1;
    } else if (char === '|') {
      tags.push(tag);
      tag = '';
    } else {
      tag += char;
    }
  }
  tags.push(tag);
  return tags;
}

/** The CSV tags cell of these tags (splitCsvTags reads it back). */
export function joinCsvTags(tags: readonly string[]): string {
  return tags.map((tag) => tag.replace(/[\\|]/g, (char) => `\\${char}`)).join('|');
}

function csvToolFields(cell: (name: string) => string): Record<string, unknown> {
  const featured = cell('is_featured').trim().toLowerCase();
  return {
    slug: cell('slug'),
    name: cell('name'),
    description: cell('description'),
    url: cell('url'),
    icon: cell('icon'),
    category: cell('category'),
    tags: splitCsvTags(cell('tags'))
      .map((tag) => tag.trim())
      .filter((tag) => tag.length > 0),
    is_featured: featured === '' ? false : featured === 'true' || featured === '1' ? true : featured === 'false' || featured === '0' ? false : featured,
  };
}

/** '' = not given (a tool keeps its order, a category gets 0); otherwise an integer, or the text for the schema to refuse. */
function csvSortOrder(raw: string): unknown {
  const trimmed = raw.trim();
  if (trimmed === '') return undefined;
  return /^-?\d{1,9}$/.test(trimmed) ? Number(trimmed) : trimmed;
}

function fullCsvRows(header: string[], rows: { record: string[] }[], startLines: number[]): ParsedSource {
  if (header.join(',') !== FULL_CSV_HEADER.join(',') && header.join(',') !== FULL_CSV_HEADER_WITHOUT_PARENT.join(',')) {
    throw new ImportFormatError(catalogMessage('fullCsvHeader', { columns: FULL_CSV_HEADER.join(',') }));
  }
  const source: ParsedSource = { categories: [], tools: [] };
  rows.forEach(({ record: cells }, index) => {
    const row = startLines[index + 1]!;
    const cell = (name: string) => cells[header.indexOf(name)] ?? '';
    const english = { name_en: cell('name_en'), description_en: cell('description_en') };
    if (cells.length !== header.length) {
      source.tools.push({ row, fields: { __badColumns: catalogMessage('columnCount', { expected: header.length, found: cells.length }), slug: cells[1] } });
    } else if (cell('record') === 'category') {
      const parent = header.includes('parent') ? { parent: cell('parent') } : {};
      const fields = { slug: cell('slug'), name: cell('name'), description: cell('description'), icon: cell('icon'), sort_order: csvSortOrder(cell('sort_order')), ...english, ...parent };
      source.categories.push({ row, fields: Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) });
    } else if (cell('record') === 'tool') {
      const sortOrder = csvSortOrder(cell('sort_order'));
      source.tools.push({ row, fields: { ...csvToolFields(cell), ...english, ...(sortOrder === undefined ? {} : { sort_order: sortOrder }) } });
    } else {
      source.tools.push({ row, fields: { __badColumns: catalogMessage('recordKind', { found: cell('record') }), slug: cells[1] } });
    }
  });
  return source;
}
