import { chainSlave, solveDualDecomposition } from "@lagrange/core";
import { patternFactor } from "@lagrange/core/factor-graph";
import { minCutSlave } from "@lagrange/mincut";

// Four tokens, labels 0 = O and 1 = NAME; a chain model's scores (unary [i*L + t], transitions).
const chain = chainSlave({
  n: 4,
  L: 2,
  unary: Float64Array.of(0, 1.2, 0, -0.4, 0, 0.3, 0, -0.5),
  transition: Float64Array.of(0, 0, 0, -0.2),
});
// My own energy over positions 1 and 3 (the same word twice): +1 when both are NAME, and a
// third-order reward when tokens 0, 1 and 3 all are. Any positive pattern is graph-representable.
const sameWord = patternFactor({ variables: [1, 3], patterns: [{ assignment: [1, 1], score: 1 }] });
const trio = patternFactor({
  variables: [0, 1, 3],
  patterns: [{ assignment: [1, 1, 1], score: 0.5 }],
});
const cut = minCutSlave([sameWord, trio], 2); // a relaxed core Slave over positions 0, 1, 3
// Chain + min-cut on core's master: the master's agreement multipliers give the chain −λ, the cut +λ.
export const solution = solveDualDecomposition({ n: 4, L: 2, slaves: [{ slave: chain }, cut] });
console.log(solution.labels.join(" "), solution.status, solution.primal.toFixed(2));
// solution.labels = [1, 1, 0, 1], solution.status = "optimal" (dual = primal = 1.6): alone, the
// chain says [1, 0, 0, 0] (score 1.2); the consistency rewards pull tokens 1 and 3 to NAME.
