import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseConll, readConll } from "./conll.js";
import { parseConllu, readConllu } from "./conllu.js";
import { parseCrfsuite, readCrfsuite } from "./crfsuite.js";
import { DataFormatError } from "./errors.js";
import { parseInlineTags, readInlineTags } from "./inline.js";
import { collect, type TextSource } from "./io.js";
import { parseUmassCitations, readUmassCitations } from "./umass.js";

/** Every reader, streaming and in memory, in strict and in lenient form. */
const streaming: [string, (source: TextSource) => Promise<unknown>][] = [
  ["CoNLL", (s) => collect(readConll(s))],
  ["CoNLL-U", (s) => collect(readConllu(s))],
  ["UMass strict", (s) => collect(readUmassCitations(s))],
  [
    "UMass repair",
    (s) => collect(readUmassCitations(s, { malformed: "repair", onIssue: () => undefined })),
  ],
  ["inline tags", (s) => collect(readInlineTags(s))],
  ["CRFsuite", (s) => collect(readCrfsuite(s))],
];
const inMemory: [string, (text: string) => unknown][] = [
  ["CoNLL", (t) => parseConll(t)],
  ["CoNLL tab, middle labels", (t) => parseConll(t, { separator: "tab", labelColumn: 1 })],
  ["CoNLL-U", (t) => parseConllu(t)],
  ["UMass strict", (t) => parseUmassCitations(t)],
  ["UMass skip", (t) => parseUmassCitations(t, { malformed: "skip" })],
  ["inline tags", (t) => parseInlineTags(t)],
  ["CRFsuite", (t) => parseCrfsuite(t)],
];

async function outcome(run: () => unknown): Promise<"ok" | "DataFormatError"> {
  try {
    await run();
    return "ok";
  } catch (error) {
    if (!(error instanceof DataFormatError)) throw error;
    // The error must say where: a file name and a real 1-based line, in the message too.
    expect(error.file).not.toBe("");
    expect(Number.isInteger(error.line) && error.line >= 1).toBe(true);
    expect(error.message.startsWith(`${error.file}:${error.line}`)).toBe(true);
    return "DataFormatError";
  }
}

async function* chunks(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

/** Text made of the characters that matter to the parsers, so that inputs get past the first check. */
const structured = fc.string({
  unit: fc.constantFrom(
    "a",
    "B-x",
    "I-y",
    "O",
    " ",
    "\t",
    "\n",
    "\n\n",
    "<",
    ">",
    "/",
    "<title>",
    "</title>",
    "<a>",
    "</a>",
    "#",
    ":",
    "\\",
    "1",
    "1-2",
    "2.1",
    "-DOCSTART-",
    "_",
    "@weight",
    "<NEW_HEADER>",
    "\r",
    "\0",
    "é",
  ),
  maxLength: 60,
});

/** Line-shaped text: tab-separated rows of mostly plausible fields, so that CoNLL-U inputs sometimes parse. */
const rows = fc
  .array(
    fc.oneof(
      { weight: 1, arbitrary: fc.constantFrom("", "# sent_id = 1", "<a> x </a>", "O\tf:1") },
      {
        weight: 6,
        arbitrary: fc.tuple(
          fc.constantFrom("next", "next", "next", "1-2", "0.1", "x"),
          fc.oneof(
            {
              weight: 4,
              arbitrary: fc.array(fc.constantFrom("_", "_", "_", "x", "a b"), {
                minLength: 9,
                maxLength: 9,
              }),
            },
            {
              weight: 1,
              arbitrary: fc.array(fc.constantFrom("_", "x", ""), { minLength: 8, maxLength: 10 }),
            },
          ),
        ),
      },
    ),
    { maxLength: 8 },
  )
  .map((lines) => {
    let word = 0;
    return lines
      .map((line) => {
        if (typeof line === "string") {
          if (line === "") word = 0;
          return line;
        }
        const [id, rest] = line;
        return [id === "next" ? String(++word) : id, ...rest].join("\t");
      })
      .join("\n");
  });

/** Any code points, lone surrogates included (fast-check's own "binary" unit is slow to generate). */
const anyText = fc
  .array(fc.integer({ min: 0, max: 0x10ffff }), { maxLength: 80 })
  .map((points) => String.fromCodePoint(...points));

describe("fuzz: readers either succeed or throw DataFormatError", () => {
  it("random bytes, in random chunk sizes", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 200 }),
        fc.integer({ min: 1, max: 64 }),
        async (bytes, size) => {
          for (const [, read] of streaming) {
            expect(["ok", "DataFormatError"]).toContain(
              await outcome(() => read(chunks(bytes, size))),
            );
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it("random strings built from the formats' own characters", async () => {
    const seen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(fc.oneof(structured, rows), async (text) => {
        for (const [name, parse] of inMemory) {
          const result = await outcome(() => parse(text));
          expect(["ok", "DataFormatError"]).toContain(result);
          seen.add(`${name}: ${result}`);
        }
      }),
      { numRuns: 300 },
    );
    // The inputs reach past the first check: every reader both accepts and rejects some of them.
    for (const [name] of inMemory) {
      expect(seen).toContain(`${name}: ok`);
      expect(seen).toContain(`${name}: DataFormatError`);
    }
  });

  it("random unicode strings", async () => {
    await fc.assert(
      fc.asyncProperty(anyText, async (text) => {
        for (const [, parse] of inMemory) {
          expect(["ok", "DataFormatError"]).toContain(await outcome(() => parse(text)));
        }
      }),
      { numRuns: 100 },
    );
  });
});
