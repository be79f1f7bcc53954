import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { scoreLabelling } from "./chain.js";
import { chainSlave } from "./chain-slave.js";
import { constraintPenalty, linearConstraint } from "./constraints.js";
import {
  chainDecoder,
  DecoderRegistry,
  dualDecompositionDecoder,
  RegistryError,
  viterbiDefinition,
} from "./decoder.js";
import { firstLabelsOf, summarizeDecodings } from "./decoding.js";
import { lagrangeErrorCode, ProblemValidationError } from "./errors.js";
import { definePlugin, installPlugin } from "./plugin.js";
import { createRandom } from "./random.js";
import { defineSlave, type Slave } from "./solver.js";
import { bruteForceBest, randomChainScores, randomConstraints } from "./testing/index.js";

/** A slave that rewards label `label` at the positions in `bonus` (a gazetteer). */
function gazetteer(n: number, L: number, bonus: Float64Array): Slave {
  const result = { labels: new Int32Array(n), value: 0 };
  return defineSlave({
    name: "gazetteer",
    n,
    L,
    maximize(adjustment) {
      result.value = 0;
      for (let i = 0; i < n; i++) {
        let best = 0;
        for (let t = 1; t < L; t++) {
          if (
            bonus[i * L + t]! + adjustment[i * L + t]! >
            bonus[i * L + best]! + adjustment[i * L + best]!
          )
            best = t;
        }
        result.labels[i] = best;
        result.value += bonus[i * L + best]! + adjustment[i * L + best]!;
      }
      return result;
    },
    score: (y) => {
      let s = 0;
      for (let i = 0; i < n; i++) s += bonus[i * L + y[i]!]!;
      return s;
    },
  });
}

describe("decoders", () => {
  it("chainDecoder is the exact chain optimum (brute force), status optimal or infeasible", () => {
    const decoder = chainDecoder();
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const random = createRandom(seed);
        const scores = randomChainScores(random, {
          n: random.int(1, 5),
          L: random.int(1, 3),
          startEnd: random.bool(),
          forbiddenFraction: random.pick([0, 0.4]),
        });
        const decoding = decoder.decode({ scores });
        const best = bruteForceBest(scores);
        if (best.score === Number.NEGATIVE_INFINITY) {
          expect(decoding.status).toBe("infeasible");
          return;
        }
        expect(decoding.status).toBe("optimal");
        expect(decoding.certified).toBe(true);
        expect(decoding.primal).toBeCloseTo(best.score, 9);
        expect(scoreLabelling(scores, decoding.labels)).toBeCloseTo(best.score, 9);
        expect([...firstLabelsOf(decoding)]).toEqual([...decoding.labels]);
      }),
      { numRuns: 200, seed: 1 },
    );
  });

  it("a DD decoder with an extra slave and constraints: certified ⇒ the brute-force optimum", () => {
    const decoder = dualDecompositionDecoder("chain+gazetteer", { maxIterations: 300 });
    let certified = 0;
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const random = createRandom(seed);
        const n = random.int(1, 5);
        const L = random.int(2, 3);
        const scores = randomChainScores(random, { n, L, startEnd: true });
        const bonus = Float64Array.from({ length: n * L }, () => random.float(-1, 1));
        const extra = gazetteer(n, L, bonus);
        const constraints = randomConstraints(random, n, L, { count: random.int(0, 2) });
        const decoding = decoder.decode({ scores, constraints, slaves: [{ slave: extra }] });
        const chain = chainSlave(scores);
        const best = bruteForceBest(
          { domainSizes: new Int32Array(n).fill(L), score: (y) => chain.score(y) + extra.score(y) },
          { constraints },
        );
        if (decoding.primal > Number.NEGATIVE_INFINITY) {
          const value =
            chain.score(decoding.labels) +
            extra.score(decoding.labels) -
            constraintPenalty(constraints, decoding.labels, L);
          expect(value).toBeCloseTo(decoding.primal, 9);
          expect(decoding.primal).toBeLessThanOrEqual(best.score + 1e-9);
        }
        if (best.score > Number.NEGATIVE_INFINITY) {
          expect(decoding.dual).toBeGreaterThanOrEqual(best.score - 1e-7);
        }
        if (decoding.certified) {
          certified++;
          expect(decoding.primal).toBeCloseTo(best.score, 6);
        }
      }),
      { numRuns: 200, seed: 2 },
    );
    expect(certified).toBeGreaterThan(150);
  });

  it("summaries count what the decodings say", () => {
    const decoder = dualDecompositionDecoder("dd", { maxIterations: 50 });
    const random = createRandom(77);
    const decodings = Array.from({ length: 60 }, () => {
      const n = random.int(2, 6);
      const L = random.int(2, 4);
      return decoder.decode({
        scores: randomChainScores(random, { n, L }),
        constraints: randomConstraints(random, n, L, { count: random.int(0, 3), hardFraction: 0 }),
      });
    });
    const summary = summarizeDecodings(decodings);
    expect(summary.examples).toBe(60);
    const iterations = decodings.reduce((s, d) => s + d.iterations, 0);
    expect(summary.meanIterations).toBeCloseTo(iterations / 60, 12);
    expect(summary.maxIterations).toBe(Math.max(...decodings.map((d) => d.iterations)));
    expect(summary.certifiedRate).toBeCloseTo(decodings.filter((d) => d.certified).length / 60, 12);
    expect(summary.initiallyViolatedRate).toBeCloseTo(
      decodings.filter((d) => d.constraintStats!.firstViolated > 0).length / 60,
      12,
    );
    // A first labelling that satisfies everything certifies at once (the KKT conditions hold).
    for (const d of decodings) {
      if (d.constraintStats!.firstViolated === 0) expect(d.iterations).toBe(1);
    }
    expect(summarizeDecodings([]).certifiedRate).toBe(0);
  });
});

