import { useApp } from '../app-context';

/** Previous / "page n of N" / next under a paged table; nothing when it fits on one page. */
export function Pager({ page, pages, label, onPage }: { page: number; pages: number; label: string; onPage(page: number): void }) {
  const { t } = useApp();
  if (pages <= 1) return null;
  return (
    <nav class="pager" aria-label={label}>
      <button type="button" class="button secondary small" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        {t('previousPage')}
      </button>
      <span class="muted">{t('pageOf', { page, pages })}</span>
      <button type="button" class="button secondary small" disabled={page >= pages} onClick={() => onPage(page + 1)}>
        {t('nextPage')}
      </button>
    </nav>
  );
}
