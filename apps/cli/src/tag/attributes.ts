import { fromAttributeLists } from "@lagrange/chain-crf";
import { checkpoints } from "@lagrange/core";
import { evaluateChunks, readCrfsuite, type SchemeName } from "@lagrange/datasets";
import { isTagFailure, type SequenceTagger } from "@lagrange/recipes";
import { badInputError } from "../exit-codes.js";
import { requireFile } from "../inputs.js";
import { writeOutput } from "../output.js";
import type { TagOptions } from "./options.js";
import { TaggingLog } from "./output.js";
import type { TagPlan } from "./plan.js";

/**
 * `lagrange tag --format crfsuite`: CRFsuite's data format in (`label TAB attr[:weight] …`, a
 * blank line between sequences; a file, or standard input with `--data -`), read as it streams;
 * what `crfsuite tag` writes out — one predicted label per line, a blank line after each sequence.
 * The attributes go to the model as they are, so a model imported from CRFsuite (which has no
 * feature preset) tags the data its users already have, and so does any model whose attribute
 * names the data uses. With labels in the input, the report gives the token accuracy.
 */
export async function tagAttributeLists(
  options: TagOptions,
  tagger: SequenceTagger,
  plan: TagPlan,
  signal: AbortSignal | undefined,
): Promise<string> {
  const stdin = options.data === "-";
  if (!stdin) requireFile("--data", options.data);
  return writeOutput(options.out, { option: "--out", signal }, async (output) => {
    const log = new TaggingLog(tagger, plan.request);
    const known = new Set(tagger.labels);
    const started = performance.now();
    let goldTokens = 0;
    let correct = 0;
    // Sequences whose every label is the model's: chunk F1 under its scheme, as train's dev scores.
    const { scheme } = tagger;
    const chunked =
      scheme === "none" || scheme === "hierarchical-BIO" ? undefined : (scheme as SchemeName);
    const goldSequences: string[][] = [];
    const predictedSequences: (readonly string[])[] = [];
    const sequences = readCrfsuite(stdin ? process.stdin : options.data, {
      ...(stdin ? { file: "<stdin>" } : {}),
      ...(signal === undefined ? {} : { signal }),
    });
    const checkpoint = checkpoints(signal);
    for await (const instance of sequences) {
      if (checkpoint.due()) await checkpoint.pause();
      const n = instance.items.length;
      const at = instance.source;
      const place = at === undefined ? "sequence" : `${at.file}:${at.line}`;
      const batch = await tagger.tagAttributes(
        [
          {
            attributes: fromAttributeLists(instance.items),
            // CRFsuite's items carry no words: constraints and slaves that read tokens see positions.
            tokens: Array.from({ length: n }, (_, t) => String(t + 1)),
            place,
          },
        ],
        { ...(signal === undefined ? {} : { signal }) },
      );
      log.batch(batch);
      const item = batch.items[0]!;
      if (isTagFailure(item)) throw badInputError(`${item.place}: ${item.reason}`);
      const { labels } = item;
      log.add(item, place);
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
    const accuracy =
      goldTokens === 0
        ? " (no item's label is one of the model's: no accuracy)"
        : `; token accuracy ${((100 * correct) / goldTokens).toFixed(2)}% against the input's labels (${goldTokens} tokens)${chunked === undefined ? "" : chunkF1(goldSequences, predictedSequences, chunked)}`;
    return log.finish({
      seconds: (performance.now() - started) / 1000,
      threads: 1,
      score: accuracy,
      unlabeled: false,
      out: options.out,
    });
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
