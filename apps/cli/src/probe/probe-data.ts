/**
 * The data the probe suite trains and tags with: generated and seeded, so that a failing probe
 * fails the same way again. Tests only.
 */
import { writeFile } from "node:fs/promises";
import { seededRandom } from "@lagrange/core";
import { generateCitations } from "@lagrange/datasets";

const VOCABULARY: Record<string, readonly string[]> = {
  DT: ["the", "a", "this", "every", "some"],
  JJ: ["big", "old", "red", "quick", "new", "green", "small", "happy"],
  NN: ["cat", "dog", "house", "tree", "car", "idea", "river", "book", "city", "friend"],
  VBD: ["saw", "liked", "made", "found", "took", "gave", "held"],
  MD: ["could", "would", "might"],
  IN: ["in", "on", "with", "near", "under"],
  RB: ["quickly", "often", "never", "here"],
};

/**
 * Seeded CoNLL-2000-like chunking data: `word POS chunk` rows whose chunks follow from the POS
 * tags, so a CRF learns them. `IOB1` starts a chunk with B- only after a chunk of the same type
 * (CoNLL-2003's convention); two noun phrases in a row make such boundaries.
 */
export function chunkingText(
  sentences: number,
  options: { readonly seed: number; readonly scheme?: "IOB1" | "IOB2" },
): string {
  const random = seededRandom(options.seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  let text = "";
  for (let s = 0; s < sentences; s++) {
    const chunks: { type: string; rows: [string, string][] }[] = [];
    const phrases = 2 + Math.floor(random() * 6);
    for (let p = 0; p < phrases; p++) {
      const kind = pick(["NP", "NP", "NP", "VP", "PP", "ADVP"]);
      const afterNoun = chunks.at(-1)?.type === "NP";
      const rows: [string, string][] = [];
      const word = (pos: string): [string, string] => [pick(VOCABULARY[pos]!), pos];
      if (kind === "NP") {
        // A determiner opens every NP that follows another: the boundary is learnable.
        if (afterNoun || random() < 0.6) rows.push(word("DT"));
        while (random() < 0.4) rows.push(word("JJ"));
        rows.push(word("NN"));
      } else if (kind === "VP") {
        if (random() < 0.3) rows.push(word("MD"));
        rows.push(word("VBD"));
      } else if (kind === "PP") rows.push(word("IN"));
      else rows.push(word("RB"));
      chunks.push({ type: kind, rows });
    }
    let previous = "";
    for (const chunk of chunks) {
      chunk.rows.forEach(([w, pos], i) => {
        const begins =
          i === 0 && (options.scheme !== "IOB1" || previous === chunk.type) ? "B" : "I";
        text += `${w} ${pos} ${begins}-${chunk.type}\n`;
      });
      previous = chunk.type;
    }
    text += ". . O\n\n";
  }
  return text;
}

/** UMass-style citations (inline tags), seeded: the citation preset's training data. */
export async function writeCitations(path: string, count: number, seed: number): Promise<void> {
  const lines = generateCitations(count, { seed }).map((c) => c.inline);
  await writeFile(path, `${lines.join("\n")}\n`);
}
