import { useEffect, useState } from 'preact/hooks';
import { ApiError, type ApiClient, type UploadHandle, type UploadResult } from './api';
import { randomKey } from './format';

/** Uploads running at once: enough to keep the line busy, few enough to show steady progress. */
const PARALLEL_UPLOADS = 2;

/** The service's own words for what the page can tell before sending (translated like its answers). */
export const TOO_LARGE_MESSAGE = '文件大小超出限制';
export const QUOTA_MESSAGE = '存储空间不足';

export interface QueuedFile {
  key: string;
  /** Order of adding: files start oldest first. */
  seq: number;
  file: File;
  preview: string;
  categoryId?: number;
  /** Seconds from the upload until the image moves into the bin by itself; none: never. */
  expiresIn?: number;
  /** Kept across retries: a retry of a request that did reach the service returns its first result. */
  idempotencyKey: string;
  status: 'waiting' | 'uploading' | 'done' | 'failed' | 'cancelled';
  sent: number;
  total: number;
  result?: UploadResult;
  /** A message of the service (or one of the page's own checks, which use the service's words). */
  error?: string;
  /** The file is empty: said by the page, in its own words. */
  empty?: boolean;
  /** Worth another try: no answer came back, or the user cancelled. A refusal by the service is final. */
  retryable?: boolean;
  /** The browser could not show the local file (not an image): a neutral box instead. */
  noPreview?: boolean;
}

export interface UploadLimits {
  maxFileSize: number;
  quotaBytes: number;
  usedBytes: number;
}

export interface UploadCounts {
  done: number;
  /** Every file not cancelled: the N of "n / N". */
  total: number;
  active: number;
}

/**
 * The upload queue of the signed-in user. It lives beside the API client, above the pages, so
 * uploads keep running (and stay listed) while the user looks at other pages; closing the tab asks
 * while any is waiting or running.
 */
