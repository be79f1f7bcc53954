// Runs every ts/js code block of the package READMEs (and of the root README and docs/) as written: each
// block is written to a temporary file beside this test, whose node_modules link the workspace
// packages, and run in its own Node process on the packages' TypeScript sources (the
// "lagrange-source" condition, tsx as the loader). A failing block names its README file:line and
// shows the block's stderr.
//
// The extractor (blocks.mjs) is plain Node ESM so that a release check can run the same blocks
// against the packed tarballs installed into an empty project.

import { execFile } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { readmeBlocks } from "./blocks.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");
const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;

/** A block that takes longer than this fails: README examples should finish in a few seconds. */
const BLOCK_TIMEOUT_MS = 60_000;

const packageReadmes = readdirSync(join(root, "packages"), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => join(root, "packages", entry.name, "README.md"))
  .filter((path) => existsSync(path))
  .sort();
const guides = readdirSync(join(root, "docs"))
  .filter((name) => name.endsWith(".md"))
  .map((name) => join(root, "docs", name))
  .sort();
const readmes = [...packageReadmes, join(root, "README.md"), ...guides];

const runs = join(here, ".runs");
mkdirSync(runs, { recursive: true });
const workDir = mkdtempSync(join(runs, "run-"));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

interface BlockRun {
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  ms: number;
}

function runFile(file: string): Promise<BlockRun> {
  const started = performance.now();
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--conditions=lagrange-source", "--import", tsxLoader, file],
      {
        cwd: workDir,
        timeout: BLOCK_TIMEOUT_MS,
        maxBuffer: 16 * 1024 * 1024,
        // No network, no colours in the output the failure message shows.
        env: { ...process.env, LAGRANGE_OFFLINE: "1", NO_COLOR: "1", FORCE_COLOR: "0" },
      },
      (error, stdout, stderr) => {
        const failure = error as (NodeJS.ErrnoException & { code?: number | string }) | null;
        resolve({
          code: failure === null ? 0 : typeof failure.code === "number" ? failure.code : null,
          signal: failure === null ? null : ((failure as { signal?: string }).signal ?? null),
          stdout,
          stderr,
          ms: performance.now() - started,
        });
      },
    );
  });
}

const timings: { where: string; ms: number }[] = [];
afterAll(() => {
  if (timings.length === 0) return;
  const total = timings.reduce((sum, t) => sum + t.ms, 0);
  const slowest = [...timings].sort((a, b) => b.ms - a.ms).slice(0, 3);
  console.log(
    `README examples: ${timings.length} blocks in ${(total / 1000).toFixed(1)} s ` +
      `(slowest: ${slowest.map((t) => `${t.where} ${(t.ms / 1000).toFixed(1)} s`).join(", ")})`,
  );
});

// A private package (packages/experiments) is never installed by a user: no install line to check.
const publishedReadmes = packageReadmes.filter(
  (readme) =>
    (
      JSON.parse(readFileSync(join(dirname(readme), "package.json"), "utf8")) as {
        private?: boolean;
      }
    ).private !== true,
);

describe("every package README starts as a user needs it", () => {
  for (const readme of publishedReadmes) {
    const name = relative(root, readme);
    it(`${name}: install line, ESM/Node note and a runnable example`, () => {
      const text = readFileSync(readme, "utf8");
      const pkg = JSON.parse(readFileSync(join(dirname(readme), "package.json"), "utf8")) as {
        name: string;
        peerDependencies?: Record<string, string>;
      };
      expect(text, `${name}: no "## Install" section`).toMatch(/^## Install$/m);
      const peers = Object.keys(pkg.peerDependencies ?? {});
      const install = new RegExp(
        `^npm i ${pkg.name.replace("/", "\\/")}( @lagrange/[a-z-]+)*$`,
        "m",
      );
      const line = install.exec(text)?.[0];
      expect(line, `${name}: no "npm i ${pkg.name} …" line`).toBeDefined();
      for (const peer of peers) {
        expect(line!.split(" "), `${name}: the install line lacks the peer ${peer}`).toContain(
          peer,
        );
      }
      expect(text, `${name}: no "ESM only" note`).toMatch(/ESM only/);
      expect(text, `${name}: no "Node ≥ 20.19" note`).toMatch(/Node ≥ 20\.19/);
      expect(readmeBlocks(readme).length, `${name}: no runnable ts block`).toBeGreaterThan(0);
    });
  }
});

describe("README code blocks run as written", () => {
  for (const readme of readmes) {
    const blocks = readmeBlocks(readme);
    for (const block of blocks) {
      const where = `${relative(root, block.file)}:${block.line}`;
      it(where, async () => {
        const slug = `${basename(dirname(block.file))}-L${block.line}`;
        const file = join(workDir, `${slug}.tmp.${block.ext}`);
        writeFileSync(file, block.code);
        const run = await runFile(file);
        timings.push({ where, ms: run.ms });
        if (run.code !== 0) {
          const why =
            run.signal !== null
              ? `killed by ${run.signal}${run.ms >= BLOCK_TIMEOUT_MS ? ` after ${BLOCK_TIMEOUT_MS} ms` : ""}`
              : `exit code ${run.code}`;
          expect.fail(
            `${where}: the ${block.lang} block failed (${why})\n--- stderr ---\n${run.stderr}` +
              (run.stdout === "" ? "" : `--- stdout ---\n${run.stdout}`),
          );
        }
      });
    }
  }
});
