import { AbortError, seededRandom } from "@lagrange/core";
import type { CrfEncoder } from "../crf-encoder.js";
import { PASS_PHASE, PASS_PHASE_COUNT } from "../inference/forward-backward.js";

/** One phase of an objective-and-gradient pass, per pass. */
export interface CrfPassPhase {
  readonly name: string;
  readonly seconds: number;
  /** Share of the instrumented pass. */
  readonly share: number;
  /** Operations of the phase's kernel per pass, in `unit`. */
  readonly operations: number;
  readonly unit: "multiply-adds" | "adds" | "exponentials" | "products";
  readonly ratePerSecond: number;
  /**
   * The same code's rate on a few sentences repeated until their data sits in cache: the
   * machine's peak for this kernel shape, measured in the same run.
   */
  readonly peakRatePerSecond: number;
  /** ratePerSecond / peakRatePerSecond. */
  readonly ofPeak: number;
}

export interface CrfPassProfile {
  readonly sentences: number;
  readonly tokens: number;
  readonly labels: number;
  readonly weights: number;
  /** Attribute occurrences in the corpus, and Σ over them of their attributes' feature counts. */
  readonly attributeOccurrences: number;
  readonly featureOccurrences: number;
  readonly passes: number;
  /** Median seconds of a plain pass (no timers), one thread. */
  readonly secondsPerPass: number;
  /**
   * Median seconds of the instrumented pass; the phases add up to it less the timer readings
   * (one per sentence and phase), which are measured and taken out.
   */
  readonly instrumentedSecondsPerPass: number;
  readonly phases: readonly CrfPassPhase[];
  /** With `threads` > 1: the pool's pass, and the main thread's reduction of the gradients. */
  readonly threaded: {
    readonly threads: number;
    readonly secondsPerPass: number;
    readonly reduceSeconds: number;
    readonly reduceAddsPerSecond: number;
    readonly waitSeconds: number;
  } | null;
}

export interface ProfileCrfPassOptions {
  /** Passes per measurement (medians are reported). Default 5. */
  readonly passes?: number;
  /** Also time the worker-thread pool with this many threads (default 1: not). */
  readonly threads?: number;
  /** Weights to evaluate at; default small seeded random weights. */
  readonly weights?: Float64Array;
  /** Tokens in the cache-resident sample the peaks are measured on (default 300). */
  readonly hotTokens?: number;
  readonly signal?: AbortSignal;
  readonly onStatus?: (message: string) => void;
}

const PHASES: ReadonlyArray<{ index: number; name: string; unit: CrfPassPhase["unit"] }> = [
  { index: PASS_PHASE.stateScores, name: "state scores", unit: "adds" },
  { index: PASS_PHASE.exponentials, name: "exponentials", unit: "exponentials" },
  { index: PASS_PHASE.forward, name: "forward", unit: "multiply-adds" },
  { index: PASS_PHASE.backward, name: "backward", unit: "multiply-adds" },
  { index: PASS_PHASE.pairwise, name: "pairwise marginals", unit: "multiply-adds" },
  { index: PASS_PHASE.marginals, name: "token marginals", unit: "products" },
  { index: PASS_PHASE.expectations, name: "feature expectations", unit: "multiply-adds" },
];

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Seconds one performance.now() reading costs (median of batches). */
function timerSeconds(): number {
  const batches: number[] = [];
  let sink = 0;
  for (let b = 0; b < 21; b++) {
    const started = performance.now();
    for (let k = 0; k < 2000; k++) sink += performance.now();
    batches.push((performance.now() - started) / 1000 / 2000);
  }
  return sink === 0 ? 0 : median(batches);
}

