import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatUmassCitations, parseUmassCitations } from "../formats/umass.js";
import { findSplitFile } from "../registry/resolve.js";
import {
  type CitationGeneratorOptions,
  citationStream,
  generateCitation,
  generateCitationSentences,
  generateCitations,
} from "./generate.js";
import { CITATION_KINDS } from "./record.js";
import { CITATION_STYLES } from "./styles.js";
import { parseInline, tokenize } from "./tree.js";

/** The 37 element names of the UMass files (umass_citation/SOURCE.md). */
const UMASS_ELEMENTS = new Set(
  (
    "address authors booktitle category chapter date department edition editor institution " +
    "journal language length month note number organization pages person person-affix " +
    "person-first person-last person-middle publisher ref-marker reference_id school series " +
    "status subtitle tech thesis title venue volume web year"
  ).split(" "),
);

/**
 * Checks hierarchical BIO independently of the generator: every level is B-x or I-x, and I-x at
 * a level continues the previous token's element there, so the previous token has the same tags
 * up to that level and no B above it.
 */
function hierarchicalBioErrors(labels: readonly string[]): string[] {
  const errors: string[] = [];
  let previous: { prefix: string; tag: string }[] = [];
  labels.forEach((label, t) => {
    if (label === "O") {
      previous = [];
      return;
    }
    const levels = label.split("/").map((part) => {
      const m = /^([BI])-([a-z][a-z_-]*)$/.exec(part);
      if (m === null) errors.push(`token ${t}: malformed level "${part}" in ${label}`);
      return { prefix: m?.[1] ?? "?", tag: m?.[2] ?? "?" };
    });
    levels.forEach((level, k) => {
      if (level.prefix !== "I") return;
      const continues = levels
        .slice(0, k + 1)
        .every((l, j) => previous[j]?.tag === l.tag && (j === k || l.prefix === "I"));
      if (!continues) errors.push(`token ${t}: ${label} does not continue ${labelOf(previous)}`);
    });
    previous = levels;
  });
  return errors;
}
const labelOf = (levels: { prefix: string; tag: string }[]) =>
  levels.length === 0 ? "O" : levels.map((l) => `${l.prefix}-${l.tag}`).join("/");

