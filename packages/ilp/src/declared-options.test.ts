import { DecoderRegistry, resolveDecoderOptions } from "@lagrange/core";
import { randomChainScores, randomConstraints } from "@lagrange/core/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { exactDefinition, twoPhaseDefinition } from "./decoders.js";
import { prepareIlp } from "./highs-runtime.js";
import {
  DEFAULT_TAU,
  DEFAULT_TIME_LIMIT_SECONDS,
  ILP_OPTION_RANGES,
  MAX_TIME_LIMIT_SECONDS,
} from "./ilp-decoding.js";

beforeAll(prepareIlp);

describe("exact and two-phase declare the options they read", () => {
  it("time-limit in seconds (scaled to timeLimitMs), tau for two-phase", () => {
    expect(resolveDecoderOptions(exactDefinition, {})).toEqual({
      timeLimitMs: 1000 * DEFAULT_TIME_LIMIT_SECONDS,
    });
    expect(resolveDecoderOptions(twoPhaseDefinition, { "time-limit": "2.5" })).toEqual({
      timeLimitMs: 2500,
      tau: DEFAULT_TAU,
    });
    // The longest limit in seconds stays within what the decoders take in milliseconds.
    const longest = resolveDecoderOptions(exactDefinition, {
      "time-limit": String(MAX_TIME_LIMIT_SECONDS),
    });
    expect(longest.timeLimitMs).toBeLessThanOrEqual(ILP_OPTION_RANGES.maxTimeLimitMs);
    expect(() => resolveDecoderOptions(twoPhaseDefinition, { tau: "1e-301" })).toThrow(
      'decoder "two-phase" option "tau": expected a number in [1e-300, 1], got "1e-301"',
    );
    expect(() => resolveDecoderOptions(exactDefinition, { tau: "0.5" })).toThrow(
      'decoder "exact" has no option "tau"; its options: time-limit',
    );
  });

  it("at their defaults decode as without options (τ = the decoder's own default)", () => {
    const registry = new DecoderRegistry()
      .addDecoder(exactDefinition)
      .addDecoder(twoPhaseDefinition);
    for (const definition of [exactDefinition, twoPhaseDefinition]) {
      const decoder = registry.create(definition.name);
      const options = resolveDecoderOptions(definition, {});
      for (let seed = 1; seed <= 8; seed++) {
        const scores = randomChainScores(seed, { n: 5, L: 3 });
        const constraints = randomConstraints(seed + 50, 5, 3, { count: 3 });
        const plain = decoder.decode({ scores, constraints });
        const declared = decoder.decode({ scores, constraints }, options);
        expect([declared.labels, declared.primal, declared.status]).toEqual([
          plain.labels,
          plain.primal,
          plain.status,
        ]);
      }
    }
  });
});
