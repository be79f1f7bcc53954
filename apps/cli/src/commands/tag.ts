import { createWriteStream } from "node:fs";
import { rename, rm } from "node:fs/promises";
import { finished } from "node:stream/promises";
import { crfSlave, loadModel } from "@lagrange/chain-crf";
import { constraintInstantiator } from "@lagrange/constraint-templates";
import type { Sentence } from "@lagrange/datasets";
import {
  type BatchSummary,
  hardDD,
  type SoftDDSolution,
  softDD,
  summarizeSolutions,
} from "@lagrange/soft-dd";
import { loadData, type MalformedPolicy } from "../data-source.ts";
import { CliError, ExitCode } from "../exit-codes.ts";
import { progressBar } from "../progress.ts";
import { readConstraintsFile } from "./constraints.ts";
import { decodingConstraints, extractAll, modelPreset, modelScheme } from "./model-io.ts";

export const DECODERS = ["viterbi", "soft-dd", "hard-dd"] as const;

export interface TagOptions {
  readonly model: string;
  readonly data: string;
  readonly format?: string;
  readonly decoder: string;
  /** Learned constraints (`lagrange constraints learn`); required by soft-dd and hard-dd. */
  readonly constraints?: string;
  /** Dual-decomposition iteration cap per sentence (default 200). */
  readonly maxIterations?: number;
  readonly malformed?: MalformedPolicy;
  readonly out?: string;
}

/** A decoder turns one sentence's attributes into label names; built once per run. */
export type SentenceDecoder = (index: number) => string[];

/**
 * One output line per token: the input's columns (for inline formats: token and gold label) and
 * the predicted label last, so gold is second-to-last as conlleval expects.
 */
function outputLines(sentence: Sentence, predicted: readonly string[]): string {
  const { columns, tokens } = sentence;
  let text = "";
  for (let t = 0; t < tokens.length; t++) {
    let line = "";
    for (const column of columns) line += `${column[t]} `;
    text += `${line}${predicted[t]}\n`;
  }
  return `${text}\n`;
}

export interface TagStats {
  readonly sentences: number;
  readonly tokens: number;
  readonly seconds: number;
  /** Time spent decoding (feature scoring and output excluded), in seconds. */
  readonly decodeSeconds: number;
  /** Dual-decomposition statistics (soft-dd, hard-dd). */
  readonly summary?: BatchSummary;
}

export async function tagCommand(options: TagOptions): Promise<TagStats> {
  if (!(DECODERS as readonly string[]).includes(options.decoder)) {
    throw new CliError(
      `--decoder must be one of ${DECODERS.join(", ")}, got "${options.decoder}"`,
      ExitCode.usage,
    );
  }
  const constrained = options.decoder !== "viterbi";
  if (constrained && options.constraints === undefined) {
    throw new CliError(
      `--decoder ${options.decoder} needs --constraints C.json (from lagrange constraints learn)`,
      ExitCode.usage,
    );
  }
  const model = await loadModel(options.model);
  const entries =
    options.constraints === undefined
      ? undefined
      : await readConstraintsFile(options.constraints, model.labels.names());
  const constraintsFor = entries === undefined ? undefined : constraintInstantiator(entries);
  const solver = options.decoder === "hard-dd" ? hardDD() : softDD();
  const maxIterations = options.maxIterations ?? 200;
  const solutions: SoftDDSolution[] = [];
  const L = model.numLabels;
  const preset = modelPreset(model, options.model);
  const data = await loadData(options.data, {
    ...(options.format === undefined ? {} : { format: options.format }),
    malformed: options.malformed ?? "skip",
    defaultSplit: "dev",
  });
  const constraints = decodingConstraints(model.labels.names(), modelScheme(model));
  const attributes = extractAll(preset, data.sentences);
  const decodeOptions = constraints === undefined ? {} : { constraints };

  const target = options.out ?? "-";
  const temp = target === "-" ? undefined : `${target}.${process.pid}.tmp`;
  const stream: NodeJS.WritableStream =
    temp === undefined ? process.stdout : createWriteStream(temp);
  const bar = progressBar("tag", data.sentences.length, temp !== undefined && process.stderr.isTTY);
  let tokens = 0;
  let decodeMs = 0;
  const started = performance.now();
  const decode = (i: number): string[] => {
    if (constraintsFor === undefined || !constrained) {
      const t0 = performance.now();
      const labels = model.tag(attributes[i]!, decodeOptions);
      decodeMs += performance.now() - t0;
      return labels;
    }
    const sentence = data.sentences[i]!;
    const scores = model.chainScores(attributes[i]!, decodeOptions);
    const t0 = performance.now();
    const solution = solver.solve(
      {
        slave: crfSlave(scores),
        constraints: constraintsFor({ n: sentence.tokens.length, L, tokens: sentence.tokens }),
      },
      { maxIterations },
    );
    decodeMs += performance.now() - t0;
    solutions.push(solution);
    return model.labels.decode(solution.labels);
  };
  try {
    for (let i = 0; i < data.sentences.length; i++) {
      const predicted = decode(i);
      tokens += predicted.length;
      if (!stream.write(outputLines(data.sentences[i]!, predicted))) {
        await new Promise<void>((resolve) => stream.once("drain", () => resolve()));
      }
      if (i % 256 === 0) bar.update(i);
    }
    bar.update(data.sentences.length);
    if (temp !== undefined) {
      stream.end();
      await finished(stream);
      await rename(temp, target);
    }
  } catch (error) {
    if (temp !== undefined) await rm(temp, { force: true });
    throw error;
  } finally {
    bar.stop();
  }
  return {
    sentences: data.sentences.length,
    tokens,
    seconds: (performance.now() - started) / 1000,
    decodeSeconds: decodeMs / 1000,
    ...(constrained ? { summary: summarizeSolutions(solutions, decodeMs) } : {}),
  };
}
