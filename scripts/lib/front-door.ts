import express from 'express';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { applyV1Rewrites, type RewriteRule } from './v1-rewrites';

type RequestHandler = (req: express.Request, res: express.Response, next: express.NextFunction) => void;

export interface FrontDoorDeps {
  imagesApp: RequestHandler;
  toolsApp: RequestHandler;
  /** The images service's `${STORAGE_DIR}/public` folder, served at /i/. */
  imagesPublicDir: string;
  v1Rules: RewriteRule[];
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
    // The front door's own liveness probe, at nginx's path; the services' /healthz stays private.
    if (pathname === '/nginx-health') {
      res.json({ status: 'ok' });
      return;
    }
    res.status(404).json(TOOLS_NOT_FOUND);
  });

  return front;
}
