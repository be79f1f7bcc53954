import { type ChainScores, ProblemValidationError, type TransitionMask } from "@lagrange/core";
import type { CrfModel } from "./crf-model.js";
import type { AttributeList, AttributeSequence } from "./features/types.js";
import { findStateFeature } from "./model/scorer.js";

/** One attribute's part in a label's score: weight × value. */
export interface FeatureContribution {
  /** The attribute's name (a state attribute, or a transition attribute for a conditioned bigram). */
  readonly attribute: string;
  /** Its value at the token (1 for a binary attribute; summed when the name repeats). */
  readonly value: number;
  /** The model's weight for (attribute, label), or (attribute, previous label → label). */
  readonly weight: number;
  /** weight × value. */
  readonly contribution: number;
}

/** The contributions left out of a top-k list: how many, and their sum (the list stays exact). */
export interface Omitted {
  readonly count: number;
  readonly sum: number;
}

/**
 * One label's score at one token, in parts that add up: state features, the transition from the
 * previous token's label (the label bigram plus any observation-conditioned bigrams), and the
 * start / end weights at the sentence's edges.
 */
export interface LabelScore {
  readonly label: string;
  /** state + transition + boundary. */
  readonly total: number;
  /** Σ of every state feature's contribution (the listed ones and `omittedFeatures`). */
  readonly state: number;
  /** The strongest state contributions by magnitude, largest first (all with `top` unset). */
  readonly features: readonly FeatureContribution[];
  readonly omittedFeatures: Omitted;
  /** The label before (the labelling's), null at the first token. */
  readonly previous: string | null;
  /** Label bigram previous → label (0 at the first token). */
  readonly bigram: number;
  /** Observation-conditioned bigrams previous → label that fired here, strongest first. */
  readonly conditioned: readonly FeatureContribution[];
  /** bigram + Σ conditioned. */
  readonly transition: number;
  /** Start weight (first token) plus end weight (last token); 0 inside the sentence. */
  readonly boundary: number;
}

/** One token of an explained labelling. */
export interface TokenScore {
  readonly index: number;
  /** The labelling's label, broken down. */
  readonly chosen: LabelScore;
  /** The other labels asked for (`compare`), each after the labelling's previous label. */
  readonly compared: readonly LabelScore[];
  /**
   * The best other label at this token by max-marginal: the best labelling that gives the token
   * any other label (the rest re-optimised) has that label here. Null with a single label.
   */
  readonly runnerUp: string | null;
  /**
   * The labelling's chain score minus that best labelling's: how much chain score giving the token
   * its runner-up label costs. ≥ 0 for the Viterbi labelling; < 0 where constraints made the
   * decoder choose a label the chain alone likes less.
   */
  readonly margin: number;
  /** Attributes of the token the model does not know (they score nothing). */
  readonly unknownAttributes: number;
}

/** A labelling's chain score, token by token. */
export interface LabellingScore {
  readonly labels: readonly string[];
  readonly tokens: readonly TokenScore[];
  /** Σ over tokens of `chosen.total`: the labelling's chain score (core's `scoreLabelling`). */
  readonly score: number;
}

export interface ExplainOptions {
  /** Keep the k strongest state (and conditioned-bigram) contributions per label; default all. */
  readonly top?: number;
  /** Also break down these labels at every token, or the runner-up label of each token. */
  readonly compare?: readonly string[] | "runner-up";
  /** The mask the margins are computed under; default the model's own constraints. */
  readonly constraints?: TransitionMask;
}

/**
 * Breaks a labelling's chain score down by token: per token the state features of its label (name,
 * value, weight, contribution), the transition from the previous label (bigram and
 * observation-conditioned bigrams), the start and end weights, and the margin to the runner-up
 * label. The tokens' totals add up to the labelling's chain score (an exact decomposition: only
 * the order of the additions differs from the scorer's).
 */
