import type { AttributeSequence } from "@lagrange/chain-crf";
import type { Tagger } from "./tagger.ts";

/** One decoder's timing over a corpus: medians over the timed runs, in milliseconds. */
export interface DecoderTiming {
  readonly decoder: string;
  /** Chain scores → labels: the decoder's own work. */
  readonly decodingMs: number;
  /** Attributes → chain scores → labels: what tagging costs once features are extracted. */
  readonly taggingMs: number;
  /** Ratios to the first tagger of the run (its own are 1). */
  readonly decodingRatio: number;
  readonly taggingRatio: number;
}

export interface TimingOptions {
  /** Timed runs per tagger (default 5); medians are reported. */
  readonly runs?: number;
  readonly signal?: AbortSignal;
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/**
 * The one timing harness: every tagger decodes the same attributes through the same path
 * (scorer → decoder, as `lagrange tag` runs it), after one untimed warm-up pass each (JIT,
 * per-length constraint caches); timed runs alternate between taggers so that machine noise hits
 * all alike. Ratios are to the first tagger (put the baseline first).
 */
export function timeTaggers(
  taggers: readonly Tagger[],
  sentences: readonly {
    readonly attributes: AttributeSequence;
    readonly tokens: readonly string[];
  }[],
  options: TimingOptions = {},
): DecoderTiming[] {
  const runs = options.runs ?? 5;
  const pass = (tagger: Tagger) => {
    const before = tagger.time;
    for (const s of sentences) tagger.tagAttributes(s.attributes, s.tokens, options.signal);
    const after = tagger.time;
    const decoding = after.decodingMs - before.decodingMs;
    return { decoding, tagging: decoding + after.scoringMs - before.scoringMs };
  };
  for (const tagger of taggers) pass(tagger);
  const decoding = taggers.map(() => [] as number[]);
  const tagging = taggers.map(() => [] as number[]);
  for (let r = 0; r < runs; r++) {
    taggers.forEach((tagger, k) => {
      const t = pass(tagger);
      decoding[k]!.push(t.decoding);
      tagging[k]!.push(t.tagging);
    });
  }
  const base = { decoding: median(decoding[0] ?? [1]), tagging: median(tagging[0] ?? [1]) };
  return taggers.map((tagger, k) => {
    const d = median(decoding[k]!);
    const t = median(tagging[k]!);
    return {
      decoder: tagger.decoder.name,
      decodingMs: d,
      taggingMs: t,
      decodingRatio: d / base.decoding,
      taggingRatio: t / base.tagging,
    };
  });
}
