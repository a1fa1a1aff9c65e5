import { useCallback, useEffect, useState } from 'preact/hooks';

/** Where the toggle's choice is kept (theme-boot.js reads the same key before the first paint). */
export const THEME_KEY = 'imagehost.theme';

export type Theme = 'light' | 'dark';

const systemQuery = (): MediaQueryList => window.matchMedia('(prefers-color-scheme: dark)');

function chosenTheme(storage: Storage | null): Theme | null {
  try {
    const saved = storage?.getItem(THEME_KEY);
    return saved === 'light' || saved === 'dark' ? saved : null;
  } catch {
    return null;
  }
}

/**
 * The theme shown: the one chosen with the toggle in this browser, else the system's (followed live
 * while nothing is chosen). `toggle` switches to the other one and keeps that choice.
 */
export function useTheme(storage: Storage | null): { theme: Theme; toggle(): void } {
  const [chosen, setChosen] = useState<Theme | null>(() => chosenTheme(storage));
  const [system, setSystem] = useState<Theme>(() => (systemQuery().matches ? 'dark' : 'light'));

  useEffect(() => {
    const query = systemQuery();
    const update = () => setSystem(query.matches ? 'dark' : 'light');
    query.addEventListener('change', update);
    // Another tab chose.
    const fromOtherTab = (event: StorageEvent) => {
      if (event.key === THEME_KEY) setChosen(chosenTheme(storage));
    };
    window.addEventListener('storage', fromOtherTab);
    return () => {
      query.removeEventListener('change', update);
      window.removeEventListener('storage', fromOtherTab);
    };
  }, [storage]);

  const theme = chosen ?? system;
  useEffect(() => {
    document.documentElement.setAttribute('data-theme', theme);
  }, [theme]);

  const toggle = useCallback(() => {
    const next: Theme = theme === 'dark' ? 'light' : 'dark';
    try {
      storage?.setItem(THEME_KEY, next);
    } catch {
      // the choice lasts for this page
    }
    setChosen(next);
  }, [storage, theme]);
  return { theme, toggle };
}
