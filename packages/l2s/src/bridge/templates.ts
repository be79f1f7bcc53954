import {
  type ConstraintTemplate,
  constraintInstantiator,
  constraintLattice,
  SegmentIndex,
  type SegmentKeying,
  type TemplateInstance,
  type TemplateSpec,
  templateFromSpec,
  type WeightedTemplate,
} from "@lagrange/constraint-templates";
import { LagrangeError, type LinearConstraint, type TransitionMask } from "@lagrange/core";
import {
  allowedTransitions,
  type LabelScheme,
  type SchemeName,
  type SchemeOptions,
} from "@lagrange/datasets";
import { LabelConstraintTracker, type LabelConstraintTrackerOptions } from "./allowed-labels.js";

/** How a sequence-labelling task's labels are constrained. */
export interface SequenceConstraintsOptions {
  /** The label names by id: the task's actions, in the order of its action ids. */
  readonly labels: readonly string[];
  /** The scheme whose validity every output keeps (datasets' `allowedTransitions`); omit for none. */
  readonly scheme?: SchemeName;
  readonly schemeOptions?: SchemeOptions;
  /**
   * Learned templates with their penalties (`null`: hard), instantiated per sentence by
   * constraint-templates' `constraintInstantiator` (cached per sentence length). Their segment
   * lattice must be the labels themselves: IOB1 and IOE1 segments need split states that a
   * left-to-right search over the labels does not have (a usage error).
   */
  readonly templates?: readonly WeightedTemplate[];
  /** Any further per-sentence constraints (over the indicators `i·L + t`), appended. */
  readonly constraints?: (instance: TemplateInstance) => readonly LinearConstraint[];
  readonly tracker?: LabelConstraintTrackerOptions;
}

/** A sentence to constrain: its length, and its tokens for token-reading templates (state change). */
export interface ConstrainedSentence {
  readonly n: number;
  readonly tokens?: readonly string[];
}

/**
 * A sequence-labelling task's allowed labels: the scheme's mask and the sentence's instantiated
 * templates in one {@link LabelConstraintTracker}. In a task's `run`:
 *
 * ```ts
 * const tracker = constraints.track(example);       // per run; prepared once per example
 * for (let i = 0; i < n; i++) {
 *   const label = search.predict({ features, reference: gold[i], tag: i + 1, ...tracker.allowedActions(i) });
 *   tracker.commit(i, label);
 * }
 * ```
 */
export class SequenceConstraints {
  readonly labels: readonly string[];
  readonly L: number;
  /** The scheme's mask over `labels` (null without a scheme). */
  readonly mask: Required<TransitionMask> | null;
  readonly #instantiate: ((instance: TemplateInstance) => LinearConstraint[]) | undefined;
  readonly #extra: ((instance: TemplateInstance) => readonly LinearConstraint[]) | undefined;
  readonly #trackerOptions: LabelConstraintTrackerOptions;
  readonly #tracker: LabelConstraintTracker;
  #tracked: ConstrainedSentence | undefined;

  constructor(options: SequenceConstraintsOptions) {
    this.labels = options.labels;
    this.L = options.labels.length;
    this.mask =
      options.scheme === undefined
        ? null
        : allowedTransitions(options.labels, options.scheme, options.schemeOptions ?? {});
    if (
      options.templates !== undefined &&
      constraintLattice(options.templates)?.expanded === true
    ) {
      throw new LagrangeError(
        "usage",
        "segment constraints on IOB1/IOE1 labels need a chain decoder; convert the data to IOB2 (lagrange convert) for L2S",
      );
    }
    this.#instantiate =
      options.templates === undefined || options.templates.length === 0
        ? undefined
        : constraintInstantiator(options.templates);
    this.#extra = options.constraints;
    this.#trackerOptions = options.tracker ?? {};
    this.#tracker = new LabelConstraintTracker(this.#trackerOptions);
  }

  /** The sentence's linear constraints (templates' first, then `constraints`'). */
  constraintsFor(sentence: ConstrainedSentence): readonly LinearConstraint[] {
    const instance: TemplateInstance =
      sentence.tokens === undefined
        ? { n: sentence.n, L: this.L }
        : { n: sentence.n, L: this.L, tokens: sentence.tokens };
    const fromTemplates = this.#instantiate?.(instance) ?? [];
    const extra = this.#extra?.(instance);
    return extra === undefined || extra.length === 0 ? fromTemplates : [...fromTemplates, ...extra];
  }

  /**
   * This object's one tracker, at the start of a pass over `sentence`: prepared when `sentence` is
   * a different object from the last call's, only restarted when it is the same (a task's roll-outs
   * rerun one example many times). A later call for another sentence resets it: use
   * {@link tracker} for trackers used side by side.
   */
  track(sentence: ConstrainedSentence): LabelConstraintTracker {
    if (this.#tracked === sentence) return this.#tracker.restart();
    this.#tracked = sentence;
    return this.#reset(this.#tracker, sentence);
  }

  /** A new tracker prepared for `sentence`. */
  tracker(sentence: ConstrainedSentence): LabelConstraintTracker {
    return this.#reset(new LabelConstraintTracker(this.#trackerOptions), sentence);
  }

  #reset(tracker: LabelConstraintTracker, sentence: ConstrainedSentence): LabelConstraintTracker {
    return tracker.reset({
      n: sentence.n,
      L: this.L,
      mask: this.mask,
      constraints: this.constraintsFor(sentence),
    });
  }
}

/** A template by its JSON spec, with a penalty (`null`: hard). */
export interface TemplateRule {
  readonly spec: TemplateSpec;
  readonly penalty: number | null;
}

/**
 * Weighted templates from specs over a label set under its scheme (constraint-templates'
 * `templateFromSpec` on one `SegmentIndex`): e.g. `{ spec: { kind: "singleton", segment: "PER" },
 * penalty: null }` for "at most one PER segment", hard.
 */
export function weightedTemplates(
  labels: readonly string[],
  scheme: LabelScheme,
  rules: readonly TemplateRule[],
  keying: SegmentKeying = "path",
): WeightedTemplate[] {
  const index = new SegmentIndex(labels, scheme, keying);
  return rules.map(({ spec, penalty }) => {
    const template: ConstraintTemplate = templateFromSpec(spec, index);
    return { template, penalty };
  });
}
