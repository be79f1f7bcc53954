import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { contextFeatures, documentContextColumns, NO_CONTEXT } from "./context.js";
import type { AttributeSink } from "./types.js";

const docs = (n: number) => new Int32Array(n);

describe("documentContextColumns", () => {
  it("a headline's all-caps word meets the body's mentions, without counting itself", () => {
    const sentences = [
      ["CLINTON", "WINS"],
      ["President", "Clinton", "said", "on", "Monday"],
      ["Clinton", "left", "."],
    ];
    const [headline, body, last] = documentContextColumns(sentences, docs(3));
    // The headline's CLINTON: capitalised mid-sentence, and sentence-initially.
    expect(headline![1][0]).toBe("ci");
    expect(headline![0][0]!.split(" ").sort()).toEqual(
      ["-1president", "1said", "2on", "1left", "2."].sort(),
    );
    // WINS occurs once: nothing; lower-case words never get aggregates.
    expect(headline![0][1]).toBe(NO_CONTEXT);
    expect(body![0][2]).toBe(NO_CONTEXT);
    // The last sentence's Clinton sees the headline (initially, before a capital) and the body.
    expect(last![1][0]).toBe("cin");
  });

  it("documents are separate: the same word in another document is not seen", () => {
    const [a, b] = documentContextColumns(
      [
        ["Paris", "is"],
        ["Paris", "was"],
      ],
      Int32Array.of(0, 1),
    );
    expect(a![0][0]).toBe(NO_CONTEXT);
    expect(b![1][0]).toBe(NO_CONTEXT);
  });

  it("equals a direct count on random small documents", () => {
    const word = fc.constantFrom("Bank", "bank", "BANK", "The", "the", "Smith", "said", ".");
    const sentence = fc.array(word, { minLength: 1, maxLength: 6 });
    fc.assert(
      fc.property(fc.array(sentence, { minLength: 1, maxLength: 5 }), (sentences) => {
        const got = documentContextColumns(sentences, docs(sentences.length));
        sentences.forEach((words, i) => {
          words.forEach((w, t) => {
            const items = new Set<string>();
            const flags = new Set<string>();
            if (/^\p{Lu}/u.test(w)) {
              sentences.forEach((other, s) => {
                other.forEach((x, u) => {
                  if ((s === i && u === t) || x.toLowerCase() !== w.toLowerCase()) return;
                  if (u === 0) flags.add("i");
                  else if (x === x.toLowerCase()) flags.add("l");
                  else if (x === x.toUpperCase()) flags.add("u");
                  else flags.add("c");
                  if (u > 1 && /^\p{Lu}/u.test(other[u - 1]!)) flags.add("p");
                  if (u + 1 < other.length && /^\p{Lu}/u.test(other[u + 1]!)) flags.add("n");
                  for (const d of [-2, -1, 1, 2]) {
                    const y = other[u + d];
                    if (y !== undefined) items.add(`${d}${y.toLowerCase()}`);
                  }
                });
              });
            }
            const [ctx, casing] = got[i]!;
            expect(ctx[t] === NO_CONTEXT ? [] : ctx[t]!.split(" ").sort()).toEqual(
              [...items].sort(),
            );
            expect(casing[t]).toBe(flags.size === 0 ? NO_CONTEXT : [...flags].sort().join(""));
          });
        });
      }),
    );
  });
});

describe("contextFeatures", () => {
  const collect = (rows: string[][], first: number) => {
    const features = contextFeatures(first);
    const prepared = features.prepare(rows);
    const out: string[][] = rows.map(() => []);
    const sink: AttributeSink = {
      state: (t, name) => out[t]!.push(name),
      transition: () => {},
    };
    for (let t = 0; t < rows.length; t++) features.token(prepared, t, sink);
    return out;
  };

  it("each item, the casing and each casing letter are attributes", () => {
    const out = collect(
      [
        ["Clinton", "NNP", "-1president 1said", "cp"],
        ["said", "VBD", NO_CONTEXT, NO_CONTEXT],
      ],
      2,
    );
    expect(out[0]).toEqual(["agg:-1president", "agg:1said", "agg:case=cp", "agg:c", "agg:p"]);
    expect(out[1]).toEqual([]);
  });

  it("rows without the context columns are refused, naming where they belong", () => {
    expect(() => collect([["Clinton", "NNP"]], 2)).toThrow(/columns 3–4/);
  });
});
