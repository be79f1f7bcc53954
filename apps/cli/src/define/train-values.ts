/**
 * What `lagrange train`'s declaration (define/train.ts) shows in `--help`: its choices, defaults
 * and option parsers. Loaded by every run, `--help` included, so it imports no workspace package
 * (see values.ts).
 */
import { InvalidArgumentError } from "commander";
import { parseInteger } from "../options.js";
import { PACKAGE_DEFAULTS } from "./values.js";

/** `--learner`: CRF training (every model kind of `lagrange train`), or learning to search. */
export const LEARNERS = ["crf", "l2s"] as const;
export type Learner = (typeof LEARNERS)[number];

/** `--task` of `--learner l2s`: recipes' `L2S_TASKS`, which checks the spec. */
export const L2S_TASKS = ["pos", "ner", "parser"] as const;

/** `--passes`: an integer ≥ 1, or a rate in (0, 1) (one pass that learns from that share of decisions). */
export function parsePasses(value: string): number {
  const x = Number(value);
  if (value.trim() === "" || !(Number.isSafeInteger(x) ? x >= 1 : x > 0 && x < 1)) {
    throw new InvalidArgumentError(
      `expected an integer ≥ 1 (passes) or a rate in (0, 1) (one subsampled pass), got "${value}"`,
    );
  }
  return x;
}

/** `--bits`: the hashed weight table has 2^bits slots per action. */
export function parseBits(value: string): number {
  const x = parseInteger(value);
  if (x > 30) throw new InvalidArgumentError(`expected an integer in 1…30, got "${value}"`);
  return x;
}

/** `--seed`: any integer ≥ 0. */
export function parseSeed(value: string): number {
  const x = Number(value);
  if (value.trim() === "" || !Number.isSafeInteger(x) || x < 0) {
    throw new InvalidArgumentError(`expected an integer ≥ 0, got "${value}"`);
  }
  return x;
}

/** `--model`: a linear-chain CRF, or qian-liu2014's general CRF (chain + consistency factors). */
export const MODEL_KINDS = ["chain", "general"] as const;
export type ModelKind = (typeof MODEL_KINDS)[number];

/** The general CRF's defaults (the recipes' own), shown by `--help` and in messages. */
export const GENERAL_DEFAULTS = {
  folds: PACKAGE_DEFAULTS.generalCrf.folds,
  epochs: PACKAGE_DEFAULTS.generalCrf.epochs,
  trainDecoder: PACKAGE_DEFAULTS.generalCrf.decoder,
  maxGroup: PACKAGE_DEFAULTS.tweetGroups.maxGroupSize,
  minOverlap: PACKAGE_DEFAULTS.tweetGroups.minOverlap,
} as const;

/** A copy of core's BYTE_SIZE_UNITS (values.test.ts compares them): the units a size is typed in. */
export const BYTE_UNITS: Readonly<Record<string, number>> = {
  "": 1,
  b: 1,
  k: 1e3,
  kb: 1e3,
  m: 1e6,
  mb: 1e6,
  g: 1e9,
  gb: 1e9,
  t: 1e12,
  tb: 1e12,
  kib: 2 ** 10,
  mib: 2 ** 20,
  gib: 2 ** 30,
  tib: 2 ** 40,
};

/**
 * `--max-memory <size>`: a byte count with an optional unit (`8G`, `512MB`, `1.5GiB`, `2e9`;
 * k/M/G/T are powers of 1000, KiB/MiB/GiB/TiB of 1024), or `none` for no bound (null).
 */
export function parseByteSize(value: string): number | null {
  const text = value.trim();
  if (/^(none|unlimited)$/i.test(text)) return null;
  const match = /^(\d+(?:\.\d+)?(?:e\d+)?)\s*([a-z]*)$/i.exec(text);
  const scale = match === null ? undefined : BYTE_UNITS[match[2]!.toLowerCase()];
  const bytes = match === null || scale === undefined ? Number.NaN : Number(match[1]) * scale;
  if (!(Number.isFinite(bytes) && bytes >= 1)) {
    throw new InvalidArgumentError(
      `expected a size such as 8G, 512M or 1.5GiB (or none), got "${value}"`,
    );
  }
  return Math.floor(bytes);
}

