import { startService } from '@platform/kit';
import { loadConfig } from './config';
import { ensureDemoData } from './demo';
import { installClientErrorEnvelope } from './http/client-error';
import { openToolsService } from './open-service';

startService({
  name: 'tools',
  loadConfig,
  async open(config, logger) {
    const service = await openToolsService(config, { logger });
    if (process.argv.includes('--demo')) {
      const demo = await ensureDemoData(service.db);
      // Searches would otherwise be answered from the index built before the import until its rebuild ends.
      await service.refreshSearch();
      logger.info({ importedTools: demo.importedTools, demoApiKey: demo.apiKey ?? '(exists; shown only when created)' }, 'demo data ready');
    }
    return service;
  },
  answerClientErrors: installClientErrorEnvelope,
});
