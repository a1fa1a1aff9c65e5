import type { Knex } from 'knex';

/**
 * Imports started in the admin: the uploaded file (kept from the dry run until it is applied, so any replica
 * can apply it), the job's progress and its per-row report. A new table only: nothing existing is locked.
 */
export async function up(db: Knex): Promise<void> {
  await db.raw("SET LOCAL lock_timeout = '5s'");
  await db.schema.createTable('import_runs', (t) => {
    t.bigIncrements('id').primary();
    t.integer('editor_id').nullable().references('id').inTable('editors').onDelete('SET NULL');
    t.string('file_name', 200).notNullable();
    t.string('format', 10).notNullable();
    t.binary('file').nullable();
    t.boolean('dry_run').notNullable();
    t.string('state', 10).notNullable().defaultTo('running');
    t.integer('done_rows').notNullable().defaultTo(0);
    t.integer('total_rows').notNullable().defaultTo(0);
    t.jsonb('report').nullable();
    t.text('error').nullable();
    t.bigInteger('applied_run_id').nullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
  });
  await db.raw(`ALTER TABLE import_runs ADD CONSTRAINT import_runs_state_check CHECK (state IN ('running', 'done', 'failed'))`);
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists('import_runs');
}
