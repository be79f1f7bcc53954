/**
 * Bcrf inference with each half-step's clusters split across threads (corro's point: every
 * cluster of a half-step is independent, so the parallel depth per half-step is O(1) in n). The
 * threads share the iterate's factors on SharedArrayBuffers and meet at a barrier after each
 * half-step (Atomics.wait / notify, a few microseconds), so the split pays only when a half-step
 * holds enough work: long sequences. Node only (worker_threads). Every thread runs the JavaScript
 * half-step kernel (a WebAssembly memory is per thread here; sharing one needs a shared-memory
 * module), so the results equal `new BcrfWorkspace({ simd: false })`'s exactly and the SIMD
 * kernel's up to summation order.
 */
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { BcrfWorkspace, clusterCount, projectClusterRange } from "../inference/bcrf-workspace.js";
import type { ChainInput } from "../inference/chain-input.js";
import { bcrfInference } from "../inference/ibp.js";
import type { IbpOptions, IbpResult } from "../inference/ibp-types.js";
import { COMMAND, CONTROL, type ParallelSetup, shareStart, WORKER_FAILED } from "./protocol.js";

export interface ParallelBcrfOptions {
  /** Threads, the calling one included (default: the machine's cores, at least 2). */
  readonly threads?: number;
  /** Longest sequence the shared buffers hold; longer ones run on the calling thread alone. */
  readonly maxLength: number;
  /** Largest label count. */
  readonly maxLabels: number;
}

export class ParallelBcrf {
  readonly threads: number;
  readonly maxLength: number;
  readonly maxLabels: number;
  /** The calling thread's workspace: `marginals` after {@link infer}. */
  readonly workspace: BcrfWorkspace;
  readonly #workers: Worker[];
  readonly #control: Int32Array;
  readonly #results: Float64Array;
  readonly #sequential = new BcrfWorkspace();
  #closed = false;

  private constructor(
    options: Required<ParallelBcrfOptions>,
    workers: Worker[],
    control: Int32Array,
    results: Float64Array,
    ws: BcrfWorkspace,
  ) {
    this.threads = options.threads;
    this.maxLength = options.maxLength;
    this.maxLabels = options.maxLabels;
    this.#workers = workers;
    this.#control = control;
    this.#results = results;
    this.workspace = ws;
  }

  /** Starts threads − 1 workers over buffers for sequences up to maxLength × maxLabels. */
  static async open(options: ParallelBcrfOptions): Promise<ParallelBcrf> {
    const threads = options.threads ?? Math.max(2, availableParallelism());
    const { maxLength, maxLabels } = options;
    for (const [name, value, min] of [
      ["threads", threads, 2],
      ["maxLength", maxLength, 1],
      ["maxLabels", maxLabels, 1],
    ] as const) {
      if (!Number.isInteger(value) || value < min) {
        throw new RangeError(`ParallelBcrf: ${name} must be an integer ≥ ${min}, got ${value}`);
      }
    }
    const ws = new BcrfWorkspace({ simd: false });
    ws.ensure(maxLength, maxLabels, 1);
    const nodes = maxLength * maxLabels;
    const f64 = (length: number) => new SharedArrayBuffer(8 * Math.max(1, length));
    const buffers = {
      kernel: f64(maxLabels * maxLabels),
      rowScale: f64(nodes),
      colScale: f64(nodes),
      projected: new SharedArrayBuffer(Math.max(1, maxLength)),
    };
    // The calling thread works on the very arrays the workers see.
    ws.kernel = new Float64Array(buffers.kernel);
    ws.rowScale = new Float64Array(buffers.rowScale);
    ws.colScale = new Float64Array(buffers.colScale);
    ws.projected = new Uint8Array(buffers.projected);
    const control = new Int32Array(new SharedArrayBuffer(4 * (CONTROL.done + threads)));
    const results = new Float64Array(new SharedArrayBuffer(8 * threads));
    const ext = import.meta.url.endsWith(".ts") ? "ts" : "js";
    // A distinct name (not worker.js): a bundle puts every worker entry flat beside its chunks,
    // where this URL still finds it (the CLI's build makes it an entry point of that name).
    const entry = new URL(`./bcrf-ibp-worker.${ext}`, import.meta.url).href;
    const registerTsx = ext === "ts";
    const script = registerTsx
      ? new URL("./worker-bootstrap.mjs", import.meta.url)
      : new URL(entry);
    const workers: Worker[] = [];
    const started: Promise<void>[] = [];
    for (let index = 1; index < threads; index++) {
      const setup: ParallelSetup = {
        entry,
        registerTsx,
        index,
        threads,
        control: control.buffer as SharedArrayBuffer,
        results: results.buffer as SharedArrayBuffer,
        ...buffers,
        maxLabels,
      };
      const worker = new Worker(script, { workerData: setup });
      workers.push(worker);
      started.push(
        new Promise<void>((resolve, reject) => {
          worker.once("online", () => resolve());
          worker.once("error", reject);
        }),
      );
    }
    await Promise.all(started);
    // Blocked in Atomics.wait between calls, a worker would keep the process alive without close().
    for (const worker of workers) worker.unref();
    return new ParallelBcrf({ threads, maxLength, maxLabels }, workers, control, results, ws);
  }

