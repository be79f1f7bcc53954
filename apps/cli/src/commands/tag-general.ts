import { checkpoints } from "@lagrange/core";
import { tokenPlace } from "@lagrange/datasets";
import {
  type GeneralTagging,
  inputForModel,
  type OpenedGeneralTagger,
  tagGeneral,
} from "@lagrange/recipes";
import { conllLines, writeOutput } from "../output.js";
import { type Progress, progressBar, warn } from "../progress.js";
import { taggingScoreNote } from "../tag-score.js";
import { readTagData, type TagOptions } from "./tag.js";

/**
 * `lagrange tag` with a general CRF: the whole input is read first (its groups — tweet clusters or
 * documents — need every sentence), each group is decoded with its consistency factors, and the
 * labels are written in input order. `--decoder viterbi` decodes the chain alone.
 */
export async function tagGeneralCommand(
  options: TagOptions,
  opened: OpenedGeneralTagger,
  signal: AbortSignal | undefined,
): Promise<string> {
  const { crf, registry, decoder, chainOnly, decodeOptions } = opened;
  return writeOutput(options.out, { option: "--out", signal }, async (output) => {
    const read = await readTagData(options, signal);
    const data = inputForModel(read, crf.model, options.unlabeled === true ? "none" : "auto");
    const { sentences } = data;
    const show = options.out !== undefined && process.stderr.isTTY;
    let bar: Progress | undefined;
    const started = performance.now();
    let tagging: GeneralTagging;
    try {
      tagging = await tagGeneral(crf, sentences, registry.create(decoder), {
        decodeOptions,
        ...(chainOnly ? { chainOnly: true } : {}),
        ...(signal === undefined ? {} : { signal }),
        onGroup: (done, total) => {
          bar ??= progressBar("tag", total, show);
          bar.update(done, `${done}/${total} groups`);
        },
      });
    } finally {
      bar?.stop();
    }
    const checkpoint = checkpoints(signal);
    let tokens = 0;
    for (let i = 0; i < sentences.length; i++) {
      if (checkpoint.due()) await checkpoint.pause();
      const sentence = sentences[i]!;
      tokens += sentence.tokens.length;
      await output.write(conllLines(sentence, tagging.labels[i]!));
    }
    const seconds = (performance.now() - started) / 1000;
    const timedOut = tagging.groups
      .filter((g) => g.decoding.status === "time-limit")
      .map((g) => tokenPlace(sentences[g.members[0]!]!, 0));
    if (timedOut.length > 0) {
      const limit = Number(decodeOptions.timeLimitMs) / 1000;
      warn(
        `${timedOut.length} group(s) hit the ${limit} s time limit; their labels are the best found, not proven optimal (groups starting at ${timedOut.slice(0, 20).join(", ")}${timedOut.length > 20 ? ", …" : ""})`,
      );
    }
    const selection = crf.settings.selection;
    if (selection !== undefined && selection.scale === 0) {
      warn(
        `this general CRF's training chose the chain alone on its held-out cut (${(100 * selection.chainScore).toFixed(2)} ${selection.measure === "f1" ? "F1" : "accuracy"}; no consistency weights beat it): it decodes as its chain`,
      );
    }
    const unlabeled = sentences.every((s) => s.labels === undefined);
    return `tagged ${sentences.length} sequences, ${tokens} tokens in ${seconds.toFixed(2)} s with the general CRF (${crf.settings.groups}), decoder ${decoder}${chainOnly ? " (the chain alone: consistency factors ignored)" : ""}; ${generalDecodingReport(tagging)}${taggingScoreNote(data.format, sentences, tagging.labels)}${unlabeled ? " (unlabeled input: no gold column)" : ""}${options.out === undefined ? "" : `; wrote ${options.out}`}`;
  });
}

/** Groups, groups with consistency factors, % of those certified, decoding time. */
function generalDecodingReport(tagging: GeneralTagging): string {
  const linked = tagging.groups.filter((g) => g.factors > 0);
  const certified = linked.filter((g) => g.decoding.certified).length;
  const iterations = linked.reduce((sum, g) => sum + g.decoding.iterations, 0);
  const share =
    linked.length === 0
      ? "none to certify"
      : `${((100 * certified) / linked.length).toFixed(1)}% of those certified, ${(iterations / linked.length).toFixed(2)} mean iterations`;
  return `${tagging.groups.length} groups, ${linked.length} with consistency factors (${share}); decoding ${(tagging.decodingMs / 1000).toFixed(2)} s`;
}
