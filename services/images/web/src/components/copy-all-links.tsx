import { useId, useState } from 'preact/hooks';
import type { ImageLinks } from '../api';
import { useApp } from '../app-context';
import type { MessageKey } from '../i18n';
import { copyText } from './copy-button';

const KINDS: Array<{ key: 'url' | 'markdown' | 'html' | 'bbcode'; label: MessageKey }> = [
  { key: 'url', label: 'linkUrl' },
  { key: 'markdown', label: 'linkMarkdown' },
  { key: 'html', label: 'linkHtml' },
  { key: 'bbcode', label: 'linkBbcode' },
];

/** "Copy all links" of several images (an upload batch, a gallery selection): one form, one line per image, in the order shown. */
export function CopyAllLinks({ links }: { links: ImageLinks[] }) {
  const { t, notify } = useApp();
  const id = useId();
  const [kind, setKind] = useState<(typeof KINDS)[number]['key']>('url');
  const copy = async () => {
    if (await copyText(links.map((link) => link[kind]).join('\n'))) notify(t('copiedAllLinks', { n: links.length }), 'success');
    else notify(t('copyFailed'), 'error');
  };
  return (
    <span class="copy-all" data-copy-all>
      <label class="visually-hidden" for={`${id}-kind`}>
        {t('linkFormat')}
      </label>
      <select id={`${id}-kind`} class="input small" value={kind} onChange={(event) => setKind(event.currentTarget.value as typeof kind)}>
        {KINDS.map(({ key, label }) => (
          <option key={key} value={key}>
            {t(label)}
          </option>
        ))}
      </select>
      <button type="button" class="button secondary small" disabled={links.length === 0} onClick={copy}>
        {t('copyAllLinks', { n: links.length })}
      </button>
    </span>
  );
}
