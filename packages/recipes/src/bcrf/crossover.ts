/**
 * Where, if anywhere, threaded Bcrf decoding overtakes sequential Viterbi as sequences grow
 * (the question corro's GPU speed-ups raise for a CPU): random chains of n positions and L
 * labels, decoded by Viterbi, by Bcrf (k half-steps, one thread) and by Bcrf with each
 * half-step's clusters split across threads; median times of the same run.
 */
import { BcrfWorkspace, bcrfInference, mbrDecode, openParallelBcrf } from "@lagrange/bcrf";
import { InferenceContext, viterbi } from "@lagrange/chain-crf";
import { seededRandom } from "@lagrange/core";

export interface CrossoverOptions {
  readonly lengths?: readonly number[];
  readonly labels?: number;
  readonly iterations?: number;
  readonly threads?: number;
  /** Each timing repeats its decode until this many milliseconds have passed (default 150). */
  readonly minMilliseconds?: number;
}

export interface CrossoverPoint {
  readonly n: number;
  /** Milliseconds per sequence. */
  readonly viterbiMs: number;
  /** One thread, the JavaScript half-step kernel (the threads' kernel: the speed-up's baseline). */
  readonly bcrfMs: number;
  /** One thread, the WebAssembly SIMD half-step kernel (what the decoders use). */
  readonly bcrfSimdMs: number;
  readonly threadedMs: number;
  /** threaded ÷ Viterbi: < 1 past the crossover. */
  readonly threadedRatio: number;
  /** SIMD one-thread ÷ Viterbi. */
  readonly simdRatio: number;
  /** one-thread Bcrf (same kernel) ÷ threaded: the speed-up the threads give. */
  readonly threadSpeedup: number;
}

export interface CrossoverResult {
  readonly labels: number;
  readonly iterations: number;
  readonly threads: number;
  readonly points: readonly CrossoverPoint[];
  /** The first n where threaded Bcrf beat Viterbi, or null. */
  readonly crossover: number | null;
}

export async function bcrfCrossover(options: CrossoverOptions = {}): Promise<CrossoverResult> {
  const lengths = options.lengths ?? [20, 100, 1000, 10_000, 100_000];
  const L = options.labels ?? 17;
  const iterations = options.iterations ?? 5;
  const threads = options.threads ?? 2;
  const budget = options.minMilliseconds ?? 150;
  const maxLength = Math.max(...lengths);
  const parallel = await openParallelBcrf({ threads, maxLength, maxLabels: L });
  const rnd = seededRandom(7);
  const points: CrossoverPoint[] = [];
  try {
    const transition = Float64Array.from({ length: L * L }, () => rnd() * 2 - 1);
    const ws = new BcrfWorkspace({ simd: false });
    const simd = new BcrfWorkspace();
    const context = new InferenceContext(64, 0, { simd: false });
    for (const n of lengths) {
      const unary = Float64Array.from({ length: n * L }, () => 3 * (rnd() * 2 - 1));
      const scores = { n, L, unary, transition };
      const input = {
        n,
        L,
        local: unary,
        localBase: 0,
        transition,
        transitionBase: 0,
        transitionStride: 0,
        allowed: null,
      };
      const out = new Int32Array(n);
      const ibp = { iterations, temperature: 0.1 };
      const viterbiMs = timed(budget, () => viterbi(scores, { context }));
      const bcrfMs = timed(budget, () => {
        bcrfInference(input, ibp, ws);
        mbrDecode(ws.marginals, n, L, out);
      });
      const bcrfSimdMs = timed(budget, () => {
        bcrfInference(input, ibp, simd);
        mbrDecode(simd.marginals, n, L, out);
      });
      const threadedMs = timed(budget, () => {
        const { workspace } = parallel.infer(input, ibp);
        mbrDecode(workspace.marginals, n, L, out);
      });
      points.push({
        n,
        viterbiMs,
        bcrfMs,
        bcrfSimdMs,
        threadedMs,
        threadedRatio: threadedMs / viterbiMs,
        simdRatio: bcrfSimdMs / viterbiMs,
        threadSpeedup: bcrfMs / threadedMs,
      });
    }
  } finally {
    await parallel.close();
  }
  return {
    labels: L,
    iterations,
    threads,
    points,
    crossover: points.find((p) => p.threadedRatio < 1)?.n ?? null,
  };
}

/**
 * Median milliseconds of `run` over repeats filling about `budget` ms (at least 5 runs), after
 * warm-up runs filling a fifth of it (the JIT: the first chain timed would otherwise pay it).
 */
function timed(budget: number, run: () => void): number {
  const warm = performance.now();
  do run();
  while (performance.now() - warm < budget / 5);
  const times: number[] = [];
  const started = performance.now();
  while (times.length < 5 || performance.now() - started < budget) {
    const t = performance.now();
    run();
    times.push(performance.now() - t);
    if (times.length >= 10_000) break;
  }
  times.sort((a, b) => a - b);
  return times[times.length >> 1]!;
}
