import { existsSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Tests only: where the dataset mirror is (env LAGRANGE_DATA_DIR, else `<repo root>/../shared/datasets`),
 * or undefined when there is none. The registry has the public version of this lookup.
 */
export function testMirrorDir(): string | undefined {
  const fromEnv = process.env.LAGRANGE_DATA_DIR;
  const repoRoot = fileURLToPath(new URL("../../../../", import.meta.url));
  const dir =
    fromEnv !== undefined && fromEnv !== ""
      ? resolve(fromEnv)
      : resolve(repoRoot, "..", "shared", "datasets");
  return existsSync(dir) && statSync(dir).isDirectory() ? dir : undefined;
}

export function mirrorFile(mirror: string | undefined, relative: string): string | undefined {
  if (mirror === undefined) return undefined;
  const path = join(mirror, relative);
  return existsSync(path) ? path : undefined;
}
