import { checkpoints, type Decoding, DecodingTally } from "@lagrange/core";
import { type Sentence, tokenPlace } from "@lagrange/datasets";
import {
  InfeasibleSentenceError,
  inputForModel,
  type OpenedChainTagger,
  roundProbability,
} from "@lagrange/recipes";
import type { BatchResult, InputSentence, TagPool } from "@lagrange/scale";
import { badInputError } from "../exit-codes.js";
import { threadCount } from "../options.js";
import { conllLines, writeOutput } from "../output.js";
import { progressBar, warn } from "../progress.js";
import { taggingReport } from "../render.js";
import { taggingScoreNote } from "../tag-score.js";
import { readTagData, type TagOptions } from "./tag.js";
import { confidenceOf, confidenceSetup } from "./tag-confidence.js";
import { firstStageInput } from "./tag-two-stage.js";

/** Sentences per request to a worker thread. */
const POOL_BATCH = 64;

/** Sentences a worker may hold ahead of the writer, per thread. */
const POOL_AHEAD = 4;

/**
 * `lagrange tag` with a linear-chain CRF over a whole input of any format (a registry name,
 * CoNLL-U, UMass, inline): read once, tagged in input order — on this thread, or with `--threads`
 * shared among worker threads in batches — and written as CoNLL lines. A two-stage model's first
 * stage tags the whole input here first (by document) and its votes are appended to the sentences
 * tagged (on this thread or sent to the workers); the output shows the input's own columns.
 */
export async function tagChainCommand(
  options: TagOptions,
  opened: OpenedChainTagger,
  signal: AbortSignal | undefined,
): Promise<string> {
  return writeOutput(options.out, { option: "--out", signal }, async (output) => {
    const read = await readTagData(options, signal);
    const data = inputForModel(read, opened.model, options.unlabeled === true ? "none" : "auto");
    const { sentences } = data;
    const input = await firstStageInput(opened, sentences, signal);
    // The bar shares stderr with the report; with output on stdout it would interleave.
    const bar = progressBar(
      "tag",
      sentences.length,
      options.out !== undefined && process.stderr.isTTY,
    );
    const threads = options.threads === undefined ? 1 : threadCount(options.threads);
    const tally = new DecodingTally();
    const predicted: string[][] = [];
    const timedOut: string[] = [];
    const started = performance.now();
    const take = async (
      sentence: Sentence,
      labels: readonly string[],
      decoding: Decoding | undefined,
      after?: readonly (readonly number[])[],
    ) => {
      if (decoding?.status === "time-limit") timedOut.push(tokenPlace(sentence, 0));
      predicted.push(labels as string[]);
      await output.write(conllLines(sentence, labels as string[], after));
      if (predicted.length % 256 === 0) bar.update(predicted.length);
    };
    let time: Parameters<typeof taggingReport>[0];
    try {
      time =
        threads === 1
          ? await tagHere(opened, sentences, input, tally, take, signal, options)
          : await tagOnThreads(options, opened, sentences, input, threads, tally, take, signal);
      bar.update(sentences.length);
    } finally {
      bar.stop();
    }
    const seconds = (performance.now() - started) / 1000;
    if (timedOut.length > 0) {
      const limit = Number(opened.decodeOptions.timeLimitMs) / 1000;
      warn(
        `${timedOut.length} sentence(s) hit the ${limit} s time limit; their labels are the best found, not proven optimal: ${timedOut.slice(0, 20).join(", ")}${timedOut.length > 20 ? ", …" : ""}`,
      );
    }
    const summary = opened.constrained ? tally.summary() : undefined;
    const unlabeled = sentences.every((s) => s.labels === undefined);
    return `${taggingReport(time, seconds, summary)}${threads > 1 ? ` on ${threads} threads` : ""}${taggingScoreNote(data.format, sentences, predicted)}${unlabeled ? " (unlabeled input: no gold column)" : ""}${options.out === undefined ? "" : `; wrote ${options.out}`}`;
  });
}

type Take = (
  sentence: Sentence,
  labels: readonly string[],
  decoding: Decoding | undefined,
  /** Columns after the prediction (`--marginals`). */
  after?: readonly (readonly number[])[],
) => Promise<void>;

