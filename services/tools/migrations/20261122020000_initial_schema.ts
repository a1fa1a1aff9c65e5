import type { Knex } from 'knex';

export async function up(db: Knex): Promise<void> {
  // Trigram indexes make the substring search (LIKE '%q%') index-assisted on 10k+ tools.
  await db.raw('CREATE EXTENSION IF NOT EXISTS pg_trgm');

  await db.schema.createTable('categories', (t) => {
    t.increments('id').primary();
    t.string('slug', 100).notNullable().unique();
    t.string('name', 100).notNullable();
    t.text('description').notNullable().defaultTo('');
    t.string('icon', 500).notNullable().defaultTo('');
    t.integer('sort_order').notNullable().defaultTo(0);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.index(['sort_order', 'id'], 'categories_sort_idx');
  });

  await db.schema.createTable('tools', (t) => {
    t.increments('id').primary();
    t.string('slug', 100).notNullable().unique();
    t.string('name', 200).notNullable();
    t.text('description').notNullable().defaultTo('');
    t.string('url', 2000).notNullable();
    t.string('icon', 2000).notNullable().defaultTo('');
    t.integer('category_id').notNullable().references('id').inTable('categories').onDelete('RESTRICT');
    t.specificType('tags', 'text[]').notNullable().defaultTo('{}');
    t.bigInteger('visits').notNullable().defaultTo(0);
    t.boolean('is_featured').notNullable().defaultTo(false);
    // Pinyin of Chinese names (full and initials, lowercase, no spaces), filled by the importer.
    t.string('name_pinyin', 1000).nullable();
    t.string('name_initials', 400).nullable();
    // Lowercased name, slug, tags, description and pinyin: the one column the search filters on.
    t.text('search_document').notNullable().defaultTo('');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.index(['category_id', 'id'], 'tools_category_idx');
  });
  await db.raw('CREATE INDEX tools_popular_idx ON tools (visits DESC, id ASC)');
  await db.raw('CREATE INDEX tools_search_trgm_idx ON tools USING gin (search_document gin_trgm_ops)');

  await db.schema.createTable('api_keys', (t) => {
    t.increments('id').primary();
    t.string('name', 100).notNullable().unique();
    t.specificType('key_hash', 'char(64)').notNullable().unique();
    t.string('key_prefix', 16).notNullable();
    t.boolean('enabled').notNullable().defaultTo(true);
    t.integer('rate_limit_per_hour').nullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
  });

  await db.schema.createTable('app_settings', (t) => {
    t.string('key', 100).primary();
    t.jsonb('value').notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists('app_settings');
  await db.schema.dropTableIfExists('api_keys');
  await db.schema.dropTableIfExists('tools');
  await db.schema.dropTableIfExists('categories');
}
