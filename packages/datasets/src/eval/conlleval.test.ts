import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { evaluateChunks } from "./chunks.js";
import {
  ConllevalInputError,
  conllevalReport,
  evaluateConllText,
  formatConllevalReport,
} from "./conlleval.js";
import { compareCodePoints, formatFixed, padBytes } from "./perl.js";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../../../..");
const fixtureDir = join(repoRoot, "..", "shared", "fixtures", "conlleval");
const haveFixtures = existsSync(fixtureDir);
const fixtureNames = haveFixtures
  ? readdirSync(fixtureDir)
      .filter((f) => f.endsWith(".conlleval.out"))
      .map((f) => f.slice(0, -".conlleval.out".length))
  : [];

describe("conlleval fixtures", () => {
  it.skipIf(!haveFixtures)(
    `reports are byte-identical to conlleval.pl (needs ${fixtureDir})`,
    () => {
      expect(fixtureNames.length).toBeGreaterThanOrEqual(2);
      for (const name of fixtureNames) {
        const input = readFileSync(join(fixtureDir, `${name}.txt`), "utf8");
        const expected = readFileSync(join(fixtureDir, `${name}.conlleval.out`), "utf8");
        expect(conllevalReport(input, { file: `${name}.txt` }), name).toBe(expected);
      }
    },
  );

  it.skipIf(!haveFixtures)(
    `label arrays give the same counts as the text (needs ${fixtureDir})`,
    () => {
      for (const name of fixtureNames) {
        const input = readFileSync(join(fixtureDir, `${name}.txt`), "utf8");
        const gold: string[][] = [];
        const predicted: string[][] = [];
        let g: string[] = [];
        let p: string[] = [];
        for (const line of input.split("\n")) {
          if (line === "") {
            if (g.length > 0) {
              gold.push(g);
              predicted.push(p);
            }
            g = [];
            p = [];
            continue;
          }
          const fields = line.split(" ");
          g.push(fields.at(-2)!);
          p.push(fields.at(-1)!);
        }
        if (g.length > 0) {
          gold.push(g);
          predicted.push(p);
        }
        const fromArrays = evaluateChunks(gold, predicted);
        expect(fromArrays).toEqual(evaluateConllText(input));
        const expected = readFileSync(join(fixtureDir, `${name}.conlleval.out`), "utf8");
        expect(formatConllevalReport(fromArrays)).toBe(expected);
      }
    },
  );
});

/** An independent chunk decoder (B- or a type change starts, I- of the same type continues). */
function bruteForceSpans(labels: readonly string[]): Set<string> {
  const spans = new Set<string>();
  let start = -1;
  let type = "";
  for (let i = 0; i <= labels.length; i++) {
    const label = labels[i] ?? "O";
    const [tag, t] = label === "O" ? ["O", ""] : [label[0]!, label.slice(2)];
    const continuing = start >= 0 && tag === "I" && t === type;
    if (!continuing && start >= 0) {
      spans.add(`${type}:${start}:${i}`);
      start = -1;
    }
    if (!continuing && tag !== "O") {
      start = i;
      type = t;
    }
  }
  return spans;
}

const iobLabel = fc.constantFrom("O", "O", "B-NP", "I-NP", "B-VP", "I-VP", "B-A-B", "I-A-B");
const sentences = fc.array(
  fc
    .integer({ min: 0, max: 12 })
    .chain((n) =>
      fc.tuple(
        fc.array(iobLabel, { minLength: n, maxLength: n }),
        fc.array(iobLabel, { minLength: n, maxLength: n }),
      ),
    ),
  { maxLength: 6 },
);

