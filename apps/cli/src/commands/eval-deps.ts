import {
  CONLLU_FIELDS,
  type ConlluSentence,
  DataFormatError,
  type DependencyEvaluation,
  evaluateDependencies,
} from "@lagrange/datasets";
import { conlluSentences } from "@lagrange/recipes";
import type { DepsPunctuation } from "../define/values.js";
import { openData } from "../inputs.js";

export interface DepsOptions {
  readonly punctuation: DepsPunctuation;
  readonly json?: boolean;
}

const HEAD = CONLLU_FIELDS.indexOf("HEAD");

/**
 * `lagrange eval --deps gold predicted`: attachment scores of the predicted trees, one row per
 * punctuation convention (punctuation = gold UPOS PUNCT). The files must hold the same sentences
 * and words; a HEAD that is not a word of its sentence is bad input at its file:line.
 */
export async function depsCommand(
  goldSpec: string,
  predictedSpec: string,
  options: DepsOptions,
): Promise<string> {
  const gold = await readTrees("gold", goldSpec);
  const predicted = await readTrees("predicted", predictedSpec);
  const modes =
    options.punctuation === "both" ? (["include", "exclude"] as const) : [options.punctuation];
  const rows = modes.map(
    (punctuation) => [punctuation, evaluateDependencies(gold, predicted, { punctuation })] as const,
  );
  if (options.json === true) {
    const json: Record<string, unknown> = { sentences: gold.length };
    for (const [mode, e] of rows) json[mode] = scoresJson(e);
    return `${JSON.stringify(json)}\n`;
  }
  const words = gold.reduce((sum, s) => sum + s.tokens.length, 0);
  const lines = [
    `${gold.length} sentences, ${words} words; gold ${goldSpec}, predicted ${predictedSpec}`,
    `${"punctuation".padEnd(13)}${"words".padStart(8)}${"UAS".padStart(9)}${"LAS".padStart(9)}${"LA".padStart(9)}`,
    ...rows.map(
      ([mode, e]) =>
        `${(mode === "include" ? "included" : "excluded").padEnd(13)}${String(e.tokens).padStart(8)}${pct(e.uas).padStart(9)}${pct(e.las).padStart(9)}${pct(e.labelAccuracy).padStart(9)}${mode === "exclude" ? `   (${e.excludedPunctuation} punctuation words left out: gold UPOS PUNCT)` : ""}`,
    ),
    "UAS: words with the gold head; LAS: with the gold head and relation; LA: with the gold relation (%)",
  ];
  return `${lines.join("\n")}\n`;
}

const pct = (x: number) => (100 * x).toFixed(2);
const percent = (x: number) => Math.round(x * 10000) / 100;

function scoresJson(e: DependencyEvaluation): Record<string, number> {
  return {
    words: e.tokens,
    excludedPunctuation: e.excludedPunctuation,
    uas: percent(e.uas),
    las: percent(e.las),
    labelAccuracy: percent(e.labelAccuracy),
    completeUnlabelled: percent(e.completeUnlabelled),
    completeLabelled: percent(e.completeLabelled),
    correctHeads: e.correctHeads,
    correctLabelled: e.correctLabelled,
  };
}

/** A CoNLL-U file (any extension) or registry split, its HEAD fields checked word by word. */
async function readTrees(side: "gold" | "predicted", spec: string): Promise<ConlluSentence[]> {
  const corpus = await openData(side, spec, { format: "conllu", defaultSplit: "dev" });
  const sentences = conlluSentences(corpus, `scoring dependencies (the ${side} file)`);
  for (const sentence of sentences) checkHeads(sentence, side);
  return sentences;
}

/** Every HEAD an integer 0…n, reported at the word's own line (not the sentence's). */
function checkHeads(sentence: ConlluSentence, side: string): void {
  const heads = sentence.columns[HEAD]!;
  const n = heads.length;
  for (let w = 1; w <= n; w++) {
    const text = heads[w - 1]!;
    if (/^(0|[1-9][0-9]*)$/.test(text) && Number(text) <= n) continue;
    const detail =
      text === "_"
        ? `${side} HEAD _: this word has no head to score; expected an integer 0…${n}`
        : `${side} HEAD ${JSON.stringify(text)}: expected an integer 0…${n} (a word of this sentence, or 0 for the root)`;
    const source = sentence.source;
    if (source === undefined) throw new DataFormatError(side, w, detail, HEAD + 1);
    let extra = 0;
    for (const e of sentence.extraLines) if (e.before <= w - 1) extra++;
    const line = source.line + sentence.comments.length + extra + (w - 1);
    throw new DataFormatError(source.file, line, detail, HEAD + 1);
  }
}
