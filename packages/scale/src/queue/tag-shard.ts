import { createHash } from "node:crypto";
import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import { LagrangeError } from "@lagrange/core";
import {
  type Corpus,
  DataFormatError,
  parseConll,
  parseConllu,
  parseInlineTags,
  type Sentence,
} from "@lagrange/datasets";
import { isTagFailure, openTagger, type SequenceTagger } from "@lagrange/recipes";
import { conllRecord } from "../stream/format.js";
import {
  type BatchFailure,
  batchGoldView,
  inTurn,
  type LineBatchSpec,
  sentenceUnit,
  tagLineBatch,
} from "../stream/line-batch.js";
import { readLineBatches } from "../stream/records.js";
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
  readonly tagger: SequenceTagger;
  /** The shards in flight take turns, a batch at a time (`concurrency` > 1). */
  readonly turn: ReturnType<typeof inTurn>;
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
    spec.decoder ?? "",
    spec.constraints === undefined ? "" : sha256Hex(spec.constraints.text),
    spec.constraints?.source ?? "",
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
  const tagger = await openTagger({
    model: await readModel(spec),
    modelName: spec.model,
    ...(spec.decoder === undefined ? {} : { decoder: spec.decoder }),
    ...(spec.constraints === undefined ? {} : { constraints: spec.constraints }),
  });
  return { tagger: sentenceUnit(tagger, "tagged shard by shard"), turn: inTurn() };
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

/** Between batches: the fault tests' pause, else a turn of the event loop (lock renewal, SIGTERM). */
function pause(options: { readonly pauseMs?: number }): Promise<unknown> {
  return options.pauseMs === undefined
    ? yieldToEventLoop()
    : new Promise((resolve) => setTimeout(resolve, options.pauseMs));
}

/** A record that could not be read or tagged: what the shard fails with. */
function shardError(failure: BatchFailure): Error {
  const f = failure.format;
  return f === undefined
    ? new LagrangeError("bad-input", `${failure.place}: ${failure.reason}`)
    : new DataFormatError(f.file, f.line, f.detail, f.column);
}

interface ShardOptions {
  readonly signal?: AbortSignal;
  readonly pauseMs?: number;
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
  { tagger, turn }: ShardTagger,
  options: ShardOptions,
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
    await pause(options);
    options.signal?.throwIfAborted();
    const gold = spec.unlabeled === true ? "none" : "auto";
    stripGold ??= batchGoldView(batch, lineSpec, tagger, gold)?.stripGold;
    const result = await turn(() =>
      tagLineBatch(tagger, batch, stripGold ?? false, lineSpec, options.signal),
    );
    for (const part of result.parts) {
      if (typeof part !== "string") throw shardError(part);
      out.push(part);
    }
    sentences += result.sentences;
    tokens += result.tokens;
  }
  return { text: out.join(""), sentences, tokens };
}

/**
 * Tags one shard: THE place a shard is tagged. CoNLL shards go through the stream's batch path;
 * CoNLL-U and inline shards (which the stream does not read) through the file parsers, then in
 * batches of 64 sentences. Between batches the event loop runs, so that BullMQ renews the shard's
 * lock and a SIGTERM is heard while a long shard is tagged. `pauseMs` slows each sentence down
 * (fault tests).
 */
export async function tagShard(
  spec: TagJobSpec,
  shard: ShardInput,
  options: ShardOptions & {
    /** Where the model's bytes come from (called once per model in a process). */
    readonly readModel: ModelReader;
  },
): Promise<ShardOutput> {
  const loaded = await taggerFor(spec, options.readModel);
  if (spec.format === "conll") return tagConllShard(spec, shard, loaded, options);
  const { tagger, turn } = loaded;
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
  const input = tagger.input(corpus, spec.unlabeled === true ? "none" : "auto").sentences;
  const size = options.pauseMs === undefined ? 64 : 1;
  const { signal } = options;
  let text = "";
  let tokens = 0;
  for (let start = 0; start < input.length; start += size) {
    await pause(options);
    signal?.throwIfAborted();
    const batch = input.slice(start, start + size);
    const request = { stopAtFailure: true, ...(signal === undefined ? {} : { signal }) };
    const { items } = await turn(() => tagger.tag(batch, request));
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!;
      if (isTagFailure(item)) throw shardError(item);
      text += conllRecord(batch[i]!, item.labels);
      tokens += batch[i]!.tokens.length;
    }
  }
  return { text, sentences: input.length, tokens };
}
