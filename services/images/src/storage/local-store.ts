import fs from 'node:fs/promises';
import path from 'node:path';
import type { ObjectStore, OpenedObject } from './object-store';
import { assertStorageKey, STORAGE_AREAS, type StorageArea } from './storage-keys';
import { unlinkIfPresent, type TempFiles } from './temp-files';

export async function fsyncPath(target: string, flags: string): Promise<void> {
  const handle = await fs.open(target, flags);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function isDirectory(target: string): Promise<boolean> {
  return fs.stat(target).then(
    (stats) => stats.isDirectory(),
    () => false,
  );
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

/** The weak entity tag Express's sendFile (the `etag` package) gives a file: size and mtime. */
function weakEtag(size: number, mtime: Date): string {
  return `W/"${size.toString(16)}-${mtime.getTime().toString(16)}"`;
}

/**
 * Objects as files under STORAGE_DIR: public/ (which nginx serves as /i/), bin/ and thumbs/, beside
 * tmp/ on the same filesystem, so that every move is an atomic rename.
 */
export function createLocalStore(options: { storageDir: string; temp: TempFiles }): ObjectStore & { pathOf(area: StorageArea, storageKey: string): string } {
  const root = options.storageDir;

  const pathOf = (area: StorageArea, storageKey: string): string => {
    assertStorageKey(storageKey);
    return path.join(root, area, storageKey);
  };

  /**
   * Renames a file to `target` and makes the rename durable. The target's directory (a day's
   * YYYY/MM/DD) is made only when the rename finds it missing: the first file of a day pays for it,
   * not every file a lookup (each file system call is a trip to the thread pool).
   */
  async function renameDurably(source: string, target: string): Promise<void> {
    try {
      await fs.rename(source, target);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      await ensureDurableDirectory(path.dirname(target));
      await fs.rename(source, target);
    }
    await fsyncPath(path.dirname(target), 'r');
  }

  /** Renames a durable temp file into place: readers never see a partial file. */
  function renameIntoPlace(tempFile: string, area: StorageArea, storageKey: string): Promise<void> {
    return renameDurably(tempFile, pathOf(area, storageKey));
  }

  /** Makes a temp file durable, then renames it into place. */
  async function commitTempFile(tempFile: string, area: StorageArea, storageKey: string): Promise<void> {
    await fsyncPath(tempFile, 'r+');
    await renameIntoPlace(tempFile, area, storageKey);
  }

  async function* walk(dir: string, relative: string): AsyncGenerator<string> {
    const entries = await fs.readdir(dir, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return [];
      throw error;
    });
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      const child = relative === '' ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) yield* walk(path.join(dir, entry.name), child);
      else if (entry.isFile()) yield child;
    }
  }

  return {
    backend: 'local',
    pathOf,

    async prepare(): Promise<void> {
      for (const area of STORAGE_AREAS) await fs.mkdir(path.join(root, area), { recursive: true });
    },

    // The folders were made (and the disk checked) by prepare; a failing disk shows in the requests.
    async answers(): Promise<void> {},

    async putFile(area, storageKey, tempFile): Promise<void> {
      await commitTempFile(tempFile, area, storageKey);
    },

    async putBytes(area, storageKey, bytes): Promise<void> {
      const tempFile = options.temp.newTempPath();
      try {
        // Written and made durable through one descriptor.
        const handle = await fs.open(tempFile, 'wx');
        try {
          await handle.writeFile(bytes);
          await handle.sync();
        } finally {
          await handle.close();
        }
        await renameIntoPlace(tempFile, area, storageKey);
      } catch (error) {
        // Once renamed it is not in tmp/ any more: it is removed only when the put failed (a removal
        // that fails, as it would after every rename, costs an error object and a thread-pool trip).
        await options.temp.removeTemp(tempFile);
        throw error;
      }
    },

    move(from, to, storageKey): Promise<void> {
      return renameDurably(pathOf(from, storageKey), pathOf(to, storageKey));
    },

    async exists(area, storageKey): Promise<boolean> {
      return fs.access(pathOf(area, storageKey)).then(
        () => true,
        () => false,
      );
    },

    async remove(area, storageKey): Promise<void> {
      await unlinkIfPresent(pathOf(area, storageKey));
    },

    async open(area, storageKey): Promise<OpenedObject | null> {
      let handle;
      try {
        handle = await fs.open(pathOf(area, storageKey), 'r');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw error;
      }
      try {
        const stats = await handle.stat();
        if (!stats.isFile()) {
          await handle.close();
          return null;
        }
        // The stream owns the handle from here on and closes it when it ends or is destroyed.
        const body = handle.createReadStream({ autoClose: true });
        return { body, size: stats.size, lastModified: stats.mtime, etag: weakEtag(stats.size, stats.mtime) };
      } catch (error) {
        await handle.close();
        throw error;
      }
    },

    list(area) {
      return walk(path.join(root, area), '');
    },

    async close(): Promise<void> {},
  };
}

export type LocalStore = ReturnType<typeof createLocalStore>;
