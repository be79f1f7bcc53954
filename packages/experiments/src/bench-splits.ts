import { LagrangeError } from "@lagrange/core";
import { type Corpus, convertScheme, type SchemeName } from "@lagrange/datasets";
import { openCorpus } from "@lagrange/datasets/node";

/**
 * A corpus with its gold labels rewritten from its own chunk scheme into `scheme` (CoNLL-2003's
 * IOB1 as BIOES, say): the same chunks, another encoding. The benches' BIOES datasets.
 */
export function relabelled(corpus: Corpus, scheme: SchemeName): Corpus {
  const from = corpus.scheme as SchemeName;
  return {
    ...corpus,
    scheme,
    sentences: corpus.sentences.map((s) =>
      s.labels === undefined ? s : { ...s, labels: convertScheme(s.labels, from, scheme) },
    ),
  };
}

export interface BenchSplitOptions {
  /** Rewrite the gold labels into this scheme. */
  readonly relabel?: SchemeName | undefined;
  /** Keep the first n training sentences only (a quick run). */
  readonly maxTrainSentences?: number | undefined;
  /** Keep the first n dev sentences only. */
  readonly maxDevSentences?: number | undefined;
}

/**
 * A registry dataset's train and dev splits as a bench uses them (relabelled, cut), or null when
 * the data cannot be reached — then `unavailable` hears why, for the bench to report instead of
 * failing.
 */
export async function openBenchSplits(
  registry: string,
  options: BenchSplitOptions,
  unavailable: (reason: string) => void,
): Promise<{ train: Corpus; dev: Corpus } | null> {
  let train: Corpus;
  let dev: Corpus;
  try {
    train = await openCorpus(`${registry}:train`);
    dev = await openCorpus(`${registry}:dev`);
  } catch (error) {
    if (error instanceof LagrangeError && error.code === "unavailable") {
      unavailable(error.message);
      return null;
    }
    throw error;
  }
  const prepare = (corpus: Corpus, max: number | undefined): Corpus => {
    const cut =
      max === undefined ? corpus : { ...corpus, sentences: corpus.sentences.slice(0, max) };
    return options.relabel === undefined ? cut : relabelled(cut, options.relabel);
  };
  return {
    train: prepare(train, options.maxTrainSentences),
    dev: prepare(dev, options.maxDevSentences),
  };
}
