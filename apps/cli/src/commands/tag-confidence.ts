import type { ConfidenceRequest, OpenedTagger } from "@lagrange/recipes";
import { usageError } from "../exit-codes.js";
import { warn } from "../progress.js";
import type { TagInput, TagOptions } from "./tag.js";

/** What `--marginals` and `--probability` ask of each tagged sentence (undefined: neither). */
export function confidenceOf(options: TagOptions): ConfidenceRequest | undefined {
  const marginals = options.marginals === true;
  const probability = options.probability === true;
  return marginals || probability ? { marginals, probability } : undefined;
}

/** The tagging setup's `confidence` field, spread into a setup (nothing without the flags). */
export function confidenceSetup(options: TagOptions): { confidence?: ConfidenceRequest } {
  const confidence = confidenceOf(options);
  return confidence === undefined ? {} : { confidence };
}

/**
 * `--marginals` and `--probability` checked against the model, the input and the output format
 * before any sentence is read. The sequence probability is NDJSON only: CoNLL readers (and
 * `lagrange eval`) read per-token columns, and a per-sentence figure has no token to sit on.
 */
export function checkConfidence(options: TagOptions, opened: OpenedTagger, input: TagInput): void {
  const marginals = options.marginals === true;
  const probability = options.probability === true;
  if (!marginals && !probability) return;
  const flags = [marginals ? "--marginals" : "", probability ? "--probability" : ""]
    .filter((f) => f !== "")
    .join(" and ");
  if (opened.kind !== "crf") {
    throw usageError(
      `${flags}: the marginals and probabilities of a linear-chain CRF; ${options.model} is ${opened.kind === "l2s" ? "an L2S tagger (no distribution over labellings)" : "a general CRF (its consistency factors have no exact marginals)"}`,
    );
  }
  if (input.format === "crfsuite") {
    throw usageError(
      `${flags}: --format crfsuite writes one label per line; tag CoNLL or NDJSON for marginals`,
    );
  }
  const output = input.streams ? (options.outputFormat ?? input.format ?? "conll") : "conll";
  if (probability && output !== "ndjson") {
    throw usageError(
      "--probability is written in NDJSON output only (--output-format ndjson, or an NDJSON --data): a CoNLL file has one line per token and no place for a sentence's figure",
    );
  }
  if (marginals && opened.constrained) {
    warn(
      `--marginals with --decoder ${opened.decoder} under constraints: these are the chain CRF's marginals, without the constraints the labels were decoded under (NDJSON marks them marginalsOf "chain-unconstrained")`,
    );
  }
}
