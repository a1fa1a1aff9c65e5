/**
 * `npx tsx scripts/with-pgbouncer.ts <command> [args…]`: runs the command with TEST_DATABASE_URL
 * pointing at a PgBouncer of its own (Debian's package, or PGBOUNCER_BINARY; transaction pooling; a
 * free port; config in a temp folder; PGBOUNCER_MAX_PREPARED_STATEMENTS when set) in front of the
 * Postgres TEST_DATABASE_URL names, and stops it afterwards. CI runs the services' suites through it:
 * Debian 12's 1.18, and a current one (scripts/ci/current-pgbouncer.sh) with and without
 * prepared statements.
 */
import { spawn } from 'node:child_process';
import { startPgBouncer } from '../packages/kit/src/testing/pgbouncer';

async function main(argv: string[]): Promise<number> {
  const server = process.env.TEST_DATABASE_URL;
  if (!server || argv.length === 0) {
    process.stderr.write('usage: TEST_DATABASE_URL=postgres://… npx tsx scripts/with-pgbouncer.ts <command> [args…]\n');
    return 2;
  }
  const maxPrepared = process.env.PGBOUNCER_MAX_PREPARED_STATEMENTS;
  const bouncer = await startPgBouncer(server, { poolSize: 10, maxPreparedStatements: maxPrepared ? Number(maxPrepared) : undefined });
  process.stderr.write(`${bouncer.description} (transaction pooling) on port ${bouncer.port}, in front of ${new URL(server).host}\n`);
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
