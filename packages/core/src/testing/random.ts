import type { ChainScores } from "../chain.js";
import { type LinearConstraint, linearConstraint } from "../constraints.js";
import type { Factor, FactorGraph } from "../factor-graph.js";
import { createRandom, type Random } from "../random.js";

/** A seed or a Random; generators accept either. */
export type Seed = number | Random;

function toRandom(seed: Seed): Random {
  return typeof seed === "number" ? createRandom(seed) : seed;
}

export interface RandomChainOptions {
  readonly n: number;
  readonly L: number;
  /** (n−1)·L·L transitions instead of one shared L·L block. Default false. */
  readonly positionSpecific?: boolean;
  /** Random start and end scores. Default false. */
  readonly startEnd?: boolean;
  /** Probability that a transition is forbidden by the `allowed` mask; 0 = no mask. Default 0. */
  readonly forbiddenFraction?: number;
  /** Scores are uniform in [−scale, scale). Default 2. */
  readonly scale?: number;
  /** Round scores to integers (to provoke ties). Default false. */
  readonly integer?: boolean;
}

/** Random chain scores; deterministic for a given seed and options. */
export function randomChainScores(seed: Seed, options: RandomChainOptions): ChainScores {
  const random = toRandom(seed);
  const { n, L } = options;
  const scale = options.scale ?? 2;
  const draw = (): number => {
    const x = random.float(-scale, scale);
    return options.integer ? Math.round(x) : x;
  };
  const fill = (length: number): Float64Array => {
    const out = new Float64Array(length);
    for (let k = 0; k < length; k++) out[k] = draw();
    return out;
  };
  const LL = L * L;
  const scores: {
    n: number;
    L: number;
    unary: Float64Array;
    transition: Float64Array;
    start?: Float64Array;
    end?: Float64Array;
    allowed?: Uint8Array;
  } = {
    n,
    L,
    unary: fill(n * L),
    transition: fill(options.positionSpecific && n > 2 ? (n - 1) * LL : LL),
  };
  if (options.startEnd) {
    scores.start = fill(L);
    scores.end = fill(L);
  }
  const forbidden = options.forbiddenFraction ?? 0;
  if (forbidden > 0) {
    const allowed = new Uint8Array(LL);
    for (let k = 0; k < LL; k++) allowed[k] = random.next() < forbidden ? 0 : 1;
    scores.allowed = allowed;
  }
  return scores;
}

export interface RandomConstraintOptions {
  /** Number of constraints. Default 2. */
  readonly count?: number;
  /** Probability that a constraint is hard (no penalty). Default 0.5. */
  readonly hardFraction?: number;
  /** Soft penalties are uniform in (0, maxPenalty]. Default 3. */
  readonly maxPenalty?: number;
}

/**
 * Random constraints over the indicator vector, drawn from the shapes real decoders use:
 * "label t at most b times", "label t at least b times" (−count ≤ −b), and a sparse rule with
 * coefficients ±1 on a few random indicators ("if (i, t) then (j, u)"-like).
 */
export function randomConstraints(
  seed: Seed,
  n: number,
  L: number,
  options: RandomConstraintOptions = {},
): LinearConstraint[] {
  const random = toRandom(seed);
  const count = options.count ?? 2;
  const hardFraction = options.hardFraction ?? 0.5;
  const maxPenalty = options.maxPenalty ?? 3;
  const out: LinearConstraint[] = [];
  for (let k = 0; k < count; k++) {
    const shape = random.int(0, 2);
    const terms: Array<[number, number]> = [];
    let rhs: number;
    let name: string;
    if (shape < 2) {
      const label = random.int(0, L - 1);
      for (let i = 0; i < n; i++) terms.push([i * L + label, shape === 0 ? 1 : -1]);
      const bound = random.int(0, Math.min(2, n));
      rhs = shape === 0 ? bound : -bound;
      name = shape === 0 ? `label ${label} at most ${bound}×` : `label ${label} at least ${bound}×`;
    } else {
      const size = random.int(1, Math.min(3, n * L));
      for (let e = 0; e < size; e++) terms.push([random.int(0, n * L - 1), random.bool() ? 1 : -1]);
      rhs = random.int(-1, 1);
      name = "sparse rule";
    }
    const hard = random.next() < hardFraction;
    out.push(
      linearConstraint(
        hard
          ? { terms, rhs, name }
          : { terms, rhs, name, penalty: random.float(0, maxPenalty) || maxPenalty },
      ),
    );
  }
  return out;
}

