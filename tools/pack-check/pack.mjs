// Packing the workspace's packages as a user receives them: one list of the published packages and
// one way to pack them (`pnpm pack` runs prepack, i.e. the build, and rewrites workspace: ranges to
// versions). The pack check and `pnpm install:local` both pack through here.
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The packages users install, in dependency order (core first: every other one peers on it). */
export const PACKAGES = [
  "core",
  "datasets",
  "chain-crf",
  "constraint-templates",
  "soft-dd",
  "ilp",
  "mincut",
  "clusters",
  "bcrf",
  "l2s",
  "recipes",
  "scale",
];

/**
 * The folder of a package by its short name (`cli` is the app; its tarball bundles the rest).
 * @param {string} name
 */
export function packageDir(name) {
  return name === "cli" ? join(ROOT, "apps/cli") : join(ROOT, "packages", name);
}

/**
 * Runs a command; returns { ok, output, ms }.
 * @param {string} command
 * @param {readonly string[]} commandArgs
 * @param {import("node:child_process").SpawnSyncOptions} [options]
 * @returns {{ ok: boolean, output: string, ms: number }}
 */
export function run(command, commandArgs, options = {}) {
  const started = performance.now();
  const r = spawnSync(command, commandArgs, {
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    ...options,
    env: { ...process.env, npm_config_update_notifier: "false", ...options.env },
  });
  const output = `${r.stdout ?? ""}${r.stderr ?? ""}${r.error ? String(r.error) : ""}`;
  return { ok: r.status === 0, output, ms: performance.now() - started };
}

/**
 * Packs one package into `destination`; returns the tarball's path, or the command's output when
 * packing failed.
 * @param {string} name short name (`core`, `recipes`, `cli`)
 * @param {string} destination
 * @returns {{ file: string } | { error: string }}
 */
export function packPackage(name, destination) {
  const r = run("npx", ["-y", "pnpm@10", "pack", "--pack-destination", destination], {
    cwd: packageDir(name),
  });
  const file = readdirSync(destination).find(
    (f) => f.startsWith(`lagrange-${name}-`) && f.endsWith(".tgz"),
  );
  if (!r.ok || file === undefined) return { error: r.output };
  return { file: join(destination, file) };
}

/**
 * The named packages with every @lagrange package they depend on or peer on, in {@link PACKAGES}'
 * order: what npm needs as tarballs together, since none is on the registry yet.
 * @param {readonly string[]} names short names
 * @returns {string[]}
 */
export function withLagrangeDependencies(names) {
  const wanted = new Set();
  /** @param {string} name */
  const visit = (name) => {
    if (wanted.has(name)) return;
    if (!PACKAGES.includes(name)) {
      throw new Error(`unknown package ${name}: expected one of ${PACKAGES.join(", ")}, or cli`);
    }
    wanted.add(name);
    const manifest = JSON.parse(readFileSync(join(packageDir(name), "package.json"), "utf8"));
    for (const field of ["dependencies", "peerDependencies"]) {
      for (const dependency of Object.keys(manifest[field] ?? {})) {
        if (dependency.startsWith("@lagrange/")) visit(dependency.slice("@lagrange/".length));
      }
    }
  };
  for (const name of names) visit(name);
  return PACKAGES.filter((name) => wanted.has(name));
}
