/**
 * The reliability probe: every failure a new user hit (issue 9, items 0–9) as a run of the real
 * binary, checking the exit code, the message's file:line, and that no file was lost or left.
 */
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  chunkingText,
  expectCleanExit,
  listFiles,
  predictions,
  runCli,
  sha256,
  strayTemporaryFiles,
  trainModel,
  writeCitations,
} from "./cli-process.js";

let dir: string;
const cli = (...args: string[]) => runCli(args, { cwd: dir });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "lagrange-probe-"));
  await writeFile(join(dir, "chunks.conll"), chunkingText(300, { seed: 1 }));
  await writeFile(join(dir, "chunks-dev.conll"), chunkingText(60, { seed: 2 }));
  await writeCitations(join(dir, "citations.docs"), 120, 3);
  await trainModel(dir, "chunks.conll", "chunking", 40, "chunks.model");
  await trainModel(dir, "citations.docs", "citation", 10, "citations.model");
}, 120_000);

afterAll(async () => {
  expect(strayTemporaryFiles(dir)).toEqual([]);
  await rm(dir, { recursive: true, force: true });
});

describe("0. the binary runs the CLI", () => {
  it("--help exits 0 and names the exit codes, help exit-codes lists them; an unknown command exits 2", async () => {
    const help = await cli("--help");
    expectCleanExit(help, 0);
    expect(help.stdout).toMatch(/Usage: lagrange/);
    expect(help.stdout).toMatch(/Exit codes: 0 success, 1 failure/);
    const table = await cli("help", "exit-codes");
    expectCleanExit(table, 0);
    expect(table.stdout).toMatch(/Exit codes:\n {2}0 {4}success/);
    for (const code of ["1", "2", "3", "4", "130"]) {
      expect(table.stdout).toMatch(new RegExp(`^ {2}${code} +\\S`, "m"));
    }
    const subHelp = await cli("train", "--help");
    expect(subHelp.stdout).toMatch(/^Examples:$/m);
    const unknown = await cli("frobnicate");
    expectCleanExit(unknown, 2);
    expect(unknown.stderr).toMatch(/unknown command 'frobnicate'/);
  });
});

describe("1. no silent wrong model", () => {
  it("IOB1 data from a file: the scheme is read off the labels, and the model chunks (F1 > 90)", async () => {
    await writeFile(join(dir, "iob1.conll"), chunkingText(300, { seed: 4, scheme: "IOB1" }));
    await writeFile(join(dir, "iob1-dev.conll"), chunkingText(80, { seed: 5, scheme: "IOB1" }));
    const trained = await cli(
      "train",
      "--data",
      "iob1.conll",
      "--preset",
      "chunking",
      "--max-iterations",
      "40",
      "--out",
      "iob1.model",
    );
    expectCleanExit(trained, 0);
    expect(trained.stderr).toContain("scheme IOB1 (from the data)");
    const info = JSON.parse((await cli("info", "--json", "iob1.model")).stdout);
    expect(info.settings.scheme).toBe("IOB1");
    const tagged = await cli(
      "tag",
      "--model",
      "iob1.model",
      "--data",
      "iob1-dev.conll",
      "--out",
      "iob1.out",
    );
    expectCleanExit(tagged, 0);
    const scored = await cli("eval", "--json", "iob1.out");
    expect(JSON.parse(scored.stdout).f1).toBeGreaterThan(90);
  });

  it("UMass citations from a .docs file train under hierarchical BIO", async () => {
    const info = JSON.parse((await cli("info", "--json", "citations.model")).stdout);
    expect(info.settings.scheme).toBe("hierarchical-BIO");
    expect(info.labels.some((l: string) => l.includes("/"))).toBe(true);
  });

  it("CoNLL columns read as UMass: exit 3 at the file's first line, no model written", async () => {
    const r = await cli(
      "train",
      "--data",
      "chunks.conll",
      "--format",
      "umass",
      "--preset",
      "citation",
      "--out",
      "wrong.model",
    );
    expectCleanExit(r, 3);
    expect(r.stderr).toMatch(/chunks\.conll:1 .*only the label "O" \(read as umass\).*--format/);
    expect(existsSync(join(dir, "wrong.model"))).toBe(false);
  });

  it("a label the scheme cannot read stops training at its file:line", async () => {
    await writeFile(join(dir, "x-label.conll"), "the DT B-NP\ncat NN I-NP\n\nit PRP X-NP\n\n");
    const r = await cli(
      "train",
      "--data",
      "x-label.conll",
      "--preset",
      "chunking",
      "--out",
      "x.model",
    );
    expectCleanExit(r, 3);
    expect(r.stderr).toMatch(/x-label\.conll:4: IOB2: label "X-NP": expected "O" or <tag>-<type>/);
    expect(existsSync(join(dir, "x.model"))).toBe(false);
  });

  it("--c2 1e300 makes no progress: exit 1 and no model, unless --allow-no-progress", async () => {
    const args = ["train", "--data", "chunks.conll", "--preset", "chunking", "--c2", "1e300"];
    const r = await cli(...args, "--out", "huge-c2.model");
    expectCleanExit(r, 1);
    expect(r.stderr).toMatch(/lagrange: training stopped after 0 iterations/);
    expect(existsSync(join(dir, "huge-c2.model"))).toBe(false);
    const allowed = await cli(...args, "--allow-no-progress", "--out", "huge-c2.model");
    expectCleanExit(allowed, 0);
    expect(existsSync(join(dir, "huge-c2.model"))).toBe(true);
  });
});

