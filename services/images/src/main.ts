import { createAppServer, createLogger, SchemaBehindError, stopGracefullyOnSignals } from '@platform/kit';
import { loadConfig, type ImagesConfig } from './config';
import { installClientErrorEnvelope } from './http/client-error';
import { openImagesService } from './open-service';

async function main(): Promise<void> {
  let config: ImagesConfig;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    process.stderr.write(`config error: ${(error as Error).message}\n`);
    process.exit(1);
  }
  const logger = createLogger('images', config.logLevel, { buffered: true });
  const service = await openImagesService(config, { logger });
  const server = createAppServer(service.app);
  installClientErrorEnvelope(server, logger);
  server.on('error', (error) => {
    logger.fatal({ err: error }, 'server error');
    process.exit(1);
  });
  server.listen(config.port, config.host, () => {
    const address = server.address();
    logger.info({ host: config.host, port: typeof address === 'object' && address ? address.port : config.port }, 'images service listening');
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
  process.stderr.write(`images service failed to start: ${detail}\n`);
  process.exit(1);
});
