import { createHash } from "node:crypto";
import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import type { CrfModel } from "@lagrange/chain-crf";
import { LagrangeError } from "@lagrange/core";
import {
  type Corpus,
  DataFormatError,
  parseConll,
  parseConllu,
  parseInlineTags,
  type Sentence,
  tokenPlace,
} from "@lagrange/datasets";
import { InfeasibleSentenceError, inputForModel, openTagger, type Tagger } from "@lagrange/recipes";
import { conllRecord } from "../stream/format.js";
import { batchGoldView, type LineBatchSpec, tagLineBatch } from "../stream/line-batch.js";
import { readLineBatches } from "../stream/records.js";
import { ThreadTagger } from "../stream/setup.js";
import type { TagJobSpec } from "./spec.js";

export interface ShardInput {
  readonly text: string;
  /** The corpus line the shard's text starts on. */
  readonly firstLine: number;
}

export interface ShardOutput {
  /** One line per token (input columns, then the predicted label), a blank line per sentence. */
  readonly text: string;
  readonly sentences: number;
  readonly tokens: number;
}

export function sha256Hex(bytes: Uint8Array | string): string {
  return createHash("sha256").update(bytes).digest("hex");
}

interface ShardTagger {
  readonly model: CrfModel;
  readonly tagger: Tagger;
  /** The same tagger as the stream's batches use (CoNLL shards). */
  readonly thread: ThreadTagger;
}

/**
 * The bytes of a spec's model, checked against its checksum: where they may come from is the
 * worker's choice (see `readSpecModel`), never the spec's.
 */
export type ModelReader = (spec: TagJobSpec) => Promise<Uint8Array>;

/**
 * One tagger per (model, decoder, constraints) in a worker process: a model is read and its
 * decoder prepared once, however many shards and jobs use it. A failed load is not cached. The
 * model is known by where it comes from as well as by its checksum, so that every job's model
 * source passes the worker's checks (a job naming a URL is refused even if another job brought
 * the same bytes from Redis).
 */
const taggers = new Map<string, Promise<ShardTagger>>();
/**
 * Taggers kept, the least recently used dropped first: a worker serves a few models at a time,
 * and jobs (anyone who can write to Redis can queue one) must not make it keep every model.
 */
const MAX_TAGGERS = 4;

function taggerFor(spec: TagJobSpec, readModel: ModelReader): Promise<ShardTagger> {
  const key = JSON.stringify([
    spec.modelSource,
    spec.model,
    spec.modelBytes,
    spec.modelSha256,
    spec.decoder ?? "viterbi",
    spec.constraints === undefined ? "" : sha256Hex(spec.constraints),
    spec.constraintsSource ?? "",
  ]);
  let entry = taggers.get(key);
  if (entry === undefined) {
    entry = buildTagger(spec, readModel);
    entry.catch(() => taggers.delete(key));
  }
  // Most recently used last; shards in flight keep their own reference to a dropped one.
  taggers.delete(key);
  taggers.set(key, entry);
  for (const oldest of taggers.keys()) {
    if (taggers.size <= MAX_TAGGERS) break;
    taggers.delete(oldest);
  }
  return entry;
}

async function buildTagger(spec: TagJobSpec, readModel: ModelReader): Promise<ShardTagger> {
  // The one tagging entry point, given the bytes the worker read and checked.
  const opened = await openTagger({
    model: await readModel(spec),
    modelName: spec.model,
    ...(spec.decoder === undefined ? {} : { decoder: spec.decoder }),
    ...(spec.constraints === undefined
      ? {}
      : {
          constraints: { text: spec.constraints, source: spec.constraintsSource ?? "constraints" },
        }),
  });
  if (opened.kind !== "crf") {
    throw new LagrangeError(
      "usage",
      opened.kind === "general-crf"
        ? `${spec.model} is a general CRF: its groups span the corpus, so it cannot be tagged shard by shard`
        : `${spec.model} is an L2S tagger: the queue tags linear-chain CRF models`,
    );
  }
  if (opened.model.firstStage !== null) {
    throw new LagrangeError(
      "usage",
      `${spec.model} is a two-stage model (lagrange train --two-stage): its first stage's votes are counted over whole documents and the whole input, so it cannot be tagged shard by shard; tag the file whole with lagrange tag --data FILE`,
    );
  }
  const { model, registry, decoder, constraints, decodeOptions } = opened;
  const thread = new ThreadTagger(
    model,
    registry,
    { model, decoder, ...(constraints === undefined ? {} : { constraints }), decodeOptions },
    false,
  );
  return { model, tagger: opened.tagger(), thread };
}

/**
 * Checks at submission what a worker would find wrong with the spec at once (a model that does
 * not load, an unknown decoder, bad constraints), with the model's bytes in hand.
 */
export async function checkTagJobSpec(spec: TagJobSpec, modelBytes: Uint8Array): Promise<void> {
  await taggerFor(spec, async () => modelBytes);
}

