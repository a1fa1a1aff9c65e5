import { useId, useState } from 'preact/hooks';
import type { Group } from '../../api';
import { useApp } from '../../app-context';
import { usePending } from '../../use-pending';
import { formatBytes } from '../../format';

const MIB = 1024 * 1024;
const GIB = 1024 * MIB;

/** One group's row: its limits, or the form that edits them. */
function GroupRow({ group, onSaved }: { group: Group; onSaved(): void }) {
  const { api, t, notify, fail } = useApp();
  const id = useId();
  const [editing, setEditing] = useState(false);
  const [maxMiB, setMaxMiB] = useState(String(group.max_file_size / MIB));
  const [quotaGiB, setQuotaGiB] = useState(String(group.quota_bytes / GIB));
  const [keepMetadata, setKeepMetadata] = useState(group.keep_metadata);
  const save = async (event: Event) => {
    event.preventDefault();
    try {
      await api.adminUpdateGroup(group.id, { max_file_size: Math.round(Number(maxMiB) * MIB), quota_bytes: Math.round(Number(quotaGiB) * GIB), keep_metadata: keepMetadata });
      notify(t('groupUpdated', { name: group.name }), 'success');
      setEditing(false);
      onSaved();
    } catch (error) {
      fail(error);
    }
  };
  return (
    <tr data-group={group.name}>
      <th scope="row">{group.name}</th>
      {editing ? (
        <td colSpan={4}>
          <form class="inline-form" onSubmit={save} aria-label={t('editGroup', { name: group.name })}>
            <label for={`${id}-max`}>{t('maxFileSize')}</label>
            <input id={`${id}-max`} class="input tiny" type="number" min="0.001" step="any" value={maxMiB} onInput={(event) => setMaxMiB(event.currentTarget.value)} />
            <span class="muted">{t('unitMiB')}</span>
            <label for={`${id}-quota`}>{t('quota')}</label>
            <input id={`${id}-quota`} class="input tiny" type="number" min="0" step="any" value={quotaGiB} onInput={(event) => setQuotaGiB(event.currentTarget.value)} />
            <span class="muted">{t('unitGiB')}</span>
            <label class="checkbox">
              <input type="checkbox" checked={keepMetadata} onChange={(event) => setKeepMetadata(event.currentTarget.checked)} />
              <span>{t('keepMetadata')}</span>
            </label>
            <button type="submit" class="button primary small">
              {t('save')}
            </button>
            <button type="button" class="button ghost small" onClick={() => setEditing(false)}>
              {t('cancel')}
            </button>
          </form>
        </td>
      ) : (
        <>
          <td>{formatBytes(group.max_file_size)}</td>
          <td>{formatBytes(group.quota_bytes)}</td>
          <td>{group.keep_metadata ? t('yes') : t('no')}</td>
          <td>{group.user_count}</td>
        </>
      )}
      <td>
        {editing ? null : (
          <button type="button" class="button secondary small" aria-label={t('editGroup', { name: group.name })} onClick={() => setEditing(true)}>
            {t('edit')}
          </button>
        )}
      </td>
    </tr>
  );
}

/** The admin's groups tab: create a group, list the groups and edit their limits. */
export function GroupsPanel({ groups, onChanged }: { groups: Group[]; onChanged(): void }) {
  const { api, t, notify } = useApp();
  const id = useId();
  const [name, setName] = useState('');
  const [maxMiB, setMaxMiB] = useState('10');
  const [quotaGiB, setQuotaGiB] = useState('1');
  const [keepMetadata, setKeepMetadata] = useState(false);
  const creating = usePending();
  const create = creating.submit(async () => {
    const created = await api.adminCreateGroup({ name: name.trim(), max_file_size: Math.round(Number(maxMiB) * MIB), quota_bytes: Math.round(Number(quotaGiB) * GIB), keep_metadata: keepMetadata });
    notify(t('groupCreated', { name: created.name }), 'success');
    setName('');
    onChanged();
  });
  return (
    <>
      <form class="card-panel create-form wrap" onSubmit={create} aria-labelledby={`${id}-create`}>
        <h2 id={`${id}-create`} class="form-title">
          {t('createGroup')}
        </h2>
        <div class="field">
          <label for={`${id}-name`}>{t('groupName')}</label>
          <input id={`${id}-name`} class="input" value={name} onInput={(event) => setName(event.currentTarget.value)} />
        </div>
        <div class="field">
          <label for={`${id}-max`}>
            {t('maxFileSize')} ({t('unitMiB')})
          </label>
          <input id={`${id}-max`} class="input" type="number" min="0.001" step="any" value={maxMiB} onInput={(event) => setMaxMiB(event.currentTarget.value)} />
        </div>
        <div class="field">
          <label for={`${id}-quota`}>
            {t('quota')} ({t('unitGiB')})
          </label>
          <input id={`${id}-quota`} class="input" type="number" min="0" step="any" value={quotaGiB} onInput={(event) => setQuotaGiB(event.currentTarget.value)} />
        </div>
        <label class="checkbox field-check" title={t('keepMetadataHint')}>
          <input type="checkbox" checked={keepMetadata} onChange={(event) => setKeepMetadata(event.currentTarget.checked)} aria-describedby={`${id}-keep-hint`} />
          <span>{t('keepMetadata')}</span>
        </label>
        <p id={`${id}-keep-hint`} class="hint form-note">
          {t('keepMetadataHint')}
        </p>
        <button type="submit" class="button primary" disabled={!name.trim() || creating.pending}>
          {t('createGroup')}
        </button>
      </form>
      <div class="table-wrap card-panel flush">
        <table class="table">
          <caption class="visually-hidden">{t('groupsList')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('groupName')}</th>
              <th scope="col">{t('maxFileSize')}</th>
              <th scope="col">{t('quota')}</th>
              <th scope="col">{t('keepMetadata')}</th>
              <th scope="col">{t('userCount')}</th>
              <th scope="col">{t('actions')}</th>
            </tr>
          </thead>
          <tbody>
            {groups.map((group) => (
              <GroupRow key={`${group.id}:${group.max_file_size}:${group.quota_bytes}:${group.keep_metadata}`} group={group} onSaved={onChanged} />
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
