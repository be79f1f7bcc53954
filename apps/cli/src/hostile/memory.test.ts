/**
 * Issue 42, class 4: memory estimated for every path, not one. Training under an address-space
 * limit (V8's WebAssembly reservations), --max-memory against second-order tables, --nbest's
 * declared bound and its estimate, a model nesting first stages, and every feature source and
 * training path against the attributes' estimate: each refused before it allocates (exit 2 for a
 * flag, 3 for a file), or run within the limit.
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  fromAttributeLists,
  type LabelledSequence,
  modelFromTraining,
  modelToBytes,
  prepareTrainingData,
} from "@lagrange/chain-crf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chunkingText, hermeticEnv } from "../probe/cli-process.js";
import { BIN, type BoundedRun, expectBounded, runBounded } from "./harness.js";

const MEMORY_MB = 700;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "lagrange-hostile-memory-"));
  writeFileSync(join(dir, "train.conll"), chunkingText(40, { seed: 1 }));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const run = (args: readonly string[], memoryMb = MEMORY_MB): Promise<BoundedRun> =>
  runBounded(args, { cwd: dir, memoryMb, timeoutMs: 30_000 });

const hasPrlimit = spawnSync("prlimit", ["--version"]).status === 0;

describe("training under an address-space limit", () => {
  // A small training peaks near 180 MB resident (the Node start-up reserves about 0.7 GB of
  // address space alone); 2 GB is the least that works here, and what the Target asks: 4× peak
  // for the mid-size run (CoNLL-2000, 500 MB). Without the supervisor's flags every run failed
  // below 20 GB.
  it.skipIf(!hasPrlimit)("trains under prlimit --as=2G (skipped where prlimit is missing)", () => {
    const result = spawnSync(
      "prlimit",
      [
        "--as=2000000000",
        process.execPath,
        BIN,
        "train",
        "--data",
        "train.conll",
        "--preset",
        "chunking",
        "--out",
        "m.lgm",
      ],
      {
        cwd: dir,
        env: { ...process.env, ...hermeticEnv(dir), FORCE_COLOR: "0" },
        encoding: "utf8",
        timeout: 60_000,
      },
    );
    expect(result.status, `${result.signal} ${result.stderr}`).toBe(0);
    expect(`${result.stdout}${result.stderr}`).toMatch(/wrote m\.lgm/);
  });
});

describe("--max-memory covers second-order tables", () => {
  it("refuses --order 2 with 600 labels under --max-memory 1G before allocating", async () => {
    const lines: string[] = [];
    for (let s = 0; s < 200; s++) {
      for (let t = 0; t < 3; t++) lines.push(`w${(s * 3 + t) % 50} NN L${(s * 3 + t) % 600}`);
      lines.push("");
    }
    writeFileSync(join(dir, "labels.conll"), `${lines.join("\n")}\n`);
    const result = await run([
      "train",
      "--data",
      "labels.conll",
      "--preset",
      "chunking",
      "--order",
      "2",
      "--max-memory",
      "1G",
      "--out",
      "o2.lgm",
    ]);
    expectBounded(result, 2);
    expect(result.stderr).toMatch(/600 labels \(360,000 label pairs, 216,000,000 label triples\)/);
    expect(result.stderr).toMatch(/pass --max-memory \d+G to proceed/);
  });
});

describe("--nbest is bounded", () => {
  beforeAll(async () => {
    expectBounded(
      await run(["train", "--data", "train.conll", "--preset", "chunking", "--out", "nb.lgm"]),
      0,
    );
    writeFileSync(
      join(dir, "long.conll"),
      `${Array.from({ length: 20_000 }, (_, i) => `w${i % 50} NN`).join("\n")}\n\n`,
    );
  }, 60_000);

  it("refuses a k above the declared cap while parsing the flag", async () => {
    for (const k of ["1e9", "10001"]) {
      const result = await run(["tag", "--model", "nb.lgm", "--data", "train.conll", "--nbest", k]);
      expectBounded(result, 2);
      expect(result.stderr).toMatch(/--nbest <k>.*expected an integer from 1 to 10000/);
    }
  });

  it("refuses a list whose estimate for the longest sentence passes the bound", async () => {
    const result = await run([
      "tag",
      "--model",
      "nb.lgm",
      "--data",
      "long.conll",
      "--nbest",
      "10000",
    ]);
    expectBounded(result, 2);
    expect(result.stderr).toMatch(
      /^lagrange: --nbest 10000: the 10000 best labellings of the longest sentence \(20000 tokens, long\.conll:1\) by list-viterbi would need about [\d.]+ GB, more than the [\d.]+ GB bound .*lower --nbest to \d+ or less/m,
    );
  });
});

describe("nested two-stage models", () => {
  it("refuses nested first stages from the embedded header, in info and tag", async () => {
    const sequences: LabelledSequence[] = [
      { attributes: fromAttributeLists([["w=a"], ["w=b"]]), labels: ["A", "B"] },
    ];
    const data = prepareTrainingData(sequences);
    const model = modelFromTraining(data, new Float64Array(data.layout.numWeights), {
      preset: "chunking",
    });
    let nested = modelToBytes(model);
    for (let depth = 0; depth < 200; depth++) nested = modelToBytes(model.withFirstStage(nested));
    writeFileSync(join(dir, "nested.lgm"), nested);
    for (const args of [
      ["info", "nested.lgm"],
      ["tag", "--model", "nested.lgm", "--data", "train.conll"],
    ]) {
      const result = await run(args, 400);
      expectBounded(result, 3);
      expect(result.stderr).toMatch(
        /^lagrange: nested\.lgm: section firstStage: its first stage has a first stage of its own/m,
      );
    }
  });
});

describe("--max-memory covers what every feature source and training path generates", () => {
  beforeAll(() => {
    // 20,000 U lines: 20,000 attributes per token, gigabytes over the corpus (a real run of
    // 772 tokens peaked at 3.8 GB); the cap is 700 MB.
    const lines = Array.from({ length: 20_000 }, (_, i) => `U${i}:%x[0,0]/${i}`);
    writeFileSync(join(dir, "many.tpl"), `${lines.join("\n")}\n`);
    writeFileSync(join(dir, "org.txt"), "Confidence\nthe pound\n");
    writeFileSync(join(dir, "paths.txt"), "0\tthe\t10\n10\tpound\t3\n11\tin\t7\n");
  });

  it("refuses a template's expansion from one token's, before the corpus's exists", async () => {
    const result = await run([
      "train",
      "--data",
      "train.conll",
      "--template",
      "many.tpl",
      "--max-memory",
      "500M",
      "--out",
      "many.lgm",
    ]);
    expectBounded(result, 2);
    expect(result.stderr).toMatch(
      /for the attributes --template many\.tpl generates: about [\d,]+, 20000\.0 per token over [\d,]+ tokens.*from 1 token extracted first\); pass --max-memory \d+G to proceed/,
    );
    expect(result.peakRssMb).toBeLessThan(400);
  });

  // Each path, under a bound below what the process holds at start-up: refused by the one
  // estimate, naming its feature source, before any attribute of the corpus or weight exists.
  const paths: readonly (readonly [string, readonly string[], RegExp])[] = [
    ["lexicons", ["--preset", "chunking", "--lexicon", "org=org.txt"], /--lexicon org=org\.txt/],
    ["clusters", ["--preset", "chunking", "--clusters", "paths.txt"], /--clusters paths\.txt/],
    ["--two-stage", ["--preset", "chunking", "--two-stage", "--folds", "2"], /--preset chunking/],
    [
      "--model general",
      ["--preset", "chunking", "--model", "general", "--groups", "documents", "--folds", "2"],
      /--preset chunking/,
    ],
  ];
  for (const [path, args, source] of paths) {
    it(`refuses ${path} before allocating`, async () => {
      const result = await run([
        "train",
        "--data",
        "train.conll",
        ...args,
        "--max-memory",
        "20M",
        "--out",
        "p.lgm",
      ]);
      expectBounded(result, 2);
      expect(result.stderr).toMatch(
        /^lagrange: training would need about [\d.]+ [MG]B, more than the 20\.0 MB allowed/m,
      );
      expect(result.stderr).toMatch(source);
    });
  }

  it("--learner l2s: refuses --bits past the bound, and none removes it", async () => {
    const l2s = ["train", "--data", "train.conll", "--learner", "l2s", "--task", "pos"];
    const refused = await run([...l2s, "--bits", "28", "--max-memory", "1G", "--out", "l.lgm"]);
    expectBounded(refused, 2);
    expect(refused.stderr).toMatch(
      /--bits 28: the csoaa learner's hashed weight table of 2\^28 entries/,
    );
    const unbounded = await run([...l2s, "--bits", "16", "--max-memory", "none", "--out", "l.lgm"]);
    expectBounded(unbounded, 0);
  });
});
