import { LabelSet, LagrangeError } from "@lagrange/core";
import type { AttributeList } from "../features/types.js";

/**
 * The attribute dictionary of a training corpus: names seen at least `minFrequency` times,
 * interned into a frozen {@link LabelSet} (lookup-only afterwards).
 *
 * Ids go by descending frequency (ties by first appearance). The kernels' feature loops jump to
 * each attribute's block of weights; with frequent attributes at the front those blocks share a
 * small, cache-resident region, which measurably speeds up scoring and the gradient.
 */
export function buildAttributeDictionary(
  lists: Iterable<AttributeList | null>,
  minFrequency = 1,
): LabelSet {
  return countAttributes(lists, minFrequency).dictionary;
}

/** An attribute dictionary and what the frequency cut-off left out of it. */
export interface AttributeCounts {
  readonly dictionary: LabelSet;
  /** Distinct attributes seen, kept or not. */
  readonly distinct: number;
  /** How often the most frequent attribute occurs (0 when none does). */
  readonly highestCount: number;
}

/** {@link buildAttributeDictionary} with the counts a caller reports the cut-off by. */
export function countAttributes(
  lists: Iterable<AttributeList | null>,
  minFrequency = 1,
): AttributeCounts {
  if (!Number.isInteger(minFrequency) || minFrequency < 1) {
    throw new RangeError(`minFrequency must be an integer ≥ 1, got ${minFrequency}`);
  }
  const counts = new Map<string, number>();
  for (const list of lists) {
    if (list === null) continue;
    for (const name of list.names) counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  const names: string[] = [];
  const frequency: number[] = [];
  let highestCount = 0;
  for (const [name, count] of counts) {
    if (count > highestCount) highestCount = count;
    if (count < minFrequency) continue;
    names.push(name);
    frequency.push(count);
  }
  const order = Array.from(names.keys()).sort((a, b) => frequency[b]! - frequency[a]! || a - b);
  const dict = new LabelSet();
  for (const k of order) dict.intern(names[k]!);
  return { dictionary: dict.freeze(), distinct: counts.size, highestCount };
}

/**
 * The frequency cut-off left no attribute: the model would hold label transitions only and tag
 * every sentence alike. `highestCount` is the count the cut-off must not exceed.
 */
export class AttributeFrequencyError extends LagrangeError {
  override readonly name = "AttributeFrequencyError";
  constructor(
    readonly minFrequency: number,
    readonly highestCount: number,
    readonly distinct: number,
  ) {
    super(
      "usage",
      `a minimum attribute frequency of ${minFrequency} removes every attribute (${distinct} distinct; the most frequent occurs ${highestCount} times): the model would hold label transitions only`,
    );
  }
}

/**
 * The features gave no token a single state attribute (an empty CRF++ template, one of B lines
 * only): the model would hold label transitions only and tag every sentence alike.
 */
export class NoStateAttributesError extends LagrangeError {
  override readonly name = "NoStateAttributesError";
  constructor(source: string) {
    super(
      "bad-input",
      `${source}: the features give no token a state attribute, so the model would hold label transitions only and tag every sentence alike`,
    );
  }
}
