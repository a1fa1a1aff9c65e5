const UNITS: Record<string, number> = {
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  tb: 1e12,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
  tib: 1024 ** 4,
};

/** "10MiB", "1.5GiB", "500kb" or plain bytes. */
export function parseByteSize(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(text);
  const unit = UNITS[(match?.[2] || 'b').toLowerCase()];
  if (!match || unit === undefined) throw new Error(`invalid size "${text}" (use bytes or a unit: KiB, MiB, GiB, TiB, KB, MB, GB, TB)`);
  const bytes = Math.round(Number(match[1]) * unit);
  if (!Number.isSafeInteger(bytes)) throw new Error(`size "${text}" is too large`);
  return bytes;
}

export function formatByteSize(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let index = 0;
  while (value >= 1024 && index < units.length - 1) {
    value /= 1024;
    index += 1;
  }
  return `${Number.isInteger(value) ? value : value.toFixed(1)} ${units[index]}`;
}
