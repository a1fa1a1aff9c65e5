export default async function globalTeardown(): Promise<void> {
  await (globalThis as { stopTestS3Server?: () => Promise<void> }).stopTestS3Server?.();
}
