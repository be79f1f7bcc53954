/**
 * The shared-memory protocol between {@link ParallelBcrf} and its workers: one Int32 control
 * block and the iterate's factor arrays on SharedArrayBuffers, allocated once for the largest
 * sequence. A half-step is one generation: the main thread writes the parity and length, bumps
 * the generation and wakes the workers; each projects its share of the clusters and publishes
 * the generation it finished.
 */
export const CONTROL = {
  generation: 0,
  command: 1,
  first: 2,
  n: 3,
  L: 4,
  shared: 5,
  /** done[w] at done + w: the last generation worker w finished. */
  done: 8,
} as const;

export const COMMAND = { halfStep: 0, exit: 1 } as const;

export interface ParallelSetup {
  readonly entry: string;
  readonly registerTsx: boolean;
  /** 1-based worker index (the main thread is 0). */
  readonly index: number;
  readonly threads: number;
  readonly control: SharedArrayBuffer;
  /** Per-thread result of the half-step (largest violation, −1 incomplete, NaN underflow). */
  readonly results: SharedArrayBuffer;
  readonly kernel: SharedArrayBuffer;
  readonly rowScale: SharedArrayBuffer;
  readonly colScale: SharedArrayBuffer;
  readonly projected: SharedArrayBuffer;
  readonly maxLabels: number;
}

/** The first cluster of thread `index`'s contiguous, near-equal share of `count` clusters. */
export function shareStart(count: number, index: number, threads: number): number {
  return Math.floor((count * index) / threads);
}

/** A worker's result slot after an exception (its message goes to the worker's error event). */
export const WORKER_FAILED = -2;
