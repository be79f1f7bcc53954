import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  evaluateSegments,
  formatInlineTags,
  generateCitations,
  type Sentence,
} from "@lagrange/datasets";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "./testing/run-cli.js";

/*
 * Every format `lagrange tag` reads goes through tag, then eval on what tag wrote: eval scores the
 * right columns (a count made here from the files says so), and tag's report shows the same
 * figure.
 */

let dir: string;
const at = (name: string) => join(dir, name);

/** word, UPOS, XPOS; PROPN runs are PER chunks. */
const WORDS: readonly (readonly [string, string, string])[] = [
  ["the", "DET", "DT"],
  ["a", "DET", "DT"],
  ["cat", "NOUN", "NN"],
  ["dog", "NOUN", "NN"],
  ["cats", "NOUN", "NNS"],
  ["runs", "VERB", "VBZ"],
  ["ran", "VERB", "VBD"],
  ["sees", "VERB", "VBZ"],
  ["big", "ADJ", "JJ"],
  ["red", "ADJ", "JJ"],
  ["quickly", "ADV", "RB"],
  ["and", "CCONJ", "CC"],
  ["John", "PROPN", "NNP"],
  ["Mary", "PROPN", "NNP"],
  ["Smith", "PROPN", "NNP"],
];

interface Word {
  readonly form: string;
  readonly upos: string;
  readonly xpos: string;
  readonly ner: string;
}

/** Seeded sentences; one gold tag in eight is noise, so that no model scores 100%. */
function sentences(count: number, seed: number): Word[][] {
  let state = seed;
  const next = (n: number) => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return Math.floor((state / 2147483648) * n);
  };
  const out: Word[][] = [];
  for (let s = 0; s < count; s++) {
    const length = 3 + next(8);
    const words: Word[] = [];
    for (let i = 0; i < length; i++) {
      const [form, upos, xpos] = WORDS[next(WORDS.length)]!;
      const noisy = next(8) === 0;
      const previous = words[i - 1];
      const ner =
        upos !== "PROPN"
          ? "O"
          : previous !== undefined && previous.upos === "PROPN"
            ? "I-PER"
            : "B-PER";
      words.push({
        form,
        upos: noisy ? "X" : upos,
        xpos: noisy ? "FW" : xpos,
        ner: noisy && ner === "O" ? "B-ORG" : ner,
      });
    }
    words.push({ form: ".", upos: "PUNCT", xpos: ".", ner: "O" });
    out.push(words);
  }
  return out;
}

const conllu = (data: Word[][]) =>
  data
    .map(
      (words, s) =>
        `# sent_id = s${s + 1}\n${words
          .map((w, i) =>
            [
              i + 1,
              w.form,
              w.form.toLowerCase(),
              w.upos,
              w.xpos,
              "_",
              i === 0 ? 0 : 1,
              i === 0 ? "root" : "dep",
              "_",
              "_",
            ].join("\t"),
          )
          .join("\n")}\n\n`,
    )
    .join("");

const conll = (data: Word[][], column: (w: Word) => string) =>
  data.map((words) => `${words.map((w) => `${w.form}\t${column(w)}`).join("\n")}\n\n`).join("");

const asSentence = (words: Word[]): Sentence => {
  const tokens = words.map((w) => w.form);
  const labels = words.map((w) => w.ner);
  return { tokens, labels, columns: [tokens, labels] };
};

/** Sentences of `lagrange tag`'s output, each token's fields. */
function rows(text: string): string[][][] {
  return text
    .split(/\n\n+/)
    .filter((block) => block.trim() !== "")
    .map((block) => block.split("\n").map((line) => line.split(" ")));
}

/** Fraction of tokens whose field `gold` (from the end when negative) equals the last field. */
function accuracyOf(text: string, gold: number): number {
  let tokens = 0;
  let correct = 0;
  for (const sentence of rows(text)) {
    for (const fields of sentence) {
      tokens++;
      if (fields.at(gold) === fields.at(-1)) correct++;
    }
  }
  return correct / tokens;
}

/** IOB2 chunks (as conlleval reads a valid IOB2 sequence): type, start, end. */
function chunks(labels: readonly string[]): Set<string> {
  const found = new Set<string>();
  let start = -1;
  let type = "";
  const close = (end: number) => {
    if (start >= 0) found.add(`${type}:${start}:${end}`);
    start = -1;
  };
  labels.forEach((label, i) => {
    const [prefix, name = ""] = label.split(/-(.*)/s) as [string, string?];
    if (prefix === "B" || (prefix === "I" && (start < 0 || name !== type))) {
      close(i);
      start = i;
      type = name;
    } else if (prefix !== "I") close(i);
  });
  close(labels.length);
  return found;
}

