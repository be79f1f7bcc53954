import { seededRandom } from "@lagrange/core";
/**
 * A toy Encoder for the trainer tests: multinomial logistic regression over "sequences" of 1–3
 * independent positions. Each position has a few sparse real-valued features; weight f·L + y
 * scores label y for feature f. Loss and gradient are exact and cheap, and the encoder is
 * restorable in a worker thread from its descriptor (typed arrays on SharedArrayBuffer).
 */
import type { Encoder } from "../encoder.js";

export interface LogisticDescriptor {
  readonly numFeatures: number;
  readonly numLabels: number;
  /** Instance i covers positions positionStart[i] .. positionStart[i+1]−1. */
  readonly positionStart: Int32Array;
  /** Position p has features featureStart[p] .. featureStart[p+1]−1. */
  readonly featureStart: Int32Array;
  readonly featureIndex: Int32Array;
  readonly featureValue: Float64Array;
  /** Gold label per position. */
  readonly gold: Int32Array;
}

function shared<T extends Int32Array | Float64Array>(
  make: (buffer: SharedArrayBuffer) => T,
  values: ArrayLike<number>,
  bytes: number,
): T {
  const a = make(new SharedArrayBuffer(Math.max(1, values.length) * bytes));
  a.set(values);
  return a;
}

/** Random data; labels are the argmax of a hidden weight matrix (separable) unless `noise` > 0. */
export function makeLogisticData(
  seed: number,
  options: { instances: number; features: number; labels: number; noise?: number },
): LogisticDescriptor {
  const random = seededRandom(seed);
  const { instances, features: F, labels: L } = options;
  const hidden = Float64Array.from({ length: F * L }, () => random() * 2 - 1);
  const positionStart = [0];
  const featureStart = [0];
  const featureIndex: number[] = [];
  const featureValue: number[] = [];
  const gold: number[] = [];
  for (let i = 0; i < instances; i++) {
    const length = 1 + Math.floor(random() * 3);
    for (let p = 0; p < length; p++) {
      const used = new Set<number>([0]); // feature 0 is a bias present everywhere
      const k = 2 + Math.floor(random() * 3);
      while (used.size < k) used.add(Math.floor(random() * F));
      const scores = new Float64Array(L);
      for (const f of used) {
        const v = f === 0 ? 1 : random() * 2 - 1;
        featureIndex.push(f);
        featureValue.push(v);
        for (let y = 0; y < L; y++) scores[y] = scores[y]! + v * hidden[f * L + y]!;
      }
      let best = 0;
      for (let y = 1; y < L; y++) if (scores[y]! > scores[best]!) best = y;
      const label =
        options.noise !== undefined && random() < options.noise ? Math.floor(random() * L) : best;
      gold.push(label);
      featureStart.push(featureIndex.length);
    }
    positionStart.push(gold.length);
  }
  return {
    numFeatures: F,
    numLabels: L,
    positionStart: shared((b) => new Int32Array(b), positionStart, 4),
    featureStart: shared((b) => new Int32Array(b), featureStart, 4),
    featureIndex: shared((b) => new Int32Array(b), featureIndex, 4),
    featureValue: shared((b) => new Float64Array(b), featureValue, 8),
    gold: shared((b) => new Int32Array(b), gold, 4),
  };
}

export class LogisticEncoder implements Encoder {
  readonly numWeights: number;
  readonly numInstances: number;
  readonly numLabels: number;
  readonly restoreModule: URL = new URL(import.meta.url);
  private readonly scores: Float64Array;
  private readonly residual: Float64Array;
  private readonly goldViews: Int32Array[];

  constructor(
    private readonly d: LogisticDescriptor,
    private readonly begin = 0,
    end = d.positionStart.length - 1,
  ) {
    this.numLabels = d.numLabels;
    this.numWeights = d.numFeatures * d.numLabels;
    this.numInstances = end - begin;
    this.scores = new Float64Array(d.numLabels);
    this.residual = new Float64Array(3 * d.numLabels);
    this.goldViews = [];
    for (let i = 0; i < this.numInstances; i++) {
      const g = begin + i;
      this.goldViews.push(d.gold.subarray(d.positionStart[g]!, d.positionStart[g + 1]!));
    }
  }

  descriptor(): LogisticDescriptor {
    return this.d;
  }

  instanceLength(i: number): number {
    return this.goldViews[i]!.length;
  }

  goldLabels(i: number): Int32Array {
    return this.goldViews[i]!;
  }

