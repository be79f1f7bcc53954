/**
 * `lagrange train --learner l2s --task pos|ner|parser`, `lagrange tag` and `lagrange parse` with
 * such models, and `lagrange eval --deps`, on small generated data (a toy grammar's CoNLL-U trees
 * and a two-column NER file).
 */
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isAbortError, seededRandom } from "@lagrange/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { trainL2sCommand } from "./commands/train-l2s.js";
import { lastColumn, run } from "./testing/run-cli.js";

const DET = ["the", "a", "this", "every"];
const ADJ = ["big", "red", "old", "small"];
const NOUN = ["dog", "cat", "man", "house", "ball", "idea", "tree"];
const VERB = ["sees", "likes", "eats", "wants", "finds"];

/**
 * A toy grammar's sentence as CoNLL-U: DET (ADJ) NOUN VERB DET (ADJ) NOUN PUNCT, with its tree
 * (det, amod, nsubj, root, obj, punct); every third sentence has a multiword-token line, to check
 * that lines other than words are kept and counted.
 */
function treebank(count: number, seed: number, first = 0): string {
  const random = seededRandom(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const phrase = (): [string, string][] => [
    ["DET", pick(DET)],
    ...(random() < 0.5 ? [["ADJ", pick(ADJ)] as [string, string]] : []),
    ["NOUN", pick(NOUN)],
  ];
  return Array.from({ length: count }, (_, k) => {
    const subject = phrase();
    const object = phrase();
    const words = [...subject, ["VERB", pick(VERB)] as [string, string], ...object];
    words.push(["PUNCT", "."]);
    const verb = subject.length + 1;
    const n = words.length;
    const rows = words.map(([pos, form], i) => {
      const id = i + 1;
      const head = id === verb ? 0 : id === n ? verb : id < verb ? subject.length : n - 1;
      const relation =
        id === verb
          ? "root"
          : id === n
            ? "punct"
            : pos === "DET"
              ? "det"
              : pos === "ADJ"
                ? "amod"
                : id < verb
                  ? "nsubj"
                  : "obj";
      const nounHead = pos === "NOUN" ? verb : head;
      return `${id}\t${form}\t${form}\t${pos}\t_\t_\t${nounHead}\t${relation}\t_\t_`;
    });
    const text = words.map(([, form]) => form).join(" ");
    const mwt = k % 3 === 0 ? [`1-2\t${words[0]![1]}${words[1]![1]}\t_\t_\t_\t_\t_\t_\t_\t_`] : [];
    return `# sent_id = s${first + k}\n# text = ${text}\n${[...mwt, ...rows].join("\n")}\n\n`;
  }).join("");
}

const PEOPLE = [["Anna", "Berg"], ["Tom"], ["Maria", "Lopez"], ["Ken", "Ito"], ["Lea"]];
const PLACES = [["Oslo"], ["New", "York"], ["Lima"], ["Cairo"], ["San", "Jose"]];
const WORDS = ["today", "went", "to", "the", "big", "city", "and", "saw", "a", "friend", "there"];

/** Seeded NER sentences as two CoNLL columns (word, IOB2 label), PER and LOC. */
function nerText(count: number, seed: number): string {
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
    return `${rows.map(([w, t]) => `${w}\t${t}`).join("\n")}\n`;
  }).join("\n");
}

/** The word lines of a CoNLL-U text, split into fields (comments and multiword tokens left out). */
function wordRows(text: string): string[][] {
  return text
    .split("\n")
    .filter((line) => /^\d+\t/.test(line))
    .map((line) => line.split("\t"));
}

const STACK_TRACE = /^\s+at .+:\d+:\d+\)?$|node:internal/m;
/** Small tables and few passes keep the tests fast (and the model files small). */
const FAST = ["--bits", "16"];

