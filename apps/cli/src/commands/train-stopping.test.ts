import type { Corpus } from "@lagrange/datasets";
import { getTaskPreset, openTrainer } from "@lagrange/recipes";
import { describe, expect, it } from "vitest";
import type { TrainOptions } from "../define/train-values.js";
import { trainingSpec } from "./train-common.js";

/*
 * A task preset's held-out stopping rule applies unless the user names a stopping rule of their
 * own: --max-iterations, --delta or --dev (whose scores never decide a preset's stop).
 */

const nerEn = getTaskPreset("ner-en");
const features = { preset: "ner", task: nerEn, notes: [] };
const dev = { label: "dev.conll", format: "conll", sentences: [], scheme: "IOB2" } as Corpus;

function trainerOf(flags: Partial<TrainOptions>, withDev = false) {
  const options = { data: "d.conll", out: "m.lgm", algorithm: "lbfgs", ...flags } as TrainOptions;
  return openTrainer(trainingSpec(options, undefined), {
    features,
    ...(withDev ? { dev } : {}),
  });
}

describe("train --preset's stopping rule", () => {
  it("is the preset's held-out rule when no flag names another", () => {
    expect(trainerOf({}).heldOut).toBe(nerEn.heldOut);
    expect(trainerOf({ c1: 0.05 }).heldOut).toBe(nerEn.heldOut);
  });

  it("gives way to --max-iterations (with the preset's delta), --delta and --dev", () => {
    const capped = trainerOf({ maxIterations: 50 });
    expect(capped.heldOut).toBeUndefined();
    expect(capped.options()).toMatchObject({ maxIterations: 50, delta: nerEn.delta });
    const delta = trainerOf({ delta: 1e-4 });
    expect(delta.heldOut).toBeUndefined();
    expect(delta.options()).toMatchObject({ maxIterations: nerEn.maxIterations, delta: 1e-4 });
    expect(trainerOf({}, true).heldOut).toBeUndefined();
  });

  it("passes --c1 on with the preset (elastic net with its c2)", () => {
    expect(trainerOf({ c1: 0.05, c2: 0.5 }).options()).toMatchObject({ c1: 0.05, c2: 0.5 });
  });
});