/**
 * What decides whether a train flag is read: the learner, the CRF's algorithm, objective, order
 * and model kind, the general CRF's grouping, the L2S task, and whether `--two-stage`, `--dev` and
 * a task preset are there.
 */
export interface TrainPath {
  readonly learner: string;
  readonly algorithm: string;
  readonly objective: string;
  readonly order: string;
  readonly model: string;
  /** `--groups`, or `none`. */
  readonly groups: string;
  /** `--task` of `--learner l2s`, or `none`. */
  readonly task: string;
  readonly twoStage: boolean;
  readonly dev: boolean;
  readonly taskPreset: boolean;
}

/** One place a flag is read: every dimension it names has one of the values listed (or is set). */
export type TrainCondition = {
  readonly [D in keyof TrainPath]?: TrainPath[D] extends boolean ? true : readonly string[];
};

/**
 * Where a flag is read: any one of `where` (none: on every path). Given anywhere else it is
 * refused (exit 2), naming the flag and the path, unless `elsewhere` is `warn`: the flags whose
 * being ignored has always been, and is documented as, a warning.
 */
export interface TrainFlagScope {
  readonly where: readonly TrainCondition[];
  readonly elsewhere?: "warn";
}

const EVERYWHERE: TrainFlagScope = { where: [] };
const CRF: TrainFlagScope = { where: [{ learner: ["crf"] }] };
const L2S: TrainFlagScope = { where: [{ learner: ["l2s"] }] };
const QUASI_NEWTON = ["lbfgs", "owlqn"];

/**
 * Every flag of `lagrange train`, in the order it declares them, with the paths that read it: the
 * one table the checks (commands/train-check.ts) and `--help`'s grouping read.
 * A test enumerates the declared options against it, so a new flag cannot be left out. Checks of
 * values (--c2 0 with sgd, --order 2 with ap) and of what a path cannot do at all stay with
 * their paths.
 */
export const TRAIN_FLAG_SCOPES: Readonly<Record<string, TrainFlagScope>> = {
  "--data": EVERYWHERE,
  "--format": EVERYWHERE,
  "--learner": EVERYWHERE,
  "--preset": { where: [{ learner: ["crf"] }, { learner: ["l2s"], task: ["pos", "ner"] }] },
  "--template": CRF,
  "--columns": CRF,
  "--clusters": CRF,
  "--dense-columns": CRF,
  "--lexicon": CRF,
  "--resources": { where: [{ learner: ["crf"], taskPreset: true }], elsewhere: "warn" },
  "--document-context": { where: [{ learner: ["crf"], taskPreset: true }] },
  "--large-gazetteers": { where: [{ learner: ["crf"], taskPreset: true }] },
  "--wide-clusters": { where: [{ learner: ["crf"], taskPreset: true }] },
  "--embeddings": { where: [{ learner: ["crf"], taskPreset: true }] },
  "--algorithm": CRF,
  "--c1": { where: [{ learner: ["crf"], algorithm: QUASI_NEWTON }], elsewhere: "warn" },
  "--c2": {
    where: [{ learner: ["crf"], algorithm: [...QUASI_NEWTON, "sgd"] }],
    elsewhere: "warn",
  },
  "--max-iterations": CRF,
  "--delta": { where: [{ learner: ["crf"], algorithm: QUASI_NEWTON }], elsewhere: "warn" },
  "--threads": {
    where: [{ learner: ["crf"], algorithm: QUASI_NEWTON, order: ["1"] }],
    elsewhere: "warn",
  },
  "--min-freq": CRF,
  "--max-memory": EVERYWHERE,
  "--dev": EVERYWHERE,
  "--limit": EVERYWHERE,
  "--sample": EVERYWHERE,
  "--dev-limit": { where: [{ dev: true }] },
  "--dev-sample": { where: [{ dev: true }] },
  "--patience": { where: [{ learner: ["crf"], dev: true }], elsewhere: "warn" },
  "--objective": CRF,
  "--bcrf-iterations": {
    where: [{ learner: ["crf"], objective: ["bcrf", "mean-field"] }],
    elsewhere: "warn",
  },
  "--partial": CRF,
  "--constrained-training": CRF,
  "--order": CRF,
  "--trigrams": { where: [{ learner: ["crf"], order: ["2"] }], elsewhere: "warn" },
  "--class-weight": EVERYWHERE,
  "--scheme": { where: [{ learner: ["crf"] }, { learner: ["l2s"], task: ["pos", "ner"] }] },
  "--malformed": EVERYWHERE,
  "--model": CRF,
  "--groups": { where: [{ learner: ["crf"], model: ["general"] }] },
  "--two-stage": CRF,
  "--words-only": { where: [{ learner: ["crf"] }, { learner: ["l2s"], task: ["pos", "ner"] }] },
  "--document-constraints": CRF,
  "--internal-scheme": CRF,
  "--folds": {
    where: [
      { learner: ["crf"], model: ["general"] },
      { learner: ["crf"], twoStage: true },
    ],
    elsewhere: "warn",
  },
  "--epochs": { where: [{ learner: ["crf"], model: ["general"] }], elsewhere: "warn" },
  "--train-decoder": { where: [{ learner: ["crf"], model: ["general"] }], elsewhere: "warn" },
  "--max-group": {
    where: [{ learner: ["crf"], model: ["general"], groups: ["tweets"] }],
    elsewhere: "warn",
  },
  "--min-overlap": {
    where: [{ learner: ["crf"], model: ["general"], groups: ["tweets"] }],
    elsewhere: "warn",
  },
  "--init": CRF,
  "--allow-no-progress": CRF,
  "--task": L2S,
  "--passes": L2S,
  "--roll-in": L2S,
  "--roll-out": L2S,
  "--base-learner": L2S,
  "--bits": L2S,
  "--learning-rate": L2S,
  "--seed": EVERYWHERE,
  "--no-bridge": { where: [{ learner: ["l2s"], task: ["ner"] }], elsewhere: "warn" },
  "--oracle": { where: [{ learner: ["l2s"], task: ["parser"] }] },
  "--unlabelled": { where: [{ learner: ["l2s"], task: ["parser"] }] },
  "--tag-field": { where: [{ learner: ["l2s"], task: ["parser"] }] },
  "--out": EVERYWHERE,
  "--force": EVERYWHERE,
};

