import type { TrainingProgress } from "@lagrange/chain-crf";
import type { DecoderRegistry } from "@lagrange/core";
import type { MineRulesOptions, RuleCostPolicy, RuleFamily } from "@lagrange/ilp";
import type { DecoderTiming } from "@lagrange/recipes";
import type { TwoPhaseData } from "./data.js";
import type { FieldPrf, Significance, TimeDistribution, TokenScores } from "./metrics.js";

/** τ values tried on held-out data (largest first: ties go to the labelling closest to Viterbi). */
export const DEFAULT_TAU_GRID: readonly number[] = [1, 0.5, 0.1, 0.01, 0.001, 1e-4];
/** Multipliers of the rule costs tried as Soft-DD penalties (smallest first, for ties). */
export const DEFAULT_PENALTY_SCALES: readonly number[] = [1, 3, 10, 30, 100];

/** The experiment's defaults (`--quick` lowers the first, the bootstrap and the timing runs). */
export const TWO_PHASE_DEFAULTS = {
  crfIterations: 60,
  threads: 2,
  timeLimitMs: 1000,
  bootstrapSamples: 10_000,
  seed: 1,
  timingRuns: 3,
} as const;

export interface TwoPhaseExperimentOptions {
  /** L-BFGS iterations of every CRF (default 60). */
  readonly crfIterations?: number;
  /** Threads for CRF training (default 2). */
  readonly threads?: number;
  /** Where trained models are cached; absent: always train. */
  readonly cacheDir?: string;
  readonly tauGrid?: readonly number[];
  readonly penaltyScales?: readonly number[];
  /** Per-sentence time limit of the ILP decoders, ms (default 1000). */
  readonly timeLimitMs?: number;
  /** Rule miner thresholds and cost policy (defaults: the miner's own). */
  readonly mining?: Pick<
    MineRulesOptions,
    "minSupport" | "minConfidence" | "minLift" | "cost" | "delimiters" | "includeOutside"
  >;
  /** Rule families (default all five). */
  readonly families?: readonly RuleFamily[];
  /**
   * The segment kinds rules may name: `top-level` (default; every kind of a flat label set, the
   * top-level fields of a hierarchical one) or `all` (nested kinds too: on UMass 1,970 rules
   * instead of 43, mostly presence-precedence rows over every label inside a field, which makes
   * decoding take about a second per citation).
   */
  readonly ruleKeys?: "top-level" | "all";
  /** Paired bootstrap samples (default 10 000). */
  readonly bootstrapSamples?: number;
  /** Seed of the bootstrap (default 1). */
  readonly seed?: number;
  /** Timed runs of the timing harness (default 3). */
  readonly timingRuns?: number;
  readonly registry?: DecoderRegistry;
  readonly onStatus?: (message: string) => void;
  // biome-ignore lint/suspicious/noConfusingVoidType: a progress callback returns nothing
  readonly onTrainingProgress?: (progress: TrainingProgress) => void | boolean;
  readonly signal?: AbortSignal;
}

/** One decoder configuration: Viterbi, the two-phase ILP over some rule families, or Soft-DD. */
export interface SystemSpec {
  readonly name: string;
  readonly decoder: "viterbi" | "two-phase" | "soft-dd";
  /** The rule families it decodes under ([] for Viterbi). */
  readonly families: readonly RuleFamily[];
}

/** A system's held-out runs over its parameter grid (τ, or the Soft-DD penalty scale). */
export interface Selection {
  readonly system: string;
  readonly parameter: "tau" | "scale";
  readonly grid: readonly {
    readonly value: number;
    readonly accuracy: number;
    readonly f1: number;
    readonly changed: number;
    readonly timeLimitHits: number;
  }[];
  /** The value of highest held-out token accuracy (the first of the grid on ties). */
  readonly chosen: number;
  /** Why there was nothing to choose (no mined rule of its families). */
  readonly note?: string;
}

