import { useCallback, useRef, useState } from 'preact/hooks';

/**
 * A guard against double submits: `run(action)` does nothing while an earlier run is pending (a ref
 * is checked, so a second click before the re-render is refused too), and `pending` disables the
 * control meanwhile.
 */
export function usePending(): { pending: boolean; run(action: () => Promise<void>): Promise<void> } {
  const running = useRef(false);
  const [pending, setPending] = useState(false);
  const run = useCallback(async (action: () => Promise<void>) => {
    if (running.current) return;
    running.current = true;
    setPending(true);
    try {
      await action();
    } finally {
      running.current = false;
      setPending(false);
    }
  }, []);
  return { pending, run };
}