/** The flags read by one learner only, in declaration order (`--algorithm` …, `--task` …). */
export function learnerOnlyFlags(learner: Learner): string[] {
  return Object.entries(TRAIN_FLAG_SCOPES)
    .filter(
      ([, scope]) =>
        scope.where.length > 0 &&
        scope.where.every((c) => c.learner?.length === 1 && c.learner[0] === learner),
    )
    .map(([flag]) => flag);
}

/** What every learner of `lagrange train` reads of the data options. */
export interface TrainingDataOptions {
  readonly data: string;
  readonly format?: string;
  readonly dev?: string;
  readonly malformed?: "error" | "repair" | "skip";
  /** `--words-only`: the data read through its first input column alone (a model for text). */
  readonly wordsOnly?: boolean;
  /** `--limit`, `--sample`: train on the first n sentences, or on n drawn with `seed`. */
  readonly limit?: number;
  readonly sample?: number;
  /** `--dev-limit`, `--dev-sample`: the same for the held-out data. */
  readonly devLimit?: number;
  readonly devSample?: number;
  readonly seed?: number;
}

/** What `lagrange train --learner l2s` reads of its options. */
export interface L2sTrainOptions extends TrainingDataOptions {
  readonly preset?: string;
  readonly scheme?: string;
  readonly task?: string;
  /** Passes (an integer ≥ 1), or a rate in (0, 1): one pass learning from that share of decisions. */
  readonly passes?: number;
  readonly rollIn?: string;
  readonly rollOut?: string;
  /** `csoaa` (VW's cost-sensitive one-against-all regression) or `perceptron` (averaged). */
  readonly baseLearner?: string;
  /** log2 of the hashed weight table (VW's -b). */
  readonly bits?: number;
  /** `--max-memory`: bytes training may take (null: no bound; absent: the default bound). */
  readonly maxMemory?: number | null;
  readonly learningRate?: number;
  readonly seed?: number;
  /** `--no-bridge` sets false: the NER tagger may leave its scheme. */
  readonly bridge?: boolean;
  readonly oracle?: string;
  /** Parser: heads only (no relations). */
  readonly unlabelled?: boolean;
  readonly tagField?: string;
  /** `--class-weight`: LABEL=w or balanced[:POWER] (both learners; not the parser). */
  readonly classWeight?: readonly string[];
  readonly out: string;
}

