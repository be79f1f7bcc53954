import { LagrangeError } from "@lagrange/core";
import { MAX_DENSE_VALUE } from "../features/dense.js";
import type { AttributeList } from "../features/types.js";

/**
 * Refuses an attribute value that is not a finite number of magnitude at most MAX_DENSE_VALUE
 * (the bound the CRFsuite and dense-column readers apply), naming the sequence (`where`), the
 * token and the attribute: a hand-built sequence with NaN would otherwise train NaN weights or
 * tag by a NaN score without a word.
 */
export function checkAttributeValues(list: AttributeList, where: string): void {
  const values = list.values;
  if (values === null) return;
  for (let k = 0; k < values.length; k++) {
    const value = values[k]!;
    if (Math.abs(value) <= MAX_DENSE_VALUE) continue;
    let t = 0;
    while (t + 1 < list.offsets.length && list.offsets[t + 1]! <= k) t++;
    throw new LagrangeError(
      "bad-input",
      `${where}, token ${t}: attribute ${JSON.stringify(list.names[k])} has value ${value}; expected a finite number of magnitude at most ${MAX_DENSE_VALUE}`,
    );
  }
}
