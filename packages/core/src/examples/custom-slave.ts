import { chainSlave, defineSlave, linearConstraint, solveDualDecomposition } from "@lagrange/core";

// Three tokens, labels 0 = O and 1 = NAME. A chain slave holds the CRF's scores.
const n = 3;
const L = 2;
const crf = chainSlave({
  n,
  L,
  unary: Float64Array.of(0, 2, 0, 0.5, 0, 1), // [i*L + t]
  transition: Float64Array.of(0, 0, 0, -1), // NAME → NAME costs 1
});

// A custom slave: a gazetteer that rewards NAME on the tokens it knows. Its positions are
// independent, so its exact maximiser is a per-token argmax of (own score + adjustment).
const bonus = Float64Array.of(0, 0.2, 0, 0.1, 0, 1.5);
// The result is allocated once and reused: the master calls maximize every iteration.
const result = { labels: new Int32Array(n), value: 0 };
const gazetteer = defineSlave({
  name: "gazetteer",
  n,
  L,
  maximize(adjustment) {
    result.value = 0;
    for (let i = 0; i < n; i++) {
      const other = bonus[i * L]! + adjustment[i * L]!;
      const name = bonus[i * L + 1]! + adjustment[i * L + 1]!;
      result.labels[i] = name > other ? 1 : 0;
      result.value += Math.max(other, name);
    }
    return result;
  },
  score: (y) => bonus[y[0]!]! + bonus[L + y[1]!]! + bonus[2 * L + y[2]!]!,
});

// Both slaves label every token; a hard constraint allows at most one NAME.
export const solution = solveDualDecomposition({
  n,
  L,
  slaves: [{ slave: crf }, { slave: gazetteer }],
  constraints: [
    linearConstraint({
      terms: [
        [1, 1],
        [3, 1],
        [5, 1],
      ],
      rhs: 1,
      name: "one NAME",
    }),
  ],
});
console.log(solution.labels.join(" "), solution.status, solution.primal);
// solution.status === "optimal" (primal = dual = 2.5) and solution.labels = [0, 0, 1]: alone, the
// CRF would put its one NAME on token 0; the gazetteer moves it to token 2.
