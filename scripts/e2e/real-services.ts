import { execFileSync } from 'node:child_process';

/**
 * The end-to-end suite needs a real Postgres (replicas share it), a real Redis (the
 * limit is shared through it) and nginx. Without them it is skipped, unless
 * REQUIRE_REAL_SERVICES=1 (CI), which turns the skip into a failure.
 */
export interface RealServices {
  databaseUrl: string;
  redisUrl: string;
}

function hasNginx(): boolean {
  try {
    execFileSync('nginx', ['-v'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export function realServices(): RealServices | null {
  const databaseUrl = process.env.TEST_DATABASE_URL;
  const redisUrl = process.env.TEST_REDIS_URL;
  const missing = [
    databaseUrl ? null : 'TEST_DATABASE_URL',
    redisUrl ? null : 'TEST_REDIS_URL',
    hasNginx() ? null : 'nginx on PATH',
  ].filter((m): m is string => m !== null);
  if (missing.length === 0) return { databaseUrl: databaseUrl!, redisUrl: redisUrl! };
  if (process.env.REQUIRE_REAL_SERVICES === '1') {
    throw new Error(`REQUIRE_REAL_SERVICES=1 but the e2e suite is missing: ${missing.join(', ')}`);
  }
  return null;
}
