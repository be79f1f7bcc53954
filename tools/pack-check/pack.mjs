// Packing the workspace's packages as a user receives them: one list of the published packages and
// one way to pack them (`pnpm pack` runs prepack, i.e. the build, and rewrites workspace: ranges to
// versions). The pack check and `pnpm install:local` both pack through here.
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join, posix } from "node:path";
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
  "resources",
  "factor-graphs",
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

/**
 * Test support lives in a `testing/` folder (`src/testing/`, fixtures under it) and ships in no
 * tarball; the only `testing/` folder that ships is one the package exports as an entry (core's
 * public `@lagrange/core/testing` oracles). Test files never ship, nor do support files kept under
 * the older names (`test-*`, `__fixtures__`, `test-support`, `test-oracles`), so a new one fails
 * here instead of shipping.
 * @param {readonly string[]} listing the tarball's paths (`package/...`)
 * @param {{ exports?: unknown }} manifest the packed package.json
 * @returns {string[]} the paths that must not ship
 */
export function shippedTestSupport(listing, manifest) {
  const exportedFolders = exportTargets(manifest.exports)
    .filter((target) => /(^|\/)testing\//.test(target))
    .map((target) => `package/${target.replace(/^\.\//, "").replace(/[^/]*$/, "")}`);
  return listing.filter(
    (path) =>
      /\.test\.|\.tmp\./.test(path) ||
      (/\/testing\/|__fixtures__|\/test-[^/]*$|test-support|test-oracles/.test(path) &&
        !exportedFolders.some((folder) => path.startsWith(folder))),
  );
}

/**
 * Relative imports in the tarball's JavaScript that name a file the tarball lacks: what a shipped
 * module would fail on once its test support (or anything else) is left out.
 * @param {readonly string[]} listing the tarball's paths (`package/...`)
 * @param {(path: string) => string} read the text of one of them
 * @returns {string[]} `file → import` for each
 */
export function danglingImports(listing, read) {
  const shipped = new Set(listing);
  const dangling = [];
  for (const file of listing.filter((path) => /\.m?js$/.test(path))) {
    const text = read(file);
    for (const match of text.matchAll(
      /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)["'](\.{1,2}\/[^"']+)["']/g,
    )) {
      const specifier = /** @type {string} */ (match[1]);
      if (!shipped.has(posix.join(posix.dirname(file), specifier))) {
        dangling.push(`${file} → ${specifier}`);
      }
    }
  }
  return dangling;
}

/** @param {unknown} exports a package.json `exports` value @returns {string[]} */
function exportTargets(exports) {
  if (typeof exports === "string") return [exports];
  if (exports === null || typeof exports !== "object") return [];
  return Object.values(exports).flatMap(exportTargets);
}
