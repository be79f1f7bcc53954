import { checkpoints } from "@lagrange/core";
import { tokenPlace } from "@lagrange/datasets";
import { type L2sTagger, l2sChainScores, type OpenedL2sTagger } from "@lagrange/recipes";
import { badInputError } from "../exit-codes.js";
import { l2sTaggerInput } from "../l2s-models.js";
import { conllLines, writeOutput } from "../output.js";
import { progressBar } from "../progress.js";
import { taggingScoreNote } from "../tag-score.js";
import { readTagData, type TagOptions } from "./tag.js";

/**
 * `lagrange tag` with a learning-to-search tagger (`lagrange train --learner l2s --task pos|ner`):
 * each sentence's chain scores under the policy (with the scheme's mask when it was trained with
 * the bridge) decoded by `--decoder` — greedy by default, the policy's own left-to-right
 * prediction; written as the CRF path writes (the input's columns, the predicted label last).
 */
export async function tagL2sCommand(
  options: TagOptions,
  opened: OpenedL2sTagger,
  signal?: AbortSignal,
): Promise<string> {
  const { l2s: tagger, registry, decoder: name } = opened;
  return writeOutput(options.out, { option: "--out", signal }, async (output) => {
    const read = await readTagData(options, signal);
    const data = l2sTaggerInput(read, tagger, options.unlabeled === true ? "none" : "auto");
    const decoder = registry.create(name);
    const { decodeOptions } = opened;
    const bar = progressBar(
      "tag",
      data.sentences.length,
      options.out !== undefined && process.stderr.isTTY,
    );
    const checkpoint = checkpoints(signal);
    const started = performance.now();
    let tokens = 0;
    const predicted: string[][] = []; // scored against the gold in the report
    try {
      for (let i = 0; i < data.sentences.length; i++) {
        if (checkpoint.due()) await checkpoint.pause();
        const sentence = data.sentences[i]!;
        const decoding = decoder.decode(
          { scores: l2sChainScores(tagger, sentence) },
          decodeOptions,
        );
        if (decoding.status === "infeasible") {
          throw badInputError(
            `${tokenPlace(sentence, 0)}: no labelling meets the label scheme's transitions`,
          );
        }
        tokens += sentence.tokens.length;
        const labels = Array.from(decoding.labels, (y) => tagger.labels[y]!);
        predicted.push(labels);
        await output.write(conllLines(sentence, labels));
        if (i % 256 === 0) bar.update(i);
      }
      bar.update(data.sentences.length);
    } finally {
      bar.stop();
    }
    const seconds = (performance.now() - started) / 1000;
    const unlabeled = data.sentences.every((s) => s.labels === undefined);
    return `tagged ${data.sentences.length} sequences, ${tokens} tokens in ${seconds.toFixed(2)} s with the L2S tagger (${describeTagger(tagger)}), decoder ${name}${taggingScoreNote(data.format, data.sentences, predicted)}${unlabeled ? " (unlabeled input: no gold column)" : ""}${options.out === undefined ? "" : `; wrote ${options.out}`}`;
  });
}

/** "preset ner-words, scheme IOB2, bridge on". */
export function describeTagger(tagger: L2sTagger): string {
  return `${tagger.labels.length} labels, preset ${tagger.preset}, scheme ${tagger.scheme}${tagger.scheme === "none" ? "" : `, bridge ${tagger.mask === null ? "off" : "on"}`}`;
}
