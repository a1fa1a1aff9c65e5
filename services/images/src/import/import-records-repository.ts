import type { Knex } from 'knex';

export type ImportedKind = 'user' | 'album' | 'image' | 'token' | 'group';

/** An imported image still in the store: where it was on the old host and its storage key here. */
export interface ImportedImage {
  oldPath: string;
  storageKey: string;
}

/** The import ledger (`import_records`): what each source row became here, so nothing is imported twice. */
export function createImportRecordsRepository(db: Knex) {
  return {
    async findTarget(source: string, kind: ImportedKind, sourceId: string): Promise<number | null> {
      const row = await db('import_records').where({ source, kind, source_id: sourceId }).first('target_id');
      return row ? Number(row.target_id) : null;
    },

    async record(source: string, kind: ImportedKind, sourceId: string, targetId: number): Promise<void> {
      await db('import_records').insert({ source, kind, source_id: sourceId, target_id: targetId }).onConflict(['source', 'kind', 'source_id']).ignore();
    },

    /** The stored image takes its date on the old host, and is recorded as imported, in one transaction. */
    /** `createdAt` null: the image keeps its date (a duplicate of one already there). */
    async recordImage(source: string, sourceId: string, image: { id: number; oldPath: string; createdAt: Date | null }): Promise<void> {
      await db.transaction(async (trx) => {
        if (image.createdAt) await trx('images').where({ id: image.id }).update({ created_at: image.createdAt });
        await trx('import_records')
          .insert({ source, kind: 'image', source_id: sourceId, target_id: image.id, old_path: image.oldPath })
          .onConflict(['source', 'kind', 'source_id'])
          .ignore();
      });
    },

    /** Every image imported from `source` that is still stored (not binned or purged since), by old path. */
    async storedImages(source: string): Promise<ImportedImage[]> {
      const rows = await db('import_records as r')
        .join('images as i', 'i.id', 'r.target_id')
        .where({ 'r.source': source, 'r.kind': 'image', 'i.status': 'stored' })
        .whereNotNull('r.old_path')
        .orderBy('r.old_path')
        .select('r.old_path', 'i.storage_key');
      return rows.map((row: { old_path: string; storage_key: string }) => ({ oldPath: row.old_path, storageKey: row.storage_key }));
    },

    /**
     * Sets the user's used bytes to the sum of their images' sizes (every state is charged until its
     * row is deleted). The user's row is locked first, so the sum, read after, includes every upload
     * charged before the lock and none can be charged until the update commits.
     */
    async recountUsedBytes(userId: number): Promise<{ name: string; before: number; after: number }> {
      return db.transaction(async (trx) => {
        const user = await trx('users').where({ id: userId }).forUpdate().first('name', 'used_bytes');
        const sum = await trx('images').where({ user_id: userId }).sum({ total: 'file_size' }).first();
        const after = Number(sum?.total ?? 0);
        await trx('users').where({ id: userId }).update({ used_bytes: after });
        return { name: String(user?.name ?? userId), before: Number(user?.used_bytes ?? 0), after };
      });
    },
  };
}

export type ImportRecordsRepository = ReturnType<typeof createImportRecordsRepository>;
