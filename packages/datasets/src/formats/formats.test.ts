import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type DocumentInfo, groupByDocument, type Sentence } from "../sentence.js";
import { formatConll, parseConll, readConll, readConllFile, writeConllFile } from "./conll.js";
import { formatConllu, parseConllu, readConllu, writeConlluFile } from "./conllu.js";
import {
  type CrfsuiteInstance,
  formatCrfsuite,
  parseCrfsuite,
  readCrfsuite,
  readCrfsuiteFile,
  writeCrfsuiteFile,
} from "./crfsuite.js";
import { DataFormatError } from "./errors.js";
import { formatInlineTags, parseInlineTags, readInlineTags } from "./inline.js";
import { collect, sourceLines } from "./io.js";
import {
  type CitationIssue,
  formatUmassCitations,
  parseUmassCitations,
  readUmassCitations,
  readUmassCitationsFile,
  writeUmassCitationsFile,
} from "./umass.js";

let dir = "";
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "lagrange-formats-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Positions are layout, not content: a rewritten file may put a sentence on another line. */
function withoutSource<T>(value: T): unknown {
  return JSON.parse(JSON.stringify(value, (key, v) => (key === "source" ? undefined : v)));
}

/** The text as UTF-8 bytes cut at the given fractions, so chunk edges fall inside lines and characters. */
function byteChunks(text: string, cuts: number[]): Uint8Array[] {
  const bytes = new TextEncoder().encode(text);
  const points = [...new Set(cuts.map((c) => Math.floor(c * bytes.length)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let from = 0;
  for (const p of [...points, bytes.length]) {
    if (p > from) chunks.push(bytes.subarray(from, p));
    from = Math.max(from, p);
  }
  return chunks;
}

async function* asAsync<T>(items: T[]): AsyncGenerator<T> {
  for (const item of items) yield item;
}

function expectFormatError(run: () => unknown, line: number, pattern: RegExp): DataFormatError {
  let caught: unknown;
  try {
    run();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(DataFormatError);
  const error = caught as DataFormatError;
  expect(error.line).toBe(line);
  expect(error.message).toMatch(pattern);
  expect(error.message.startsWith(`${error.file}:${line}`)).toBe(true);
  return error;
}

async function expectAsyncFormatError(
  run: () => Promise<unknown>,
  line: number,
  pattern: RegExp,
): Promise<DataFormatError> {
  const error = await run().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DataFormatError);
  expect((error as DataFormatError).line).toBe(line);
  expect((error as DataFormatError).message).toMatch(pattern);
  return error as DataFormatError;
}

const cuts = fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 6 });
const PLAIN = ["a", "Z", "0", ".", "-", "$", "é", "日", "😀", "'", "_"];

// ---------------------------------------------------------------------------------------------
// CoNLL

const conllCorpus = fc
  .record({
    separator: fc.constantFrom("tab" as const, "space" as const),
    width: fc.integer({ min: 1, max: 4 }),
    shapes: fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 6 }),
    documentSteps: fc.option(
      fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 6, maxLength: 6 }),
    ),
    seed: fc.array(
      fc.string({ unit: fc.constantFrom(...PLAIN, " "), minLength: 1, maxLength: 5 }),
      {
        minLength: 120,
        maxLength: 120,
      },
    ),
  })
  .map(({ separator, width, shapes, documentSteps, seed }) => {
    // Spaces only inside tab-separated fields of multi-column files, where they cannot be mistaken for separators.
    const spaces = separator === "tab" && width >= 2;
    let k = 0;
    const next = () => {
      const s = seed[k++ % seed.length]!;
      const cleaned = spaces ? s : s.replaceAll(" ", "_");
      return cleaned.trim() === "" || cleaned !== cleaned.trim() ? "x" : cleaned;
    };
    let document: DocumentInfo | undefined;
    let index = -1;
    const sentences: Sentence[] = shapes.map((n, s) => {
      const columns = Array.from({ length: width }, () => Array.from({ length: n }, next));
      const sentence: Sentence = { tokens: columns[0]!, columns };
      if (width >= 2) sentence.labels = columns[width - 1]!;
      if (documentSteps !== null && (s === 0 || documentSteps[s]! > 0)) {
        index += s === 0 ? documentSteps[0]! + 1 : documentSteps[s]!;
        const marker = ["-DOCSTART-", ...new Array<string>(Math.max(0, width - 1)).fill("-X-")];
        document = { index, marker };
      }
      if (document !== undefined) sentence.document = document;
      return sentence;
    });
    return { separator, sentences };
  });

