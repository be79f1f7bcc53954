import type { SequenceTagger } from "@lagrange/recipes";
import { type StreamFormat, tagStream } from "@lagrange/scale";
import { badInputError } from "../exit-codes.js";
import { openNamedInput, requireFile } from "../inputs.js";
import { writeOutput } from "../output.js";
import { note, progressBar, warn } from "../progress.js";
import { WrittenTaggingScorer } from "../tag-score.js";
import type { TagOptions } from "./options.js";
import { TaggingLog } from "./output.js";
import type { TagPlan } from "./plan.js";

/**
 * `lagrange tag` over a stream: CoNLL or NDJSON records in (a file, or standard input with
 * `--data -`), tagged in input order in bounded memory, on `--threads` worker threads. A record
 * skipped under `--on-error skip` is reported on stderr as it goes; the output is complete but for
 * those records, and the command then exits 3 (bad input) with their count, so that a pipeline
 * cannot take a shortened output for a whole one.
 */
export async function tagStreamed(
  options: TagOptions,
  tagger: SequenceTagger,
  plan: TagPlan,
  signal: AbortSignal | undefined,
): Promise<string> {
  const stdin = options.data === "-";
  if (!stdin) requireFile("--data", options.data);
  if (options.malformed !== undefined && options.malformed !== "skip") {
    warn("--malformed is for UMass files; a stream's bad records follow --on-error");
  }
  // A file's bytes read measure the progress (the bar shares stderr with the report: --out only).
  // A FIFO opens at once and is waited for stoppably (core's openInput); standard input too is
  // read through it, so that a signal stops a read that waits for the next line of a pipe.
  const file = await openNamedInput("--data", stdin ? "/dev/stdin" : options.data, signal);
  const bar = progressBar("tag", file.size ?? 0, options.out !== undefined && process.stderr.isTTY);
  let skipped = 0;
  let report: string;
  try {
    report = await writeOutput(options.out, { option: "--out", signal }, async (written) => {
      // Scores what is written, as `lagrange eval` reads it (the report's score).
      const marginalColumns = plan.request.confidence?.marginals === true ? 1 : 0;
      const scorer = new WrittenTaggingScorer(plan.outputFormat, tagger.scheme, marginalColumns);
      const { confidence, explain } = plan.request;
      const result = await tagStream({
        tagger,
        ...(confidence === undefined ? {} : { confidence }),
        input: file,
        inputFormat: (plan.format ?? "conll") as StreamFormat,
        inputName: stdin ? "<stdin>" : options.data,
        output: scorer.wrap(written),
        outputFormat: plan.outputFormat,
        ...(options.window === undefined ? {} : { window: options.window }),
        threads: plan.threads,
        onError: options.onError ?? "stop",
        explain: explain === true,
        gold: options.unlabeled === true ? "none" : "auto",
        ...(signal === undefined ? {} : { signal }),
        onSkip: (s) => note(`lagrange: skipped ${s.place}: ${s.reason}`),
        onProgress: (p) => bar.update(file.bytesRead, `${p.sentences} sentences`),
      });
      skipped = result.skippedCount;
      const log = new TaggingLog(tagger, plan.request);
      log.streamed(result.time, result.decoding, result.timedOut, result.independentCheck);
      return log.finish({
        seconds: result.seconds,
        threads: plan.threads,
        score: result.labeled ? scorer.note() : "",
        unlabeled: !result.labeled,
        out: options.out,
      });
    });
  } finally {
    bar.stop();
    file.close();
  }
  if (skipped > 0) {
    note(report);
    throw badInputError(
      `skipped ${skipped} malformed record(s) (listed above, --on-error skip); the output has every other record`,
    );
  }
  return report;
}
