import type { Knex } from 'knex';
import { limitLockWaits } from '@platform/kit';
import { SEARCH_ALIASES_ADDED_20261128 } from '../src/catalog/search-default-aliases';
import { normalizeSearchText } from '../src/catalog/search-normalize';

/**
 * Default aliases shipped after the first set (password ↔ 密码, compress pdf ↔ pdf压缩, OCR ↔ 文字识别, …)
 * reach installs made before them. Only pairs the table lacks are added, in neither direction (an operator's
 * own `password` → 密码 stays as it is), and nothing an operator wrote is changed or removed. The insert moves
 * the catalog revision (the table's trigger), so every replica rebuilds its search index.
 */
function shippedPairs(): { term: string; alias: string }[] {
  return SEARCH_ALIASES_ADDED_20261128.flatMap(([term, ...aliases]) =>
    aliases.map((alias) => ({ term: normalizeSearchText(term!), alias: normalizeSearchText(alias) })),
  );
}

export async function up(db: Knex): Promise<void> {
  await limitLockWaits(db);
  const pairs = shippedPairs();
  await db.raw(
    `INSERT INTO search_aliases (term, alias)
     SELECT shipped.term, shipped.alias FROM unnest(?::text[], ?::text[]) AS shipped(term, alias)
     WHERE NOT EXISTS (SELECT 1 FROM search_aliases existing
       WHERE (existing.term, existing.alias) IN ((shipped.term, shipped.alias), (shipped.alias, shipped.term)))
     ON CONFLICT (term, alias) DO NOTHING`,
    [pairs.map((pair) => pair.term), pairs.map((pair) => pair.alias)],
  );
}

/** Takes the shipped pairs out again (an operator's identical pair with them: the table cannot tell them apart). */
export async function down(db: Knex): Promise<void> {
  await limitLockWaits(db);
  for (const { term, alias } of shippedPairs()) await db('search_aliases').where({ term, alias }).del();
}
