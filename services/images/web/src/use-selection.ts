import { useCallback, useState } from 'preact/hooks';

/** The ids ticked in a list (gallery, bin, the admin's images): toggle one, drop those gone, or set them all. */
export function useSelection() {
  const [selected, setSelected] = useState<Set<number>>(new Set());
  const toggle = useCallback(
    (id: number) =>
      setSelected((current) => {
        const next = new Set(current);
        if (next.has(id)) next.delete(id);
        else next.add(id);
        return next;
      }),
    [],
  );
  const drop = useCallback((ids: number[]) => setSelected((current) => new Set([...current].filter((id) => !ids.includes(id)))), []);
  return { selected, setSelected, toggle, drop };
}
