/**
 * Worker threads that read, tag and write batches of lines (the thread that reads the stream only
 * cuts it into lines and writes the text that comes back). Each worker opens the tagger's spec once
 * (from workerData: the model's bytes, constraints and plug-ins); a batch goes to the worker with the fewest batches pending,
 * and its promise resolves with that batch's results, so the caller reassembles input order by
 * awaiting the promises in the order it made them.
 *
 * Plain worker_threads rather than piscina: a worker must register tsx before it imports its
 * TypeScript module (tests run the sources), which piscina's own worker entry, importing the task
 * module by itself, does not let us do; and what is left — least-busy dispatch and one promise per
 * batch — is a few lines. chain-crf's ObjectivePool does not fit either: it shares gradients over
 * SharedArrayBuffers in lockstep, not independent batches.
 */
import { Worker } from "node:worker_threads";
import { AbortError, LagrangeError, type LagrangeErrorCode } from "@lagrange/core";
import type { Sentence } from "@lagrange/datasets";
import type { SequenceTagger, TaggedBatch } from "@lagrange/recipes";
import { type LineBatchResult, type LineBatchSpec, sentenceUnit } from "../stream/line-batch.js";
import type { LineBatch } from "../stream/records.js";
import type {
  PlainTagRequest,
  TagWorkerData,
  TagWorkerReply,
  TagWorkerRequest,
} from "./messages.js";

export interface TagPoolOptions {
  /** A sentence-unit tagger: each worker opens its `spec` (plain data) once. */
  readonly tagger: Pick<SequenceTagger, "unit" | "description" | "modelName" | "spec">;
  readonly threads: number;
  /** How batches of lines are read and written (the worker parses them and formats the output). */
  readonly lines?: LineBatchSpec;
  readonly signal?: AbortSignal;
}

export interface TagPool {
  readonly threads: number;
  /** Reads, tags and writes a batch of lines; `stripGold`: the last CoNLL column is an input. */
  run(batch: LineBatch, stripGold: boolean): Promise<LineBatchResult>;
  /**
   * Tags sentences already read (a whole file of a format that does not stream: CoNLL-U, UMass,
   * inline) as the tagger's `tag` does; an untaggable sentence is a failure item.
   */
  tagSentences(sentences: readonly Sentence[], request?: PlainTagRequest): Promise<TaggedBatch>;
  /** Terminates every worker; pending batches reject. Safe to call more than once. */
  close(): Promise<void>;
}

interface Pending {
  readonly done: (result: unknown) => void;
  readonly fail: (error: Error) => void;
}

interface Slot {
  readonly worker: Worker;
  readonly pending: Map<number, Pending>;
}

export async function openTagPool(options: TagPoolOptions): Promise<TagPool> {
  const { threads, signal } = options;
  if (!Number.isInteger(threads) || threads < 1) {
    throw new RangeError(`openTagPool: threads must be an integer ≥ 1, got ${threads}`);
  }
  const tagger = sentenceUnit(options.tagger, "shared among threads");
  signal?.throwIfAborted();
  const ext = import.meta.url.endsWith(".ts") ? "ts" : "js";
  // A distinct name (not worker.js): the CLI's bundle puts every worker entry flat beside its
  // chunks under this name, where this URL still finds it.
  const entry = new URL(`./tag-worker.${ext}`, import.meta.url).href;
  const registerTsx = ext === "ts";
  const script = registerTsx ? new URL("./worker-bootstrap.mjs", import.meta.url) : new URL(entry);
  const data: TagWorkerData = {
    entry,
    registerTsx,
    tagging: tagger.spec,
    lines: options.lines,
  };
  const slots: Slot[] = [];
  let closed = false;
  let broken: Error | undefined;
  const breakAll = (error: Error) => {
    broken ??= error;
    for (const slot of slots) {
      for (const p of slot.pending.values()) p.fail(error);
      slot.pending.clear();
    }
  };
  const ready: Promise<void>[] = [];
  for (let w = 0; w < threads; w++) {
    const worker = new Worker(script, { workerData: data });
    const slot: Slot = { worker, pending: new Map() };
    slots.push(slot);
    ready.push(
      new Promise<void>((started, failedToStart) => {
        worker.on("message", (reply: TagWorkerReply) => {
          if (reply.type === "ready") return started();
          if (reply.type === "result") {
            const p = slot.pending.get(reply.id);
            slot.pending.delete(reply.id);
            p?.done(reply.result);
            return;
          }
          const error = rebuild(reply.message, reply.code);
          if (reply.id < 0) return failedToStart(error);
          const p = slot.pending.get(reply.id);
          slot.pending.delete(reply.id);
          p?.fail(error);
        });
        worker.on("error", (error: Error) => {
          const wrapped = new Error(`tag worker ${w + 1}: ${error.message}`, { cause: error });
          failedToStart(wrapped);
          breakAll(wrapped);
        });
        worker.on("exit", (code: number) => {
          // Closed (aborted) while starting: the start fails too, or nothing would ever settle
          // it and the process would end with its work unfinished (exit 13, files left).
          if (closed) return failedToStart(new AbortError());
          const error = new Error(`tag worker ${w + 1} exited (code ${code})`);
          failedToStart(error);
          breakAll(error);
        });
      }),
    );
  }
  const close = async () => {
    if (closed) return;
    closed = true;
    breakAll(new AbortError());
    await Promise.all(slots.map((s) => s.worker.terminate()));
  };
  const onAbort = () => void close();
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    await Promise.all(ready);
  } catch (error) {
    signal?.removeEventListener("abort", onAbort);
    await close();
    throw error;
  }
  let nextId = 0;
  // The least busy worker gets the request; its promise settles with the reply to its id.
  const send = <T>(request: TagWorkerRequest): Promise<T> => {
    if (broken !== undefined) return Promise.reject(broken);
    if (closed) return Promise.reject(new AbortError());
    let best = slots[0]!;
    for (const slot of slots) if (slot.pending.size < best.pending.size) best = slot;
    return new Promise<T>((done, fail) => {
      best.pending.set(request.id, { done: done as (result: unknown) => void, fail });
      best.worker.postMessage(request);
    });
  };
  return {
    threads,
    run: (batch, stripGold) => send<LineBatchResult>({ id: nextId++, batch, stripGold }),
    tagSentences: (sentences, request) => send<TaggedBatch>({ id: nextId++, sentences, request }),
    close: async () => {
      signal?.removeEventListener("abort", onAbort);
      await close();
    },
  };
}

/** A worker's error as the main thread's: a LagrangeError keeps its code (and so its exit code). */
function rebuild(message: string, code: string | undefined): Error {
  return code === undefined
    ? new Error(message)
    : new LagrangeError(code as LagrangeErrorCode, message);
}
