import { LagrangeError } from "@lagrange/core";
import { type WordClusters, wordClusters } from "./word-clusters.js";

/**
 * Liang's `paths` format: one line per word, `bits TAB word TAB count` (wcluster's output, and the
 * files people share, such as the RCV1 clusters).
 */
export function formatClusterPaths(clusters: WordClusters): string {
  const lines: string[] = [];
  for (let i = 0; i < clusters.words.length; i++) {
    const word = clusters.words[i]!;
    const path = clusters.paths[i]!;
    if (word === "" || /\s/.test(word)) {
      throw new LagrangeError(
        "invalid-problem",
        `word ${i + 1} (${JSON.stringify(word)}) is empty or contains whitespace: the paths format cannot hold it`,
      );
    }
    if (!/^[01]*$/.test(path)) {
      throw new LagrangeError(
        "invalid-problem",
        `word ${JSON.stringify(word)}: path ${JSON.stringify(path)} is not a string of 0 and 1`,
      );
    }
    lines.push(`${path}\t${word}\t${clusters.counts[i] ?? 0}\n`);
  }
  return lines.join("");
}

function quote(text: string): string {
  const shown = text.length > 120 ? `${text.slice(0, 100)}…` : text;
  return JSON.stringify(shown);
}

function badLine(file: string, line: number, detail: string): LagrangeError {
  return new LagrangeError("bad-input", `${file}:${line}: ${detail}`);
}

const EXPECTED = 'expected "bits<TAB>word<TAB>count" (bits of 0 and 1, count an integer ≥ 0)';

/**
 * Reads a paths file: `bits TAB word TAB count` per line (fields may also be separated by spaces
 * when a line has no tab; the count may be left out and reads as 0; blank lines and a final CRLF
 * are fine). A malformed line or a word given twice is a `bad-input` error naming `file:line`.
 */
export function parseClusterPaths(text: string, file: string): WordClusters {
  const words: string[] = [];
  const paths: string[] = [];
  const counts: number[] = [];
  const seen = new Map<string, number>();
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const lineNo = i + 1;
    let line = lines[i]!;
    if (line.endsWith("\r")) line = line.slice(0, -1);
    if (line.trim() === "") continue;
    const fields = line.includes("\t") ? line.split("\t") : line.trim().split(/ +/);
    if (fields.length < 2 || fields.length > 3) {
      throw badLine(file, lineNo, `${EXPECTED}; got ${fields.length} field(s): ${quote(line)}`);
    }
    const [path, word, count] = fields as [string, string, string | undefined];
    if (!/^[01]*$/.test(path)) {
      throw badLine(file, lineNo, `${EXPECTED}; the bits ${quote(path)} are not 0s and 1s`);
    }
    if (word === "" || /\s/.test(word)) {
      throw badLine(file, lineNo, `${EXPECTED}; the word ${quote(word)} is empty or has spaces`);
    }
    let n = 0;
    if (count !== undefined) {
      if (!/^\d+$/.test(count.trim()) || Number(count) > 0x7fffffff) {
        throw badLine(file, lineNo, `${EXPECTED}; the count ${quote(count)} is not an integer`);
      }
      n = Number(count);
    }
    const first = seen.get(word);
    if (first !== undefined) {
      throw badLine(file, lineNo, `the word ${quote(word)} is already on line ${first}`);
    }
    seen.set(word, lineNo);
    words.push(word);
    paths.push(path);
    counts.push(n);
  }
  if (words.length === 0) {
    throw new LagrangeError(
      "bad-input",
      `${file}: no word in it; ${EXPECTED.replace("expected", "expected lines of")}`,
    );
  }
  return wordClusters(words, paths, Int32Array.from(counts));
}
