import { randomBytes } from 'node:crypto';

/**
 * The three places an image's objects live, in either backend: public/ holds only what may be
 * served under /i/; bin/ the originals in the recycle bin; thumbs/ the thumbnails (served by the
 * service, which checks the image's state first).
 */
export type StorageArea = 'public' | 'bin' | 'thumbs';
export const STORAGE_AREAS: readonly StorageArea[] = ['public', 'bin', 'thumbs'];

const STORAGE_KEY = /^\d{4}\/\d{2}\/\d{2}\/[0-9a-f]{32}\.[a-z]{3,4}$/;

/** Keys are generated here, but rows could be edited by hand: never let one escape its area. */
export function assertStorageKey(storageKey: string): void {
  if (!STORAGE_KEY.test(storageKey)) throw new Error(`invalid storage key ${JSON.stringify(storageKey)}`);
}

/** YYYY/MM/DD/<128 random bits>.<ext>, the day taken in the configured zone. */
export function createStorageKeys(timeZone: string): (extension: string, now: Date) => string {
  const dayParts = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
  return (extension, now) => {
    const parts = Object.fromEntries(dayParts.formatToParts(now).map((part) => [part.type, part.value]));
    return `${parts.year}/${parts.month}/${parts.day}/${randomBytes(16).toString('hex')}.${extension}`;
  };
}
