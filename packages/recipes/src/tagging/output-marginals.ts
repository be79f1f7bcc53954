/**
 * Token marginals of a model trained under an internal scheme (a NER preset's BIOES), as
 * marginals of the labels its users read (the data's IOB1, IOB2, …). An output label is not a
 * function of the internal label at its token alone: under IOB1 a `B-` says the name before is of
 * the same type, under IOE1 an `E-` says the one after is. But it is a function of the internal
 * labels at i − 1, i and i + 1: the span reader decides whether a span breaks between two tokens
 * from those two labels alone (conlleval's chunk start and end), and an output tag reads only
 * whether a span starts or ends at its token and, where it does, whether the touching span has the
 * same type, which the neighbour's label says. So p(output_i = X) sums the three-label windows
 * whose converted middle label is X, each window's probability read off the chain's pairwise
 * marginals (the chain is Markov: p(a, b, c) = P_i(a, b) · P_{i+1}(b, c) / m_i(b)). Where the
 * conversion reads one side only (IOB1 the left, IOE1 the right, out of BIOES) the window shrinks
 * to that pair, and to the token alone where it reads neither (IOB2, IOE2 out of BIOES).
 */
import { LagrangeError } from "@lagrange/core";
import { convertScheme, decodingMask, type SchemeName } from "@lagrange/datasets";

/** Token marginals over a model's internal labels as ones over its output scheme's labels. */
export interface OutputMarginals {
  /** The output labels (J of them), in the order of the converted marginals. */
  readonly labels: readonly string[];
  /**
   * A token's output label follows from its own internal label alone: a decoder's marginals
   * (no pairs) convert exactly.
   */
  readonly local: boolean;
  /** Per token, the id in {@link labels} of the output label of a labelling of model label ids. */
  ids(labels: ArrayLike<number>): Int32Array;
  /**
   * p(output_i = X) at [i·J + X] from the internal marginals (n·L) and the chain's pairwise ones
   * ((n − 1)·L·L, block i − 1 the pair (i − 1, i): forwardBackward's), exact. Without `pairwise`
   * (a decoder's own marginals) neighbouring tokens are taken as independent: exact where
   * {@link local}, else the product of the neighbours' marginals.
   */
  convert(marginals: Float64Array, pairwise?: Float64Array): Float64Array;
}

/**
 * The {@link OutputMarginals} of labels `names` under `internal` read as `labels` under `output`.
 * The windows' output labels come from `convertScheme` itself, each window converted alone (a
 * sentence edge stands where the window ends); which neighbours matter is read off the windows
 * the scheme's transitions allow.
 */
