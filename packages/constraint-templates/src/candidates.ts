import { LagrangeError, type LinearConstraint } from "@lagrange/core";
import type { SegmentLattice } from "@lagrange/datasets";
import { DOCUMENT_KINDS } from "./document-templates.js";
import { OUTSIDE, type SegmentIndex } from "./segments.js";
import type { ConstraintFamily, ConstraintTemplate, TemplateInstance } from "./template.js";
import { templateFromSpec } from "./templates.js";

export interface CandidateOptions {
  /** Families to generate; default the count families of anzaroot2014: singleton, pairwise, hierarchical. */
  readonly families?: readonly ConstraintFamily[];
  /** Bounds k of the pairwise relations count(i) ± count(j) ≤ k; default 0, 1, 2, 3 (the paper). */
  readonly pairwiseBounds?: readonly number[];
  /** Delimiter tokens of the state-change rule; default `,` `.` `;` `:`. */
  readonly delimiters?: readonly string[];
  /**
   * What singleton and pairwise constraints count on a hierarchical label set: `label` (the
   * default, the paper's reading) counts each full label that has a `B-` at some level; `segment`
   * counts segment kinds. Hierarchical equality always relates segment kinds. On flat BIO both
   * are the same and segment keys are used.
   */
  readonly countUnit?: "label" | "segment";
  /** Restrict every family to these keys (default: all countable keys). */
  readonly segments?: readonly string[];
  /** Rule templates may also name `O` (tokens outside every segment); default false. */
  readonly includeOutside?: boolean;
}

export const COUNT_FAMILIES: readonly ConstraintFamily[] = [
  "singleton",
  "pairwise",
  "hierarchical",
];
export const RULE_FAMILIES: readonly ConstraintFamily[] = [
  "adjacency",
  "precedence",
  "state-change",
  "begin-end",
  "presence-precedence",
];

/**
 * All candidate templates of the chosen families over a label set (anzaroot2014 §6: "iterating
 * over all possible labels that contain a B prefix at any level in the hierarchy"). Pairwise
 * candidates grow quadratically with the number of segment kinds: prune them with
 * `importanceScores` / `pruneByImportance` before learning penalties.
 */
export function candidateTemplates(
  index: SegmentIndex,
  options: CandidateOptions = {},
): ConstraintTemplate[] {
  const families = new Set(options.families ?? COUNT_FAMILIES);
  const bounds = options.pairwiseBounds ?? [0, 1, 2, 3];
  const delimiters = options.delimiters ?? [",", ".", ";", ":"];
  const allowed = options.segments === undefined ? undefined : new Set(options.segments);
  const unit = index.flat ? "segment" : (options.countUnit ?? "label");
  const countable = index
    .countableKeys(unit)
    .map((k) => k.key)
    .filter((k) => allowed === undefined || allowed.has(k));
  const segments = index
    .countableKeys("segment")
    .map((k) => k.key)
    .filter((k) => allowed === undefined || allowed.has(k));
  const out: ConstraintTemplate[] = [];

  if (families.has("singleton")) {
    for (const segment of countable)
      out.push(templateFromSpec({ kind: "singleton", segment }, index));
  }
  if (families.has("pairwise")) {
    for (let i = 0; i < countable.length; i++) {
      for (let j = 0; j < countable.length; j++) {
        if (i === j) continue;
        const first = countable[i]!;
        const second = countable[j]!;
        for (const bound of bounds) {
          if (i < j) {
            out.push(templateFromSpec({ kind: "pairwise-sum", first, second, bound }, index));
          }
          out.push(templateFromSpec({ kind: "pairwise-difference", first, second, bound }, index));
        }
      }
    }
  }
  if (families.has("hierarchical")) {
    const isCountable = new Set(segments);
    for (const parent of segments) {
      for (const child of index.get(parent).children) {
        if (!isCountable.has(child)) continue;
        // e(i, j) = count(i) − count(j): both e ≤ 0 and −e ≤ 0, i.e. the equality as two soft halves.
        out.push(templateFromSpec({ kind: "hierarchical", first: parent, second: child }, index));
        out.push(templateFromSpec({ kind: "hierarchical", first: child, second: parent }, index));
      }
    }
  }
  const ruleFamilies = RULE_FAMILIES.filter((f) => families.has(f));
  if (ruleFamilies.length > 0) {
    const groups = index
      .segmentKeys()
      .map((k) => k.key)
      .filter((k) => (k === OUTSIDE ? options.includeOutside === true : true))
      .filter((k) => allowed === undefined || allowed.has(k) || k === OUTSIDE);
    for (const first of groups) {
      for (const second of groups) {
        if (first === second) continue;
        for (const family of ruleFamilies) {
          if (family === "state-change") {
            for (const delimiter of delimiters) {
              out.push(templateFromSpec({ kind: "state-change", delimiter, first, second }, index));
            }
          } else {
            const kind = family as "adjacency" | "precedence" | "begin-end" | "presence-precedence";
            out.push(templateFromSpec({ kind, first, second }, index));
          }
        }
      }
    }
  }
  if (families.has("document")) {
    // One template per kind and type: one penalty per type is learned (anzaroot2014).
    for (const type of segments) {
      for (const kind of DOCUMENT_KINDS) out.push(templateFromSpec({ kind, type }, index));
    }
  }
  return out;
}

