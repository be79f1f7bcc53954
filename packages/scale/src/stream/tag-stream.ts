import { type Decoding, type DecodingSummary, DecodingTally, LagrangeError } from "@lagrange/core";
import { DataFormatError } from "@lagrange/datasets";
import type {
  ConfidenceRequest,
  DecodingStats,
  SequenceTagger,
  TaggingTime,
} from "@lagrange/recipes";
import {
  batchGoldView,
  type LineBatchResult,
  type LineBatchSpec,
  sentenceUnit,
  tagLineBatch,
} from "./line-batch.js";
import {
  type LineBatch,
  readLineBatches,
  type StreamFormat,
  type StreamRecord,
} from "./records.js";

/** Where tagged records go: a Node writable (back-pressure: its `drain`) or an async writer. */
export type TagSink = NodeJS.WritableStream | { write(data: string): Promise<void> | void };

export interface TagStreamOptions {
  /**
   * The tagger (a sentence-unit one): the calling thread tags with it, and each worker thread
   * opens its `spec` once (the model's bytes: the file is not read again).
   */
  readonly tagger: SequenceTagger;
  /** Per-token marginals and p(y|x) of each output (`lagrange tag --marginals`, `--probability`). */
  readonly confidence?: ConfidenceRequest;
  /** Lines of CoNLL or NDJSON, as text or UTF-8 byte chunks (a Node Readable, a file stream). */
  readonly input: AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>;
  readonly inputFormat: StreamFormat;
  /** The input's name in messages and positions: a path, or `<stdin>`. Default `<stream>`. */
  readonly inputName?: string;
  readonly output: TagSink;
  /** Default: the input format. */
  readonly outputFormat?: StreamFormat;
  /** Sentences read but not yet written, at most (memory bound). Default 1024. */
  readonly window?: number;
  /** Sentences per batch (per message to a worker). Default: from the window and threads, ≤ 64. */
  readonly batchSize?: number;
  /** Worker threads that tag; 1 (default) tags on the calling thread. */
  readonly threads?: number;
  /** A malformed or untaggable record: stop with its file:line (default), or skip and report it. */
  readonly onError?: "stop" | "skip";
  /** NDJSON output: add the decoder's figures and the constraints that fired. */
  readonly explain?: boolean;
  /** `none`: every column is an input; `auto` (default): read off the width, as `lagrange tag` does. */
  readonly gold?: "auto" | "none";
  readonly signal?: AbortSignal;
  /** After each batch written. */
  readonly onProgress?: (progress: TagStreamProgress) => void;
  /** Each skipped record, as it is skipped (onError `skip`). */
  readonly onSkip?: (skipped: SkippedRecord) => void;
}

export interface TagStreamProgress {
  readonly sentences: number;
  readonly tokens: number;
  readonly skipped: number;
}

export interface SkippedRecord {
  /** `file:line` of the record. */
  readonly place: string;
  readonly reason: string;
}

export interface TagStreamResult {
  /** Sentences written. */
  readonly sentences: number;
  readonly tokens: number;
  /** Records skipped (onError `skip`): the first {@link MAX_SKIPPED_KEPT}; `skippedCount` counts all. */
  readonly skipped: readonly SkippedRecord[];
  readonly skippedCount: number;
  readonly seconds: number;
  /** Time per phase summed over threads (their sum exceeds `seconds` with several threads). */
  readonly time: TaggingTime;
  /** The decoder's tally (a constrained decoder; undefined otherwise). */
  readonly decoding?: DecodingSummary;
  /**
   * Sentences read against hard constraints by the independent check, and those whose output
   * breaks one (absent without hard constraints).
   */
  readonly independentCheck?: { readonly checked: number; readonly broken: number };
  /** Places of sentences that hit the ILP time limit (labels the best found, not proven optimal). */
  readonly timedOut: readonly string[];
  /** Token accuracy against gold, computed as records pass (undefined without gold). */
  readonly evaluation?: {
    readonly tokens: number;
    readonly correct: number;
    readonly accuracy: number;
  };
  /** Whether the input carried gold labels (as read off its width). */
  readonly labeled: boolean;
}

export const MAX_SKIPPED_KEPT = 1000;
const MAX_TIMED_OUT_KEPT = 1000;

