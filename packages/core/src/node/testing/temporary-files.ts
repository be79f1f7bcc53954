/**
 * Tests only (not built, not packed): temporary folders and the unprivileged user that the file
 * tests of core/node share.
 */
import { spawnSync } from "node:child_process";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const isRoot = process.getuid?.() === 0;
/** The unprivileged user the non-root checks run as when the tests run as root. */
export const NOBODY = 65534;

/**
 * Why uid {@link NOBODY} cannot run a child from this checkout, or undefined when it can (or when
 * the tests do not run as root, and so need no other user): a checkout in a folder only root may
 * enter (a clone under `mktemp -d`, mode 0700) is closed to it. `file` is a file of the checkout.
 */
export function unprivilegedBlocked(file: string): string | undefined {
  if (!isRoot) return undefined;
  const probe = spawnSync(
    process.execPath,
    ["-e", "require('node:fs').accessSync(process.argv[1], 4)", file],
    { uid: NOBODY, gid: NOBODY },
  );
  return probe.status === 0 ? undefined : `uid ${NOBODY} cannot read this checkout`;
}

/** Folders a test file makes; `removeAll` removes them, after restoring modes a test took away. */
export function temporaryFolders(prefix: string): {
  folder(): Promise<string>;
  removeAll(): Promise<void>;
} {
  const made: string[] = [];
  return {
    async folder() {
      const dir = await mkdtemp(join(tmpdir(), prefix));
      made.push(dir);
      return dir;
    },
    async removeAll() {
      for (const dir of made) {
        await chmod(dir, 0o755).catch(() => undefined);
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}
