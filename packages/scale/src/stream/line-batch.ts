import { LagrangeError } from "@lagrange/core";
import type { Sentence } from "@lagrange/datasets";
import {
  type ConfidenceRequest,
  type DecodingStats,
  isTagFailure,
  type SequenceTagger,
  type TagTime,
} from "@lagrange/recipes";
import { confidenceColumns, confidenceFields, conllRecord, ndjsonRecord } from "./format.js";
import { type LineBatch, parseLineBatch, type StreamFormat } from "./records.js";

/** What is the same for every batch of a stream: sent once to each worker. */
export interface LineBatchSpec {
  readonly format: StreamFormat;
  /** The input's name in messages and positions. */
  readonly file: string;
  readonly outputFormat: StreamFormat;
  readonly explain: boolean;
  /** Stop at the batch's first bad record (the stream stops there) rather than skip it. */
  readonly stopAtError: boolean;
  /** Marginals and/or p(y|x) written beside each label. */
  readonly confidence?: ConfidenceRequest;
}

/** A record that was not tagged: where and why, and for a record the reader could not read, its parts. */
export interface BatchFailure {
  /** `file:line` of the record. */
  readonly place: string;
  readonly reason: string;
  /** A malformed record (a `DataFormatError`'s fields); absent when the decoder could not tag it. */
  readonly format?: {
    readonly file: string;
    readonly line: number;
    readonly detail: string;
    readonly column?: number;
  };
}

/**
 * A batch tagged and written: its output text and its bad records in input order (runs of good
 * records joined into one string), and what the stream sums. All plain data, cheap to post.
 */
export interface LineBatchResult {
  readonly parts: readonly (string | BatchFailure)[];
  readonly sentences: number;
  readonly tokens: number;
  /** Tokens with a gold label, and those tagged as gold says (token accuracy). */
  readonly goldTokens: number;
  readonly correct: number;
  /** Each tagged sentence's decoder figures, in order (for the tally of a constrained decoder). */
  readonly decodings: readonly DecodingStats[];
  /** Places of sentences that hit the ILP time limit. */
  readonly timedOut: readonly string[];
  readonly time: TagTime;
}

/**
 * The tagger, refused unless it tags each sentence alone (a corpus-unit tagger's labels depend on
 * other sentences, so its input cannot be cut into batches); `what` says what was asked.
 */
export function sentenceUnit<T extends Pick<SequenceTagger, "unit" | "description" | "modelName">>(
  tagger: T,
  what: string,
): T {
  if (tagger.unit === "sentence") return tagger;
  throw new LagrangeError(
    "usage",
    `${tagger.modelName} is ${tagger.description}: a sentence's labels depend on others in the input, so it cannot be ${what}; tag the file whole with lagrange tag --data FILE`,
  );
}

/**
 * Reads, tags and writes one batch of lines: the whole per-record work of a stream, done where
 * the batch is tagged (a worker thread, or the calling thread alone). `stripGold` is the stream's
 * decision, made on its first sentence, whether the last CoNLL column is gold or an input.
 */
