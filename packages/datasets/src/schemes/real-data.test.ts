import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readConllFile } from "../formats/conll.ts";
import { readUmassCitationsFile } from "../formats/umass.ts";
import { findMirrorDir } from "../registry/resolve.ts";
import { SCHEME_NAMES, type SchemeName, type SchemeOptions } from "./labels.ts";
import { convertScheme, extractSpans } from "./spans.ts";
import { allowedTransitions, isValidSequence } from "./validity.ts";

const mirror = findMirrorDir();
const fileIn = (relative: string): string | undefined => {
  if (mirror === undefined) return undefined;
  const path = join(mirror, relative);
  return existsSync(path) ? path : undefined;
};
const why = "no dataset mirror (set LAGRANGE_DATA_DIR or provide ../shared/datasets)";

function spanKey(labels: readonly string[], scheme: SchemeName, options: SchemeOptions): string {
  return extractSpans(labels, scheme, options)
    .map((s) => `${s.level}:${s.type}:${s.start}:${s.end}`)
    .join(" ");
}

/**
 * Every sentence: through every scheme and back is the identity when the sentence is valid in
 * its own scheme, and never changes the spans. The mask agrees with the validity check.
 */
function checkRoundTrips(
  sentences: readonly (readonly string[])[],
  scheme: SchemeName,
  options: SchemeOptions = {},
): { sentences: number; tokens: number; invalid: number; failures: string[] } {
  let invalid = 0;
  let tokens = 0;
  // Plain comparisons, one expect at the end: vitest's expect is too slow for millions of calls.
  const failures: string[] = [];
  const fail = (index: number, what: string): void => {
    if (failures.length < 5) failures.push(`sentence ${index}: ${what}`);
  };
  const inventory = [...new Set(sentences.flat())];
  const ids = new Map(inventory.map((name, id) => [name, id]));
  const mask = allowedTransitions(inventory, scheme, options);
  sentences.forEach((labels, index) => {
    tokens += labels.length;
    const valid = isValidSequence(labels, scheme, options);
    if (!valid) invalid++;
    let feasible =
      labels.length === 0 ||
      (mask.start[ids.get(labels[0]!)!] === 1 && mask.end[ids.get(labels.at(-1)!)!] === 1);
    for (let i = 1; i < labels.length; i++) {
      if (mask.allowed[ids.get(labels[i - 1]!)! * mask.L + ids.get(labels[i]!)!] === 0)
        feasible = false;
    }
    if (feasible !== valid) fail(index, "mask and validity check disagree");
    // For a valid sentence, coming back unchanged implies the spans were kept in between
    // (encoding is one-to-one on span sets); an invalid one is checked span by span.
    const spans = valid ? "" : spanKey(labels, scheme, options);
    const original = labels.join("\u0000");
    for (const other of SCHEME_NAMES) {
      const there = convertScheme(labels, scheme, other, options);
      const back = convertScheme(there, other, scheme, options);
      if (valid && back.join("\u0000") !== original)
        fail(index, `${scheme} → ${other} → ${scheme} differs`);
      if (!valid && spanKey(there, other, options) !== spans)
        fail(index, `spans changed in ${other}`);
      if (!valid && spanKey(back, scheme, options) !== spans)
        fail(index, `spans changed back from ${other}`);
    }
  });
  return { sentences: sentences.length, tokens, invalid, failures };
}

describe("scheme conversions on real corpora", () => {
  const conll2000 = fileIn("conll2000/train.txt");
  it.skipIf(conll2000 === undefined)(
    `conll2000/train.txt round-trips (IOB2) — skipped if ${why}`,
    async () => {
      const sentences = await readConllFile(conll2000!);
      const result = checkRoundTrips(
        sentences.map((s) => s.labels!),
        "IOB2",
      );
      expect(result.failures).toEqual([]);
      expect(result.sentences).toBeGreaterThan(8000);
    },
  );

  const conll2003 = fileIn("conll2003/eng.train");
  it.skipIf(conll2003 === undefined)(
    `conll2003/eng.train round-trips (IOB1) — skipped if ${why}`,
    async () => {
      const sentences = await readConllFile(conll2003!);
      const result = checkRoundTrips(
        sentences.map((s) => s.labels!),
        "IOB1",
      );
      expect(result.failures).toEqual([]);
      expect(result.sentences).toBeGreaterThan(14_000);
    },
  );

  const umass = fileIn("umass_citation/training.docs");
  it.skipIf(umass === undefined)(
    `umass_citation/training.docs hierarchical labels round-trip — skipped if ${why}`,
    async () => {
      const { sentences } = await readUmassCitationsFile(umass!, { malformed: "skip" });
      const result = checkRoundTrips(
        sentences.map((s) => s.labels!),
        "IOB2",
        { levelSeparator: "/" },
      );
      expect(result.failures).toEqual([]);
      expect(result.invalid).toBe(0);
      expect(result.sentences).toBeGreaterThan(1400);
    },
  );
});
