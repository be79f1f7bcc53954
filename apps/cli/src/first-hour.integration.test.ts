/**
 * The first hour on real data (the dataset mirror's CoNLL-2000; skipped, saying so, without it):
 * `lagrange datasets` lists the registry with what is here, and `train --limit` / `--sample`
 * train on a subset that the model's settings record.
 */
import { createHash } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadModel } from "@lagrange/chain-crf";
import type { DatasetListing } from "@lagrange/datasets/node";
import { findSplitFile } from "@lagrange/datasets/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "./testing/run-cli.js";

const conll2000 = findSplitFile("conll2000", "train");
if (conll2000 === undefined) {
  process.stderr.write("first-hour.integration.test.ts: skipped (no conll2000 in the mirror)\n");
}

describe.skipIf(conll2000 === undefined)("the first hour, on CoNLL-2000", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "lagrange-first-hour-"));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const train = (out: string, ...extra: string[]) =>
    run([
      "train",
      ...["--data", "conll2000:train", "--preset", "chunking", "--max-iterations", "5"],
      ...extra,
      ...["--out", join(dir, out)],
    ]);
  const sha = async (file: string) =>
    createHash("sha256")
      .update(await readFile(join(dir, file)))
      .digest("hex");

  it("lagrange datasets names every split as --data takes it, and says which are here", async () => {
    const text = await run(["datasets"]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^ {2}conll2000:train +8,936 sentences +211,727 tokens +here$/m);
    expect(text.stdout).toMatch(/^ {2}conll2003:test .*sealed/m);
    const json = await run(["datasets", "conll2000", "--json"]);
    const listing = JSON.parse(json.stdout) as DatasetListing;
    expect(listing.datasets.map((d) => d.name)).toEqual(["conll2000"]);
    expect(listing.datasets[0]?.splits.map((s) => [s.spec, s.where])).toEqual([
      ["conll2000:train", "mirror"],
      ["conll2000:test", "mirror"],
    ]);
    expect((await run(["datasets", "conll1999"])).code).toBe(2);
  });

  it("--limit trains on the first n sentences and --dev-limit scores n; the model records both", async () => {
    const r = await train(
      "limit.lgm",
      ...["--limit", "300", "--dev", "conll2000:test", "--dev-limit", "100"],
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("on 300 sequences (conll2000:train[first 300])");
    const model = await loadModel(join(dir, "limit.lgm"));
    expect(model.settings.subset).toEqual({ data: { limit: 300 }, dev: { limit: 100 } });
  });

  it("--sample n --seed s draws the same sentences for a seed, others for another", async () => {
    for (const [out, seed] of [
      ["a.lgm", "5"],
      ["b.lgm", "5"],
      ["c.lgm", "6"],
    ] as const) {
      const r = await train(out, "--sample", "300", "--seed", seed);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain(`(conll2000:train[sample 300, seed ${seed}])`);
    }
    expect(await sha("a.lgm")).toBe(await sha("b.lgm"));
    expect(await sha("a.lgm")).not.toBe(await sha("c.lgm"));
    const model = await loadModel(join(dir, "a.lgm"));
    expect(model.settings.subset).toEqual({ data: { sample: 300, seed: 5 } });
  });

  it.skipIf(findSplitFile("ud-en-ewt", "train") === undefined)(
    "--learner l2s trains on the subset too, and its model records it",
    async () => {
      const out = join(dir, "pos.l2s");
      const r = await run([
        "train",
        ...["--learner", "l2s", "--task", "pos", "--data", "ud-en-ewt:train", "--limit", "200"],
        ...["--dev", "ud-en-ewt:dev", "--dev-sample", "100", "--seed", "2", "--out", out],
      ]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain("dev (ud-en-ewt:dev[sample 100, seed 2], greedy)");
      const info = JSON.parse((await run(["info", out, "--json"])).stdout) as {
        settings: { subset?: unknown };
      };
      expect(info.settings.subset).toEqual({
        data: { limit: 200 },
        dev: { sample: 100, seed: 2 },
      });
    },
  );

  it("refuses a --seed with nothing to seed, and --dev-limit without --dev (exit 2)", async () => {
    for (const extra of [
      ["--seed", "3"],
      ["--dev-limit", "10"],
      ["--limit", "0"],
    ]) {
      const r = await train("never.lgm", ...extra);
      expect(r.code, `${extra.join(" ")}: ${r.stderr}`).toBe(2);
    }
  });
});
