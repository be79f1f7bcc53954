import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DataFormatError } from "../formats/errors.js";
import { collect } from "../formats/io.js";
import { DATASETS, type DatasetInfo } from "../registry/catalog.js";
import { DatasetUnavailableError } from "../registry/errors.js";
import { findMirrorDir } from "../registry/resolve.js";
import { RAW_TEXT_CORPORA } from "./catalog.js";
import { decodeRawText, openRawText, readPlainTextTokens, testSplitRefusal } from "./raw-text.js";

let mirror = "";
const put = async (relative: string, content: string | Uint8Array) => {
  const path = join(mirror, relative);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, content);
};
const sha = (s: string) => createHash("sha256").update(s).digest("hex");
const latin1 = (s: string) => Buffer.from(s, "latin1");

const TOY_TRAIN = "Juan B-PER\nvino O\n\nAna B-PER\n";
const TOY_DEV = "Ella O\n";
const TOY_ALL = "a O\n\nb O\n\nc O\n";
const CATALOG: readonly DatasetInfo[] = [
  {
    name: "toy",
    title: "toy",
    folder: "toy",
    format: "conll",
    formatOptions: { columns: ["word", "ner"], separator: " ", labelColumn: "ner", scheme: "IOB2" },
    splits: [
      { name: "train", file: "train.txt", sha256: sha(TOY_TRAIN), sources: [] },
      { name: "dev", file: "dev.txt", sha256: sha(TOY_DEV), sources: [] },
      { name: "test", file: "test.txt", sources: [], sealed: true },
    ],
    licence: "test",
    redistributable: true,
    citation: "test",
  },
  {
    name: "toy-records",
    title: "toy with a customary split",
    folder: "toy",
    format: "conll",
    formatOptions: { columns: ["word", "ner"], separator: " ", labelColumn: "ner", scheme: "IOB2" },
    splits: [{ name: "all", file: "all.txt", sha256: sha(TOY_ALL), sources: [] }],
    customSplits: [
      { split: "train", start: 0, count: 2 },
      { split: "test", start: 2, count: 1 },
    ],
    licence: "test",
    redistributable: true,
    citation: "test",
  },
];

beforeAll(async () => {
  mirror = await mkdtemp(join(tmpdir(), "lagrange-raw-text-"));
  await put(
    "brown/ca01",
    "\n\n\tThe/at Fulton/np-tl jury/nn said/vbd ./.\n\n\n\t1/2/cd and/or/cc ``/`` //in\n",
  );
  await put("brown/cb02", "\tLast/ap file/nn ./.\n");
  await put("brown/CONTENTS", "not/text of/the corpus\n");
  await put("brown/cats.txt", "ca01 news\n");
  await put(
    "raw-text/abc/rural.txt",
    "PM denies knowledge\nMr Howard's letter wasn't sent. It cost $290 million.\n",
  );
  await put("raw-text/abc/science.txt", latin1("Heated to 460°C. La Niña.\r\n"));
  await put(
    "raw-text/state_union/1970-Nixon.txt",
    Buffer.concat([
      Buffer.from("America"),
      Buffer.from([0xa1, 0xa6]),
      Buffer.from("s pride"),
      Buffer.from([0xa1, 0x58]),
      Buffer.from("now.\n"),
    ]),
  );
  await put(
    "raw-text/masc_tagged/written/a.txt",
    "Washington_NNP ,_, D. C._NN \n\nX_M_L_NNP is_VBZ ._. \n",
  );
  await put("raw-text/masc_tagged/categories.txt", "written/a.txt letters\n");
  await put(
    "raw-text/movie_reviews/neg/cv000.txt",
    "films adapted from comic books , whether they're good .\nno .\n",
  );
  await put("raw-text/movie_reviews/README", "not text\n");
  await put(
    "raw-text/cess_esp/1.tbf",
    latin1(
      "\n(\n  (S\n    (np00000 Electricidad_Águila Electricidad_Águila)\n    (sn.e-SUJ *0*)\n    (Fp . .)))\n",
    ),
  );
  await put("raw-text/cess_esp/README", "(not a tree)\n");
  await put(
    "raw-text/alpino/alpino.xml",
    latin1(
      '<?xml version="1.0" encoding="ISO-8859-1"?>\n<alpino><alpino_ds id="1"><node begin="1" word="één"/><node begin="0" word="Nog"/></alpino_ds></alpino>\n',
    ),
  );
  await put("toy/train.txt", TOY_TRAIN);
  await put("toy/dev.txt", TOY_DEV);
  await put("toy/all.txt", TOY_ALL);
});
afterAll(async () => {
  await rm(mirror, { recursive: true, force: true });
});

