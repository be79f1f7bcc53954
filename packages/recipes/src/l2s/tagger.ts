import { type ClassWeights, getPreset, resolveClassWeights } from "@lagrange/chain-crf";
import {
  type ChainScores,
  type DecoderRegistry,
  LagrangeError,
  type TransitionMask,
} from "@lagrange/core";
import {
  type Corpus,
  corpusLocator,
  decodingMask,
  inputRows,
  LABEL_SCHEMES,
  type LabelScheme,
  requireScheme,
  type SchemeCheck,
  type Sentence,
} from "@lagrange/datasets";
import {
  hashTokenAttributes,
  type L2sModel,
  LabelConstraintTracker,
  type LabelGuide,
  type LabellingExample,
  type SearchTrainingResult,
  SequenceScores,
  sequenceLabelling,
  trainSearch,
} from "@lagrange/l2s";
import { sentenceAttributes } from "../model-input.js";
import { DEFAULT_DECODERS } from "../tagging/default-decoders.js";
import { goldLabels, requireSeveralLabels } from "../training.js";
import { givenSearchOptions, type L2sSearchOptions } from "./search-options.js";

/** The task name an L2S tagger's model file records. */
export const L2S_TAGGER_TASK = "sequence-labelling";

/** The base learner an L2S tagger trains when none is given: VW's csoaa. */
export const L2S_TAGGER_DEFAULT_LEARNER = "csoaa";

export interface TrainL2sTaggerOptions extends L2sSearchOptions {
  /** chain-crf feature preset (pos, ner, chunking, …): the same attributes a CRF would use. */
  readonly preset: string;
  /** Default: the corpus's own scheme. */
  readonly scheme?: LabelScheme;
  /**
   * Keep every output valid under the scheme (BIO: no I- after O) by the constraint bridge, in
   * training and in decoding. Default true.
   */
  readonly bridge?: boolean;
  /** The preset's attributes of the corpus, when the caller has them already. */
  readonly attributes?: readonly ReturnType<typeof sentenceAttributes>[];
  /**
   * Weights per gold label: a mistake on a token costs its gold label's weight (in the loss, the
   * roll-outs and the one-step costs the cost-sensitive learner trains on). Stored in the settings.
   */
  readonly classWeights?: ClassWeights;
}

export interface TrainedL2sTagger {
  readonly model: L2sModel;
  readonly training: SearchTrainingResult;
  readonly scheme: LabelScheme;
  readonly schemeCheck: SchemeCheck;
}

/**
 * A left-to-right L2S tagger on a corpus (chang2016's sequence labelling): the CRF preset's
 * attributes hashed as features, first-order (each decision conditioned on the previous label),
 * Hamming loss; with the bridge on, the scheme's transition mask gives the allowed labels, so no
 * roll-in, roll-out or prediction ever leaves the scheme. The model records labels, preset and
 * scheme, so tagging rebuilds the same input and mask.
 */
export async function trainL2sTagger(
  corpus: Corpus,
  options: TrainL2sTaggerOptions,
): Promise<TrainedL2sTagger> {
  const preset = getPreset(options.preset);
  const scheme = options.scheme ?? corpus.scheme;
  const gold = goldLabels(corpus, "to train on", false) as string[][];
  requireSeveralLabels(corpus, gold);
  const schemeCheck = requireScheme(gold, scheme, corpus.label, corpusLocator(corpus));
  const labels = [...new Set(gold.flat())].sort();
  const ids = new Map(labels.map((l, k) => [l, k]));
  const bridge = options.bridge ?? true;
  const mask = bridge ? (decodingMask(labels, scheme) ?? null) : null;
  const examples: LabellingExample[] = corpus.sentences.map((sentence, i) => ({
    tokens: hashTokenAttributes(options.attributes?.[i] ?? sentenceAttributes(preset, sentence)),
    gold: Int32Array.from(gold[i]!, (l) => ids.get(l)!),
  }));
  const labelWeights =
    options.classWeights === undefined
      ? undefined
      : resolveClassWeights(
          options.classWeights,
          labels,
          Int32Array.from(examples.flatMap((e) => Array.from(e.gold!))),
        );
  const task = sequenceLabelling({
    labels,
    ...(mask === null ? {} : { guide: maskGuide(mask, labels.length) }),
    ...(labelWeights === undefined ? {} : { labelWeights }),
  });
  const training = await trainSearch(task, examples, {
    ...givenSearchOptions(options),
    ...(options.rollIn === undefined ? {} : { rollIn: options.rollIn }),
    // One-step costs by default: under the Hamming loss they equal the reference roll-out's (the
    // reference completes without further mistakes) at none of its T·A program runs per sentence.
    // With the bridge they differ where a deviation forbids the gold labels after it.
    rollOut: options.rollOut ?? "none",
    ...(options.learner === undefined ? {} : { learner: options.learner }),
  });
  const first = corpus.sentences[0];
  const inputColumns = first === undefined ? undefined : inputRows(first)[0]?.length;
  const model: L2sModel = {
    task: L2S_TAGGER_TASK,
    settings: {
      labels,
      preset: options.preset,
      scheme,
      bridge,
      data: corpus.label,
      format: corpus.format,
      ...(inputColumns === undefined ? {} : { inputColumns }),
      passes: options.passes ?? 1,
      rollIn: options.rollIn ?? "learned",
      rollOut: options.rollOut ?? "none",
      learner: options.learner?.kind ?? L2S_TAGGER_DEFAULT_LEARNER,
      ...(labelWeights === undefined
        ? {}
        : {
            classWeights: {
              labels: Object.fromEntries(labels.map((l, y) => [l, labelWeights[y]!])),
            },
          }),
    },
    policy: training.policy,
  };
  return { model, training, scheme, schemeCheck };
}

