import type { Encoder, TrainingProgress } from "../encoder.js";
import type { HeldOutOptions, HeldOutScore, TrainerOptions } from "./types.js";

export function invalid(trainer: string, message: string): never {
  throw new RangeError(`${trainer} options: ${message}`);
}

export function checkPositiveInteger(trainer: string, name: string, value: number): void {
  if (!Number.isInteger(value) || value < 1) {
    invalid(trainer, `${name} must be an integer ≥ 1, got ${value}`);
  }
}

export function checkNonNegative(trainer: string, name: string, value: number): void {
  if (!(value >= 0) || !Number.isFinite(value)) {
    invalid(trainer, `${name} must be a finite number ≥ 0, got ${value}`);
  }
}

/** Checks the options all trainers share and returns the starting weights. */
export function startingWeights(
  trainer: string,
  encoder: Encoder,
  options: TrainerOptions,
  target: Float64Array = new Float64Array(encoder.numWeights),
): Float64Array {
  if (encoder.numInstances < 1) invalid(trainer, "the encoder holds no training instances");
  const init = options.initialWeights;
  if (init !== undefined) {
    if (init.length !== encoder.numWeights) {
      invalid(trainer, `initialWeights has length ${init.length}, expected ${encoder.numWeights}`);
    }
    target.set(init);
  }
  const h = options.heldOut;
  if (h?.every !== undefined) checkPositiveInteger(trainer, "heldOut.every", h.every);
  if (h?.patience !== undefined) checkPositiveInteger(trainer, "heldOut.patience", h.patience);
  return target;
}

/** Held-out evaluation every `every` iterations, and early stopping with `patience`. */
export class HeldOutTracker {
  best: (HeldOutScore & { readonly iteration: number }) | undefined;
  /** The weights of the best evaluation, kept only under early stopping. */
  readonly bestWeights: Float64Array | null;
  shouldStop = false;
  private bestKey = Number.NEGATIVE_INFINITY;
  private sinceBest = 0;

  constructor(
    private readonly options: HeldOutOptions | undefined,
    numWeights: number,
  ) {
    this.bestWeights = options?.patience !== undefined ? new Float64Array(numWeights) : null;
  }

  /** Evaluates when due; returns the score or undefined. */
  check(iteration: number, weights: Float64Array): HeldOutScore | undefined {
    const o = this.options;
    if (o === undefined || iteration % (o.every ?? 1) !== 0) return undefined;
    const raw = o.evaluate(weights);
    const score: HeldOutScore =
      raw.f1 === undefined
        ? { tokenAccuracy: raw.tokenAccuracy }
        : { tokenAccuracy: raw.tokenAccuracy, f1: raw.f1 };
    const key = score.f1 ?? score.tokenAccuracy;
    if (key > this.bestKey) {
      this.bestKey = key;
      this.best = { ...score, iteration };
      this.bestWeights?.set(weights);
      this.sinceBest = 0;
    } else {
      this.sinceBest++;
      if (o.patience !== undefined && this.sinceBest >= o.patience) this.shouldStop = true;
    }
    return score;
  }

  /** The weights a trainer returns: the best held-out ones under early stopping, else `last`. */
  finalWeights(last: Float64Array): Float64Array {
    if (this.bestWeights !== null && this.best !== undefined)
      return Float64Array.from(this.bestWeights);
    return Float64Array.from(last);
  }
}

export function makeProgress(
  iteration: number,
  loss: number,
  seconds: number,
  heldOut: HeldOutScore | undefined,
  activeFeatures: number | undefined,
): TrainingProgress {
  const p: {
    iteration: number;
    loss: number;
    seconds: number;
    heldOut?: HeldOutScore;
    activeFeatures?: number;
  } = { iteration, loss, seconds };
  if (heldOut !== undefined) p.heldOut = heldOut;
  if (activeFeatures !== undefined) p.activeFeatures = activeFeatures;
  return p;
}

export function countNonZero(w: Float64Array): number {
  let c = 0;
  for (let i = 0; i < w.length; i++) if (w[i] !== 0) c++;
  return c;
}

export function maxInstanceLength(encoder: Encoder): number {
  let m = 0;
  for (let i = 0; i < encoder.numInstances; i++) m = Math.max(m, encoder.instanceLength(i));
  return m;
}

export const now = (): number => performance.now() / 1000;
