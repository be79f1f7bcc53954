import { type DecodingSummary, DecodingTally } from "@lagrange/core";
import type { Sentence } from "@lagrange/datasets";
import {
  roundProbability,
  type SequenceTagger,
  type TaggedBatch,
  type TaggedSentence,
  type TaggingTime,
  type TagRequest,
} from "@lagrange/recipes";
import {
  confidenceColumns,
  confidenceFields,
  conllRecord,
  decodingOfStats,
  ndjsonRecord,
} from "@lagrange/scale";
import { note, warn } from "../progress.js";

/** The label written in a CoNLL n-best column for a rank that has no labelling. */
const NO_LABELLING = "_";

/**
 * One tagged sentence as written: CoNLL (the input's columns, the prediction, then the 2nd..k-th
 * labellings and the predicted label's marginal) or NDJSON (with `forced`, the confidence fields,
 * the n-best list and, with `explain`, the decoder's figures).
 */
export function taggedRecord(
  format: "conll" | "ndjson",
  sentence: Sentence,
  item: TaggedSentence,
  request: TagRequest,
  forced?: readonly string[],
): string {
  const { nbest } = item;
  if (format === "conll") {
    const after: (readonly (string | number)[])[] = [];
    for (let r = 1; r < (request.nbest?.k ?? 1); r++) {
      after.push(nbest?.entries[r]?.names ?? sentence.tokens.map(() => NO_LABELLING));
    }
    after.push(...confidenceColumns(item.confidence));
    return conllRecord(sentence, item.labels, after);
  }
  return ndjsonRecord(sentence, item.labels, request.explain === true ? item.stats : undefined, {
    ...(forced === undefined ? {} : { forced }),
    ...confidenceFields(item.confidence),
    ...(nbest === undefined
      ? {}
      : {
          nbest: nbest.entries.map((e) => ({
            labels: e.names,
            score: e.score,
            probability: roundProbability(e.probability),
            certified: e.certified,
          })),
          nbestMethod: nbest.method,
          ...(nbest.timedOut ? { nbestTimedOut: true } : {}),
        }),
  });
}

/** "a, b, c" of at most 20 places. */
function places(list: readonly string[]): string {
  return `${list.slice(0, 20).join(", ")}${list.length > 20 ? ", …" : ""}`;
}

/** What the report line says besides the time: how it ran and how it scored. */
export interface ReportParts {
  readonly seconds: number;
  /** Worker threads that tagged (said above 1). */
  readonly threads: number;
  /** `; chunk F1 …` against the input's gold, or empty. */
  readonly score: string;
  readonly unlabeled: boolean;
  readonly out: string | undefined;
}

/**
 * What one run of `lagrange tag` saw, sentence by sentence — the decoder's tally, the time, the
 * sentences the time limit stopped, n-best lists not proven exact — said at the end as warnings
 * and the one report line, whatever the route and the model.
 */
export class TaggingLog {
  readonly #tagger: SequenceTagger;
  readonly #request: TagRequest;
  readonly #tally = new DecodingTally();
  readonly #timedOut: string[] = [];
  readonly #warnings: string[] = [];
  #uncertified = 0;
  #time: TaggingTime = { sentences: 0, tokens: 0, featuresMs: 0, scoringMs: 0, decodingMs: 0 };
  #summary: DecodingSummary | undefined;
  /** Sentences the independent check read against hard constraints, and those breaking one. */
  #checked = 0;
  #broken = 0;

  constructor(tagger: SequenceTagger, request: TagRequest) {
    this.#tagger = tagger;
    this.#request = request;
  }

