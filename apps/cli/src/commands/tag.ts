import { existsSync, statSync } from "node:fs";
import {
  BCRF_DECODING_DEFAULTS,
  type BcrfDecodeOptions,
  MEAN_FIELD_DEFAULTS,
} from "@lagrange/bcrf";
import type { CrfModel } from "@lagrange/chain-crf";
import { type ConstraintsFileEntry, parseConstraintsFile } from "@lagrange/constraint-templates";
import {
  checkpoints,
  type DecoderRegistry,
  DecodingTally,
  LagrangeError,
  lagrangeErrorCode,
} from "@lagrange/core";
import { tokenPlace } from "@lagrange/datasets";
import { formatOfPath } from "@lagrange/datasets/node";
import type { IlpDecodeOptions } from "@lagrange/ilp";
import {
  checkDecoderUse,
  GENERAL_CRF_DEFAULTS,
  type GeneralCrf,
  type GeneralTagging,
  generalCrfOf,
  InfeasibleSentenceError,
  inputForModel,
  loadPlugin,
  standardDecoders,
  type Tagged,
  Tagger,
  tagGeneral,
} from "@lagrange/recipes";
import { DEFAULT_TIME_LIMIT_SECONDS, L2S_DEFAULT_DECODER } from "../define/values.js";
import { badInputError, usageError } from "../exit-codes.js";
import { openData, readModel, readNamedText, requireFile } from "../inputs.js";
import { interruptible } from "../interruption.js";
import { isL2sModelPath } from "../l2s-models.js";
import { conllLines, type Output, writeOutput } from "../output.js";
import { note, type Progress, progressBar, warn } from "../progress.js";
import { taggingReport } from "../render.js";
import { tagL2sCommand } from "./tag-l2s.js";
import type { TagStreamingOptions } from "./tag-stream.js";

/** A path read as NDJSON when no --format says otherwise. */
export const NDJSON_PATH = /\.(nd)?jsonl?$/i;

/**
 * Whether `lagrange tag` streams (./tag-stream.ts): standard input, a CoNLL or NDJSON file, or any
 * streaming option given. Other inputs (registry names, UMass, inline, CoNLL-U files) are read
 * whole.
 */
function wantsStreaming(options: TagOptions): "asked" | "file" | false {
  const file = existsSync(options.data) && !statSync(options.data).isDirectory();
  const format =
    options.format ??
    (file ? (NDJSON_PATH.test(options.data) ? "ndjson" : formatOfPath(options.data)) : undefined);
  const asked =
    options.data === "-" ||
    format === "ndjson" ||
    options.threads !== undefined ||
    options.window !== undefined ||
    options.outputFormat !== undefined ||
    options.onError !== undefined ||
    options.explain === true;
  if (asked) return "asked";
  return file && format === "conll" ? "file" : false;
}

export interface TagOptions extends TagStreamingOptions {
  readonly model: string;
  readonly data: string;
  readonly format?: string;
  /** Default: viterbi for a linear-chain model, two-slave for a general one, greedy for an L2S tagger. */
  readonly decoder?: string;
  /** Learned constraints (`lagrange constraints learn`). */
  readonly constraints?: string;
  /** Plug-in modules that add decoders and slaves. */
  readonly plugin?: readonly string[];
  /** Plug-in slaves added to every sentence's problem. */
  readonly slave?: readonly string[];
  readonly maxIterations?: number;
  /** bcrf: IBP half-steps; mean-field: parallel updates (decode option `iterations`). */
  readonly bcrfIterations?: number;
  /** Two-phase ILP: probability within a factor τ of the best (0 < τ ≤ 1). */
  readonly tau?: number;
  /** ILP decoders: per-sentence time limit in seconds. */
  readonly timeLimit?: number;
  readonly malformed?: "error" | "repair" | "skip";
  /** The data has no gold column: every column is an input (default: read off its width). */
  readonly unlabeled?: boolean;
  readonly out?: string;
}

/**
 * Reads and validates a constraints file against the model's labels (exit 2 when absent or
 * unreadable, 3 when bad). A FIFO is read once, stoppably (`signal`); its text is kept for the
 * worker threads (see readNamedInput).
 */
