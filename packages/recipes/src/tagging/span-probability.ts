/**
 * How sure a chain model is of each entity it output: the probability, under the chain CRF, that a
 * decoded span is exactly that entity — its tokens carry the decoded labels and the entity
 * neither extends left nor right. A token's marginal says nothing of its neighbours, and a
 * product of marginals is not a probability of anything; the span's own is one forward pass with
 * the span's positions (and the two around it) restricted: log Z restricted − log Z.
 */
import { InferenceContext, logPartition } from "@lagrange/chain-crf";
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
  const logZ = logPartition(scores, { context });
  const NEG = Number.NEGATIVE_INFINITY;
  const adjustment = new Float64Array(n * L);
  const out: SpanProbability[] = [];
  for (const span of spans) {
    const from = Math.max(0, span.start - 1);
    const to = Math.min(n, span.end + 1);
    for (let i = span.start; i < span.end; i++) {
      const y = labels[i]!;
      for (let t = 0; t < L; t++) adjustment[i * L + t] = t === y ? 0 : NEG;
    }
    // Whether a label next to the span breaks it is a matter of the pair alone (conlleval's
    // chunk start and end read two neighbouring labels), so the extractor decides it on two.
    if (span.start > 0) {
      const opens = boundary(names, scheme, "opens", labels[span.start]!, span);
      for (let t = 0; t < L; t++) adjustment[(span.start - 1) * L + t] = opens[t] ? 0 : NEG;
    }
    if (span.end < n) {
      const closes = boundary(names, scheme, "closes", labels[span.end - 1]!, span);
      for (let t = 0; t < L; t++) adjustment[span.end * L + t] = closes[t] ? 0 : NEG;
    }
    const restricted = logPartition(scores, { adjustment, context });
    const probability =
      restricted === NEG || logZ === NEG ? 0 : Math.min(1, Math.exp(restricted - logZ));
    out.push({ ...span, probability });
    adjustment.fill(0, from * L, to * L);
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
