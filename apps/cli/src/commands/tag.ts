import { createWriteStream } from "node:fs";
import { rename, rm } from "node:fs/promises";
import { finished } from "node:stream/promises";
import { loadModel } from "@lagrange/chain-crf";
import type { Sentence } from "@lagrange/datasets";
import { loadData, type MalformedPolicy } from "../data-source.ts";
import { CliError, ExitCode } from "../exit-codes.ts";
import { progressBar } from "../progress.ts";
import { decodingConstraints, extractAll, modelPreset, modelScheme } from "./model-io.ts";

export interface TagOptions {
  readonly model: string;
  readonly data: string;
  readonly format?: string;
  readonly decoder: string;
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

export async function tagCommand(
  options: TagOptions,
): Promise<{ sentences: number; tokens: number; seconds: number }> {
  if (options.decoder !== "viterbi") {
    throw new CliError(`--decoder must be viterbi here, got "${options.decoder}"`, ExitCode.usage);
  }
  const model = await loadModel(options.model);
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
  const started = performance.now();
  try {
    for (let i = 0; i < data.sentences.length; i++) {
      const predicted = model.tag(attributes[i]!, decodeOptions);
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
  };
}
