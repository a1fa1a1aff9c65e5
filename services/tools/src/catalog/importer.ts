import type { z } from 'zod';
import type { CatalogRepository, CategoryInput, CategoryLevel, ToolUpsert, UpsertOutcome } from './catalog-repository';
import { resolveParent } from './category-parents';
import { categorySchema, firstIssue, toolSchema } from './import-schemas';
import { catalogMessage, type CatalogMessage } from './catalog-messages';
import { ImportFormatError, parseCsvSource, parseJsonSource, type ParsedSource, type SourceRow } from './import-sources';
import { looksLikeBookmarkHtml, parseBookmarkHtml } from './import-formats/bookmark-html';
import { parseOneNav, SQLITE_MAGIC } from './import-formats/onenav';

export { CSV_HEADER, FULL_CSV_HEADER, ImportFormatError } from './import-sources';
export { categorySchema, parseCategoryPatch, toolSchema, type CategoryPatch } from './import-schemas';

export interface RejectedRow {
  /** 1-based: the index in `tools` (JSON), the line the row starts on (CSV, HTML; header = line 1), OneNav's id. */
  row: number;
  slug: string | null;
  /** A plain string in reports stored before message keys. */
  reason: CatalogMessage | string;
}

/** One row of the per-row report: unchanged rows are "skipped" in the admin's words. */
export interface RowOutcome {
  kind: 'category' | 'tool';
  row: number;
  slug: string | null;
  outcome: UpsertOutcome | 'skipped' | 'refused';
  /** A plain string in reports stored before message keys. */
  reason?: CatalogMessage | string;
}

export interface ImportReport {
  categories: { created: number; updated: number; unchanged: number; rejected: RejectedRow[] };
  tools: { created: number; updated: number; unchanged: number; rejected: RejectedRow[] };
  /** Rows the source itself leaves out (OneNav's private links), with the reason. */
  skipped: number;
  rows: RowOutcome[];
  dryRun: boolean;
}

export type ImportFormat = 'json' | 'csv' | 'html' | 'onenav';
export const IMPORT_FORMATS: readonly ImportFormat[] = ['json', 'csv', 'html', 'onenav'];

/** By the file's name, then by its first bytes. */
export function detectFormat(fileName: string, data?: Buffer): ImportFormat | undefined {
  const lower = fileName.toLowerCase();
  if (lower.endsWith('.json')) return 'json';
  if (lower.endsWith('.csv')) return 'csv';
  if (lower.endsWith('.html') || lower.endsWith('.htm')) return 'html';
  if (lower.endsWith('.db3') || lower.endsWith('.db') || lower.endsWith('.sqlite')) return 'onenav';
  if (!data) return undefined;
  if (data.subarray(0, SQLITE_MAGIC.length).equals(SQLITE_MAGIC)) return 'onenav';
  const head = data.subarray(0, 5000).toString('utf8').trimStart();
  if (head.startsWith('{') || head.startsWith('[')) return 'json';
  if (looksLikeBookmarkHtml(head)) return 'html';
  return undefined;
}

/** The file as rows before validation; a file that cannot be read at all throws ImportFormatError. */
export async function readImportSource(data: Buffer | string, format: ImportFormat): Promise<ParsedSource> {
  if (format === 'onenav') return parseOneNav(Buffer.isBuffer(data) ? data : Buffer.from(data, 'utf8'));
  const text = Buffer.isBuffer(data) ? data.toString('utf8') : data;
  if (text.includes('\ufffd') && Buffer.isBuffer(data) && !data.includes(Buffer.from('\ufffd', 'utf8'))) {
    throw new ImportFormatError(catalogMessage('notUtf8'));
  }
  if (format === 'json') return parseJsonSource(text);
  if (format === 'csv') return parseCsvSource(text);
  if (!looksLikeBookmarkHtml(text)) throw new ImportFormatError(catalogMessage('notBookmarkFile'));
  return parseBookmarkHtml(text).source;
}

export interface ImportOptions {
  dryRun?: boolean;
  /** Called after each batch with rows handled so far (categories + tools). */
  onProgress?: (done: number, total: number) => void | Promise<void>;
  batchSize?: number;
}

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Imports a JSON or CSV text (the CLI's and the tests' short way). */
export async function importCatalog(repository: CatalogRepository, text: string, format: ImportFormat, options: ImportOptions = {}): Promise<ImportReport> {
  return runImport(repository, await readImportSource(text, format), options);
}

type ToolInput = Omit<ToolUpsert, 'category_id'> & { category: string; sort_order: number | null };

