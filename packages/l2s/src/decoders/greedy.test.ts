import {
  type ChainScores,
  constraintViolation,
  DecoderRegistry,
  type LinearConstraint,
  linearConstraint,
  ProblemValidationError,
  scoreLabelling,
} from "@lagrange/core";
import { transitionOffset } from "@lagrange/core/chain";
import {
  allowedTransitions,
  isValidSequence,
  SCHEME_NAMES,
  type SchemeName,
  schemeLabels,
} from "@lagrange/datasets";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { weightedTemplates } from "../bridge/templates.js";
import { greedyDecoder, greedyDefinition } from "./greedy.js";

const NEG = Number.NEGATIVE_INFINITY;
const TYPES = ["PER", "LOC", "ORG", "MISC"];

/** A deterministic stream of doubles in [−scale, scale) (mulberry32). */
function randomScores(seed: number, size: number, scale = 2): Float64Array {
  let a = seed >>> 0;
  const out = new Float64Array(size);
  for (let k = 0; k < size; k++) {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    out[k] = ((((t ^ (t >>> 14)) >>> 0) / 4294967296) * 2 - 1) * scale;
  }
  return out;
}

interface Chain {
  readonly scores: ChainScores;
  readonly labels: string[];
  readonly scheme: SchemeName;
}

/**
 * A scheme's labels over `types` and random chain scores whose mask is written one of three ways:
 * the `allowed` field, −∞ in a shared transition block, or −∞ in position-specific blocks.
 */
function maskedChain(
  seed: number,
  n: number,
  types: number,
  scheme: SchemeName,
  encoding: 0 | 1 | 2,
): Chain {
  const labels = schemeLabels(TYPES.slice(0, types), scheme);
  const L = labels.length;
  const LL = L * L;
  const mask = allowedTransitions(labels, scheme);
  const unary = randomScores(seed, n * L, 3);
  const specific = encoding === 2 && n >= 3;
  const transition = randomScores(seed + 1, specific ? (n - 1) * LL : LL);
  if (encoding !== 0) {
    for (let q = 0; q < transition.length; q++) if (mask.allowed[q % LL] === 0) transition[q] = NEG;
  }
  const start = randomScores(seed + 2, L);
  const end = randomScores(seed + 3, L);
  for (let t = 0; t < L; t++) {
    if (mask.allowedStart[t] === 0) start[t] = NEG;
    if (mask.allowedEnd[t] === 0) end[t] = NEG;
  }
  const scores: ChainScores =
    encoding === 0
      ? { n, L, unary, transition, start, end, allowed: mask.allowed }
      : { n, L, unary, transition, start, end };
  return { scores, labels, scheme };
}

/** The plain greedy: argmax of unary + transition (+ start/end), lowest id on ties, no pruning. */
function referenceGreedy(
  scores: ChainScores,
  allowedAt?: (i: number, prefix: number[]) => number[],
) {
  const { n, L, unary, transition, start, end } = scores;
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const candidates = allowedAt?.(i, out) ?? Array.from({ length: L }, (_, t) => t);
    let best = candidates[0]!;
    let bestScore = NEG;
    for (const y of candidates) {
      let s = unary[i * L + y]!;
      s +=
        i === 0
          ? (start?.[y] ?? 0)
          : transition[transitionOffset(scores, i) + out[i - 1]! * L + y]!;
      if (i === n - 1) s += end?.[y] ?? 0;
      if (s > bestScore) {
        bestScore = s;
        best = y;
      }
    }
    out.push(best);
  }
  return Int32Array.from(out);
}

/** Labels at position prefix.length that extend to some full labelling of finite score. */
function viableByEnumeration(scores: ChainScores, prefix: readonly number[]): number[] {
  const { n, L } = scores;
  const out = new Set<number>();
  const y = new Int32Array(n);
  const total = L ** (n - prefix.length);
  for (let code = 0; code < total; code++) {
    let c = code;
    for (let i = 0; i < n; i++) {
      if (i < prefix.length) y[i] = prefix[i]!;
      else {
        y[i] = c % L;
        c = Math.floor(c / L);
      }
    }
    if (scoreLabelling(scores, y) > NEG) out.add(y[prefix.length]!);
  }
  return [...out].sort((a, b) => a - b);
}

