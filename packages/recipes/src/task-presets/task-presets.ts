/**
 * Task presets: one name per task (`ner-en`, `ner-es`, `ner-nl`, `ner-tweets`, `pos-en`) that
 * bundles what won on data held out from train: a base feature preset over the data's column
 * layout, word clusters learned from raw text (Brown clustering of unlabelled text in the task's
 * language, never a test split), gazetteers, lexicons mined from the training labels (jackknifed),
 * the trainer's stopping rule, and the decoder the model is meant for.
 */
import type { FeatureSpec, LexiconResource } from "@lagrange/chain-crf";
import { LagrangeError } from "@lagrange/core";
import type { LabelScheme, Sentence } from "@lagrange/datasets";
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
  /** The chain-crf feature preset the spec builds on (read over the data's column layout). */
  readonly base: string;
  readonly clusters: ClusterLanguage | null;
  /** Path-prefix lengths of the cluster attributes. */
  readonly prefixes: readonly number[];
  /** Registry lexicons (`openLexicon` names). */
  readonly gazetteers: readonly string[];
  /** Mine entity lexicons from the training labels (jackknifed over `folds`). */
  readonly mined: boolean;
  readonly folds: number;
  /** The L-BFGS stopping rule: at most this many iterations, or CRFsuite's delta over 10. */
  readonly maxIterations: number;
  readonly delta: number;
  readonly c2?: number;
  /** The decoder `lagrange tag` uses for the model when none is given. */
  readonly decoder: string;
  /**
   * Learn document constraints (the same name gets the same type across a document) after the
   * chain, on jackknifed train, and record them with decoder soft-dd when a held-out fold gains.
   */
  readonly documentConstraints: boolean;
}

const NAME_LISTS = ["names-female", "names-male"];
const PLACE_LISTS = [
  "countries",
  "nationalities",
  "uscities",
  "usstates",
  "caprovinces",
  "mexstates",
];

const NER = {
  base: "ner",
  prefixes: [4, 6, 10, 20],
  gazetteers: [...NAME_LISTS, ...PLACE_LISTS],
  mined: true,
  folds: 4,
  maxIterations: 300,
  delta: 1e-3,
  decoder: "viterbi",
  documentConstraints: true,
} as const;

export const TASK_PRESETS: readonly TaskPreset[] = [
  {
    name: "ner-en",
    description:
      "English NER (CoNLL-2003 layout word, pos, chunk): ner.py's features, Brown clusters of English raw text, first names and place gazetteers, jackknifed lexicons mined from the training labels",
    ...NER,
    clusters: "en",
  },
  {
    name: "ner-es",
    description:
      "Spanish NER (CoNLL-2002 layout word, pos): ner.py's features on the columns present, Brown clusters of Spanish text (CESS-ESP and the training words), gazetteers, jackknifed mined lexicons",
    ...NER,
    clusters: "es",
  },
  {
    name: "ner-nl",
    description:
      "Dutch NER (CoNLL-2002 layout word, pos): ner.py's features on the columns present, Brown clusters of Dutch text (Alpino and the training words), gazetteers, jackknifed mined lexicons",
    ...NER,
    clusters: "nl",
  },
  {
    name: "ner-tweets",
    description:
      "Tweet NER (words only, WNUT-16/17): ner.py's word features, Brown clusters of English text, gazetteers, jackknifed mined lexicons",
    ...NER,
    clusters: "en",
  },
  {
    name: "pos-en",
    description:
      "English POS tagging (UD UPOS): the pos preset plus Brown clusters of English text",
    base: "pos",
    clusters: "en",
    prefixes: [2, 4, 6, 8, 12, 16, 20],
    gazetteers: [],
    mined: false,
    folds: 1,
    maxIterations: 300,
    delta: 1e-3,
    decoder: "viterbi",
    documentConstraints: false,
  },
];

/** The resources a task preset needs, loaded (see `loadTaskResources`). */
export interface TaskResources {
  readonly clusters: {
    readonly words: readonly string[];
    readonly paths: readonly string[];
  } | null;
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
  const spec = (mined: readonly LexiconResource[]): FeatureSpec => ({
    base: preset.base,
    columns: training.columns,
    ...(resources.clusters === null
      ? {}
      : {
          clusters: [
            {
              name: `brown-${preset.clusters}`,
              words: resources.clusters.words,
              paths: resources.clusters.paths,
              prefixes: preset.prefixes,
              window: 1,
            },
          ],
        }),
    lexicons: [...resources.gazetteers, ...mined],
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
