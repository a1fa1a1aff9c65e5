import type { Knex } from 'knex';
import { createBackendsRepository } from './backends-repository';
import { createIdempotencyRepository } from './idempotency-repository';
import { createLifecycleRepository } from './lifecycle-repository';
import { createListingRepository } from './listing-repository';

export type { ImageRow, ImageStatus, ListedImage, Move, NewImage } from './image-rows';
export type { Reservation } from './lifecycle-repository';
export type { ListFilter } from './listing-repository';

/**
 * The images table and what hangs off it, one file per concern: an image's lifecycle (upload, bin,
 * restore, purge), its pages (listing), Idempotency-Key claims, and which backend holds its objects.
 */
export function createImagesRepository(db: Knex, options: { namedStatements: boolean } = { namedStatements: true }) {
  return {
    ...createLifecycleRepository(db, options),
    ...createListingRepository(db, options),
    ...createIdempotencyRepository(db),
    ...createBackendsRepository(db),
  };
}

export type ImagesRepository = ReturnType<typeof createImagesRepository>;
