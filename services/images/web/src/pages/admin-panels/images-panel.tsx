import { useCallback, useEffect, useId, useState } from 'preact/hooks';
import type { AdminImage, AdminImageFilter, BulkOutcome } from '../../api';
import { useApp } from '../../app-context';
import { EmptyState } from '../../components/empty-state';
import { FileName } from '../../components/file-name';
import { formatBytes } from '../../format';
import { useSelection } from '../../use-selection';
import { Pager } from '../../components/pager';
import { LocalTime } from '../../components/local-time';

const IMAGES_PER_PAGE = 50;
const KIB = 1024;
const TYPES = ['jpeg', 'png', 'gif', 'webp', 'avif', 'tiff', 'heic'];

/** The filter form's fields, as typed (sizes in KiB). */
interface FilterFields {
  username: string;
  type: string;
  status: '' | 'stored' | 'binned';
  minKiB: string;
  maxKiB: string;
  from: string;
  to: string;
}
const NO_FILTER: FilterFields = { username: '', type: '', status: '', minKiB: '', maxKiB: '', from: '', to: '' };

function toQuery(fields: FilterFields): AdminImageFilter {
  const bytes = (kib: string) => (kib.trim() === '' ? undefined : Math.round(Number(kib) * KIB));
  return {
    username: fields.username.trim() || undefined,
    type: fields.type || undefined,
    status: fields.status || undefined,
    min_size: bytes(fields.minKiB),
    max_size: bytes(fields.maxKiB),
    from: fields.from || undefined,
    to: fields.to || undefined,
  };
}

