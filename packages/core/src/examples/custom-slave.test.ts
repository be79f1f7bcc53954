import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { linearConstraint } from "../constraints.js";
import { bruteForceBest } from "../testing/index.js";
import { solution } from "./custom-slave.js";

describe("README example: a custom slave plugged into the DD master", () => {
  it("certifies the brute-force optimum of CRF + gazetteer under 'at most one NAME'", () => {
    const crfUnary = [0, 2, 0, 0.5, 0, 1];
    const bonus = [0, 0.2, 0, 0.1, 0, 1.5];
    const exact = bruteForceBest(
      {
        domainSizes: [2, 2, 2],
        score: (y) => {
          let s = 0;
          for (let i = 0; i < 3; i++) s += crfUnary[i * 2 + y[i]!]! + bonus[i * 2 + y[i]!]!;
          for (let i = 1; i < 3; i++) if (y[i - 1] === 1 && y[i] === 1) s -= 1;
          return s;
        },
      },
      {
        constraints: [
          linearConstraint({
            terms: [
              [1, 1],
              [3, 1],
              [5, 1],
            ],
            rhs: 1,
          }),
        ],
      },
    );
    expect(solution.status).toBe("optimal");
    expect(solution.primal).toBeCloseTo(exact.score, 9);
    expect(solution.dual).toBeCloseTo(exact.score, 6);
    expect([...solution.labels]).toEqual([...exact.labels!]);
    expect([...solution.labels]).toEqual([0, 0, 1]);
  });

  it("the README shows exactly this file", () => {
    const file = readFileSync(new URL("./custom-slave.ts", import.meta.url), "utf8");
    const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
    const marker = "<!-- example: src/examples/custom-slave.ts -->";
    const at = readme.indexOf(marker);
    expect(at, `README.md lacks the marker ${marker}`).toBeGreaterThanOrEqual(0);
    const block = /```ts\n([\s\S]*?)```/.exec(readme.slice(at));
    expect(block?.[1]).toBe(file);
  });
});
