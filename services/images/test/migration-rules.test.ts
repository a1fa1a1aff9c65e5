import { expectOnlineSafeMigrations } from '@platform/kit/testing';
import { migrationSource } from '../src/db/migration-source';

test('when every migration is applied in turn, then each statement on a table an earlier one created is online-safe (lock_timeout, CONCURRENTLY, NOT VALID then VALIDATE, no rename or rewrite)', async () => {
  await expectOnlineSafeMigrations('images_rules', migrationSource);
});
