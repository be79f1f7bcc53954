import type { BaseLearnerOptions, RollIn, RollOut, SearchProgress } from "@lagrange/l2s";

/** What every L2S trainer (the tagger, the parser) takes of the search; the defaults are the task's. */
export interface L2sSearchOptions {
  /** Passes (an integer), or a subsampling rate in (0, 1). Default 1. */
  readonly passes?: number;
  /** Default `learned`; `reference` for the parser's static oracle (it only knows the gold path). */
  readonly rollIn?: RollIn;
  /**
   * Default `none`: the task's own one-step costs — Hamming for the tagger, the dynamic oracle's
   * exact costs-to-go for the parser.
   */
  readonly rollOut?: RollOut;
  readonly interpolation?: number;
  readonly seed?: number;
  /**
   * The base learner and its settings (hash bits, learning rate). Default: the tagger's
   * `L2S_TAGGER_DEFAULT_LEARNER`, the parser's `L2S_PARSER_DEFAULT_LEARNER`.
   */
  readonly learner?: BaseLearnerOptions;
  // biome-ignore lint/suspicious/noConfusingVoidType: callbacks that return nothing are the usual case
  readonly onProgress?: (progress: SearchProgress) => boolean | void;
  readonly signal?: AbortSignal;
}

/** The search options that have no task default, as `trainSearch` takes them (those given). */
export function givenSearchOptions(options: L2sSearchOptions) {
  return {
    ...(options.passes === undefined ? {} : { passes: options.passes }),
    ...(options.interpolation === undefined ? {} : { interpolation: options.interpolation }),
    ...(options.seed === undefined ? {} : { seed: options.seed }),
    ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  };
}