export async function tagLineBatch(
  tagger: Pick<SequenceTagger, "tag">,
  batch: LineBatch,
  stripGold: boolean,
  spec: LineBatchSpec,
  signal?: AbortSignal,
): Promise<LineBatchResult> {
  const records = parseLineBatch(batch, spec);
  // The sentences up to the first bad record when stopping (nothing after it is written).
  const sentences: (Sentence | BatchFailure)[] = [];
  const inputs: Sentence[] = [];
  for (const record of records) {
    if (record.kind === "error") {
      const { file, line, detail, column } = record.error;
      sentences.push({
        place: `${file}:${line}`,
        reason: detail,
        format: column === undefined ? { file, line, detail } : { file, line, detail, column },
      });
      if (spec.stopAtError) break;
      continue;
    }
    const sentence = stripGold ? withoutGold(record.sentence) : record.sentence;
    sentences.push(sentence);
    inputs.push(inputView(sentence));
  }
  const tagged = await tagger.tag(inputs, {
    explain: spec.explain,
    stopAtFailure: spec.stopAtError,
    ...(spec.confidence === undefined ? {} : { confidence: spec.confidence }),
    ...(signal === undefined ? {} : { signal }),
  });
  const parts: (string | BatchFailure)[] = [];
  const decodings: DecodingStats[] = [];
  const timedOut: string[] = [];
  let text = "";
  let count = 0;
  let tokens = 0;
  let goldTokens = 0;
  let correct = 0;
  let k = 0;
  for (const entry of sentences) {
    if (isBatchFailure(entry)) {
      if (text !== "") parts.push(text);
      text = "";
      parts.push(entry);
      continue;
    }
    const item = tagged.items[k++];
    if (item === undefined) break; // tagging stopped at a failure before this sentence
    if (isTagFailure(item)) {
      if (text !== "") parts.push(text);
      text = "";
      parts.push(item);
      if (spec.stopAtError) break;
      continue;
    }
    const n = entry.tokens.length;
    count++;
    tokens += n;
    decodings.push(item.stats);
    if (item.stats.status === "time-limit") {
      const source = entry.source;
      timedOut.push(source === undefined ? `sentence ${count}` : `${source.file}:${source.line}`);
    }
    const gold = entry.labels;
    if (gold !== undefined) {
      goldTokens += n;
      for (let t = 0; t < n; t++) if (gold[t] === item.labels[t]) correct++;
    }
    text +=
      spec.outputFormat === "conll"
        ? conllRecord(entry, item.labels, confidenceColumns(item.confidence))
        : ndjsonRecord(
            entry,
            item.labels,
            spec.explain ? item.stats : undefined,
            confidenceFields(item.confidence),
          );
  }
  if (text !== "") parts.push(text);
  return {
    parts,
    sentences: count,
    tokens,
    goldTokens,
    correct,
    decodings,
    timedOut,
    time: tagged.time,
  };
}

/**
 * Whether a stream's last CoNLL column is an input rather than gold (`stripGold`), decided on its
 * first sentence as `lagrange tag` decides for a file: `none` makes every column an input; NDJSON
 * names its gold; CoNLL's last column is gold or an input by the width the model reads.
 */
export function goldView(
  first: Sentence,
  tagger: Pick<SequenceTagger, "input" | "scheme">,
  gold: "auto" | "none",
  format: StreamFormat,
  file: string,
): { readonly stripGold: boolean; readonly labeled: boolean } {
  let stripGold: boolean;
  if (gold === "none") stripGold = first.labels !== undefined;
  else if (format === "ndjson") stripGold = false;
  else {
    const corpus = { label: file, sentences: [first], format: "conll" as const };
    const decided = tagger.input({ ...corpus, scheme: tagger.scheme }, "auto");
    stripGold = first.labels !== undefined && decided.sentences[0]!.labels === undefined;
  }
  return { stripGold, labeled: first.labels !== undefined && !stripGold };
}

/** {@link goldView} on a batch's first sentence; undefined when the batch has none (all malformed). */
export function batchGoldView(
  batch: LineBatch,
  spec: Pick<LineBatchSpec, "format" | "file">,
  tagger: Pick<SequenceTagger, "input" | "scheme">,
  gold: "auto" | "none",
): { readonly stripGold: boolean; readonly labeled: boolean } | undefined {
  const first = parseLineBatch(batch, spec).find((r) => r.kind === "sentence");
  return first === undefined
    ? undefined
    : goldView(first.sentence, tagger, gold, spec.format, spec.file);
}

function isBatchFailure(entry: Sentence | BatchFailure): entry is BatchFailure {
  return (entry as BatchFailure).reason !== undefined;
}

function withoutGold(sentence: Sentence): Sentence {
  if (sentence.labels === undefined) return sentence;
  const { labels: _, ...rest } = sentence;
  return rest;
}

/** The model's input: every column but gold. */
function inputView(sentence: Sentence): Sentence {
  const { labels, tokens, source } = sentence;
  const columns =
    labels === undefined ? sentence.columns : sentence.columns.filter((c) => c !== labels);
  return source === undefined ? { tokens, columns } : { tokens, columns, source };
}

/**
 * Runs tasks one after another in the order given: batches on one tagger never interleave (its
 * clock, read before and after a batch, would count another batch's time).
 */
export function inTurn(): <T>(task: () => Promise<T>) => Promise<T> {
  let last: Promise<unknown> = Promise.resolve();
  return (task) => {
    const run = last.then(task);
    last = run.catch(() => {});
    return run;
  };
}
