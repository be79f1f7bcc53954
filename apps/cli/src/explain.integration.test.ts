import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { seededRandom } from "@lagrange/core";
import { findSplitFile } from "@lagrange/datasets/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lastColumn, run } from "./testing/run-cli.js";

/**
 * `word POS label` sentences: a team name, "(", its country, ")"; in the first `broken` sentences
 * the country is missing, so that a mined rule has something to correct.
 */
function newsText(count: number, broken: number, seed: number): string {
  const random = seededRandom(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  let text = "";
  for (let s = 0; s < count; s++) {
    const rows: string[][] = [];
    if (random() < 0.5) rows.push([pick(["John", "Mary", "Ann"]), "NNP", "B-PER"]);
    rows.push(["beat", "VBD", "O"]);
    rows.push([pick(["Dynamo", "Ajax", "Lazio"]), "NNP", "B-ORG"]);
    rows.push([pick(["Batumi", "Kiev", "Roma"]), "NNP", "I-ORG"]);
    rows.push(["(", "(", "O"]);
    rows.push(
      s < broken ? ["the", "DT", "O"] : [pick(["Georgia", "Spain", "Italy"]), "NNP", "B-LOC"],
    );
    rows.push([")", ")", "O"]);
    rows.push([".", ".", "O"]);
    text += `${rows.map((r) => r.join(" ")).join("\n")}\n\n`;
  }
  return text;
}

interface Part {
  label: string;
  total: number;
  state: number;
  transition: number;
  boundary: number;
  features: { contribution: number }[];
  omittedFeatures: { sum: number };
}
interface Shown {
  labels: string[];
  score: number;
  objective: number;
  penaltyPaid: number;
  perToken: {
    chosen: Part;
    compared: Part[];
    constraintTerm: number;
    runnerUp: string;
    /** A number, or "Infinity" where no other label fits. */
    margin: number | string;
  }[];
  constraints: { multiplier: number; name: string }[];
  lagrangian: { constant: number; value: number };
  decoding: { certified: boolean; primal: number };
}

const close = (a: number, b: number) =>
  expect(Math.abs(a - b)).toBeLessThanOrEqual(1e-6 * Math.max(1, Math.abs(b)));

/** The decomposition adds up: parts to each total, totals to the chain score. */
function expectExact(shown: Shown, top: number): void {
  let sum = 0;
  for (const token of shown.perToken) {
    for (const part of [token.chosen, ...token.compared]) {
      expect(part.features.length).toBeLessThanOrEqual(top);
      const listed = part.features.reduce((s, f) => s + f.contribution, 0);
      close(listed + part.omittedFeatures.sum, part.state);
      close(part.state + part.transition + part.boundary, part.total);
    }
    sum += token.chosen.total;
  }
  close(sum, shown.score);
}

describe("lagrange explain and lagrange info --features", () => {
  let dir: string;
  let train: string;
  let model: string;
  let rules: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "lagrange-cli-explain-"));
    train = join(dir, "train.conll");
    model = join(dir, "m.lgm");
    rules = join(dir, "r.json");
    await writeFile(train, newsText(80, 3, 1));
    const trained = await run([
      "train",
      "--data",
      train,
      "--preset",
      "chunking",
      "--max-iterations",
      "10",
      "--out",
      model,
    ]);
    expect(trained.code, trained.stderr).toBe(0);
    const mined = await run(["rules", "mine", "--data", train, "--out", rules]);
    expect(mined.code, mined.stderr).toBe(0);
  }, 60_000);

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("breaks Viterbi's labelling into parts that add up to its chain score", async () => {
    const tagged = await run(["tag", "--model", model, "--data", train]);
    expect(tagged.code, tagged.stderr).toBe(0);
    const json = await run([
      "explain",
      "--model",
      model,
      "--data",
      train,
      "--sentence",
      "5",
      "--top",
      "2",
      "--compare",
      "runner-up",
      "--json",
    ]);
    expect(json.code, json.stderr).toBe(0);
    const shown = JSON.parse(json.stdout) as Shown & { sentence: number; of: number };
    expect(shown).toMatchObject({ sentence: 5, of: 80, decoder: "viterbi" });
    expect(shown.labels).toEqual(lastColumn(tagged.stdout)[4]);
    expectExact(shown, 2);
    for (const token of shown.perToken) expect(token.compared[0]?.label).toBe(token.runnerUp);
    expect(shown.constraints).toEqual([]);

    const text = await run(["explain", "--model", model, "--data", train, "--sentence", "5"]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(
      /^sentence 5 of 80 \(.*train\.conll:\d+\), \d+ tokens; decoder viterbi/,
    );
    expect(text.stdout).toMatch(/ {3}score [+−]\d+\.\d{3} = state [+−]\d/);
    expect(text.stdout).toContain("runner-up");
  });

  it("names the constraint multipliers a Soft-DD decoding put on the tokens", async () => {
    const args = [
      "--model",
      model,
      "--data",
      train,
      "--decoder",
      "soft-dd",
      "--constraints",
      rules,
    ];
    let pushed = 0;
    for (const k of [1, 2, 3, 4]) {
      const out = await run(["explain", ...args, "--sentence", String(k), "--json"]);
      expect(out.code, out.stderr).toBe(0);
      const shown = JSON.parse(out.stdout) as Shown;
      expectExact(shown, 5);
      close(shown.objective, shown.score - shown.penaltyPaid);
      if (shown.decoding.certified) close(shown.objective, shown.decoding.primal);
      const terms = shown.perToken.reduce((s, t) => s + t.constraintTerm, 0);
      close(shown.lagrangian.value, shown.score + terms + shown.lagrangian.constant);
      pushed += shown.constraints.filter((c) => c.multiplier > 0).length;
    }
    // The broken sentences (1–3) break a mined rule: some multiplier ends above zero.
    expect(pushed).toBeGreaterThan(0);
  });

  it("lists each label's strongest weights both ways, and the transitions", async () => {
    const json = await run(["info", model, "--features", "--top", "3", "--json"]);
    expect(json.code, json.stderr).toBe(0);
    const weights = JSON.parse(json.stdout) as {
      labels: { label: string; positive: { weight: number }[]; negative: { weight: number }[] }[];
      names: string[];
      transitions: number[][];
    };
    expect(weights.labels.map((l) => l.label).sort()).toEqual([...weights.names].sort());
    for (const l of weights.labels) {
      expect(l.positive.length).toBeLessThanOrEqual(3);
      for (const w of l.positive) expect(w.weight).toBeGreaterThan(0);
      for (const w of l.negative) expect(w.weight).toBeLessThan(0);
    }
    expect(weights.transitions).toHaveLength(weights.names.length);
    const text = await run(["info", model, "--features", "--label", "B-LOC"]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^B-LOC {2}\(\d+ non-zero state weights\)/);
    expect(text.stdout).toContain("into or out of B-LOC");
  });

  it("refuses a sentence past the end, an unknown label and --top without --features", async () => {
    const past = await run(["explain", "--model", model, "--data", train, "--sentence", "81"]);
    expect(past.code).toBe(2);
    expect(past.stderr).toContain("has 80 sentences");
    const label = await run(["explain", "--model", model, "--data", train, "--compare", "B-XYZ"]);
    expect(label.code).toBe(2);
    expect(label.stderr).toContain("no such label");
    const top = await run(["info", model, "--top", "3"]);
    expect(top.code).toBe(2);
  });
});

