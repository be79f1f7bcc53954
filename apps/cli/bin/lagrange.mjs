#!/usr/bin/env node
// The `lagrange` binary. Installed from the tarball (which ships dist/ and no src/) it runs the
// built bundle, dist/lagrange.js, in this very process. In a checkout (src/ present) it always runs
// the TypeScript sources, so that what runs is what was just edited and never a stale build: the
// workspace packages resolve to their sources under the "lagrange-source" export condition, which
// only a fresh Node process can be given, so re-run Node with it and tsx. `pnpm --filter
// @lagrange/cli build` writes dist/ (also `prepack`); run dist/lagrange.js to try the build itself.
import { existsSync } from "node:fs";

const main = new URL("../src/main.ts", import.meta.url);
if (!existsSync(main)) {
  await import("../dist/lagrange.js");
} else {
  const { spawn } = await import("node:child_process");
  const { createRequire } = await import("node:module");
  const { fileURLToPath, pathToFileURL } = await import("node:url");
  // tsx from this workspace, not from the working directory (where `--import tsx` would look).
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
  const child = spawn(
    process.execPath,
    [
      "--conditions=lagrange-source",
      "--import",
      tsx,
      fileURLToPath(main),
      ...process.argv.slice(2),
    ],
    { stdio: "inherit" },
  );
  // Ctrl-C reaches the whole process group, the child included: wait for it to stop cleanly. A
  // SIGTERM (or SIGHUP) sent to this process alone is passed on.
  process.on("SIGINT", () => {});
  for (const signal of ["SIGTERM", "SIGHUP"]) process.on(signal, () => child.kill(signal));
  child.on("exit", (code, signal) => {
    if (signal !== null) process.kill(process.pid, signal);
    process.exit(code ?? 1);
  });
}
