import type { Knex } from 'knex';
import type { StorageBackend } from '../storage/object-store';
import { toImage, type ImageRow } from './image-rows';

/** Which storage backend holds each image's objects, for a storage migration (storage-migration.ts). */
export function createBackendsRepository(db: Knex) {
  return {
    /** How many images at rest (stored or binned) have their objects on each backend, and how many are mid-step. */
    async countByBackend(): Promise<Array<{ backend: StorageBackend; atRest: number; inStep: number }>> {
      const rows: Array<{ storage_backend: string; at_rest: unknown; in_step: unknown }> = await db('images')
        .select('storage_backend')
        .select(db.raw("count(*) FILTER (WHERE status IN ('stored', 'binned')) AS at_rest"))
        .select(db.raw("count(*) FILTER (WHERE status NOT IN ('stored', 'binned')) AS in_step"))
        .groupBy('storage_backend')
        .orderBy('storage_backend');
      return rows.map((row) => ({ backend: row.storage_backend as StorageBackend, atRest: Number(row.at_rest), inStep: Number(row.in_step) }));
    },

    /** How many images (in any state) have their objects on `backend`. */
    async countOn(backend: StorageBackend): Promise<number> {
      const [counted] = (await db('images').where('storage_backend', backend).count({ count: '*' })) as Array<{ count: unknown }>;
      return Number(counted?.count ?? 0);
    },

    /** Ids of images at rest whose objects are on `backend`, after `afterId`, in id order. */
    async findAtRestOn(backend: StorageBackend, options: { afterId: number; limit: number }): Promise<number[]> {
      const rows = await db('images')
        .where('storage_backend', backend)
        .whereIn('status', ['stored', 'binned'])
        .andWhere('id', '>', options.afterId)
        .orderBy('id')
        .limit(options.limit)
        .select('id');
      return rows.map((row: { id: unknown }) => Number(row.id));
    },

    /**
     * Moves one image at rest from one backend to another: `copy` runs while the row is locked, so
     * a delete, restore or purge of that image waits for it (and then acts where the objects are
     * now); the row then names the new backend, and the old one as leftover until its copies are
     * removed. Null, with nothing done, when the image is no longer at rest on `from`.
     */
    async moveBackend(id: number, from: StorageBackend, to: StorageBackend, copy: (image: ImageRow) => Promise<void>): Promise<ImageRow | null> {
      return db.transaction(async (trx) => {
        const row = await trx('images').where({ id, storage_backend: from }).whereIn('status', ['stored', 'binned']).forUpdate().first();
        if (!row) return null;
        await copy(toImage(row));
        const [moved] = await trx('images').where({ id }).update({ storage_backend: to, storage_leftover: from }).returning('*');
        return toImage(moved);
      });
    },

    /** Images whose old backend may still hold copies, in id order. */
    async findLeftovers(options: { afterId: number; limit: number }): Promise<ImageRow[]> {
      const rows = await db('images').whereNotNull('storage_leftover').andWhere('id', '>', options.afterId).orderBy('id').limit(options.limit).select('*');
      return rows.map(toImage);
    },

    /** The copies on `leftover` are gone. */
    async clearLeftover(id: number, leftover: StorageBackend): Promise<void> {
      await db('images').where({ id, storage_leftover: leftover }).update({ storage_leftover: null });
    },

  };
}
