import { useCallback, useEffect, useId, useRef, useState } from 'preact/hooks';
import type { BulkOutcome, Category, ImageItem } from '../api';
import { useApp } from '../app-context';
import { EmptyState } from '../components/empty-state';
import { FileName } from '../components/file-name';
import { CopyAllLinks } from '../components/copy-all-links';
import { ImageDetail } from '../components/image-detail';
import { LocalTime } from '../components/local-time';
import { categoryName } from '../category-name';
import { formatBytes } from '../format';
import { followLink, hrefOf, setUrlQuery, useUrlQuery } from '../router';
import { useSelection } from '../use-selection';
import { useLoaded } from '../use-loaded';

const PAGE_SIZE = 40;

/** The first refusal of a bulk answer, for the notice. */
function firstFailure(outcome: BulkOutcome): string {
  return outcome.results.find((result) => !result.ok)?.msg ?? '';
}

export function GalleryPage() {
  const { api, t, said, notify, fail, confirm, lang } = useApp();
  const id = useId();
  // The search, the category and how many pages are loaded are in the URL (?q=&category=&page=), so a
  // reload or a shared link shows the same; the open image (?image=) is a history entry Back closes.
  const url = useUrlQuery();
  const [keyword, setKeyword] = useState(() => url.get('q') ?? '');
  const [query, setQuery] = useState(() => keyword.trim());
  const [categoryId, setCategoryId] = useState<number | undefined>(() => Number(url.get('category')) || undefined);
  /** Pages to load again after a reload (the URL's page), until the first search or filter change. */
  const restorePages = useRef(Math.max(1, Math.min(50, Number(url.get('page')) || 1)));
  const wantedImage = Number(url.get('image')) || null;
  const [items, setItems] = useState<ImageItem[]>([]);
  const [total, setTotal] = useState(0);
  const [totalEstimated, setTotalEstimated] = useState(false);
  const [page, setPage] = useState(0);
  const [loading, setLoading] = useState(false);
  const [loadError, setLoadError] = useState<string | null>(null);
  const { selected, setSelected, toggle, drop } = useSelection();
  const [moveTarget, setMoveTarget] = useState<number | undefined>(undefined);
  const [detail, setDetail] = useState<ImageItem | null>(null);
  const openDetail = (item: ImageItem) => setUrlQuery({ image: String(item.id) }, { push: true, state: { detail: true } });
  // Back undoes the entry the opening made; a detail opened by a link (no such entry) just leaves the URL.
  const closeDetail = () => ((history.state as { detail?: boolean } | null)?.detail ? history.back() : setUrlQuery({ image: null }));
  const generation = useRef(0);
  const sentinel = useRef<HTMLDivElement>(null);

  const [categories, loadCategories] = useLoaded(() => api.categories(), [api], [] as Category[]);

  // Typing settles for a moment before the search runs.
  useEffect(() => {
    const timer = window.setTimeout(() => setQuery(keyword.trim()), 250);
    return () => window.clearTimeout(timer);
  }, [keyword]);

  const load = useCallback(
    async (pageNumber: number) => {
      const mine = pageNumber === 1 ? ++generation.current : generation.current;
      setLoading(true);
      setLoadError(null);
      try {
        const answer = await api.list({ page: pageNumber, limit: PAGE_SIZE, keyword: query || undefined, category_id: categoryId });
        if (mine !== generation.current) return;
        setItems((list) => (pageNumber === 1 ? answer.list : [...list, ...answer.list.filter((item) => !list.some((have) => have.id === item.id))]));
        setTotal(answer.total);
        setTotalEstimated(answer.total_estimated === true);
        setPage(pageNumber);
      } catch (error) {
        if (mine === generation.current) setLoadError(said(error instanceof Error ? error.message : String(error)));
      } finally {
        if (mine === generation.current) setLoading(false);
      }
    },
    [api, query, categoryId, said],
  );

  const firstLoad = useRef(true);
  useEffect(() => {
    setSelected(new Set());
    if (!firstLoad.current) restorePages.current = 1;
    firstLoad.current = false;
    void load(1);
  }, [load]);

  // After a reload: the pages the URL says were loaded.
  useEffect(() => {
    if (page === 0 || loading || loadError) return;
    if (page < restorePages.current && items.length < total) void load(page + 1);
    else restorePages.current = 1;
  }, [page, items.length, total, loading, loadError, load]);

  // A new search or category starts at page 1 at once (the page count of the old one is not its own).
  const lastFilter = useRef(`${query}|${categoryId}`);
  useEffect(() => {
    if (page === 0) return;
    const filter = `${query}|${categoryId}`;
    const pages = filter === lastFilter.current ? Math.max(page, restorePages.current) : 1;
    lastFilter.current = filter;
    setUrlQuery({ q: query || null, category: categoryId ? String(categoryId) : null, page: pages > 1 ? String(pages) : null });
  }, [query, categoryId, page]);

  // The detail follows the URL: opened by its entry (or a shared link, once the image is loaded), closed by Back.
  useEffect(() => {
    if (wantedImage === null) setDetail(null);
    else if (detail?.id !== wantedImage) setDetail(items.find((item) => item.id === wantedImage) ?? null);
  }, [wantedImage, items, detail]);

  const hasMore = items.length < total;
  // Infinite scroll: the next page loads as the end of the grid comes into view (the button does the same by hand).
  useEffect(() => {
    const end = sentinel.current;
    if (!end || !hasMore || loading || loadError) return;
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((entry) => entry.isIntersecting)) void load(page + 1);
    });
    observer.observe(end);
    return () => observer.disconnect();
  }, [hasMore, loading, loadError, load, page]);


  const removeFromView = (ids: number[]) => {
    setItems((list) => list.filter((item) => !ids.includes(item.id)));
    setTotal((count) => Math.max(0, count - ids.length));
    drop(ids);
  };

  // Undo of a delete: the images come back from the bin (restore), and the page shows them again.
  const undoDelete = async (ids: number[]) => {
    try {
      const outcome = await api.restoreMany(ids);
      const back = outcome.results.filter((result) => result.ok).length;
      if (back > 0) notify(t('restoredCount', { n: back }), 'success');
      if (outcome.failed > 0) notify(t('someFailed', { n: outcome.failed, msg: said(firstFailure(outcome)) }), 'error');
      void load(1);
      void loadCategories();
    } catch (error) {
      fail(error);
    }
  };

  const deleteImages = async (ids: number[]) => {
    if (ids.length === 0) return;
    try {
      const outcome = await api.deleteMany(ids);
      const done = outcome.results.filter((result) => result.ok).map((result) => result.id);
      removeFromView(done);
      if (done.length > 0) notify(t('movedToBin', { n: done.length }), 'success', { label: t('undo'), run: () => void undoDelete(done) });
      if (outcome.failed > 0) notify(t('someFailed', { n: outcome.failed, msg: said(firstFailure(outcome)) }), 'error');
      if (detail && done.includes(detail.id)) closeDetail();
      void loadCategories();
    } catch (error) {
      fail(error);
    }
  };

  const moveImages = async (ids: number[], target: number) => {
    const category = categories.find((item) => item.id === target);
    if (ids.length === 0 || !category) return;
    try {
      const outcome = await api.move(ids, target);
      const done = outcome.results.filter((result) => result.ok).map((result) => result.id);
      if (done.length > 0) notify(t('movedImages', { n: done.length, name: categoryName(category, t) }), 'success');
      if (outcome.failed > 0) notify(t('someFailed', { n: outcome.failed, msg: said(firstFailure(outcome)) }), 'error');
      // Out of a filtered view when they left its category.
      if (categoryId !== undefined && categoryId !== target) removeFromView(done);
      else setSelected(new Set());
      void loadCategories();
    } catch (error) {
      fail(error);
    }
  };

  const filtered = query !== '' || categoryId !== undefined;
  const selectedIds = [...selected];
  const allSelected = items.length > 0 && items.every((item) => selected.has(item.id));

  return (
    <section class="page" aria-labelledby={`${id}-title`}>
      <div class="page-head">
        <h1 id={`${id}-title`} class="page-title">
          {t('galleryTitle')}
          <span class="count-pill" aria-live="polite">
            {t(totalEstimated ? 'imageCountAbout' : 'imageCount', { n: total })}
          </span>
        </h1>
        <a class="button primary" href={hrefOf('upload')} onClick={followLink}>
          {t('goUpload')}
        </a>
      </div>

      <div class="toolbar" role="search">
        <div class="field grow">
          <label class="visually-hidden" for={`${id}-search`}>
            {t('searchLabel')}
          </label>
          <input id={`${id}-search`} class="input search" type="search" placeholder={t('searchPlaceholder')} value={keyword} onInput={(event) => setKeyword(event.currentTarget.value)} />
        </div>
        <div class="field">
          <label class="visually-hidden" for={`${id}-category`}>
            {t('categoryFilter')}
          </label>
          <select id={`${id}-category`} class="input" value={categoryId ?? ''} onChange={(event) => setCategoryId(Number(event.currentTarget.value) || undefined)}>
            <option value="">{t('allCategories')}</option>
            {categories.map((category) => (
              <option key={category.id} value={category.id}>
                {categoryName(category, t)} ({category.image_count})
              </option>
            ))}
          </select>
        </div>
      </div>

      {items.length > 0 ? (
        <div class={selected.size > 0 ? 'selection-bar active' : 'selection-bar'}>
          <label class="checkbox">
            <input
              type="checkbox"
              checked={allSelected}
              onChange={() => setSelected(allSelected ? new Set() : new Set(items.map((item) => item.id)))}
            />
            <span>{selected.size > 0 ? t('selectedCount', { n: selected.size }) : t('selectAllLoaded')}</span>
          </label>
          {selected.size > 0 ? (
            <div class="selection-actions">
              <label class="visually-hidden" for={`${id}-move`}>
                {t('moveTo')}
              </label>
              <select id={`${id}-move`} class="input small" value={moveTarget ?? ''} onChange={(event) => setMoveTarget(Number(event.currentTarget.value) || undefined)}>
                <option value="">{t('moveTo')}…</option>
                {categories.map((category) => (
                  <option key={category.id} value={category.id}>
                    {categoryName(category, t)}
                  </option>
                ))}
              </select>
              <CopyAllLinks links={items.filter((item) => selected.has(item.id)).map((item) => item.links)} />
              <button type="button" class="button secondary small" disabled={moveTarget === undefined} onClick={() => moveTarget !== undefined && moveImages(selectedIds, moveTarget)}>
                {t('move')}
              </button>
              <button
                type="button"
                class="button danger small"
                onClick={async () => {
                  const ids = selectedIds;
                  if (await confirm(t('confirmBinSelected', { n: ids.length }), { confirmLabel: t('moveToBin'), danger: true })) void deleteImages(ids);
                }}
              >
                {t('deleteSelected')}
              </button>
              <button type="button" class="button ghost small" onClick={() => setSelected(new Set())}>
                {t('clearSelection')}
              </button>
            </div>
          ) : null}
        </div>
      ) : null}

      {loadError ? (
        <div class="load-error" role="alert">
          <span>{loadError}</span>
          <button type="button" class="button secondary small" onClick={() => load(page + 1 > 1 && items.length > 0 ? page + 1 : 1)}>
            {t('retry')}
          </button>
        </div>
      ) : null}

      {items.length === 0 && !loading && !loadError ? (
        filtered ? (
          <EmptyState title={t('noMatches')} hint={t('noMatchesHint')} icon="image" />
        ) : (
          <EmptyState title={t('emptyGallery')} hint={t('emptyGalleryHint')} icon="image">
            <a class="button primary" href={hrefOf('upload')} onClick={followLink}>
              {t('goUpload')}
            </a>
          </EmptyState>
        )
      ) : (
        <ul class="gallery-grid">
          {items.map((item) => (
            <li key={item.id} class={selected.has(item.id) ? 'card selected' : 'card'} data-image-id={item.id}>
              <button
                type="button"
                class="card-open"
                onClick={() => openDetail(item)}
              >
                <span class="card-thumb">
                  <img src={item.thumb_url} alt={item.original_name} loading="lazy" decoding="async" />
                </span>
                <span class="card-caption">
                  <FileName name={item.original_name} class="card-name" />
                  <span class="card-meta">
                    <span class="nowrap">{formatBytes(item.file_size)}</span>
                    <span class="nowrap">
                      <LocalTime value={item.create_time} dateOnly />
                    </span>
                    {item.expires_at ? (
                      <span class="nowrap expiry-mark" data-expires-at={item.expires_at} title={t('expiresAt', { time: new Date(item.expires_at).toLocaleString(lang === 'en' ? 'en-GB' : 'zh-CN', { timeZoneName: 'short' }) })}>
                        {t('expiringMark')}
                      </span>
                    ) : null}
                  </span>
                </span>
              </button>
              <label class="card-check">
                <input type="checkbox" checked={selected.has(item.id)} onChange={() => toggle(item.id)} aria-label={t('selectImage', { name: item.original_name })} />
              </label>
            </li>
          ))}
        </ul>
      )}
      <div ref={sentinel} class="sentinel" />
      {loading ? (
        <p class="muted center" role="status">
          {t('loading')}
        </p>
      ) : null}
      {hasMore && !loading && !loadError ? (
        <div class="center">
          <button type="button" class="button secondary" onClick={() => load(page + 1)}>
            {t('loadMore')}
          </button>
        </div>
      ) : null}

      {detail ? (
        <ImageDetail
          key={detail.id}
          item={detail}
          onClose={closeDetail}
          onRenamed={(renamed) => {
            setDetail(renamed);
            setItems((list) => list.map((have) => (have.id === renamed.id ? renamed : have)));
          }}
          onDelete={async () => {
            if (await confirm(`${t('moveToBin')}?`, { confirmLabel: t('moveToBin'), danger: true })) void deleteImages([detail.id]);
          }}
        />
      ) : null}
    </section>
  );
}