const sameTags = (a: string[], b: string[]) => a.length === b.length && a.every((tag, index) => tag === b[index]);
const sameCategory = (stored: CategoryInput, input: CategoryInput) =>
  (['name', 'description', 'icon', 'sort_order', 'name_en', 'description_en', 'parent_id'] as const).every((field) => stored[field] === input[field]);

type ParsedCategory = z.infer<typeof categorySchema>;
type CategoryOutcome = UpsertOutcome | { refused: CatalogMessage };

/** Top-level categories first, so a subcategory may come before its parent in the file. */
const topLevelFirst = <T extends { category: ParsedCategory }>(entries: T[]): T[] => [
  ...entries.filter((entry) => entry.category.parent === ''),
  ...entries.filter((entry) => entry.category.parent !== ''),
];

/**
 * What applying the categories would do, without writing: the parent rules checked against the stored
 * tree plus the file's own categories as they would be added (a new one gets a stand-in negative id).
 */
async function dryRunCategories(repository: CatalogRepository, entries: { category: ParsedCategory }[]): Promise<Map<object, CategoryOutcome>> {
  const [stored, levels] = await Promise.all([repository.categoriesForImport(), repository.categoryLevels()]);
  const outcomes = new Map<object, CategoryOutcome>();
  let standIn = 0;
  for (const entry of topLevelFirst(entries)) {
    const { parent, ...fields } = entry.category;
    const resolved = resolveParent(levels, fields.slug, parent);
    if ('reason' in resolved) {
      outcomes.set(entry, { refused: resolved.reason });
      continue;
    }
    const existing = stored.get(fields.slug);
    outcomes.set(entry, !existing ? 'created' : sameCategory(existing, { ...fields, parent_id: resolved.parentId }) ? 'unchanged' : 'updated');
    const level: CategoryLevel = levels.get(fields.slug) ?? { id: --standIn, parentId: null, children: 0 };
    levels.set(fields.slug, { ...level, parentId: resolved.parentId });
    if (resolved.parentId !== null) {
      const parentLevel = levels.get(parent)!;
      levels.set(parent, { ...parentLevel, children: parentLevel.children + 1 });
    }
  }
  return outcomes;
}
const sameTool = (stored: Omit<ToolInput, 'sort_order'> & { sort_order: number }, input: ToolInput) =>
  (['name', 'description', 'url', 'icon', 'category', 'is_featured', 'name_en', 'description_en'] as const).every((field) => stored[field] === input[field]) &&
  sameTags(stored.tags, input.tags) &&
  (input.sort_order === null || stored.sort_order === input.sort_order);

/**
 * Imports categories and tools, idempotent by slug (existing rows are updated, visit counts kept; rows that
 * already hold the imported values are left alone and counted as unchanged). Invalid rows are reported and
 * skipped. The whole file is read before anything is written, so a refused file leaves no trace. Categories
 * are written in one transaction, then tools in batches (100 rows: PGlite runs a statement on the process's
 * own thread, so a batch is also a pause) of one statement and one short transaction each,
 * with the event loop free between them: the site keeps answering, on the embedded database's single
 * connection too. A batch that fails stops the import with the batches before it stored; importing the same
 * file again completes it. A dry run writes nothing: it compares each row with what is stored.
 */
