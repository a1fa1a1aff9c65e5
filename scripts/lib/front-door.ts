import express from 'express';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { applyV1Rewrites, type RewriteRule } from './v1-rewrites';
import { createWebAppRouter } from './web-app';

type RequestHandler = (req: express.Request, res: express.Response, next: express.NextFunction) => void;

export interface FrontDoorDeps {
  imagesApp: RequestHandler;
  toolsApp: RequestHandler;
  /** The images service's `${STORAGE_DIR}/public` folder, served at /i/. */
  imagesPublicDir: string;
  /**
   * When images are (also) in a bucket: its public/ object for a storage key, or null. /i/ looks on
   * the disk first and in the bucket second, as nginx does (proxy/nginx.conf.template).
   */
  openBucketImage?(storageKey: string): Promise<{ body: Readable; size: number; etag: string; lastModified: Date; contentType?: string } | null>;
  v1Rules: RewriteRule[];
  /** The image web app's build (web-app.ts WEB_APP_BUILD_DIR), served at /app/. */
  webAppDir: string;
  /** The platform's own /readyz and /metrics (both services'), answered to this machine only. */
  probes: {
    readiness(): Promise<{ status: string }>;
    metrics(): Promise<string>;
  };
}

/** Paths the image-hosting service owns (nginx: `location = /api/image.php`, `~ ^/api/(thumb|delete)\.php$`, `/i/`, `/compat/`, `/s/`, `/p/`). */
export function isImagesPath(pathname: string): boolean {
  return (
    pathname === '/api/image.php' ||
    pathname === '/api/thumb.php' ||
    pathname === '/api/delete.php' ||
    pathname.startsWith('/i/') ||
    pathname.startsWith('/compat/') ||
    pathname.startsWith('/s/') ||
    pathname.startsWith('/p/')
  );
}

/**
 * The path of a request Node's HTTP parser refused, read from the bytes it was refusing
 * (`error.rawPacket`); null when those bytes do not start with a request line.
 */
export function refusedRequestPath(rawPacket: unknown): string | null {
  if (!Buffer.isBuffer(rawPacket)) return null;
  const requestLine = /^[A-Z]+ ([^ ?\r\n]+)/.exec(rawPacket.subarray(0, 2048).toString('latin1'));
  return requestLine ? requestLine[1]! : null;
}

const TOOLS_NOT_FOUND = { success: false, error: { code: 404, message: '资源不存在' } };
const IMAGE_NOT_FOUND = { code: 1, msg: '图片不存在' };
const PROMETHEUS_TEXT = 'text/plain; version=0.0.4; charset=utf-8';

/** What nginx answers while no replica is up, for requests that arrive before the services have opened. */
export function startingAnswer(req: IncomingMessage, res: ServerResponse): void {
  const pathname = (req.url ?? '/').split('?')[0]!;
  const body = isImagesPath(pathname)
    ? { code: 1, msg: '服务暂时不可用，请稍后重试' }
    : { success: false, error: { code: 503, message: '服务暂时不可用，请稍后重试' } };
  res.writeHead(503, { 'Content-Type': 'application/json; charset=utf-8', 'Retry-After': '1' });
  res.end(JSON.stringify(body));
}

/**
 * The services' probes and metrics: never public (nginx answers them 404). Express matches routes without
 * regard to case or a trailing slash, so neither may let `/Metrics/` through to a service.
 */
function probeName(pathname: string): 'healthz' | 'readyz' | 'metrics' | null {
  const match = /^\/(healthz|readyz|metrics)\/?$/i.exec(pathname);
  return match ? (match[1]!.toLowerCase() as 'healthz' | 'readyz' | 'metrics') : null;
}

/** A request from this machine: the probes are not public (as nginx keeps the services' probes off its server). */
function fromThisMachine(req: express.Request): boolean {
  const address = req.socket.remoteAddress ?? '';
  return address === '127.0.0.1' || address === '::1' || address === '::ffff:127.0.0.1';
}

