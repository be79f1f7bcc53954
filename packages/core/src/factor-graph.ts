import { type ChainScores, transitionOffset, validateChainScores } from "./chain.js";
import { ProblemValidationError } from "./errors.js";

/**
 * A discrete factor graph: variables `0..domainSizes.length−1`, variable v taking values
 * `0..domainSizes[v]−1`, and a list of factors whose scores add up (log-potentials; −∞ forbids).
 *
 * The graph is plain data: solvers are functions of (graph, options), so one graph can be solved
 * several ways (naive DD, 2-slave DD, ILP, brute force).
 */
export interface FactorGraph {
  readonly domainSizes: Int32Array;
  readonly factors: readonly Factor[];
}

export type Factor = UnaryFactor | PairwiseFactor | PatternFactor;

/** `scores[x]` is the score of `variable = x`; length `domainSizes[variable]`. */
export interface UnaryFactor {
  readonly kind: "unary";
  readonly variable: number;
  readonly scores: Float64Array;
}

/**
 * A dense table over two distinct variables: `scores[a * d + b]` is the score of
 * `(variables[0] = a, variables[1] = b)` where `d = domainSizes[variables[1]]`.
 */
export interface PairwiseFactor {
  readonly kind: "pairwise";
  readonly variables: readonly [number, number];
  readonly scores: Float64Array;
}

/**
 * A sparse higher-order factor in the pattern form of Qian & Liu (2014, §2.1): a factor `c` over a
 * tuple of distinct variables lists some joint assignments `c[s]` (patterns), each with a score
 * `φ_c[s]`; every unlisted assignment scores `defaultScore` (usually 0).
 *
 * `patterns` is flat: pattern p assigns `patterns[p * arity + j]` to `variables[j]`;
 * `scores[p]` is its score. Patterns are distinct.
 */
export interface PatternFactor {
  readonly kind: "pattern";
  readonly variables: Int32Array;
  readonly patterns: Int32Array;
  readonly scores: Float64Array;
  readonly defaultScore: number;
}

export function unaryFactor(variable: number, scores: ArrayLike<number>): UnaryFactor {
  return { kind: "unary", variable, scores: Float64Array.from(scores) };
}

/** `scores` row-major: the entry for (a, b) sits at `a * domain(second) + b`. */
export function pairwiseFactor(
  first: number,
  second: number,
  scores: ArrayLike<number>,
): PairwiseFactor {
  return { kind: "pairwise", variables: [first, second], scores: Float64Array.from(scores) };
}

export interface PatternSpec {
  readonly variables: ArrayLike<number>;
  readonly patterns: ReadonlyArray<{
    readonly assignment: ArrayLike<number>;
    readonly score: number;
  }>;
  /** Score of every assignment not listed; 0 when absent. */
  readonly defaultScore?: number;
}

/** Builds a pattern factor from `{ assignment, score }` entries (checked by `validateFactorGraph`). */
export function patternFactor(spec: PatternSpec): PatternFactor {
  const arity = spec.variables.length;
  const patterns = new Int32Array(arity * spec.patterns.length);
  const scores = new Float64Array(spec.patterns.length);
  spec.patterns.forEach((entry, p) => {
    if (entry.assignment.length !== arity) {
      throw new ProblemValidationError(
        `pattern.patterns[${p}].assignment`,
        `expected ${arity} values (one per variable), got ${entry.assignment.length}`,
      );
    }
    for (let j = 0; j < arity; j++) patterns[p * arity + j] = entry.assignment[j]!;
    scores[p] = entry.score;
  });
  return {
    kind: "pattern",
    variables: Int32Array.from(spec.variables),
    patterns,
    scores,
    defaultScore: spec.defaultScore ?? 0,
  };
}

/** Builds and validates a factor graph. */
export function factorGraph(
  domainSizes: ArrayLike<number>,
  factors: readonly Factor[],
  path = "factorGraph",
): FactorGraph {
  const graph = { domainSizes: Int32Array.from(domainSizes), factors };
  validateFactorGraph(graph, path);
  return graph;
}