/** A template with its penalty: a number ≥ 0 (soft) or `null` (hard). */
export interface WeightedTemplate {
  readonly template: ConstraintTemplate;
  readonly penalty: number | null;
}

function withPenalty(c: LinearConstraint, penalty: number | null, name: string): LinearConstraint {
  // Shares the template's index and coefficient arrays: constraints are read-only by contract.
  return penalty === null
    ? { indices: c.indices, coefficients: c.coefficients, rhs: c.rhs, name }
    : { indices: c.indices, coefficients: c.coefficients, rhs: c.rhs, penalty, name };
}

/**
 * The templates a decoder is given: those with penalty 0 are left out (they cannot change the
 * answer) unless `keepZeroPenalties`. The one rule {@link instantiateAll} and
 * {@link constraintInstantiator} follow, so that a count shown to a user matches what decodes.
 */
export function decodedTemplates(
  weighted: readonly WeightedTemplate[],
  options: { readonly keepZeroPenalties?: boolean } = {},
): WeightedTemplate[] {
  return weighted.filter((w) => w.penalty !== 0 || options.keepZeroPenalties === true);
}

/**
 * The linear constraints of one sentence for a weighted template set, each named by its
 * template's words. Templates with penalty 0 are skipped (see {@link decodedTemplates}).
 */
export function instantiateAll(
  weighted: readonly WeightedTemplate[],
  instance: TemplateInstance,
  options: { readonly keepZeroPenalties?: boolean } = {},
): LinearConstraint[] {
  const out: LinearConstraint[] = [];
  for (const { template, penalty } of decodedTemplates(weighted, options)) {
    const name = template.describe();
    for (const c of template.instantiate(instance)) out.push(withPenalty(c, penalty, name));
  }
  return out;
}

/**
 * The lattice a weighted template set's constraints are over: a decoder lifts the model's chain
 * scores with its `liftScores` and lowers the state sequence it finds with `lower`. Undefined when
 * no template has one (an empty set). Templates built on different label sets or schemes cannot
 * decode together: a usage error.
 */
export function constraintLattice(
  templates: readonly WeightedTemplate[],
): SegmentLattice | undefined {
  let found: SegmentLattice | undefined;
  for (const { template } of templates) {
    const lattice = template.lattice;
    if (lattice === undefined || lattice === found) continue;
    if (found === undefined) {
      found = lattice;
      continue;
    }
    const same =
      lattice.scheme === found.scheme &&
      lattice.labels.length === found.labels.length &&
      lattice.labels.every((label, i) => found!.labels[i] === label);
    if (!same) {
      throw new LagrangeError(
        "usage",
        `constraint ${template.id} was built on other labels or another scheme (${lattice.scheme}, ${lattice.labels.length} labels) than the others (${found.scheme}, ${found.labels.length} labels): a constraint set decodes over one model's labels`,
      );
    }
  }
  return found;
}

/**
 * `instantiateAll` for decoding a whole dataset: the constraints of templates that do not read
 * the tokens depend only on n, so they are built once per sentence length and reused. Keep the
 * weighted set small (the learned, pruned one): the cache holds every length seen.
 */
export function constraintInstantiator(
  weighted: readonly WeightedTemplate[],
  options: { readonly keepZeroPenalties?: boolean } = {},
): (instance: TemplateInstance) => LinearConstraint[] {
  const kept = decodedTemplates(weighted, options);
  const byLength = kept.filter((w) => !w.template.usesTokens);
  const byTokens = kept.filter((w) => w.template.usesTokens);
  const cache = new Map<string, LinearConstraint[]>();
  return (instance) => {
    const key = `${instance.n}:${instance.L}`;
    let fixed = cache.get(key);
    if (fixed === undefined) {
      fixed = instantiateAll(byLength, instance, options);
      cache.set(key, fixed);
    }
    return byTokens.length === 0
      ? fixed
      : [...fixed, ...instantiateAll(byTokens, instance, options)];
  };
}
