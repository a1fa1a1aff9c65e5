/**
 * Whether the service can be reached: lost when the browser says it is offline or a request fails at
 * the network level (no answer at all, which is not the service refusing or failing), found again by
 * the browser's `online` event or any answer. When it comes back after a page's data failed to load,
 * `reloads` counts up and the app loads the page afresh.
 */
export function createConnection() {
  const listeners = new Set<() => void>();
  let state = { online: typeof navigator === 'undefined' ? true : navigator.onLine, reloads: 0 };
  let failedLoad = false;
  const set = (next: Partial<typeof state>) => {
    const merged = { ...state, ...next };
    if (merged.online === state.online && merged.reloads === state.reloads) return;
    state = merged;
    listeners.forEach((listener) => listener());
  };

  if (typeof window !== 'undefined') {
    window.addEventListener('offline', () => set({ online: false }));
    window.addEventListener('online', () => {
      const reload = failedLoad;
      failedLoad = false;
      set({ online: true, reloads: state.reloads + (reload ? 1 : 0) });
    });
  }

  return {
    get: () => state,
    /** A request got no answer; `load` when it was a page's data (a GET), which is loaded again on reconnection. */
    lost(load: boolean): void {
      if (load) failedLoad = true;
      set({ online: false });
    },
    /** A request got an answer. */
    reached(): void {
      if (navigator.onLine) set({ online: true });
    },
    subscribe(listener: () => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

export type Connection = ReturnType<typeof createConnection>;
