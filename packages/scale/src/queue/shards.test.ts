import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseInlineTags } from "@lagrange/datasets";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { type Shard, shardCorpus } from "./shards.js";

const dir = mkdtempSync(join(tmpdir(), "lagrange-shards-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function shardsOf(
  text: string,
  format: "conll" | "inline",
  size: number,
  chunkBytes?: number,
): Promise<Shard[]> {
  const path = join(dir, `${format}-${size}.txt`);
  writeFileSync(path, text);
  const out: Shard[] = [];
  for await (const shard of shardCorpus(path, format, size, undefined, chunkBytes)) out.push(shard);
  return out;
}

/** The cutting rule line by line on the whole text: what the chunked cutter must agree with. */
function referenceShards(text: string, format: "conll" | "inline", size: number): Shard[] {
  const lines = text.replace(/\r\n/g, "\n").split("\n");
  if (lines.at(-1) === "") lines.pop();
  const out: Shard[] = [];
  let current = { firstLine: 1, sentences: 0, text: "" };
  let inSentence = false;
  // Inline: a first non-blank line like <NEWREFERENCE> makes records run from one such line to the next.
  const first = format === "inline" ? lines.find((l) => !/^[ \t]*$/.test(l))?.trim() : undefined;
  const separator = first !== undefined && /^<NEW[A-Z_]*>$/.test(first) ? first : undefined;
  lines.forEach((line, i) => {
    const blank = /^[ \t]*$/.test(line);
    const starts = separator !== undefined ? line.trim() === separator : !blank && !inSentence;
    if (starts) {
      if (current.sentences === size) {
        out.push({ index: out.length, ...current });
        current = { firstLine: i + 1, sentences: 0, text: "" };
      }
      current.sentences++;
      inSentence = format !== "inline";
    } else if (blank) inSentence = false;
    current.text += `${line}\n`;
  });
  if (current.text !== "") out.push({ index: out.length, ...current });
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

  it("agrees with the line-by-line rule whatever the chunk boundaries and line ends", async () => {
    const piece = fc.constantFrom(
      "a X",
      "bé Y",
      "€",
      " ",
      "\t",
      "\n",
      "\n",
      "\r\n",
      "\n\n",
      "<NEWREFERENCE>",
      "<a>",
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(piece, { maxLength: 40 }).map((parts) => parts.join("")),
        fc.constantFrom("conll" as const, "inline" as const),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 1, max: 9 }),
        async (text, format, size, chunkBytes) => {
          expect(await shardsOf(text, format, size, chunkBytes)).toEqual(
            referenceShards(text, format, size),
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it("counts a Cora record (its <NEWREFERENCE> line and its text) once, and cuts before its separator", async () => {
    const record = (i: number) =>
      `<NEWREFERENCE>\n<author> A${i}. </author> <title> T${i} </title>\n`;
    const text = Array.from({ length: 5 }, (_, i) => record(i)).join("");
    const shards = await shardsOf(text, "inline", 2, 7);
    expect(shards.map((s) => [s.index, s.firstLine, s.sentences])).toEqual([
      [0, 1, 2],
      [1, 5, 2],
      [2, 9, 1],
    ]);
    expect(shards.map((s) => s.text)).toEqual([
      record(0) + record(1),
      record(2) + record(3),
      record(4),
    ]);
    // What a worker parses: every shard opens on the separator, so it reads as the file does.
    expect(shards.map((s) => parseInlineTags(s.text).length)).toEqual([2, 2, 1]);
  });

  it("refuses a shard size that is not a positive integer", async () => {
    await expect(shardsOf("a X\n", "conll", 0)).rejects.toThrow(/positive integer/);
  });

  it("refuses CR-only line ends (old Mac files) and stray CRs at their line, as the readers do", async () => {
    for (const chunkBytes of [2, 3, 1 << 20]) {
      await expect(shardsOf("a X\rb Y\r\rc Z\r", "conll", 1, chunkBytes)).rejects.toThrow(
        /:1: lines end in CR only \(old Mac line endings\); convert them to LF or CRLF/,
      );
      await expect(shardsOf("a X\r\nb Y\r\r\n", "conll", 1, chunkBytes)).rejects.toThrow(
        /:2: a carriage return \(CR\) inside the line/,
      );
    }
  });

  it.skipIf(process.platform === "win32")(
    "reads a FIFO to its end (core's input opener)",
    async () => {
      const fifo = join(dir, "corpus-fifo");
      execFileSync("mkfifo", [fifo]);
      writeFileSync(join(dir, "corpus.txt"), "a X\n\nb Y\n\n");
      spawn("sh", ["-c", 'cat "$1" > "$2"', "sh", join(dir, "corpus.txt"), fifo], {
        stdio: "ignore",
      });
      const shards: Shard[] = [];
      for await (const shard of shardCorpus(fifo, "conll", 1)) shards.push(shard);
      expect(shards.map((s) => s.text)).toEqual(["a X\n\n", "b Y\n\n"]);
    },
  );
});
