/** The harness itself: a run is measured, and one over its memory cap is stopped and reported. */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectBounded, runBounded } from "./harness.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "lagrange-harness-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe.skipIf(process.platform !== "linux")(
  "the hostile suite's harness (Linux: reads /proc)",
  () => {
    it("measures the process tree of `lagrange --help` and passes it", async () => {
      const run = await runBounded(["--help"], { cwd: dir, memoryMb: 1024, timeoutMs: 30_000 });
      expectBounded(run, 0);
      expect(run.stdout).toMatch(/Usage: lagrange/);
      // Node alone is tens of MB resident: a zero would mean the tree was not sampled.
      expect(run.peakRssMb).toBeGreaterThan(10);
    });

    it("kills a run over its memory cap and says so", async () => {
      const run = await runBounded(["--help"], { cwd: dir, memoryMb: 1, timeoutMs: 30_000 });
      expect(run.overMemory).toBe(true);
      expect(run.signal ?? run.code).not.toBe(0);
    });
  },
);
