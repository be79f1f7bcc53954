import { AbortError } from "@lagrange/core";
import { describe, expect, it } from "vitest";
import { openTagPool } from "./tag-pool.js";

describe("openTagPool", () => {
  it("rejects with the core's AbortError when aborted while its workers start", async () => {
    const controller = new AbortController();
    // The workers are created before the pool's first await; the abort comes while they start.
    // Nothing is tagged, so the model is never read.
    const opening = openTagPool({
      tagger: {
        unit: "sentence",
        description: "a linear-chain CRF",
        modelName: "the model",
        spec: { model: new Uint8Array(0) },
      },
      threads: 2,
      lines: {
        format: "conll",
        file: "<stdin>",
        outputFormat: "conll",
        explain: false,
        stopAtError: true,
      },
      signal: controller.signal,
    });
    controller.abort();
    // Before the fix the start's promise never settled: the process ended with exit 13 (an
    // unsettled top-level await) and the output's temporary file left behind.
    await expect(opening).rejects.toBeInstanceOf(AbortError);
  }, 10_000);
});
