import { useEffect, useId, useState } from 'preact/hooks';
import type { ImagePage } from '../api';
import { useApp } from '../app-context';
import { CopyButton } from './copy-button';

/** The detail dialog's switch for the image's public page (off by default), and its link while on. */
export function ImagePageToggle({ imageId }: { imageId: number }) {
  const { api, t, notify, fail } = useApp();
  const id = useId();
  const [page, setPage] = useState<ImagePage | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    api.imagePage(imageId).then(setPage, fail);
  }, [api, imageId, fail]);

  // The box follows the click at once (turning off hides the link at once too); a refusal puts it back.
  const toggle = async (on: boolean) => {
    const before = page;
    setBusy(true);
    setPage(before && { ...before, public: on, page_url: on || before.album_public ? before.page_url : null });
    try {
      setPage(await api.setImagePage(imageId, on));
      notify(t(on ? 'imagePageOnNotice' : 'imagePageOffNotice'), 'success');
    } catch (error) {
      setPage(before);
      fail(error);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div class="image-page">
      <label class="checkbox">
        <input type="checkbox" checked={page?.public ?? false} disabled={page === null || busy} onChange={(event) => void toggle(event.currentTarget.checked)} />
        <span>{t('imagePageToggle')}</span>
      </label>
      {page?.album_public ? <p class="muted small-text">{t('imagePageByAlbum')}</p> : null}
      {page?.page_url ? (
        <div class="link-row" data-link="page">
          <label for={`${id}-page`}>{t('imagePageUrl')}</label>
          <input id={`${id}-page`} class="input mono" type="text" readOnly value={page.page_url} onFocus={(event) => event.currentTarget.select()} />
          <CopyButton text={page.page_url} label={t('copyLink', { kind: t('imagePageUrl') })} />
        </div>
      ) : null}
    </div>
  );
}
