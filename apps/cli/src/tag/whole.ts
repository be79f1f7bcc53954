import { type Sentence, tokenPlace } from "@lagrange/datasets";
import {
  isTagFailure,
  type SequenceTagger,
  type TaggedBatch,
  type TagProgress,
  type TagRequest,
} from "@lagrange/recipes";
import { badInputError } from "../exit-codes.js";
import { writeOutput } from "../output.js";
import { type Progress, progressBar } from "../progress.js";
import { taggingScoreNote } from "../tag-score.js";
import { restrictionOf, withoutForcedColumn } from "./forced.js";
import { checkNBestMemory } from "./nbest-memory.js";
import { readTagData, type TagOptions } from "./options.js";
import { TaggingLog, taggedRecord } from "./output.js";
import type { TagPlan } from "./plan.js";

/** Sentences per batch (per request to a worker thread) of a sentence-unit tagger. */
const BATCH = 64;

/** Batches a worker may hold ahead of the writer, per thread. */
const AHEAD = 4;

type Tag = (batch: readonly Sentence[], request: TagRequest) => Promise<TaggedBatch>;

/**
 * `lagrange tag` over an input read whole (any format; a corpus-unit tagger's groups or votes
 * need every sentence; --nbest and --forced): tagged in batches — the whole input at once for a
 * corpus-unit tagger — on this thread or shared among `--threads` worker threads (each opens the
 * tagger's spec once: the model is not read again), and written in input order.
 */
export async function tagWhole(
  options: TagOptions,
  tagger: SequenceTagger,
  plan: TagPlan,
  signal: AbortSignal | undefined,
): Promise<string> {
  return writeOutput(options.out, { option: "--out", signal }, async (output) => {
    const read = await readTagData(options, signal);
    const forced = plan.request.restrictions === undefined ? undefined : withoutForcedColumn(read);
    const data = tagger.input(forced?.corpus ?? read, options.unlabeled === true ? "none" : "auto");
    const { sentences } = data;
    const k = plan.request.nbest?.k ?? 1;
    if (k > 1 && tagger.nbestMethod !== undefined) {
      checkNBestMemory(sentences, k, tagger.labels.length, tagger.nbestMethod);
    }
    const restrictions = forced?.forced.map((f, s) =>
      restrictionOf(sentences[s]!, f, tagger.labels),
    );
    // The bars share stderr with the report; with output on stdout they would interleave.
    const show = options.out !== undefined && process.stderr.isTTY;
    const bar = progressBar("tag", sentences.length, show);
    const stages = new Map<string, Progress>();
    const onProgress = (p: TagProgress) => {
      const stage = stages.get(p.stage) ?? progressBar(p.stage, p.total, show);
      stages.set(p.stage, stage);
      stage.update(p.done, `${p.done}/${p.total} ${p.stage}`);
    };
    const log = new TaggingLog(tagger, plan.request);
    const predicted: (readonly string[])[] = [];
    const size = tagger.unit === "corpus" ? Math.max(1, sentences.length) : BATCH;
    const count = Math.ceil(sentences.length / size);
    const started = performance.now();
    const pool = plan.threads > 1 ? await openPool(tagger, plan.threads, signal) : undefined;
    const tag: Tag = pool?.tag ?? ((batch, request) => tagger.tag(batch, request));
    const batches: Promise<TaggedBatch>[] = [];
    const send = (b: number) => {
      const at = b * size;
      const batch = tag(sentences.slice(at, at + size), {
        ...plan.request,
        ...(restrictions === undefined ? {} : { restrictions: restrictions.slice(at, at + size) }),
        stopAtFailure: true,
        ...(signal === undefined ? {} : { signal }),
        onProgress,
      });
      // Awaited in order below; until then a failure must not count as unhandled.
      batch.catch(() => {});
      batches[b] = batch;
    };
    const ahead = pool === undefined ? 1 : plan.threads * AHEAD;
    try {
      for (let b = 0; b < Math.min(count, ahead); b++) send(b);
      for (let b = 0; b < count; b++) {
        if (b + ahead < count) send(b + ahead);
        const batch = await batches[b]!;
        delete batches[b];
        log.batch(batch);
        for (const [i, item] of batch.items.entries()) {
          if (isTagFailure(item)) throw badInputError(`${item.place}: ${item.reason}`);
          const s = b * size + i;
          const sentence = sentences[s]!;
          await output.write(
            taggedRecord(plan.outputFormat, sentence, item, plan.request, forced?.forced[s]),
          );
          log.add(item, tokenPlace(sentence, 0));
          predicted.push(item.labels);
        }
        bar.update(predicted.length);
      }
    } finally {
      await pool?.close();
      bar.stop();
      for (const stage of stages.values()) stage.stop();
    }
    return log.finish({
      seconds: (performance.now() - started) / 1000,
      threads: plan.threads,
      score: taggingScoreNote(data.format, sentences, predicted),
      unlabeled: sentences.every((s) => s.labels === undefined),
      out: options.out,
    });
  });
}

/** Worker threads that tag batches of sentences read here, each with its own tagger. */
async function openPool(tagger: SequenceTagger, threads: number, signal: AbortSignal | undefined) {
  const { openTagPool } = await import("@lagrange/scale");
  const pool = await openTagPool({ tagger, threads, ...(signal === undefined ? {} : { signal }) });
  const tag: Tag = (batch, { signal: _signal, onProgress: _progress, ...request }) =>
    pool.tagSentences(batch, request);
  return { tag, close: () => pool.close() };
}
