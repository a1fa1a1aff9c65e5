import initSqlJs from 'sql.js';
import type { ParsedSource, SourceRow } from '../import-sources';
import { ImportFormatError } from '../import-sources';
import { catalogMessage } from '../catalog-messages';
import { createSlugRegistry, slugFromText, slugFromUrl } from './derived-slugs';

/**
 * OneNav's database file (`data/onenav.db3`, SQLite; schema in its repository's db/main.sql and db/sql/*.sql):
 * `on_categorys` (id, name, weight, property, description, fid for a parent in later versions) and `on_links`
 * (id, fid = category id, title, url, description, weight, property). OneNav lists heavier weights first;
 * here a lower sort_order comes first, so sort_order = -weight. Private rows (property = 1) are skipped.
 */
export const SQLITE_MAGIC = Buffer.from('SQLite format 3\u0000', 'latin1');

type Row = Record<string, unknown>;

export async function parseOneNav(data: Buffer): Promise<ParsedSource> {
  if (!data.subarray(0, SQLITE_MAGIC.length).equals(SQLITE_MAGIC)) throw new ImportFormatError(catalogMessage('notOneNav'));
  const SQL = await initSqlJs();
  let database;
  try {
    database = new SQL.Database(data);
  } catch (error) {
    throw new ImportFormatError(catalogMessage('unreadableSqlite', { detail: (error as Error).message }));
  }
  try {
    const read = (table: string): Row[] => {
      let statement;
      try {
        statement = database.prepare(`SELECT * FROM ${table} ORDER BY id`);
      } catch {
        throw new ImportFormatError(catalogMessage('oneNavTableMissing', { table }));
      }
      const rows: Row[] = [];
      while (statement.step()) rows.push(statement.getAsObject());
      statement.free();
      return rows;
    };
    return toSource(read('on_categorys'), read('on_links'));
  } finally {
    database.close();
  }
}

const text = (value: unknown) => (value === null || value === undefined ? '' : String(value).trim());
const isPrivate = (row: Row) => Number(row.property ?? 0) === 1;
const sortOrder = (row: Row) => -Number(row.weight ?? 0) || 0;

function toSource(categoryRows: Row[], linkRows: Row[]): ParsedSource {
  const categorySlug = createSlugRegistry();
  const toolSlug = createSlugRegistry();
  const slugById = new Map<number, string>();
  const categories: SourceRow[] = categoryRows.map((row) => {
    const slug = categorySlug(String(row.id), slugFromText(text(row.name), `category-${String(row.id)}`));
    slugById.set(Number(row.id), slug);
    if (isPrivate(row)) return { row: Number(row.id), fields: { slug, __skip: catalogMessage('privateInOneNav') } };
    return { row: Number(row.id), fields: { slug, name: text(row.name), description: text(row.description), sort_order: sortOrder(row) } };
  });
  for (const [index, row] of categoryRows.entries()) {
    const parent = Number(row.fid ?? 0);
    if (parent > 0 && slugById.has(parent) && !categories[index]!.fields.__skip) categories[index]!.fields.parent = slugById.get(parent);
  }
  const tools: SourceRow[] = linkRows.map((row) => {
    const url = text(row.url);
    const slug = toolSlug(url, slugFromUrl(url, `link-${String(row.id)}`));
    if (isPrivate(row)) return { row: Number(row.id), fields: { slug, __skip: catalogMessage('privateInOneNav') } };
    return {
      row: Number(row.id),
      fields: {
        slug,
        name: text(row.title).slice(0, 200),
        description: text(row.description),
        url,
        category: slugById.get(Number(row.fid)) ?? `onenav-category-${text(row.fid)}`,
        sort_order: sortOrder(row),
      },
    };
  });
  return { categories, tools };
}
