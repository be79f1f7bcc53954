/**
 * Document constraints learned so that they never hurt (constraint-templates' `document` family:
 * the same capitalised string, and an acronym and its long form, share a type across a document).
 * Penalties are learned anzaroot2014's way, by the averaged perceptron with Soft-DD inference, on
 * JACKKNIFED chain scores of the training documents: on its own training data a CRF makes almost
 * no errors for a rule to fix. One fold is kept out of the penalty learning; a type's templates,
 * and the family, are kept only when document-at-a-time Soft-DD with them beats Viterbi on it by a
 * chunk F1 gain whose 95 % paired-bootstrap interval (over documents) is above 0.
 */
import { type CrfModel, crfChainSlaves } from "@lagrange/chain-crf";
import {
  type ConstraintsFileEntry,
  candidateTemplates,
  type DocumentGrouping,
  SegmentIndex,
  serializeConstraintsFile,
} from "@lagrange/constraint-templates";
import { type DecoderRegistry, type JsonValue, LagrangeError } from "@lagrange/core";
import { concatenateChains } from "@lagrange/core/chain";
import type { Corpus, Sentence } from "@lagrange/datasets";
import { type EpochStats, learnPenalties, type PenaltyAlgorithm } from "@lagrange/soft-dd";
import { type ScoredSentence, scoreSentences } from "./constraint-learning.js";
import { type CheckGain, CheckJudge, type CheckUnit } from "./constraint-selection.js";
import { type FoldTrainer, forEachJackknifeFold, groupFolds } from "./general-crf.js";
import { corpusGroups } from "./general-crf-tagging.js";
import { attributesOf } from "./model-features.js";
import { modelScheme } from "./model-scheme.js";

/** Jackknife folds when none are given (the general CRF's and the NER presets' lexicons' too). */
export const DOCUMENT_JACKKNIFE_FOLDS = 4;

/** A document as penalty learning and the check see it: its sentences' chains end to end. */
export type DocumentUnit = CheckUnit & {
  readonly gold: Int32Array;
  readonly sentenceStarts: Int32Array;
};

/**
 * The documents of `groups` (sentence indices, in order) whose every sentence has gold labels the
 * model knows, each one unit: scores concatenated (core's `concatenateChains`), gold and tokens
 * flattened, sentence starts kept. `skipped` counts documents left out for want of gold.
 */
export function documentUnits(
  scored: readonly ScoredSentence[],
  groups: readonly ArrayLike<number>[],
): { readonly units: DocumentUnit[]; readonly skipped: number } {
  const units: DocumentUnit[] = [];
  let skipped = 0;
  for (const group of groups) {
    const members = Array.from(group, (k) => scored[k]!);
    if (members.length === 0) continue;
    const gold = members.map((s) => s.gold);
    if (!gold.every((g): g is Int32Array => g !== undefined)) {
      skipped++;
      continue;
    }
    const { scores, starts } = concatenateChains(members.map((s) => s.scores));
    const flat = new Int32Array(scores.n);
    gold.forEach((g, k) => {
      flat.set(g, starts[k]!);
    });
    units.push({
      n: scores.n,
      L: scores.L,
      tokens: members.flatMap((s) => s.tokens),
      scores,
      gold: flat,
      sentenceStarts: starts,
    });
  }
  return { units, skipped };
}

export type DocumentConstraintsProgress =
  /** Fold `fold` of `folds` trained and scored (the jackknife). */
  | { readonly stage: "crf"; readonly fold: number; readonly folds: number }
  | { readonly stage: "penalties"; readonly epoch: EpochStats }
  /** A set of types decoded on the check fold (`done` sets so far). */
  | { readonly stage: "check"; readonly done: number };

export interface DocumentSelectionOptions {
  /** Default `averaged-perceptron`. */
  readonly algorithm?: PenaltyAlgorithm;
  /** Passes over the learning documents (default 5). */
  readonly epochs?: number;
  /** Perceptron step (soft-dd's default 0.1). */
  readonly learningRate?: number;
  /** Resamples of the paired bootstrap (default 1000). */
  readonly bootstrapSamples?: number;
  readonly seed?: number;
  /** How the units were formed, recorded with what is kept (default `documents`). */
  readonly groups?: DocumentGrouping;
  /** Decoders `soft-dd` and `viterbi` come from here (default the standard ones). */
  readonly registry?: DecoderRegistry;
  readonly onProgress?: (progress: DocumentConstraintsProgress) => void;
  readonly signal?: AbortSignal;
}

