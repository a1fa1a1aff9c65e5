import { AppError } from '../errors/app-error';
import type { UserRow } from '../users/users-repository';
import type { ImageViews, ListItem } from './image-views';
import type { ImagesRepository } from './images-repository';

/**
 * Renaming an image changes only its displayed name (what search matches and the Markdown/HTML
 * links carry); its storage key, URL and thumbnail stay as they are, so links already shared work on.
 */
export function createRenameService(deps: { images: ImagesRepository; views: ImageViews }) {
  return {
    async rename(user: UserRow, id: number, name: string): Promise<ListItem> {
      const renamed = await deps.images.rename(user.id, id, name);
      if (!renamed) throw new AppError('imageNotFound', 200);
      return deps.views.listItemWithLinks(renamed);
    },

    /** Sets or clears (null) when the user's stored image moves into the bin by itself. */
    async setExpiry(user: UserRow, id: number, expiresAt: Date | null): Promise<ListItem> {
      const changed = await deps.images.setExpiry(user.id, id, expiresAt);
      if (!changed) throw new AppError('imageNotFound', 200);
      return deps.views.listItemWithLinks(changed);
    },
  };
}

export type RenameService = ReturnType<typeof createRenameService>;
