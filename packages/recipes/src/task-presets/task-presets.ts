/**
 * Task presets: one name per task (`ner-en`, `ner-es`, `ner-nl`, `ner-tweets`, `pos-en`) that
 * bundles what won on data held out from train: a base feature preset over the data's column
 * layout, word clusters learned from raw text (Brown clustering of unlabelled text in the task's
 * language, never a test split), gazetteers, lexicons mined from the training labels (jackknifed),
 * the trainer's stopping rule (a tuning fold cut from train, never dev), and the decoder the model
 * is meant for.
 */
import type { ClusterResource, FeatureSpec, LexiconResource } from "@lagrange/chain-crf";
import { LagrangeError } from "@lagrange/core";
import type { LabelScheme, SchemeName, Sentence } from "@lagrange/datasets";
import { jackknifeFolds, mineEntityLexicons } from "./mined-lexicons.js";

export type ClusterLanguage = "en" | "es" | "nl";

/** Where a language's clusters come from: raw-text corpora and unsealed training splits. */
export interface ClusterRecipe {
  readonly language: ClusterLanguage;
  /** `openRawText` names: raw corpora and `dataset:split` word columns (never a test split). */
  readonly corpora: readonly string[];
  readonly clusters: number;
  /** Words seen fewer times are left out of the clustering (wcluster's --min-occur). */
  readonly minCount: number;
}

export const CLUSTER_RECIPES: Readonly<Record<ClusterLanguage, ClusterRecipe>> = {
  en: {
    language: "en",
    corpora: [
      "brown",
      "abc",
      "masc",
      "movie-reviews",
      "state-union",
      "conll2003:train",
      "conll2000:train",
      "ud-en-ewt:train",
      "wnut16:train",
    ],
    clusters: 500,
    minCount: 10,
  },
  es: {
    language: "es",
    corpora: ["cess-esp", "conll2002-es:train"],
    clusters: 500,
    minCount: 3,
  },
  nl: {
    language: "nl",
    corpora: ["alpino", "conll2002-nl:train"],
    clusters: 500,
    minCount: 3,
  },
};

export interface TaskPreset {
  readonly name: string;
  readonly description: string;
  /**
   * The registry split (`dataset:split`) the preset's parts were chosen on (its held-out cut) and
   * that `lagrange models build` trains the task's model on, as `train --data` reads it.
   */
  readonly data: string;
  /** The chain-crf feature preset the spec builds on (read over the data's column layout). */
  readonly base: string;
  readonly clusters: ClusterLanguage | null;
  /**
   * Further Brown clusterings of the same text with these numbers of clusters (IXA pipes used
   * several granularities), each its own cluster attributes; used where `on.wideClusters`.
   */
  readonly wideClusters: readonly number[];
  /**
   * k-means clusterings of PPMI-SVD word vectors of the same text, at these k (IXA pipes used
   * word2vec and Clark clusters beside Brown's), each its own cluster attributes; added with
   * `on.embeddings`. [] for none.
   */
  readonly embeddings: readonly number[];
  /** Path-prefix lengths of the cluster attributes. */
  readonly prefixes: readonly number[];
  /** Registry lexicons (`openLexicon` names). */
  readonly gazetteers: readonly string[];
  /**
   * Registry lexicons added to `gazetteers` where `on.largeGazetteers`: the lists built from npm
   * open-data packages, at the scale the references' gazetteers had.
   */
  readonly largeGazetteers: readonly string[];
  /** Mine entity lexicons from the training labels (jackknifed over `folds`). */
  readonly mined: boolean;
  readonly folds: number;
  /**
   * The L-BFGS stopping rule where `heldOut` does not apply (the user named a cap, a delta or dev
   * data; two-stage training): at most this many iterations, or CRFsuite's delta over 10.
   */
  readonly maxIterations: number;
  readonly delta: number;
  /**
   * The preset's own stopping rule for L-BFGS and OWL-QN (see {@link HeldOutRule}); null: the
   * loss rule above alone.
   */
  readonly heldOut: HeldOutRule | null;
  readonly c2?: number;
  /** L1 coefficient (elastic net with c2; OWL-QN optimises it). Unset: L2 alone. */
  readonly c1?: number;
  /** The decoder `lagrange tag` uses for the model when none is given. */
  readonly decoder: string;
  /**
   * Learn document constraints (the same name gets the same type across a document) after the
   * chain, on jackknifed train, and record them with decoder soft-dd when a held-out fold gains.
   */
  readonly documentConstraints: boolean;
  /**
   * The chunk scheme the chain can be trained under, whatever the data's (Ratinov & Roth 2009
   * measured BILOU/BIOES above BIO), where `on.internalScheme`: gold labels are converted in, the
   * model records the data's scheme as its output scheme, and tagging converts back, so users read
   * and write their own. Data already in BIOES or BILOU (the same scheme up to names) is kept.
   * `train --internal-scheme keep|BIOES` (TrainingSpec `internalScheme`) chooses otherwise.
   */
  readonly internalScheme?: SchemeName;
  /**
   * The optional parts the preset trains with unless told otherwise (`use` of a FeatureRequest,
   * `--internal-scheme` …): each chosen on the held-out cut of the preset's training data by
   * `pnpm bench accuracy` (issue 40), never on dev or test.
   */
  readonly on: TaskParts;
}

