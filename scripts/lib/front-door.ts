import express from 'express';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { applyV1Rewrites, type RewriteRule } from './v1-rewrites';

type RequestHandler = (req: express.Request, res: express.Response, next: express.NextFunction) => void;

export interface FrontDoorDeps {
  imagesApp: RequestHandler;
  toolsApp: RequestHandler;
  /** The images service's `${STORAGE_DIR}/public` folder, served at /i/. */
  imagesPublicDir: string;
  v1Rules: RewriteRule[];
  /** The platform's own /readyz and /metrics (both services'), answered to this machine only. */
  probes: {
    readiness(): Promise<{ status: string }>;
    metrics(): Promise<string>;
  };
}

/** Paths the image-hosting service owns (nginx: `location = /api/image.php`, `= /api/thumb.php`, `/i/`). */
export function isImagesPath(pathname: string): boolean {
  return pathname === '/api/image.php' || pathname === '/api/thumb.php' || pathname.startsWith('/i/');
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

/** A request from this machine: the probes are not public (as nginx keeps the services' probes off its server). */
function fromThisMachine(req: express.Request): boolean {
  const address = req.socket.remoteAddress ?? '';
  return address === '127.0.0.1' || address === '::1' || address === '::ffff:127.0.0.1';
}

/**
 * The embedded stand-in for nginx (proxy/nginx.conf.template): the same routes,
 * the same v1 rewrite file, the same request id and client-IP handling, and /i/
 * served from the images folder with nosniff and long cache headers.
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
  front.use('/i', (_req, res) => {
    res.status(404).json(IMAGE_NOT_FOUND);
  });

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
    if ((pathname === '/healthz' || pathname === '/readyz' || pathname === '/metrics') && req.method === 'GET' && fromThisMachine(req)) {
      answerProbe(pathname, res).catch(next);
      return;
    }
    res.status(404).json(TOOLS_NOT_FOUND);
  });

  async function answerProbe(pathname: string, res: express.Response): Promise<void> {
    if (pathname === '/healthz') {
      res.json({ status: 'ok' });
    } else if (pathname === '/readyz') {
      const ready = await deps.probes.readiness();
      res.status(ready.status === 'unavailable' ? 503 : 200).json(ready);
    } else {
      res.type(PROMETHEUS_TEXT).send(await deps.probes.metrics());
    }
  }

  return front;
}
