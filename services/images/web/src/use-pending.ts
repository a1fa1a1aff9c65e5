import { useCallback, useRef, useState } from 'preact/hooks';
import { useApp } from './app-context';

/**
 * A user's action on the service (a form's submit, a button), guarded against double submits: `run(action)`
 * does nothing while an earlier run is pending (a ref is checked, so a second click before the re-render is
 * refused too), `pending` disables the control meanwhile, and a failure is shown (the app's `fail`).
 * `submit(action)` is a form's onSubmit: the page stays, and the action runs as with `run`.
 */
export function usePending(): { pending: boolean; run(action: () => Promise<void>): Promise<void>; submit(action: () => Promise<void>): (event: Event) => void } {
  const { fail } = useApp();
  const running = useRef(false);
  const [pending, setPending] = useState(false);
  const run = useCallback(
    async (action: () => Promise<void>) => {
      if (running.current) return;
      running.current = true;
      setPending(true);
      try {
        await action();
      } catch (error) {
        fail(error);
      } finally {
        running.current = false;
        setPending(false);
      }
    },
    [fail],
  );
  const submit = (action: () => Promise<void>) => (event: Event) => {
    event.preventDefault();
    void run(action);
  };
  return { pending, run, submit };
}
