import { randomChainScores } from "@lagrange/core/testing";
import { describe, expect, it } from "vitest";
import { bcrfDecoder, meanFieldDecoder } from "./decoders.js";

describe("the bcrf and mean-field decoders' options", () => {
  const scores = randomChainScores(3, { n: 4, L: 3 });
  for (const decoder of [bcrfDecoder(), meanFieldDecoder()]) {
    it(`${decoder.name}: an iteration count or temperature out of range is a ProblemValidationError`, () => {
      // 1e308 half-steps would run for ever in practice; NaN and −1 failed deep inside as RangeErrors.
      for (const iterations of [Number.NaN, -1, 0.5, 1e308, 2 ** 31, Infinity]) {
        expect(() => decoder.decode({ scores }, { iterations })).toThrow(
          expect.objectContaining({
            code: "invalid-problem",
            message: expect.stringMatching(/^options\.iterations: expected an integer/),
          }),
        );
      }
      for (const temperature of [0, -1, Number.NaN, Infinity]) {
        expect(() => decoder.decode({ scores }, { temperature })).toThrow(/options\.temperature/);
      }
      expect(decoder.decode({ scores }, { iterations: 3, temperature: 0.5 }).labels).toHaveLength(
        4,
      );
    });
  }
});
