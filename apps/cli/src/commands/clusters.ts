import { brownClusters, formatClusterPaths } from "@lagrange/clusters";
import { openRawText, readPlainTextTokens } from "@lagrange/datasets/node";
import { badInputError, usageError } from "../exit-codes.js";
import { namedInputError, requireFile } from "../inputs.js";
import { interruptible } from "../interruption.js";
import { writeOutput } from "../output.js";
import { note, type Progress, progressBar } from "../progress.js";

export interface ClustersOptions {
  /** Plain text files: one sentence a line, tokens separated by whitespace. */
  readonly text?: readonly string[];
  /** Raw-text corpora of the registry (`brown`, `cess-esp`, `conll2003:train`, …). */
  readonly corpus?: readonly string[];
  readonly clusters: number;
  readonly minCount: number;
  readonly out: string;
}

/** Every input's sentences in the order given: the text files, then the corpora. */
async function* sentencesOf(
  options: ClustersOptions,
  signal: AbortSignal,
): AsyncGenerator<string[]> {
  for (const file of options.text ?? []) {
    try {
      yield* readPlainTextTokens(file, { signal });
    } catch (error) {
      throw namedInputError("--text", error);
    }
  }
  for (const name of options.corpus ?? []) yield* openRawText(name, { signal });
}

/** `lagrange clusters`: returns the summary line; the paths file is written atomically. */
export async function clustersCommand(
  options: ClustersOptions,
  signal: AbortSignal,
): Promise<string> {
  const texts = options.text ?? [];
  const corpora = options.corpus ?? [];
  if (texts.length === 0 && corpora.length === 0) {
    throw usageError("name the text to cluster: --text FILE… and/or --corpus NAME…");
  }
  for (const file of texts) requireFile("--text", file);
  // Unknown corpus names and an absent mirror stop the command before any work.
  for (const name of corpora) openRawText(name, { signal });
  const inputs = [...texts, ...corpora];
  return writeOutput(options.out, { option: "--out", signal }, async (output) => {
    const started = performance.now();
    note(`reading ${inputs.join(", ")}; clustering into ${options.clusters} clusters`);
    let bar: Progress | undefined;
    let clusters: Awaited<ReturnType<typeof brownClusters>>;
    try {
      clusters = await brownClusters(sentencesOf(options, signal), {
        clusters: options.clusters,
        minCount: options.minCount,
        signal,
        onProgress: (done, total) => {
          bar ??= progressBar("merges", total);
          bar.update(done);
        },
      });
    } finally {
      bar?.stop();
    }
    // An empty paths file would read as "no clusters" to every later --clusters: refused here.
    if (clusters.words.length === 0) {
      throw badInputError(
        `${[...texts.map((f) => `--text ${f}`), ...corpora.map((c) => `--corpus ${c}`)].join(", ")}: no word to cluster (${clusters.tokens} tokens${clusters.tokens > 0 ? `, every word seen fewer than --min-count ${options.minCount} times` : ""}); ${options.out} was not written`,
      );
    }
    await output.write(formatClusterPaths(clusters));
    const seconds = (performance.now() - started) / 1000;
    return `clustered ${clusters.words.length} word types (${clusters.tokens} tokens${options.minCount > 1 ? `, words seen fewer than ${options.minCount} times left out` : ""}) into ${clusters.clusters} clusters, average mutual information ${clusters.mutualInformation.toFixed(4)} bits, in ${seconds.toFixed(1)} s; wrote ${options.out}\n`;
  });
}

/** What `lagrange clusters` does (its options are declared in ../define/clusters.ts). */
export async function clustersAction(opts: ClustersOptions): Promise<void> {
  process.stdout.write(await interruptible((signal) => clustersCommand(opts, signal)));
}