let dir: string;
let train: string;
let dev: string;
let nerTrain: string;
let nerDev: string;
let posModel: string;
let parserModel: string;
const at = (name: string) => join(dir, name);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "lagrange-l2s-"));
  train = at("train.conllu");
  dev = at("dev.conllu");
  nerTrain = at("ner-train.conll");
  nerDev = at("ner-dev.conll");
  posModel = at("pos.l2s");
  parserModel = at("parser.l2s");
  await writeFile(train, treebank(80, 1));
  await writeFile(dev, treebank(30, 2, 1000));
  await writeFile(nerTrain, nerText(60, 11));
  await writeFile(nerDev, nerText(20, 12));
  const pos = await run([
    "train",
    ...["--learner", "l2s", "--task", "pos", "--data", train, "--dev", dev],
    ...["--passes", "2", ...FAST, "--out", posModel],
  ]);
  expect(pos.code, pos.stderr).toBe(0);
  const parser = await run([
    "train",
    ...["--learner", "l2s", "--task", "parser", "--data", train, "--dev", dev],
    ...["--passes", "3", ...FAST, "--out", parserModel],
  ]);
  expect(parser.code, parser.stderr).toBe(0);
}, 60_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Token accuracy of predicted labels against gold ones. */
function accuracy(gold: readonly string[][], predicted: readonly string[][]): number {
  expect(predicted.map((s) => s.length)).toEqual(gold.map((s) => s.length));
  let right = 0;
  let total = 0;
  gold.forEach((labels, s) => {
    labels.forEach((label, t) => {
      total++;
      if (label === predicted[s]![t]) right++;
    });
  });
  return right / total;
}

/** The UPOS of each sentence of a CoNLL-U text. */
function uposOf(text: string): string[][] {
  return text
    .split("\n\n")
    .filter((block) => block.trim() !== "")
    .map((block) => wordRows(block).map((fields) => fields[3]!));
}

