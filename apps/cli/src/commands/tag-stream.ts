import { modelScheme, type OpenedChainTagger } from "@lagrange/recipes";
import { type StreamFormat, tagStream } from "@lagrange/scale";
import { badInputError, usageError } from "../exit-codes.js";
import { openNamedInput, requireFile } from "../inputs.js";
import { threadCount } from "../options.js";
import { type Output, writeOutput } from "../output.js";
import { note, progressBar, warn } from "../progress.js";
import { taggingReport } from "../render.js";
import { WrittenTaggingScorer } from "../tag-score.js";
import type { TagInput, TagOptions } from "./tag.js";
import { confidenceSetup } from "./tag-confidence.js";

/** The streaming options of `lagrange tag` (../define/tag.ts). */
export interface TagStreamingOptions {
  readonly threads?: number;
  readonly window?: number;
  readonly outputFormat?: string;
  readonly onError?: "stop" | "skip";
  readonly explain?: boolean;
}

/**
 * `lagrange tag` over a stream: CoNLL or NDJSON records in (a file, or standard input with
 * `--data -`), tagged in input order in bounded memory, on `--threads` worker threads. A record
 * skipped under `--on-error skip` is reported on stderr as it goes; the output is complete but for
 * those records, and the command then exits 3 (bad input) with their count, so that a pipeline
 * cannot take a shortened output for a whole one.
 */
export async function tagStreamCommand(
  options: TagOptions & TagStreamingOptions,
  opened: OpenedChainTagger,
  input: TagInput,
  signal: AbortSignal | undefined,
): Promise<string> {
  const { model, constraints, decodeOptions, spec } = opened;
  const stdin = options.data === "-";
  if (!stdin) requireFile("--data", options.data);
  const inputFormat = streamFormat("--format", input.format ?? "conll");
  const outputFormat = streamFormat("--output-format", options.outputFormat ?? inputFormat);
  if (options.explain === true && outputFormat !== "ndjson") {
    throw usageError(
      "--explain: the decoder's figures are written in NDJSON only (--output-format ndjson)",
    );
  }
  if (options.malformed !== undefined && options.malformed !== "skip") {
    warn("--malformed is for UMass files; a stream's bad records follow --on-error");
  }
  const threads = options.threads === undefined ? 1 : threadCount(options.threads);
  let skippedCount = 0;
  // A file's bytes read measure the progress (the bar shares stderr with the report: --out only).
  // A FIFO opens at once and is waited for stoppably (core's openInput); standard input too is
  // read through it, so that a signal stops a read that waits for the next line of a pipe.
  const file = await openNamedInput("--data", stdin ? "/dev/stdin" : options.data, signal);
  const bar = progressBar("tag", file.size ?? 0, options.out !== undefined && process.stderr.isTTY);
  let report: string;
  const outputOptions = { option: "--out", signal };
  try {
    report = await writeOutput(options.out, outputOptions, async (written: Output) => {
      {
        // Scores what is written, as `lagrange eval` reads it (the report's score).
        const scorer = new WrittenTaggingScorer(
          outputFormat,
          modelScheme(model),
          options.marginals === true ? 1 : 0,
        );
        const output = scorer.wrap(written);
        const result = await tagStream({
          // One thread tags with the model already read; workers get its bytes (no second read).
          model,
          modelBytes: opened.modelBytes,
          registry: opened.registry,
          decoder: opened.decoder,
          ...(constraints === undefined ? {} : { constraints }),
          ...(opened.constraintsText === undefined
            ? {}
            : { constraintsText: opened.constraintsText }),
          slaves: opened.slaves,
          plugins: spec.plugins ?? [],
          decodeOptions,
          allowUnconstrained: !opened.constrained,
          input: file,
          inputFormat,
          inputName: stdin ? "<stdin>" : options.data,
          output,
          outputFormat,
          ...(options.window === undefined ? {} : { window: options.window }),
          threads,
          onError: options.onError ?? "stop",
          explain: options.explain === true,
          ...confidenceSetup(options),
          gold: options.unlabeled === true ? "none" : "auto",
          ...(signal === undefined ? {} : { signal }),
          onSkip: (s) => note(`lagrange: skipped ${s.place}: ${s.reason}`),
          onProgress: (p) => bar.update(file.bytesRead, `${p.sentences} sentences`),
        });
        skippedCount = result.skippedCount;
        if (result.timedOut.length > 0) {
          const limit = Number(decodeOptions.timeLimitMs) / 1000;
          warn(
            `${result.timedOut.length} sentence(s) hit the ${limit} s time limit; their labels are the best found, not proven optimal: ${result.timedOut.slice(0, 20).join(", ")}${result.timedOut.length > 20 ? ", …" : ""}`,
          );
        }
        const time = { ...result.time };
        const accuracy = scorer.note();
        return `${taggingReport(time, result.seconds, result.decoding)}${threads > 1 ? ` on ${threads} threads` : ""}${result.labeled ? accuracy : " (unlabeled input: no gold column)"}${options.out === undefined ? "" : `; wrote ${options.out}`}`;
      }
    });
  } finally {
    bar.stop();
    file.close();
  }
  if (skippedCount > 0) {
    note(report);
    throw badInputError(
      `skipped ${skippedCount} malformed record(s) (listed above, --on-error skip); the output has every other record`,
    );
  }
  return report;
}

function streamFormat(option: string, format: string): StreamFormat {
  if (format === "conll" || format === "ndjson") return format;
  throw usageError(
    `${option} ${format}: streaming tagging (--data -, --threads, --window, --output-format, --on-error, --explain) reads and writes conll or ndjson`,
  );
}
