import { throwIfAborted } from "@lagrange/core";
import type { ConstraintTemplate, TemplateInstance } from "./template.js";

/** A held-out sentence with its gold labels and the base CRF's unconstrained prediction. */
export interface ScoredExample extends TemplateInstance {
  readonly gold: ArrayLike<number>;
  readonly predicted: ArrayLike<number>;
}

export interface ImportanceScore {
  readonly template: ConstraintTemplate;
  /** Sentences whose gold labelling violates the template. */
  readonly goldViolations: number;
  /** Sentences whose predicted labelling violates it. */
  readonly predictedViolations: number;
  /**
   * imp(c) = Σ_d [[ŷ_d]]_c / Σ_d [[y_d]]_c (anzaroot2014 §5.6): how much more often the base
   * model's output violates the constraint than the truth does. +∞ when the truth never violates
   * it but the model does; 0 when neither does.
   */
  readonly importance: number;
}

/**
 * Importance of every template on a labelled held-out set. `[[y]]_c` is 1 when any constraint the
 * template instantiates for that sentence is violated.
 */
export function importanceScores(
  templates: readonly ConstraintTemplate[],
  examples: readonly ScoredExample[],
  options: { readonly signal?: AbortSignal } = {},
): ImportanceScore[] {
  return templates.map((template) => {
    throwIfAborted(options.signal);
    let gold = 0;
    let predicted = 0;
    for (const example of examples) {
      if (template.violation(example.gold, example) > 1e-9) gold++;
      if (template.violation(example.predicted, example) > 1e-9) predicted++;
    }
    return {
      template,
      goldViolations: gold,
      predictedViolations: predicted,
      importance: ratio(predicted, gold),
    };
  });
}

function ratio(predicted: number, gold: number): number {
  if (gold > 0) return predicted / gold;
  return predicted > 0 ? Number.POSITIVE_INFINITY : 0;
}

/**
 * Keeps the templates with imp(c) ≥ threshold (the paper prunes imp(c) < 2.75), most important
 * first (ties: more predicted violations first, then id).
 */
export function pruneByImportance(
  scores: readonly ImportanceScore[],
  threshold = 2.75,
): ImportanceScore[] {
  return scores
    .filter((s) => s.importance >= threshold)
    .sort(
      (x, y) =>
        y.importance - x.importance ||
        y.predictedViolations - x.predictedViolations ||
        (x.template.id < y.template.id ? -1 : x.template.id > y.template.id ? 1 : 0),
    );
}
