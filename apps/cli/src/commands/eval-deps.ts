import {
  type ConlluSentence,
  checkDependencyHeads,
  type DependencyEvaluation,
  evaluateDependencies,
} from "@lagrange/datasets";
import { conlluSentences } from "@lagrange/recipes";
import { openData } from "../inputs.js";
import { percent } from "./eval-conll.js";

/** Punctuation words scored, left out, or both rows side by side. */
export type DepsPunctuation = "include" | "exclude" | "both";

export interface DepsOptions {
  readonly punctuation: DepsPunctuation;
  readonly json?: boolean;
}

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
  for (const sentence of sentences) checkDependencyHeads(sentence, side);
  return sentences;
}
