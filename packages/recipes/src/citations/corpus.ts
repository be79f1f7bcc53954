import { lagrangeErrorCode } from "@lagrange/core";
import { type Corpus, generateCitationSentences } from "@lagrange/datasets";
import { openCorpus } from "@lagrange/datasets/node";

export interface CitationCorpora {
  /** Where the citations came from, in words. */
  readonly source: string;
  readonly generated: boolean;
  readonly train: Corpus;
  readonly dev: Corpus;
}

export interface CitationCorporaOptions {
  /** Use the project's citation generator even when UMass is reachable. */
  readonly generated?: boolean;
  /** A few generated citations (a smoke run in seconds). */
  readonly quick?: boolean;
  readonly onStatus?: (message: string) => void;
  readonly signal?: AbortSignal;
}

function generatedCorpus(label: string, count: number, seed: number): Corpus {
  return {
    label,
    format: "umass",
    scheme: "hierarchical-BIO",
    sentences: generateCitationSentences(count, { seed }),
  };
}

/**
 * UMass citations (training.docs and dev.docs, malformed lines skipped) when the dataset registry
 * reaches them, else the project's seeded citation generator, which is always there.
 */
export async function citationCorpora(
  options: CitationCorporaOptions = {},
): Promise<CitationCorpora> {
  if (options.generated !== true && options.quick !== true) {
    try {
      const read = {
        malformed: "skip" as const,
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      };
      const train = await openCorpus("umass-citations:train", read);
      const dev = await openCorpus("umass-citations:dev", read);
      return { source: "UMass citations (training.docs / dev.docs)", generated: false, train, dev };
    } catch (error) {
      if (lagrangeErrorCode(error) !== "unavailable") throw error;
      options.onStatus?.(
        `UMass citations are not reachable (${(error as Error).message.split("\n")[0]}); using generated citations`,
      );
    }
  }
  const quick = options.quick === true;
  return {
    source: `generated citations (the project's seeded generator${quick ? ", quick" : ""}; no corpus reachable or asked for)`,
    generated: true,
    train: generatedCorpus("generated:train", quick ? 150 : 1500, 2014),
    dev: generatedCorpus("generated:dev", quick ? 120 : 600, 2015),
  };
}
