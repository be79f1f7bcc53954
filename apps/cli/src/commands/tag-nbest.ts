import { checkpoints, formatByteSize, type LabelRestriction } from "@lagrange/core";
import { parsePartialLabel, type Sentence, tokenPlace } from "@lagrange/datasets";
import {
  confidenceRecord,
  InfeasibleSentenceError,
  inputForModel,
  type NBestMethod,
  nbestMethodFor,
  type OpenedTagger,
  roundProbability,
  type Tagger,
} from "@lagrange/recipes";
import { conllRecord, ndjsonRecord } from "@lagrange/scale";
import { badInputError, usageError } from "../exit-codes.js";
import { writeOutput } from "../output.js";
import { note, warn } from "../progress.js";
import { taggingReport } from "../render.js";
import { taggingScoreNote } from "../tag-score.js";
import { DEFAULT_TRAINING_MEMORY_CAP, defaultTrainingMemoryLimit } from "../training-memory.js";
import { readTagData, type TagInput, type TagOptions } from "./tag.js";

/** The label written in a CoNLL n-best column for a rank that has no labelling. */
const NO_LABELLING = "_";

/**
 * `lagrange tag --nbest k` and `--forced`: the input read whole and tagged on this thread, each
 * sentence's k best labellings (any decoder: see recipes' `nbestOf`) and/or its labels decoded
 * with the fixed ones the input's last column gives (`?` = free). CoNLL: the input's columns, the
 * best labelling, then the 2nd..k-th; NDJSON: `nbest: [{labels, score, probability, certified}]`.
 */
