#!/usr/bin/env node
// Installs Lagrange's packages into a user's npm project before they are on the registry: packs
// the named packages and every @lagrange package they need (a tarball alone cannot resolve its
// siblings), copies the tarballs into the project's vendor/lagrange/ (so its package.json points
// at files that stay), and runs `npm install` there. `--cli` installs the `lagrange` command
// globally (its tarball bundles every package it uses).
//
// Every failure is one line on stderr (after the output of the tool that failed, if any): exit 2
// for a usage error, found before anything is packed; 1 for a failure; 128 + the signal's number
// when stopped. The staging folder of tarballs is removed on every one of those exits.
//
// Usage: pnpm -s install:local --into DIR [core chain-crf recipes …] [--cli]
//        pnpm -s install:local --cli
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { constants, tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { PACKAGES, packPackage, run, withLagrangeDependencies } from "./pack-check/pack.mjs";

const USAGE = `usage: pnpm -s install:local --into DIR [package …] [--cli]
  --into DIR   an npm project (created with a package.json if it has none) to install into;
               packages by short name (${PACKAGES.join(", ")}), default all, with the
               @lagrange packages they need
  --cli        also install the lagrange command globally (npm i -g)
`;

/** A failure to report in one line and exit with `code` (2: usage, 1: anything else). */
class Failure extends Error {
  /** @param {string} message @param {number} code @param {string} [output] */
  constructor(message, code, output = "") {
    super(message);
    this.code = code;
    /** What the failing tool printed: shown above the line, which stays the last one. */
    this.output = output;
  }
}

/** @param {string} message @returns {never} */
function usage(message) {
  throw new Failure(message, 2);
}

/** @type {string | undefined} */
let staging;
function removeStaging() {
  if (staging !== undefined) rmSync(staging, { recursive: true, force: true });
  staging = undefined;
}

// A signal would end the process without running `finally`; the folder goes first. Packing and
// npm run synchronously, so a handler can only run between them: `settle` after each child lets
// a signal that arrived meanwhile (Ctrl-C reaches the child too, which then fails) end the run as
// a stop, not as that child's failure.
for (const signal of /** @type {const} */ (["SIGINT", "SIGTERM", "SIGHUP"])) {
  process.on(signal, () => {
    removeStaging();
    process.stderr.write(`install:local: stopped by ${signal}\n`);
    process.exit(128 + constants.signals[signal]);
  });
}

try {
  await main();
} catch (error) {
  const failure =
    error instanceof Failure
      ? error
      : new Failure(error instanceof Error ? error.message : String(error), 1);
  if (failure.output !== "") process.stderr.write(`${failure.output.trimEnd()}\n`);
  process.stderr.write(`install:local: ${failure.message.split("\n")[0]}\n`);
  process.exitCode = failure.code;
} finally {
  removeStaging();
}

/**
 * A short wait on the event loop, in which a pending signal's handler runs (one setImmediate is
 * not always enough: the loop polls for signals on its own schedule).
 */
function settle() {
  return new Promise((done) => setTimeout(done, 20));
}

async function main() {
  const argv = process.argv.slice(2);
  /** @type {string | undefined} */
  let into;
  let cli = false;
  const names = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--into") {
      into = argv[++i];
      if (into === undefined || into === "") usage("--into needs a project folder");
    } else if (arg === "--cli") cli = true;
    else if (arg === "-h" || arg === "--help") {
      process.stdout.write(USAGE);
      return;
    } else if (arg?.startsWith("-")) usage(`unknown option ${arg} (see --help)`);
    else if (arg !== undefined) names.push(arg.replace(/^@lagrange\//, ""));
  }
  if (into === undefined && !cli)
    usage("nothing to do: give --into DIR, --cli or both (see --help)");
  if (into !== undefined) checkProject(into);

  /** @type {string[]} */
  let wanted = [];
  if (into !== undefined) {
    try {
      wanted = withLagrangeDependencies(names.length === 0 ? PACKAGES : names);
    } catch (error) {
      usage(error instanceof Error ? error.message : String(error));
    }
  }
  staging = mkdtempSync(join(tmpdir(), "lagrange-install-"));
  const tarballs = [];
  for (const name of [...wanted, ...(cli ? ["cli"] : [])]) {
    process.stderr.write(`packing @lagrange/${name} …\n`);
    const packed = packPackage(name, staging);
    await settle();
    if ("error" in packed) throw new Failure(`packing @lagrange/${name} failed`, 1, packed.error);
    tarballs.push({ name, file: packed.file });
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
    await settle();
    if (!installed.ok) throw new Failure(`npm install in ${project} failed`, 1, installed.output);
    process.stderr.write(`installed ${wanted.map((n) => `@lagrange/${n}`).join(", ")}\n`);
  }
  const cliTarball = tarballs.find((t) => t.name === "cli");
  if (cliTarball !== undefined) {
    const installed = run("npm", ["install", "-g", "--no-audit", "--no-fund", cliTarball.file]);
    await settle();
    if (!installed.ok) throw new Failure("npm install -g failed", 1, installed.output);
    process.stderr.write("installed the lagrange command (npm i -g)\n");
  }
}

/**
 * Refuses a --into that cannot be a project folder before minutes of packing: something that is
 * not a folder, or a path through one.
 * @param {string} into
 */
function checkProject(into) {
  let stats;
  try {
    stats = statSync(into);
  } catch (error) {
    const code = /** @type {NodeJS.ErrnoException} */ (error).code;
    if (code === "ENOENT") return; // created, with its package.json
    if (code === "ENOTDIR")
      usage(`--into ${into}: a path through a file; expected a project folder`);
    throw new Failure(`--into ${into}: ${/** @type {Error} */ (error).message}`, 1);
  }
  if (!stats.isDirectory()) {
    usage(
      `--into ${into}: is ${stats.isFile() ? "a file" : "not a folder"}; expected a project folder`,
    );
  }
}
