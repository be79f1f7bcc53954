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