export async function tagNBestCommand(
  options: TagOptions,
  opened: OpenedTagger,
  input: TagInput,
  signal: AbortSignal | undefined,
): Promise<string> {
  const flags = [options.nbest === undefined ? "" : "--nbest", options.forced ? "--forced" : ""]
    .filter((f) => f !== "")
    .join(" and ");
  if (opened.kind !== "crf") {
    throw usageError(
      `${flags}: for a linear-chain CRF; ${options.model} is ${opened.kind === "l2s" ? "an L2S tagger" : "a general CRF"}`,
    );
  }
  const k = options.nbest ?? 1;
  const streamingOnly = [options.threads, options.window, options.onError];
  if (options.data === "-" || streamingOnly.some((o) => o !== undefined) || options.explain) {
    throw usageError(
      `${flags}: the input is read whole and tagged on one thread; drop --data -, --threads, --window, --on-error and --explain`,
    );
  }
  if (input.format !== undefined && input.format !== "conll" && options.forced) {
    throw usageError(
      `--forced reads a CoNLL file whose last column fixes labels (? = free); --data ${options.data} is ${input.format}`,
    );
  }
  if (opened.model.preset === null || opened.model.firstStage !== null) {
    throw usageError(
      `${flags}: ${options.model} is ${opened.model.preset === null ? "a model without a feature preset (CRFsuite import)" : "a two-stage model"}; tag it without ${flags}`,
    );
  }
  const outputFormat = options.outputFormat ?? (input.format === "ndjson" ? "ndjson" : "conll");
  if (outputFormat !== "conll" && outputFormat !== "ndjson") {
    throw usageError(`--output-format ${outputFormat}: expected conll or ndjson`);
  }
  if (outputFormat === "conll" && options.marginals === true && k > 1) {
    throw usageError("--marginals with --nbest: NDJSON output only (--output-format ndjson)");
  }
  const { model } = opened;
  const names = model.labels.names();
  const L = names.length;
  return writeOutput(options.out, { option: "--out", signal }, async (output) => {
    const read = await readTagData(options, signal);
    const forcedColumns: (readonly string[])[] = [];
    const sentences0 = options.forced
      ? read.sentences.map((s) => withoutLastColumn(s, forcedColumns))
      : read.sentences;
    const data = inputForModel(
      { ...read, sentences: sentences0 },
      model,
      options.unlabeled === true ? "none" : "auto",
    );
    const tagger: Tagger = opened.tagger();
    if (k > 1) checkNBestMemory(data.sentences, k, L, nbestMethodFor(tagger.decoder.name));
    let side: Tagger | undefined;
    const checkpoint = checkpoints(signal);
    const started = performance.now();
    let uncertified = 0;
    /** Sentences whose list the time limit cut short (file:line). */
    const cutShort: string[] = [];
    const predicted: string[][] = [];
    for (const [s, sentence] of data.sentences.entries()) {
      if (checkpoint.due()) await checkpoint.pause();
      const forced = forcedColumns[s];
      const restriction =
        forced === undefined ? undefined : restrictionOf(sentence, forced, names, L);
      try {
        if (options.nbest === undefined) {
          const tagged = tagger.tag(sentence, signal, restrictionOption(restriction));
          predicted.push(tagged.labels);
          const confidence =
            options.marginals === true || options.probability === true
              ? tagger.confidence(tagged, {
                  marginals: options.marginals === true,
                  probability: options.probability === true,
                })
              : undefined;
          if (outputFormat === "conll") {
            const after =
              confidence?.confidence === undefined
                ? []
                : [Array.from(confidence.confidence, roundProbability)];
            await output.write(conllRecord(sentence, tagged.labels, after));
          } else {
            await output.write(
              ndjsonRecord(sentence, tagged.labels, undefined, {
                ...(forced === undefined ? {} : { forced }),
                ...confidenceFields(confidence, names),
              }),
            );
          }
          continue;
        }
        const found = tagger.nbest(sentence, k, {
          ...restrictionOption(restriction),
          ...(signal === undefined ? {} : { signal }),
        });
        if (found.entries.some((e) => !e.certified)) uncertified++;
        if (found.timedOut) cutShort.push(tokenPlace(sentence, 0));
        const best = found.entries[0]!.names;
        predicted.push(best);
        let confidence: ReturnType<Tagger["confidence"]> | undefined;
        if (options.marginals === true || options.probability === true) {
          // A second tagger, so that the report's clock counts each sentence once; the figures
          // are of the list's best labelling (a tie may make the decoder's own differ).
          side ??= opened.tagger();
          const tagged = side.tag(sentence, signal, restrictionOption(restriction));
          confidence = side.confidence(
            { ...tagged, decoding: { ...tagged.decoding, labels: found.entries[0]!.labels } },
            { marginals: options.marginals === true, probability: options.probability === true },
          );
        }
        if (outputFormat === "conll") {
          const after: (string | number)[][] = [];
          for (let r = 1; r < k; r++)
            after.push(found.entries[r]?.names ?? sentence.tokens.map(() => NO_LABELLING));
          // --nbest 1 --marginals: the column plain --marginals writes (k > 1 is refused above).
          if (confidence?.confidence !== undefined)
            after.push(Array.from(confidence.confidence, roundProbability));
          await output.write(conllRecord(sentence, best, after));
        } else {
          await output.write(
            ndjsonRecord(sentence, best, undefined, {
              ...(forced === undefined ? {} : { forced }),
              ...confidenceFields(confidence, names),
              nbest: found.entries.map((e) => ({
                labels: e.names,
                score: e.score,
                probability: roundProbability(e.probability),
                certified: e.certified,
              })),
              nbestMethod: found.method,
              ...(found.timedOut ? { nbestTimedOut: true } : {}),
            }),
          );
        }
      } catch (error) {
        if (error instanceof InfeasibleSentenceError) {
          throw badInputError(
            `${tokenPlace(sentence, 0)}: ${error.message}${restriction === undefined ? "" : " (with the --forced labels)"}`,
          );
        }
        throw error;
      }
    }
    const seconds = (performance.now() - started) / 1000;
    if (uncertified > 0) {
      note(
        `lagrange: ${uncertified} sentence(s) have an n-best list not proven exact (a subproblem neither certified nor bounded below it); NDJSON marks each entry's "certified"`,
      );
    }
    if (cutShort.length > 0) {
      warn(
        `${cutShort.length} sentence(s) reached the time limit before their ${k}-best list was complete (the list holds what was found; NDJSON marks it "nbestTimedOut"): ${cutShort.slice(0, 20).join(", ")}${cutShort.length > 20 ? ", …" : ""}`,
      );
    }
    const method = k === 1 ? "" : `; ${k}-best by ${nbestMethodFor(tagger.decoder.name)}`;
    return `${taggingReport(tagger.time, seconds, undefined)}${method}${taggingScoreNote(data.format, data.sentences, predicted)}${options.out === undefined ? "" : `; wrote ${options.out}`}`;
  });
}

