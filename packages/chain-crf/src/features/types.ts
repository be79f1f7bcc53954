/** One token's columns, e.g. `[word, POS]` for CoNLL-2000 (the label column excluded). */
export type TokenRow = readonly string[];

/** A sentence (or citation): one row per token. */
export type Rows = readonly TokenRow[];

/** A named, weighted observation. Binary attributes have value 1. */
export interface Attribute {
  readonly name: string;
  readonly value: number;
}

/**
 * Attributes of every token of one sequence, flattened: token `t` owns
 * `names[offsets[t]] … names[offsets[t + 1] - 1]`. One string array per sequence instead of one
 * object per attribute keeps extraction cheap and lets the model intern names in one pass.
 */
export interface AttributeList {
  /** Length n + 1 for n tokens; `offsets[0] === 0`, `offsets[n] === names.length`. */
  readonly offsets: Int32Array;
  readonly names: readonly string[];
  /** Parallel to `names`; `null` when every value is 1 (the common, binary case). */
  readonly values: Float64Array | null;
}

/** The output of every extractor. */
export interface AttributeSequence extends AttributeList {
  /** Number of tokens n. */
  readonly length: number;
  /**
   * Observation-conditioned transition attributes (CRF++ `B` templates with macros): token `t`'s
   * slice conditions the transition from label `t − 1` to label `t`, so token 0's slice is always
   * empty. `null` when the extractor produces none. The plain label bigram is not listed here: the
   * model always has it.
   */
  readonly transition: AttributeList | null;
}

/**
 * Push interface for extraction without building arrays (e.g. interning straight into a feature
 * dictionary). Within each kind, calls come with non-decreasing `token`.
 */
export interface AttributeSink {
  /** A state attribute of token `token`. */
  state(token: number, name: string, value: number): void;
  /** A transition attribute for the transition into `token` (`token ≥ 1`). */
  transition(token: number, name: string, value: number): void;
}

/** A named feature extractor over token rows. */
export interface Preset {
  readonly name: string;
  readonly description: string;
  /** Names of the input columns the extractor reads, in order (more columns are ignored). */
  readonly columns: readonly string[];
  /** Attributes of every token of `rows`. Deterministic; never produces an empty name. */
  extract(rows: Rows): AttributeSequence;
  /** The same attributes, pushed into `sink` in the same order as `extract` lists them. */
  emit(rows: Rows, sink: AttributeSink): void;
}
