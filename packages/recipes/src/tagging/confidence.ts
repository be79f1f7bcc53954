/**
 * How sure a chain model is of a labelling: per-token marginals and the sequence probability
 * p(y|x). The chain CRF's are exact (forward-backward over the scores the sentence was decoded
 * from, the scheme's transition mask included). Decoders with a distribution of their own (Bcrf,
 * mean field) give theirs; decoders that enforce constraints the chain does not see (dual
 * decomposition, ILP) define no marginals, so the chain's are given and marked `unconstrained`.
 */
import { forwardBackward, InferenceContext } from "@lagrange/chain-crf";
import { type ChainScores, type DecodeOptions, type Decoder, scoreLabelling } from "@lagrange/core";
import type { OutputMarginals } from "./output-marginals.js";
import type { SpanProbability } from "./span-probability.js";

/** What to compute for each tagged sentence. */
export interface ConfidenceRequest {
  /** Per-token marginals p(y_i = t). */
  readonly marginals?: boolean;
  /** The output labelling's probability under the chain CRF. */
  readonly probability?: boolean;
  /** Each output span's probability under the chain CRF (`spanProbabilities`). */
  readonly spans?: boolean;
}

/**
 * Whose marginals: `chain` (the chain CRF's, exact), `chain-unconstrained` (the chain's, although
 * the labels were decoded under constraints or slaves the chain does not see: not the constrained
 * distribution), or the name of a decoder with marginals of its own (`bcrf`, `mean-field`);
 * `<decoder>-factored` where its marginals, which hold no pairs, were read in an output scheme
 * whose label at a token depends on a neighbour's (IOB1, IOE1 out of BIOES) as if neighbouring
 * tokens were independent.
 */
export type MarginalsSource = "chain" | "chain-unconstrained" | (string & {});

export interface LabellingConfidence {
  /**
   * p(y_i = t) at [i·L + t] (with `marginals`): label ids as the model numbers them, or, given an
   * output scheme's {@link OutputMarginals}, as its `labels` do.
   */
  readonly marginals?: Float64Array;
  readonly marginalsOf?: MarginalsSource;
  /** Per token, the marginal of the label output there (with `marginals`). */
  readonly confidence?: Float64Array;
  /**
   * p(y|x) = exp(score(y) − log Z) of the output labelling under the chain CRF (its mask
   * included), whatever the decoder; 0 for a labelling the mask forbids (with `probability`).
   */
  readonly probability?: number;
  readonly logProbability?: number;
  /** The output's spans (model label ids, its scheme), each with its probability (with `spans`). */
  readonly spans?: readonly SpanProbability[];
  /** `chain`, or `chain-unconstrained` where the labels were decoded under constraints or slaves. */
  readonly spansOf?: MarginalsSource;
}

// One forward-backward context per thread (each worker loads its own module): a fresh one per
// sentence sets up its buffers (SIMD memory included) again, ten times the pass itself.
let context: InferenceContext | undefined;

/** Where a tagger's marginals come from, for its decoder and whether it decodes under constraints. */
export function marginalsSource(decoder: Decoder, constrained: boolean): MarginalsSource {
  if (decoder.marginals !== undefined) return decoder.name;
  return constrained ? "chain-unconstrained" : "chain";
}

/**
 * The confidence of `labels` (label ids) decoded from `scores` by `decoder`. `constrained`: the
 * sentence was decoded under constraints or slaves (the chain's marginals are then marked so).
 * `output`: the model is read in another scheme than it was trained under (`SchemeEdge.marginals`),
 * and the marginals, and each token's confidence, are those of the labels it outputs.
 */