export function explainLabelling(
  model: CrfModel,
  sequence: AttributeSequence,
  labels: ArrayLike<string | number>,
  options: ExplainOptions = {},
): LabellingScore {
  const n = sequence.length;
  const L = model.numLabels;
  if (labels.length !== n) {
    throw new ProblemValidationError("labels", `expected ${n} labels, got ${labels.length}`);
  }
  const top = options.top;
  if (top !== undefined && (!Number.isInteger(top) || top < 0)) {
    throw new ProblemValidationError("top", `expected an integer ≥ 0, got ${top}`);
  }
  const ids = Int32Array.from(labels, (label, i) => labelId(model, label, `labels[${i}]`));
  const compare = options.compare ?? [];
  const compareIds =
    compare === "runner-up" ? [] : compare.map((l, k) => labelId(model, l, `compare[${k}]`));
  const scores = model.chainScores(sequence, {
    constraints: options.constraints ?? model.constraints,
  });
  const maxMarginals = maxMarginalsOf(scores);
  const state = groupAttributes(sequence, sequence, n, (name) => model.attributes.lookup(name));
  const transition =
    sequence.transition === null || model.transitionAttributes.size === 0
      ? null
      : groupAttributes(sequence.transition, sequence, n, (name) =>
          model.transitionAttributes.lookup(name),
        );
  const score = labellingScore(model, state, transition, n, top);
  const tokens: TokenScore[] = [];
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const prev = i === 0 ? -1 : ids[i - 1]!;
    const chosen = score(i, prev, ids[i]!);
    sum += chosen.total;
    let runnerUp = -1;
    let best = Number.NEGATIVE_INFINITY;
    for (let t = 0; t < L; t++) {
      if (t === ids[i]) continue;
      const m = maxMarginals[i * L + t]!;
      if (runnerUp < 0 || m > best) {
        best = m;
        runnerUp = t;
      }
    }
    const others = compare === "runner-up" ? (runnerUp < 0 ? [] : [runnerUp]) : compareIds;
    tokens.push({
      index: i,
      chosen,
      compared: others.map((t) => score(i, prev, t)),
      runnerUp: runnerUp < 0 ? null : model.labels.name(runnerUp),
      margin: Number.NaN,
      unknownAttributes: state.unknown[i]!,
    });
  }
  // The margin is taken against the labelling's own chain score (not Viterbi's): where a decoder
  // under constraints chose differently, the negative margin is what the constraints paid.
  return {
    labels: Array.from(ids, (t) => model.labels.name(t)),
    tokens: tokens.map((t) => {
      const runner = t.runnerUp === null ? -1 : model.labels.lookup(t.runnerUp);
      const margin =
        runner < 0 ? Number.POSITIVE_INFINITY : sum - maxMarginals[t.index * L + runner]!;
      return { ...t, margin };
    }),
    score: sum,
  };
}

function labelId(model: CrfModel, label: string | number, path: string): number {
  const id = typeof label === "number" ? label : model.labels.lookup(label);
  if (!Number.isInteger(id) || id < 0 || id >= model.numLabels) {
    throw new ProblemValidationError(path, `unknown label ${JSON.stringify(label)}`);
  }
  return id;
}

/** A sequence's attributes known to a dictionary, per token, with repeated names summed. */
interface GroupedAttributes {
  /** Per token: attribute ids and summed values, in first-seen order. */
  readonly ids: Int32Array[];
  readonly values: Float64Array[];
  readonly names: string[][];
  /** Per token: occurrences the dictionary does not know. */
  readonly unknown: Int32Array;
}

function groupAttributes(
  list: AttributeList,
  sequence: AttributeSequence,
  n: number,
  lookup: (name: string) => number,
): GroupedAttributes {
  if (list.offsets.length !== n + 1) {
    throw new ProblemValidationError(
      "sequence.offsets",
      `expected ${n + 1} offsets for ${sequence.length} tokens, got ${list.offsets.length}`,
    );
  }
  const ids: Int32Array[] = [];
  const values: Float64Array[] = [];
  const names: string[][] = [];
  const unknown = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const at = new Map<number, number>();
    const tokenIds: number[] = [];
    const tokenValues: number[] = [];
    const tokenNames: string[] = [];
    for (let k = list.offsets[i]!; k < list.offsets[i + 1]!; k++) {
      const name = list.names[k]!;
      const a = lookup(name);
      const value = list.values === null ? 1 : list.values[k]!;
      if (a < 0) {
        unknown[i]!++;
        continue;
      }
      const seen = at.get(a);
      if (seen === undefined) {
        at.set(a, tokenIds.length);
        tokenIds.push(a);
        tokenValues.push(value);
        tokenNames.push(name);
      } else tokenValues[seen]! += value;
    }
    ids.push(Int32Array.from(tokenIds));
    values.push(Float64Array.from(tokenValues));
    names.push(tokenNames);
  }
  return { ids, values, names, unknown };
}

