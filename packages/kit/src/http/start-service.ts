import type http from 'node:http';
import type { Express } from 'express';
import type { Logger } from 'pino';
import { SchemaBehindError } from '../db/migrate';
import { createLogger } from '../log/logger';
import { createAppServer } from './app-server';
import { stopGracefullyOnSignals } from './graceful-shutdown';

/** The settings `startService` reads from a service's configuration. */
export interface ServerSettings {
  port: number;
  host: string;
  logLevel: string;
  shutdownDrainMs: number;
  shutdownTimeoutMs: number;
}

/** What a service's `main` has of its own; the rest is `startService`. */
export interface ServiceMain<Config extends ServerSettings> {
  /** Its name in the logs and in the start-up failure line: `images`. */
  name: string;
  loadConfig(env: NodeJS.ProcessEnv): Config;
  /** Opens the service (database, storage, timers): its Express app and what closes it all. */
  open(config: Config, logger: Logger): Promise<{ app: Express; close(): Promise<void> }>;
  /** Answers the requests Node's HTTP parser refuses before the app sees them, in the service's envelope. */
  answerClientErrors(server: http.Server, logger: Logger): void;
}

/**
 * A service's process: loads its configuration from the environment (a bad one: `config error: …`,
 * exit 1), opens it, listens on HOST:PORT (logging `<name> service listening` with the port) and stops
 * gracefully on SIGTERM / SIGINT. A failure to start is one line on stderr and exit 1.
 */
export function startService<Config extends ServerSettings>(main: ServiceMain<Config>): void {
  start(main).catch((error: unknown) => {
    // A schema older than this build is the operator's next step, not a bug: its one line, no stack.
    const detail = error instanceof SchemaBehindError ? error.message : ((error as Error)?.stack ?? String(error));
    process.stderr.write(`${main.name} service failed to start: ${detail}\n`);
    process.exit(1);
  });
}

async function start<Config extends ServerSettings>(main: ServiceMain<Config>): Promise<void> {
  let config: Config;
  try {
    config = main.loadConfig(process.env);
  } catch (error) {
    process.stderr.write(`config error: ${(error as Error).message}\n`);
    process.exit(1);
  }
  const logger = createLogger(main.name, config.logLevel, { buffered: true });
  const service = await main.open(config, logger);
  const server = createAppServer(service.app);
  main.answerClientErrors(server, logger);
  server.on('error', (error) => {
    logger.fatal({ err: error }, 'server error');
    process.exit(1);
  });
  server.listen(config.port, config.host, () => {
    const address = server.address();
    logger.info({ host: config.host, port: typeof address === 'object' && address ? address.port : config.port }, `${main.name} service listening`);
  });

  stopGracefullyOnSignals(server, {
    logger,
    drainMs: config.shutdownDrainMs,
    shutdownTimeoutMs: config.shutdownTimeoutMs,
    close: () => service.close(),
  });
}
