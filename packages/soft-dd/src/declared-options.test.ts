import { type DecoderDefinition, DecoderRegistry, resolveDecoderOptions } from "@lagrange/core";
import { randomChainScores, randomConstraints } from "@lagrange/core/testing";
import { describe, expect, it } from "vitest";
import {
  hardDD,
  hardDDDefinition,
  hardDDPolicy,
  softDD,
  softDDDefinition,
  softDDPolicy,
} from "./soft-dd.js";

/** The declared defaults are what the decoder does without options: same decodings. */
function decodesAsWithout(definition: DecoderDefinition): void {
  const registry = new DecoderRegistry().addDecoder(definition);
  const plain = registry.create(definition.name);
  const declared = registry.create(definition.name);
  const options = resolveDecoderOptions(definition, {});
  for (let seed = 1; seed <= 20; seed++) {
    const scores = randomChainScores(seed, { n: 5, L: 3 });
    const constraints = randomConstraints(seed + 100, 5, 3, { count: 3 });
    const problem = { scores, constraints };
    expect(declared.decode(problem, options)).toEqual(plain.decode(problem));
  }
}

describe("soft-dd and hard-dd declare the options they read, at their defaults", () => {
  it("max-iterations, tolerance, step, eta, exact and time-limit, defaulting to the policies' own", () => {
    for (const [definition, policy] of [
      [softDDDefinition, softDDPolicy()],
      [hardDDDefinition, hardDDPolicy()],
    ] as const) {
      expect(resolveDecoderOptions(definition, {})).toEqual({
        maxIterations: policy.maxIterations,
        tolerance: 1e-6,
        step: "auto",
        eta: 1,
        exact: false,
        // One deadline per sentence across every solve (core's TIME_LIMIT_OPTION).
        timeLimitMs: 10_000,
      });
      decodesAsWithout(definition);
    }
  });
});

describe("--step ad3 reaches the master through the declared options", () => {
  it("decodes as the decoder built with the AD3 step, not as the subgradient one", () => {
    for (const [definition, make] of [
      [softDDDefinition, softDD],
      [hardDDDefinition, hardDD],
    ] as const) {
      const declared = new DecoderRegistry().addDecoder(definition).create(definition.name);
      const options = resolveDecoderOptions(definition, { step: "ad3" });
      expect(options.step).toBe("ad3");
      const ad3 = make({ step: "ad3" });
      const subgradient = make();
      let differs = false;
      for (let seed = 1; seed <= 20; seed++) {
        const scores = randomChainScores(seed, { n: 5, L: 3 });
        const constraints = randomConstraints(seed + 100, 5, 3, { count: 3 });
        const problem = { scores, constraints };
        const decoding = declared.decode(problem, options);
        expect(decoding).toEqual(ad3.decode(problem));
        const other = subgradient.decode(problem);
        differs ||= decoding.iterations !== other.iterations || decoding.dual !== other.dual;
      }
      expect(differs).toBe(true);
    }
  });
});
