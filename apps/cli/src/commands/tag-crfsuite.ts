import { fromAttributeLists } from "@lagrange/chain-crf";
import { checkpoints, DecodingTally } from "@lagrange/core";
import { evaluateChunks, readCrfsuite, type SchemeName } from "@lagrange/datasets";
import {
  InfeasibleSentenceError,
  modelScheme,
  type OpenedChainTagger,
  type Tagged,
} from "@lagrange/recipes";
import { badInputError } from "../exit-codes.js";
import { requireFile } from "../inputs.js";
import { type Output, writeOutput } from "../output.js";
import { taggingReport } from "../render.js";
import type { TagOptions } from "./tag.js";

/**
 * `lagrange tag --format crfsuite`: CRFsuite's data format in (`label TAB attr[:weight] …`, a
 * blank line between sequences; a file, or standard input with `--data -`), read as it streams;
 * what `crfsuite tag` writes out — one predicted label per line, a blank line after each sequence.
 * The attributes go to the model as they are, so a model imported from CRFsuite (which has no
 * feature preset) tags the data its users already have, and so does any model whose attribute
 * names the data uses. With labels in the input, the report gives the token accuracy.
 */
export async function tagCrfsuiteCommand(
  options: TagOptions,
  opened: OpenedChainTagger,
  signal: AbortSignal | undefined,
): Promise<string> {
  const { model, constrained } = opened;
  const tagger = opened.tagger();
  const stdin = options.data === "-";
  if (!stdin) requireFile("--data", options.data);
  return writeOutput(options.out, { option: "--out", signal }, async (output: Output) => {
    const tally = new DecodingTally();
    const checkpoint = checkpoints(signal);
    const known = new Set(model.labels.names());
    const started = performance.now();
    let goldTokens = 0;
    let correct = 0;
    // Sequences whose every label is the model's: chunk F1 under its scheme, as train's dev scores.
    const scheme = modelScheme(model);
    const chunked =
      scheme === "none" || scheme === "hierarchical-BIO" ? undefined : (scheme as SchemeName);
    const goldSequences: string[][] = [];
    const predictedSequences: string[][] = [];
    const sequences = readCrfsuite(stdin ? process.stdin : options.data, {
      ...(stdin ? { file: "<stdin>" } : {}),
      ...(signal === undefined ? {} : { signal }),
    });
    for await (const instance of sequences) {
      if (checkpoint.due()) await checkpoint.pause();
      const n = instance.items.length;
      // CRFsuite's items carry no words: constraints and slaves that read tokens see their positions.
      const tokens = Array.from({ length: n }, (_, t) => String(t + 1));
      let tagged: Tagged;
      try {
        tagged = tagger.tagAttributes(fromAttributeLists(instance.items), tokens, signal);
      } catch (error) {
        if (error instanceof InfeasibleSentenceError) {
          const at = instance.source;
          throw badInputError(
            `${at === undefined ? "sequence" : `${at.file}:${at.line}`}: ${error.message}`,
          );
        }
        throw error;
      }
      const labels = tagged.labels;
      if (constrained) tally.add(tagged.decoding);
      // An item's label field is gold when it is one of the model's labels (CRFsuite's `-t`).
      let whole = true;
      for (let t = 0; t < n; t++) {
        const gold = instance.labels[t]!;
        if (gold !== "" && known.has(gold)) {
          goldTokens++;
          if (gold === labels[t]) correct++;
        } else whole = false;
      }
      if (whole && chunked !== undefined) {
        goldSequences.push(instance.labels);
        predictedSequences.push(labels);
      }
      await output.write(`${labels.join("\n")}\n\n`);
    }
    const seconds = (performance.now() - started) / 1000;
    const accuracy =
      goldTokens === 0
        ? " (no item's label is one of the model's: no accuracy)"
        : `; token accuracy ${((100 * correct) / goldTokens).toFixed(2)}% against the input's labels (${goldTokens} tokens)${chunked === undefined ? "" : chunkF1(goldSequences, predictedSequences, chunked)}`;
    return `${taggingReport(tagger.time, seconds, constrained ? tally.summary() : undefined)}${accuracy}${options.out === undefined ? "" : `; wrote ${options.out}`}`;
  });
}

/** `, chunk F1 88.20 (IOB2)` over the sequences whose labels are all the model's, or nothing. */
function chunkF1(
  gold: readonly (readonly string[])[],
  predicted: readonly (readonly string[])[],
  scheme: SchemeName,
): string {
  if (gold.length === 0) return "";
  const { f1 } = evaluateChunks(gold, predicted, { scheme });
  return `, chunk F1 ${(100 * f1).toFixed(2)} (${scheme}, ${gold.length} sequences)`;
}
