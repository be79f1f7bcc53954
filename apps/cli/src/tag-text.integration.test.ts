import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { seededRandom } from "@lagrange/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./probe/cli-process.js";
import { run } from "./testing/run-cli.js";

/*
 * `lagrange tag --text` and `--format text`: raw text in, entities with offsets out, from a small
 * NER model trained here on generated sentences (words alone, and words with POS and chunk).
 */

const NAMES: readonly [string[], string][] = [
  [["Alan", "Shearer"], "PER"],
  [["Newcastle"], "ORG"],
  [["Paris"], "LOC"],
  [["Bank", "of", "France"], "ORG"],
];
const FILLER = ["said", "the", "on", "won", "in", "match", "today", "and"];
const TEXT = "Alan Shearer said the match in Paris today.\n\nBank of France won,  Newcastle said.";

/** CoNLL sentences, IOB2; with `wide`, POS and chunk columns before the label. */
function conll(count: number, wide: boolean): string {
  const random = seededRandom(5);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const sentences: string[] = [];
  for (let k = 0; k < count; k++) {
    const rows: [string, string][] = [];
    for (let w = 0; w < 6; w++) {
      if (random() < 0.4) {
        const [tokens, type] = pick(NAMES);
        for (const [i, t] of tokens.entries()) rows.push([t, `${i === 0 ? "B" : "I"}-${type}`]);
      } else rows.push([pick(FILLER), "O"]);
    }
    rows.push([".", "O"]);
    sentences.push(
      rows
        .map(([w, l]) => (wide ? `${w}\t${/^[A-Z]/.test(w) ? "NNP" : "X"}\tO\t${l}` : `${w}\t${l}`))
        .join("\n"),
    );
  }
  return `${sentences.join("\n\n")}\n\n`;
}