describe("conlleval counting", () => {
  it("equals set intersection of independently decoded chunks on random IOB sequences", () => {
    fc.assert(
      fc.property(sentences, (pairs) => {
        const gold = pairs.map(([g]) => g);
        const predicted = pairs.map(([, p]) => p);
        const result = evaluateChunks(gold, predicted);
        let goldCount = 0;
        let predictedCount = 0;
        let correct = 0;
        let tokens = 0;
        let correctTokens = 0;
        for (const [g, p] of pairs) {
          const gs = bruteForceSpans(g);
          const ps = bruteForceSpans(p);
          goldCount += gs.size;
          predictedCount += ps.size;
          for (const s of ps) if (gs.has(s)) correct++;
          tokens += g.length;
          for (let i = 0; i < g.length; i++) if (g[i] === p[i]) correctTokens++;
        }
        expect([result.goldChunks, result.predictedChunks, result.correctChunks]).toEqual([
          goldCount,
          predictedCount,
          correct,
        ]);
        expect([result.tokens, result.correctTokens]).toEqual([tokens, correctTokens]);
        // The text route (blank line after each sentence) agrees with the array route.
        const text = pairs
          .map(([g, p]) => `${g.map((l, i) => `w ${l} ${p[i]}\n`).join("")}\n`)
          .join("");
        expect(evaluateConllText(text)).toEqual(result);
        // So does the scheme-based decoder on IOB2 input.
        const bySpans = evaluateChunks(gold, predicted, { scheme: "IOB1" });
        expect([bySpans.goldChunks, bySpans.predictedChunks, bySpans.correctChunks]).toEqual([
          goldCount,
          predictedCount,
          correct,
        ]);
      }),
      { numRuns: 300 },
    );
  });

  it("treats the README's edge cases as conlleval does", () => {
    // I- after O starts a chunk; a sentence break closes one; the next sentence's I- starts one.
    const text = "a O O\nb I-NP B-NP\nc I-NP I-NP\n\nd I-NP I-NP\ne B-NP I-VP\n";
    const result = evaluateConllText(text);
    expect([result.goldChunks, result.predictedChunks, result.correctChunks]).toEqual([3, 3, 2]);
    expect(result.perType.VP).toEqual({
      precision: 0,
      recall: 0,
      f1: 0,
      count: 1,
      gold: 0,
      correct: 0,
    });
  });

  it("counts -DOCSTART- as a token unless asked to treat it as a boundary", () => {
    const text = "-DOCSTART- O O\n\nEU B-ORG B-ORG\n";
    expect(evaluateConllText(text).tokens).toBe(2);
    expect(evaluateConllText(text, { docstartAsBoundary: true }).tokens).toBe(1);
    // A -X- first field is a sentence break, whatever the rest of the line says.
    expect(evaluateConllText("-X- B-NP B-NP\na B-NP B-NP\n").tokens).toBe(1);
  });

  it("reads raw tags (-r) with an outside tag (-o)", () => {
    const text = "a NP NP\nb NP NP\nc none VP\n";
    const result = evaluateConllText(text, { raw: true, outside: "none" });
    expect([result.goldChunks, result.predictedChunks, result.correctChunks]).toEqual([2, 3, 2]);
    expect(
      evaluateChunks([["NP", "NP", "none"]], [["NP", "NP", "VP"]], { raw: true, outside: "none" }),
    ).toEqual(result);
  });

  it("splits on a single space by default, and on the delimiter given", () => {
    expect(() => evaluateConllText("a\tB-NP\tB-NP\n")).toThrow(ConllevalInputError);
    expect(evaluateConllText("a\tB-NP\tB-NP\n", { delimiter: "\t" }).correctChunks).toBe(1);
    expect(evaluateConllText("a  B-NP B-NP\n").tokens).toBe(1);
  });

  it("reads CRLF line ends as LF ones (files written on Windows)", () => {
    const text = "He B-NP B-NP\nsaw B-VP O\n\nit B-NP B-NP\n";
    const crlf = text.replaceAll("\n", "\r\n");
    expect(evaluateConllText(crlf)).toEqual(evaluateConllText(text));
  });

  it("names the file and line of a bad line", () => {
    expect(() => evaluateConllText("a B-NP B-NP\nb B-NP\n", { file: "x.txt" })).toThrow(
      /x\.txt:2: unexpected number of fields: 2 \(expected 3, as on line 1\)/,
    );
    expect(() => evaluateConllText("a\n")).toThrow(/<input>:1: expected at least two fields/);
  });

  it("lists the empty type twice when both columns have it, as Perl's de-duplication does", () => {
    const report = conllevalReport("a B B\nb O B\n");
    expect(report.split("\n").filter((line) => line.startsWith(`${" ".repeat(17)}:`)).length).toBe(
      2,
    );
  });
});

describe("Perl formatting", () => {
  it("rounds exact ties to even like C's printf, unlike toFixed", () => {
    expect(formatFixed(12.125, 6, 2)).toBe(" 12.12");
    expect((12.125).toFixed(2)).toBe("12.13");
    expect(formatFixed(0.375, 6, 2)).toBe("  0.38");
    expect(formatFixed(100, 6, 2)).toBe("100.00");
    expect(formatFixed(1234.5, 6, 2)).toBe("1234.50");
  });

  it("agrees with toFixed away from ties", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10_000 }),
        fc.integer({ min: 1, max: 10_000 }),
        (c, f) => {
          const x = (100 * c) / f;
          const scaled = x * 1000;
          fc.pre(Math.abs(scaled - Math.round(scaled)) > 1e-6 || Math.round(scaled) % 10 !== 5);
          expect(formatFixed(x, 6, 2)).toBe(x.toFixed(2).padStart(6));
        },
      ),
    );
  });

  it("pads by UTF-8 bytes and sorts by code point", () => {
    expect(padBytes("É", 4)).toBe("  É");
    expect(["b", "\u{1F600}", "\uFFFD", "B"].sort(compareCodePoints)).toEqual([
      "B",
      "b",
      "\uFFFD",
      "\u{1F600}",
    ]);
  });
});
