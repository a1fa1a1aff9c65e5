import { useApp } from '../app-context';
import { followLink, hrefOf } from '../router';
import { useUploadQueue } from '../upload-queue';

/** On every other page while uploads run: "n / N", a link back to the queue. */
export function UploadStatus() {
  const { t, uploads } = useApp();
  const { counts } = useUploadQueue(uploads);
  if (counts.active === 0) return null;
  return (
    <a class="upload-status" href={hrefOf('upload')} onClick={followLink} data-upload-status>
      <span class="upload-status-spinner" aria-hidden="true" />
      <span>{t('uploadsRunning', { done: counts.done, total: counts.total })}</span>
    </a>
  );
}