/**
 * The bytes one sentence's list of `k` labellings takes, at its peak, by `method`: list Viterbi's
 * k scores and back-pointers per token and label (its context holds at least 64 rows) and the k
 * labellings; the partition's open subproblems (each popped entry opens up to n, each a label
 * restriction of n·L bytes with its labels and decoding); the no-good cuts' k constraints of n
 * terms; and, every method, the entries and their output text. A sentence has at most Lⁿ
 * labellings, so a short one never lists more.
 */
export function nbestBytes(method: NBestMethod, n: number, L: number, k: number): number {
  const listed = n * Math.log(L) < Math.log(k) ? L ** n : k;
  const entries = listed * n * 48;
  if (method === "list-viterbi") return Math.max(64, n) * L * k * 12 + listed * n * 8 + entries;
  if (method === "no-good-cuts") return listed * n * 64 + entries;
  return listed * n * (n * L + 8 * n + 256) + entries;
}

/**
 * `--nbest k` against the memory bound (the one training's default is), for the longest sentence,
 * before any list is decoded: refused (exit 2) naming the figure, the bound and the k that fits.
 */
export function checkNBestMemory(
  sentences: readonly Sentence[],
  k: number,
  L: number,
  method: NBestMethod,
  limit = defaultTrainingMemoryLimit(),
): void {
  let longest: Sentence | undefined;
  for (const sentence of sentences) {
    if (longest === undefined || sentence.tokens.length > longest.tokens.length) longest = sentence;
  }
  if (longest === undefined) return;
  const n = longest.tokens.length;
  const needed = nbestBytes(method, n, L, k);
  if (needed <= limit) return;
  let fits = 1;
  for (let step = 2 ** 13; step >= 1; step >>= 1) {
    if (fits + step < k && nbestBytes(method, n, L, fits + step) <= limit) fits += step;
  }
  throw usageError(
    `--nbest ${k}: the ${k} best labellings of the longest sentence (${n} tokens, ${tokenPlace(longest, 0)}) by ${method} would need about ${formatByteSize(needed)}, more than the ${formatByteSize(limit)} bound (half this machine's memory, at most ${formatByteSize(DEFAULT_TRAINING_MEMORY_CAP)}); lower --nbest to ${fits} or less, or split the sentence`,
  );
}

function restrictionOption(restriction: LabelRestriction | undefined): {
  restriction?: LabelRestriction;
} {
  return restriction === undefined ? {} : { restriction };
}

function confidenceFields(
  confidence: ReturnType<Tagger["confidence"]> | undefined,
  names: readonly string[],
): Record<string, unknown> {
  // The fields streamed `tag --marginals` writes, `confidence` included.
  return confidence === undefined ? {} : { ...confidenceRecord(confidence, names) };
}

/** The sentence without its last column (kept in `forced`), the column before it now its last. */
function withoutLastColumn(sentence: Sentence, forced: (readonly string[])[]): Sentence {
  const columns = sentence.columns.slice(0, -1);
  const last = sentence.columns[sentence.columns.length - 1];
  if (last === undefined || columns.length === 0) {
    throw badInputError(
      `${tokenPlace(sentence, 0)}: --forced: expected the input's columns and then a column of fixed labels (? = free), got one column`,
    );
  }
  forced.push(last);
  const labels = sentence.labels === undefined ? undefined : columns[columns.length - 1];
  const stripped: Sentence = { ...sentence, columns };
  if (labels === undefined) delete stripped.labels;
  else stripped.labels = labels;
  return stripped;
}

/**
 * A --forced column as a restriction: `?` leaves a token free, a label fixes it, a set `{A,B}`
 * (the partial-annotation syntax of `train --partial`) allows those; an unknown label names its line.
 */
function restrictionOf(
  sentence: Sentence,
  forced: readonly string[],
  names: readonly string[],
  L: number,
): LabelRestriction {
  const restriction = new Uint8Array(forced.length * L);
  for (const [i, cell] of forced.entries()) {
    const place = tokenPlace(sentence, i);
    const allowed = parsePartialLabel(cell, place);
    if (allowed === null) {
      restriction.fill(1, i * L, (i + 1) * L);
      continue;
    }
    for (const label of typeof allowed === "string" ? [allowed] : allowed) {
      const id = names.indexOf(label);
      if (id < 0) {
        throw badInputError(
          `${place}: --forced label "${label}" is not one of the model's labels; expected ? (free), a label or a set {A,B} of ${names.slice(0, 20).join(", ")}${names.length > 20 ? ", …" : ""}`,
        );
      }
      restriction[i * L + id] = 1;
    }
  }
  return restriction;
}
