/**
 * Σ_i loss_i(w) and its gradient computed across worker threads. The instances are cut into
 * contiguous shards of about equal token count; the main thread computes the first shard with the
 * caller's encoder while each worker computes one other shard with an encoder it restores from the
 * descriptor. Weights live on one SharedArrayBuffer read by all; each worker writes its gradient to
 * its own SharedArrayBuffer, and the main thread adds them up in shard order, so the result equals
 * the single-threaded one up to floating-point summation order.
 *
 * Node-only (worker_threads); trainers load this module lazily so that browsers never see it.
 */
import { Worker } from "node:worker_threads";
import { AbortError } from "@lagrange/core";
import type { Encoder } from "../encoder.js";
import { sumLoss } from "./types.js";

export interface EncoderWorkerSource {
  /**
   * Module that exports the restore function (a .ts module needs tsx, found from this package);
   * default: this package's CRF encoder ({@link restoreEncoder} of crf-encoder), which the worker
   * imports itself, so that the pool also works where module files have moved (a bundle).
   */
  readonly encoderModule?: URL | string;
  /** Name of the export `(descriptor, { begin, end }) => Encoder`; default "restoreEncoder". */
  readonly exportName?: string;
  /** Structured-clonable description of the encoder (big arrays on SharedArrayBuffer). */
  readonly descriptor: unknown;
}

export interface ObjectivePoolOptions extends EncoderWorkerSource {
  /** Total threads, the main thread included (so threads − 1 workers are started). */
  readonly threads: number;
  readonly signal?: AbortSignal;
}

/** Messages from a worker. */
export type WorkerReply =
  | { readonly type: "ready"; readonly numWeights: number; readonly numInstances: number }
  | { readonly type: "done"; readonly generation: number; readonly loss: number }
  | { readonly type: "error"; readonly message: string };

/** Messages to a worker. */
export interface WorkerRequest {
  readonly type: "evaluate";
  readonly generation: number;
}

/** What each worker receives as workerData. */
export interface WorkerSetup {
  /** The worker's own entry module (crf-objective-worker.ts / .js); the bootstrap imports it. */
  readonly entry: string;
  readonly registerTsx: boolean;
  /** Undefined: the built-in CRF encoder. */
  readonly encoderModule: string | undefined;
  readonly exportName: string;
  readonly descriptor: unknown;
  readonly range: { readonly begin: number; readonly end: number };
  readonly weights: SharedArrayBuffer;
  readonly gradient: SharedArrayBuffer;
  /** Int32 [generation requested, generation done]: orders the shared-memory reads and writes. */
  readonly control: SharedArrayBuffer;
}

interface Pending {
  resolve(loss: number): void;
  reject(error: Error): void;
}

interface Shard {
  readonly worker: Worker;
  readonly gradient: Float64Array;
  readonly control: Int32Array;
  readonly begin: number;
  readonly end: number;
  pending: Pending | null;
  failure: Error | null;
}

const TS_MODULE = /\.[mc]?ts$/;

function moduleHref(module: URL | string): string {
  if (module instanceof URL) return module.href;
  if (/^[a-z][a-z0-9+.-]*:/i.test(module)) return module;
  throw new RangeError(
    `encoderModule must be a URL or an absolute URL string (file:…), got "${module}"`,
  );
}

/** Contiguous shard boundaries with about the same token count each; every shard non-empty. */
export function shardBoundaries(encoder: Encoder, shards: number): Int32Array {
  const n = encoder.numInstances;
  const count = Math.max(1, Math.min(shards, n));
  let total = 0;
  for (let i = 0; i < n; i++) total += encoder.instanceLength(i);
  const bounds = new Int32Array(count + 1);
  bounds[count] = n;
  let cumulative = 0;
  let s = 1;
  for (let i = 0; i < n && s < count; i++) {
    cumulative += encoder.instanceLength(i);
    // Close shard s after instance i when it reached its share, or when exactly one instance per
    // remaining shard is left; at most one shard closes per instance, so none is empty.
    if (cumulative >= (total * s) / count || n - (i + 1) === count - s) {
      bounds[s] = i + 1;
      s++;
    }
  }
  return bounds;
}