describe("2. unlabeled data is tagged", () => {
  it("word + POS columns (the model's inputs) are tagged as they are, like the labelled file", async () => {
    const labelled = readFileSync(join(dir, "chunks-dev.conll"), "utf8");
    const raw = labelled.replace(/ [BIO](-\w+)?\n/g, "\n");
    await writeFile(join(dir, "raw.conll"), raw);
    const fromRaw = await cli("tag", "--model", "chunks.model", "--data", "raw.conll");
    expectCleanExit(fromRaw, 0);
    expect(fromRaw.stderr).toContain("unlabeled input");
    expect(fromRaw.stdout.split("\n")[0]!.split(" ")).toHaveLength(3);
    const fromLabelled = await cli("tag", "--model", "chunks.model", "--data", "chunks-dev.conll");
    expect(predictions(fromRaw.stdout)).toEqual(predictions(fromLabelled.stdout));
    const flagged = await cli(
      "tag",
      "--model",
      "chunks.model",
      "--data",
      "raw.conll",
      "--unlabeled",
    );
    expect(flagged.stdout).toBe(fromRaw.stdout);
  });

  it("plain words, one per line, are tagged by the citation model", async () => {
    await writeFile(
      join(dir, "words.txt"),
      "J. Smith . Deep parsing . In Proc. ACL , 2003 .\n".replaceAll(" ", "\n"),
    );
    const r = await cli("tag", "--model", "citations.model", "--data", "words.txt");
    expectCleanExit(r, 0);
    const rows = r.stdout.trim().split("\n");
    expect(rows[0]).toMatch(/^J\. [BI]-\S+$/);
    expect(rows).toHaveLength(12);
  });

  it("a width that fits neither reading is an error that says what the model reads", async () => {
    await writeFile(join(dir, "wide.conll"), "a b c d\n\n");
    const r = await cli("tag", "--model", "chunks.model", "--data", "wide.conll");
    expectCleanExit(r, 3);
    expect(r.stderr).toMatch(
      /wide\.conll:1: 4 column\(s\); the model \(preset chunking\) reads 2 input column\(s\) \(word, pos\): expected 2 \(unlabeled\) or 3/,
    );
    await writeFile(join(dir, "words-only.conll"), "a\nb\n\n");
    const narrow = await cli("tag", "--model", "chunks.model", "--data", "words-only.conll");
    expectCleanExit(narrow, 3);
    expect(narrow.stderr).toMatch(/words-only\.conll:1: has 1 column\(s\); expected 2: word, pos/);
  });
});

describe("3. output errors end cleanly", () => {
  it("--out into a missing folder, a file under /proc, a directory: exit 2 before any work", async () => {
    for (const out of [join("no-such-folder", "out.txt"), "/proc/version", "."]) {
      const r = await cli(
        "tag",
        "--model",
        "chunks.model",
        "--data",
        "chunks-dev.conll",
        "--out",
        out,
      );
      expectCleanExit(r, 2);
      // /proc/version is 0444: refused as read-only before the kernel would refuse it.
      expect(r.stderr).toMatch(
        /lagrange: --out \S+: (cannot be written|is a directory|is read-only)/,
      );
      expect(r.stderr).not.toMatch(/tagged/);
    }
    expect(readFileSync("/proc/version", "utf8")).not.toBe("");
  });
});

