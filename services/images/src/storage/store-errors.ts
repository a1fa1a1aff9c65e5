import type { ObjectStore } from './object-store';

export type StoreOperation = 'prepare' | 'putFile' | 'putBytes' | 'move' | 'exists' | 'remove' | 'open' | 'list' | 'answers';

/**
 * The store with every failed operation counted (`count(backend, operation)`), then thrown as before.
 * What a store answers as "not there" (open → null, exists → false) is no failure: only what it throws.
 */
export function countingErrors(store: ObjectStore, count: (backend: string, operation: StoreOperation) => void): ObjectStore {
  const counted =
    <A extends unknown[], R>(operation: StoreOperation, run: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await run(...args);
      } catch (error) {
        count(store.backend, operation);
        throw error;
      }
    };
  return {
    backend: store.backend,
    prepare: counted('prepare', () => store.prepare()),
    putFile: counted('putFile', (area, key, file, type) => store.putFile(area, key, file, type)),
    putBytes: counted('putBytes', (area, key, bytes, type) => store.putBytes(area, key, bytes, type)),
    move: counted('move', (from, to, key) => store.move(from, to, key)),
    exists: counted('exists', (area, key) => store.exists(area, key)),
    remove: counted('remove', (area, key) => store.remove(area, key)),
    open: counted('open', (area, key) => store.open(area, key)),
    async *list(area) {
      try {
        yield* store.list(area);
      } catch (error) {
        count(store.backend, 'list');
        throw error;
      }
    },
    answers: counted('answers', (timeoutMs: number) => store.answers(timeoutMs)),
    close: () => store.close(),
  };
}
