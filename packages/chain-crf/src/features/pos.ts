import { definePreset } from "./define-preset.js";
import {
  codePoints,
  DIGIT,
  degenerate,
  prefix,
  profile,
  shape,
  suffix,
  tokenType,
} from "./token.js";
import type { AttributeSink, Preset, Rows } from "./types.js";

const COLUMNS = ["word"] as const;

/** Lower-cased words and their 3-character suffixes, read by the neighbours. */
interface PosSentence {
  readonly lowers: readonly string[];
  readonly suffixes: readonly string[];
}

/**
 * Part-of-speech tagging (e.g. Universal Dependencies UPOS) from words alone: the word and its
 * lower-cased form, prefixes and suffixes of 1–3 characters, degenerated shape and type, digit and
 * hyphen flags, lower-cased words in a ±2 window and the neighbours' 3-character suffixes.
 */
export function posPreset(): Preset {
  return definePreset({
    name: "pos",
    description:
      "Part-of-speech tagging from words: word, lower-case, affixes 1–3, shape, type, digit/hyphen flags, ±2 word window, neighbours' suffixes",
    columns: COLUMNS,
    prepare(rows: Rows): PosSentence {
      const n = rows.length;
      const lowers = new Array<string>(n);
      const suffixes = new Array<string>(n);
      for (let t = 0; t < n; t++) {
        const lower = rows[t]![0]!.toLowerCase();
        lowers[t] = lower;
        const chars = codePoints(lower);
        suffixes[t] = suffix(chars, lower, Math.min(3, chars.length));
      }
      return { lowers, suffixes };
    },
    token(rows: Rows, { lowers, suffixes }: PosSentence, t: number, sink: AttributeSink): void {
      const n = rows.length;
      const word = rows[t]![0]!;
      const lower = lowers[t]!;
      const chars = codePoints(word);
      const lowerChars = codePoints(lower);
      const p = profile(chars);
      sink.state(t, `w=${word}`, 1);
      sink.state(t, `wl=${lower}`, 1);
      for (let k = 1; k <= 3 && k <= lowerChars.length; k++) {
        sink.state(t, `p${k}=${prefix(lowerChars, lower, k)}`, 1);
        sink.state(t, `s${k}=${suffix(lowerChars, lower, k)}`, 1);
      }
      sink.state(t, `shape=${degenerate(shape(chars))}`, 1);
      sink.state(t, `type=${tokenType(chars)}`, 1);
      if (p.any & DIGIT) sink.state(t, "has-digit", 1);
      if (word.includes("-")) sink.state(t, "has-hyphen", 1);
      if (t >= 2) sink.state(t, `wl[-2]=${lowers[t - 2]}`, 1);
      if (t >= 1) sink.state(t, `wl[-1]=${lowers[t - 1]}`, 1);
      if (t + 1 < n) sink.state(t, `wl[1]=${lowers[t + 1]}`, 1);
      if (t + 2 < n) sink.state(t, `wl[2]=${lowers[t + 2]}`, 1);
      if (t >= 1) sink.state(t, `s3[-1]=${suffixes[t - 1]}`, 1);
      if (t + 1 < n) sink.state(t, `s3[1]=${suffixes[t + 1]}`, 1);
    },
  });
}
