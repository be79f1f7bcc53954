/**
 * The decoder each kind of model ({@link TaggerKind}) is tagged with when none is named: the one
 * table of defaults (a chain CRF's file may record another, from its task preset).
 */
export const DEFAULT_DECODERS = {
  "chain-crf": "viterbi",
  /** A chain CRF given document constraints: its documents need a constrained decoder. */
  "document-constraints": "soft-dd",
  "two-stage": "viterbi",
  "attribute-crf": "viterbi",
  "general-crf": "two-slave",
  l2s: "greedy",
} as const;
