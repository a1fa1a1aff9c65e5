import { useId } from 'preact/hooks';
import type { Group } from '../api';
import { useApp } from '../app-context';
import { setUrlQuery, useUrlQuery } from '../router';
import { GroupsPanel } from './admin-panels/groups-panel';
import { ImagesPanel } from './admin-panels/images-panel';
import { SettingsPanel } from './admin-panels/settings-panel';
import { UsersPanel } from './admin-panels/users-panel';
import { useLoaded } from '../use-loaded';

type Tab = 'users' | 'groups' | 'images' | 'settings';
const TABS: Tab[] = ['users', 'groups', 'images', 'settings'];

export function AdminPage() {
  const { api, t } = useApp();
  const id = useId();
  // The tab is in the URL (?tab=groups), so a reload or a shared link opens it.
  const queried = useUrlQuery().get('tab');
  const tab: Tab = TABS.includes(queried as Tab) ? (queried as Tab) : 'users';
  const setTab = (next: Tab) => setUrlQuery({ tab: next === 'users' ? null : next });
  const [groups, loadGroups] = useLoaded(() => api.adminGroups(), [api], [] as Group[]);

  const labels: Record<Tab, string> = { users: t('usersTab'), groups: t('groupsTab'), images: t('imagesTab'), settings: t('settingsTab') };
  const tabs = TABS.map((key) => ({ key, label: labels[key] }));
  // Arrow keys move between tabs, as the ARIA tabs pattern expects.
  const onTabKey = (event: KeyboardEvent) => {
    if (event.key !== 'ArrowRight' && event.key !== 'ArrowLeft') return;
    const next = TABS[(TABS.indexOf(tab) + (event.key === 'ArrowRight' ? 1 : TABS.length - 1)) % TABS.length]!;
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
        {/* Every change that moves users between groups reloads the groups, so their user counts stay current. */}
        {tab === 'users' ? <UsersPanel groups={groups} onChanged={loadGroups} /> : null}
        {tab === 'groups' ? <GroupsPanel groups={groups} onChanged={loadGroups} /> : null}
        {tab === 'images' ? <ImagesPanel /> : null}
        {tab === 'settings' ? <SettingsPanel groups={groups} /> : null}
      </div>
    </section>
  );
}
