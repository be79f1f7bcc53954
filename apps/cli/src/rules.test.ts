import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadModel } from "@lagrange/chain-crf";
import { parseConstraintsFile } from "@lagrange/constraint-templates";
import { seededRandom } from "@lagrange/core";
import { minedRuleStats } from "@lagrange/ilp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseRuleFamilies } from "./commands/rules.js";
import { parseDelimiters } from "./define/values.js";
import { expectCleanExit, runCli, strayTemporaryFiles } from "./probe/cli-process.js";
import { lastColumn, run } from "./testing/run-cli.js";

/**
 * `word POS label` sentences (IOB2) with a planted rule: every "(" sits between an ORG token and a
 * LOC token ("Dynamo Batumi ( Georgia )"), except in the first `broken` sentences. `firstLabel`
 * opens the file, to vary the order in which labels first appear.
 */
function newsText(count: number, broken: number, seed: number, firstLabel = "B-PER"): string {
  const random = seededRandom(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  let text = "";
  for (let s = 0; s < count; s++) {
    const rows: [string, string, string][] = [];
    const filler = () => {
      for (let k = Math.floor(random() * 3); k > 0; k--) {
        rows.push([pick(["the", "said", "on", "a", "after"]), "DT", "O"]);
      }
    };
    if (s === 0) {
      rows.push(firstLabel === "B-PER" ? ["John", "NNP", "B-PER"] : ["Spain", "NNP", firstLabel]);
    }
    filler();
    if (random() < 0.5) rows.push([pick(["John", "Mary", "Ann"]), "NNP", "B-PER"]);
    rows.push(["beat", "VBD", "O"]);
    rows.push([pick(["Dynamo", "Ajax", "Lazio"]), "NNP", "B-ORG"]);
    rows.push([pick(["Batumi", "Kiev", "Roma"]), "NNP", "I-ORG"]);
    rows.push(["(", "(", "O"]);
    if (s < broken) rows.push(["the", "DT", "O"]);
    else rows.push([pick(["Georgia", "Spain", "Italy"]), "NNP", "B-LOC"]);
    rows.push([")", ")", "O"]);
    filler();
    rows.push([".", ".", "O"]);
    text += `${rows.map((r) => r.join(" ")).join("\n")}\n\n`;
  }
  return text;
}

describe("lagrange rules mine", () => {
  let dir: string;
  let train: string;
  let model: string;
  let rules: string;
  let report: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "lagrange-cli-rules-"));
    train = join(dir, "train.conll");
    model = join(dir, "m.model");
    rules = join(dir, "r.json");
    await writeFile(train, newsText(120, 3, 1));
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
    report = mined.stdout;
  }, 60_000);

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("recovers the planted rule, says so in words and writes its statistics", async () => {
    expect(report).toMatch(/^mined \d+ rules on .*train\.conll \(120 sentences/);
    expect(report).toMatch(
      /The 10 most important \(cost paper; support, violations, confidence\):/,
    );
    expect(report).toContain(`wrote ${rules}`);
    const file = parseConstraintsFile(await readFile(rules, "utf8"), { source: rules });
    const entry = file.entries.find((e) => e.template.id === "state-change:ORG|(|LOC");
    expect(entry?.penalty).toBeGreaterThan(0);
    expect(entry?.template.describe()).toBe(
      'the token before "(" is ORG and the token after it is LOC',
    );
    expect(minedRuleStats(file).get("state-change:ORG|(|LOC")).toMatchObject({
      support: 120,
      violations: 3,
    });
    expect(file.metadata).toMatchObject({
      miner: "counting",
      data: train,
      scheme: "IOB2",
      format: "conll",
      cost: "paper",
      minSupport: 5,
      minConfidence: 0.9,
    });
  });

  it("writes the labels in the order a model trained on the same data has them", async () => {
    const m = await loadModel(model);
    const file = parseConstraintsFile(await readFile(rules, "utf8"), {
      source: rules,
      expectedLabels: m.labels.names(),
    });
    expect(file.index.labels.names()).toEqual(m.labels.names());
  });

  it("is accepted by tag --constraints, which then decodes with the rules", async () => {
    const out = join(dir, "tagged.txt");
    const tagged = await run([
      "tag",
      "--model",
      model,
      "--data",
      train,
      "--decoder",
      "soft-dd",
      "--constraints",
      rules,
      "--out",
      out,
    ]);
    expect(tagged.code, tagged.stderr).toBe(0);
    expect(tagged.stderr).toMatch(/% certified/);
    expect(lastColumn(await readFile(out, "utf8")).length).toBe(120);
  });

  it("with --model, writes the rules for that model's labels whatever order the data has", async () => {
    const other = join(dir, "other.conll");
    // This file's labels first appear in another order (B-LOC first).
    await writeFile(other, newsText(40, 0, 2, "B-LOC"));
    const plain = join(dir, "plain.json");
    expect((await run(["rules", "mine", "--data", other, "--out", plain])).code).toBe(0);
    const m = await loadModel(model);
    const plainLabels = parseConstraintsFile(await readFile(plain, "utf8")).index.labels.names();
    expect(plainLabels).not.toEqual(m.labels.names());

    const forModel = join(dir, "for-model.json");
    const mined = await run([
      "rules",
      "mine",
      "--data",
      other,
      "--model",
      model,
      "--cost",
      "log-odds",
      "--families",
      "state-change,begin-end",
      "--delimiters",
      "()",
      "--out",
      forModel,
    ]);
    expect(mined.code, mined.stderr).toBe(0);
    const file = parseConstraintsFile(await readFile(forModel, "utf8"), {
      expectedLabels: m.labels.names(),
    });
    expect(new Set(file.entries.map((e) => e.template.family))).toEqual(
      new Set(["state-change", "begin-end"]),
    );
    expect(file.metadata?.delimiters).toEqual(["(", ")"]);
    expect(file.metadata?.labelsFrom).toBe(`the model ${model}`);
    const tagged = await run([
      "tag",
      "--model",
      model,
      "--data",
      other,
      "--decoder",
      "soft-dd",
      "--constraints",
      forModel,
      "--out",
      join(dir, "other-tagged.txt"),
    ]);
    expect(tagged.code, tagged.stderr).toBe(0);
  });

  it("a gold label the --model lacks stops it at file:line (exit 3)", async () => {
    const odd = join(dir, "odd.conll");
    await writeFile(odd, "Paris NNP B-LOC\nis VBZ O\nnice JJ B-MISC\n\n");
    const r = await run([
      "rules",
      "mine",
      "--data",
      odd,
      "--model",
      model,
      "--out",
      join(dir, "x"),
    ]);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(`${odd}:3: the gold label "B-MISC" is not one of the model`);
  });
});

