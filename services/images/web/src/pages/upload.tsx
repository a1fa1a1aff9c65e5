import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { ApiError, type Category, type UploadHandle, type UploadResult } from '../api';
import { useApp } from '../app-context';
import { FileName } from '../components/file-name';
import { LinkFields } from '../components/link-fields';
import { formatBytes, randomKey } from '../format';

/** Uploads running at once: enough to keep the line busy, few enough to show steady progress. */
const PARALLEL_UPLOADS = 2;

interface QueuedFile {
  key: string;
  file: File;
  preview: string;
  categoryId?: number;
  /** Kept across retries: a retry of a request that did reach the service returns its first result. */
  idempotencyKey: string;
  status: 'waiting' | 'uploading' | 'done' | 'failed';
  sent: number;
  total: number;
  result?: UploadResult;
  error?: string;
  /** No answer came back (network, proxy): worth another try. A refusal by the service is final. */
  retryable?: boolean;
  /** The browser could not show the local file (not an image): a neutral box instead. */
  noPreview?: boolean;
}

function pastedName(file: File, label: string): string {
  const now = new Date();
  const pad = (n: number) => String(n).padStart(2, '0');
  const stamp = `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())} ${pad(now.getHours())}${pad(now.getMinutes())}${pad(now.getSeconds())}`;
  const extension = /^image\/(png|jpeg|gif|webp|avif|tiff)$/.exec(file.type)?.[1]?.replace('jpeg', 'jpg') ?? 'png';
  return `${label} ${stamp}.${extension}`;
}

