import { type ClassWeights, isClassWeight, MAX_CLASS_WEIGHT } from "@lagrange/chain-crf";
import { LagrangeError } from "@lagrange/core";

/**
 * Class weights from their command-line spellings: `LABEL=w` (w > 0; the last one for a label
 * wins), `balanced` (scikit-learn's n_samples / (n_classes · count)) or `balanced:POWER` (that
 * weight to the power, e.g. 0.5 to smooth it). Explicit weights override the balanced ones.
 * `option` names the flag in errors. Empty: undefined (no weights).
 */
export function parseClassWeights(
  specs: readonly string[],
  option = "--class-weight",
): ClassWeights | undefined {
  if (specs.length === 0) return undefined;
  let balanced: number | undefined;
  const labels: { [label: string]: number } = {};
  for (const spec of specs) {
    const b = /^balanced(?::(.*))?$/.exec(spec);
    if (b !== null) {
      const power = b[1] === undefined ? 1 : Number(b[1]);
      if (b[1] === "" || !(power > 0 && power <= 4)) {
        throw new LagrangeError(
          "usage",
          `${option} ${spec}: expected balanced or balanced:POWER with 0 < POWER ≤ 4`,
        );
      }
      balanced = power;
      continue;
    }
    const at = spec.lastIndexOf("=");
    const label = spec.slice(0, at);
    const text = spec.slice(at + 1);
    const weight = Number(text);
    if (at <= 0 || text.trim() === "" || !isClassWeight(weight)) {
      throw new LagrangeError(
        "usage",
        `${option} ${spec}: expected LABEL=w with a number w in [${1 / MAX_CLASS_WEIGHT}, ${MAX_CLASS_WEIGHT}], or balanced[:POWER]`,
      );
    }
    labels[label] = weight;
  }
  return {
    ...(balanced === undefined ? {} : { balanced }),
    ...(Object.keys(labels).length === 0 ? {} : { labels }),
  };
}