/**
 * The embedded stand-in for nginx (proxy/nginx.conf.template): the same routes,
 * the same v1 rewrite file, the same request id and client-IP handling, /i/
 * served from the images folder with nosniff and long cache headers, the image
 * web app at /app/ with the same headers as nginx's, and every other path to the
 * tool directory's website. (nginx's brief page cache has no stand-in here: the
 * tools service's own cache serves pages from memory.)
 */
export function createFrontDoor(deps: FrontDoorDeps): express.Express {
  const front = express();
  front.disable('x-powered-by');

  front.use((req, res, next) => {
    // As nginx does: a request id per request, and the client address as the only
    // forwarded hop (a client-sent X-Forwarded-For is replaced, not trusted).
    const requestId = randomUUID().replace(/-/g, '');
    req.headers['x-request-id'] = requestId;
    res.setHeader('X-Request-Id', requestId);
    req.headers['x-forwarded-for'] = req.socket.remoteAddress ?? '';
    next();
  });

  front.use('/i', (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.status(404).json(IMAGE_NOT_FOUND);
      return;
    }
    next();
  });
  front.use(
    '/i',
    express.static(path.resolve(deps.imagesPublicDir), {
      index: false,
      dotfiles: 'deny',
      fallthrough: true,
      immutable: true,
      maxAge: '365d',
      setHeaders: (res) => res.setHeader('X-Content-Type-Options', 'nosniff'),
    }),
  );
  front.use('/i', async (req, res, next) => {
    // Only a storage key is ever asked of the bucket (nginx's $images_object_key).
    const storageKey = /^\/(\d{4}\/\d{2}\/\d{2}\/[0-9a-f]{32}\.[a-z]{3,4})$/.exec(req.path)?.[1];
    const opened = storageKey && deps.openBucketImage ? await deps.openBucketImage(storageKey).catch(next) : null;
    if (!opened) {
      if (!res.headersSent) res.status(404).json(IMAGE_NOT_FOUND);
      return;
    }
    res.set({
      'Content-Type': opened.contentType ?? 'application/octet-stream',
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': 'public, max-age=31536000, immutable',
      ETag: opened.etag,
      'Last-Modified': opened.lastModified.toUTCString(),
    });
    if (req.fresh || req.method === 'HEAD') {
      opened.body.destroy();
      res.status(req.fresh ? 304 : 200).end();
      return;
    }
    res.set('Content-Length', String(opened.size));
    await pipeline(opened.body, res).catch(() => undefined);
  });

  front.use(createWebAppRouter(deps.webAppDir));

  front.use((req, res, next) => {
    const pathname = req.path;
    if (isImagesPath(pathname)) {
      deps.imagesApp(req, res, next);
      return;
    }
    if (pathname === '/api/index.php') {
      deps.toolsApp(req, res, next);
      return;
    }
    if (pathname.startsWith('/api/v1/')) {
      const rewritten = applyV1Rewrites(deps.v1Rules, req.originalUrl);
      if (rewritten !== null) {
        req.url = rewritten;
        deps.toolsApp(req, res, next);
        return;
      }
    }
    // The front door's own liveness probe, at nginx's path.
    if (pathname === '/nginx-health') {
      res.json({ status: 'ok' });
      return;
    }
    // The platform's probes and metrics, for a supervisor or Prometheus on this machine.
    const probe = probeName(pathname);
    if (probe) {
      if (req.method === 'GET' && fromThisMachine(req)) answerProbe(probe, res).catch(next);
      else res.status(404).json(TOOLS_NOT_FOUND);
      return;
    }
    if (/^\/api(\/|$)/i.test(pathname)) {
      res.status(404).json(TOOLS_NOT_FOUND);
      return;
    }
    // Every other path is the tool directory's website (nginx: `location /`, `location /go/`).
    deps.toolsApp(req, res, next);
  });

  async function answerProbe(probe: 'healthz' | 'readyz' | 'metrics', res: express.Response): Promise<void> {
    if (probe === 'healthz') {
      res.json({ status: 'ok' });
    } else if (probe === 'readyz') {
      const ready = await deps.probes.readiness();
      res.status(ready.status === 'unavailable' ? 503 : 200).json(ready);
    } else {
      res.type(PROMETHEUS_TEXT).send(await deps.probes.metrics());
    }
  }

  return front;
}
