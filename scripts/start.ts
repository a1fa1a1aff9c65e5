/**
 * Embedded mode (`npm start`): the whole platform in one Node process on :8080.
 *
 * Both services run with their own code paths; only the knex client (PGlite under
 * ./data instead of a Postgres server) and the limiter store (memory instead of
 * Redis) differ from production. This file plays nginx's part: see
 * lib/front-door.ts, which applies proxy/v1-rewrites.conf.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { answerClientErrors } from '@platform/kit';
import pino from 'pino';
import sharp from 'sharp';
import type { Services as ImagesServices } from '../services/images/src/app';
import { loadConfig as loadImagesConfig, type ImagesConfig } from '../services/images/src/config';
import { ensureDemoUser } from '../services/images/src/demo';
import { clientErrorAnswer as imagesClientErrorAnswer } from '../services/images/src/http/client-error';
import { openImagesService } from '../services/images/src/open-service';
import { loadConfig as loadToolsConfig, type ToolsConfig } from '../services/tools/src/config';
import { ensureDemoData } from '../services/tools/src/demo';
import { clientErrorAnswer as toolsClientErrorAnswer } from '../services/tools/src/http/client-error';
import { openToolsService } from '../services/tools/src/open-service';
import { printCurlExamples } from './lib/curl-examples';
import { embeddedEnvironment, type EmbeddedEnvironment } from './lib/embedded-env';
import { ensureInstallSecrets, SECRETS_FILE, standInSecrets } from './lib/install-secrets';
import { createFrontDoor, isImagesPath, refusedRequestPath, startingAnswer } from './lib/front-door';
import { keepOwnerOnly } from './lib/owner-only';
import { loadV1Rewrites } from './lib/v1-rewrites';
import { ensureWebAppBuilt, WEB_APP_BUILD_DIR } from './lib/web-app';

interface DemoCredentials {
  token?: string;
  apiKey?: string;
  /** The demo user's password, for the web app at /app/. */
  password?: string;
}

function fail(line: string): never {
  process.stderr.write(`${line}\n`);
  process.exit(1);
}

/** Every variable is checked before anything starts: one line naming the first bad one. */
function loadConfigs(): { platform: EmbeddedEnvironment; images: ImagesConfig; tools: ToolsConfig } {
  try {
    const platform = embeddedEnvironment(process.env);
    return { platform, images: loadImagesConfig({ ...platform.images, ...standInSecrets(platform.images) }), tools: loadToolsConfig(platform.tools) };
  } catch (error) {
    return fail(`config error: ${(error as Error).message}`);
  }
}

/** Binds the port first: a port in use stops the start before any data is touched. */
async function listen(server: http.Server, port: number, host: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'EADDRINUSE') fail(`start failed: port ${port} on ${host} is already in use (set PORT to another port)`);
    if (error.code === 'EACCES') fail(`start failed: no permission to listen on port ${port} (set PORT to a port above 1023)`);
    throw error;
  });
}

/**
 * The images config with this install's own keys (lib/install-secrets.ts) where the environment sets
 * none. An install that ran before it had keys of its own used the public development ones: what was
 * signed or sealed with them stops working, which the log says once.
 */
function withInstallSecrets(platform: EmbeddedEnvironment, checked: ImagesConfig, logger: pino.Logger): ImagesConfig {
  let secrets;
  try {
    secrets = ensureInstallSecrets(platform.dataDir, platform.images);
  } catch (error) {
    return fail(`start failed: ${(error as Error).message}`);
  }
  if (Object.keys(secrets.env).length === 0) return checked;
  if (secrets.created && readdirSync(platform.dataDir).some((name) => name !== SECRETS_FILE)) {
    logger.warn(
      { file: path.join(platform.dataDir, SECRETS_FILE) },
      'this install now signs links and seals account tokens with keys of its own: thumbnail and deletion links handed out before no longer work (lists give new ones), and account tokens can be shown again only after a reset; the tokens themselves still work',
    );
  }
  return loadImagesConfig({ ...platform.images, ...secrets.env });
}

