#!/usr/bin/env node
// What a new user does, on a clean machine: pack every package (prepack builds dist/; no test file
// or test support ships, and no shipped module imports a file left out), install the
// tarballs alone into an empty npm project, run each package's README examples against them in
// plain Node, type-check a consumer with TypeScript 5.0 and the current one (Node without DOM, a
// browser without @types/node, moduleResolution node10), bundle the tag-and-decode entry for the
// browser with esbuild (no `node:` import allowed; its size reported), and install the CLI's
// tarball globally and run it. Writes bench-results/pack-check.{json,md}; exits 1 on any failure.
//
// Usage: node tools/pack-check/check-packages.mjs [--keep] [--skip-cli] [--skip-types]
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { basename, join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import { danglingImports, PACKAGES, packPackage, ROOT, run, shippedTestSupport } from "./pack.mjs";

const args = new Set(process.argv.slice(2));
const require = createRequire(import.meta.url);
/** @type {typeof import("esbuild")} */
const esbuild = require(require.resolve("esbuild", { paths: [ROOT] }));

/** Main entries that must bundle for a browser with no `node:` import (issue 14). */
const BROWSER_ENTRIES = [
  "@lagrange/core",
  "@lagrange/chain-crf",
  "@lagrange/soft-dd",
  "@lagrange/constraint-templates",
  "@lagrange/datasets",
  "@lagrange/factor-graphs",
  "@lagrange/recipes/browser",
];
const BUNDLE_GZIP_TARGET = 60 * 1024;

/**
 * A step's detail: `note` goes in the table, `output` is shown on failure, and every field lands
 * in the JSON report.
 * @typedef {{ note?: string | undefined, output?: string, [field: string]: unknown }} Detail
 */
/** @type {({ step: string, ok: boolean } & Detail)[]} */
const results = [];
let failed = false;

/** @param {string} step @param {boolean} ok @param {Detail} [detail] */
function record(step, ok, detail = {}) {
  results.push({ step, ok, ...detail });
  const mark = ok ? "ok  " : "FAIL";
  const note = detail.note ? ` — ${detail.note}` : "";
  process.stderr.write(`${mark} ${step}${note}\n`);
  if (!ok) {
    failed = true;
    if (detail.output) process.stderr.write(`${indent(detail.output)}\n`);
  }
}

/** @param {unknown} text */
function indent(text) {
  return String(text)
    .trim()
    .split("\n")
    .slice(-40)
    .map((l) => `     ${l}`)
    .join("\n");
}

const work = mkdtempSync(join(tmpdir(), "lagrange-pack-check-"));
const tarballs = join(work, "tarballs");
const project = join(work, "project");
mkdirSync(tarballs);
mkdirSync(project);

// 1. Pack: `pnpm pack` runs prepack (the build) and rewrites workspace: ranges to versions.
const packed = new Map();
for (const name of PACKAGES) {
  const packedFile = packPackage(name, tarballs);
  if ("error" in packedFile) {
    record(`pack @lagrange/${name}`, false, { output: packedFile.error });
    continue;
  }
  const file = basename(packedFile.file);
  const listing = execFileSync("tar", ["tzf", join(tarballs, file)], { encoding: "utf8" }).split(
    "\n",
  );
  const missing = [
    "package/dist/index.js",
    "package/dist/index.d.ts",
    "package/LICENSE",
    "package/README.md",
    "package/package.json",
  ].filter((f) => !listing.includes(f));
  if (name === "chain-crf")
    missing.push(
      ...["package/dist/train/worker-bootstrap.mjs"].filter((f) => !listing.includes(f)),
    );
  const { manifest, stray, dangling } = inspectTarball(join(tarballs, file), listing);
  const workspaceRanges = JSON.stringify(manifest).includes("workspace:");
  const ok =
    missing.length === 0 && stray.length === 0 && dangling.length === 0 && !workspaceRanges;
  packed.set(name, join(tarballs, file));
  record(`pack @lagrange/${name}`, ok, {
    files: listing.filter(Boolean).length,
    kilobytes: Math.round(readFileSync(join(tarballs, file)).length / 1024),
    note: ok
      ? `${listing.filter(Boolean).length} files, ${Math.round(readFileSync(join(tarballs, file)).length / 1024)} KB`
      : `missing ${missing.join(", ") || "-"}; stray ${stray.join(", ") || "-"}; imports of unshipped files ${dangling.join(", ") || "-"}${workspaceRanges ? "; workspace: ranges left" : ""}`,
  });
}

// 2. Install the tarballs alone into an empty project (third-party dependencies, e.g. highs, come
// from the registry as for any user).
writeFileSync(
  join(project, "package.json"),
  JSON.stringify({ name: "lagrange-user", private: true, type: "module" }, null, 2),
);
const install = run(
  "npm",
  ["install", "--no-audit", "--no-fund", "--prefer-offline", ...packed.values()],
  { cwd: project },
);
record("npm install of the tarballs into an empty project", install.ok, {
  ms: Math.round(install.ms),
  output: install.output,
  note: `${Math.round(install.ms / 1000)} s`,
});

// 3. Each package's README examples, as written, against the installed dist (plain Node: the
// TypeScript is only stripped by esbuild, imports resolve to node_modules).
const { readmeBlocks, RUNNABLE_LANGUAGES } = await import(
  pathToFileURL(join(ROOT, "tools/readme-examples/blocks.mjs")).href
);
for (const name of PACKAGES) {
  const readme = join(ROOT, "packages", name, "README.md");
  const blocks = readmeBlocks(readme);
  if (blocks.length === 0) {
    record(`@lagrange/${name} README examples`, false, {
      note: "no runnable example in the README",
    });
    continue;
  }
  let ok = true;
  let ms = 0;
  for (const block of blocks) {
    const file = join(project, `example-${name}-${block.line}.mjs`);
    let js;
    try {
      js = esbuild.transformSync(block.code, {
        loader: RUNNABLE_LANGUAGES[block.lang] === "mjs" ? "js" : "ts",
        format: "esm",
        target: "node20",
      }).code;
    } catch (error) {
      ok = false;
      record(`@lagrange/${name} README example at README.md:${block.line}`, false, {
        output: error instanceof Error ? error.message : String(error),
      });
      continue;
    }
    writeFileSync(file, js);
    const r = run(process.execPath, [file], { cwd: project, timeout: 120_000 });
    ms += r.ms;
    if (!r.ok) {
      ok = false;
      record(`@lagrange/${name} README example at README.md:${block.line}`, false, {
        output: r.output,
      });
    }
  }
  if (ok)
    record(`@lagrange/${name} README examples`, true, {
      blocks: blocks.length,
      ms: Math.round(ms),
      note: `${blocks.length} block(s), ${Math.round(ms)} ms`,
    });
}

// 4. Types: a consumer of every entry point under TypeScript 5.0 and the workspace's own.
if (!args.has("--skip-types")) checkTypes();

// 5. The tag-and-decode entry bundled for a browser.
await checkBrowserBundle();

// 6. The CLI: its tarball alone, installed globally into a prefix.
if (!args.has("--skip-cli")) checkCli();

writeReport();
if (args.has("--keep")) process.stderr.write(`kept ${work}\n`);
else rmSync(work, { recursive: true, force: true });
process.exit(failed ? 1 : 0);

/**
 * A tarball's manifest, the test files and test support it ships (see {@link shippedTestSupport}),
 * and the relative imports of its JavaScript that name a file it lacks.
 * @param {string} tarball
 * @param {readonly string[]} listing
 */
function inspectTarball(tarball, listing) {
  const unpacked = mkdtempSync(join(work, "unpacked-"));
  execFileSync("tar", ["xzf", tarball, "-C", unpacked]);
  const manifest = JSON.parse(readFileSync(join(unpacked, "package/package.json"), "utf8"));
  const files = listing.filter((f) => f !== "" && !f.endsWith("/"));
  return {
    manifest,
    stray: shippedTestSupport(files, manifest),
    dangling: danglingImports(files, (path) => readFileSync(join(unpacked, path), "utf8")),
  };
}

function entryPoints() {
  const entries = [];
  for (const name of PACKAGES) {
    const manifest = JSON.parse(readFileSync(join(ROOT, "packages", name, "package.json"), "utf8"));
    for (const [subpath, target] of Object.entries(manifest.exports)) {
      if (target === null || typeof target !== "object" || subpath.includes("*")) continue;
      entries.push(`@lagrange/${name}${subpath === "." ? "" : subpath.slice(1)}`);
    }
  }
  return entries;
}

function checkTypes() {
  const types = join(work, "types");
  mkdirSync(types);
  writeFileSync(
    join(types, "package.json"),
    JSON.stringify({ name: "types-check", private: true, type: "module" }),
  );
  const deps = run(
    "npm",
    [
      "install",
      "--no-audit",
      "--no-fund",
      "--prefer-offline",
      "typescript@5.0",
      "@types/node@20",
      ...packed.values(),
    ],
    { cwd: types },
  );
  if (!deps.ok) {
    record("install TypeScript 5.0 for the type checks", false, { output: deps.output });
    return;
  }
  const entries = entryPoints().filter((e) => !e.endsWith("/package.json"));
  const browserSafe = BROWSER_ENTRIES;
  /** @param {readonly string[]} list */
  const consumer = (list) =>
    `${list.map((e, i) => `import * as m${i} from "${e}";`).join("\n")}\nexport const all = [${list.map((_, i) => `m${i}`).join(", ")}];\n`;
  writeFileSync(join(types, "node.ts"), consumer(entries));
  writeFileSync(join(types, "browser.ts"), consumer(browserSafe));
  const configs = {
    "nodenext, no DOM": {
      module: "nodenext",
      moduleResolution: "nodenext",
      lib: ["es2022"],
      types: ["node"],
      files: ["node.ts"],
    },
    "bundler, DOM, no @types/node": {
      module: "esnext",
      moduleResolution: "bundler",
      lib: ["es2022", "dom"],
      types: [],
      files: ["browser.ts"],
    },
    "node10 (typesVersions)": {
      module: "commonjs",
      moduleResolution: "node",
      lib: ["es2022"],
      types: ["node"],
      files: ["node.ts"],
    },
  };
  const workspaceTsc = join(ROOT, "node_modules/typescript/bin/tsc");
  const workspaceVersion = JSON.parse(
    readFileSync(join(ROOT, "node_modules/typescript/package.json"), "utf8"),
  ).version;
  for (const [label, config] of Object.entries(configs)) {
    const { files, ...compilerOptions } = config;
    const tsconfig = `tsconfig.${label.replace(/[^a-z0-9]+/gi, "-")}.json`;
    writeFileSync(
      join(types, tsconfig),
      JSON.stringify({
        compilerOptions: {
          ...compilerOptions,
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          target: "es2022",
        },
        files,
      }),
    );
    for (const [version, tsc] of [
      ["5.0", join(types, "node_modules/typescript/bin/tsc")],
      [workspaceVersion, workspaceTsc],
    ]) {
      const r = run(process.execPath, [tsc, "-p", tsconfig], { cwd: types });
      record(`types: TypeScript ${version}, ${label}`, r.ok, { output: r.output });
    }
  }
}

async function checkBrowserBundle() {
  const entry = join(project, "tag-and-decode.ts");
  cpSync(join(ROOT, "tools/pack-check/tag-and-decode.ts"), entry);
  const outfile = join(project, "tag-and-decode.bundle.js");
  let result;
  try {
    result = await esbuild.build({
      absWorkingDir: project,
      entryPoints: [entry],
      bundle: true,
      platform: "browser",
      format: "esm",
      minify: true,
      metafile: true,
      outfile,
      logLevel: "silent",
    });
  } catch (error) {
    record("browser bundle of the tag-and-decode entry", false, {
      output: error instanceof Error ? error.message : String(error),
    });
    return;
  }
  const inputs = Object.keys(result.metafile.inputs);
  const nodeImports = Object.values(result.metafile.outputs)
    .flatMap((o) => o.imports.map((i) => i.path))
    .filter((p) => p.startsWith("node:") || !p.startsWith("."));
  const bytes = readFileSync(outfile);
  const gzip = gzipSync(bytes, { level: 9 }).length;
  record("browser bundle of the tag-and-decode entry", nodeImports.length === 0, {
    bytes: bytes.length,
    gzipBytes: gzip,
    modules: inputs.length,
    note: `${(bytes.length / 1024).toFixed(1)} KB minified, ${(gzip / 1024).toFixed(1)} KB gzip (aim ≤ ${BUNDLE_GZIP_TARGET / 1024} KB), ${nodeImports.length} node: imports`,
    output: nodeImports.join("\n"),
  });
  // The bundle is plain ES: run it (in Node, which has what a page has here) to see it tag and decode.
  const ran = run(process.execPath, [outfile], { cwd: project, timeout: 120_000 });
  record(
    "the browser bundle runs: trains, round-trips the model bytes, tags, decodes with constraints",
    ran.ok,
    {
      output: ran.output,
      note: ran.ok ? ran.output.trim().split("\n").at(-1) : undefined,
    },
  );
  for (const specifier of BROWSER_ENTRIES) {
    const probe = join(project, `probe-${specifier.replace(/[^a-z0-9]+/gi, "-")}.mjs`);
    writeFileSync(probe, `export * from "${specifier}";\n`);
    try {
      const r = await esbuild.build({
        absWorkingDir: project,
        entryPoints: [probe],
        bundle: true,
        platform: "browser",
        format: "esm",
        minify: true,
        write: false,
        metafile: true,
        logLevel: "silent",
        external: ["node:*"],
      });
      const gz = gzipSync(/** @type {import("esbuild").OutputFile} */ (r.outputFiles[0]).contents, {
        level: 9,
      }).length;
      // HiGHS (emscripten) keeps `import("node:module")` in the branch it takes only under Node;
      // every other `node:` import in a browser bundle is ours, and a failure.
      const nodeImporters = Object.entries(r.metafile.inputs)
        .filter(([, input]) => input.imports.some((i) => i.path.startsWith("node:")))
        .map(([file]) => file);
      const ours = nodeImporters.filter((file) => !file.includes("node_modules/highs/"));
      const highsNote =
        nodeImporters.length > ours.length
          ? " (HiGHS's guarded node:module import left external)"
          : "";
      record(`browser bundle of all of ${specifier}`, ours.length === 0, {
        gzipBytes: gz,
        note: `${(gz / 1024).toFixed(1)} KB gzip, everything exported${highsNote}`,
        output: ours.join("\n"),
      });
    } catch (error) {
      record(`browser bundle of all of ${specifier}`, false, {
        output: error instanceof Error ? error.message : String(error),
      });
    }
  }
}

function checkCli() {
  const cliDir = join(ROOT, "apps/cli");
  const manifest = JSON.parse(readFileSync(join(cliDir, "package.json"), "utf8"));
  if (manifest.private) {
    record("CLI tarball", false, {
      note: "@lagrange/cli is private: it cannot be packed for users",
    });
    return;
  }
  const packedCli = packPackage("cli", tarballs);
  if ("error" in packedCli) {
    record("pack @lagrange/cli", false, { output: packedCli.error });
    return;
  }
  const file = basename(packedCli.file);
  const listing = execFileSync("tar", ["tzf", packedCli.file], { encoding: "utf8" }).split("\n");
  const { stray, dangling } = inspectTarball(packedCli.file, listing);
  record(
    "the CLI tarball ships no test support and no import of an unshipped file",
    stray.length + dangling.length === 0,
    {
      note: `stray ${stray.join(", ") || "-"}; imports of unshipped files ${dangling.join(", ") || "-"}`,
    },
  );
  const prefix = join(work, "global");
  const g = run(
    "npm",
    [
      "install",
      "-g",
      "--prefix",
      prefix,
      "--no-audit",
      "--no-fund",
      "--prefer-offline",
      join(tarballs, file),
    ],
    { cwd: work },
  );
  record("npm i -g of the CLI tarball alone", g.ok, {
    output: g.output,
    note: `${Math.round(g.ms / 1000)} s`,
  });
  if (!g.ok) return;
  const bin = join(prefix, "bin", "lagrange");
  const times = [];
  /** @type {ReturnType<typeof run>} */
  let help = { ok: false, output: "", ms: 0 };
  for (let i = 0; i < 7; i++) {
    help = run(bin, ["--help"], { cwd: work });
    times.push(help.ms);
  }
  times.sort((a, b) => a - b);
  const median = /** @type {number} */ (times[Math.floor(times.length / 2)]);
  record("installed lagrange --help", help.ok && help.output.includes("Usage"), {
    medianMs: Math.round(median),
    note: `median ${Math.round(median)} ms of 7 (target ≤ 200 ms; includes process spawn)`,
    output: help.output,
  });
  const demoDir = join(work, "demo");
  mkdirSync(demoDir);
  const demo = run(bin, ["demo", "--crf-iterations", "15", "--threads", "2"], {
    cwd: demoDir,
    timeout: 300_000,
    env: { LAGRANGE_DATA_DIR: join(work, "no-data"), LAGRANGE_CACHE_DIR: join(demoDir, "cache") },
  });
  record("installed lagrange demo --threads 2 (generated citations)", demo.ok, {
    output: demo.output,
    note: `${Math.round(demo.ms / 1000)} s`,
  });
}

function writeReport() {
  const out = join(ROOT, "bench-results");
  mkdirSync(out, { recursive: true });
  const report = { date: new Date().toISOString(), node: process.version, ok: !failed, results };
  writeFileSync(join(out, "pack-check.json"), `${JSON.stringify(report, null, 2)}\n`);
  const lines = [
    "# pack-check: the packages as a user installs them",
    "",
    `Run ${report.date} on Node ${process.version}: \`node tools/pack-check/check-packages.mjs\`.`,
    "",
    "| step | result | detail |",
    "|---|---|---|",
    ...results.map((r) => `| ${r.step} | ${r.ok ? "ok" : "**FAIL**"} | ${r.note ?? ""} |`),
    "",
  ];
  writeFileSync(join(out, "pack-check.md"), lines.join("\n"));
  process.stderr.write(`report: ${relative(process.cwd(), join(out, "pack-check.md"))}\n`);
}
