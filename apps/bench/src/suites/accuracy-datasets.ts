import { LagrangeError } from "@lagrange/core";
import type { Corpus, LabelScheme } from "@lagrange/datasets";
import { type ClusterLanguage, type GroupingKind, jackknifeFolds } from "@lagrange/recipes";

/**
 * The rows, in order: each chain row adds to the one before (issue 40's: the task preset's chunk
 * scheme inside, the large gazetteers, document context, further Brown clusterings, k-means
 * clusters of PPMI-SVD word vectors); the three non-local rows each build on the last chain row
 * that ran.
 */
export const ACCURACY_ROWS = [
  "baseline",
  "clusters",
  "lexicons",
  "bioes",
  "gazetteers",
  "context",
  "wide-clusters",
  "embeddings",
  "preset",
  "elastic-net",
  "words",
  "two-stage",
  "general",
  "document",
] as const;
export type AccuracyRowName = (typeof ACCURACY_ROWS)[number];

/** A dataset of the bench: where its splits are and which task it is. */
export interface AccuracyDataset {
  readonly name: string;
  /** `openCorpus` specs: a registry `name:split` or a file. */
  readonly train: string;
  /** Null where the dataset has no dev split (CoNLL-2000); never a test split. */
  readonly dev: string | null;
  /** A task preset (`ner-en`, …) or a feature preset (`chunking`). */
  readonly task: string;
  /** With a feature preset: the language whose Brown clusters the clusters row adds. */
  readonly clusters?: ClusterLanguage;
  /** How the general CRF groups sentences; null: no general-CRF row (not a span task). */
  readonly groups: GroupingKind | null;
}

export const ACCURACY_DATASETS: readonly AccuracyDataset[] = [
  {
    name: "conll2003",
    train: "conll2003:train",
    dev: "conll2003:dev",
    task: "ner-en",
    groups: "documents",
  },
  {
    name: "conll2002-es",
    train: "conll2002-es:train",
    dev: "conll2002-es:dev",
    task: "ner-es",
    groups: "documents",
  },
  {
    name: "conll2002-nl",
    train: "conll2002-nl:train",
    dev: "conll2002-nl:dev",
    task: "ner-nl",
    groups: "documents",
  },
  {
    name: "wnut16",
    train: "wnut16:train",
    dev: "wnut16:dev",
    task: "ner-tweets",
    groups: "tweets",
  },
  {
    name: "wnut17",
    train: "wnut17:train",
    dev: "wnut17:dev",
    task: "ner-tweets",
    groups: "tweets",
  },
  {
    name: "ud-en-ewt",
    train: "ud-en-ewt:train",
    dev: "ud-en-ewt:dev",
    task: "pos-en",
    groups: null,
  },
  {
    name: "conll2000",
    train: "conll2000:train",
    dev: null,
    task: "chunking",
    clusters: "en",
    groups: null,
  },
];

/** The held-out cut: fold {@link HELD_OUT_FOLD} of {@link HELD_OUT_FOLDS} (recipes' jackknifeFolds). */
export const HELD_OUT_FOLDS = 10;
export const HELD_OUT_FOLD = 9;

/** The elastic-net row's default L1 coefficient (CRFsuite's convention: c1·‖w‖₁ over the summed loss). */
export const ELASTIC_NET_C1 = 0.1;

/** `--quick`: training sentences and L-BFGS iterations. */
export const QUICK = { trainSentences: 2000, maxIterations: 30 } as const;

export interface AccuracyOptions {
  /** Names of {@link ACCURACY_DATASETS}, or datasets given in full (files: the tests). */
  readonly datasets?: readonly (string | AccuracyDataset)[];
  readonly rows?: readonly AccuracyRowName[];
  /** Default: the task preset's (CoNLL-2000: 200); quick 30. */
  readonly maxIterations?: number;
  /** The elastic-net row's L1 coefficient, with the preset's c2 (default {@link ELASTIC_NET_C1}). */
  readonly c1?: number;
  /** Training threads (default 2). */
  readonly threads?: number;
  readonly quick?: boolean;
  /** Keep the first n training sentences (quick: 2,000), before the held-out cut. */
  readonly maxTrainSentences?: number;
  /** A folder with `clusters-<language>.paths` and `<lexicon>.txt` files (trainingFeatures'). */
  readonly resourcesDir?: string;
  /** Bootstrap resamples (default 1,000) and seed (default 1). */
  readonly bootstrapSamples?: number;
  readonly seed?: number;
  readonly signal?: AbortSignal;
  readonly onStatus?: (message: string) => void;
}

/** A score with its percentile-bootstrap interval, in percent. */
export interface ScoredSplit {
  readonly split: string;
  readonly sentences: number;
  /** Chunk F1 (conlleval under the scheme) or token accuracy, %. */
  readonly score: number;
  readonly interval: readonly [number, number];
  /** Score minus that of the row this one builds on (`builtOn`), in points; null for the first. */
  readonly delta: number | null;
}

