import type { Knex } from 'knex';
import * as initial from '../../migrations/20261122020000_initial';
import * as imageTransitions from '../../migrations/20261123010000_image_transitions';

interface Migration {
  up(db: Knex): Promise<void>;
  down(db: Knex): Promise<void>;
}

// Imported explicitly so the same list works under tsx, jest and the compiled dist/ build.
const migrations: ReadonlyArray<readonly [string, Migration]> = [
  ['20261122020000_initial', initial],
  ['20261123010000_image_transitions', imageTransitions],
];

export const migrationSource: Knex.MigrationSource<string> = {
  getMigrations: async () => migrations.map(([name]) => name),
  getMigrationName: (name) => name,
  getMigration: async (name) => {
    const found = migrations.find(([candidate]) => candidate === name);
    if (!found) throw new Error(`unknown migration ${name}`);
    return found[1];
  },
};
