/**
 * Document constraints from the CLI: a NER task preset learns them after the chain (and says
 * what it learned), `--document-constraints off` skips that, and `constraints learn --templates
 * document` folds a model's own training data as its file records, never a dev or test split.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadModel } from "@lagrange/chain-crf";
import { parseConstraintsFile } from "@lagrange/constraint-templates";
import { getTaskPreset } from "@lagrange/recipes";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "./testing/run-cli.js";

let dir = "";
const path = (name: string) => join(dir, name);

// CoNLL-2002's layout (word POS tag) with documents; a surname recurs within a document, once
// in a context that hides its type.
const PEOPLE = ["Ana", "Luis", "Marta", "Pedro", "Sofia", "Juan"];
const SURNAMES = ["Garcia", "Lopez", "Perez", "Ruiz"];
function documents(count: number): string {
  const lines: string[] = [];
  for (let d = 0; d < count; d++) {
    lines.push("-DOCSTART- -DOCSTART- O", "");
    const surname = SURNAMES[d % SURNAMES.length]!;
    lines.push(
      `${PEOPLE[d % PEOPLE.length]} NC B-PER`,
      `${surname} NC I-PER`,
      "vive VMI O",
      ". Fp O",
      "",
    );
    lines.push("dijo VMI O", `${surname} NC B-PER`, ". Fp O", "");
    lines.push("en SP O", "Lima NC B-LOC", ". Fp O", "");
  }
  return lines.join("\n");
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "lagrange-document-constraints-"));
  await writeFile(path("train.conll"), documents(16));
  const resources = path("resources");
  await mkdir(resources);
  await writeFile(join(resources, "clusters-es.paths"), "00\tvive\t36\n01\ten\t36\n10\tLima\t12\n");
  // ner-es's k-means clusters, so that no test builds them from the registry's raw text.
  await writeFile(join(resources, "embeddings-es.tsv"), "word\tk100\tk300\tk1000\nLima\t1\t2\t3\n");
  for (const name of getTaskPreset("ner-es").gazetteers) {
    await writeFile(join(resources, `${name}.txt`), name === "names-female" ? "Ana\n" : "Lima\n");
  }
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const train = (out: string, ...extra: string[]) =>
  run([
    "train",
    ...["--data", path("train.conll"), "--preset", "ner-es", "--resources", path("resources")],
    ...["--max-iterations", "5", "--out", path(out), ...extra],
  ]);

describe("lagrange train --preset ner-es: document constraints", () => {
  it("learns them on jackknifed folds and says what it kept; off skips them", async () => {
    const trained = await train("es.lgm");
    expect(trained.code, trained.stderr).toBe(0);
    expect(trained.stdout).toMatch(/; document constraints: (kept \d+ for|none kept \()/);
    expect(trained.stderr).toContain("document constraints: training 4 jackknife folds");
    const model = await loadModel(path("es.lgm"));
    if (trained.stdout.includes("document constraints: kept")) {
      expect(model.features).toContain("constraints");
      expect(model.decoder).toBe("soft-dd");
      const info = await run(["info", path("es.lgm")]);
      expect(info.stdout).toMatch(/constraints \d+ recorded \(.*\), decoded by soft-dd/);
    } else {
      expect(model.features).not.toContain("constraints");
      expect(model.decoder).toBe("viterbi");
    }
    const tagged = await run(["tag", "--model", path("es.lgm"), "--data", path("train.conll")]);
    expect(tagged.code, tagged.stderr).toBe(0);
    // The chain's marginals beside a document's decoding (chain-unconstrained where it is linked).
    const marginals = await run([
      ...["tag", "--model", path("es.lgm"), "--data", path("train.conll"), "--marginals"],
      ...["--output-format", "ndjson"],
    ]);
    expect(marginals.code, marginals.stderr).toBe(0);
    const first = JSON.parse(marginals.stdout.split("\n")[0]!) as { marginalsOf?: string };
    expect(["chain", "chain-unconstrained"]).toContain(first.marginalsOf);

    const off = await train("off.lgm", "--document-constraints", "off");
    expect(off.code, off.stderr).toBe(0);
    expect(off.stdout).not.toContain("document constraints");
    expect((await loadModel(path("off.lgm"))).features).not.toContain("constraints");
  }, 120_000);
});

describe("lagrange constraints learn --templates document", () => {
  it("folds the model's training data as its file records and writes a constraints file", async () => {
    const trained = await train("base.lgm", "--document-constraints", "off");
    expect(trained.code, trained.stderr).toBe(0);
    const learned = await run([
      ...["constraints", "learn", "--templates", "document", "--model", path("base.lgm")],
      ...["--data", path("train.conll"), "--epochs", "2", "--out", path("doc.json")],
    ]);
    expect(learned.code, learned.stderr).toBe(0);
    expect(learned.stderr).toMatch(/training 4 jackknife folds of .* \(lbfgs, 5 iterations\)/);
    expect(learned.stdout).toMatch(/^document constraints: (kept|none kept)/);
    expect(learned.stdout).toMatch(/ {2}PER: (kept|dropped)/);
    const model = await loadModel(path("base.lgm"));
    const file = parseConstraintsFile(await readFile(path("doc.json"), "utf8"), {
      expectedLabels: model.labels.names(),
    });
    expect(file.metadata?.learnedOn).toBe("jackknifed train");
    for (const e of file.entries) expect(e.template.family).toBe("document");
  }, 120_000);

  it("refuses a dev or test split, and other families beside it", async () => {
    const dev = await run([
      ...["constraints", "learn", "--templates", "document", "--model", path("base.lgm")],
      ...["--data", "conll2002-es:dev", "--out", path("x.json")],
    ]);
    expect(dev.code).toBe(2);
    expect(dev.stderr).toMatch(
      /conll2002-es:dev: --templates document learns on the model's training data/,
    );
    const mixed = await run([
      ...["constraints", "learn", "--templates", "document,singleton", "--model", path("base.lgm")],
      ...["--data", path("train.conll"), "--out", path("x.json")],
    ]);
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toMatch(/--templates document: .* learn them in runs of their own/);
  });
});