/** What `lagrange train` reads of its options (declared in ./train.ts). */
export interface TrainOptions extends Omit<L2sTrainOptions, "preset"> {
  /** `crf` (default: the chain or general CRF) or `l2s` (learning to search, `--task` required). */
  readonly learner?: Learner;
  /** Required by the CRF learner (or `--template`); an L2S tagger's default comes from `--task`. */
  readonly preset?: string;
  /** A CRF++ template file instead of a preset. */
  readonly template?: string;
  /** Continued training: the model file to start from (Lagrange's or CRFsuite's). */
  readonly init?: string;
  /** Names of the data's input columns. */
  readonly columns?: readonly string[];
  /** Liang paths files whose clusters become features. */
  readonly clusters?: readonly string[];
  /** `NAME=FILE` lexicons. */
  readonly lexicon?: readonly string[];
  /** Dense columns (0-based input column indices): each cell a real-valued attribute. */
  readonly denseColumns?: readonly number[];
  /** A folder of resources for task presets. */
  readonly resources?: string;
  readonly algorithm: string;
  readonly c1?: number;
  readonly c2?: number;
  readonly maxIterations?: number;
  /** L-BFGS / OWL-QN: CRFsuite's relative loss decrease over 10 iterations. */
  readonly delta?: number;
  readonly threads?: number;
  readonly minFreq?: number;
  readonly patience?: number;
  readonly constrainedTraining?: boolean;
  /** `1` (default) or `2`: label-trigram weights too, trained and decoded exactly. */
  readonly order?: string;
  /** `--order 2`: `observed` (default) or `all` trigram weights. */
  readonly trigrams?: string;
  /** `crf` (default: the CRF likelihood), `bcrf` (corro's Fenchel–Young loss) or `mean-field`. */
  readonly objective?: string;
  /** The label column holds partial annotations: `?` unknown, `{B-PER,I-PER}` a label set. */
  readonly partial?: boolean;
  /** bcrf: IBP half-steps per loss evaluation; mean-field: unrolled updates. */
  readonly bcrfIterations?: number;
  /** Write the model even when training made no progress (0 iterations, a diverged loss). */
  readonly allowNoProgress?: boolean;
  /** `chain` (default) or `general` (qian-liu2014: chain CRF + consistency weights over groups). */
  readonly model?: ModelKind;
  /** General CRF: how sentences are grouped (tweet clusters or documents). */
  readonly groups?: string;
  /** General CRF and two-stage: jackknife folds (default 4). */
  readonly folds?: number;
  /** A two-stage chain CRF (Krishnan & Manning 2006): a jackknifed first stage's votes as features. */
  readonly twoStage?: boolean;
  /** `auto` (default: a NER task preset learns them) or `off`. */
  readonly documentConstraints?: "auto" | "off";
  /** A scheme name, `keep` (the data's), or absent (the task preset's). */
  readonly internalScheme?: string;
  /** A task preset's document context (context aggregation) `on` or `off`; absent: the preset's. */
  readonly documentContext?: "on" | "off";
  /** A task preset's large gazetteers (npm open data) `on` or `off`; absent: the preset's. */
  readonly largeGazetteers?: "on" | "off";
  /** A task preset's further Brown clusterings (C = 1000) `on` or `off`; absent: the preset's. */
  readonly wideClusters?: "on" | "off";
  /** A task preset's k-means clusters of PPMI-SVD word vectors `on` or `off`; absent: the preset's. */
  readonly embeddings?: "on" | "off";
  /** General CRF: perceptron epochs (default 10). */
  readonly epochs?: number;
  /** General CRF: the decoder the perceptron decodes with (default two-slave). */
  readonly trainDecoder?: string;
  /** General CRF, tweet groups: the largest group (default 50). */
  readonly maxGroup?: number;
  /** General CRF, tweet groups: shared word types that link two tweets (default 5). */
  readonly minOverlap?: number;
}