/** Tags `input[i]` (the sentence, with votes for a two-stage model) and writes `sentences[i]`. */
async function tagHere(
  opened: OpenedChainTagger,
  sentences: readonly Sentence[],
  input: readonly Sentence[],
  tally: DecodingTally,
  take: Take,
  signal: AbortSignal | undefined,
  options: TagOptions,
) {
  const tagger = opened.tagger();
  const confidence = confidenceOf(options);
  const checkpoint = checkpoints(signal);
  for (const [i, sentence] of sentences.entries()) {
    if (checkpoint.due()) await checkpoint.pause();
    try {
      const tagged = tagger.tag(input[i]!, signal);
      if (opened.constrained) tally.add(tagged.decoding);
      const marginal =
        confidence === undefined ? undefined : tagger.confidence(tagged, confidence).confidence;
      await take(
        sentence,
        tagged.labels,
        tagged.decoding,
        marginal === undefined ? undefined : [Array.from(marginal, roundProbability)],
      );
    } catch (error) {
      if (error instanceof InfeasibleSentenceError) {
        throw badInputError(`${tokenPlace(sentence, 0)}: ${error.message}`);
      }
      throw error;
    }
  }
  return tagger.time;
}

/**
 * The sentences in batches to worker threads (each builds its tagger once from the model's bytes:
 * the file is not read again), a few batches ahead of the writer, written in input order.
 */
async function tagOnThreads(
  options: TagOptions,
  opened: OpenedChainTagger,
  sentences: readonly Sentence[],
  input: readonly Sentence[],
  threads: number,
  tally: DecodingTally,
  take: Take,
  signal: AbortSignal | undefined,
) {
  const { confidenceColumns, decodingOfStats, openTagPool } = await import("@lagrange/scale");
  const { spec } = opened;
  const pool: TagPool = await openTagPool({
    setup: {
      model: opened.modelBytes,
      decoder: opened.decoder,
      ...(opened.constraintsText === undefined ? {} : { constraintsText: opened.constraintsText }),
      slaves: opened.slaves,
      plugins: spec.plugins ?? [],
      decodeOptions: opened.decodeOptions,
      allowUnconstrained: !opened.constrained,
      ...confidenceSetup(options),
    },
    threads,
    // Unused: these workers are sent sentences, not lines.
    spec: {
      format: "conll",
      file: options.data,
      outputFormat: "conll",
      explain: false,
      stopAtError: true,
    },
    ...(signal === undefined ? {} : { signal }),
  });
  const time = { sentences: 0, tokens: 0, featuresMs: 0, scoringMs: 0, decodingMs: 0 };
  try {
    const batches: Promise<BatchResult>[] = [];
    const send = (b: number) => {
      // The workers tag the input (with a two-stage model's votes): a worker sees one batch.
      const part = input.slice(b * POOL_BATCH, (b + 1) * POOL_BATCH);
      const inputView: InputSentence[] = part.map((s) => ({
        tokens: s.tokens,
        // Workers are sent no labels, so every column they get is an input: votes appended after
        // a gold column must not move up into its place.
        columns:
          s.labels === undefined || s.inputColumns !== undefined || opened.model.firstStage === null
            ? s.columns
            : s.columns.filter((c) => c !== s.labels),
        ...(s.source === undefined ? {} : { source: s.source }),
        ...(s.inputColumns === undefined ? {} : { inputColumns: s.inputColumns }),
      }));
      batches[b] = pool.tagSentences(inputView);
    };
    const count = Math.ceil(sentences.length / POOL_BATCH);
    for (let b = 0; b < Math.min(count, threads * POOL_AHEAD); b++) send(b);
    for (let b = 0; b < count; b++) {
      const next = b + threads * POOL_AHEAD;
      if (next < count) send(next);
      const result = await batches[b]!;
      delete batches[b];
      time.featuresMs += result.time.featuresMs;
      time.scoringMs += result.time.scoringMs;
      time.decodingMs += result.time.decodingMs;
      for (let i = 0; i < result.items.length; i++) {
        const sentence = sentences[b * POOL_BATCH + i]!;
        const item = result.items[i]!;
        if (!("labels" in item)) throw badInputError(`${item.place}: ${item.reason}`);
        if (opened.constrained) tally.add(decodingOfStats(item.stats));
        time.sentences++;
        time.tokens += sentence.tokens.length;
        await take(sentence, item.labels, undefined, confidenceColumns(item.confidence));
      }
    }
  } finally {
    await pool.close();
  }
  return time;
}