/** Where batches are read, tagged and written: the calling thread, or a worker pool. */
interface BatchRunner {
  run(batch: LineBatch, stripGold: boolean): Promise<LineBatchResult>;
  close(): Promise<void>;
}

interface Pending {
  readonly result: Promise<LineBatchResult>;
  /** Records in the batch: what the window counts. */
  readonly records: number;
}

/**
 * Tags a stream of CoNLL or NDJSON records into a sink, in input order, with at most `window`
 * sentences read and not yet written whatever the input's size: reading waits for writing, and
 * writing waits for the sink's drain. The calling thread only cuts the input into batches of
 * lines and writes the text that comes back: with `threads` > 1, worker threads (each opening the
 * tagger's spec once) read, tag and write the batches, so that the
 * reading thread does not become the bottleneck on all cores. A malformed record stops the stream with its
 * `file:line` after everything before it is written (onError `stop`), or is reported and skipped
 * (`skip`: see `skipped`, never a silently shorter output).
 */
export async function tagStream(options: TagStreamOptions): Promise<TagStreamResult> {
  const started = performance.now();
  const file = options.inputName ?? "<stream>";
  const threads = options.threads ?? 1;
  if (!Number.isInteger(threads) || threads < 1) {
    throw new LagrangeError("usage", `threads: expected an integer ≥ 1, got ${threads}`);
  }
  const window = options.window ?? 1024;
  if (!Number.isInteger(window) || window < 1) {
    throw new LagrangeError("usage", `window: expected an integer ≥ 1, got ${window}`);
  }
  const batchSize =
    options.batchSize ?? Math.max(1, Math.min(64, Math.floor(window / (2 * threads))));
  const outputFormat = options.outputFormat ?? options.inputFormat;
  const explain = options.explain === true;
  if (explain && outputFormat !== "ndjson") {
    throw new LagrangeError(
      "usage",
      "explain: the decoder's figures are written in NDJSON output only",
    );
  }
  const skipBad = options.onError === "skip";
  const { signal } = options;
  const tagger = sentenceUnit(options.tagger, "tagged as a stream");
  const { confidence } = options;
  const spec: LineBatchSpec = {
    format: options.inputFormat,
    file,
    outputFormat,
    explain,
    stopAtError: !skipBad,
    ...(confidence?.marginals === true || confidence?.probability === true ? { confidence } : {}),
  };
  const runner = await openRunner(tagger, threads, spec, signal);
  const { constrained } = tagger;
  const write = writer(options.output);
  const tally = new DecodingTally();
  let checked = 0;
  let broken = 0;
  const skipped: SkippedRecord[] = [];
  const timedOut: string[] = [];
  const time = { sentences: 0, tokens: 0, featuresMs: 0, scoringMs: 0, decodingMs: 0 };
  let skippedCount = 0;
  let sentences = 0;
  let tokens = 0;
  let goldTokens = 0;
  let correct = 0;
  /** Decided on the first sentence: whether its last column is an input (not gold). */
  let stripGold: boolean | undefined;
  let labeled = false;

  const skip = (record: SkippedRecord) => {
    skippedCount++;
    if (skipped.length < MAX_SKIPPED_KEPT) skipped.push(record);
    options.onSkip?.(record);
  };
  /** Decides, on the stream's first sentence, whether its last CoNLL column is gold or an input. */
  const queue: Pending[] = [];
  let inFlight = 0;
  const writeHead = async () => {
    const head = queue.shift()!;
    inFlight -= head.records;
    const result = await head.result;
    time.featuresMs += result.time.featuresMs;
    time.scoringMs += result.time.scoringMs;
    time.decodingMs += result.time.decodingMs;
    let text = "";
    for (const part of result.parts) {
      if (typeof part === "string") {
        text += part;
        continue;
      }
      if (!skipBad) {
        await write(text);
        const f = part.format;
        throw f === undefined
          ? new LagrangeError("bad-input", `${part.place}: ${part.reason}`)
          : new DataFormatError(f.file, f.line, f.detail, f.column);
      }
      skip({ place: part.place, reason: part.reason });
    }
    sentences += result.sentences;
    tokens += result.tokens;
    time.sentences += result.sentences;
    time.tokens += result.tokens;
    goldTokens += result.goldTokens;
    correct += result.correct;
    if (constrained) for (const stats of result.decodings) tally.add(decodingOfStats(stats));
    for (const stats of result.decodings) {
      if (stats.brokenHard === undefined) continue;
      checked++;
      if (stats.brokenHard > 0) broken++;
    }
    for (const place of result.timedOut) {
      if (timedOut.length < MAX_TIMED_OUT_KEPT) timedOut.push(place);
    }
    await write(text);
    options.onProgress?.({ sentences, tokens, skipped: skippedCount });
  };

  try {
    for await (const batch of readLineBatches(options.input, {
      format: options.inputFormat,
      file,
      records: batchSize,
      ...(signal === undefined ? {} : { signal }),
    })) {
      signal?.throwIfAborted();
      if (stripGold === undefined) {
        const decided = batchGoldView(batch, spec, tagger, options.gold ?? "auto");
        stripGold = decided?.stripGold;
        labeled = decided?.labeled ?? false;
      }
      // On one thread a batch is tagged when it is handed over: written at once, its output never
      // outlives a few scavenges (held across the window, it was promoted and doubled the heap).
      while (queue.length > 0 && (threads === 1 || inFlight + batch.records > window)) {
        await writeHead();
      }
      const result = runner.run(batch, stripGold ?? false);
      // Awaited in order by writeHead; until then a failure must not count as unhandled.
      result.catch(() => {});
      queue.push({ result, records: batch.records });
      inFlight += batch.records;
    }
    while (queue.length > 0) await writeHead();
  } finally {
    // Batches still running when a record stopped the stream are dropped with the workers.
    await runner.close();
  }
  return {
    sentences,
    tokens,
    skipped,
    skippedCount,
    seconds: (performance.now() - started) / 1000,
    time,
    ...(constrained ? { decoding: tally.summary() } : {}),
    ...(checked > 0 ? { independentCheck: { checked, broken } } : {}),
    timedOut,
    ...(goldTokens > 0
      ? { evaluation: { tokens: goldTokens, correct, accuracy: correct / goldTokens } }
      : {}),
    labeled,
  };
}

