import { readFile } from "node:fs/promises";
import { type ConstraintsFileEntry, parseConstraintsFile } from "@lagrange/constraint-templates";
import { checkpoints, type DecoderRegistry, DecodingTally } from "@lagrange/core";
import {
  checkDecoderUse,
  inputForModel,
  loadPlugin,
  standardDecoders,
  Tagger,
} from "@lagrange/recipes";
import type { Command } from "commander";
import { badInputError } from "../exit-codes.ts";
import { openData, readModel, requireFile } from "../inputs.ts";
import { interruptible } from "../interruption.ts";
import { collect, malformedOption, parseInteger } from "../options.ts";
import { conllLines, type Output, writeOutput } from "../output.ts";
import { note, progressBar, warn } from "../progress.ts";
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
  /** The data has no gold column: every column is an input (default: read off its width). */
  readonly unlabeled?: boolean;
  readonly out?: string;
}

/** Reads and validates a constraints file against the model's labels (exit 2 when absent, 3 when bad). */
export async function readConstraintsFile(
  path: string,
  labelNames: readonly string[],
): Promise<readonly ConstraintsFileEntry[]> {
  requireFile("--constraints", path);
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
  for (const plugin of options.plugin ?? []) {
    requireFile("--plugin", plugin);
    await loadPlugin(registry, plugin);
  }
  checkDecoderUse(registry, options.decoder, {
    constraints: options.constraints !== undefined,
    slaves: options.slave ?? [],
  });
  const constrained = registry.decoder(options.decoder).accepts.constraints;
  if (options.maxIterations !== undefined && !constrained) {
    warn(
      `--max-iterations bounds dual decomposition; ${options.decoder} decodes in one pass, so it is ignored`,
    );
  }
  const inputs = [options.model, options.data, options.constraints, ...(options.plugin ?? [])];
  return writeOutput(options.out, { option: "--out", inputs }, (output) =>
    tagInto(output, options, registry, constrained, signal),
  );
}

async function tagInto(
  output: Output,
  options: TagOptions,
  registry: DecoderRegistry,
  constrained: boolean,
  signal: AbortSignal | undefined,
): Promise<string> {
  const model = await readModel(options.model);
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
  const read = await openData("--data", options.data, {
    ...(options.format === undefined ? {} : { format: options.format }),
    malformed: options.malformed ?? "skip",
    defaultSplit: "dev",
    ...(signal === undefined ? {} : { signal }),
  });
  const data = inputForModel(read, model, options.unlabeled === true ? "none" : "auto");
  // The bar shares stderr with the report; with output on stdout it would interleave.
  const bar = progressBar(
    "tag",
    data.sentences.length,
    options.out !== undefined && process.stderr.isTTY,
  );
  const tally = new DecodingTally();
  const started = performance.now();
  const checkpoint = checkpoints(signal);
  try {
    for (let i = 0; i < data.sentences.length; i++) {
      await checkpoint();
      const sentence = data.sentences[i]!;
      const tagged = tagger.tag(sentence, signal);
      if (constrained) tally.add(tagged.decoding);
      await output.write(conllLines(sentence, tagged.labels));
      if (i % 256 === 0) bar.update(i);
    }
    bar.update(data.sentences.length);
  } finally {
    bar.stop();
  }
  const seconds = (performance.now() - started) / 1000;
  const summary = constrained ? tally.summary() : undefined;
  const unlabeled = data.sentences.every((s) => s.labels === undefined);
  return `${taggingReport(tagger.time, seconds, summary)}${unlabeled ? " (unlabeled input: no gold column)" : ""}${options.out === undefined ? "" : `; wrote ${options.out}`}`;
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
    .option(
      "--unlabeled",
      "the data has no gold label column: every column is an input (default: a file as wide as the model's input columns is unlabeled, one column wider has gold last)",
    )
    .addOption(malformedOption())
    .option(
      "--out <file>",
      "output file, written atomically; checked before tagging (default standard output)",
    )
    .action(async (opts: TagOptions) => {
      note(await interruptible((signal) => tagCommand(opts, signal)));
    });
}
