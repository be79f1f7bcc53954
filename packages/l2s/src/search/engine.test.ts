import { createRandom } from "@lagrange/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hashString } from "../features/hashing.js";
import { entityRelation } from "../tasks/entity-relation.js";
import {
  type LabellingExample,
  sequenceLabelling,
  type TokenFeatures,
} from "../tasks/sequence-labelling.js";
import { type DetectionItem, sequentialDetection } from "../tasks/sequential-detection.js";
import { SearchPredictor, trainSearch } from "./engine.js";
import { SearchTaskError } from "./search-runner.js";
import type { SearchTask } from "./types.js";

/** Tokens with one word feature each. */
function tokensOf(words: readonly number[]): TokenFeatures {
  return {
    length: words.length,
    offsets: Int32Array.from({ length: words.length + 1 }, (_, i) => i),
    hashes: Uint32Array.from(words, (w) => hashString(`w=${w}`)),
    values: null,
  };
}

/** A separable labelling task: the label is a function of the word. */
function separableCorpus(seed: number, sentences: number, vocabulary: number, L: number) {
  const random = createRandom(seed);
  const labelOf = Int32Array.from({ length: vocabulary }, () => random.int(0, L - 1));
  const examples: LabellingExample[] = [];
  for (let s = 0; s < sentences; s++) {
    const words = Array.from({ length: random.int(1, 8) }, () => random.int(0, vocabulary - 1));
    examples.push({ tokens: tokensOf(words), gold: Int32Array.from(words, (w) => labelOf[w]!) });
  }
  return examples;
}

const LABELS = ["A", "B", "C", "D"];

