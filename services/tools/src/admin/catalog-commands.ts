import { parseArgs } from 'node:util';
import { createCatalogRepository } from '../catalog/catalog-repository';
import fs from 'node:fs';
import { detectFormat, IMPORT_FORMATS, importCatalog, parseCategoryPatch, readImportSource, runImport, type ImportFormat, type RejectedRow } from '../catalog/importer';
import { editCategory } from '../catalog/categories-service';
import { englishText } from '../catalog/catalog-messages';
import { createExportRepository } from '../catalog/export-repository';
import { EXPORT_FORMATS, formatExport, type ExportFormat } from '../catalog/catalog-export';
import { readFileBytes, UsageError, CommandError, type AdminContext } from './command-context';

export const isCatalogCommand = (command: string | undefined) => command?.startsWith('category:') === true || command === 'import' || command === 'export';

function describeRejected(rows: RejectedRow[], what: string, ctx: AdminContext) {
  for (const row of rows) ctx.out(`  rejected ${what} ${row.row}${row.slug ? ` (${row.slug})` : ''}: ${englishText(row.reason)}`);
}

const categoryOptions = {
  slug: { type: 'string' },
  name: { type: 'string' },
  description: { type: 'string' },
  icon: { type: 'string' },
  'sort-order': { type: 'string' },
  'name-en': { type: 'string' },
  'description-en': { type: 'string' },
} as const;

function sortOrder(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^-?\d{1,9}$/.test(raw)) throw new UsageError(`--sort-order must be an integer, got "${raw}"`);
  return Number(raw);
}

/** category:* and import; returns the exit status. */
export async function runCatalogCommand(command: string, rest: string[], ctx: AdminContext): Promise<number> {
  switch (command) {
  case 'category:set': {
    const { values } = parseArgs({ args: rest, options: categoryOptions });
    const catalog = createCatalogRepository(ctx.db);
    const english = { name_en: values['name-en'], description_en: values['description-en'] };
    const document = JSON.stringify({
      categories: [
        { slug: values.slug, name: values.name, description: values.description, icon: values.icon, sort_order: sortOrder(values['sort-order']), ...english },
      ],
      tools: [],
    });
    const report = await importCatalog(catalog, document, 'json');
    const rejected = report.categories.rejected[0];
    if (rejected) throw new UsageError(englishText(rejected.reason));
    const outcome = report.categories.created ? 'created' : report.categories.updated ? 'updated' : 'unchanged';
    ctx.out(`category "${values.slug}" ${outcome}`);
    return 0;
  }
  case 'category:edit': {
    const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: categoryOptions });
    const slug = positionals[0] ?? values.slug;
    if (!slug) throw new UsageError('missing category slug');
    const checked = parseCategoryPatch({
      name: values.name,
      description: values.description,
      icon: values.icon,
      sort_order: sortOrder(values['sort-order']),
      name_en: values['name-en'],
      description_en: values['description-en'],
    });
    if ('reason' in checked) throw new UsageError(englishText(checked.reason));
    if (Object.keys(checked.patch).length === 0) {
      throw new UsageError('nothing to change: give --name, --description, --icon, --sort-order, --name-en or --description-en');
    }
    const changed = await editCategory(createCatalogRepository(ctx.db), slug, checked.patch);
    if (!changed) throw new CommandError(`no category with slug "${slug}"`);
    ctx.out(`category "${slug}" updated`);
    return 0;
  }
  case 'category:list': {
    parseArgs({ args: rest, options: {} });
    const categories = await createCatalogRepository(ctx.db).listCategories();
    const slugOf = new Map(categories.map((c) => [c.id, c.slug]));
    ctx.out(['id', 'slug', 'name', 'sort_order', 'tools', 'parent'].join('\t'));
    for (const c of categories) ctx.out([c.id, c.slug, c.name, c.sort_order, c.tool_count, c.parent_id === null ? '' : (slugOf.get(c.parent_id) ?? '')].join('\t'));
    return 0;
  }
  case 'import': {
    const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { format: { type: 'string' }, 'dry-run': { type: 'boolean' } } });
    const file = positionals[0];
    const data = readFileBytes(file);
    const format = (values.format ?? detectFormat(file!, data)) as ImportFormat | undefined;
    if (!format || !IMPORT_FORMATS.includes(format)) {
      throw new UsageError(`cannot tell the format: use a .json, .csv, .html or .db3 file, or --format ${IMPORT_FORMATS.join('|')}`);
    }
    const source = await readImportSource(data, format);
    const report = await runImport(createCatalogRepository(ctx.db), source, { dryRun: values['dry-run'] === true });
    const { categories, tools } = report;
    if (report.dryRun) ctx.out('dry run: nothing was written');
    ctx.out(`categories: ${categories.created} created, ${categories.updated} updated, ${categories.unchanged} unchanged, ${categories.rejected.length} rejected`);
    describeRejected(categories.rejected, 'category', ctx);
    ctx.out(`tools: ${tools.created} created, ${tools.updated} updated, ${tools.unchanged} unchanged, ${tools.rejected.length} rejected`);
    describeRejected(tools.rejected, format === 'json' ? 'tool' : format === 'onenav' ? 'link' : 'line', ctx);
    if (report.skipped > 0) ctx.out(`skipped: ${report.skipped} (${[...new Set(report.rows.filter((row) => row.outcome === 'skipped').map((row) => englishText(row.reason ?? '')))].join('; ')})`);
    return categories.rejected.length + tools.rejected.length > 0 ? 1 : 0;
  }
  case 'export': {
    const { values } = parseArgs({ args: rest, options: { format: { type: 'string', default: 'json' }, out: { type: 'string' } } });
    const format = values.format as ExportFormat;
    if (!EXPORT_FORMATS.includes(format)) throw new UsageError(`--format must be ${EXPORT_FORMATS.join(', ')}`);
    const text = formatExport(await createExportRepository(ctx.db).readCatalog(), format);
    if (!values.out) {
      ctx.out(text.replace(/\n$/, ''));
      return 0;
    }
    try {
      fs.writeFileSync(values.out, text);
    } catch (error) {
      throw new CommandError(`cannot write ${values.out}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
    ctx.out(`exported to ${values.out}`);
    return 0;
  }
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}
