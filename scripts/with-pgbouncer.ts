/**
 * `npx tsx scripts/with-pgbouncer.ts <command> [args…]`: runs the command with TEST_DATABASE_URL
 * pointing at a PgBouncer of its own (Debian's package, transaction pooling, a free port, config in a
 * temp folder) in front of the Postgres TEST_DATABASE_URL names, and stops it afterwards. CI runs the
 * services' suites through it once.
 */
import { spawn } from 'node:child_process';
import { startPgBouncer } from '../packages/kit/src/testing/pgbouncer';

async function main(argv: string[]): Promise<number> {
  const server = process.env.TEST_DATABASE_URL;
  if (!server || argv.length === 0) {
    process.stderr.write('usage: TEST_DATABASE_URL=postgres://… npx tsx scripts/with-pgbouncer.ts <command> [args…]\n');
    return 2;
  }
  const bouncer = await startPgBouncer(server, { poolSize: 10 });
  process.stderr.write(`PgBouncer (transaction pooling) on port ${bouncer.port}, in front of ${new URL(server).host}\n`);
  try {
    const child = spawn(argv[0]!, argv.slice(1), { stdio: 'inherit', env: { ...process.env, TEST_DATABASE_URL: bouncer.url } });
    const forward = (signal: NodeJS.Signals) => child.kill(signal);
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    return await new Promise<number>((resolve) => child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
  } finally {
    await bouncer.stop();
  }
}

main(process.argv.slice(2)).then(
  (status) => process.exit(status),
  (error: unknown) => {
    process.stderr.write(`error: ${(error as Error)?.message ?? String(error)}\n`);
    process.exit(1);
  },
);
