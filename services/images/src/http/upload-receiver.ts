import fs from 'node:fs';
import { pipeline, Transform } from 'node:stream';
import type { Request, Response } from 'express';
import multer from 'multer';
import { AppError } from '../errors/app-error';
import type { MessageKey } from '../errors/messages';
import type { ReceivedFile } from '../images/upload-service';
import type { TempFiles } from '../storage/temp-files';

const multipartLimits = { fields: 20, fieldSize: 64 * 1024, parts: 25, headerPairs: 100 };

/** The largest upload body received into memory: a larger one always streams to tmp/, however much memory is free. */
const MAX_BODY_IN_MEMORY = 8 * 1024 * 1024;

/**
 * What more of the body is read, at most, after an upload is refused as its file part starts without
 * a credential: enough for a small upload's client to finish sending and read the answer, and far
 * less than a large file, which is then answered while the rest stays unread.
 */
export const UNREAD_BODY_BYTES_WITHOUT_CREDENTIAL = 1024 * 1024;

/**
 * Decides the credential of an upload that came without one in the header or query, from the fields
 * received before its file part: resolves with the file's size limit (the user's group limit), or
 * rejects with the refusal (no `token` field yet, or a wrong one).
 */
export type CredentialAtFilePart = (fields: Record<string, unknown>) => Promise<number>;

export interface ReceivedBody {
  fields: Record<string, unknown>;
  file: ReceivedFile | undefined;
}

type FileDone = Parameters<multer.StorageEngine['_handleFile']>[2];

function refusalForMulterError(error: multer.MulterError, fileField: string | undefined): MessageKey {
  if (error.code === 'LIMIT_FILE_SIZE') return 'fileTooLarge';
  // A file part under another name than the upload's file field is the "wrong field name" case of an upload.
  if (fileField !== undefined && error.code === 'LIMIT_UNEXPECTED_FILE' && error.field !== fileField) return 'noFile';
  return 'badParameter';
}

/** An error of the machine (a write to a full disk), not of the request: it must never be blamed on the client. */
function isSystemError(error: unknown): boolean {
  return typeof (error as NodeJS.ErrnoException).syscall === 'string';
}

/** Passes a file part's bytes and fails as multer's own size limit does past `limit` (a limit known only once the part began). */
function sizeLimited(limit: number): Transform {
  let size = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      size += chunk.length;
      callback(size > limit ? new multer.MulterError('LIMIT_FILE_SIZE', 'file') : null, chunk);
    },
  });
}

/** Runs a multer middleware as a promise; multer's and busboy's refusals become the envelope's messages. */
function runMultipart(handler: (req: Request, res: Response, next: (error?: unknown) => void) => void, req: Request, res: Response, fileField: string | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    handler(req, res, (error?: unknown) => {
      if (!error) return resolve();
      if (error instanceof AppError || isSystemError(error)) return reject(error);
      if (error instanceof multer.MulterError) return reject(new AppError(refusalForMulterError(error, fileField), 200));
      // "Unexpected end of form", "Malformed part header", "Multipart: Boundary not found", ...
      reject(new AppError('malformedRequest', 200));
    });
  });
}

/**
 * Reads multipart bodies. Where an upload's `file` part goes is chosen before the body is read, by
 * the request's Content-Length (which bounds what the body can bring):
 * - into memory (multer's memory storage), when the body is at most MAX_BODY_IN_MEMORY and fits in
 *   what is left of `memoryBytes`, the bytes that bodies in memory may hold at once across
 *   requests. Most photos come this way: no temp file is written, read back and renamed.
 * - else into a temp file of the store, streamed (memory does not grow with the file): larger files,
 *   a body without a Content-Length, or when memory is taken by other uploads.
 * Either way it stops at the size limit. The receiver remembers every temp file it made, so one
 * `discard()` after the request removes whatever is left, however it ended, and gives the memory back.
 */
