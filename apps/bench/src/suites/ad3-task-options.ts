import { LagrangeError } from "@lagrange/core";
import type { DualDecompositionOptions } from "@lagrange/core/dual-decomposition";
import type { DecoderTiming } from "@lagrange/recipes";

/**
 * The second section of `pnpm bench ad3`: on the project's own tasks, the master's AD3 step
 * against its subgradient step — same decoders, same models, same run (two-slave's AD3 step runs
 * over naive-dd's slaves: see mincut's twoSlaveDecoder).
 */

/** `umass`: Soft-DD on UMass citations; the others: general-CRF groups of a registry corpus. */
export const AD3_TASKS = ["umass", "wnut16", "wnut17", "conll2003"] as const;
export type Ad3TaskName = (typeof AD3_TASKS)[number];

export type DualDecompositionStep = NonNullable<DualDecompositionOptions["step"]>;

export const DECOMPOSITIONS = ["two-slave", "naive-dd"] as const;
export type Decomposition = (typeof DECOMPOSITIONS)[number];

export interface Ad3TaskOptions {
  /** Default: every task of {@link AD3_TASKS}; one that cannot be reached is listed as skipped. */
  readonly tasks?: readonly Ad3TaskName[];
  /** Decode only the first n test citations / dev sentences (a smoke run). */
  readonly limit?: number;
  /** General CRFs: train on the first n training sentences only (a smoke run). */
  readonly maxTrainSentences?: number;
  /** General CRFs: L-BFGS iterations of every chain CRF (default 100, as two-slave-ner). */
  readonly crfIterations?: number;
  /** General CRFs: jackknife folds (default 4 on tweets, 2 on CoNLL-2003 documents). */
  readonly folds?: number;
  /** General CRFs: perceptron epochs (default 10, as two-slave-ner). */
  readonly epochs?: number;
  /** General CRFs: the decoder the perceptron trains through (default `two-slave`). */
  readonly trainDecoder?: string;
  /** Iteration cap of the subgradient step (default 200: today's). */
  readonly subgradientIterations?: number;
  /** Iteration cap of the AD3 step (default 1000). */
  readonly ad3Iterations?: number;
  /** Time limit of the exact ILP per group (default 10 000 ms). */
  readonly exactTimeLimitMs?: number;
  /** Skip the exact decoders (ILP and AD3 + branch and bound) on the groups. */
  readonly noExact?: boolean;
  /**
   * Timed runs of the citation timing harness (default 5; soft-dd-citations takes 15, but a pass
   * of the AD3 step is far longer than a Viterbi pass there).
   */
  readonly timingRuns?: number;
  readonly threads?: number;
  /** Where trained models are cached (default `<repo>/.lagrange-cache/bench`). */
  readonly cacheDir?: string;
  readonly onStatus?: (message: string) => void;
  readonly signal?: AbortSignal;
}

/** The CLI flags of the tasks section, as commander parses them (`pnpm bench ad3`). */
export interface Ad3TaskFlags {
  readonly tasks?: readonly string[];
  readonly limit?: number;
  readonly maxTrain?: number;
  readonly crfIterations?: number;
  readonly folds?: number;
  readonly epochs?: number;
  readonly trainDecoder?: string;
  readonly subgradientIterations?: number;
  readonly ad3Iterations?: number;
  readonly exactLimit?: number;
  readonly skipExact?: boolean;
  readonly timingRuns?: number;
  readonly threads?: number;
}

/** The section's options from its CLI flags (absent flags: the section's defaults). */
export function ad3TaskOptionsFromFlags(f: Ad3TaskFlags): Ad3TaskOptions {
  const tasks = f.tasks?.map((name) => {
    if (!(AD3_TASKS as readonly string[]).includes(name)) {
      throw new LagrangeError(
        "usage",
        `unknown task "${name}"; expected a comma-separated list of ${AD3_TASKS.join(", ")}`,
      );
    }
    return name as Ad3TaskName;
  });
  const given = <T>(value: T | undefined, key: keyof Ad3TaskOptions) =>
    value === undefined ? {} : { [key]: value };
  return {
    ...given(tasks, "tasks"),
    ...given(f.limit, "limit"),
    ...given(f.maxTrain, "maxTrainSentences"),
    ...given(f.crfIterations, "crfIterations"),
    ...given(f.folds, "folds"),
    ...given(f.epochs, "epochs"),
    ...given(f.trainDecoder, "trainDecoder"),
    ...given(f.subgradientIterations, "subgradientIterations"),
    ...given(f.ad3Iterations, "ad3Iterations"),
    ...given(f.exactLimit, "exactTimeLimitMs"),
    ...(f.skipExact === true ? { noExact: true } : {}),
    ...given(f.timingRuns, "timingRuns"),
    ...given(f.threads, "threads"),
  };
}

