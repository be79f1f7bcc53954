import {
  LagrangeError,
  type LinearConstraint,
  linearConstraint,
  ProblemValidationError,
} from "@lagrange/core";
import {
  describeDocumentSpec,
  documentTemplate,
  documentTemplateId,
} from "./document-templates.js";
import { OUTSIDE, type SegmentIndex } from "./segments.js";
import type {
  ConstraintFamily,
  ConstraintTemplate,
  TemplateInstance,
  TemplateKind,
  TemplateSpec,
} from "./template.js";

function checkInstance(id: string, L: number, instance: TemplateInstance): void {
  if (instance.L !== L) {
    throw new ProblemValidationError(
      `template ${id}`,
      `built for ${L} lattice states, instantiated for L = ${instance.L}`,
    );
  }
  if (!Number.isInteger(instance.n) || instance.n < 1) {
    throw new ProblemValidationError(`template ${id}`, `expected n ≥ 1, got ${instance.n}`);
  }
}

const FAMILY: Record<TemplateKind, ConstraintFamily> = {
  singleton: "singleton",
  "pairwise-sum": "pairwise",
  "pairwise-difference": "pairwise",
  hierarchical: "hierarchical",
  adjacency: "adjacency",
  precedence: "precedence",
  "state-change": "state-change",
  "begin-end": "begin-end",
  "presence-precedence": "presence-precedence",
  "same-string": "document",
  acronym: "document",
};

/** A stable id from the spec: kind plus its parameters. */
export function templateId(spec: TemplateSpec): string {
  switch (spec.kind) {
    case "singleton":
      return `singleton:${spec.segment}`;
    case "pairwise-sum":
    case "pairwise-difference":
      return `${spec.kind}:${spec.first}|${spec.second}|${spec.bound}`;
    case "state-change":
      return `state-change:${spec.first}|${spec.delimiter}|${spec.second}`;
    case "same-string":
    case "acronym":
      return documentTemplateId(spec);
    default:
      return `${spec.kind}:${spec.first}|${spec.second}`;
  }
}

function describeSpec(spec: TemplateSpec, index: SegmentIndex): string {
  const one = (key: string) => index.noun(key);
  const many = (key: string) => index.noun(key, true);
  switch (spec.kind) {
    case "singleton":
      return `at most one ${one(spec.segment)}`;
    case "pairwise-sum": {
      const { first: a, second: b, bound: k } = spec;
      if (k === 0) return `no ${one(a)} and no ${one(b)}`;
      if (k === 1) return `at most one ${one(a)} or ${one(b)} in total`;
      return `at most ${k} ${many(a)} and ${many(b)} in total`;
    }
    case "pairwise-difference": {
      const { first: a, second: b, bound: k } = spec;
      if (k === 0) return `no more ${many(a)} than ${many(b)}`;
      return `at most ${k} more ${k === 1 ? one(a) : many(a)} than ${many(b)}`;
    }
    case "hierarchical":
      return `no more ${many(spec.first)} than ${many(spec.second)} (hierarchy)`;
    case "adjacency":
      return `${article(spec.first)} ${spec.first} token is followed by ${article(spec.second)} ${spec.second} token`;
    case "precedence":
      return `every ${spec.first} token has ${article(spec.second)} ${spec.second} token somewhere after it`;
    case "state-change":
      return `the token before "${spec.delimiter}" is ${spec.first} and the token after it is ${spec.second}`;
    case "begin-end":
      return `a sentence that starts with ${spec.first} ends with ${spec.second}`;
    case "presence-precedence":
      return `no ${spec.second} token before ${article(spec.first)} ${spec.first} token`;
    case "same-string":
    case "acronym":
      return describeDocumentSpec(spec);
  }
}

/** "an" before a key spelled with a leading vowel ("an O token", "an ORG token"), else "a". */
function article(key: string): string {
  return /^[aeiou]/i.test(key) ? "an" : "a";
}

/**
 * Builds the template a spec describes, over the states of `index.lattice`; a usage error for a
 * segment type or label the model lacks and for bad parameters.
 */
export function templateFromSpec(spec: TemplateSpec, index: SegmentIndex): ConstraintTemplate {
  return { ...templateOf(spec, index), lattice: index.lattice };
}

