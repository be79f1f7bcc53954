import type { TransitionMask } from "@lagrange/core";
import type { ChainView } from "../inference/view.js";
import type { CompiledDataset, LabelSets } from "../model/dataset.js";

/** The masks in force, each null when it forbids nothing; owned (copied) by the encoder. */
export interface ConstraintMasks {
  readonly allowed: Uint8Array | null;
  readonly allowedStart: Uint8Array | null;
  readonly allowedEnd: Uint8Array | null;
}

export const NO_CONSTRAINTS: ConstraintMasks = {
  allowed: null,
  allowedStart: null,
  allowedEnd: null,
};

export function isConstrained(masks: ConstraintMasks): boolean {
  return masks.allowed !== null || masks.allowedStart !== null || masks.allowedEnd !== null;
}

export function applyConstraints(view: ChainView, masks: ConstraintMasks): ChainView {
  view.allowed = masks.allowed;
  view.allowedStart = masks.allowedStart;
  view.allowedEnd = masks.allowedEnd;
  return view;
}

/** The masks as {@link TransitionMask}, leaving out those that forbid nothing. */
export function toTrainingConstraints(masks: ConstraintMasks): TransitionMask {
  const constraints: {
    allowed?: Uint8Array;
    allowedStart?: Uint8Array;
    allowedEnd?: Uint8Array;
  } = {};
  if (masks.allowed !== null) constraints.allowed = masks.allowed;
  if (masks.allowedStart !== null) constraints.allowedStart = masks.allowedStart;
  if (masks.allowedEnd !== null) constraints.allowedEnd = masks.allowedEnd;
  return constraints;
}

/**
 * Copies the masks after checking them against the gold labels of instances
 * [begin, begin + count) of `dataset`: every known gold transition, first and last label must be
 * allowed, and a partially labelled sequence must have some completion the masks allow. Otherwise
 * a RangeError names the sequence (1-based, in the dataset) and the offending labels (by
 * `labelNames` when given).
 */
export function checkTrainingConstraints(
  constraints: TransitionMask,
  numLabels: number,
  dataset: CompiledDataset,
  begin: number,
  count: number,
  labelNames?: readonly string[],
): ConstraintMasks {
  const L = numLabels;
  const copy = (mask: Uint8Array | undefined, length: number, what: string) => {
    if (mask === undefined) return null;
    if (mask.length !== length) {
      throw new RangeError(
        `training constraints: ${what} has length ${mask.length}, expected ${length}`,
      );
    }
    return Uint8Array.from(mask);
  };
  const allowed = copy(constraints.allowed, L * L, "allowed (L·L)");
  const allowedStart = copy(constraints.allowedStart, L, "allowedStart (L)");
  const allowedEnd = copy(constraints.allowedEnd, L, "allowedEnd (L)");
  const name = (t: number) => (labelNames?.[t] === undefined ? `#${t}` : `"${labelNames[t]}"`);
  const gold = dataset.labels;
  for (let i = 0; i < count; i++) {
    const g = begin + i;
    const from = dataset.instanceOffsets[g]!;
    const to = dataset.instanceOffsets[g + 1]!;
    if (to === from) continue;
    const where = `training constraints: sequence ${g + 1}`;
    const first = gold[from]!;
    const last = gold[to - 1]!;
    if (allowedStart !== null && first >= 0 && allowedStart[first] === 0) {
      throw new RangeError(
        `${where} starts with label ${name(first)}, which the constraints forbid as a first label`,
      );
    }
    if (allowedEnd !== null && last >= 0 && allowedEnd[last] === 0) {
      throw new RangeError(
        `${where} ends with label ${name(last)}, which the constraints forbid as a last label`,
      );
    }
    if (allowed !== null) {
      for (let j = from + 1; j < to; j++) {
        const a = gold[j - 1]!;
        const b = gold[j]!;
        if (a >= 0 && b >= 0 && allowed[a * L + b] === 0) {
          throw new RangeError(
            `${where}, tokens ${j - from} and ${j - from + 1}: the transition ${name(a)} → ${name(b)} is forbidden by the constraints`,
          );
        }
      }
    }
    if (
      !completable(gold, dataset.labelSets ?? null, from, to, L, allowed, allowedStart, allowedEnd)
    ) {
      throw new RangeError(
        `${where} is partially labelled, and no labelling of its unknown tokens (within their label sets) satisfies the constraints`,
      );
    }
  }
  return { allowed, allowedStart, allowedEnd };
}

/**
 * Whether some labelling of gold[from, to) that keeps its known labels (≥ 0) and the label sets of
 * its restricted tokens satisfies the mask:
 * a boolean forward pass, O(n·L²), run only for partially labelled sequences (a fully labelled one
 * was checked pair by pair).
 */
function completable(
  gold: Int32Array,
  sets: LabelSets | null,
  from: number,
  to: number,
  L: number,
  allowed: Uint8Array | null,
  allowedStart: Uint8Array | null,
  allowedEnd: Uint8Array | null,
): boolean {
  let partial = false;
  for (let j = from; j < to; j++) if (gold[j]! < 0) partial = true;
  if (!partial) return true;
  let reach = new Uint8Array(L);
  let next = new Uint8Array(L);
  const admits = (j: number, t: number) => {
    if (gold[j]! >= 0) return gold[j] === t;
    if (sets === null || sets.offsets[j] === sets.offsets[j + 1]) return true;
    for (let k = sets.offsets[j]!; k < sets.offsets[j + 1]!; k++)
      if (sets.ids[k] === t) return true;
    return false;
  };
  for (let t = 0; t < L; t++) {
    reach[t] = admits(from, t) && (allowedStart === null || allowedStart[t] !== 0) ? 1 : 0;
  }
  for (let j = from + 1; j < to; j++) {
    for (let b = 0; b < L; b++) {
      let ok = 0;
      if (admits(j, b)) {
        for (let a = 0; a < L && ok === 0; a++) {
          if (reach[a] !== 0 && (allowed === null || allowed[a * L + b] !== 0)) ok = 1;
        }
      }
      next[b] = ok;
    }
    [reach, next] = [next, reach];
  }
  for (let t = 0; t < L; t++) {
    if (reach[t] !== 0 && (allowedEnd === null || allowedEnd[t] !== 0)) return true;
  }
  return false;
}
