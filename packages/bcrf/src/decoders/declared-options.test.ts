import { DecoderRegistry, resolveDecoderOptions } from "@lagrange/core";
import { randomChainScores } from "@lagrange/core/testing";
import { describe, expect, it } from "vitest";
import { MEAN_FIELD_DEFAULTS } from "../mean-field/mean-field.js";
import { BCRF_DECODING_DEFAULTS, bcrfDefinition, meanFieldDefinition } from "./decoders.js";

describe("bcrf and mean-field declare iterations at their own defaults", () => {
  it("iterations: 5 (bcrf), 10 (mean-field), and decode as without options", () => {
    expect(resolveDecoderOptions(bcrfDefinition, {})).toEqual({
      iterations: BCRF_DECODING_DEFAULTS.iterations,
    });
    expect(resolveDecoderOptions(meanFieldDefinition, {})).toEqual({
      iterations: MEAN_FIELD_DEFAULTS.iterations,
    });
    const registry = new DecoderRegistry()
      .addDecoder(bcrfDefinition)
      .addDecoder(meanFieldDefinition);
    for (const definition of [bcrfDefinition, meanFieldDefinition]) {
      const decoder = registry.create(definition.name);
      const options = resolveDecoderOptions(definition, {});
      for (let seed = 1; seed <= 10; seed++) {
        const scores = randomChainScores(seed, { n: 6, L: 3 });
        expect(decoder.decode({ scores }, options)).toEqual(decoder.decode({ scores }));
      }
    }
  });
});
