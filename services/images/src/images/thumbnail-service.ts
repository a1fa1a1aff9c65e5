import type { OpenedObject } from '../storage/object-store';
import type { ImageFiles } from './image-files';
import type { ImagesRepository } from './images-repository';
import type { LinkSigner } from './link-signer';

export function createThumbnailService(deps: { images: ImagesRepository; files: ImageFiles; signer: LinkSigner }) {
  return {
    /** The bytes behind a public thumbnail URL; null (404) for a bad signature, an unknown id or an image in the bin. */
    async thumbnail(id: number, sig: string): Promise<{ object: OpenedObject; mimeType: string } | null> {
      if (!deps.signer.thumb.verify(id, sig)) return null;
      const image = await deps.images.findById(id);
      if (!image || image.status !== 'stored') return null;
      const opened = await deps.files.openThumbnail(image);
      if (opened) return opened;
      // A storage migration may have moved the image (and removed the old copy) since the row was read.
      const now = await deps.images.findById(id);
      return now && now.status === 'stored' && now.storageBackend !== image.storageBackend ? deps.files.openThumbnail(now) : null;
    },
    /** The thumbnail of a binned image, for its owner's bin list (a `binThumb` signature); null (404) otherwise. */
    async binnedThumbnail(id: number, sig: string): Promise<{ object: OpenedObject; mimeType: string } | null> {
      const image = await deps.images.findById(id);
      if (!image || image.status !== 'binned' || !image.deletedAt || !deps.signer.binThumb.verify(id, image.deletedAt, sig)) return null;
      return deps.files.openThumbnail(image, 'bin');
    },
  };
}

export type ThumbnailService = ReturnType<typeof createThumbnailService>;
