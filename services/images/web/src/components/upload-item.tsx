import { useApp } from '../app-context';
import { formatBytes } from '../format';
import { QUOTA_MESSAGE, TOO_LARGE_MESSAGE, type QueuedFile, type UploadLimits } from '../upload-queue';
import { FileName } from './file-name';
import { LinkFields } from './link-fields';

/** One file of the upload queue: its preview, size, progress or outcome, and its cancel/retry button. */
export function UploadItem({ item, limits }: { item: QueuedFile; limits: UploadLimits | null }) {
  const { t, said, uploads } = useApp();
  const percent = item.total > 0 ? Math.round((item.sent / item.total) * 100) : 0;
  const name = item.result?.original_name ?? item.file.name;
  // Sizes beside a limit are rounded up, so a file over "10 MB" never reads as 10 MB.
  const size = formatBytes(item.file.size, { roundUp: true });
  const detail = (() => {
    if (!limits) return '';
    if (item.error === TOO_LARGE_MESSAGE) return ` (${t('sizeOverLimit', { size, limit: formatBytes(limits.maxFileSize) })})`;
    if (item.error === QUOTA_MESSAGE) return ` (${t('spaceLeft', { left: formatBytes(Math.max(0, limits.quotaBytes - limits.usedBytes)) })})`;
    return '';
  })();
  const active = item.status === 'uploading' || item.status === 'waiting';

  return (
    <li class={`upload-item ${item.status}`} data-status={item.status}>
      {item.noPreview && !item.result ? (
        <span class="upload-preview placeholder" aria-hidden="true" />
      ) : (
        <img class="upload-preview" src={item.result?.thumb_url ?? item.preview} alt="" onError={() => uploads.markNoPreview(item.key)} />
      )}
      <div class="upload-main">
        <div class="upload-line">
          <FileName name={name} class="upload-name" />
          <span class="muted upload-size">
            {size}
            {item.result ? ` · ${t('dimensions', { w: item.result.width, h: item.result.height })}` : ''}
          </span>
        </div>
        {active ? (
          <div class="upload-progress">
            <progress max={100} value={item.status === 'waiting' ? 0 : percent} aria-label={t('uploadProgress', { name })} />
            <span class="muted">{item.status === 'waiting' ? t('waiting') : t('uploading', { percent })}</span>
            <button type="button" class="button ghost small" data-cancel aria-label={t('cancelUploadOf', { name })} onClick={() => uploads.cancel(item.key)}>
              {t('cancel')}
            </button>
          </div>
        ) : null}
        {item.status === 'failed' || item.status === 'cancelled' ? (
          <div class="upload-error">
            <span class={item.status === 'failed' ? 'status-badge error' : 'status-badge'}>{item.status === 'failed' ? t('uploadFailed') : t('uploadCancelled')}</span>
            {item.status === 'failed' ? (
              <span class="error-text" role="alert">
                {item.empty ? t('emptyFile') : said(item.error ?? '') + detail}
              </span>
            ) : null}
            {item.retryable ? (
              <button type="button" class="button secondary small" aria-label={t('retryUploadOf', { name })} onClick={() => uploads.retry(item.key)}>
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
}
