import { useCallback, useEffect, useId, useState } from 'preact/hooks';
import type { Group } from '../api';
import { useApp } from '../app-context';
import { setUrlQuery, useUrlQuery } from '../router';
import { GroupsPanel } from './admin-panels/groups-panel';
import { UsersPanel } from './admin-panels/users-panel';

export function AdminPage() {
  const { api, t, fail } = useApp();
  const id = useId();
  // The tab is in the URL (?tab=groups), so a reload or a shared link opens it.
  const tab: 'users' | 'groups' = useUrlQuery().get('tab') === 'groups' ? 'groups' : 'users';
  const setTab = (next: 'users' | 'groups') => setUrlQuery({ tab: next === 'groups' ? next : null });
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
