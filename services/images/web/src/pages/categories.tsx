import { useId, useState } from 'preact/hooks';
import type { Category } from '../api';
import { useApp } from '../app-context';
import { useLoaded } from '../use-loaded';
import { usePending } from '../use-pending';
import { EmptyState } from '../components/empty-state';
import { categoryName } from '../category-name';
import { FileName } from '../components/file-name';
import { ShareAlbum } from '../components/share-album';

function CategoryRow({ category, onChanged }: { category: Category; onChanged(): void }) {
  const { api, t, notify, fail, confirm } = useApp();
  const id = useId();
  const [editing, setEditing] = useState(false);
  const [sharing, setSharing] = useState(false);
  const [name, setName] = useState(category.name);

  const rename = async (event: Event) => {
    event.preventDefault();
    try {
      await api.renameCategory(category.id, name.trim());
      notify(t('renamed', { name: name.trim() }), 'success');
      setEditing(false);
      onChanged();
    } catch (error) {
      fail(error);
    }
  };
  const remove = async () => {
    if (!(await confirm(t('confirmDeleteCategory', { name: category.name, n: category.image_count }), { confirmLabel: t('delete'), danger: true }))) return;
    try {
      await api.deleteCategory(category.id);
      notify(t('categoryDeleted'), 'success');
      onChanged();
    } catch (error) {
      fail(error);
    }
  };

  return (
    <li class="category-row" data-category-id={category.id}>
      <span class="category-icon" aria-hidden="true" />
      {editing ? (
        <form class="inline-form" onSubmit={rename}>
          <label class="visually-hidden" for={`${id}-name`}>
            {t('renameCategory', { name: category.name })}
          </label>
          <input id={`${id}-name`} class="input" value={name} maxLength={64} required onInput={(event) => setName(event.currentTarget.value)} ref={(element) => element?.focus()} />
          <button type="submit" class="button primary small" disabled={!name.trim()}>
            {t('save')}
          </button>
          <button
            type="button"
            class="button ghost small"
            onClick={() => {
              setName(category.name);
              setEditing(false);
            }}
          >
            {t('cancel')}
          </button>
        </form>
      ) : (
        <div class="category-main">
          <FileName name={categoryName(category, t)} class="category-name" />
          {category.is_default ? <span class="badge">{t('defaultCategory')}</span> : null}
          <span class="muted small-text">{t('images', { n: category.image_count })}</span>
        </div>
      )}
      {editing ? null : (
        <div class="row-actions">
          <button type="button" class="button secondary small" aria-label={t('shareAlbum', { name: category.name })} onClick={() => setSharing(true)}>
            {t('share')}
          </button>
          <button type="button" class="button secondary small" aria-label={t('renameCategory', { name: category.name })} onClick={() => setEditing(true)}>
            {t('rename')}
          </button>
          {category.is_default ? null : (
            <button type="button" class="button danger-ghost small" aria-label={`${t('delete')} ${category.name}`} onClick={remove}>
              {t('delete')}
            </button>
          )}
        </div>
      )}
      {sharing ? <ShareAlbum category={category} onClose={() => setSharing(false)} onChanged={onChanged} /> : null}
    </li>
  );
}

export function CategoriesPage() {
  const { api, t, notify } = useApp();
  const id = useId();
  const [name, setName] = useState('');

  const [categories, load] = useLoaded(() => api.categories(), [api]);

  const creating = usePending();
  const create = creating.submit(async () => {
    const created = await api.createCategory(name.trim());
    notify(t('categoryCreated', { name: created.name }), 'success');
    setName('');
    await load();
  });

  return (
    <section class="page narrow" aria-labelledby={`${id}-title`}>
      <div class="page-head">
        <h1 id={`${id}-title`} class="page-title">
          {t('categoriesTitle')}
        </h1>
      </div>
      <form class="card-panel create-form" onSubmit={create}>
        <div class="field grow">
          <label for={`${id}-new`}>{t('newCategory')}</label>
          <input id={`${id}-new`} class="input" value={name} maxLength={64} onInput={(event) => setName(event.currentTarget.value)} />
        </div>
        <button type="submit" class="button primary" disabled={!name.trim() || creating.pending}>
          {t('createCategory')}
        </button>
      </form>
      {categories === null ? (
        <p class="muted" role="status">
          {t('loading')}
        </p>
      ) : (
        <>
          <ul class="category-list card-panel flush" aria-label={t('categoryList')}>
            {categories.map((category) => (
              <CategoryRow key={`${category.id}:${category.name}`} category={category} onChanged={load} />
            ))}
          </ul>
          {categories.length <= 1 ? <EmptyState title={t('emptyCategories')} icon="folder" /> : null}
        </>
      )}
    </section>
  );
}