/** What became of one entity type's document templates. */
export interface DocumentTypeOutcome {
  readonly type: string;
  /** Its templates with a learned penalty > 0. */
  readonly learned: number;
  /** Its templates kept. */
  readonly kept: number;
  /** Kept: the check gain of the kept set over the set without this type. */
  readonly gain?: CheckGain;
  /** Dropped: why, in words. */
  readonly reason?: string;
}

export interface SelectedDocumentConstraints {
  readonly index: SegmentIndex;
  /** The grouping learned with, and so the one to tag with. */
  readonly groups: DocumentGrouping;
  /** Every document template with the penalty learned for it. */
  readonly learned: readonly ConstraintsFileEntry[];
  /** The templates kept (empty when nothing helps): a constraints file's entries. */
  readonly entries: readonly ConstraintsFileEntry[];
  readonly types: readonly DocumentTypeOutcome[];
  /** The kept set against Viterbi on the check fold; undefined when nothing is kept. */
  readonly gain: CheckGain | undefined;
  /** Chunk F1 (percent) on the check fold: Viterbi, and Soft-DD with the kept set. */
  readonly checkF1: { readonly before: number; readonly after: number };
  readonly learnDocuments: number;
  readonly checkDocuments: number;
  readonly checkSentences: number;
  /** When nothing is kept: why, in one line. */
  readonly reason?: string;
  readonly history: readonly EpochStats[];
}

/**
 * Learns the document family's penalties on `learn` and keeps what pays on `check` (both
 * documents scored by CRFs that never saw them). Types are dropped weakest first while the gain
 * of the set over the set without a type has a bootstrap interval reaching 0; the set that is
 * left must beat Viterbi the same way, or nothing is kept.
 */
export async function selectDocumentConstraints(
  model: CrfModel,
  learn: readonly DocumentUnit[],
  check: readonly DocumentUnit[],
  options: DocumentSelectionOptions = {},
): Promise<SelectedDocumentConstraints> {
  const index = new SegmentIndex(model.labels.names(), modelScheme(model));
  const templates = candidateTemplates(index, { families: ["document"] });
  const { onProgress, signal } = options;
  const learned =
    templates.length === 0 || learn.length === 0
      ? { penalties: new Float64Array(templates.length), history: [] }
      : await learnPenalties(
          learn.map((d) => ({
            scores: d.scores,
            gold: d.gold,
            tokens: d.tokens,
            sentenceStarts: d.sentenceStarts,
          })),
          templates,
          {
            algorithm: options.algorithm ?? "averaged-perceptron",
            epochs: options.epochs ?? 5,
            decoder: { chainSlave: crfChainSlaves() },
            ...(options.learningRate === undefined ? {} : { learningRate: options.learningRate }),
            onEpoch: (epoch) => onProgress?.({ stage: "penalties", epoch }),
            ...(signal === undefined ? {} : { signal }),
          },
        );
  const entries: ConstraintsFileEntry[] = templates.map((template, k) => ({
    template,
    penalty: learned.penalties[k]!,
  }));
  const typeOf = (e: ConstraintsFileEntry) => {
    const spec = e.template.spec;
    return "type" in spec ? spec.type : e.template.id;
  };
  const judge = new CheckJudge(model, check, options);
  let decoded = 0;
  const gainOf = async (withSet: ConstraintsFileEntry[], without: ConstraintsFileEntry[]) => {
    const gain = await judge.gain(withSet, without, options);
    onProgress?.({ stage: "check", done: ++decoded });
    return gain;
  };
  const types: DocumentTypeOutcome[] = [];
  const allTypes = [...new Set(entries.map(typeOf))];
  let chosen = entries.filter((e) => e.penalty! > 0);
  for (const type of allTypes) {
    if (!chosen.some((e) => typeOf(e) === type)) {
      types.push({ type, learned: 0, kept: 0, reason: "its templates learned a penalty of 0" });
    }
  }
  const learnedOf = (type: string) =>
    entries.filter((e) => typeOf(e) === type && e.penalty! > 0).length;
  // Dropping a type changes the others' gains: the weakest goes first and the rest are redone.
  const gains = new Map<string, CheckGain>();
  for (let settled = false; !settled && chosen.length > 0; ) {
    settled = true;
    gains.clear();
    let weakest: { type: string; gain: CheckGain } | undefined;
    for (const type of new Set(chosen.map(typeOf))) {
      const gain = await gainOf(
        chosen,
        chosen.filter((e) => typeOf(e) !== type),
      );
      gains.set(type, gain);
      if (gain.interval[0] <= 0 && (weakest === undefined || gain.gain < weakest.gain.gain)) {
        weakest = { type, gain };
      }
    }
    if (weakest !== undefined) {
      const { type, gain } = weakest;
      types.push({
        type,
        learned: learnedOf(type),
        kept: 0,
        reason: `its check gain ${signed(gain.gain)} ${interval(gain)} is not above 0 with 95 % confidence`,
      });
      chosen = chosen.filter((e) => typeOf(e) !== type);
      settled = false;
    }
  }
  const gain = chosen.length === 0 ? undefined : await gainOf(chosen, []);
  for (const type of new Set(chosen.map(typeOf))) {
    const own = chosen.filter((e) => typeOf(e) === type).length;
    types.push({ type, learned: learnedOf(type), kept: own, gain: gains.get(type)! });
  }
  const order = new Map(allTypes.map((t, i) => [t, i]));
  types.sort((a, b) => order.get(a.type)! - order.get(b.type)!);
  const active = entries.filter((e) => e.penalty! > 0).length;
  let reason: string | undefined;
  if (chosen.length === 0) {
    reason =
      learn.length === 0
        ? "no training document with gold labels to learn from"
        : active === 0
          ? `all ${entries.length} document templates learned a penalty of 0`
          : `no type's document constraints raised held-out F1 with 95 % confidence (${types.length} types checked on ${judge.sentences} ${options.groups === "tweets" ? "tweet groups" : "documents"})`;
  } else if (gain !== undefined && gain.interval[0] <= 0) {
    reason = `the set's check gain ${signed(gain.gain)} ${interval(gain)} is not above 0 with 95 % confidence`;
    chosen = [];
  }
  const kept = new Set(chosen);
  return {
    index,
    groups: options.groups ?? "documents",
    learned: entries,
    entries: entries.filter((e) => kept.has(e)),
    types,
    gain: chosen.length === 0 ? undefined : gain,
    checkF1: {
      before: judge.viterbiF1,
      after: chosen.length === 0 ? judge.viterbiF1 : judge.viterbiF1 + gain!.gain,
    },
    learnDocuments: learn.length,
    checkDocuments: judge.sentences,
    checkSentences: check.reduce((sum, d) => sum + d.sentenceStarts.length, 0),
    ...(reason === undefined ? {} : { reason }),
    history: learned.history,
  };
}

