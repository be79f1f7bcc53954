import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { formatConll, generateCitationSentences, generateCitations } from "@lagrange/datasets";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// The counters are the recipes package's own (not exported): the same module instance the CLI
// reaches through @lagrange/recipes when tests run the sources.
import { taggingCounts } from "../../../packages/recipes/src/tagging/counters.js";
import { run } from "./testing/run-cli.js";

/*
 * One path from `lagrange tag` to a decoder: the model is read once and the registry built once
 * per run, whatever the input; --threads reads every format the whole-file path reads; decoder
 * options are the decoders' declared ones, and an option the chosen decoder does not declare is a
 * usage error naming it.
 */

let dir: string;
const at = (name: string) => join(dir, name);

const WORDS = [
  ["the", "DET"],
  ["a", "DET"],
  ["cat", "NOUN"],
  ["dog", "NOUN"],
  ["runs", "VERB"],
  ["sees", "VERB"],
  ["big", "ADJ"],
  ["red", "ADJ"],
] as const;

/** Seeded CoNLL-U sentences (FORM, LEMMA, UPOS, XPOS …). */
function conllu(count: number, seed: number): string {
  let state = seed;
  const next = (n: number) => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return Math.floor((state / 2147483648) * n);
  };
  let text = "";
  for (let s = 0; s < count; s++) {
    const length = 2 + next(6);
    text += `# sent_id = s${s + 1}\n`;
    for (let i = 0; i < length; i++) {
      const [form, upos] = WORDS[next(WORDS.length)]!;
      text += `${[i + 1, form, form, upos, "_", "_", i === 0 ? 0 : 1, i === 0 ? "root" : "dep", "_", "_"].join("\t")}\n`;
    }
    text += "\n";
  }
  return text;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "lagrange-tag-entry-"));
  const citations = (n: number, seed: number) =>
    `${generateCitations(n, { seed })
      .map((c) => c.inline)
      .join("\n")}\n`;
  await writeFile(at("train.docs"), citations(80, 7));
  await writeFile(at("dev.docs"), citations(40, 8));
  await writeFile(at("dev.conll"), formatConll(generateCitationSentences(20, { seed: 9 })));
  await writeFile(at("train.conllu"), conllu(120, 3));
  await writeFile(at("dev.conllu"), conllu(50, 4));
  const cite = await run([
    "train",
    ...["--data", at("train.docs"), "--preset", "citation", "--max-iterations", "6"],
    ...["--out", at("cite.model")],
  ]);
  expect(cite.code, cite.stderr).toBe(0);
  const pos = await run([
    "train",
    ...["--data", at("train.conllu"), "--preset", "pos", "--max-iterations", "6"],
    ...["--out", at("pos.model")],
  ]);
  expect(pos.code, pos.stderr).toBe(0);
}, 120_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Runs `lagrange tag …` in this process and counts what it built and read. */
async function counted(args: readonly string[]) {
  const registries = taggingCounts.registries;
  const modelReads = taggingCounts.modelReads;
  const result = await run(["tag", ...args]);
  return {
    ...result,
    registries: taggingCounts.registries - registries,
    modelReads: taggingCounts.modelReads - modelReads,
  };
}

describe("lagrange tag: one entry point", () => {
  it("reads the model once and builds one registry per run, on every path", async () => {
    const runs = [
      ["--model", at("cite.model"), "--data", at("dev.docs"), "--out", at("a.out")],
      ["--model", at("cite.model"), "--data", at("dev.conll"), "--out", at("b.out")],
      ["--model", at("pos.model"), "--data", at("dev.conllu"), "--out", at("c.out")],
      [
        "--model",
        at("cite.model"),
        "--data",
        at("dev.docs"),
        "--threads",
        "2",
        "--out",
        at("d.out"),
      ],
    ];
    for (const args of runs) {
      const r = await counted(args);
      expect(r.code, r.stderr).toBe(0);
      expect({ args, registries: r.registries, modelReads: r.modelReads }).toEqual({
        args,
        registries: 1,
        modelReads: 1,
      });
    }
  }, 120_000);

  it("--threads tags UMass and CoNLL-U files as the whole-file path does", async () => {
    for (const [model, data] of [
      ["cite.model", "dev.docs"],
      ["pos.model", "dev.conllu"],
    ] as const) {
      const one = await run(["tag", "--model", at(model), "--data", at(data)]);
      expect(one.code, one.stderr).toBe(0);
      const two = await run(["tag", "--model", at(model), "--data", at(data), "--threads", "2"]);
      expect(two.code, two.stderr).toBe(0);
      expect(two.stdout).toBe(one.stdout);
      expect(two.stderr).toMatch(/on 2 threads/);
    }
  }, 120_000);
});

