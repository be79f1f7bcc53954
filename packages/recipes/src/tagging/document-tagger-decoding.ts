import type { TemplateInstance } from "@lagrange/constraint-templates";
import type {
  ChainScores,
  DecodeOptions,
  DecodeProblem,
  Decoder,
  Decoding,
  LinearConstraint,
  SlaveBinding,
} from "@lagrange/core";
import { concatenateChains } from "@lagrange/core/chain";

/** How a document's sentences become one problem, and its answer the model's labels again. */
export interface DocumentProblemParts {
  /** The constraints of the whole document (`documentInstantiator`), over the decoded states. */
  readonly constraintsFor: (instance: TemplateInstance) => LinearConstraint[];
  /** Plug-in slaves over the whole document (none by default). */
  readonly slavesFor?: (instance: TemplateInstance) => SlaveBinding[];
  /** A sentence's chain scores over the decoded states (a segment lattice's lift; default as is). */
  readonly lift?: (scores: ChainScores) => ChainScores;
  /** A decoding over the states as one over the model's labels (default as is). */
  readonly lower?: (decoding: Decoding) => Decoding;
}

/** One decoded document. */
export interface DecodedDocument {
  /** The decoding of the whole document, its labels the model's. */
  readonly decoding: Decoding;
  /** Each sentence's labels (model label ids), in order. */
  readonly labels: Int32Array[];
  readonly constraints: LinearConstraint[];
  /** The first position of each sentence in the document. */
  readonly starts: Int32Array;
}

/**
 * Decodes a document at a time: its sentences' chain scores laid end to end (the boundary between
 * two sentences carries their end and start scores and couples nothing else), every constraint of
 * the document over them, one decode, and the labels split back per sentence. With no constraint
 * the split labels are each sentence's own best labelling.
 */
export function decodeDocument(
  decoder: Decoder,
  sentences: readonly ChainScores[],
  tokens: readonly (readonly string[])[],
  parts: DocumentProblemParts,
  options: DecodeOptions = {},
): DecodedDocument {
  const lifted = parts.lift === undefined ? sentences : sentences.map(parts.lift);
  const { scores, starts } = concatenateChains(lifted);
  const instance: TemplateInstance = {
    n: scores.n,
    L: scores.L,
    tokens: tokens.flat(),
    sentenceStarts: starts,
  };
  const constraints = parts.constraintsFor(instance);
  const slaves = parts.slavesFor?.(instance) ?? [];
  const problem: DecodeProblem = {
    scores,
    ...(constraints.length === 0 ? {} : { constraints }),
    ...(slaves.length === 0 ? {} : { slaves }),
  };
  const found = decoder.decode(problem, options);
  const decoding = parts.lower === undefined ? found : parts.lower(found);
  const labels = sentences.map((s, k) => decoding.labels.slice(starts[k]!, starts[k]! + s.n));
  return { decoding, labels, constraints, starts };
}