export async function readConstraintsFile(
  path: string,
  labelNames: readonly string[],
  signal?: AbortSignal,
): Promise<readonly ConstraintsFileEntry[]> {
  requireFile("--constraints", path);
  const text = await readNamedText("--constraints", path, signal);
  return parseConstraintsFile(text, { source: path, expectedLabels: labelNames }).entries;
}

/**
 * `lagrange tag`: writes the labelled data; returns the report line (stderr). The model is read
 * first: a general CRF (`lagrange train --model general`) decodes whole groups of sentences.
 */
export async function tagCommand(options: TagOptions, signal?: AbortSignal): Promise<string> {
  requireFile("--model", options.model);
  const streaming = wantsStreaming(options);
  const notStreamed = (what: string) =>
    usageError(
      `--data -, --threads, --window, --output-format, --on-error and --explain stream a linear-chain CRF's tagging; ${options.model} is ${what}`,
    );
  // A learning-to-search model (lagrange train --learner l2s) by its file's magic.
  if (await isL2sModelPath(options.model, signal)) {
    if (streaming === "asked") throw notStreamed("an L2S tagger");
    return tagL2sCommand(options, signal);
  }
  const model = await readModel(options.model, "--model", signal);
  const general = generalCrfOf(model, options.model);
  if (general !== null) {
    if (streaming === "asked") throw notStreamed("a general CRF (its groups need the whole input)");
    return tagGeneralCommand(options, general, signal);
  }
  const registry = standardDecoders();
  for (const plugin of options.plugin ?? []) {
    requireFile("--plugin", plugin);
    await loadPlugin(registry, plugin);
  }
  const decoder = options.decoder ?? "viterbi";
  // greedy takes constraints but does not need them: alone, it is a left-to-right greedy search
  // of the chain's scores (and nothing it reports is about constraints).
  const greedyAlone =
    decoder === L2S_DEFAULT_DECODER &&
    options.constraints === undefined &&
    (options.slave ?? []).length === 0;
  if (!greedyAlone) checkChainDecoderUse(registry, decoder, options);
  const constrained = registry.decoder(decoder).accepts.constraints && !greedyAlone;
  const ilp = ILP_DECODERS.has(decoder);
  if (options.maxIterations !== undefined && (!constrained || ilp)) {
    warn(maxIterationsIgnored(decoder));
  }
  warnBcrfIterationsIgnored(options, decoder);
  if (options.tau !== undefined && decoder !== "two-phase") {
    warn(`--tau sets the two-phase ILP's score bound; ${decoder} ignores it`);
  }
  if (options.timeLimit !== undefined && !ilp) {
    warn(`--time-limit bounds the ILP decoders (exact, two-phase); ${decoder} ignores it`);
  }
  await registry.prepare(decoder);
  if (options.format === "crfsuite") {
    const streamingOnly = [
      options.threads !== undefined,
      options.window !== undefined,
      options.outputFormat !== undefined,
      options.onError !== undefined,
      options.explain === true,
    ];
    if (streamingOnly.some(Boolean)) {
      throw usageError(
        "--threads, --window, --output-format, --on-error and --explain are for CoNLL and NDJSON; --format crfsuite reads CRFsuite's format as it streams and writes one label per line",
      );
    }
    const { tagCrfsuiteCommand } = await import("./tag-crfsuite.js");
    const tagger = await chainTagger(options, model, registry, decoder, constrained, signal);
    return tagCrfsuiteCommand(options, model, tagger, constrained, signal);
  }
  if (model.preset === null) {
    throw usageError(
      `${options.model} has no feature preset (a model imported from CRFsuite): it reads CRFsuite attribute lists, not text columns; tag data in CRFsuite's format with --format crfsuite`,
    );
  }
  if (streaming) {
    // Loaded on demand: @lagrange/scale also brings the job queue's client.
    const { tagStreamCommand } = await import("./tag-stream.js");
    return tagStreamCommand(options, model, decoder, constrained, signal);
  }
  const inputs = [options.model, options.data, options.constraints, ...(options.plugin ?? [])];
  return writeOutput(options.out, { option: "--out", inputs, signal }, (output) =>
    tagInto(output, options, model, registry, decoder, constrained, signal),
  );
}

/**
 * `checkDecoderUse` for a linear-chain model: a decoder of higher-order patterns (two-slave,
 * naive-dd) given nothing to decode besides the chain is told that it needs a general model.
 */
