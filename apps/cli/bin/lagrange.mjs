#!/usr/bin/env node
// Runs the CLI from its TypeScript sources (the workspace needs no build step): the workspace
// packages resolve to their sources under the "lagrange-source" export condition, which only a
// fresh Node process can be given, so re-run Node with it and tsx. The published binary is
// dist/lagrange.js, built by `pnpm --filter @lagrange/cli build`.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";

const main = fileURLToPath(new URL("../src/main.ts", import.meta.url));
// tsx from this workspace, not from the working directory (where `--import tsx` would look).
const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
const child = spawn(
  process.execPath,
  ["--conditions=lagrange-source", "--import", tsx, main, ...process.argv.slice(2)],
  { stdio: "inherit" },
);
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => {});
child.on("exit", (code, signal) => {
  if (signal !== null) process.kill(process.pid, signal);
  process.exit(code ?? 1);
});
