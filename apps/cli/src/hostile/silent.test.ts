/**
 * Issue 42, classes 6, 7 and 10: nothing silently ignored, nothing silently written wrong. Training
 * reads back what it writes (a weight a model may not hold stops it, with no output file); every
 * pair of train options its definition declares conflicting is refused (enumerated from the
 * definition, not listed here); features that give no token an attribute, an empty clustering and
 * an evaluation without predictions are errors naming their file; an unknown preset names both
 * kinds and the nearest, and one in a model file names the file; a train option the chosen path
 * does not read is refused (the table of which path reads which option is enumerated by
 * commands/train-flags.test.ts); a successful run does not end in a word that reads as a failure.
 * Each case is one short run of the real binary on a few kilobytes.
 */
import { existsSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  fromAttributeLists,
  modelFromTraining,
  modelToBytes,
  prepareTrainingData,
} from "@lagrange/chain-crf";
import { STANDARD_DECODERS } from "@lagrange/recipes";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildProgram } from "../main.js";
import { chunkingText } from "../probe/cli-process.js";
import { type BoundedRun, expectBounded, runBounded } from "./harness.js";

const MEMORY_MB = 600;
const TIMEOUT_MS = 30_000;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "lagrange-hostile-silent-"));
  writeFileSync(join(dir, "train.txt"), chunkingText(30, { seed: 42 }));
  writeFileSync(join(dir, "empty.tpl"), "# nothing but a comment\n");
  writeFileSync(join(dir, "transitions.tpl"), "B\n");
  writeFileSync(join(dir, "empty.txt"), "");
  // CRFsuite items whose values (at the accepted 1e9) drive an unregularised perceptron's weights
  // past the model file's 1e9.
  writeFileSync(
    join(dir, "big.crfsuite"),
    "A\tx:1e9\tz:1e9\tb\nB\ty:1e9\tb\nA\tx:1e9\n\nB\tx:1e9\nA\ty:1e9\tz:-1e9\nB\tz:1e9\n\n",
  );
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const run = (args: readonly string[]): Promise<BoundedRun> =>
  runBounded(args, { cwd: dir, memoryMb: MEMORY_MB, timeoutMs: TIMEOUT_MS });

describe("class 6: training validates what it writes", () => {
  it("weights beyond the model file's range stop training, naming the weight and the cause; no output", async () => {
    const result = await run([
      "train",
      "--format",
      "crfsuite",
      "--data",
      "big.crfsuite",
      "--algorithm",
      "ap",
      "--out",
      "big.lgm",
    ]);
    expectBounded(result, 1);
    expect(result.stderr).toMatch(
      /training drove a weight out of range: attribute "z", label \w+ = .*--format crfsuite data.*big\.lgm was not written/,
    );
    expect(existsSync(join(dir, "big.lgm"))).toBe(false);
  });

  it("--class-weight is bounded where it is parsed", async () => {
    const result = await run([
      ...["train", "--data", "train.txt", "--preset", "chunking", "--algorithm", "ap"],
      ...["--class-weight", "B-NP=1e300", "--out", "cw.lgm"],
    ]);
    expectBounded(result, 2);
    expect(result.stderr).toMatch(/--class-weight B-NP=1e300: expected LABEL=w with a number w in/);
  });
});

