import { oracleChunkF1 } from "@lagrange/recipes";
import { badInputError } from "../exit-codes.js";
import { percent } from "./eval-conll.js";

/** A rank with no labelling in `lagrange tag --nbest`'s CoNLL output. */
const NO_LABELLING = "_";

/**
 * `lagrange eval --nbest k`: `lagrange tag --nbest k`'s CoNLL output (gold, then the k labellings
 * best first, last) scored by oracle chunk F1 at 1, 5, 10 and k: per sentence the best of its first
 * j labellings.
 */
export function nbestOracleReport(text: string, file: string, k: number, json: boolean): string {
  const gold: string[][] = [];
  const lists: string[][][] = [];
  let sentence: string[][] = [];
  let first = 0;
  const flush = () => {
    if (sentence.length === 0) return;
    gold.push(sentence.map((t) => t[0]!));
    const list: string[][] = [];
    for (let r = 0; r < k; r++) {
      const labels = sentence.map((t) => t[r + 1]!);
      if (labels.some((l) => l === NO_LABELLING)) break;
      list.push(labels);
    }
    lists.push(list);
    sentence = [];
  };
  const lines = text.split(/\r?\n/);
  for (const [index, line] of lines.entries()) {
    const fields = line.trim().split(/\s+/);
    if (line.trim() === "" || fields[0] === "-DOCSTART-") {
      flush();
      continue;
    }
    if (sentence.length === 0) first = index + 1;
    if (fields.length < k + 2) {
      throw badInputError(
        `${file}:${index + 1}: ${fields.length} column(s); --nbest ${k} expects a token, the gold label and ${k} predicted labels last (lagrange tag --nbest ${k} on labelled data), sentence from line ${first}`,
      );
    }
    sentence.push(fields.slice(fields.length - k - 1));
  }
  flush();
  const ks = [...new Set([1, 5, 10, k].filter((j) => j <= k))].sort((a, b) => a - b);
  const scores = oracleChunkF1(gold, lists, ks);
  if (json) {
    return `${JSON.stringify(
      scores.map((s) => ({
        k: s.k,
        precision: percent(s.precision),
        recall: percent(s.recall),
        f1: percent(s.f1),
        changed: s.changed,
      })),
    )}\n`;
  }
  const rows = scores.map(
    (s) =>
      `oracle at k = ${String(s.k).padStart(3)}: precision ${(100 * s.precision).toFixed(2)}%; recall ${(100 * s.recall).toFixed(2)}%; F1 ${(100 * s.f1).toFixed(2)} (${s.changed} sentence(s) not the 1-best)`,
  );
  return `${gold.length} sentences, oracle chunk F1 over the first k labellings:\n${rows.join("\n")}\n`;
}
