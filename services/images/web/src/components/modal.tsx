import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef } from 'preact/hooks';
import { useApp } from '../app-context';

/**
 * A native modal <dialog>: the browser keeps focus inside it, Esc closes it, and focus returns to
 * what opened it.
 */
export function Modal({ title, onClose, children, wide = false, footer }: { title: string; onClose(): void; children: ComponentChildren; wide?: boolean; footer?: ComponentChildren }) {
  const { t } = useApp();
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    const opener = document.activeElement as HTMLElement | null;
    dialog?.showModal();
    return () => {
      if (dialog?.open) dialog.close();
      opener?.focus?.();
    };
  }, []);
  return (
    <dialog
      ref={ref}
      class={wide ? 'modal wide' : 'modal'}
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
      onClick={(event) => {
        // A click on the backdrop (the dialog itself, outside its content) closes it.
        if (event.target === ref.current) onClose();
      }}
    >
      <div class="modal-content">
        <header class="modal-header">
          <h2 id={titleId}>{title}</h2>
          <button type="button" class="icon-button close" aria-label={t('close')} onClick={onClose}>
            <span aria-hidden="true">×</span>
          </button>
        </header>
        <div class="modal-body">{children}</div>
        {footer ? <footer class="modal-footer">{footer}</footer> : null}
      </div>
    </dialog>
  );
}
