import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';

/** Removes a file; one that is not there is not an error (`fs.rm` with `force` costs an lstat more). */
export async function unlinkIfPresent(file: string): Promise<void> {
  try {
    await fs.unlink(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/**
 * tmp/ under STORAGE_DIR, on the local disk whatever the backend: an upload is received here, and
 * the files made from it (the copy without metadata, a rendition) are written here before they are
 * stored.
 */
export function createTempFiles(options: { storageDir: string }) {
  const tmpDir = path.join(options.storageDir, 'tmp');
  return {
    dir: tmpDir,

    async prepare(): Promise<void> {
      await fs.mkdir(tmpDir, { recursive: true });
    },

    /** A fresh path in tmp/ for data that is not yet accepted (an upload as it arrives). */
    newTempPath(): string {
      return path.join(tmpDir, randomBytes(16).toString('hex'));
    },

    /** Removes a file of tmp/ (a no-op once it was stored by a rename). */
    async removeTemp(tempFile: string): Promise<void> {
      if (path.dirname(tempFile) === tmpDir) await unlinkIfPresent(tempFile);
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
          await unlinkIfPresent(file);
          removed += 1;
        }
      }
      return removed;
    },
  };
}

export type TempFiles = ReturnType<typeof createTempFiles>;
