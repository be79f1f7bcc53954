import type { LinearConstraint } from "@lagrange/core";

/** What a template needs from one sentence to produce its constraints. */
export interface TemplateInstance {
  /** Number of tokens. */
  readonly n: number;
  /** Number of labels (must match the label set the template was built for). */
  readonly L: number;
  /** The tokens; needed by token-dependent templates (state change around a delimiter). */
  readonly tokens?: readonly string[];
}

/** The constraint families of anzaroot2014 §5 and the rule templates of fersini2014 §3. */
export type ConstraintFamily =
  | "singleton"
  | "pairwise"
  | "hierarchical"
  | "adjacency"
  | "precedence"
  | "state-change"
  | "begin-end"
  | "presence-precedence";

/** JSON description of a template: enough to rebuild it against a label set. */
export type TemplateSpec =
  | { readonly kind: "singleton"; readonly segment: string }
  | {
      readonly kind: "pairwise-sum" | "pairwise-difference";
      readonly first: string;
      readonly second: string;
      readonly bound: number;
    }
  | { readonly kind: "hierarchical"; readonly first: string; readonly second: string }
  | {
      readonly kind: "adjacency" | "precedence" | "begin-end" | "presence-precedence";
      readonly first: string;
      readonly second: string;
    }
  | {
      readonly kind: "state-change";
      readonly delimiter: string;
      readonly first: string;
      readonly second: string;
    };

export type TemplateKind = TemplateSpec["kind"];

/**
 * A family member with its parameters fixed ("at most one authors segment"). It becomes linear
 * constraints only per sentence, because some rules depend on the tokens and all depend on n.
 * One penalty is learned per template and shared by every constraint it instantiates.
 */
export interface ConstraintTemplate {
  /** Stable identifier, unique within a candidate set, e.g. `singleton:authors`. */
  readonly id: string;
  readonly family: ConstraintFamily;
  readonly spec: TemplateSpec;
  /** Whether `instantiate` reads the tokens (otherwise it depends on n and L only). */
  readonly usesTokens: boolean;
  /** The rule in words, e.g. "at most one authors segment". */
  describe(): string;
  /** The constraints for one sentence (no penalty set: callers attach one). */
  instantiate(instance: TemplateInstance): LinearConstraint[];
  /**
   * Σ max(0, a·y − b) over the constraints `instantiate` would produce, computed without building
   * them (importance scores and penalty learning call this for thousands of templates).
   */
  violation(labels: ArrayLike<number>, instance: TemplateInstance): number;
}
