/**
 * `lagrange train --model general` and `lagrange tag` with a general CRF (qian-liu2014): a small
 * generated tweet-like corpus whose tweets share words (so they cluster into groups) and repeat
 * entity names (so the groups have consistency factors).
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadModel, saveModel } from "@lagrange/chain-crf";
import { seededRandom } from "@lagrange/core";
import { generalCrfOf, withGeneralCrf } from "@lagrange/recipes";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lastColumn, run } from "./testing/run-cli.js";

interface Topic {
  /** Words the topic's tweets share. */
  readonly words: readonly string[];
  readonly people: readonly (readonly string[])[];
  readonly places: readonly (readonly string[])[];
}

/** Topics: the words their tweets share, the people and the places they name. */
const TOPICS: readonly Topic[] = [
  {
    words: ["concert", "tonight", "tickets", "amazing", "show", "crowd", "singing"],
    people: [
      ["Justin", "Bieber"],
      ["Taylor", "Swift"],
    ],
    places: [["London"], ["Paris"]],
  },
  {
    words: ["match", "goal", "score", "final", "league", "fans", "winning"],
    people: [
      ["Lionel", "Messi"],
      ["Harry", "Kane"],
    ],
    places: [["Madrid"], ["Manchester"]],
  },
  {
    words: ["phone", "launch", "screen", "battery", "price", "review", "camera"],
    people: [
      ["Tim", "Cook"],
      ["Elon", "Musk"],
    ],
    places: [["California"], ["Tokyo"]],
  },
  {
    words: ["storm", "rain", "flights", "delayed", "airport", "weather", "closed"],
    people: [
      ["Barack", "Obama"],
      ["Angela", "Merkel"],
    ],
    places: [["New", "York"], ["Berlin"]],
  },
];

