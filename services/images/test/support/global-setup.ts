import { prepareTemplate } from '@platform/kit/testing';
import { startTestS3Server } from './s3-server';
import { imagesMigrations } from './service-migrations';

export default async function globalSetup(): Promise<void> {
  await prepareTemplate('images', imagesMigrations);
  const stop = await startTestS3Server();
  // globalTeardown runs in this same process.
  (globalThis as { stopTestS3Server?: () => Promise<void> }).stopTestS3Server = stop ?? undefined;
}