export function outputMarginals(
  names: readonly string[],
  labels: readonly string[],
  internal: SchemeName,
  output: SchemeName,
): OutputMarginals {
  const L = names.length;
  const J = labels.length;
  const id = new Map(labels.map((label, j) => [label, j]));
  const idOf = (label: string): number => {
    const j = id.get(label);
    if (j === undefined) {
      throw new LagrangeError(
        "bad-input",
        `the model's labels under ${internal} read as ${output} give ${label}, which is not among its output labels (${labels.join(", ")})`,
      );
    }
    return j;
  };
  const mask = decodingMask(names, internal)!;
  // Index L stands for the sentence edge on either side.
  const E = L;
  const W = L + 1;
  const canPair = (a: number, b: number): boolean =>
    a === E
      ? mask.allowedStart[b] === 1
      : b === E
        ? mask.allowedEnd[a] === 1
        : mask.allowed[a * L + b] === 1;
  // The output label of b between a and c (either may be the edge), converted as a window alone.
  const middle = (a: number, b: number, c: number): number => {
    const window = [names[b]!];
    if (a !== E) window.unshift(names[a]!);
    if (c !== E) window.push(names[c]!);
    return idOf(convertScheme(window, internal, output)[a === E ? 0 : 1]!);
  };
  // The windows a valid labelling can hold, and whether the middle's output reads a or c.
  const full = new Int32Array(W * L * W).fill(-1);
  let left = false;
  let right = false;
  const byRight = new Int32Array(L * W).fill(-1);
  const byLeft = new Int32Array(W * L).fill(-1);
  for (let b = 0; b < L; b++) {
    for (let a = 0; a <= L; a++) {
      if (!canPair(a, b)) continue;
      for (let c = 0; c <= L; c++) {
        if (!canPair(b, c)) continue;
        const x = middle(a, b, c);
        full[(a * L + b) * W + c] = x;
        const r = byRight[b * W + c]!;
        if (r === -1) byRight[b * W + c] = x;
        else if (r !== x) left = true;
        const l = byLeft[a * L + b]!;
        if (l === -1) byLeft[a * L + b] = x;
        else if (l !== x) right = true;
      }
    }
  }
  // A window no valid labelling holds carries no chain mass; a decoder's marginals may give it
  // some, and then it reads as its lenient conversion.
  const fill = (table: Int32Array, at: (k: number) => [number, number, number]) => {
    for (let k = 0; k < table.length; k++) {
      if (table[k] === -1) {
        const [a, b, c] = at(k);
        table[k] = middle(a, b, c);
      }
    }
    return table;
  };
  // The table of the window actually read (the token, (i − 1, i), (i, i + 1) or all three),
  // completed; the others stay unused and unfilled (L³ conversions for a large label set).
  const none = new Int32Array(0);
  const single =
    left || right
      ? none
      : fill(
          Int32Array.from({ length: L }, (_, b) => {
            for (let c = 0; c <= L; c++) if (byRight[b * W + c] !== -1) return byRight[b * W + c]!;
            return -1;
          }),
          (b) => [E, b, E],
        );
  const fromLeft = left && !right ? fill(byLeft, (k) => [Math.floor(k / L), k % L, E]) : none;
  const fromRight = right && !left ? fill(byRight, (k) => [E, Math.floor(k / W), k % W]) : none;
  const both =
    left && right
      ? fill(full, (k) => [Math.floor(k / (L * W)), Math.floor(k / W) % L, k % W])
      : none;

  const convert = (m: Float64Array, given?: Float64Array): Float64Array => {
    const n = L === 0 ? 0 : m.length / L;
    const q = new Float64Array(n * J);
    if (!left && !right) {
      for (let i = 0; i < n; i++) {
        for (let b = 0; b < L; b++) q[i * J + single[b]!]! += m[i * L + b]!;
      }
      return q;
    }
    const LL = L * L;
    const pw = given ?? independentPairs(m, n, L);
    for (let i = 0; i < n; i++) {
      const row = i * J;
      const before = (i - 1) * LL;
      const after = i * LL;
      const hasLeft = i > 0;
      const hasRight = i < n - 1;
      for (let b = 0; b < L; b++) {
        const mb = m[i * L + b]!;
        if (!(mb > 0)) continue;
        if (!right) {
          if (!hasLeft) q[row + fromLeft[E * L + b]!]! += mb;
          else {
            for (let a = 0; a < L; a++) {
              const p = pw[before + a * L + b]!;
              if (p > 0) q[row + fromLeft[a * L + b]!]! += p;
            }
          }
          continue;
        }
        if (!left) {
          if (!hasRight) q[row + fromRight[b * W + E]!]! += mb;
          else {
            for (let c = 0; c < L; c++) {
              const p = pw[after + b * L + c]!;
              if (p > 0) q[row + fromRight[b * W + c]!]! += p;
            }
          }
          continue;
        }
        // Both sides: p(a, b, c) = P(a, b) · P(c | b); an edge side is certain.
        for (let a = hasLeft ? 0 : E; a <= (hasLeft ? L - 1 : E); a++) {
          const pab = hasLeft ? pw[before + a * L + b]! : mb;
          if (!(pab > 0)) continue;
          const at = (a * L + b) * W;
          if (!hasRight) {
            q[row + both[at + E]!]! += pab;
            continue;
          }
          for (let c = 0; c < L; c++) {
            const pbc = pw[after + b * L + c]!;
            if (pbc > 0) q[row + both[at + c]!]! += (pab * pbc) / mb;
          }
        }
      }
    }
    return q;
  };
  return {
    labels,
    local: !left && !right,
    ids: (y) => {
      const converted = convertScheme(
        Array.from({ length: y.length }, (_, i) => names[y[i]!]!),
        internal,
        output,
      );
      return Int32Array.from(converted, idOf);
    },
    convert,
  };
}

/** Pairwise marginals of neighbouring tokens taken as independent: m_{i−1}(a) · m_i(b). */
function independentPairs(m: Float64Array, n: number, L: number): Float64Array {
  const LL = L * L;
  const pw = new Float64Array(Math.max(0, n - 1) * LL);
  for (let i = 1; i < n; i++) {
    for (let a = 0; a < L; a++) {
      const ma = m[(i - 1) * L + a]!;
      if (ma === 0) continue;
      for (let b = 0; b < L; b++) pw[(i - 1) * LL + a * L + b] = ma * m[i * L + b]!;
    }
  }
  return pw;
}
