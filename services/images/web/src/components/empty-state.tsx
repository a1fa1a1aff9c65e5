import type { ComponentChildren } from 'preact';

export function EmptyState({ title, hint, icon = 'image', children }: { title: string; hint?: string; icon?: 'image' | 'bin' | 'folder' | 'user'; children?: ComponentChildren }) {
  return (
    <div class="empty-state" data-empty>
      <span class={`empty-icon icon-${icon}`} aria-hidden="true" />
      <p class="empty-title">{title}</p>
      {hint ? <p class="empty-hint">{hint}</p> : null}
      {children}
    </div>
  );
}