/** The scorer of (token, previous label, label) as a {@link LabelScore}. */
function labellingScore(
  model: CrfModel,
  state: GroupedAttributes,
  transition: GroupedAttributes | null,
  n: number,
  top: number | undefined,
): (i: number, prev: number, t: number) => LabelScore {
  const { layout, weights } = model;
  const L = layout.numLabels;
  return (i, prev, t) => {
    const features: FeatureContribution[] = [];
    const ids = state.ids[i]!;
    for (let k = 0; k < ids.length; k++) {
      const f = findStateFeature(layout, ids[k]!, t);
      if (f < 0) continue;
      const value = state.values[i]![k]!;
      const weight = weights[f]!;
      features.push({
        attribute: state.names[i]![k]!,
        value,
        weight,
        contribution: weight * value,
      });
    }
    const stateSum = sumOf(features);
    let bigram = 0;
    const conditioned: FeatureContribution[] = [];
    if (prev >= 0) {
      bigram = weights[layout.transitionBase + prev * L + t]!;
      if (transition !== null) {
        const pair = prev * L + t;
        const tids = transition.ids[i]!;
        for (let k = 0; k < tids.length; k++) {
          const a = tids[k]!;
          const f = findPair(
            layout.transitionFeaturePairs,
            layout.transitionAttributeOffsets,
            a,
            pair,
          );
          if (f < 0) continue;
          const value = transition.values[i]![k]!;
          const weight = weights[layout.transitionAttributeBase + f]!;
          conditioned.push({
            attribute: transition.names[i]![k]!,
            value,
            weight,
            contribution: weight * value,
          });
        }
      }
    }
    const transitionSum = bigram + sumOf(conditioned);
    let boundary = 0;
    if (layout.startBase >= 0 && i === 0) boundary += weights[layout.startBase + t]!;
    if (layout.endBase >= 0 && i === n - 1) boundary += weights[layout.endBase + t]!;
    const kept = strongest(features, top);
    return {
      label: model.labels.name(t),
      total: stateSum + transitionSum + boundary,
      state: stateSum,
      features: kept,
      omittedFeatures: { count: features.length - kept.length, sum: stateSum - sumOf(kept) },
      previous: prev < 0 ? null : model.labels.name(prev),
      bigram,
      conditioned: strongest(conditioned, top),
      transition: transitionSum,
      boundary,
    };
  };
}

function sumOf(list: readonly FeatureContribution[]): number {
  let s = 0;
  for (const c of list) s += c.contribution;
  return s;
}

/** The k largest by magnitude, largest first (ties by name, so the order is stable). */
function strongest(list: FeatureContribution[], k: number | undefined): FeatureContribution[] {
  list.sort(
    (a, b) =>
      Math.abs(b.contribution) - Math.abs(a.contribution) ||
      (a.attribute < b.attribute ? -1 : a.attribute > b.attribute ? 1 : 0),
  );
  return k === undefined ? list : list.slice(0, k);
}

function findPair(pairs: Int32Array, offsets: Int32Array, a: number, pair: number): number {
  for (let f = offsets[a]!; f < offsets[a + 1]!; f++) if (pairs[f] === pair) return f;
  return -1;
}

/**
 * Max-marginals of a chain: at [i·L + t] the best score of a labelling with label t at token i
 * (−∞ where none is allowed). Max-product forward and backward passes, O(n·L²).
 */
export function maxMarginalsOf(scores: ChainScores): Float64Array {
  const { n, L, unary, transition, start, end, allowed } = scores;
  const NEG = Number.NEGATIVE_INFINITY;
  const perPosition = transition.length !== L * L;
  const trans = (i: number, a: number, b: number) =>
    allowed !== undefined && allowed[a * L + b] === 0
      ? NEG
      : transition[(perPosition ? (i - 1) * L * L : 0) + a * L + b]!;
  const alpha = new Float64Array(n * L);
  const beta = new Float64Array(n * L);
  for (let t = 0; t < L; t++) alpha[t] = unary[t]! + (start === undefined ? 0 : start[t]!);
  for (let i = 1; i < n; i++) {
    for (let b = 0; b < L; b++) {
      let best = NEG;
      for (let a = 0; a < L; a++) {
        const s = alpha[(i - 1) * L + a]! + trans(i, a, b);
        if (s > best) best = s;
      }
      alpha[i * L + b] = best + unary[i * L + b]!;
    }
  }
  for (let t = 0; t < L; t++) beta[(n - 1) * L + t] = end === undefined ? 0 : end[t]!;
  for (let i = n - 2; i >= 0; i--) {
    for (let a = 0; a < L; a++) {
      let best = NEG;
      for (let b = 0; b < L; b++) {
        const s = trans(i + 1, a, b) + unary[(i + 1) * L + b]! + beta[(i + 1) * L + b]!;
        if (s > best) best = s;
      }
      beta[i * L + a] = best;
    }
  }
  const out = new Float64Array(n * L);
  for (let k = 0; k < n * L; k++) out[k] = alpha[k]! + beta[k]!;
  return out;
}