describe("CoNLL columns", () => {
  it("reads back what it writes, from text, from byte chunks and from a file", async () => {
    await fc.assert(
      fc.asyncProperty(conllCorpus, cuts, async ({ separator, sentences }, at) => {
        const text = formatConll(sentences, { separator });
        const parsed = parseConll(text);
        expect(withoutSource(parsed)).toEqual(withoutSource(sentences));
        const streamed = await collect(
          readConll(asAsync(byteChunks(text, at)), { file: "<text>" }),
        );
        expect(streamed).toEqual(parsed);
        expect(formatConll(parsed, { separator })).toBe(text);
      }),
      { numRuns: 60 },
    );
    const { separator, sentences } = fc.sample(conllCorpus, { numRuns: 1, seed: 7 })[0]!;
    const path = join(dir, "sample.conll");
    await writeConllFile(path, asAsync(sentences), { separator });
    expect(withoutSource(await readConllFile(path))).toEqual(withoutSource(sentences));
  });

  it("keeps -DOCSTART- lines as documents and groups sentences by them", () => {
    const text =
      "-DOCSTART- -X- O O\n\nEU NNP I-NP I-ORG\nrejects VBZ I-VP O\n\nPeter NNP I-NP I-PER\n\n-DOCSTART- -X- O O\n\nBonn NNP I-NP I-LOC\n";
    const sentences = parseConll(text, { file: "eng.mini" });
    expect(sentences.map((s) => s.tokens)).toEqual([["EU", "rejects"], ["Peter"], ["Bonn"]]);
    expect(sentences.map((s) => s.document?.index)).toEqual([0, 0, 1]);
    expect(sentences[0]!.document).toBe(sentences[1]!.document);
    expect(sentences[0]!.document?.marker).toEqual(["-DOCSTART-", "-X-", "O", "O"]);
    expect(sentences[0]!.labels).toEqual(["I-ORG", "O"]);
    expect(sentences[0]!.columns[1]).toEqual(["NNP", "VBZ"]);
    expect(sentences[2]!.source).toEqual({ file: "eng.mini", line: 10, tokenPerLine: true });
    expect(groupByDocument(sentences).map((g) => g.sentences.length)).toEqual([2, 1]);
    expect(formatConll(sentences)).toBe(text.replace(/\n$/, "\n\n"));
  });

  it("detects tab separation per file and treats whitespace-only lines as sentence breaks", () => {
    const sentences = parseConll("New York\tB-LOC\nis\tO\n\t\nok\tO\n");
    expect(sentences.map((s) => s.tokens)).toEqual([["New York", "is"], ["ok"]]);
    expect(parseConll("a b c\n", { labelColumn: null, tokenColumn: 1 })[0]).toMatchObject({
      tokens: ["b"],
    });
    expect(parseConll("a b c\n", { labelColumn: 1 })[0]!.labels).toEqual(["b"]);
    expect(parseConll("only\ntokens\n")[0]!.labels).toBeUndefined();
  });

  it("names file and line for an inconsistent column count, an empty column, an empty file", () => {
    expectFormatError(
      () => parseConll("a B\nb C\nc\n", { file: "t.conll" }),
      3,
      /found 1 column: expected 2 space-separated/,
    );
    expectFormatError(
      () => parseConll("a\tB\n\nb\t\tC\n", { file: "t.conll" }),
      3,
      /empty column 2/,
    );
    expectFormatError(
      () => parseConll("", { file: "empty.conll" }),
      1,
      /expected at least one sentence/,
    );
    expectFormatError(
      () => parseConll("\n\n  \n", { file: "blank.conll" }),
      3,
      /expected at least one sentence/,
    );
    expectFormatError(() => parseConll("a B\nb\0C\n"), 2, /NUL byte/);
    expectFormatError(
      () => parseConll("a B\n", { labelColumn: 5 }),
      1,
      /labelColumn 5 out of range/,
    );
  });

  it("reports invalid UTF-8 with its line, also when a character is cut by a chunk edge", async () => {
    const good = new TextEncoder().encode("héllo O\nwörld O\n");
    const cut = [good.subarray(0, 2), good.subarray(2, 11), good.subarray(11)];
    expect((await collect(readConll(asAsync(cut))))[0]!.tokens).toEqual(["héllo", "wörld"]);
    const bad = Uint8Array.from([
      ...new TextEncoder().encode("a O\nb O\nc"),
      0xff,
      ...new TextEncoder().encode(" O\n"),
    ]);
    await expectAsyncFormatError(
      () => collect(readConll(asAsync([bad]), { file: "bad.conll" })),
      3,
      /invalid UTF-8 at byte 2/,
    );
    const truncated = new TextEncoder().encode("a O\nb é").subarray(0, -1);
    await expectAsyncFormatError(
      () => collect(readConll(asAsync([truncated]))),
      2,
      /invalid UTF-8/,
    );
  });

  it("reads a Node Readable, strips a BOM and CRLF, and says that a missing file is missing", async () => {
    const sentences = await collect(
      readConll(Readable.from([Buffer.from("\uFEFFa B\r\nb C\r\n")])),
    );
    expect(sentences[0]!.tokens).toEqual(["a", "b"]);
    expect(sentences[0]!.labels).toEqual(["B", "C"]);
    // core's InputFileError: a usage error (the caller named no file) that keeps Node's errno.
    await expect(readConllFile(join(dir, "missing.conll"))).rejects.toMatchObject({
      code: "usage",
      errno: "ENOENT",
      message: `${join(dir, "missing.conll")}: no such file`,
    });
  });

  it("refuses lines that end in CR alone (old Mac files) and stray CRs, naming the line", async () => {
    const crOnly = "a B\rb C\r\rc D\r";
    for (const source of [[crOnly], [Buffer.from(crOnly)], [Buffer.from(`${crOnly}\n`)]]) {
      await expect(collect(readConll(source, { file: "mac.conll" }))).rejects.toThrow(
        "mac.conll:1: lines end in CR only (old Mac line endings); convert them to LF or CRLF",
      );
    }
    expect(() => parseConll(crOnly, { file: "mac.conll" })).toThrow(
      "mac.conll:1: lines end in CR only (old Mac line endings)",
    );
    // A CR that ends no line further on (CRLF text converted twice gives CR CR LF) is refused there.
    await expect(
      collect(readConll([Buffer.from("a B\r\nb C\r\r\n")], { file: "twice.conll" })),
    ).rejects.toThrow(
      "twice.conll:2: a carriage return (CR) inside the line: expected lines that end in LF or CRLF",
    );
    // CRLF split between two chunks is still a line end.
    const split = await collect(readConll([Buffer.from("a B\r"), Buffer.from("\nb C\r\n")]));
    expect(split[0]!.tokens).toEqual(["a", "b"]);
  });

  it("reads one long line in time linear in its length: a line is joined once, not once per chunk", async () => {
    // 4 MB in 64 KiB chunks: joining the line once per chunk would copy about 130 MB; once, 4 MB.
    const piece = Buffer.from("word ".repeat(13_107));
    const chunks = Array.from({ length: 64 }, () => piece);
    const copied = vi.spyOn(Uint8Array.prototype, "set");
    try {
      const lines = [];
      for await (const batch of sourceLines([...chunks, Buffer.from("\n")], "long.txt")) {
        lines.push(...batch);
      }
      expect(lines).toHaveLength(1);
      expect(lines[0]!.length).toBe(64 * piece.length);
      const bytesCopied = copied.mock.calls.reduce(
        (sum, [source]) => sum + (source as ArrayLike<number>).length,
        0,
      );
      expect(bytesCopied).toBeLessThanOrEqual(2 * 64 * piece.length);
    } finally {
      copied.mockRestore();
    }
  });

  it("streams: the first sentence arrives before the source is read to its end", async () => {
    let pulled = 0;
    async function* endless(): AsyncGenerator<string> {
      for (;;) {
        pulled++;
        yield `w${pulled} O\n\n`;
      }
    }
    const reader = readConll(endless());
    const first = await reader.next();
    expect(first.value).toMatchObject({ tokens: ["w1"], labels: ["O"] });
    expect(pulled).toBeLessThanOrEqual(2);
    await reader.return(undefined);
  });

  it("stops when aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      collect(readConll(asAsync(["a B\n"]), { signal: controller.signal })),
    ).rejects.toThrow(/abort/i);
  });

  it("writes atomically: a failing write leaves the old file and no temporary file", async () => {
    const path = join(dir, "atomic.conll");
    await writeFile(path, "old\n");
    const bad: Sentence = { tokens: ["x y"], columns: [["x y"], ["O"]] };
    const good: Sentence = { tokens: ["x"], columns: [["x"], ["O"]] };
    await expect(writeConllFile(path, [good, bad])).rejects.toThrow(/sentence 2, token 1/);
    expect(await readFile(path, "utf8")).toBe("old\n");
    expect((await readdir(dir)).filter((f) => f.includes("atomic"))).toEqual(["atomic.conll"]);
  });
});

