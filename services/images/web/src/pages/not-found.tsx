import { useApp } from '../app-context';
import { EmptyState } from '../components/empty-state';
import { followLink, hrefOf } from '../router';

export function NotFoundPage() {
  const { t } = useApp();
  return (
    <section class="page">
      <h1 class="page-title">{t('notFoundTitle')}</h1>
      <EmptyState title={t('notFoundTitle')} hint={t('notFoundText')} icon="folder">
        <a class="button primary" href={hrefOf('gallery')} onClick={followLink}>
          {t('backToGallery')}
        </a>
      </EmptyState>
    </section>
  );
}
