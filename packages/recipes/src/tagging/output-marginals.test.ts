// Output-scheme marginals against brute force: every internal labelling, converted whole.
import { forwardBackward } from "@lagrange/chain-crf";
import { type ChainScores, chainDecoder, type Decoder, scoreLabelling } from "@lagrange/core";
import { randomChainScores } from "@lagrange/core/testing";
import {
  convertScheme,
  decodingMask,
  SCHEME_NAMES,
  type SchemeName,
  schemeLabels,
} from "@lagrange/datasets";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { labellingConfidence } from "./confidence.js";
import { outputMarginals } from "./output-marginals.js";

/** Random scores over `names`, what the scheme forbids at −∞ (as a model's scorer gives them). */
function maskedScores(seed: number, n: number, names: readonly string[], scheme: SchemeName) {
  const L = names.length;
  const raw = randomChainScores(seed, { n, L, startEnd: true, positionSpecific: seed % 2 === 0 });
  const mask = decodingMask(names, scheme)!;
  const start = Float64Array.from(raw.start!, (s, t) =>
    mask.allowedStart[t] === 1 ? s : Number.NEGATIVE_INFINITY,
  );
  const end = Float64Array.from(raw.end!, (s, t) =>
    mask.allowedEnd[t] === 1 ? s : Number.NEGATIVE_INFINITY,
  );
  return { ...raw, start, end, allowed: mask.allowed } satisfies ChainScores;
}

/** p(output_i = X) by enumerating every internal labelling and converting it whole. */
function bruteForce(
  scores: ChainScores,
  names: readonly string[],
  labels: readonly string[],
  internal: SchemeName,
  output: SchemeName,
): Float64Array {
  const { n, L } = scores;
  const J = labels.length;
  const weights: { y: Int32Array; w: number }[] = [];
  let max = Number.NEGATIVE_INFINITY;
  const y = new Int32Array(n);
  for (let k = 0; k < L ** n; k++) {
    let x = k;
    for (let i = 0; i < n; i++) {
      y[i] = x % L;
      x = Math.floor(x / L);
    }
    const w = scoreLabelling(scores, y);
    if (w === Number.NEGATIVE_INFINITY) continue;
    weights.push({ y: y.slice(), w });
    if (w > max) max = w;
  }
  const q = new Float64Array(n * J);
  let Z = 0;
  for (const { w } of weights) Z += Math.exp(w - max);
  for (const { y: labelling, w } of weights) {
    const p = Math.exp(w - max) / Z;
    const out = convertScheme(
      Array.from(labelling, (t) => names[t]!),
      internal,
      output,
    );
    out.forEach((label, i) => {
      q[i * J + labels.indexOf(label)]! += p;
    });
  }
  return q;
}

const types = ["A", "B"];
const pairs = SCHEME_NAMES.flatMap((internal) =>
  SCHEME_NAMES.filter((output) => output !== internal).map((output) => ({ internal, output })),
);

