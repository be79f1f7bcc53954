/**
 * A byte count as people read it in a message: "512 bytes", "268 MB", "12.9 GB" (decimal units,
 * as `ls -h --si` and disk vendors count; three significant digits are plenty to compare sizes).
 */
export function formatByteSize(bytes: number): string {
  if (!Number.isFinite(bytes)) return `${bytes} bytes`;
  const magnitude = Math.abs(bytes);
  if (magnitude < 1000) return `${bytes} bytes`;
  const units = ["kB", "MB", "GB", "TB", "PB", "EB"];
  let value = magnitude;
  let unit = -1;
  while (value >= 999.5 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  const digits = value >= 99.95 ? 0 : value >= 9.995 ? 1 : 2;
  return `${bytes < 0 ? "-" : ""}${value.toFixed(digits)} ${units[unit]}`;
}

/**
 * The units a size may be written in (`8G`, `512MB`, `1.5GiB`): k/M/G/T powers of 1000, KiB/MiB/
 * GiB/TiB of 1024, lower case here (match case-insensitively). One table for every size a user
 * types: `--max-memory` (the CLI's copy, checked against this one) and input caps.
 */
export const BYTE_SIZE_UNITS: Readonly<Record<string, number>> = {
  "": 1,
  b: 1,
  k: 1e3,
  kb: 1e3,
  m: 1e6,
  mb: 1e6,
  g: 1e9,
  gb: 1e9,
  t: 1e12,
  tb: 1e12,
  kib: 2 ** 10,
  mib: 2 ** 20,
  gib: 2 ** 30,
  tib: 2 ** 40,
};

/** `8G`, `512MB`, `1.5GiB`, `2e9` as bytes (whole), or undefined when it is no such size. */
export function parseByteSize(text: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?(?:e\d+)?)\s*([a-z]*)\s*$/i.exec(text);
  const scale = match === null ? undefined : BYTE_SIZE_UNITS[match[2]!.toLowerCase()];
  const bytes = match === null || scale === undefined ? Number.NaN : Number(match[1]) * scale;
  return Number.isFinite(bytes) && bytes >= 1 ? Math.floor(bytes) : undefined;
}
