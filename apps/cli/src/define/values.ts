/**
 * What the command declarations (define/*.ts) show in `--help`: choices, defaults and option
 * parsers. This module is loaded by every run, `--help` included, so it imports no workspace
 * package (those load only when a command runs): the packages' own lists and defaults are copied
 * here, and values.test.ts checks each copy against its package.
 */
import { InvalidArgumentError } from "commander";
import { parseNumber } from "../options.js";

/** Copies of the packages' choices and defaults (values.test.ts compares them). */
export const PACKAGE_DEFAULTS = {
  /** @lagrange/soft-dd PENALTY_ALGORITHMS */
  penaltyAlgorithms: ["averaged-perceptron", "perceptron", "ssvm"],
  /** @lagrange/constraint-templates RULE_FAMILIES */
  ruleFamilies: ["adjacency", "precedence", "state-change", "begin-end", "presence-precedence"],
  /** @lagrange/ilp RULE_COST_POLICIES */
  ruleCostPolicies: ["paper", "violation-rate", "log-odds"],
  /** @lagrange/ilp RULE_MINING_DEFAULTS (those `rules mine` shows) */
  ruleMining: { minSupport: 5, minConfidence: 0.9, minLift: 1, smoothing: 1, cost: "paper" },
  /** @lagrange/bcrf BCRF_DECODING_DEFAULTS.iterations */
  bcrfDecodingIterations: 5,
  /** @lagrange/bcrf MEAN_FIELD_DEFAULTS.iterations */
  meanFieldIterations: 10,
  /** @lagrange/bcrf BCRF_DEFAULT_ITERATIONS */
  bcrfTrainingIterations: 10,
  /** @lagrange/bcrf TRAINING_OBJECTIVES */
  trainingObjectives: ["crf", "bcrf", "mean-field"],
  /** @lagrange/chain-crf TRAINING_ALGORITHMS */
  trainingAlgorithms: ["lbfgs", "owlqn", "ap", "sgd"],
  /** @lagrange/datasets SCHEME_NAMES (the flat chunk schemes) */
  chunkSchemes: ["IOB1", "IOB2", "IOE1", "IOE2", "BIOES", "BILOU"],
  /** @lagrange/recipes GROUPING_KINDS */
  groupingKinds: ["tweets", "documents"],
  /** @lagrange/recipes GENERAL_CRF_DEFAULTS */
  generalCrf: { folds: 4, epochs: 10, decoder: "two-slave" },
  /** @lagrange/mincut TWEET_GROUP_DEFAULTS */
  tweetGroups: { minOverlap: 5, maxGroupSize: 50 },
  /** @lagrange/l2s BASE_LEARNERS */
  baseLearners: ["csoaa", "perceptron"],
  /** @lagrange/l2s ROLL_INS */
  rollIns: ["reference", "learned", "mixture"],
  /** @lagrange/l2s ROLL_OUTS */
  rollOuts: ["reference", "learned", "mixture", "none"],
  /** @lagrange/ilp ILP_OPTION_RANGES */
  ilp: { maxTimeLimitMs: 2 ** 31 - 1, minTau: 1e-300 },
  /** @lagrange/ilp DEFAULT_TIME_LIMIT_SECONDS, MIN_TIME_LIMIT_SECONDS, DEFAULT_TAU */
  ilpDefaults: { timeLimitSeconds: 10, minTimeLimitSeconds: 0.001, tau: 0.1 },
  /** @lagrange/core MAX_ITERATIONS */
  maxIterations: 2 ** 31 - 1,
  /** @lagrange/recipes presetNames(): chain-crf's feature presets, then the task presets */
  presets: {
    base: ["chunking", "ner", "ner-words", "citation", "pos"],
    task: ["ner-en", "ner-es", "ner-nl", "ner-tweets", "pos-en"],
  },
  /** @lagrange/recipes STANDARD_DECODERS, by name (`lagrange tag` lists them from the registry) */
  decoders: [
    "viterbi",
    "soft-dd",
    "hard-dd",
    "exact",
    "two-phase",
    "two-slave",
    "naive-dd",
    "bcrf",
    "mean-field",
    "greedy",
  ],
  /** The STANDARD_DECODERS that decode a general CRF's higher-order patterns (`accepts.patterns`) */
  patternDecoders: ["exact", "two-slave", "naive-dd"],
  /** @lagrange/recipes DEFAULT_DECODERS["chain-crf"] */
  defaultDecoder: "viterbi",
} as const;