export interface AccuracyRow {
  readonly row: AccuracyRowName;
  /** The row whose model this one adds to (deltas are against it); null for the first row. */
  readonly builtOn: AccuracyRowName | null;
  /** What the features were (the request given to trainingFeatures), for the report. */
  readonly features: string;
  readonly heldOut: ScoredSplit;
  readonly dev: ScoredSplit | null;
  /** Feature resolution (clusters, lexicon mining) + training, seconds. */
  readonly trainSeconds: number;
  readonly iterations: number;
  readonly stopReason: string;
  readonly numFeatures: number;
  /** The model file's size (an L1 model keeps only its non-zero weights). */
  readonly modelBytes: number;
  /** The general CRF: perceptron epochs' mistakes, certified share, its held-out choice. */
  readonly general?: {
    readonly groups: GroupingKind;
    readonly mistakes: readonly number[];
    readonly certified: number;
    readonly linkedGroups: number;
    /** What training chose on its own held-out cut (recipes' ConsistencySelection), if it did. */
    readonly selection?: {
      readonly epochs: number;
      readonly scale: number;
      readonly chainScore: number;
      readonly generalScore: number;
    };
  };
  /**
   * Document constraints over the last chain row (recipes' learnDocumentConstraints, as the NER
   * task presets learn them): what was kept, its gain on the recipe's own check fold of the cut,
   * and on dev the documents certified and the tagging time against the chain's Viterbi.
   */
  readonly document?: {
    /** What a "document" was: the data's documents, or tweet groups where it marks none. */
    readonly groups: GroupingKind;
    /** Entity types whose templates were kept (none: the model is the chain). */
    readonly kept: readonly string[];
    readonly constraints: number;
    /** On the recipe's check fold (one of its jackknife folds of the cut), points. */
    readonly checkGain: {
      readonly gain: number;
      readonly interval: readonly [number, number];
    } | null;
    readonly checkDocuments: number;
    readonly reason?: string;
    /** Each dropped type and why (its check gain and interval, or a penalty of 0). */
    readonly dropped: readonly string[];
    /**
     * Dev (the held-out fold without dev): decodings, a document each where constraints were
     * kept (else a sentence each: the chain), and the share certified.
     */
    readonly documents: number;
    readonly certified: number;
    /** Tagging seconds of the split with the constraints, and with the chain alone (Viterbi). */
    readonly tagSeconds: number;
    readonly viterbiSeconds: number;
  };
  /** Two-stage: first-stage folds and the training tokens with a vote of each kind. */
  readonly twoStage?: {
    readonly folds: number;
    readonly firstStageSeconds: number;
    readonly voted: { readonly dtok: number; readonly dent: number; readonly ctok: number };
  };
}

export interface PairedComparison {
  readonly from: AccuracyRowName;
  readonly to: AccuracyRowName;
  readonly split: string;
  readonly delta: number;
  /** 95 % interval of the resampled deltas, points. */
  readonly interval: readonly [number, number];
  readonly pValue: number;
  readonly samples: number;
}

export interface AccuracyDatasetResult {
  readonly dataset: string;
  readonly task: string;
  readonly metric: "chunk-f1" | "accuracy";
  readonly scheme: LabelScheme;
  readonly trainSentences: number;
  readonly heldOutSentences: number;
  readonly devSentences: number | null;
  /** The iteration cap; null: each task preset's own stopping rule. */
  readonly maxIterations: number | null;
  readonly rows: readonly AccuracyRow[];
  /** Rows asked for but not run, and why. */
  readonly skipped: readonly { readonly row: string; readonly why: string }[];
  /** baseline → lexicons and each non-local row against its base: paired bootstrap over sentences. */
  readonly comparisons: readonly PairedComparison[];
  readonly notes: readonly string[];
}

export interface AccuracyResult {
  readonly suite: "accuracy";
  readonly node: string;
  readonly settings: {
    readonly quick: boolean;
    readonly threads: number;
    readonly maxIterations: number | null;
    readonly maxTrainSentences: number | null;
    readonly bootstrapSamples: number;
    readonly seed: number;
    /** The elastic-net row's L1 coefficient. */
    readonly c1: number;
    readonly heldOut: string;
  };
  readonly datasets: readonly AccuracyDatasetResult[];
  readonly unavailable: readonly { readonly dataset: string; readonly reason: string }[];
}

/** The train cut and held-out fold of a training corpus. */
export function heldOutCut(train: Corpus): { cut: Corpus; heldOut: Corpus } {
  const fold = jackknifeFolds(train.sentences, HELD_OUT_FOLDS);
  const held = fold.filter((f) => f === HELD_OUT_FOLD).length;
  if (held === 0 || held === train.sentences.length) {
    throw new LagrangeError(
      "usage",
      `${train.label}: the held-out fold (${HELD_OUT_FOLD + 1} of ${HELD_OUT_FOLDS}, whole documents or blocks of 20 sentences) is ${held === 0 ? "empty" : "everything"} in ${train.sentences.length} sentences; train on more sentences (--max-train)`,
    );
  }
  return {
    cut: { ...train, sentences: train.sentences.filter((_, i) => fold[i] !== HELD_OUT_FOLD) },
    heldOut: {
      ...train,
      label: `${train.label} (held-out fold)`,
      sentences: train.sentences.filter((_, i) => fold[i] === HELD_OUT_FOLD),
    },
  };
}
