import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { seededRandom } from "@lagrange/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { brownClustersBench, brownClustersMarkdown } from "./brown-clusters.js";

describe("bench brown-clusters on a small text", () => {
  let dir: string;
  let text: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "lagrange-bench-brown-"));
    text = join(dir, "text.txt");
    // Sentences from a class bigram model: determiners, nouns, verbs; many ties among counts.
    const random = seededRandom(7);
    const pick = (xs: readonly string[]) => xs[Math.floor(random() * xs.length)]!;
    const nouns = ["cat", "dog", "mouse", "bird", "fish", "horse", "cow", "fox", "owl", "bee"];
    const verbs = ["saw", "chased", "liked", "bit", "fed", "heard", "met"];
    const lines: string[] = [];
    for (let i = 0; i < 300; i++) {
      lines.push(
        `${pick(["the", "a", "one"])} ${pick(nouns)} ${pick(verbs)} ${pick(["the", "a", "this"])} ${pick(nouns)}`,
      );
    }
    await writeFile(text, `${lines.join("\n")}\n`);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("runs wcluster and Lagrange on the same tokens; in wcluster's tie order they agree exactly", async () => {
    const result = await brownClustersBench({ text, clusters: 6, tieSensitivity: true });
    expect(result.setup.tokens).toBe(1500);
    expect(result.setup.types).toBe(21);
    expect(result.lagrange.mutualInformation).toBeCloseTo(result.lagrange.reported, 9);
    const markdown = brownClustersMarkdown(result);
    expect(markdown).toContain("| Lagrange |");
    if (result.wcluster === null) {
      // No g++ here: the run still completes and says why.
      expect(result.skipped.join(" ")).toMatch(/wcluster/);
      return;
    }
    const same = result.agreements.find((a) => a.comparison.includes("wcluster's tie order"));
    expect(same?.f1).toBe(1);
    expect(same?.words).toBe(21);
    expect(result.lagrangeSameOrder?.mutualInformation).toBeCloseTo(
      result.wcluster.mutualInformation,
      9,
    );
    expect(result.ratioWall).toBeGreaterThan(0);
    expect(result.agreements.map((a) => a.comparison)).toContain(
      "Lagrange vs Lagrange, reversed tie order",
    );
  });
});