/** A weight with what it scores, for {@link strongestWeights}. */
export interface LabelWeight {
  readonly attribute: string;
  readonly weight: number;
}

/** One label's strongest state weights, both signs (eli5's explain_weights for a CRF). */
export interface LabelWeights {
  readonly label: string;
  /** The k largest weights > 0, largest first. */
  readonly positive: readonly LabelWeight[];
  /** The k most negative weights < 0, most negative first. */
  readonly negative: readonly LabelWeight[];
  /** State features of the label with a non-zero weight. */
  readonly nonZero: number;
}

/** A model's weights, read as a user reads them. */
export interface ModelWeights {
  readonly labels: readonly LabelWeights[];
  /** The label names, in id order: the rows and columns of `transitions`. */
  readonly names: readonly string[];
  /** transitions[a][b]: the weight of label a followed by label b. */
  readonly transitions: readonly (readonly number[])[];
  /** First-label and last-label weights, null when the model has none. */
  readonly start: readonly number[] | null;
  readonly end: readonly number[] | null;
}

/**
 * The strongest positive and negative state weights of each label (or of the labels named), and
 * the label-bigram matrix: what a model learned, like eli5's `explain_weights` for CRFsuite.
 */
export function strongestWeights(
  model: CrfModel,
  options: { readonly top?: number; readonly labels?: readonly string[] } = {},
): ModelWeights {
  const top = options.top ?? 10;
  if (!Number.isInteger(top) || top < 1) {
    throw new ProblemValidationError("top", `expected an integer ≥ 1, got ${top}`);
  }
  const { layout, weights } = model;
  const L = layout.numLabels;
  const wanted = (options.labels ?? model.labels.names()).map((l, k) =>
    labelId(model, l, `labels[${k}]`),
  );
  const byLabel = new Map<
    number,
    { positive: LabelWeight[]; negative: LabelWeight[]; nonZero: number }
  >();
  for (const t of wanted) byLabel.set(t, { positive: [], negative: [], nonZero: 0 });
  for (let a = 0; a < layout.numAttributes; a++) {
    for (let f = layout.attributeOffsets[a]!; f < layout.attributeOffsets[a + 1]!; f++) {
      const entry = byLabel.get(layout.featureLabels[f]!);
      const w = weights[f]!;
      if (entry === undefined || w === 0) continue;
      entry.nonZero++;
      // Bounded insertion keeps memory at k per label however many attributes there are.
      keepTop(w > 0 ? entry.positive : entry.negative, a, w, top, model);
    }
  }
  const transitions: number[][] = [];
  for (let a = 0; a < L; a++) {
    transitions.push(
      Array.from(
        weights.subarray(layout.transitionBase + a * L, layout.transitionBase + (a + 1) * L),
      ),
    );
  }
  return {
    labels: wanted.map((t) => {
      const e = byLabel.get(t)!;
      return {
        label: model.labels.name(t),
        positive: e.positive,
        negative: e.negative,
        nonZero: e.nonZero,
      };
    }),
    names: model.labels.names(),
    transitions,
    start:
      layout.startBase < 0
        ? null
        : Array.from(weights.subarray(layout.startBase, layout.startBase + L)),
    end:
      layout.endBase < 0 ? null : Array.from(weights.subarray(layout.endBase, layout.endBase + L)),
  };
}

/** Inserts (a, w) into `list`, sorted by |w| descending, keeping at most k entries. */
function keepTop(list: LabelWeight[], a: number, w: number, k: number, model: CrfModel): void {
  const m = Math.abs(w);
  if (list.length === k && m <= Math.abs(list[k - 1]!.weight)) return;
  let at = list.length;
  while (at > 0 && Math.abs(list[at - 1]!.weight) < m) at--;
  list.splice(at, 0, { attribute: model.attributes.name(a), weight: w });
  if (list.length > k) list.pop();
}
