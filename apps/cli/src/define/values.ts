/**
 * What the command declarations (define/*.ts) show in `--help`: choices, defaults and option
 * parsers. This module is loaded by every run, `--help` included, so it imports no workspace
 * package (those load only when a command runs): the packages' own lists and defaults are copied
 * here, and values.test.ts checks each copy against its package.
 */
import { InvalidArgumentError } from "commander";
import { parseInteger, parseNumber } from "../options.js";

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
} as const;

/** `--punctuation`: score punctuation words, leave them out, or print both rows. */
export const DEPS_PUNCTUATION = ["include", "exclude", "both"] as const;
export type DepsPunctuation = (typeof DEPS_PUNCTUATION)[number];

/** The decoder an L2S tagger is tagged with when `--decoder` is not given: its own policy's. */
export const L2S_DEFAULT_DECODER = "greedy";

export function parseTau(value: string): number {
  const tau = Number(value);
  if (!(tau > 0 && tau <= 1)) {
    throw new InvalidArgumentError(`expected a number in (0, 1], got "${value}"`);
  }
  return tau;
}

export const DEFAULT_TIME_LIMIT_SECONDS = 10;

/** `--learner`: CRF training (every model kind of `lagrange train`), or learning to search. */
export const LEARNERS = ["crf", "l2s"] as const;
export type Learner = (typeof LEARNERS)[number];

/** `--task` of `--learner l2s`. */
export const L2S_TASKS = ["pos", "ner", "parser"] as const;
export type L2sTask = (typeof L2S_TASKS)[number];

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
