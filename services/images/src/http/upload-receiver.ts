import fs from 'node:fs';
import { pipeline } from 'node:stream';
import type { Request, Response } from 'express';
import multer from 'multer';
import { AppError } from '../errors/app-error';
import { Messages, type Message } from '../errors/messages';
import type { ReceivedFile } from '../images/upload-service';
import type { TempFiles } from '../storage/temp-files';

const multipartLimits = { fields: 20, fieldSize: 64 * 1024, parts: 25, headerPairs: 100 };

export interface ReceivedBody {
  fields: Record<string, unknown>;
  file: ReceivedFile | undefined;
}

function messageForMulterError(error: multer.MulterError, expectsFile: boolean): Message {
  if (error.code === 'LIMIT_FILE_SIZE') return Messages.fileTooLarge;
  // A file part under another name than `file` is the "wrong field name" case of an upload.
  if (expectsFile && error.code === 'LIMIT_UNEXPECTED_FILE' && error.field !== 'file') return Messages.noFile;
  return Messages.badParameter;
}

/** An error of the machine (a write to a full disk), not of the request: it must never be blamed on the client. */
function isSystemError(error: unknown): boolean {
  return typeof (error as NodeJS.ErrnoException).syscall === 'string';
}

/** Runs a multer middleware as a promise; multer's and busboy's refusals become the envelope's messages. */
function runMultipart(handler: (req: Request, res: Response, next: (error?: unknown) => void) => void, req: Request, res: Response, expectsFile: boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    handler(req, res, (error?: unknown) => {
      if (!error) return resolve();
      if (error instanceof AppError || isSystemError(error)) return reject(error);
      if (error instanceof multer.MulterError) return reject(new AppError(messageForMulterError(error, expectsFile), 200));
      // "Unexpected end of form", "Malformed part header", "Multipart: Boundary not found", ...
      reject(new AppError(Messages.malformedRequest, 200));
    });
  });
}

/**
 * Reads multipart bodies. An upload's `file` part streams into a temp file of the store (memory
 * does not grow with the file) and stops at the size limit; the receiver remembers every temp file
 * it made, so one `discard()` after the request removes whatever is left, however it ended.
 */
export function createUploadReceiver(temp: TempFiles) {
  // Non-file POST actions also accept multipart bodies; any file part there is refused.
  const fieldsOnly = multer({ limits: { ...multipartLimits, files: 0 }, defParamCharset: 'utf8' }).none();

  return {
    async fields(req: Request, res: Response): Promise<void> {
      await runMultipart(fieldsOnly, req, res, false);
    },

    /** A receipt for one upload request; call `discard()` when the request is over. */
    upload() {
      const tempFiles: string[] = [];
      /** One per file part: settles when its write has ended either way, its descriptor closed. */
      const writes: Promise<void>[] = [];
      /** A temp path this receipt will remove in `discard()` (for files made from the upload). */
      const newTempPath = (): string => {
        const tempPath = temp.newTempPath();
        tempFiles.push(tempPath);
        return tempPath;
      };
      /** A temp file the store took: `discard()` does not try to remove it (a removal that fails costs an error object and a thread-pool trip). */
      const storedAway = (tempPath: string): void => {
        const at = tempFiles.indexOf(tempPath);
        if (at !== -1) tempFiles.splice(at, 1);
      };
      const engine: multer.StorageEngine = {
        _handleFile(_req, file, done) {
          const tempPath = newTempPath();
          const out = fs.createWriteStream(tempPath, { flags: 'wx' });
          // 'close' is the end of the write either way: on an early error pipeline calls back before a
          // descriptor that was still opening is closed, and that open creates the file.
          writes.push(new Promise((settled) => out.once('close', () => settled())));
          pipeline(file.stream, out, (error) => (error ? done(error) : done(null, { path: tempPath, size: out.bytesWritten })));
        },
        _removeFile(_req, file, done) {
          fs.rm(file.path, { force: true }, done);
        },
      };
      return {
        async receive(req: Request, res: Response, fileSizeLimit: number): Promise<ReceivedBody> {
          await runMultipart(
            multer({ storage: engine, limits: { ...multipartLimits, fileSize: fileSizeLimit, files: 1 }, defParamCharset: 'utf8' }).single('file'),
            req,
            res,
            true,
          );
          const file = req.file ? { path: req.file.path, size: req.file.size, originalName: req.file.originalname, newTempPath, storedAway } : undefined;
          return { fields: req.body && typeof req.body === 'object' ? (req.body as Record<string, unknown>) : {}, file };
        },
        /**
         * Removes every temp file this upload made that was not moved into the store. A request that
         * failed may still have a write closing (multer answers some failures without waiting for
         * it): removal waits for every write to end, or the file could appear after it.
         */
        async discard(): Promise<void> {
          await Promise.all(writes);
          await Promise.all(tempFiles.map((tempPath) => temp.removeTemp(tempPath)));
        },
      };
    },
  };
}

export type UploadReceiver = ReturnType<typeof createUploadReceiver>;
