import { useId, useState } from 'preact/hooks';
import { useApp } from '../app-context';
import { CLIENTS, clientSettings, type ClientName, type ClientSettings } from '../client-configs';
import { CopyButton } from '../components/copy-button';

/** One client: a button that makes its named token, then its settings with a copy button each. */
function ClientCard({ client }: { client: ClientName }) {
  const { api, t, notify, fail } = useApp();
  const id = useId();
  const [made, setMade] = useState<ClientSettings | null>(null);
  const title = t(`client_${client}`);

  const create = async () => {
    try {
      const name = `${title.split(/[（(]/)[0]!.trim()} ${new Date().toISOString().slice(0, 16).replace('T', ' ')}`.slice(0, 64);
      const named = await api.createNamedToken(name);
      setMade(clientSettings(client, location.origin, named.token));
      notify(t('connectCreated', { client: title, name: named.name }), 'success');
    } catch (error) {
      fail(error);
    }
  };

  return (
    <section class="card-panel" aria-labelledby={`${id}-title`} data-client={client}>
      <h2 id={`${id}-title`}>{title}</h2>
      {made === null ? (
        <div class="button-row">
          <button type="button" class="button secondary" onClick={create}>
            {t('connectCreate')}
          </button>
        </div>
      ) : (
        <>
          {made.settings.length > 0 ? (
            <dl class="facts connect-facts">
              {made.settings.map((setting) => (
                <div key={setting.field}>
                  <dt>{setting.field}</dt>
                  <dd class="token-row">
                    <input class="input mono" readOnly value={setting.value} aria-label={setting.field} />
                    <CopyButton text={setting.value} label={`${t('copy')} ${setting.field}`} />
                  </dd>
                </div>
              ))}
            </dl>
          ) : null}
          <h3 class="subhead">{made.blockKind === 'json' ? t('connectWhole') : t('connectShell')}</h3>
          <pre class="mono connect-block" data-block={client}>
            {made.block}
          </pre>
          <CopyButton text={made.block} label={`${t('copy')} ${made.blockKind === 'json' ? t('connectWhole') : t('connectShell')}`} />
        </>
      )}
    </section>
  );
}

/** "Connect your client": settings for PicGo, PicList, uPic, Flameshot, Typora and Obsidian, each with a named token of its own. */
export function ConnectPage() {
  const { t } = useApp();
  const id = useId();
  const origin = location.origin;
  const other = [
    ['Lsky Pro 2.x / 1.x', `${origin}/compat/lsky`],
    ['Chevereto', `${origin}/compat/chevereto/api/1/upload`],
    ['EasyImage', `${origin}/compat/easyimage/api/index.php`],
  ] as const;
  return (
    <section class="page" aria-labelledby={`${id}-title`}>
      <div class="page-head">
        <h1 id={`${id}-title`} class="page-title">
          {t('connectTitle')}
        </h1>
      </div>
      <p class="muted">{t('connectLead')}</p>
      <div class="account-grid">
        {CLIENTS.map((client) => (
          <ClientCard key={client} client={client} />
        ))}
        <section class="card-panel" aria-labelledby={`${id}-other`}>
          <h2 id={`${id}-other`}>{t('connectOther')}</h2>
          <p class="muted">{t('connectOtherLead')}</p>
          <dl class="facts connect-facts">
            {other.map(([name, url]) => (
              <div key={name}>
                <dt>{name}</dt>
                <dd class="token-row">
                  <input class="input mono" readOnly value={url} aria-label={name} />
                  <CopyButton text={url} label={`${t('copy')} ${name}`} />
                </dd>
              </div>
            ))}
          </dl>
        </section>
      </div>
    </section>
  );
}