describe("5. exit codes as documented", () => {
  it("2 for every bad option value, unknown split, scheme or name; missing files of every kind", async () => {
    const cases: [string[], RegExp][] = [
      [
        ["train", "--data", "chunks.conll", "--preset", "chunking", "--c2", "-5", "--out", "o"],
        /'--c2 <x>' argument '-5' is invalid/,
      ],
      [
        [
          "train",
          "--data",
          "chunks.conll",
          "--preset",
          "chunking",
          "--scheme",
          "bogus",
          "--out",
          "o",
        ],
        /--scheme: unknown label scheme "bogus"/,
      ],
      [
        [
          "constraints",
          "learn",
          "--model",
          "citations.model",
          "--data",
          "citations.docs",
          "--learning-rate",
          "-1",
          "--out",
          "o",
        ],
        /'--learning-rate <x>' argument '-1' is invalid/,
      ],
      [
        ["tag", "--model", "chunks.model", "--data", "conll2000:bogus"],
        /--data: dataset "conll2000" has no split "bogus"/,
      ],
      [
        ["tag", "--model", "absent.model", "--data", "chunks.conll"],
        /--model absent\.model: no such file/,
      ],
      [
        ["tag", "--model", "chunks.model", "--data", "absent.conll"],
        /--data: absent\.conll: no such file/,
      ],
      [
        [
          "train",
          "--data",
          "chunks.conll",
          "--preset",
          "chunking",
          "--dev",
          "absent.conll",
          "--out",
          "o",
        ],
        /--dev: absent\.conll: no such file/,
      ],
      [
        ["train", "--data", "chunks.conll", "--preset", "nope", "--out", "o"],
        /unknown preset "nope"; feature presets: .*; task presets: /,
      ],
      [["info", "absent.model"], /model absent\.model: no such file/],
      [["eval", "absent.txt"], /prediction file absent\.txt: no such file/],
      [
        ["tag", "--model", "chunks.model", "--data", "chunks.conll", "--plugin", "absent.mjs"],
        /--plugin absent\.mjs: no such file/,
      ],
    ];
    for (const [args, message] of cases) {
      const r = await cli(...args);
      expectCleanExit(r, 2);
      expect(r.stderr, args.join(" ")).toMatch(message);
    }
    expect(existsSync(join(dir, "o"))).toBe(false);
  });

  it("4 for a dataset split that cannot be reached", async () => {
    const r = await cli("tag", "--model", "citations.model", "--data", "umass-citations:dev");
    expectCleanExit(r, 4);
  });

  it("an unwritable train --out fails before training", async () => {
    const r = await cli(
      "train",
      "--data",
      "chunks.conll",
      "--preset",
      "chunking",
      "--out",
      "/proc/x.model",
    );
    expectCleanExit(r, 2);
    expect(r.stderr).not.toMatch(/training lbfgs/);
  });
});

describe("6. resource limits", () => {
  it("--threads 1000 is capped at the core count, with a warning", async () => {
    const r = await cli(
      "train",
      "--data",
      "chunks-dev.conll",
      "--preset",
      "chunking",
      "--max-iterations",
      "3",
      "--threads",
      "1000",
      "--out",
      "threads.model",
    );
    expectCleanExit(r, 0);
    expect(r.stderr).toMatch(/warning: --threads 1000: this machine has \d+ cores; using \d+/);
  });
});

describe("7. inputs are never overwritten", () => {
  it("refuses an output path that is an input (also through another spelling), leaving it unchanged", async () => {
    await mkdir(join(dir, "sub"), { recursive: true });
    const before = {
      data: sha256(join(dir, "chunks.conll")),
      model: sha256(join(dir, "chunks.model")),
    };
    const cases: string[][] = [
      ["train", "--data", "chunks.conll", "--preset", "chunking", "--out", "chunks.conll"],
      ["train", "--data", "chunks.conll", "--preset", "chunking", "--out", "sub/../chunks.conll"],
      ["tag", "--model", "chunks.model", "--data", "chunks.conll", "--out", "chunks.model"],
      ["tag", "--model", "chunks.model", "--data", "chunks.conll", "--out", "./chunks.conll"],
      [
        "constraints",
        "learn",
        "--model",
        "chunks.model",
        "--data",
        "chunks.conll",
        "--out",
        "chunks.model",
      ],
    ];
    for (const args of cases) {
      const r = await cli(...args);
      expectCleanExit(r, 2);
      expect(r.stderr).toMatch(/--out \S+ is also an input of this command/);
    }
    expect(sha256(join(dir, "chunks.conll"))).toBe(before.data);
    expect(sha256(join(dir, "chunks.model"))).toBe(before.model);
  });
});

