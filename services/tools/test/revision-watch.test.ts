import { createRevisionWatch } from '../src/catalog/revision-watch';

// The catalog revision as one process knows it: read at most once per interval, and read again at once
// after this process wrote, even when a read that started before the write is still on its way.

function controlledReads() {
  const pending: ((revision: number) => void)[] = [];
  let reads = 0;
  return {
    readRevision: () =>
      new Promise<number>((resolve) => {
        reads += 1;
        pending.push(resolve);
      }),
    answer: (revision: number) => pending.shift()!(revision),
    count: () => reads,
  };
}

it('when asked within the interval, then the database is read once, and again after the interval', async () => {
  let now = 0;
  const db = controlledReads();
  const watch = createRevisionWatch({ readRevision: db.readRevision, checkMs: 1000, now: () => now });
  const first = watch.current();
  const second = watch.current();
  db.answer(7);
  expect(await Promise.all([first, second])).toEqual([7, 7]);
  now = 999;
  expect(await watch.current()).toBe(7);
  expect(db.count()).toBe(1);
  now = 1000;
  const later = watch.current();
  db.answer(8);
  expect(await later).toBe(8);
  expect(db.count()).toBe(2);
});

it('when this process wrote while a read was on its way, then that read is not trusted and the next call reads again', async () => {
  const db = controlledReads();
  const watch = createRevisionWatch({ readRevision: db.readRevision, checkMs: 1000, now: () => 0 });
  const stale = watch.current();
  watch.changed();
  db.answer(7); // the read that started before the write
  expect(await stale).toBe(7);
  const fresh = watch.current();
  expect(db.count()).toBe(2);
  db.answer(8);
  expect(await fresh).toBe(8);
  expect(await watch.current()).toBe(8);
  expect(db.count()).toBe(2);
});
