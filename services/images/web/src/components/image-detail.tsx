import { useState } from 'preact/hooks';
import type { ImageItem } from '../api';
import { useApp } from '../app-context';
import { formatBytes } from '../format';
import { FileName } from './file-name';
import { ImagePageToggle } from './image-page-toggle';
import { LinkFields } from './link-fields';
import { LocalTime } from './local-time';
import { Modal } from './modal';
import { ExpiryField } from './expiry-field';
import { RenameField } from './rename-field';

/** The gallery's detail dialog of one image: the picture, its name (renamable), size and dimensions once loaded, its links, open and move to the bin. */
export function ImageDetail({ item, onClose, onDelete, onRenamed }: { item: ImageItem; onClose(): void; onDelete(): void; onRenamed(item: ImageItem): void }) {
  const { t } = useApp();
  const [detailSize, setDetailSize] = useState<{ w: number; h: number } | null>(null);
  return (
    <Modal title={t('detailTitle')} onClose={onClose} wide>
      <div class="detail">
        <div class="detail-preview">
          <img src={item.url} alt={item.original_name} onLoad={(event) => setDetailSize({ w: event.currentTarget.naturalWidth, h: event.currentTarget.naturalHeight })} />
        </div>
        <div class="detail-info">
          <h3 class="detail-name">
            <FileName name={item.original_name} />
          </h3>
          <RenameField item={item} onRenamed={onRenamed} />
          <dl class="facts">
            <div>
              <dt>{t('fileSize')}</dt>
              <dd>
                {formatBytes(item.file_size)}
                {detailSize ? ` · ${t('dimensions', { w: detailSize.w, h: detailSize.h })}` : ''}
              </dd>
            </div>
            <div>
              <dt>{t('uploadedAt')}</dt>
              <dd>
                <LocalTime value={item.create_time} />
              </dd>
            </div>
          </dl>
          <ExpiryField item={item} onChanged={onRenamed} />
          <LinkFields links={item.links} withThumbnail />
          <ImagePageToggle imageId={item.id} />
          <div class="detail-actions">
            <a class="button secondary" href={item.url} target="_blank" rel="noopener noreferrer">
              {t('openOriginal')}
            </a>
            <button type="button" class="button danger" onClick={onDelete}>
              {t('moveToBin')}
            </button>
          </div>
        </div>
      </div>
    </Modal>
  );
}
