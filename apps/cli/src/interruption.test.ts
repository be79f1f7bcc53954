/**
 * A stop signal that fires after a command's work is done (during the last iteration, while the
 * model is serialised, while the file is synced) still keeps the previous output: `writeOutput`
 * checks it before the commit, and the atomic file right before its rename. The signal is fired
 * by hand here, at the exact moments the CLI tests cannot hit reliably.
 */
import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AbortError } from "@lagrange/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeOutput } from "./output.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "lagrange-interruption-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("writeOutput and the command's stop signal", () => {
  it("aborts instead of committing when the signal fired after the work was done", async () => {
    const path = join(dir, "model.bin");
    await writeFile(path, "the previous model\n");
    const controller = new AbortController();
    const writing = writeOutput(
      path,
      { option: "--out", signal: controller.signal },
      async (output) => {
        await output.write("a whole new model\n");
        // The work ends normally: Ctrl-C came during its last step, which no checkpoint followed.
        controller.abort();
        return "trained";
      },
    );
    await expect(writing).rejects.toBeInstanceOf(AbortError);
    expect(readFileSync(path, "utf8")).toBe("the previous model\n");
    expect(readdirSync(dir).filter((name) => name.endsWith(".tmp"))).toEqual([]);
  });

  it("aborts when the signal is handled while the file is being flushed and synced", async () => {
    const path = join(dir, "late.bin");
    await writeFile(path, "the previous model\n");
    const controller = new AbortController();
    const writing = writeOutput(
      path,
      { option: "--out", signal: controller.signal },
      async (output) => {
        await output.write("a whole new model\n");
        // A signal handler runs at the loop's next turn: after writeOutput's own check, while the
        // commit's writes are in flight (what a real SIGTERM during a short command hit).
        setImmediate(() => controller.abort());
        return "converted";
      },
    );
    await expect(writing).rejects.toBeInstanceOf(AbortError);
    expect(readFileSync(path, "utf8")).toBe("the previous model\n");
    expect(readdirSync(dir).filter((name) => name.endsWith(".tmp"))).toEqual([]);
  });

  it("commits when the signal did not fire", async () => {
    const path = join(dir, "tags.txt");
    const controller = new AbortController();
    const result = await writeOutput(
      path,
      { option: "--out", signal: controller.signal },
      async (output) => {
        await output.write("tagged\n");
        return "done";
      },
    );
    expect(result).toBe("done");
    expect(readFileSync(path, "utf8")).toBe("tagged\n");
  });
});
