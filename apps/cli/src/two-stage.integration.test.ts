/**
 * `lagrange train --two-stage` and `lagrange tag` with a two-stage model (Krishnan & Manning
 * 2006): a small generated CoNLL file with documents that repeat their names. The CLI's whole-file
 * tagging must give what the recipe gives (first stage by document, votes, second stage).
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { firstStageModel, loadModel } from "@lagrange/chain-crf";
import { seededRandom } from "@lagrange/core";
import { openCorpus } from "@lagrange/datasets/node";
import { chainTagger, getTaskPreset, inputForModel, type TaggedSentence } from "@lagrange/recipes";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lastColumn, run } from "./testing/run-cli.js";

const NAMES: readonly [string[], string][] = [
  [["Alan", "Shearer"], "PER"],
  [["Newcastle"], "ORG"],
  [["Paris"], "LOC"],
  [["Kane"], "PER"],
  [["Bank", "of", "France"], "ORG"],
  [["Jordan"], "LOC"],
  [["Jordan"], "PER"],
];
const FILLER: readonly [string, string][] = [
  ["said", "VBD"],
  ["the", "DT"],
  ["on", "IN"],
  ["won", "VBD"],
  ["in", "IN"],
  ["match", "NN"],
  ["today", "NN"],
];

/** `-DOCSTART-` documents of word, POS, chunk and IOB1 NER columns; names recur in a document. */
function conll(documents: number, seed: number): string {
  const random = seededRandom(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  let text = "";
  for (let d = 0; d < documents; d++) {
    text += "-DOCSTART- -X- -X- O\n\n";
    const cast = [pick(NAMES), pick(NAMES)];
    for (let s = 0; s < 4; s++) {
      const rows: string[] = [];
      for (let w = 0; w < 5; w++) {
        if (random() < 0.35) {
          const [tokens, type] = pick(cast);
          for (const t of tokens) rows.push(`${t} NNP I-NP I-${type}`);
        } else {
          const [word, pos] = pick(FILLER);
          rows.push(`${word} ${pos} I-VP O`);
        }
      }
      rows.push(". . O O");
      text += `${rows.join("\n")}\n\n`;
    }
  }
  return text;
}

let dir: string;
let train: string;
let test: string;
let model: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "lagrange-two-stage-"));
  train = join(dir, "train.conll");
  test = join(dir, "test.conll");
  model = join(dir, "two.lgm");
  await writeFile(train, conll(10, 1));
  await writeFile(test, conll(4, 2));
}, 30_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("lagrange train --two-stage", () => {
  it("trains the jackknifed first stages and the second stage, and tags whole files as the recipe does", async () => {
    const trained = await run([
      "train",
      ...["--data", train, "--format", "conll", "--preset", "ner"],
      ...["--two-stage", "--folds", "2", "--max-iterations", "5", "--threads", "1"],
      ...["--out", model],
    ]);
    expect(trained.code, trained.stderr).toBe(0);
    expect(trained.stderr).toContain("two-stage: 2 first-stage CRFs jackknifed by documents");
    expect(trained.stdout).toMatch(
      /two-stage: 2 folds, first stages [\d.]+ s, votes on \d+ \(dtok\)/,
    );
    const loaded = await loadModel(model);
    expect(loaded.firstStage).not.toBeNull();
    expect(firstStageModel(loaded)!.firstStage).toBeNull();

    const out = join(dir, "tagged.conll");
    const tagged = await run(["tag", "--model", model, "--data", test, "--out", out]);
    expect(tagged.code, tagged.stderr).toBe(0);
    expect(tagged.stderr).toMatch(/chunk F1/);
    const text = await readFile(out, "utf8");
    // The output shows the input's own columns and the prediction, not the votes.
    expect(text.split("\n")[0]!.split(" ")).toHaveLength(5);

    // The recipe: the data as the model reads it, the first stage's votes, the second stage.
    const corpus = inputForModel(await openCorpus(test, { format: "conll" }), loaded, "auto");
    // A two-stage model's tagger counts the first stage's votes over the batch, then tags.
    const recipe = await chainTagger(loaded).tag(corpus.sentences);
    const expected = recipe.items.map((item) => (item as TaggedSentence).labels);
    expect(lastColumn(text)).toEqual(expected);

    const threaded = join(dir, "threaded.conll");
    const viaThreads = await run([
      ...["tag", "--model", model, "--data", test, "--threads", "2", "--out", threaded],
    ]);
    expect(viaThreads.code, viaThreads.stderr).toBe(0);
    expect(await readFile(threaded, "utf8")).toBe(text);
  }, 120_000);

  it("refuses to stream a two-stage model, and --two-stage with --model general", async () => {
    const streamed = await run(["tag", "--model", model, "--data", test, "--window", "10"]);
    expect(streamed.code).toBe(2);
    expect(streamed.stderr).toContain("is a two-stage model (lagrange train --two-stage)");
    expect(streamed.stderr).toContain("not a stream");
    const general = await run([
      ...["train", "--data", train, "--preset", "ner", "--two-stage", "--model", "general"],
      ...["--groups", "documents", "--out", join(dir, "g.lgm")],
    ]);
    expect(general.code).toBe(2);
    expect(general.stderr).toContain("--two-stage trains a chain CRF on its first stage's votes");
  }, 60_000);
});