export function UploadPage() {
  const { api, t, said, fail } = useApp();
  const id = useId();
  const [categories, setCategories] = useState<Category[]>([]);
  const [categoryId, setCategoryId] = useState<number | undefined>(undefined);
  const [maxFileSize, setMaxFileSize] = useState<number | null>(null);
  const [queue, setQueue] = useState<QueuedFile[]>([]);
  const [dragging, setDragging] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const running = useRef(new Map<string, UploadHandle>());
  const categoryRef = useRef(categoryId);
  categoryRef.current = categoryId;

  useEffect(() => {
    api.categories().then((list) => {
      setCategories(list);
      setCategoryId((current) => current ?? list.find((category) => category.is_default)?.id);
    }, fail);
    api.profile().then((profile) => setMaxFileSize(profile.max_file_size), () => undefined);
  }, [api, fail]);

  const update = (key: string, change: Partial<QueuedFile>) => setQueue((list) => list.map((item) => (item.key === key ? { ...item, ...change } : item)));

  // Starts waiting uploads while fewer than PARALLEL_UPLOADS run.
  useEffect(() => {
    const free = PARALLEL_UPLOADS - queue.filter((item) => item.status === 'uploading').length;
    const next = queue.filter((item) => item.status === 'waiting').slice(0, Math.max(free, 0));
    for (const item of next) {
      update(item.key, { status: 'uploading', sent: 0 });
      const handle = api.upload(item.file, {
        categoryId: item.categoryId,
        idempotencyKey: item.idempotencyKey,
        onProgress: (sent, total) => update(item.key, { sent, total }),
      });
      running.current.set(item.key, handle);
      handle.result.then(
        (result) => update(item.key, { status: 'done', result, sent: item.file.size, total: item.file.size }),
        (error: unknown) =>
          update(item.key, { status: 'failed', error: error instanceof ApiError ? error.message : String(error), retryable: !(error instanceof ApiError) || error.kind === 'network' }),
      );
      void handle.result.catch(() => undefined).then(() => running.current.delete(item.key));
    }
  }, [queue, api]);

  useEffect(
    () => () => {
      running.current.forEach((handle) => handle.abort());
    },
    [],
  );
  // Local previews are released with the page.
  const previews = useRef<string[]>([]);
  useEffect(() => () => previews.current.forEach((url) => URL.revokeObjectURL(url)), []);

  const add = (files: File[]) => {
    if (files.length === 0) return;
    const items = files.map((file): QueuedFile => {
      const preview = URL.createObjectURL(file);
      previews.current.push(preview);
      return { key: randomKey(), file, preview, categoryId: categoryRef.current, idempotencyKey: randomKey(), status: 'waiting', sent: 0, total: file.size, noPreview: !file.type.startsWith('image/') };
    });
    setQueue((list) => [...items, ...list]);
  };

  // A screenshot pasted anywhere on this page is uploaded.
  useEffect(() => {
    const onPaste = (event: ClipboardEvent) => {
      const files = Array.from(event.clipboardData?.files ?? []);
      if (files.length === 0) return;
      event.preventDefault();
      add(files.map((file) => (file.name && file.name !== 'image.png' ? file : new File([file], pastedName(file, t('pastedImage')), { type: file.type }))));
    };
    // Files dropped outside the drop zone are taken too, rather than opened by the browser.
    const onDragOver = (event: DragEvent) => {
      if (event.dataTransfer?.types.includes('Files')) event.preventDefault();
    };
    const onDrop = (event: DragEvent) => {
      if (!event.dataTransfer?.files.length) return;
      event.preventDefault();
      setDragging(false);
      add(Array.from(event.dataTransfer.files));
    };
    document.addEventListener('paste', onPaste);
    window.addEventListener('dragover', onDragOver);
    window.addEventListener('drop', onDrop);
    return () => {
      document.removeEventListener('paste', onPaste);
      window.removeEventListener('dragover', onDragOver);
      window.removeEventListener('drop', onDrop);
    };
  }, [t]);

  const retry = (item: QueuedFile) => update(item.key, { status: 'waiting', error: undefined, sent: 0 });
  const finished = queue.filter((item) => item.status === 'done').length;

  return (
    <section class="page" aria-labelledby={`${id}-title`}>
      <div class="page-head">
        <h1 id={`${id}-title`} class="page-title">
          {t('uploadTitle')}
        </h1>
        <div class="field inline">
          <label for={`${id}-category`}>{t('uploadCategory')}</label>
          <select id={`${id}-category`} class="input" value={categoryId ?? ''} onChange={(event) => setCategoryId(Number(event.currentTarget.value) || undefined)}>
            {categories.map((category) => (
              <option key={category.id} value={category.id}>
                {category.name}
              </option>
            ))}
          </select>
        </div>
      </div>

      <div
        class={dragging ? 'drop-zone dragging' : 'drop-zone'}
        onDragEnter={(event) => {
          if (event.dataTransfer?.types.includes('Files')) setDragging(true);
        }}
        onDragLeave={(event) => {
          if (!(event.currentTarget as HTMLElement).contains(event.relatedTarget as Node | null)) setDragging(false);
        }}
      >
        <span class="drop-icon" aria-hidden="true" />
        <p class="drop-title">{t('dropZoneTitle')}</p>
        <p class="drop-hint">{t('dropZoneHint', { size: maxFileSize === null ? '…' : formatBytes(maxFileSize) })}</p>
        <button type="button" class="button primary" onClick={() => input.current?.click()}>
          {t('chooseFiles')}
        </button>
        <input
          ref={input}
          id={`${id}-files`}
          class="visually-hidden"
          type="file"
          accept="image/*"
          multiple
          tabIndex={-1}
          aria-label={t('chooseFiles')}
          onChange={(event) => {
            add(Array.from(event.currentTarget.files ?? []));
            event.currentTarget.value = '';
          }}
        />
      </div>

      <div class="section-head">
        <h2>{t('uploadQueue')}</h2>
        {finished > 0 ? (
          <button type="button" class="button ghost small" onClick={() => setQueue((list) => list.filter((item) => item.status !== 'done'))}>
            {t('clearFinished')}
          </button>
        ) : null}
      </div>
      {queue.length === 0 ? (
        <p class="muted empty-line">{t('noUploadsYet')}</p>
      ) : (
        <ul class="upload-list">
          {queue.map((item) => {
            const percent = item.total > 0 ? Math.round((item.sent / item.total) * 100) : 0;
            return (
              <li key={item.key} class={`upload-item ${item.status}`} data-status={item.status}>
                {item.noPreview && !item.result ? (
                  <span class="upload-preview placeholder" aria-hidden="true" />
                ) : (
                  <img class="upload-preview" src={item.result?.thumb_url ?? item.preview} alt="" onError={() => update(item.key, { noPreview: true })} />
                )}
                <div class="upload-main">
                  <div class="upload-line">
                    <FileName name={item.result?.original_name ?? item.file.name} class="upload-name" />
                    <span class="muted upload-size">
                      {formatBytes(item.file.size)}
                      {item.result ? ` · ${t('dimensions', { w: item.result.width, h: item.result.height })}` : ''}
                    </span>
                  </div>
                  {item.status === 'uploading' || item.status === 'waiting' ? (
                    <div class="upload-progress">
                      <progress max={100} value={item.status === 'waiting' ? 0 : percent} aria-label={t('uploadProgress', { name: item.file.name })} />
                      <span class="muted">{item.status === 'waiting' ? t('waiting') : t('uploading', { percent })}</span>
                    </div>
                  ) : null}
                  {item.status === 'failed' ? (
                    <div class="upload-error">
                      <span class="status-badge error">{t('uploadFailed')}</span>
                      <span class="error-text" role="alert">
                        {said(item.error ?? '')}
                      </span>
                      {item.retryable ? (
                        <button type="button" class="button secondary small" onClick={() => retry(item)}>
                          {t('retry')}
                        </button>
                      ) : null}
                    </div>
                  ) : null}
                  {item.status === 'done' && item.result ? (
                    <>
                      <span class="status-badge success">{t('uploaded')}</span>
                      <LinkFields links={item.result.links} />
                    </>
                  ) : null}
                </div>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
