import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  parseLineBatch,
  readLineBatches,
  readRecords,
  type StreamFormat,
  type StreamRecord,
} from "./records.js";

/** A record as plain data: a sentence's fields, or an error's message. */
function plain(record: StreamRecord): unknown {
  return record.kind === "error" ? { error: record.error.message } : { ...record.sentence };
}

async function whole(text: string, format: StreamFormat): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const records of readRecords([text], { format, file: "in.txt" })) {
    for (const r of records) out.push(plain(r));
  }
  return out;
}

async function batched(text: string, format: StreamFormat, records: number): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const batch of readLineBatches([text], { format, file: "in.txt", records })) {
    for (const r of parseLineBatch(batch, { format, file: "in.txt" })) out.push(plain(r));
  }
  return out;
}

describe("readLineBatches + parseLineBatch", () => {
  it("read CoNLL as the whole stream is read, whatever the batch size: separators, widths, documents, bad blocks", async () => {
    // Lines that exercise every decision the reader carries from batch to batch.
    const line = fc.constantFrom(
      "a",
      "a X",
      "b Y",
      "c\tZ",
      "a b X",
      "a  X",
      "-DOCSTART-",
      "-DOCSTART- -X- O",
      "",
      "",
      "",
      " ",
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(line, { maxLength: 30 }),
        fc.integer({ min: 1, max: 4 }),
        async (lines, records) => {
          const text = lines.join("\n");
          expect(await batched(text, "conll", records)).toEqual(await whole(text, "conll"));
        },
      ),
      { numRuns: 400 },
    );
  });

  it("read NDJSON line by line as the whole stream is read", async () => {
    const line = fc.constantFrom(
      '{"tokens":["a","b"]}',
      '{"tokens":["a"],"labels":["X"]}',
      '{"tokens":[]}',
      "not json",
      "",
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(line, { maxLength: 20 }),
        fc.integer({ min: 1, max: 3 }),
        async (lines, records) => {
          const text = lines.join("\n");
          expect(await batched(text, "ndjson", records)).toEqual(await whole(text, "ndjson"));
        },
      ),
      { numRuns: 200 },
    );
  });

  it("cut CoNLL only between sentences, each batch at most `records` long", async () => {
    const batches = [];
    for await (const batch of readLineBatches(["a X\nb Y\n\nc X\n\n\nd Y\n"], {
      format: "conll",
      file: "in.txt",
      records: 2,
    })) {
      batches.push(batch);
    }
    expect(batches.map((b) => [b.firstLine, b.records, b.lines.length])).toEqual([
      [1, 2, 6],
      [7, 1, 1],
    ]);
  });
});