function checkScore(x: number, path: string): void {
  if (Number.isNaN(x) || x === Number.POSITIVE_INFINITY) {
    throw new ProblemValidationError(path, `expected a finite score or −∞, got ${x}`);
  }
}

function checkVariable(graph: FactorGraph, v: number, path: string): void {
  const count = graph.domainSizes.length;
  if (!Number.isInteger(v) || v < 0 || v >= count) {
    throw new ProblemValidationError(path, `expected a variable id in 0..${count - 1}, got ${v}`);
  }
}

/**
 * Throws a ProblemValidationError whose `path` names the offending field (e.g.
 * `factorGraph.factors[3].patterns[5]`) when the graph is malformed.
 */
export function validateFactorGraph(graph: FactorGraph, path = "factorGraph"): void {
  const { domainSizes, factors } = graph;
  if (domainSizes.length < 1) {
    throw new ProblemValidationError(
      `${path}.domainSizes`,
      "expected at least one variable (an empty graph has nothing to label)",
    );
  }
  for (let v = 0; v < domainSizes.length; v++) {
    const d = domainSizes[v]!;
    if (d < 1) {
      throw new ProblemValidationError(
        `${path}.domainSizes[${v}]`,
        `expected a domain size ≥ 1, got ${d}`,
      );
    }
  }
  factors.forEach((factor, f) => {
    const at = `${path}.factors[${f}]`;
    switch (factor.kind) {
      case "unary": {
        checkVariable(graph, factor.variable, `${at}.variable`);
        const d = domainSizes[factor.variable]!;
        if (factor.scores.length !== d) {
          throw new ProblemValidationError(
            `${at}.scores`,
            `expected length ${d} (domain of variable ${factor.variable}), got ${factor.scores.length}`,
          );
        }
        for (let k = 0; k < factor.scores.length; k++)
          checkScore(factor.scores[k]!, `${at}.scores[${k}]`);
        return;
      }
      case "pairwise": {
        const [a, b] = factor.variables;
        checkVariable(graph, a, `${at}.variables[0]`);
        checkVariable(graph, b, `${at}.variables[1]`);
        if (a === b) {
          throw new ProblemValidationError(
            `${at}.variables`,
            `expected two distinct variables, got ${a} twice`,
          );
        }
        const size = domainSizes[a]! * domainSizes[b]!;
        if (factor.scores.length !== size) {
          throw new ProblemValidationError(
            `${at}.scores`,
            `expected length ${size} (${domainSizes[a]}×${domainSizes[b]}), got ${factor.scores.length}`,
          );
        }
        for (let k = 0; k < factor.scores.length; k++)
          checkScore(factor.scores[k]!, `${at}.scores[${k}]`);
        return;
      }
      case "pattern": {
        validatePatternFactor(graph, factor, at);
        return;
      }
      default: {
        const kind = (factor as { kind?: unknown }).kind;
        throw new ProblemValidationError(
          `${at}.kind`,
          `expected "unary", "pairwise" or "pattern", got ${JSON.stringify(kind)}`,
        );
      }
    }
  });
}

function validatePatternFactor(graph: FactorGraph, factor: PatternFactor, at: string): void {
  const { variables, patterns, scores } = factor;
  const arity = variables.length;
  if (arity < 1) {
    throw new ProblemValidationError(`${at}.variables`, "expected at least one variable");
  }
  const seenVariables = new Set<number>();
  for (let j = 0; j < arity; j++) {
    const v = variables[j]!;
    checkVariable(graph, v, `${at}.variables[${j}]`);
    if (seenVariables.has(v)) {
      throw new ProblemValidationError(
        `${at}.variables[${j}]`,
        `variable ${v} appears twice in one factor`,
      );
    }
    seenVariables.add(v);
  }
  if (patterns.length !== arity * scores.length) {
    throw new ProblemValidationError(
      `${at}.patterns`,
      `expected ${scores.length} patterns × ${arity} variables = ${arity * scores.length} values, got ${patterns.length}`,
    );
  }
  const seenPatterns = new Set<string>();
  for (let p = 0; p < scores.length; p++) {
    for (let j = 0; j < arity; j++) {
      const x = patterns[p * arity + j]!;
      const d = graph.domainSizes[variables[j]!]!;
      if (x < 0 || x >= d) {
        throw new ProblemValidationError(
          `${at}.patterns[${p}][${j}]`,
          `expected a value in 0..${d - 1} for variable ${variables[j]}, got ${x}`,
        );
      }
    }
    const key = patterns.subarray(p * arity, (p + 1) * arity).join(",");
    if (seenPatterns.has(key)) {
      throw new ProblemValidationError(
        `${at}.patterns[${p}]`,
        `pattern (${key}) is listed twice; give each assignment one score`,
      );
    }
    seenPatterns.add(key);
    checkScore(scores[p]!, `${at}.scores[${p}]`);
  }
  checkScore(factor.defaultScore, `${at}.defaultScore`);
}

