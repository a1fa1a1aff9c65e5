import fs from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';
import { createCatalogRepository } from './catalog/catalog-repository';
import { importCatalog } from './catalog/importer';
import { createApiKeysRepository } from './auth/api-keys-repository';
import { createApiKey } from './auth/api-keys';

export const DEMO_KEY_NAME = 'demo';

/** The sample dataset, found from src/ (tsx, jest) and from dist/src/ (node). */
export function sampleDatasetPath(): string {
  const candidates = [path.resolve(__dirname, '../data/sample-tools.json'), path.resolve(__dirname, '../../data/sample-tools.json')];
  const found = candidates.find((candidate) => fs.existsSync(candidate));
  if (!found) throw new Error(`sample dataset not found (looked in ${candidates.join(', ')})`);
  return found;
}

/**
 * Seeds the embedded demo: imports the sample dataset when the directory has no tools, and creates the
 * `demo` API key when absent (its value is returned only then: keys are stored as digests).
 */
export async function ensureDemoData(db: Knex): Promise<{ apiKey: string | null; importedTools: number }> {
  const catalog = createCatalogRepository(db);
  let importedTools = 0;
  if ((await catalog.countTools()) === 0) {
    const report = await importCatalog(catalog, fs.readFileSync(sampleDatasetPath(), 'utf8'), 'json');
    importedTools = report.tools.created + report.tools.updated;
  }
  const apiKeys = createApiKeysRepository(db);
  if (await apiKeys.findByName(DEMO_KEY_NAME)) return { apiKey: null, importedTools };
  const { apiKey } = await createApiKey(apiKeys, { name: DEMO_KEY_NAME, rateLimitPerHour: null });
  return { apiKey, importedTools };
}
