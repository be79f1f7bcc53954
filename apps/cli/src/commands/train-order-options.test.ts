import { afterEach, describe, expect, it, vi } from "vitest";
import type { TrainOptions } from "../define/train-values.js";
import { checkFlagScopes, checkLearnerOptions } from "./train-check.js";

/*
 * `--order` and `--trigrams` configure the chain CRF only: given where nothing reads them they
 * must be said so, never dropped without a word.
 */

afterEach(() => {
  vi.restoreAllMocks();
});

describe("--order and --trigrams where nothing reads them", () => {
  it("--learner l2s refuses them as options of the CRF learner, naming them", () => {
    const given = new Set(["--task", "--data", "--out", "--order", "--trigrams"]);
    expect(() => checkLearnerOptions("l2s", "pos", given)).toThrow(
      /^--order, --trigrams: options of the CRF learner/,
    );
    expect(() => checkLearnerOptions("l2s", "pos", new Set(["--task"]))).not.toThrow();
  });

  it("--trigrams without --order 2 is a warning that it is ignored", () => {
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    const options = {
      data: "train.conll",
      out: "m.lgm",
      preset: "chunking",
      algorithm: "lbfgs",
      order: "1",
      trigrams: "all",
    } as unknown as TrainOptions;
    checkFlagScopes(options, new Set(["--data", "--out", "--preset", "--trigrams"]));
    expect(stderr.mock.calls.map(([text]) => String(text)).join("")).toContain(
      "--trigrams applies to --order 2 only; ignored with --order 1",
    );
    stderr.mockClear();
    // The default, not given, is no flag at all.
    checkFlagScopes({ ...options, trigrams: "observed" } as TrainOptions, new Set(["--data"]));
    expect(stderr.mock.calls.map(([text]) => String(text)).join("")).not.toContain("--trigrams");
  });
});
