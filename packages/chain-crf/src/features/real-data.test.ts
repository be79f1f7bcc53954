import { existsSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { CHUNKING_TEMPLATES } from "./chunking.js";
import { presets } from "./presets.js";

/** The dataset mirror, found as the datasets registry does: LAGRANGE_DATA_DIR, else ../shared/datasets. */
function mirrorFile(relative: string): string | undefined {
  const fromEnv = process.env.LAGRANGE_DATA_DIR;
  const repoRoot = fileURLToPath(new URL("../../../../", import.meta.url));
  const dir =
    fromEnv !== undefined && fromEnv !== ""
      ? resolve(fromEnv)
      : resolve(repoRoot, "..", "shared", "datasets");
  if (!existsSync(dir) || !statSync(dir).isDirectory()) return undefined;
  const path = join(dir, relative);
  return existsSync(path) ? path : undefined;
}

interface Sentence {
  rows: string[][];
  labels: string[];
}

/** Space-separated columns, the last one the label; blank lines end sentences. */
function readColumns(path: string, maxSentences = Number.POSITIVE_INFINITY): Sentence[] {
  const sentences: Sentence[] = [];
  let current: Sentence = { rows: [], labels: [] };
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (sentences.length >= maxSentences) break;
    if (line.trim() === "") {
      if (current.rows.length > 0) sentences.push(current);
      current = { rows: [], labels: [] };
      continue;
    }
    const columns = line.split(" ");
    if (columns[0] === "-DOCSTART-") continue;
    current.labels.push(columns.at(-1)!);
    current.rows.push(columns.slice(0, -1));
  }
  if (current.rows.length > 0 && sentences.length < maxSentences) sentences.push(current);
  return sentences;
}

const conll2000 = mirrorFile("conll2000/train.txt");
const conll2003 = mirrorFile("conll2003/eng.train");
const umass = mirrorFile("umass_citation/training.docs");

describe("presets on the real corpora", () => {
  it.skipIf(conll2000 === undefined)(
    "chunking on CoNLL-2000 train gives CRFsuite's 452,755 features (needs conll2000/train.txt in the dataset mirror)",
    () => {
      const sentences = readColumns(conll2000!);
      let total = 0;
      let expectedTotal = 0;
      const attributeIds = new Map<string, number>();
      const labelIds = new Map<string, number>();
      const labelId = (label: string): number => {
        let id = labelIds.get(label);
        if (id === undefined) {
          id = labelIds.size;
          labelIds.set(label, id);
        }
        return id;
      };
      const stateFeatures = new Set<number>();
      const transitionFeatures = new Set<number>();
      for (const { rows, labels } of sentences) {
        const sequence = presets.chunking.extract(rows);
        total += sequence.names.length;
        // Closed form: a template with offsets in [lo, hi] fits n − max(0, −lo) − max(0, hi) tokens.
        const n = rows.length;
        for (const template of CHUNKING_TEMPLATES) {
          const offsets = template.map(([, o]) => o);
          const lo = Math.min(...offsets);
          const hi = Math.max(...offsets);
          expectedTotal += Math.max(0, n - Math.max(0, -lo) - Math.max(0, hi));
        }
        expectedTotal += 2; // __BOS__, __EOS__
        for (let t = 0; t < n; t++) {
          const y = labelId(labels[t]!);
          for (let k = sequence.offsets[t]!; k < sequence.offsets[t + 1]!; k++) {
            const name = sequence.names[k]!;
            let a = attributeIds.get(name);
            if (a === undefined) {
              a = attributeIds.size;
              attributeIds.set(name, a);
            }
            stateFeatures.add(a * 64 + y);
          }
          if (t > 0) transitionFeatures.add(labelId(labels[t - 1]!) * 64 + y);
        }
      }
      expect(sentences.length).toBe(8936);
      expect(total).toBe(expectedTotal);
      // CRFsuite 0.12 reports 452,755 features for its chunking.py attributes on this file (issue
      // #4): one per (attribute, label) pair seen plus one per label bigram seen.
      expect(stateFeatures.size + transitionFeatures.size).toBe(452_755);
      expect(labelIds.size).toBe(22);
      expect(attributeIds.size).toBe(335_674);
    },
  );

  it.skipIf(conll2003 === undefined)(
    "ner gives 193 attributes on interior CoNLL-2003 tokens (needs conll2003/eng.train)",
    () => {
      for (const { rows } of readColumns(conll2003!, 300)) {
        const { offsets, names } = presets.ner.extract(rows);
        for (let t = 4; t < rows.length - 4; t++) expect(offsets[t + 1]! - offsets[t]!).toBe(193);
        expect(names.every((a) => a.length > 0)).toBe(true);
      }
    },
  );

  it.skipIf(umass === undefined)(
    "citation runs over every UMass training citation (needs umass_citation/training.docs)",
    () => {
      let citations = 0;
      let years = 0;
      for (const line of readFileSync(umass!, "utf8").split("\n")) {
        const words = line.split(" ").filter((w) => w.length > 0 && !/^<\/?[\w-]+>$/.test(w));
        if (words.length === 0) continue;
        citations++;
        const sequence = presets.citation.extract(words.map((w) => [w]));
        expect(sequence.length).toBe(words.length);
        expect(sequence.names.every((a) => a.length > 0)).toBe(true);
        if (sequence.names.includes("year")) years++;
      }
      expect(citations).toBeGreaterThan(1000);
      // Nearly every citation carries its year as a token.
      expect(years / citations).toBeGreaterThan(0.9);
    },
  );
});