/** A task preset's optional parts, each on or off. */
export interface TaskParts {
  /** Train under `internalScheme` (BIOES) rather than the data's scheme. */
  readonly internalScheme: boolean;
  /** Add `largeGazetteers` to `gazetteers`. */
  readonly largeGazetteers: boolean;
  /**
   * Context aggregation (Ratinov & Roth 2009): each capitalised word sees the contexts and the
   * casing of its other occurrences in the document (chain-crf's `documentContextColumns`).
   */
  readonly context: boolean;
  /** Add the further Brown clusterings `wideClusters`. */
  readonly wideClusters: boolean;
  /** Add the k-means clusterings of PPMI-SVD vectors `embeddings`. */
  readonly embeddings: boolean;
}

/**
 * Stopping on a held-out curve cut from the training data itself (never a dev or test split):
 * whole documents (`jackknifeFolds`' fold 0 of `folds`) are set aside as a tuning fold, with
 * lexicons mined from the rest alone so that it reads as unseen data; the model trains on the rest,
 * is scored on the tuning fold every `every` iterations, stops after `patience` scores without
 * improvement (chunk F1, token accuracy for plain tags). With `refit` the model is then trained
 * again on all the data for the best count (a second training, for a tenth more data: on
 * CoNLL-2002 nl the model kept at the best iteration lost 0.7 dev F1 to the capped one), else it
 * is the best iteration's, trained without the tuning fold. `maxIterations` is a safety net only.
 */
export interface HeldOutRule {
  readonly refit: boolean;
  readonly folds: number;
  readonly every: number;
  readonly patience: number;
  readonly maxIterations: number;
  /** Fewer documents (blocks of 20 sentences without marks) than this: the loss rule instead. */
  readonly minUnits: number;
}

export const HELD_OUT_RULE: HeldOutRule = {
  refit: true,
  folds: 10,
  every: 10,
  patience: 3,
  maxIterations: 1000,
  minUnits: 20,
};

const HELD_OUT_TEXT =
  "; stops when F1 on a tuning tenth of train (whole documents) stops improving, then trains on all of it for that long";

const NAME_LISTS = ["names-female", "names-male"];
const PLACE_LISTS = [
  "countries",
  "nationalities",
  "uscities",
  "usstates",
  "caprovinces",
  "mexstates",
];

/**
 * Lists built from npm packages (see `LEXICONS` of @lagrange/datasets for sources and licences):
 * parts of people's names (39k), towns of ≥ 15,000 people (23k), country names in four
 * languages, capitals.
 */
const LARGE_GAZETTEERS: readonly string[] = [
  "people-names",
  "cities-15k",
  "countries-all",
  "capitals",
];

/** The granularities of the embedding clusters: coarse to fine. */
const EMBEDDING_SIZES: readonly number[] = [100, 300, 1000];

