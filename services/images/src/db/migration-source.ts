import type { Knex } from 'knex';
import { listedMigrations } from '@platform/kit';
import * as initial from '../../migrations/20261122020000_initial';
import * as imageTransitions from '../../migrations/20261123010000_image_transitions';
import * as accounts from '../../migrations/20261124010000_accounts';
import * as groupKeepsMetadata from '../../migrations/20261124020000_group_keeps_metadata';
import * as imageCounts from '../../migrations/20261124200000_image_counts';
import * as storageBackends from '../../migrations/20261125010000_storage_backends';
import * as credentialLive from '../../migrations/20261126010000_credential_live';
import * as userNameKey from '../../migrations/20261127010000_user_name_key';
import * as deletionNonce from '../../migrations/20261127110000_deletion_nonce';
import * as chargeUpload from '../../migrations/20261127135722_charge_upload';
import * as adminSettings from '../../migrations/20261127203737_admin_settings';
import * as importRecords from '../../migrations/20261127203800_import_records';
import * as shareLinks from '../../migrations/20261127203834_share_links';
import * as albumPages from '../../migrations/20261128003000_album_pages';
import * as dedupAndExpiry from '../../migrations/20261128003100_dedup_and_expiry';
import * as searchWalkIndexes from '../../migrations/20261128045000_search_walk_indexes';

// Imported explicitly so the same list works under tsx, jest and the compiled dist/ build.
const migrations: ReadonlyArray<readonly [string, Knex.Migration]> = [
  ['20261122020000_initial', initial],
  ['20261123010000_image_transitions', imageTransitions],
  ['20261124010000_accounts', accounts],
  ['20261124020000_group_keeps_metadata', groupKeepsMetadata],
  ['20261124200000_image_counts', imageCounts],
  ['20261125010000_storage_backends', storageBackends],
  ['20261126010000_credential_live', credentialLive],
  ['20261127010000_user_name_key', userNameKey],
  ['20261127110000_deletion_nonce', deletionNonce],
  ['20261127135722_charge_upload', chargeUpload],
  ['20261127203737_admin_settings', adminSettings],
  ['20261127203800_import_records', importRecords],
  ['20261127203834_share_links', shareLinks],
  ['20261128003000_album_pages', albumPages],
  ['20261128003100_dedup_and_expiry', dedupAndExpiry],
  ['20261128045000_search_walk_indexes', searchWalkIndexes],
];

export const migrationSource = listedMigrations(migrations);
