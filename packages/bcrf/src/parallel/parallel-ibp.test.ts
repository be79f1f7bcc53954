import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BcrfWorkspace } from "../inference/bcrf-workspace.js";
import { bcrfInference } from "../inference/ibp.js";
import { randomInput } from "../testing/random-input.js";
import { ParallelBcrf } from "./parallel-ibp.js";

describe("Bcrf inference split across threads", () => {
  let parallel: ParallelBcrf;
  beforeAll(async () => {
    parallel = await ParallelBcrf.open({ threads: 3, maxLength: 400, maxLabels: 6 });
  });
  afterAll(async () => {
    await parallel.close();
  });

  it("gives exactly the sequential kernel's marginals, iterations and violations", () => {
    for (let seed = 0; seed < 60; seed++) {
      const input = randomInput(seed, {
        minN: 1,
        maxN: seed < 50 ? 400 : 600,
        maxL: 6,
        forbid: seed % 3 === 0 ? 0.2 : 0,
        positionSpecific: seed % 7 === 0 ? 1 : 0,
      });
      const options = { iterations: 1 + (seed % 12), temperature: seed % 2 === 0 ? 1 : 0.1 };
      const trace: number[] = [];
      const sequential = new BcrfWorkspace({ simd: false });
      const a = bcrfInference(input, options, sequential);
      const { result: b, workspace } = parallel.infer(input, {
        ...options,
        onIteration: (_i, v) => trace.push(v),
      });
      const n = input.n * input.L;
      const mine = Array.from(workspace.marginals.subarray(0, n));
      const reference = Array.from(sequential.marginals.subarray(0, n));
      if (input.n <= parallel.maxLength && input.transitionStride === 0) {
        // Split across threads: the very same arithmetic as the JavaScript kernel.
        expect(b).toEqual(a);
        expect(mine).toEqual(reference);
      } else {
        // Too long (or position-specific): the calling thread's SIMD kernel, equal up to rounding.
        expect(b.status).toBe(a.status);
        expect(b.iterations).toBe(a.iterations);
        mine.forEach((p, k) => {
          expect(Math.abs(p - reference[k]!)).toBeLessThan(1e-12);
        });
      }
      expect(trace).toHaveLength(a.status === "infeasible" ? 0 : input.n > 2 ? a.iterations : 0);
    }
  });
});
