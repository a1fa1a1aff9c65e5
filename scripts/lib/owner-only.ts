import { chmodSync, lstatSync, readdirSync, type Stats } from 'node:fs';
import path from 'node:path';

/** Group and other permission bits. */
const NOT_OWNER = 0o077;

function statOf(file: string): Stats | null {
  try {
    return lstatSync(file);
  } catch (error) {
    // Gone meanwhile (a database's temporary file): nothing to tighten.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/**
 * Takes every group and other permission off `target` and everything under it. `npm start` runs with
 * umask 077, so what it makes is its user's alone; this is for what it did not make that way: a data
 * folder from an install before, and PGlite's database files, whose modes PGlite sets itself (0666 for
 * those its initdb makes), past the umask. Symbolic links are left alone (their modes mean nothing, and
 * what they point to is not the data folder's).
 */
export function keepOwnerOnly(target: string): void {
  const stat = statOf(target);
  if (stat === null || stat.isSymbolicLink()) return;
  if (stat.mode & NOT_OWNER) {
    try {
      chmodSync(target, stat.mode & 0o7700);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  if (stat.isDirectory()) for (const name of readdirSync(target)) keepOwnerOnly(path.join(target, name));
}
