import { loadConfig, type ToolsConfig } from './config';
import { createLogger, openToolsService } from './service';
import { ensureDemoData } from './demo';
import { installClientErrorEnvelope } from './http/clientError';

async function main(): Promise<void> {
  let config: ToolsConfig;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    process.stdout.write(`config error: ${(error as Error).message}\n`);
    process.exit(1);
  }
  const logger = createLogger(config);
  const service = await openToolsService(config, { logger });
  if (process.argv.includes('--demo')) {
    const demo = await ensureDemoData(service.db);
    logger.info({ importedTools: demo.importedTools, demoApiKey: demo.apiKey ?? '(exists; shown only when created)' }, 'demo data ready');
  }
  const server = service.app.listen(config.port, config.host, () => {
    logger.info({ port: config.port, host: config.host }, 'tools service listening');
  });
  installClientErrorEnvelope(server, logger);
  server.on('error', (error) => {
    logger.fatal({ err: error }, 'server error');
    process.exit(1);
  });

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: no new connections, waiting for in-flight requests');
    const forceTimer = setTimeout(() => {
      logger.warn('shutdown timeout reached; closing remaining connections');
      server.closeAllConnections();
    }, config.shutdownTimeoutMs);
    forceTimer.unref();
    // A keep-alive socket whose request finishes after SIGTERM would otherwise hold the exit for the whole
    // keep-alive timeout: close each socket as soon as it is idle.
    const idleSweeper = setInterval(() => server.closeIdleConnections(), 100);
    idleSweeper.unref();
    server.close(async () => {
      clearTimeout(forceTimer);
      clearInterval(idleSweeper);
      await service.close();
      logger.info('shutdown complete');
      process.exit(0);
    });
    server.closeIdleConnections();
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(`tools service failed to start: ${(error as Error)?.stack ?? String(error)}\n`);
  process.exit(1);
});
