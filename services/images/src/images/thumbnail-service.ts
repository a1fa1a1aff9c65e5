import { mimeTypeForFormat } from '../media/media-processor';
import type { FileStorage } from '../storage/file-storage';
import type { ThumbSigner } from '../thumbnails/thumb-signer';
import type { ImagesRepository } from './images-repository';

export function createThumbnailService(deps: { images: ImagesRepository; storage: FileStorage; signer: ThumbSigner }) {
  return {
    /** The file behind a public thumbnail URL; null (404) for a bad signature, an unknown id or an image in the bin. */
    async thumbnail(id: number, sig: string): Promise<{ path: string; mimeType: string } | null> {
      if (!deps.signer.verify(id, sig)) return null;
      const image = await deps.images.findById(id);
      if (!image || image.status !== 'stored') return null;
      if (image.thumbKey) return { path: deps.storage.absolutePath('thumbs', image.thumbKey), mimeType: 'image/webp' };
      return { path: deps.storage.absolutePath('public', image.storageKey), mimeType: mimeTypeForFormat(image.format) };
    },
  };
}

export type ThumbnailService = ReturnType<typeof createThumbnailService>;
