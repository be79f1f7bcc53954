/**
 * Fuzzing the CLI: random argument vectors over random bytes, truncated and bit-flipped files.
 * Whatever comes in, the command ends with a documented exit code, no stack trace, no stray or
 * half-written file, and no input changed. 1,200 vectors run in-process through `main` (fast,
 * shrunk by fast-check on failure) and a sample of them through the real binary.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { seededRandom } from "@lagrange/core";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "../testing/run-cli.js";
import {
  chunkingText,
  expectCleanExit,
  hermeticEnv,
  listFiles,
  runCli,
  sha256,
  writeCitations,
} from "./cli-process.js";

let dir: string;
let savedEnv: NodeJS.ProcessEnv;
/** Files the fuzzer reads: none may change, whatever the command line says. */
const inputs: string[] = [];
const hashes = new Map<string, string>();
const originals = new Map<string, Buffer>();

const STACK_TRACE = /^\s+at .+:\d+:\d+\)?$|node:internal|Unhandled|^\w*Error: /m;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "lagrange-fuzz-"));
  savedEnv = { ...process.env };
  Object.assign(process.env, hermeticEnv(dir));
  const path = (name: string) => join(dir, name);
  await writeFile(path("chunks.conll"), chunkingText(20, { seed: 31 }));
  await writeCitations(path("cites.docs"), 20, 32);
  const setup: string[][] = [
    [
      "train",
      "--data",
      path("chunks.conll"),
      "--preset",
      "chunking",
      "--max-iterations",
      "20",
      "--out",
      path("chunks.model"),
    ],
    [
      "train",
      "--data",
      path("cites.docs"),
      "--preset",
      "citation",
      "--max-iterations",
      "10",
      "--out",
      path("cites.model"),
    ],
    [
      "constraints",
      "learn",
      "--model",
      path("cites.model"),
      "--data",
      path("cites.docs"),
      "--threshold",
      "0",
      "--out",
      path("c.json"),
    ],
    [
      "tag",
      "--model",
      path("chunks.model"),
      "--data",
      path("chunks.conll"),
      "--out",
      path("tagged.txt"),
    ],
  ];
  for (const args of setup) {
    const r = await run(args);
    expect(r.code, r.stderr).toBe(0);
  }
  const base = [
    "chunks.conll",
    "cites.docs",
    "chunks.model",
    "cites.model",
    "c.json",
    "tagged.txt",
  ];
  const random = seededRandom(33);
  const fuzzed: [string, Uint8Array | string][] = [];
  for (const name of base) {
    const bytes = new Uint8Array(readFileSync(path(name)));
    for (let k = 0; k < 3; k++) {
      fuzzed.push([`cut${k}-${name}`, bytes.slice(0, Math.floor(random() * bytes.length))]);
      const flipped = bytes.slice();
      for (let f = 0; f <= k; f++) {
        const at = Math.floor(random() * flipped.length);
        flipped[at] = flipped[at]! ^ (1 << Math.floor(random() * 8));
      }
      fuzzed.push([`flip${k}-${name}`, flipped]);
    }
    fuzzed.push([`crlf-${name}`, Buffer.from(bytes).toString("latin1").replaceAll("\n", "\r\n")]);
  }
  for (let k = 0; k < 4; k++) {
    fuzzed.push([
      `noise${k}.conll`,
      Uint8Array.from({ length: 50 + k * 400 }, () => Math.floor(random() * 256)),
    ]);
  }
  fuzzed.push(["empty.conll", ""], ["blank.conll", "\n\n\n"], ["nul.conll", "a\0b B-NP\n\n"]);
  fuzzed.push(
    ["ragged.conll", "a DT B-NP\nb I-NP\nc NN O x\n\n"],
    ["tabs.conll", "a\tDT\tB-NP\n\tNN\tI-NP\n"],
  );
  for (const [name, content] of fuzzed) await writeFile(path(name), content);
  await mkdir(path("a-folder"), { recursive: true });
  for (const name of [...base, ...fuzzed.map(([n]) => n)]) {
    inputs.push(path(name));
    hashes.set(path(name), sha256(path(name)));
    originals.set(path(name), readFileSync(path(name)));
  }
}, 120_000);

afterAll(async () => {
  process.env = savedEnv;
  await rm(dir, { recursive: true, force: true });
});

/**
 * Random argument vectors that reach deep: each command's required options are there (each
 * dropped now and then), with values mostly of the right kind (real, fuzzed or missing files;
 * numbers in range or hostile), plus a few optional options.
 */