function templateOf(spec: TemplateSpec, index: SegmentIndex): ConstraintTemplate {
  switch (spec.kind) {
    case "singleton":
      return countTemplate(spec, index, [[spec.segment, 1]], 1);
    case "pairwise-sum":
    case "pairwise-difference": {
      if (!Number.isInteger(spec.bound) || spec.bound < 0) {
        throw new LagrangeError(
          "usage",
          `${templateId(spec)}: expected an integer bound ≥ 0, got ${spec.bound}`,
        );
      }
      const sign = spec.kind === "pairwise-sum" ? 1 : -1;
      return countTemplate(
        spec,
        index,
        [
          [spec.first, 1],
          [spec.second, sign],
        ],
        spec.bound,
      );
    }
    case "hierarchical":
      return countTemplate(
        spec,
        index,
        [
          [spec.first, 1],
          [spec.second, -1],
        ],
        0,
      );
    case "same-string":
    case "acronym":
      return documentTemplate(spec, index);
    default:
      return ruleTemplate(spec, index);
  }
}

/** Σ_k coef_k · count(segment_k) ≤ rhs, counts being numbers of segment markers (one per segment). */
function countTemplate(
  spec: TemplateSpec,
  index: SegmentIndex,
  terms: readonly (readonly [string, number])[],
  rhs: number,
): ConstraintTemplate {
  const id = templateId(spec);
  const words = describeSpec(spec, index);
  const keys = terms.map(([key, coef]) => {
    const k = index.get(key);
    if (k.marks.length === 0) {
      throw new LagrangeError(
        "usage",
        key === OUTSIDE
          ? `${id}: "${OUTSIDE}" is outside every segment, not a segment type to count`
          : `${id}: no state of the model marks a "${key}" segment`,
      );
    }
    return { position: index.indexOf(key), marks: k.marks, coef };
  });
  const L = index.L;
  return {
    id,
    family: FAMILY[spec.kind],
    spec,
    usesTokens: false,
    scope: "sentence",
    describe: () => words,
    instantiate(instance): LinearConstraint[] {
      checkInstance(id, L, instance);
      // The same state row at every position: merge the keys' coefficients over the L states
      // once, then lay the row out n times (sorted indices, no per-term map).
      const row = new Float64Array(L);
      for (const { marks, coef } of keys) for (const t of marks) row[t]! += coef;
      const labels: number[] = [];
      for (let t = 0; t < L; t++) if (row[t] !== 0) labels.push(t);
      const k = labels.length;
      const indices = new Int32Array(instance.n * k);
      const coefficients = new Float64Array(instance.n * k);
      for (let p = 0, q = 0; p < instance.n; p++) {
        for (let j = 0; j < k; j++, q++) {
          indices[q] = p * L + labels[j]!;
          coefficients[q] = row[labels[j]!]!;
        }
      }
      return [{ indices, coefficients, rhs, name: words }];
    },
    violation(labels) {
      const counts = index.counts(labels);
      let sum = 0;
      for (const { position, coef } of keys) sum += coef * counts[position]!;
      return Math.max(0, sum - rhs);
    },
  };
}

type RuleSpec = Exclude<
  TemplateSpec,
  {
    kind:
      | "singleton"
      | "pairwise-sum"
      | "pairwise-difference"
      | "hierarchical"
      | "same-string"
      | "acronym";
  }
>;

/**
 * The rule templates of fersini2014 (17)–(21), over node indicators z[p, G] = Σ_{t∈G} y[p·L + t]
 * where G is the set of lattice states inside a segment kind. See the README for how each differs from
 * the paper's edge-indexed printing.
 */