export function createUploadQueue(api: ApiClient) {
  let items: QueuedFile[] = [];
  let limits: UploadLimits | null = null;
  let nextSeq = 1;
  const running = new Map<string, UploadHandle>();
  const listeners = new Set<() => void>();

  const counts = (): UploadCounts => ({
    done: items.filter((item) => item.status === 'done').length,
    total: items.filter((item) => item.status !== 'cancelled').length,
    active: items.filter((item) => item.status === 'waiting' || item.status === 'uploading').length,
  });

  const onBeforeUnload = (event: BeforeUnloadEvent) => {
    event.preventDefault();
    // Older browsers ask only when a return value is set.
    event.returnValue = '';
  };
  let guarding = false;

  function changed(): void {
    const active = counts().active > 0;
    if (active !== guarding) {
      guarding = active;
      if (active) window.addEventListener('beforeunload', onBeforeUnload);
      else window.removeEventListener('beforeunload', onBeforeUnload);
    }
    listeners.forEach((listener) => listener());
  }

  function update(key: string, change: Partial<QueuedFile>): void {
    items = items.map((item) => (item.key === key ? { ...item, ...change } : item));
  }

  /** Bytes of files accepted or on their way: what the quota check counts besides the stored ones. */
  function pendingBytes(): number {
    return items.filter((item) => item.status === 'waiting' || item.status === 'uploading').reduce((sum, item) => sum + item.file.size, 0);
  }

  function pump(): void {
    const free = PARALLEL_UPLOADS - items.filter((item) => item.status === 'uploading').length;
    // Oldest first (new files are listed on top).
    const next = items
      .filter((item) => item.status === 'waiting')
      .sort((a, b) => a.seq - b.seq)
      .slice(0, Math.max(free, 0));
    for (const item of next) start(item);
  }

  function start(item: QueuedFile): void {
    update(item.key, { status: 'uploading', sent: 0 });
    const handle = api.upload(item.file, {
      categoryId: item.categoryId,
      expiresIn: item.expiresIn,
      idempotencyKey: item.idempotencyKey,
      onProgress: (sent, total) => {
        update(item.key, { sent, total });
        changed();
      },
    });
    running.set(item.key, handle);
    handle.result.then(
      (result) => {
        if (limits) limits = { ...limits, usedBytes: limits.usedBytes + result.file_size };
        update(item.key, { status: 'done', result, sent: item.file.size, total: item.file.size });
      },
      (error: unknown) => {
        const current = items.find((entry) => entry.key === item.key);
        if (current?.status === 'cancelled') return;
        update(item.key, { status: 'failed', error: error instanceof ApiError ? error.message : String(error), retryable: !(error instanceof ApiError) || error.kind === 'network' });
      },
    ).finally(() => {
      running.delete(item.key);
      pump();
      changed();
    });
  }

  /** What the page can tell before sending anything: an empty file, one over the limit, or over the space left. */
  function precheck(file: File, queuedBytes: number): Partial<QueuedFile> | null {
    if (file.size === 0) return { status: 'failed', empty: true };
    if (!limits) return null;
    if (file.size > limits.maxFileSize) return { status: 'failed', error: TOO_LARGE_MESSAGE };
    if (limits.usedBytes + queuedBytes + file.size > limits.quotaBytes) return { status: 'failed', error: QUOTA_MESSAGE };
    return null;
  }

  return {
    items: () => items,
    counts,
    limits: () => limits,
    /** The user's limit and space, from `profile`; files added later are checked against them. */
    setLimits(next: UploadLimits): void {
      limits = next;
      changed();
    },
    subscribe(listener: () => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    add(files: File[], categoryId: number | undefined, expiresIn?: number): void {
      let queued = pendingBytes();
      const added = files.map((file): QueuedFile => {
        const item: QueuedFile = {
          key: randomKey(),
          seq: nextSeq++,
          file,
          preview: URL.createObjectURL(file),
          categoryId,
          expiresIn,
          idempotencyKey: randomKey(),
          status: 'waiting',
          sent: 0,
          total: file.size,
          noPreview: !file.type.startsWith('image/'),
        };
        const refused = precheck(file, queued);
        if (!refused) queued += file.size;
        return { ...item, ...refused };
      });
      items = [...added, ...items];
      pump();
      changed();
    },
    /** The same file again, with the same Idempotency-Key: an upload that did reach the service is not stored twice. */
    retry(key: string): void {
      update(key, { status: 'waiting', error: undefined, sent: 0, retryable: false });
      pump();
      changed();
    },
    cancel(key: string): void {
      const item = items.find((entry) => entry.key === key);
      if (!item || (item.status !== 'waiting' && item.status !== 'uploading')) return;
      update(key, { status: 'cancelled', retryable: true, sent: 0 });
      running.get(key)?.abort();
      pump();
      changed();
    },
    cancelAll(): void {
      for (const item of items) if (item.status === 'waiting' || item.status === 'uploading') this.cancel(item.key);
    },
    /** Drops finished and cancelled files from the list (and their local previews). */
    clearFinished(): void {
      const [kept, dropped] = [items.filter((item) => item.status === 'waiting' || item.status === 'uploading' || item.status === 'failed'), items.filter((item) => item.status === 'done' || item.status === 'cancelled')];
      dropped.forEach((item) => URL.revokeObjectURL(item.preview));
      items = kept;
      changed();
    },
    markNoPreview(key: string): void {
      update(key, { noPreview: true });
      changed();
    },
    /** Sign-out: everything stops and is forgotten. */
    reset(): void {
      running.forEach((handle) => handle.abort());
      items.forEach((item) => URL.revokeObjectURL(item.preview));
      items = [];
      limits = null;
      changed();
    },
  };
}

export type UploadQueue = ReturnType<typeof createUploadQueue>;

/** Re-renders the calling component whenever the queue changes. */
export function useUploadQueue(queue: UploadQueue): { items: QueuedFile[]; counts: UploadCounts } {
  const [, setVersion] = useState(0);
  useEffect(() => queue.subscribe(() => setVersion((version) => version + 1)), [queue]);
  return { items: queue.items(), counts: queue.counts() };
}
