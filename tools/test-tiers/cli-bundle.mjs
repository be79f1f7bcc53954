// The integration tier's global setup: builds the CLI's bundle (apps/cli/dist, one esbuild run of
// about a second) before any test starts, so that the binary the tests spawn hundreds of times
// runs it (LAGRANGE_CLI_BUNDLE=1, set for the tier in vitest.config.ts) instead of compiling the
// TypeScript sources with tsx at every start. Built from the sources as they are now: what the
// tests run is what was just edited.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

export default function buildCliBundle() {
  const script = fileURLToPath(new URL("../../apps/cli/scripts/build.mjs", import.meta.url));
  const built = spawnSync(process.execPath, [script], { encoding: "utf8" });
  if (built.status !== 0) {
    throw new Error(`building the CLI's bundle failed:\n${built.stdout}${built.stderr}`);
  }
}