/** The score one factor gives a (valid) assignment of all the graph's variables. */
export function factorScore(
  factor: Factor,
  assignment: ArrayLike<number>,
  domainSizes: ArrayLike<number>,
): number {
  switch (factor.kind) {
    case "unary":
      return factor.scores[assignment[factor.variable]!]!;
    case "pairwise": {
      const [a, b] = factor.variables;
      return factor.scores[assignment[a]! * domainSizes[b]! + assignment[b]!]!;
    }
    case "pattern": {
      const { variables, patterns, scores } = factor;
      const arity = variables.length;
      for (let p = 0; p < scores.length; p++) {
        let match = true;
        for (let j = 0; j < arity; j++) {
          if (patterns[p * arity + j] !== assignment[variables[j]!]) {
            match = false;
            break;
          }
        }
        if (match) return scores[p]!;
      }
      return factor.defaultScore;
    }
  }
}

/**
 * Σ over factors of the factor score; −∞ when a factor forbids the assignment. Throws a
 * ProblemValidationError when the assignment does not fit the domains.
 */
export function scoreAssignment(graph: FactorGraph, assignment: ArrayLike<number>): number {
  const { domainSizes, factors } = graph;
  if (assignment.length !== domainSizes.length) {
    throw new ProblemValidationError(
      "assignment",
      `expected ${domainSizes.length} values (one per variable), got ${assignment.length}`,
    );
  }
  for (let v = 0; v < assignment.length; v++) {
    const x = assignment[v]!;
    if (!Number.isInteger(x) || x < 0 || x >= domainSizes[v]!) {
      throw new ProblemValidationError(
        `assignment[${v}]`,
        `expected a value in 0..${domainSizes[v]! - 1}, got ${x}`,
      );
    }
  }
  let total = 0;
  for (const factor of factors) total += factorScore(factor, assignment, domainSizes);
  return total;
}

/**
 * The same problem as a factor graph: one variable per position (domain L), one unary factor per
 * position (start and end folded into the first and last), one pairwise factor per adjacent pair
 * (forbidden transitions as −∞). `scoreAssignment(chainToFactorGraph(s), y) === scoreLabelling(s, y)`
 * up to rounding; used to cross-check factor-graph solvers against chain ones.
 */
export function chainToFactorGraph(scores: ChainScores): FactorGraph {
  validateChainScores(scores);
  const { n, L, unary, transition, start, end, allowed } = scores;
  const factors: Factor[] = [];
  for (let i = 0; i < n; i++) {
    const row = unary.slice(i * L, (i + 1) * L);
    for (let t = 0; t < L; t++) {
      if (i === 0 && start !== undefined) row[t] = row[t]! + start[t]!;
      if (i === n - 1 && end !== undefined) row[t] = row[t]! + end[t]!;
    }
    factors.push({ kind: "unary", variable: i, scores: row });
  }
  for (let i = 1; i < n; i++) {
    const offset = transitionOffset(scores, i);
    const table = transition.slice(offset, offset + L * L);
    if (allowed !== undefined) {
      for (let k = 0; k < L * L; k++) if (allowed[k] === 0) table[k] = Number.NEGATIVE_INFINITY;
    }
    factors.push({ kind: "pairwise", variables: [i - 1, i], scores: table });
  }
  return { domainSizes: new Int32Array(n).fill(L), factors };
}