/** Seeded tweets as `token<TAB>tag` rows (IOB2, PER and LOC), one blank line between tweets. */
function tweetCorpus(count: number, seed: number): string {
  const random = seededRandom(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const entity = (tokens: readonly string[], type: string): [string, string][] =>
    tokens.map((t, i) => [t, `${i === 0 ? "B" : "I"}-${type}`]);
  let text = "";
  for (let s = 0; s < count; s++) {
    const topic = TOPICS[s % TOPICS.length]!;
    // Six of the topic's seven words, in a shuffled order: tweets of a topic share five or more.
    const words = [...topic.words].sort(() => random() - 0.5).slice(0, 6);
    const rows: [string, string][] = words.map((w) => [w, "O"]);
    rows.splice(1 + Math.floor(random() * 4), 0, ...entity(pick(topic.people), "PER"));
    rows.splice(rows.length - 1, 0, ["in", "O"], ...entity(pick(topic.places), "LOC"));
    if (random() < 0.5) rows.unshift(["RT", "O"], ["@fan", "O"], [":", "O"]);
    rows.push([pick(["!", "!!", "#news", "lol"]), "O"]);
    text += `${rows.map(([w, t]) => `${w}\t${t}`).join("\n")}\n\n`;
  }
  return text;
}

let dir: string;
let data: string;
let model: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "lagrange-general-"));
  data = join(dir, "tweets.conll");
  model = join(dir, "general.model");
  await writeFile(data, tweetCorpus(40, 5));
}, 30_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("lagrange train --model general", () => {
  it("trains the chain CRF, the folds and the perceptron, and writes a general model", async () => {
    const r = await run([
      "train",
      "--model",
      "general",
      "--groups",
      "tweets",
      "--data",
      data,
      "--preset",
      "ner-words",
      "--max-iterations",
      "5",
      "--folds",
      "2",
      "--epochs",
      "2",
      "--out",
      model,
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^trained a general CRF: .*wrote .*general\.model\n$/);
    expect(r.stderr).toMatch(
      /groups: \d+ \(\d+ of two or more sentences, [1-9]\d* with consistency/,
    );
    expect(r.stderr).toMatch(/consistency weights: word\/entity -?[\d.]+, word\/outside/);
    expect(r.stderr).toMatch(/perceptron \(two-slave\): .* of \d+ decodings certified/);
    expect(r.stderr).toMatch(/certified per epoch \d+\/\d+, \d+\/\d+;/);
    // The held-out cut (fold 1) chose the epochs and scale, or the chain alone.
    expect(r.stderr).toMatch(
      /held-out cut \(\d+ groups, \d+ sentences of fold 1.*F1 per epoch [\d.]+, [\d.]+;/,
    );
    expect(r.stdout).toMatch(/held-out F1: chain [\d.]+, general /);
    const general = generalCrfOf(await loadModel(model));
    expect(general).not.toBeNull();
    expect(general!.settings.groups).toBe("tweets");
    expect(general!.consistency.weights.length).toBe(6);
    const selection = general!.settings.selection!;
    expect(selection.perEpoch).toHaveLength(2);
    expect(selection.generalScore).toBeGreaterThanOrEqual(selection.chainScore);
    if (selection.scale === 0)
      expect(Array.from(general!.consistency.weights)).toEqual([0, 0, 0, 0, 0, 0]);
  }, 20_000);

  it("--groups without --model general, and --model general without --groups: exit 2", async () => {
    const base = ["train", "--data", data, "--preset", "ner-words", "--out", join(dir, "x.model")];
    const groups = await run([...base, "--groups", "tweets"]);
    expect(groups.code).toBe(2);
    expect(groups.stderr).toContain("--groups tweets groups sentences for a general CRF");
    const chain = await run([...base, "--model", "chain", "--groups", "documents"]);
    expect(chain.code).toBe(2);
    const missing = await run([...base, "--model", "general"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("--model general needs --groups tweets or documents");
    const decoder = await run([
      ...base,
      "--model",
      "general",
      "--groups",
      "tweets",
      "--train-decoder",
      "soft-dd",
    ]);
    expect(decoder.code).toBe(2);
    expect(decoder.stderr).toContain("--train-decoder soft-dd does not decode");
  });
});

describe("lagrange tag with a general model", () => {
  const tokens = async () =>
    (await readFile(data, "utf8"))
      .split("\n\n")
      .filter((block) => block.trim() !== "")
      .map((block) => block.split("\n").map((line) => line.split("\t")[0]));

  it.each(["two-slave", "naive-dd", "viterbi"])(
    "--decoder %s: one label per token, in input order",
    async (decoder) => {
      const out = join(dir, `${decoder}.txt`);
      const r = await run([
        "tag",
        "--model",
        model,
        "--data",
        data,
        "--decoder",
        decoder,
        "--out",
        out,
      ]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(
        new RegExp(
          `tagged 40 sequences, \\d+ tokens .* decoder ${decoder}.*; \\d+ groups, [1-9]\\d* with consistency factors \\([\\d.]+% of those certified`,
        ),
      );
      if (decoder === "viterbi") expect(r.stderr).toContain("the chain alone");
      const text = await readFile(out, "utf8");
      const labels = lastColumn(text);
      const expected = await tokens();
      expect(labels.map((s) => s.length)).toEqual(expected.map((s) => s.length));
      // The input's columns come first, as the chain model's output has them.
      const written = text
        .split("\n\n")
        .filter((block) => block.trim() !== "")
        .map((block) => block.split("\n").map((line) => line.split(" ")[0]));
      expect(written).toEqual(expected);
      for (const label of labels.flat()) expect(label).toMatch(/^(O|[BI]-(PER|LOC))$/);
    },
    20_000,
  );

  it("warns when training's held-out cut kept the chain alone", async () => {
    const general = generalCrfOf(await loadModel(model))!;
    const chainOnly = join(dir, "chain-only.model");
    const selection = {
      heldOutGroups: 3,
      heldOutSentences: 10,
      measure: "f1" as const,
      chainScore: 0.5,
      generalScore: 0.5,
      epochs: 0,
      scale: 0,
      perEpoch: [0.4, 0.45],
    };
    await saveModel(
      withGeneralCrf(
        general.model,
        { ...general.consistency, weights: new Float64Array(6) },
        { ...general.settings, selection },
      ),
      chainOnly,
    );
    const r = await run(["tag", "--model", chainOnly, "--data", data, "--decoder", "two-slave"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      "this general CRF's training chose the chain alone on its held-out cut (50.00 F1",
    );
  });

  it("with consistency weights > 0 (an undertrained chain), the DD decoders iterate", async () => {
    // Two L-BFGS iterations leave the chain wrong where agreement helps; --folds 1 scores the
    // training groups with the full CRF and keeps the perceptron's weights (no held-out cut).
    const weighted = join(dir, "weighted.model");
    const trained = await run([
      "train",
      "--model",
      "general",
      "--groups",
      "tweets",
      "--data",
      data,
      "--preset",
      "ner-words",
      "--max-iterations",
      "2",
      "--folds",
      "1",
      "--epochs",
      "2",
      "--train-decoder",
      "naive-dd",
      "--out",
      weighted,
    ]);
    expect(trained.code, trained.stderr).toBe(0);
    const general = generalCrfOf(await loadModel(weighted));
    expect(Math.max(...general!.consistency.weights)).toBeGreaterThan(0);
    const expected = (await tokens()).map((s) => s.length);
    for (const decoder of ["two-slave", "naive-dd"]) {
      const r = await run(["tag", "--model", weighted, "--data", data, "--decoder", decoder]);
      expect(r.code, r.stderr).toBe(0);
      expect(lastColumn(r.stdout).map((s) => s.length)).toEqual(expected);
      const iterations = /([\d.]+) mean iterations/.exec(r.stderr);
      expect(Number(iterations?.[1])).toBeGreaterThan(1);
    }
  }, 20_000);

  it("defaults to two-slave; constraints and slaves are a usage error", async () => {
    const r = await run(["tag", "--model", model, "--data", data]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("decoder two-slave");
    expect(lastColumn(r.stdout).length).toBe(40);
    const constraints = await run([
      "tag",
      "--model",
      model,
      "--data",
      data,
      "--constraints",
      "c.json",
    ]);
    expect(constraints.code).toBe(2);
    expect(constraints.stderr).toContain("is a general CRF");
    const slave = await run(["tag", "--model", model, "--data", data, "--slave", "x"]);
    expect(slave.code).toBe(2);
    const softDD = await run(["tag", "--model", model, "--data", data, "--decoder", "soft-dd"]);
    expect(softDD.code).toBe(2);
    expect(softDD.stderr).toContain("decoder soft-dd does not decode a general CRF");
  });

  it("a linear-chain model with --decoder two-slave or naive-dd: exit 2, a general model is needed", async () => {
    const chain = join(dir, "chain.model");
    const trained = await run([
      "train",
      "--data",
      data,
      "--preset",
      "ner-words",
      "--max-iterations",
      "5",
      "--out",
      chain,
    ]);
    expect(trained.code, trained.stderr).toBe(0);
    for (const decoder of ["two-slave", "naive-dd"]) {
      const r = await run(["tag", "--model", chain, "--data", data, "--decoder", decoder]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(
        `decoder ${decoder} decodes a general CRF's higher-order patterns: it needs a general model (lagrange train --model general`,
      );
    }
  });
});
