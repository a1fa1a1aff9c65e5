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

type Cell = string | number | null;
interface TableRows {
  table: string;
  columns: string[];
  rows: Cell[][];
}

/** The rows of each table, in column order, and the image files written under the storage dir. */
function tableRows(storageDir: string, fixture: LskyFixture): TableRows[] {
  const now = '2024-03-01 10:00:00';
  const groups: TableRows = { table: 'groups', columns: ['id', 'name', 'is_default', 'is_guest', 'configs', 'created_at', 'updated_at'], rows: [] };
  const groupStrategy: TableRows = { table: 'group_strategy', columns: ['group_id', 'strategy_id'], rows: [] };
  for (const group of fixture.groups) {
    groups.rows.push([group.id, group.name, group.is_default ?? 0, group.is_guest ?? 0, JSON.stringify(group.configs), now, now]);
    groupStrategy.rows.push([group.id, 1]);
  }
  const strategies: TableRows = { table: 'strategies', columns: ['id', 'key', 'name', 'intro', 'configs', 'created_at', 'updated_at'], rows: [[1, 1, '本地', '', JSON.stringify({ root: storageDir, url: 'https://old.example.com/i' }), now, now]] };
  const users: TableRows = {
    table: 'users',
    columns: ['id', 'group_id', 'name', 'email', 'password', 'remember_token', 'is_adminer', 'capacity', 'url', 'configs', 'image_num', 'album_num', 'registered_ip', 'status', 'email_verified_at', 'created_at', 'updated_at'],
    rows: fixture.users.map((user) => [user.id, user.group_id, user.name, user.email, '$2y$10$abcdefghijklmnopqrstuuMgHbKEGk1H8KcvoVwkpYmvMwB5t4qUS', null, user.is_adminer ?? 0, user.capacity, '', '{}', 0, 0, '127.0.0.1', user.status ?? 1, null, now, now]),
  };
  const albums: TableRows = { table: 'albums', columns: ['id', 'user_id', 'name', 'intro', 'image_num', 'created_at', 'updated_at'], rows: fixture.albums.map((album) => [album.id, album.user_id, album.name, '', 0, now, now]) };
  const images: TableRows = {
    table: 'images',
    columns: ['id', 'user_id', 'album_id', 'group_id', 'strategy_id', 'key', 'path', 'name', 'origin_name', 'alias_name', 'size', 'mimetype', 'extension', 'md5', 'sha1', 'width', 'height', 'permission', 'is_unhealthy', 'uploaded_ip', 'created_at', 'updated_at'],
    rows: fixture.images.map((image) => {
      const extension = path.extname(image.name).slice(1);
      if (image.bytes) {
        fs.mkdirSync(path.join(storageDir, image.path), { recursive: true });
        fs.writeFileSync(path.join(storageDir, image.path, image.name), image.bytes);
      }
      return [image.id, image.user_id, image.album_id, 1, 1, `key${image.id}`, image.path, image.name, image.origin_name, '', (image.bytes?.length ?? 0) / 1024, `image/${extension}`, extension, 'md5', 'sha1', 1, 1, image.permission, 0, '127.0.0.1', image.created_at, image.created_at];
    }),
  };
  return [groups, strategies, groupStrategy, users, albums, images];
}

/** A Lsky Pro SQLite database and its local strategy's upload folder, as Lsky leaves them. */
export async function writeLskyInstall(databaseFile: string, storageDir: string, fixture: LskyFixture): Promise<void> {
  const SQL = await initSqlJs();
  const database = new SQL.Database();
  database.run(LSKY_SCHEMA);
  for (const { table, columns, rows } of tableRows(storageDir, fixture)) {
    for (const row of rows) database.run(`INSERT INTO "${table}" (${columns.map((column) => `"${column}"`).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`, row);
  }
  fs.writeFileSync(databaseFile, database.export());
  database.close();
}

/** A string literal as mysqldump writes it. */
const mysqlString = (text: string) => `'${text.replace(/[\\'"\n\r\0\x1a]/g, (character) => ({ '\\': '\\\\', "'": "\\'", '"': '\\"', '\n': '\\n', '\r': '\\r', '\0': '\\0', '\x1a': '\\Z' })[character]!)}'`;
const mysqlValue = (cell: Cell) => (cell === null ? 'NULL' : typeof cell === 'number' ? String(cell) : mysqlString(cell));

/**
 * The same data as `mysqldump lsky` writes it for a Lsky Pro on MySQL: version comments, DROP and
 * CREATE TABLE with backquotes, LOCK TABLES and one extended INSERT per table.
 */
export function writeLskyMysqlDump(dumpFile: string, storageDir: string, fixture: LskyFixture): void {
  const lines = [
    '-- MySQL dump 10.13  Distrib 8.0.36, for Linux (x86_64)',
    '--',
    '-- Host: localhost    Database: lsky',
    '/*!40101 SET @OLD_CHARACTER_SET_CLIENT=@@CHARACTER_SET_CLIENT */;',
    '/*!50503 SET NAMES utf8mb4 */;',
    '/*!40014 SET @OLD_FOREIGN_KEY_CHECKS=@@FOREIGN_KEY_CHECKS, FOREIGN_KEY_CHECKS=0 */;',
  ];
  for (const { table, columns, rows } of tableRows(storageDir, fixture)) {
    lines.push('', '--', `-- Table structure for table \`${table}\``, '--', '', `DROP TABLE IF EXISTS \`${table}\`;`, '/*!40101 SET @saved_cs_client     = @@character_set_client */;', `CREATE TABLE \`${table}\` (`);
    lines.push(...columns.map((column) => `  \`${column}\` ${column === 'id' ? 'bigint unsigned NOT NULL AUTO_INCREMENT' : column === 'configs' ? 'json NOT NULL' : "varchar(255) COLLATE utf8mb4_unicode_ci DEFAULT NULL COMMENT '说明'"},`));
    lines.push(columns.includes('id') ? '  PRIMARY KEY (`id`)' : '  KEY `x` (`group_id`)', ') ENGINE=InnoDB AUTO_INCREMENT=3 DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;', '/*!40101 SET character_set_client = @saved_cs_client */;');
    lines.push('', `LOCK TABLES \`${table}\` WRITE;`, `/*!40000 ALTER TABLE \`${table}\` DISABLE KEYS */;`);
    if (rows.length > 0) lines.push(`INSERT INTO \`${table}\` VALUES ${rows.map((row) => `(${row.map(mysqlValue).join(',')})`).join(',')};`);
    lines.push(`/*!40000 ALTER TABLE \`${table}\` ENABLE KEYS */;`, 'UNLOCK TABLES;');
  }
  lines.push('', '-- Dump completed on 2024-03-01 10:00:00');
  fs.writeFileSync(dumpFile, `${lines.join('\n')}\n`);
}