describe("citation generator", () => {
  it("is deterministic per seed, and citation i does not depend on how many are drawn", () => {
    fc.assert(
      fc.property(fc.integer(), fc.integer({ min: 1, max: 12 }), (seed, count) => {
        const a = generateCitations(count, { seed });
        const b = generateCitations(count + 3, { seed });
        expect(b.slice(0, count)).toEqual(a);
        const stream = citationStream({ seed });
        for (const citation of a) expect(stream.next().value).toEqual(citation);
      }),
      { numRuns: 40 },
    );
    const inline = (seed: number) => generateCitations(20, { seed }).map((c) => c.inline);
    expect(inline(1)).not.toEqual(inline(2));
  });

  it("gives valid hierarchical BIO, one label per token, and an inline form that parses back", () => {
    fc.assert(
      fc.property(fc.integer(), fc.nat(10_000), (seed, index) => {
        const c = generateCitation({ seed }, index);
        expect(c.labels.length).toBe(c.tokens.length);
        expect(c.paths.length).toBe(c.tokens.length);
        expect(c.tokens.length).toBeGreaterThan(3);
        expect(hierarchicalBioErrors(c.labels)).toEqual([]);
        const parsed = parseInline(c.inline);
        expect(parsed.tokens).toEqual(c.tokens);
        expect(parsed.labels).toEqual(c.labels);
        for (const [i, label] of c.labels.entries()) {
          expect(label.replace(/(^|\/)[BI]-/g, "$1")).toBe(c.paths[i]);
        }
      }),
      { numRuns: 400 },
    );
  });

  it("round-trips through the UMass reader and writer of the formats module", () => {
    const citations = generateCitations(300, { seed: 31 });
    const text = citations.map((c) => c.inline).join("\n");
    const { sentences, report } = parseUmassCitations(text, { file: "generated.docs" });
    expect(report.wellFormed).toBe(citations.length);
    expect(sentences.map((s) => [s.tokens, s.labels])).toEqual(
      citations.map((c) => [c.tokens, c.labels]),
    );
    const asSentences = generateCitationSentences(300, { seed: 31 });
    const written = formatUmassCitations(asSentences);
    expect(written.trimEnd().split("\n")).toEqual(citations.map((c) => c.inline));
  });

  it("tokenises as the UMass files do: punctuation split off, initials kept whole", () => {
    expect(tokenize('E. W. Montroll, "Title," Phys. Rev. D 40 (1989) 61--205.')).toEqual([
      "E.",
      "W.",
      "Montroll",
      ",",
      '"',
      "Title",
      ",",
      '"',
      "Phys",
      ".",
      "Rev",
      ".",
      "D",
      "40",
      "(1989)",
      "61--205",
      ".",
    ]);
    const unsplit: string[] = [];
    for (const c of generateCitations(300, { seed: 11 })) {
      expect(tokenize(c.tokens.join(" "))).toEqual(c.tokens);
      for (const token of c.tokens) {
        if (/\s|^<\/?[a-z_-]+>$/.test(token) || (token.length > 1 && /[,;:]$/.test(token))) {
          unsplit.push(`${token} in ${c.inline}`);
        }
      }
    }
    expect(unsplit).toEqual([]);
  });

  it("uses only UMass element names, and draws every style and every kind", () => {
    const citations = generateCitations(800, { seed: 2024 });
    const styles = new Set(citations.map((c) => c.style));
    const kinds = new Set(citations.map((c) => c.kind));
    expect([...styles].sort()).toEqual([...CITATION_STYLES].sort());
    expect([...kinds].sort()).toEqual([...CITATION_KINDS].sort());
    const foreign = new Set<string>();
    for (const c of citations) {
      for (const path of c.paths) {
        if (path === "O") continue;
        for (const element of path.split("/")) {
          if (!UMASS_ELEMENTS.has(element)) foreign.add(element);
        }
      }
    }
    expect([...foreign]).toEqual([]);
  });

  it("renders the fields each kind needs", () => {
    const need: Record<string, readonly string[]> = {
      article: ["venue/journal", "venue/volume"],
      incollection: ["venue/booktitle", "venue/editor/person/person-last"],
      phdthesis: ["venue/thesis", "venue/school"],
      mastersthesis: ["venue/thesis", "venue/school"],
      techreport: ["venue/institution", "venue/number"],
      web: ["venue/web"],
      book: ["venue/publisher"],
      inproceedings: ["venue/booktitle"],
    };
    for (const kind of CITATION_KINDS) {
      for (const c of generateCitations(40, { seed: 5, kinds: [kind] })) {
        expect(c.kind).toBe(kind);
        for (const path of need[kind]!) {
          expect(
            c.paths.some((p) => p.startsWith(path)),
            `${kind} ${c.style}: ${c.inline}`,
          ).toBe(true);
        }
        const record = c.record;
        if (record.authors.length > 0) {
          expect(c.paths.some((p) => p.startsWith("authors/person/person-last"))).toBe(true);
        }
      }
    }
  });

  it("renders one record differently in different styles", () => {
    const texts = new Set<string>();
    for (const style of CITATION_STYLES) {
      const options: CitationGeneratorOptions = { seed: 9, styles: [style], kinds: ["article"] };
      const c = generateCitation(options, 0);
      expect(c.style).toBe(style);
      texts.add(c.tokens.join(" "));
    }
    expect(texts.size).toBe(CITATION_STYLES.length);
  });

  it("rejects bad options with a clear message", () => {
    expect(() => generateCitation({ seed: 1.5 })).toThrow(/seed must be an integer/);
    expect(() => generateCitations(-1, { seed: 1 })).toThrow(/count must be/);
    expect(() => generateCitation({ seed: 1, styles: [] })).toThrow(/styles must not be empty/);
  });

  const trainFile = findSplitFile("umass-citations", "train");
  const devFile = findSplitFile("umass-citations", "dev");

  it.skipIf(trainFile === undefined || devFile === undefined)(
    "produces only labels that the real UMass train/dev files use (skipped without the mirror)",
    () => {
      const real = new Set<string>();
      let wellFormed = 0;
      for (const file of [trainFile!, devFile!]) {
        const lines = readFileSync(file, "utf8").split("\n");
        lines.forEach((line, i) => {
          if (line.trim() === "") return;
          try {
            for (const label of parseInline(line, `${file}:${i + 1}`).labels) real.add(label);
            wellFormed++;
          } catch {
            // malformed lines (21 in all, listed in SOURCE.md) are left to the formats module
          }
        });
      }
      expect(wellFormed).toBeGreaterThan(2000);
      const generated = new Set<string>();
      for (const c of generateCitations(3000, { seed: 77 })) {
        for (const label of c.labels) {
          generated.add(label);
          if (!real.has(label)) expect.fail(`label ${label} is not in the real data: ${c.inline}`);
        }
      }
      expect(generated.size).toBeGreaterThan(60);
    },
  );
});
