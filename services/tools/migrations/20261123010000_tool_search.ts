import type { Knex } from 'knex';
import { dropIndexConcurrently, limitLockWaits, lockSafe } from '@platform/kit';

// Steps of their own: the old index is dropped concurrently.
export const config = { transaction: false };

/**
 * Search moves to its own table, one row per tool, written by the service from what the tool row holds
 * (pinyin needs pinyin-pro, so it cannot be computed in SQL). It lives beside `tools` rather than in it so
 * that the large search columns stay out of the rows every visit rewrites (visits remain HOT updates).
 *
 * Nothing is backfilled here: a migration must mean the same thing forever, and the document depends on
 * code that will change (pinyin dictionary, word cutting). Each row carries the version of the code that
 * wrote it; at start the service computes every missing or older row (src/catalog/search-index.ts), and
 * imports and category edits rewrite the rows they touch.
 */
export async function up(db: Knex): Promise<void> {
  await lockSafe(db, (trx) => createToolSearch(trx));
  await dropIndexConcurrently(db, 'tools_search_trgm_idx');
  await lockSafe(db, (trx) =>
    trx.schema.alterTable('tools', (t) => {
      t.dropColumn('name_pinyin');
      t.dropColumn('name_initials');
      t.dropColumn('search_document');
    }),
  );
}

async function createToolSearch(db: Knex): Promise<void> {
  if (await db.schema.hasTable('tool_search')) return;
  await db.schema.createTable('tool_search', (t) => {
    t.integer('tool_id').primary().references('id').inTable('tools').onDelete('CASCADE');
    t.smallint('version').notNullable();
    t.specificType('keys', 'text[]').notNullable();
    t.text('raw').notNullable();
    t.text('pinyin').notNullable();
    t.text('forms').notNullable();
    t.text('initials_forms').notNullable();
    t.text('name_forms').notNullable();
  });
  // fastupdate off: no pending list. With one, every search also scans the entries not yet merged, and after
  // an import the planner prices the index so high that it reads the whole table instead (measured at 10,000
  // tools). Imports write the index directly instead; the directory is read far more than written.
  await db.raw('CREATE INDEX tool_search_keys_idx ON tool_search USING gin (keys) WITH (fastupdate = off)');
}

export async function down(db: Knex): Promise<void> {
  // Down is for development: one transaction, giving up (to be run again) on a busy lock.
  await db.transaction(async (trx) => {
    await limitLockWaits(trx);
    await downInOneTransaction(trx);
  });
}

async function downInOneTransaction(db: Knex): Promise<void> {
  await db.schema.alterTable('tools', (t) => {
    t.string('name_pinyin', 1000).nullable();
    t.string('name_initials', 400).nullable();
    t.text('search_document').notNullable().defaultTo('');
  });
  // The old code's filter column, without the name pinyin it can only get from a re-import.
  await db.raw(
    `UPDATE tools SET search_document = lower(concat_ws(E'\\n', name, slug, array_to_string(tags, ' '), description))`,
  );
  await db.raw('CREATE INDEX tools_search_trgm_idx ON tools USING gin (search_document gin_trgm_ops)');
  await db.schema.dropTable('tool_search');
}
