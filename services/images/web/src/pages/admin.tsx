import { useCallback, useEffect, useId, useState } from 'preact/hooks';
import type { AdminUser, Group } from '../api';
import { useApp } from '../app-context';
import { EmptyState } from '../components/empty-state';
import { UsageBar } from '../components/usage-bar';
import { formatBytes } from '../format';

const MIB = 1024 * 1024;
const GIB = 1024 * MIB;
const USERS_PER_PAGE = 20;

function UsersPanel({ groups }: { groups: Group[] }) {
  const { api, session, t, notify, fail } = useApp();
  const id = useId();
  const [keyword, setKeyword] = useState('');
  const [query, setQuery] = useState('');
  const [page, setPage] = useState(1);
  const [users, setUsers] = useState<AdminUser[] | null>(null);
  const [total, setTotal] = useState(0);
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [groupId, setGroupId] = useState<number | undefined>(undefined);
  const [isAdmin, setIsAdmin] = useState(false);

  useEffect(() => {
    const timer = window.setTimeout(() => {
      setQuery(keyword.trim());
      setPage(1);
    }, 250);
    return () => window.clearTimeout(timer);
  }, [keyword]);

  const load = useCallback(
    () =>
      api.adminUsers({ page, limit: USERS_PER_PAGE, keyword: query || undefined }).then((answer) => {
        setUsers(answer.list);
        setTotal(answer.total);
      }, fail),
    [api, page, query, fail],
  );
  useEffect(() => {
    void load();
  }, [load]);

  const create = async (event: Event) => {
    event.preventDefault();
    try {
      const created = await api.adminCreateUser({ username: username.trim(), password, group_id: groupId, is_admin: isAdmin });
      notify(t('userCreated', { name: created.username }), 'success');
      setUsername('');
      setPassword('');
      setIsAdmin(false);
      void load();
    } catch (error) {
      fail(error);
    }
  };

  const change = async (user: AdminUser, changes: { group_id?: number; is_admin?: boolean; disabled?: boolean }) => {
    try {
      const updated = await api.adminUpdateUser(user.id, changes);
      setUsers((list) => list?.map((item) => (item.id === updated.id ? updated : item)) ?? null);
      notify(t('userUpdated', { name: updated.username }), 'success');
    } catch (error) {
      fail(error);
    }
  };

  const pages = Math.max(1, Math.ceil(total / USERS_PER_PAGE));
  return (
    <>
      <form class="card-panel create-form wrap" onSubmit={create} aria-labelledby={`${id}-create`}>
        <h2 id={`${id}-create`} class="form-title">
          {t('createUser')}
        </h2>
        <div class="field">
          <label for={`${id}-username`}>{t('username')}</label>
          <input id={`${id}-username`} class="input" autoComplete="off" value={username} onInput={(event) => setUsername(event.currentTarget.value)} />
        </div>
        <div class="field">
          <label for={`${id}-password`}>{t('password')}</label>
          <input id={`${id}-password`} class="input" type="password" autoComplete="new-password" value={password} onInput={(event) => setPassword(event.currentTarget.value)} />
        </div>
        <div class="field">
          <label for={`${id}-group`}>{t('group')}</label>
          <select id={`${id}-group`} class="input" value={groupId ?? ''} onChange={(event) => setGroupId(Number(event.currentTarget.value) || undefined)}>
            <option value="">default</option>
            {groups
              .filter((group) => group.name !== 'default')
              .map((group) => (
                <option key={group.id} value={group.id}>
                  {group.name}
                </option>
              ))}
          </select>
        </div>
        <label class="checkbox field-check">
          <input type="checkbox" checked={isAdmin} onChange={(event) => setIsAdmin(event.currentTarget.checked)} />
          <span>{t('isAdmin')}</span>
        </label>
        <button type="submit" class="button primary" disabled={!username.trim() || !password}>
          {t('createUser')}
        </button>
      </form>

      <div class="toolbar" role="search">
        <div class="field grow">
          <label class="visually-hidden" for={`${id}-search`}>
            {t('searchUsers')}
          </label>
          <input id={`${id}-search`} class="input search" type="search" placeholder={`${t('searchUsers')}…`} value={keyword} onInput={(event) => setKeyword(event.currentTarget.value)} />
        </div>
      </div>

      {users === null ? (
        <p class="muted" role="status">
          {t('loading')}
        </p>
      ) : users.length === 0 ? (
        <EmptyState title={t('noUsers')} icon="user" />
      ) : (
        <div class="table-wrap card-panel flush">
          <table class="table">
            <caption class="visually-hidden">{t('usersList')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('username')}</th>
                <th scope="col">{t('group')}</th>
                <th scope="col">{t('usage')}</th>
                <th scope="col">{t('status')}</th>
                <th scope="col">{t('createdAt')}</th>
                <th scope="col">{t('actions')}</th>
              </tr>
            </thead>
            <tbody>
              {users.map((user) => {
                const self = user.id === session?.user.id;
                return (
                  <tr key={user.id} data-user={user.username}>
                    <th scope="row">
                      <span class="user-cell">
                        <span class="avatar small" aria-hidden="true">
                          {user.username.slice(0, 1).toUpperCase()}
                        </span>
                        {user.username}
                        {user.is_admin ? <span class="badge accent">{t('isAdmin')}</span> : null}
                      </span>
                    </th>
                    <td>
                      <select
                        class="input small"
                        aria-label={t('groupOf', { name: user.username })}
                        value={groups.find((group) => group.name === user.group)?.id ?? ''}
                        onChange={(event) => change(user, { group_id: Number(event.currentTarget.value) })}
                      >
                        {groups.map((group) => (
                          <option key={group.id} value={group.id}>
                            {group.name}
                          </option>
                        ))}
                      </select>
                    </td>
                    <td class="usage-cell">
                      <UsageBar used={user.used_bytes} quota={user.quota_bytes} compact label={`${t('usage')} ${user.username}`} />
                    </td>
                    <td>{user.disabled ? <span class="status-badge error">{t('disabled')}</span> : <span class="status-badge success">{t('active')}</span>}</td>
                    <td class="nowrap small-text">{user.create_time}</td>
                    <td class="nowrap">
                      <button
                        type="button"
                        class="button ghost small"
                        disabled={self}
                        aria-label={`${user.is_admin ? t('removeAdmin') : t('makeAdmin')} ${user.username}`}
                        onClick={() => change(user, { is_admin: !user.is_admin })}
                      >
                        {user.is_admin ? t('removeAdmin') : t('makeAdmin')}
                      </button>
                      <button
                        type="button"
                        class={user.disabled ? 'button secondary small' : 'button danger-ghost small'}
                        disabled={self}
                        aria-label={`${user.disabled ? t('enable') : t('disable')} ${user.username}`}
                        onClick={() => change(user, { disabled: !user.disabled })}
                      >
                        {user.disabled ? t('enable') : t('disable')}
                      </button>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      {pages > 1 ? (
        <nav class="pager" aria-label={t('usersList')}>
          <button type="button" class="button secondary small" disabled={page <= 1} onClick={() => setPage(page - 1)}>
            {t('previousPage')}
          </button>
          <span class="muted">{t('pageOf', { page, pages })}</span>
          <button type="button" class="button secondary small" disabled={page >= pages} onClick={() => setPage(page + 1)}>
            {t('nextPage')}
          </button>
        </nav>
      ) : null}
    </>
  );
}

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

function GroupsPanel({ groups, onChanged }: { groups: Group[]; onChanged(): void }) {
  const { api, t, notify, fail } = useApp();
  const id = useId();
  const [name, setName] = useState('');
  const [maxMiB, setMaxMiB] = useState('10');
  const [quotaGiB, setQuotaGiB] = useState('1');
  const [keepMetadata, setKeepMetadata] = useState(false);
  const create = async (event: Event) => {
    event.preventDefault();
    try {
      const created = await api.adminCreateGroup({ name: name.trim(), max_file_size: Math.round(Number(maxMiB) * MIB), quota_bytes: Math.round(Number(quotaGiB) * GIB), keep_metadata: keepMetadata });
      notify(t('groupCreated', { name: created.name }), 'success');
      setName('');
      onChanged();
    } catch (error) {
      fail(error);
    }
  };
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
        <button type="submit" class="button primary" disabled={!name.trim()}>
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

export function AdminPage() {
  const { api, t, fail } = useApp();
  const id = useId();
  const [tab, setTab] = useState<'users' | 'groups'>('users');
  const [groups, setGroups] = useState<Group[]>([]);
  const loadGroups = useCallback(() => api.adminGroups().then(setGroups, fail), [api, fail]);
  useEffect(() => {
    void loadGroups();
  }, [loadGroups]);

  const tabs: Array<{ key: 'users' | 'groups'; label: string }> = [
    { key: 'users', label: t('usersTab') },
    { key: 'groups', label: t('groupsTab') },
  ];
  // Arrow keys move between tabs, as the ARIA tabs pattern expects.
  const onTabKey = (event: KeyboardEvent) => {
    if (event.key !== 'ArrowRight' && event.key !== 'ArrowLeft') return;
    const next = tab === 'users' ? 'groups' : 'users';
    setTab(next);
    document.getElementById(`${id}-tab-${next}`)?.focus();
  };

  return (
    <section class="page" aria-labelledby={`${id}-title`}>
      <div class="page-head">
        <h1 id={`${id}-title`} class="page-title">
          {t('adminTitle')}
        </h1>
      </div>
      <div class="tabs" role="tablist" aria-label={t('adminTitle')}>
        {tabs.map((item) => (
          <button
            key={item.key}
            id={`${id}-tab-${item.key}`}
            type="button"
            role="tab"
            class="tab"
            aria-selected={tab === item.key}
            aria-controls={`${id}-panel`}
            tabIndex={tab === item.key ? 0 : -1}
            onClick={() => setTab(item.key)}
            onKeyDown={onTabKey}
          >
            {item.label}
          </button>
        ))}
      </div>
      <div id={`${id}-panel`} role="tabpanel" aria-labelledby={`${id}-tab-${tab}`} class="tab-panel">
        {tab === 'users' ? <UsersPanel groups={groups} /> : <GroupsPanel groups={groups} onChanged={loadGroups} />}
      </div>
    </section>
  );
}