export class ObjectivePool {
  /** The shared weight vector; pass it to `evaluate` to avoid a copy. */
  readonly weights: Float64Array;
  private readonly shards: Shard[];
  private generation = 0;
  private closed = false;

  private constructor(
    private readonly encoder: Encoder,
    weights: Float64Array,
    private readonly mainEnd: number,
    shards: Shard[],
  ) {
    this.weights = weights;
    this.shards = shards;
  }

  /** Threads computing the objective, the main thread included. */
  get threads(): number {
    return this.shards.length + 1;
  }

  /** Starts threads − 1 workers and waits until each has restored its encoder. */
  static async open(encoder: Encoder, options: ObjectivePoolOptions): Promise<ObjectivePool> {
    if (!Number.isInteger(options.threads) || options.threads < 2) {
      throw new RangeError(`ObjectivePool: threads must be an integer ≥ 2, got ${options.threads}`);
    }
    if (options.signal?.aborted) throw new AbortError();
    const bounds = shardBoundaries(encoder, options.threads);
    const K = encoder.numWeights;
    const weights = new Float64Array(new SharedArrayBuffer(K * 8));
    const encoderModule =
      options.encoderModule === undefined ? undefined : moduleHref(options.encoderModule);
    const ext = import.meta.url.endsWith(".ts") ? "ts" : "js";
    // A distinct name (not worker.js): a bundle puts every worker entry flat beside its chunks,
    // where this URL still finds it (the CLI's build makes it an entry point of that name).
    const entry = new URL(`./crf-objective-worker.${ext}`, import.meta.url).href;
    const registerTsx =
      ext === "ts" ||
      (encoderModule !== undefined && TS_MODULE.test(new URL(encoderModule).pathname));
    const script = registerTsx
      ? new URL("./worker-bootstrap.mjs", import.meta.url)
      : new URL(entry);

    const shards: Shard[] = [];
    const pool = new ObjectivePool(encoder, weights, bounds[1]!, shards);
    const ready: Promise<void>[] = [];
    for (let s = 1; s < bounds.length - 1; s++) {
      const gradient = new SharedArrayBuffer(K * 8);
      const control = new SharedArrayBuffer(8);
      const setup: WorkerSetup = {
        entry,
        registerTsx,
        encoderModule,
        exportName: options.exportName ?? "restoreEncoder",
        descriptor: options.descriptor,
        range: { begin: bounds[s]!, end: bounds[s + 1]! },
        weights: weights.buffer as SharedArrayBuffer,
        gradient,
        control,
      };
      const worker = new Worker(script, { workerData: setup });
      const shard: Shard = {
        worker,
        gradient: new Float64Array(gradient),
        control: new Int32Array(control),
        begin: bounds[s]!,
        end: bounds[s + 1]!,
        pending: null,
        failure: null,
      };
      shards.push(shard);
      ready.push(
        new Promise<void>((resolve, reject) => {
          shard.pending = { resolve: () => resolve(), reject };
        }),
      );
      pool.listen(shard);
    }
    try {
      await pool.race(Promise.all(ready), options.signal);
    } catch (error) {
      await pool.close();
      throw error;
    }
    return pool;
  }