function argumentVectors(): fc.Arbitrary<string[]> {
  const at = (name: string) => join(dir, name);
  const mostly = <T>(good: fc.Arbitrary<T>, bad: fc.Arbitrary<T>) =>
    fc.oneof({ arbitrary: good, weight: 4 }, { arbitrary: bad, weight: 1 });
  const hostileFile = fc.constantFrom(
    at("missing.conll"),
    at("a-folder"),
    "/proc/version",
    "conll2000:bogus",
    "umass-citations:dev",
    "",
  );
  const fuzzedData = fc.constantFrom(
    ...inputs.filter((f) => /\.(conll|docs|txt)$/.test(f) && !/model|json/.test(f)),
  );
  const data = mostly(
    fc.oneof(fc.constantFrom(at("chunks.conll"), at("cites.docs")), fuzzedData),
    hostileFile,
  );
  const model = mostly(
    fc.oneof(
      { arbitrary: fc.constantFrom(at("chunks.model"), at("cites.model")), weight: 3 },
      { arbitrary: fc.constantFrom(...inputs.filter((f) => f.endsWith(".model"))), weight: 1 },
    ),
    hostileFile,
  );
  const constraintsFile = mostly(
    fc.constantFrom(...inputs.filter((f) => f.endsWith(".json"))),
    hostileFile,
  );
  const anyFile = fc.oneof(fc.constantFrom(...inputs), hostileFile);
  const out = mostly(
    fc.constantFrom(at("out-a"), at("out-b.model"), "-"),
    fc.constantFrom(
      at("no-folder/x"),
      at("a-folder"),
      "/proc/version",
      at("chunks.conll"),
      at("chunks.model"),
      at("c.json"),
    ),
  );
  const number = mostly(
    fc.constantFrom("0", "1", "0.5", "2.75", "0.1"),
    fc.constantFrom("-1", "1e300", "NaN", "abc", "", "Infinity"),
  );
  const small = mostly(fc.constantFrom("1", "2", "3"), fc.constantFrom("0", "-2", "x", "1.5"));
  const option = (name: string, value: fc.Arbitrary<string>) =>
    value.map((v) => [name, v] as string[]);
  const flag = (name: string): fc.Arbitrary<string[]> => fc.constant([name]);
  /** Required parts each kept with probability 9/10; up to three optional ones. */
  const command = (
    head: readonly string[],
    required: fc.Arbitrary<string[]>[],
    optional: fc.Arbitrary<string[]>[],
  ) =>
    fc
      .tuple(
        fc.tuple(...required.map((r) => fc.option(r, { freq: 10, nil: [] as string[] }))),
        fc
          .subarray(optional, { maxLength: Math.min(3, optional.length) })
          .chain((chosen) =>
            chosen.length === 0 ? fc.constant([] as string[][]) : fc.tuple(...chosen),
          ),
      )
      .chain(([req, opt]) =>
        fc.shuffledSubarray([...req, ...opt], { minLength: req.length + opt.length }),
      )
      .map((parts) => [...head, ...parts.flat()]);
  const formats = mostly(
    fc.constantFrom("conll", "umass", "inline"),
    fc.constantFrom("conllu", "xml"),
  );
  const train = command(
    ["train"],
    [
      option("--data", data),
      option(
        "--preset",
        mostly(fc.constantFrom("chunking", "citation"), fc.constantFrom("ner", "pos", "nope")),
      ),
      option("--out", out),
      option("--max-iterations", small),
    ],
    [
      option(
        "--algorithm",
        mostly(fc.constantFrom("lbfgs", "owlqn", "ap", "sgd"), fc.constant("adam")),
      ),
      option("--c1", number),
      option("--c2", number),
      option("--threads", fc.constantFrom("1", "2", "1000", "0")),
      option("--min-freq", small),
      option("--dev", data),
      option("--patience", small),
      option(
        "--scheme",
        fc.constantFrom("IOB1", "IOB2", "BIOES", "hierarchical-BIO", "none", "bogus"),
      ),
      option("--format", formats),
      option("--malformed", fc.constantFrom("error", "repair", "skip", "explode")),
      flag("--constrained-training"),
      flag("--allow-no-progress"),
    ],
  );
  const tag = command(
    ["tag"],
    [option("--model", model), option("--data", data)],
    [
      option("--format", formats),
      option(
        "--decoder",
        fc.constantFrom("viterbi", "soft-dd", "hard-dd", "exact", "two-phase", "my-dd"),
      ),
      option("--constraints", constraintsFile),
      option("--max-iterations", small),
      option("--tau", mostly(fc.constantFrom("0.1", "1", "0.001"), fc.constantFrom("0", "2", "x"))),
      option("--time-limit", mostly(fc.constantFrom("1", "0.5"), fc.constantFrom("0", "-1"))),
      option("--slave", fc.constantFrom("gazetteer", "nope")),
      flag("--unlabeled"),
      option("--out", out),
      option("--malformed", fc.constantFrom("error", "repair", "skip")),
    ],
  );
  const learn = command(
    ["constraints", "learn"],
    [
      option("--model", model),
      option("--data", data),
      option("--out", out),
      option("--epochs", small),
    ],
    [
      option(
        "--templates",
        mostly(
          fc.constantFrom("singleton", "singleton,pairwise,hierarchical", "rules", "bio"),
          fc.constantFrom("nonsense", ""),
        ),
      ),
      option("--threshold", number),
      option(
        "--algorithm",
        mostly(fc.constantFrom("perceptron", "averaged-perceptron", "ssvm"), fc.constant("sgd")),
      ),
      option("--learning-rate", number),
      option("--count-unit", fc.constantFrom("label", "segment", "word")),
      option("--format", formats),
    ],
  );
  const mine = command(
    ["rules", "mine"],
    [option("--data", data), option("--out", out)],
    [
      option("--model", model),
      option(
        "--families",
        mostly(fc.constantFrom("rules", "adjacency,precedence", "state-change"), fc.constant("x")),
      ),
      option("--min-support", small),
      option("--min-confidence", mostly(fc.constantFrom("0.5", "0.9", "1"), number)),
      option(
        "--cost",
        mostly(fc.constantFrom("paper", "violation-rate", "log-odds"), fc.constant("free")),
      ),
      option("--delimiters", fc.constantFrom(",;:", "auto", "")),
      option("--format", formats),
    ],
  );
  const evaluate = command(
    ["eval"],
    [
      mostly(
        fc.constantFrom(at("tagged.txt"), ...inputs.filter((f) => f.includes("tagged"))),
        anyFile,
      ).map((f) => [f]),
    ],
    [
      flag("--json"),
      flag("--raw"),
      option("-d", fc.constantFrom(" ", "\t", "x")),
      option("-o", fc.constantFrom("O", "OUT")),
      flag("--hierarchical"),
      flag("--flat"),
    ],
  );
  const info = command(["info"], [model.map((f) => [f])], [flag("--json")]);
  const demo = fc.constantFrom<string[]>(
    ["demo", "--help"],
    ["demo", "--crf-iterations", "0"],
    ["demo", "--epochs", "x"],
  );
  const garbage = fc.array(fc.string({ maxLength: 12 }), { maxLength: 4 });
  return fc.oneof(
    { arbitrary: train, weight: 3 },
    { arbitrary: tag, weight: 4 },
    { arbitrary: learn, weight: 2 },
    { arbitrary: mine, weight: 2 },
    { arbitrary: evaluate, weight: 2 },
    { arbitrary: info, weight: 1 },
    { arbitrary: demo, weight: 1 },
    { arbitrary: garbage, weight: 1 },
  );
}