describe("trainSearch", () => {
  it("with a perfect reference and roll-in = reference, reproduces the reference on the training set", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 1e6 }), async (seed) => {
        const examples = separableCorpus(seed, 30, 12, LABELS.length);
        const task = sequenceLabelling({ labels: LABELS });
        const trained = await trainSearch(task, examples, {
          rollIn: "reference",
          rollOut: "none",
          passes: 5,
          seed,
          learner: { bits: 16 },
        });
        const predictor = new SearchPredictor(task, trained.policy);
        for (const example of examples) {
          expect([...predictor.predict(example)]).toEqual([...example.gold!]);
        }
      }),
      { numRuns: 8 },
    );
  });

  it("costs a Hamming-loss deviation the same by reference roll-out and in one step (same policy)", async () => {
    const examples = separableCorpus(7, 25, 10, LABELS.length);
    const task = sequenceLabelling({ labels: LABELS });
    const common = { rollIn: "learned" as const, passes: 2, seed: 3, learner: { bits: 14 } };
    const byRollOut = await trainSearch(task, examples, { ...common, rollOut: "reference" });
    const oneStep = await trainSearch(task, examples, { ...common, rollOut: "none" });
    expect(byRollOut.rollOuts).toBeGreaterThan(0);
    expect(oneStep.rollOuts).toBe(0);
    expect(byRollOut.learnedDecisions).toBe(oneStep.learnedDecisions);
    const a = byRollOut.policy.learners[0]!.exportState().weights;
    const b = oneStep.policy.learners[0]!.exportState().weights;
    expect(Buffer.from(a.buffer).equals(Buffer.from(b.buffer))).toBe(true);
  });

  it("is deterministic given a seed, for every roll-in × roll-out", async () => {
    const examples = separableCorpus(11, 20, 9, 3);
    const task = sequenceLabelling({ labels: LABELS.slice(0, 3) });
    for (const rollIn of ["reference", "learned", "mixture"] as const) {
      for (const rollOut of ["reference", "learned", "mixture", "none"] as const) {
        const options = {
          rollIn,
          rollOut,
          passes: 0.5,
          seed: 5,
          interpolation: 0.05,
          learner: { bits: 12 },
        };
        const first = await trainSearch(task, examples, options);
        const second = await trainSearch(task, examples, options);
        expect(second.learnedDecisions).toBe(first.learnedDecisions);
        const a = first.policy.learners[0]!.exportState().weights;
        const b = second.policy.learners[0]!.exportState().weights;
        expect(Buffer.from(a.buffer).equals(Buffer.from(b.buffer))).toBe(true);
      }
    }
  });

  it("subsamples positions when passes < 1", async () => {
    const examples = separableCorpus(3, 200, 20, LABELS.length);
    const decisions = examples.reduce((n, e) => n + e.tokens.length, 0);
    const task = sequenceLabelling({ labels: LABELS });
    const full = await trainSearch(task, examples, { rollOut: "none", passes: 1 });
    const tenth = await trainSearch(task, examples, { rollOut: "none", passes: 0.1 });
    expect(full.learnedDecisions).toBe(decisions);
    expect(tenth.learnedDecisions).toBeGreaterThan(decisions * 0.05);
    expect(tenth.learnedDecisions).toBeLessThan(decisions * 0.15);
  });

  it("hashes a conditioned decision's features once per example, however many roll-outs revisit it", async () => {
    let featureCalls = 0;
    const words = [1, 2, 3, 4, 5];
    const task: SearchTask<number[], number[]> = {
      name: "counting",
      actionSpaces: [{ name: "label", actions: 3 }],
      run(example, search) {
        return example.map((w, i) => {
          const label = search.predict({
            features: (sink) => {
              featureCalls++;
              sink.add(`w=${w}`);
            },
            reference: w % 3,
            tag: i,
            conditionOn: i > 0 ? [i - 1] : [],
          });
          if (label !== w % 3) search.loss(1);
          return label;
        });
      },
    };
    const result = await trainSearch(task, [words], { rollIn: "learned", rollOut: "learned" });
    expect(result.rollOuts).toBe(words.length * 3);
    expect(featureCalls).toBe(words.length);
    expect(result.memoHits).toBeGreaterThan(0);
  });

  it("reports a task whose decisions change between runs", async () => {
    let run = 0;
    const task: SearchTask<number, number> = {
      name: "fickle",
      actionSpaces: [{ name: "a", actions: 2 }],
      run(_example, search) {
        run++;
        search.predict({ features: () => {}, reference: 0, tag: run });
        return search.predict({ features: () => {}, reference: 0, tag: 0 });
      },
    };
    await expect(trainSearch(task, [0], { rollOut: "reference" })).rejects.toThrow(SearchTaskError);
  });

  it("rejects bad requests and options with messages that say what was expected", async () => {
    const task: SearchTask<number, number> = {
      name: "bad",
      actionSpaces: [{ name: "a", actions: 2 }],
      run: (_e, search) => search.predict({ features: () => {}, allowed: [0, 5], tag: 0 }),
    };
    await expect(trainSearch(task, [0])).rejects.toThrow(
      /allowed action 5: expected an integer in 0…1/,
    );
    await expect(trainSearch(task, [0], { passes: 1.5 })).rejects.toThrow(/passes 1.5/);
    const shortCosts: SearchTask<number, number> = {
      name: "short",
      actionSpaces: [{ name: "a", actions: 3 }],
      run: (_e, search) => search.predict({ features: () => {}, allowedCosts: [0, 1], tag: 0 }),
    };
    await expect(trainSearch(shortCosts, [0])).rejects.toThrow(/2 allowedCosts for 3 actions/);
    const badTag: SearchTask<number, number> = {
      name: "bad-tag",
      actionSpaces: [{ name: "a", actions: 2 }],
      run: (_e, search) => search.predict({ features: () => {}, tag: -1 }),
    };
    await expect(trainSearch(badTag, [0])).rejects.toThrow(/tag -1: expected an integer ≥ 0/);
  });

  it("keeps the per-tag caches of different action spaces apart, however many there are", async () => {
    // Nine spaces of different sizes: learner 8 at tag 0 and learner 0 at tag 1 must not share.
    const spaces = Array.from({ length: 9 }, (_, k) => ({ name: `s${k}`, actions: k + 2 }));
    const task: SearchTask<number, number[]> = {
      name: "many-spaces",
      actionSpaces: spaces,
      run(_e, search) {
        const a = search.predict({
          features: (f) => f.add("x"),
          reference: 1,
          conditionOn: [],
          tag: 0,
          learner: 8,
        });
        const b = search.predict({
          features: (f) => f.add("x"),
          reference: 1,
          conditionOn: [],
          tag: 1,
          learner: 0,
        });
        return [a, b];
      },
    };
    const { policy } = await trainSearch(task, [0, 1, 2], { passes: 3, rollOut: "none" });
    expect(new SearchPredictor(task, policy).predict(0)).toEqual([1, 1]);
  });
});

