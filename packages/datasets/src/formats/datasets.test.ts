/**
 * Every file of the dataset mirror loads, and its counts agree with the figures its SOURCE.md
 * states (copied into the tables below, with the section they come from). Runs only where the
 * mirror exists; sealed test splits are absent from it and their rows say so.
 */
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import type { Sentence } from "../sentence.js";
import { mirrorFile, testMirrorDir } from "../testing/mirror.js";
import { formatConll, parseConll, readConllFile } from "./conll.js";
import { formatConllu, readConlluFile } from "./conllu.js";
import { formatInlineTags, parseInlineTags, readInlineTagsFile } from "./inline.js";
import { formatUmassCitations, parseUmassCitations, readUmassCitationsFile } from "./umass.js";

const mirror = testMirrorDir();
const noMirror = "no dataset mirror (set LAGRANGE_DATA_DIR or provide ../shared/datasets)";

function title(relative: string): [string, string | undefined] {
  const path = mirrorFile(mirror, relative);
  const reason =
    mirror === undefined
      ? noMirror
      : path === undefined
        ? "not in the mirror (sealed test split)"
        : undefined;
  return [reason === undefined ? relative : `${relative} — skipped: ${reason}`, path];
}

function distinct(
  sentences: Sentence[],
  column: (s: Sentence) => readonly string[] | undefined,
): Set<string> {
  const set = new Set<string>();
  for (const s of sentences) for (const v of column(s) ?? []) set.add(v);
  return set;
}

function tokenCount(sentences: Sentence[]): number {
  return sentences.reduce((n, s) => n + s.tokens.length, 0);
}

/** Content without positions, as one string: comparing corpora this way is fast, unlike a deep diff. */
function content(value: unknown): string {
  return JSON.stringify(value, (key, v) => (key === "source" ? undefined : v));
}

interface ColumnExpectation {
  file: string;
  sentences: number;
  tokens: number;
  /** Distinct values of the last column (the labels). */
  labels: number;
  /** Distinct values per other column, by 0-based index. */
  other?: Record<number, number>;
  documents?: number;
  /** Whether writing the parsed file reproduces it byte for byte (false where blank lines hold stray tabs or the file's last line lacks one). */
  identical: boolean;
}

// From each folder's SOURCE.md, "Counts" section.
const COLUMN_FILES: ColumnExpectation[] = [
  {
    file: "conll2000/train.txt",
    sentences: 8_936,
    tokens: 211_727,
    labels: 22,
    other: { 1: 44 },
    identical: true,
  },
  {
    file: "conll2000/test.txt",
    sentences: 2_012,
    tokens: 47_377,
    labels: 19,
    other: { 1: 43 },
    identical: true,
  },
  {
    file: "conll2003/eng.train",
    sentences: 14_041,
    tokens: 203_621,
    labels: 8,
    other: { 1: 45, 2: 17 },
    documents: 946,
    identical: true,
  },
  {
    file: "conll2003/eng.testa",
    sentences: 3_250,
    tokens: 51_362,
    labels: 6,
    other: { 1: 45, 2: 16 },
    documents: 216,
    identical: false,
  },
  {
    file: "conll2003/eng.testb",
    sentences: 3_453,
    tokens: 46_435,
    labels: 8,
    other: { 1: 44, 2: 16 },
    documents: 231,
    identical: false,
  },
  { file: "wnut16/train", sentences: 2_394, tokens: 46_469, labels: 21, identical: true },
  { file: "wnut16/dev", sentences: 1_000, tokens: 16_261, labels: 20, identical: true },
  { file: "wnut16/test", sentences: 3_850, tokens: 61_908, labels: 21, identical: false },
  {
    file: "wnut17/wnut17train.conll",
    sentences: 3_394,
    tokens: 62_730,
    labels: 13,
    identical: false,
  },
  {
    file: "wnut17/emerging.dev.conll",
    sentences: 1_009,
    tokens: 15_733,
    labels: 13,
    identical: true,
  },
  {
    file: "wnut17/emerging.test.annotated",
    sentences: 1_287,
    tokens: 23_394,
    labels: 13,
    identical: false,
  },
  {
    file: "twitter_ritter2011/ner.txt",
    sentences: 2_394,
    tokens: 46_469,
    labels: 21,
    identical: false,
  },
  {
    file: "twitter_ritter2011/pos.txt",
    sentences: 787,
    tokens: 15_185,
    labels: 49,
    identical: true,
  },
  {
    file: "twitter_ritter2011/chunk.txt",
    sentences: 788,
    tokens: 15_211,
    labels: 18,
    identical: true,
  },
  {
    file: "umass_citation_flat_iesl/train.txt",
    sentences: 1_454,
    tokens: 40_532,
    labels: 40,
    identical: false,
  },
  {
    file: "umass_citation_flat_iesl/dev.txt",
    sentences: 651,
    tokens: 16_460,
    labels: 38,
    identical: false,
  },
  {
    file: "umass_citation_flat_iesl/test.txt",
    sentences: 367,
    tokens: 9_512,
    labels: 38,
    identical: false,
  },
];

