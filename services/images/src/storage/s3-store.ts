import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import type { ObjectStore, OpenedObject } from './object-store';
import { assertStorageKey, type StorageArea } from './storage-keys';

export interface S3Settings {
  /** Omitted: AWS S3 itself (the region's endpoint). */
  endpoint?: string;
  region: string;
  bucket: string;
  /** '' or a folder-like prefix ending in '/': every object of the service is under it. */
  prefix: string;
  /** Path-style URLs (`endpoint/bucket/key`), which MinIO and most self-hosted stores need. */
  forcePathStyle: boolean;
  /** Omitted: the SDK's default chain (instance role, web identity, shared config). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

export function createS3Client(settings: S3Settings): S3Client {
  return new S3Client({
    endpoint: settings.endpoint,
    region: settings.region,
    forcePathStyle: settings.forcePathStyle,
    // A copy: the SDK marks the object it is given (the configuration's is frozen).
    credentials: settings.credentials && { ...settings.credentials },
    // The SDK's default since 2025 sends aws-chunked bodies with trailing CRC checksums, which
    // S3-compatible stores (MinIO before 2025, OSS, R2 at first, s3rver) do not all accept. Integrity
    // is checked with Content-MD5 instead, which every one of them verifies.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    // A store that stops answering must fail the request, not hold it (and its upload) forever.
    requestHandler: { connectionTimeout: 5_000, requestTimeout: 120_000 },
  });
}

function statusOf(error: unknown): number | undefined {
  return error instanceof S3ServiceException ? error.$metadata.httpStatusCode : undefined;
}

async function md5OfFile(file: string): Promise<string> {
  const hash = createHash('md5');
  await pipeline(createReadStream(file), hash);
  return hash.digest('base64');
}

/**
 * Objects in an S3-compatible bucket under `<prefix><area>/<storageKey>`. A bucket has no rename:
 * a move is a server-side copy, then a delete of the source (each step safe to repeat). S3, MinIO,
 * R2 and OSS read their own writes and deletes at once, which is what lets the bin stop serving an
 * image the moment its delete returns.
 */
export function createS3Store(settings: S3Settings, client: S3Client = createS3Client(settings)): ObjectStore {
  const { bucket } = settings;
  const objectKey = (area: StorageArea, storageKey: string): string => {
    assertStorageKey(storageKey);
    return `${settings.prefix}${area}/${storageKey}`;
  };
  const where = () => `bucket ${bucket}${settings.endpoint ? ` at ${settings.endpoint}` : ''}`;

  async function exists(area: StorageArea, storageKey: string): Promise<boolean> {
    try {
      await client.send(new HeadObjectCommand({ Bucket: bucket, Key: objectKey(area, storageKey) }));
      return true;
    } catch (error) {
      if (statusOf(error) === 404) return false;
      throw error;
    }
  }

  return {
    backend: 's3',

    async prepare(): Promise<void> {
      try {
        await client.send(new HeadBucketCommand({ Bucket: bucket }));
      } catch (error) {
        const status = statusOf(error);
        throw new Error(`S3 ${where()} cannot be used: ${status ? `HTTP ${status} ` : ''}${(error as Error).name}: ${(error as Error).message}`);
      }
    },

    async answers(timeoutMs): Promise<void> {
      await client.send(new HeadBucketCommand({ Bucket: bucket }), { abortSignal: AbortSignal.timeout(timeoutMs) });
    },

    async putFile(area, storageKey, tempFile, contentType): Promise<void> {
      const { size } = await fs.stat(tempFile);
      await client.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: objectKey(area, storageKey),
          Body: createReadStream(tempFile),
          ContentLength: size,
          ContentType: contentType,
          ContentMD5: await md5OfFile(tempFile),
        }),
      );
      await fs.unlink(tempFile);
    },

    async putBytes(area, storageKey, bytes, contentType): Promise<void> {
      await client.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: objectKey(area, storageKey),
          Body: bytes,
          ContentLength: bytes.length,
          ContentType: contentType,
          ContentMD5: createHash('md5').update(bytes).digest('base64'),
        }),
      );
    },

    async move(from, to, storageKey): Promise<void> {
      const source = objectKey(from, storageKey);
      // Keeps the Content-Type (MetadataDirective COPY is the default).
      await client.send(new CopyObjectCommand({ Bucket: bucket, Key: objectKey(to, storageKey), CopySource: `${bucket}/${source}` }));
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: source }));
    },

    exists,

    async remove(area, storageKey): Promise<void> {
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: objectKey(area, storageKey) }));
    },

    async open(area, storageKey): Promise<OpenedObject | null> {
      try {
        const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: objectKey(area, storageKey) }));
        if (!(object.Body instanceof Readable)) throw new Error('the S3 client gave no readable body');
        return {
          body: object.Body,
          size: Number(object.ContentLength ?? 0),
          lastModified: object.LastModified ?? new Date(0),
          etag: object.ETag ?? '""',
          contentType: object.ContentType,
        };
      } catch (error) {
        if (statusOf(error) === 404) return null;
        throw error;
      }
    },

    async *list(area) {
      const prefix = `${settings.prefix}${area}/`;
      let token: string | undefined;
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }));
        for (const object of page.Contents ?? []) if (object.Key) yield object.Key.slice(prefix.length);
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
    },

    async close(): Promise<void> {
      client.destroy();
    },
  };
}