const read = (name: string) => collect(openRawText(name, { mirrorDir: mirror, catalog: CATALOG }));

describe("openRawText: each format of the catalogue", () => {
  it("brown: the c?NN files only, tags dropped, one sentence a line", async () => {
    expect(await read("brown")).toEqual([
      ["The", "Fulton", "jury", "said", "."],
      ["1/2", "and/or", "``", "/"],
      ["Last", "file", "."],
    ]);
  });

  it("abc and state-union: tokenised, cut into sentences; latin1 and Big5 punctuation decoded", async () => {
    expect(await read("abc")).toEqual([
      ["PM", "denies", "knowledge"],
      ["Mr", "Howard", "'s", "letter", "was", "n't", "sent", "."],
      ["It", "cost", "$", "290", "million", "."],
      ["Heated", "to", "460°C", "."],
      ["La", "Niña", "."],
    ]);
    expect(await read("state-union")).toEqual([["America", "’s", "pride", "—", "now", "."]]);
  });

  it("masc, movie-reviews, cess-esp, alpino", async () => {
    expect(await read("masc")).toEqual([
      ["Washington", ",", "D.", "C."],
      ["X_M_L", "is", "."],
    ]);
    expect(await read("movie-reviews")).toEqual([
      ["films", "adapted", "from", "comic", "books", ",", "whether", "they're", "good", "."],
      ["no", "."],
    ]);
    expect(await read("cess-esp")).toEqual([["Electricidad", "Águila", "."]]);
    expect(await read("alpino")).toEqual([["Nog", "één"]]);
  });

  it("stops at an aborted signal", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      collect(openRawText("brown", { mirrorDir: mirror, signal: controller.signal })),
    ).rejects.toThrow(/abort/i);
  });

  it("decodeRawText: UTF-8 first, Big5 only for A1-punctuation files, else ISO-8859-1", () => {
    expect(decodeRawText(Buffer.from("Niña ’", "utf8"))).toBe("Niña ’");
    expect(decodeRawText(Buffer.from([0x61, 0xa1, 0xa6, 0x62]))).toBe("a’b");
    expect(decodeRawText(Buffer.from([0x61, 0xa1, 0xa6, 0xb0]))).toBe("a¡¦°");
  });
});