/** Kernel operation counts of instances [first, last) of the encoder, per phase. */
function operationCounts(encoder: CrfEncoder, first: number, last: number): Float64Array {
  const { dataset, layout } = encoder;
  const L = layout.numLabels;
  const offsets = layout.attributeOffsets;
  const { offsets: tokenOffsets, ids } = dataset.state;
  const ops = new Float64Array(PASS_PHASE_COUNT);
  // The shared transition block is exponentiated once per pass.
  ops[PASS_PHASE.exponentials] = L * L;
  for (let g = first; g < last; g++) {
    const from = dataset.instanceOffsets[g]!;
    const to = dataset.instanceOffsets[g + 1]!;
    const n = to - from;
    let features = 0;
    for (let k = tokenOffsets[from]!; k < tokenOffsets[to]!; k++) {
      const a = ids[k]!;
      features += offsets[a + 1]! - offsets[a]!;
    }
    ops[PASS_PHASE.stateScores]! += features;
    ops[PASS_PHASE.expectations]! += features;
    ops[PASS_PHASE.exponentials]! += n * L;
    ops[PASS_PHASE.forward]! += (n - 1) * L * L;
    ops[PASS_PHASE.backward]! += (n - 1) * L * L;
    ops[PASS_PHASE.pairwise]! += (n - 1) * L * L;
    ops[PASS_PHASE.marginals]! += n * L;
  }
  return ops;
}

/** Runs instrumented passes over [first, last) `repeats` times; per-pass phase seconds (median). */
function timedPasses(
  encoder: CrfEncoder,
  first: number,
  last: number,
  weights: Float64Array,
  gradient: Float64Array,
  repeats: number,
  signal: AbortSignal | undefined,
): { phases: Float64Array; total: number } {
  const perPhase: number[][] = Array.from({ length: PASS_PHASE_COUNT }, () => []);
  const totals: number[] = [];
  const seconds = new Float64Array(PASS_PHASE_COUNT);
  for (let r = 0; r < repeats; r++) {
    if (signal?.aborted) throw new AbortError();
    seconds.fill(0);
    gradient.fill(0);
    const started = performance.now();
    encoder.rangeLoss(first, last, weights, gradient, 1, seconds);
    totals.push((performance.now() - started) / 1000);
    for (let p = 0; p < PASS_PHASE_COUNT; p++) perPhase[p]!.push(seconds[p]!);
  }
  return { phases: Float64Array.from(perPhase, median), total: median(totals) };
}

/**
 * Times one objective-and-gradient pass of a CRF encoder phase by phase (the batch path the
 * L-BFGS trainer runs), with each phase's achieved rate and the same code's rate on a
 * cache-resident sample, so that "close to the limit" is a printed ratio.
 */
