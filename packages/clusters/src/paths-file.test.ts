import { lagrangeErrorCode } from "@lagrange/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { coMembershipF1 } from "./agreement.js";
import { formatClusterPaths, parseClusterPaths } from "./paths-file.js";
import { type WordClusters, wordClusters } from "./word-clusters.js";

const wordArb = fc.stringMatching(/^[A-Za-zé.'$#0-9-]{1,6}$/);
const bitsArb = fc.stringMatching(/^[01]{0,5}$/);

const clustersArb = fc
  .uniqueArray(fc.tuple(wordArb, bitsArb, fc.nat({ max: 1000 })), {
    minLength: 1,
    maxLength: 30,
    selector: ([w]) => w,
  })
  .map((rows) =>
    wordClusters(
      rows.map(([w]) => w),
      rows.map(([, p]) => p),
      Int32Array.from(rows, ([, , c]) => c),
    ),
  );

function expectBadInput(text: string, where: string, what: string) {
  let error: unknown;
  try {
    parseClusterPaths(text, "paths.txt");
  } catch (e) {
    error = e;
  }
  expect(lagrangeErrorCode(error)).toBe("bad-input");
  expect((error as Error).message).toContain(where);
  expect((error as Error).message).toContain(what);
}

describe("the paths file", () => {
  it("round-trips: parse(format(c)) has the same words, bits and counts in order", () => {
    fc.assert(
      fc.property(clustersArb, (clusters) => {
        const text = formatClusterPaths(clusters);
        const back = parseClusterPaths(text, "x");
        expect(back.words).toEqual(clusters.words);
        expect(back.paths).toEqual(clusters.paths);
        expect(Array.from(back.counts)).toEqual(Array.from(clusters.counts));
        for (const w of clusters.words) expect(back.pathOf(w)).toBe(clusters.pathOf(w));
        expect(formatClusterPaths(back)).toBe(text);
      }),
    );
  });

  it("reads CRLF, blank lines, space-separated fields and a missing count", () => {
    const c = parseClusterPaths("0\tthe\t6\r\n\n10 chased 3\n\tdog\n", "p");
    expect(c.words).toEqual(["the", "chased", "dog"]);
    expect(c.paths).toEqual(["0", "10", ""]);
    expect(Array.from(c.counts)).toEqual([6, 3, 0]);
  });

  it("names file:line and what was expected on malformed lines", () => {
    expectBadInput("0\tthe\t6\n2\tcat\t1\n", "paths.txt:2:", "bits");
    expectBadInput("0\tthe\t6\n1\tcat\tmany\n", "paths.txt:2:", "count");
    expectBadInput("0\tthe\t6\t7\n", "paths.txt:1:", "4 field(s)");
    expectBadInput("the\n", "paths.txt:1:", "1 field(s)");
    expectBadInput("0\tthe\t6\n\n1\tthe\t2\n", "paths.txt:3:", "already on line 1");
    expectBadInput("\n\n", "paths.txt:", "no word");
    expectBadInput("\u0000\u0001\u0002binary\n", "paths.txt:1:", "expected");
  });

  it("refuses to write a word the format cannot hold", () => {
    const bad = wordClusters(["a b"], ["0"], Int32Array.of(1));
    expect(() => formatClusterPaths(bad)).toThrow(/whitespace/);
  });
});

/** The O(V²) definition: every pair of common words, together in a, in b. */
function pairCount(a: WordClusters, b: WordClusters, depth?: number) {
  const cut = (p: string) => (depth === undefined ? p : p.slice(0, depth));
  const common = a.words.filter((w) => b.pathOf(w) !== undefined);
  let inA = 0;
  let inB = 0;
  let both = 0;
  for (let i = 0; i < common.length; i++) {
    for (let j = i + 1; j < common.length; j++) {
      const x = common[i]!;
      const y = common[j]!;
      const ta = cut(a.pathOf(x)!) === cut(a.pathOf(y)!);
      const tb = cut(b.pathOf(x)!) === cut(b.pathOf(y)!);
      if (ta) inA++;
      if (tb) inB++;
      if (ta && tb) both++;
    }
  }
  return { words: common.length, inA, inB, both };
}

describe("coMembershipF1", () => {
  it("equals the pair count over every pair of common words", () => {
    fc.assert(
      fc.property(
        clustersArb,
        clustersArb,
        fc.option(fc.nat({ max: 6 }), { nil: undefined }),
        (a, b, depth) => {
          const got = coMembershipF1(a, b, depth);
          const want = pairCount(a, b, depth);
          expect(got.words).toBe(want.words);
          expect(got.pairsA).toBe(want.inA);
          expect(got.pairsB).toBe(want.inB);
          expect(got.pairsBoth).toBe(want.both);
          const p = want.inA === 0 ? 1 : want.both / want.inA;
          const r = want.inB === 0 ? 1 : want.both / want.inB;
          expect(got.precision).toBeCloseTo(p, 12);
          expect(got.recall).toBeCloseTo(r, 12);
          expect(got.f1).toBeCloseTo(p + r === 0 ? 0 : (2 * p * r) / (p + r), 12);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("is 1 between a clustering and itself with its bits renamed", () => {
    fc.assert(
      fc.property(clustersArb, (a) => {
        const flipped = wordClusters(
          a.words,
          a.paths.map((p) => p.replace(/[01]/g, (d) => (d === "0" ? "1" : "0"))),
          a.counts,
        );
        expect(coMembershipF1(a, flipped).f1).toBe(1);
      }),
    );
  });

  it("refuses a negative depth", () => {
    const a = wordClusters(["x"], ["0"], Int32Array.of(1));
    expect(() => coMembershipF1(a, a, -1)).toThrow(/depth/);
  });
});
