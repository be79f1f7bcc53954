import { describe, expect, it } from "vitest";
import { chainSlave } from "../chain-slave.js";
import { defineSlave } from "../solver.js";
import { enumerationSlave } from "./brute-force.js";
import { checkSlave, SlaveCheckError } from "./check-slave.js";
import { randomChainScores } from "./random.js";

describe("checkSlave", () => {
  it("passes exact slaves: the reference chain (masks included) and an enumerated table", () => {
    for (let seed = 1; seed <= 20; seed++) {
      const scores = randomChainScores(seed, {
        n: 1 + (seed % 4),
        L: 1 + (seed % 3),
        startEnd: true,
        forbiddenFraction: seed % 2 === 0 ? 0.3 : 0,
      });
      expect(checkSlave(chainSlave(scores), { seed }).calls).toBe(102);
    }
    const table = enumerationSlave({ n: 3, L: 2, score: (y) => (y[0] === y[2] ? 1 : -1) });
    expect(() => checkSlave(table)).not.toThrow();
  });

  it("names what is wrong: not exact, a value that does not match its labels, leaking state", () => {
    const scores = randomChainScores(5, { n: 3, L: 3 });
    const exact = chainSlave(scores);
    // Ignores the adjustment: exact at zero, wrong afterwards.
    const stale = defineSlave({
      name: "stale",
      n: 3,
      L: 3,
      maximize: () => exact.maximize(new Float64Array(9)),
      score: exact.score,
    });
    expect(() => checkSlave(stale)).toThrow(SlaveCheckError);
    expect(() => checkSlave(stale)).toThrow(/slave "stale".*adjustment \[/);
    const liar = defineSlave({
      name: "liar",
      n: 3,
      L: 3,
      maximize: (adjustment) => {
        const r = exact.maximize(adjustment);
        return { labels: r.labels, value: r.value + 1 };
      },
      score: exact.score,
    });
    expect(() => checkSlave(liar)).toThrow(/score .* with the adjustment/);
    let calls = 0;
    const leaky = defineSlave({
      name: "leaky",
      n: 3,
      L: 3,
      maximize: (adjustment) => {
        calls++;
        const shifted = adjustment.map((x, j) => (calls % 2 === 0 && j % 3 === 1 ? x + 5 : x));
        const r = exact.maximize(shifted);
        let value = exact.score(r.labels);
        for (let i = 0; i < 3; i++) value += adjustment[i * 3 + r.labels[i]!]!;
        return { labels: r.labels.slice(), value };
      },
      score: exact.score,
    });
    expect(() => checkSlave(leaky)).toThrow(/leaky/);
  });
});
