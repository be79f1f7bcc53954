import { existsSync, readdirSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brownClusters, formatClusterPaths, parseClusterPaths } from "@lagrange/clusters";
import { isAbortError } from "@lagrange/core";
import { findMirrorDir } from "@lagrange/datasets/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clustersCommand } from "./commands/clusters.js";
import { run } from "./testing/run-cli.js";

const LINES = [
  "the cat chased the mouse",
  "the dog chased the cat",
  "a mouse saw a dog",
  "the mouse ran",
  "a cat ran",
];

describe("lagrange clusters", () => {
  let dir: string;
  let text: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "lagrange-cli-clusters-"));
    text = join(dir, "text.txt");
    await writeFile(text, `${LINES.join("\n")}\n`);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("writes the paths file the library makes from the same text", async () => {
    const out = join(dir, "paths.txt");
    const result = await run(["clusters", "--text", text, "--clusters", "3", "--out", out]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/clustered 8 word types \(21 tokens\) into 3 clusters/);
    const written = await readFile(out, "utf8");
    const library = await brownClusters(
      LINES.map((l) => l.split(" ")),
      { clusters: 3 },
    );
    expect(written).toBe(formatClusterPaths(library));
    const back = parseClusterPaths(written, out);
    expect(new Set(back.paths).size).toBe(3);
    expect(back.pathOf("the")).toBe(library.pathOf("the"));
  });

  it("drops rare words with --min-count and reads a file twice as two inputs", async () => {
    const out = join(dir, "paths-min.txt");
    const result = await run([
      "clusters",
      "--text",
      text,
      text,
      "--clusters",
      "2",
      "--min-count",
      "5",
      "--out",
      out,
    ]);
    expect(result.code).toBe(0);
    const back = parseClusterPaths(await readFile(out, "utf8"), out);
    // Counts double with the file read twice; words seen fewer than 5 times are left out.
    expect([...back.words].sort()).toEqual(["a", "cat", "mouse", "the"].sort());
    expect(back.counts[back.words.indexOf("the")]).toBe(10);
  });

  it("refuses a command line without text, with a missing file or a bad count (exit 2)", async () => {
    const out = join(dir, "never.txt");
    for (const args of [
      ["clusters", "--out", out],
      ["clusters", "--text", join(dir, "missing.txt"), "--out", out],
      ["clusters", "--text", text, "--clusters", "0", "--out", out],
      ["clusters", "--corpus", "no-such-corpus", "--out", out],
      ["clusters", "--corpus", "conll2003:test", "--out", out],
      ["clusters", "--text", text, "--out", text],
    ]) {
      const result = await run(args);
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
    expect(existsSync(out)).toBe(false);
  });

  it.skipIf(findMirrorDir() === undefined)(
    "clusters the words of a registry split (--corpus dataset:split)",
    async () => {
      const out = join(dir, "conll2000.paths");
      const args = ["clusters", "--corpus", "conll2000:train", "--min-count", "200"];
      const result = await run([...args, "--clusters", "8", "--out", out]);
      expect(result.code, result.stderr).toBe(0);
      const back = parseClusterPaths(await readFile(out, "utf8"), out);
      expect(new Set(back.paths).size).toBe(8);
      expect(back.pathOf("the")).toBeDefined();
      expect(Math.min(...back.counts)).toBeGreaterThanOrEqual(200);
    },
  );

  it("names file:line of a binary input (exit 3)", async () => {
    const binary = join(dir, "binary.txt");
    await writeFile(binary, Buffer.from("fine words\nbad\u0000bytes\n"));
    const result = await run(["clusters", "--text", binary, "--out", join(dir, "b.txt")]);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(`${binary}:2`);
  });

  it("stops on its signal and leaves no file behind", async () => {
    const out = join(dir, "stopped.txt");
    const controller = new AbortController();
    controller.abort();
    const error = await clustersCommand(
      { text: [text], clusters: 2, minCount: 1, out },
      controller.signal,
    ).catch((e: unknown) => e);
    expect(isAbortError(error)).toBe(true);
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(dir).filter((f) => f.includes("stopped"))).toEqual([]);
  });
});
