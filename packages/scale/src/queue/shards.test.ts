import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type Shard, shardCorpus } from "./shards.js";

const dir = mkdtempSync(join(tmpdir(), "lagrange-shards-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function shardsOf(text: string, format: "conll" | "inline", size: number): Promise<Shard[]> {
  const path = join(dir, `${format}-${size}.txt`);
  writeFileSync(path, text);
  const out: Shard[] = [];
  for await (const shard of shardCorpus(path, format, size)) out.push(shard);
  return out;
}

describe("shardCorpus", () => {
  it("cuts CoNLL between sentences only; the shards laid end to end are the file", async () => {
    const text = "a X\nb Y\n\n\nc X\n\nd Y\ne X\n\nf Y\n";
    const shards = await shardsOf(text, "conll", 2);
    expect(shards.map((s) => s.sentences)).toEqual([2, 2]);
    expect(shards.map((s) => s.firstLine)).toEqual([1, 7]);
    expect(shards.map((s) => s.text).join("")).toBe(text);
    expect(shards[1]!.text.startsWith("d Y\n")).toBe(true);
  });

  it("cuts inline data between lines", async () => {
    const shards = await shardsOf("one\ntwo\n\nthree\n", "inline", 2);
    expect(shards.map((s) => [s.index, s.firstLine, s.sentences])).toEqual([
      [0, 1, 2],
      [1, 4, 1],
    ]);
  });

  it("refuses a shard size that is not a positive integer", async () => {
    await expect(shardsOf("a X\n", "conll", 0)).rejects.toThrow(/positive integer/);
  });
});
