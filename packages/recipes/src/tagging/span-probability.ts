/**
 * How sure a chain model is of each entity it output: the probability, under the chain CRF, that a
 * decoded span is exactly that entity — its tokens carry the decoded labels and the entity
 * neither extends left nor right. A token's marginal says nothing of its neighbours, and a
 * product of marginals is not a probability of anything; the span's own is read off one
 * forward-backward pass: the chain is Markov, so the span's probability is the pairwise marginal
 * into its first label, times the conditional of each next label given the one before it.
 */
import { forwardBackward, InferenceContext } from "@lagrange/chain-crf";
import type { ChainScores } from "@lagrange/core";
import { type LabelScheme, type Span, schemeSpans } from "@lagrange/datasets";

/** A decoded span (token indices, end exclusive) and its probability under the chain CRF. */
export interface SpanProbability extends Span {
  readonly probability: number;
}

// One context per thread, as for the marginals: fresh buffers per call cost more than the pass.
let context: InferenceContext | undefined;

/**
 * Every span of `labels` (label ids of `names`, read under `scheme` as `schemeSpans` reads them,
 * every level) with its probability under `scores`: p(y[s..e) = labels[s..e), the label before
 * does not continue the span, the label after does not extend it). 0 where the chain gives the
 * span (or the sentence) no feasible labelling.
 *
 * One forward-backward pass with per-position pairwise marginals P_i(a, b) = p(y_{i−1} = a,
 * y_i = b) serves every span, in O(its length + L) each: by the Markov property
 * p = Σ_{a opens} P_s(a, l_s) · Π_{s<i<e} P_i(l_{i−1}, l_i) / m_{i−1}(l_{i−1})
 *     · Σ_{b closes} P_e(l_{e−1}, b) / m_{e−1}(l_{e−1}),
 * with m the token marginals, m_0(l_0) for the first factor at s = 0 and no last one at e = n. A
 * pass restricted to each span instead (log Z restricted − log Z) costs a whole chain per span.
 */
export function spanProbabilities(
  scores: ChainScores,
  labels: ArrayLike<number>,
  names: readonly string[],
  scheme: LabelScheme,
): SpanProbability[] {
  const { n, L } = scores;
  const decoded = Array.from({ length: n }, (_, i) => names[labels[i]!]!);
  const spans = schemeSpans(decoded, scheme);
  if (spans.length === 0) return [];
  context ??= new InferenceContext();
  const { marginals, pairwise } = forwardBackward(scores, { context, pairwise: true });
  // Block i − 1 of `pairwise` is the pair (i − 1, i).
  const pair = (i: number, a: number, b: number) => pairwise![(i - 1) * L * L + a * L + b]!;
  // p · P(next | y_at = label) from a pairwise mass; a label the chain never gives (an underflowed
  // marginal included) leaves no mass to condition on.
  const given = (p: number, joint: number, label: number, at: number) => {
    const m = marginals[at * L + label]!;
    return m > 0 ? (p * joint) / m : 0;
  };
  const out: SpanProbability[] = [];
  for (const span of spans) {
    const { start, end } = span;
    const first = labels[start]!;
    let probability = 0;
    if (start === 0) probability = marginals[first]!;
    else {
      // Whether a label next to the span breaks it is a matter of the pair alone (conlleval's
      // chunk start and end read two neighbouring labels), so the extractor decides it on two.
      const opens = boundary(names, scheme, "opens", first, span);
      for (let a = 0; a < L; a++) if (opens[a] === 1) probability += pair(start, a, first);
    }
    for (let i = start + 1; i < end && probability > 0; i++) {
      const before = labels[i - 1]!;
      probability = given(probability, pair(i, before, labels[i]!), before, i - 1);
    }
    if (end < n && probability > 0) {
      const last = labels[end - 1]!;
      const closes = boundary(names, scheme, "closes", last, span);
      let after = 0;
      for (let b = 0; b < L; b++) if (closes[b] === 1) after += pair(end, last, b);
      probability = given(probability, after, last, end - 1);
    }
    out.push({ ...span, probability: Math.min(1, probability) });
  }
  return out;
}

/**
 * Per label t, 1 where t before the span's first label opens the span (`opens`: the pair
 * [t, first] starts a span of its level and type at the second), or where t after its last label
 * closes it (`closes`: [last, t] has the span end at the first). The same few answers come up
 * sentence after sentence, and each costs L calls of schemeSpans: kept per labels and scheme.
 */
function boundary(
  names: readonly string[],
  scheme: LabelScheme,
  side: "opens" | "closes",
  label: number,
  span: Span,
): Uint8Array {
  let byScheme = boundaries.get(names);
  if (byScheme === undefined) {
    byScheme = new Map();
    boundaries.set(names, byScheme);
  }
  const key = `${scheme}\u0000${side}\u0000${label}\u0000${span.level}\u0000${span.type}`;
  let found = byScheme.get(key);
  if (found === undefined) {
    const L = names.length;
    const end = names[label]!;
    found = new Uint8Array(L);
    for (let t = 0; t < L; t++) {
      const pair = side === "opens" ? [names[t]!, end] : [end, names[t]!];
      const at = side === "opens" ? 1 : 0;
      const yes = schemeSpans(pair, scheme).some(
        (s) =>
          s.level === span.level &&
          s.type === span.type &&
          s.start === at &&
          (side === "opens" || s.end === 1),
      );
      found[t] = yes ? 1 : 0;
    }
    byScheme.set(key, found);
  }
  return found;
}

const boundaries = new WeakMap<readonly string[], Map<string, Uint8Array>>();