// ---------------------------------------------------------------------------------------------
// CoNLL-U

const conlluField = fc.string({
  unit: fc.constantFrom(...PLAIN, " ", "=", "|"),
  minLength: 1,
  maxLength: 4,
});
const conlluCorpus = fc.array(
  fc.record({
    words: fc.array(fc.array(conlluField, { minLength: 9, maxLength: 9 }), {
      minLength: 1,
      maxLength: 5,
    }),
    ranges: fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
    empties: fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
    newdoc: fc.boolean(),
  }),
  { minLength: 1, maxLength: 4 },
);

type ConlluCorpus = typeof conlluCorpus extends fc.Arbitrary<infer T> ? T : never;

function conlluText(corpus: ConlluCorpus): string {
  let text = "";
  corpus.forEach((s, k) => {
    if (s.newdoc) text += `# newdoc id = doc${k}\n`;
    text += `# sent_id = s${k}\n# text = ${s.words.map((w) => w[0]).join(" ")}\n`;
    const n = s.words.length;
    for (let i = 0; i < n; i++) {
      if (s.empties[i] && i > 0) text += `${i}.1\t${"_\t".repeat(8)}_\n`;
      if (s.ranges[i] && i + 2 <= n) text += `${i + 1}-${i + 2}\tmerged\t${"_\t".repeat(7)}_\n`;
      text += `${i + 1}\t${s.words[i]!.join("\t")}\n`;
    }
    text += "\n";
  });
  return text;
}