const conll2000 = findSplitFile("conll2000", "train");

describe("lagrange explain on CoNLL-2000", () => {
  it.skipIf(conll2000 === undefined)(
    "a chunker trained on 300 sentences: parts add up on test sentences — skipped without the dataset mirror",
    async () => {
      const dir = await mkdtemp(join(tmpdir(), "lagrange-cli-explain-real-"));
      try {
        const model = join(dir, "chunk.lgm");
        const trained = await run([
          "train",
          "--data",
          "conll2000:train",
          "--preset",
          "chunking",
          "--limit",
          "300",
          "--max-iterations",
          "15",
          "--out",
          model,
        ]);
        expect(trained.code, trained.stderr).toBe(0);
        for (const k of ["1", "7"]) {
          const out = await run([
            "explain",
            "--model",
            model,
            "--data",
            "conll2000:test",
            "--sentence",
            k,
            "--top",
            "4",
            "--json",
          ]);
          expect(out.code, out.stderr).toBe(0);
          const shown = JSON.parse(out.stdout) as Shown;
          expectExact(shown, 4);
          // Viterbi's labelling: no token does better with its runner-up.
          for (const token of shown.perToken)
            expect(Number(token.margin)).toBeGreaterThanOrEqual(-1e-9);
        }
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
    120_000,
  );
});
