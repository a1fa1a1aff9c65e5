import type { Readable } from 'node:stream';
import type { StorageArea } from './storage-keys';

export type StorageBackend = 'local' | 's3';
export const STORAGE_BACKENDS: readonly StorageBackend[] = ['local', 's3'];

/** An object opened for reading: its bytes as a stream and what a response needs to describe them. */
export interface OpenedObject {
  body: Readable;
  size: number;
  lastModified: Date;
  /** A quoted entity tag, as HTTP sends it. */
  etag: string;
  /** The type stored with the object (a bucket keeps it; a file has none). */
  contentType?: string;
}

/**
 * Where images' objects are kept: the local disk or an S3-compatible bucket. Every operation is
 * safe to repeat (recovery runs a step again after a crash): putting an object again replaces it,
 * removing a missing one is not an error, moving one already moved fails only if it is nowhere.
 */
export interface ObjectStore {
  readonly backend: StorageBackend;
  /** Makes sure the store can be used (folders made; the bucket answers). */
  prepare(): Promise<void>;
  /**
   * Stores a finished temp file (of tmp/) durably under `storageKey`, and takes it: readers see all
   * of it or nothing, and once this returns the temp file is gone (the local disk renames it into
   * place; a bucket uploads it, then removes it). If it fails, the temp file is still the caller's.
   */
  putFile(area: StorageArea, storageKey: string, tempFile: string, contentType: string): Promise<void>;
  /** Stores bytes durably under `storageKey` (a thumbnail, an upload received into memory). */
  putBytes(area: StorageArea, storageKey: string, bytes: Buffer, contentType: string): Promise<void>;
  /** Moves an object between areas; when it returns, it is gone from `from`. */
  move(from: StorageArea, to: StorageArea, storageKey: string): Promise<void>;
  exists(area: StorageArea, storageKey: string): Promise<boolean>;
  /** Removes an object; a missing one is not an error. */
  remove(area: StorageArea, storageKey: string): Promise<void>;
  /** The object's bytes and description; null when there is none. */
  open(area: StorageArea, storageKey: string): Promise<OpenedObject | null>;
  /** Every key of an area (for tests and operators: an area can be large). */
  list(area: StorageArea): AsyncIterable<string>;
  /**
   * Resolves when the store answers within `timeoutMs` (the bucket: HeadBucket); rejects otherwise,
   * saying why. For /readyz: a replica whose store does not answer cannot serve its images.
   */
  answers(timeoutMs: number): Promise<void>;
  /** Releases connections. */
  close(): Promise<void>;
}

