import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { formatConll, generateCitationSentences, generateCitations } from "@lagrange/datasets";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./probe/cli-process.js";
import { run } from "./testing/run-cli.js";

let dir: string;
let model: string;
let devText: string;
let whole: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "lagrange-tag-stream-"));
  model = join(dir, "m.model");
  const docs = join(dir, "train.docs");
  await writeFile(
    docs,
    `${generateCitations(120, { seed: 7 })
      .map((c) => c.inline)
      .join("\n")}\n`,
  );
  const trained = await run([
    "train",
    "--data",
    docs,
    "--preset",
    "citation",
    "--max-iterations",
    "8",
    "--out",
    model,
  ]);
  expect(trained.code, trained.stderr).toBe(0);
  devText = formatConll(generateCitationSentences(30, { seed: 8 }));
  const dev = join(dir, "dev.conll");
  await writeFile(dev, devText);
  // Today's whole-file tagging, the reference.
  const out = join(dir, "whole.conll");
  const tagged = await run(["tag", "--model", model, "--data", dev, "--out", out]);
  expect(tagged.code, tagged.stderr).toBe(0);
  whole = await readFile(out, "utf8");
}, 120_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("lagrange tag --data - (streaming)", () => {
  it("tags standard input on two threads into standard output, byte for byte as a file", async () => {
    const r = await runCli(
      ["tag", "--model", model, "--data", "-", "--threads", "2", "--window", "8"],
      {
        cwd: dir,
        stdin: devText,
      },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(whole);
    // Citation labels: field F1 at every level, as `lagrange eval` scores the output.
    expect(r.stderr).toMatch(
      /tagged 30 sequences, .* on 2 threads; chunk F1 [\d.]+ \(hierarchical-BIO, segments at every level; .*token accuracy [\d.]+%\)/,
    );
  }, 60_000);

  it("stops at a malformed record with <stdin>:line, or skips it, counts it and exits 3", async () => {
    const lines = devText.split("\n");
    const at = lines.indexOf("", lines.length >> 1) + 1; // first line of a sentence mid-stream
    lines[at] = `${lines[at]} extra`;
    const bad = lines.join("\n");
    const stop = await runCli(["tag", "--model", model, "--data", "-"], { cwd: dir, stdin: bad });
    expect(stop.code).toBe(3);
    expect(stop.stderr).toContain(`<stdin>:${at + 1}: found 3 columns: expected 2`);
    const before = whole.split("\n\n").slice(0, lines.slice(0, at).filter((l) => l === "").length);
    expect(stop.stdout).toBe(`${before.join("\n\n")}\n\n`);

    const skip = await runCli(
      ["tag", "--model", model, "--data", "-", "--on-error", "skip", "--output-format", "ndjson"],
      { cwd: dir, stdin: bad },
    );
    expect(skip.code).toBe(3);
    expect(skip.stderr).toContain(`skipped <stdin>:${at + 1}: found 3 columns`);
    expect(skip.stderr).toContain("skipped 1 malformed record(s)");
    expect(skip.stdout.trimEnd().split("\n")).toHaveLength(29);
  }, 60_000);
});
