import type { ChainScorer, CrfModel, Preset } from "@lagrange/chain-crf";
import {
  type ChainScores,
  type DecodeOptions,
  type Decoder,
  type Decoding,
  LagrangeError,
  throwIfAborted,
  yieldToEventLoop,
} from "@lagrange/core";
import type { Sentence } from "@lagrange/datasets";
import {
  type ConsistencyFactorOptions,
  documentGroups,
  type GroupInstance,
  groupInstance,
  groupProblem,
  sentenceLabels,
  type TweetGroupOptions,
  tweetGroups,
} from "@lagrange/mincut";
import type { GeneralCrf, GroupingKind } from "./general-crf-settings.js";
import { modelPreset, sentenceAttributes, withDocumentInputsSync } from "./model-input.js";
import { modelDecodingConstraints } from "./model-scheme.js";
import { ownScores } from "./owned-scores.js";

/** The groups of a corpus: size-bounded single-linkage tweet clusters, or its documents. */
export function corpusGroups(
  sentences: readonly Sentence[],
  kind: GroupingKind,
  grouping: TweetGroupOptions = {},
): Int32Array[] {
  if (kind === "tweets")
    return tweetGroups(
      sentences.map((s) => s.tokens),
      grouping,
    );
  let unique = -1;
  return documentGroups(sentences.map((s) => s.document?.index ?? unique--));
}

/** The model's chain scores of sentences (copied: the scorer reuses its buffers). */
export class ChainScoring {
  readonly #preset: Preset;
  readonly #scorer: ChainScorer;
  constructor(model: CrfModel) {
    this.#preset = modelPreset(model);
    this.#scorer = model.scorer(modelDecodingConstraints(model));
  }
  score(sentence: Sentence): ChainScores {
    return ownScores(this.#scorer.score(sentenceAttributes(this.#preset, sentence)));
  }
}

/** Builds the group instances of a corpus: its groups' chains (by `scoreOf`) and factors. */
export function groupInstances(
  sentences: readonly Sentence[],
  groups: readonly Int32Array[],
  scoreOf: (index: number) => ChainScores,
  factors: ConsistencyFactorOptions = {},
  gold?: (index: number) => ArrayLike<number>,
): GroupInstance[] {
  return groups.map((members) => {
    const indices = Array.from(members);
    return groupInstance(
      indices.map(scoreOf),
      indices.map((k) => sentences[k]!.tokens),
      factors,
      gold === undefined ? undefined : indices.map(gold),
    );
  });
}

/** One decoded group. */
export interface DecodedGroup {
  /** Sentence indices of the group, in order. */
  readonly members: Int32Array;
  readonly decoding: Decoding;
  readonly positions: number;
  readonly factors: number;
}

export interface GeneralTagging {
  /** Predicted label names per sentence, in corpus order. */
  readonly labels: string[][];
  readonly groups: readonly DecodedGroup[];
  readonly decodingMs: number;
}

/**
 * Tags sentences with a general CRF: groups them as the model says, scores each group's chain and
 * factors, and decodes each group with the decoder (two-slave, naive-dd, exact — or viterbi, which
 * then ignores the consistency part). `chainOnly` decodes the groups without their patterns (the
 * linear-chain baseline on the same model).
 */
export async function tagGeneral(
  crf: GeneralCrf,
  sentences: readonly Sentence[],
  decoder: Decoder,
  options: {
    readonly decodeOptions?: DecodeOptions;
    readonly chainOnly?: boolean;
    readonly signal?: AbortSignal;
    readonly onGroup?: (done: number, total: number) => void;
  } = {},
): Promise<GeneralTagging> {
  const scoring = new ChainScoring(crf.model);
  const groups = corpusGroups(sentences, crf.settings.groups, crf.settings.grouping);
  // A chain with document context reads it over the whole input.
  const read = withDocumentInputsSync(crf.model, sentences, options.signal);
  const instances = groupInstances(
    sentences,
    groups,
    (k) => scoring.score(read[k]!),
    crf.settings.factors ?? {},
  );
  const labels: string[][] = new Array(sentences.length);
  const decoded: DecodedGroup[] = [];
  const decodeOptions: DecodeOptions = {
    ...options.decodeOptions,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  };
  let decodingMs = 0;
  for (const [g, instance] of instances.entries()) {
    // Yield between groups so that Ctrl-C (an AbortSignal fired from the event loop) is seen.
    if (g % 8 === 7) await yieldToEventLoop();
    throwIfAborted(options.signal);
    const problem =
      options.chainOnly === true
        ? { scores: instance.chain }
        : groupProblem(instance, crf.consistency);
    const t0 = performance.now();
    const decoding = decoder.decode(problem, decodeOptions);
    decodingMs += performance.now() - t0;
    if (decoding.status === "infeasible") {
      throw new LagrangeError("bad-input", "no labelling of a group meets the label scheme");
    }
    const parts = sentenceLabels(instance, decoding.labels);
    groups[g]!.forEach((k, p) => {
      labels[k] = crf.model.labels.decode(parts[p]!);
    });
    decoded.push({
      members: groups[g]!,
      decoding,
      positions: instance.chain.n,
      factors: instance.factors.length,
    });
    options.onGroup?.(g + 1, instances.length);
  }
  return { labels, groups: decoded, decodingMs };
}