describe("DecoderRegistry", () => {
  it("builds decoders by name, lists them, and names what it knows on an unknown name", () => {
    const registry = new DecoderRegistry().addDecoder(viterbiDefinition);
    expect(registry.decoders().map((d) => d.name)).toEqual(["viterbi"]);
    const scores = randomChainScores(3, { n: 4, L: 3 });
    expect(registry.create("viterbi").decode({ scores }).status).toBe("optimal");
    expect(() => registry.create("soft-dd")).toThrow(
      /unknown decoder "soft-dd"; expected one of viterbi/,
    );
    expect(() => registry.slave("x")).toThrow(/no slaves are registered/);
    let error: unknown;
    try {
      registry.addDecoder(viterbiDefinition);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RegistryError);
    expect(lagrangeErrorCode(error)).toBe("usage");
    expect(() => registry.addDecoder({ ...viterbiDefinition, name: "Bad Name" })).toThrow(
      /lower-case letters/,
    );
  });

  it("refuses constraints or slaves a decoder does not take, with the decoder's name", () => {
    const registry = new DecoderRegistry().addDecoder(viterbiDefinition);
    const scores = randomChainScores(4, { n: 3, L: 2 });
    const viterbi = registry.create("viterbi");
    const constraints = [linearConstraint({ terms: [[0, 1]], rhs: 0 })];
    expect(() => viterbi.decode({ scores, constraints })).toThrow(ProblemValidationError);
    expect(() => viterbi.decode({ scores, constraints })).toThrow(
      /"viterbi" does not take constraints/,
    );
    expect(() => viterbi.decode({ scores, slaves: [{ slave: chainSlave(scores) }] })).toThrow(
      /does not take extra slaves/,
    );
  });

  it("a plug-in adds a slave and a decoder through the host it is handed", () => {
    const registry = new DecoderRegistry();
    const plugin = definePlugin(({ registry: r, core }) => {
      r.addSlave({
        name: "no-label-one",
        description: "forbids label 1 everywhere",
        create: ({ n, L }) => ({
          slave: core.defineSlave({
            n,
            L,
            maximize(adjustment) {
              const labels = new Int32Array(n);
              let value = 0;
              for (let i = 0; i < n; i++) {
                let best = -1;
                for (let t = 0; t < L; t++) {
                  if (t === 1) continue;
                  if (best < 0 || adjustment[i * L + t]! > adjustment[i * L + best]!) best = t;
                }
                labels[i] = best;
                value += adjustment[i * L + best]!;
              }
              return { labels, value };
            },
            score: (y) => (Array.from(y).includes(1) ? Number.NEGATIVE_INFINITY : 0),
          }),
        }),
      });
      r.addDecoder({
        name: "my-dd",
        description: "dual decomposition, constant step",
        accepts: { constraints: true, slaves: true },
        create: (context) =>
          core.dualDecompositionDecoder(
            "my-dd",
            { stepRule: { kind: "constant", size: 0.5 } },
            context.chainSlaves(),
          ),
      });
    });
    installPlugin(registry, plugin);
    const scores = {
      n: 3,
      L: 2,
      unary: Float64Array.of(0, 1, 0, 2, 0, 3),
      transition: new Float64Array(4),
    };
    const slaves = [
      registry
        .slave("no-label-one")
        .create({ n: 3, L: 2, labels: ["O", "X"], tokens: ["a", "b", "c"] }),
    ].flat();
    const decoding = registry.create("my-dd").decode({ scores, slaves });
    expect(decoding.status).toBe("optimal");
    expect([...decoding.labels]).toEqual([0, 0, 0]);
  });
});