describe("CoNLL-U", () => {
  it("keeps words only, with multiword ranges and empty nodes aside, and writes the file back byte for byte", async () => {
    await fc.assert(
      fc.asyncProperty(conlluCorpus, cuts, async (corpus, at) => {
        const text = conlluText(corpus);
        const parsed = parseConllu(text);
        expect(parsed.map((s) => s.tokens)).toEqual(corpus.map((s) => s.words.map((w) => w[0])));
        expect(parsed.map((s) => s.labels)).toEqual(corpus.map((s) => s.words.map((w) => w[2])));
        expect(parsed.map((s) => s.columns[0])).toEqual(
          corpus.map((s) => s.words.map((_, i) => String(i + 1))),
        );
        expect(formatConllu(parsed)).toBe(text);
        expect(withoutSource(parseConllu(formatConllu(parsed)))).toEqual(withoutSource(parsed));
        const streamed = await collect(
          readConllu(asAsync(byteChunks(text, at)), { labelField: "XPOS" }),
        );
        expect(streamed.map((s) => s.labels)).toEqual(corpus.map((s) => s.words.map((w) => w[3])));
      }),
      { numRuns: 50 },
    );
  });

  it("reads comments as metadata and newdoc as documents", async () => {
    const text =
      "# newdoc id = d1\n# sent_id = a-1\n# text = don't\n1-2\tdon't\t_\t_\t_\t_\t_\t_\t_\t_\n1\tdo\tdo\tAUX\tVBP\t_\t0\troot\t0:root\t_\n2\tn't\tnot\tPART\tRB\t_\t1\tadvmod\t1:advmod\t_\n\n";
    const [sentence] = parseConllu(text);
    expect(sentence!.tokens).toEqual(["do", "n't"]);
    expect(sentence!.labels).toEqual(["AUX", "PART"]);
    expect(sentence!.meta).toEqual({ "newdoc id": "d1", sent_id: "a-1", text: "don't" });
    expect(sentence!.document).toMatchObject({ index: 0, id: "d1" });
    expect(sentence!.extraLines).toEqual([
      { before: 0, fields: ["1-2", "don't", "_", "_", "_", "_", "_", "_", "_", "_"] },
    ]);
    const path = join(dir, "mini.conllu");
    await writeConlluFile(path, [sentence!]);
    expect(await readFile(path, "utf8")).toBe(text);
    // A sentence from another format gets FORM and UPOS from tokens and labels.
    expect(formatConllu([{ tokens: ["Hi"], columns: [["Hi"], ["UH"]], labels: ["UH"] }])).toBe(
      "1\tHi\t_\tUH\t_\t_\t_\t_\t_\t_\n\n",
    );
  });

  it("names file and line for a wrong field count, a wrong ID, a comment inside a sentence", () => {
    const word = (id: string) => `${id}\tw\tw\tX\tX\t_\t0\troot\t_\t_\n`;
    expectFormatError(
      () => parseConllu(`${word("1")}2\tw\tw\n`, { file: "u" }),
      2,
      /found 3 tab-separated fields: expected 10/,
    );
    expectFormatError(() => parseConllu(`${word("1")}${word("3")}`), 2, /word ID 3: expected 2/);
    expectFormatError(() => parseConllu(`${word("1")}# c\n`), 2, /comment inside a sentence/);
    expectFormatError(() => parseConllu(`${word("1")}${word("x")}`), 2, /expected a word ID/);
    expectFormatError(() => parseConllu("# only a comment\n\n"), 2, /sentence without words/);
    expectFormatError(() => parseConllu(""), 1, /expected at least one sentence/);
  });
});