  /** A batch's time and warnings (its items are added one by one, as they are written). */
  batch(batch: TaggedBatch): void {
    const t = this.#time;
    this.#time = {
      ...t,
      featuresMs: t.featuresMs + batch.time.featuresMs,
      scoringMs: t.scoringMs + batch.time.scoringMs,
      decodingMs: t.decodingMs + batch.time.decodingMs,
    };
    this.#warnings.push(...(batch.warnings ?? []));
  }

  add(item: TaggedSentence, place: string): void {
    this.#time = {
      ...this.#time,
      sentences: this.#time.sentences + 1,
      tokens: this.#time.tokens + item.labels.length,
    };
    if (item.stats.status === "time-limit") this.#timedOut.push(place);
    if (item.nbest !== undefined && !item.stats.certified) this.#uncertified++;
    if (item.stats.brokenHard !== undefined) {
      this.#checked++;
      if (item.stats.brokenHard > 0) this.#broken++;
    }
    if (this.#request.nbest === undefined && this.#tagger.constrained) {
      this.#tally.add(decodingOfStats(item.stats));
    }
  }

  /** A stream's figures, summed over its threads. */
  streamed(
    time: TaggingTime,
    summary: DecodingSummary | undefined,
    timedOut: readonly string[],
    check: { readonly checked: number; readonly broken: number } | undefined,
  ) {
    this.#time = time;
    this.#checked = check?.checked ?? 0;
    this.#broken = check?.broken ?? 0;
    this.#summary = summary;
    this.#timedOut.push(...timedOut);
  }

  /** The warnings (time limit, inexact lists, the model's notes), then the report line. */
  finish(parts: ReportParts): string {
    const k = this.#request.nbest?.k;
    const timedOut = this.#timedOut;
    // A tagger that words its own (a general CRF's groups) is not told again sentence by sentence.
    if (this.#warnings.length > 0) for (const w of this.#warnings) warn(w);
    else if (timedOut.length > 0 && k !== undefined) {
      warn(
        `${timedOut.length} sentence(s) reached the time limit before their ${k}-best list was complete (the list holds what was found; NDJSON marks it "nbestTimedOut"): ${places(timedOut)}`,
      );
    } else if (timedOut.length > 0) {
      const limit = Number(this.#tagger.decodeOptions.timeLimitMs) / 1000;
      warn(
        `${timedOut.length} sentence(s) hit the ${limit} s time limit; their labels are the best found, not proven optimal: ${places(timedOut)}`,
      );
    }
    if (this.#uncertified > 0) {
      note(
        `lagrange: ${this.#uncertified} sentence(s) have an n-best list not proven exact (a subproblem neither certified nor bounded below it); NDJSON marks each entry's "certified"`,
      );
    }
    for (const n of this.#tagger.notes) warn(n);
    const summary =
      this.#request.nbest === undefined && this.#tagger.constrained
        ? (this.#summary ?? this.#tally.summary())
        : undefined;
    const own = this.#tagger.summary();
    const method = k === undefined || k === 1 ? "" : `; ${k}-best by ${this.#tagger.nbestMethod}`;
    const check =
      this.#checked === 0
        ? ""
        : `; independent check: ${this.#broken} of ${this.#checked} outputs break a hard constraint`;
    return `${taggingReport(this.#tagger.title, this.#time, parts.seconds, summary)}${check}${own === undefined ? "" : `; ${own}`}${method}${parts.threads > 1 ? ` on ${parts.threads} threads` : ""}${parts.score}${parts.unlabeled ? " (unlabeled input: no gold column)" : ""}${parts.out === undefined ? "" : `; wrote ${parts.out}`}`;
  }
}

/** `tagged … in … s (features …, scoring …, decoding …) with …` and the decoder's statistics. */
function taggingReport(
  title: string,
  time: TaggingTime,
  wallSeconds: number,
  summary: DecodingSummary | undefined,
): string {
  const s = (ms: number) => (ms / 1000).toFixed(2);
  const base = `tagged ${time.sentences} sequences, ${time.tokens} tokens in ${wallSeconds.toFixed(2)} s (features ${s(time.featuresMs)} s, scoring ${s(time.scoringMs)} s, decoding ${s(time.decodingMs)} s) with ${title}`;
  if (summary === undefined) return base;
  const problems = [
    summary.infeasible > 0 ? `${summary.infeasible} infeasible` : "",
    summary.hardViolated > 0
      ? `${summary.hardViolated} without a labelling that meets the hard constraints (least-violating one written)`
      : "",
  ].filter((x) => x !== "");
  return `${base}; ${summary.meanIterations.toFixed(2)} mean iterations (max ${summary.maxIterations}), ${(100 * summary.certifiedRate).toFixed(1)}% certified, ${(100 * summary.changedRate).toFixed(1)}% changed by constraints, ${(100 * summary.stillViolatedRate).toFixed(1)}% still violating a soft constraint${problems.length > 0 ? `, ${problems.join(", ")}` : ""}`;
}
