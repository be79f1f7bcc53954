/**
 * `lagrange train` with features beyond a named preset: task presets (resources from a folder),
 * CRF++ templates over named columns, cluster and lexicon files; the model carries them, `tag`
 * rebuilds them and uses the decoder the model records.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getTaskPreset } from "@lagrange/recipes";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "./testing/run-cli.js";

let dir = "";
const path = (name: string) => join(dir, name);

// CoNLL-2002's layout (word POS tag), with documents: names recur within a document.
const PEOPLE = ["Ana", "Luis", "Marta", "Pedro", "Sofia", "Juan"];
const PLACES = [["Madrid"], ["Buenos", "Aires"], ["Lima"]];
function documents(count: number): string {
  const lines: string[] = [];
  for (let d = 0; d < count; d++) {
    lines.push("-DOCSTART- -DOCSTART- O", "");
    const person = PEOPLE[d % PEOPLE.length]!;
    const place = PLACES[d % PLACES.length]!;
    for (let s = 0; s < 3; s++) {
      lines.push(`${person} NC B-PER`, "vive VMI O", "en SP O");
      place.forEach((w, k) => {
        lines.push(`${w} NC ${k === 0 ? "B" : "I"}-LOC`);
      });
      lines.push(". Fp O", "");
    }
  }
  return lines.join("\n");
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "lagrange-train-features-"));
  await writeFile(path("train.conll"), documents(12));
  const resources = path("resources");
  await mkdir(resources);
  await writeFile(
    join(resources, "clusters-es.paths"),
    "00\tvive\t36\n01\ten\t36\n10\tMadrid\t12\n",
  );
  // ner-es's k-means clusters, so that no test builds them from the registry's raw text.
  await writeFile(join(resources, "embeddings-es.tsv"), "word\tk100\tk300\tk1000\nLima\t1\t2\t3\n");
  for (const name of getTaskPreset("ner-es").gazetteers) {
    await writeFile(
      join(resources, `${name}.txt`),
      name === "names-female" ? "Ana\nMarta\n" : "Lima\n",
    );
  }
  await writeFile(path("t.tpl"), "U00:%x[0,word]\nU01:%x[-1,word]/%x[0,word]\nU02:%x[0,pos]\nB\n");
  await writeFile(path("places.txt"), "Buenos Aires\n");
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("lagrange train --preset ner-es (a task preset)", () => {
  it("trains with clusters, gazetteers and mined lexicons from --resources; info and tag read them back", async () => {
    const trained = await run([
      "train",
      "--data",
      path("train.conll"),
      "--preset",
      "ner-es",
      "--resources",
      path("resources"),
      "--max-iterations",
      "10",
      "--out",
      path("es.lgm"),
    ]);
    expect(trained.code, trained.stderr).toBe(0);
    expect(trained.stderr).toMatch(/clusters: 3 words from .*clusters-es\.paths/);
    expect(trained.stderr).toMatch(
      /mined lexicons: mined-LOC \(3\), mined-PER \(6\); jackknifed over 4 folds/,
    );
    const info = await run(["info", path("es.lgm")]);
    expect(info.stdout).toMatch(
      /features +CRFsuite's example\/ner\.py on \[word, pos\].*clusters brown-es \(3 words.*lexicons .*mined-PER \(6\)/,
    );
    expect(info.stdout).toMatch(/"decoder":"viterbi"/);
    const tagged = await run(["tag", "--model", path("es.lgm"), "--data", path("train.conll")]);
    expect(tagged.code, tagged.stderr).toBe(0);
    expect(tagged.stderr).toMatch(/chunk F1 100\.00/);
  });
});

describe("lagrange train --preset ner-es --model general", () => {
  it("resolves each jackknife fold's features on the fold's own sentences (no mined entry leaks)", async () => {
    const trained = await run([
      "train",
      "--data",
      path("train.conll"),
      "--preset",
      "ner-es",
      "--resources",
      path("resources"),
      "--model",
      "general",
      "--groups",
      "documents",
      "--folds",
      "2",
      "--epochs",
      "1",
      "--max-iterations",
      "5",
      "--out",
      path("general.lgm"),
    ]);
    expect(trained.code, trained.stderr).toBe(0);
    const tagged = await run([
      "tag",
      "--model",
      path("general.lgm"),
      "--data",
      path("train.conll"),
    ]);
    expect(tagged.code, tagged.stderr).toBe(0);
  });
});

describe("lagrange train --template over --columns", () => {
  it("reads %x[0,pos] by name, adds a lexicon file, and tags with the model alone", async () => {
    const trained = await run([
      "train",
      "--data",
      path("train.conll"),
      "--template",
      path("t.tpl"),
      "--columns",
      "word,pos",
      "--lexicon",
      `place=${path("places.txt")}`,
      "--max-iterations",
      "10",
      "--out",
      path("t.lgm"),
    ]);
    expect(trained.code, trained.stderr).toBe(0);
    const info = await run(["info", path("t.lgm")]);
    expect(info.stdout).toMatch(
      /features +CRF\+\+ template .*t\.tpl: 3 U line.*lexicons place \(1\)/,
    );
    const tagged = await run(["tag", "--model", path("t.lgm"), "--data", path("train.conll")]);
    expect(tagged.code, tagged.stderr).toBe(0);
  });

  it("refuses what cannot work, before training: exit 2 with the reason", async () => {
    const both = await run([
      "train",
      "--data",
      path("train.conll"),
      "--preset",
      "ner",
      "--template",
      path("t.tpl"),
      "--out",
      path("x.lgm"),
    ]);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--preset and --template both name the features/);
    const lexicon = await run([
      "train",
      "--data",
      path("train.conll"),
      "--preset",
      "ner",
      "--lexicon",
      "nofile",
      "--out",
      path("x.lgm"),
    ]);
    expect(lexicon.code).toBe(2);
    expect(lexicon.stderr).toMatch(/--lexicon nofile: expected NAME=FILE/);
    const columns = await run([
      "train",
      "--data",
      path("train.conll"),
      "--preset",
      "ner",
      "--columns",
      "word",
      "--out",
      path("x.lgm"),
    ]);
    expect(columns.code).toBe(2);
    expect(columns.stderr).toMatch(
      /--columns names 1 column\(s\) \(word\), but .* has 2 input column/,
    );
  });
});