// ---------------------------------------------------------------------------------------------
// UMass citations (nested inline tags)

type Tree = string | { name: string; children: Tree[] };
const NAMES = [
  "authors",
  "person",
  "person-first",
  "person-last",
  "title",
  "venue",
  "date",
  "year",
];
const WORD = fc
  .string({
    unit: fc.constantFrom(
      "a",
      "B",
      "9",
      ".",
      ",",
      "(",
      ")",
      "[",
      "]",
      "-",
      "&",
      "é",
      "<",
      ">",
      "/",
    ),
    minLength: 1,
    maxLength: 4,
  })
  .filter((w) => !/<\/?[A-Za-z_][A-Za-z0-9_.-]*>/.test(w));
const { tree } = fc.letrec<{ tree: Tree }>((tie) => ({
  tree: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    WORD,
    fc.record({
      name: fc.constantFrom(...NAMES),
      children: fc.array(tie("tree"), { minLength: 1, maxLength: 3 }),
    }),
  ),
}));
const citation = fc
  .array(tree, { minLength: 1, maxLength: 4 })
  .filter((trees) => leaves(trees).length > 0);

function leaves(trees: Tree[]): string[] {
  return trees.flatMap((t) => (typeof t === "string" ? [t] : leaves(t.children)));
}

/** Expected labels, computed from each element's first token rather than by a running stack. */
function expectedBio(trees: Tree[]): string[] {
  const paths: { name: string; first: number }[][] = [];
  let index = 0;
  const walk = (t: Tree, ancestors: { name: string; first: number }[]) => {
    if (typeof t === "string") {
      paths.push(ancestors);
      index++;
      return;
    }
    const self = { name: t.name, first: index };
    for (const c of t.children) walk(c, [...ancestors, self]);
    if (index === self.first) self.first = -1;
  };
  for (const t of trees) walk(t, []);
  return paths.map((p, i) =>
    p.length === 0 ? "O" : p.map((e) => `${e.first === i ? "B" : "I"}-${e.name}`).join("/"),
  );
}

function render(trees: Tree[], gaps: string[]): string {
  const pieces: string[] = [];
  const walk = (t: Tree) => {
    if (typeof t === "string") pieces.push(t);
    else {
      pieces.push(`<${t.name}>`);
      t.children.forEach(walk);
      pieces.push(`</${t.name}>`);
    }
  };
  trees.forEach(walk);
  return pieces.map((p, i) => `${p}${gaps[i % gaps.length]}`).join("");
}

