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

const BYTE_UNITS: Readonly<Record<string, number>> = {
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