export interface RandomFactorGraphOptions {
  readonly variables: number;
  /** Domain sizes are uniform in [1, maxDomain]. Default 3. */
  readonly maxDomain?: number;
  /** Number of pairwise factors. Default `variables − 1`. */
  readonly pairwise?: number;
  /** Number of pattern factors. Default 2. */
  readonly patterns?: number;
  /** Largest arity of a pattern factor. Default 3. */
  readonly maxArity?: number;
  /** Probability that a score is −∞. Default 0. */
  readonly forbiddenFraction?: number;
  /** Scores are uniform in [−scale, scale). Default 2. */
  readonly scale?: number;
}

/**
 * A random factor graph: a unary factor per variable, random pairwise factors, and pattern
 * factors listing a few random distinct assignments with a default score of 0 or a random one.
 */
export function randomFactorGraph(seed: Seed, options: RandomFactorGraphOptions): FactorGraph {
  const random = toRandom(seed);
  const V = options.variables;
  const maxDomain = options.maxDomain ?? 3;
  const scale = options.scale ?? 2;
  const forbidden = options.forbiddenFraction ?? 0;
  const score = (): number =>
    forbidden > 0 && random.next() < forbidden
      ? Number.NEGATIVE_INFINITY
      : random.float(-scale, scale);
  const domainSizes = new Int32Array(V);
  for (let v = 0; v < V; v++) domainSizes[v] = random.int(1, maxDomain);
  const factors: Factor[] = [];
  for (let v = 0; v < V; v++) {
    factors.push({
      kind: "unary",
      variable: v,
      scores: Float64Array.from({ length: domainSizes[v]! }, score),
    });
  }
  if (V >= 2) {
    const pairs = options.pairwise ?? V - 1;
    for (let f = 0; f < pairs; f++) {
      const a = random.int(0, V - 1);
      let b = random.int(0, V - 2);
      if (b >= a) b++;
      factors.push({
        kind: "pairwise",
        variables: [a, b],
        scores: Float64Array.from({ length: domainSizes[a]! * domainSizes[b]! }, score),
      });
    }
  }
  const patternCount = options.patterns ?? 2;
  const maxArity = Math.min(options.maxArity ?? 3, V);
  for (let f = 0; f < patternCount; f++) {
    const arity = random.int(1, maxArity);
    const pool = Array.from({ length: V }, (_, v) => v);
    const variables = new Int32Array(arity);
    for (let j = 0; j < arity; j++) {
      const at = random.int(j, V - 1);
      [pool[j], pool[at]] = [pool[at]!, pool[j]!];
      variables[j] = pool[j]!;
    }
    let space = 1;
    for (const v of variables) space *= domainSizes[v]!;
    const wanted = random.int(1, Math.min(4, space));
    const seen = new Set<string>();
    const patterns: number[] = [];
    const scores: number[] = [];
    for (let attempt = 0; attempt < 4 * wanted && scores.length < wanted; attempt++) {
      const assignment = Array.from(variables, (v) => random.int(0, domainSizes[v]! - 1));
      const key = assignment.join(",");
      if (seen.has(key)) continue;
      seen.add(key);
      patterns.push(...assignment);
      scores.push(score());
    }
    factors.push({
      kind: "pattern",
      variables,
      patterns: Int32Array.from(patterns),
      scores: Float64Array.from(scores),
      defaultScore: random.bool() ? 0 : random.float(-scale, scale),
    });
  }
  return { domainSizes, factors };
}
