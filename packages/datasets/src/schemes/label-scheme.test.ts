import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { lagrangeErrorCode } from "@lagrange/core";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { generateCitationSentences } from "../generator/generate.js";
import { openCorpus } from "../registry/corpus.js";
import { mirrorFile, testMirrorDir } from "../testing/mirror.js";
import {
  checkScheme,
  decodingMask,
  inferScheme,
  parseLabelScheme,
  requireScheme,
  SchemeMismatchError,
} from "./label-scheme.js";
import { allowedTransitions } from "./validity.js";

const FLAT = ["O", "B-author", "I-author", "B-title", "I-title", "B-year"];
const HIER = [
  "O",
  "B-authors/B-person/B-person-first",
  "I-authors/I-person/I-person-first",
  "I-authors/I-person/B-person-last",
  "I-authors/B-person/B-person-first",
  "I-authors",
  "B-title",
  "I-title",
  "B-venue/B-editor/B-person/B-person-first",
  "I-venue/I-editor/I-person/B-person-last",
];

const mirror = testMirrorDir();
const umassTrain = mirrorFile(mirror, "umass_citation/training.docs");

describe("label schemes for decoding and training", () => {
  it("decodingMask: hierarchical BIO is IOB2 at every level; none masks nothing", () => {
    const labels = [
      "O",
      "B-authors/B-person",
      "I-authors/I-person",
      "I-authors/B-person",
      "B-title",
    ];
    const mask = decodingMask(labels, "hierarchical-BIO")!;
    const direct = allowedTransitions(labels, "IOB2", { levelSeparator: "/" });
    expect([...mask.allowed]).toEqual([...direct.allowed]);
    expect([...mask.allowedStart]).toEqual([1, 1, 0, 0, 1]);
    // I-authors/B-person may follow a person inside authors, not O.
    expect(mask.allowed[1 * 5 + 3]).toBe(1);
    expect(mask.allowed[0 * 5 + 3]).toBe(0);
    expect(decodingMask(labels, "none")).toBeUndefined();
  });

  it("inferScheme reads the scheme off the gold labels", () => {
    expect(inferScheme([["B-NP", "I-NP", "O", "B-VP"]])).toBe("IOB2");
    // I- after O (and at the start) is IOB1.
    expect(inferScheme([["I-PER", "O", "I-LOC", "B-LOC"]])).toBe("IOB1");
    expect(inferScheme([["S-PER", "O", "B-LOC", "E-LOC"]])).toBe("BIOES");
    expect(inferScheme([["U-PER", "O", "B-LOC", "L-LOC"]])).toBe("BILOU");
    expect(inferScheme([["NOUN", "VERB"]])).toBe("none");
    const citations = generateCitationSentences(50, { seed: 3 }).map((s) => s.labels!);
    expect(inferScheme(citations)).toBe("hierarchical-BIO");
  });

  it("requireScheme stops on a wrong scheme, naming the first sequence and the fitting scheme", () => {
    const citations = generateCitationSentences(200, { seed: 4 }).map((s) => s.labels!);
    expect(checkScheme(citations, "hierarchical-BIO").invalid).toBe(0);
    let error: unknown;
    try {
      requireScheme(citations, "IOB2", "citations.docs");
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SchemeMismatchError);
    expect(lagrangeErrorCode(error)).toBe("bad-input");
    const message = (error as Error).message;
    expect(message).toMatch(
      /^sequence \d+, token \d+: \d+ of 200 gold sequences in citations\.docs are invalid under the IOB2 scheme/,
    );
    expect(message).toMatch(/\(the first, here: /);
    expect(message).toMatch(/pass --scheme hierarchical-BIO$/);
    // A few slips are tolerated (CoNLL-2003 has 2 invalid IOB1 sentences in 14,041).
    const slips = [...Array.from({ length: 1000 }, () => ["I-PER", "O"]), ["O", "B-PER"]];
    expect(requireScheme(slips, "IOB1", "x").invalid).toBe(1);
    // …but a label the scheme cannot read is never tolerated, and is placed by the locator.
    const unreadable = [...slips, ["O", "X-PER"]];
    expect(() =>
      requireScheme(unreadable, "IOB1", "x.conll", (s, t) => `x.conll:${100 * s + t + 1}`),
    ).toThrow(/^x\.conll:100102: IOB1: label "X-PER": expected "O" or <tag>-<type>/);
    expect(() => parseLabelScheme("BIO")).toThrow(
      /unknown label scheme "BIO"; expected one of IOB1/,
    );
  });

  it.skipIf(umassTrain === undefined)(
    "UMass training.docs: valid under hierarchical BIO, mostly invalid as flat IOB2 (needs the mirror)",
    async () => {
      const corpus = await openCorpus(umassTrain!, { malformed: "skip" });
      expect(corpus.format).toBe("umass");
      expect(corpus.scheme).toBe("hierarchical-BIO");
      const gold = corpus.sentences.map((s) => s.labels!);
      expect(checkScheme(gold, "hierarchical-BIO").invalid).toBe(0);
      expect(checkScheme(gold, "IOB2").invalid).toBeGreaterThan(gold.length / 2);
    },
  );
});

describe("openCorpus", () => {
  let dir: string | undefined;
  afterAll(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it("a CoNLL file gets the scheme its labels fit; unknown names and formats are usage errors", async () => {
    dir = await mkdtemp(join(tmpdir(), "lagrange-corpus-"));
    const iob1 = join(dir, "ner.txt");
    await writeFile(iob1, "EU I-ORG\nrejects O\nGerman I-MISC\n\nPeter I-PER\nBlackburn I-PER\n\n");
    const corpus = await openCorpus(iob1);
    expect(corpus.format).toBe("conll");
    expect(corpus.scheme).toBe("IOB1");
    expect(corpus.sentences).toHaveLength(2);
    const codeOf = async (run: () => Promise<unknown>) => {
      try {
        await run();
      } catch (error) {
        return lagrangeErrorCode(error);
      }
      return "none";
    };
    expect(await codeOf(() => openCorpus("no-such-dataset:train"))).toBe("usage");
    expect(await codeOf(() => openCorpus(iob1, { format: "xml" }))).toBe("usage");
  });
});

describe("decodingMask (hierarchical BIO): semantics on hand-made label sets", () => {
  it("flat BIO: I-x only after B-x or I-x; starts never with I-", () => {
    const mask = decodingMask(FLAT, "IOB2")!.allowed;
    const L = FLAT.length;
    const ok = (a: string, b: string) => mask[FLAT.indexOf(a) * L + FLAT.indexOf(b)];
    expect(ok("B-author", "I-author")).toBe(1);
    expect(ok("I-author", "I-author")).toBe(1);
    expect(ok("O", "I-author")).toBe(0);
    expect(ok("B-title", "I-author")).toBe(0);
    expect(ok("I-title", "B-author")).toBe(1);
    expect(ok("B-year", "O")).toBe(1);
    expect([...decodingMask(FLAT, "IOB2")!.allowedStart]).toEqual([1, 1, 0, 1, 0, 1]);
  });

  it("hierarchical BIO: continuing a level needs the same path above it", () => {
    const mask = decodingMask(HIER, "hierarchical-BIO")!.allowed;
    const L = HIER.length;
    const ok = (a: number, b: number) => mask[a * L + b];
    expect(ok(1, 2)).toBe(1); // first name continues
    expect(ok(1, 3)).toBe(1); // last name begins inside the same person
    expect(ok(3, 4)).toBe(1); // a new person inside the same authors segment
    expect(ok(3, 5)).toBe(1); // "and" inside authors
    expect(ok(6, 3)).toBe(0); // title → inside a person: no open authors segment
    expect(ok(8, 3)).toBe(0); // editor's person → authors' person: different path
    expect(ok(8, 9)).toBe(1);
    expect(ok(5, 2)).toBe(0); // "and" → continuing a first name that is not open
  });

  it("allows every transition of randomly generated well-formed hierarchical sequences", () => {
    // Build label sequences from random nested segmentations and check the mask accepts them.
    const tree = fc.array(
      fc.record({
        type: fc.constantFrom("a", "b"),
        length: fc.integer({ min: 1, max: 3 }),
        children: fc.array(
          fc.record({ type: fc.constantFrom("c", "d"), length: fc.integer({ min: 1, max: 2 }) }),
          { maxLength: 2 },
        ),
      }),
      { minLength: 1, maxLength: 4 },
    );
    fc.assert(
      fc.property(tree, fc.boolean(), (segments, outsideFirst) => {
        const names: string[] = outsideFirst ? ["O"] : [];
        for (const s of segments) {
          const inner: string[] = [];
          for (const c of s.children) {
            for (let k = 0; k < c.length; k++) inner.push(`${k === 0 ? "B" : "I"}-${c.type}`);
          }
          const total = Math.max(s.length, inner.length);
          for (let k = 0; k < total; k++) {
            const top = `${k === 0 ? "B" : "I"}-${s.type}`;
            names.push(k < inner.length ? `${top}/${inner[k]}` : top);
          }
        }
        const labels = [...new Set(names)];
        const { allowed: mask, allowedStart: start } = decodingMask(labels, "hierarchical-BIO")!;
        const L = labels.length;
        expect(start[labels.indexOf(names[0]!)]).toBe(1);
        for (let i = 1; i < names.length; i++) {
          expect(mask[labels.indexOf(names[i - 1]!) * L + labels.indexOf(names[i]!)]).toBe(1);
        }
      }),
      { numRuns: 200, seed: 42 },
    );
  });
});
