import { LabelSet } from "@lagrange/core";
import type { AttributeList } from "../features/types.ts";

/**
 * The attribute dictionary of a training corpus: names seen at least `minFrequency` times, in
 * order of first appearance, interned into a frozen {@link LabelSet} (lookup-only afterwards).
 */
export function buildAttributeDictionary(
  lists: Iterable<AttributeList | null>,
  minFrequency = 1,
): LabelSet {
  if (!Number.isInteger(minFrequency) || minFrequency < 1) {
    throw new RangeError(`minFrequency must be an integer ≥ 1, got ${minFrequency}`);
  }
  const dict = new LabelSet();
  if (minFrequency === 1) {
    for (const list of lists) {
      if (list === null) continue;
      for (const name of list.names) dict.intern(name);
    }
    return dict.freeze();
  }
  const counts = new Map<string, number>();
  for (const list of lists) {
    if (list === null) continue;
    for (const name of list.names) counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  for (const [name, count] of counts) if (count >= minFrequency) dict.intern(name);
  return dict.freeze();
}
