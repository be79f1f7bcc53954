import { type ConstraintsFile, SegmentIndex } from "@lagrange/constraint-templates";
import { LagrangeError } from "@lagrange/core";
import {
  type Corpus,
  corpusLocator,
  type LabelScheme,
  requireScheme,
  type SchemeCheck,
  tokenPlace,
} from "@lagrange/datasets";
import {
  type MineRulesOptions,
  minedRulesFile,
  mineRules,
  type RuleMining,
  type RuleSentence,
} from "@lagrange/ilp";

export interface MineRulesOnCorpusOptions extends MineRulesOptions {
  /** The scheme the gold labels are checked against (default: the corpus's own). */
  readonly scheme?: LabelScheme;
  /**
   * The label set the rules are written for, in its order: a model's labels, so that
   * `lagrange tag --model` accepts the file. Default: the gold labels in order of first
   * appearance, the order `trainOnCorpus` gives a model trained on the same data.
   */
  readonly labels?: readonly string[];
  /** Names where `labels` came from, in messages (`the model m.model`). */
  readonly labelsFrom?: string;
}

export interface MinedOnCorpus {
  readonly mining: RuleMining;
  /** The versioned constraints file: penalties are the rule costs, statistics in the metadata. */
  readonly file: ConstraintsFile;
  readonly scheme: LabelScheme;
  /** The gold sequences checked against the scheme (a few invalid ones are tolerated). */
  readonly schemeCheck: SchemeCheck;
}

/**
 * fersini2014's rules from a labelled corpus: the gold labels are checked against the scheme as
 * training checks them (more than a few invalid sequences stop it with the scheme that fits), the
 * label set is read as segment kinds, the rule templates are mined by counting
 * (`@lagrange/ilp`'s {@link mineRules}) and written as a constraints file. The path behind
 * `lagrange rules mine`.
 *
 * Rule templates read labels through the scheme's segment lattice (every chunk scheme and
 * hierarchical BIO); plain tags (`none`) have no segments: a usage error.
 */
export async function mineRulesOnCorpus(
  corpus: Corpus,
  options: MineRulesOnCorpusOptions = {},
): Promise<MinedOnCorpus> {
  const { scheme: given, labels: givenLabels, labelsFrom, ...mining } = options;
  const gold = corpus.sentences.map((s) => {
    if (s.labels === undefined) {
      throw new LagrangeError(
        "bad-input",
        `${tokenPlace(s, 0)}: no gold label column to mine rules from (${corpus.label} has ${s.columns.length} column(s); the gold label comes last)`,
      );
    }
    return s.labels;
  });
  const scheme = given ?? corpus.scheme;
  const schemeCheck = requireScheme(gold, scheme, corpus.label, corpusLocator(corpus));
  const names = givenLabels ?? labelsInOrder(gold);
  const index = segmentIndex(corpus, names, scheme, labelsFrom);
  const ids = new Map(names.map((name, i) => [name, i]));
  const sentences: RuleSentence[] = corpus.sentences.map((s, i) => {
    const labels = gold[i]!;
    const encoded = new Int32Array(labels.length);
    for (let p = 0; p < labels.length; p++) {
      const id = ids.get(labels[p]!);
      if (id === undefined) {
        throw new LagrangeError(
          "bad-input",
          `${tokenPlace(s, p)}: the gold label ${JSON.stringify(labels[p])} is not one of ${labelsFrom ?? "the given"} labels (${shown(names)}); rules mined for those labels cannot name it`,
        );
      }
      encoded[p] = id;
    }
    return { tokens: s.tokens, labels: index.lattice.lift(encoded) };
  });
  const mined = await mineRules(sentences, index, mining);
  const file = minedRulesFile(mined, {
    data: corpus.label,
    metadata: {
      format: corpus.format,
      scheme,
      labelsFrom: labelsFrom ?? "the data's gold labels, in order of first appearance",
      ...(schemeCheck.invalid > 0 ? { invalidGoldSequences: schemeCheck.invalid } : {}),
    },
  });
  return { mining: mined, file, scheme, schemeCheck };
}

function labelsInOrder(gold: readonly (readonly string[])[]): string[] {
  const seen = new Set<string>();
  for (const labels of gold) for (const label of labels) seen.add(label);
  return [...seen];
}

/** The label set as segment kinds under `scheme`, or a usage error naming what cannot be read. */
function segmentIndex(
  corpus: Corpus,
  names: readonly string[],
  scheme: LabelScheme,
  labelsFrom: string | undefined,
): SegmentIndex {
  if (names.length === 0) {
    throw new LagrangeError("bad-input", `${corpus.label}: no labelled token to mine rules from`);
  }
  try {
    return new SegmentIndex(names, scheme);
  } catch (error) {
    if (!(error instanceof LagrangeError)) throw error;
    // The gold labels already passed `requireScheme`: what cannot be read is the scheme or the given labels.
    throw new LagrangeError(
      "usage",
      `${labelsFrom ?? corpus.label}: ${error.message}; the rule templates cannot key this label set`,
      { cause: error },
    );
  }
}

function shown(names: readonly string[]): string {
  return names.slice(0, 8).join(", ") + (names.length > 8 ? ", …" : "");
}
