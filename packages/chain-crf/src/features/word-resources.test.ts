import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { attributeNames } from "./builder.js";
import type { TokenFeatures } from "./define-preset.js";
import { nerPreset } from "./ner.js";
import { featureExtractor, parseFeatureSpec } from "./spec.js";
import { clusterFeatures, lexiconFeatures } from "./word-resources.js";

function tokenNames<S>(features: TokenFeatures<S>, words: readonly string[]): string[][] {
  const out: string[][] = words.map(() => []);
  const prepared = features.prepare(words.map((w) => [w]));
  const sink = {
    state: (t: number, name: string) => out[t]!.push(name),
    transition: () => {},
  };
  for (let t = 0; t < words.length; t++) features.token(prepared, t, sink);
  return out;
}

describe("lexiconFeatures", () => {
  const vocabulary = ["new", "york", "New", "York", "city", "la", "La", "Paz"];
  const word = fc.constantFrom(...vocabulary);
  const entry = fc.array(word, { minLength: 1, maxLength: 3 }).map((w) => w.join(" "));
  const lexicons = fc.array(fc.array(entry, { maxLength: 5 }), { minLength: 1, maxLength: 3 });

  // Brute force: every span against every entry, as written and lower-cased.
  function expected(entries: readonly string[][], words: readonly string[], window: number) {
    const marks = (fold: boolean) => {
      const norm = (w: string) => (fold ? w.toLowerCase() : w);
      const begin = words.map(() => new Set<number>());
      const inside = words.map(() => new Set<number>());
      for (let i = 0; i < words.length; i++) {
        for (let j = i + 1; j <= words.length; j++) {
          const span = words.slice(i, j).map(norm).join(" ");
          entries.forEach((list, l) => {
            if (!list.some((e) => e.split(" ").map(norm).join(" ") === span)) return;
            begin[i]!.add(l);
            for (let t = i + 1; t < j; t++) inside[t]!.add(l);
          });
        }
      }
      return { begin, inside };
    };
    const exact = marks(false);
    const folded = marks(true);
    return words.map((_, t) => {
      const names: string[] = [];
      for (let o = -window; o <= window; o++) {
        const at = t + o;
        if (at < 0 || at >= words.length) continue;
        entries.forEach((_list, l) => {
          if (exact.begin[at]!.has(l)) names.push(`lex[${o}]:L${l}=B`);
          if (exact.inside[at]!.has(l)) names.push(`lex[${o}]:L${l}=I`);
          if (folded.begin[at]!.has(l)) names.push(`lexi[${o}]:L${l}=B`);
          if (folded.inside[at]!.has(l)) names.push(`lexi[${o}]:L${l}=I`);
        });
      }
      return names.sort();
    });
  }

  it("marks every span that spells an entry, as written and case-folded (brute force)", () => {
    fc.assert(
      fc.property(
        lexicons,
        fc.array(word, { maxLength: 7 }),
        fc.integer({ min: 0, max: 2 }),
        (entries, words, window) => {
          const features = lexiconFeatures(
            entries.map((list, l) => ({ name: `L${l}`, entries: list })),
            { window },
          );
          const got = tokenNames(features, words).map((names) => [...names].sort());
          expect(got).toEqual(expected(entries, words, window));
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("clusterFeatures", () => {
  it("gives the path prefixes of each word in the window, the lower-cased word as a fallback", () => {
    const features = clusterFeatures({
      name: "c",
      words: ["the", "cat", "Paris"],
      paths: ["0", "10110", "1110001"],
      prefixes: [2, 4, 6],
      window: 1,
    });
    expect(tokenNames(features, ["The", "dog", "Paris"])).toEqual([
      ["c[0]p2=0"],
      ["c[-1]p2=0", "c[1]p2=11", "c[1]p4=1110", "c[1]p6=111000"],
      ["c[0]p2=11", "c[0]p4=1110", "c[0]p6=111000"],
    ]);
  });
});

describe("featureExtractor", () => {
  const rows = [
    ["Peter", "NNP"],
    ["went", "VBD"],
    ["to", "TO"],
    ["New", "NNP"],
    ["York", "NNP"],
  ];
  const spec = {
    base: "ner",
    columns: ["word", "pos"],
    clusters: [{ name: "brown", words: ["went", "York"], paths: ["0101", "1100"], prefixes: [4] }],
    lexicons: [{ name: "city", entries: ["New York"] }],
  };

  it("adds the resources' attributes after each token's base attributes", () => {
    const extractor = featureExtractor(spec);
    const names = attributeNames(extractor.extract(rows));
    const base = attributeNames(nerPreset({ columns: ["word", "pos"] }).extract(rows));
    for (let t = 0; t < rows.length; t++) {
      const extra = names[t]!.filter((n) => !base[t]!.includes(n));
      expect(
        names[t]!.slice(0, base[t]!.length - (t === 0 || t === rows.length - 1 ? 1 : 0)),
      ).toEqual(base[t]!.filter((n) => n !== "__BOS__" && n !== "__EOS__"));
      if (t === 3) expect(extra).toContain("lex[0]:city=B");
      if (t === 4)
        expect(extra).toEqual(expect.arrayContaining(["lex[0]:city=I", "brown[0]p4=1100"]));
    }
    expect(names[0]).not.toContain("chk[0]=NNP");
    expect(names[0]).toContain("pos[0]=NNP");
  });

  it("survives JSON (a model file's header) and names what is wrong in a bad one", () => {
    const again = parseFeatureSpec(JSON.parse(JSON.stringify(spec)), "m.lgm");
    expect(attributeNames(featureExtractor(again).extract(rows))).toEqual(
      attributeNames(featureExtractor(spec).extract(rows)),
    );
    expect(() =>
      parseFeatureSpec(
        { base: "ner", clusters: [{ name: "x", words: ["a"], paths: [] }] },
        "m.lgm",
      ),
    ).toThrow(
      /m\.lgm: features: clusters\[0\]: words and paths must be lists of strings of the same length/,
    );
    expect(() => parseFeatureSpec({ base: "nope" }, "m.lgm")).toThrow(
      /m\.lgm: features: unknown feature preset "nope"/,
    );
  });
});
