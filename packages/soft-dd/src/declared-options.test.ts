import { type DecoderDefinition, DecoderRegistry, resolveDecoderOptions } from "@lagrange/core";
import { randomChainScores, randomConstraints } from "@lagrange/core/testing";
import { describe, expect, it } from "vitest";
import { hardDDDefinition, hardDDPolicy, softDDDefinition, softDDPolicy } from "./soft-dd.js";

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
  it("max-iterations and tolerance, defaulting to the policies' own", () => {
    for (const [definition, policy] of [
      [softDDDefinition, softDDPolicy()],
      [hardDDDefinition, hardDDPolicy()],
    ] as const) {
      expect(resolveDecoderOptions(definition, {})).toEqual({
        maxIterations: policy.maxIterations,
        tolerance: 1e-6,
      });
      decodesAsWithout(definition);
    }
  });
});
