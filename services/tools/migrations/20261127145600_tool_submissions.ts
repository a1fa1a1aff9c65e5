import type { Knex } from 'knex';
import { limitLockWaits } from '@platform/kit';

/**
 * Visitors' suggestions of tools (the site's 提交工具 form), waiting for an editor's review. The
 * submitter's address is kept only as a digest (for abuse reviews: "these ten came from one place"),
 * never as the raw IP. `url_key` is the URL as compared for duplicates (see submissions/submission-url.ts);
 * at most one pending submission per key, so two visitors posting the same URL at once cannot both
 * queue it. `tool_submission_limits` is rate-limiter-flexible's Postgres store for the per-address limit.
 */
export async function up(db: Knex): Promise<void> {
  // Quick catalog changes in the migration's transaction: a busy lock makes it give up and run again.
  await limitLockWaits(db);
  await db.schema.createTable('tool_submissions', (t) => {
    t.bigIncrements('id').primary();
    t.string('name', 200).notNullable();
    t.text('url').notNullable();
    t.text('url_key').notNullable();
    t.string('category_slug', 100).notNullable();
    t.text('description').notNullable().defaultTo('');
    t.string('contact', 200).notNullable().defaultTo('');
    t.specificType('submitter_hash', 'char(64)').notNullable();
    t.string('status', 10).notNullable().defaultTo('pending');
    t.integer('reviewed_by').nullable().references('id').inTable('editors').onDelete('SET NULL');
    t.timestamp('reviewed_at', { useTz: true }).nullable();
    t.text('reject_reason').notNullable().defaultTo('');
    t.integer('tool_id').nullable().references('id').inTable('tools').onDelete('SET NULL');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.index(['status', 'created_at'], 'tool_submissions_status_idx');
  });
  await db.raw(`ALTER TABLE tool_submissions ADD CONSTRAINT tool_submissions_status_check CHECK (status IN ('pending', 'approved', 'rejected'))`);
  await db.raw(`CREATE UNIQUE INDEX tool_submissions_pending_url ON tool_submissions (url_key) WHERE status = 'pending'`);
  await db.schema.createTable('tool_submission_limits', (t) => {
    t.string('key', 255).primary();
    t.integer('points').notNullable().defaultTo(0);
    t.bigInteger('expire').nullable();
  });
}

export async function down(db: Knex): Promise<void> {
  await limitLockWaits(db);
  await db.schema.dropTableIfExists('tool_submission_limits');
  await db.schema.dropTableIfExists('tool_submissions');
}
