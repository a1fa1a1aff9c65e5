import { prepareTemplate } from '@platform/kit/testing';
import { toolsMigrations } from './service-migrations';

export default async function globalSetup(): Promise<void> {
  await prepareTemplate('tools', toolsMigrations);
}
