import { type LinearConstraint, ProblemValidationError } from "@lagrange/core";
import {
  constraintInstantiator,
  decodedTemplates,
  instantiateAll,
  type WeightedTemplate,
} from "./candidates.js";
import type { TemplateInstance } from "./template.js";

/** Whether a weighted set holds a document template: its decoding is then a document at a time. */
export function hasDocumentScope(weighted: readonly WeightedTemplate[]): boolean {
  return decodedTemplates(weighted).some((w) => w.template.scope === "document");
}

/**
 * `constraintInstantiator` for a document (its sentences end to end, `instance.sentenceStarts`):
 * each sentence template's constraints at each sentence's offset, then the document templates'
 * over the whole. Penalty-0 templates are skipped (see `decodedTemplates`).
 */
export function documentInstantiator(
  weighted: readonly WeightedTemplate[],
  options: { readonly keepZeroPenalties?: boolean } = {},
): (instance: TemplateInstance) => LinearConstraint[] {
  const kept = decodedTemplates(weighted, options);
  const perSentence = constraintInstantiator(
    kept.filter((w) => w.template.scope === "sentence"),
    options,
  );
  const perDocument = kept.filter((w) => w.template.scope === "document");
  return (instance) => {
    const { n, L, tokens } = instance;
    const starts = instance.sentenceStarts ?? Int32Array.of(0);
    const out: LinearConstraint[] = [];
    for (let s = 0; s < starts.length; s++) {
      const from = starts[s]!;
      const to = starts[s + 1] ?? n;
      if (!(to > from && (s > 0 || from === 0))) {
        throw new ProblemValidationError(
          "sentenceStarts",
          `expected ascending sentence starts from 0 below n = ${n}, got ${starts.join(", ")}`,
        );
      }
      const sentence = {
        n: to - from,
        L,
        ...(tokens === undefined ? {} : { tokens: tokens.slice(from, to) }),
      };
      for (const c of perSentence(sentence)) {
        const offset = from * L;
        out.push(offset === 0 ? c : { ...c, indices: c.indices.map((i) => i + offset) });
      }
    }
    if (perDocument.length > 0) out.push(...instantiateAll(perDocument, instance, options));
    return out;
  };
}