describe("decoder options are the decoders' declared ones", () => {
  it("an option the chosen decoder does not declare is a usage error naming the decoder", async () => {
    const base = ["--model", at("cite.model"), "--data", at("dev.docs")];
    const tau = await run(["tag", ...base, "--tau", "0.5"]);
    expect(tau.code).toBe(2);
    expect(tau.stderr).toMatch(/decoder "?viterbi"? has no option "?tau"?/);
    const iterations = await run(["tag", ...base, "--decoder", "bcrf", "--max-iterations", "5"]);
    expect(iterations.code).toBe(2);
    expect(iterations.stderr).toMatch(/decoder "?bcrf"? has no option "?max-iterations"?/);
    const range = await run(["tag", ...base, "--decoder", "bcrf", "--iterations", "0"]);
    expect(range.code).toBe(2);
    expect(range.stderr).toMatch(/bcrf/);
    expect(range.stderr).toMatch(/iterations/);
    const unknown = await run(["tag", ...base, "--decoder-option", "depth=3"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/viterbi/);
  });

  it("a plug-in decoder declares options, set with --decoder-option and checked by its declaration", async () => {
    // A decoder that reads one option: how many leading tokens it forces to label 0.
    await writeFile(
      at("forcing.mjs"),
      `export default function register({ registry }) {
  registry.addDecoder({
    name: "forcing",
    description: "viterbi, then the first k tokens forced to label 0",
    accepts: { constraints: false, slaves: false },
    options: [{ name: "k", key: "k", type: "integer", help: "tokens forced", default: 0, min: 0, max: 100 }],
    create: (context) => {
      return {
        name: "forcing",
        decode(problem, options) {
          const { n, L } = problem.scores;
          const slave = context.chainSlaves()(problem.scores);
          const result = slave.maximize(new Float64Array(n * L));
          const labels = result.labels.slice();
          for (let i = 0; i < Math.min(options?.k ?? 0, n); i++) labels[i] = 0;
          return { labels, primal: result.value, dual: result.value, status: "optimal", iterations: 1, certified: true, gap: 0 };
        },
      };
    },
  });
}
`,
    );
    const base = ["--model", at("cite.model"), "--data", at("dev.docs")];
    const plain = await run([
      "tag",
      ...base,
      "--plugin",
      at("forcing.mjs"),
      "--decoder",
      "forcing",
    ]);
    expect(plain.code, plain.stderr).toBe(0);
    const forced = await run([
      "tag",
      ...base,
      ...["--plugin", at("forcing.mjs"), "--decoder", "forcing", "--decoder-option", "k=2"],
    ]);
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stdout).not.toBe(plain.stdout);
    const bad = await run([
      "tag",
      ...base,
      ...["--plugin", at("forcing.mjs"), "--decoder", "forcing", "--decoder-option", "k=-1"],
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/forcing/);
  });
});

describe("what the whole-file path writes", () => {
  it("is the same with --threads 2 as without, for a CoNLL file too (it streams)", async () => {
    const one = await run(["tag", "--model", at("cite.model"), "--data", at("dev.conll")]);
    const two = await run([
      "tag",
      ...["--model", at("cite.model"), "--data", at("dev.conll"), "--threads", "2"],
    ]);
    expect(one.code, one.stderr).toBe(0);
    expect(two.code, two.stderr).toBe(0);
    expect(two.stdout).toBe(one.stdout);
    expect(await readFile(at("dev.conll"), "utf8")).not.toBe("");
  }, 60_000);
});
