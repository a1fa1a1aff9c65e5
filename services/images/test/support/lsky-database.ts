import fs from 'node:fs';
import path from 'node:path';
import initSqlJs from 'sql.js';

/**
 * The tables Lsky Pro 2.x's migrations create (database/migrations: groups, users, strategies, albums,
 * images, group_strategy), as Laravel's SQLite schema grammar writes them.
 */
const LSKY_SCHEMA = `
CREATE TABLE "groups" ("id" integer primary key autoincrement not null, "name" varchar not null, "is_default" tinyint(1) not null default '0', "is_guest" tinyint(1) not null default '0', "configs" text not null, "created_at" datetime, "updated_at" datetime);
CREATE TABLE "users" ("id" integer primary key autoincrement not null, "group_id" integer, "name" varchar not null, "email" varchar not null, "password" varchar not null, "remember_token" varchar, "is_adminer" tinyint(1) not null default '0', "capacity" numeric not null default '0', "url" varchar not null default '', "configs" text not null, "image_num" integer not null default '0', "album_num" integer not null default '0', "registered_ip" varchar not null default '', "status" integer not null default '1', "email_verified_at" datetime, "created_at" datetime, "updated_at" datetime, foreign key("group_id") references "groups"("id") on delete set null);
CREATE UNIQUE INDEX "users_email_unique" on "users" ("email");
CREATE TABLE "strategies" ("id" integer primary key autoincrement not null, "key" integer not null, "name" varchar not null, "intro" varchar not null default '', "configs" text not null, "created_at" datetime, "updated_at" datetime);
CREATE TABLE "albums" ("id" integer primary key autoincrement not null, "user_id" integer not null, "name" varchar not null, "intro" varchar not null default '', "image_num" integer not null default '0', "created_at" datetime, "updated_at" datetime, foreign key("user_id") references "users"("id") on delete cascade);
CREATE TABLE "images" ("id" integer primary key autoincrement not null, "user_id" integer, "album_id" integer, "group_id" integer, "strategy_id" integer, "key" varchar not null, "path" varchar not null, "name" varchar not null, "origin_name" varchar not null default '', "alias_name" varchar not null default '', "size" numeric not null default '0', "mimetype" varchar not null, "extension" varchar not null, "md5" varchar not null, "sha1" varchar not null, "width" integer not null default '0', "height" integer not null default '0', "permission" integer not null default '0', "is_unhealthy" tinyint(1) not null default '0', "uploaded_ip" varchar not null default '', "created_at" datetime, "updated_at" datetime, foreign key("user_id") references "users"("id") on delete set null, foreign key("album_id") references "albums"("id") on delete set null, foreign key("group_id") references "groups"("id") on delete set null, foreign key("strategy_id") references "strategies"("id") on delete set null);
CREATE UNIQUE INDEX "images_key_unique" on "images" ("key");
CREATE TABLE "group_strategy" ("group_id" integer not null, "strategy_id" integer not null, foreign key("group_id") references "groups"("id") on delete cascade, foreign key("strategy_id") references "strategies"("id") on delete cascade);
`;

export interface LskyFixture {
  groups: Array<{ id: number; name: string; is_default?: number; is_guest?: number; configs: object }>;
  users: Array<{ id: number; group_id: number | null; name: string; email: string; is_adminer?: number; capacity: number; status?: number }>;
  albums: Array<{ id: number; user_id: number; name: string }>;
  /** `bytes` is written to `<storage dir>/<path>/<name>` (left out: the file is missing there). */
  images: Array<{ id: number; user_id: number | null; album_id: number | null; path: string; name: string; origin_name: string; permission: number; created_at: string; bytes?: Buffer }>;
}

/** A Lsky Pro SQLite database and its local strategy's upload folder, as Lsky leaves them. */
export async function writeLskyInstall(databaseFile: string, storageDir: string, fixture: LskyFixture): Promise<void> {
  const SQL = await initSqlJs();
  const database = new SQL.Database();
  database.run(LSKY_SCHEMA);
  const now = '2024-03-01 10:00:00';
  database.run(`INSERT INTO strategies (id, key, name, configs, created_at, updated_at) VALUES (1, 1, '本地', ?, ?, ?)`, [JSON.stringify({ root: storageDir, url: 'https://old.example.com/i' }), now, now]);
  for (const group of fixture.groups) {
    database.run('INSERT INTO groups (id, name, is_default, is_guest, configs, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)', [group.id, group.name, group.is_default ?? 0, group.is_guest ?? 0, JSON.stringify(group.configs), now, now]);
    database.run('INSERT INTO group_strategy (group_id, strategy_id) VALUES (?, 1)', [group.id]);
  }
  for (const user of fixture.users) {
    database.run('INSERT INTO users (id, group_id, name, email, password, is_adminer, capacity, configs, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)', [
      user.id, user.group_id, user.name, user.email, '$2y$10$abcdefghijklmnopqrstuuMgHbKEGk1H8KcvoVwkpYmvMwB5t4qUS', user.is_adminer ?? 0, user.capacity, '{}', user.status ?? 1, now, now,
    ]);
  }
  for (const album of fixture.albums) database.run('INSERT INTO albums (id, user_id, name, created_at, updated_at) VALUES (?, ?, ?, ?, ?)', [album.id, album.user_id, album.name, now, now]);
  for (const image of fixture.images) {
    const extension = path.extname(image.name).slice(1);
    database.run(
      'INSERT INTO images (id, user_id, album_id, group_id, strategy_id, key, path, name, origin_name, size, mimetype, extension, md5, sha1, width, height, permission, created_at, updated_at) VALUES (?, ?, ?, 1, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, 1, ?, ?, ?)',
      [image.id, image.user_id, image.album_id, `key${image.id}`, image.path, image.name, image.origin_name, (image.bytes?.length ?? 0) / 1024, `image/${extension}`, extension, 'md5', 'sha1', image.permission, image.created_at, image.created_at],
    );
    if (image.bytes) {
      fs.mkdirSync(path.join(storageDir, image.path), { recursive: true });
      fs.writeFileSync(path.join(storageDir, image.path, image.name), image.bytes);
    }
  }
  fs.writeFileSync(databaseFile, database.export());
  database.close();
}
