/**
 * `lagrange train --objective bcrf|crf|mean-field [--partial] [--bcrf-iterations k]` and
 * `lagrange tag --decoder bcrf|mean-field` (corro) on a small generated NER corpus.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadModel } from "@lagrange/chain-crf";
import { seededRandom } from "@lagrange/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lastColumn, run } from "./testing/run-cli.js";

const PEOPLE = [["Anna", "Berg"], ["Tom"], ["Maria", "Lopez"], ["Ken", "Ito"], ["Lea"]];
const PLACES = [["Oslo"], ["New", "York"], ["Lima"], ["Cairo"], ["San", "Jose"]];
const WORDS = ["today", "went", "to", "the", "big", "city", "and", "saw", "a", "friend", "there"];

/** Seeded sentences as `[token, label]` rows (IOB2, PER and LOC). */
function sentences(count: number, seed: number): [string, string][][] {
  const random = seededRandom(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const entity = (tokens: readonly string[], type: string): [string, string][] =>
    tokens.map((t, i) => [t, `${i === 0 ? "B" : "I"}-${type}`]);
  return Array.from({ length: count }, () => {
    const rows: [string, string][] = Array.from({ length: 4 + Math.floor(random() * 3) }, () => [
      pick(WORDS),
      "O",
    ]);
    rows.splice(Math.floor(random() * 2), 0, ...entity(pick(PEOPLE), "PER"));
    rows.splice(rows.length - 1, 0, ["in", "O"], ...entity(pick(PLACES), "LOC"));
    return rows;
  });
}

function conll(rows: readonly (readonly [string, string])[][]): string {
  return rows.map((s) => `${s.map(([w, t]) => `${w}\t${t}`).join("\n")}\n`).join("\n");
}

let dir: string;
let train: string;
let dev: string;
let partial: string;
let devRows: [string, string][][];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "lagrange-bcrf-"));
  train = join(dir, "train.conll");
  dev = join(dir, "dev.conll");
  partial = join(dir, "partial.conll");
  await writeFile(train, conll(sentences(60, 11)));
  devRows = sentences(20, 12);
  await writeFile(dev, conll(devRows));
  // Every third sentence partially annotated: its entities' labels unknown or a set.
  const partialRows = sentences(60, 13).map((s, k) =>
    k % 3 !== 0
      ? s
      : s.map(([w, t]): [string, string] =>
          t.endsWith("PER") ? [w, "?"] : t === "B-LOC" ? [w, "{B-LOC,B-GPE}"] : [w, t],
        ),
  );
  await writeFile(partial, conll(partialRows));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Token accuracy of a `lagrange tag` output against the dev gold; checks one label per token. */
function accuracy(output: string): number {
  const predicted = lastColumn(output);
  expect(predicted.map((s) => s.length)).toEqual(devRows.map((s) => s.length));
  let right = 0;
  let total = 0;
  predicted.forEach((labels, s) => {
    labels.forEach((label, t) => {
      total++;
      if (label === devRows[s]![t]![1]) right++;
    });
  });
  return right / total;
}

/** The share of the most frequent dev label: what a tagger without features reaches. */
function majority(): number {
  const counts = new Map<string, number>();
  for (const [, t] of devRows.flat()) counts.set(t, (counts.get(t) ?? 0) + 1);
  return Math.max(...counts.values()) / devRows.flat().length;
}

const common = ["--preset", "ner-words", "--max-iterations", "30"];

describe("lagrange train --objective bcrf, tag --decoder bcrf", () => {
  it("trains under the Bregman CRF loss; bcrf, mean-field and viterbi tag with it", async () => {
    const model = join(dir, "bcrf.model");
    const trained = await run([
      "train",
      "--data",
      train,
      ...common,
      "--objective",
      "bcrf",
      "--bcrf-iterations",
      "6",
      "--out",
      model,
    ]);
    expect(trained.code, trained.stderr).toBe(0);
    expect(trained.stderr).toContain("objective bcrf (6 IBP half-steps)");
    expect(trained.stdout).toMatch(/\(objective bcrf\); wrote .*bcrf\.model\n$/);
    const settings = (await loadModel(model)).settings;
    expect(settings.objective).toBe("bcrf");
    expect(settings.objectiveIterations).toBe(6);

    const chance = majority();
    for (const decoder of ["bcrf", "viterbi", "mean-field"]) {
      const tagged = await run([
        "tag",
        "--model",
        model,
        "--data",
        dev,
        "--decoder",
        decoder,
        ...(decoder === "viterbi" ? [] : ["--bcrf-iterations", "4"]),
      ]);
      expect(tagged.code, `${decoder}: ${tagged.stderr}`).toBe(0);
      expect(tagged.stderr, decoder).not.toContain("warning");
      const acc = accuracy(tagged.stdout);
      expect(acc, decoder).toBeGreaterThan(Math.max(chance, 0.85));
    }
  });

  it("warns of iteration options a decoder or objective ignores, accurately", async () => {
    const model = join(dir, "crf.model");
    const trained = await run([
      "train",
      "--data",
      train,
      ...common,
      "--bcrf-iterations",
      "3",
      "--out",
      model,
    ]);
    expect(trained.code, trained.stderr).toBe(0);
    expect(trained.stderr).toMatch(/warning: --bcrf-iterations .* ignored/);
    expect((await loadModel(model)).settings.objective).toBe("crf");
    // A decoder option the chosen decoder does not declare is a usage error naming the decoder.
    const viterbi = await run(["tag", "--model", model, "--data", dev, "--bcrf-iterations", "3"]);
    expect(viterbi.code).toBe(2);
    expect(viterbi.stderr).toMatch(/decoder "?viterbi"? has no option "?iterations"?/);
    const bcrf = await run([
      "tag",
      ...["--model", model, "--data", dev, "--decoder", "bcrf", "--max-iterations", "9"],
    ]);
    expect(bcrf.code).toBe(2);
    expect(bcrf.stderr).toMatch(/decoder "?bcrf"? has no option "?max-iterations"?.*iterations/);
    const steps = await run([
      "tag",
      ...["--model", model, "--data", dev, "--decoder", "bcrf", "--bcrf-iterations", "3"],
    ]);
    expect(steps.code, steps.stderr).toBe(0);
  });
});

