import {
  AbortError,
  checkpoints,
  seededRandom,
  shuffleInPlace,
  yieldToEventLoop,
} from "@lagrange/core";
import type { Encoder } from "../encoder.js";
import {
  checkNonNegative,
  checkPositiveInteger,
  HeldOutTracker,
  invalid,
  now,
  startingWeights,
} from "./common.js";
import { reportIteration } from "./progress.js";
import {
  hasScaledWeights,
  type StopReason,
  type TrainerOptions,
  type TrainResult,
} from "./types.js";

export interface SgdCalibration {
  /** First learning rate tried (CRFsuite `calibration.eta`, default 0.1). */
  readonly eta?: number;
  /** Factor between trials (default 2). */
  readonly rate?: number;
  /** Instances used for calibration (default 1000). */
  readonly samples?: number;
  /** Learning rates that must decrease the loss before calibration ends (default 10). */
  readonly candidates?: number;
  /** Give up after this many trials (default 20). */
  readonly maxTrials?: number;
}

export interface SgdOptions extends TrainerOptions {
  /** L2 coefficient, CRFsuite's convention: the objective is Σ loss_i + c2·‖w‖² (default 1). */
  readonly c2?: number;
  /** Maximum epochs (CRFsuite `max_iterations`, default 1000). */
  readonly epochs?: number;
  /** Stop when the objective improves by less than delta over `period` epochs (1e-6, 10). */
  readonly delta?: number;
  readonly period?: number;
  /**
   * Offset of the schedule η_t = 1 / (λ (t0 + t)), λ = 2·c2 / N. Absent: calibrated as CRFsuite
   * does (try learning rates on a sample, keep the one with the lowest loss, t0 = 1/(λ η)).
   */
  readonly t0?: number;
  readonly calibration?: SgdCalibration;
  /** Seed of the per-epoch shuffle (default 0). */
  readonly seed?: number;
}

export interface SgdResult extends TrainResult {
  /** The schedule offset used (calibrated or given). */
  readonly t0: number;
}

const TRAINER = "trainSgd";

/**
 * One pass of SGD over order[0..count) from t, on the objective Σ_i [loss_i(w) + (λ/2)‖w‖²].
 * The L2 shrinkage (1 − ηλ) is kept as a scalar `decay` (true weights = decay·w) so that each
 * step touches only the features of one instance; w is rescaled at the end of the pass.
 */
class SgdPass {
  readonly gradient: Float64Array | null;

  constructor(
    private readonly encoder: Encoder,
    private readonly lambda: number,
    private readonly signal: AbortSignal | undefined,
  ) {
    this.gradient = hasScaledWeights(encoder) ? null : new Float64Array(encoder.numWeights);
  }

  /**
   * One pass over `order`'s first `count` instances. Between instances it throws once aborted and
   * lets the event loop turn every few milliseconds, so that a signal's handler can run.
   */
  async run(
    w: Float64Array,
    order: Int32Array,
    count: number,
    t0: number,
    t: number,
  ): Promise<number> {
    const enc = this.encoder;
    const lambda = this.lambda;
    const K = w.length;
    const checkpoint = checkpoints(this.signal);
    let decay = 1;
    let sumLoss = 0;
    for (let k = 0; k < count; k++) {
      if (checkpoint.due()) await checkpoint.pause();
      const i = order[k]!;
      const eta = 1 / (lambda * (t0 + t));
      t++;
      if (this.gradient === null && hasScaledWeights(enc)) {
        decay *= 1 - eta * lambda;
        sumLoss += enc.instanceLossScaled(i, w, decay, w, -eta / decay);
        if (decay < 1e-100) {
          for (let j = 0; j < K; j++) w[j] = w[j]! * decay;
          decay = 1;
        }
      } else {
        // Without the scaled-weights capability every step is dense.
        const g = this.gradient!;
        const shrink = 1 - eta * lambda;
        for (let j = 0; j < K; j++) w[j] = w[j]! * shrink;
        g.fill(0);
        sumLoss += enc.instanceLoss(i, w, g, 1);
        for (let j = 0; j < K; j++) w[j] = w[j]! - eta * g[j]!;
      }
    }
    if (decay !== 1) for (let j = 0; j < K; j++) w[j] = w[j]! * decay;
    return sumLoss;
  }
}

function norm2(w: Float64Array): number {
  let s = 0;
  for (let j = 0; j < w.length; j++) s += w[j]! * w[j]!;
  return s;
}

