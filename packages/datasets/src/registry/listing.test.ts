import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DATASETS, DatasetFormat, type DatasetInfo } from "./catalog.js";
import { listDatasets } from "./listing.js";
import { findMirrorDir } from "./resolve.js";

const TEXT = "EU NNP B-NP\n\nrejects VBZ B-VP\n";
const dir = mkdtempSync(join(tmpdir(), "lagrange-listing-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const split = (name: string, file: string, bytes: number, sealed = false) => ({
  name,
  file,
  bytes,
  counts: { sequences: 2, tokens: 2 },
  sources: [{ kind: "file" as const, url: `https://example.org/${file}` }],
  ...(sealed ? { sealed: true as const } : { sha256: "0".repeat(64) }),
});

const CATALOG: DatasetInfo[] = [
  {
    name: "toy",
    title: "A toy corpus",
    folder: "toy",
    format: DatasetFormat.conll,
    formatOptions: { columns: ["word", "pos", "chunk"], labelColumn: "chunk", scheme: "IOB2" },
    splits: [
      split("train", "train.txt", TEXT.length),
      split("dev", "dev.txt", TEXT.length),
      split("broken", "broken.txt", TEXT.length),
      split("test", "test.txt", TEXT.length, true),
    ],
    licence: "none",
    redistributable: true,
    citation: "nobody",
  },
  {
    name: "records",
    title: "One file, customary ranges",
    folder: "records",
    format: DatasetFormat.conll,
    formatOptions: { scheme: "IOB2" },
    splits: [split("all", "all.txt", TEXT.length)],
    customSplits: [
      { split: "train", start: 0, count: 1 },
      { split: "test", start: 1, count: 1 },
    ],
    licence: "none",
    redistributable: true,
    citation: "nobody",
  },
];

describe("listDatasets", () => {
  const mirror = join(dir, "mirror");
  const cache = join(dir, "cache");
  mkdirSync(join(mirror, "toy"), { recursive: true });
  mkdirSync(join(cache, "records"), { recursive: true });
  writeFileSync(join(mirror, "toy", "train.txt"), TEXT);
  writeFileSync(join(mirror, "toy", "broken.txt"), `${TEXT}more`);
  writeFileSync(join(cache, "records", "all.txt"), TEXT);
  const options = { catalog: CATALOG, mirrorDir: mirror, cacheDir: cache, env: {} };

  it("says where each split is, without reading or fetching anything", () => {
    const listing = listDatasets(options);
    expect(listing.mirror).toBe(mirror);
    expect(listing.cache).toBe(cache);
    const where = Object.fromEntries(
      listing.datasets.flatMap((d) => d.splits.map((s) => [s.spec, s.where])),
    );
    expect(where).toEqual({
      "toy:train": "mirror",
      "toy:dev": "download",
      "toy:broken": "damaged",
      "toy:test": "sealed",
      "records:all": "cache",
      "records:train": "cache",
      "records:test": "cache",
    });
    const toy = listing.datasets[0]!;
    expect(toy.labelColumn).toBe("chunk");
    expect(toy.splits[0]).toMatchObject({
      sequences: 2,
      tokens: 2,
      path: join(mirror, "toy", "train.txt"),
    });
    const range = listing.datasets[1]!.splits[1]!;
    expect(range).toMatchObject({ spec: "records:train", sequences: 1, rangeOf: "all" });
    expect(range.tokens).toBeUndefined();
  });

  it("offline, a split that is not here cannot be fetched", () => {
    const offline = listDatasets({ ...options, env: { LAGRANGE_OFFLINE: "1" } });
    expect(offline.datasets[0]!.splits[1]!.where).toBe("offline");
    expect(listDatasets({ ...options, offline: true }).datasets[0]!.splits[1]!.where).toBe(
      "offline",
    );
  });

  it("lists every registered dataset and split by the name --data takes", () => {
    const listing = listDatasets({ mirrorDir: null, cacheDir: join(dir, "empty"), env: {} });
    expect(listing.datasets.map((d) => d.name)).toEqual(DATASETS.map((d) => d.name));
    const specs = listing.datasets.flatMap((d) => d.splits.map((s) => s.spec));
    expect(specs).toContain("conll2003:train");
    expect(specs).toContain("cora-references:train");
    expect(listing.mirror).toBeUndefined();
  });

  // Real data: the shared mirror, where there is one.
  const real = findMirrorDir();
  it.skipIf(real === undefined)(
    "finds the mirror's CoNLL-2000 and keeps the sealed tests out",
    () => {
      const listing = listDatasets({ env: {} });
      const splits = listing.datasets.flatMap((d) => d.splits);
      expect(splits.find((s) => s.spec === "conll2000:train")?.where).toBe("mirror");
      expect(splits.find((s) => s.spec === "conll2003:test")?.where).toBe("sealed");
    },
  );
});
