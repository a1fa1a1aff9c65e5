import type { Knex } from 'knex';
import type { Services } from '../app';
import type { ProgressOutput } from '../progress/progress-output';
import type { Storage } from '../storage/storage';

/** What an import (import-from) works with. */
export interface ImportDeps {
  ctx: ProgressOutput;
  db: Knex;
  storage: Storage;
  services: Pick<Services, 'uploads' | 'imageUrl' | 'userAdmin'>;
  /** MAX_UPLOAD_BYTES: no group's max file size may pass it. */
  maxUploadBytes: number;
}
