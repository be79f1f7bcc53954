import { LagrangeError } from "@lagrange/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AttributeSequenceBuilder, fromAttributeLists } from "../features/builder.js";
import type { AttributeSequence } from "../features/types.js";
import { trainCrf } from "../train-crf.js";

/** Two tokens; token 1's attribute "x" has `value` (the builder itself checks nothing). */
function withValue(value: number): AttributeSequence {
  const builder = new AttributeSequenceBuilder();
  builder.begin(2);
  builder.state(0, "w=a", 1);
  builder.state(1, "w=b", 1);
  builder.state(1, "x", value);
  return builder.finish();
}

const good = [
  {
    attributes: fromAttributeLists([["w=a"], ["w=b", { name: "x", value: 2 }]]),
    labels: ["A", "B"],
  },
  { attributes: fromAttributeLists([["w=b"], ["w=a"]]), labels: ["B", "A"] },
];

const outside = fc.constantFrom(
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  2e9,
  -1e300,
);

describe("attribute values at the library's entry points", () => {
  it("training refuses a value that is not finite or beyond 1e9, naming sequence, token and attribute", async () => {
    await fc.assert(
      fc.asyncProperty(outside, async (value) => {
        const run = trainCrf([...good, { attributes: withValue(value), labels: ["A", "B"] }], {
          maxIterations: 1,
        });
        await expect(run).rejects.toBeInstanceOf(LagrangeError);
        await expect(run).rejects.toMatchObject({ code: "bad-input" });
        await expect(run).rejects.toThrow(/sequences\[2\], token 1: attribute "x" has value/);
      }),
      { numRuns: 10 },
    );
  });

  it("tagging refuses it too, and takes every value in range", async () => {
    const { model } = await trainCrf(good, { maxIterations: 2 });
    fc.assert(
      fc.property(outside, (value) => {
        expect(() => model.tag(withValue(value))).toThrow(/sequence, token 1: attribute "x"/);
        expect(() => model.marginals(withValue(value))).toThrow(LagrangeError);
      }),
      { numRuns: 10 },
    );
    fc.assert(
      fc.property(fc.double({ min: -1e9, max: 1e9, noNaN: true }), (value) => {
        expect(model.tag(withValue(value))).toHaveLength(2);
      }),
      { numRuns: 30 },
    );
  });
});