  private listen(shard: Shard): void {
    const fail = (error: Error) => {
      shard.failure ??= error;
      const p = shard.pending;
      shard.pending = null;
      p?.reject(error);
    };
    const where = `worker for instances ${shard.begin}..${shard.end - 1}`;
    shard.worker.on("message", (reply: WorkerReply) => {
      if (reply.type === "error") {
        fail(new Error(`${where}: ${reply.message}`));
        return;
      }
      if (reply.type === "ready") {
        if (reply.numWeights !== this.encoder.numWeights) {
          fail(
            new Error(
              `${where}: restored encoder has ${reply.numWeights} weights, expected ${this.encoder.numWeights}`,
            ),
          );
          return;
        }
      }
      const p = shard.pending;
      shard.pending = null;
      p?.resolve(reply.type === "done" ? reply.loss : 0);
    });
    shard.worker.on("error", (error: Error) => fail(new Error(`${where}: ${error.message}`)));
    shard.worker.on("exit", (code: number) => {
      if (!this.closed) fail(new Error(`${where} exited unexpectedly (code ${code})`));
    });
  }

  private race<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
    if (signal === undefined) return work;
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => reject(new AbortError());
      if (signal.aborted) {
        onAbort();
        return;
      }
      signal.addEventListener("abort", onAbort, { once: true });
      work.then(
        (v) => {
          signal.removeEventListener("abort", onAbort);
          resolve(v);
        },
        (e: unknown) => {
          signal.removeEventListener("abort", onAbort);
          reject(e);
        },
      );
    });
  }

  /**
   * Σ_i loss_i(weights), writing Σ_i ∇loss_i into `gradient` (overwritten). Rejects with the core's
   * AbortError when `signal` fires while workers are busy; close() the pool afterwards.
   */
  async evaluate(
    weights: Float64Array,
    gradient: Float64Array,
    signal?: AbortSignal,
  ): Promise<number> {
    if (this.closed) throw new Error("ObjectivePool: evaluate() after close()");
    const K = this.encoder.numWeights;
    if (weights.length !== K || gradient.length !== K) {
      throw new RangeError(`ObjectivePool: weights and gradient must have length ${K}`);
    }
    for (const shard of this.shards) if (shard.failure) throw shard.failure;
    if (signal?.aborted) throw new AbortError();
    if (weights !== this.weights) this.weights.set(weights);
    const generation = ++this.generation;
    const results: Promise<number>[] = [];
    for (const shard of this.shards) {
      results.push(
        new Promise<number>((resolve, reject) => {
          shard.pending = { resolve, reject };
        }),
      );
      Atomics.store(shard.control, 0, generation);
      shard.worker.postMessage({ type: "evaluate", generation } satisfies WorkerRequest);
    }
    // Attach handlers now: a worker may fail while the main thread is busy with its shard.
    const all = this.race(Promise.all(results), signal);
    all.catch(() => {});

    gradient.fill(0);
    let loss = sumLoss(this.encoder, 0, this.mainEnd, this.weights, gradient);

    const mainDone = performance.now();
    const losses = await all;
    const reduceStart = performance.now();
    this.waitSeconds += (reduceStart - mainDone) / 1000;
    for (let s = 0; s < this.shards.length; s++) {
      const shard = this.shards[s]!;
      if (Atomics.load(shard.control, 1) !== generation) {
        throw new Error(`ObjectivePool: worker ${s + 1} answered out of order`);
      }
      const g = shard.gradient;
      for (let j = 0; j < K; j++) gradient[j] = gradient[j]! + g[j]!;
      loss += losses[s]!;
    }
    this.reduceSeconds += (performance.now() - reduceStart) / 1000;
    return loss;
  }

  /**
   * Seconds the main thread spent, over all evaluations so far, summing the workers' gradients
   * into its own, and waiting for workers after finishing its shard (the crf-profile bench).
   */
  reduceSeconds = 0;
  waitSeconds = 0;

  /** Terminates every worker; safe to call more than once. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const shard of this.shards) {
      const p = shard.pending;
      shard.pending = null;
      p?.reject(new Error("ObjectivePool closed"));
    }
    await Promise.all(this.shards.map((s) => s.worker.terminate()));
  }

  /** How many workers are still running (for tests of the teardown). */
  get liveWorkers(): number {
    let n = 0;
    for (const s of this.shards) if (s.worker.threadId !== -1) n++;
    return n;
  }
}
