import { presets } from "./features/presets.js";
import type { FeatureLayout } from "./model/layout.js";

/** Every index the kernels will follow stays in range (a checksum does not prove that). */
export function checkLayout(layout: FeatureLayout, fail: (reason: string) => never): void {
  const { numLabels: L, numAttributes, attributeOffsets, featureLabels } = layout;
  if (!Number.isInteger(L) || L < 1) fail(`layout: ${L} labels`);
  if (attributeOffsets.length !== numAttributes + 1) {
    fail(`layout: ${attributeOffsets.length} attribute offsets for ${numAttributes} attributes`);
  }
  let prev = 0;
  for (let a = 0; a <= numAttributes; a++) {
    const o = attributeOffsets[a]!;
    if (o < prev || o > featureLabels.length) fail(`layout: attribute offset ${a} out of order`);
    prev = o;
  }
  for (const t of featureLabels) if (t < 0 || t >= L) fail(`layout: feature label ${t} ≥ ${L}`);
  const S = featureLabels.length;
  const LL = L * L;
  const TA = layout.transitionAttributeBase;
  const pairs = layout.transitionFeaturePairs;
  const ok =
    layout.transitionBase === S &&
    (layout.startBase === -1 || layout.startBase === S + LL) &&
    (layout.endBase === -1 || layout.endBase === layout.startBase + L) &&
    TA === (layout.startBase === -1 ? S + LL : S + LL + 2 * L) &&
    layout.numWeights === TA + pairs.length &&
    layout.transitionAttributeOffsets.length === layout.numTransitionAttributes + 1 &&
    layout.transitionAttributeOffsets[layout.numTransitionAttributes] === pairs.length;
  if (!ok) fail("layout: weight blocks do not fit together");
  for (const p of pairs) if (p < 0 || p >= LL) fail(`layout: label pair ${p} ≥ ${LL}`);
}

/**
 * Why bytes that are not a chain-CRF model file were refused, pointing at what they are when that
 * is known: a CRFsuite model (convert it) or a learning-to-search model (another command reads it).
 */
export function foreignFileReason(bytes: Uint8Array, file: string): string {
  const starts = (text: string) => [...text].every((c, k) => bytes[k] === c.charCodeAt(0));
  if (starts("lCRF")) {
    const out = `${file.replace(/\.(crfsuite|crf|model)$/i, "")}.model`;
    return `a CRFsuite model, not a Lagrange one: convert it with lagrange import --from crfsuite ${shellWord(file)} --out ${shellWord(out === file ? `${file}.lagrange.model` : out)} (or crfsuiteModelFromBytes)`;
  }
  if (starts("LGRL2S\r\n")) {
    return "a learning-to-search model (lagrange train --learner l2s), not a CRF model: lagrange tag, parse, eval and info read it; this needs a CRF model";
  }
  return 'not a Lagrange chain-CRF model file (wrong magic bytes; expected "LGRCRF\\r\\n")';
}

/** A path as one word of a shell command (quoted when it needs to be). */
function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}

/**
 * The preset a model's features are built from when this build has no such preset, else null:
 * checked at load so that every command (`info` too) names the model file, not only the ones that
 * go on to extract features. A recorded feature spec's base decides (the header's preset is then
 * a label); a spec that is not an object is the spec parser's to report.
 */
export function unknownFeatureBase(preset: unknown, settings: unknown): string | null {
  const spec = isRecord(settings) ? settings.features : undefined;
  if (spec !== undefined && spec !== null) {
    const base = isRecord(spec) ? spec.base : undefined;
    return typeof base === "string" && base !== "template" && !Object.hasOwn(presets, base)
      ? base
      : null;
  }
  return typeof preset === "string" && !Object.hasOwn(presets, preset) ? preset : null;
}

export function isRecord(x: unknown): x is { readonly [key: string]: unknown } {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

/** A header value as a message shows it: JSON where it has one ("-1", "\"x\""), else its kind. */
export function describe(x: unknown): string {
  if (typeof x === "number") return String(x);
  return JSON.stringify(x) ?? String(x);
}

export function hex(x: number): string {
  return `0x${x.toString(16).padStart(8, "0")}`;
}
