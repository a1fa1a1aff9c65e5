import type { CatalogQueries, CatalogRepository } from './catalog-repository';
import { buildSearchDocument, SEARCH_DOCUMENT_VERSION } from './search-document';

/** Documents written per statement (each is a few kilobytes). */
const WRITE_BATCH = 500;

/**
 * Recomputes the search documents of the tools in `scope` from what is stored now (name, tags, description,
 * category name). Run it in the transaction that changed them: the rows are locked until it commits.
 */
export async function refreshSearchDocuments(queries: CatalogQueries, scope: { toolSlugs: string[] } | { categoryIds: number[] }): Promise<number> {
  if ('toolSlugs' in scope && scope.toolSlugs.length > WRITE_BATCH) {
    let refreshed = 0;
    for (let start = 0; start < scope.toolSlugs.length; start += WRITE_BATCH) {
      refreshed += await refreshSearchDocuments(queries, { toolSlugs: scope.toolSlugs.slice(start, start + WRITE_BATCH) });
    }
    return refreshed;
  }
  const sources = await queries.searchSources(scope);
  for (let start = 0; start < sources.length; start += WRITE_BATCH) {
    await queries.writeSearchDocuments(
      sources
        .slice(start, start + WRITE_BATCH)
        .map((source) => ({ toolId: source.toolId, version: SEARCH_DOCUMENT_VERSION, document: buildSearchDocument(source) })),
    );
  }
  return sources.length;
}

const DEADLOCK_DETECTED = '40P01';

/**
 * Computes every missing or out-of-date search document, one batch per transaction (at service start: after
 * the migration that adds them, or when SEARCH_DOCUMENT_VERSION changes). A batch waits for tools another
 * writer holds; if Postgres picks the batch as a deadlock victim (an import locking in another order), the
 * batch is tried again.
 */
export async function reindexStaleSearchDocuments(catalog: CatalogRepository, batchSize = WRITE_BATCH): Promise<number> {
  let afterId = 0;
  let reindexed = 0;
  const reindexBatch = () =>
    catalog.transaction(async (trx) => {
      const sources = await trx.searchSources({ olderThanVersion: SEARCH_DOCUMENT_VERSION, afterId, limit: batchSize });
      await trx.writeSearchDocuments(
        sources.map((source) => ({ toolId: source.toolId, version: SEARCH_DOCUMENT_VERSION, document: buildSearchDocument(source) })),
      );
      return sources;
    });
  for (;;) {
    let batch: Awaited<ReturnType<typeof reindexBatch>>;
    for (let attempt = 1; ; attempt += 1) {
      try {
        batch = await reindexBatch();
        break;
      } catch (error) {
        if ((error as { code?: string }).code !== DEADLOCK_DETECTED || attempt >= 3) throw error;
      }
    }
    reindexed += batch.length;
    if (batch.length < batchSize) return reindexed;
    afterId = batch[batch.length - 1]!.toolId;
  }
}
