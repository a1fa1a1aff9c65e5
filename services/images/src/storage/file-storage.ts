import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';

/**
 * public/ holds only what nginx may serve under /i/; bin/, thumbs/ and tmp/ sit beside it on the
 * same filesystem so every move is an atomic rename.
 */
export type StorageArea = 'public' | 'bin' | 'thumbs';

const STORAGE_KEY = /^\d{4}\/\d{2}\/\d{2}\/[0-9a-f]{32}\.[a-z]{3,4}$/;

async function fsyncPath(target: string, flags: string): Promise<void> {
  const handle = await fs.open(target, flags);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * mkdir -p, made durable: a directory entry is only on disk once its parent is fsynced, so each
 * parent that gained a directory is synced (the first upload of a day creates YYYY/MM/DD). Made one
 * level at a time: Node's recursive mkdir reports a full disk as ENOENT.
 */
async function ensureDurableDirectory(dir: string): Promise<void> {
  const missing: string[] = [];
  for (let current = dir; !(await isDirectory(current)); current = path.dirname(current)) missing.unshift(current);
  for (const created of missing) {
    try {
      await fs.mkdir(created);
    } catch (error) {
      // Another request (or replica) made it first.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    await fsyncPath(path.dirname(created), 'r');
  }
}

async function isDirectory(target: string): Promise<boolean> {
  return fs.stat(target).then(
    (stats) => stats.isDirectory(),
    () => false,
  );
}

async function removeQuietly(target: string): Promise<void> {
  await fs.rm(target, { force: true });
}

export function createFileStorage(options: { storageDir: string; timeZone: string }) {
  const root = options.storageDir;
  const tmpDir = path.join(root, 'tmp');
  const dayParts = new Intl.DateTimeFormat('en-CA', {
    timeZone: options.timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  });

  const areaPath = (area: StorageArea, storageKey: string): string => {
    // Keys are generated here, but rows could be edited by hand: never let one escape its area.
    if (!STORAGE_KEY.test(storageKey)) throw new Error(`invalid storage key ${JSON.stringify(storageKey)}`);
    return path.join(root, area, storageKey);
  };

  const newTempPath = (): string => path.join(tmpDir, randomBytes(16).toString('hex'));

  /** Makes a temp file durable, then renames it into place: readers never see a partial file. */
  async function commitTempFile(tempFile: string, area: StorageArea, storageKey: string): Promise<void> {
    const target = areaPath(area, storageKey);
    await fsyncPath(tempFile, 'r+');
    await ensureDurableDirectory(path.dirname(target));
    await fs.rename(tempFile, target);
    await fsyncPath(path.dirname(target), 'r');
  }

  return {
    async ensureDirectories(): Promise<void> {
      for (const dir of ['public', 'bin', 'thumbs', 'tmp']) await fs.mkdir(path.join(root, dir), { recursive: true });
    },

    /** A fresh path in tmp/ for data that is not yet accepted (an upload as it arrives). */
    newTempPath,

    /** YYYY/MM/DD/<128 random bits>.<ext>, the day taken in the configured zone. */
    newStorageKey(extension: string, now: Date): string {
      const parts = Object.fromEntries(dayParts.formatToParts(now).map((part) => [part.type, part.value]));
      return `${parts.year}/${parts.month}/${parts.day}/${randomBytes(16).toString('hex')}.${extension}`;
    },

    absolutePath: areaPath,

    commitTempFile,

    /** Writes bytes made here (a thumbnail) durably under their key: temp name, fsync, rename. */
    async writeFile(area: StorageArea, storageKey: string, bytes: Buffer): Promise<void> {
      const tempFile = newTempPath();
      try {
        await fs.writeFile(tempFile, bytes, { flag: 'wx' });
        await commitTempFile(tempFile, area, storageKey);
      } finally {
        await removeQuietly(tempFile);
      }
    },

    async move(from: StorageArea, to: StorageArea, storageKey: string): Promise<void> {
      const target = areaPath(to, storageKey);
      await ensureDurableDirectory(path.dirname(target));
      await fs.rename(areaPath(from, storageKey), target);
      await fsyncPath(path.dirname(target), 'r');
    },

    async exists(area: StorageArea, storageKey: string): Promise<boolean> {
      return fs.access(areaPath(area, storageKey)).then(
        () => true,
        () => false,
      );
    },

    async remove(area: StorageArea, storageKey: string): Promise<void> {
      await removeQuietly(areaPath(area, storageKey));
    },

    /** Removes a file of tmp/ (a no-op once it was committed, i.e. renamed away). */
    async removeTemp(tempFile: string): Promise<void> {
      if (path.dirname(tempFile) === tmpDir) await removeQuietly(tempFile);
    },

    /**
     * Removes temp files last written before `writtenBefore`: leftovers of uploads whose process died.
     * Replicas share tmp/, so only files far older than any live request may go.
     */
    async removeStaleTemp(writtenBefore: Date): Promise<number> {
      let removed = 0;
      for (const entry of await fs.readdir(tmpDir, { withFileTypes: true })) {
        if (!entry.isFile()) continue;
        const file = path.join(tmpDir, entry.name);
        const stats = await fs.stat(file).catch(() => undefined);
        if (stats && stats.mtime < writtenBefore) {
          await removeQuietly(file);
          removed += 1;
        }
      }
      return removed;
    },
  };
}

export type FileStorage = ReturnType<typeof createFileStorage>;
