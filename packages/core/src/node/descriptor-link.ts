import { lstat, readlink, realpath } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";

/** A process's descriptor link: what `/dev/stdout`, `/dev/stdin` and `/dev/fd/N` lead to on Linux. */
const DESCRIPTOR_LINK = /^\/proc\/(self|thread-self|\d+)(?:\/task\/\d+)?\/fd\/(\d+)$/;

/** Links followed before giving up, as the kernel does (ELOOP). */
export const MAX_LINKS = 40;

/**
 * The descriptor a canonical path (folders resolved) names when it is a descriptor link:
 * `own` when it is one of this process's descriptors, whose number is then `fd`.
 */
export function descriptorOfLink(
  canonical: string,
): { readonly own: boolean; readonly fd: number } | undefined {
  const match = DESCRIPTOR_LINK.exec(canonical);
  if (match === null) return undefined;
  return {
    own: match[1] === "self" || match[1] === "thread-self" || Number(match[1]) === process.pid,
    fd: Number(match[2]),
  };
}

/**
 * Follows `path`'s symbolic links to the first descriptor link on the way, if any
 * (`/dev/stdin` → `/proc/self/fd/0`): what a path that the kernel cannot open anew (a socket
 * behind `/dev/stdin`, ENXIO) stands for.
 */
export async function descriptorBehind(
  path: string,
): Promise<{ readonly own: boolean; readonly fd: number } | undefined> {
  let current = resolve(path);
  for (let links = 0; links <= MAX_LINKS; links++) {
    try {
      const folder = await realpath(dirname(current));
      current = join(folder, basename(current));
      const descriptor = descriptorOfLink(current);
      if (descriptor !== undefined) return descriptor;
      if (!(await lstat(current)).isSymbolicLink()) return undefined;
      current = resolve(folder, await readlink(current));
    } catch {
      return undefined;
    }
  }
  return undefined;
}
