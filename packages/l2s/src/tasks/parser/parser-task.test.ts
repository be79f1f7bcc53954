import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { HashedFeatures } from "../../features/hashing.js";
import type { PredictRequest, Search } from "../../search/types.js";
import { ArcHybridState, REDUCE_LEFT, REDUCE_RIGHT, SHIFT } from "./arc-hybrid.js";
import { SentenceAtoms, writeConfigurationFeatures } from "./features.js";
import { DynamicOracle, GoldTree } from "./oracle.js";
import { arcHybridParser, type ParseExample, relationsOf } from "./parser-task.js";

/** What a scripted search saw of one predict call (copied: the task reuses its arrays). */
interface Seen {
  readonly tag: number;
  readonly learner: number;
  readonly allowed: number[] | undefined;
  readonly reference: number[] | undefined;
  readonly referenceCosts: number[] | undefined;
  readonly features: number;
}

/**
 * A Search that takes each decision from a script (by default: the first reference action, or
 * the first allowed one), sums the losses and checks that tags are unique within the run.
 */
class ScriptedSearch implements Search {
  readonly outputWanted = true;
  lossTotal = 0;
  readonly seen: Seen[] = [];
  private readonly tags = new Set<number>();
  private readonly sink = new HashedFeatures();

  constructor(
    readonly training: boolean,
    private readonly choose: (request: PredictRequest, seen: Seen) => number = follow,
  ) {}

  predict(request: PredictRequest): number {
    if (this.tags.has(request.tag)) throw new Error(`tag ${request.tag} used twice`);
    this.tags.add(request.tag);
    request.features(this.sink.clear());
    const ref = request.reference;
    const seen: Seen = {
      tag: request.tag,
      learner: request.learner ?? 0,
      allowed: request.allowed === undefined ? undefined : Array.from(request.allowed),
      reference: ref === undefined ? undefined : typeof ref === "number" ? [ref] : Array.from(ref),
      referenceCosts:
        request.referenceCosts === undefined ? undefined : Array.from(request.referenceCosts),
      features: this.sink.length,
    };
    this.seen.push(seen);
    return this.choose(request, seen);
  }

  loss(value: number): void {
    this.lossTotal += value;
  }
}

function follow(_request: PredictRequest, seen: Seen): number {
  return seen.reference?.[0] ?? seen.allowed?.[0] ?? 0;
}

const RELATIONS = ["amod", "aux", "cop", "nsubj", "obj", "root"];

/** A random tree (every rooted tree has a chance) with random relations. */
const exampleArbitrary = (maxWords: number) =>
  fc
    .integer({ min: 1, max: maxWords })
    .chain((n) =>
      fc.tuple(
        fc.shuffledSubarray(
          Array.from({ length: n }, (_, i) => i + 1),
          { minLength: n, maxLength: n },
        ),
        fc.array(fc.nat(), { minLength: n, maxLength: n }),
        fc.array(fc.constantFrom(...RELATIONS), { minLength: n, maxLength: n }),
      ),
    )
    .map(([order, picks, relations]): ParseExample => {
      const heads = new Array<number>(order.length);
      order.forEach((word, k) => {
        const choice = picks[k]! % (k + 1);
        heads[word - 1] = choice === 0 ? 0 : order[choice - 1]!;
      });
      const words = heads.map((_, i) => `w${i + 1}`);
      return {
        words,
        tags: words.map((_, i) => (i % 2 === 0 ? "NOUN" : "VERB")),
        heads,
        relations,
      };
    });

const isProjective = (e: ParseExample): boolean => new GoldTree(e.heads!).projective;