describe.skipIf(mirror === undefined)(
  `dataset mirror: CoNLL column files${mirror === undefined ? ` — skipped: ${noMirror}` : ""}`,
  () => {
    for (const expected of COLUMN_FILES) {
      const [name, path] = title(expected.file);
      it.skipIf(path === undefined)(name, async () => {
        const sentences = await readConllFile(path!);
        expect(sentences.length).toBe(expected.sentences);
        expect(tokenCount(sentences)).toBe(expected.tokens);
        expect(distinct(sentences, (s) => s.labels).size).toBe(expected.labels);
        for (const [column, size] of Object.entries(expected.other ?? {})) {
          expect(
            distinct(sentences, (s) => s.columns[Number(column)]).size,
            `column ${column}`,
          ).toBe(size);
        }
        const documents = new Set(sentences.map((s) => s.document?.index));
        expect(documents.has(undefined) ? 0 : documents.size).toBe(expected.documents ?? 0);

        const text = await readFile(path!, "utf8");
        const separator =
          sentences[0]!.columns.length > 1 && text.slice(0, 2000).includes("\t") ? "tab" : "space";
        const written = formatConll(sentences, { separator });
        // Same text, same parse: only a rewritten file needs reading back.
        if (expected.identical) expect(written === text).toBe(true);
        else expect(content(parseConll(written)) === content(sentences)).toBe(true);
      });
    }
  },
);

// ud_english_ewt/SOURCE.md, "Counts".
const CONLLU_FILES = [
  {
    file: "ud_english_ewt/en_ewt-ud-train.conllu",
    sentences: 12_544,
    words: 204_577,
    surface: 201_962,
    multiword: 2_614,
    empty: 37,
    upos: 17,
    xpos: 49,
  },
  {
    file: "ud_english_ewt/en_ewt-ud-dev.conllu",
    sentences: 2_001,
    words: 25_147,
    surface: 24_787,
    multiword: 359,
    empty: 4,
    upos: 17,
    xpos: 49,
  },
  {
    file: "ud_english_ewt/en_ewt-ud-test.conllu",
    sentences: 2_077,
    words: 25_094,
    surface: 24_740,
    multiword: 354,
    empty: 2,
    upos: 17,
    xpos: 48,
  },
];

describe.skipIf(mirror === undefined)(
  `dataset mirror: CoNLL-U${mirror === undefined ? ` — skipped: ${noMirror}` : ""}`,
  () => {
    for (const expected of CONLLU_FILES) {
      const [name, path] = title(expected.file);
      it.skipIf(path === undefined)(name, async () => {
        const sentences = await readConlluFile(path!);
        expect(sentences.length).toBe(expected.sentences);
        expect(tokenCount(sentences)).toBe(expected.words);
        let multiword = 0;
        let empty = 0;
        let covered = 0;
        for (const s of sentences) {
          for (const extra of s.extraLines) {
            const range = /^(\d+)-(\d+)$/.exec(extra.fields[0]!);
            if (range === null) empty++;
            else {
              multiword++;
              covered += Number(range[2]) - Number(range[1]) + 1;
            }
          }
        }
        expect(multiword).toBe(expected.multiword);
        expect(empty).toBe(expected.empty);
        expect(expected.words - covered + multiword).toBe(expected.surface);
        expect(distinct(sentences, (s) => s.labels).size).toBe(expected.upos);
        expect(distinct(sentences, (s) => s.columns[4]).size).toBe(expected.xpos);
        expect(
          sentences.every((s) => s.meta.sent_id !== undefined && s.meta.text !== undefined),
        ).toBe(true);
        // Words only, yet nothing lost: the file is written back byte for byte.
        expect(formatConllu(sentences) === (await readFile(path!, "utf8"))).toBe(true);
      });
    }
  },
);