/** One decode seen iteration by iteration (the master's `onIteration`, timestamped). */
export interface DecodeTrace {
  /** Per iteration: milliseconds from the start of the decode call to the end of the iteration. */
  readonly ms: readonly number[];
  /** Per iteration: the lowest dual so far. */
  readonly bestDual: readonly number[];
  /** The whole decode call, ms. */
  readonly totalMs: number;
  readonly iterations: number;
  readonly certified: boolean;
  /** The decoding's final bound (its dual, else its primal). */
  readonly finalDual: number;
  /** Counted in the rates (a group with consistency factors; every citation). */
  readonly counted: boolean;
  /** The problem's positions (tokens). */
  readonly positions: number;
}

/** One point of a curve: every decode capped at `maxIterations`, read off the traces. */
export interface TracePoint {
  readonly maxIterations: number;
  /** Decoding time of all decodes (counted or not) under the cap, seconds. */
  readonly seconds: number;
  /** Share of the counted decodes certified by the cap. */
  readonly certifiedRate: number;
  /** Mean over the counted decodes of the best dual by the cap (lower is tighter). */
  readonly meanDual: number;
}

/** One step's pass over a task's test decodes. */
export interface StepRun {
  readonly step: DualDecompositionStep;
  readonly maxIterations: number;
  /** The traced pass's decoding time, seconds (onIteration's cost included: a timestamp per iteration). */
  readonly seconds: number;
  /** Of it, the counted decodes' (the rest: decodes one slave settles at once). */
  readonly countedSeconds: number;
  /** That time over Viterbi's on the same decodes, same run. */
  readonly overViterbi: number;
  /** conlleval chunk F micro (groups) or field F1 (citations), %. */
  readonly f: number;
  readonly certifiedRate: number;
  readonly meanIterations: number;
  /**
   * Iterations per position of the counted decodes (each decode's iterations weighted by its
   * positions). With one chain slave and the subgradient step, its chain work in Viterbi passes
   * per token.
   */
  readonly iterationsPerToken: number;
  readonly meanDual: number;
  /** Decoding time of the counted decodes over their iterations, ms. */
  readonly msPerIteration: number;
  /** Counted decodes still uncertified at the end, and their mean iterations. */
  readonly uncertified: number;
  readonly uncertifiedMeanIterations: number;
  readonly curve: readonly TracePoint[];
}

export interface DecompositionResult {
  readonly decoder: Decomposition;
  readonly subgradient: StepRun;
  readonly ad3: StepRun;
  /** AD3's certified share within the time the whole subgradient pass took (its curve, read there). */
  readonly ad3CertifiedAtSubgradientTime: number;
  /** AD3's time to reach the subgradient pass's final certified share, seconds (null: never). */
  readonly ad3SecondsToSubgradientRate: number | null;
}

export interface ExactResult {
  readonly decoder: string;
  readonly seconds: number;
  readonly f: number;
  /** Counted groups solved to optimality (ILP: within its time limit; AD3: certified). */
  readonly solvedRate: number;
  /** Its time over the two-slave AD3 pass's. */
  readonly overAd3: number;
}

export interface GroupTaskResult {
  readonly kind: "groups";
  readonly id: string;
  readonly grouping: "tweets" | "documents";
  readonly sizes: {
    readonly train: number;
    readonly dev: number;
    readonly devTokens: number;
    readonly groups: number;
    readonly withFactors: number;
    readonly largestPositions: number;
  };
  readonly model: {
    readonly trainDecoder: string;
    readonly crfIterations: number;
    readonly folds: number;
    readonly epochs: number;
    readonly weights: Readonly<Record<string, number>>;
    readonly crfSeconds: number;
    readonly perceptronSeconds: number;
  };
  readonly viterbi: { readonly seconds: number; readonly f: number };
  readonly decompositions: readonly DecompositionResult[];
  readonly exact: readonly ExactResult[];
}

export interface CitationTaskResult {
  readonly kind: "citations";
  readonly id: "umass";
  readonly data: string;
  readonly generated: boolean;
  readonly testCitations: number;
  readonly constraints: number;
  readonly viterbiF1: number;
  /** Viterbi's traced pass over the same citations (the chain alone), seconds: the steps' × Viterbi. */
  readonly viterbiSeconds: number;
  readonly subgradient: StepRun;
  readonly ad3: StepRun;
  /** The timing harness (warm medians, alternating runs): Viterbi, Soft-DD subgradient, Soft-DD AD3. */
  readonly timing: readonly DecoderTiming[];
}

export type Ad3TaskEntry = CitationTaskResult | GroupTaskResult;

export interface Ad3TaskResult {
  readonly settings: {
    readonly subgradientIterations: number;
    readonly ad3Iterations: number;
    readonly limit: number | null;
    readonly exactTimeLimitMs: number;
  };
  readonly tasks: readonly Ad3TaskEntry[];
  readonly skipped: readonly { readonly id: string; readonly reason: string }[];
  readonly targets: readonly {
    readonly name: string;
    readonly value: string;
    readonly met: boolean | null;
  }[];
}
