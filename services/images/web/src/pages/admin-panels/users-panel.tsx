import { useCallback, useEffect, useId, useState } from 'preact/hooks';
import type { AdminUser, Group } from '../../api';
import { useApp } from '../../app-context';
import { usePending } from '../../use-pending';
import { EmptyState } from '../../components/empty-state';
import { LocalTime } from '../../components/local-time';
import { UsageBar } from '../../components/usage-bar';
import { Pager } from '../../components/pager';

const USERS_PER_PAGE = 20;

/**
 * The admin's users tab: create a user, search the users page by page, change a user's group, admin
 * role, state or upload ban. `onChanged` follows each change of group membership (the groups' counts).
 */
export function UsersPanel({ groups, onChanged }: { groups: Group[]; onChanged(): void }) {
  const { api, session, t, notify, fail, confirm } = useApp();
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

  const creating = usePending();
  const create = creating.submit(async () => {
    const created = await api.adminCreateUser({ username: username.trim(), password, group_id: groupId, is_admin: isAdmin });
    notify(t('userCreated', { name: created.username }), 'success');
    setUsername('');
    setPassword('');
    setIsAdmin(false);
    void load();
    onChanged();
  });

  const change = async (user: AdminUser, changes: { group_id?: number; is_admin?: boolean; disabled?: boolean }) => {
    try {
      const updated = await api.adminUpdateUser(user.id, changes);
      setUsers((list) => list?.map((item) => (item.id === updated.id ? updated : item)) ?? null);
      notify(t('userUpdated', { name: updated.username }), 'success');
      if (changes.group_id !== undefined) onChanged();
    } catch (error) {
      fail(error);
    }
  };

  const setBan = async (user: AdminUser, banned: boolean) => {
    if (banned && !(await confirm(t('confirmBanUploads', { name: user.username }), { confirmLabel: t('banUploads'), danger: true }))) return;
    try {
      const updated = await api.adminBanUploads(user.id, banned);
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
        <button type="submit" class="button primary" disabled={!username.trim() || !password || creating.pending}>
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
                    <td>
                      {user.disabled ? <span class="status-badge error">{t('disabled')}</span> : <span class="status-badge success">{t('active')}</span>}
                      {user.uploads_banned ? <span class="status-badge error">{t('uploadsBanned')}</span> : null}
                    </td>
                    <td class="nowrap small-text">
                      <LocalTime value={user.create_time} />
                    </td>
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
                        onClick={async () => {
                          // Disabling stops every credential of the user at once: asked first. Enabling is harmless.
                          if (!user.disabled && !(await confirm(t('confirmDisableUser', { name: user.username }), { confirmLabel: t('disable'), danger: true }))) return;
                          void change(user, { disabled: !user.disabled });
                        }}
                      >
                        {user.disabled ? t('enable') : t('disable')}
                      </button>
                      <button
                        type="button"
                        class={user.uploads_banned ? 'button secondary small' : 'button danger-ghost small'}
                        aria-label={`${user.uploads_banned ? t('allowUploads') : t('banUploads')} ${user.username}`}
                        onClick={() => setBan(user, !user.uploads_banned)}
                      >
                        {user.uploads_banned ? t('allowUploads') : t('banUploads')}
                      </button>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      <Pager page={page} pages={pages} label={t('usersList')} onPage={setPage} />
    </>
  );
}
