import { type Corpus, generateCitationSentences, type Sentence } from "@lagrange/datasets";
import { openCorpus } from "@lagrange/datasets/node";
import { seededHalves } from "@lagrange/recipes";

/** The datasets of the two-phase benchmark, as a user names them. */
export const TWO_PHASE_DATASETS = ["cora", "conll2003", "umass"] as const;
export type TwoPhaseDatasetName = (typeof TWO_PHASE_DATASETS)[number];

/**
 * One split protocol of the benchmark: Cora under the usual 350/150 split and the paper's 300/200,
 * CoNLL-2003 train → testa, UMass training.docs → a dev half; `generated-*` are the quick run's
 * stand-ins (the project's citation generator, flat like Cora and nested like UMass).
 */
export type TwoPhaseSplitId =
  | "cora-350"
  | "cora-300"
  | "conll2003"
  | "umass"
  | "generated-flat"
  | "generated-nested";

/** How a split's fields are scored: conlleval chunks (flat BIO) or hierarchical segments. */
export type FieldEvaluation = "chunks" | "segments";

/** The corpora of one split protocol. */
export interface TwoPhaseData {
  readonly id: TwoPhaseSplitId;
  /** A title for tables ("Cora (350/150)"). */
  readonly title: string;
  /** Where the data came from and how it was split, in words. */
  readonly protocol: string;
  readonly generated: boolean;
  readonly preset: "citation" | "ner";
  readonly evaluation: FieldEvaluation;
  /** The final model and the final rules are trained / mined on this. */
  readonly train: Corpus;
  /**
   * The tuning model and the tuning rules are trained / mined on this: `train` without `heldOut`
   * when the held-out part is cut from the training data, else `train` itself.
   */
  readonly tuneTrain: Corpus;
  /** τ and the Soft-DD penalty scale are chosen here. */
  readonly heldOut: Corpus;
  /** The reported split. */
  readonly test: Corpus;
}

export interface TwoPhaseDataOptions {
  /** Seed of UMass dev's split into halves (default 1, as the soft-dd-citations suite). */
  readonly seed?: number;
  readonly signal?: AbortSignal;
}

function slice(corpus: Corpus, label: string, start: number, end?: number): Corpus {
  return { ...corpus, label, sentences: corpus.sentences.slice(start, end) };
}

function pick(corpus: Corpus, label: string, ids: readonly number[]): Corpus {
  return { ...corpus, label, sentences: ids.map((i) => corpus.sentences[i]!) };
}

/** Top-level fields of generated (hierarchical-BIO) citations as flat IOB2, like Cora's. */
function flatCitation(sentence: Sentence): Sentence {
  const labels = (sentence.labels ?? []).map((label) => label.split("/")[0]!);
  return { tokens: sentence.tokens, columns: [sentence.tokens, labels], labels };
}

/**
 * The corpora of a split protocol. Test splits stay sealed: CoNLL-2003 is reported on testa (the
 * registry's dev split), UMass on a half of dev.docs.
 *
 * - Cora (500 references, one file): the first 350 (or the paper's 300) train, the rest test; τ is
 *   chosen on the last 50 training references, held out from a tuning model trained on the rest.
 * - CoNLL-2003: eng.train trains, eng.testa is reported; τ is chosen on the last 10 % of the
 *   training sentences, held out from a tuning model trained on the first 90 %. The reported model
 *   is trained on all of eng.train.
 * - UMass: training.docs trains; dev.docs is cut in two seeded halves (the soft-dd-citations
 *   suite's): τ is chosen on the first, the second is reported; one model serves both.
 */
