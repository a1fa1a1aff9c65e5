import type { SignedIn } from './api';

const STORAGE_KEY = 'imagehost.session';

/**
 * The signed-in session, kept in localStorage so that it survives a reload and is shared by tabs.
 * It is only ever sent in the X-API-Token header; sign-out removes it here and on the service.
 */
export function createSessionStore(storage: Storage | null) {
  const listeners = new Set<() => void>();
  const read = (): SignedIn | null => {
    try {
      const raw = storage?.getItem(STORAGE_KEY);
      if (!raw) return null;
      const parsed = JSON.parse(raw) as SignedIn;
      return typeof parsed?.token === 'string' && parsed.user ? parsed : null;
    } catch {
      return null;
    }
  };
  let current = read();
  const notify = () => listeners.forEach((listener) => listener());

  // Another tab signed in or out.
  if (typeof window !== 'undefined') {
    window.addEventListener('storage', (event) => {
      if (event.key !== STORAGE_KEY) return;
      current = read();
      notify();
    });
  }

  return {
    get: () => current,
    set(session: SignedIn): void {
      current = session;
      try {
        storage?.setItem(STORAGE_KEY, JSON.stringify(session));
      } catch {
        // storage full or refused: the session lasts for this tab
      }
      notify();
    },
    clear(): void {
      current = null;
      try {
        storage?.removeItem(STORAGE_KEY);
      } catch {
        // nothing kept
      }
      notify();
    },
    subscribe(listener: () => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

export type SessionStore = ReturnType<typeof createSessionStore>;
