import { AppError } from '../errors/app-error';
import { mimeTypeForFormat } from '../media/media-processor';
import type { UsersRepository } from '../users/users-repository';
import type { AdminImageFilter, AdminImageRow, AdminImagesRepository } from './admin-images-repository';
import type { BulkOutcome, BulkService } from './bulk-service';
import type { ImageViews } from './image-views';

export interface AdminImagesQuery extends Omit<AdminImageFilter, 'userId' | 'limit' | 'offset'> {
  /** A user's name, as sign-in finds it; `用户不存在` for none. */
  userName?: string;
  page: number;
  limit: number;
}

/**
 * Every user's images for admins: a filtered page, and bin or purge in bulk. Each id goes through its
 * owner's own delete and purge (bulk-service.ts, bin-service.ts), so quota and files change exactly as
 * when the owner does it.
 */
export function createAdminImagesService(deps: { images: AdminImagesRepository; users: UsersRepository; bulk: BulkService; views: ImageViews }) {
  const { views } = deps;

  const item = (row: AdminImageRow) => {
    const listed = { id: row.id, storageKey: row.storageKey, originalName: row.originalName, fileSize: row.fileSize, createdAt: row.createdAt, deletedAt: row.deletedAt, deletionNonce: null, expiresAt: null };
    const stored = row.status === 'stored';
    const { url, thumb_url } = views.listItem(listed);
    return {
      id: row.id,
      original_name: row.originalName,
      user_id: row.userId,
      username: row.userName,
      format: row.format,
      mime_type: mimeTypeForFormat(row.format),
      file_size: row.fileSize,
      width: row.width,
      height: row.height,
      status: row.status,
      // A binned image's original is not served; its thumbnail has a bin link of its own.
      url: stored ? url : null,
      thumb_url: stored || !row.deletedAt ? thumb_url : views.binThumbUrl(row.id, row.deletedAt),
      create_time: views.formatTime(row.createdAt),
    };
  };

  return {
    async list(query: AdminImagesQuery) {
      let userId: number | undefined;
      if (query.userName !== undefined) {
        const user = await deps.users.findByName(query.userName);
        if (!user) throw new AppError('userNotFound', 200);
        userId = user.id;
      }
      const { userName: _name, page, limit, ...filter } = query;
      const { rows, total } = await deps.images.page({ ...filter, userId, limit, offset: (page - 1) * limit });
      return { list: rows.map(item), total, page, limit };
    },

    binMany: (ids: number[]): Promise<BulkOutcome> => deps.bulk.binAnyones(ids),
    purgeMany: (ids: number[]): Promise<BulkOutcome> => deps.bulk.purgeAnyones(ids),
  };
}

export type AdminImagesService = ReturnType<typeof createAdminImagesService>;