export async function twoPhaseData(
  id: TwoPhaseSplitId,
  options: TwoPhaseDataOptions = {},
): Promise<TwoPhaseData> {
  const read = {
    malformed: "skip" as const,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  };
  switch (id) {
    case "cora-350":
    case "cora-300": {
      const all = await openCorpus("cora-references:all", read);
      const cut = id === "cora-350" ? 350 : 300;
      const train = slice(all, `cora-references:all[0:${cut}]`, 0, cut);
      return {
        id,
        title: `Cora (${cut}/${all.sentences.length - cut})`,
        protocol: `Cora references (${all.sentences.length}): the first ${cut} train, the last ${all.sentences.length - cut} are reported; τ and the Soft-DD scale are chosen on references ${cut - 50}–${cut - 1}, held out from a tuning model and tuning rules on the first ${cut - 50}`,
        generated: false,
        preset: "citation",
        evaluation: "chunks",
        train,
        tuneTrain: slice(all, `cora-references:all[0:${cut - 50}]`, 0, cut - 50),
        heldOut: slice(all, `cora-references:all[${cut - 50}:${cut}]`, cut - 50, cut),
        test: slice(all, `cora-references:all[${cut}:]`, cut),
      };
    }
    case "conll2003": {
      const train = await openCorpus("conll2003:train", read);
      const test = await openCorpus("conll2003:dev", read);
      const n = train.sentences.length;
      const cut = n - Math.round(n / 10);
      return {
        id,
        title: "CoNLL-2003 (train → testa)",
        protocol: `CoNLL-2003 English: eng.train (${n} sentences) trains, eng.testa (${test.sentences.length}) is reported; τ and the Soft-DD scale are chosen on the last ${n - cut} training sentences, held out from a tuning model and tuning rules on the first ${cut}; the reported model and rules use all of eng.train`,
        generated: false,
        preset: "ner",
        evaluation: "chunks",
        train,
        tuneTrain: slice(train, `conll2003:train[0:${cut}]`, 0, cut),
        heldOut: slice(train, `conll2003:train[${cut}:]`, cut),
        test,
      };
    }
    case "umass": {
      const train = await openCorpus("umass-citations:train", read);
      const dev = await openCorpus("umass-citations:dev", read);
      const seed = options.seed ?? 1;
      const [first, second] = seededHalves(dev.sentences.length, seed);
      return {
        id,
        title: "UMass citations (training.docs → dev half)",
        protocol: `UMass citations: training.docs (${train.sentences.length}) trains; dev.docs (${dev.sentences.length}) is cut into two halves by seed ${seed} (the soft-dd-citations suite's): τ and the Soft-DD scale are chosen on the first (${first.length}), the second (${second.length}) is reported`,
        generated: false,
        preset: "citation",
        evaluation: "segments",
        train,
        tuneTrain: train,
        heldOut: pick(dev, `umass-citations:dev[half 1, seed ${seed}]`, first),
        test: pick(dev, `umass-citations:dev[half 2, seed ${seed}]`, second),
      };
    }
    case "generated-flat":
    case "generated-nested": {
      const flat = id === "generated-flat";
      const make = (label: string, count: number, seed: number): Corpus => {
        const sentences = generateCitationSentences(count, { seed });
        return flat
          ? { label, format: "inline", scheme: "IOB2", sentences: sentences.map(flatCitation) }
          : { label, format: "umass", scheme: "hierarchical-BIO", sentences };
      };
      const train = make(`generated:train (${flat ? "flat" : "nested"})`, 120, 2014);
      const other = make(`generated:dev (${flat ? "flat" : "nested"})`, flat ? 60 : 50, 2015);
      return {
        id,
        title: `GENERATED citations (${flat ? "flat, like Cora" : "nested, like UMass"})`,
        protocol: flat
          ? "generated citations, top-level fields as IOB2: 120 train (τ chosen on the last 30, held out from a tuning model on the first 90), 60 reported"
          : "generated citations, hierarchical BIO: 120 train; 25 more choose τ, 25 more are reported",
        generated: true,
        preset: "citation",
        evaluation: flat ? "chunks" : "segments",
        train,
        tuneTrain: flat ? slice(train, `${train.label}[0:90]`, 0, 90) : train,
        heldOut: flat ? slice(train, `${train.label}[90:]`, 90) : slice(other, other.label, 0, 25),
        test: flat ? other : slice(other, other.label, 25),
      };
    }
  }
}

/** The split protocols a dataset name stands for (Cora: both splits). */
export function splitsOf(name: TwoPhaseDatasetName): TwoPhaseSplitId[] {
  return name === "cora" ? ["cora-350", "cora-300"] : [name];
}
