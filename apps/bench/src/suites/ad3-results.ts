import type { Ad3TaskOptions, Ad3TaskResult } from "./ad3-task-options.js";

export const AD3_SECTIONS = ["graphs", "tasks"] as const;
export type Ad3Section = (typeof AD3_SECTIONS)[number];

export interface Ad3BenchOptions {
  /** Sections to run (default both). */
  readonly sections?: readonly Ad3Section[];
  /** Folder of the graphs (default {@link AD3_DATA_DIR}). */
  readonly dataDir?: string;
  /** Only these files of the folder (names as listed, e.g. `grid3x3.uai`). */
  readonly graphs?: readonly string[];
  /** Iteration cap of every system (default ad3_multi's, 1000). */
  readonly maxIterations?: number;
  /** η for both AD3s and PSDD (default: each its own; ad3_multi 0.1, Lagrange its default). */
  readonly eta?: number;
  /** Residual threshold of both AD3s (default 1e-6, ad3_multi's). */
  readonly residualThreshold?: number;
  /** Exact MAP (branch and bound) in both AD3s; PSDD is then not run (it has no exact mode). */
  readonly exact?: boolean;
  /** Build and run the C++ peer when g++ is there (default true). */
  readonly peer?: boolean;
  /** Timing: solves repeated until their sum reaches this (default 200 ms); the median is kept. */
  readonly minSampleMs?: number;
  /** Graphs: each system timed this many times per graph, in turn; the median kept (default 3). */
  readonly rounds?: number;
  /** The tasks section's own options (ad3-tasks.ts: tasks, sample sizes, caps). */
  readonly tasks?: Ad3TaskOptions;
  readonly onStatus?: (message: string) => void;
}

/** A value over time, for the curves: dual, and primal where the system has one. */
export interface TracePoint {
  /** Iteration k of n at k/n of the median solve CPU time (see the Markdown). */
  readonly seconds: number;
  /** 1-based. */
  readonly iteration: number;
  /** The dual at this iteration (not the best so far). */
  readonly dual: number;
  /** Lagrange: the best 0/1 primal so far; ad3_multi: the relaxed primal at this iterate. */
  readonly primal: number | null;
}

/** One system's run on one graph. */
export interface SystemRun {
  /** Median solve time, wall (reading the file excluded, as ad3_multi's clock excludes it). */
  readonly seconds: number;
  /** Median CPU time of the same solves (NaN where not measured). */
  readonly cpuSeconds: number;
  readonly samples: number;
  readonly iterations: number | null;
  /** Best (lowest) dual: the upper bound; its limit is the LP-MAP value. */
  readonly dual: number | null;
  /** Objective of the relaxed solution (the posteriors): ad3_multi's "Solution value". */
  readonly primal: number | null;
  /** dual − primal. */
  readonly gap: number | null;
  /** How the run ended, in the system's words. */
  readonly status: string | null;
  readonly trace: readonly TracePoint[];
}

export interface LagrangeRun extends SystemRun {
  /** The best 0/1 assignment's objective (ad3_multi has none outside exact mode). */
  readonly integerPrimal: number;
  readonly certified: boolean;
  /**
   * Median wall time of compiling the graph's problem (compileBinaryProblem), outside the solve
   * times as ad3_multi's clock leaves out building its graph.
   */
  readonly compileSeconds: number;
}

export type Outcome<T> = T | { readonly failed: string };

export interface GraphRow {
  readonly graph: string;
  readonly format: "ad3" | "uai";
  readonly variables: number | null;
  readonly factors: number | null;
  /**
   * Factors of the binary problem both AD3s solve (UAI: its tables over two or more variables
   * and one XOR per variable; single-variable tables become unaries): > 1 is a multi-factor graph.
   */
  readonly problemFactors: number | null;
  /** Edges: Σ over the problem's factors of the variables each links. */
  readonly edges: number | null;
  readonly lagrange: Outcome<LagrangeRun>;
  /** Null: the peer was not run (the reason in the section's `peer`). */
  readonly ad3: Outcome<SystemRun> | null;
  readonly psdd: Outcome<SystemRun> | null;
  /** Lagrange ÷ C++ (> 1: Lagrange slower), CPU times where both have them. */
  readonly timeRatioAd3: number | null;
  readonly timeRatioPsdd: number | null;
  /** Time ÷ iterations ÷ edges, ns (CPU where measured, else wall): the cost of one edge's update. */
  readonly nsPerIterationEdgeLagrange: number | null;
  readonly nsPerIterationEdgeAd3: number | null;
  /** |dual_Lagrange − dual_C++AD3| ÷ max(1, |dual_C++AD3|): the certificate's own scale. */
  readonly lpRelativeDifference: number | null;
}

export type PeerState =
  | {
      readonly kind: "built";
      readonly compiler: string;
      readonly buildSeconds: number;
      readonly cached: boolean;
    }
  | { readonly kind: "skipped"; readonly reason: string };

export interface Ad3GraphsSection {
  /** Why the section did not run (no graphs), or null. */
  readonly skipped: string | null;
  readonly dataDir: string;
  readonly settings: {
    readonly maxIterations: number;
    readonly residualThreshold: number;
    readonly etaLagrange: number | "default";
    readonly etaCpp: number;
    readonly exact: boolean;
    readonly minSampleMs: number;
    readonly rounds: number;
    readonly maxSamples: number;
  };
  readonly peer: PeerState;
  readonly rows: readonly GraphRow[];
  readonly targets: readonly {
    readonly name: string;
    readonly value: string;
    readonly met: boolean | null;
  }[];
}

/** The project's tasks with the AD3 step against the subgradient one (ad3-tasks.ts). */
export type Ad3TasksSection = Ad3TaskResult;

export interface Ad3BenchResult {
  readonly suite: "ad3";
  readonly node: string;
  readonly cpu: string;
  /** The machine's 1-minute load average at the start and the end (it inflates wall times). */
  readonly loadAverage: readonly [number, number];
  readonly graphs: Ad3GraphsSection | null;
  readonly tasks: Ad3TasksSection | null;
}

export const isFailure = <T extends object>(
  x: Outcome<T> | null,
): x is { readonly failed: string } => x !== null && "failed" in x;
export const ok = <T extends object>(x: Outcome<T> | null): T | null =>
  x === null || isFailure(x) ? null : x;

export const message = (error: unknown) => (error instanceof Error ? error.message : String(error));