describe("UMass citations", () => {
  const gaps = fc.array(fc.constantFrom(" ", "  ", " \t", "\t"), { minLength: 1, maxLength: 4 });

  it("labels tokens with hierarchical BIO, paths and leaves, and reads back what it writes", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(citation, { minLength: 1, maxLength: 4 }),
        gaps,
        cuts,
        async (lines, gap, at) => {
          const text = lines.map((l) => render(l, gap)).join("\n");
          const { sentences, report } = parseUmassCitations(text);
          expect(report).toMatchObject({
            lines: lines.length,
            wellFormed: lines.length,
            repaired: 0,
            skipped: 0,
          });
          expect(sentences.map((s) => s.tokens)).toEqual(lines.map(leaves));
          const bio = lines.map(expectedBio);
          expect(sentences.map((s) => s.labels)).toEqual(bio);
          const leaf = parseUmassCitations(text, { labels: "leaf" }).sentences.map((s) => s.labels);
          const path = parseUmassCitations(text, { labels: "path" }).sentences.map((s) => s.labels);
          const strip = (l: string) => l.split("/").map((x) => x.slice(2));
          expect(leaf).toEqual(bio.map((ls) => ls.map((l) => (l === "O" ? "O" : strip(l).at(-1)))));
          expect(path).toEqual(
            bio.map((ls) => ls.map((l) => (l === "O" ? "O" : strip(l).join("/")))),
          );
          const written = formatUmassCitations(sentences);
          expect(withoutSource(parseUmassCitations(written).sentences)).toEqual(
            withoutSource(sentences),
          );
          const streamed = await collect(readUmassCitations(asAsync(byteChunks(text, at))));
          expect(withoutSource(streamed)).toEqual(withoutSource(sentences));
        },
      ),
      { numRuns: 80 },
    );
  });

  it("gives the label of the paper's example", () => {
    const line =
      "<authors> <person> <person-first> E. </person-first> <person-last> Montroll , </person-last> </person> and <person> <person-first> B. </person-first> </person> </authors> <title> X </title>";
    const [s] = parseUmassCitations(line).sentences;
    expect(s!.labels).toEqual([
      "B-authors/B-person/B-person-first",
      "I-authors/I-person/B-person-last",
      "I-authors/I-person/I-person-last",
      "I-authors",
      "I-authors/B-person/B-person-first",
      "B-title",
    ]);
    expect(formatUmassCitations([s!])).toBe(`${line}\n`);
  });

  const malformed = [
    "<title> A </title> <venue> <journal> J , </journal>",
    "<venue> <date> <year> 1999 </date> </year> </venue>",
    "<authors> <person> <person-first> B. </<person-first> </person> </authors>",
    "<title> T </title> </venue>",
    "<venue> <thesis> PhD </thesis><institution> MIT </institution> </venue>",
  ];

  it("strict mode names file, line and token column of the first markup error", () => {
    expectFormatError(
      () => parseUmassCitations(`<title> ok </title>\n${malformed[0]}`, { file: "c.docs" }),
      2,
      /c\.docs:2:20: <venue> is never closed/,
    );
    expectFormatError(
      () => parseUmassCitations(malformed[1]!),
      1,
      /<\/date> while <year> still open: expected <\/year> first/,
    );
    expectFormatError(
      () => parseUmassCitations(malformed[2]!),
      1,
      /:1:38: broken tag token "<\/<person-first>"/,
    );
    expectFormatError(
      () => parseUmassCitations(malformed[3]!),
      1,
      /<\/venue> with no element open/,
    );
    expectFormatError(() => parseUmassCitations("<title> </title>"), 1, /no text between the tags/);
    expectFormatError(() => parseUmassCitations("   \n"), 1, /no citation line/);
  });

  it("repair and skip modes change malformed lines only, and report every one", async () => {
    const text = ["<title> fine </title>", ...malformed].join("\n");
    const repaired = parseUmassCitations(text, { malformed: "repair" });
    expect(repaired.report).toMatchObject({ lines: 6, wellFormed: 1, repaired: 5, skipped: 0 });
    expect(repaired.report.issues.map((i) => [i.line, i.action])).toEqual(
      [2, 3, 4, 5, 6].map((l) => [l, "repaired"]),
    );
    expect(repaired.sentences.map((s) => s.tokens)).toEqual([
      ["fine"],
      ["A", "J", ","],
      ["1999"],
      ["B."],
      ["T"],
      ["PhD", "MIT"],
    ]);
    expect(repaired.sentences[1]!.labels).toEqual([
      "B-title",
      "B-venue/B-journal",
      "I-venue/I-journal",
    ]);
    expect(repaired.sentences[2]!.labels).toEqual(["B-venue/B-date/B-year"]);
    expect(repaired.sentences[3]!.labels).toEqual(["B-authors/B-person/B-person-first"]);
    expect(repaired.sentences[5]!.labels).toEqual(["B-venue/B-thesis", "I-venue/B-institution"]);
    // A repaired line is well-formed once written out.
    expect(parseUmassCitations(formatUmassCitations(repaired.sentences)).report.wellFormed).toBe(6);

    const seen: CitationIssue[] = [];
    const skipped = await collect(
      readUmassCitations(asAsync([text]), { malformed: "skip", onIssue: (i) => seen.push(i) }),
    );
    expect(skipped.map((s) => s.tokens)).toEqual([["fine"]]);
    expect(seen.map((i) => [i.line, i.action])).toEqual([2, 3, 4, 5, 6].map((l) => [l, "skipped"]));
    expect(seen[1]!.problems[0]).toMatch(/^column \d+: <\/date> while <year> still open/);

    const path = join(dir, "mini.docs");
    await writeUmassCitationsFile(path, repaired.sentences);
    expect((await readUmassCitationsFile(path)).sentences.map((s) => s.tokens)).toEqual(
      repaired.sentences.map((s) => s.tokens),
    );
  });

  it("refuses labels the inline format cannot hold", () => {
    const s = (labels: string[]): Sentence => ({
      tokens: labels.map((_, i) => `w${i}`),
      columns: [labels.map((_, i) => `w${i}`), labels],
    });
    expect(() => formatUmassCitations([s(["I-title"])])).toThrow(
      /token 1: label "I-title" level 1: expected B-<element>/,
    );
    expect(() => formatUmassCitations([s(["B-a/B-b", "B-a/I-b"])])).toThrow(/token 2/);
    expect(() => formatUmassCitations([{ tokens: ["<x>"], columns: [["<x>"], ["O"]] }])).toThrow(
      /looks like a tag/,
    );
    expect(formatUmassCitations([s(["B-a/B-b", "I-a/I-b", "B-a", "O"])])).toBe(
      "<a> <b> w0 w1 </b> </a> <a> w2 </a> w3\n",
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Flat inline tags (Cora)

const FIELDS = ["author", "title", "date", "affiliation", "address"];
const flatRecord = fc.array(
  fc.record({
    field: fc.option(fc.constantFrom(...FIELDS)),
    words: fc.array(
      fc.string({
        unit: fc.constantFrom("a", "B", "9", ".", ",", "-", "(", ")", "é", "/"),
        minLength: 1,
        maxLength: 4,
      }),
      {
        minLength: 1,
        maxLength: 3,
      },
    ),
  }),
  { minLength: 1, maxLength: 5 },
);

describe("flat inline tags", () => {
  it("reads one record per line or records between <NEW…> separators, with tags touching words", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(flatRecord, { minLength: 1, maxLength: 4 }),
        fc.boolean(),
        fc.array(fc.constantFrom(" ", "", "\n", "  "), { minLength: 1, maxLength: 5 }),
        cuts,
        async (records, separated, gapChoices, at) => {
          let g = 0;
          const gap = () => {
            const c = gapChoices[g++ % gapChoices.length]!;
            return !separated && c === "\n" ? " " : c;
          };
          const renderRecord = (segments: (typeof records)[number]) =>
            segments
              .map((s) => {
                const words = s.words.join(gap() === "\n" ? "\n" : " ");
                return s.field === null
                  ? ` ${words} `
                  : `<${s.field}>${gap()}${words}${gap()}</${s.field}>`;
              })
              .join(" ");
          const text = records
            .map((r) => (separated ? `<NEW_HEADER>\n${renderRecord(r)}\n` : `${renderRecord(r)}\n`))
            .join("");
          const parsed = parseInlineTags(text);
          expect(parsed.map((s) => s.tokens)).toEqual(
            records.map((r) => r.flatMap((s) => s.words)),
          );
          const bio = records.map((r) =>
            r.flatMap((s) =>
              s.words.map((_, i) => (s.field === null ? "O" : `${i === 0 ? "B" : "I"}-${s.field}`)),
            ),
          );
          // Adjacent outside segments and touching same-field segments are told apart only by B-.
          expect(parsed.map((s) => s.labels)).toEqual(bio);
          const options = separated ? { recordSeparator: "<NEW_HEADER>" } : {};
          const written = formatInlineTags(parsed, options);
          expect(withoutSource(parseInlineTags(written))).toEqual(withoutSource(parsed));
          const streamed = await collect(
            readInlineTags(asAsync(byteChunks(text, at)), { labels: "leaf" }),
          );
          expect(streamed.map((s) => s.labels)).toEqual(
            records.map((r) => r.flatMap((s) => s.words.map(() => s.field ?? "O"))),
          );
        },
      ),
      { numRuns: 80 },
    );
  });

  it("names file and line for nested, unclosed, mismatched and empty fields", () => {
    expectFormatError(
      () => parseInlineTags("<a> x <b> y </b> </a>", { file: "r" }),
      1,
      /r:1:7: <b> inside <a> .*expected flat tags/,
    );
    expectFormatError(
      () => parseInlineTags("<NEW_HEADER>\n<a> x\ny\n<NEW_HEADER>\n<b> z </b>\n"),
      2,
      /<a> is never closed/,
    );
    expectFormatError(
      () => parseInlineTags("<a> x </b>"),
      1,
      /<\/b> while <a> is open: expected <\/a>/,
    );
    expectFormatError(() => parseInlineTags("<a> </a> x"), 1, /empty <a> element/);
    expectFormatError(
      () => parseInlineTags("<NEWREFERENCE>\n<NEWREFERENCE>\n<a> x </a>\n"),
      1,
      /record without words/,
    );
    expectFormatError(() => parseInlineTags("\n\n"), 2, /no tagged record/);
  });
});

