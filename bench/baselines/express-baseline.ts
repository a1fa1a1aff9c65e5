/**
 * Baseline of target 1: a minimal Express 5 handler that answers each tools list or search URL with
 * the bytes the tool directory gave for it (read from BODIES_FILE: {"<url>": "<base64 body>"}).
 * Started behind the same rendered nginx as the service, so the two differ only in the handler.
 */
import { readFileSync } from 'node:fs';
import express from 'express';

const bodies = new Map<string, Buffer>(
  Object.entries(JSON.parse(readFileSync(process.env.BODIES_FILE!, 'utf8')) as Record<string, string>).map(([url, body]) => [url, Buffer.from(body, 'base64')]),
);

const app = express();
app.set('etag', false); // as the service: no hash of every body
app.disable('x-powered-by');
app.get('/readyz', (_req, res) => {
  res.json({ status: 'ok' });
});
app.get('/api/index.php', (req, res) => {
  const body = bodies.get(req.originalUrl);
  if (!body) {
    res.status(404).end();
    return;
  }
  res.type('application/json').send(body);
});
app.listen(Number(process.env.PORT), process.env.HOST ?? '127.0.0.1');