const NER = {
  base: "ner",
  prefixes: [4, 6, 10, 20],
  gazetteers: [...NAME_LISTS, ...PLACE_LISTS],
  largeGazetteers: LARGE_GAZETTEERS,
  wideClusters: [1000],
  embeddings: EMBEDDING_SIZES,
  mined: true,
  folds: 4,
  maxIterations: 300,
  delta: 1e-3,
  heldOut: HELD_OUT_RULE,
  decoder: "viterbi",
  documentConstraints: true,
  internalScheme: "BIOES",
} as const;

/** Off: a part whose worth the held-out cut has not shown for the preset's data. */
const NONE: TaskParts = {
  internalScheme: false,
  largeGazetteers: false,
  context: false,
  wideClusters: false,
  embeddings: false,
};

export const TASK_PRESETS: readonly TaskPreset[] = [
  {
    name: "ner-en",
    data: "conll2003:train",
    description: `English NER (CoNLL-2003 layout word, pos, chunk): ner.py's features, Brown clusters (C = 500 and 1,000) and PPMI-SVD k-means clusters of English raw text, first names, place and npm open-data gazetteers, jackknifed lexicons mined from the training labels, document context, trained under BIOES${HELD_OUT_TEXT}`,
    ...NER,
    clusters: "en",
    // bench accuracy, CoNLL-2003 held-out fold, ≤ 100 iterations: each part gained (+0.22,
    // +0.44, +1.14, +0.35, +0.14 points).
    on: {
      internalScheme: true,
      largeGazetteers: true,
      context: true,
      wideClusters: true,
      embeddings: true,
    },
  },
  {
    name: "ner-es",
    data: "conll2002-es:train",
    description: `Spanish NER (CoNLL-2002 layout word, pos): ner.py's features on the columns present, Brown and PPMI-SVD k-means clusters of Spanish text (CESS-ESP and the training words), gazetteers, jackknifed mined lexicons, document context, trained under BIOES${HELD_OUT_TEXT}`,
    ...NER,
    clusters: "es",
    // CoNLL-2002 es held-out fold: BIOES +0.30, context +0.97, PPMI-SVD clusters +0.61 (the preset
    // uncapped 82.59 → 82.86); the large gazetteers −0.11, Brown C = 1000 −0.09.
    on: { ...NONE, internalScheme: true, context: true, embeddings: true },
  },
  {
    name: "ner-nl",
    data: "conll2002-nl:train",
    description: `Dutch NER (CoNLL-2002 layout word, pos): ner.py's features on the columns present, Brown clusters of Dutch text (Alpino and the training words), gazetteers with the npm open-data ones, jackknifed mined lexicons, document context, trained under BIOES${HELD_OUT_TEXT}`,
    ...NER,
    clusters: "nl",
    // CoNLL-2002 nl held-out fold: BIOES +0.36, large gazetteers +0.24, context +0.47; Brown
    // C = 1000 −0.40, then PPMI-SVD clusters +0.34 (the two together −0.05); the preset with the
    // PPMI-SVD clusters alone, uncapped, 84.43 against 84.98 without.
    on: { ...NONE, internalScheme: true, largeGazetteers: true, context: true },
  },
  {
    name: "ner-tweets",
    data: "wnut16:train",
    description: `Tweet NER (words only, WNUT-16/17): ner.py's word features, Brown and PPMI-SVD k-means clusters of English text, gazetteers with the npm open-data ones, jackknifed mined lexicons, trained under BIOES${HELD_OUT_TEXT}`,
    ...NER,
    clusters: "en",
    // WNUT-16 held-out fold: BIOES +0.17, large gazetteers +1.38, PPMI-SVD clusters +0.84;
    // context and Brown C = 1000 +0.00.
    on: { ...NONE, internalScheme: true, largeGazetteers: true, embeddings: true },
  },
  {
    name: "pos-en",
    data: "ud-en-ewt:train",
    description:
      "English POS tagging (UD UPOS): the pos preset plus Brown and PPMI-SVD k-means clusters of English text; stops when token accuracy on a tuning tenth of train stops improving, then trains on all of it for that long",
    base: "pos",
    clusters: "en",
    prefixes: [2, 4, 6, 8, 12, 16, 20],
    gazetteers: [],
    largeGazetteers: [],
    wideClusters: [],
    embeddings: EMBEDDING_SIZES,
    mined: false,
    folds: 1,
    maxIterations: 300,
    delta: 1e-3,
    heldOut: HELD_OUT_RULE,
    decoder: "viterbi",
    documentConstraints: false,
    // EWT held-out fold: the PPMI-SVD clusters +0.08 points of token accuracy.
    on: { ...NONE, embeddings: true },
  },
];

