import type { Knex } from 'knex';

const MIB = 1024 * 1024;
const GIB = 1024 * MIB;

export async function up(db: Knex): Promise<void> {
  // Trigram index makes the substring keyword search fast for users with many images.
  await db.raw('CREATE EXTENSION IF NOT EXISTS pg_trgm');

  await db.schema.createTable('groups', (t) => {
    t.increments('id').primary();
    t.string('name', 64).notNullable().unique();
    t.bigInteger('max_file_size').notNullable();
    t.bigInteger('quota_bytes').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
  });
  await db.raw('ALTER TABLE groups ADD CONSTRAINT groups_limits_positive CHECK (max_file_size > 0 AND quota_bytes >= 0)');
  await db('groups').insert([
    { name: 'default', max_file_size: 10 * MIB, quota_bytes: 1 * GIB },
    { name: 'vip', max_file_size: 50 * MIB, quota_bytes: 20 * GIB },
  ]);

  await db.schema.createTable('users', (t) => {
    t.bigIncrements('id').primary();
    t.string('name', 64).notNullable().unique();
    t.specificType('token_hash', 'char(64)').notNullable().unique();
    t.integer('group_id').notNullable().references('id').inTable('groups');
    t.bigInteger('used_bytes').notNullable().defaultTo(0);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
  });
  await db.raw('ALTER TABLE users ADD CONSTRAINT users_used_bytes_nonnegative CHECK (used_bytes >= 0)');

  await db.schema.createTable('categories', (t) => {
    t.bigIncrements('id').primary();
    t.bigInteger('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.string('name', 64).notNullable();
    t.boolean('is_default').notNullable().defaultTo(false);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.unique(['user_id', 'name']);
  });
  await db.raw('CREATE UNIQUE INDEX categories_one_default_per_user ON categories (user_id) WHERE is_default');

  await db.schema.createTable('images', (t) => {
    t.bigIncrements('id').primary();
    t.bigInteger('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.bigInteger('category_id').notNullable().references('id').inTable('categories');
    t.string('storage_key', 128).notNullable().unique();
    t.string('thumb_key', 128).nullable();
    t.string('format', 8).notNullable();
    t.string('original_name', 255).notNullable();
    t.bigInteger('file_size').notNullable();
    t.integer('width').notNullable();
    t.integer('height').notNullable();
    // 16, not the 8 it first had: 20261123010000_image_transitions widens it, and on a table with rows
    // that ALTER held an exclusive lock over 200 ms (its indexes are rebuilt). Databases made with 8 were widened then.
    t.string('status', 16).notNullable().defaultTo('stored');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('deleted_at', { useTz: true }).nullable();
  });
  await db.raw("ALTER TABLE images ADD CONSTRAINT images_status_known CHECK (status IN ('stored', 'binned'))");
  // List pages: newest first per user, optionally per category; index-only counts per user.
  await db.raw('CREATE INDEX images_user_status_id ON images (user_id, status, id DESC)');
  await db.raw('CREATE INDEX images_user_category_status_id ON images (user_id, category_id, status, id DESC)');
  await db.raw('CREATE INDEX images_original_name_trgm ON images USING gin (lower(original_name) gin_trgm_ops)');
  // Automatic bin purge scans only binned rows by age.
  await db.raw("CREATE INDEX images_binned_deleted_at ON images (deleted_at) WHERE status = 'binned'");

  await db.schema.createTable('idempotency_keys', (t) => {
    t.bigInteger('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.string('key', 255).notNullable();
    t.bigInteger('image_id').nullable();
    t.jsonb('result').nullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.primary(['user_id', 'key']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists('idempotency_keys');
  await db.schema.dropTableIfExists('images');
  await db.schema.dropTableIfExists('categories');
  await db.schema.dropTableIfExists('users');
  await db.schema.dropTableIfExists('groups');
}