let dir: string;
let words: string;
let wide: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "lagrange-tag-text-"));
  words = join(dir, "words.lgm");
  wide = join(dir, "wide.lgm");
  for (const [model, preset, isWide] of [
    [words, "ner-words", false],
    [wide, "ner", true],
  ] as const) {
    const data = join(dir, `${preset}.conll`);
    await writeFile(data, conll(80, isWide));
    const trained = await run([
      "train",
      "--data",
      data,
      "--preset",
      preset,
      "--max-iterations",
      "30",
      "--out",
      model,
    ]);
    expect(trained.code, trained.stderr).toBe(0);
  }
}, 60_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("lagrange tag on raw text", () => {
  it("--text: one entity a line, offsets into the text, the score's meaning said once", async () => {
    const r = await run(["tag", "--model", words, "--text", TEXT]);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines.map((l) => l.split("\t").slice(0, 3))).toEqual([
      ["0-12", "PER", "Alan Shearer"],
      ["31-36", "LOC", "Paris"],
      ["45-59", "ORG", "Bank of France"],
      ["66-75", "ORG", "Newcastle"],
    ]);
    for (const line of lines) {
      const [span, , text, score] = line.split("\t");
      const [start, end] = span!.split("-").map(Number);
      expect(TEXT.slice(start, end)).toBe(text);
      expect(Number(score)).toBeGreaterThan(0.5);
    }
    expect(r.stderr.match(/scores: /g)).toHaveLength(1);
    expect(r.stderr).toContain("scoreOf chain");
  });

  it("--format text from standard input: NDJSON entities and CoNLL tokens", async () => {
    const ndjson = await runCli(
      ["tag", "--model", words, "--format", "text", "--output-format", "ndjson"],
      { cwd: dir, stdin: TEXT },
    );
    expect(ndjson.code, ndjson.stderr).toBe(0);
    const entities = ndjson.stdout
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(entities).toHaveLength(4);
    for (const e of entities) {
      expect(Object.keys(e)).toEqual(["start", "end", "type", "text", "score", "scoreOf"]);
      expect(TEXT.slice(e.start as number, e.end as number)).toBe(e.text);
      expect(e.scoreOf).toBe("chain");
    }
    const file = join(dir, "text.txt");
    await writeFile(file, TEXT);
    const tokens = await run([
      "tag",
      "--model",
      words,
      "--format",
      "text",
      "--data",
      file,
      "--output-format",
      "conll",
    ]);
    expect(tokens.code, tokens.stderr).toBe(0);
    expect(tokens.stdout.split("\n\n")[1]).toBe(
      "Bank B-ORG\nof I-ORG\nFrance I-ORG\nwon O\n, O\nNewcastle B-ORG\nsaid O\n. O",
    );
    // A line a sentence: the headline's line ends its sentence only with --line-breaks sentence.
    const headline = "Alan Shearer in Paris\nBank of France won.";
    const sentencesOf = async (extra: readonly string[]) => {
      const r = await run(["tag", "--model", words, "--text", headline, ...extra]);
      expect(r.code, r.stderr).toBe(0);
      return r.stdout.trimEnd().split("\n\n").length;
    };
    expect(await sentencesOf(["--output-format", "conll"])).toBe(1);
    expect(await sentencesOf(["--output-format", "conll", "--line-breaks", "sentence"])).toBe(2);
  });

  it("a model that reads POS and chunk columns: exit 2, naming them", async () => {
    const r = await run(["tag", "--model", wide, "--text", TEXT]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      "reads the input columns word, pos, chunk; text gives the word alone, not pos, chunk",
    );
  });

  it("--words-only: a model of the word column of POS and chunk data tags text and that data", async () => {
    const data = join(dir, "ner.conll");
    const model = join(dir, "words-only.lgm");
    const trained = await run(
      ["train", "--data", data, "--preset", "ner", "--words-only"].concat([
        "--max-iterations",
        "30",
        "--out",
        model,
      ]),
    );
    expect(trained.code, trained.stderr).toBe(0);
    const info = await run(["info", model, "--json"]);
    expect(JSON.parse(info.stdout).settings.inputColumns).toBe(1);
    const r = await run(["tag", "--model", model, "--text", TEXT]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split("\n")[0]!.split("\t").slice(0, 3)).toEqual([
      "0-12",
      "PER",
      "Alan Shearer",
    ]);
    // CoNLL of the word and the gold: read as the model reads it, scored against the gold.
    const tagged = await run(["tag", "--model", model, "--data", join(dir, "ner-words.conll")]);
    expect(tagged.code, tagged.stderr).toBe(0);
    expect(tagged.stderr).toMatch(/chunk F1 \d/);
  });

  it("bad input and flags: clear errors, no stack trace", async () => {
    const bad = join(dir, "latin1.txt");
    await writeFile(bad, Buffer.from([0x41, 0x0a, 0x42, 0xe9, 0x20, 0x43]));
    const notUtf8 = await run(["tag", "--model", words, "--format", "text", "--data", bad]);
    expect(notUtf8.code).toBe(3);
    expect(notUtf8.stderr).toContain(`${bad}:2: not UTF-8 text`);
    const empty = join(dir, "empty.txt");
    await writeFile(empty, " \n\n");
    const none = await run(["tag", "--model", words, "--format", "text", "--data", empty]);
    expect(none.code).toBe(3);
    expect(none.stderr).toContain(`${empty}: empty: no text to tag`);
    const refused = await run(["tag", "--model", words, "--text", "Paris", "--nbest", "2"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("--nbest: for CoNLL and NDJSON input");
    const both = await run(["tag", "--model", words, "--text", "Paris", "--data", empty]);
    expect(both.code).toBe(2);
    const conllEntities = await run([
      "tag",
      "--model",
      words,
      "--data",
      join(dir, "ner-words.conll"),
      "--output-format",
      "entities",
    ]);
    expect(conllEntities.code).toBe(2);
    const lineBreaks = await run([
      "tag",
      "--model",
      words,
      "--data",
      join(dir, "ner-words.conll"),
      "--line-breaks",
      "sentence",
    ]);
    expect(lineBreaks.code).toBe(2);
    expect(lineBreaks.stderr).toContain("--line-breaks: for text input");
    for (const r of [notUtf8, none, refused, both, conllEntities, lineBreaks]) {
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  });
});
