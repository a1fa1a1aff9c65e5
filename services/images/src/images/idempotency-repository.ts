import type { Knex } from 'knex';

/** Idempotency-Key claims of uploads: who holds a key, and the stored result once its upload is done. */
export function createIdempotencyRepository(db: Knex) {
  return {
    /** Claims an idempotency key for a new upload. False when someone already holds it. */
    async claimIdempotencyKey(userId: number, key: string): Promise<boolean> {
      const rows = await db('idempotency_keys').insert({ user_id: userId, key }).onConflict(['user_id', 'key']).ignore().returning('key');
      return rows.length === 1;
    },

    /** A claim of the key: `completedImageId` once its upload is stored (its result recorded). */
    async findIdempotencyClaim(userId: number, key: string): Promise<{ found: boolean; completedImageId: number | null }> {
      const row = await db('idempotency_keys').where({ user_id: userId, key }).first('image_id', 'result');
      if (!row) return { found: false, completedImageId: null };
      return { found: true, completedImageId: row.result !== null && row.image_id !== null ? Number(row.image_id) : null };
    },

    /** Ties a claim to an image that already existed (a duplicate upload answered with it): a retry gets the same answer. */
    async completeIdempotencyKey(userId: number, key: string, imageId: number, result: unknown): Promise<void> {
      await db('idempotency_keys').where({ user_id: userId, key }).update({ image_id: imageId, result: JSON.stringify(result) });
    },

    /** Gives up a claim that has no result (its upload failed before completing). */
    async releaseIdempotencyKey(userId: number, key: string): Promise<void> {
      await db('idempotency_keys').where({ user_id: userId, key }).whereNull('result').delete();
    },

    /** Drops a claim whose holder never finished (e.g. the process died mid-upload). */
    async releaseStaleIdempotencyKey(userId: number, key: string, claimedBefore: Date): Promise<void> {
      await db('idempotency_keys').where({ user_id: userId, key }).whereNull('result').andWhere('created_at', '<', claimedBefore).delete();
    },
  };
}
