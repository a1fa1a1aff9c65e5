import { useId } from 'preact/hooks';
import type { ImageLinks } from '../api';
import { useApp } from '../app-context';
import type { MessageKey } from '../i18n';
import { CopyButton } from './copy-button';

const KINDS: Array<{ key: keyof ImageLinks; label: MessageKey }> = [
  { key: 'url', label: 'linkUrl' },
  { key: 'markdown', label: 'linkMarkdown' },
  { key: 'html', label: 'linkHtml' },
  { key: 'bbcode', label: 'linkBbcode' },
];

/** An image's ready-to-paste links, each in a read-only field with its copy button. */
export function LinkFields({ links, withThumbnail = false }: { links: ImageLinks; withThumbnail?: boolean }) {
  const { t } = useApp();
  const id = useId();
  const kinds = withThumbnail ? [...KINDS, { key: 'thumbnail' as const, label: 'linkThumbnail' as const }] : KINDS;
  return (
    <div class="link-fields">
      {kinds.map(({ key, label }) => (
        <div class="link-row" key={key} data-link={key}>
          <label for={`${id}-${key}`}>{t(label)}</label>
          <input id={`${id}-${key}`} class="input mono" type="text" readOnly value={links[key]} onFocus={(event) => event.currentTarget.select()} />
          <CopyButton text={links[key]} label={t('copyLink', { kind: t(label) })} />
        </div>
      ))}
    </div>
  );
}
