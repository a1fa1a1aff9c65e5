const UNITS = ['B', 'KB', 'MB', 'GB', 'TB'];

/** Bytes in binary units, as the service's limits are set (10 MiB, 1 GiB), written the familiar way (10 MB). */
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  const digits = unit === 0 || value >= 100 || Number.isInteger(value) ? 0 : 1;
  return `${value.toFixed(digits)} ${UNITS[unit]}`;
}

/** Whole percent of used over total, 0-100 (a zero quota reads as full). */
export function percentOf(used: number, total: number): number {
  if (total <= 0) return used > 0 ? 100 : 0;
  return Math.min(100, Math.round((used / total) * 100));
}

/** A random key for an upload's Idempotency-Key header (also on plain http, where randomUUID is missing). */
export function randomKey(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}
