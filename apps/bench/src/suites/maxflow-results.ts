/** The instances of `--quick`: small, every family, both update sequences, bigcap and frac64. */
export const QUICK_INSTANCES = [
  "tiny_diamond",
  "grid_5x5_seg",
  "grid_64x64_seg",
  "rand_n1000_m5000_bigcap",
  "rand_n1000_m5000_frac64",
  "seq_n40_L13",
  "seq_n400_L21",
] as const;

export interface MaxflowBenchOptions {
  /** A smoke run: {@link QUICK_INSTANCES}, 3 samples of ≥ 10 ms (seconds in all). */
  readonly quick?: boolean;
  /** Folder of the fixtures (default `<repo>/../shared/fixtures/maxflow`). */
  readonly fixtureDir?: string;
  /** Run only these instances (names from `expected.json`). */
  readonly instances?: readonly string[];
  /** Samples per measurement; medians are reported (default 5, quick 3). */
  readonly samples?: number;
  /** Each sample repeats its loop until it lasts this long (default 50 ms, quick 10 ms). */
  readonly minSampleMs?: number;
  /** `"auto"` builds and runs the C++ driver when g++ and the header are there; `"off"` never. */
  readonly native?: "auto" | "off";
  /** Where the compiled driver is cached (default `<repo>/.lagrange-cache/bench`). */
  readonly cacheDir?: string;
  readonly onStatus?: (message: string) => void;
}

/** Times of one system on one instance, in milliseconds per solve. */
export interface PhaseTimes {
  readonly buildMs: number;
  readonly maxflowMs: number;
  readonly totalMs: number;
}

export interface UpdateTimes {
  /** A fresh build of the round's graph + maxflow(), per round. */
  readonly freshMs: number;
  /** Terminal changes + maxflow(reuse trees) on the previous round's graph, per round. */
  readonly reuseMs: number;
}

export interface InstanceResult {
  readonly name: string;
  readonly n: number;
  readonly m: number;
  readonly flow: number;
  /** Flow = expected, both cuts = the `.cut.txt` lines, their capacity = the flow. */
  readonly exact: boolean;
  /** The WebAssembly kernel (the default). */
  readonly lagrange: PhaseTimes & { readonly repetitions: number };
  /** The same algorithm in TypeScript (the fallback kernel). */
  readonly lagrangeJs: PhaseTimes & { readonly repetitions: number };
  readonly cpp: PhaseTimes | null;
  /** Lagrange ÷ C++ (> 1: slower). */
  readonly ratioTotal: number | null;
  readonly ratioMaxflow: number | null;
  /** The TypeScript kernel's maxflow() ÷ C++'s. */
  readonly ratioMaxflowJs: number | null;
  readonly updates: {
    readonly rounds: number;
    /** Every round's flow = `update_flows`, with reuse and from scratch. */
    readonly exact: boolean;
    readonly lagrange: UpdateTimes;
    readonly lagrangeJs: UpdateTimes;
    readonly cpp: UpdateTimes | null;
  } | null;
}

export interface Target {
  readonly name: string;
  readonly value: string;
  readonly met: boolean | null;
}

export interface MaxflowBenchResult {
  readonly suite: "maxflow";
  readonly node: string;
  readonly cpu: string;
  readonly setup: {
    readonly quick: boolean;
    readonly samples: number;
    readonly minSampleMs: number;
    readonly fixtureDir: string;
    /** What one `performance.now()` read costs here (it sits inside the maxflow() loop). */
    readonly clockReadNs: number;
  };
  readonly reference: {
    /** `measured`: the C++ driver ran in this invocation; `recorded`: timings.json's figures. */
    readonly kind: "measured" | "recorded";
    readonly description: string;
    /** Why the driver did not run (kind `recorded`). */
    readonly reason?: string;
  };
  readonly instances: readonly InstanceResult[];
  readonly targets: readonly Target[];
}
