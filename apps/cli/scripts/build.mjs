#!/usr/bin/env node
// Builds the published `lagrange` binary: dist/lagrange.js (the entry, with a shebang) and the
// chunks it loads lazily, one esbuild bundle of the CLI and the workspace packages it uses (from
// their TypeScript sources), so that the tarball installs with no @lagrange/* package on a
// registry. Third-party runtime dependencies stay external (package.json `dependencies`): highs
// loads its .wasm from its own package directory.
//
// Worker threads: chain-crf's ObjectivePool and bcrf's parallel IBP start their worker scripts by
// `new URL("./<name>.js", import.meta.url)`; every chunk lies flat in dist/, so those workers are
// extra entry points named as the pools look for them, next to the chunks that start them.
import { chmodSync, cpSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const packages = join(root, "..", "..", "packages");
const dist = join(root, "dist");
// Built beside dist/ and swapped in at the end, so that a binary running meanwhile (a test, the
// start-up bench) finds a whole dist/ nearly always.
const staging = join(root, `.dist-${process.pid}`);
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));

rmSync(staging, { recursive: true, force: true });
const result = await build({
  absWorkingDir: root,
  entryPoints: {
    lagrange: "src/bin.ts",
    // The names parallel to pool.ts's and parallel-ibp.ts's `new URL("./….js", import.meta.url)`.
    "crf-objective-worker": join(packages, "chain-crf/src/train/crf-objective-worker.ts"),
    "bcrf-ibp-worker": join(packages, "bcrf/src/parallel/bcrf-ibp-worker.ts"),
    // scale's tag pool: `new URL("./tag-worker.js", import.meta.url)` in tag-pool.ts.
    "tag-worker": join(packages, "scale/src/pool/tag-worker.ts"),
    // A plug-in objective's module, imported by URL in the objective workers.
    "bcrf-objectives": join(packages, "bcrf/src/training/bcrf-objectives.ts"),
  },
  outdir: staging,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20.19",
  // The workspace packages from their sources (their dist/ need not be built).
  conditions: ["lagrange-source"],
  external: Object.keys(manifest.dependencies ?? {}),
  // Flat: a worker's `new URL("./x.js", import.meta.url)` is resolved from the chunk that has it.
  chunkNames: "chunk-[hash]",
  entryNames: "[name]",
  minifySyntax: true,
  minifyWhitespace: true,
  legalComments: "none",
  sourcemap: false,
  metafile: true,
  logLevel: "warning",
});
const entry = join(staging, "lagrange.js");
writeFileSync(entry, `#!/usr/bin/env node\n${readFileSync(entry, "utf8")}`);
chmodSync(entry, 0o755);
// @lagrange/resources finds its data at `new URL("./data/", import.meta.url)`: bundled, that is
// beside the chunks.
cpSync(join(packages, "resources/src/data"), join(staging, "data"), { recursive: true });
rmSync(dist, { recursive: true, force: true });
renameSync(staging, dist);
const bytes = Object.values(result.metafile.outputs).reduce((n, o) => n + o.bytes, 0);
console.log(
  `dist/: ${Object.keys(result.metafile.outputs).length} files, ${(bytes / 1024).toFixed(0)} KiB`,
);