/**
 * The tally reads a Decoding; a worker sends its figures only (not the label arrays), so the
 * labels are stood in for by one cell that differs exactly when the decoding changed them.
 */
export function decodingOfStats(stats: DecodingStats): Decoding {
  return {
    labels: ONE_ZERO,
    primal: stats.primal,
    ...(stats.dual === undefined ? {} : { dual: stats.dual }),
    status: stats.status as Decoding["status"],
    iterations: stats.iterations,
    certified: stats.certified,
    gap: stats.gap,
    constraintStats: {
      multipliers: NO_MULTIPLIERS,
      firstLabels: stats.changed ? ONE_ONE : ONE_ZERO,
      firstViolated: stats.firstViolated,
      violated: stats.violated,
      hardViolated: stats.hardViolated,
    },
  };
}
const ONE_ZERO = new Int32Array([0]);
const ONE_ONE = new Int32Array([1]);
const NO_MULTIPLIERS = new Float64Array(0);

async function openRunner(
  tagger: SequenceTagger,
  threads: number,
  spec: LineBatchSpec,
  signal: AbortSignal | undefined,
): Promise<BatchRunner> {
  if (threads === 1) {
    return {
      run: (batch, stripGold) => tagLineBatch(tagger, batch, stripGold, spec, signal),
      close: async () => {},
    };
  }
  const { openTagPool } = await import("../pool/tag-pool.js");
  const pool = await openTagPool({
    tagger,
    threads,
    lines: spec,
    ...(signal === undefined ? {} : { signal }),
  });
  return { run: (batch, stripGold) => pool.run(batch, stripGold), close: () => pool.close() };
}

/** `write` with back-pressure: a Node writable's `drain`, or the writer's own promise. */
function writer(sink: TagSink): (text: string) => Promise<void> {
  const node = sink as NodeJS.WritableStream;
  if (typeof node.once === "function" && typeof node.removeListener === "function") {
    return (text) =>
      new Promise<void>((done, fail) => {
        if (text === "") return done();
        const failed = (error: Error) => {
          node.removeListener("drain", drained);
          fail(error);
        };
        const drained = () => {
          node.removeListener("error", failed);
          done();
        };
        if (node.write(text)) return done();
        node.once("drain", drained).once("error", failed);
      });
  }
  const plain = sink as { write(data: string): Promise<void> | void };
  return async (text) => {
    if (text !== "") await plain.write(text);
  };
}

export type { StreamFormat, StreamRecord };
