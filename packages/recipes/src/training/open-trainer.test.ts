import { describe, expect, it } from "vitest";
import { getTaskPreset } from "../preset-names.js";
import { checkTrainingSpec } from "./check-spec.js";
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

  it("opens the L2S learner from its spec: the task's base learner named, the spec checked first", () => {
    expect(openTrainer({ learner: "l2s", task: "parser" }).learner).toEqual({ kind: "perceptron" });
    expect(openTrainer({ learner: "l2s", task: "ner", bits: 12 }).learner).toEqual({
      kind: "csoaa",
      bits: 12,
    });
    expect(() =>
      openTrainer({ learner: "l2s", task: "pos", baseLearner: "perceptron", learningRate: 0.1 }),
    ).toThrow(
      /--learning-rate with the perceptron base learner: the perceptron has no learning rate/,
    );
    expect(() => openTrainer({ learner: "l2s", task: "parser", classWeights: ["O=0.5"] })).toThrow(
      /--class-weight with --task parser/,
    );
    expect(() =>
      openTrainer({ learner: "l2s", task: "ner", bits: 30 }, { limitBytes: 1e6 }),
    ).toThrow(/--bits 30: the csoaa learner's hashed weight table/);
  });
});

describe("checkTrainingSpec", () => {
  it("refuses the combinations no trainer runs, in lagrange train's words", () => {
    expect(() => checkTrainingSpec({ algorithm: "sgd", c2: 0 })).toThrow(
      /--c2 0 with --algorithm sgd/,
    );
    expect(() => checkTrainingSpec({ algorithm: "ap", order: 2, partialLabels: true })).toThrow(
      /--partial with --algorithm ap/,
    );
    expect(() => checkTrainingSpec({ algorithm: "ap", order: 2 })).toThrow(
      /^--order 2 with --algorithm ap: second-order training/,
    );
    expect(() => checkTrainingSpec({ algorithm: "lbfgs", model: "general" })).toThrow(
      /--model general needs --groups tweets or documents/,
    );
    expect(() => checkTrainingSpec({ algorithm: "lbfgs", twoStage: true, folds: 1 })).toThrow(
      /--folds 1: --two-stage jackknifes/,
    );
    expect(() =>
      checkTrainingSpec({ algorithm: "lbfgs", model: "general", groups: "tweets" }),
    ).not.toThrow();
  });
});
