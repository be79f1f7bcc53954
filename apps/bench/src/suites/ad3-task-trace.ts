import type {
  DecodeOptions,
  DecodeProblem,
  Decoder,
  Decoding,
  IterationStats,
} from "@lagrange/core";
import type {
  DecodeTrace,
  DualDecompositionStep,
  StepRun,
  TracePoint,
} from "./ad3-task-options.js";

// Traces (pure: tested in ad3-tasks.test.ts).

/**
 * A decoder that records each decode's iterations (time since the call began, best dual so far)
 * through the decode options' `onIteration`; `counted` says whether a problem enters the rates.
 */
export function tracingDecoder(
  inner: Decoder,
  counted: (problem: DecodeProblem) => boolean = () => true,
  clock: () => number = () => performance.now(),
): { readonly decoder: Decoder; readonly traces: DecodeTrace[] } {
  const traces: DecodeTrace[] = [];
  const decoder: Decoder = {
    name: inner.name,
    decode(problem: DecodeProblem, options?: DecodeOptions): Decoding {
      const ms: number[] = [];
      const bestDual: number[] = [];
      let best = Number.POSITIVE_INFINITY;
      const outer = options?.onIteration;
      const start = clock();
      const onIteration = (stats: IterationStats) => {
        if (stats.dual < best) best = stats.dual;
        bestDual.push(best);
        ms.push(clock() - start);
        return outer?.(stats);
      };
      const decoding = inner.decode(problem, { ...options, onIteration });
      const totalMs = clock() - start;
      traces.push({
        ms,
        bestDual,
        totalMs,
        iterations: decoding.iterations,
        certified: decoding.certified,
        finalDual: decoding.dual ?? decoding.primal,
        counted: counted(problem),
        positions: problem.scores.n,
      });
      return decoding;
    },
  };
  return { decoder, traces };
}

/**
 * Every decode of `traces` as if capped at `cap` iterations: a decode that stopped by then counts
 * whole; one that ran on counts its first `cap` iterations, uncertified (a decode stops at the
 * iteration that certifies, so a certificate after the cap is one the capped run would not have).
 */
export function pointAt(traces: readonly DecodeTrace[], cap: number): TracePoint {
  let ms = 0;
  let certified = 0;
  let dual = 0;
  let counted = 0;
  for (const t of traces) {
    const whole = cap >= t.iterations || t.ms.length === 0;
    const k = Math.min(cap, t.ms.length) - 1;
    ms += whole ? t.totalMs : t.ms[k]!;
    if (!t.counted) continue;
    counted++;
    if (whole && t.certified) certified++;
    dual += whole ? t.finalDual : t.bestDual[k]!;
  }
  return {
    maxIterations: cap,
    seconds: ms / 1000,
    certifiedRate: counted === 0 ? 1 : certified / counted,
    meanDual: counted === 0 ? 0 : dual / counted,
  };
}

/** The caps a curve is drawn at: 1, 2, 3, 5, 10, 20, 50, … up to the longest decode, and it. */
export function curveCaps(traces: readonly DecodeTrace[]): number[] {
  const longest = Math.max(1, ...traces.map((t) => t.iterations));
  const caps: number[] = [];
  for (let decade = 1; decade <= longest; decade *= 10) {
    for (const m of decade === 1 ? [1, 2, 3, 5] : [1, 2, 5]) {
      if (m * decade < longest) caps.push(m * decade);
    }
  }
  caps.push(longest);
  return caps;
}

export function curveOf(traces: readonly DecodeTrace[]): TracePoint[] {
  return curveCaps(traces).map((cap) => pointAt(traces, cap));
}

/**
 * The certified share the traced decodes reach within `seconds` of decoding in all: at the largest
 * cap whose total time fits (0 when even one iteration each does not).
 */
export function certifiedWithin(traces: readonly DecodeTrace[], seconds: number): number {
  const longest = Math.max(1, ...traces.map((t) => t.iterations));
  let rate = 0;
  for (let cap = 1; cap <= longest; cap++) {
    const p = pointAt(traces, cap);
    if (p.seconds > seconds) break;
    rate = p.certifiedRate;
  }
  return rate;
}

/** The least total decoding time at which the traces reach a certified share (null: never). */
export function secondsToRate(traces: readonly DecodeTrace[], rate: number): number | null {
  const longest = Math.max(1, ...traces.map((t) => t.iterations));
  for (let cap = 1; cap <= longest; cap++) {
    const p = pointAt(traces, cap);
    if (p.certifiedRate >= rate - 1e-12) return p.seconds;
  }
  return null;
}

/** A step's figures from its traces (F and Viterbi's time given). */
export function stepRun(
  step: DualDecompositionStep,
  maxIterations: number,
  traces: readonly DecodeTrace[],
  f: number,
  viterbiSeconds: number,
): StepRun {
  const counted = traces.filter((t) => t.counted);
  const n = Math.max(1, counted.length);
  const iterations = counted.reduce((a, t) => a + t.iterations, 0);
  const positions = counted.reduce((a, t) => a + t.positions, 0);
  const uncertified = counted.filter((t) => !t.certified);
  const seconds = traces.reduce((a, t) => a + t.totalMs, 0) / 1000;
  return {
    step,
    maxIterations,
    seconds,
    countedSeconds: counted.reduce((a, t) => a + t.totalMs, 0) / 1000,
    overViterbi: viterbiSeconds > 0 ? seconds / viterbiSeconds : Number.NaN,
    f,
    certifiedRate:
      counted.length === 0 ? 1 : (counted.length - uncertified.length) / counted.length,
    meanIterations: iterations / n,
    iterationsPerToken:
      positions === 0 ? 0 : counted.reduce((a, t) => a + t.iterations * t.positions, 0) / positions,
    meanDual: counted.reduce((a, t) => a + t.finalDual, 0) / n,
    msPerIteration: iterations === 0 ? 0 : counted.reduce((a, t) => a + t.totalMs, 0) / iterations,
    uncertified: uncertified.length,
    uncertifiedMeanIterations:
      uncertified.length === 0
        ? 0
        : uncertified.reduce((a, t) => a + t.iterations, 0) / uncertified.length,
    curve: curveOf(traces),
  };
}