export function createUploadReceiver(temp: TempFiles, options: { memoryBytes: number }) {
  // Non-file POST actions also accept multipart bodies; any file part there is refused.
  const fieldsOnly = multer({ limits: { ...multipartLimits, files: 0 }, defParamCharset: 'utf8' }).none();
  const memoryStorage = multer.memoryStorage();
  /** Bytes held by upload bodies in memory now (each counted as its Content-Length), across requests. */
  let memoryHeld = 0;

  return {
    async fields(req: Request, res: Response): Promise<void> {
      await runMultipart(fieldsOnly, req, res, undefined);
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
      /** The memory this upload's body holds (its Content-Length); 0 when it goes to a temp file. */
      let bodyInMemory = 0;
      /** Set by `receive` when the upload has no credential yet: the file part waits for it. */
      let credentialAtFilePart: CredentialAtFilePart | undefined;
      /** Ends `receive` with a refusal made as the file part started, without waiting for multer. */
      let refuseBeforeFile: (refusal: unknown) => void = () => undefined;
      /** Whether `receive` has ended: a file part whose credential is decided after that is not stored. */
      let received = false;
      /** Receives the file part; with `limit`, held to that (below the limit multer was given). */
      const store = (req: Request, file: Express.Multer.File, done: FileDone, limit?: number): void => {
        const limited = limit === undefined ? undefined : pipeline(file.stream, sizeLimited(limit), () => undefined);
        if (bodyInMemory > 0) {
          if (!limited) return memoryStorage._handleFile(req, file, done);
          limited.once('error', (error) => done(error));
          return memoryStorage._handleFile(req, { ...file, stream: limited }, done);
        }
        const tempPath = newTempPath();
        const out = fs.createWriteStream(tempPath, { flags: 'wx' });
        // 'close' is the end of the write either way: on an early error pipeline calls back before a
        // descriptor that was still opening is closed, and that open creates the file.
        writes.push(new Promise((settled) => out.once('close', () => settled())));
        pipeline(limited ?? file.stream, out, (error) => (error ? done(error) : done(null, { path: tempPath, size: out.bytesWritten })));
      };
      const engine: multer.StorageEngine = {
        _handleFile(req, file, done) {
          const decide = credentialAtFilePart;
          if (!decide) return store(req, file, done);
          // The part's bytes wait (unread, so the request stops arriving) until the credential is decided.
          decide(req.body && typeof req.body === 'object' ? (req.body as Record<string, unknown>) : {}).then(
            // A request that failed meanwhile has been answered and its temp files removed: nothing more is written.
            (limit) => (received ? done(new Error('the upload ended before its file part was received')) : store(req, file, done, limit)),
            (refusal: unknown) => refuseBeforeFile(refusal),
          );
        },
        _removeFile(req, file, done) {
          if (!file.path) return memoryStorage._removeFile(req, file, done);
          fs.rm(file.path, { force: true }, done);
        },
      };
      return {
        /**
         * Reads the body, its file part held to `fileSizeLimit`. With `credentialAtFilePart` (the
         * upload has no credential yet), the file part starts only once that has decided the
         * credential from the fields before it, and is held to the limit it gives; when it refuses,
         * the file part is left unread and unwritten, the body stops being parsed, and this rejects
         * with the refusal at once: the error handler then reads at most
         * UNREAD_BODY_BYTES_WITHOUT_CREDENTIAL more of the body before answering. `fileField` names the
         * file part (`file`; the compatible APIs' own names: `image`, `source`).
         */
        async receive(req: Request, res: Response, fileSizeLimit: number, credentialAtFile?: CredentialAtFilePart, fileField = 'file'): Promise<ReceivedBody> {
          const length = Number(req.headers['content-length']); // NaN without the header
          if (length > 0 && length <= MAX_BODY_IN_MEMORY && memoryHeld + length <= options.memoryBytes) {
            bodyInMemory = length;
            memoryHeld += length;
          }
          credentialAtFilePart = credentialAtFile;
          const refused = new Promise<never>((_resolve, reject) => {
            refuseBeforeFile = (refusal) => {
              // multer would read the whole rest of the body before calling back: it is left waiting,
              // with nothing more to parse, until the request ends.
              req.unpipe();
              res.locals.maxUnreadBodyBytes = UNREAD_BODY_BYTES_WITHOUT_CREDENTIAL;
              reject(refusal);
            };
          });
          try {
            await Promise.race([
              runMultipart(
                multer({ storage: engine, limits: { ...multipartLimits, fileSize: fileSizeLimit, files: 1 }, defParamCharset: 'utf8' }).single(fileField),
                req,
                res,
                fileField,
              ),
              refused,
            ]);
          } finally {
            received = true;
          }
          const file = req.file ? { input: req.file.buffer ?? req.file.path, size: req.file.size, originalName: req.file.originalname, newTempPath, storedAway } : undefined;
          return { fields: req.body && typeof req.body === 'object' ? (req.body as Record<string, unknown>) : {}, file };
        },
        /** An upload that arrived as bytes in a text field (Chevereto's base64 `source`), as a received file. */
        fromBytes(bytes: Buffer, originalName: string): ReceivedFile {
          return { input: bytes, size: bytes.length, originalName, newTempPath, storedAway };
        },
        /**
         * Removes every temp file this upload made that was not moved into the store. A request that
         * failed may still have a write closing (multer answers some failures without waiting for
         * it): removal waits for every write to end, or the file could appear after it.
         */
        async discard(): Promise<void> {
          memoryHeld -= bodyInMemory;
          bodyInMemory = 0;
          await Promise.all(writes);
          await Promise.all(tempFiles.map((tempPath) => temp.removeTemp(tempPath)));
        },
      };
    },
  };
}

export type UploadReceiver = ReturnType<typeof createUploadReceiver>;
