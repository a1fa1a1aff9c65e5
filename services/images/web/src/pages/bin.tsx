import { useCallback, useEffect, useId, useState } from 'preact/hooks';
import type { BinItem, BulkOutcome } from '../api';
import { useApp } from '../app-context';
import { EmptyState } from '../components/empty-state';
import { FileName } from '../components/file-name';
import { LocalTime } from '../components/local-time';
import { formatBytes } from '../format';
import { useSelection } from '../use-selection';

const PAGE_SIZE = 100;
/** The service takes at most 1000 ids per request. */
const BULK_CHUNK = 1000;

export function BinPage() {
  const { api, t, said, notify, fail, confirm } = useApp();
  const id = useId();
  const [items, setItems] = useState<BinItem[]>([]);
  const [total, setTotal] = useState(0);
  const [page, setPage] = useState(0);
  const [loading, setLoading] = useState(true);
  const [retentionDays, setRetentionDays] = useState<number | null>(null);
  const { selected, setSelected, toggle, drop } = useSelection();
  const [busy, setBusy] = useState(false);

  const load = useCallback(
    async (pageNumber: number) => {
      setLoading(true);
      try {
        const answer = await api.trash({ page: pageNumber, limit: PAGE_SIZE });
        setItems((list) => (pageNumber === 1 ? answer.list : [...list, ...answer.list.filter((item) => !list.some((have) => have.id === item.id))]));
        setTotal(answer.total);
        setPage(pageNumber);
      } catch (error) {
        fail(error);
      } finally {
        setLoading(false);
      }
    },
    [api, fail],
  );
  useEffect(() => {
    void load(1);
    api.profile().then((profile) => setRetentionDays(profile.recycle_retention_days), () => undefined);
  }, [load, api]);

  const report = (outcome: BulkOutcome, doneKey: 'restoredCount' | 'purgedCount') => {
    const done = outcome.results.filter((result) => result.ok).map((result) => result.id);
    setItems((list) => list.filter((item) => !done.includes(item.id)));
    setTotal((count) => Math.max(0, count - done.length));
    drop(done);
    if (done.length > 0) notify(t(doneKey, { n: done.length }), 'success');
    const failure = outcome.results.find((result) => !result.ok);
    if (failure) notify(t('someFailed', { n: outcome.failed, msg: said(failure.msg) }), 'error');
  };

  const restore = async (ids: number[]) => {
    setBusy(true);
    try {
      report(await api.restoreMany(ids), 'restoredCount');
    } catch (error) {
      fail(error);
    } finally {
      setBusy(false);
    }
  };

  const purge = async (ids: number[], question: string) => {
    if (!(await confirm(question, { confirmLabel: t('purge'), danger: true }))) return;
    setBusy(true);
    try {
      for (let start = 0; start < ids.length; start += BULK_CHUNK) report(await api.purgeMany(ids.slice(start, start + BULK_CHUNK)), 'purgedCount');
    } catch (error) {
      fail(error);
    } finally {
      setBusy(false);
    }
  };

  /** Every item in the bin, not only the loaded ones. */
  const emptyBin = async () => {
    if (!(await confirm(t('confirmEmptyBin', { n: total }), { confirmLabel: t('emptyTheBin'), danger: true }))) return;
    setBusy(true);
    try {
      const ids: number[] = [];
      for (let pageNumber = 1; ; pageNumber++) {
        const answer = await api.trash({ page: pageNumber, limit: PAGE_SIZE });
        ids.push(...answer.list.map((item) => item.id));
        if (answer.list.length < PAGE_SIZE) break;
      }
      for (let start = 0; start < ids.length; start += BULK_CHUNK) report(await api.purgeMany(ids.slice(start, start + BULK_CHUNK)), 'purgedCount');
      await load(1);
    } catch (error) {
      fail(error);
    } finally {
      setBusy(false);
    }
  };

  const selectedIds = [...selected];
  const allSelected = items.length > 0 && items.every((item) => selected.has(item.id));

  return (
    <section class="page" aria-labelledby={`${id}-title`}>
      <div class="page-head">
        <h1 id={`${id}-title`} class="page-title">
          {t('binTitle')}
          <span class="count-pill">{t('imageCount', { n: total })}</span>
        </h1>
        {total > 0 ? (
          <button type="button" class="button danger" disabled={busy} onClick={emptyBin}>
            {t('emptyTheBin')}
          </button>
        ) : null}
      </div>
      {retentionDays !== null ? <p class="lead">{t('binLead', { days: retentionDays })}</p> : null}

      {items.length === 0 && !loading ? (
        <EmptyState title={t('emptyBin')} hint={t('emptyBinHint')} icon="bin" />
      ) : (
        <>
          <div class={selected.size > 0 ? 'selection-bar active' : 'selection-bar'}>
            <label class="checkbox">
              <input type="checkbox" checked={allSelected} onChange={() => setSelected(allSelected ? new Set() : new Set(items.map((item) => item.id)))} />
              <span>{selected.size > 0 ? t('selectedCount', { n: selected.size }) : t('selectAllLoaded')}</span>
            </label>
            {selected.size > 0 ? (
              <div class="selection-actions">
                <button type="button" class="button secondary small" disabled={busy} onClick={() => restore(selectedIds)}>
                  {t('restoreSelected')}
                </button>
                <button type="button" class="button danger small" disabled={busy} onClick={() => purge(selectedIds, t('confirmPurge', { n: selectedIds.length }))}>
                  {t('purgeSelected')}
                </button>
              </div>
            ) : null}
          </div>
          <ul class="bin-list" aria-label={t('binItems')}>
            {items.map((item) => (
              <li key={item.id} class={selected.has(item.id) ? 'bin-item selected' : 'bin-item'} data-image-id={item.id}>
                <input type="checkbox" checked={selected.has(item.id)} onChange={() => toggle(item.id)} aria-label={t('selectImage', { name: item.original_name })} />
                <img class="bin-thumb" src={item.thumb_url} alt="" loading="lazy" width={48} height={48} />
                <div class="bin-main">
                  <FileName name={item.original_name} class="bin-name" />
                  <span class="muted small-text bin-meta">
                    <span class="nowrap">{formatBytes(item.file_size)}</span>
                    <span class="nowrap">
                      {t('deletedAt')} <LocalTime value={item.delete_time} />
                    </span>
                  </span>
                </div>
                <div class="bin-purge">
                  <span class="muted small-text">{t('purgeAt')}</span>
                  <span class="small-text">
                    <LocalTime value={item.purge_time} />
                  </span>
                </div>
                <div class="row-actions">
                  <button type="button" class="button secondary small" disabled={busy} onClick={() => restore([item.id])}>
                    {t('restore')}
                  </button>
                  <button type="button" class="button danger-ghost small" disabled={busy} onClick={() => purge([item.id], t('confirmPurge', { n: 1 }))}>
                    {t('purge')}
                  </button>
                </div>
              </li>
            ))}
          </ul>
          {loading ? (
            <p class="muted center" role="status">
              {t('loading')}
            </p>
          ) : null}
          {items.length < total && !loading ? (
            <div class="center">
              <button type="button" class="button secondary" onClick={() => load(page + 1)}>
                {t('loadMore')}
              </button>
            </div>
          ) : null}
        </>
      )}
    </section>
  );
}