describe("lagrange train --preset ner-es --two-stage (a task preset)", () => {
  it("jackknifes the mined lexicons over the first stage's folds and tags with the model alone", async () => {
    // CoNLL-2002's layout (word POS tag), documents that repeat their names.
    const lines: string[] = [];
    const people = ["Ana", "Luis", "Marta", "Pedro"];
    for (let d = 0; d < 9; d++) {
      lines.push("-DOCSTART- -DOCSTART- O", "");
      for (let k = 0; k < 3; k++) {
        lines.push(
          `${people[d % 4]} NC B-PER`,
          "vive VMI O",
          "en SP O",
          "Lima NC B-LOC",
          ". Fp O",
          "",
        );
      }
    }
    const data = join(dir, "es.conll");
    await writeFile(data, lines.join("\n"));
    const resources = join(dir, "resources");
    await mkdir(resources);
    await writeFile(
      join(resources, "clusters-es.paths"),
      "00\tvive\t27\n01\ten\t27\n10\tLima\t27\n",
    );
    // ner-es's k-means clusters, so that no test builds them from the registry's raw text.
    await writeFile(
      join(resources, "embeddings-es.tsv"),
      "word\tk100\tk300\tk1000\nLima\t1\t2\t3\n",
    );
    for (const name of getTaskPreset("ner-es").gazetteers) {
      await writeFile(join(resources, `${name}.txt`), "Ana\nLima\n");
    }
    const es = join(dir, "es.lgm");
    const trained = await run([
      ...["train", "--data", data, "--preset", "ner-es", "--resources", resources],
      ...["--two-stage", "--folds", "3", "--max-iterations", "5", "--out", es],
    ]);
    expect(trained.code, trained.stderr).toBe(0);
    expect(trained.stderr).toMatch(/mined lexicons: .*jackknifed over 3 folds/);
    expect(trained.stderr).toContain("two-stage: 3 first-stage CRFs jackknifed by documents");
    const loaded = await loadModel(es);
    const spec = loaded.settings.features as { votes?: { first: number }; lexicons?: unknown[] };
    expect(spec.votes).toEqual({ first: 2 });
    expect(spec.lexicons?.length).toBeGreaterThan(0);
    const tagged = await run(["tag", "--model", es, "--data", data]);
    expect(tagged.code, tagged.stderr).toBe(0);
    expect(tagged.stderr).toMatch(/chunk F1 \d/);
  }, 120_000);
});
