import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { shippedResource, shippedResources } from "@lagrange/resources";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { embeddingClusters, readEmbeddingClusters } from "./embedding-clusters.js";
import { languageClusters, readClusterFile } from "./resources.js";
import { presetResources } from "./shipped-resources.js";

describe("the resources @lagrange/resources ships", () => {
  it("are the files the presets use, under their current recipes", () => {
    const shipped = shippedResources().map(({ name, recipe }) => ({ name, recipe }));
    expect(shipped).toEqual(presetResources().map(({ name, recipe }) => ({ name, recipe })));
    expect(shipped.map((s) => s.name)).toEqual([
      "clusters-en-c500-min10.paths",
      "clusters-en-c1000-min10.paths",
      "embeddings-en-min10-w2-d100-k100-300-1000.tsv",
      "clusters-es-c500-min3.paths",
      "embeddings-es-min3-w2-d100-k100-300-1000.tsv",
      "clusters-nl-c500-min3.paths",
    ]);
  });

  it("each parses as a preset reads it, with the manifest's number of words", async () => {
    for (const entry of shippedResources()) {
      const file = shippedResource(entry.name)!;
      const words =
        entry.recipe.kind === "brown-clusters"
          ? (await readClusterFile(file)).words
          : (await readEmbeddingClusters(file, entry.recipe.sizes)).words;
      expect(words.length, entry.name).toBe(entry.words);
    }
  });
});

describe("a preset's resources with an empty cache", () => {
  let dir: string;
  const saved = process.env.LAGRANGE_CACHE_DIR;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "lagrange-shipped-"));
    process.env.LAGRANGE_CACHE_DIR = dir;
  });
  afterAll(() => {
    if (saved === undefined) delete process.env.LAGRANGE_CACHE_DIR;
    else process.env.LAGRANGE_CACHE_DIR = saved;
    rmSync(dir, { recursive: true, force: true });
  });

  it("are the shipped files, built by nobody", async () => {
    const nl = await languageClusters("nl");
    expect(nl.file).toBe(shippedResource("clusters-nl-c500-min3.paths"));
    expect(nl.built).toBe(false);
    const es = await embeddingClusters("es", [100, 300, 1000]);
    expect(es.file).toBe(shippedResource("embeddings-es-min3-w2-d100-k100-300-1000.tsv"));
    expect(es.built).toBe(false);
  });

  it("still come from --resources first", async () => {
    const resources = join(dir, "resources-given");
    mkdirSync(resources);
    writeFileSync(join(resources, "clusters-nl.paths"), "0\tde\t5\n1\thet\t3\n");
    const nl = await languageClusters("nl", { resourcesDir: resources });
    expect(nl.file).toBe(join(resources, "clusters-nl.paths"));
    expect(nl.words).toEqual(["de", "het"]);
  });
});
