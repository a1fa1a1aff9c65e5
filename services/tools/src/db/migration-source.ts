import type { Knex } from 'knex';
import { listedMigrations } from '@platform/kit';
import * as initialSchema from '../../migrations/20261122020000_initial_schema';
import * as visitsWithoutIndex from '../../migrations/20261122030000_visits_without_index';
import * as toolSearch from '../../migrations/20261123010000_tool_search';
import * as catalogRevision from '../../migrations/20261124010000_catalog_revision';
import * as editors from '../../migrations/20261127135227_editors';
import * as englishFields from '../../migrations/20261127135300_english_fields';
import * as iconsAndLinkHealth from '../../migrations/20261127135741_icons_and_link_health';
import * as searchAliases from '../../migrations/20261127135800_search_aliases';
import * as toolSubmissions from '../../migrations/20261127145600_tool_submissions';
import * as categoryParentsAndKeyHours from '../../migrations/20261127170600_category_parents_and_key_hours';
import * as toolTagsIndex from '../../migrations/20261127170700_tool_tags_index';
import * as importRuns from '../../migrations/20261127171611_import_runs';
import * as iconDueOnUrlChange from '../../migrations/20261127172932_icon_due_on_url_change';
import * as moreSearchAliases from '../../migrations/20261128055000_more_search_aliases';

interface Migration {
  up(db: Knex): Promise<void>;
  down(db: Knex): Promise<void>;
  /** `{ transaction: false }`: knex runs it outside a transaction (CREATE INDEX CONCURRENTLY). */
  config?: { transaction?: boolean };
}

// Listed explicitly so the same code runs under tsx, jest and the compiled dist/ build (no .ts on disk there).
const migrations: ReadonlyArray<readonly [string, Knex.Migration]> = [
  ['20261122020000_initial_schema', initialSchema],
  ['20261122030000_visits_without_index', visitsWithoutIndex],
  ['20261123010000_tool_search', toolSearch],
  ['20261124010000_catalog_revision', catalogRevision],
  ['20261127135227_editors', editors],
  ['20261127135300_english_fields', englishFields],
  ['20261127135741_icons_and_link_health', iconsAndLinkHealth],
  ['20261127135800_search_aliases', searchAliases],
  ['20261127145600_tool_submissions', toolSubmissions],
  ['20261127170600_category_parents_and_key_hours', categoryParentsAndKeyHours],
  ['20261127170700_tool_tags_index', toolTagsIndex],
  ['20261127171611_import_runs', importRuns],
  ['20261127172932_icon_due_on_url_change', iconDueOnUrlChange],
  ['20261128055000_more_search_aliases', moreSearchAliases],
];

export const migrationSource = listedMigrations(migrations);