function checkChainDecoderUse(registry: DecoderRegistry, decoder: string, options: TagOptions) {
  try {
    checkDecoderUse(registry, decoder, {
      constraints: options.constraints !== undefined,
      slaves: options.slave ?? [],
    });
  } catch (error) {
    const definition = registry.decoder(decoder);
    const patterns = definition.accepts.patterns === true && !ILP_DECODERS.has(decoder);
    const alone = options.constraints === undefined && (options.slave ?? []).length === 0;
    if (patterns && alone && lagrangeErrorCode(error) === "usage") {
      throw new LagrangeError(
        "usage",
        `decoder ${decoder} decodes a general CRF's higher-order patterns: it needs a general model (lagrange train --model general --groups tweets|documents); ${options.model} is a linear-chain CRF (tag it with viterbi, or give ${decoder} learned constraints)`,
        { cause: error },
      );
    }
    throw error;
  }
}

async function tagInto(
  output: Output,
  options: TagOptions,
  model: CrfModel,
  registry: DecoderRegistry,
  decoderName: string,
  constrained: boolean,
  signal: AbortSignal | undefined,
): Promise<string> {
  const tagger = await chainTagger(options, model, registry, decoderName, constrained, signal);
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
      if (checkpoint.due()) await checkpoint.pause();
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

/** The Tagger of `lagrange tag` for a linear-chain model: decoder, constraints, slaves, options. */
async function chainTagger(
  options: TagOptions,
  model: CrfModel,
  registry: DecoderRegistry,
  decoderName: string,
  constrained: boolean,
  signal?: AbortSignal,
): Promise<Tagger> {
  const constraints =
    options.constraints === undefined
      ? undefined
      : await readConstraintsFile(options.constraints, model.labels.names(), signal);
  // The ILP decoders read tau and the time limit, bcrf and mean-field the iterations; the others
  // ignore what they do not know.
  const decodeOptions: IlpDecodeOptions & BcrfDecodeOptions = {
    ...(options.maxIterations === undefined ? {} : { maxIterations: options.maxIterations }),
    ...(options.tau === undefined ? {} : { tau: options.tau }),
    ...(options.bcrfIterations === undefined ? {} : { iterations: options.bcrfIterations }),
    timeLimitMs: 1000 * (options.timeLimit ?? DEFAULT_TIME_LIMIT_SECONDS),
  };
  return new Tagger({
    model,
    registry,
    // greedy alone (it takes constraints, none given): built here, past the check that a
    // constrained decoder is given some.
    decoder:
      !constrained && registry.decoder(decoderName).accepts.constraints
        ? registry.create(decoderName)
        : decoderName,
    ...(constraints === undefined ? {} : { constraints }),
    slaves: options.slave ?? [],
    decodeOptions,
  });
}

/** The decoder a general CRF is tagged with when `--decoder` is not given. */
const GENERAL_DEFAULT_DECODER = GENERAL_CRF_DEFAULTS.decoder;

/**
 * `lagrange tag` with a general CRF: the whole input is read first (its groups — tweet clusters or
 * documents — need every sentence), each group is decoded with its consistency factors, and the
 * labels are written in input order. `--decoder viterbi` decodes the chain alone.
 */
async function tagGeneralCommand(
  options: TagOptions,
  crf: GeneralCrf,
  signal: AbortSignal | undefined,
): Promise<string> {
  const given = [
    options.constraints === undefined ? "" : "--constraints",
    (options.slave ?? []).length > 0 ? "--slave" : "",
    (options.plugin ?? []).length > 0 ? "--plugin" : "",
  ].filter((x) => x !== "");
  if (given.length > 0) {
    throw usageError(
      `${given.join(", ")}: ${options.model} is a general CRF (lagrange train --model general), decoded with its own consistency factors; learned constraints, slaves and plug-ins are for linear-chain models`,
    );
  }
  const registry = standardDecoders();
  const decoder = options.decoder ?? GENERAL_DEFAULT_DECODER;
  const definition = registry.decoder(decoder); // an unknown name: a usage error listing the known
  const chainOnly = decoder === "viterbi";
  if (!chainOnly && definition.accepts.patterns !== true) {
    const fit = registry
      .decoders()
      .filter((d) => d.accepts.patterns === true)
      .map((d) => d.name);
    throw usageError(
      `decoder ${decoder} does not decode a general CRF's higher-order patterns; ${options.model} is a general CRF: choose ${fit.join(", ")} (default ${GENERAL_DEFAULT_DECODER}), or viterbi for the chain alone`,
    );
  }
  const ilp = ILP_DECODERS.has(decoder);
  if (options.maxIterations !== undefined && (chainOnly || ilp)) {
    warn(maxIterationsIgnored(decoder));
  }
  warnBcrfIterationsIgnored(options, decoder);
  if (options.tau !== undefined) {
    warn(`--tau sets the two-phase ILP's score bound; ${decoder} ignores it`);
  }
  if (options.timeLimit !== undefined && !ilp) {
    warn(`--time-limit bounds the ILP decoders (exact); ${decoder} ignores it`);
  }
  await registry.prepare(decoder);
  const inputs = [options.model, options.data];
  return writeOutput(options.out, { option: "--out", inputs, signal }, async (output) => {
    const read = await openData("--data", options.data, {
      ...(options.format === undefined ? {} : { format: options.format }),
      malformed: options.malformed ?? "skip",
      defaultSplit: "dev",
      ...(signal === undefined ? {} : { signal }),
    });
    const data = inputForModel(read, crf.model, options.unlabeled === true ? "none" : "auto");
    const { sentences } = data;
    const show = options.out !== undefined && process.stderr.isTTY;
    let bar: Progress | undefined;
    const started = performance.now();
    // exact reads the time limit; the others ignore what they do not know.
    const decodeOptions: IlpDecodeOptions = {
      ...(options.maxIterations === undefined ? {} : { maxIterations: options.maxIterations }),
      timeLimitMs: 1000 * (options.timeLimit ?? DEFAULT_TIME_LIMIT_SECONDS),
    };
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
      const limit = options.timeLimit ?? DEFAULT_TIME_LIMIT_SECONDS;
      warn(
        `${timedOut.length} group(s) hit the ${limit} s time limit; their labels are the best found, not proven optimal (groups starting at ${timedOut.slice(0, 20).join(", ")}${timedOut.length > 20 ? ", …" : ""})`,
      );
    }
    const unlabeled = sentences.every((s) => s.labels === undefined);
    return `tagged ${sentences.length} sequences, ${tokens} tokens in ${seconds.toFixed(2)} s with the general CRF (${crf.settings.groups}), decoder ${decoder}${chainOnly ? " (the chain alone: consistency factors ignored)" : ""}; ${generalDecodingReport(tagging)}${unlabeled ? " (unlabeled input: no gold column)" : ""}${options.out === undefined ? "" : `; wrote ${options.out}`}`;
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

/** The decoders whose iterations `--bcrf-iterations` sets, with their defaults. */
const BCRF_DECODERS: ReadonlyMap<string, string> = new Map([
  ["bcrf", `${BCRF_DECODING_DEFAULTS.iterations} Bregman-projection half-steps`],
  ["mean-field", `${MEAN_FIELD_DEFAULTS.iterations} mean-field updates`],
]);

/** Why `--max-iterations` does nothing for a decoder that is not dual decomposition. */
function maxIterationsIgnored(decoder: string): string {
  const steps = BCRF_DECODERS.get(decoder);
  return steps === undefined
    ? `--max-iterations bounds dual decomposition; ${decoder} does not iterate, so it is ignored`
    : `--max-iterations bounds dual decomposition; ${decoder} runs --bcrf-iterations steps instead (default ${steps}), so it is ignored`;
}

function warnBcrfIterationsIgnored(options: TagOptions, decoder: string): void {
  if (options.bcrfIterations !== undefined && !BCRF_DECODERS.has(decoder)) {
    warn(`--bcrf-iterations sets the bcrf and mean-field decoders' steps; ${decoder} ignores it`);
  }
}

/** The decoders that solve an integer program and honour a time limit. */
const ILP_DECODERS = new Set(["exact", "two-phase"]);

/** What `lagrange tag` does (its options are declared in ../define/tag.ts). */
export async function tagAction(opts: TagOptions): Promise<void> {
  note(await interruptible((signal) => tagCommand(opts, signal)));
}
