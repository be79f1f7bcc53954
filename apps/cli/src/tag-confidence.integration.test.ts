import { readFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONLL2000_TRAIN, run, trainConll2000Chunker } from "./testing/run-cli.js";

/*
 * `lagrange tag --marginals | lagrange eval --confidence` on real CoNLL-2000 sentences: a small
 * chunker trained on 300 sentences of train tags the next 60 with their marginals.
 */

const available = CONLL2000_TRAIN !== undefined;
const why = available ? "" : " — skipped: no conll2000 in the dataset mirror";

let dir: string;
let model: string;
let data: string;

beforeAll(async () => {
  if (!available) return;
  ({ dir, model, data } = await trainConll2000Chunker({
    prefix: "lagrange-confidence-",
    trainSentences: 300,
    testSentences: 60,
    trainArgs: ["--max-iterations", "40"],
  }));
}, 120_000);

afterAll(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

describe.skipIf(!available)(`tag --marginals and eval --confidence${why}`, () => {
  it("CoNLL: one more column, the predicted label's marginal; labels as without it", async () => {
    const plain = await run(["tag", "--model", model, "--data", data]);
    const marginals = await run(["tag", "--model", model, "--data", data, "--marginals"]);
    expect(marginals.code, marginals.stderr).toBe(0);
    const plainLines = plain.stdout.split("\n");
    const lines = marginals.stdout.split("\n");
    expect(lines).toHaveLength(plainLines.length);
    for (const [k, line] of lines.entries()) {
      if (line === "") {
        expect(plainLines[k]).toBe("");
        continue;
      }
      const fields = line.split(" ");
      expect(fields.slice(0, -1).join(" ")).toBe(plainLines[k]);
      const p = Number(fields[fields.length - 1]);
      expect(p).toBeGreaterThan(0);
      expect(p).toBeLessThanOrEqual(1);
    }
    // The report scores the prediction, not the confidence after it.
    const f1 = (stderr: string) => /chunk F1 ([\d.]+)/.exec(stderr)?.[1];
    expect(f1(marginals.stderr)).toBeDefined();
    expect(f1(marginals.stderr)).toBe(f1(plain.stderr));
    // Worker threads write the same bytes.
    const threaded = await run([
      "tag",
      "--model",
      model,
      "--data",
      data,
      "--marginals",
      "--threads",
      "2",
    ]);
    expect(threaded.stdout).toBe(marginals.stdout);
  });

  it("eval --confidence scores the labels and prints the calibration; --reliability writes the SVG", async () => {
    const out = join(dir, "tagged.conll");
    const svg = join(dir, "reliability.svg");
    expect(
      (await run(["tag", "--model", model, "--data", data, "--marginals", "--out", out])).code,
    ).toBe(0);
    const r = await run(["eval", "--confidence", out, "--reliability", svg]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /^processed \d+ tokens with \d+ phrases; found: \d+ phrases; correct: \d+\./,
    );
    const m =
      /calibration of (\d+) token confidences \(15 equal-width bins\): ECE ([\d.]+); MCE ([\d.]+); Brier ([\d.]+)/.exec(
        r.stdout,
      );
    expect(m).not.toBeNull();
    const tokens = readFileSync(data, "utf8")
      .split("\n")
      .filter((l) => l.trim() !== "").length;
    expect(Number(m![1])).toBe(tokens);
    // A small model on real text: calibrated within a few points, not perfectly.
    expect(Number(m![2])).toBeLessThan(0.1);
    const drawn = readFileSync(svg, "utf8");
    expect(drawn).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    expect(drawn).toContain(`ECE ${m![2]}`);
    // Without --confidence the probabilities would be read as the prediction: a warning says so.
    expect((await run(["eval", out])).stderr).toMatch(/the last column holds probabilities/);
    const json = JSON.parse((await run(["eval", "--confidence", "--json", out])).stdout);
    expect(json.calibration.tokens).toBe(tokens);
    expect(json.f1).toBeGreaterThan(50);
  });

  it("NDJSON: marginals maps, confidence and p(y|x), consistent with each other", async () => {
    const r = await run([
      "tag",
      "--model",
      model,
      "--data",
      data,
      "--output-format",
      "ndjson",
      "--marginals",
      "--probability",
    ]);
    expect(r.code, r.stderr).toBe(0);
    const records = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(records).toHaveLength(60);
    for (const record of records) {
      expect(record.marginalsOf).toBe("chain");
      const n = record.tokens.length;
      expect(record.marginals).toHaveLength(n);
      expect(record.confidence).toHaveLength(n);
      for (let i = 0; i < n; i++) {
        const map = record.marginals[i] as Record<string, number>;
        const sum = Object.values(map).reduce((a, b) => a + b, 0);
        // Labels under the 0.001 threshold are left out: at most 22 of them.
        expect(sum).toBeGreaterThan(1 - 0.023);
        expect(sum).toBeLessThan(1 + 1e-4);
        expect(map[record.labels[i]]).toBe(record.confidence[i]);
      }
      // p(y) ≤ p(y_i) for every token.
      expect(record.probability).toBeGreaterThan(0);
      expect(record.probability).toBeLessThanOrEqual(Math.min(...record.confidence) + 1e-6);
    }
  });

  it("--probability in CoNLL output and --reliability alone are usage errors; eval --confidence of a file without confidences is bad input", async () => {
    const r = await run(["tag", "--model", model, "--data", data, "--probability"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--probability is written in NDJSON output only/);
    const e = await run(["eval", "--reliability", join(dir, "x.svg"), data]);
    expect(e.code).toBe(2);
    expect(e.stderr).toMatch(/--reliability draws the calibration of --confidence/);
    const notMarginals = await run(["eval", "--confidence", data]);
    expect(notMarginals.code).toBe(3);
    expect(notMarginals.stderr).toMatch(
      /test\.conll:1: expected the last column to be the predicted label's probability/,
    );
  });
});
