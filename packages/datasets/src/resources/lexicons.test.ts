import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DataFormatError } from "../formats/errors.js";
import { DatasetUnavailableError } from "../registry/errors.js";
import { findMirrorDir } from "../registry/resolve.js";
import { LEXICONS } from "./catalog.js";
import { parseLexiconText } from "./lexicon-text.js";
import { openLexicon, readLexiconFile } from "./lexicons.js";

let dir = "";
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "lagrange-lexicons-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("parseLexiconText", () => {
  it("one entry a line, trimmed, comments and blanks skipped, multi-word entries kept with one space", () => {
    expect(
      parseLexiconText("# countries\nNew   York\n\n  Ohio \r\nNew York\n\tSan\tJosé\n#x\n", "f"),
    ).toEqual(["New York", "Ohio", "San José"]);
  });

  it("agrees with a brute-force reading of random lines", () => {
    const line = fc.oneof(
      fc.constantFrom("", "   ", "# note", "\t#x"),
      fc.stringMatching(/^[ \t]*[A-Za-zé.'-]{1,5}([ \t]+[A-Za-z]{1,4}){0,2}[ \t\r]*$/),
    );
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 20 }), (lines) => {
        const expected: string[] = [];
        for (const l of lines) {
          const words = l.split(/[ \t\r]+/).filter((w) => w !== "");
          if (words.length === 0 || words[0]!.startsWith("#")) continue;
          const entry = words.join(" ");
          if (!expected.includes(entry)) expected.push(entry);
        }
        const text = lines.join("\n");
        if (expected.length === 0)
          expect(() => parseLexiconText(text, "f")).toThrow(DataFormatError);
        else expect(parseLexiconText(text, "f")).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });
});

describe("readLexiconFile", () => {
  it("reads a UTF-8 user lexicon", async () => {
    const file = join(dir, "teams.txt");
    await writeFile(file, "# football clubs\nReal Madrid\nAtlético de Madrid\n");
    expect(await readLexiconFile(file)).toEqual(["Real Madrid", "Atlético de Madrid"]);
  });

  it("an empty, binary, non-UTF-8 or comment-only file is a clear error naming it", async () => {
    const empty = join(dir, "empty.txt");
    await writeFile(empty, "");
    await expect(readLexiconFile(empty)).rejects.toThrow(`${empty}:1: empty file`);
    const binary = join(dir, "model.bin");
    await writeFile(binary, Buffer.from([0x4c, 0x47, 0x4d, 0x00, 0x01, 0x02]));
    await expect(readLexiconFile(binary)).rejects.toThrow(
      `${binary}:1: NUL byte: this is a binary file`,
    );
    const latin = join(dir, "latin1.txt");
    await writeFile(
      latin,
      Buffer.concat([Buffer.from("Aland\n"), Buffer.from([0xc5]), Buffer.from("land\n")]),
    );
    await expect(readLexiconFile(latin)).rejects.toThrow(`${latin}:2: invalid UTF-8`);
    const comments = join(dir, "comments.txt");
    await writeFile(comments, "# nothing\n\n");
    await expect(readLexiconFile(comments)).rejects.toThrow(`${comments}:1: no lexicon entries`);
    await expect(readLexiconFile(join(dir, "missing.txt"))).rejects.toThrow(
      `${join(dir, "missing.txt")}: no such file`,
    );
  });
});

describe("openLexicon", () => {
  it("reads a catalogue lexicon from a mirror in its declared encoding", async () => {
    const mirror = join(dir, "mirror");
    await mkdir(join(mirror, "lexicons", "gazetteers"), { recursive: true });
    await writeFile(
      join(mirror, "lexicons", "gazetteers", "isocountries.txt"),
      Buffer.from("Afghanistan\n\u00c5land Islands\n", "latin1"),
    );
    expect(await openLexicon("isocountries", { mirrorDir: mirror })).toEqual([
      "Afghanistan",
      "Åland Islands",
    ]);
    await expect(openLexicon("usstates", { mirrorDir: mirror })).rejects.toThrow(
      DatasetUnavailableError,
    );
    await expect(openLexicon("usstates", { mirrorDir: mirror })).rejects.toThrow(
      `${join(mirror, "lexicons/gazetteers/usstates.txt")} is not in the mirror`,
    );
    await expect(openLexicon("usstates", { mirrorDir: null })).rejects.toThrow(
      /no mirror was found/,
    );
    await expect(openLexicon("cities")).rejects.toThrow(
      'unknown lexicon "cities"; known: names-female, names-male, countries, isocountries, nationalities, uscities, usstates, usstateabbrev, caprovinces, mexstates, cities-15k, countries-all, capitals, people-names',
    );
  });

  const shared = findMirrorDir();
  it.skipIf(shared === undefined)(
    "every catalogue lexicon reads from the shared mirror, about as many entries as SOURCE.md's lines (skipped without the mirror)",
    async () => {
      for (const lexicon of LEXICONS) {
        if (lexicon.source !== "mirror") continue;
        const entries = await openLexicon(lexicon.name);
        expect(entries.length, lexicon.name).toBeGreaterThan(0.9 * lexicon.lines);
        expect(entries.length, lexicon.name).toBeLessThanOrEqual(lexicon.lines + 1);
        for (const entry of entries) expect(entry).toBe(entry.trim());
      }
      expect(await openLexicon("isocountries")).toContain("Åland Islands");
      expect(await openLexicon("usstates")).toContain("New York");
      expect(await openLexicon("mexstates")).toContain("Baja California Sur");
    },
  );
});

describe("package lexicons", () => {
  it("build from the pinned npm packages, as many entries as the catalogue says, without a mirror", async () => {
    for (const lexicon of LEXICONS) {
      if (lexicon.source !== "package") continue;
      const entries = await openLexicon(lexicon.name, { mirrorDir: null });
      expect(entries.length, lexicon.name).toBe(lexicon.entries);
      expect(new Set(entries).size, lexicon.name).toBe(entries.length);
      for (const entry of entries) expect(entry).toBe(entry.trim().split(/\s+/).join(" "));
    }
  });

  it("keep the lists' multi-word entries; cities come largest first", async () => {
    const cities = await openLexicon("cities-15k");
    expect(cities.slice(0, 3)).toContain("Shanghai");
    for (const city of ["New York City", "São Paulo", "Los Angeles", "Rotterdam", "Zaragoza"]) {
      expect(cities).toContain(city);
    }
    expect(cities.indexOf("Buenos Aires")).toBeLessThan(cities.indexOf("Zaragoza"));
    const countries = await openLexicon("countries-all");
    for (const country of [
      "United States",
      "U.S.",
      "Holland",
      "Países Bajos",
      "Duitsland",
      "Deutschland",
    ]) {
      expect(countries).toContain(country);
    }
    expect(await openLexicon("capitals")).toContain("Andorra la Vella");
    const people = await openLexicon("people-names");
    for (const name of ["John", "Smith", "Nguyen"]) expect(people).toContain(name);
  });

  it("hand each caller its own copy of a list built once", async () => {
    const first = await openLexicon("capitals");
    first.length = 0;
    expect((await openLexicon("capitals")).length).toBeGreaterThan(200);
  });
});
