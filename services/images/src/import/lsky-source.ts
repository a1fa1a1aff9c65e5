import fs from 'node:fs/promises';
// The MySQL-only build: the default one loads every dialect's grammar (about 190 ms against 15 ms).
import { Parser } from 'node-sql-parser/build/mysql';
import initSqlJs, { type Database, type SqlValue } from 'sql.js';
import { wallClockToDate } from './zoned-time';

export interface LskyGroup {
  id: number;
  name: string;
  isDefault: boolean;
  /** `configs.maximum_file_size`, in KiB as Lsky keeps it; null when unset. */
  maximumFileSizeKib: number | null;
}

export interface LskyUser {
  id: number;
  groupId: number | null;
  name: string;
  email: string;
  isAdmin: boolean;
  /** `status` 1 is normal; anything else is a disabled account. */
  active: boolean;
  capacityKib: number;
}

export interface LskyAlbum {
  id: number;
  userId: number;
  name: string;
}

export interface LskyImage {
  id: number;
  userId: number | null;
  albumId: number | null;
  /** Where the file is under the local strategy's root: `path/name`. */
  pathname: string;
  /** The path it was served at: the strategy's URL path, then `pathname`. */
  oldPath: string;
  originalName: string;
  uploadedAt: Date;
  /** Lsky's `permission`: 1 public (in the gallery), 0 private. */
  isPublic: boolean;
}

export interface LskyData {
  groups: LskyGroup[];
  users: LskyUser[];
  albums: LskyAlbum[];
  images: LskyImage[];
}

type Row = Record<string, unknown>;

function parseJson(text: unknown): Record<string, unknown> {
  if (typeof text !== 'string') return {};
  try {
    const value = JSON.parse(text) as unknown;
    return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The path part of a strategy's `url` setting (`https://img.example.com/i` → `/i`). */
function urlPath(url: unknown): string {
  if (typeof url !== 'string' || url === '') return '';
  try {
    return new URL(url, 'http://lsky.invalid').pathname.replace(/\/+$/, '');
  } catch {
    return '';
  }
}

const SQLITE_MAGIC = 'SQLite format 3\0';

/**
 * Reads a Lsky Pro 2.x database (its `groups`, `users`, `albums`, `images` and `strategies` tables as
 * its migrations make them): a SQLite file, or a MySQL dump as mysqldump writes it (loaded into an
 * in-memory SQLite database first). Times are wall-clock times of the app's time zone.
 */
export async function readLskyDatabase(file: string, timeZone: string): Promise<LskyData> {
  const bytes = await fs.readFile(file).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') throw new Error(`no Lsky Pro database at ${file}`);
    throw error;
  });
  const SQL = await initSqlJs();
  const isSqlite = bytes.subarray(0, SQLITE_MAGIC.length).toString('latin1') === SQLITE_MAGIC;
  const database = isSqlite ? new SQL.Database(bytes) : loadMysqlDump(new SQL.Database(), bytes.toString('utf8'), file);
  try {
    return readTables(database, file, timeZone);
  } finally {
    database.close();
  }
}

function readTables(database: Database, file: string, timeZone: string): LskyData {
  const select = (sql: string): Row[] => {
    const statement = database.prepare(sql);
    const rows: Row[] = [];
    while (statement.step()) rows.push(statement.getAsObject() as Row);
    statement.free();
    return rows;
  };
  const tables = select("SELECT name FROM sqlite_master WHERE type = 'table'").map((row) => String(row.name));
  const missing = ['groups', 'users', 'albums', 'images', 'strategies'].filter((table) => !tables.includes(table));
  if (missing.length > 0) throw new Error(`${file} is not a Lsky Pro 2.x database: it has no ${missing.join(', ')} table`);

  const strategyPaths = new Map(select('SELECT id, configs FROM strategies').map((row) => [Number(row.id), urlPath(parseJson(row.configs).url)]));
  const toDate = (value: unknown) => (typeof value === 'string' ? wallClockToDate(value, timeZone) : null) ?? new Date(0);
  const optionalId = (value: unknown) => (value === null || value === undefined ? null : Number(value));
  return {
    groups: select('SELECT id, name, is_default, is_guest, configs FROM groups WHERE NOT is_guest ORDER BY id').map((row) => {
      const maximum = Number(parseJson(row.configs).maximum_file_size);
      return { id: Number(row.id), name: String(row.name), isDefault: Boolean(row.is_default), maximumFileSizeKib: Number.isFinite(maximum) && maximum > 0 ? maximum : null };
    }),
    users: select('SELECT id, group_id, name, email, is_adminer, status, capacity FROM users ORDER BY id').map((row) => ({
      id: Number(row.id),
      groupId: optionalId(row.group_id),
      name: String(row.name ?? ''),
      email: String(row.email ?? ''),
      isAdmin: Boolean(row.is_adminer),
      active: Number(row.status) === 1,
      capacityKib: Number(row.capacity ?? 0),
    })),
    albums: select('SELECT id, user_id, name FROM albums ORDER BY id').map((row) => ({ id: Number(row.id), userId: Number(row.user_id), name: String(row.name) })),
    images: select('SELECT id, user_id, album_id, strategy_id, path, name, origin_name, permission, created_at FROM images ORDER BY id').map((row) => {
      const pathname = `${row.path ? `${String(row.path).replace(/^\/+|\/+$/g, '')}/` : ''}${String(row.name)}`;
      const prefix = strategyPaths.get(Number(row.strategy_id)) ?? '';
      return {
        id: Number(row.id),
        userId: optionalId(row.user_id),
        albumId: optionalId(row.album_id),
        pathname,
        oldPath: `${prefix}/${pathname}`,
        originalName: String(row.origin_name || row.name),
        uploadedAt: toDate(row.created_at),
        isPublic: Number(row.permission) === 1,
      };
    }),
  };
}