export async function runImport(repository: CatalogRepository, source: ParsedSource, options: ImportOptions = {}): Promise<ImportReport> {
  const batchSize = options.batchSize ?? 100;
  const dryRun = options.dryRun === true;
  const total = source.categories.length + source.tools.length;
  const report: ImportReport = {
    categories: { created: 0, updated: 0, unchanged: 0, rejected: [] },
    tools: { created: 0, updated: 0, unchanged: 0, rejected: [] },
    skipped: 0,
    rows: [],
    dryRun,
  };
  const refuse = (kind: 'category' | 'tool', row: number, slug: string | null, reason: CatalogMessage) => {
    report[kind === 'category' ? 'categories' : 'tools'].rejected.push({ row, slug, reason });
    report.rows.push({ kind, row, slug, outcome: 'refused', reason });
  };
  const skippedBySource = (kind: 'category' | 'tool', { row, fields }: SourceRow): boolean => {
    if (!fields.__skip) return false;
    report.skipped += 1;
    report.rows.push({ kind, row, slug: typeof fields.slug === 'string' ? fields.slug : null, outcome: 'skipped', reason: fields.__skip as CatalogMessage });
    return true;
  };

  const categories: { row: number; category: ParsedCategory }[] = [];
  const seenCategorySlugs = new Set<string>();
  for (const entry of source.categories) {
    const { row, fields } = entry;
    if (skippedBySource('category', entry)) continue;
    if (fields.__notAnObject) {
      refuse('category', row, null, catalogMessage('categoryNotObject'));
      continue;
    }
    const parsed = categorySchema.safeParse(fields);
    if (!parsed.success) {
      refuse('category', row, typeof fields.slug === 'string' ? fields.slug : null, firstIssue(parsed.error));
      continue;
    }
    if (seenCategorySlugs.has(parsed.data.slug)) {
      refuse('category', row, parsed.data.slug, catalogMessage('duplicateCategorySlug', { slug: parsed.data.slug }));
      continue;
    }
    seenCategorySlugs.add(parsed.data.slug);
    categories.push({ row, category: parsed.data });
  }
  let categoryOutcomes = new Map<object, CategoryOutcome>();
  if (dryRun) {
    categoryOutcomes = await dryRunCategories(repository, categories);
  } else if (categories.length > 0) {
    await repository.transaction(async (trx) => {
      await trx.lockCategoryTree();
      for (const entry of topLevelFirst(categories)) {
        const { parent, ...fields } = entry.category;
        const resolved = resolveParent(await trx.categoryLevels(), fields.slug, parent);
        categoryOutcomes.set(entry, 'reason' in resolved ? { refused: resolved.reason } : await trx.upsertCategory({ ...fields, parent_id: resolved.parentId }));
      }
    });
  }
  for (const entry of categories) {
    const outcome = categoryOutcomes.get(entry)!;
    if (typeof outcome === 'object') {
      refuse('category', entry.row, entry.category.slug, outcome.refused);
      continue;
    }
    report.categories[outcome] += 1;
    report.rows.push({ kind: 'category', row: entry.row, slug: entry.category.slug, outcome });
  }
  await options.onProgress?.(source.categories.length, total);

  const categoryIds = await repository.categoryIdsBySlug();
  const known = (slug: string) => categoryIds.has(slug) || (dryRun && seenCategorySlugs.has(slug));
  const seenToolSlugs = new Set<string>();
  for (let start = 0; start < source.tools.length; start += batchSize) {
    const batch: { row: number; tool: ToolInput }[] = [];
    for (const entry of source.tools.slice(start, start + batchSize)) {
      const { row, fields } = entry;
      if (skippedBySource('tool', entry)) continue;
      const slugGuess = typeof fields.slug === 'string' && fields.slug.trim() !== '' ? fields.slug.trim() : null;
      if (fields.__notAnObject) {
        refuse('tool', row, null, catalogMessage('toolNotObject'));
        continue;
      }
      if (fields.__badColumns) {
        refuse('tool', row, slugGuess, fields.__badColumns as CatalogMessage);
        continue;
      }
      const parsed = toolSchema.safeParse(fields);
      if (!parsed.success) {
        refuse('tool', row, slugGuess, firstIssue(parsed.error));
        continue;
      }
      const tool = { ...parsed.data, sort_order: parsed.data.sort_order ?? null };
      if (seenToolSlugs.has(tool.slug)) {
        refuse('tool', row, tool.slug, catalogMessage('duplicateToolSlug', { slug: tool.slug }));
        continue;
      }
      if (!known(tool.category)) {
        refuse('tool', row, tool.slug, catalogMessage('unknownCategory', { category: tool.category }));
        continue;
      }
      seenToolSlugs.add(tool.slug);
      batch.push({ row, tool });
    }
    let outcomes: Map<string, UpsertOutcome>;
    if (dryRun) {
      const stored = await repository.toolsForImport(batch.map(({ tool }) => tool.slug));
      outcomes = new Map(batch.map(({ tool }) => [tool.slug, !stored.has(tool.slug) ? 'created' : sameTool(stored.get(tool.slug)!, tool) ? 'unchanged' : 'updated']));
    } else {
      const inputs = batch.map(({ tool: { category, ...tool } }) => ({ ...tool, category_id: categoryIds.get(category)! }));
      outcomes = await repository.transaction((trx) => trx.upsertToolBatch(inputs));
    }
    for (const { row, tool } of batch) {
      const outcome = outcomes.get(tool.slug) ?? 'unchanged';
      report.tools[outcome] += 1;
      report.rows.push({ kind: 'tool', row, slug: tool.slug, outcome });
    }
    await options.onProgress?.(source.categories.length + Math.min(start + batchSize, source.tools.length), total);
    await yieldToEventLoop();
  }
  report.rows.sort((a, b) => (a.kind === b.kind ? a.row - b.row : a.kind === 'category' ? -1 : 1));
  return report;
}