/** The ILP decoder's own statistics on the reported split. */
export interface IlpFigures {
  /** Sentences whose Viterbi labelling breaks a rule, so that HiGHS was called. */
  readonly called: number;
  readonly timeLimitHits: number;
  /** Sentences the decoder found infeasible (they keep Viterbi's labels). */
  readonly infeasible: number;
  /** Per-sentence decoder time (`solveMs`) over the sentences HiGHS was called for. */
  readonly calledTime: TimeDistribution;
  /** The same over every sentence. */
  readonly allTime: TimeDistribution;
  /** Mean columns of the ILPs solved. */
  readonly meanColumns: number;
  /**
   * Σ rule-violation cost (each broken rule instance pays its rule's cost once, the two-phase
   * objective) over the sentences HiGHS was called for: of Viterbi's labelling and of the output.
   */
  readonly violationCost: { readonly viterbi: number; readonly output: number };
}

/** One system's figures on the reported split. */
export interface SystemResult extends SystemSpec {
  /** Rule templates it decodes under. */
  readonly rules: number;
  /** τ (two-phase) or the penalty scale (Soft-DD); null for Viterbi. */
  readonly parameter: { readonly name: "tau" | "scale"; readonly value: number } | null;
  readonly tokens: TokenScores;
  readonly fields: FieldPrf;
  /** Paired bootstrap against Viterbi (null for Viterbi itself). */
  readonly significance: { readonly accuracy: Significance; readonly f1: Significance } | null;
  /** Sentences whose labels differ from Viterbi's. */
  readonly changed: number;
  /**
   * Decoding time (scores → labels) of the evaluation pass, ms: the first pass of a fresh tagger,
   * so it includes building each sentence length's constraints once (the timing harness is warm).
   */
  readonly decodingMs: number;
  readonly ilp: IlpFigures | null;
  /** Soft-DD: % certified and mean iterations. */
  readonly softDd: { readonly certified: number; readonly meanIterations: number } | null;
}

/** A mined rule in words, with its counts over the training data. */
export interface RuleRow {
  readonly rule: string;
  readonly family: string;
  readonly support: number;
  readonly violations: number;
  readonly confidence: number;
  readonly cost: number;
}

export interface ModelFigures {
  readonly trainedOn: number;
  readonly cached: boolean;
  readonly seconds: number;
  readonly iterations: number | null;
  readonly features: number;
}

export interface TwoPhaseDatasetResult {
  readonly id: TwoPhaseData["id"];
  readonly title: string;
  readonly protocol: string;
  readonly generated: boolean;
  readonly preset: string;
  readonly sizes: {
    readonly train: number;
    readonly tuneTrain: number;
    readonly heldOut: number;
    readonly test: number;
    readonly testTokens: number;
  };
  readonly labels: number;
  readonly models: { readonly tuning: ModelFigures; readonly final: ModelFigures };
  readonly rules: {
    readonly candidates: number;
    readonly mined: number;
    readonly perFamily: Readonly<Record<string, number>>;
    readonly cost: RuleCostPolicy;
    readonly minSupport: number;
    readonly minConfidence: number;
    readonly delimiters: readonly string[];
    /** The segment kinds rules may name (see {@link TwoPhaseExperimentOptions.ruleKeys}). */
    readonly keys: readonly string[];
    /** Whether rules may also name `O`. */
    readonly includeOutside: boolean;
    /** The most important rules (the miner's order: cost, then support). */
    readonly top: readonly RuleRow[];
  };
  readonly selection: readonly Selection[];
  readonly systems: readonly SystemResult[];
  /** The timing harness: Viterbi, two-phase (all rules), Soft-DD (all rules); warm medians. */
  readonly timing: readonly DecoderTiming[];
  /** Soft-DD's decoding time over the two-phase ILP's (all rules), from the timing harness. */
  readonly softDdOverIlp: number;
}