  /**
   * {@link bcrfInference} with the half-steps split across the threads; marginals in
   * `result workspace.marginals`. Sequences longer than maxLength, with more labels than
   * maxLabels or with position-specific transitions run on the calling thread alone.
   */
  infer(input: ChainInput, options: IbpOptions): { result: IbpResult; workspace: BcrfWorkspace } {
    if (this.#closed) throw new Error("ParallelBcrf is closed");
    if (input.n > this.maxLength || input.L > this.maxLabels || input.transitionStride !== 0) {
      return {
        result: bcrfInference(input, options, this.#sequential),
        workspace: this.#sequential,
      };
    }
    const control = this.#control;
    const results = this.#results;
    const threads = this.threads;
    const halfStep = (ws: BcrfWorkspace, first: number, n: number): number => {
      const count = clusterCount(first, n);
      control[CONTROL.first] = first;
      control[CONTROL.n] = n;
      control[CONTROL.L] = ws.L;
      control[CONTROL.shared] = ws.sharedKernel ? 1 : 0;
      control[CONTROL.command] = COMMAND.halfStep;
      const generation = Atomics.add(control, CONTROL.generation, 1) + 1;
      Atomics.notify(control, CONTROL.generation);
      let combined = projectClusterRange(ws, first, 0, shareStart(count, 1, threads));
      for (let w = 1; w < threads; w++) {
        for (;;) {
          const done = Atomics.load(control, CONTROL.done + w);
          if (done === generation) break;
          Atomics.wait(control, CONTROL.done + w, done);
        }
        const v = results[w]!;
        if (v === WORKER_FAILED) {
          throw new Error(
            `ParallelBcrf: worker ${w} failed (see its error event); close() this instance`,
          );
        }
        if (Number.isNaN(v) || Number.isNaN(combined)) combined = Number.NaN;
        else if (v < 0 || combined < 0) combined = -1;
        else if (v > combined) combined = v;
      }
      return combined;
    };
    return {
      result: bcrfInference(input, options, this.workspace, { step: halfStep }),
      workspace: this.workspace,
    };
  }

  /** Stops the workers. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // Unreferenced workers would let the process exit before their "exit" events arrive.
    for (const worker of this.#workers) worker.ref();
    this.#control[CONTROL.command] = COMMAND.exit;
    Atomics.add(this.#control, CONTROL.generation, 1);
    Atomics.notify(this.#control, CONTROL.generation);
    await Promise.all(this.#workers.map((w) => new Promise((resolve) => w.once("exit", resolve))));
  }
}
