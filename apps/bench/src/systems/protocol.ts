import type { LabelScheme, MalformedCitationPolicy } from "@lagrange/datasets";

/**
 * How a model decodes the evaluation split: `plain` as trained with no scheme (CoNLL, and every
 * CRFsuite run), `mask` under the scheme's decoding mask (Lagrange's production configuration),
 * `no mask` the same trained model without it.
 */
export type Decoding = "plain" | "mask" | "no mask";

/** One decoding of the evaluation split. */
export interface DecodingReport {
  readonly decoding: Decoding;
  /** Seconds and tokens over the timed passes (repeated until the minimum time is reached). */
  readonly tagSeconds: number;
  readonly tagTokens: number;
  /** Decoding throughput: attributes already extracted (CRFsuite: attribute strings). */
  readonly tagTokensPerSecond: number;
  /** Predicted labels per evaluation sentence (the first timed pass). */
  readonly predictions: string[][];
}

/** What a system child process reports back to the bench (a JSON file). */
export interface SystemReport {
  readonly system: string;
  readonly trainSeconds: number;
  readonly trainIterations?: number;
  readonly trainSequences: number;
  /** The feature preset's extraction over the evaluation split (Lagrange only). */
  readonly extractTokensPerSecond?: number;
  readonly decodings: readonly DecodingReport[];
  /** Peak resident set size of the child process (training included), in MB. */
  readonly peakRssMB: number;
  readonly features?: number;
  readonly labels?: number;
}

export interface SystemJob {
  /** Registry name, e.g. `conll2000`. */
  readonly dataset: string;
  readonly trainSplit: string;
  /** The split tagged and scored (never a sealed test split where a dev split is the measure). */
  readonly testSplit: string;
  /** Feature preset shared by both systems, e.g. `chunking`. */
  readonly preset: string;
  readonly c2: number;
  /** Cap on training sentences (quick runs); absent = all. */
  readonly maxTrainSentences?: number;
  readonly maxIterations?: number;
  readonly threads?: number;
  /** UMass citations: what the reader does with malformed lines. */
  readonly malformed?: MalformedCitationPolicy;
  /**
   * Lagrange: the label scheme whose decoding mask the trained model carries (trainCrf's
   * `constraintsFor`, as the citation recipe trains; the training objective stays CRFsuite's).
   */
  readonly scheme?: LabelScheme;
  /** Lagrange: the decodings to time and report (default `plain`; `mask`/`no mask` need a scheme). */
  readonly decodings?: readonly Decoding[];
  /** Each timed tagging (or extraction) repeats its passes until this many seconds have passed. */
  readonly minTagSeconds?: number;
  readonly workDir: string;
}

export function peakRssMB(): number {
  // maxRSS is in kilobytes.
  return process.resourceUsage().maxRSS / 1024;
}

/** A warm-up pass over the first sentences, then timed passes until `minSeconds` have passed. */
export function timedPasses(
  count: number,
  minSeconds: number,
  pass: (limit: number) => number,
): { seconds: number; tokens: number } {
  pass(Math.min(count, 100));
  let seconds = 0;
  let tokens = 0;
  do {
    const started = performance.now();
    tokens += pass(count);
    seconds += (performance.now() - started) / 1000;
  } while (seconds < minSeconds && tokens > 0);
  return { seconds, tokens };
}
