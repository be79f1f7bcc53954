import type { Sentence } from "@lagrange/datasets";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MAX_NBEST, parseNbest } from "../define/values.js";
import { checkNBestMemory, nbestBytes } from "./nbest-memory.js";

const sentence = (n: number): Sentence =>
  ({ tokens: Array.from({ length: n }, () => "w"), columns: [] }) as unknown as Sentence;

describe("--nbest's bound and estimate", () => {
  it("parses integers from 1 to MAX_NBEST only", () => {
    expect(parseNbest("1")).toBe(1);
    expect(parseNbest(String(MAX_NBEST))).toBe(MAX_NBEST);
    for (const bad of ["0", "-1", "1.5", "", "1e9", String(MAX_NBEST + 1), "NaN"]) {
      expect(() => parseNbest(bad), bad).toThrow(/expected an integer from 1 to 10000/);
    }
  });

  it("refuses above the bound, naming a k that fits, which fits", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("list-viterbi", "no-good-cuts", "partition" as const),
        fc.integer({ min: 3, max: 2000 }),
        fc.integer({ min: 2, max: 50 }),
        fc.integer({ min: 2, max: MAX_NBEST }),
        (method, n, L, k) => {
          const limit = 1e8;
          const needed = nbestBytes(method, n, L, k);
          let message = "";
          try {
            checkNBestMemory([sentence(3), sentence(n)], k, L, method, limit);
          } catch (error) {
            message = (error as Error).message;
          }
          if (needed <= limit) return message === "";
          const fits = Number(/lower --nbest to (\d+) or less/.exec(message)?.[1]);
          return (
            message.startsWith(
              `--nbest ${k}: the ${k} best labellings of the longest sentence (${n} tokens`,
            ) &&
            fits >= 1 &&
            fits < k &&
            (fits === 1 || nbestBytes(method, n, L, fits) <= limit) &&
            nbestBytes(method, n, L, fits + 1) > limit
          );
        },
      ),
    );
  });

  it("counts no more labellings than a short sentence has", () => {
    expect(nbestBytes("partition", 2, 3, MAX_NBEST)).toBe(nbestBytes("partition", 2, 3, 9));
  });
});
