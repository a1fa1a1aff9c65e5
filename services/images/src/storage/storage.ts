import { createLocalStore } from './local-store';
import type { ObjectStore, StorageBackend } from './object-store';
import { createS3Store, type S3Settings } from './s3-store';
import { countingErrors, type StoreOperation } from './store-errors';
import { createStorageKeys } from './storage-keys';
import { createTempFiles } from './temp-files';

export interface StorageSettings {
  /** Where new uploads go. */
  backend: StorageBackend;
  storageDir: string;
  timeZone: string;
  /** The bucket, when one is configured (needed by the s3 backend, and to migrate from or to it). */
  s3?: S3Settings;
}

/**
 * The service's storage: tmp/ on the local disk (uploads are always received there), the local
 * store, and the bucket when one is configured. Each image row names the backend that holds its
 * objects; new uploads go to `backend`.
 */
export function createStorage(
  settings: StorageSettings,
  options: { s3Store?: ObjectStore; /** Told of every failed store operation (the metric). */ countError?: (backend: string, operation: StoreOperation) => void } = {},
) {
  const temp = createTempFiles({ storageDir: settings.storageDir });
  const counting = (store: ObjectStore) => (options.countError ? countingErrors(store, options.countError) : store);
  const local = counting(createLocalStore({ storageDir: settings.storageDir, temp }));
  const bucket = options.s3Store ?? (settings.s3 ? createS3Store(settings.s3) : undefined);
  const s3 = bucket && counting(bucket);
  const configured: ObjectStore[] = s3 ? [local, s3] : [local];
  if (settings.backend === 's3' && !s3) throw new Error('the s3 storage backend needs S3_BUCKET');

  function storeFor(backend: StorageBackend): ObjectStore {
    const store = configured.find((candidate) => candidate.backend === backend);
    if (!store) throw new Error(`an image is stored on ${backend}, which is not configured (set S3_BUCKET and the other S3_ variables)`);
    return store;
  }

  return {
    backend: settings.backend,
    temp,
    local,
    newStorageKey: createStorageKeys(settings.timeZone),
    /** Every configured store: the local disk, and the bucket when there is one. */
    configured,
    /** The store of new uploads. */
    current: storeFor(settings.backend),
    storeFor,
    isConfigured: (backend: StorageBackend) => configured.some((store) => store.backend === backend),
    /** tmp/ and the local folders made; the bucket answers. */
    async prepare(): Promise<void> {
      await temp.prepare();
      for (const store of configured) await store.prepare();
    },
    async close(): Promise<void> {
      for (const store of configured) await store.close();
    },
  };
}

export type Storage = ReturnType<typeof createStorage>;