export interface DocumentConstraintsOptions extends DocumentSelectionOptions {
  /**
   * Trains a chain CRF on part of train with the full model's labels, as the full model was
   * trained (same TrainingSpec and features, a fold's own mined lexicons): `openTrainer`'s path.
   */
  readonly trainModel: FoldTrainer;
  /** Jackknife folds (default {@link DOCUMENT_JACKKNIFE_FOLDS}); fold 0 is the check. */
  readonly folds?: number;
}

/**
 * The grouping document constraints learn and tag with: a corpus's documents (CoNLL
 * `-DOCSTART-`, a `.docs` file) when it marks any, else the general CRF's tweet groups.
 */
export function documentGroupingOf(sentences: readonly Sentence[]): DocumentGrouping {
  return sentences.some((s) => s.document !== undefined) ? "documents" : "tweets";
}

/** The groups document constraints learn over ({@link documentGroupingOf}), with their kind. */
export function documentGroupsOf(sentences: readonly Sentence[]): {
  readonly grouping: DocumentGrouping;
  readonly groups: Int32Array[];
} {
  const grouping = documentGroupingOf(sentences);
  return { grouping, groups: corpusGroups(sentences, grouping) };
}

/**
 * The document constraints of a chain CRF `model` trained on `train`: train's groups
 * ({@link documentGroupingOf}: its documents, or without document marks the general CRF's tweet
 * groups) dealt round-robin into folds as the general CRF deals them (so a cached trainer shares
 * their CRFs), each fold scored by the CRF trained on the others, penalties learned on every fold
 * but the first, kept by the check on it. Train only: no test or dev document is read.
 */