describe("lagrange train --learner l2s --task pos, and tag with it", () => {
  it("trains on CoNLL-U UPOS, reports dev accuracy, and tags with greedy and viterbi", async () => {
    const again = await run([
      "train",
      ...["--learner", "l2s", "--task", "pos", "--data", train, "--dev", dev],
      ...["--passes", "2", ...FAST, "--seed", "7", "--out", at("pos-again.l2s")],
    ]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain("training an L2S tagger (--task pos) on 80 sequences");
    expect(again.stderr).toContain("preset pos, scheme none");
    expect(again.stdout).toMatch(
      /^trained an L2S tagger: 5 labels, 2 passes \(160 examples seen\), .*; dev \(.*dev\.conllu, greedy\): acc [\d.]+%; wrote .*pos-again\.l2s\n$/,
    );
    const gold = uposOf(await readFile(dev, "utf8"));
    for (const decoder of ["greedy", "viterbi"]) {
      const tagged = await run(["tag", "--model", posModel, "--data", dev, "--decoder", decoder]);
      expect(tagged.code, tagged.stderr).toBe(0);
      expect(tagged.stderr).toMatch(
        new RegExp(
          `tagged 30 sequences, \\d+ tokens .*L2S tagger \\(5 labels, preset pos, scheme none\\), decoder ${decoder}`,
        ),
      );
      // The CRF path's output: the input's columns, the predicted label last.
      expect(accuracy(gold, lastColumn(tagged.stdout))).toBeGreaterThan(0.95);
    }
    const info = await run(["info", posModel]);
    expect(info.code).toBe(0);
    expect(info.stdout).toMatch(/task {8}sequence-labelling/);
  });

  it("an L2S tagger takes the decoders of its scores alone; others are a usage error", async () => {
    const softDd = await run(["tag", "--model", posModel, "--data", dev, "--decoder", "soft-dd"]);
    expect(softDd.code).toBe(2);
    expect(softDd.stderr).toMatch(/decoder soft-dd needs constraints.*choose .*viterbi.*greedy/);
    const constraints = await run([
      "tag",
      ...["--model", posModel, "--data", dev, "--constraints", dev],
    ]);
    expect(constraints.code).toBe(2);
    expect(constraints.stderr).toContain("--constraints: ");
    expect(constraints.stderr).toContain("is an L2S tagger");
  });
});

describe("lagrange train --learner l2s --task ner", () => {
  it("trains under the data's scheme with the bridge, scores dev F1, and tags valid IOB2", async () => {
    const model = at("ner.l2s");
    const r = await run([
      "train",
      ...["--learner", "l2s", "--task", "ner", "--data", nerTrain, "--dev", nerDev],
      ...["--passes", "3", ...FAST, "--out", model],
    ]);
    expect(r.code, r.stderr).toBe(0);
    // Two columns: the words-only NER preset, said so.
    expect(r.stderr).toContain("preset ner-words:");
    expect(r.stderr).toContain("scheme IOB2 (from the data), constraint bridge on");
    expect(r.stdout).toMatch(/dev \(.*ner-dev\.conll, greedy\): acc [\d.]+%, F1 [\d.]+; wrote/);
    const f1 = Number(/F1 ([\d.]+)/.exec(r.stdout)![1]);
    expect(f1).toBeGreaterThan(80);
    const out = at("ner-out.txt");
    const tagged = await run(["tag", "--model", model, "--data", nerDev, "--out", out]);
    expect(tagged.code, tagged.stderr).toBe(0);
    // The report scores the tagging against the gold column, as eval below does.
    expect(tagged.stderr).toMatch(
      /scheme IOB2, bridge on\), decoder greedy; chunk F1 [\d.]+ \(IOB2, conlleval; .*\); wrote/,
    );
    const labels = lastColumn(await readFile(out, "utf8"));
    for (const sentence of labels) {
      sentence.forEach((label, t) => {
        if (label.startsWith("I-"))
          expect([`B-${label.slice(2)}`, label]).toContain(sentence[t - 1]);
      });
    }
    // conlleval reads the output as the CRF path's: gold second-to-last, prediction last.
    const evaluated = await run(["eval", out]);
    expect(evaluated.code).toBe(0);
    expect(evaluated.stdout).toMatch(/FB1: +[\d.]+/);
    const reported = /chunk F1 ([\d.]+)/.exec(tagged.stderr)![1]!;
    expect(evaluated.stdout).toMatch(new RegExp(`FB1: +${reported}\\n`));
    // Unlabeled input (words alone) is tagged too.
    const words = at("words.conll");
    await writeFile(
      words,
      (await readFile(nerDev, "utf8"))
        .split("\n")
        .map((line) => line.split("\t")[0])
        .join("\n"),
    );
    const raw = await run(["tag", "--model", model, "--data", words]);
    expect(raw.code, raw.stderr).toBe(0);
    expect(raw.stderr).toContain("(unlabeled input: no gold column)");
  });

  it("--no-bridge trains a tagger free of the scheme; the model file records it", async () => {
    const model = at("ner-free.l2s");
    const r = await run([
      "train",
      ...["--learner", "l2s", "--task", "ner", "--data", nerTrain, "--no-bridge"],
      ...["--passes", "0.5", ...FAST, "--out", model],
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("constraint bridge off");
    expect(r.stderr).toContain("1 pass learning from 0.5 of the decisions");
    const info = await run(["info", model, "--json"]);
    expect(JSON.parse(info.stdout).settings.bridge).toBe(false);
    const tagged = await run(["tag", "--model", model, "--data", nerDev]);
    expect(tagged.code, tagged.stderr).toBe(0);
    expect(tagged.stderr).toContain("bridge off");
  });
});

describe("lagrange train --learner l2s --task parser, lagrange parse, eval --deps", () => {
  it("parses CoNLL-U: HEAD and DEPREL predicted, everything else kept; scored by eval --deps", async () => {
    const out = at("parsed.conllu");
    const parsed = await run(["parse", "--model", parserModel, dev, "-o", out]);
    expect(parsed.code, parsed.stderr).toBe(0);
    expect(parsed.stderr).toMatch(
      /^parsed 30 sentences, \d+ words in [\d.]+ s \(\d+ sentences\/s, \d+ words\/s\); wrote .*parsed\.conllu\n$/,
    );
    const input = await readFile(dev, "utf8");
    const output = await readFile(out, "utf8");
    // Comments and multiword-token lines as they were; word lines but HEAD and DEPREL unchanged.
    const others = (text: string) =>
      text
        .split("\n")
        .map((line) => (/^\d+\t/.test(line) ? line.split("\t").toSpliced(6, 2).join("\t") : line));
    expect(others(output)).toEqual(others(input));
    const scored = await run(["eval", "--deps", dev, out]);
    expect(scored.code, scored.stderr).toBe(0);
    const row = (name: string) =>
      new RegExp(`^${name} +(\\d+) +([\\d.]+) +([\\d.]+) +([\\d.]+)`, "m").exec(scored.stdout);
    const included = row("included");
    const excluded = row("excluded");
    expect(included, scored.stdout).not.toBeNull();
    expect(Number(included![2])).toBeGreaterThan(90); // UAS
    expect(Number(included![3])).toBeGreaterThan(85); // LAS
    // 30 sentences, each with one final PUNCT word.
    expect(Number(included![1]) - Number(excluded![1])).toBe(30);
    expect(scored.stdout).toContain("(30 punctuation words left out: gold UPOS PUNCT)");
  });

  it("the training summary gives dev UAS and LAS, with and without punctuation", async () => {
    const r = await run([
      "train",
      ...["--learner", "l2s", "--task", "parser", "--data", train, "--dev", dev],
      ...["--passes", "2", ...FAST, "--out", at("p2.l2s")],
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      `training an L2S arc-hybrid parser on 80 sentences (${train}), dynamic oracle, labelled`,
    );
    // --bits alone keeps the parser's default base learner, the averaged perceptron.
    expect(r.stderr).toContain("base learner perceptron, roll-in learned, roll-out none, 2 passes");
    const info = await run(["info", at("p2.l2s"), "--json"]);
    expect(JSON.parse(info.stdout).settings.learner).toBe("perceptron");
    expect(r.stdout).toMatch(
      /^trained an L2S parser: 6 relations, 2 passes \(160 examples seen\), .*; dev \(.*, 30 sentences\): UAS [\d.]+ LAS [\d.]+ with punctuation, UAS [\d.]+ LAS [\d.]+ without; wrote /,
    );
  });

  it("--tagger replaces UPOS by an L2S or a CRF tagger's predictions before parsing", async () => {
    const blind = at("blind.conllu");
    // The input's UPOS blanked: only the tagger can supply the tags the parser reads.
    await writeFile(
      blind,
      (await readFile(dev, "utf8"))
        .split("\n")
        .map((line) =>
          /^\d+\t/.test(line) ? line.split("\t").toSpliced(3, 1, "_").join("\t") : line,
        )
        .join("\n"),
    );
    const noTags = await run(["parse", "--model", parserModel, "--data", blind]);
    expect(noTags.code).toBe(0);
    expect(noTags.stderr).toMatch(/has no UPOS tags .*give --tagger/);
    const crfModel = at("pos.crf");
    const crf = await run([
      "train",
      ...["--data", train, "--preset", "pos", "--max-iterations", "30", "--out", crfModel],
    ]);
    expect(crf.code, crf.stderr).toBe(0);
    const gold = uposOf(await readFile(dev, "utf8"));
    // greedy decodes a CRF's chain scores too (it takes constraints, and needs none).
    const greedy = await run(["tag", "--model", crfModel, "--data", dev, "--decoder", "greedy"]);
    expect(greedy.code, greedy.stderr).toBe(0);
    expect(accuracy(gold, lastColumn(greedy.stdout))).toBeGreaterThan(0.9);
    for (const [tagger, kind] of [
      [posModel, "L2S"],
      [crfModel, "CRF"],
    ] as const) {
      const out = at(`tagged-${kind}.conllu`);
      const r = await run(["parse", "--model", parserModel, blind, "--tagger", tagger, "-o", out]);
      expect(r.code, `${kind}: ${r.stderr}`).toBe(0);
      expect(r.stderr).toContain(`UPOS predicted by the ${kind} tagger ${tagger}`);
      const text = await readFile(out, "utf8");
      expect(accuracy(gold, uposOf(text)), kind).toBeGreaterThan(0.9);
      const scored = await run(["eval", "--deps", "--punctuation", "include", dev, out]);
      expect(scored.code, scored.stderr).toBe(0);
      expect(scored.stdout).not.toContain("excluded");
      const uas = Number(/^included +\d+ +([\d.]+)/m.exec(scored.stdout)![1]);
      expect(uas, kind).toBeGreaterThan(85);
    }
  });

  it("--base-learner csoaa takes --learning-rate; the perceptron has none (usage error)", async () => {
    const model = at("csoaa-parser.l2s");
    const csoaa = await run([
      "train",
      ...["--learner", "l2s", "--task", "parser", "--data", train, "--base-learner", "csoaa"],
      ...["--learning-rate", "0.3", ...FAST, "--out", model],
    ]);
    expect(csoaa.code, csoaa.stderr).toBe(0);
    expect(csoaa.stderr).toContain("base learner csoaa");
    expect(JSON.parse((await run(["info", model, "--json"])).stdout).settings.learner).toBe(
      "csoaa",
    );
    const perceptron = await run([
      "train",
      ...["--learner", "l2s", "--task", "parser", "--data", train, "--learning-rate", "0.3"],
      ...["--out", at("never.l2s")],
    ]);
    expect(perceptron.code).toBe(2);
    expect(perceptron.stderr).toContain(
      "--learning-rate with the perceptron base learner (--task parser's default)",
    );
    expect(existsSync(at("never.l2s"))).toBe(false);
  });

  it("--unlabelled --oracle static: heads only, DEPREL _", async () => {
    const model = at("unlabelled.l2s");
    const r = await run([
      "train",
      ...["--learner", "l2s", "--task", "parser", "--data", train, "--unlabelled"],
      ...["--oracle", "static", "--passes", "2", ...FAST, "--out", model],
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("static oracle, unlabelled (heads only)");
    expect(r.stderr).toContain("roll-in reference, roll-out none");
    const parsed = await run(["parse", "--model", model, dev]);
    expect(parsed.code, parsed.stderr).toBe(0);
    const rows = wordRows(parsed.stdout);
    expect(rows.every((fields) => fields[7] === "_")).toBe(true);
    expect(rows.every((fields) => /^\d+$/.test(fields[6]!))).toBe(true);
  });
});

describe("lagrange eval --deps", () => {
  // Hand-scored: 7 words, 2 of them punctuation (gold UPOS PUNCT).
  //   sentence 1: The(2 det ✓) cat(3, nsubj → obj: head ✓ relation ✗) sat(0 root ✓) .(3 → 2, punct ✓)
  //   sentence 2: Dogs(2 nsubj → 0 root ✗ ✗) bark(0 root ✓) !(2 punct ✓)
  // with punctuation:    heads 5/7 = 71.43, labelled 4/7 = 57.14, relations 5/7 = 71.43
  // without punctuation: heads 4/5 = 80.00, labelled 3/5 = 60.00, relations 3/5 = 60.00;
  //   sentence 1 has every head right (1 of 2 sentences complete), none every head and relation
  const gold = [
    "# sent_id = a",
    "1\tThe\tthe\tDET\t_\t_\t2\tdet\t_\t_",
    "2\tcat\tcat\tNOUN\t_\t_\t3\tnsubj\t_\t_",
    "3\tsat\tsit\tVERB\t_\t_\t0\troot\t_\t_",
    "4\t.\t.\tPUNCT\t_\t_\t3\tpunct\t_\t_",
    "",
    "# sent_id = b",
    "1\tDogs\tdog\tNOUN\t_\t_\t2\tnsubj\t_\t_",
    "2\tbark\tbark\tVERB\t_\t_\t0\troot\t_\t_",
    "3\t!\t!\tPUNCT\t_\t_\t2\tpunct\t_\t_",
    "",
  ].join("\n");
  const predicted = gold
    .replace("3\tnsubj", "3\tobj")
    .replace("4\t.\t.\tPUNCT\t_\t_\t3", "4\t.\t.\tPUNCT\t_\t_\t2")
    .replace("1\tDogs\tdog\tNOUN\t_\t_\t2\tnsubj", "1\tDogs\tdog\tNOUN\t_\t_\t0\troot");

  it("prints UAS, LAS and label accuracy with and without punctuation", async () => {
    const g = at("hand-gold.conllu");
    const p = at("hand-pred.conllu");
    await writeFile(g, gold);
    await writeFile(p, predicted);
    const r = await run(["eval", "--deps", g, p]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^2 sentences, 7 words; gold .*hand-gold\.conllu, predicted /);
    expect(r.stdout).toMatch(/^included +7 +71\.43 +57\.14 +71\.43$/m);
    expect(r.stdout).toMatch(
      /^excluded +5 +80\.00 +60\.00 +60\.00 +\(2 punctuation words left out: gold UPOS PUNCT\)$/m,
    );
    const json = await run(["eval", "--deps", "--json", "--punctuation", "exclude", g, p]);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({
      sentences: 2,
      exclude: {
        words: 5,
        excludedPunctuation: 2,
        uas: 80,
        las: 60,
        labelAccuracy: 60,
        completeUnlabelled: 50,
        completeLabelled: 0,
        correctHeads: 4,
        correctLabelled: 3,
      },
    });
  });

  it("a bad HEAD is bad input at its file:line; misaligned files and misuse are reported", async () => {
    const g = at("hand-gold.conllu");
    await writeFile(g, gold);
    const bad = at("bad-head.conllu");
    await writeFile(
      bad,
      predicted.replace("2\tbark\tbark\tVERB\t_\t_\t0", "2\tbark\tbark\tVERB\t_\t_\t7"),
    );
    const r = await run(["eval", "--deps", g, bad]);
    expect(r.code).toBe(3);
    expect(r.stderr).toBe(
      `lagrange: ${bad}:9:7: predicted HEAD "7": expected an integer 0…3 (a word of this sentence, or 0 for the root)\n`,
    );
    const short = at("short.conllu");
    await writeFile(short, predicted.split("\n").slice(0, 6).join("\n"));
    const misaligned = await run(["eval", "--deps", g, short]);
    expect(misaligned.code).toBe(3);
    expect(misaligned.stderr).toContain("2 gold, 1 predicted");
    const one = await run(["eval", "--deps", g]);
    expect(one.code).toBe(2);
    expect(one.stderr).toContain("--deps needs two files");
    const raw = await run(["eval", "--deps", "--raw", g, g]);
    expect(raw.code).toBe(2);
    const punctuation = await run(["eval", "--punctuation", "exclude", g]);
    expect(punctuation.code).toBe(2);
    expect(punctuation.stderr).toContain("--punctuation is an option of --deps");
  });
});

describe("usage errors and bad input", () => {
  it("--learner l2s needs --task; each learner refuses the other's options, naming them", async () => {
    const out = at("never.l2s");
    const noTask = await run(["train", "--learner", "l2s", "--data", train, "--out", out]);
    expect(noTask.code).toBe(2);
    expect(noTask.stderr).toContain("--learner l2s needs --task pos, ner, parser");
    const crfOption = await run([
      "train",
      ...["--learner", "l2s", "--task", "pos", "--data", train],
      ...["--algorithm", "ap", "--c2", "1", "--out", out],
    ]);
    expect(crfOption.code).toBe(2);
    expect(crfOption.stderr).toMatch(/^lagrange: --algorithm, --c2: options of the CRF learner/);
    const l2sOption = await run([
      "train",
      ...["--data", train, "--preset", "pos", "--passes", "2", "--out", out],
    ]);
    expect(l2sOption.code).toBe(2);
    expect(l2sOption.stderr).toMatch(/^lagrange: --passes: an option of --learner l2s/);
    const noPreset = await run(["train", "--data", train, "--out", out]);
    expect(noPreset.code).toBe(2);
    expect(noPreset.stderr).toContain("--preset or --template is required with the CRF learner");
    const parserOption = await run([
      "train",
      ...["--learner", "l2s", "--task", "ner", "--data", nerTrain, "--oracle", "static"],
      ...["--out", out],
    ]);
    expect(parserOption.code).toBe(2);
    expect(parserOption.stderr).toContain("--oracle: for --task parser only");
    const badPasses = await run([
      "train",
      ...["--learner", "l2s", "--task", "pos", "--data", train, "--passes", "1.5", "--out", out],
    ]);
    expect(badPasses.code).toBe(2);
    expect(existsSync(out)).toBe(false);
  });

  it("a parser model given to tag, or a tagger model to parse, says which command fits", async () => {
    const tag = await run(["tag", "--model", parserModel, "--data", dev]);
    expect(tag.code).toBe(2);
    expect(tag.stderr).toContain("is an L2S dependency parser model");
    expect(tag.stderr).toContain(`use lagrange parse --model ${parserModel}`);
    const parse = await run(["parse", "--model", posModel, dev]);
    expect(parse.code).toBe(2);
    expect(parse.stderr).toContain("is an L2S tagger model");
    expect(parse.stderr).toContain("not a parser");
    const noInput = await run(["parse", "--model", parserModel]);
    expect(noInput.code).toBe(2);
  });

  it("a bad CoNLL-U HEAD is bad input (exit 3) at its file:line, in training and parsing", async () => {
    const bad = at("bad.conllu");
    const lines = treebank(5, 3).split("\n");
    // The third word of the second sentence: its head is past the sentence's end.
    const second = lines.indexOf("# sent_id = s1");
    const target = lines.findIndex((line, k) => k > second && line.startsWith("3\t"));
    lines[target] = lines[target]!.split("\t").toSpliced(6, 1, "42").join("\t");
    await writeFile(bad, lines.join("\n"));
    const trained = await run([
      "train",
      ...["--learner", "l2s", "--task", "parser", "--data", bad, "--out", at("bad.l2s")],
    ]);
    expect(trained.code).toBe(3);
    expect(trained.stderr).toContain(
      `\nlagrange: ${bad}:${target + 1}:7: HEAD "42": expected an integer 0…`,
    );
    expect(trained.stderr).not.toMatch(STACK_TRACE);
    expect(existsSync(at("bad.l2s"))).toBe(false);
    const parsed = await run(["parse", "--model", parserModel, bad, "-o", at("bad-out.conllu")]);
    expect(parsed.code).toBe(3);
    expect(parsed.stderr).toContain(`${bad}:${target + 1}:7: HEAD "42"`);
    expect(existsSync(at("bad-out.conllu"))).toBe(false);
  });

  it("stopped training (Ctrl-C's abort) leaves no model file", async () => {
    const out = at("stopped.l2s");
    await expect(
      trainL2sCommand({ data: train, task: "parser", ...{ bits: 16 }, out }, AbortSignal.abort()),
    ).rejects.toSatisfy(isAbortError);
    expect(existsSync(out)).toBe(false);
  });

  it("--help lists parse, the L2S options and eval --deps", async () => {
    const help = await run(["--help"]);
    expect(help.stdout).toMatch(/^ {2}parse +Parse CoNLL-U/m);
    const train = await run(["train", "--help-all"]);
    for (const option of [
      "--learner <name>",
      "--task <task>",
      "--passes <n>",
      "--roll-in",
      "--roll-out",
      "--base-learner",
      "--bits",
      "--learning-rate",
      "--seed",
      "--no-bridge",
      "--oracle",
      "--unlabelled",
      "--tag-field",
    ]) {
      expect(train.stdout).toContain(option);
    }
    const parse = await run(["parse", "--help"]);
    expect(parse.stdout).toContain("--tagger <file>");
    const evaluate = await run(["eval", "--help-all"]);
    expect(evaluate.stdout).toMatch(/--deps[\s\S]*--punctuation <mode>/);
  });
});
