import { ensureWebAppBuilt } from '../../../../../scripts/lib/web-app';

export default async function globalSetup(): Promise<void> {
  await ensureWebAppBuilt();
}