export async function learnDocumentConstraints(
  model: CrfModel,
  train: Corpus,
  options: DocumentConstraintsOptions,
): Promise<SelectedDocumentConstraints> {
  const folds = options.folds ?? DOCUMENT_JACKKNIFE_FOLDS;
  if (!Number.isInteger(folds) || folds < 2) {
    throw new LagrangeError(
      "usage",
      `document constraints: expected an integer ≥ 2 jackknife folds, got ${folds}`,
    );
  }
  const { sentences } = train;
  const { grouping, groups } = documentGroupsOf(sentences);
  if (groups.length < folds) {
    throw new LagrangeError(
      "usage",
      `${train.label}: ${groups.length} ${grouping === "documents" ? "document(s)" : "tweet group(s)"} cannot be dealt into ${folds} jackknife folds; document constraints need more training data`,
    );
  }
  const foldOf = groupFolds(sentences.length, groups, folds);
  const scored: ScoredSentence[] = new Array(sentences.length);
  await forEachJackknifeFold(train, model, foldOf, folds, options.trainModel, {
    score: (fold, members) => {
      const part = members.map((k) => sentences[k]!);
      scoreSentences(fold, part, attributesOf(fold, part)).forEach((s, j) => {
        scored[members[j]!] = s;
      });
    },
    onFold: (fold) => options.onProgress?.({ stage: "crf", fold, folds }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  const learnGroups = groups.filter((_, g) => g % folds !== 0);
  const checkGroups = groups.filter((_, g) => g % folds === 0);
  const learn = documentUnits(scored, learnGroups).units;
  const check = documentUnits(scored, checkGroups).units;
  if (check.length === 0) {
    throw new LagrangeError(
      "bad-input",
      `${train.label}: no document of the check fold has gold labels the model knows`,
    );
  }
  return selectDocumentConstraints(model, learn, check, { ...options, groups: grouping });
}

/**
 * The constraints file of what was kept (empty when nothing was), with the grouping it was learned
 * over and its check figures; `metadata` is provenance written beside them.
 */
export function documentConstraintsFile(
  selected: SelectedDocumentConstraints,
  metadata: { readonly [key: string]: JsonValue } = {},
): string {
  return serializeConstraintsFile({
    index: selected.index,
    entries: selected.entries,
    // Documents are the default a file without the field is read with: old files stay as they were.
    ...(selected.groups === "documents" ? {} : { groups: selected.groups }),
    metadata: {
      ...metadata,
      learnedOn: "jackknifed train",
      checkDocuments: selected.checkDocuments,
      checkF1Before: round(selected.checkF1.before),
      checkF1After: round(selected.checkF1.after),
      ...(selected.gain === undefined
        ? {}
        : { checkGainInterval: selected.gain.interval.map(round) }),
    },
  });
}

/** The decoder a model with recorded document constraints is meant for. */
export const DOCUMENT_CONSTRAINTS_DECODER = "soft-dd";

/**
 * `model` with the kept constraints recorded (a constraints file's JSON, feature `constraints`)
 * and decoder soft-dd, so that tagging uses them when the user names none; unchanged when
 * nothing was kept. `metadata` is provenance written into the recorded file.
 */
export function withDocumentConstraints(
  model: CrfModel,
  selected: SelectedDocumentConstraints,
  metadata: { readonly [key: string]: JsonValue } = {},
): CrfModel {
  if (selected.entries.length === 0 || selected.gain === undefined) return model;
  return model.withSettings({
    learnedConstraints: JSON.parse(documentConstraintsFile(selected, metadata)) as JsonValue,
    decoder: DOCUMENT_CONSTRAINTS_DECODER,
  });
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}

/** The outcome in one line: what was kept and its held-out gain, or why nothing was. */
export function documentConstraintsLine(selected: SelectedDocumentConstraints): string {
  const where = `${selected.checkDocuments} held-out training ${selected.groups === "documents" ? "documents" : "tweet groups"}`;
  if (selected.gain === undefined) {
    return `document constraints: none kept (${selected.reason ?? "nothing raised held-out F1"}; ${where})`;
  }
  const kept = selected.types.filter((t) => t.kept > 0).map((t) => t.type);
  return `document constraints: kept ${selected.entries.length} for ${kept.join(", ")}, held-out F1 ${selected.checkF1.before.toFixed(2)} → ${selected.checkF1.after.toFixed(2)} (${signed(selected.gain.gain)} ${interval(selected.gain)} on ${where})`;
}

function signed(x: number): string {
  return `${x >= 0 ? "+" : ""}${x.toFixed(2)}`;
}

function interval(gain: CheckGain): string {
  return `[${gain.interval[0].toFixed(2)}, ${gain.interval[1].toFixed(2)}]`;
}