/** The admin's images tab: every user's images, filtered and paged; selected ones binned or purged after a confirmation. */
export function ImagesPanel() {
  const { api, t, said, notify, fail, confirm } = useApp();
  const id = useId();
  const [fields, setFields] = useState<FilterFields>(NO_FILTER);
  const [filter, setFilter] = useState<AdminImageFilter>({});
  const [page, setPage] = useState(1);
  const [images, setImages] = useState<AdminImage[] | null>(null);
  const [total, setTotal] = useState(0);
  const { selected, setSelected, toggle } = useSelection();
  const [busy, setBusy] = useState(false);

  const load = useCallback(
    () =>
      api.adminImages({ page, limit: IMAGES_PER_PAGE, ...filter }).then((answer) => {
        setImages(answer.list);
        setTotal(answer.total);
        setSelected(new Set());
      }, fail),
    [api, page, filter, fail],
  );
  useEffect(() => {
    void load();
  }, [load]);

  const set = (name: keyof FilterFields) => (event: Event) => setFields({ ...fields, [name]: (event.currentTarget as HTMLInputElement).value });
  const apply = (event: Event) => {
    event.preventDefault();
    setFilter(toQuery(fields));
    setPage(1);
  };
  const clear = () => {
    setFields(NO_FILTER);
    setFilter({});
    setPage(1);
  };

  const act = async (kind: 'bin' | 'purge') => {
    const ids = [...selected];
    const question = kind === 'bin' ? t('confirmAdminBin', { n: ids.length }) : t('confirmAdminPurge', { n: ids.length });
    if (!(await confirm(question, { confirmLabel: kind === 'bin' ? t('moveToBin') : t('purge'), danger: true }))) return;
    setBusy(true);
    try {
      const outcome: BulkOutcome = kind === 'bin' ? await api.adminBinImages(ids) : await api.adminPurgeImages(ids);
      notify(t(kind === 'bin' ? 'adminBinDone' : 'adminPurgeDone', { ok: outcome.succeeded, failed: outcome.failed }), outcome.failed > 0 ? 'error' : 'success');
      const failure = outcome.results.find((result) => !result.ok);
      if (failure) notify(said(failure.msg), 'error');
      await load();
    } catch (error) {
      fail(error);
    } finally {
      setBusy(false);
    }
  };

  const shown = images ?? [];
  const allSelected = shown.length > 0 && shown.every((image) => selected.has(image.id));
  const pages = Math.max(1, Math.ceil(total / IMAGES_PER_PAGE));

  return (
    <>
      <form class="card-panel create-form wrap" onSubmit={apply} aria-labelledby={`${id}-filters`} role="search">
        <h2 id={`${id}-filters`} class="form-title">
          {t('imageFilters')}
        </h2>
        <div class="field">
          <label for={`${id}-user`}>{t('filterUser')}</label>
          <input id={`${id}-user`} class="input" autoComplete="off" value={fields.username} onInput={set('username')} />
        </div>
        <div class="field">
          <label for={`${id}-type`}>{t('filterType')}</label>
          <select id={`${id}-type`} class="input" value={fields.type} onChange={set('type')}>
            <option value="">{t('anyType')}</option>
            {TYPES.map((type) => (
              <option key={type} value={type}>
                {type.toUpperCase()}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for={`${id}-status`}>{t('filterStatus')}</label>
          <select id={`${id}-status`} class="input" value={fields.status} onChange={set('status')}>
            <option value="">{t('anyStatus')}</option>
            <option value="stored">{t('statusStored')}</option>
            <option value="binned">{t('statusBinned')}</option>
          </select>
        </div>
        <div class="field">
          <label for={`${id}-min`}>{t('minSizeKiB')}</label>
          <input id={`${id}-min`} class="input" type="number" min="0" step="any" value={fields.minKiB} onInput={set('minKiB')} />
        </div>
        <div class="field">
          <label for={`${id}-max`}>{t('maxSizeKiB')}</label>
          <input id={`${id}-max`} class="input" type="number" min="0" step="any" value={fields.maxKiB} onInput={set('maxKiB')} />
        </div>
        <div class="field">
          <label for={`${id}-from`}>{t('uploadedFrom')}</label>
          <input id={`${id}-from`} class="input" type="date" value={fields.from} onInput={set('from')} />
        </div>
        <div class="field">
          <label for={`${id}-to`}>{t('uploadedTo')}</label>
          <input id={`${id}-to`} class="input" type="date" value={fields.to} onInput={set('to')} />
        </div>
        <button type="submit" class="button primary">
          {t('applyFilters')}
        </button>
        <button type="button" class="button ghost" onClick={clear}>
          {t('clearFilters')}
        </button>
      </form>

      {images === null ? (
        <p class="muted" role="status">
          {t('loading')}
        </p>
      ) : images.length === 0 ? (
        <EmptyState title={t('noMatchingImages')} icon="image" />
      ) : (
        <>
          <div class={selected.size > 0 ? 'selection-bar active' : 'selection-bar'}>
            <label class="checkbox">
              <input type="checkbox" checked={allSelected} onChange={() => setSelected(allSelected ? new Set() : new Set(shown.map((image) => image.id)))} />
              <span>{selected.size > 0 ? t('selectedCount', { n: selected.size }) : t('selectAllShown')}</span>
            </label>
            {selected.size > 0 ? (
              <div class="selection-actions">
                <button type="button" class="button secondary small" disabled={busy} onClick={() => act('bin')}>
                  {t('moveToBin')}
                </button>
                <button type="button" class="button danger small" disabled={busy} onClick={() => act('purge')}>
                  {t('purge')}
                </button>
              </div>
            ) : null}
          </div>
          <div class="table-wrap card-panel flush">
            <table class="table">
              <caption class="visually-hidden">{t('allImagesList')}</caption>
              <thead>
                <tr>
                  <th scope="col">
                    <span class="visually-hidden">{t('selectAllShown')}</span>
                  </th>
                  <th scope="col">{t('imageName')}</th>
                  <th scope="col">{t('owner')}</th>
                  <th scope="col">{t('fileType')}</th>
                  <th scope="col">{t('fileSize')}</th>
                  <th scope="col">{t('filterStatus')}</th>
                  <th scope="col">{t('createdAt')}</th>
                </tr>
              </thead>
              <tbody>
                {images.map((image) => (
                  <tr key={image.id} data-image-id={image.id} class={selected.has(image.id) ? 'selected' : undefined}>
                    <td>
                      <input type="checkbox" checked={selected.has(image.id)} onChange={() => toggle(image.id)} aria-label={t('selectImage', { name: image.original_name })} />
                    </td>
                    <th scope="row">
                      <span class="user-cell">
                        <img class="bin-thumb" src={image.thumb_url} alt="" loading="lazy" width={40} height={40} />
                        <FileName name={image.original_name} />
                      </span>
                    </th>
                    <td>{image.username}</td>
                    <td class="nowrap">{image.format.toUpperCase()}</td>
                    <td class="nowrap">{formatBytes(image.file_size)}</td>
                    <td>{image.status === 'binned' ? <span class="status-badge error">{t('statusBinned')}</span> : <span class="status-badge success">{t('statusStored')}</span>}</td>
                    <td class="nowrap small-text">
                      <LocalTime value={image.create_time} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
      <Pager page={page} pages={pages} label={t('allImagesList')} onPage={setPage} />
    </>
  );
}