function ruleTemplate(spec: RuleSpec, index: SegmentIndex): ConstraintTemplate {
  const id = templateId(spec);
  const words = describeSpec(spec, index);
  const L = index.L;
  const a = index.get(spec.first).inside;
  const b = index.get(spec.second).inside;
  const inA = new Uint8Array(L);
  const inB = new Uint8Array(L);
  for (const t of a) inA[t] = 1;
  for (const t of b) inB[t] = 1;
  const delimiter = spec.kind === "state-change" ? spec.delimiter : "";
  if (spec.kind === "state-change" && delimiter.length === 0) {
    throw new LagrangeError("usage", `${id}: expected a non-empty delimiter token`);
  }
  const tokensOf = (instance: TemplateInstance): readonly string[] => {
    const { tokens } = instance;
    if (tokens === undefined) {
      throw new ProblemValidationError(
        `template ${id}`,
        "needs the sentence's tokens (TemplateInstance.tokens)",
      );
    }
    if (tokens.length !== instance.n) {
      throw new ProblemValidationError(
        `template ${id}`,
        `expected ${instance.n} tokens, got ${tokens.length}`,
      );
    }
    return tokens;
  };
  const group = (p: number, ids: Int32Array, coef: number, out: [number, number][]) => {
    for (const t of ids) out.push([p * L + t, coef]);
  };

  const instantiate = (instance: TemplateInstance): LinearConstraint[] => {
    checkInstance(id, L, instance);
    const { n } = instance;
    const out: LinearConstraint[] = [];
    const push = (terms: [number, number][], rhs: number) =>
      out.push(linearConstraint({ terms, rhs, name: words }));
    switch (spec.kind) {
      case "adjacency":
        // z[p, A] ≤ z[p+1, B] for every adjacent pair.
        for (let p = 0; p + 1 < n; p++) {
          const terms: [number, number][] = [];
          group(p, a, 1, terms);
          group(p + 1, b, -1, terms);
          push(terms, 0);
        }
        break;
      case "precedence":
        // z[p, A] ≤ Σ_{q>p} z[q, B]: an A token needs a B token strictly later.
        for (let p = 0; p < n; p++) {
          const terms: [number, number][] = [];
          group(p, a, 1, terms);
          for (let q = p + 1; q < n; q++) group(q, b, -1, terms);
          push(terms, 0);
        }
        break;
      case "state-change": {
        // At a delimiter token p: z[p−1, A] + z[p+1, B] ≥ 2, i.e. −z[p−1, A] − z[p+1, B] ≤ −2.
        const tokens = tokensOf(instance);
        for (let p = 1; p + 1 < n; p++) {
          if (tokens[p] !== delimiter) continue;
          const terms: [number, number][] = [];
          group(p - 1, a, -1, terms);
          group(p + 1, b, -1, terms);
          push(terms, -2);
        }
        break;
      }
      case "begin-end": {
        const terms: [number, number][] = [];
        group(0, a, 1, terms);
        group(n - 1, b, -1, terms);
        push(terms, 0);
        break;
      }
      case "presence-precedence":
        // p·z[p, A] + Σ_{q<p} z[q, B] ≤ p: violated by the number of B tokens before an A token.
        for (let p = 1; p < n; p++) {
          const terms: [number, number][] = [];
          group(p, a, p, terms);
          for (let q = 0; q < p; q++) group(q, b, 1, terms);
          push(terms, p);
        }
        break;
    }
    return out;
  };

  const violation = (labels: ArrayLike<number>, instance: TemplateInstance): number => {
    const n = labels.length;
    let v = 0;
    switch (spec.kind) {
      case "adjacency":
        for (let p = 0; p + 1 < n; p++) {
          if (inA[labels[p]!] === 1 && inB[labels[p + 1]!] === 0) v += 1;
        }
        return v;
      case "precedence": {
        let bLater = false;
        for (let p = n - 1; p >= 0; p--) {
          if (inA[labels[p]!] === 1 && !bLater) v += 1;
          if (inB[labels[p]!] === 1) bLater = true;
        }
        return v;
      }
      case "state-change": {
        const tokens = tokensOf(instance);
        for (let p = 1; p + 1 < n; p++) {
          if (tokens[p] !== delimiter) continue;
          v += 2 - inA[labels[p - 1]!]! - inB[labels[p + 1]!]!;
        }
        return v;
      }
      case "begin-end":
        return Math.max(0, inA[labels[0]!]! - inB[labels[n - 1]!]!);
      case "presence-precedence": {
        let bBefore = 0;
        for (let p = 0; p < n; p++) {
          if (p > 0 && inA[labels[p]!] === 1) v += bBefore;
          if (inB[labels[p]!] === 1) bBefore++;
        }
        return v;
      }
    }
  };

  return {
    id,
    family: FAMILY[spec.kind],
    spec,
    usesTokens: spec.kind === "state-change",
    scope: "sentence",
    describe: () => words,
    instantiate,
    violation,
  };
}