export async function profileCrfPass(
  encoder: CrfEncoder,
  options: ProfileCrfPassOptions = {},
): Promise<CrfPassProfile> {
  const passes = options.passes ?? 5;
  const threads = options.threads ?? 1;
  const signal = options.signal;
  const status = options.onStatus ?? (() => {});
  const K = encoder.numWeights;
  const weights = options.weights ?? new Float64Array(K);
  if (options.weights === undefined) {
    const random = seededRandom(1);
    for (let k = 0; k < K; k++) weights[k] = 0.2 * (random() - 0.5);
  }
  const gradient = new Float64Array(K);
  const N = encoder.numInstances;

  status(`plain passes (${passes})`);
  encoder.rangeLoss(0, N, weights, gradient); // warm-up: builds the workspace, compiles
  const plain: number[] = [];
  for (let r = 0; r < passes; r++) {
    if (signal?.aborted) throw new AbortError();
    gradient.fill(0);
    const started = performance.now();
    encoder.rangeLoss(0, N, weights, gradient);
    plain.push((performance.now() - started) / 1000);
  }

  status(`instrumented passes (${passes})`);
  const whole = timedPasses(encoder, 0, N, weights, gradient, passes, signal);
  const ops = operationCounts(encoder, 0, N);

  // The hot sample: the first sentences up to hotTokens tokens, repeated for about as long as a
  // pass takes, so their corpus rows, weights and buffers stay in cache.
  const hotTokens = options.hotTokens ?? 300;
  let hotEnd = 0;
  let tokens = 0;
  while (hotEnd < N && tokens < hotTokens) tokens += encoder.instanceLength(hotEnd++);
  const hotOps = operationCounts(encoder, 0, hotEnd);
  const encoderTokens = Array.from({ length: N }, (_, i) => encoder.instanceLength(i)).reduce(
    (a, b) => a + b,
    0,
  );
  const hotRepeats = Math.max(1, Math.round(encoderTokens / Math.max(1, tokens)));
  status(`cache-resident sample: ${hotEnd} sentences × ${hotRepeats}`);
  const hotSeconds = new Float64Array(PASS_PHASE_COUNT);
  const hotRuns: number[][] = Array.from({ length: PASS_PHASE_COUNT }, () => []);
  for (let r = 0; r < passes; r++) {
    hotSeconds.fill(0);
    for (let q = 0; q < hotRepeats; q++) {
      if (signal?.aborted) throw new AbortError();
      encoder.rangeLoss(0, hotEnd, weights, gradient, 1, hotSeconds);
    }
    for (let p = 0; p < PASS_PHASE_COUNT; p++) hotRuns[p]!.push(hotSeconds[p]! / hotRepeats);
  }

  // Each phase takes one timer reading per sentence: their cost is taken out of every phase.
  const timer = timerSeconds();
  for (let p = 0; p < PASS_PHASE_COUNT; p++) {
    whole.phases[p] = Math.max(0, whole.phases[p]! - N * timer);
    const hot = hotRuns[p]!;
    for (let r = 0; r < hot.length; r++) hot[r] = Math.max(0, hot[r]! - hotEnd * timer);
  }
  const instrumented = whole.phases.reduce((a, b) => a + b, 0);
  const phases = PHASES.map(({ index, name, unit }): CrfPassPhase => {
    const seconds = whole.phases[index]!;
    const rate = ops[index]! / Math.max(seconds, 1e-12);
    const peak = hotOps[index]! / Math.max(median(hotRuns[index]!), 1e-12);
    return {
      name,
      seconds,
      share: seconds / Math.max(instrumented, 1e-12),
      operations: ops[index]!,
      unit,
      ratePerSecond: rate,
      peakRatePerSecond: peak,
      ofPeak: rate / peak,
    };
  });

  let threaded: CrfPassProfile["threaded"] = null;
  if (threads > 1) {
    status(`pool passes (${threads} threads)`);
    const { ObjectivePool } = await import("#platform");
    const pool = await ObjectivePool.open(encoder, {
      threads,
      descriptor: encoder.descriptor(),
      ...(signal === undefined ? {} : { signal }),
    });
    try {
      pool.weights.set(weights);
      await pool.evaluate(pool.weights, gradient, signal);
      pool.reduceSeconds = 0;
      pool.waitSeconds = 0;
      const times: number[] = [];
      for (let r = 0; r < passes; r++) {
        const started = performance.now();
        await pool.evaluate(pool.weights, gradient, signal);
        times.push((performance.now() - started) / 1000);
      }
      const reduceSeconds = pool.reduceSeconds / passes;
      threaded = {
        threads: pool.threads,
        secondsPerPass: median(times),
        reduceSeconds,
        reduceAddsPerSecond: ((pool.threads - 1) * K) / Math.max(reduceSeconds, 1e-12),
        waitSeconds: pool.waitSeconds / passes,
      };
    } finally {
      await pool.close();
    }
  }

  let occurrences = 0;
  const { offsets: tokenOffsets } = encoder.dataset.state;
  const firstToken = encoder.dataset.instanceOffsets[0]!;
  const lastToken = encoder.dataset.instanceOffsets[N]!;
  occurrences = tokenOffsets[lastToken]! - tokenOffsets[firstToken]!;
  return {
    sentences: N,
    tokens: encoderTokens,
    labels: encoder.numLabels,
    weights: K,
    attributeOccurrences: occurrences,
    featureOccurrences: ops[PASS_PHASE.stateScores]!,
    passes,
    secondsPerPass: median(plain),
    instrumentedSecondsPerPass: whole.total,
    phases,
    threaded,
  };
}