/**
 * The scheme mask as a guide: one tracker, prepared once per example and restarted for each of the
 * example's runs (roll-in, roll-outs).
 */
function maskGuide(
  mask: Required<TransitionMask>,
  L: number,
): (example: LabellingExample) => LabelGuide {
  const tracker = new LabelConstraintTracker();
  let last: LabellingExample | undefined;
  return (example) => {
    if (example === last) return tracker.restart();
    last = example;
    return tracker.reset({ n: example.tokens.length, L, mask });
  };
}

/** What tagging with an L2S model needs, read off its file. */
export interface L2sTagger {
  readonly labels: readonly string[];
  readonly preset: string;
  readonly scheme: LabelScheme;
  /** The scheme's mask when the model was trained with the bridge on. */
  readonly mask: Required<TransitionMask> | null;
  /** The mask as chain-score fields (its start/end restrictions as −∞), built once per tagger. */
  readonly chainMask: Pick<ChainScores, "allowed" | "start" | "end"> | null;
  readonly inputColumns: number | undefined;
  readonly scores: SequenceScores;
}

/** Reads an L2S tagger's settings, with clear errors for a model of another task or a bad file. */
export function l2sTaggerOf(model: L2sModel): L2sTagger {
  if (model.task !== L2S_TAGGER_TASK) {
    throw new LagrangeError(
      "bad-input",
      `the model is a learning-to-search ${model.task} model; expected a ${L2S_TAGGER_TASK} (tagger) model`,
    );
  }
  const { labels, preset, scheme, bridge, inputColumns } = model.settings;
  if (!Array.isArray(labels) || !labels.every((l) => typeof l === "string")) {
    throw new LagrangeError(
      "bad-input",
      "the model's settings.labels: expected a list of label names",
    );
  }
  if (typeof preset !== "string") {
    throw new LagrangeError("bad-input", "the model's settings.preset: expected a preset name");
  }
  if (typeof scheme !== "string" || !(LABEL_SCHEMES as readonly string[]).includes(scheme)) {
    throw new LagrangeError(
      "bad-input",
      `the model's settings.scheme is ${JSON.stringify(scheme)}; expected one of ${LABEL_SCHEMES.join(", ")}`,
    );
  }
  const names = labels as string[];
  if (model.policy.learners.length !== 1 || model.policy.learners[0]!.actions !== names.length) {
    throw new LagrangeError(
      "bad-input",
      `the model lists ${names.length} labels but its policy has ${model.policy.learners[0]?.actions} actions`,
    );
  }
  const mask = bridge === false ? null : (decodingMask(names, scheme as LabelScheme) ?? null);
  return {
    labels: names,
    preset,
    scheme: scheme as LabelScheme,
    mask,
    chainMask: mask === null ? null : chainMaskOf(mask),
    inputColumns: typeof inputColumns === "number" ? inputColumns : undefined,
    scores: new SequenceScores(model.policy),
  };
}

/** The chain scores of one sentence under an L2S tagger, with its scheme mask. */
export function l2sChainScores(tagger: L2sTagger, sentence: Sentence): ChainScores {
  const tokens = hashTokenAttributes(sentenceAttributes(getPreset(tagger.preset), sentence));
  const scores = tagger.scores.scores(tokens);
  return tagger.chainMask === null ? scores : { ...scores, ...tagger.chainMask };
}

/** The scheme's start/end restrictions as −∞ start/end scores: every decoder honours those. */
function chainMaskOf(
  mask: Required<TransitionMask>,
): Pick<ChainScores, "allowed" | "start" | "end"> {
  const L = mask.allowedStart.length;
  const start = new Float64Array(L);
  const end = new Float64Array(L);
  for (let y = 0; y < L; y++) {
    if (mask.allowedStart[y] === 0) start[y] = Number.NEGATIVE_INFINITY;
    if (mask.allowedEnd[y] === 0) end[y] = Number.NEGATIVE_INFINITY;
  }
  return { allowed: mask.allowed, start, end };
}

/**
 * Tags sentences with an L2S model through the registry: `greedy` (the default) is the policy's
 * own left-to-right prediction; any chain decoder can decode the model's scores instead.
 */
export function tagWithL2s(
  tagger: L2sTagger,
  sentences: readonly Sentence[],
  registry: DecoderRegistry,
  decoderName: string = DEFAULT_DECODERS.l2s,
): string[][] {
  const decoder = registry.create(decoderName);
  return sentences.map((sentence) => {
    const decoding = decoder.decode({ scores: l2sChainScores(tagger, sentence) });
    return Array.from(decoding.labels, (y) => tagger.labels[y]!);
  });
}
