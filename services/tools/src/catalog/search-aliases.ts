import type { Knex } from 'knex';
import { normalizeSearchText } from './search-normalize';

/**
 * The operator's alias table (search_aliases): a term and what else people type for it. Stored normalized,
 * as search compares them. Every change moves the catalog revision (a trigger), so every replica rebuilds
 * its search index and drops its cached pages on its next request.
 */

export const MAX_ALIAS_LENGTH = 100;

export interface AliasGroup {
  term: string;
  aliases: string[];
}

export class AliasInputError extends Error {}

function checked(text: string, what: string): string {
  const normalized = normalizeSearchText(text);
  if (normalized === '') throw new AliasInputError(`${what} is empty`);
  if (normalized.length > MAX_ALIAS_LENGTH) throw new AliasInputError(`${what} must be at most ${MAX_ALIAS_LENGTH} characters`);
  return normalized;
}

export function createAliasRepository(db: Knex) {
  return {
    /** Every group, or the groups a text belongs to (as term or as alias), terms in order. */
    async list(text?: string): Promise<AliasGroup[]> {
      const query = db('search_aliases').select('term', 'alias').orderBy(['term', 'alias']);
      if (text !== undefined) {
        const normalized = checked(text, 'the term');
        query.whereIn('term', db('search_aliases').select('term').where({ term: normalized }).orWhere({ alias: normalized }));
      }
      const rows: { term: string; alias: string }[] = await query;
      const groups = new Map<string, string[]>();
      for (const row of rows) groups.set(row.term, [...(groups.get(row.term) ?? []), row.alias]);
      return [...groups].map(([term, aliases]) => ({ term, aliases }));
    },

    /** Adds aliases to a term (creating the group); returns how many were new. */
    async add(term: string, aliases: string[]): Promise<number> {
      const normalizedTerm = checked(term, 'the term');
      const rows = [...new Set(aliases.map((alias) => checked(alias, 'an alias')))].map((alias) => {
        if (alias === normalizedTerm) throw new AliasInputError(`"${alias}" is the term itself`);
        return { term: normalizedTerm, alias };
      });
      if (rows.length === 0) throw new AliasInputError('give at least one alias');
      const inserted: unknown[] = await db('search_aliases').insert(rows).onConflict(['term', 'alias']).ignore().returning('alias');
      return inserted.length;
    },

    /** Removes some aliases of a term, or (none given) the whole group; returns how many were removed. */
    async remove(term: string, aliases: string[] = []): Promise<number> {
      const query = db('search_aliases').where({ term: checked(term, 'the term') });
      if (aliases.length > 0) query.whereIn('alias', aliases.map((alias) => checked(alias, 'an alias')));
      return query.del();
    },
  };
}