const schemeArb = fc.constantFrom(...SCHEME_NAMES);

describe("greedy decoder", () => {
  it("without constraints or a mask, is the plain left-to-right argmax", () => {
    fc.assert(
      fc.property(
        fc.integer(),
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 1, max: 8 }),
        fc.boolean(),
        fc.boolean(),
        (seed, n, L, specific, boundaries) => {
          const LL = L * L;
          const scores: ChainScores = {
            n,
            L,
            unary: randomScores(seed, n * L, 3),
            transition: randomScores(seed + 1, specific && n >= 3 ? (n - 1) * LL : LL),
            ...(boundaries
              ? { start: randomScores(seed + 2, L), end: randomScores(seed + 3, L) }
              : {}),
          };
          const d = greedyDecoder().decode({ scores });
          expect([...d.labels]).toEqual([...referenceGreedy(scores)]);
          expect(d.primal).toBeCloseTo(scoreLabelling(scores, d.labels), 9);
          expect(d.status).toBe("converged");
          expect(d.certified).toBe(false);
          expect(d.constraintStats).toBeUndefined();
          expect(d.constraintFallbacks).toBe(0);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("with a mask, is the argmax over the labels that can still be completed (brute force)", () => {
    fc.assert(
      fc.property(
        fc.integer(),
        fc.integer({ min: 1, max: 5 }),
        schemeArb,
        fc.constantFrom<0 | 1 | 2>(0, 1, 2),
        (seed, n, scheme, encoding) => {
          const { scores } = maskedChain(seed, n, 1, scheme, encoding);
          const d = greedyDecoder().decode({ scores });
          const expected = referenceGreedy(scores, (_, prefix) =>
            viableByEnumeration(scores, prefix),
          );
          expect([...d.labels]).toEqual([...expected]);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("never emits a sequence its scheme forbids (random scores, every scheme and mask encoding)", () => {
    let plainInvalid = 0;
    fc.assert(
      fc.property(
        fc.integer(),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 4 }),
        schemeArb,
        fc.constantFrom<0 | 1 | 2>(0, 1, 2),
        (seed, n, types, scheme, encoding) => {
          const { scores, labels } = maskedChain(seed, n, types, scheme, encoding);
          const d = greedyDecoder().decode({ scores });
          const names = [...d.labels].map((y) => labels[y]!);
          expect(isValidSequence(names, scheme)).toBe(true);
          expect(d.primal).toBeGreaterThan(NEG);
          expect(d.status).toBe("converged");
          // The plain greedy, for contrast, breaks the mask on many of the same scores.
          const plain = [...referenceGreedy(scores)].map((y) => labels[y]!);
          if (!isValidSequence(plain, scheme)) plainInvalid++;
        },
      ),
      { numRuns: 300 },
    );
    expect(plainInvalid).toBeGreaterThan(30);
  });

  it("keeps hard at-most-k counts (templates) while staying BIO-valid", () => {
    fc.assert(
      fc.property(
        fc.integer(),
        fc.integer({ min: 1, max: 30 }),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 0, max: 2 }),
        (seed, n, types, k) => {
          const labels = schemeLabels(TYPES.slice(0, types), "IOB2");
          const L = labels.length;
          const mask = allowedTransitions(labels, "IOB2");
          const unary = randomScores(seed, n * L, 3);
          // Favour B- labels so that the counts bind.
          labels.forEach((name, t) => {
            if (name.startsWith("B-")) for (let i = 0; i < n; i++) unary[i * L + t]! += 2;
          });
          const scores: ChainScores = {
            n,
            L,
            unary,
            transition: randomScores(seed + 1, L * L),
            allowed: mask.allowed,
            start: Float64Array.from(mask.allowedStart, (a) => (a === 1 ? 0 : NEG)),
          };
          const templates = weightedTemplates(labels, "IOB2", [
            { spec: { kind: "singleton", segment: TYPES[0]! }, penalty: null },
            ...(types > 1
              ? [
                  {
                    spec: { kind: "pairwise-sum", first: TYPES[0]!, second: TYPES[1]!, bound: k },
                    penalty: null,
                  } as const,
                ]
              : []),
          ]);
          const constraints = templates.flatMap((w) =>
            w.template.instantiate({ n, L }).map((c) => ({ ...c })),
          );
          const d = greedyDecoder().decode({ scores, constraints });
          for (const c of constraints) expect(constraintViolation(c, d.labels, L)).toBe(0);
          expect(d.constraintStats?.hardViolated).toBe(0);
          expect(d.constraintFallbacks).toBe(0);
          expect(
            isValidSequence(
              [...d.labels].map((y) => labels[y]!),
              "IOB2",
            ),
          ).toBe(true);
          expect(d.primal).toBeCloseTo(scoreLabelling(scores, d.labels), 9);
          // No second pass: greedy search has no labelling before the constraints act.
          expect(d.constraintStats?.firstLabels).toBe(d.labels);
          expect(d.constraintStats?.firstViolated).toBe(d.constraintStats?.violated);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("an at-least-one hard constraint forces its label in, validly", () => {
    fc.assert(
      fc.property(fc.integer(), fc.integer({ min: 1, max: 15 }), (seed, n) => {
        const labels = schemeLabels(["PER", "LOC"], "BIOES");
        const L = labels.length;
        const mask = allowedTransitions(labels, "BIOES");
        const unary = randomScores(seed, n * L, 3);
        const iPer = labels.indexOf("S-PER");
        for (let i = 0; i < n; i++) unary[i * L + iPer]! -= 10; // the model dislikes S-PER
        const scores: ChainScores = {
          n,
          L,
          unary,
          transition: randomScores(seed + 1, L * L),
          allowed: mask.allowed,
          start: Float64Array.from(mask.allowedStart, (a) => (a === 1 ? 0 : NEG)),
          end: Float64Array.from(mask.allowedEnd, (a) => (a === 1 ? 0 : NEG)),
        };
        // At least one S-PER: −Σ_i z[i, S-PER] ≤ −1.
        const atLeastOne = linearConstraint({
          terms: Array.from({ length: n }, (_, i) => [i * L + iPer, -1] as const),
          rhs: -1,
        });
        const d = greedyDecoder().decode({ scores, constraints: [atLeastOne] });
        expect([...d.labels]).toContain(iPer);
        expect(
          isValidSequence(
            [...d.labels].map((y) => labels[y]!),
            "BIOES",
          ),
        ).toBe(true);
        expect(d.constraintStats?.hardViolated).toBe(0);
        expect(d.primal).toBeGreaterThan(NEG);
      }),
      { numRuns: 200 },
    );
  });

  it("primal is the chain score minus the soft penalties of the output", () => {
    fc.assert(
      fc.property(
        fc.integer(),
        fc.integer({ min: 1, max: 20 }),
        fc.double({ min: 0, max: 5, noNaN: true }),
        (seed, n, penalty) => {
          const { scores, labels } = maskedChain(seed, n, 2, "IOB2", 0);
          const L = labels.length;
          const constraints: LinearConstraint[] = weightedTemplates(labels, "IOB2", [
            { spec: { kind: "singleton", segment: "PER" }, penalty },
            {
              spec: { kind: "pairwise-difference", first: "LOC", second: "PER", bound: 0 },
              penalty,
            },
          ]).flatMap((w) => w.template.instantiate({ n, L }).map((c) => ({ ...c, penalty })));
          const d = greedyDecoder().decode({ scores, constraints });
          let expected = scoreLabelling(scores, d.labels);
          for (const c of constraints) expected -= penalty * constraintViolation(c, d.labels, L);
          expect(d.primal).toBeCloseTo(expected, 9);
          expect(d.constraintStats?.hardViolated).toBe(0);
          expect(d.constraintStats?.violated).toBe(
            constraints.filter((c) => constraintViolation(c, d.labels, L) > 1e-9).length,
          );
        },
      ),
      { numRuns: 200 },
    );
  });

  it("a high soft penalty acts like the hard rule; penalty 0 like none", () => {
    fc.assert(
      fc.property(fc.integer(), fc.integer({ min: 1, max: 20 }), (seed, n) => {
        const { scores, labels } = maskedChain(seed, n, 2, "IOB2", 1);
        const L = labels.length;
        const [hard] = weightedTemplates(labels, "IOB2", [
          { spec: { kind: "singleton", segment: "PER" }, penalty: null },
        ]).flatMap((w) => w.template.instantiate({ n, L }));
        const decoder = greedyDecoder();
        const withHard = decoder.decode({ scores, constraints: [hard!] }).labels;
        const withHigh = decoder.decode({
          scores,
          constraints: [{ ...hard!, penalty: 1e6 }],
        }).labels;
        const withZero = decoder.decode({ scores, constraints: [{ ...hard!, penalty: 0 }] }).labels;
        expect([...withHigh]).toEqual([...withHard]);
        expect([...withZero]).toEqual([...decoder.decode({ scores }).labels]);
      }),
      { numRuns: 100 },
    );
  });

  it("reports a provably infeasible problem as infeasible, never throwing", () => {
    const decoder = greedyDecoder();
    // One position whose only startable label may not end.
    const maskDead: ChainScores = {
      n: 1,
      L: 2,
      unary: Float64Array.of(0, 0),
      transition: new Float64Array(4),
      start: Float64Array.of(0, NEG),
      end: Float64Array.of(NEG, 0),
    };
    const a = decoder.decode({ scores: maskDead });
    expect(a.status).toBe("infeasible");
    expect(a.primal).toBe(NEG);
    // A hard constraint that no labelling meets: label 1 at least 3 times in 2 positions.
    const scores: ChainScores = {
      n: 2,
      L: 2,
      unary: new Float64Array(4),
      transition: new Float64Array(4),
    };
    const c = linearConstraint({
      terms: [
        [1, -1],
        [3, -1],
      ],
      rhs: -3,
    });
    const b = decoder.decode({ scores, constraints: [c] });
    expect(b.status).toBe("infeasible");
    expect(b.primal).toBe(NEG);
    expect(b.constraintStats?.hardViolated).toBe(1);
    expect(b.constraintFallbacks).toBeGreaterThan(0);
    expect([...b.labels]).toEqual([1, 1]); // the least-violating labelling
  });

  it("joint hard constraints the tracker cannot foresee: reported, least violation, mask kept", () => {
    // x0 + x1 ≤ 1 and −x0 − x1 ≤ −1 and x0 − x1 ≤ −1 ... made unsatisfiable only jointly:
    // label 1 at position 0 ⇔ label 1 at position 1 (two inequalities) and exactly one of them.
    const L = 2;
    const scores: ChainScores = {
      n: 2,
      L,
      unary: Float64Array.of(0, 1, 0, 1),
      transition: new Float64Array(4),
    };
    const constraints = [
      linearConstraint({
        terms: [
          [1, 1],
          [3, -1],
        ],
        rhs: 0,
      }), // z0 ≤ z1
      linearConstraint({
        terms: [
          [1, -1],
          [3, 1],
        ],
        rhs: 0,
      }), // z1 ≤ z0
      linearConstraint({
        terms: [
          [1, 1],
          [3, 1],
        ],
        rhs: 1,
      }), // z0 + z1 ≤ 1
      linearConstraint({
        terms: [
          [1, -1],
          [3, -1],
        ],
        rhs: -1,
      }), // z0 + z1 ≥ 1
    ];
    const d = greedyDecoder().decode({ scores, constraints });
    expect(d.status).toBe("converged");
    expect(d.constraintStats?.hardViolated).toBeGreaterThan(0);
    expect(d.constraintFallbacks).toBeGreaterThan(0);
    expect(d.primal).toBe(NEG);
  });

  it("is a registered decoder: built by name, decodes a DecodeProblem, refuses slaves", () => {
    const registry = new DecoderRegistry().addDecoder(greedyDefinition);
    expect(registry.decoders().map((d) => d.name)).toEqual(["greedy"]);
    expect(greedyDefinition.description).toMatch(/left-to-right greedy/);
    const decoder = registry.create("greedy");
    const { scores, labels } = maskedChain(7, 12, 3, "BIOES", 1);
    const d = decoder.decode({ scores, constraints: [] });
    expect(
      isValidSequence(
        [...d.labels].map((y) => labels[y]!),
        "BIOES",
      ),
    ).toBe(true);
    expect(d.labels.length).toBe(12);
    const slave = {
      slave: {
        name: "s",
        n: 12,
        L: labels.length,
        maximize: () => ({ labels: new Int32Array(12), value: 0 }),
        score: () => 0,
      },
    };
    expect(() => decoder.decode({ scores, slaves: [slave] })).toThrow(ProblemValidationError);
  });
});
