import crypto from 'node:crypto';
import type { ApiKeysRepository, ApiKeyRow } from './api-keys-repository';

/** Keys are 256 random bits; only their SHA-256 digest is stored, so a key is shown once, at creation. */
export function generateApiKey(): string {
  return `tk_${crypto.randomBytes(32).toString('base64url')}`;
}

export function hashApiKey(apiKey: string): string {
  // The one-shot hash: a third of createHash's cost on a key this short (it runs on every request).
  return crypto.hash('sha256', apiKey, 'hex');
}

export async function createApiKey(
  repository: ApiKeysRepository,
  input: { name: string; rateLimitPerHour: number | null },
): Promise<{ apiKey: string; record: ApiKeyRow }> {
  const apiKey = generateApiKey();
  const record = await repository.insert({
    name: input.name,
    keyHash: hashApiKey(apiKey),
    keyPrefix: apiKey.slice(0, 8),
    rateLimitPerHour: input.rateLimitPerHour,
  });
  return { apiKey, record };
}

/** Longest key worth hashing: real keys are 46 characters; a 10 KB header is simply unknown. */
const MAX_KEY_LENGTH = 256;

export async function findApiKey(repository: ApiKeysRepository, presented: string): Promise<ApiKeyRow | undefined> {
  if (presented.length === 0 || presented.length > MAX_KEY_LENGTH) return undefined;
  return repository.findByHash(hashApiKey(presented));
}