/** What a backslash escape in a MySQL string stands for (the parser keeps strings as written). */
const MYSQL_ESCAPES: Record<string, string> = { '0': '\0', b: '\b', n: '\n', r: '\r', t: '\t', Z: '\x1a' };
const unescapeMysql = (text: string) => text.replace(/\\(.)/gs, (_, character: string) => MYSQL_ESCAPES[character] ?? character);

function sqlValue(node: { type: string; value: unknown }): SqlValue {
  if (node.type === 'null') return null;
  if (node.type === 'number') return Number(node.value);
  if (node.type === 'bool') return node.value ? 1 : 0;
  if (typeof node.value === 'string') return node.type === 'single_quote_string' || node.type === 'double_quote_string' ? unescapeMysql(node.value) : node.value;
  throw new Error(`a value of type ${node.type} in an INSERT`);
}

/**
 * The CREATE TABLE and INSERT statements of a mysqldump file, parsed by node-sql-parser, as tables of
 * `database`. mysqldump ends every statement with `;` at the end of a line and writes a newline in a
 * string as `\n`, so a statement is the lines up to one ending in `;`.
 */
function loadMysqlDump(database: Database, dump: string, file: string): Database {
  const parser = new Parser();
  const columns = new Map<string, string[]>();
  let statement = '';
  let found = false;
  for (const line of dump.split('\n')) {
    if (statement === '' && !/^(CREATE TABLE|INSERT INTO)\b/i.test(line)) continue;
    statement += `${line}\n`;
    if (!/;\s*$/.test(line)) continue;
    const sql = statement.trim().replace(/;$/, '');
    statement = '';
    let ast;
    try {
      ast = parser.astify(sql, { database: 'MySQL' });
    } catch (error) {
      throw new Error(`${file}: a statement the MySQL parser cannot read (${(error as Error).message.slice(0, 120)}): ${sql.slice(0, 80)}`);
    }
    const node = (Array.isArray(ast) ? ast[0] : ast) as unknown as Record<string, unknown>;
    const table = (node.table as Array<{ table: string }>)[0]!.table;
    if (node.type === 'create') {
      const names = (node.create_definitions as Array<{ column?: { column: unknown } }>).map((definition) => definition.column?.column).filter((name): name is string => typeof name === 'string');
      columns.set(table, names);
      database.run(`CREATE TABLE ${quoteIdentifier(table)} (${names.map(quoteIdentifier).join(', ')})`);
      found = true;
    } else if (node.type === 'insert') {
      const names = (node.columns as string[] | null) ?? columns.get(table);
      if (!names) throw new Error(`${file}: rows for ${table} before its CREATE TABLE`);
      const insert = database.prepare(`INSERT INTO ${quoteIdentifier(table)} (${names.map(quoteIdentifier).join(', ')}) VALUES (${names.map(() => '?').join(', ')})`);
      for (const row of (node.values as { values: Array<{ value: Array<{ type: string; value: unknown }> }> }).values) insert.run(row.value.map(sqlValue));
      insert.free();
    }
  }
  if (!found) throw new Error(`${file} is neither a SQLite database nor a MySQL dump (no CREATE TABLE in it)`);
  return database;
}

const quoteIdentifier = (name: string) => `"${name.replace(/"/g, '""')}"`;