// ---------------------------------------------------------------------------------------------
// CRFsuite

const crfName = fc
  .string({
    unit: fc.constantFrom("a", "B", "=", ":", "\\", "#", "@", " ", "[", "]", "|", "-", "1", "é"),
    minLength: 1,
    maxLength: 6,
  })
  .filter((s) => !s.startsWith("#") && !s.startsWith("@"));
const crfInstance: fc.Arbitrary<CrfsuiteInstance> = fc
  .record({
    items: fc.array(
      fc.record({
        label: crfName,
        attributes: fc.array(
          fc.record({
            name: crfName,
            value: fc.oneof(fc.constant(1), fc.double({ min: -1e9, max: 1e9, noNaN: true })),
          }),
          { maxLength: 4 },
        ),
      }),
      { minLength: 1, maxLength: 4 },
    ),
    weight: fc.option(fc.double({ min: -1e9, max: 1e9, noNaN: true })),
  })
  .map(({ items, weight }) => {
    const instance: CrfsuiteInstance = {
      labels: items.map((i) => i.label),
      items: items.map((i) => i.attributes),
    };
    if (weight !== null) instance.weight = weight;
    return instance;
  });

describe("CRFsuite attribute format", () => {
  it("reads back what it writes, escapes included", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(crfInstance, { minLength: 1, maxLength: 4 }),
        cuts,
        async (instances, at) => {
          const text = formatCrfsuite(instances);
          const parsed = parseCrfsuite(text);
          const bare = (xs: CrfsuiteInstance[]) => xs.map(({ source: _source, ...rest }) => rest);
          expect(bare(parsed)).toEqual(instances);
          expect(bare(await collect(readCrfsuite(asAsync(byteChunks(text, at)))))).toEqual(
            instances,
          );
        },
      ),
      { numRuns: 80 },
    );
  });

  it("unescapes like CRFsuite's reader: \\: and \\\\ only, the first bare colon starts the weight", async () => {
    const text =
      "# a comment line\n@weight:2.5\nB-X\tw=a\\:b:2\tx\\y\t\tz:\tq:-0.5\t#comment\tignored\nO:7\tbias\n\nO\n";
    const [first, second] = parseCrfsuite(text, { file: "train.crfsuite" });
    expect(first).toMatchObject({
      weight: 2.5,
      labels: ["B-X", "O"],
      source: { file: "train.crfsuite", line: 2 },
    });
    expect(first!.items).toEqual([
      [
        { name: "w=a:b", value: 2 },
        { name: "x\\y", value: 1 },
        { name: "z", value: 1 },
        { name: "q", value: -0.5 },
      ],
      [{ name: "bias", value: 1 }],
    ]);
    expect(second).toMatchObject({ labels: ["O"], items: [[]] });
    expect(formatCrfsuite([{ labels: ["a:b"], items: [[{ name: "c\\d:e", value: 0.25 }]] }])).toBe(
      "a\\:b\tc\\\\d\\:e:0.25\n\n",
    );
    const path = join(dir, "x.crfsuite");
    await writeCrfsuiteFile(path, [first!]);
    expect((await readCrfsuiteFile(path))[0]!.items).toEqual(first!.items);
  });

  it("names file, line and column for bad weights and declarations", () => {
    expectFormatError(
      () => parseCrfsuite("O\ta:b:c\n", { file: "f" }),
      1,
      /f:1:3: second unescaped ':'/,
    );
    expectFormatError(
      () => parseCrfsuite("O\ta\nO\tb:xyz\n"),
      2,
      /weight "xyz" of "b": expected a finite number/,
    );
    // A value that times a model's weight (up to 1e9) would overflow a sentence's score to ±∞.
    expectFormatError(
      () => parseCrfsuite("O\ta\nO\tb:1e308\n"),
      2,
      /weight "1e308" of "b": expected a finite number of magnitude at most 1e9/,
    );
    expectFormatError(() => parseCrfsuite("@weight:-1e10\nO\ta\n"), 1, /of magnitude at most 1e9/);
    expect(parseCrfsuite("O\ta:-1e9\n")[0]!.items[0]).toEqual([{ name: "a", value: -1e9 }]);
    expectFormatError(() => parseCrfsuite("@group:1\nO\ta\n"), 1, /unknown declaration "@group"/);
    expectFormatError(() => parseCrfsuite("O\ta\n@weight:2\n"), 2, /@weight after the first item/);
    expectFormatError(() => parseCrfsuite(":5\tx\n"), 1, /empty label/);
    expectFormatError(() => parseCrfsuite("\n\n"), 2, /expected at least one sequence/);
    expect(() => formatCrfsuite([{ labels: ["#x"], items: [[]] }])).toThrow(/starts with '#'/);
  });
});
