import { readFile } from "node:fs/promises";
import { type ConstraintsFileEntry, parseConstraintsFile } from "@lagrange/constraint-templates";
import { checkpoints, type DecoderRegistry, DecodingTally } from "@lagrange/core";
import { tokenPlace } from "@lagrange/datasets";
import type { IlpDecodeOptions } from "@lagrange/ilp";
import {
  checkDecoderUse,
  InfeasibleSentenceError,
  inputForModel,
  loadPlugin,
  standardDecoders,
  type Tagged,
  Tagger,
} from "@lagrange/recipes";
import { type Command, InvalidArgumentError } from "commander";
import { badInputError } from "../exit-codes.ts";
import { openData, readModel, requireFile } from "../inputs.ts";
import { interruptible } from "../interruption.ts";
import { collect, malformedOption, parseInteger, parsePositive } from "../options.ts";
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
  /** Two-phase ILP: probability within a factor τ of the best (0 < τ ≤ 1). */
  readonly tau?: number;
  /** ILP decoders: per-sentence time limit in seconds. */
  readonly timeLimit?: number;
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
  const ilp = ILP_DECODERS.has(options.decoder);
  if (options.maxIterations !== undefined && (!constrained || ilp)) {
    warn(
      `--max-iterations bounds dual decomposition; ${options.decoder} does not iterate, so it is ignored`,
    );
  }
  if (options.tau !== undefined && options.decoder !== "two-phase") {
    warn(`--tau sets the two-phase ILP's score bound; ${options.decoder} ignores it`);
  }
  if (options.timeLimit !== undefined && !ilp) {
    warn(`--time-limit bounds the ILP decoders (exact, two-phase); ${options.decoder} ignores it`);
  }
  await registry.prepare(options.decoder);
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
  // The ILP decoders read tau and the time limit; the others ignore what they do not know.
  const decodeOptions: IlpDecodeOptions = {
    ...(options.maxIterations === undefined ? {} : { maxIterations: options.maxIterations }),
    ...(options.tau === undefined ? {} : { tau: options.tau }),
    timeLimitMs: 1000 * (options.timeLimit ?? DEFAULT_TIME_LIMIT_SECONDS),
  };
  const tagger = new Tagger({
    model,
    registry,
    decoder: options.decoder,
    ...(constraints === undefined ? {} : { constraints }),
    slaves: options.slave ?? [],
    decodeOptions,
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
  const timedOut: string[] = [];
  try {
    for (let i = 0; i < data.sentences.length; i++) {
      await checkpoint();
      const sentence = data.sentences[i]!;
      let tagged: Tagged;
      try {
        tagged = tagger.tag(sentence, signal);
      } catch (error) {
        if (error instanceof InfeasibleSentenceError) {
          throw badInputError(`${tokenPlace(sentence, 0)}: ${error.message}`);
        }
        throw error;
      }
      if (tagged.decoding.status === "time-limit") timedOut.push(tokenPlace(sentence, 0));
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
  if (timedOut.length > 0) {
    const limit = options.timeLimit ?? DEFAULT_TIME_LIMIT_SECONDS;
    warn(
      `${timedOut.length} sentence(s) hit the ${limit} s time limit; their labels are the best found, not proven optimal: ${timedOut.slice(0, 20).join(", ")}${timedOut.length > 20 ? ", …" : ""}`,
    );
  }
  return `${taggingReport(tagger.time, seconds, summary)}${unlabeled ? " (unlabeled input: no gold column)" : ""}${options.out === undefined ? "" : `; wrote ${options.out}`}`;
}

function parseTau(value: string): number {
  const tau = Number(value);
  if (!(tau > 0 && tau <= 1)) {
    throw new InvalidArgumentError(`expected a number in (0, 1], got "${value}"`);
  }
  return tau;
}

/** The decoders that solve an integer program and honour a time limit. */
const ILP_DECODERS = new Set(["exact", "two-phase"]);
const DEFAULT_TIME_LIMIT_SECONDS = 10;

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
      "viterbi (exact, scheme-valid), soft-dd (learned penalties, anzaroot2014 Alg. 2), hard-dd (every constraint hard, Alg. 1), exact (integer programming on HiGHS: the optimum of the same soft objective), two-phase (fersini2014's two-phase soft-constrained ILP), or a plug-in's",
      "viterbi",
    )
    .option(
      "--constraints <file>",
      "constraints file from `lagrange constraints learn` or `lagrange rules mine` (for soft-dd, hard-dd, exact, two-phase)",
    )
    .option(
      "--tau <x>",
      "two-phase: labellings qualify when their probability is within a factor τ of the best, s(y) ≥ Z* + log τ (0 < τ ≤ 1; default 0.1)",
      parseTau,
    )
    .option(
      "--time-limit <seconds>",
      `exact, two-phase: per-sentence time limit; sentences that hit it keep the best labelling found and are listed (default ${DEFAULT_TIME_LIMIT_SECONDS})`,
      parsePositive,
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
