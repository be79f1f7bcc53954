import { describe, expect, it } from "vitest";
import { createRandom, type Random } from "../../random.js";
import { Ad3Layout, Ad3Run } from "./admm.js";
import type { BinaryFactorBinding, BinaryProblem } from "./binary-factor.js";
import { denseFactor, pairFactor } from "./dense-factors.js";
import { solveBinaryProblem } from "./engine.js";
import { atMostOneFactor, budgetFactor, orOutFactor, xorFactor } from "./logic-factors.js";
import { decodesCheaply, SequentialDecoder } from "./sequential-decoding.js";

/** An even cycle of "exactly one of the two" factors and no unaries: every factor's MAP ties. */
function alternatingCycle(length: number): BinaryProblem {
  const factors: BinaryFactorBinding[] = [];
  for (let i = 0; i < length; i++) {
    factors.push({ factor: xorFactor(2), variables: Int32Array.of(i, (i + 1) % length) });
  }
  return { variables: length, factors };
}

/** Small random graphs: pairs, logic factors, and a dense factor over two one-hot groups. */
function randomProblem(random: Random): BinaryProblem {
  const V = random.int(6, 14);
  const unary = Float64Array.from({ length: V }, () =>
    random.bool(0.3) ? 0 : random.next() * 2 - 1,
  );
  const factors: BinaryFactorBinding[] = [];
  const oneHot: Int32Array[] = [];
  if (random.bool()) {
    const scores = Float64Array.from({ length: 6 }, () => random.int(-1, 1));
    factors.push({
      factor: denseFactor(Int32Array.of(3, 2), scores),
      variables: Int32Array.of(0, 1, 2, 3, 4),
    });
    oneHot.push(Int32Array.of(0, 1, 2), Int32Array.of(3, 4));
  }
  for (let k = random.int(3, 10); k > 0; k--) {
    const a = random.int(5, V - 1);
    const b = random.int(0, V - 1);
    if (a === b) continue;
    const c = (Math.max(a, b) + 1) % V;
    const three = Int32Array.of(a, b, c);
    const distinct = c !== a && c !== b;
    const kind = random.int(0, 3);
    factors.push(
      kind === 0
        ? { factor: pairFactor(random.int(-2, 2)), variables: Int32Array.of(a, b) }
        : kind === 1 || !distinct
          ? { factor: xorFactor(2), variables: Int32Array.of(a, b) }
          : kind === 2
            ? { factor: atMostOneFactor(3), variables: three }
            : { factor: orOutFactor(3), variables: three },
    );
  }
  return { variables: V, unary, factors, oneHot };
}

describe("sequential decoding from the dual", () => {
  it("certifies at the first MAP pass where the factors' maximisers tie", () => {
    for (const length of [4, 6, 10, 30]) {
      const solution = solveBinaryProblem(alternatingCycle(length));
      expect(solution.iterations).toBe(1);
      expect(solution.certified).toBe(true);
      expect(solution.primal).toBe(0);
      for (let i = 0; i < length; i++) {
        expect(solution.assignment[i]! + solution.assignment[(i + 1) % length]!).toBe(1);
      }
    }
  });

  it("leaves the MAP pass's adjustment as it found it, and offers only an assignment's true score", () => {
    for (let seed = 0; seed < 200; seed++) {
      const problem = randomProblem(createRandom(seed));
      const run = new Ad3Run(new Ad3Layout(problem));
      run.mapPass(undefined, true);
      for (let t = 0; t < seed % 7; t++) run.admmStep();
      run.mapPass(undefined, false);
      const input = run.input.slice();
      new SequentialDecoder(run).decode();
      expect(run.input).toEqual(input);
      const { bestPrimal } = run.bounds;
      if (bestPrimal > Number.NEGATIVE_INFINITY) {
        // The kept assignment scores what the run says, and no more than the dual.
        const again = new Ad3Run(new Ad3Layout(problem));
        again.roundAndScore(Float64Array.from(run.bestAssignment));
        expect(again.bounds.bestPrimal).toBeCloseTo(bestPrimal, 12);
        expect(bestPrimal).toBeLessThanOrEqual(run.dual + 1e-9);
      }
    }
  });

  it("where every variable's factors choose the same value, that labelling scores the dual", () => {
    let agreed = 0;
    for (let seed = 0; seed < 300; seed++) {
      const problem = randomProblem(createRandom(1000 + seed));
      const run = new Ad3Run(new Ad3Layout(problem));
      run.mapPass(undefined, true);
      for (let t = 0; t < 60; t++) {
        run.admmStep();
        if (t % 4 !== 3) continue;
        run.mapPass(undefined, false);
        if (!run.mapsAgree || run.dual === Number.NEGATIVE_INFINITY) continue;
        agreed++;
        run.roundAndScore(run.mapMean);
        expect(run.bounds.bestPrimal).toBeGreaterThanOrEqual(
          run.dual - 1e-9 * Math.max(1, Math.abs(run.dual)),
        );
        break;
      }
    }
    // The property is not vacuous: many runs reach agreement.
    expect(agreed).toBeGreaterThan(100);
  });

  it("decodes only where it costs a few MAP passes: small factors, not one spanning everything", () => {
    expect(decodesCheaply(new Ad3Layout(alternatingCycle(30)))).toBe(true);
    const size = 40;
    const wide: BinaryProblem = {
      variables: size,
      factors: [
        {
          factor: budgetFactor(size, 3),
          variables: Int32Array.from({ length: size }, (_, i) => i),
        },
      ],
    };
    expect(decodesCheaply(new Ad3Layout(wide))).toBe(false);
  });
});
