import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';

/**
 * A real S3-protocol server for the tests: s3rver (an npm package speaking S3's REST API, keeping
 * objects on disk), started once by jest's globalSetup on a random loopback port. Never a mock of
 * the SDK: every request the S3 backend makes goes over HTTP, signed, to a server that parses it.
 */

/** Through which globalSetup hands the server's address and folder to the test files. */
const ENDPOINT_VARIABLE = 'TEST_S3_ENDPOINT';
const DIRECTORY_VARIABLE = 'TEST_S3_DIRECTORY';
export const TEST_S3_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

interface S3rverInstance {
  run(): Promise<{ address: string; port: number }>;
  close(): Promise<void>;
}

/** The backend the images suite runs on: TEST_STORAGE=s3 runs all of it against the S3 server. */
export function testStorageBackend(): 'local' | 's3' {
  return process.env.TEST_STORAGE === 's3' ? 's3' : 'local';
}

/** s3rver, if the package can be loaded (it is a devDependency; a trimmed install may lack it). */
function loadS3rver(): (new (options: Record<string, unknown>) => S3rverInstance) | null {
  try {
    return require('s3rver');
  } catch {
    return null;
  }
}

/** For globalSetup: starts the server (when the package is there) and says where it is; returns its stop. */
export async function startTestS3Server(): Promise<(() => Promise<void>) | null> {
  const S3rver = loadS3rver();
  if (!S3rver) {
    if (testStorageBackend() === 's3') throw new Error('TEST_STORAGE=s3 needs the s3rver package (npm ci installs it)');
    return null;
  }
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 's3rver-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory });
  const { port } = await server.run();
  process.env[ENDPOINT_VARIABLE] = `http://127.0.0.1:${port}`;
  process.env[DIRECTORY_VARIABLE] = directory;
  return async () => {
    await server.close();
    fs.rmSync(directory, { recursive: true, force: true });
  };
}

export function testS3Endpoint(): string | undefined {
  return process.env[ENDPOINT_VARIABLE];
}

export interface TestBucket {
  bucket: string;
  /** The service's S3_ variables for this bucket. */
  env: Record<string, string>;
  /** Where s3rver keeps the objects of `area` on disk (to watch them appear, as the crash test does). */
  areaDirectory(prefix: string, area: string): string;
}

/** A new, empty bucket on the test server (one per test file, as each has its own database). */
export async function createTestBucket(): Promise<TestBucket> {
  const endpoint = testS3Endpoint();
  if (!endpoint) throw new Error('no S3 test server: jest globalSetup starts one when the s3rver package is installed');
  const bucket = `t-${randomBytes(8).toString('hex')}`;
  const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: TEST_S3_CREDENTIALS });
  try {
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
  } finally {
    client.destroy();
  }
  return {
    bucket,
    env: {
      S3_ENDPOINT: endpoint,
      S3_REGION: 'us-east-1',
      S3_BUCKET: bucket,
      S3_FORCE_PATH_STYLE: 'true',
      S3_ACCESS_KEY_ID: TEST_S3_CREDENTIALS.accessKeyId,
      S3_SECRET_ACCESS_KEY: TEST_S3_CREDENTIALS.secretAccessKey,
    },
    areaDirectory: (prefix, area) => path.join(process.env[DIRECTORY_VARIABLE]!, bucket, ...`${prefix}${area}`.split('/').filter(Boolean)),
  };
}

/**
 * Tests of the S3 backend itself (and of migrating to and from it) run whenever the test server
 * is there; without the s3rver package they are skipped, and with REQUIRE_REAL_SERVICES=1 (CI) that
 * skip becomes a failure.
 */
export function describeWithS3(name: string, body: () => void): void {
  if (testS3Endpoint()) {
    describe(name, body);
  } else if (process.env.REQUIRE_REAL_SERVICES === '1') {
    describe(name, () => {
      it('needs the S3 test server (REQUIRE_REAL_SERVICES=1)', () => {
        throw new Error('the s3rver package is not installed but REQUIRE_REAL_SERVICES=1: this test must run against a real S3 server');
      });
    });
  } else {
    describe.skip(`${name} (needs the s3rver package)`, body);
  }
}
