import path from 'node:path';

/** Where the service's database lives, from DATABASE_URL. */
export type DatabaseTarget =
  | { kind: 'postgres'; url: string }
  | { kind: 'pglite-memory' }
  | { kind: 'pglite-dir'; dir: string };

export const DATABASE_URL_FORMAT = /^(postgres(ql)?:\/\/.+|pglite:.+)$/;

/** `postgres://…`, `pglite:memory`, or `pglite:<dir>` (relative to `cwd`). */
export function databaseTarget(url: string, cwd: string): DatabaseTarget {
  if (url === 'pglite:memory') return { kind: 'pglite-memory' };
  if (url.startsWith('pglite:')) return { kind: 'pglite-dir', dir: path.resolve(cwd, url.slice('pglite:'.length)) };
  return { kind: 'postgres', url };
}

/** The target as an operator reads it: the password of a server URL hidden. */
export function describeDatabase(target: DatabaseTarget): string {
  if (target.kind === 'pglite-memory') return 'embedded PGlite in memory';
  if (target.kind === 'pglite-dir') return `embedded PGlite at ${target.dir}`;
  try {
    const url = new URL(target.url);
    if (url.password) url.password = '***';
    return `Postgres at ${url.toString()}`;
  } catch {
    return 'Postgres (unreadable URL)';
  }
}