async function main(): Promise<void> {
  const configs = loadConfigs();
  const { platform } = configs;
  const logger = pino({ level: platform.logLevel });

  // Until both services are open, the front door answers 503 in the path owner's envelope.
  let handler: http.RequestListener = (req, res) => startingAnswer(req, res);
  const server = http.createServer((req, res) => handler(req, res));
  // Requests Node's parser refuses (e.g. a raw, unencoded `截图` in the URL) never reach a route;
  // answer them in the envelope of the service that owns the path, when the refused bytes show it,
  // else in the tool directory's, as for any path no service owns.
  answerClientErrors(server, logger, (error) => {
    const refusedPath = refusedRequestPath((error as { rawPacket?: unknown }).rawPacket);
    return refusedPath !== null && isImagesPath(refusedPath) ? imagesClientErrorAnswer(error) : toolsClientErrorAnswer(error);
  });
  await listen(server, platform.port, platform.host);

  // The web app is built (when missing or stale) while the databases open.
  const webApp = ensureWebAppBuilt({ onBuild: () => process.stdout.write('[start] building the web app (vite)…\n') });
  webApp.catch(() => undefined);

  // The data folder holds password hashes, sealed tokens and the install's keys: from here on everything
  // this process makes (files, folders, the database's WAL, stored images, the admin sockets) is its
  // user's alone. The web app's build, started above, keeps the umask it was given (it is public).
  process.umask(0o077);
  mkdirSync(platform.dataDir, { recursive: true });
  // A data folder from an install before this kept what its umask gave (0755 folders, 0644 files).
  if (statSync(platform.dataDir).mode & 0o077) keepOwnerOnly(platform.dataDir);
  const imagesConfig = withInstallSecrets(platform, configs.images, logger);
  const images = await openImagesService(imagesConfig, { logger: logger.child({ service: 'images' }) }).catch((error: Error) => fail(`start failed: ${error.message}`));
  const tools = await openToolsService(configs.tools, { logger: logger.child({ service: 'tools' }) }).catch(async (error: Error) => {
    await images.close();
    return fail(`start failed: ${error.message}`);
  });
  // PGlite sets its files' modes itself, past the umask (0666 for a new database's).
  for (const database of [imagesConfig.database, configs.tools.database]) if (database.kind === 'pglite-dir') keepOwnerOnly(database.dir);

  const credentialsFile = path.join(platform.dataDir, 'demo-credentials.json');
  const credentials: DemoCredentials = existsSync(credentialsFile) ? (JSON.parse(readFileSync(credentialsFile, 'utf8')) as DemoCredentials) : {};
  const newToken = await ensureDemoUser(images.services.userAdmin);
  if (newToken !== null) credentials.token = newToken;
  const newPassword = credentials.password === undefined || newToken !== null ? await giveDemoPassword(images.services) : null;
  if (newPassword !== null) credentials.password = newPassword;
  const demo = await ensureDemoData(tools.db);
  // Searches would otherwise be answered from the index built before the import until its rebuild ends.
  await tools.refreshSearch();
  if (demo.apiKey !== null) credentials.apiKey = demo.apiKey;
  if (newToken !== null || demo.apiKey !== null || newPassword !== null) {
    // The demo's secrets are kept here so that later starts can print working curl lines.
    writeFileSync(credentialsFile, JSON.stringify(credentials, null, 2) + '\n', { mode: 0o600 });
  }
  if (demo.importedTools > 0) logger.info({ importedTools: demo.importedTools }, 'sample tool directory imported');

  const demoImage = path.join(platform.dataDir, 'demo.jpg');
  if (!existsSync(demoImage)) await writeDemoImage(demoImage);

  await webApp.catch(async (error: Error) => {
    await Promise.allSettled([images.close(), tools.close()]);
    return fail(`start failed: ${error.message}`);
  });

  handler = createFrontDoor({
    imagesApp: images.app,
    toolsApp: tools.app,
    imagesPublicDir: path.join(configs.images.storageDir, 'public'),
    openBucketImage: images.storage.isConfigured('s3') ? (storageKey) => images.storage.storeFor('s3').open('public', storageKey) : undefined,
    v1Rules: loadV1Rewrites(),
    webAppDir: WEB_APP_BUILD_DIR,
    probes: {
      async readiness() {
        const [imagesReady, toolsReady] = await Promise.all([images.readiness(), tools.readiness()]);
        const status = imagesReady.status === 'unavailable' || toolsReady.status === 'unavailable' ? 'unavailable' : toolsReady.status;
        return { status, images: imagesReady, tools: toolsReady };
      },
      async metrics() {
        return `${await images.metrics.registry.metrics()}\n${await tools.metrics.registry.metrics()}`;
      },
    },
  });
  const actualPort = (server.address() as AddressInfo).port;
  logger.info({ port: actualPort, dataDir: platform.dataDir }, 'platform listening');
  // The password is printed when it is made; later starts say where it is kept instead of printing it again.
  printCurlExamples({
    baseUrl: platform.baseUrl,
    token: credentials.token,
    apiKey: credentials.apiKey,
    demoImage,
    demoPassword: newPassword ?? undefined,
    demoPasswordFile: newPassword === null && credentials.password !== undefined ? credentialsFile : undefined,
  });

  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: finishing in-flight requests');
    const deadline = setTimeout(() => {
      logger.warn('in-flight requests did not finish in time; closing anyway');
      server.closeAllConnections();
    }, platform.shutdownTimeoutMs);
    deadline.unref();
    const sweeper = setInterval(() => server.closeIdleConnections(), 100);
    sweeper.unref();
    server.close(() => {
      void Promise.allSettled([images.close(), tools.close()]).then(() => process.exit(0));
    });
    server.closeIdleConnections();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

/**
 * The demo user signs in to the web app with a password of its own (random per data folder, kept in
 * demo-credentials.json beside the token) and is an admin there, so that every page can be tried.
 */
async function giveDemoPassword(services: Pick<ImagesServices, 'admin' | 'userAdmin'>): Promise<string | null> {
  const demo = (await services.admin.listUsers({ page: 1, limit: 100, keyword: 'demo' })).list.find((user) => user.username === 'demo');
  if (!demo) return null;
  const password = randomBytes(9).toString('base64url');
  await services.userAdmin.setPassword(demo.id, password);
  await services.userAdmin.updateUser(demo.id, { isAdmin: true });
  return password;
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
  process.stderr.write(`start failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
