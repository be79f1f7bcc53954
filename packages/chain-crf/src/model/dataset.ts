import { type LabelSet, ProblemValidationError } from "@lagrange/core";
import type { AttributeList, AttributeSequence } from "../features/types.js";
import { checkAttributeValues } from "./attribute-values.js";
import { float64Array, int32Array, toSharedInt32 as toShared } from "./buffers.js";
import { lookupNumbered, numberedNames } from "./symbol-ids.js";

/** A training or test sequence: its attributes and (for training) one label name per token. */
export interface LabelledSequence {
  readonly attributes: AttributeSequence;
  /**
   * Gold label names, one per token. `null` or `undefined` entries (or the whole array absent)
   * leave a token unlabelled: training then marginalises over it (partial labels). An array of
   * names restricts the token to those labels (a partial annotation such as {B-PER, I-PER}).
   */
  readonly labels?: ReadonlyArray<string | null | undefined | readonly string[]>;
}

/** Attribute ids and values of one kind (state or transition), flat over all tokens. */
export interface CompiledAttributes {
  /** numTokens + 1 offsets into `ids`. */
  readonly offsets: Int32Array;
  readonly ids: Int32Array;
  /** Parallel to `ids`; `null` when every value is 1. */
  readonly values: Float64Array | null;
}

/**
 * Every instance of a corpus as flat typed arrays (on a SharedArrayBuffer when compiled with
 * `shared`), so the encoder and worker threads use it without per-instance objects.
 * Token j of instance i is global token `instanceOffsets[i] + j`.
 */
export interface CompiledDataset {
  readonly numInstances: number;
  readonly numTokens: number;
  readonly maxLength: number;
  /** numInstances + 1 token offsets. */
  readonly instanceOffsets: Int32Array;
  readonly state: CompiledAttributes;
  /** Observation-conditioned transition attributes (into token j), or null when none. */
  readonly transition: CompiledAttributes | null;
  /** Gold label id per token; −1 where unknown or restricted to a set. */
  readonly labels: Int32Array;
  /**
   * Partial annotations that restrict a token to a set of labels: token j's allowed label ids are
   * ids[offsets[j] … offsets[j+1]) (an empty range: any label). Absent or null when no token has one.
   */
  readonly labelSets?: LabelSets | null;
}

/** Per-token label sets, CSR style over the tokens of a {@link CompiledDataset}. */
export interface LabelSets {
  /** numTokens + 1 offsets into `ids`. */
  readonly offsets: Int32Array;
  readonly ids: Int32Array;
}

export interface CompileOptions {
  /** Dictionary of state attribute names; names it lacks are dropped (lookup, never intern). */
  readonly attributes: LabelSet;
  /** Dictionary of transition attribute names (observation-conditioned bigrams). */
  readonly transitionAttributes?: LabelSet;
  readonly labels: LabelSet;
  /** Add unseen label names to `labels` (training) instead of throwing (tagging). */
  readonly internLabels?: boolean;
  /** Allocate on SharedArrayBuffer. */
  readonly shared?: boolean;
  /** Names the data in error messages (a file name). */
  readonly source?: string;
}

function countKnown(list: AttributeList, dict: LabelSet): number {
  let count = 0;
  const numbered = numberedNames(list, dict);
  for (let k = 0; k < list.names.length; k++)
    if (lookupNumbered(dict, list.names, k, numbered) >= 0) count++;
  return count;
}

function fill(
  list: AttributeList,
  n: number,
  dict: LabelSet,
  tokenBase: number,
  out: { offsets: Int32Array; ids: Int32Array; values: Float64Array | null },
  cursor: number,
): number {
  const numbered = numberedNames(list, dict);
  for (let t = 0; t < n; t++) {
    out.offsets[tokenBase + t] = cursor;
    const from = list.offsets[t]!;
    const to = list.offsets[t + 1]!;
    for (let k = from; k < to; k++) {
      const id = lookupNumbered(dict, list.names, k, numbered);
      if (id < 0) continue;
      out.ids[cursor] = id;
      if (out.values !== null) out.values[cursor] = list.values === null ? 1 : list.values[k]!;
      cursor++;
    }
  }
  return cursor;
}

function checkList(list: AttributeList, n: number, where: string): void {
  if (list.offsets.length !== n + 1 || list.offsets[n] !== list.names.length) {
    throw new ProblemValidationError(
      where,
      `expected ${n + 1} offsets ending at names.length = ${list.names.length}, got ${list.offsets.length} ending at ${list.offsets[list.offsets.length - 1]}`,
    );
  }
}

