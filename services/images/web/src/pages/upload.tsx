import { useEffect, useId, useRef, useState } from 'preact/hooks';
import type { Category } from '../api';
import { useApp } from '../app-context';
import { CopyAllLinks } from '../components/copy-all-links';
import { UploadItem } from '../components/upload-item';
import { formatBytes } from '../format';
import { categoryName } from '../category-name';
import { useUploadQueue } from '../upload-queue';

function pastedName(file: File, label: string): string {
  const now = new Date();
  const pad = (n: number) => String(n).padStart(2, '0');
  const stamp = `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())} ${pad(now.getHours())}${pad(now.getMinutes())}${pad(now.getSeconds())}`;
  const extension = /^image\/(png|jpeg|gif|webp|avif|tiff)$/.exec(file.type)?.[1]?.replace('jpeg', 'jpg') ?? 'png';
  return `${label} ${stamp}.${extension}`;
}

/** The upload page's expiry choices: seconds (0: never) and their words. */
const EXPIRY_CHOICES = [
  [0, 'expiryNever'],
  [3600, 'expiryHour'],
  [86400, 'expiryDay'],
  [7 * 86400, 'expiryWeek'],
  [30 * 86400, 'expiryMonth'],
] as const;

export function UploadPage() {
  const { api, t, fail, uploads } = useApp();
  const id = useId();
  const [categories, setCategories] = useState<Category[]>([]);
  const [categoryId, setCategoryId] = useState<number | undefined>(undefined);
  const [dragging, setDragging] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const categoryRef = useRef(categoryId);
  categoryRef.current = categoryId;
  const [expiresIn, setExpiresIn] = useState(0);
  const expiryRef = useRef(expiresIn);
  expiryRef.current = expiresIn;
  const { items, counts } = useUploadQueue(uploads);
  const limits = uploads.limits();

  useEffect(() => {
    api.categories().then((list) => {
      setCategories(list);
      setCategoryId((current) => current ?? list.find((category) => category.is_default)?.id);
    }, fail);
    // While uploads run, the queue counts its own answers; a fresh profile would not yet include those under way.
    if (uploads.counts().active === 0) {
      api.profile().then((profile) => uploads.setLimits({ maxFileSize: profile.max_file_size, quotaBytes: profile.quota_bytes, usedBytes: profile.used_bytes }), () => undefined);
    }
  }, [api, fail, uploads]);

  const add = (files: File[]) => {
    if (files.length > 0) uploads.add(files, categoryRef.current, expiryRef.current || undefined);
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
  }, [t, uploads]);

  const finished = items.filter((item) => item.status === 'done' || item.status === 'cancelled').length;
  const spaceLeft = limits ? Math.max(0, limits.quotaBytes - limits.usedBytes) : null;

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
                {categoryName(category, t)}
              </option>
            ))}
          </select>
        </div>
        <div class="field inline">
          <label for={`${id}-expiry`}>{t('uploadExpiry')}</label>
          <select id={`${id}-expiry`} class="input" data-upload-expiry value={String(expiresIn)} onChange={(event) => setExpiresIn(Number(event.currentTarget.value))}>
            {EXPIRY_CHOICES.map(([seconds, label]) => (
              <option key={seconds} value={String(seconds)}>
                {t(label)}
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
        <p class="drop-hint">
          {t('dropZoneHint', { size: limits === null ? '…' : formatBytes(limits.maxFileSize) })}
          {spaceLeft !== null ? <span data-fact="space-left"> · {t('spaceLeft', { left: formatBytes(spaceLeft) })}</span> : null}
        </p>
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
        {counts.total > 0 ? (
          <span class="upload-counter" data-upload-counter aria-live="polite">
            {t('uploadCounter', { done: counts.done, total: counts.total })}
          </span>
        ) : null}
        <span class="section-actions">
          {counts.active > 0 ? (
            <button type="button" class="button secondary small" data-cancel-all onClick={() => uploads.cancelAll()}>
              {t('cancelAll')}
            </button>
          ) : null}
          {counts.done > 0 ? <CopyAllLinks links={items.flatMap((item) => (item.status === 'done' && item.result ? [item.result.links] : []))} /> : null}
          {finished > 0 ? (
            <button type="button" class="button ghost small" onClick={() => uploads.clearFinished()}>
              {t('clearFinished')}
            </button>
          ) : null}
        </span>
      </div>
      {items.length === 0 ? (
        <p class="muted empty-line">{t('noUploadsYet')}</p>
      ) : (
        <ul class="upload-list">
          {items.map((item) => (
            <UploadItem key={item.key} item={item} limits={limits} />
          ))}
        </ul>
      )}
    </section>
  );
}
