import express from 'express';
import { createCheveretoRoutes } from './chevereto-routes';
import type { CompatDeps } from './compat-deps';
import { createEasyImageRoutes } from './easyimage-routes';
import { createLskyRoutes } from './lsky-routes';

/**
 * The other hosts' APIs, each under its own prefix so they never collide with the platform's paths
 * (`/api/v1/*` and `/api/index.php` are the tool directory's): a client's server URL is
 * `https://<host>/compat/lsky`, `…/compat/chevereto`, `…/compat/easyimage`. nginx sends `/compat/`
 * to this service (proxy/nginx.conf.template).
 */
export function createCompatRoutes(deps: CompatDeps): express.Router {
  const router = express.Router();
  router.use('/compat', (req, res, next) => {
    // One user's images or a refusal, as every API answer here: no cache may keep it.
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Access-Control-Allow-Origin', '*');
    if (req.method === 'OPTIONS') {
      res.setHeader('Access-Control-Allow-Methods', 'GET, POST, DELETE, OPTIONS');
      res.setHeader('Access-Control-Allow-Headers', 'Authorization, Content-Type, Accept, X-API-Key, token');
      res.status(204).end();
      return;
    }
    next();
  });
  router.use('/compat/lsky', express.urlencoded({ extended: false, limit: '64kb', parameterLimit: 50 }), express.json({ limit: '64kb' }), createLskyRoutes(deps));
  router.use('/compat/chevereto', createCheveretoRoutes(deps));
  router.use('/compat/easyimage', createEasyImageRoutes(deps));
  return router;
}
