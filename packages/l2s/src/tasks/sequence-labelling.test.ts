import { chainDecoder, createRandom } from "@lagrange/core";
import { allowedTransitions } from "@lagrange/datasets";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LabelConstraintTracker } from "../bridge/allowed-labels.js";
import { greedyDecoder } from "../decoders/greedy.js";
import { hashString } from "../features/hashing.js";
import { SearchPredictor, trainSearch } from "../search/engine.js";
import {
  type LabelGuide,
  type LabellingExample,
  SequenceScores,
  sequenceLabelling,
} from "./sequence-labelling.js";

const BIO = ["B-LOC", "B-PER", "I-LOC", "I-PER", "O"];

/** Noisy BIO data: a word's label shows through its word feature most of the time. */
function corpus(seed: number, count: number): LabellingExample[] {
  const random = createRandom(seed);
  return Array.from({ length: count }, () => {
    const n = random.int(1, 9);
    const gold = new Int32Array(n);
    const names: number[] = [];
    let inside = -1;
    for (let i = 0; i < n; i++) {
      const start = random.bool(0.3);
      if (start) inside = random.int(0, 1);
      else if (inside >= 0 && random.bool(0.4)) inside = -1;
      gold[i] = inside < 0 ? 4 : start ? inside : inside + 2;
      names.push(random.bool(0.75) ? gold[i]! : random.int(0, 4));
    }
    return {
      tokens: {
        length: n,
        offsets: Int32Array.from({ length: n + 1 }, (_, i) => 2 * i),
        hashes: Uint32Array.from(
          names.flatMap((w, i) => [hashString(`w=${w}`), hashString(`p=${i % 3}`)]),
        ),
        values: null,
      },
      gold,
    };
  });
}

function bioGuide(): (example: LabellingExample) => LabelGuide {
  const mask = allowedTransitions(BIO, "IOB2");
  const tracker = new LabelConstraintTracker();
  return (example) => tracker.reset({ n: example.tokens.length, L: BIO.length, mask });
}

describe("sequence labelling", () => {
  it("is the greedy decoder on the policy's chain scores: the same labels, with and without the bridge", async () => {
    const train = corpus(1, 200);
    const test = corpus(2, 100);
    const mask = allowedTransitions(BIO, "IOB2");
    const start = Float64Array.from(mask.allowedStart, (a) => (a ? 0 : Number.NEGATIVE_INFINITY));
    const end = Float64Array.from(mask.allowedEnd, (a) => (a ? 0 : Number.NEGATIVE_INFINITY));
    for (const bridged of [false, true]) {
      const task = sequenceLabelling({ labels: BIO, ...(bridged ? { guide: bioGuide() } : {}) });
      const { policy } = await trainSearch(task, train, {
        passes: 2,
        rollOut: "none",
        learner: { bits: 14 },
      });
      const predictor = new SearchPredictor(task, policy);
      const scores = new SequenceScores(policy);
      const greedy = greedyDecoder();
      for (const example of test) {
        const chain = scores.scores(example.tokens);
        const problem = bridged ? { ...chain, allowed: mask.allowed, start, end } : chain;
        expect([...greedy.decode({ scores: problem }).labels]).toEqual([
          ...predictor.predict(example),
        ]);
      }
    }
  });

  it("never emits an invalid BIO sequence with the bridge on, whatever the policy learned", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 1e6 }), async (seed) => {
        const task = sequenceLabelling({ labels: BIO, guide: bioGuide() });
        // A tiny, badly trained policy: it would happily put I- after O.
        const { policy } = await trainSearch(task, corpus(seed, 5), {
          passes: 1,
          seed,
          learner: { bits: 10 },
        });
        const predictor = new SearchPredictor(task, policy);
        const mask = allowedTransitions(BIO, "IOB2");
        for (const example of corpus(seed + 1, 30)) {
          const labels = predictor.predict(example);
          expect(mask.allowedStart[labels[0]!]).toBe(1);
          for (let i = 1; i < labels.length; i++) {
            expect(mask.allowed[labels[i - 1]! * BIO.length + labels[i]!]).toBe(1);
          }
        }
      }),
      { numRuns: 10 },
    );
  });

  it("reads a first-order policy as chain scores Viterbi can decode too", async () => {
    const task = sequenceLabelling({ labels: BIO });
    const { policy } = await trainSearch(task, corpus(3, 100), {
      passes: 1,
      rollOut: "none",
      learner: { bits: 12 },
    });
    const scores = new SequenceScores(policy);
    const viterbi = chainDecoder(undefined, "viterbi");
    const predictor = new SearchPredictor(task, policy);
    let agree = 0;
    let total = 0;
    for (const example of corpus(4, 50)) {
      const decoded = viterbi.decode({ scores: scores.scores(example.tokens) }).labels;
      const greedy = predictor.predict(example);
      for (let i = 0; i < greedy.length; i++, total++) if (decoded[i] === greedy[i]) agree++;
    }
    // Different searches over one model: they agree on most tokens.
    expect(agree / total).toBeGreaterThan(0.8);
  });
});
