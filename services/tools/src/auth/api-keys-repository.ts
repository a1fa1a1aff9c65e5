import type { Knex } from 'knex';

export interface ApiKeyRow {
  id: number;
  name: string;
  keyPrefix: string;
  enabled: boolean;
  /** null: the configured default applies. */
  rateLimitPerHour: number | null;
  createdAt: Date;
}

interface DbApiKeyRow {
  id: number;
  name: string;
  key_prefix: string;
  enabled: boolean;
  rate_limit_per_hour: number | null;
  created_at: Date;
}

const columns = ['id', 'name', 'key_prefix', 'enabled', 'rate_limit_per_hour', 'created_at'];

function toApiKey(row: DbApiKeyRow): ApiKeyRow {
  return {
    id: row.id,
    name: row.name,
    keyPrefix: row.key_prefix,
    enabled: row.enabled,
    rateLimitPerHour: row.rate_limit_per_hour,
    createdAt: new Date(row.created_at),
  };
}

export function createApiKeysRepository(db: Knex) {
  return {
    async findByHash(keyHash: string): Promise<ApiKeyRow | undefined> {
      const row = await db('api_keys').select(columns).where({ key_hash: keyHash }).first();
      return row ? toApiKey(row as DbApiKeyRow) : undefined;
    },
    async findByName(name: string): Promise<ApiKeyRow | undefined> {
      const row = await db('api_keys').select(columns).where({ name }).first();
      return row ? toApiKey(row as DbApiKeyRow) : undefined;
    },
    async insert(input: { name: string; keyHash: string; keyPrefix: string; rateLimitPerHour: number | null }): Promise<ApiKeyRow> {
      const [row] = await db('api_keys')
        .insert({ name: input.name, key_hash: input.keyHash, key_prefix: input.keyPrefix, rate_limit_per_hour: input.rateLimitPerHour })
        .returning(columns);
      return toApiKey(row as DbApiKeyRow);
    },
    async update(id: number, patch: { enabled?: boolean; rateLimitPerHour?: number | null }): Promise<ApiKeyRow | undefined> {
      const changes: Record<string, unknown> = { updated_at: db.fn.now() };
      if (patch.enabled !== undefined) changes.enabled = patch.enabled;
      if (patch.rateLimitPerHour !== undefined) changes.rate_limit_per_hour = patch.rateLimitPerHour;
      const [row] = await db('api_keys').where({ id }).update(changes).returning(columns);
      return row ? toApiKey(row as DbApiKeyRow) : undefined;
    },
    async list(): Promise<ApiKeyRow[]> {
      const rows = await db('api_keys').select(columns).orderBy('id');
      return (rows as DbApiKeyRow[]).map(toApiKey);
    },
  };
}

export type ApiKeysRepository = ReturnType<typeof createApiKeysRepository>;