describe("class 7: nothing silently ignored or silently empty", () => {
  /** Every pair of train options its definition declares conflicting, by their flags. */
  const train = buildProgram(STANDARD_DECODERS).commands.find((c) => c.name() === "train")!;
  const pairs = train.options.flatMap((option) =>
    (option as unknown as { conflictsWith: string[] }).conflictsWith.map((name) => {
      const other = train.options.find((o) => o.attributeName() === name)!;
      return [option.long!, other.long!] as const;
    }),
  );

  it("the definition declares --limit/--sample and --dev-limit/--dev-sample conflicting", () => {
    expect(pairs).toEqual(
      expect.arrayContaining([
        ["--sample", "--limit"],
        ["--dev-sample", "--dev-limit"],
      ]),
    );
  });

  it.each(pairs)("%s with %s is a usage error", async (a, b) => {
    const result = await run([
      ...["train", "--data", "train.txt", "--dev", "train.txt", "--preset", "chunking"],
      ...[a, "5", b, "5", "--out", "pair.lgm"],
    ]);
    expectBounded(result, 2);
    expect(result.stderr).toContain(`option '${a} <n>' cannot be used with option '${b} <n>'`);
  });

  it.each(["empty.tpl", "transitions.tpl"])(
    "a template (%s) that gives no token an attribute is refused, naming it",
    async (template) => {
      const result = await run([
        ...["train", "--data", "train.txt", "--template", template, "--out", "t.lgm"],
      ]);
      expectBounded(result, 3);
      expect(result.stderr).toMatch(
        new RegExp(
          `--template ${template.replace(".", "\\.")}: no U line .*label transitions only`,
        ),
      );
      expect(existsSync(join(dir, "t.lgm"))).toBe(false);
    },
  );

  it("clusters of empty text are an error naming the input; no output", async () => {
    const result = await run(["clusters", "--text", "empty.txt", "--out", "empty.paths"]);
    expectBounded(result, 3);
    expect(result.stderr).toMatch(/--text empty\.txt: no word to cluster/);
    expect(existsSync(join(dir, "empty.paths"))).toBe(false);
  });

  it("eval of a file without a predicted column names file:line and what was expected", async () => {
    const result = await run(["eval", "train.txt"]);
    expectBounded(result, 3);
    expect(result.stderr).toMatch(
      /train\.txt:1: the last two columns share no label .*expected the gold label second to last and the predicted one last/,
    );
  });
});

describe("class 10: the messages a new user meets", () => {
  it("an unknown preset lists both kinds and suggests the nearest", async () => {
    const result = await run([
      "train",
      "--data",
      "train.txt",
      "--preset",
      "ner_en",
      "--out",
      "p.lgm",
    ]);
    expectBounded(result, 2);
    expect(result.stderr).toMatch(
      /unknown preset "ner_en" \(did you mean ner-en\?\); feature presets: .*; task presets: .*ner-en/,
    );
  });

  it("a successful training says why it stopped in words that read as success", async () => {
    const result = await run([
      ...["train", "--data", "train.txt", "--preset", "chunking", "--out", "ok.lgm"],
    ]);
    expectBounded(result, 0);
    expect(result.stdout).toMatch(/in \d+ iterations \((converged|reached the iteration cap)/);
    expect(result.stdout).not.toContain("no-progress");
  });

  it("a model naming a preset this version lacks is refused by every reader, naming the file", async () => {
    const data = prepareTrainingData([
      { attributes: fromAttributeLists([["w=a"], ["w=b"]]), labels: ["B-NP", "O"] },
    ]);
    const weights = new Float64Array(data.layout.numWeights).fill(0.5);
    const model = modelFromTraining(data, weights, { preset: "nosuch" });
    writeFileSync(join(dir, "nosuch.lgm"), modelToBytes(model));
    const results = await Promise.all([
      run(["info", "nosuch.lgm"]),
      run(["tag", "--model", "nosuch.lgm", "--data", "train.txt"]),
      run(["explain", "--model", "nosuch.lgm", "--data", "train.txt"]),
      run(["export", "--to", "crfsuite", "--model", "nosuch.lgm", "--out", "nosuch.crfsuite"]),
    ]);
    for (const result of results) {
      expectBounded(result, 3);
      expect(result.stderr).toMatch(
        /^lagrange: nosuch\.lgm: the model names preset "nosuch", which this version does not know \(feature presets: chunking, /m,
      );
    }
    expect(existsSync(join(dir, "nosuch.crfsuite"))).toBe(false);
  });

  it("a train option the chosen path does not read is refused, naming it and the path", async () => {
    // Features of CoNLL columns are the CRF's; an L2S tagger builds its own, so these did nothing.
    const result = await run([
      ...["train", "--learner", "l2s", "--task", "pos", "--data", "train.txt"],
      ...["--template", "transitions.tpl", "--columns", "word,pos", "--out", "l.l2s"],
    ]);
    expectBounded(result, 2);
    expect(result.stderr).toMatch(
      /--template, --columns: options of the CRF learner, not of --learner l2s/,
    );
    expect(existsSync(join(dir, "l.l2s"))).toBe(false);
  });
});
