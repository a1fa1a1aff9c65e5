import { hash } from 'node:crypto';
import fs from 'node:fs/promises';
import type { Principal } from '../auth/auth-service';
import { AppError } from '../errors/app-error';
import { messageText, type MessageKey } from '../errors/messages';
import type { UploadService } from '../images/upload-service';
import type { TempFiles } from '../storage/temp-files';
import type { UserRow } from '../users/users-repository';
import type { ImportRecordsRepository } from './import-records-repository';

/** One image of the old host, to be stored here as its owner's upload. */
export interface SourceImage {
  /** Its id on the old host (a path, a row id): with the source, the key of its import record. */
  sourceId: string;
  oldPath: string;
  file: string;
  originalName: string;
  uploadedAt: Date;
  owner: UserRow;
  /** Omitted: the owner's default category. */
  categoryId?: number;
}

export type RowOutcome = { outcome: 'imported'; imageId: number; url: string; duplicate?: true } | { outcome: 'skipped'; reason: string } | { outcome: 'failed'; reason: string };

const REASONS: Partial<Record<MessageKey, string>> = {
  quotaExceeded: "over the owner's group quota (raise it with edit-group, then run the import again)",
  fileTooLarge: "larger than the owner's group max file size (raise it with edit-group, then run the import again)",
  unsupportedType: 'not an image type this service stores',
  corruptImage: 'the image file is damaged',
  tooManyPixels: 'too many pixels',
  heicUnsupported: 'a HEIC image this server cannot decode',
  notLoggedIn: 'the owner is disabled',
};

/** Why a row was not stored, for the report: the service's refusal in words, or the error's message. */
export function reasonOf(error: unknown): string {
  if (error instanceof AppError) return REASONS[error.key] ?? messageText(error.key);
  return (error as Error)?.message ?? String(error);
}

/**
 * Stores images of another host through the upload use case (the same checks, metadata rules,
 * thumbnail, quota charge and storage backend as an upload), then dates them as on the old host and
 * records them. The upload carries an idempotency key made from the source row: if a run stopped
 * between storing an image and recording it, the next run gets the stored image back, not a copy.
 */
export function createImageImport(deps: { uploads: UploadService; temp: TempFiles; records: ImportRecordsRepository }) {
  const { uploads, temp, records } = deps;
  return {
    async importImage(source: string, image: SourceImage): Promise<RowOutcome> {
      if ((await records.findTarget(source, 'image', image.sourceId)) !== null) return { outcome: 'skipped', reason: 'already imported' };
      const principal: Principal = { user: image.owner, credential: { id: 0, kind: 'account' } };
      // The upload path may move its input into the store (a rename on the local disk): it gets a
      // copy in tmp/, never the old host's file.
      const tempPaths: string[] = [];
      const newTempPath = () => {
        const tempPath = temp.newTempPath();
        tempPaths.push(tempPath);
        return tempPath;
      };
      /** The store took this temp file: there is nothing left to remove. */
      const storedAway = (tempPath: string) => {
        const at = tempPaths.indexOf(tempPath);
        if (at !== -1) tempPaths.splice(at, 1);
      };
      try {
        const copy = newTempPath();
        try {
          await fs.copyFile(image.file, copy);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { outcome: 'failed', reason: `no file at ${image.file}` };
          throw error;
        }
        const { size } = await fs.stat(copy);
        const { image: stored, duplicate } = await uploads.upload({
          principal,
          file: { input: copy, size, originalName: image.originalName, newTempPath, storedAway },
          categoryId: image.categoryId,
          idempotencyKey: `import:${hash('sha256', `${source}\n${image.sourceId}`, 'hex')}`,
        });
        // The owner already had this content (an earlier row of the old host, or an upload here): the
        // row is recorded against that image, which keeps its date; its old path leads there too.
        await records.recordImage(source, image.sourceId, { id: stored.id, oldPath: image.oldPath, createdAt: duplicate ? null : image.uploadedAt });
        return duplicate ? { outcome: 'imported', imageId: stored.id, url: stored.url, duplicate: true } : { outcome: 'imported', imageId: stored.id, url: stored.url };
      } catch (error) {
        return { outcome: 'failed', reason: reasonOf(error) };
      } finally {
        await Promise.all(tempPaths.map((tempPath) => temp.removeTemp(tempPath)));
      }
    },
  };
}

export type ImageImport = ReturnType<typeof createImageImport>;