describe("lagrange train --partial", () => {
  it("reads ? and {…} cells, interns set labels, and records the objective", async () => {
    const model = join(dir, "partial.model");
    const r = await run([
      "train",
      ...["--data", partial, "--dev", partial],
      ...common,
      ...["--objective", "crf", "--partial", "--out", model],
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/partial\.conll: 20 of 60 sequences partially annotated/);
    expect(r.stderr).toMatch(/20 of 60 sequences partially annotated, left out of the dev/);
    expect(r.stdout).toMatch(/best dev: .*, 20 partially annotated left out; wrote/);
    const loaded = await loadModel(model);
    expect(loaded.settings.objective).toBe("crf");
    expect(loaded.settings.partialLabels).toBe(true);
    expect(loaded.labels.names()).toContain("B-GPE");
    const tagged = await run(["tag", "--model", model, "--data", dev]);
    expect(tagged.code, tagged.stderr).toBe(0);
    expect(accuracy(tagged.stdout)).toBeGreaterThan(majority());
  });

  it("trains bcrf on partial labels too", async () => {
    const r = await run([
      "train",
      ...["--data", partial, ...common, "--max-iterations", "5"],
      ...["--objective", "bcrf", "--partial", "--out", join(dir, "partial-bcrf.model")],
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect((await loadModel(join(dir, "partial-bcrf.model"))).settings.objective).toBe("bcrf");
  });

  it("without --partial, a ? cell is bad input at its file:line, suggesting --partial", async () => {
    const r = await run(["train", "--data", partial, ...common, "--out", join(dir, "x.model")]);
    expect(r.code).toBe(3);
    const text = await readFile(partial, "utf8");
    const line = text.split("\n").findIndex((l) => l.endsWith("\t?")) + 1;
    expect(r.stderr).toContain(`${partial}:${line}: gold label "?" is a partial annotation`);
    expect(r.stderr).toContain("--partial");
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it("a malformed or empty set is bad input at its file:line", async () => {
    const bad = join(dir, "bad.conll");
    await writeFile(bad, "Anna\tB-PER\nran\tO\n\nTom\t{}\nsat\tO\n");
    const r = await run(["train", "--data", bad, ...common, "--partial", "--out", join(dir, "b")]);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(`${bad}:4: label set "{}": an empty set allows no label`);
  });

  it("--partial --objective mean-field is a usage error; an unknown objective lists the choices", async () => {
    const mf = await run([
      "train",
      ...["--data", partial, ...common, "--partial", "--objective", "mean-field"],
      ...["--out", join(dir, "mf.model")],
    ]);
    expect(mf.code).toBe(2);
    expect(mf.stderr).toMatch(/--partial with --objective mean-field: .*cannot train on partial/);
    const unknown = await run([
      "train",
      ...["--data", train, ...common, "--objective", "svm", "--out", join(dir, "u.model")],
    ]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/svm.*crf, bcrf, mean-field/);
  });

  it("--help documents the objectives, the partial format and the decoders", async () => {
    const train = await run(["train", "--help-all"]);
    expect(train.stdout).toMatch(/--objective <name>[\s\S]*bcrf[\s\S]*mean-field/);
    expect(train.stdout).toMatch(/--partial[\s\S]*\{B-PER,I-PER\}/);
    expect(train.stdout).toContain("--bcrf-iterations");
    const tag = await run(["tag", "--help-all"]);
    expect(tag.stdout).toMatch(/--decoder <name>[\s\S]*bcrf \([\s\S]*mean-field \(/);
    expect(tag.stdout).toMatch(/--iterations <value>[\s\S]*bcrf \(default \d+\),\s+mean-field/);
  });
});
