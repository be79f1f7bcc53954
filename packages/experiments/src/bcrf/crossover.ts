/**
 * Where, if anywhere, threaded Bcrf decoding overtakes sequential Viterbi as sequences grow
 * (the question corro's GPU speed-ups raise for a CPU): random chains of n positions and L
 * labels, decoded by Viterbi, by Bcrf (k half-steps, one thread) and by Bcrf with each
 * half-step's clusters split across threads; median times of the same run.
 */
import { BcrfWorkspace, bcrfInference, mbrDecode, openParallelBcrf } from "@lagrange/bcrf";
import { InferenceContext, viterbi } from "@lagrange/chain-crf";
import { seededRandom } from "@lagrange/core";
import { median } from "@lagrange/recipes";

export interface CrossoverOptions {
  readonly lengths?: readonly number[];
  readonly labels?: number;
  readonly iterations?: number;
  readonly threads?: number;
  /** Each length's alternating rounds run until this many milliseconds have passed (default 150 per system). */
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
      const [viterbiMs, bcrfMs, bcrfSimdMs, threadedMs] = alternating(budget, [
        () => viterbi(scores, { context }),
        () => {
          bcrfInference(input, ibp, ws);
          mbrDecode(ws.marginals, n, L, out);
        },
        () => {
          bcrfInference(input, ibp, simd);
          mbrDecode(simd.marginals, n, L, out);
        },
        () => {
          const { workspace } = parallel.infer(input, ibp);
          mbrDecode(workspace.marginals, n, L, out);
        },
      ]) as [number, number, number, number];
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
 * Median milliseconds per system over rounds that time each system once in turn (as recipes'
 * timing harness alternates its taggers, so that a burst of machine load hits all of them alike),
 * after warm-up rounds filling a fifth of the time; at least 5 rounds, then until `budget` ms per
 * system have passed.
 */
function alternating(perSystem: number, systems: readonly (() => void)[]): number[] {
  const budget = perSystem * systems.length;
  const warm = performance.now();
  do for (const run of systems) run();
  while (performance.now() - warm < budget / 5);
  const times = systems.map(() => [] as number[]);
  const started = performance.now();
  for (let round = 0; round < 5 || performance.now() - started < budget; round++) {
    systems.forEach((run, k) => {
      const t = performance.now();
      run();
      times[k]!.push(performance.now() - t);
    });
    if (round >= 10_000) break;
  }
  return times.map(median);
}
