import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { loadModelFromBytes, modelToBytes } from "../model-file.js";
import { randomCorpus } from "../testing/random-corpus.js";
import { trainCrf } from "../train-crf.js";
import { weightOutOfRange } from "./weight-range.js";

describe("weightOutOfRange", () => {
  it("names the first weight the model reader refuses, and only such a weight", async () => {
    const { model } = await trainCrf(randomCorpus(4, { sequences: 20, labels: 3 }), {
      maxIterations: 3,
    });
    const original = Float64Array.from(model.weights);
    expect(weightOutOfRange(model)).toBeUndefined();
    fc.assert(
      fc.property(
        fc.nat({ max: model.weights.length - 1 }),
        fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, -2e9, 1e300, 1e9, -5),
        (k, value) => {
          model.weights.set(original);
          model.weights[k] = value;
          const outside = weightOutOfRange(model);
          let refused = false;
          try {
            loadModelFromBytes(modelToBytes(model, { precision: "float64" }));
          } catch {
            refused = true;
          }
          // The writer's check and the reader's agree: one range.
          expect(outside !== undefined).toBe(refused);
          if (outside !== undefined) expect(Object.is(outside.value, value)).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("says which feature a weight belongs to", async () => {
    const { model } = await trainCrf(randomCorpus(5, { sequences: 20, labels: 3 }), {
      maxIterations: 2,
    });
    const { layout } = model;
    model.weights[layout.transitionBase + 1] = Number.NEGATIVE_INFINITY;
    expect(weightOutOfRange(model)?.feature).toBe(
      `transition ${model.labels.name(0)} → ${model.labels.name(1)}`,
    );
    model.weights[layout.attributeOffsets[0]!] = Number.NaN;
    expect(weightOutOfRange(model)?.feature).toBe(
      `attribute ${JSON.stringify(model.attributes.name(0))}, label ${model.labels.name(layout.featureLabels[0]!)}`,
    );
  });
});