/** `--punctuation`: score punctuation words, leave them out, or print both rows. */
export const DEPS_PUNCTUATION = ["include", "exclude", "both"] as const;

/** The decoder an L2S tagger is tagged with when `--decoder` is not given: its own policy's. */
export const L2S_DEFAULT_DECODER = "greedy";

/**
 * `--tau`: 1e-300 ≤ τ ≤ 1. The bound s(y) ≥ Z* + log τ is on log-scores: τ = 1e-300 already allows
 * labellings 690 below the best; a smaller τ (a subnormal such as 1e-320 keeps 3 digits) only hides
 * that the bound is off.
 */
export function parseTau(value: string): number {
  const tau = Number(value);
  const least = PACKAGE_DEFAULTS.ilp.minTau;
  if (value.trim() === "" || !(tau >= least && tau <= 1)) {
    throw new InvalidArgumentError(`expected a number in [${least}, 1], got "${value}"`);
  }
  return tau;
}

export const DEFAULT_TIME_LIMIT_SECONDS = PACKAGE_DEFAULTS.ilpDefaults.timeLimitSeconds;
/** Limits under a millisecond are not kept: the ILP decoders' clock works in milliseconds. */
export const MIN_TIME_LIMIT_SECONDS = PACKAGE_DEFAULTS.ilpDefaults.minTimeLimitSeconds;
/** The ILP decoders' longest limit, 2^31 − 1 ms, in whole seconds (about 24.8 days). */
export const MAX_TIME_LIMIT_SECONDS = Math.floor(PACKAGE_DEFAULTS.ilp.maxTimeLimitMs / 1000);

/** `--time-limit`: seconds, 0.001 … 2147483 (a finite number: HiGHS refuses an infinite limit). */
export function parseTimeLimit(value: string): number {
  const seconds = Number(value);
  if (
    value.trim() === "" ||
    !(seconds >= MIN_TIME_LIMIT_SECONDS && seconds <= MAX_TIME_LIMIT_SECONDS)
  ) {
    throw new InvalidArgumentError(
      `expected seconds from ${MIN_TIME_LIMIT_SECONDS} to ${MAX_TIME_LIMIT_SECONDS} (about 24.8 days), got "${value}"`,
    );
  }
  return seconds;
}

/**
 * `tag --max-iterations`, `--bcrf-iterations`: an integer from 1 to 2^31 − 1, the most the
 * decoders take (a cap of 1e308 is an integer too, and a run that never ends in practice).
 */
export function parseIterations(value: string): number {
  const x = Number(value);
  const most = PACKAGE_DEFAULTS.maxIterations;
  if (value.trim() === "" || !Number.isInteger(x) || x < 1 || x > most) {
    throw new InvalidArgumentError(
      `expected an integer from 1 to ${most} (2^31 − 1), got "${value}"`,
    );
  }
  return x;
}

/**
 * `--delimiters`: `auto`; tokens separated by spaces (`"( ) -- ..."`); or, without a space, one
 * delimiter per character (`",;:()"`).
 */
export function parseDelimiters(spec: string): readonly string[] | "auto" {
  const text = spec.trim();
  if (text === "auto") return "auto";
  const tokens = /\s/.test(text) ? text.split(/\s+/) : Array.from(text);
  const unique = [...new Set(tokens.filter((t) => t !== ""))];
  if (unique.length === 0) {
    throw new InvalidArgumentError(`expected delimiter tokens or "auto", got "${spec}"`);
  }
  return unique;
}

export function parseFraction(value: string): number {
  const x = parseNumber(value);
  if (x < 0 || x > 1) throw new InvalidArgumentError(`expected a number in 0…1, got "${value}"`);
  return x;
}

/**
 * `tag --nbest`, `eval --nbest`: the most labellings a list holds. A list's memory and time grow
 * with k (list Viterbi keeps k scores per token and label; the partition up to k·n restricted
 * subproblems), and past ten thousand the tail differs from the best in a token or two at a
 * probability no one reads; `tag` also checks its estimate for the data before decoding.
 */
export const MAX_NBEST = 10_000;

export function parseNbest(value: string): number {
  const k = Number(value);
  if (value.trim() === "" || !Number.isInteger(k) || k < 1 || k > MAX_NBEST) {
    throw new InvalidArgumentError(`expected an integer from 1 to ${MAX_NBEST}, got "${value}"`);
  }
  return k;
}
