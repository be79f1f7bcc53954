import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CrfModel, modelToBytes } from "@lagrange/chain-crf";
import {
  formatConll,
  generateCitationSentences,
  parseConll,
  type Sentence,
} from "@lagrange/datasets";
import { openCorpus } from "@lagrange/datasets/node";
import {
  inputForModel,
  openTagger,
  type SequenceTagger,
  type TaggedSentence,
  trainOnCorpus,
} from "@lagrange/recipes";
import { beforeAll, describe, expect, it } from "vitest";
import { conllRecord } from "./format.js";
import { tagStream } from "./tag-stream.js";

let model: CrfModel;
let tagger: SequenceTagger;
let text: string;
let sentences: Sentence[];

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), "lagrange-scale-"));
  const train = join(dir, "train.conll");
  writeFileSync(train, formatConll(generateCitationSentences(120, { seed: 1 })));
  const corpus = await openCorpus(train);
  ({ model } = await trainOnCorpus(corpus, {
    preset: "citation",
    algorithm: "lbfgs",
    maxIterations: 8,
  }));
  tagger = await openTagger({ model: modelToBytes(model) });
  sentences = generateCitationSentences(60, { seed: 2 });
  text = formatConll(sentences);
}, 120_000);

/** Today's whole-file tagging: every sentence read first, then tagged and written in order. */
async function wholeFile(conll: string): Promise<string> {
  const read = parseConll(conll, { file: "<stdin>" });
  const corpus = inputForModel(
    { label: "x", sentences: read, format: "conll", scheme: tagger.scheme },
    model,
    "auto",
  );
  const { items } = await tagger.tag(corpus.sentences);
  return corpus.sentences
    .map((s, i) => conllRecord(s, (items[i] as TaggedSentence).labels))
    .join("");
}

/** The text as byte chunks cut at awkward places (inside lines, inside characters). */
function chunks(source: string, size = 97): Uint8Array[] {
  const bytes = new TextEncoder().encode(source);
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
  return out;
}

function sink() {
  let written = "";
  return {
    write: (data: string) => {
      written += data;
    },
    text: () => written,
  };
}

describe("tagStream", () => {
  it("writes CoNLL byte for byte as whole-file tagging does", async () => {
    const out = sink();
    const result = await tagStream({
      tagger,
      input: chunks(text),
      inputFormat: "conll",
      inputName: "<stdin>",
      output: out,
      window: 7,
    });
    expect(out.text()).toBe(await wholeFile(text));
    expect(result.sentences).toBe(sentences.length);
    expect(result.skippedCount).toBe(0);
    expect(result.labeled).toBe(true);
    expect(result.evaluation?.tokens).toBe(sentences.reduce((n, s) => n + s.tokens.length, 0));
  });

  it("reads NDJSON into the same labels as CoNLL", async () => {
    const ndjson = sentences
      .map((s) => `${JSON.stringify({ tokens: s.tokens, labels: s.labels })}\n`)
      .join("");
    const conllOut = sink();
    await tagStream({
      tagger,
      input: [ndjson],
      inputFormat: "ndjson",
      output: conllOut,
      outputFormat: "conll",
    });
    expect(conllOut.text()).toBe(await wholeFile(text));
    const out = sink();
    await tagStream({
      tagger,
      input: chunks(ndjson, 50),
      inputFormat: "ndjson",
      output: out,
      explain: true,
    });
    const lines = out
      .text()
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(sentences.length);
    expect(lines[0].tokens).toEqual(sentences[0]!.tokens);
    expect(lines[0].gold).toEqual(sentences[0]!.labels);
    expect(lines[0].decoding.status).toBe("optimal");
    expect(lines[0].fired).toEqual([]);
  });

  it("writes in input order with two worker threads as with one", async () => {
    const one = sink();
    const two = sink();
    await tagStream({
      tagger,
      input: chunks(text),
      inputFormat: "conll",
      output: one,
      outputFormat: "ndjson",
    });
    const result = await tagStream({
      tagger,
      input: chunks(text),
      inputFormat: "conll",
      output: two,
      outputFormat: "ndjson",
      threads: 2,
      batchSize: 3,
      window: 12,
    });
    expect(two.text()).toBe(one.text());
    expect(result.sentences).toBe(sentences.length);
    expect(result.time.featuresMs).toBeGreaterThan(0);
  }, 60_000);

  it("stops at a malformed record mid-stream with <stdin>:line, after writing what precedes it", async () => {
    const lines = text.split("\n");
    // A token line of the 11th sentence with one column too many.
    let blank = 0;
    let at = 0;
    while (blank < 10) if (lines[at++] === "") blank++;
    lines[at + 1] = `${lines[at + 1]} extra`;
    const bad = lines.join("\n");
    const out = sink();
    await expect(
      tagStream({
        tagger,
        input: chunks(bad),
        inputFormat: "conll",
        inputName: "<stdin>",
        output: out,
      }),
    ).rejects.toThrow(`<stdin>:${at + 2}: found 3 columns: expected 2`);
    expect(out.text()).toBe(await wholeFile(lines.slice(0, at).join("\n")));

    const skipped: string[] = [];
    const kept = sink();
    const result = await tagStream({
      tagger,
      input: chunks(bad),
      inputFormat: "conll",
      inputName: "<stdin>",
      output: kept,
      onError: "skip",
      onSkip: (s) => skipped.push(s.place),
      threads: 2,
      batchSize: 4,
    });
    expect(result.skippedCount).toBe(1);
    expect(skipped).toEqual([`<stdin>:${at + 2}`]);
    expect(result.sentences).toBe(sentences.length - 1);
    const without = [...sentences.slice(0, 10), ...sentences.slice(11)];
    expect(kept.text()).toBe(await wholeFile(formatConll(without)));
  }, 60_000);

  it("names the NDJSON line and what was expected", async () => {
    const input = ['{"tokens":["a","b"]}', '{"tokens":["a"],"labels":["X","Y"]}', "not json"];
    const result = await tagStream({
      tagger,
      input: [input.join("\n")],
      inputFormat: "ndjson",
      inputName: "<stdin>",
      output: sink(),
      onError: "skip",
    });
    expect(result.sentences).toBe(1);
    expect(result.skipped.map((s) => s.place)).toEqual(["<stdin>:2", "<stdin>:3"]);
    expect(result.skipped[0]!.reason).toContain('"labels": expected an array of 1');
  });
});
