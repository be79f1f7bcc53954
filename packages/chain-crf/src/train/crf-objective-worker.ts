/**
 * Worker-thread side of ObjectivePool: restores an encoder over one shard of instances and, on
 * each request, writes Σ_{i in shard} ∇loss_i(w) into its shared gradient buffer.
 */
import { parentPort, workerData } from "node:worker_threads";
import type { ObjectiveSource, SequenceObjective } from "../encoder/objective.js";
import type { Encoder } from "../encoder.js";
import type { WorkerReply, WorkerRequest, WorkerSetup } from "./pool.js";
import { sumLoss } from "./types.js";

type Restore = (descriptor: unknown, range: { begin: number; end: number }) => Encoder;

if (parentPort === null) {
  throw new Error("chain-crf train/crf-objective-worker must run in a worker thread");
}
const port = parentPort;
const setup = workerData as WorkerSetup;
const reply = (message: WorkerReply) => port.postMessage(message);
const describe = (error: unknown) =>
  error instanceof Error ? (error.stack ?? error.message) : String(error);

async function start(): Promise<void> {
  let encoder: Encoder;
  let first: number;
  let last: number;
  try {
    // No module named: the built-in CRF encoder, imported relatively (a bundler follows this).
    const module = (
      setup.encoderModule === undefined
        ? await import("../crf-encoder.js")
        : await import(setup.encoderModule)
    ) as Record<string, unknown>;
    const restore = module[setup.exportName];
    if (typeof restore !== "function") {
      const where = setup.encoderModule ?? "the CRF encoder module";
      throw new Error(`${where} does not export a function "${setup.exportName}"`);
    }
    const { begin, end } = setup.range;
    encoder = (restore as Restore)(setup.descriptor, { begin, end });
    await attachObjective(encoder, setup.descriptor);
    // The restored encoder numbers its instances from 0 (local) or keeps the global numbering.
    if (encoder.numInstances === end - begin) {
      first = 0;
      last = end - begin;
    } else if (encoder.numInstances >= end) {
      first = begin;
      last = end;
    } else {
      throw new Error(
        `restored encoder has ${encoder.numInstances} instances for the range ${begin}..${end - 1}`,
      );
    }
  } catch (error) {
    reply({ type: "error", message: `cannot restore the encoder: ${describe(error)}` });
    return;
  }
  const weights = new Float64Array(setup.weights);
  const gradient = new Float64Array(setup.gradient);
  const control = new Int32Array(setup.control);
  port.on("message", (request: WorkerRequest) => {
    try {
      // Atomic read pairs with the main thread's Atomics.store after it wrote the weights.
      Atomics.load(control, 0);
      gradient.fill(0);
      const loss = sumLoss(encoder, first, last, weights, gradient);
      Atomics.store(control, 1, request.generation);
      reply({ type: "done", generation: request.generation, loss });
    } catch (error) {
      reply({ type: "error", message: describe(error) });
    }
  });
  reply({ type: "ready", numWeights: encoder.numWeights, numInstances: encoder.numInstances });
}

/**
 * A descriptor that names a plug-in objective ({@link ObjectiveSource}) gets it rebuilt here and
 * set on the restored encoder: the objective's module is imported asynchronously, which the
 * synchronous restore function cannot do.
 */
async function attachObjective(encoder: Encoder, descriptor: unknown): Promise<void> {
  if (typeof descriptor !== "object" || descriptor === null || !("objective" in descriptor)) return;
  const source = (descriptor as { objective?: ObjectiveSource }).objective;
  if (source === undefined) return;
  const module = (await import(source.module)) as Record<string, unknown>;
  const make = module[source.exportName];
  if (typeof make !== "function") {
    throw new Error(`${source.module} does not export a function "${source.exportName}"`);
  }
  const target = encoder as Encoder & { setObjective?: (objective: SequenceObjective) => void };
  if (typeof target.setObjective !== "function") {
    throw new Error("the restored encoder cannot take a training objective (no setObjective)");
  }
  target.setObjective((make as (options: unknown) => SequenceObjective)(source.options));
}

await start();
