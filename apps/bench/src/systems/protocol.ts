/** What a system child process reports back to the bench (one JSON line on stdout). */
export interface SystemReport {
  readonly system: string;
  readonly trainSeconds: number;
  readonly trainIterations?: number;
  readonly tagSeconds: number;
  readonly tagTokens: number;
  readonly tagTokensPerSecond: number;
  /** Peak resident set size of the child process (training included), in MB. */
  readonly peakRssMB: number;
  /** Predicted labels per test sentence. */
  readonly predictions: string[][];
  readonly features?: number;
}

export interface SystemJob {
  /** Registry name, e.g. `conll2000`. */
  readonly dataset: string;
  readonly trainSplit: string;
  readonly testSplit: string;
  /** Feature preset shared by both systems, e.g. `chunking`. */
  readonly preset: string;
  readonly c2: number;
  /** Cap on training sentences (quick runs); absent = all. */
  readonly maxTrainSentences?: number;
  readonly maxIterations?: number;
  readonly threads?: number;
  readonly workDir: string;
}

export function peakRssMB(): number {
  // maxRSS is in kilobytes.
  return process.resourceUsage().maxRSS / 1024;
}
