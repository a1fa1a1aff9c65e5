import type { Knex } from 'knex';

/**
 * What `import-from` brought in from another image host: one row per source row (a user, an album, an
 * image, a token), keyed by the install it came from and its id there. A second run skips what is
 * here, and the redirect map is read from the image rows' old paths. A new table: nothing waits on it.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('import_records', (t) => {
    // `easyimage:/srv/easyimage` or `lsky:/backup/lsky.sqlite`: the kind of host and where it was read.
    t.string('source', 600).notNullable();
    t.string('kind', 16).notNullable();
    t.string('source_id', 600).notNullable();
    t.bigInteger('target_id').notNullable();
    // The image's path on the old host (for the redirect map); null for the other kinds.
    t.text('old_path').nullable();
    t.timestamp('imported_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.primary(['source', 'kind', 'source_id']);
  });
  await db.raw("ALTER TABLE import_records ADD CONSTRAINT import_records_kind_known CHECK (kind IN ('user', 'album', 'image', 'token', 'group'))");
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists('import_records');
}