describe("outputMarginals", () => {
  it.each(["IOB1", "IOB2", "IOE1", "IOE2"] as const)(
    "gives a BIOES model's marginals in %s exactly (brute force)",
    (output) => {
      const names = schemeLabels(types, "BIOES");
      const labels = schemeLabels(types, output);
      const edge = outputMarginals(names, labels, "BIOES", output);
      // IOB1 reads the token before, IOE1 the one after; IOB2 and IOE2 the token alone.
      expect(edge.local).toBe(output === "IOB2" || output === "IOE2");
      fc.assert(
        fc.property(
          fc.integer({ min: 0, max: 2 ** 31 - 1 }),
          fc.integer({ min: 1, max: 5 }),
          (seed, n) => {
            const scores = maskedScores(seed, n, names, "BIOES");
            const { marginals, pairwise } = forwardBackward(scores, { pairwise: true });
            const got = edge.convert(marginals, pairwise);
            const want = bruteForce(scores, names, labels, "BIOES", output);
            for (let k = 0; k < want.length; k++) expect(got[k]).toBeCloseTo(want[k]!, 10);
          },
        ),
        { numRuns: 40 },
      );
    },
  );

  it("is exact for every pair of schemes, over three types (window of three included)", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...pairs),
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        fc.integer({ min: 1, max: 4 }),
        ({ internal, output }, seed, n) => {
          const three = ["A", "B", "C"];
          const names = schemeLabels(three, internal);
          const labels = schemeLabels(three, output);
          const edge = outputMarginals(names, labels, internal, output);
          const scores = maskedScores(seed, n, names, internal);
          const { marginals, pairwise } = forwardBackward(scores, { pairwise: true });
          const got = edge.convert(marginals, pairwise);
          const want = bruteForce(scores, names, labels, internal, output);
          for (let k = 0; k < want.length; k++) expect(got[k]).toBeCloseTo(want[k]!, 10);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("gives each token's confidence as the marginal of the label output there", () => {
    const viterbi = chainDecoder();
    const names = schemeLabels(types, "BIOES");
    for (const output of ["IOB1", "IOE1", "IOB2"] as const) {
      const labels = schemeLabels(types, output);
      const edge = outputMarginals(names, labels, "BIOES", output);
      fc.assert(
        fc.property(fc.integer({ min: 0, max: 2 ** 31 - 1 }), (seed) => {
          const scores = maskedScores(seed, 5, names, "BIOES");
          const decoded = viterbi.decode({ scores }).labels;
          const request = { marginals: true, probability: true };
          const c = labellingConfidence(scores, decoded, viterbi, false, request, {}, edge);
          const plain = labellingConfidence(scores, decoded, viterbi, false, request);
          const out = convertScheme(
            Array.from(decoded, (t) => names[t]!),
            "BIOES",
            output,
          );
          expect(c.marginalsOf).toBe("chain");
          expect(c.marginals).toHaveLength(5 * labels.length);
          out.forEach((label, i) => {
            expect(c.confidence![i]).toBe(c.marginals![i * labels.length + labels.indexOf(label)]);
          });
          // p(y|x) is the labelling's, whichever labels it is read in (the pass that also gives
          // pairs may differ in the last bits).
          expect(c.probability).toBeCloseTo(plain.probability!, 12);
        }),
        { numRuns: 20 },
      );
    }
  });

  it("converts a decoder's own marginals exactly where the token alone decides, else marks them", () => {
    const names = schemeLabels(types, "BIOES");
    const L = names.length;
    const n = 3;
    const own = Float64Array.from({ length: n * L }, (_, k) => ((k * 7) % 5) + 1);
    for (let i = 0; i < n; i++) {
      let sum = 0;
      for (let t = 0; t < L; t++) sum += own[i * L + t]!;
      for (let t = 0; t < L; t++) own[i * L + t]! /= sum;
    }
    const decoder: Decoder = {
      name: "fixed",
      decode: () => ({
        labels: new Int32Array(n),
        primal: 0,
        dual: 0,
        status: "converged",
        iterations: 0,
        certified: false,
        gap: 0,
      }),
      marginals: () => own.slice(),
    };
    const scores = maskedScores(1, n, names, "BIOES");
    const labelsOut = new Int32Array(n);
    const iob2 = schemeLabels(types, "IOB2");
    const local = labellingConfidence(
      scores,
      labelsOut,
      decoder,
      false,
      { marginals: true },
      {},
      outputMarginals(names, iob2, "BIOES", "IOB2"),
    );
    expect(local.marginalsOf).toBe("fixed");
    // Under IOB2 out of BIOES: B-/S- → B-, I-/E- → I-.
    const at = (i: number, label: string) => own[i * L + names.indexOf(label)]!;
    expect(local.marginals![iob2.indexOf("B-A")]).toBeCloseTo(at(0, "B-A") + at(0, "S-A"), 12);
    expect(local.marginals![iob2.indexOf("I-A")]).toBeCloseTo(at(0, "I-A") + at(0, "E-A"), 12);
    const iob1 = schemeLabels(types, "IOB1");
    const paired = labellingConfidence(
      scores,
      labelsOut,
      decoder,
      false,
      { marginals: true },
      {},
      outputMarginals(names, iob1, "BIOES", "IOB1"),
    );
    expect(paired.marginalsOf).toBe("fixed-factored");
    for (let i = 0; i < n; i++) {
      let sum = 0;
      for (let j = 0; j < iob1.length; j++) sum += paired.marginals![i * iob1.length + j]!;
      expect(sum).toBeCloseTo(1, 12);
    }
  });

  it("leaves a model without an output scheme's numbers as they were", () => {
    const viterbi = chainDecoder();
    const scores = randomChainScores(5, { n: 6, L: 4, startEnd: true });
    const decoded = viterbi.decode({ scores }).labels;
    const c = labellingConfidence(scores, decoded, viterbi, false, { marginals: true });
    const { marginals } = forwardBackward(scores);
    expect(c.marginals).toEqual(marginals);
    expect(Array.from(c.confidence!)).toEqual(Array.from(decoded, (t, i) => marginals[i * 4 + t]));
  });
});
