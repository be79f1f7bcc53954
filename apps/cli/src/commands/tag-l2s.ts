import type { BcrfDecodeOptions } from "@lagrange/bcrf";
import { checkpoints, type DecoderDefinition, type DecoderRegistry } from "@lagrange/core";
import { tokenPlace } from "@lagrange/datasets";
import { type L2sTagger, l2sChainScores, loadPlugin, standardDecoders } from "@lagrange/recipes";
import { L2S_DEFAULT_DECODER } from "../define/values.js";
import { badInputError, usageError } from "../exit-codes.js";
import { openData, requireFile } from "../inputs.js";
import { l2sTaggerInput, readL2sModel, requireL2sTagger } from "../l2s-models.js";
import { conllLines, writeOutput } from "../output.js";
import { progressBar, warn } from "../progress.js";
import type { TagOptions } from "./tag.js";

/** The decoders whose steps `--bcrf-iterations` sets. */
const ITERATING_DECODERS = new Set(["bcrf", "mean-field"]);

/**
 * Whether a registered decoder can decode an L2S tagger's chain scores alone: not one that needs
 * constraints, slaves or a general CRF's patterns (greedy takes constraints but does not need
 * them: without any it is the policy's own left-to-right prediction).
 */
function decodesScoresAlone(definition: DecoderDefinition): boolean {
  if (definition.accepts.patterns === true || (definition.withSlaves ?? []).length > 0) {
    return false;
  }
  return definition.name === L2S_DEFAULT_DECODER || !definition.accepts.constraints;
}

/** `--decoder` for an L2S tagger: registered, and able to decode its scores alone. */
async function l2sDecoder(
  options: TagOptions,
): Promise<{ registry: DecoderRegistry; name: string }> {
  const given = [
    options.constraints === undefined ? "" : "--constraints",
    (options.slave ?? []).length > 0 ? "--slave" : "",
  ].filter((x) => x !== "");
  if (given.length > 0) {
    throw usageError(
      `${given.join(", ")}: ${options.model} is an L2S tagger, decoded from its scores alone; learned constraints and slaves are for CRF models`,
    );
  }
  const registry = standardDecoders();
  for (const plugin of options.plugin ?? []) {
    requireFile("--plugin", plugin);
    await loadPlugin(registry, plugin);
  }
  const name = options.decoder ?? L2S_DEFAULT_DECODER;
  const definition = registry.decoder(name); // an unknown name is a usage error listing the known
  if (!decodesScoresAlone(definition)) {
    const fit = registry
      .decoders()
      .filter(decodesScoresAlone)
      .map((d) => d.name);
    throw usageError(
      `decoder ${name} needs constraints, slaves or a general CRF's patterns; ${options.model} is an L2S tagger, decoded from its scores alone: choose ${fit.join(", ")} (default ${L2S_DEFAULT_DECODER}, the policy's own prediction)`,
    );
  }
  const ignored = [
    options.maxIterations === undefined ? "" : "--max-iterations",
    options.tau === undefined ? "" : "--tau",
    options.timeLimit === undefined ? "" : "--time-limit",
  ].filter((x) => x !== "");
  if (ignored.length > 0) {
    warn(
      `${ignored.join(", ")}: options of the dual-decomposition and ILP decoders; ${name} decoding an L2S tagger ignores ${ignored.length === 1 ? "it" : "them"}`,
    );
  }
  if (options.bcrfIterations !== undefined && !ITERATING_DECODERS.has(name)) {
    warn(`--bcrf-iterations sets the bcrf and mean-field decoders' steps; ${name} ignores it`);
  }
  await registry.prepare(name);
  return { registry, name };
}

/**
 * `lagrange tag` with a learning-to-search tagger (`lagrange train --learner l2s --task pos|ner`):
 * each sentence's chain scores under the policy (with the scheme's mask when it was trained with
 * the bridge) decoded by `--decoder` — greedy by default, the policy's own left-to-right
 * prediction; written as the CRF path writes (the input's columns, the predicted label last).
 */
export async function tagL2sCommand(options: TagOptions, signal?: AbortSignal): Promise<string> {
  const model = await readL2sModel(options.model, "--model", signal);
  const tagger = requireL2sTagger(model, options.model);
  const { registry, name } = await l2sDecoder(options);
  const inputs = [options.model, options.data, ...(options.plugin ?? [])];
  return writeOutput(options.out, { option: "--out", inputs, signal }, async (output) => {
    const read = await openData("--data", options.data, {
      ...(options.format === undefined ? {} : { format: options.format }),
      malformed: options.malformed ?? "skip",
      defaultSplit: "dev",
      ...(signal === undefined ? {} : { signal }),
    });
    const data = l2sTaggerInput(read, tagger, options.unlabeled === true ? "none" : "auto");
    const decoder = registry.create(name);
    const decodeOptions: BcrfDecodeOptions =
      options.bcrfIterations === undefined ? {} : { iterations: options.bcrfIterations };
    const bar = progressBar(
      "tag",
      data.sentences.length,
      options.out !== undefined && process.stderr.isTTY,
    );
    const checkpoint = checkpoints(signal);
    const started = performance.now();
    let tokens = 0;
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
        await output.write(
          conllLines(
            sentence,
            Array.from(decoding.labels, (y) => tagger.labels[y]!),
          ),
        );
        if (i % 256 === 0) bar.update(i);
      }
      bar.update(data.sentences.length);
    } finally {
      bar.stop();
    }
    const seconds = (performance.now() - started) / 1000;
    const unlabeled = data.sentences.every((s) => s.labels === undefined);
    return `tagged ${data.sentences.length} sequences, ${tokens} tokens in ${seconds.toFixed(2)} s with the L2S tagger (${describeTagger(tagger)}), decoder ${name}${unlabeled ? " (unlabeled input: no gold column)" : ""}${options.out === undefined ? "" : `; wrote ${options.out}`}`;
  });
}

/** "preset ner-words, scheme IOB2, bridge on". */
export function describeTagger(tagger: L2sTagger): string {
  return `${tagger.labels.length} labels, preset ${tagger.preset}, scheme ${tagger.scheme}${tagger.scheme === "none" ? "" : `, bridge ${tagger.mask === null ? "off" : "on"}`}`;
}
