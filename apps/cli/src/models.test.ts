/**
 * `lagrange models build|list`: a task model trained through `lagrange train`'s pipeline on a
 * made-up registry split (a mirror folder the test writes), its provenance, and the list's check.
 */
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getDataset } from "@lagrange/datasets";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "./testing/run-cli.js";

let dir = "";
const saved = { data: process.env.LAGRANGE_DATA_DIR, cache: process.env.LAGRANGE_CACHE_DIR };

/** ud-en-ewt's train split made up: a few sentences padded with comments to the registry's size. */
async function tinyMirror(root: string): Promise<void> {
  const dataset = getDataset("ud-en-ewt");
  const split = dataset.splits.find((s) => s.name === "train")!;
  const words: [string, string][] = [
    ["The", "DET"],
    ["dog", "NOUN"],
    ["runs", "VERB"],
    ["fast", "ADV"],
  ];
  const sentence = `${words.map(([w, t], i) => `${i + 1}\t${w}\t_\t${t}\t_\t_\t0\t_\t_\t_`).join("\n")}\n\n`;
  const body = sentence.repeat(6);
  const pad = split.bytes! - Buffer.byteLength(body);
  const line = `# ${"x".repeat(97)}\n`;
  const padding = line.repeat(Math.floor(pad / line.length));
  const rest = pad - padding.length;
  await mkdir(join(root, dataset.folder), { recursive: true });
  await writeFile(
    join(root, dataset.folder, split.file),
    `${padding}${rest > 0 ? `#${"y".repeat(rest - 2)}\n` : ""}${body}`,
  );
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "lagrange-models-"));
  process.env.LAGRANGE_DATA_DIR = join(dir, "mirror");
  process.env.LAGRANGE_CACHE_DIR = join(dir, "cache");
  await tinyMirror(join(dir, "mirror"));
  // pos-en's clusters, so that nothing is read from the shipped files or built.
  await mkdir(join(dir, "resources"));
  await writeFile(join(dir, "resources", "clusters-en.paths"), "0\tdog\t6\n1\truns\t6\n");
  await writeFile(
    join(dir, "resources", "embeddings-en.tsv"),
    "word\tk100\tk300\tk1000\ndog\t1\t2\t3\n",
  );
});
afterAll(async () => {
  for (const [key, value] of [
    ["LAGRANGE_DATA_DIR", saved.data],
    ["LAGRANGE_CACHE_DIR", saved.cache],
  ] as const) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  await rm(dir, { recursive: true, force: true });
});

describe("lagrange models", () => {
  it("lists nothing yet, saying how to build a model", async () => {
    const listed = await run(["models", "list"]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toBe(
      `no models built in ${join(dir, "cache", "models")}; build one with: lagrange models build ner-en\n`,
    );
  });

  it("builds pos-en into the models folder as train does, records its provenance, lists it", async () => {
    const built = await run([
      "models",
      "build",
      "pos-en",
      "--resources",
      join(dir, "resources"),
      "--max-iterations",
      "5",
    ]);
    expect(built.code, built.stderr).toBe(0);
    const model = join(dir, "cache", "models", "pos-en.lgm");
    expect(built.stdout).toMatch(/^trained \d+ features, 4 labels in \d+ iterations/);
    expect(built.stdout).toContain(`provenance: ${model}.provenance.json\n`);
    expect(built.stderr).toMatch(/training lbfgs on 6 sequences \(ud-en-ewt:train\)/);
    const record = JSON.parse(await readFile(`${model}.provenance.json`, "utf8"));
    const bytes = await readFile(model);
    expect(record).toMatchObject({
      task: "pos-en",
      data: { spec: "ud-en-ewt:train" },
      options: { resources: join(dir, "resources"), maxIterations: 5 },
      model: { file: model, bytes: bytes.length },
    });
    expect(record.model.sha256).toBe(createHash("sha256").update(bytes).digest("hex"));
    const info = await run(["info", model]);
    expect(info.stdout).toMatch(/"data":"ud-en-ewt:train"/);

    const listed = await run(["models", "list"]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/^task +file +size +date +data +sha-256\n/);
    expect(listed.stdout).toMatch(
      /pos-en +\S+pos-en\.lgm +[\d.]+ kB +\S+ \S+ +ud-en-ewt:train +ok\n/,
    );

    // A replaced model no longer matches its record: reported, not trusted.
    await writeFile(model, Buffer.concat([bytes, Buffer.from(" ")]));
    const json = await run(["models", "list", "--json"]);
    const lines = json.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines).toMatchObject([{ task: "pos-en", status: "changed", data: "ud-en-ewt:train" }]);
    expect((await run(["models", "list"])).stdout).toMatch(/CHANGED since built/);
  });

  it("refuses an unknown task (exit 2), listing the known ones, before anything is written", async () => {
    const refused = await run(["models", "build", "ner-fr", "--out", join(dir, "fr.lgm")]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(
      'lagrange: unknown task "ner-fr"; the tasks are ner-en, ner-es, ner-nl, ner-tweets, pos-en\n',
    );
    expect(existsSync(join(dir, "fr.lgm"))).toBe(false);
  });
});
