/**
 * The decoder each kind of model ({@link TaggerKind}) is tagged with when none is named: the one
 * table of defaults (a chain CRF's file may record another, from its task preset).
 */
export const DEFAULT_DECODERS = {
  "chain-crf": "viterbi",
  "two-stage": "viterbi",
  "attribute-crf": "viterbi",
  "general-crf": "two-slave",
  l2s: "greedy",
} as const;
