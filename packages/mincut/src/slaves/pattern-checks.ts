import { ProblemValidationError } from "@lagrange/core";
import type { PatternFactor } from "@lagrange/core/factor-graph";

export function checkLabelCount(L: number, path: string): void {
  if (!Number.isInteger(L) || L < 1) {
    throw new ProblemValidationError(`${path}.L`, `expected an integer ≥ 1, got ${L}`);
  }
}

function checkScore(x: number, path: string): void {
  // −∞ forbids an assignment, as in validateFactorGraph; NaN and +∞ would poison every max.
  if (Number.isNaN(x) || x === Number.POSITIVE_INFINITY) {
    throw new ProblemValidationError(path, `expected a finite score or −∞, got ${x}`);
  }
}

/**
 * Checks one pattern factor whose variables all take L labels: distinct non-negative variables,
 * distinct patterns within 0..L−1, and scores that are finite or −∞.
 */
export function checkPatternFactor(factor: PatternFactor, L: number, at: string): void {
  if (factor?.kind !== "pattern") {
    throw new ProblemValidationError(
      `${at}.kind`,
      `expected a pattern factor, got ${JSON.stringify((factor as { kind?: unknown })?.kind)}`,
    );
  }
  const { variables, patterns, scores } = factor;
  const arity = variables.length;
  if (arity < 1) {
    throw new ProblemValidationError(`${at}.variables`, "expected at least one variable");
  }
  for (let j = 0; j < arity; j++) {
    const v = variables[j]!;
    if (v < 0) {
      throw new ProblemValidationError(
        `${at}.variables[${j}]`,
        `expected a position ≥ 0, got ${v}`,
      );
    }
    for (let i = 0; i < j; i++) {
      if (variables[i] === v) {
        throw new ProblemValidationError(
          `${at}.variables[${j}]`,
          `variable ${v} appears twice in one factor`,
        );
      }
    }
  }
  if (patterns.length !== arity * scores.length) {
    throw new ProblemValidationError(
      `${at}.patterns`,
      `expected ${scores.length} patterns × ${arity} variables = ${arity * scores.length} values, got ${patterns.length}`,
    );
  }
  for (let k = 0; k < patterns.length; k++) {
    const y = patterns[k]!;
    if (y < 0 || y >= L) {
      throw new ProblemValidationError(
        `${at}.patterns[${k}]`,
        `expected a label in 0..${L - 1}, got ${y}`,
      );
    }
  }
  const seen = new Set<string>();
  for (let p = 0; p < scores.length; p++) {
    const key = patterns.subarray(p * arity, (p + 1) * arity).join(", ");
    if (seen.has(key)) {
      throw new ProblemValidationError(
        `${at}.patterns[${p}]`,
        `pattern (${key}) is listed twice; give each assignment one score`,
      );
    }
    seen.add(key);
    checkScore(scores[p]!, `${at}.scores[${p}]`);
  }
  checkScore(factor.defaultScore, `${at}.defaultScore`);
}