describe("sequential detection (Algorithm 4)", () => {
  /** Items whose class shows through a noisy feature; sequences with a rare class-1 item. */
  function detectionCorpus(seed: number, count: number) {
    const random = createRandom(seed);
    const sequences: DetectionItem[][] = [];
    for (let s = 0; s < count; s++) {
      const items: DetectionItem[] = [];
      const length = random.int(3, 8);
      const positive = random.bool(0.3) ? random.int(0, length - 1) : -1;
      for (let i = 0; i < length; i++) {
        const label = i === positive ? 1 : 0;
        // The cue agrees with the class 70 % of the time: errors are unavoidable, so the loss's
        // asymmetry decides which kind the policy makes.
        const cue = random.bool(0.7) ? label : 1 - label;
        const noise = random.int(0, 30);
        items.push({
          label,
          features: (sink) => {
            sink.add(`cue=${cue}`);
            sink.add(`noise=${noise}`);
          },
        });
      }
      sequences.push(items);
    }
    return sequences;
  }

  it("detects more often as misses cost more", async () => {
    const train = detectionCorpus(1, 400);
    const test = detectionCorpus(2, 400);
    const recallAt = async (falseNegativeLoss: number) => {
      const task = sequentialDetection({ classes: 2, falseNegativeLoss });
      const { policy } = await trainSearch(task, train, {
        rollIn: "learned",
        rollOut: "reference",
        passes: 3,
        learner: { bits: 14 },
      });
      const predictor = new SearchPredictor(task, policy);
      let detected = 0;
      let positives = 0;
      let alarms = 0;
      for (const items of test) {
        const gold = Math.max(...items.map((i) => i.label!));
        const predicted = predictor.predict(items);
        if (gold === 1) {
          positives++;
          if (predicted === 1) detected++;
        } else if (predicted === 1) alarms++;
      }
      return { recall: detected / positives, alarms };
    };
    const symmetric = await recallAt(1);
    const asymmetric = await recallAt(10);
    expect(asymmetric.recall).toBeGreaterThan(symmetric.recall);
    expect(asymmetric.alarms).toBeGreaterThan(symmetric.alarms);
  });
});

describe("entity/relation typing (Algorithm 5)", () => {
  const TYPES = ["person", "organization", "location"];
  const RELATIONS = ["none", "work_for", "located_in", "live_in"];
  const valid = (a: number, b: number): number[] => {
    const out: number[] = [];
    if (a === 0 && b === 1) out.push(1);
    if (a === 1 && b === 2) out.push(2);
    if (a === 0 && b === 2) out.push(3);
    return out;
  };

  function corpus(seed: number, count: number) {
    const random = createRandom(seed);
    return Array.from({ length: count }, () => {
      const types = Array.from({ length: random.int(2, 4) }, () => random.int(0, 2));
      const entities = types.map((type) => {
        const cue = random.bool(0.85) ? type : random.int(0, 2);
        return { type, features: (sink: { add(n: string): void }) => sink.add(`cue=${cue}`) };
      });
      const pairs = [];
      for (let n = 0; n < types.length; n++) {
        for (let m = n + 1; m < types.length; m++) {
          const options = valid(types[n]!, types[m]!);
          const relation = options.length > 0 && random.bool(0.7) ? options[0]! : 0;
          const hint = random.bool(0.9) ? relation : 0;
          pairs.push({
            n,
            m,
            relation,
            features: (sink: { add(n: string): void }) => sink.add(`hint=${hint}`),
          });
        }
      }
      return { entities, pairs };
    });
  }

  it("never predicts a relation its predicted argument types rule out, and learns both", async () => {
    const task = entityRelation({
      entityTypes: TYPES,
      relations: RELATIONS,
      validRelations: valid,
    });
    const train = corpus(1, 300);
    const test = corpus(2, 200);
    const { policy } = await trainSearch(task, train, {
      passes: 3,
      rollOut: "none",
      learner: { bits: 14 },
    });
    const predictor = new SearchPredictor(task, policy);
    let entityRight = 0;
    let entities = 0;
    let relationRight = 0;
    let relations = 0;
    for (const example of test) {
      const out = predictor.predict(example);
      example.entities.forEach((e, n) => {
        entities++;
        if (out.entityTypes[n] === e.type) entityRight++;
      });
      example.pairs.forEach((pair, p) => {
        const r = out.relations[p]!;
        if (r !== 0) expect(valid(out.entityTypes[pair.n]!, out.entityTypes[pair.m]!)).toContain(r);
        relations++;
        if (r === pair.relation) relationRight++;
      });
    }
    expect(entityRight / entities).toBeGreaterThan(0.8);
    expect(relationRight / relations).toBeGreaterThan(0.8);
  });
});
