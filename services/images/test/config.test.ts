import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config';

/** Keys as an operator makes them (openssl rand -hex 32). */
const randomKey = () => randomBytes(32).toString('hex');
const THUMB = randomKey();
const TOKEN_KEY = randomKey();

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
      storageBackend: 'local',
      s3: undefined,
      trustedProxies: ['loopback', 'uniquelocal'],
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
      THUMB_SIGNING_SECRET: THUMB,
      TOKEN_ENCRYPTION_KEY: TOKEN_KEY,
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
    expect(config.tokenEncryptionKey).toEqual(Buffer.from(TOKEN_KEY, 'hex'));
    expect(loadConfig({ TRUSTED_PROXIES: ' 10.1.2.3, 172.16.0.0/12,fd00::/8 ,loopback' }).trustedProxies).toEqual(['10.1.2.3', '172.16.0.0/12', 'fd00::/8', 'loopback']);
    expect(loadConfig({ DATABASE_URL: 'pglite:memory' }).database).toEqual({ kind: 'pglite-memory' });
  });

  test.each([
    [{ PORT: 'abc' }, 'PORT must be a non-negative integer'],
    [{ PORT: '70000' }, 'PORT'],
    [{ NODE_ENV: 'production' }, 'THUMB_SIGNING_SECRET is required unless DATABASE_URL is pglite and NODE_ENV is unset, development or test: set a random value made by openssl rand -hex 32'],
    [{ NODE_ENV: 'production', THUMB_SIGNING_SECRET: 'short' }, 'THUMB_SIGNING_SECRET must be at least 32 characters: set a random value made by openssl rand -hex 32'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL must be postgres://…, pglite:memory or pglite:<dir>'],
    [{ TIME_ZONE: 'Mars/Olympus' }, 'TIME_ZONE must be an IANA time zone such as Asia/Shanghai'],
    [{ PUBLIC_BASE_URL: 'not a url' }, 'PUBLIC_BASE_URL'],
    [{ RECYCLE_RETENTION_DAYS: '0' }, 'RECYCLE_RETENTION_DAYS'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ MAX_UPLOAD_BYTES: '10MB' }, 'MAX_UPLOAD_BYTES'],
    // The values .env.example ships: copied as they are, they must not start a production service.
    [{ NODE_ENV: 'production', THUMB_SIGNING_SECRET: 'change-me-to-a-long-random-string-of-32-chars-or-more' }, 'THUMB_SIGNING_SECRET is the placeholder from .env.example: set a random value (e.g. openssl rand -hex 32)'],
    [{ NODE_ENV: 'production', THUMB_SIGNING_SECRET: 'dev-only-thumb-signing-secret-change-me-0123456789' }, 'THUMB_SIGNING_SECRET is the placeholder'],
    [{ NODE_ENV: 'production', THUMB_SIGNING_SECRET: THUMB }, 'TOKEN_ENCRYPTION_KEY is required unless DATABASE_URL is pglite and NODE_ENV is unset, development or test: set a random value made by openssl rand -hex 32'],
    [{ NODE_ENV: 'production', THUMB_SIGNING_SECRET: THUMB, TOKEN_ENCRYPTION_KEY: '0'.repeat(64) }, 'TOKEN_ENCRYPTION_KEY is a placeholder: set a random value (e.g. openssl rand -hex 32)'],
    [{ TOKEN_ENCRYPTION_KEY: 'not-hex' }, 'TOKEN_ENCRYPTION_KEY must be 64 hexadecimal characters (32 bytes, e.g. openssl rand -hex 32)'],
    [{ SESSION_TTL_HOURS: '0' }, 'SESSION_TTL_HOURS'],
    [{ REGISTRATION_ENABLED: 'yes' }, 'REGISTRATION_ENABLED must be true or false'],
    [{ SITE_NAME: 'x'.repeat(65) }, 'SITE_NAME'],
    [{ DATABASE_PREPARED_STATEMENTS: 'off' }, 'DATABASE_PREPARED_STATEMENTS must be auto, true or false'],
    [{ DATABASE_POOL_MAX: '0' }, 'DATABASE_POOL_MAX'],
    [{ DATABASE_MIGRATIONS: 'sometimes' }, 'DATABASE_MIGRATIONS must be apply or verify'],
    [{ STORAGE_BACKEND: 'ftp' }, 'STORAGE_BACKEND must be local or s3'],
    [{ STORAGE_BACKEND: 's3' }, 'S3_BUCKET is required when STORAGE_BACKEND=s3'],
    [{ S3_BUCKET: 'Images_Bucket' }, 'S3_BUCKET must be a bucket name'],
    [{ S3_BUCKET: 'images', S3_ENDPOINT: 'minio:9000' }, 'S3_ENDPOINT must be an http(s) URL such as http://minio:9000'],
    [{ S3_BUCKET: 'images', S3_PREFIX: '/abs' }, 'S3_PREFIX must be a key prefix'],
    [{ S3_BUCKET: 'images', S3_PREFIX: 'a/../b' }, 'S3_PREFIX must not contain empty, . or .. segments'],
    [{ S3_BUCKET: 'images', S3_FORCE_PATH_STYLE: 'yes' }, 'S3_FORCE_PATH_STYLE must be true or false'],
    [{ NODE_ENV: 'production', THUMB_SIGNING_SECRET: THUMB, TOKEN_ENCRYPTION_KEY: TOKEN_KEY, S3_BUCKET: 'images', S3_ACCESS_KEY_ID: 'minio', S3_SECRET_ACCESS_KEY: 'change-me-minio-secret' }, 'S3_SECRET_ACCESS_KEY is a placeholder'],
    [{ S3_BUCKET: 'images', S3_ACCESS_KEY_ID: 'AKIA1' }, 'S3_SECRET_ACCESS_KEY must be set together with the other S3 key variable'],
    [{ TRUSTED_PROXIES: 'nginx' }, 'TRUSTED_PROXIES must be a comma-separated list of proxy addresses, CIDR ranges, loopback, linklocal or uniquelocal: "nginx" is none of them'],
    [{ TRUSTED_PROXIES: '10.0.0.0/33' }, 'TRUSTED_PROXIES must be a comma-separated list of proxy addresses, CIDR ranges, loopback, linklocal or uniquelocal: "10.0.0.0/33" is none of them'],
    [{ TRUSTED_PROXIES: 'loopback,,10.1.2.3' }, 'TRUSTED_PROXIES must be a comma-separated list of proxy addresses, CIDR ranges, loopback, linklocal or uniquelocal: "" is none of them'],
  ])('when the environment has %j, then loading throws one line naming the variable', (env, message) => {
    let thrown: Error | undefined;
    try {
      loadConfig(env);
    } catch (error) {
      thrown = error as Error;
    }
    expect(thrown?.message).toContain(message);
    expect(thrown?.message.startsWith(message.split(' ')[0]!)).toBe(true);
    expect(thrown?.message).not.toContain('\n');
  });

  test('when the S3 variables are given, then the bucket settings are parsed, the prefix ends in / and the keys are kept together', () => {
    const config = loadConfig({
      STORAGE_BACKEND: 's3',
      S3_ENDPOINT: 'http://minio:9000/',
      S3_REGION: 'auto',
      S3_BUCKET: 'images',
      S3_PREFIX: 'platform',
      S3_FORCE_PATH_STYLE: 'true',
      S3_ACCESS_KEY_ID: 'minio',
      S3_SECRET_ACCESS_KEY: 'minio-secret',
    });
    expect(config.storageBackend).toBe('s3');
    expect(config.s3).toEqual({
      endpoint: 'http://minio:9000',
      region: 'auto',
      bucket: 'images',
      prefix: 'platform/',
      forcePathStyle: true,
      credentials: { accessKeyId: 'minio', secretAccessKey: 'minio-secret' },
    });
    // AWS S3 itself: no endpoint, the SDK's default credentials, the local disk still the default backend.
    expect(loadConfig({ S3_BUCKET: 'images' })).toMatchObject({
      storageBackend: 'local',
      s3: { endpoint: undefined, region: 'us-east-1', bucket: 'images', prefix: '', forcePathStyle: false, credentials: undefined },
    });
  });

  test('when the site-setting variables are set, then each is fixed; unset or empty, each is left to the admins', () => {
    expect(loadConfig({}).fixedSettings).toEqual({ siteName: undefined, registrationEnabled: undefined, defaultGroup: undefined });
    expect(loadConfig({ SITE_NAME: '', REGISTRATION_ENABLED: '', REGISTRATION_GROUP: '' }).fixedSettings).toEqual({ siteName: undefined, registrationEnabled: undefined, defaultGroup: undefined });
    expect(loadConfig({ SITE_NAME: ' 图床 ', REGISTRATION_ENABLED: 'false', REGISTRATION_GROUP: 'vip' }).fixedSettings).toEqual({ siteName: '图床', registrationEnabled: false, defaultGroup: 'vip' });
  });

  test('when production runs on the placeholder database password of .env.example, then loading refuses it', () => {
    const env = { NODE_ENV: 'production', THUMB_SIGNING_SECRET: THUMB, TOKEN_ENCRYPTION_KEY: TOKEN_KEY, DATABASE_URL: 'postgres://postgres:change-me-postgres@postgres:5432/images' };
    expect(() => loadConfig(env)).toThrow('DATABASE_URL has a placeholder password: set the Postgres password to a random value made by openssl rand -hex 32');
    expect(loadConfig({ ...env, DATABASE_URL: 'postgres://postgres:Xk29fh3Lq7w@postgres:5432/images' }).database).toMatchObject({ kind: 'postgres' });
    // Outside production the placeholders are just values: a developer's compose file may use them.
    expect(loadConfig({ ...env, NODE_ENV: 'development' }).database).toMatchObject({ kind: 'postgres' });
  });

  describe('the keys that sign links and seal tokens', () => {
    const required = (variable: string) => `${variable} is required unless DATABASE_URL is pglite and NODE_ENV is unset, development or test: set a random value made by openssl rand -hex 32`;
    const firstLine = (env: Record<string, string>) => {
      try {
        loadConfig(env);
        return 'loaded';
      } catch (error) {
        return (error as Error).message;
      }
    };

    test.each([
      ['pglite:memory', undefined],
      ['pglite:memory', 'development'],
      ['pglite:memory', 'test'],
      ['pglite:./data/images-db', undefined],
      ['pglite:/srv/images-db', 'development'],
    ])('when DATABASE_URL is %s and NODE_ENV is %s, then the development keys are used', (databaseUrl, nodeEnv) => {
      const env: Record<string, string> = { DATABASE_URL: databaseUrl };
      if (nodeEnv !== undefined) env.NODE_ENV = nodeEnv;
      const config = loadConfig(env);
      expect(config.thumbSigningSecret).toBe(loadConfig({}).thumbSigningSecret);
      expect(config.tokenEncryptionKey.equals(loadConfig({}).tokenEncryptionKey)).toBe(true);
    });

    test.each([
      ['postgres://u@db:5432/images', undefined],
      ['postgres://u@db:5432/images', 'development'],
      ['postgres://u@db:5432/images', 'test'],
      ['postgresql://u@db:5432/images', 'production'],
      ['pglite:memory', 'prod'],
      ['pglite:/srv/images-db', 'Production'],
      ['pglite:/srv/images-db', 'staging'],
      ['pglite:memory', 'Development'],
    ])('when DATABASE_URL is %s and NODE_ENV is %s without keys, then loading refuses with one line naming each missing key', (databaseUrl, nodeEnv) => {
      const env: Record<string, string> = { DATABASE_URL: databaseUrl };
      if (nodeEnv !== undefined) env.NODE_ENV = nodeEnv;
      expect(firstLine(env)).toBe(required('THUMB_SIGNING_SECRET'));
      expect(firstLine({ ...env, THUMB_SIGNING_SECRET: THUMB })).toBe(required('TOKEN_ENCRYPTION_KEY'));
      const config = loadConfig({ ...env, THUMB_SIGNING_SECRET: THUMB, TOKEN_ENCRYPTION_KEY: TOKEN_KEY });
      expect(config.thumbSigningSecret).toBe(THUMB);
      expect(config.tokenEncryptionKey).toEqual(Buffer.from(TOKEN_KEY, 'hex'));
    });

    const guessable = (variable: string) => `${variable} is too easy to guess (a repeating pattern or fewer than 8 different characters): set a random value made by openssl rand -hex 32`;
    test.each([
      ['a'.repeat(32)],
      ['password'.repeat(4)],
      ['0123456789abcdef'.repeat(4)],
      ['0123456789abcdef'.repeat(4).toUpperCase()],
      ['abcdefghijklmnopqrstuvwxyz012345'],
      ['zyxwvutsrqponmlkjihgfedcba987654'],
      ['Secret1!'.repeat(4) + 'Secret'],
      ['aabbaabbaabbaabbaabbaabbaabbaabbc'],
    ])('when THUMB_SIGNING_SECRET is %s, then every environment refuses it, naming the command that makes a good one', (secret) => {
      for (const env of [{ NODE_ENV: 'production', DATABASE_URL: 'postgres://u@db/images' }, {}] as Array<Record<string, string>>) {
        expect(firstLine({ ...env, THUMB_SIGNING_SECRET: secret, TOKEN_ENCRYPTION_KEY: TOKEN_KEY })).toBe(guessable('THUMB_SIGNING_SECRET'));
      }
    });

    test.each([['0123456789abcdef'.repeat(4)], ['deadbeef'.repeat(8)], ['ab'.repeat(32)], ['0f1e2d3c4b5a6978'.repeat(4)], ['0123456789ABCDEF'.repeat(4)]])(
      'when TOKEN_ENCRYPTION_KEY is %s, then every environment refuses it, naming the command that makes a good one',
      (key) => {
        for (const env of [{ NODE_ENV: 'production', DATABASE_URL: 'postgres://u@db/images' }, {}] as Array<Record<string, string>>) {
          expect(firstLine({ ...env, THUMB_SIGNING_SECRET: THUMB, TOKEN_ENCRYPTION_KEY: key })).toBe(guessable('TOKEN_ENCRYPTION_KEY'));
        }
      },
    );

    test('when production runs on a guessable database password, then loading refuses it, naming POSTGRES_PASSWORD and the command', () => {
      const env = { NODE_ENV: 'production', THUMB_SIGNING_SECRET: THUMB, TOKEN_ENCRYPTION_KEY: TOKEN_KEY };
      for (const password of ['password', 'postgres', 'aaaaaaaaaaaa', 'abcdefghijkl', 'qwe123qwe123']) {
        expect(firstLine({ ...env, DATABASE_URL: `postgres://postgres:${password}@postgres:5432/images` })).toBe(
          'DATABASE_URL has a password that is too easy to guess (a repeating pattern or fewer than 8 different characters): set the Postgres password to a random value made by openssl rand -hex 32',
        );
      }
      // Without a password (trust, peer or a .pgpass file) there is nothing to judge.
      expect(firstLine({ ...env, DATABASE_URL: 'postgres://postgres@postgres:5432/images' })).toBe('loaded');
    });

    test('when the keys are random, then every environment accepts them, whatever their case and whichever generator made them', () => {
      for (let round = 0; round < 200; round += 1) {
        const env = { NODE_ENV: 'production', DATABASE_URL: `postgres://postgres:${randomBytes(16).toString('hex')}@db/images` };
        expect(firstLine({ ...env, THUMB_SIGNING_SECRET: randomBytes(16).toString('hex'), TOKEN_ENCRYPTION_KEY: randomKey().toUpperCase() })).toBe('loaded');
        expect(firstLine({ ...env, THUMB_SIGNING_SECRET: randomBytes(24).toString('base64url'), TOKEN_ENCRYPTION_KEY: randomKey() })).toBe('loaded');
      }
    });
  });
  describe('secrets from files (<NAME>_FILE, as compose and Kubernetes mount them)', () => {
    let dir: string;
    beforeEach(() => {
      dir = mkdtempSync(path.join(tmpdir(), 'images-secrets-'));
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));
    const secretFile = (name: string, content: string) => {
      const file = path.join(dir, name);
      writeFileSync(file, content);
      return file;
    };

    it('when each secret is given as a file, then its content without the trailing newline is used', () => {
      const signing = randomBytes(32).toString('hex');
      const key = randomBytes(32).toString('hex');
      const config = loadConfig({
        NODE_ENV: 'production',
        DATABASE_URL_FILE: secretFile('db', 'postgres://images:Qz8vN2pLw7@postgres:5432/images\n'),
        THUMB_SIGNING_SECRET_FILE: secretFile('thumb', `${signing}\n`),
        TOKEN_ENCRYPTION_KEY_FILE: secretFile('key', `${key}\r\n`),
        S3_BUCKET: 'images',
        S3_ACCESS_KEY_ID_FILE: secretFile('s3-id', 'images-app\n'),
        S3_SECRET_ACCESS_KEY_FILE: secretFile('s3-secret', 'Rk3wPq9ZmV2xLt8sNc4y'),
      });
      expect(config.databaseUrl).toBe('postgres://images:Qz8vN2pLw7@postgres:5432/images');
      expect(config.thumbSigningSecret).toBe(signing);
      expect(config.tokenEncryptionKey).toEqual(Buffer.from(key, 'hex'));
      expect(config.s3?.credentials).toEqual({ accessKeyId: 'images-app', secretAccessKey: 'Rk3wPq9ZmV2xLt8sNc4y' });
    });

    it('when a secret file holds a placeholder, then it is refused as the variable would be', () => {
      expect(() => loadConfig({ THUMB_SIGNING_SECRET_FILE: secretFile('thumb', 'change-me-change-me-change-me-change-me\n') })).toThrow(
        'THUMB_SIGNING_SECRET is the placeholder from .env.example',
      );
    });

    it('when both the variable and its _FILE are set, then loading is refused with one line naming both', () => {
      const file = secretFile('thumb', randomBytes(32).toString('hex'));
      expect(() => loadConfig({ THUMB_SIGNING_SECRET: randomBytes(32).toString('hex'), THUMB_SIGNING_SECRET_FILE: file })).toThrow(
        /^THUMB_SIGNING_SECRET and THUMB_SIGNING_SECRET_FILE are both set: set only one of them$/,
      );
    });

    it('when the file cannot be read, then loading is refused naming the variable and the path', () => {
      const missing = path.join(dir, 'absent');
      expect(() => loadConfig({ TOKEN_ENCRYPTION_KEY_FILE: missing })).toThrow(
        new Error(`TOKEN_ENCRYPTION_KEY_FILE names a file that cannot be read: ${missing} (ENOENT)`),
      );
    });
  });
});
