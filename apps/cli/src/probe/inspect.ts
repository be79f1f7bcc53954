/**
 * What the probes check a run left behind: the files in a folder (no stray temporary file, no file
 * lost) and the processes still running under one. Tests only.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

/** Every entry under `dir` (dot files included), as relative paths, sorted. */
export function listFiles(dir: string, prefix = ""): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(dir, prefix))) {
    const path = join(prefix, name);
    if (name === ".no-data") continue;
    if (statSync(join(dir, path)).isDirectory()) out.push(`${path}/`, ...listFiles(dir, path));
    else out.push(path);
  }
  return out.sort();
}

/** Temporary files an atomic write leaves if it is not cleaned up (`.lgr-<pid>.<hex>.tmp`). */
export function strayTemporaryFiles(dir: string): string[] {
  return listFiles(dir).filter((path) => /\.lgr-\d+\.[0-9a-f]+\.tmp$/.test(path));
}

/**
 * The process `root` and every descendant, parents before their children (Linux; elsewhere, or
 * once it is gone, only `root`).
 */
export function processTree(root: number): number[] {
  const out = [root];
  for (let i = 0; i < out.length; i++) out.push(...childrenOf(out[i]!));
  return out;
}

/** The processes `pid` started (Linux; none where /proc is not there or `pid` is gone). */
export function childrenOf(pid: number): number[] {
  const children: number[] = [];
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return children;
  }
  for (const task of tasks) {
    try {
      const text = readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").trim();
      if (text !== "") for (const c of text.split(/\s+/)) children.push(Number(c));
    } catch {
      // The task ended meanwhile.
    }
  }
  return children;
}

export function sha256(path: string): string {
  return createHash("sha256").update(readFileSync(path)).digest("hex");
}
