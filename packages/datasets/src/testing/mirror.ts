import { existsSync } from "node:fs";
import { join } from "node:path";
import { findMirrorDir } from "../registry/resolve.js";

/**
 * Tests only: where the dataset mirror is, or undefined when there is none. The same lookup as
 * the registry's (env LAGRANGE_DATA_DIR, else `<repo root>/../shared/datasets`), so tests find
 * the data exactly where the library would.
 */
export function testMirrorDir(): string | undefined {
  return findMirrorDir();
}

export function mirrorFile(mirror: string | undefined, relative: string): string | undefined {
  if (mirror === undefined) return undefined;
  const path = join(mirror, relative);
  return existsSync(path) ? path : undefined;
}
