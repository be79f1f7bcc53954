import { LabelSet } from "@lagrange/core";
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
  for (const [name, count] of counts) {
    if (count < minFrequency) continue;
    names.push(name);
    frequency.push(count);
  }
  const order = Array.from(names.keys()).sort((a, b) => frequency[b]! - frequency[a]! || a - b);
  const dict = new LabelSet();
  for (const k of order) dict.intern(names[k]!);
  return dict.freeze();
}
