import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { ApiClient, SignedIn } from './api';
import type { Lang, Translate } from './i18n';
import type { SessionStore } from './session';
import type { UploadQueue } from './upload-queue';

export type NoticeKind = 'success' | 'error' | 'info';

/** A button in a notice (Undo): clicking it closes the notice and runs it. */
export interface NoticeAction {
  label: string;
  run(): void;
}

/** What every page gets: the API, the session, the words of the chosen language, notices and confirmations. */
export interface AppContextValue {
  api: ApiClient;
  sessions: SessionStore;
  session: SignedIn | null;
  lang: Lang;
  setLang(lang: Lang): void;
  t: Translate;
  /** A message of the service, in the chosen language. */
  said(message: string): string;
  /** A notice; with an action it stays 10 s (a button such as Undo). */
  notify(message: string, kind?: NoticeKind, action?: NoticeAction): void;
  /** Shows an error: the service's refusal in the chosen language. */
  fail(error: unknown): void;
  confirm(message: string, options?: { confirmLabel?: string; danger?: boolean }): Promise<boolean>;
  /** The upload queue: above the pages, so uploads go on while the user looks elsewhere. */
  uploads: UploadQueue;
}

export const AppContext = createContext<AppContextValue | null>(null);

export function useApp(): AppContextValue {
  const value = useContext(AppContext);
  if (!value) throw new Error('useApp outside the app');
  return value;
}
