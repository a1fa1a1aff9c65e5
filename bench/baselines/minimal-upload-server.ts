/**
 * The baseline of target 2: the smallest HTTP service that does an upload's work. It
 * takes POST /api/image.php with a multipart `file` part (busboy, into memory), runs the bare sharp
 * steps (bare-sharp-steps.ts), writes the original and the thumbnail durably (durable-files.ts) and
 * records the upload with one INSERT (DATABASE_URL, autocommit), then answers a small JSON envelope.
 * Started behind the same rendered nginx as the images service, it shows what HTTP, multipart and
 * a database add to bare sharp by themselves; the images service adds its guarantees on top of that
 * (see docs/benchmarks.md).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import busboy from 'busboy';
import { Pool } from 'pg';
import { bareSharpSteps } from './bare-sharp-steps';
import { syncDir, writeDurably } from './durable-files';

const outDir = process.env.OUT_DIR!;
mkdirSync(outDir, { recursive: true });
const db = new Pool({ connectionString: process.env.DATABASE_URL, max: 4 });

async function store(input: Buffer): Promise<{ id: number; url: string }> {
  const { format, thumbnail } = await bareSharpSteps(input);
  const name = randomBytes(16).toString('hex');
  await writeDurably(path.join(outDir, `${name}.${format}`), input);
  await writeDurably(path.join(outDir, `${name}.thumb.webp`), thumbnail);
  await syncDir(outDir);
  const { rows } = await db.query<{ id: string }>('INSERT INTO uploads (name, size) VALUES ($1, $2) RETURNING id', [name, input.length]);
  return { id: Number(rows[0]!.id), url: `/i/${name}.${format}` };
}

function answer(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
}

async function main(): Promise<void> {
  await db.query('CREATE TABLE IF NOT EXISTS uploads (id bigserial PRIMARY KEY, name text NOT NULL, size integer NOT NULL, created_at timestamptz NOT NULL DEFAULT now())');
  const server = http.createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/readyz') return answer(res, 200, { status: 'ok' });
    if (req.method !== 'POST' || !req.url?.startsWith('/api/image.php')) return answer(res, 404, { code: 1, msg: 'not found' });
    const chunks: Buffer[] = [];
    const parser = busboy({ headers: req.headers, limits: { files: 1 } });
    parser.on('file', (_field, stream) => stream.on('data', (chunk: Buffer) => chunks.push(chunk)));
    parser.on('error', (error: Error) => answer(res, 400, { code: 1, msg: error.message }));
    parser.on('close', () => {
      store(Buffer.concat(chunks)).then(
        (data) => answer(res, 200, { code: 0, msg: 'ok', data }),
        (error: Error) => answer(res, 500, { code: 1, msg: error.message }),
      );
    });
    req.pipe(parser);
  });
  server.listen(Number(process.env.PORT), process.env.HOST ?? '127.0.0.1');
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
