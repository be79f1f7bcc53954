import type { LinearConstraint } from "@lagrange/core";
import type { SegmentLattice } from "@lagrange/datasets";

/** What a template needs from one sentence to produce its constraints. */
export interface TemplateInstance {
  /** Number of tokens. */
  readonly n: number;
  /** Number of lattice states (the template's `lattice.states`; the model's labels under IOB2, BIOES, …). */
  readonly L: number;
  /** The tokens; needed by token-dependent templates (state change around a delimiter). */
  readonly tokens?: readonly string[];
  /**
   * A document is its sentences laid end to end (`n` tokens in all): the first position of each
   * sentence, ascending, from 0. Absent: one sentence. Sentence templates read one sentence only.
   */
  readonly sentenceStarts?: Int32Array;
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
  | "presence-precedence"
  | "document";

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
    }
  | {
      /** Over a document: see document-templates.ts for which tokens each kind links. */
      readonly kind: "same-string" | "acronym";
      /** The entity type X whose "inside X or not" the linked tokens share. */
      readonly type: string;
      /** Occurrences of one string linked at most (default 20): bounds the rows per string. */
      readonly maxOccurrences?: number;
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
  /**
   * The states its constraints and labellings are over (`templateFromSpec` sets it). Absent: the
   * model's labels themselves.
   */
  readonly lattice?: SegmentLattice;
  /** Whether `instantiate` reads the tokens (otherwise it depends on n and L only). */
  readonly usesTokens: boolean;
  /**
   * What one instance is: a sentence, or a document (its sentences end to end, with
   * `TemplateInstance.sentenceStarts`). A tagger decodes a document at a time when any of its
   * templates has scope `document`.
   */
  readonly scope: "sentence" | "document";
  /** The rule in words, e.g. "at most one authors segment". */
  describe(): string;
  /** The constraints for one sentence, over lattice states (no penalty set: callers attach one). */
  instantiate(instance: TemplateInstance): LinearConstraint[];
  /**
   * Σ max(0, a·y − b) over the constraints `instantiate` would produce for the state sequence
   * `labels`, computed without building them (importance scores and penalty learning call this
   * for thousands of templates).
   */
  violation(labels: ArrayLike<number>, instance: TemplateInstance): number;
}
