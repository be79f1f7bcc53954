import {
  type ChainScores,
  ProblemValidationError,
  type Slave,
  type SlaveResult,
  validateChainScores,
} from "@lagrange/core";
import type { ChainSlaveFactory } from "@lagrange/core/dual-decomposition";
import { validatedTransitions } from "./chain-scorer.js";
import { InferenceContext } from "./inference/context.js";
import { scoreView } from "./inference/score.js";
import { type ChainView, emptyView, setViewFromScores } from "./inference/view.js";
import { viterbiKernel } from "./inference/viterbi.js";

export interface CrfSlaveOptions {
  readonly name?: string;
  /** Labels allowed at the first / last position (1 = allowed), L each. */
  readonly allowedStart?: Uint8Array;
  readonly allowedEnd?: Uint8Array;
  /** Per position a label id to force, or −1 (forced decoding inside dual decomposition). */
  readonly fixed?: ArrayLike<number>;
  readonly context?: InferenceContext;
}

/**
 * The chain CRF as a dual-decomposition slave. It keeps the instance's scores (computed once
 * from the features) and on every `maximize` re-runs only Viterbi with the adjustment added to
 * the unary scores: no feature work, no allocation. `labels` in the result is reused by the next
 * call.
 */
export class CrfSlave implements Slave {
  readonly name: string;
  readonly n: number;
  readonly L: number;
  readonly #view: ChainView;
  readonly #ctx: InferenceContext;
  readonly #labels: Int32Array;
  readonly #result: { labels: Int32Array; value: number };

  constructor(scores: ChainScores, options: CrfSlaveOptions = {}) {
    validateChainScores(scores, options.name ?? "crf");
    this.name = options.name ?? "crf";
    this.n = scores.n;
    this.L = scores.L;
    this.#view = setViewFromScores(emptyView(), scores);
    for (const key of ["allowedStart", "allowedEnd"] as const) {
      const mask = options[key];
      if (mask === undefined) continue;
      if (mask.length !== scores.L) {
        throw new ProblemValidationError(
          `${this.name}.${key}`,
          `expected length L = ${scores.L}, got ${mask.length}`,
        );
      }
      this.#view[key] = mask;
    }
    if (options.fixed !== undefined) {
      const fixed = options.fixed;
      if (fixed.length !== scores.n) {
        throw new ProblemValidationError(
          `${this.name}.fixed`,
          `expected ${scores.n} entries, got ${fixed.length}`,
        );
      }
      const copy = new Int32Array(scores.n);
      for (let i = 0; i < scores.n; i++) {
        const y = fixed[i]!;
        if (!Number.isInteger(y) || y < -1 || y >= scores.L) {
          throw new ProblemValidationError(
            `${this.name}.fixed[${i}]`,
            `expected −1 or a label id in 0..${scores.L - 1}, got ${y}`,
          );
        }
        copy[i] = y;
      }
      this.#view.fixed = copy;
    }
    // Viterbi only: no SIMD memory (a DD run may hold thousands of slaves).
    this.#ctx = options.context ?? new InferenceContext(scores.n, scores.L, { simd: false });
    this.#labels = new Int32Array(scores.n);
    this.#result = { labels: this.#labels, value: Number.NEGATIVE_INFINITY };
  }

  maximize(adjustment: Float64Array): SlaveResult {
    if (adjustment.length !== this.n * this.L) {
      throw new ProblemValidationError(
        `${this.name}.adjustment`,
        `expected length n·L = ${this.n * this.L}, got ${adjustment.length}`,
      );
    }
    this.#view.adjustment = adjustment;
    this.#result.value = viterbiKernel(this.#ctx, this.#view, this.#labels);
    this.#view.adjustment = null;
    return this.#result;
  }

  score(labels: ArrayLike<number>): number {
    if (labels.length !== this.n) {
      throw new ProblemValidationError(
        `${this.name}.labels`,
        `expected ${this.n} labels, got ${labels.length}`,
      );
    }
    return scoreView(this.#view, labels);
  }
}

/** A {@link CrfSlave} over `scores`. */
export function crfSlave(scores: ChainScores, options: CrfSlaveOptions = {}): CrfSlave {
  return new CrfSlave(scores, options);
}

/**
 * The fast chain oracle for decoders (core's `ChainSlaveFactory`): one slave object and one set of
 * Viterbi buffers re-pointed at each sentence's scores, so decoding a corpus allocates nothing of
 * size n·L per sentence. A returned slave is valid until the next call. Scores are validated on
 * every call, but for the values of a transition block a model's `ChainScorer` has validated.
 */
export function crfChainSlaves(): ChainSlaveFactory {
  const ctx = new InferenceContext(64, 0, { simd: false });
  const view = emptyView();
  let labels = new Int32Array(64);
  const result: { labels: Int32Array; value: number } = { labels, value: Number.NEGATIVE_INFINITY };
  const slave = {
    name: "crf",
    n: 0,
    L: 0,
    maximize(adjustment: Float64Array): SlaveResult {
      if (adjustment.length !== slave.n * slave.L) {
        throw new ProblemValidationError(
          "crf.adjustment",
          `expected length n·L = ${slave.n * slave.L}, got ${adjustment.length}`,
        );
      }
      view.adjustment = adjustment;
      result.value = viterbiKernel(ctx, view, result.labels);
      view.adjustment = null;
      return result;
    },
    score(y: ArrayLike<number>): number {
      if (y.length !== slave.n) {
        throw new ProblemValidationError(
          "crf.labels",
          `expected ${slave.n} labels, got ${y.length}`,
        );
      }
      return scoreView(view, y);
    },
  };
  return (scores: ChainScores): Slave => {
    validateChainScores(scores, "crf", !validatedTransitions.has(scores.transition));
    setViewFromScores(view, scores);
    slave.n = scores.n;
    slave.L = scores.L;
    if (labels.length < scores.n) labels = new Int32Array(2 * scores.n);
    result.labels = labels.subarray(0, scores.n);
    return slave;
  };
}
