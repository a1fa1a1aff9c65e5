import { useEffect, useRef, useState } from 'preact/hooks';
import { useApp } from '../app-context';

/** Writes text to the clipboard; where the Clipboard API is missing (plain http), copies from a hidden field. */
export async function copyText(text: string): Promise<boolean> {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // fall through to the old way
  }
  const field = document.createElement('textarea');
  field.value = text;
  field.setAttribute('readonly', '');
  field.className = 'offscreen';
  document.body.append(field);
  field.select();
  let copied = false;
  try {
    copied = document.execCommand('copy');
  } catch {
    copied = false;
  }
  field.remove();
  return copied;
}

export function CopyButton({ text, label, class: className }: { text: string; label: string; class?: string }) {
  const { t, notify } = useApp();
  const [copied, setCopied] = useState(false);
  const timer = useRef<number | undefined>(undefined);
  useEffect(() => () => window.clearTimeout(timer.current), []);
  const copy = async () => {
    if (await copyText(text)) {
      setCopied(true);
      window.clearTimeout(timer.current);
      timer.current = window.setTimeout(() => setCopied(false), 1600);
      notify(t('copied'), 'success');
    } else {
      notify(t('copyFailed'), 'error');
    }
  };
  return (
    <button type="button" class={`button ${className ?? 'secondary small'}`} aria-label={copied ? `${t('copied')} · ${label}` : label} onClick={copy}>
      {copied ? t('copied') : t('copy')}
    </button>
  );
}