/** CRFsuite's `l2sgd_calibration`: returns t0 = 1 / (λ η) for the best learning rate η found. */
async function calibrate(
  encoder: Encoder,
  pass: SgdPass,
  order: Int32Array,
  lambda: number,
  options: SgdCalibration,
  signal: AbortSignal | undefined,
): Promise<number> {
  const initEta = options.eta ?? 0.1;
  const rate = options.rate ?? 2;
  const candidates = options.candidates ?? 10;
  const maxTrials = options.maxTrials ?? 20;
  checkNonNegative(TRAINER, "calibration.eta", initEta);
  if (!(initEta > 0)) invalid(TRAINER, "calibration.eta must be > 0");
  if (!(rate > 1)) invalid(TRAINER, `calibration.rate must be > 1, got ${rate}`);
  checkPositiveInteger(TRAINER, "calibration.candidates", candidates);
  checkPositiveInteger(TRAINER, "calibration.maxTrials", maxTrials);
  const samples = Math.min(encoder.numInstances, options.samples ?? 1000);
  checkPositiveInteger(TRAINER, "calibration.samples", samples);

  const w = new Float64Array(encoder.numWeights);
  let initLoss = 0;
  const checkpoint = checkpoints(signal);
  for (let k = 0; k < samples; k++) {
    if (checkpoint.due()) await checkpoint.pause();
    initLoss += encoder.instanceLoss(order[k]!, w, null, 1);
  }

  let eta = initEta;
  let bestEta = initEta;
  let bestLoss = Number.POSITIVE_INFINITY;
  let left = candidates;
  let decreasing = false;
  for (let trial = 0; trial < maxTrials && (left > 0 || !decreasing); trial++) {
    w.fill(0);
    let loss = await pass.run(w, order, samples, 1 / (lambda * eta), 0);
    loss += 0.5 * lambda * norm2(w) * samples;
    const ok = Number.isFinite(loss) && loss < initLoss;
    if (ok) left--;
    if (Number.isFinite(loss) && loss < bestLoss) {
      bestLoss = loss;
      bestEta = eta;
    }
    if (!decreasing) {
      if (ok && left > 0) eta *= rate;
      else {
        decreasing = true;
        left = candidates;
        eta = initEta / rate;
      }
    } else eta /= rate;
  }
  return 1 / (lambda * bestEta);
}

/**
 * Stochastic gradient descent on Σ_i loss_i(w) + c2·‖w‖² (CRFsuite's `l2sgd`): step size
 * η_t = 1 / (λ (t0 + t)) with λ = 2·c2 / N, t0 calibrated unless given; the instances are shuffled
 * each epoch; the best epoch's weights (by objective) are returned unless early stopping on
 * held-out data picks others. Sparse updates need the encoder's `instanceLossScaled`.
 */
/** Epochs when the caller sets none. */
export const SGD_DEFAULT_EPOCHS = 1000;

export async function trainSgd(encoder: Encoder, options: SgdOptions = {}): Promise<SgdResult> {
  const started = now();
  const c2 = options.c2 ?? 1;
  checkNonNegative(TRAINER, "c2", c2);
  if (!(c2 > 0)) invalid(TRAINER, "c2 must be > 0 (the step-size schedule divides by it)");
  const epochs = options.epochs ?? SGD_DEFAULT_EPOCHS;
  checkPositiveInteger(TRAINER, "epochs", epochs);
  const period = options.period ?? 10;
  checkPositiveInteger(TRAINER, "period", period);
  const delta = options.delta ?? 1e-6;
  checkNonNegative(TRAINER, "delta", delta);
  if (options.t0 !== undefined && !(options.t0 > 0)) {
    invalid(TRAINER, `t0 must be > 0, got ${options.t0}`);
  }
  const w = startingWeights(TRAINER, encoder, options);
  const K = encoder.numWeights;
  const N = encoder.numInstances;
  const lambda = (2 * c2) / N;
  const signal = options.signal;
  const order = Int32Array.from({ length: N }, (_, i) => i);
  const random = seededRandom(options.seed ?? 0);
  const pass = new SgdPass(encoder, lambda, signal);

  let t0 = options.t0;
  if (t0 === undefined) {
    shuffleInPlace(order, random);
    t0 = await calibrate(encoder, pass, order, lambda, options.calibration ?? {}, signal);
    await yieldToEventLoop();
    if (signal?.aborted) throw new AbortError();
  }

  const tracker = new HeldOutTracker(options.heldOut, K);
  const best = new Float64Array(K);
  let bestLoss = Number.POSITIVE_INFINITY;
  const past = new Float64Array(period);
  let t = 0;
  let epoch = 0;
  let stopReason: StopReason = "max-iterations";
  while (epoch < epochs) {
    epoch++;
    shuffleInPlace(order, random);
    let loss = await pass.run(w, order, N, t0, t);
    t += N;
    if (!Number.isFinite(loss)) {
      throw new Error(
        `${TRAINER}: the loss overflowed in epoch ${epoch}; try a smaller learning rate (t0)`,
      );
    }
    loss += c2 * norm2(w);
    if (loss < bestLoss) {
      bestLoss = loss;
      best.set(w);
    }
    const improvement = epoch > period ? (past[(epoch - 1) % period]! - loss) / loss : delta;
    past[(epoch - 1) % period] = loss;

    const stop = reportIteration(tracker, options.onProgress, epoch, loss, w, started);
    if (stop !== null) {
      stopReason = stop;
      break;
    }
    if (improvement < delta) {
      stopReason = "no-progress";
      break;
    }
    await yieldToEventLoop();
    if (signal?.aborted) throw new AbortError();
  }
  const weights = tracker.bestWeights !== null ? tracker.finalWeights(w) : best;
  const base = {
    weights,
    iterations: epoch,
    loss: tracker.bestWeights !== null ? bestLossOf(encoder, weights, c2) : bestLoss,
    seconds: now() - started,
    stopReason,
    t0,
  };
  return tracker.best === undefined ? base : { ...base, bestHeldOut: tracker.best };
}

function bestLossOf(encoder: Encoder, w: Float64Array, c2: number): number {
  let loss = 0;
  for (let i = 0; i < encoder.numInstances; i++) loss += encoder.instanceLoss(i, w, null, 1);
  return loss + c2 * norm2(w);
}