/** Where a task preset's resources are found or built (`loadTaskResources`), and its hooks. */
export interface ResourceOptions {
  /** A folder that holds `clusters-<language>.paths` and `<lexicon>.txt` files to use instead. */
  readonly resourcesDir?: string;
  readonly signal?: AbortSignal;
  /** Stages that take time (building clusters): what, done, total. */
  readonly onProgress?: (stage: string, done: number, total: number) => void;
}

/** The resources a task preset needs, loaded (see `loadTaskResources`). */
export interface TaskResources {
  /** Each Brown clustering of the language's text: its number of clusters, words and paths. */
  readonly clusters: readonly {
    readonly size: number;
    readonly words: readonly string[];
    readonly paths: readonly string[];
  }[];
  /** Each k-means clustering of the language's word vectors: its k, words and cluster ids. */
  readonly embeddings?: readonly {
    readonly size: number;
    readonly words: readonly string[];
    readonly clusters: Int32Array;
  }[];
  readonly gazetteers: readonly LexiconResource[];
}

/** A task preset made concrete for one training corpus. */
export interface ResolvedTaskPreset {
  readonly preset: TaskPreset;
  /** The features the model records (mined lexicons from every training sentence). */
  readonly features: FeatureSpec;
  /** Per-fold features for training (mined lexicons without the sentence's own fold). */
  readonly jackknife?: { readonly fold: Int32Array; readonly specs: readonly FeatureSpec[] };
}

/**
 * The feature spec of `preset` on a training corpus whose input columns are named `columns`:
 * resources embedded, mined lexicons from `sentences` (with their jackknife).
 */
export function resolveTaskPreset(
  preset: TaskPreset,
  resources: TaskResources,
  training: {
    readonly sentences: readonly Sentence[];
    readonly columns: readonly string[];
    readonly scheme: LabelScheme;
  },
): ResolvedTaskPreset {
  const clusters: ClusterResource[] = [
    ...resources.clusters.map((c, k) => ({
      // The recipe's clustering keeps its old name, so models trained before read the same.
      name: k === 0 ? `brown-${preset.clusters}` : `brown-${preset.clusters}-c${c.size}`,
      words: c.words,
      paths: c.paths,
      prefixes: preset.prefixes,
      window: 1,
    })),
    // A k-means cluster is no tree path: its id is the "path", one prefix as long as the
    // longest id, so each word gets one attribute per granularity (`kmeans-en-k300[0]p3=17`).
    ...(resources.embeddings ?? []).map((e) => ({
      name: `kmeans-${preset.clusters}-k${e.size}`,
      words: e.words,
      paths: Array.from(e.clusters, String),
      prefixes: [String(e.size - 1).length],
      window: 1,
    })),
  ];
  const spec = (mined: readonly LexiconResource[]): FeatureSpec => ({
    base: preset.base,
    columns: training.columns,
    ...(clusters.length === 0 ? {} : { clusters }),
    lexicons: [...resources.gazetteers, ...mined],
    // The context columns come right after the data's own input columns.
    ...(preset.on.context ? { context: { first: training.columns.length } } : {}),
  });
  if (!preset.mined) return { preset, features: spec([]) };
  const scheme = training.scheme;
  if (scheme === "hierarchical-BIO" || scheme === "none") {
    throw new LagrangeError(
      "usage",
      `task preset ${preset.name} mines entity lexicons from flat chunk labels (IOB1, IOB2, BIOES, …); the data's scheme is ${scheme}`,
    );
  }
  const labelled = training.sentences.map((s) => ({ tokens: s.tokens, labels: s.labels ?? [] }));
  const fold = jackknifeFolds(training.sentences, preset.folds);
  const specs = Array.from({ length: preset.folds }, (_, k) =>
    spec(mineEntityLexicons(labelled, scheme, (i) => fold[i] !== k)),
  );
  return {
    preset,
    features: spec(mineEntityLexicons(labelled, scheme)),
    jackknife: { fold, specs },
  };
}
