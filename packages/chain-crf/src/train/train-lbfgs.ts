import type { Encoder } from "../encoder.js";
import {
  checkNonNegative,
  checkPositiveInteger,
  countNonZero,
  HeldOutTracker,
  invalid,
  now,
  startingWeights,
} from "./common.js";
import { type AsyncObjective, type LineSearch, minimizeLbfgs } from "./lbfgs.js";
import type { ObjectivePool } from "./pool.js";
import { reportIteration } from "./progress.js";
import {
  isShardable,
  type StopReason,
  sumLossCooperatively,
  type TrainerOptions,
  type TrainResult,
} from "./types.js";

export interface LbfgsTrainerOptions extends TrainerOptions {
  /** L1 coefficient: c1·‖w‖₁, optimised with OWL-QN when > 0 (default 0). */
  readonly c1?: number;
  /** L2 coefficient: c2·‖w‖² exactly as CRFsuite (gradient 2·c2·w; default 1). */
  readonly c2?: number;
  /** Default: unlimited (CRFsuite); training ends by the delta or epsilon rule. */
  readonly maxIterations?: number;
  /** CRFsuite `delta` (default 1e-5) over `period` iterations (CRFsuite `stop`, default 10). */
  readonly delta?: number;
  readonly period?: number;
  /** ‖g‖ / max(1, ‖w‖) ≤ epsilon stops (default 1e-5). */
  readonly epsilon?: number;
  /** L-BFGS history pairs (default 6). */
  readonly memory?: number;
  readonly lineSearch?: LineSearch;
  /** Maximum trial points per line search (CRFsuite default 20). */
  readonly maxLineSearch?: number;
  /**
   * Threads for the objective and gradient (default 1). Above 1, used when the encoder has
   * `descriptor()`: the instances are split across worker threads.
   */
  readonly threads?: number;
  /** Module exporting the restore function for workers; default the encoder's `restoreModule`,
   * else the CRF's own restoreEncoder (built in to the worker). */
  readonly encoderModule?: URL | string;
  /** Name of the restore export (default "restoreEncoder"). */
  readonly exportName?: string;
}

export interface LbfgsTrainResult extends TrainResult {
  /** Threads that computed the objective (1 when the encoder has no descriptor()). */
  readonly threads: number;
}

const TRAINER = "trainLbfgs";

/**
 * Minimises Σ_i loss_i(w) + c2·‖w‖² + c1·‖w‖₁ with L-BFGS (OWL-QN when c1 > 0), the objective of
 * CRFsuite's `lbfgs` trainer with the same defaults and stopping rules.
 */
export async function trainLbfgs(
  encoder: Encoder,
  options: LbfgsTrainerOptions = {},
): Promise<LbfgsTrainResult> {
  const started = now();
  const c1 = options.c1 ?? 0;
  const c2 = options.c2 ?? 1;
  checkNonNegative(TRAINER, "c1", c1);
  checkNonNegative(TRAINER, "c2", c2);
  const threads = options.threads ?? 1;
  checkPositiveInteger(TRAINER, "threads", threads);
  if (options.maxIterations !== undefined) {
    checkPositiveInteger(TRAINER, "maxIterations", options.maxIterations);
  }
  const K = encoder.numWeights;
  if (!(K >= 1)) invalid(TRAINER, `the encoder has ${K} weights`);

  const initial = startingWeights(TRAINER, encoder, options);
  let pool: ObjectivePool | null = null;
  try {
    if (threads > 1 && encoder.numInstances > 1 && isShardable(encoder)) {
      const { ObjectivePool } = await import("#platform");
      const encoderModule = options.encoderModule ?? encoder.restoreModule;
      pool = await ObjectivePool.open(encoder, {
        threads,
        // Neither given: the workers restore the built-in CRF encoder (no module URL, which a
        // bundle would not keep).
        ...(encoderModule === undefined ? {} : { encoderModule }),
        ...(options.exportName === undefined ? {} : { exportName: options.exportName }),
        descriptor: encoder.descriptor(),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      });
    }
    let weights = initial;
    if (pool !== null) {
      pool.weights.set(initial);
      weights = pool.weights;
    }
    const regularise = (w: Float64Array, g: Float64Array, loss: number): number => {
      if (c2 === 0) return loss;
      let norm2 = 0;
      const twice = 2 * c2;
      for (let j = 0; j < K; j++) {
        const wj = w[j]!;
        g[j] = g[j]! + twice * wj;
        norm2 += wj * wj;
      }
      return loss + c2 * norm2;
    };
    const signal = options.signal;
    // On one thread the evaluation pauses every few milliseconds: with many labels one takes
    // seconds, and a signal's handler must be able to run (and abort) meanwhile.
    const objective: AsyncObjective =
      pool === null
        ? async (w, g) => {
            g.fill(0);
            const N = encoder.numInstances;
            return regularise(w, g, await sumLossCooperatively(encoder, 0, N, w, g, signal));
          }
        : async (w, g) => regularise(w, g, await pool!.evaluate(w, g, signal));

    const tracker = new HeldOutTracker(options.heldOut, K);
    let stopReason: StopReason | null = null;
    const result = await minimizeLbfgs(weights, objective, {
      ...(options.memory === undefined ? {} : { memory: options.memory }),
      ...(options.epsilon === undefined ? {} : { epsilon: options.epsilon }),
      ...(options.period === undefined ? {} : { period: options.period }),
      ...(options.delta === undefined ? {} : { delta: options.delta }),
      ...(options.maxIterations === undefined ? {} : { maxIterations: options.maxIterations }),
      ...(options.lineSearch === undefined ? {} : { lineSearch: options.lineSearch }),
      ...(options.maxLineSearch === undefined ? {} : { maxLineSearch: options.maxLineSearch }),
      ...(signal === undefined ? {} : { signal }),
      l1: c1,
      onIteration: (p) => {
        stopReason = reportIteration(
          tracker,
          options.onProgress,
          p.iteration,
          p.f,
          p.x,
          started,
          c1 > 0 ? countNonZero(p.x) : undefined,
        );
        return stopReason === null;
      },
    });
    const base = {
      weights: tracker.finalWeights(weights),
      iterations: result.iterations,
      loss: result.f,
      seconds: now() - started,
      stopReason: stopReason ?? (result.status as StopReason),
      evaluations: result.evaluations,
      threads: pool?.threads ?? 1,
    };
    return tracker.best === undefined ? base : { ...base, bestHeldOut: tracker.best };
  } finally {
    await pool?.close();
  }
}
