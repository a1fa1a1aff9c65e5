import { useCallback, useEffect, useState, type Inputs } from 'preact/hooks';
import { useApp } from './app-context';

/**
 * What a page shows from the service: `initial` (else null) until it comes, fetched when `deps` change and
 * again on `reload()`; a failure is shown (the app's `fail`) and the value kept.
 */
export function useLoaded<T>(fetch: () => Promise<T>, deps: Inputs): [T | null, () => Promise<void>];
export function useLoaded<T>(fetch: () => Promise<T>, deps: Inputs, initial: T): [T, () => Promise<void>];
export function useLoaded<T>(fetch: () => Promise<T>, deps: Inputs, initial: T | null = null): [T | null, () => Promise<void>] {
  const { fail } = useApp();
  const [value, setValue] = useState<T | null>(initial);
  const reload = useCallback(() => fetch().then(setValue, fail), [...deps, fail]);
  useEffect(() => {
    void reload();
  }, [reload]);
  return [value, reload];
}
