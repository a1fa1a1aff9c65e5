/**
 * The catalog revision as this process knows it (see the catalog_revision migration), read from the
 * database at most once per `checkMs`, so a change made on any replica or by the CLI shows within about
 * that long. A write made here calls `changed()`: the next read asks the database again, so the editor
 * who saved sees the change at once. A read that was already on its way when the write happened is not
 * trusted for the time after it.
 */
export function createRevisionWatch(options: { readRevision: () => Promise<number>; checkMs: number; now: () => number }) {
  let known: number | undefined;
  let checkedAt = Number.NEGATIVE_INFINITY;
  let checking: Promise<number> | undefined;
  let generation = 0;

  return {
    current(): Promise<number> {
      if (known !== undefined && options.now() - checkedAt < options.checkMs) return Promise.resolve(known);
      if (checking) return checking;
      const startedIn = generation;
      const startedAt = options.now();
      const read = options
        .readRevision()
        .then((revision) => {
          if (startedIn === generation) {
            known = revision;
            checkedAt = startedAt;
          }
          return revision;
        })
        .finally(() => {
          if (checking === read) checking = undefined;
        });
      checking = read;
      return read;
    },

    /** The catalog was written by this process: forget what was read. */
    changed(): void {
      generation += 1;
      checkedAt = Number.NEGATIVE_INFINITY;
      checking = undefined;
    },
  };
}

export type RevisionWatch = ReturnType<typeof createRevisionWatch>;
