import { readFile } from "node:fs/promises";
import { loadModel } from "@lagrange/chain-crf";
import { type ConstraintsFileEntry, parseConstraintsFile } from "@lagrange/constraint-templates";
import { DecodingTally } from "@lagrange/core";
import { openCorpus } from "@lagrange/datasets";
import { checkDecoderUse, loadPlugin, standardDecoders, Tagger } from "@lagrange/recipes";
import type { Command } from "commander";
import { badInputError } from "../exit-codes.ts";
import { collect, malformedOption, parseInteger, withCtrlC } from "../options.ts";
import { conllLines, openOutput } from "../output.ts";
import { note, progressBar } from "../progress.ts";
import { taggingReport } from "../render.ts";

export interface TagOptions {
  readonly model: string;
  readonly data: string;
  readonly format?: string;
  readonly decoder: string;
  /** Learned constraints (`lagrange constraints learn`). */
  readonly constraints?: string;
  /** Plug-in modules that add decoders and slaves. */
  readonly plugin?: readonly string[];
  /** Plug-in slaves added to every sentence's problem. */
  readonly slave?: readonly string[];
  readonly maxIterations?: number;
  readonly malformed?: "error" | "repair" | "skip";
  readonly out?: string;
}

/** Reads and validates a constraints file against the model's labels (exit code 3 when bad). */
export async function readConstraintsFile(
  path: string,
  labelNames: readonly string[],
): Promise<readonly ConstraintsFileEntry[]> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw badInputError(`cannot read ${path}: ${(error as Error).message}`);
  }
  return parseConstraintsFile(text, { source: path, expectedLabels: labelNames }).entries;
}

/** `lagrange tag`: writes the labelled data; returns the report line (stderr). */
export async function tagCommand(options: TagOptions, signal?: AbortSignal): Promise<string> {
  const registry = standardDecoders();
  for (const plugin of options.plugin ?? []) await loadPlugin(registry, plugin);
  checkDecoderUse(registry, options.decoder, {
    constraints: options.constraints !== undefined,
    slaves: options.slave ?? [],
  });
  const constrained = registry.decoder(options.decoder).accepts.constraints;
  const model = await loadModel(options.model);
  const constraints =
    options.constraints === undefined
      ? undefined
      : await readConstraintsFile(options.constraints, model.labels.names());
  const tagger = new Tagger({
    model,
    registry,
    decoder: options.decoder,
    ...(constraints === undefined ? {} : { constraints }),
    slaves: options.slave ?? [],
    ...(options.maxIterations === undefined
      ? {}
      : { decodeOptions: { maxIterations: options.maxIterations } }),
  });
  const data = await openCorpus(options.data, {
    ...(options.format === undefined ? {} : { format: options.format }),
    malformed: options.malformed ?? "skip",
    defaultSplit: "dev",
  });
  const output = await openOutput(options.out);
  // The bar shares stderr with the report; with output on stdout it would interleave.
  const bar = progressBar(
    "tag",
    data.sentences.length,
    options.out !== undefined && process.stderr.isTTY,
  );
  const tally = new DecodingTally();
  const started = performance.now();
  try {
    for (let i = 0; i < data.sentences.length; i++) {
      const sentence = data.sentences[i]!;
      const tagged = tagger.tag(sentence, signal);
      if (constrained) tally.add(tagged.decoding);
      await output.write(conllLines(sentence, tagged.labels));
      if (i % 256 === 0) bar.update(i);
    }
    bar.update(data.sentences.length);
    await output.close();
  } catch (error) {
    await output.abort();
    throw error;
  } finally {
    bar.stop();
  }
  const seconds = (performance.now() - started) / 1000;
  const summary = constrained ? tally.summary() : undefined;
  return `${taggingReport(tagger.time, seconds, summary)}${options.out === undefined ? "" : `; wrote ${options.out}`}`;
}

export function registerTag(program: Command): void {
  program
    .command("tag")
    .description(
      "Label data with a model; writes the input's columns plus the predicted label. Decoders come from one registry (viterbi, soft-dd, hard-dd, and any --plugin's); constrained decoders print mean iterations, % certified and the time per phase to stderr",
    )
    .requiredOption("--model <file>", "model file")
    .requiredOption(
      "--data <spec>",
      "data to tag: a registry name[:split] (default split dev) or a file path",
    )
    .option("--format <format>", "file format for a path: conll, conllu, umass, inline")
    .option(
      "--decoder <name>",
      "viterbi (exact, scheme-valid), soft-dd (learned penalties, anzaroot2014 Alg. 2), hard-dd (every constraint hard, Alg. 1), or a plug-in's",
      "viterbi",
    )
    .option(
      "--constraints <file>",
      "constraints file from `lagrange constraints learn` (for soft-dd, hard-dd)",
    )
    .option(
      "--plugin <module>",
      "a JavaScript module whose default export (host) => void adds decoders and slaves; repeatable",
      collect,
    )
    .option(
      "--slave <name>",
      "a plug-in slave added to every sentence's problem; repeatable",
      collect,
    )
    .option(
      "--max-iterations <n>",
      "dual-decomposition iterations per sentence (default 200; viterbi has one); the best labelling so far is kept",
      parseInteger,
    )
    .addOption(malformedOption())
    .option("--out <file>", "output file, written atomically (default standard output)")
    .action(async (opts: TagOptions) => {
      note(await withCtrlC((signal) => tagCommand(opts, signal)));
    });
}