describe("lagrange rules mine failures (the binary)", () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "lagrange-cli-rules-fail-"));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("malformed data exits 3 naming file:line, and writes nothing", async () => {
    const bad = join(dir, "bad.conll");
    await writeFile(bad, `${newsText(3, 0, 3)}Paris NNP\n\n`);
    const lines = newsText(3, 0, 3).split("\n").length;
    const r = await runCli(["rules", "mine", "--data", bad, "--out", "r.json"], { cwd: dir });
    expectCleanExit(r, 3);
    expect(r.stderr).toContain(`${bad}:${lines}`);
    expect(existsSync(join(dir, "r.json"))).toBe(false);
    expect(strayTemporaryFiles(dir)).toEqual([]);
  });

  it("reads BIOES segments; plain tags (no segments) are a usage error naming the scheme", async () => {
    const bioes = join(dir, "bioes.conll");
    await writeFile(bioes, "New NNP B-LOC\nYork NNP E-LOC\nis VBZ O\n\nParis NNP S-LOC\n\n");
    const args = ["--min-support", "1", "--allow-empty"];
    const r = await runCli(["rules", "mine", "--data", bioes, ...args, "--out", "r.json"], {
      cwd: dir,
    });
    expectCleanExit(r, 0);
    const file = parseConstraintsFile(await readFile(join(dir, "r.json"), "utf8"));
    expect(file.index.lattice.scheme).toBe("BIOES");
    const tags = join(dir, "tags.conll");
    await writeFile(tags, "New NNP\nYork NNP\nis VBZ\n\n");
    const plain = await runCli(
      ["rules", "mine", "--data", tags, "--scheme", "none", "--out", "p.json"],
      { cwd: dir },
    );
    expectCleanExit(plain, 2);
    expect(plain.stderr).toContain('the label scheme is "none"');
  });

  it("no rule above the thresholds exits 1 with what was dropped; --allow-empty writes the file", async () => {
    const data = join(dir, "news.conll");
    await writeFile(data, newsText(10, 0, 4));
    const args = ["rules", "mine", "--data", data, "--min-support", "1000"];
    const r = await runCli([...args, "--out", "none.json"], { cwd: dir });
    expectCleanExit(r, 1);
    expect(r.stderr).toMatch(
      /lagrange: no rule passed the thresholds on .*news\.conll: of \d+ candidates, \d+ never fired, \d+ had support < 1000/,
    );
    expect(r.stderr).toContain("--allow-empty");
    expect(r.stderr).not.toContain("internal error");
    expect(existsSync(join(dir, "none.json"))).toBe(false);

    const empty = await runCli([...args, "--allow-empty", "--out", "empty.json"], { cwd: dir });
    expectCleanExit(empty, 0);
    const file = parseConstraintsFile(await readFile(join(dir, "empty.json"), "utf8"));
    expect(file.entries).toEqual([]);
  });

  it("bad option values are usage errors (exit 2), and --help says when it exits 1", async () => {
    const data = join(dir, "news2.conll");
    await writeFile(data, newsText(5, 0, 5));
    for (const extra of [
      ["--families", "singleton"],
      ["--min-confidence", "1.5"],
      ["--cost", "nope"],
      ["--smoothing", "0"],
      ["--scheme", "XYZ"],
    ]) {
      const r = await run([
        "rules",
        "mine",
        "--data",
        data,
        "--out",
        join(dir, "o.json"),
        ...extra,
      ]);
      expect(r.code, `${extra.join(" ")}: ${r.stderr}`).toBe(2);
    }
    const help = await run(["rules", "mine", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/exits 1/);
  });
});

describe("rules option parsers", () => {
  it("read delimiters as characters, as space-separated tokens, or auto", () => {
    expect(parseDelimiters(",;:()")).toEqual([",", ";", ":", "(", ")"]);
    expect(parseDelimiters("( ) -- ...")).toEqual(["(", ")", "--", "..."]);
    expect(parseDelimiters("auto")).toBe("auto");
    expect(() => parseDelimiters("  ")).toThrow(/expected delimiter tokens/);
  });

  it("read families", () => {
    expect(parseRuleFamilies("rules")).toHaveLength(5);
    expect(parseRuleFamilies("begin-end, adjacency")).toEqual(["adjacency", "begin-end"]);
    expect(() => parseRuleFamilies("pairwise")).toThrow(/unknown rule family "pairwise"/);
  });
});