/** Chunk F1 (percent) of `lagrange tag`'s output: gold second-to-last, prediction last. */
function chunkF1Of(text: string): number {
  let gold = 0;
  let found = 0;
  let correct = 0;
  for (const sentence of rows(text)) {
    const g = chunks(sentence.map((f) => f.at(-2)!));
    const p = chunks(sentence.map((f) => f.at(-1)!));
    gold += g.size;
    found += p.size;
    for (const c of p) if (g.has(c)) correct++;
  }
  const precision = correct / found;
  const recall = correct / gold;
  return (200 * precision * recall) / (precision + recall);
}

const percent = (x: number) => (100 * x).toFixed(2);

async function tag(model: string, data: string, out: string, ...extra: string[]) {
  const r = await run(["tag", "--model", model, "--data", data, "--out", out, ...extra]);
  expect(r.code, r.stderr).toBe(0);
  return { report: r.stderr, text: await readFile(out, "utf8") };
}

async function evaluate(...args: string[]) {
  const r = await run(["eval", ...args]);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
}

async function train(data: string, preset: string, out: string, ...extra: string[]) {
  const r = await run([
    "train",
    ...["--data", data, "--preset", preset, "--max-iterations", "6", "--out", out, ...extra],
  ]);
  expect(r.code, r.stderr).toBe(0);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "lagrange-eval-roundtrip-"));
  const trainData = sentences(120, 1);
  const devData = sentences(40, 2);
  await writeFile(at("train.conllu"), conllu(trainData));
  await writeFile(at("dev.conllu"), conllu(devData));
  await writeFile(
    at("train-xpos.conll"),
    conll(trainData, (w) => w.xpos),
  );
  await writeFile(
    at("train-ner.conll"),
    conll(trainData, (w) => w.ner),
  );
  await writeFile(
    at("dev-ner.conll"),
    conll(devData, (w) => w.ner),
  );
  await writeFile(at("train.inline"), formatInlineTags(trainData.map(asSentence)));
  await writeFile(at("dev.inline"), formatInlineTags(devData.map(asSentence)));
  const docs = (n: number, seed: number) =>
    `${generateCitations(n, { seed })
      .map((c) => c.inline)
      .join("\n")}\n`;
  await writeFile(at("train.docs"), docs(60, 7));
  await writeFile(at("dev.docs"), docs(15, 8));
}, 30_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("lagrange eval scores what lagrange tag writes", () => {
  it("CoNLL-U, a UPOS tagger: gold UPOS (not MISC), and tag reports the same accuracy", async () => {
    await train(at("train.conllu"), "pos", at("upos.model"));
    const { report, text } = await tag(at("upos.model"), at("dev.conllu"), at("upos.out"));
    // ID FORM LEMMA UPOS XPOS FEATS HEAD DEPREL DEPS MISC, then the prediction.
    const expected = percent(accuracyOf(text, 3));
    expect(Number(expected)).toBeGreaterThan(50);
    expect(Number(expected)).toBeLessThan(100);
    const line = new RegExp(`UPOS token accuracy ${expected}% \\(\\d+/\\d+ tokens\\)`);
    expect(report).toMatch(line);
    const scored = await evaluate(at("upos.out"));
    expect(scored).toMatch(line);
    expect(scored).toContain("gold UPOS = field 4");
    expect(await evaluate("--column", "upos", at("upos.out"))).toMatch(line);
    const json = JSON.parse(await evaluate("--json", at("upos.out")));
    expect(json).toMatchObject({ kind: "accuracy", column: "UPOS", accuracy: Number(expected) });
    // The other field on demand: the UPOS tagger scores 0 against XPOS.
    expect(await evaluate("--column", "xpos", at("upos.out"))).toMatch(
      /XPOS token accuracy 0\.00%/,
    );
  }, 60_000);

  it("CoNLL-U, an L2S tagger: the same accuracy in tag's report and eval", async () => {
    const model = at("upos.l2s");
    const trained = await run([
      "train",
      ...["--learner", "l2s", "--task", "pos", "--data", at("train.conllu"), "--passes", "2"],
      ...["--out", model],
    ]);
    expect(trained.code, trained.stderr).toBe(0);
    const { report, text } = await tag(model, at("dev.conllu"), at("l2s.out"));
    const line = new RegExp(`UPOS token accuracy ${percent(accuracyOf(text, 3))}% \\(`);
    expect(report).toMatch(line);
    expect(await evaluate(at("l2s.out"))).toMatch(line);
  }, 60_000);

  it("CoNLL-U, an XPOS tagger: gold XPOS, read off the tags it wrote", async () => {
    await train(at("train-xpos.conll"), "pos", at("xpos.model"));
    const { report, text } = await tag(at("xpos.model"), at("dev.conllu"), at("xpos.out"));
    const expected = percent(accuracyOf(text, 4));
    expect(Number(expected)).toBeGreaterThan(50);
    const line = new RegExp(`XPOS token accuracy ${expected}% \\(\\d+/\\d+ tokens\\)`);
    expect(report).toMatch(line);
    expect(await evaluate(at("xpos.out"))).toMatch(line);
    expect(await evaluate("--column", "xpos", at("xpos.out"))).toMatch(line);
  }, 60_000);

  it("CoNLL columns (streamed): conlleval's chunk F1, and tag reports the same F1", async () => {
    await train(at("train-ner.conll"), "ner-words", at("ner.model"));
    const { report, text } = await tag(at("ner.model"), at("dev-ner.conll"), at("ner.out"));
    const expected = chunkF1Of(text).toFixed(2);
    expect(report).toContain(`chunk F1 ${expected} (IOB2, conlleval;`);
    const scored = await evaluate(at("ner.out"));
    expect(scored).toMatch(new RegExp(`FB1: +${expected}\\n`));
    // On two threads, the same figure.
    const threaded = await tag(
      at("ner.model"),
      at("dev-ner.conll"),
      at("ner2.out"),
      "--threads",
      "2",
    );
    expect(threaded.text).toBe(text);
    expect(threaded.report).toContain(`chunk F1 ${expected} (IOB2, conlleval;`);
  }, 60_000);

  it("CoNLL columns, a general CRF: the same chunk F1 in tag's report and eval", async () => {
    const model = at("general.model");
    const trained = await run([
      "train",
      ...["--model", "general", "--groups", "tweets", "--data", at("train-ner.conll")],
      ...["--preset", "ner-words", "--max-iterations", "5", "--folds", "2", "--epochs", "1"],
      ...["--out", model],
    ]);
    expect(trained.code, trained.stderr).toBe(0);
    const { report, text } = await tag(model, at("dev-ner.conll"), at("general.out"));
    const expected = chunkF1Of(text).toFixed(2);
    expect(report).toContain(`chunk F1 ${expected} (IOB2, conlleval;`);
    expect(await evaluate(at("general.out"))).toMatch(new RegExp(`FB1: +${expected}\\n`));
  }, 60_000);

  it("inline tags: chunk F1 of the token, gold, prediction columns tag writes", async () => {
    await train(at("train.inline"), "ner-words", at("inline.model"), "--format", "inline");
    const { report, text } = await tag(
      at("inline.model"),
      at("dev.inline"),
      at("inline.out"),
      "--format",
      "inline",
    );
    expect(rows(text)[0]![0]).toHaveLength(3);
    const expected = chunkF1Of(text).toFixed(2);
    expect(report).toContain(`chunk F1 ${expected} (IOB2, conlleval;`);
    expect(await evaluate(at("inline.out"))).toMatch(new RegExp(`FB1: +${expected}\\n`));
  }, 60_000);

  it("UMass citations: field F1 at every level, the same in tag's report and eval", async () => {
    await train(at("train.docs"), "citation", at("cite.model"));
    const { report, text } = await tag(at("cite.model"), at("dev.docs"), at("cite.out"));
    const sentencesOf = rows(text);
    expect(sentencesOf[0]![0]).toHaveLength(3);
    // Token accuracy counted here; F1 from the files' columns.
    const accuracy = percent(accuracyOf(text, -2));
    const f1 = percent(
      evaluateSegments(
        sentencesOf.map((s) => s.map((f) => f.at(-2)!)),
        sentencesOf.map((s) => s.map((f) => f.at(-1)!)),
      ).f1,
    );
    expect(report).toContain(`chunk F1 ${f1} (hierarchical-BIO, segments at every level;`);
    expect(report).toContain(`token accuracy ${accuracy}%)`);
    const scored = await evaluate(at("cite.out"));
    expect(scored).toContain(`F1: ${f1}; token accuracy: ${accuracy}%`);
    const threaded = await tag(at("cite.model"), at("dev.docs"), at("cite2.out"), "--threads", "2");
    expect(threaded.text).toBe(text);
    expect(threaded.report).toContain(`chunk F1 ${f1} (hierarchical-BIO, segments at every level;`);
  }, 60_000);

  it("BIOES chunks are read by their scheme (conlleval takes S- S- for one chunk)", async () => {
    await writeFile(at("bioes.txt"), "Ann S-PER B-PER\nBob S-PER E-PER\nsaw O O\n\n");
    const scored = await evaluate(at("bioes.txt"));
    expect(scored).toMatch(/^processed 3 tokens with 2 phrases; found: 1 phrases; correct: 0\.\n/);
    expect(scored).toMatch(/FB1: +0\.00\n/);
    // --column reads tag's output of CoNLL-U only: anything else is bad input, named.
    const wrong = await run(["eval", "--column", "upos", at("bioes.txt")]);
    expect(wrong.code).toBe(3);
    expect(wrong.stderr).toContain('bioes.txt:1: found 3 fields starting with "Ann"');
  });
});
