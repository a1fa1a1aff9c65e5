import { createAppServer, createLogger, SchemaBehindError, stopGracefullyOnSignals } from '@platform/kit';
import { loadConfig, type ToolsConfig } from './config';
import { ensureDemoData } from './demo';
import { installClientErrorEnvelope } from './http/client-error';
import { openToolsService } from './open-service';

async function main(): Promise<void> {
  let config: ToolsConfig;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    process.stderr.write(`config error: ${(error as Error).message}\n`);
    process.exit(1);
  }
  const logger = createLogger('tools', config.logLevel, { buffered: true });
  const service = await openToolsService(config, { logger });
  if (process.argv.includes('--demo')) {
    const demo = await ensureDemoData(service.db);
    // Searches would otherwise be answered from the index built before the import until its rebuild ends.
    await service.refreshSearch();
    logger.info({ importedTools: demo.importedTools, demoApiKey: demo.apiKey ?? '(exists; shown only when created)' }, 'demo data ready');
  }
  const server = createAppServer(service.app);
  installClientErrorEnvelope(server, logger);
  server.on('error', (error) => {
    logger.fatal({ err: error }, 'server error');
    process.exit(1);
  });
  server.listen(config.port, config.host, () => {
    const address = server.address();
    logger.info({ host: config.host, port: typeof address === 'object' && address ? address.port : config.port }, 'tools service listening');
  });

  stopGracefullyOnSignals(server, {
    logger,
    drainMs: config.shutdownDrainMs,
    shutdownTimeoutMs: config.shutdownTimeoutMs,
    close: () => service.close(),
  });
}

main().catch((error: unknown) => {
  // A schema older than this build is the operator's next step, not a bug: its one line, no stack.
  const detail = error instanceof SchemaBehindError ? error.message : ((error as Error)?.stack ?? String(error));
  process.stderr.write(`tools service failed to start: ${detail}\n`);
  process.exit(1);
});
