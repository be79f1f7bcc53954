import { instantiateAll } from "@lagrange/constraint-templates";
import { linearConstraint } from "@lagrange/core";
import { constraintActivity } from "@lagrange/core/dual-decomposition";
import { isValidSequence, schemeLabels } from "@lagrange/datasets";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SequenceConstraints, weightedTemplates } from "./templates.js";

const LABELS = schemeLabels(["PER", "LOC", "ORG"], "IOB2");
const L = LABELS.length;
const id = (name: string) => LABELS.indexOf(name);

describe("SequenceConstraints", () => {
  const templates = weightedTemplates(LABELS, "IOB2", [
    { spec: { kind: "singleton", segment: "PER" }, penalty: null },
    { spec: { kind: "pairwise-sum", first: "LOC", second: "ORG", bound: 1 }, penalty: 2 },
    { spec: { kind: "state-change", delimiter: ",", first: "O", second: "O" }, penalty: 0.5 },
  ]);

  it("instantiates the templates per sentence, as constraint-templates does, plus extras", () => {
    const extra = linearConstraint({ terms: [[id("B-LOC"), 1]], rhs: 0, name: "no LOC first" });
    const bridge = new SequenceConstraints({
      labels: LABELS,
      scheme: "IOB2",
      templates,
      constraints: () => [extra],
    });
    const tokens = ["a", ",", "b", "c"];
    const got = bridge.constraintsFor({ n: 4, tokens });
    const expected = instantiateAll(templates, { n: 4, L, tokens });
    expect(got.length).toBe(expected.length + 1);
    expected.forEach((c, k) => {
      expect([...got[k]!.indices]).toEqual([...c.indices]);
      expect(got[k]!.rhs).toBe(c.rhs);
      expect(got[k]!.penalty).toBe(c.penalty);
    });
    expect(got[expected.length]).toBe(extra);
    expect(bridge.mask?.allowedStart[id("I-PER")]).toBe(0);
  });

  it("left-to-right walks within the allowed labels are IOB2-valid and keep the hard count", () => {
    const bridge = new SequenceConstraints({ labels: LABELS, scheme: "IOB2", templates });
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom("w", ","), { minLength: 1, maxLength: 25 }),
        fc.array(fc.nat(), { minLength: 25, maxLength: 25 }),
        (tokens, choices) => {
          const sentence = { n: tokens.length, tokens };
          const tracker = bridge.track(sentence);
          const labels: number[] = [];
          for (let i = 0; i < sentence.n; i++) {
            const { allowed, allowedCosts } = tracker.allowedActions(i);
            expect(allowed.length).toBeGreaterThan(0);
            if (allowedCosts !== undefined) expect(allowedCosts.length).toBe(allowed.length);
            const y = allowed[choices[i]! % allowed.length]!;
            tracker.commit(i, y);
            labels.push(y);
          }
          expect(tracker.constraintFallbacks).toBe(0);
          expect(
            isValidSequence(
              labels.map((y) => LABELS[y]!),
              "IOB2",
            ),
          ).toBe(true);
          expect(labels.filter((y) => y === id("B-PER")).length).toBeLessThanOrEqual(1);
          // The same sentence again: a restart, not a new preparation.
          const again = bridge.track(sentence);
          expect(again).toBe(tracker);
          expect(again.position).toBe(0);
          expect(again.partialActivity(0)).toBe(0);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("prices soft templates at decision time", () => {
    const bridge = new SequenceConstraints({ labels: LABELS, scheme: "IOB2", templates });
    const tracker = bridge.tracker({ n: 3, tokens: ["x", "y", "z"] });
    // LOC + ORG ≤ 1 (penalty 2): after one LOC, another B-LOC or B-ORG costs 2; I-LOC does not.
    tracker.commit(0, id("B-LOC"));
    const { allowed, allowedCosts } = tracker.allowedActions(1);
    expect(allowedCosts).toBeDefined();
    const cost = (name: string) => allowedCosts![allowed.indexOf(id(name))];
    expect(cost("B-ORG")).toBe(2);
    expect(cost("B-LOC")).toBe(2);
    expect(cost("I-LOC")).toBe(0);
    expect(cost("O")).toBe(0);
    expect(allowed).not.toContain(id("I-ORG")); // IOB2: I-ORG cannot follow B-LOC
    const c = bridge
      .constraintsFor({ n: 3, tokens: ["x", "y", "z"] })
      .find((k) => k.penalty === 2)!;
    expect(constraintActivity(c, [id("B-LOC"), id("B-ORG"), 0], L)).toBe(2);
  });

  it("refuses segment constraints on IOB1 labels (split states a label search lacks)", () => {
    const iob1 = ["O", "I-PER", "B-PER"];
    const templates = weightedTemplates(iob1, "IOB1", [
      { spec: { kind: "singleton", segment: "PER" }, penalty: null },
    ]);
    expect(() => new SequenceConstraints({ labels: iob1, scheme: "IOB1", templates })).toThrow(
      /need a chain decoder; convert the data to IOB2 \(lagrange convert\) for L2S/,
    );
  });

  it("without a scheme or templates allows everything", () => {
    const tracker = new SequenceConstraints({ labels: LABELS }).track({ n: 2 });
    expect(tracker.allowedActions(0)).toEqual({ allowed: LABELS.map((_, t) => t) });
  });
});