// umass_citation/SOURCE.md, "Counts": all lines, then the well-formed lines only.
const UMASS_FILES = [
  {
    file: "umass_citation/training.docs",
    lines: 1_457,
    tokens: 37_281,
    malformed: [2, 144, 147, 280, 460, 510, 643, 684, 848, 1386],
    firstError: /training\.docs:2:175: broken tag token "<\/thesis><institution>"/,
    wellFormed: 1_447,
    wellFormedTokens: 37_029,
    bioLabels: 131,
    // SOURCE.md counts the broken tag tokens `</thesis><institution>` and `</<person-first>` as words; repaired, they are tags.
    repairedTokens: 37_281 - 2,
  },
  {
    file: "umass_citation/dev.docs",
    lines: 660,
    tokens: 16_249,
    malformed: [222, 249, 321, 469, 495, 538],
    firstError: /dev\.docs:222:411: <venue> is never closed/,
    wellFormed: 654,
    wellFormedTokens: 16_091,
    bioLabels: 106,
    // `</<reference_id>` and `<language>(` count as words in SOURCE.md; repaired, the first is a tag and the second a tag and "(".
    repairedTokens: 16_249 - 1,
  },
  {
    file: "umass_citation/testing.docs",
    lines: 367,
    tokens: 9_237,
    malformed: undefined,
    firstError: undefined,
    wellFormed: 362,
    wellFormedTokens: 9_109,
    bioLabels: 103,
    repairedTokens: undefined,
  },
];

describe.skipIf(mirror === undefined)(
  `dataset mirror: UMass citations${mirror === undefined ? ` — skipped: ${noMirror}` : ""}`,
  () => {
    for (const expected of UMASS_FILES) {
      const [name, path] = title(expected.file);
      it.skipIf(path === undefined)(name, async () => {
        if (expected.firstError !== undefined)
          await expect(readUmassCitationsFile(path!)).rejects.toThrow(expected.firstError);

        const skipped = await readUmassCitationsFile(path!, { malformed: "skip" });
        expect(skipped.report).toMatchObject({
          lines: expected.lines,
          wellFormed: expected.wellFormed,
          skipped: expected.lines - expected.wellFormed,
        });
        if (expected.malformed !== undefined)
          expect(skipped.report.issues.map((i) => i.line)).toEqual(expected.malformed);
        expect(skipped.sentences.length).toBe(expected.wellFormed);
        expect(tokenCount(skipped.sentences)).toBe(expected.wellFormedTokens);
        expect(distinct(skipped.sentences, (s) => s.labels).size).toBe(expected.bioLabels);

        const repaired = await readUmassCitationsFile(path!, { malformed: "repair" });
        expect(repaired.report).toMatchObject({
          lines: expected.lines,
          repaired: expected.lines - expected.wellFormed,
          skipped: 0,
        });
        expect(repaired.sentences.length).toBe(expected.lines);
        if (expected.repairedTokens !== undefined)
          expect(tokenCount(repaired.sentences)).toBe(expected.repairedTokens);

        // Round trip: well-formed lines read back identically, repaired lines become well-formed.
        const written = formatUmassCitations(repaired.sentences);
        const again = parseUmassCitations(written);
        expect(again.report.wellFormed).toBe(expected.lines);
        expect(content(again.sentences) === content(repaired.sentences)).toBe(true);
      });
    }

    // SOURCE.md: 51 element paths and 134 hierarchical-BIO labels over the well-formed lines of all three splits.
    const present = UMASS_FILES.map((f) => mirrorFile(mirror, f.file)).filter(
      (p) => p !== undefined,
    );
    const all = present.length === UMASS_FILES.length;
    it.skipIf(present.length === 0)(
      `element paths and BIO labels across splits${all ? "" : " (testing.docs sealed: bounds only)"}`,
      async () => {
        const paths = new Set<string>();
        const bio = new Set<string>();
        for (const path of present) {
          const { sentences } = await readUmassCitationsFile(path, {
            malformed: "skip",
            labels: "path",
          });
          for (const s of sentences) {
            for (const p of s.labels!) paths.add(p);
            for (const l of s.columns[1]!) bio.add(l);
          }
        }
        if (all) {
          expect(paths.size).toBe(51);
          expect(bio.size).toBe(134);
        } else {
          expect(paths.size).toBeLessThanOrEqual(51);
          expect(bio.size).toBeLessThanOrEqual(134);
          expect(bio.size).toBeGreaterThanOrEqual(
            Math.max(
              ...UMASS_FILES.filter((f) => mirrorFile(mirror, f.file)).map((f) => f.bioLabels),
            ),
          );
        }
        expect(paths.has("O")).toBe(true);
        for (const p of paths)
          expect(p === "O" || p.split("/").every((n) => /^[a-z_-]+$/.test(n))).toBe(true);
      },
    );
  },
);

