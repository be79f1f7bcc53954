import { checkpoints } from "@lagrange/core";
import type { Sentence } from "@lagrange/datasets";
import type { SequenceTagger } from "./tagging/sequence-tagger.js";

/** One decoder's timing over a corpus: medians over the timed runs, in milliseconds. */
export interface DecoderTiming {
  readonly decoder: string;
  /** Token rows → labels: what `lagrange tag` spends per corpus (features, scores, decoding). */
  readonly taggingMs: number;
  /** Chain scores → labels: the decoder's own work. */
  readonly decodingMs: number;
  /** Ratios to the first tagger of the run (its own are 1). */
  readonly taggingRatio: number;
  readonly decodingRatio: number;
}

export interface TimingOptions {
  /** Timed runs per tagger (default 5); medians are reported. */
  readonly runs?: number;
  readonly signal?: AbortSignal;
}

/** The median of timed runs (the mean of the middle two for an even count). */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/**
 * The one timing harness: every tagger tags the same sentences through the same path as
 * `lagrange tag` (features → scorer → decoder) after one untimed warm-up pass each (JIT, per-length
 * constraint caches), timed runs alternating between taggers so that machine noise hits all alike.
 * Both the whole path and the decoder's share of it are reported, as ratios to the first tagger
 * (put the baseline first).
 */
export async function timeTaggers(
  taggers: readonly Pick<SequenceTagger, "decoder" | "tag">[],
  sentences: readonly Sentence[],
  options: TimingOptions = {},
): Promise<DecoderTiming[]> {
  const runs = options.runs ?? 5;
  const request = options.signal === undefined ? {} : { signal: options.signal };
  // A pass's clock counts features, scores and decoding per sentence only: the event loop's turns
  // between sentences (where a Ctrl-C aborts the signal) are not timed.
  const pass = async (tagger: Pick<SequenceTagger, "tag">) => {
    const { time } = await tagger.tag(sentences, request);
    return {
      decoding: time.decodingMs,
      tagging: time.featuresMs + time.scoringMs + time.decodingMs,
    };
  };
  const checkpoint = checkpoints(options.signal, 0);
  for (const tagger of taggers) {
    if (checkpoint.due()) await checkpoint.pause();
    await pass(tagger);
  }
  const decoding = taggers.map(() => [] as number[]);
  const tagging = taggers.map(() => [] as number[]);
  for (let r = 0; r < runs; r++) {
    for (let k = 0; k < taggers.length; k++) {
      if (checkpoint.due()) await checkpoint.pause();
      const t = await pass(taggers[k]!);
      decoding[k]!.push(t.decoding);
      tagging[k]!.push(t.tagging);
    }
  }
  const base = { decoding: median(decoding[0] ?? [1]), tagging: median(tagging[0] ?? [1]) };
  return taggers.map((tagger, k) => {
    const d = median(decoding[k]!);
    const t = median(tagging[k]!);
    return {
      decoder: tagger.decoder,
      taggingMs: t,
      decodingMs: d,
      taggingRatio: t / base.tagging,
      decodingRatio: d / base.decoding,
    };
  });
}
