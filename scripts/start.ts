/**
 * Embedded mode (`npm start`): the whole platform in one Node process on :8080.
 *
 * Both services run with their own code paths; only the knex client (PGlite under
 * ./data instead of a Postgres server) and the limiter store (memory instead of
 * Redis) differ from production. This file plays nginx's part: see
 * lib/front-door.ts, which applies proxy/v1-rewrites.conf.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import sharp from 'sharp';
import { z } from 'zod';
import { loadConfig as loadImagesConfig } from '../services/images/src/config';
import { openImagesService } from '../services/images/src/open-service';
import { ensureDemoUser } from '../services/images/src/demo';
import { loadConfig as loadToolsConfig } from '../services/tools/src/config';
import { openToolsService } from '../services/tools/src/open-service';
import { ensureDemoData } from '../services/tools/src/demo';
import { clientErrorAnswer as imagesClientErrorAnswer } from '../services/images/src/http/client-error';
import { answerClientErrors, clientErrorAnswer as toolsClientErrorAnswer } from '../services/tools/src/http/client-error';
import { createFrontDoor, isImagesPath, refusedRequestPath } from './lib/front-door';
import { loadV1Rewrites } from './lib/v1-rewrites';
import { printCurlExamples } from './lib/curl-examples';

const ROOT = path.resolve(__dirname, '..');

interface DemoCredentials {
  token?: string;
  apiKey?: string;
}

/** The front door's own settings; each service validates the rest with its own schema. */
const frontDoorSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATA_DIR: z.string().min(1).default('data'),
  PUBLIC_BASE_URL: z.url().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).default(10000),
});

function loadFrontDoorConfig(env: NodeJS.ProcessEnv): z.infer<typeof frontDoorSchema> {
  const parsed = frontDoorSchema.safeParse(Object.fromEntries(Object.entries(env).filter(([, v]) => v !== '')));
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`${issue.path.join('.')} ${issue.message}`);
  }
  return parsed.data;
}

async function main(): Promise<void> {
  const env = process.env;
  const frontDoor = loadFrontDoorConfig(env);
  const port = frontDoor.PORT;
  const dataDir = path.resolve(ROOT, frontDoor.DATA_DIR);
  mkdirSync(dataDir, { recursive: true });
  const baseUrl = frontDoor.PUBLIC_BASE_URL ?? `http://localhost:${port}`;
  const logger = pino({ level: frontDoor.LOG_LEVEL });

  // Each service gets its own environment, as its container would.
  const imagesConfig = loadImagesConfig({
    ...env,
    DATABASE_URL: env.IMAGES_DATABASE_URL ?? `pglite:${path.join(dataDir, 'images-db')}`,
    STORAGE_DIR: env.IMAGES_STORAGE_DIR ?? path.join(dataDir, 'images'),
    PUBLIC_BASE_URL: baseUrl,
  });
  const toolsConfig = loadToolsConfig({
    ...env,
    DATABASE_URL: env.TOOLS_DATABASE_URL ?? `pglite:${path.join(dataDir, 'tools-db')}`,
    REDIS_URL: env.TOOLS_REDIS_URL,
  });

  const images = await openImagesService(imagesConfig, { logger: logger.child({ service: 'images' }) });
  const tools = await openToolsService(toolsConfig, { logger: logger.child({ service: 'tools' }) });

  const credentialsFile = path.join(dataDir, 'demo-credentials.json');
  const credentials: DemoCredentials = existsSync(credentialsFile)
    ? (JSON.parse(readFileSync(credentialsFile, 'utf8')) as DemoCredentials)
    : {};
  const newToken = await ensureDemoUser(images.db);
  if (newToken !== null) credentials.token = newToken;
  const demo = await ensureDemoData(tools.db);
  if (demo.apiKey !== null) credentials.apiKey = demo.apiKey;
  if (newToken !== null || demo.apiKey !== null) {
    // The demo's secrets are kept here so that later starts can print working curl lines.
    writeFileSync(credentialsFile, JSON.stringify(credentials, null, 2) + '\n', { mode: 0o600 });
  }
  if (demo.importedTools > 0) logger.info({ importedTools: demo.importedTools }, 'sample tool directory imported');

  const demoImage = path.join(dataDir, 'demo.jpg');
  if (!existsSync(demoImage)) await writeDemoImage(demoImage);

  const front = createFrontDoor({
    imagesApp: images.app,
    toolsApp: tools.app,
    imagesPublicDir: path.join(imagesConfig.storageDir, 'public'),
    v1Rules: loadV1Rewrites(),
  });
  const server = front.listen(port, frontDoor.HOST);
  // Requests Node's parser refuses (e.g. a raw, unencoded `截图` in the URL) never reach a route;
  // answer them in the envelope of the service that owns the path, when the refused bytes show it,
  // else in the tool directory's, as for any path no service owns.
  answerClientErrors(server, logger, (error) => {
    const refusedPath = refusedRequestPath((error as { rawPacket?: unknown }).rawPacket);
    return refusedPath !== null && isImagesPath(refusedPath) ? imagesClientErrorAnswer(error) : toolsClientErrorAnswer(error);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const actualPort = (server.address() as AddressInfo).port;
  logger.info({ port: actualPort, dataDir }, 'platform listening');
  printCurlExamples({ baseUrl, token: credentials.token, apiKey: credentials.apiKey, demoImage });

  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: finishing in-flight requests');
    const deadline = setTimeout(() => {
      logger.warn('in-flight requests did not finish in time; closing anyway');
      server.closeAllConnections();
    }, frontDoor.SHUTDOWN_TIMEOUT_MS);
    deadline.unref();
    server.close(() => {
      void Promise.allSettled([images.close(), tools.close()]).then(() => process.exit(0));
    });
    server.closeIdleConnections();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

async function writeDemoImage(file: string): Promise<void> {
  const width = 640;
  const height = 480;
  const pixels = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      pixels[i] = Math.round((x / width) * 255);
      pixels[i + 1] = Math.round((y / height) * 255);
      pixels[i + 2] = 160;
    }
  }
  await sharp(pixels, { raw: { width, height, channels: 3 } }).jpeg({ quality: 85 }).toFile(file);
}

main().catch((error: unknown) => {
  console.error(`start failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
