import path from 'node:path';
import { loadConfig } from '../src/config';

describe('loadConfig', () => {
  test('when the environment is empty, then the documented defaults apply and the result is frozen', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3001,
      host: '0.0.0.0',
      databaseUrl: 'pglite:./data/images-db',
      database: { kind: 'pglite-dir', dir: path.resolve('data/images-db') },
      storageDir: path.resolve('data/images'),
      publicBaseUrl: 'http://localhost:8080',
      timeZone: 'Asia/Shanghai',
      recycleRetentionDays: 30,
      logLevel: 'info',
      shutdownTimeoutMs: 10000,
      maxUploadBytes: 64 * 1024 * 1024,
    });
    expect(config.thumbSigningSecret.length).toBeGreaterThanOrEqual(32);
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.database)).toBe(true);
  });

  test('when values are given, then they are parsed', () => {
    const config = loadConfig({
      PORT: '8081',
      DATABASE_URL: 'postgres://u@db:5432/images',
      PUBLIC_BASE_URL: 'https://img.example.com/',
      STORAGE_DIR: '/srv/images',
      NODE_ENV: 'production',
      THUMB_SIGNING_SECRET: 's'.repeat(32),
      RECYCLE_RETENTION_DAYS: '7',
      LOG_LEVEL: 'silent',
    });
    expect(config).toMatchObject({
      port: 8081,
      database: { kind: 'postgres', url: 'postgres://u@db:5432/images' },
      publicBaseUrl: 'https://img.example.com',
      storageDir: '/srv/images',
      recycleRetentionDays: 7,
    });
    expect(loadConfig({ DATABASE_URL: 'pglite:memory' }).database).toEqual({ kind: 'pglite-memory' });
  });

  test.each([
    [{ PORT: 'abc' }, 'PORT must be a non-negative integer'],
    [{ PORT: '70000' }, 'PORT'],
    [{ NODE_ENV: 'production' }, 'THUMB_SIGNING_SECRET is required and must be at least 32 characters when NODE_ENV=production'],
    [{ NODE_ENV: 'production', THUMB_SIGNING_SECRET: 'short' }, 'THUMB_SIGNING_SECRET'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL must be postgres://…, pglite:memory or pglite:<dir>'],
    [{ TIME_ZONE: 'Mars/Olympus' }, 'TIME_ZONE must be an IANA time zone such as Asia/Shanghai'],
    [{ PUBLIC_BASE_URL: 'not a url' }, 'PUBLIC_BASE_URL'],
    [{ RECYCLE_RETENTION_DAYS: '0' }, 'RECYCLE_RETENTION_DAYS'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ MAX_UPLOAD_BYTES: '10MB' }, 'MAX_UPLOAD_BYTES'],
    // The values .env.example ships: copied as they are, they must not start a production service.
    [{ NODE_ENV: 'production', THUMB_SIGNING_SECRET: 'change-me-to-a-long-random-string-of-32-chars-or-more' }, 'THUMB_SIGNING_SECRET is the placeholder from .env.example: set a random value (e.g. openssl rand -hex 32)'],
    [{ NODE_ENV: 'production', THUMB_SIGNING_SECRET: 'dev-only-thumb-signing-secret-change-me-0123456789' }, 'THUMB_SIGNING_SECRET is the placeholder'],
  ])('when the environment has %j, then loading throws one line naming the variable', (env, message) => {
    let thrown: Error | undefined;
    try {
      loadConfig(env);
    } catch (error) {
      thrown = error as Error;
    }
    expect(thrown?.message).toContain(message);
    expect(thrown?.message.startsWith(Object.keys(env).includes('NODE_ENV') ? 'THUMB_SIGNING_SECRET' : Object.keys(env)[0]!)).toBe(true);
    expect(thrown?.message).not.toContain('\n');
  });

  test('when production runs on the placeholder database password of .env.example, then loading refuses it', () => {
    const env = { NODE_ENV: 'production', THUMB_SIGNING_SECRET: 'a1'.repeat(20), DATABASE_URL: 'postgres://postgres:change-me-postgres@postgres:5432/images' };
    expect(() => loadConfig(env)).toThrow('DATABASE_URL has the placeholder password from .env.example: set POSTGRES_PASSWORD to a real one');
    expect(loadConfig({ ...env, DATABASE_URL: 'postgres://postgres:Xk29fh3@postgres:5432/images' }).database).toMatchObject({ kind: 'postgres' });
    // Outside production the placeholders are just values: a developer's compose file may use them.
    expect(loadConfig({ ...env, NODE_ENV: 'development' }).database).toMatchObject({ kind: 'postgres' });
  });
});