/** Interns attribute names into flat arrays; two passes so every array is allocated once. */
export function compileDataset(
  sequences: readonly LabelledSequence[],
  options: CompileOptions,
): CompiledDataset {
  const { attributes, labels } = options;
  const trDict = options.transitionAttributes;
  const shared = options.shared === true;
  const source = options.source ?? "sequences";
  let numTokens = 0;
  let numState = 0;
  let numTrans = 0;
  let maxLength = 0;
  let stateValues = false;
  let transValues = false;
  for (let s = 0; s < sequences.length; s++) {
    const seq = sequences[s]!;
    const a = seq.attributes;
    const n = a.length;
    if (!Number.isInteger(n) || n < 1) {
      throw new ProblemValidationError(
        `${source}[${s}]`,
        `expected a sequence of at least one token, got length ${n}`,
      );
    }
    checkList(a, n, `${source}[${s}].attributes`);
    checkAttributeValues(a, `${source}[${s}]`);
    if (seq.labels !== undefined && seq.labels.length !== n) {
      throw new ProblemValidationError(
        `${source}[${s}].labels`,
        `expected ${n} labels (one per token), got ${seq.labels.length}`,
      );
    }
    numTokens += n;
    if (n > maxLength) maxLength = n;
    numState += countKnown(a, attributes);
    if (a.values !== null) stateValues = true;
    if (trDict !== undefined && a.transition !== null) {
      checkList(a.transition, n, `${source}[${s}].attributes.transition`);
      checkAttributeValues(a.transition, `${source}[${s}] (transition attributes)`);
      numTrans += countKnown(a.transition, trDict);
      if (a.transition.values !== null) transValues = true;
    }
  }
  const instanceOffsets = int32Array(sequences.length + 1, shared);
  const state = {
    offsets: int32Array(numTokens + 1, shared),
    ids: int32Array(numState, shared),
    values: stateValues ? float64Array(numState, shared) : null,
  };
  const transition =
    trDict !== undefined && numTrans > 0
      ? {
          offsets: int32Array(numTokens + 1, shared),
          ids: int32Array(numTrans, shared),
          values: transValues ? float64Array(numTrans, shared) : null,
        }
      : null;
  const gold = int32Array(numTokens, shared);
  // Label sets are rare (partial annotations): their CSR arrays exist only once one is seen.
  let setOffsets: Int32Array | null = null;
  const setIds: number[] = [];
  let token = 0;
  let stateCursor = 0;
  let transCursor = 0;
  for (let s = 0; s < sequences.length; s++) {
    const seq = sequences[s]!;
    const a = seq.attributes;
    const n = a.length;
    instanceOffsets[s] = token;
    stateCursor = fill(a, n, attributes, token, state, stateCursor);
    if (transition !== null) {
      if (a.transition !== null) {
        transCursor = fill(a.transition, n, trDict!, token, transition, transCursor);
      } else {
        for (let t = 0; t < n; t++) transition.offsets[token + t] = transCursor;
      }
    }
    for (let t = 0; t < n; t++) {
      const name = seq.labels?.[t];
      if (setOffsets !== null) setOffsets[token + t] = setIds.length;
      if (name === null || name === undefined) {
        gold[token + t] = -1;
        continue;
      }
      const labelId = (label: string, where: string) => {
        const id = options.internLabels === true ? labels.intern(label) : labels.lookup(label);
        if (id < 0) {
          throw new ProblemValidationError(
            where,
            `unknown label "${label}" (the model knows ${labels.size}: ${labels.names().slice(0, 10).join(", ")}${labels.size > 10 ? ", …" : ""})`,
          );
        }
        return id;
      };
      if (typeof name !== "string") {
        const where = `${source}[${s}].labels[${t}]`;
        if (name.length === 0) {
          throw new ProblemValidationError(where, "an empty label set allows no label");
        }
        setOffsets ??= new Int32Array(numTokens + 1);
        setOffsets[token + t] = setIds.length;
        const ids = new Set(name.map((label) => labelId(label, where)));
        for (const id of [...ids].sort((a, b) => a - b)) setIds.push(id);
        // A one-label set is a known label.
        gold[token + t] = ids.size === 1 ? setIds.pop()! : -1;
        continue;
      }
      gold[token + t] = labelId(name, `${source}[${s}].labels[${t}]`);
    }
    token += n;
  }
  instanceOffsets[sequences.length] = token;
  if (setOffsets !== null) setOffsets[numTokens] = setIds.length;
  state.offsets[numTokens] = stateCursor;
  if (transition !== null) transition.offsets[numTokens] = transCursor;
  return {
    numInstances: sequences.length,
    numTokens,
    maxLength,
    instanceOffsets,
    state,
    transition,
    labels: gold,
    labelSets:
      setOffsets === null
        ? null
        : {
            offsets: shared ? toShared(setOffsets) : setOffsets,
            ids: shared ? toShared(Int32Array.from(setIds)) : Int32Array.from(setIds),
          },
  };
}
