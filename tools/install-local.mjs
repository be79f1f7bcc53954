#!/usr/bin/env node
// Installs Lagrange's packages into a user's npm project before they are on the registry: packs
// the named packages and every @lagrange package they need (a tarball alone cannot resolve its
// siblings), copies the tarballs into the project's vendor/lagrange/ (so its package.json points
// at files that stay), and runs `npm install` there. `--cli` installs the `lagrange` command
// globally (its tarball bundles every package it uses).
//
// Usage: pnpm -s install:local --into DIR [core chain-crf recipes …] [--cli]
//        pnpm -s install:local --cli
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { PACKAGES, packPackage, run, withLagrangeDependencies } from "./pack-check/pack.mjs";

const USAGE = `usage: pnpm -s install:local --into DIR [package …] [--cli]
  --into DIR   an npm project (created with a package.json if it has none) to install into;
               packages by short name (${PACKAGES.join(", ")}), default all, with the
               @lagrange packages they need
  --cli        also install the lagrange command globally (npm i -g)
`;

/** @param {string} message @param {number} [code] @returns {never} */
function fail(message, code = 2) {
  process.stderr.write(`install:local: ${message}\n`);
  process.exit(code);
}

const argv = process.argv.slice(2);
let into;
let cli = false;
const names = [];
for (let i = 0; i < argv.length; i++) {
  const arg = argv[i];
  if (arg === "--into") {
    into = argv[++i];
    if (into === undefined) fail(`--into needs a folder\n${USAGE}`);
  } else if (arg === "--cli") cli = true;
  else if (arg === "-h" || arg === "--help") {
    process.stdout.write(USAGE);
    process.exit(0);
  } else if (arg?.startsWith("-")) fail(`unknown option ${arg}\n${USAGE}`);
  else if (arg !== undefined) names.push(arg.replace(/^@lagrange\//, ""));
}
if (into === undefined && !cli) fail(`nothing to do\n${USAGE}`);

/** @type {string[]} */
let wanted = [];
if (into !== undefined) {
  try {
    wanted = withLagrangeDependencies(names.length === 0 ? PACKAGES : names);
  } catch (error) {
    fail(error instanceof Error ? error.message : String(error));
  }
}
const staging = mkdtempSync(join(tmpdir(), "lagrange-install-"));
try {
  const tarballs = [];
  for (const name of [...wanted, ...(cli ? ["cli"] : [])]) {
    process.stderr.write(`packing @lagrange/${name} …\n`);
    const packed = packPackage(name, staging);
    if ("error" in packed) fail(`packing @lagrange/${name} failed:\n${packed.error}`, 1);
    else tarballs.push({ name, file: packed.file });
  }
  if (into !== undefined) {
    const project = resolve(into);
    mkdirSync(join(project, "vendor", "lagrange"), { recursive: true });
    if (!existsSync(join(project, "package.json"))) {
      writeFileSync(
        join(project, "package.json"),
        `${JSON.stringify(
          {
            name: basename(project)
              .toLowerCase()
              .replace(/[^a-z0-9-]/g, "-"),
            private: true,
            type: "module",
          },
          null,
          2,
        )}\n`,
      );
    }
    const local = tarballs
      .filter((t) => t.name !== "cli")
      .map((t) => {
        const target = join(project, "vendor", "lagrange", basename(t.file));
        copyFileSync(t.file, target);
        return `./vendor/lagrange/${basename(t.file)}`;
      });
    process.stderr.write(`npm install in ${project} …\n`);
    const installed = run("npm", ["install", "--no-audit", "--no-fund", ...local], {
      cwd: project,
    });
    if (!installed.ok) fail(`npm install failed:\n${installed.output}`, 1);
    process.stderr.write(`installed ${wanted.map((n) => `@lagrange/${n}`).join(", ")}\n`);
  }
  const cliTarball = tarballs.find((t) => t.name === "cli");
  if (cliTarball !== undefined) {
    const installed = run("npm", ["install", "-g", "--no-audit", "--no-fund", cliTarball.file]);
    if (!installed.ok) fail(`npm install -g failed:\n${installed.output}`, 1);
    process.stderr.write("installed the lagrange command (npm i -g)\n");
  }
} finally {
  rmSync(staging, { recursive: true, force: true });
}
