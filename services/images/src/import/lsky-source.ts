import fs from 'node:fs/promises';
import initSqlJs from 'sql.js';
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

/**
 * Reads a Lsky Pro 2.x SQLite database (its `groups`, `users`, `albums`, `images` and `strategies`
 * tables as its migrations make them). Times are wall-clock times of the app's time zone.
 */
export async function readLskySqlite(file: string, timeZone: string): Promise<LskyData> {
  const bytes = await fs.readFile(file).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') throw new Error(`no Lsky Pro database at ${file}`);
    throw error;
  });
  const SQL = await initSqlJs();
  let database;
  try {
    database = new SQL.Database(bytes);
  } catch {
    throw new Error(`${file} is not a SQLite database`);
  }
  try {
    const select = (sql: string): Row[] => {
      const statement = database.prepare(sql);
      const rows: Row[] = [];
      while (statement.step()) rows.push(statement.getAsObject() as Row);
      statement.free();
      return rows;
    };
    let tables: string[];
    try {
      tables = select("SELECT name FROM sqlite_master WHERE type = 'table'").map((row) => String(row.name));
    } catch {
      throw new Error(`${file} is not a SQLite database`);
    }
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
  } finally {
    database.close();
  }
}
