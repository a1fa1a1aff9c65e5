import { ensureWebAppBuilt } from '../lib/web-app';

/** The platform tests serve the web app at /app/ (front door, npm start, nginx): build it once, before any test file runs. */
export default async function globalSetup(): Promise<void> {
  await ensureWebAppBuilt();
}
