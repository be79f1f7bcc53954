import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getDataset } from "@lagrange/datasets";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  buildTaskModel,
  listTaskModels,
  modelsDir,
  type TaskModelProvenance,
  taskModelPlan,
} from "./task-models.js";

let dir = "";
const saved = { data: process.env.LAGRANGE_DATA_DIR, cache: process.env.LAGRANGE_CACHE_DIR };
const sha256 = (text: string | Buffer) => createHash("sha256").update(text).digest("hex");

/**
 * A registry mirror holding a made-up ud-en-ewt train split: three sentences, padded with
 * comment lines to the registry's size (the mirror checks sizes, not contents).
 */
async function tinyMirror(root: string): Promise<string> {
  const dataset = getDataset("ud-en-ewt");
  const split = dataset.splits.find((s) => s.name === "train")!;
  const sentence = (words: readonly [string, string][]) =>
    `${words.map(([w, t], i) => `${i + 1}\t${w}\t_\t${t}\t_\t_\t0\t_\t_\t_`).join("\n")}\n\n`;
  const body = [
    sentence([
      ["The", "DET"],
      ["dog", "NOUN"],
      ["runs", "VERB"],
    ]),
    sentence([
      ["A", "DET"],
      ["cat", "NOUN"],
      ["sleeps", "VERB"],
    ]),
  ].join("");
  const pad = split.bytes! - Buffer.byteLength(body);
  const line = `# ${"x".repeat(97)}\n`;
  const padding = line.repeat(Math.floor(pad / line.length));
  const rest = pad - padding.length;
  const text = `${padding}${rest > 0 ? `#${"y".repeat(rest - 2)}\n` : ""}${body}`;
  await mkdir(join(root, dataset.folder), { recursive: true });
  const file = join(root, dataset.folder, split.file);
  await writeFile(file, text);
  return file;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "lagrange-task-models-"));
  process.env.LAGRANGE_DATA_DIR = join(dir, "mirror");
  process.env.LAGRANGE_CACHE_DIR = join(dir, "cache");
  await tinyMirror(join(dir, "mirror"));
  await mkdir(join(dir, "resources"));
  await writeFile(join(dir, "resources", "clusters-en.paths"), "0\tdog\t2\n1\tcat\t2\n");
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

describe("taskModelPlan", () => {
  it("trains each task on the split its preset names, into the models folder by default", () => {
    const plan = taskModelPlan("ner-en");
    expect(plan.data).toBe("conll2003:train");
    expect(plan.out).toBe(join(dir, "cache", "models", "ner-en.lgm"));
    expect(modelsDir()).toBe(join(dir, "cache", "models"));
    expect(taskModelPlan("pos-en", "x.lgm")).toMatchObject({
      data: "ud-en-ewt:train",
      out: "x.lgm",
    });
  });

  it("refuses an unknown task as a usage error listing the known ones", () => {
    expect(() => taskModelPlan("ner-fr")).toThrow(
      expect.objectContaining({
        code: "usage",
        message: expect.stringMatching(/unknown task "ner-fr"; the tasks are ner-en, .*pos-en/),
      }),
    );
  });
});

describe("buildTaskModel and listTaskModels", () => {
  it("records the data, resources and model with their SHA-256; the list checks the model", async () => {
    const models = join(dir, "models");
    await mkdir(models);
    const out = join(models, "pos-en.lgm");
    const seen: string[] = [];
    const built = await buildTaskModel({
      task: "pos-en",
      out,
      resourcesDir: join(dir, "resources"),
      options: { wordsOnly: true, maxIterations: 3 },
      version: "9.9.9",
      train: async (plan) => {
        seen.push(`${plan.data} ${plan.task.name} ${plan.out}`);
        await writeFile(plan.out, "model bytes");
        return "trained";
      },
    });
    expect(seen).toEqual([`ud-en-ewt:train pos-en ${out}`]);
    expect(built.trained).toBe("trained");
    expect(built.provenanceFile).toBe(`${out}.provenance.json`);
    const record = JSON.parse(await readFile(built.provenanceFile, "utf8")) as TaskModelProvenance;
    expect(record).toEqual(built.provenance);
    const data = await readFile(join(dir, "mirror", "ud_english_ewt", "en_ewt-ud-train.conllu"));
    expect(record).toMatchObject({
      task: "pos-en",
      preset: { name: "pos-en", parts: { embeddings: true, context: false } },
      data: { spec: "ud-en-ewt:train", files: [{ bytes: data.length, sha256: sha256(data) }] },
      options: { wordsOnly: true, maxIterations: 3 },
      lagrange: "9.9.9",
      model: { file: out, bytes: 11, sha256: sha256("model bytes") },
    });
    expect(record.resources).toEqual([
      {
        kind: "clusters",
        name: "clusters-en.paths",
        file: {
          file: join(dir, "resources", "clusters-en.paths"),
          bytes: 16,
          sha256: sha256("0\tdog\t2\n1\tcat\t2\n"),
        },
      },
      expect.objectContaining({ kind: "embeddings", name: "embeddings-en.tsv" }),
    ]);
    expect(Number.isNaN(Date.parse(record.date))).toBe(false);

    let listed = await listTaskModels(models);
    expect(listed).toMatchObject([
      { file: out, status: "ok", task: "pos-en", bytes: 11, data: "ud-en-ewt:train" },
    ]);
    // The same size, another content: reported, not trusted.
    await writeFile(out, "model BYTES");
    listed = await listTaskModels(models);
    expect(listed[0]?.status).toBe("changed");
    await writeFile(join(models, "other.lgm"), "x");
    await unlink(out);
    listed = await listTaskModels(models);
    expect(listed.map((m) => [m.task, m.status])).toEqual([
      ["other", "no-provenance"],
      ["pos-en", "missing"],
    ]);
    expect(await listTaskModels(join(dir, "nowhere"))).toEqual([]);
  });

  it("fails before training when the split is not reachable, naming it and where to put it", async () => {
    const trained: string[] = [];
    const previous = process.env.LAGRANGE_OFFLINE;
    process.env.LAGRANGE_OFFLINE = "1";
    try {
      await expect(
        buildTaskModel({
          task: "ner-nl",
          out: join(dir, "nl.lgm"),
          version: "0",
          train: async () => {
            trained.push("trained");
          },
        }),
      ).rejects.toThrow(/conll2002-nl train is not available offline: place .* at /);
    } finally {
      if (previous === undefined) delete process.env.LAGRANGE_OFFLINE;
      else process.env.LAGRANGE_OFFLINE = previous;
    }
    expect(trained).toEqual([]);
  });
});
