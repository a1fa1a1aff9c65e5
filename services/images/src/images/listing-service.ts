import type { Principal } from '../auth/auth-service';
import type { CategoriesRepository } from '../categories/categories-repository';
import { AppError } from '../errors/app-error';
import type { ImageViews, ListItem } from './image-views';
import type { ImagesRepository, ListedImage } from './images-repository';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface PageRequest {
  page: number;
  limit: number;
  categoryId?: number;
  keyword?: string;
}

export interface Page<T> {
  list: T[];
  total: number;
  page: number;
  limit: number;
  /** Extension, on keyword searches only: `total` is an estimate (more names match than a search counts: see listing-repository.ts). */
  total_estimated?: true;
}

export interface BinItem {
  id: number;
  original_name: string;
  /** Signed for this binning only (extension): 404 once the image is restored or purged. */
  thumb_url: string;
  file_size: number;
  create_time: string;
  delete_time: string;
  purge_time: string;
}

export function createListingService(deps: { images: ImagesRepository; categories: CategoriesRepository; views: ImageViews; recycleRetentionDays: number }) {
  const { images, categories, views } = deps;

  /**
   * A page of the principal's images, read only while its credential is live (the page's statement
   * confirms it, so the caller may have taken the principal from memory: see http/authenticate.ts).
   */
  async function page<T>(principal: Principal, now: Date, status: 'stored' | 'binned', request: PageRequest, show: (image: ListedImage) => T): Promise<Page<T>> {
    const { user } = principal;
    // A category filter must name one of the user's categories, as on upload.
    if (request.categoryId !== undefined && !(await categories.findOwned(user.id, request.categoryId))) {
      throw new AppError('categoryNotFound', 200);
    }
    const found = await images.list({
      userId: user.id,
      credential: { id: principal.credential.id, at: now },
      status,
      categoryId: request.categoryId,
      keyword: request.keyword,
      limit: request.limit,
      offset: (request.page - 1) * request.limit,
    });
    if (!found) throw new AppError('notLoggedIn', 200);
    return { list: found.rows.map(show), total: found.total, page: request.page, limit: request.limit, ...(found.totalEstimated ? { total_estimated: true as const } : {}) };
  }

  return {
    /** The user's stored images, newest first; with each one's links when asked (`links=1`). */
    list(principal: Principal, now: Date, request: PageRequest, options: { withLinks: boolean }): Promise<Page<ListItem>> {
      return page(principal, now, 'stored', request, options.withLinks ? views.listItemWithLinks : views.listItem);
    },

    /** The user's recycle bin, most recently deleted first, with when each item will be purged. */
    trash(principal: Principal, now: Date, request: PageRequest): Promise<Page<BinItem>> {
      return page(principal, now, 'binned', request, (image) => {
        const deletedAt = image.deletedAt ?? image.createdAt;
        return {
          id: image.id,
          original_name: image.originalName,
          thumb_url: views.binThumbUrl(image.id, deletedAt),
          file_size: image.fileSize,
          create_time: views.formatTime(image.createdAt),
          delete_time: views.formatTime(deletedAt),
          purge_time: views.formatTime(new Date(deletedAt.getTime() + deps.recycleRetentionDays * DAY_MS)),
        };
      });
    },
  };
}

export type ListingService = ReturnType<typeof createListingService>;
