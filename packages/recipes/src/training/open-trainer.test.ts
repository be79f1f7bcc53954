import { describe, expect, it } from "vitest";
import { getTaskPreset } from "../preset-names.js";
import { definedFields } from "./defined-fields.js";
import { openTrainer } from "./open-trainer.js";

const nerEn = getTaskPreset("ner-en");

describe("openTrainer", () => {
  it("merges the features' task preset: its stopping rule, and the decoder the model records", () => {
    const trainer = openTrainer(
      { algorithm: "lbfgs" },
      { features: { preset: "ner", task: nerEn, notes: [] } },
    );
    const options = trainer.options();
    expect(trainer.maxIterations).toBe(nerEn.maxIterations);
    expect(options.maxIterations).toBe(nerEn.maxIterations);
    expect(options.delta).toBe(nerEn.delta);
    expect(options.settings).toEqual({
      objective: "crf",
      taskPreset: "ner-en",
      decoder: nerEn.decoder,
    });
  });

  it("lets the spec's values win, and gives a perceptron none of L-BFGS's stopping rule", () => {
    const features = { preset: "ner", task: nerEn, notes: [] };
    expect(openTrainer({ algorithm: "owlqn", maxIterations: 7 }, { features }).limit).toBe(7);
    const ap = openTrainer({ algorithm: "ap" }, { features }).options();
    expect(ap.maxIterations).toBeUndefined();
    expect(ap.delta).toBeUndefined();
  });

  it("takes a named task preset's defaults for features that name none, recording none", () => {
    const options = openTrainer(
      { algorithm: "lbfgs", taskPreset: "ner-en" },
      { features: { preset: "ner", notes: [] } },
    ).options();
    expect(options.delta).toBe(nerEn.delta);
    expect(options.settings).toEqual({ objective: "crf" });
  });

  it("records the model a run continues instead of a task preset", () => {
    const settings = openTrainer(
      { algorithm: "lbfgs", objective: "bcrf", objectiveIterations: 3 },
      {
        features: { preset: "ner", notes: [] },
        init: { model: {} as never, settings: { initModel: { file: "m.lgm" } } },
      },
    ).options().settings;
    expect(settings).toEqual({
      objective: "bcrf",
      objectiveIterations: 3,
      initModel: { file: "m.lgm" },
    });
  });
});

describe("definedFields", () => {
  it("keeps the fields that hold a value, in order", () => {
    expect(Object.entries(definedFields({ a: 1, b: undefined, c: 0, d: null }))).toEqual([
      ["a", 1],
      ["c", 0],
      ["d", null],
    ]);
  });
});