function parseShard(spec: TagJobSpec, text: string): Sentence[] {
  const options = { file: spec.data };
  switch (spec.format) {
    case "conll":
      return parseConll(text, options);
    case "conllu":
      return parseConllu(text, options);
    case "inline":
      return parseInlineTags(text, options);
  }
}

/** The shard's line numbers are the corpus's: error messages point at the file the user has. */
function corpusLine(error: unknown, offset: number): unknown {
  if (!(error instanceof DataFormatError)) return error;
  return new DataFormatError(error.file, error.line + offset, error.detail, error.column);
}

/**
 * A CoNLL shard, through the streaming tagger's batch path (`tagLineBatch`, as `lagrange tag`
 * tags a file): batches of 64 sentences, so that a shard's sentences and output never live long
 * enough to be promoted (parsing a 2,000-sentence shard whole cost the queue 12–19% of the single
 * process's rate), and the event loop runs between batches (lock renewal, SIGTERM).
 */
async function tagConllShard(
  spec: TagJobSpec,
  shard: ShardInput,
  tagger: ThreadTagger,
  model: CrfModel,
  options: { readonly signal?: AbortSignal; readonly pauseMs?: number },
): Promise<ShardOutput> {
  const file = spec.data;
  const lineSpec: LineBatchSpec = {
    format: "conll",
    file,
    outputFormat: "conll",
    explain: false,
    stopAtError: true,
  };
  let stripGold: boolean | undefined;
  const out: string[] = [];
  let sentences = 0;
  let tokens = 0;
  for await (const batch of readLineBatches([shard.text], {
    format: "conll",
    file,
    // One sentence per batch when paused: the fault tests' per-sentence pause.
    records: options.pauseMs === undefined ? 64 : 1,
    firstLine: shard.firstLine,
  })) {
    await (options.pauseMs === undefined
      ? yieldToEventLoop()
      : new Promise((resolve) => setTimeout(resolve, options.pauseMs)));
    options.signal?.throwIfAborted();
    stripGold ??= batchGoldView(
      batch,
      lineSpec,
      model,
      spec.unlabeled === true ? "none" : "auto",
    )?.stripGold;
    const result = tagLineBatch(tagger, batch, stripGold ?? false, lineSpec, options.signal);
    for (const part of result.parts) {
      if (typeof part === "string") out.push(part);
      else if (part.format !== undefined) {
        const f = part.format;
        throw new DataFormatError(f.file, f.line, f.detail, f.column);
      } else throw new LagrangeError("bad-input", `${part.place}: ${part.reason}`);
    }
    sentences += result.sentences;
    tokens += result.tokens;
  }
  return { text: out.join(""), sentences, tokens };
}

/**
 * Tags one shard: THE place a shard is tagged. CoNLL shards go through the stream's batch path;
 * CoNLL-U and inline shards (which the stream does not read) through the file parsers.
 * Yields to the event loop every few milliseconds, so that BullMQ renews the shard's lock and a
 * SIGTERM is heard while a long shard is tagged. `pauseMs` slows each sentence down (fault tests).
 */
export async function tagShard(
  spec: TagJobSpec,
  shard: ShardInput,
  options: {
    /** Where the model's bytes come from (called once per model in a process). */
    readonly readModel: ModelReader;
    readonly signal?: AbortSignal;
    readonly pauseMs?: number;
  },
): Promise<ShardOutput> {
  const loaded = await taggerFor(spec, options.readModel);
  if (spec.format === "conll")
    return tagConllShard(spec, shard, loaded.thread, loaded.model, options);
  const { model, tagger } = loaded;
  const offset = shard.firstLine - 1;
  let sentences: Sentence[];
  try {
    sentences = parseShard(spec, shard.text);
  } catch (error) {
    throw corpusLine(error, offset);
  }
  for (const sentence of sentences) {
    if (sentence.source !== undefined) {
      sentence.source = { ...sentence.source, line: sentence.source.line + offset };
    }
  }
  const corpus: Corpus = { label: spec.data, format: spec.format, sentences, scheme: "none" };
  const input = inputForModel(corpus, model, spec.unlabeled === true ? "none" : "auto");
  let text = "";
  let tokens = 0;
  let since = performance.now();
  for (const sentence of input.sentences) {
    if (performance.now() - since > 20 || options.pauseMs !== undefined) {
      await (options.pauseMs === undefined
        ? yieldToEventLoop()
        : new Promise((resolve) => setTimeout(resolve, options.pauseMs)));
      since = performance.now();
    }
    options.signal?.throwIfAborted();
    let labels: readonly string[];
    try {
      labels = tagger.tag(sentence, options.signal).labels;
    } catch (error) {
      if (error instanceof InfeasibleSentenceError) {
        throw new LagrangeError("bad-input", `${tokenPlace(sentence, 0)}: ${error.message}`, {
          cause: error,
        });
      }
      throw error;
    }
    text += conllRecord(sentence, labels);
    tokens += sentence.tokens.length;
  }
  return { text, sentences: input.sentences.length, tokens };
}
