import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { lagrangeErrorCode } from "@lagrange/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inputRows } from "../sentence.js";
import { openCorpus } from "./corpus.js";
import { corpusLocator, withoutLabels } from "./corpus-model.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "lagrange-corpus-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("openCorpus on files", () => {
  it("reads the scheme off CoNLL labels and places tokens at their lines", async () => {
    const path = join(dir, "iob1.conll");
    await writeFile(path, "-DOCSTART- O\n\nJohn I-PER\nsaw O\n\nA I-ORG\nB B-ORG\n\n");
    const corpus = await openCorpus(path);
    expect(corpus.scheme).toBe("IOB1");
    expect(corpusLocator(corpus)(1, 1)).toBe(`${path}:7`);
    expect(corpusLocator(corpus)(5, 0)).toBe(`${path}: sentence 6`);
  });

  it("unlabeled: CoNLL keeps every column as input; UMass drops the label column", async () => {
    const conll = join(dir, "raw.conll");
    await writeFile(conll, "the DT\ncat NN\n\n");
    const labelled = await openCorpus(conll);
    expect(inputRows(labelled.sentences[0]!)).toEqual([["the"], ["cat"]]);
    const raw = await openCorpus(conll, { unlabeled: true });
    expect(raw.sentences[0]!.labels).toBeUndefined();
    expect(inputRows(raw.sentences[0]!)).toEqual([
      ["the", "DT"],
      ["cat", "NN"],
    ]);
    const docs = join(dir, "cites.docs");
    await writeFile(docs, "<author> J. Smith </author> <title> Parsing </title>\n");
    const cites = await openCorpus(docs, { unlabeled: true });
    expect(cites.sentences[0]!.columns).toEqual([["J.", "Smith", "Parsing"]]);
    expect(withoutLabels(cites.sentences[0]!, "umass")).toBe(cites.sentences[0]);
  });

  it("a directory is a usage error that names it", async () => {
    const folder = join(dir, "folder");
    await mkdir(folder, { recursive: true });
    const error = await openCorpus(folder).catch((e: unknown) => e);
    expect(lagrangeErrorCode(error)).toBe("usage");
    expect((error as Error).message).toBe(`${folder}: is a directory; expected a data file`);
  });
});