/** The --out of a vector, resolved, when it names a file in the fuzz folder. */
function outputOf(argv: readonly string[]): string | undefined {
  const i = argv.lastIndexOf("--out");
  const value = i < 0 ? undefined : argv[i + 1];
  return value === undefined || value === "-" ? undefined : resolve(value);
}

/**
 * After a run: no stray file; a fresh output only after success; no input of the command changed.
 * A fixture that the command did not read may be its --out (the user asked for it): it is put
 * back for the next run.
 */
function checkFolder(argv: readonly string[], code: number, before: ReadonlySet<string>): void {
  const created = listFiles(dir).filter((f) => !before.has(f));
  const out = outputOf(argv);
  for (const f of created) {
    const path = join(dir, f);
    expect(code === 0 && path === out, `${argv.join(" ")}: left ${f} (exit ${code})`).toBe(true);
    rmSync(path, { recursive: true, force: true });
  }
  for (const input of inputs) {
    if (sha256(input) === hashes.get(input)) continue;
    const overwritten = code === 0 && input === out && !readsAsInput(argv, input);
    expect(overwritten, `${argv.join(" ")} changed ${input} (exit ${code})`).toBe(true);
    writeFileSync(input, originals.get(input)!);
  }
}

/** Whether `path` is given to the command as something it reads (any value but --out's). */
function readsAsInput(argv: readonly string[], path: string): boolean {
  return argv.some((arg, i) => argv[i - 1] !== "--out" && arg !== "--out" && resolve(arg) === path);
}

describe("fuzzed command lines and files", () => {
  it("1,200 in-process runs: exit code in {0,1,2,3,4}, no stack trace, no stray or changed file", async () => {
    let runs = 0;
    const codes = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(argumentVectors(), async (argv) => {
        const before = new Set(listFiles(dir));
        const r = await run(argv);
        runs++;
        codes.set(r.code, (codes.get(r.code) ?? 0) + 1);
        expect([0, 1, 2, 3, 4], `${argv.join(" ")}\n${r.stderr}`).toContain(r.code);
        expect(r.stderr, argv.join(" ")).not.toMatch(STACK_TRACE);
        expect(r.stderr, argv.join(" ")).not.toMatch(/^lagrange: internal error/m);
        checkFolder(argv, r.code, before);
      }),
      { numRuns: 1200, seed: 20261124, endOnFailure: true },
    );
    expect(runs).toBeGreaterThanOrEqual(1200);
    // The vectors reach success, usage errors, malformed input and unreachable data (exit 1 and
    // the signals' codes need conditions a random vector rarely meets: the probes cover them).
    if (process.env.LAGRANGE_FUZZ_REPORT) console.log(Object.fromEntries(codes));
    for (const code of [0, 2, 3, 4])
      expect(codes.get(code) ?? 0, `exit ${code}`).toBeGreaterThan(0);
  }, 600_000);

  it("a sample through the real binary: the same, and no unhandled error at the process level", async () => {
    for (const argv of fc.sample(argumentVectors(), { numRuns: 40, seed: 7 })) {
      const before = new Set(listFiles(dir));
      const r = await runCli(argv, { cwd: dir });
      expectCleanExit(r);
      checkFolder(argv, r.code!, before);
    }
  }, 600_000);
});