describe("arc-hybrid parser task", () => {
  const labelled = arcHybridParser({ relations: RELATIONS });
  const unlabelled = arcHybridParser({ relations: [], labelled: false });

  it("declares its action spaces", () => {
    expect(labelled.actionSpaces).toEqual([
      { name: "transition", actions: 3 },
      { name: "relation", actions: RELATIONS.length },
    ]);
    expect(unlabelled.actionSpaces).toEqual([{ name: "transition", actions: 3 }]);
    expect(() => arcHybridParser({ relations: [] })).toThrow(/at least one relation/);
    expect(() => arcHybridParser({ relations: ["a", "a"] })).toThrow(/listed twice/);
  });

  it("following the reference (dynamic or static oracle) rebuilds a projective gold tree with loss 0", () => {
    const byStatic = arcHybridParser({ relations: RELATIONS, oracle: "static" });
    fc.assert(
      fc.property(exampleArbitrary(10).filter(isProjective), (example) => {
        for (const task of [labelled, byStatic]) {
          const search = new ScriptedSearch(true);
          const out = task.run(example, search);
          expect(Array.from(out.heads)).toEqual(example.heads);
          expect(out.relations).toEqual(example.relations);
          expect(search.lossTotal).toBe(0);
        }
      }),
      { numRuns: 200 },
    );
  });

  it("passes the valid transitions, the zero-cost ones as reference and the oracle's costs", () => {
    fc.assert(
      fc.property(exampleArbitrary(9), (example) => {
        const search = new ScriptedSearch(true);
        labelled.run(example, search);
        const n = example.words.length;
        const transitions = search.seen.filter((s) => s.learner === 0);
        const relations = search.seen.filter((s) => s.learner === 1);
        expect(transitions).toHaveLength(2 * n);
        expect(relations).toHaveLength(n);
        transitions.forEach((s, step) => {
          expect(s.tag).toBe(2 * step);
          expect(s.features).toBeGreaterThan(50);
          const costs = s.referenceCosts!;
          expect(costs).toHaveLength(s.allowed!.length);
          expect(Math.min(...costs)).toBe(0);
          expect(s.reference).toEqual(s.allowed!.filter((_, j) => costs[j] === 0));
        });
        for (const s of relations) {
          expect(s.tag % 2).toBe(1);
          expect(s.allowed).toBeUndefined();
        }
      }),
      { numRuns: 100 },
    );
  });

  it("one deviation from the reference costs exactly what the oracle said it would", () => {
    const oracle = new DynamicOracle();
    fc.assert(
      fc.property(exampleArbitrary(9), fc.nat(), fc.nat(), (example, at, pick) => {
        let transitionsSeen = 0;
        let charged = 0;
        const search = new ScriptedSearch(true, (request, seen) => {
          if (request.learner === 1) return follow(request, seen);
          if (transitionsSeen++ !== at % (2 * example.words.length)) return follow(request, seen);
          const j = pick % seen.allowed!.length;
          charged = seen.referenceCosts![j]!;
          return seen.allowed![j]!;
        });
        unlabelled.run(example, search);
        const gold = new GoldTree(example.heads!);
        const best = oracle.minLoss(new ArcHybridState().reset(gold.n), gold);
        expect(search.lossTotal).toBe(best + charged);
      }),
      { numRuns: 300 },
    );
  });

  it("counts a word with the right head and a wrong relation as one loss, and a wrong head whatever its relation", () => {
    const example: ParseExample = {
      words: ["Flying", "planes", "can", "be", "dangerous"],
      tags: ["VERB", "NOUN", "AUX", "AUX", "ADJ"],
      heads: [3, 1, 0, 3, 4],
      relations: ["nsubj", "obj", "root", "aux", "cop"],
    };
    // Right tree, "be" mislabelled.
    const mislabel = new ScriptedSearch(true, (request, seen) =>
      request.learner === 1 && seen.reference?.[0] === RELATIONS.indexOf("aux")
        ? RELATIONS.indexOf("obj")
        : follow(request, seen),
    );
    const out = labelled.run(example, mislabel);
    expect(out.relations).toEqual(["nsubj", "obj", "root", "obj", "cop"]);
    expect(mislabel.lossTotal).toBe(1);

    // Figure 5's transitions: Flying and planes get wrong heads (loss 2); their relation
    // decisions have every relation as reference at cost 0.
    const script = [SHIFT, REDUCE_LEFT, SHIFT, REDUCE_LEFT, SHIFT, SHIFT, SHIFT];
    script.push(REDUCE_RIGHT, REDUCE_RIGHT, REDUCE_RIGHT);
    let t = 0;
    const figure5 = new ScriptedSearch(true, (request, seen) =>
      request.learner === 0 ? script[t++]! : follow(request, seen),
    );
    const parsed = labelled.run(example, figure5);
    expect(Array.from(parsed.heads)).toEqual([2, 3, 0, 3, 4]);
    expect(figure5.lossTotal).toBe(2);
    const relationRequests = figure5.seen.filter((s) => s.learner === 1);
    expect(relationRequests[0]!.reference).toEqual(RELATIONS.map((_, r) => r));
    expect(relationRequests[0]!.referenceCosts).toEqual(RELATIONS.map(() => 0));
    const right = relationRequests[2]!; // "be" → "dangerous": a gold arc
    expect(right.reference).toEqual([RELATIONS.indexOf("cop")]);
    expect(right.referenceCosts).toEqual(RELATIONS.map((r) => (r === "cop" ? 0 : 1)));
  });

  it("passes no reference at prediction time and needs no gold tree", () => {
    const example: ParseExample = { words: ["a", "b", "c"], tags: ["X", "Y", "Z"] };
    const search = new ScriptedSearch(false);
    const out = labelled.run(example, search);
    expect(
      search.seen.every((s) => s.reference === undefined && s.referenceCosts === undefined),
    ).toBe(true);
    expect(out.heads).toHaveLength(3);
    expect(out.relations).toHaveLength(3);
    expect(search.lossTotal).toBe(0);
    expect(labelled.run({ words: [], tags: [] }, search).heads).toHaveLength(0);
  });

  it("rejects a gold relation outside its vocabulary when training on it, not when predicting", () => {
    const example: ParseExample = {
      words: ["a"],
      tags: ["X"],
      heads: [0],
      relations: ["dep"],
      source: "x.conllu:3",
    };
    expect(() => labelled.run(example, new ScriptedSearch(true))).toThrow(
      /x\.conllu:3: relation "dep" is not in the parser's relations/,
    );
    expect(labelled.run(example, new ScriptedSearch(false)).heads).toEqual(Int32Array.from([0]));
    expect(() =>
      labelled.run({ words: ["a"], tags: [], source: "y:1" }, new ScriptedSearch(false)),
    ).toThrow(/y:1: 1 words but 0 POS tags/);
  });

  it("relationsOf is the sorted vocabulary", () => {
    expect(
      relationsOf([
        { words: ["a", "b"], tags: ["X", "X"], relations: ["root", "amod"] },
        { words: ["c"], tags: ["X"] },
        { words: ["d"], tags: ["X"], relations: ["nsubj"] },
      ]),
    ).toEqual(["amod", "nsubj", "root"]);
  });
});

describe("configuration features", () => {
  it("are deterministic, change with the configuration, and hash no strings per decision", () => {
    const atoms = new SentenceAtoms(["Flying", "planes", "can"], ["VERB", "NOUN", "AUX"]);
    const state = new ArcHybridState().reset(3);
    const first = new HashedFeatures();
    writeConfigurationFeatures(state, atoms, first);
    const again = new HashedFeatures();
    writeConfigurationFeatures(state, atoms, again);
    expect(Array.from(again.hashes.subarray(0, again.length))).toEqual(
      Array.from(first.hashes.subarray(0, first.length)),
    );
    state.apply(SHIFT);
    const after = new HashedFeatures();
    writeConfigurationFeatures(state, atoms, after);
    expect(after.length).toBe(first.length);
    const before = new Set(first.hashes.subarray(0, first.length));
    const changed = Array.from(after.hashes.subarray(0, after.length)).filter(
      (h) => !before.has(h),
    );
    expect(changed.length).toBeGreaterThan(after.length / 2);
    // Distinct templates give distinct hashes (no template collides with another here).
    expect(new Set(after.hashes.subarray(0, after.length)).size).toBeGreaterThan(
      after.length * 0.8,
    );
  });
});
