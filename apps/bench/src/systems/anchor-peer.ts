import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import {
  chmod,
  cp,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  stat,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { BENCH_CACHE_DIR, REPO_ROOT } from "../report.js";

const run = promisify(execFile);

/** `../shared/anchors` beside the repository: peer systems' sources, read-only. */
export const ANCHORS_DIR = join(REPO_ROOT, "..", "shared", "anchors");

/** A peer built with make from a copy of an anchor's source. */
export interface AnchorPeerSpec {
  /** Its folder under the bench cache, and its name in messages. */
  readonly name: string;
  /** The anchor's folder under {@link ANCHORS_DIR}. */
  readonly anchor: string;
  /** A file of the anchor that must be there (relative to the anchor). */
  readonly sentinel: string;
  readonly makeTargets: readonly string[];
  /** Files the build makes that are kept (relative to the copy); their base names in the cache. */
  readonly products: readonly string[];
  /** Said while building, e.g. "about a minute". */
  readonly duration: string;
  /**
   * Edits the copy before make. `version` is part of the cache stamp, so a changed patch
   * rebuilds instead of reusing a binary made with the old one.
   */
  readonly patch?: {
    readonly version: string;
    readonly apply: (copy: string) => Promise<void>;
  };
}

export type AnchorPeer =
  | {
      readonly kind: "built";
      /** Base name of each product → its path in the cache. */
      readonly binaries: Readonly<Record<string, string>>;
      readonly compiler: string;
      /** Wall seconds make took (when it was built, possibly by an earlier run). */
      readonly buildSeconds: number;
      /** True when this run reused the cache. */
      readonly cached: boolean;
    }
  | { readonly kind: "skipped"; readonly reason: string };

interface Stamp {
  readonly patch: string;
  readonly compiler: string;
  readonly buildSeconds: number;
}

const baseName = (path: string) => path.split("/").at(-1) ?? path;

/** The anchors are read-only (CI); a copy keeps their modes, so make could not write in it. */
async function makeWritable(dir: string): Promise<void> {
  await chmod(dir, (await stat(dir)).mode | 0o700);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await makeWritable(path);
    else if (entry.isFile()) await chmod(path, (await stat(path)).mode | 0o200);
  }
}

/**
 * Builds a peer once from a writable copy of its anchor and keeps the products under the bench
 * cache; later runs reuse them while the stamp (patch version, compiler) matches. Without the
 * anchor, g++ or make it says why instead, so a suite can skip the peer's column.
 */
export async function buildAnchorPeer(
  spec: AnchorPeerSpec,
  status: (message: string) => void,
): Promise<AnchorPeer> {
  const anchor = join(ANCHORS_DIR, spec.anchor);
  if (!existsSync(join(anchor, spec.sentinel))) {
    return { kind: "skipped", reason: `${spec.name}'s source is not at ${anchor}` };
  }
  let compiler: string;
  try {
    compiler = (await run("g++", ["--version"])).stdout.split("\n")[0]?.trim() ?? "g++";
    await run("make", ["--version"]);
  } catch {
    return { kind: "skipped", reason: "g++ or make is not installed (apt-get install g++ make)" };
  }
  const cacheDir = join(BENCH_CACHE_DIR, spec.name);
  const stampFile = join(cacheDir, "build.json");
  const binaries = Object.fromEntries(
    spec.products.map((p) => [baseName(p), join(cacheDir, baseName(p))]),
  );
  const patchVersion = spec.patch?.version ?? "none";
  if (existsSync(stampFile) && Object.values(binaries).every((b) => existsSync(b))) {
    const stamp = JSON.parse(await readFile(stampFile, "utf8")) as Stamp;
    if (stamp.patch === patchVersion && stamp.compiler === compiler) {
      return { kind: "built", binaries, compiler, buildSeconds: stamp.buildSeconds, cached: true };
    }
  }
  const work = await mkdtemp(join(tmpdir(), `lagrange-${spec.name}-`));
  try {
    await cp(anchor, work, { recursive: true });
    await makeWritable(work);
    await spec.patch?.apply(work);
    status(`building ${spec.name} (make ${spec.makeTargets.join(" ")}, ${spec.duration})`);
    const started = performance.now();
    await run("make", ["-C", work, ...spec.makeTargets], { maxBuffer: 64 * 1024 * 1024 });
    const buildSeconds = (performance.now() - started) / 1000;
    await mkdir(cacheDir, { recursive: true });
    for (const product of spec.products) {
      await cp(join(work, product), binaries[baseName(product)]!);
    }
    const stamp: Stamp = { patch: patchVersion, compiler, buildSeconds };
    await writeFile(stampFile, `${JSON.stringify(stamp, null, 2)}\n`);
    status(`  built ${spec.name} in ${buildSeconds.toFixed(1)} s`);
    return { kind: "built", binaries, compiler, buildSeconds, cached: false };
  } catch (error) {
    const message = (error as { stderr?: string }).stderr ?? String(error);
    return {
      kind: "skipped",
      reason: `building ${spec.name} failed: ${message.trim().split("\n").slice(-3).join(" ")}`,
    };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
