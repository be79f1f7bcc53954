import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseConstraintsFile, serializeConstraintsFile } from "@lagrange/constraint-templates";
import { openCorpus } from "@lagrange/datasets/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mineRulesOnCorpus } from "./rule-mining.js";

const SENTENCE = [
  "Dynamo NNP I-ORG",
  "Batumi NNP I-ORG",
  "( ( O",
  "Georgia NNP I-LOC",
  ") ) O",
  "won VBD O",
  ". . O",
].join("\n");

describe("mineRulesOnCorpus", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "lagrange-rule-mining-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("checks the scheme, keys the labels in order of first appearance and writes the file", async () => {
    const path = join(dir, "iob1.conll");
    await writeFile(path, `${Array(6).fill(SENTENCE).join("\n\n")}\n`);
    const corpus = await openCorpus(path);
    const mined = await mineRulesOnCorpus(corpus, { families: ["state-change"] });
    expect(mined.scheme).toBe("IOB1");
    expect(mined.file.index.labels.names()).toEqual(["I-ORG", "O", "I-LOC"]);
    const rule = mined.mining.rules.find((r) => r.template.id === "state-change:ORG|(|LOC");
    expect(rule).toMatchObject({ support: 6, violations: 0 });
    const parsed = parseConstraintsFile(serializeConstraintsFile(mined.file));
    expect(parsed.metadata).toMatchObject({ data: path, format: "conll", scheme: "IOB1" });
  });

  it("writes the rules for given labels, and stops at a gold label they lack", async () => {
    const path = join(dir, "given.conll");
    await writeFile(path, `${SENTENCE}\n\nRome NNP I-MISC\n\n`);
    const corpus = await openCorpus(path);
    const labels = ["O", "I-LOC", "B-LOC", "I-ORG", "B-ORG", "I-MISC"];
    const mined = await mineRulesOnCorpus(corpus, { labels, labelsFrom: "the model m" });
    expect(mined.file.index.labels.names()).toEqual(labels);
    await expect(
      mineRulesOnCorpus(corpus, { labels: labels.slice(0, 5), labelsFrom: "the model m" }),
    ).rejects.toThrow(`${path}:9: the gold label "I-MISC" is not one of the model m labels`);
  });

  it("refuses data without gold labels and labels the templates cannot read", async () => {
    const bare = join(dir, "bare.conll");
    await writeFile(bare, "a\nb\n\n");
    await expect(mineRulesOnCorpus(await openCorpus(bare))).rejects.toMatchObject({
      code: "bad-input",
      message: expect.stringContaining(`${bare}:1: no gold label column`),
    });
    const tags = join(dir, "pos.conll");
    await writeFile(tags, "a DT\ncat NN\n\n");
    await expect(mineRulesOnCorpus(await openCorpus(tags))).rejects.toMatchObject({
      code: "usage",
      message: expect.stringContaining(`${tags}: the label scheme is "none" (plain tags)`),
    });
  });
});
