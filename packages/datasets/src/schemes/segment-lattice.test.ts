import { type ChainScores, LagrangeError, scoreLabelling } from "@lagrange/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { chunkScheme, decodingMask, type LabelScheme } from "./label-scheme.js";
import { SCHEME_NAMES } from "./labels.js";
import { segmentLattice } from "./segment-lattice.js";
import { extractSpans, schemeLabels } from "./spans.js";
import { isValidSequence } from "./validity.js";

const TYPES = ["LOC", "PER", "b-c"];

/** Every label of `scheme` over `types`; hierarchical-BIO: two levels, children typed `x`. */
function labelsOf(scheme: Exclude<LabelScheme, "none">, types: readonly string[]): string[] {
  if (scheme !== "hierarchical-BIO") return schemeLabels(types, scheme);
  const out = ["O"];
  for (const type of types) {
    for (const top of ["B", "I"]) {
      out.push(`${top}-${type}`);
      for (const child of ["B", "I"]) out.push(`${top}-${type}/${child}-x`);
    }
  }
  return out;
}

/** Random label sets: 1–3 types, labels in a random order (ids are not in scheme order). */
function labelSets(scheme: Exclude<LabelScheme, "none">) {
  return fc
    .subarray(TYPES, { minLength: 1, maxLength: scheme === "hierarchical-BIO" ? 2 : 3 })
    .chain((types) => fc.shuffledSubarray(labelsOf(scheme, types), { minLength: 1 }))
    .filter((labels) => labels.length > 0);
}

/** Every sequence of length n that the scores allow (finite start, end and allowed transitions). */
function allowedSequences(scores: ChainScores): number[][] {
  const { n, L, start, end, allowed } = scores;
  const out: number[][] = [];
  const prefix: number[] = [];
  const extend = (i: number) => {
    if (i === n) {
      if (end?.[prefix[n - 1]!] !== Number.NEGATIVE_INFINITY) out.push([...prefix]);
      return;
    }
    for (let y = 0; y < L; y++) {
      if (i === 0 && start?.[y] === Number.NEGATIVE_INFINITY) continue;
      if (i > 0 && allowed !== undefined && allowed[prefix[i - 1]! * L + y] === 0) continue;
      prefix.push(y);
      extend(i + 1);
      prefix.pop();
    }
  };
  extend(0);
  return out;
}

/** Random chain scores over `labels` under their scheme's mask (shared or position-specific). */
function randomScores(
  labels: readonly string[],
  scheme: LabelScheme,
  n: number,
  seed: number,
  positionSpecific: boolean,
): ChainScores {
  let state = seed >>> 0 || 1;
  const next = () => {
    state = (state * 1103515245 + 12345) >>> 0;
    return (state / 2 ** 32) * 4 - 2;
  };
  const L = labels.length;
  const mask = decodingMask(labels, scheme)!;
  const fill = (length: number) => Float64Array.from({ length }, next);
  const boundary = (allowed: Uint8Array) =>
    Float64Array.from(allowed, (ok) => (ok === 1 ? next() : Number.NEGATIVE_INFINITY));
  return {
    n,
    L,
    unary: fill(n * L),
    transition: fill((positionSpecific && n > 2 ? n - 1 : 1) * L * L),
    start: boundary(mask.allowedStart),
    end: boundary(mask.allowedEnd),
    allowed: mask.allowed,
  };
}

const SCHEMES: Exclude<LabelScheme, "none">[] = [...SCHEME_NAMES, "hierarchical-BIO"];

describe("segmentLattice", () => {
  for (const scheme of SCHEMES) {
    it(`${scheme}: the lattice's sequences are the valid label sequences, each once, with one marker per segment`, () => {
      fc.assert(
        fc.property(
          labelSets(scheme),
          fc.integer({ min: 1, max: scheme === "BIOES" || scheme === "BILOU" ? 4 : 5 }),
          fc.integer(),
          fc.boolean(),
          (labels, n, seed, positionSpecific) => {
            const lattice = segmentLattice(labels, scheme);
            expect(lattice.expanded).toBe(lattice.states.length > labels.length);
            expect(lattice.states.slice(0, labels.length)).toEqual(labels);
            const scores = randomScores(labels, scheme, n, seed, positionSpecific);
            const lifted = lattice.liftScores(scores);
            if (!lattice.expanded) expect(lifted).toBe(scores);
            const valid = allowedSequences(scores).map((y) => y.join(","));
            const lowered = allowedSequences(lifted).map((s) => {
              const y = lattice.lower(s);
              expect(Array.from(lattice.lift(y))).toEqual(s);
              const spelled = Array.from(y, (id) => labels[id]!);
              expect(isValidSequence(spelled, ...chunkScheme(scheme))).toBe(true);
              expect(scoreLabelling(lifted, s)).toBeCloseTo(scoreLabelling(scores, y), 9);
              const markers = new Map<string, number>();
              for (const state of s) {
                const path: string[] = [];
                for (const level of lattice.levels(state)) {
                  path.push(level.type);
                  const key = path.join("/");
                  if (level.marks) markers.set(key, (markers.get(key) ?? 0) + 1);
                }
              }
              const spans = new Map<string, number>();
              for (const span of extractSpans(spelled, ...chunkScheme(scheme))) {
                spans.set(span.type, (spans.get(span.type) ?? 0) + 1);
              }
              expect(markers).toEqual(spans);
              return y.join(",");
            });
            expect(new Set(lowered).size).toBe(lowered.length);
            expect([...lowered].sort()).toEqual([...valid].sort());
          },
        ),
        { numRuns: 40 },
      );
    });
  }

  it("splits IOB1 I- labels into continuing and starting states (the issue's CoNLL-2003 labels)", () => {
    const labels = ["O", "I-PER", "I-LOC", "B-LOC"];
    const lattice = segmentLattice(labels, "IOB1");
    expect(lattice.states).toEqual([...labels, "I-PER (starting)", "I-LOC (starting)"]);
    // I-LOC O I-LOC I-LOC B-LOC: three LOC segments, each with one marker state.
    const states = lattice.lift([2, 0, 2, 2, 3]);
    expect(Array.from(states)).toEqual([5, 0, 5, 2, 3]);
    const marked = Array.from(states).filter((s) => lattice.levels(s)[0]?.marks === true);
    expect(marked).toEqual([5, 5, 3]);
  });

  it("refuses `none` and labels the scheme cannot read, naming them", () => {
    expect(() => segmentLattice(["NN", "VB"], "none")).toThrow(LagrangeError);
    expect(() => segmentLattice(["NN", "VB"], "none")).toThrow(/"none"/);
    expect(() => segmentLattice(["O", "E-LOC"], "IOB2")).toThrow(/"E-LOC".*IOB2/);
  });
});
