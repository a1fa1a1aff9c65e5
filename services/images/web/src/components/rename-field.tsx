import { useId, useState } from 'preact/hooks';
import type { ImageItem } from '../api';
import { useApp } from '../app-context';
import { usePending } from '../use-pending';

/** The detail dialog's name field: a new displayed name for the image (its links and URL stay). */
export function RenameField({ item, onRenamed }: { item: ImageItem; onRenamed(item: ImageItem): void }) {
  const { api, t, notify } = useApp();
  const id = useId();
  const [name, setName] = useState(item.original_name);
  const saving = usePending();
  const changed = name.trim() !== '' && name.trim() !== item.original_name;

  const save = saving.submit(async () => {
    const renamed = await api.rename(item.id, name);
    setName(renamed.original_name);
    notify(t('renamed', { name: renamed.original_name }), 'success');
    onRenamed(renamed);
  });

  return (
    <form class="inline-form rename-form" onSubmit={save}>
      <label for={`${id}-name`}>{t('imageName')}</label>
      <input id={`${id}-name`} class="input" value={name} maxLength={255} required onInput={(event) => setName(event.currentTarget.value)} />
      <button type="submit" class="button primary small" disabled={!changed || saving.pending}>
        {t('rename')}
      </button>
    </form>
  );
}
