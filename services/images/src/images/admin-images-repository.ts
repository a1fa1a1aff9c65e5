import type { Knex } from 'knex';
import type { ImageFormat } from '../media/media-processor';

/** What an admin filters every user's images by; each field omitted is no filter. */
export interface AdminImageFilter {
  userId?: number;
  format?: ImageFormat;
  status?: 'stored' | 'binned';
  minSize?: number;
  maxSize?: number;
  /** Calendar days (YYYY-MM-DD) in `timeZone`, both included. */
  from?: string;
  to?: string;
  limit: number;
  offset: number;
}

export interface AdminImageRow {
  id: number;
  userId: number;
  userName: string;
  storageKey: string;
  format: string;
  originalName: string;
  fileSize: number;
  width: number;
  height: number;
  status: 'stored' | 'binned';
  createdAt: Date;
  deletedAt: Date | null;
}

/**
 * Every user's images as admins page through them, newest first; only images at rest (stored or
 * binned), never ones in a step. Upload days are read in the service's time zone.
 */
export function createAdminImagesRepository(db: Knex, options: { timeZone: string }) {
  return {
    async page(filter: AdminImageFilter): Promise<{ rows: AdminImageRow[]; total: number }> {
      const base = db('images as i').join('users as u', 'u.id', 'i.user_id');
      if (filter.status) base.where('i.status', filter.status);
      else base.whereIn('i.status', ['stored', 'binned']);
      if (filter.userId !== undefined) base.where('i.user_id', filter.userId);
      if (filter.format !== undefined) base.where('i.format', filter.format);
      if (filter.minSize !== undefined) base.where('i.file_size', '>=', filter.minSize);
      if (filter.maxSize !== undefined) base.where('i.file_size', '<=', filter.maxSize);
      if (filter.from !== undefined) base.whereRaw('i.created_at >= (?::date)::timestamp AT TIME ZONE ?', [filter.from, options.timeZone]);
      if (filter.to !== undefined) base.whereRaw('i.created_at < (?::date + 1)::timestamp AT TIME ZONE ?', [filter.to, options.timeZone]);
      const [counted] = await base.clone().count({ count: '*' });
      const rows = await base
        .clone()
        .orderBy('i.id', 'desc')
        .limit(filter.limit)
        .offset(filter.offset)
        .select('i.id', 'i.user_id', 'u.name as user_name', 'i.storage_key', 'i.format', 'i.original_name', 'i.file_size', 'i.width', 'i.height', 'i.status', 'i.created_at', 'i.deleted_at');
      return {
        total: Number((counted as { count: unknown } | undefined)?.count ?? 0),
        rows: rows.map((row: Record<string, unknown>) => ({
          id: Number(row.id),
          userId: Number(row.user_id),
          userName: String(row.user_name),
          storageKey: String(row.storage_key),
          format: String(row.format),
          originalName: String(row.original_name),
          fileSize: Number(row.file_size),
          width: Number(row.width),
          height: Number(row.height),
          status: row.status as 'stored' | 'binned',
          createdAt: row.created_at as Date,
          deletedAt: (row.deleted_at as Date | null) ?? null,
        })),
      };
    },
  };
}

export type AdminImagesRepository = ReturnType<typeof createAdminImagesRepository>;
