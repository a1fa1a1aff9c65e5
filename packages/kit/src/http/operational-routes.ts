import type { Express } from 'express';
import type { Registry } from 'prom-client';

/**
 * The routes an orchestrator and a scraper use: `/healthz` (the process answers), `/readyz` (what
 * `readiness` reports; 503 when it says `unavailable`) and `/metrics` (the registry, Prometheus text).
 */
export function mountOperationalRoutes(app: Express, options: { readiness: () => Promise<{ status: string }>; registry: Registry }): void {
  app.get('/healthz', (_req, res) => {
    res.locals.metricsRoute = 'healthz';
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    res.locals.metricsRoute = 'readyz';
    const ready = await options.readiness();
    res.status(ready.status === 'unavailable' ? 503 : 200).json(ready);
  });
  app.get('/metrics', async (_req, res) => {
    res.locals.metricsRoute = 'metrics';
    res.type(options.registry.contentType).send(await options.registry.metrics());
  });
}