// cora/SOURCE.md, "Counts".
const CORA_FILES = [
  {
    file: "cora/tagged_references.txt",
    records: 500,
    tokens: 11_609,
    fields: 13,
    outside: 0,
    split: { first: 350, tokens: 8_220 },
    fieldTokens: {
      title: 3_557,
      author: 2_831,
      booktitle: 1_862,
      date: 642,
      journal: 614,
      pages: 443,
      institution: 306,
      editor: 295,
      location: 289,
      volume: 269,
      publisher: 203,
      tech: 176,
      note: 122,
    },
    instances: {
      date: 497,
      title: 494,
      author: 490,
      pages: 289,
      booktitle: 230,
      volume: 182,
      journal: 166,
      location: 137,
      publisher: 101,
      tech: 61,
      institution: 58,
      editor: 43,
      note: 30,
    },
  },
  {
    file: "cora/tagged_headers.txt",
    records: 935,
    tokens: 155_505,
    fields: 14,
    outside: 15,
    split: { first: 500, tokens: 81_786 },
    fieldTokens: {
      abstract: 111_203,
      note: 10_122,
      affiliation: 8_204,
      title: 7_431,
      author: 6_156,
      address: 4_512,
      keyword: 1_965,
      degree: 1_781,
      intro: 1_368,
      email: 1_038,
      date: 766,
      pubnum: 440,
      phone: 412,
      web: 92,
    },
    instances: {
      affiliation: 1_187,
      author: 1_160,
      address: 980,
      title: 937,
      abstract: 798,
      email: 668,
      intro: 627,
      note: 441,
      date: 286,
      keyword: 156,
      pubnum: 155,
      phone: 97,
      degree: 59,
      web: 58,
    },
  },
];

describe.skipIf(mirror === undefined)(
  `dataset mirror: Cora flat inline tags${mirror === undefined ? ` — skipped: ${noMirror}` : ""}`,
  () => {
    for (const expected of CORA_FILES) {
      const [name, path] = title(expected.file);
      it.skipIf(path === undefined)(name, async () => {
        const sentences = await readInlineTagsFile(path!, { labels: "leaf" });
        expect(sentences.length).toBe(expected.records);
        expect(tokenCount(sentences)).toBe(expected.tokens);
        expect(tokenCount(sentences.slice(0, expected.split.first))).toBe(expected.split.tokens);
        const perField: Record<string, number> = {};
        const instances: Record<string, number> = {};
        for (const s of sentences) {
          s.labels!.forEach((label, i) => {
            perField[label] = (perField[label] ?? 0) + 1;
            if (s.columns[1]![i]!.startsWith("B-")) instances[label] = (instances[label] ?? 0) + 1;
          });
        }
        const { O: outside = 0, ...fields } = perField;
        expect(outside).toBe(expected.outside);
        expect(Object.keys(fields).length).toBe(expected.fields);
        expect(fields).toEqual(expected.fieldTokens);
        expect(instances).toEqual(expected.instances);

        const separator = expected.file.includes("references") ? "<NEWREFERENCE>" : "<NEW_HEADER>";
        const written = formatInlineTags(sentences, { recordSeparator: separator });
        expect(content(parseInlineTags(written, { labels: "leaf" })) === content(sentences)).toBe(
          true,
        );
      });
    }
  },
);