export function labellingConfidence(
  scores: ChainScores,
  labels: ArrayLike<number>,
  decoder: Decoder,
  constrained: boolean,
  request: ConfidenceRequest,
  decodeOptions: DecodeOptions = {},
  output?: OutputMarginals,
): LabellingConfidence {
  const { n, L } = scores;
  const own = request.marginals === true ? decoder.marginals?.bind(decoder) : undefined;
  // One forward-backward gives log Z and the chain's marginals together (and the pairs an output
  // scheme that reads neighbours needs).
  const needChain = request.probability === true || (request.marginals === true && !own);
  const pairwise = request.marginals === true && !own && output !== undefined && !output.local;
  context ??= new InferenceContext();
  const chain = needChain ? forwardBackward(scores, { context, pairwise }) : undefined;
  const result: {
    marginals?: Float64Array;
    marginalsOf?: MarginalsSource;
    confidence?: Float64Array;
    probability?: number;
    logProbability?: number;
  } = {};
  if (request.marginals === true) {
    const internal = own !== undefined ? own({ scores }, decodeOptions) : chain!.marginals;
    const marginals =
      output === undefined
        ? internal
        : output.convert(internal, own === undefined ? chain!.pairwise : undefined);
    const ids = output === undefined ? labels : output.ids(labels);
    const width = output === undefined ? L : output.labels.length;
    const confidence = new Float64Array(n);
    for (let i = 0; i < n; i++) confidence[i] = marginals[i * width + ids[i]!]!;
    const source = marginalsSource(decoder, constrained);
    result.marginals = marginals;
    result.marginalsOf =
      own !== undefined && output !== undefined && !output.local ? `${source}-factored` : source;
    result.confidence = confidence;
  }
  if (request.probability === true) {
    const logZ = chain!.logPartition;
    const score = scoreLabelling(scores, labels);
    // A labelling the mask forbids, or a sentence none fits: probability 0.
    const logProbability =
      score === Number.NEGATIVE_INFINITY || logZ === Number.NEGATIVE_INFINITY
        ? Number.NEGATIVE_INFINITY
        : Math.min(0, score - logZ);
    result.logProbability = logProbability;
    result.probability = Math.exp(logProbability);
  }
  return result;
}

/** Marginals below this are left out of a token's label → probability map (they sum to < L·it). */
export const MARGINAL_THRESHOLD = 0.001;

/**
 * A token's marginals as a label → probability map, labels at or above `threshold` only,
 * most probable first (what NDJSON output carries).
 */
export function marginalMaps(
  marginals: Float64Array,
  labelNames: readonly string[],
  threshold = MARGINAL_THRESHOLD,
): Record<string, number>[] {
  const L = labelNames.length;
  const n = L === 0 ? 0 : marginals.length / L;
  const maps: Record<string, number>[] = [];
  for (let i = 0; i < n; i++) {
    const entries: [string, number][] = [];
    for (let t = 0; t < L; t++) {
      const p = marginals[i * L + t]!;
      if (p >= threshold) entries.push([labelNames[t]!, roundProbability(p)]);
    }
    entries.sort((a, b) => b[1] - a[1]);
    maps.push(Object.fromEntries(entries));
  }
  return maps;
}

/** Six significant digits: enough for calibration, short enough to read. */
export function roundProbability(p: number): number {
  return Number(p.toPrecision(6));
}

/** A sentence's confidence as NDJSON output writes it (plain data; what crosses threads). */
export interface ConfidenceRecord {
  /** Per token, label → probability for labels ≥ {@link MARGINAL_THRESHOLD}. */
  readonly marginals?: readonly Record<string, number>[];
  readonly marginalsOf?: MarginalsSource;
  /** Per token, the marginal of the output label. */
  readonly confidence?: readonly number[];
  /** p(y|x) of the output under the chain CRF. */
  readonly probability?: number;
  /** The output's spans (token indices, end exclusive), each with its probability. */
  readonly spans?: readonly SpanProbability[];
  readonly spansOf?: MarginalsSource;
}

/** {@link LabellingConfidence} as written: marginals as maps by label name, figures rounded. */
export function confidenceRecord(
  c: LabellingConfidence,
  labelNames: readonly string[],
): ConfidenceRecord {
  return {
    ...(c.marginals === undefined ? {} : { marginals: marginalMaps(c.marginals, labelNames) }),
    ...(c.marginalsOf === undefined ? {} : { marginalsOf: c.marginalsOf }),
    ...(c.confidence === undefined
      ? {}
      : { confidence: Array.from(c.confidence, roundProbability) }),
    ...(c.probability === undefined ? {} : { probability: roundProbability(c.probability) }),
    ...(c.spans === undefined
      ? {}
      : { spans: c.spans.map((s) => ({ ...s, probability: roundProbability(s.probability) })) }),
    ...(c.spansOf === undefined ? {} : { spansOf: c.spansOf }),
  };
}
