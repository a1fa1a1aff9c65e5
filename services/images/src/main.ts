import { createAppServer, createLogger, SchemaBehindError } from '@platform/kit';
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

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: no new connections, waiting for in-flight requests');
    // Keep-alive sockets become idle as their last response ends; close them as soon as they do.
    const sweeper = setInterval(() => server.closeIdleConnections(), 100);
    sweeper.unref();
    server.closeIdleConnections();
    const forced = setTimeout(() => {
      logger.warn('shutdown timeout reached, closing remaining connections');
      server.closeAllConnections();
    }, config.shutdownTimeoutMs);
    forced.unref();
    server.close(async () => {
      clearTimeout(forced);
      clearInterval(sweeper);
      try {
        await service.close();
        logger.info('shutdown complete');
        process.exit(0);
      } catch (error) {
        logger.error({ err: error }, 'error while closing');
        process.exit(1);
      }
    });
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  // A schema older than this build is the operator's next step, not a bug: its one line, no stack.
  const detail = error instanceof SchemaBehindError ? error.message : ((error as Error)?.stack ?? String(error));
  process.stderr.write(`images service failed to start: ${detail}\n`);
  process.exit(1);
});