describe("8. no misleading success", () => {
  it("constraints learn with no usable sentence: exit 3, no file", async () => {
    // Word and label columns, as the citation model reads them, but chunk labels it never saw.
    await writeFile(join(dir, "other-labels.conll"), "the B-NP\ncat I-NP\n\nran B-VP\n\n");
    const r = await cli(
      "constraints",
      "learn",
      "--model",
      "citations.model",
      "--data",
      "other-labels.conll",
      "--out",
      "none.json",
    );
    expectCleanExit(r, 3);
    expect(r.stderr).toMatch(/no sentence has gold labels the model knows/);
    expect(existsSync(join(dir, "none.json"))).toBe(false);
  });

  it("options that would be ignored are named in a warning", async () => {
    const base = [
      "train",
      "--data",
      "chunks-dev.conll",
      "--preset",
      "chunking",
      "--max-iterations",
      "3",
    ];
    const ap = await cli(
      ...base,
      "--algorithm",
      "ap",
      "--c1",
      "1",
      "--threads",
      "2",
      "--out",
      "ap.model",
    );
    expectCleanExit(ap, 0);
    expect(ap.stderr).toMatch(/warning: --c1 .*ignored with ap/);
    expect(ap.stderr).toMatch(/warning: --threads .*ignored with ap/);
    const patience = await cli(...base, "--patience", "2", "--out", "p.model");
    expect(patience.stderr).toMatch(/warning: --patience needs --dev/);
    const viterbi = await cli(
      "tag",
      "--model",
      "chunks.model",
      "--data",
      "chunks-dev.conll",
      "--max-iterations",
      "5",
    );
    // A decoder option the chosen decoder does not declare is refused, naming the decoder.
    expectCleanExit(viterbi, 2);
    expect(viterbi.stderr).toMatch(/decoder "viterbi" has no option "max-iterations"/);
  });
});

describe("9. messages name the file and line", () => {
  it("a 1 MB line, CoNLL read as UMass, a directory as data, a bad label, --dev's missing file", async () => {
    await writeFile(join(dir, "long.conll"), `the DT B-NP\n${"x".repeat(1_000_000)}\n\n`);
    const long = await cli(
      "train",
      "--data",
      "long.conll",
      "--preset",
      "chunking",
      "--out",
      "l.model",
    );
    expectCleanExit(long, 3);
    expect(long.stderr).toMatch(/^lagrange: long\.conll:2: found 1 column: expected 3/m);
    expect(long.stderr.length).toBeLessThan(2000);
    await writeFile(join(dir, "long.txt"), `${"y".repeat(1_000_000)}\n`);
    const longEval = await cli("eval", "long.txt");
    expectCleanExit(longEval, 3);
    expect(longEval.stderr).toMatch(/long\.txt:1: expected at least two fields/);
    expect(longEval.stderr.length).toBeLessThan(2000);

    const asUmass = await cli(
      "tag",
      "--model",
      "chunks.model",
      "--data",
      "chunks-dev.conll",
      "--format",
      "umass",
    );
    expectCleanExit(asUmass, 3);
    expect(asUmass.stderr).toMatch(
      /chunks-dev\.conll:1 \(token 1\): has 1 column\(s\); expected 2: word, pos/,
    );

    await mkdir(join(dir, "a-folder"), { recursive: true });
    const folder = await cli(
      "train",
      "--data",
      "a-folder",
      "--preset",
      "chunking",
      "--out",
      "f.model",
    );
    expectCleanExit(folder, 2);
    expect(folder.stderr).toMatch(/--data:? a-folder: is a directory/);

    await writeFile(join(dir, "slip.conll"), "the DT B-NP\ncat NN Q-NP\n\n");
    const label = await cli(
      "train",
      "--data",
      "slip.conll",
      "--preset",
      "chunking",
      "--out",
      "s.model",
    );
    expectCleanExit(label, 3);
    expect(label.stderr).toMatch(/slip\.conll:2: /);

    const dev = await cli(
      "train",
      "--data",
      "chunks.conll",
      "--preset",
      "chunking",
      "--dev",
      "gone.conll",
      "--out",
      "d.model",
    );
    expect(dev.stderr).toMatch(/--dev: gone\.conll/);
    expect(dev.stderr).not.toMatch(/--data/);
  });

  it("eval reads CRLF files as train and tag do", async () => {
    const tagged = await cli(
      "tag",
      "--model",
      "chunks.model",
      "--data",
      "chunks-dev.conll",
      "--out",
      "lf.txt",
    );
    expectCleanExit(tagged, 0);
    const lf = readFileSync(join(dir, "lf.txt"), "utf8");
    await writeFile(join(dir, "crlf.txt"), lf.replaceAll("\n", "\r\n"));
    const a = await cli("eval", "lf.txt");
    const b = await cli("eval", "crlf.txt");
    expectCleanExit(b, 0);
    expect(b.stdout).toBe(a.stdout);
    await writeFile(
      join(dir, "crlf.conll"),
      readFileSync(join(dir, "chunks-dev.conll"), "utf8").replaceAll("\n", "\r\n"),
    );
    const tagCrlf = await cli("tag", "--model", "chunks.model", "--data", "crlf.conll");
    expect(tagCrlf.stdout).toBe(lf);
  });
});

describe("the probe leaves the folder as it found it", () => {
  it("no temporary file anywhere", () => {
    expect(strayTemporaryFiles(dir)).toEqual([]);
    expect(listFiles(dir).length).toBeGreaterThan(0);
  });
});
