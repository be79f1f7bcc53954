import { readFileSync } from "node:fs";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONLL2000_TRAIN, run, trainConll2000Chunker } from "./testing/run-cli.js";

/*
 * `lagrange tag --nbest k`, `lagrange eval --nbest k` and `lagrange tag --forced` on real
 * CoNLL-2000 sentences: a small chunker trained on 300 sentences of train tags the next 40.
 */

const available = CONLL2000_TRAIN !== undefined;
const why = available ? "" : " — skipped: no conll2000 in the dataset mirror";

let dir: string;
let model: string;
let data: string;

beforeAll(async () => {
  if (!available) return;
  ({ dir, model, data } = await trainConll2000Chunker({
    prefix: "lagrange-nbest-",
    trainSentences: 300,
    testSentences: 40,
    trainArgs: ["--max-iterations", "40"],
  }));
}, 120_000);

afterAll(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

/** Rows of fields per sentence. */
function rows(text: string): string[][][] {
  return text
    .split(/\n\s*\n/)
    .filter((block) => block.trim() !== "")
    .map((block) => block.split("\n").map((line) => line.trim().split(/\s+/)));
}

describe.skipIf(!available)(`tag --nbest and --forced${why}`, () => {
  it("CoNLL: the best labelling where plain tag writes it, then k−1 more columns", async () => {
    const plain = await run(["tag", "--model", model, "--data", data]);
    const nbest = await run(["tag", "--model", model, "--data", data, "--nbest", "4"]);
    expect(nbest.code, nbest.stderr).toBe(0);
    const a = rows(plain.stdout);
    const b = rows(nbest.stdout);
    expect(b).toHaveLength(a.length);
    for (const [s, sentence] of b.entries()) {
      for (const [t, fields] of sentence.entries()) {
        expect(fields).toHaveLength(a[s]![t]!.length + 3);
        expect(fields.slice(0, a[s]![t]!.length)).toEqual(a[s]![t]);
      }
    }
  });

  it("NDJSON: nbest entries best first, with scores, probabilities and certificates", async () => {
    const r = await run([
      "tag",
      "--model",
      model,
      "--data",
      data,
      "--nbest",
      "5",
      "--output-format",
      "ndjson",
    ]);
    expect(r.code, r.stderr).toBe(0);
    const records = r.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(records).toHaveLength(40);
    for (const record of records) {
      const list = record.nbest as { labels: string[]; score: number; probability: number }[];
      expect(list.length).toBeGreaterThan(0);
      expect(list[0]!.labels).toEqual(record.labels);
      let mass = 0;
      for (const [r, e] of list.entries()) {
        if (r > 0) expect(e.score).toBeLessThanOrEqual(list[r - 1]!.score);
        expect(e.probability).toBeGreaterThan(0);
        mass += e.probability;
      }
      expect(mass).toBeLessThanOrEqual(1 + 1e-6);
      expect(new Set(list.map((e) => e.labels.join(" "))).size).toBe(list.length);
    }
  });

  it("--marginals: --nbest 1 keeps plain tag's CoNLL column, NDJSON the streamed fields", async () => {
    const plain = await run(["tag", "--model", model, "--data", data, "--marginals"]);
    const one = await run(["tag", "--model", model, "--data", data, "--nbest", "1", "--marginals"]);
    expect(one.code, one.stderr).toBe(0);
    expect(rows(one.stdout)).toEqual(rows(plain.stdout));
    const ndjson = (extra: string[]) =>
      run([
        ...["tag", "--model", model, "--data", data, "--marginals", "--probability"],
        ...extra,
      ]).then((r) => {
        expect(r.code, r.stderr).toBe(0);
        return r.stdout
          .trim()
          .split("\n")
          .map((line) => JSON.parse(line) as Record<string, unknown>);
      });
    const streamed = await ndjson(["--output-format", "ndjson"]);
    const listed = await ndjson(["--output-format", "ndjson", "--nbest", "3"]);
    for (const [s, record] of listed.entries()) {
      const { nbest, nbestMethod, ...rest } = record;
      expect(nbestMethod).toBe("list-viterbi");
      expect(rest).toEqual(streamed[s]);
      expect((nbest as { probability: number }[])[0]!.probability).toBe(record.probability);
    }
  });

  it("eval --nbest: oracle F1 at k = 1 is tag's F1, and grows with k", async () => {
    const out = join(dir, "nbest.conll");
    const tagged = await run([
      "tag",
      "--model",
      model,
      "--data",
      data,
      "--nbest",
      "10",
      "--out",
      out,
    ]);
    expect(tagged.code, tagged.stderr).toBe(0);
    const plain = await run([
      "tag",
      "--model",
      model,
      "--data",
      data,
      "--out",
      join(dir, "1.conll"),
    ]);
    const f1 = Number(/chunk F1 ([\d.]+)/.exec(plain.stderr)?.[1]);
    const evaluated = await run(["eval", "--nbest", "10", "--json", out]);
    expect(evaluated.code, evaluated.stderr).toBe(0);
    const [one, five, ten] = JSON.parse(evaluated.stdout) as { k: number; f1: number }[];
    expect(one!.f1).toBeCloseTo(f1, 2);
    expect(five!.f1).toBeGreaterThanOrEqual(one!.f1);
    expect(ten!.f1).toBeGreaterThanOrEqual(five!.f1);
    expect(ten!.f1).toBeGreaterThan(one!.f1);
    // An option the oracle does not read is refused, not dropped.
    const refused = await run(["eval", "--nbest", "10", "--raw", out]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("--raw");
  });

  it("--forced: the last column's labels are kept, ? tokens decoded; an unknown label names its line", async () => {
    const plain = rows((await run(["tag", "--model", model, "--data", data])).stdout);
    // Fix every token predicted O at position 2 of a sentence to B-NP; leave the rest free.
    const lines: string[] = [];
    const fixedAt: [number, number][] = [];
    for (const [s, sentence] of rows(readFileSync(data, "utf8")).entries()) {
      for (const [t, fields] of sentence.entries()) {
        const fix = t === 2 && plain[s]![t]!.at(-1) === "O";
        if (fix) fixedAt.push([s, t]);
        lines.push(`${fields.join(" ")} ${fix ? "B-NP" : "?"}`);
      }
      lines.push("");
    }
    expect(fixedAt.length).toBeGreaterThan(0);
    const forcedFile = join(dir, "forced.conll");
    await writeFile(forcedFile, `${lines.join("\n")}\n`);
    for (const decoder of ["viterbi", "bcrf"]) {
      const r = await run([
        "tag",
        "--model",
        model,
        "--data",
        forcedFile,
        "--forced",
        "--decoder",
        decoder,
      ]);
      expect(r.code, r.stderr).toBe(0);
      const out = rows(r.stdout);
      // The input's columns (the fixed column dropped), then the prediction.
      expect(out[0]![0]).toHaveLength(plain[0]![0]!.length);
      for (const [s, t] of fixedAt) expect(out[s]![t]!.at(-1), decoder).toBe("B-NP");
    }
    const bad = join(dir, "bad.conll");
    const badLines = [...lines];
    badLines[3] = badLines[3]!.replace(/ \S+$/, " B-XX");
    await writeFile(bad, `${badLines.join("\n")}\n`);
    const refused = await run(["tag", "--model", model, "--data", bad, "--forced"]);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain(`${bad}:4`);
    expect(refused.stderr).toContain('"B-XX"');
  });

  it("--forced: a fixing the scheme forbids is the sentence's infeasible error", async () => {
    const first = rows(readFileSync(data, "utf8"))[0]!;
    const text = first.map((fields, t) => `${fields.join(" ")} ${t === 0 ? "I-NP" : "?"}`);
    const file = join(dir, "infeasible.conll");
    await writeFile(file, `${text.join("\n")}\n\n`);
    const r = await run(["tag", "--model", model, "--data", file, "--forced"]);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/no labelling meets/);
    expect(r.stderr).toContain(`${file}:1`);
  });
});