describe("openRawText: the words of labelled splits", () => {
  it("yields the token column of a train or dev split, and of a customary train split", async () => {
    expect(await read("toy:train")).toEqual([["Juan", "vino"], ["Ana"]]);
    expect(await read("toy:dev")).toEqual([["Ella"]]);
    expect(await read("toy-records:train")).toEqual([["a"], ["b"]]);
  });

  it("refuses test splits, sealed or customary, and a whole file holding a test split", () => {
    expect(() => openRawText("toy:test", { mirrorDir: mirror, catalog: CATALOG })).toThrow(
      "toy:test is a test split (sealed); word representations must never see test text",
    );
    expect(() => openRawText("toy-records:test", { catalog: CATALOG })).toThrow(/is a test split;/);
    expect(() => openRawText("toy-records:all", { catalog: CATALOG })).toThrow(
      /whole file, which holds the customary test split/,
    );
    expect(() => openRawText("toy:nope", { catalog: CATALOG })).toThrow(
      'dataset "toy" has no split "nope"; its splits: train, dev, test',
    );
    // Every test split of the built-in catalogue is refused, and every train split allowed.
    for (const dataset of DATASETS) {
      if (
        dataset.splits.some((s) => s.name === "test") ||
        dataset.customSplits?.some((r) => r.split === "test")
      ) {
        expect(testSplitRefusal(dataset, "test"), dataset.name).toMatch(/test split/);
      }
      if (
        dataset.splits.some((s) => s.name === "train") ||
        dataset.customSplits?.some((r) => r.split === "train")
      ) {
        expect(testSplitRefusal(dataset, "train"), dataset.name).toBeUndefined();
      }
    }
    expect(testSplitRefusal(DATASETS.find((d) => d.name === "conll2000")!, "test")).toMatch(
      /test split;/,
    );
  });

  it("names unknown corpora and a missing mirror clearly", () => {
    expect(() => openRawText("wikipedia", { mirrorDir: mirror })).toThrow(
      /unknown raw-text corpus "wikipedia"; known: brown, abc, masc, movie-reviews, state-union, cess-esp, alpino, or a labelled split as dataset:split/,
    );
    expect(() => openRawText("brown", { mirrorDir: null })).toThrow(DatasetUnavailableError);
    expect(() => openRawText("brown", { mirrorDir: null })).toThrow(
      /read from the dataset mirror only/,
    );
  });

  it("a folder absent from the mirror is DatasetUnavailableError naming the path", async () => {
    const empty = await mkdtemp(join(tmpdir(), "lagrange-raw-empty-"));
    try {
      expect(() => openRawText("alpino", { mirrorDir: empty })).toThrow(
        `${join(empty, "raw-text/alpino")} is not in the mirror`,
      );
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});

describe("readPlainTextTokens", () => {
  it("one sentence a line, split on whitespace, blank lines skipped", async () => {
    const file = join(mirror, "plain.txt");
    await writeFile(file, "\uFEFFa  b\tc\n\n   \nd\r\n");
    expect(await collect(readPlainTextTokens(file))).toEqual([["a", "b", "c"], ["d"]]);
  });

  it("names the file and line of invalid UTF-8 or binary data, and a missing file", async () => {
    const file = join(mirror, "bad.txt");
    await writeFile(
      file,
      Buffer.concat([Buffer.from("ok\nbad "), Buffer.from([0xff]), Buffer.from("\n")]),
    );
    await expect(collect(readPlainTextTokens(file))).rejects.toThrow(DataFormatError);
    await expect(collect(readPlainTextTokens(file))).rejects.toThrow(`${file}:2: invalid UTF-8`);
    const binary = join(mirror, "bin.dat");
    await writeFile(binary, Buffer.from([0x41, 0, 0x42]));
    await expect(collect(readPlainTextTokens(binary))).rejects.toThrow(`${binary}:1: NUL byte`);
    await expect(collect(readPlainTextTokens(join(mirror, "none.txt")))).rejects.toThrow(
      `${join(mirror, "none.txt")}: no such file`,
    );
  });
});

const shared = findMirrorDir();

describe("the shared mirror", () => {
  it.skipIf(shared === undefined)(
    "every raw-text corpus reads; brown gives its whitespace tokens, alpino SOURCE.md's 140,780 words (skipped without the mirror)",
    async () => {
      const counts = new Map<string, number>();
      for (const corpus of RAW_TEXT_CORPORA) {
        let tokens = 0;
        for await (const sentence of openRawText(corpus.name)) {
          tokens += sentence.length;
          for (const token of sentence)
            if (token === "" || /\s/.test(token)) throw new Error(`bad token in ${corpus.name}`);
        }
        counts.set(corpus.name, tokens);
        // Tokenising plain text adds punctuation tokens and CESS-ESP's multiwords split: the
        // catalogue's sizes are SOURCE.md's approximate word counts.
        expect(tokens / corpus.tokens, corpus.name).toBeGreaterThan(0.95);
        expect(tokens / corpus.tokens, corpus.name).toBeLessThan(1.25);
      }
      const brown = join(shared!, "brown");
      let whitespace = 0;
      for (const name of readdirSync(brown).filter((n) => /^c[a-r]\d\d$/.test(n))) {
        whitespace += readFileSync(join(brown, name), "utf8")
          .split(/\s+/)
          .filter((t) => t !== "").length;
      }
      expect(counts.get("brown")).toBe(whitespace);
      expect(counts.get("alpino")).toBe(140780);
    },
    30_000,
  );

  it.skipIf(shared === undefined)(
    "conll2002-es:train gives SOURCE.md's 8,323 sentences and 264,715 words",
    async () => {
      let sentences = 0;
      let tokens = 0;
      for await (const sentence of openRawText("conll2002-es:train")) {
        sentences++;
        tokens += sentence.length;
      }
      expect([sentences, tokens]).toEqual([8323, 264715]);
    },
  );
});