  /** Scores of every label at position p under weightScale × weights, into this.scores. */
  private score(p: number, weights: Float64Array, weightScale: number): void {
    const { featureStart, featureIndex, featureValue } = this.d;
    const L = this.numLabels;
    const s = this.scores;
    s.fill(0);
    for (let k = featureStart[p]!; k < featureStart[p + 1]!; k++) {
      const base = featureIndex[k]! * L;
      const v = featureValue[k]! * weightScale;
      for (let y = 0; y < L; y++) s[y] = s[y]! + v * weights[base + y]!;
    }
  }

  instanceLoss(i: number, weights: Float64Array, gradient: Float64Array | null, scale = 1): number {
    return this.instanceLossScaled(i, weights, 1, gradient, scale);
  }

  instanceLossScaled(
    i: number,
    weights: Float64Array,
    weightScale: number,
    gradient: Float64Array | null,
    scale: number,
  ): number {
    const { positionStart, featureStart, featureIndex, featureValue, gold } = this.d;
    const L = this.numLabels;
    const s = this.scores;
    const g = this.begin + i;
    const first = positionStart[g]!;
    const count = positionStart[g + 1]! - first;
    const residual = this.residual;
    let loss = 0;
    // All positions are scored before the gradient is written: gradient may alias weights.
    for (let t = 0; t < count; t++) {
      this.score(first + t, weights, weightScale);
      let max = Number.NEGATIVE_INFINITY;
      for (let y = 0; y < L; y++) max = Math.max(max, s[y]!);
      let z = 0;
      for (let y = 0; y < L; y++) z += Math.exp(s[y]! - max);
      const logZ = max + Math.log(z);
      const label = gold[first + t]!;
      loss += logZ - s[label]!;
      for (let y = 0; y < L; y++)
        residual[t * L + y] = Math.exp(s[y]! - logZ) - (y === label ? 1 : 0);
    }
    if (gradient !== null) {
      for (let t = 0; t < count; t++) {
        for (let k = featureStart[first + t]!; k < featureStart[first + t + 1]!; k++) {
          const base = featureIndex[k]! * L;
          const v = featureValue[k]! * scale;
          for (let y = 0; y < L; y++)
            gradient[base + y] = gradient[base + y]! + v * residual[t * L + y]!;
        }
      }
    }
    return loss;
  }

  decode(i: number, weights: Float64Array, out: Int32Array): number {
    const { positionStart } = this.d;
    const s = this.scores;
    const g = this.begin + i;
    let total = 0;
    for (let p = positionStart[g]!, t = 0; p < positionStart[g + 1]!; p++, t++) {
      this.score(p, weights, 1);
      let best = 0;
      for (let y = 1; y < this.numLabels; y++) if (s[y]! > s[best]!) best = y;
      out[t] = best;
      total += s[best]!;
    }
    return total;
  }

  addFeatureCounts(
    i: number,
    labels: ArrayLike<number>,
    scale: number,
    target: Float64Array,
  ): void {
    const { positionStart, featureStart, featureIndex, featureValue } = this.d;
    const L = this.numLabels;
    const g = this.begin + i;
    for (let p = positionStart[g]!, t = 0; p < positionStart[g + 1]!; p++, t++) {
      const y = labels[t]!;
      for (let k = featureStart[p]!; k < featureStart[p + 1]!; k++) {
        const j = featureIndex[k]! * L + y;
        target[j] = target[j]! + scale * featureValue[k]!;
      }
    }
  }
}

/** The worker-side entry: an encoder over instances begin..end−1, numbered from 0. */
export function restoreEncoder(
  descriptor: LogisticDescriptor,
  range?: { begin: number; end: number },
): LogisticEncoder {
  return new LogisticEncoder(
    descriptor,
    range?.begin ?? 0,
    range?.end ?? descriptor.positionStart.length - 1,
  );
}

/** A copy without the optional capabilities, to test the trainers' fallbacks. */
export function plainEncoder(encoder: LogisticEncoder): Encoder {
  return {
    numWeights: encoder.numWeights,
    numInstances: encoder.numInstances,
    numLabels: encoder.numLabels,
    instanceLength: (i) => encoder.instanceLength(i),
    goldLabels: (i) => encoder.goldLabels(i),
    instanceLoss: (i, w, g, scale) => encoder.instanceLoss(i, w, g, scale),
    decode: (i, w, out) => encoder.decode(i, w, out),
    addFeatureCounts: (i, labels, scale, target) =>
      encoder.addFeatureCounts(i, labels, scale, target),
  };
}
