const UNITS = ['B', 'KB', 'MB', 'GB', 'TB'];

/**
 * Bytes in binary units, as the service's limits are set (10 MiB, 1 GiB), written the familiar way
 * (10 MB). `roundUp` for a file weighed against a limit: a file over 10 MB never reads "10.0 MB"
 * or "10 MB" (10 MiB and one byte is "10.1 MB").
 */
export function formatBytes(bytes: number, options: { roundUp?: boolean } = {}): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  const digits = unit === 0 || value >= 100 ? 0 : 1;
  const scale = 10 ** digits;
  let rounded = options.roundUp ? Math.ceil(value * scale - 1e-9) / scale : Math.round(value * scale) / scale;
  // 1023.6 MB rounds to 1024 MB: that is 1 GB.
  if (rounded >= 1024 && unit < UNITS.length - 1) {
    rounded = Math.round((rounded / 1024) * 10) / 10;
    unit++;
  }
  return `${Number.isInteger(rounded) ? String(rounded) : rounded.toFixed(1)} ${UNITS[unit]}`;
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
