import { ProblemValidationError } from "@lagrange/core";
import { GrowableFloat64, GrowableInt32, GrowableUint8 } from "./growable.js";

/**
 * How a stored term was given: `monomial` (`a·x_v1·…·x_vk`, from `addMonomial` or
 * `addQuadratic`) or `pattern` (`a·[x_v1 = b_1, …, x_vk = b_k]`, from `addPattern`).
 */
export type TermKind = "monomial" | "pattern";

/** One stored term of order ≥ 2, as it was added. */
export interface PseudoBooleanTerm {
  /** 0-based, in the order terms of order ≥ 2 were added (constants and linear terms are summed). */
  readonly index: number;
  readonly kind: TermKind;
  readonly variables: readonly number[];
  /** The value each variable must take for the term to fire: all 1 for a monomial. */
  readonly values: readonly number[];
  readonly coefficient: number;
}

let storeOf: (f: PseudoBooleanFunction) => TermStore;

/** The flat term store of `f`, for the reductions in this folder (not exported by the package). */
export function termStore(f: PseudoBooleanFunction): TermStore {
  return storeOf(f);
}

const KIND_MONOMIAL = 0;
const KIND_PATTERN = 1;

/**
 * A pseudo-Boolean function of binary variables `x_0 … x_{n−1}` ∈ {0, 1}, read as an **energy to
 * minimise**:
 *
 *     E(x) = c + Σ_i a_i·x_i + Σ_terms a_t·Π_{v∈t} [x_v = b_{t,v}]
 *
 * A monomial is a term whose values are all 1 (`a·x_u·x_v·x_w`); a pattern potential
 * ("these variables take these values") keeps its values, so `a·[x_3 = 1, x_7 = 0, x_9 = 1]` is
 * one sparse term, never expanded into 2^k monomials. Constants and linear terms are summed as they
 * come; terms of order ≥ 2 are stored in flat typed arrays in the order they are added.
 *
 * To maximise an objective F, build F and call {@link PseudoBooleanFunction.negated} (or add −F's
 * coefficients): every reduction here minimises.
 */
export class PseudoBooleanFunction {
  #numVariables: number;
  #constant = 0;
  readonly #linear = new GrowableFloat64();
  readonly #start = new GrowableInt32();
  readonly #vars = new GrowableInt32();
  readonly #values = new GrowableUint8();
  readonly #coefficients = new GrowableFloat64();
  readonly #kinds = new GrowableUint8();

  constructor(numVariables = 0) {
    if (!Number.isSafeInteger(numVariables) || numVariables < 0) {
      throw new ProblemValidationError(
        "numVariables",
        `must be a non-negative integer, got ${numVariables}`,
      );
    }
    this.#numVariables = numVariables;
    this.#linear.resize(numVariables);
    this.#start.push(0);
  }

  get numVariables(): number {
    return this.#numVariables;
  }

  /** Adds `count` variables and returns the index of the first. */
  addVariables(count: number): number {
    if (!Number.isSafeInteger(count) || count < 0) {
      throw new ProblemValidationError(
        "addVariables",
        `count must be a non-negative integer, got ${count}`,
      );
    }
    const first = this.#numVariables;
    this.#numVariables += count;
    this.#linear.resize(this.#numVariables);
    return first;
  }

  get constant(): number {
    return this.#constant;
  }

  /** The summed coefficient of `x_i` (linear terms and order-1 patterns). */
  linearCoefficient(i: number): number {
    this.#checkVariable("linearCoefficient", i);
    return this.#linear.get(i);
  }

  /** The number of stored terms of order ≥ 2. */
  get numTerms(): number {
    return this.#start.length - 1;
  }

  /** Stored term `index` (0-based), as added. */
  term(index: number): PseudoBooleanTerm {
    if (!Number.isInteger(index) || index < 0 || index >= this.numTerms) {
      throw new ProblemValidationError("term", `no term ${index} (there are ${this.numTerms})`);
    }
    const from = this.#start.get(index);
    const to = this.#start.get(index + 1);
    const variables: number[] = [];
    const values: number[] = [];
    for (let p = from; p < to; p++) {
      variables.push(this.#vars.get(p));
      values.push(this.#values.get(p));
    }
    return {
      index,
      kind: this.#kinds.get(index) === KIND_PATTERN ? "pattern" : "monomial",
      variables,
      values,
      coefficient: this.#coefficients.get(index),
    };
  }

  addConstant(c: number): this {
    checkCoefficient("addConstant", c);
    this.#constant += c;
    return this;
  }

  /** Adds `a·x_i`. */
  addLinear(i: number, a: number): this {
    this.#checkVariable("addLinear", i);
    checkCoefficient("addLinear", a);
    this.#linear.add(i, a);
    return this;
  }

  /** Adds `a·x_i·x_j` (i ≠ j). */
  addQuadratic(i: number, j: number, a: number): this {
    this.#checkVariable("addQuadratic", i);
    this.#checkVariable("addQuadratic", j);
    if (i === j) {
      throw new ProblemValidationError(
        "addQuadratic",
        `the two variables must differ, got x${i} twice (x·x = x: use addLinear)`,
      );
    }
    checkCoefficient("addQuadratic", a);
    if (a === 0) return this;
    this.#vars.push(i);
    this.#vars.push(j);
    this.#values.push(1);
    this.#values.push(1);
    this.#store(a, KIND_MONOMIAL);
    return this;
  }

  /** Adds `a·Π_{v ∈ variables} x_v` over distinct variables; order 0 and 1 are summed at once. */
  addMonomial(variables: ArrayLike<number>, a: number): this {
    this.#checkVariables("addMonomial", variables, undefined);
    checkCoefficient("addMonomial", a);
    const k = variables.length;
    if (k === 0) this.#constant += a;
    else if (k === 1) this.#linear.add(variables[0]!, a);
    else if (a !== 0) {
      for (let r = 0; r < k; r++) {
        this.#vars.push(variables[r]!);
        this.#values.push(1);
      }
      this.#store(a, KIND_MONOMIAL);
    }
    return this;
  }

  /**
   * Adds the sparse pattern potential `a·[x_{v_1} = b_1, …, x_{v_k} = b_k]` over distinct
   * variables, values 0 or 1: `a` when every listed variable takes its value, else 0.
   */
  addPattern(variables: ArrayLike<number>, values: ArrayLike<number>, a: number): this {
    this.#checkVariables("addPattern", variables, values);
    checkCoefficient("addPattern", a);
    const k = variables.length;
    if (k === 0) this.#constant += a;
    else if (k === 1) {
      if (values[0] === 1) this.#linear.add(variables[0]!, a);
      else {
        this.#constant += a;
        this.#linear.add(variables[0]!, -a);
      }
    } else if (a !== 0) {
      for (let r = 0; r < k; r++) {
        this.#vars.push(variables[r]!);
        this.#values.push(values[r]!);
      }
      this.#store(a, KIND_PATTERN);
    }
    return this;
  }

  /** E(x); an entry of `x` counts as 1 when it is non-zero. */
  evaluate(x: ArrayLike<number>): number {
    if (x.length < this.#numVariables) {
      throw new ProblemValidationError(
        "evaluate",
        `the assignment has ${x.length} entries, the function ${this.#numVariables} variables`,
      );
    }
    let total = this.#constant;
    const linear = this.#linear.view();
    for (let i = 0; i < this.#numVariables; i++) if (x[i] !== 0) total += linear[i]!;
    const start = this.#start.view();
    const vars = this.#vars.view();
    const values = this.#values.view();
    const coefficients = this.#coefficients.view();
    for (let t = 0; t < this.numTerms; t++) {
      let fires = true;
      for (let p = start[t]!; p < start[t + 1]! && fires; p++) {
        fires = (x[vars[p]!] !== 0 ? 1 : 0) === values[p];
      }
      if (fires) total += coefficients[t]!;
    }
    return total;
  }

  /** −E: turns an objective to maximise into an energy to minimise, and back. */
  negated(): PseudoBooleanFunction {
    const out = new PseudoBooleanFunction(this.#numVariables);
    out.#constant = -this.#constant;
    for (let i = 0; i < this.#numVariables; i++) out.#linear.set(i, -this.#linear.get(i));
    for (let p = 0; p < this.#vars.length; p++) {
      out.#vars.push(this.#vars.get(p));
      out.#values.push(this.#values.get(p));
    }
    for (let t = 0; t < this.numTerms; t++) {
      out.#start.push(this.#start.get(t + 1));
      out.#coefficients.push(-this.#coefficients.get(t));
      out.#kinds.push(this.#kinds.get(t));
    }
    return out;
  }

  static {
    storeOf = (f) => ({
      numVariables: f.#numVariables,
      constant: f.#constant,
      linear: f.#linear.view(),
      numTerms: f.numTerms,
      start: f.#start.view(),
      vars: f.#vars.view(),
      values: f.#values.view(),
      coefficients: f.#coefficients.view(),
    });
  }

  #store(a: number, kind: number): void {
    this.#start.push(this.#vars.length);
    this.#coefficients.push(a);
    this.#kinds.push(kind);
  }

  #checkVariable(where: string, i: number): void {
    if (!Number.isInteger(i) || i < 0 || i >= this.#numVariables) {
      throw new ProblemValidationError(
        where,
        `${i} is not a variable (the function has ${this.#numVariables}${
          this.#numVariables > 0 ? `: 0 … ${this.#numVariables - 1}` : ""
        }; add them with addVariables)`,
      );
    }
  }

  #checkVariables(
    where: string,
    variables: ArrayLike<number>,
    values: ArrayLike<number> | undefined,
  ): void {
    const k = variables.length;
    if (values !== undefined && values.length !== k) {
      throw new ProblemValidationError(
        where,
        `${k} variables but ${values.length} values (one value per variable)`,
      );
    }
    for (let r = 0; r < k; r++) {
      this.#checkVariable(`${where} variables[${r}]`, variables[r]!);
      for (let s = 0; s < r; s++) {
        if (variables[s] === variables[r]) {
          throw new ProblemValidationError(
            where,
            `x${variables[r]} appears twice (variables[${s}] and variables[${r}]); a term's variables must be distinct`,
          );
        }
      }
      if (values !== undefined && values[r] !== 0 && values[r] !== 1) {
        throw new ProblemValidationError(
          `${where} values[${r}]`,
          `must be 0 or 1, got ${values[r]}`,
        );
      }
    }
  }
}

/** Read-only views of a function's flat term store; valid until the function changes. */
export interface TermStore {
  readonly numVariables: number;
  readonly constant: number;
  /** Length ≥ numVariables. */
  readonly linear: Float64Array;
  readonly numTerms: number;
  /** Term t's variables are vars[start[t] … start[t+1]−1]. */
  readonly start: Int32Array;
  readonly vars: Int32Array;
  /** 1: the variable must be 1 for the term to fire; 0: it must be 0. */
  readonly values: Uint8Array;
  readonly coefficients: Float64Array;
}

function checkCoefficient(where: string, a: number): void {
  if (typeof a !== "number" || !Number.isFinite(a)) {
    throw new ProblemValidationError(where, `the coefficient must be a finite number, got ${a}`);
  }
}

/** Writes a term for messages: `5·x1·x4·x7`, `−3·[x2=1, x5=0, x6=1]`. */
export function formatTerm(
  term: Pick<PseudoBooleanTerm, "kind" | "variables" | "values" | "coefficient">,
  name: (variable: number) => string = defaultName,
): string {
  const c = formatNumber(term.coefficient);
  if (term.kind === "monomial") return `${c}·${term.variables.map(name).join("·")}`;
  const parts = term.variables.map((v, r) => `${name(v)}=${term.values[r]}`);
  return `${c}·[${parts.join(", ")}]`;
}

export function defaultName(variable: number): string {
  return `x${variable}`;
}

export function formatNumber(a: number): string {
  return a > 0 ? `+${a}` : a < 0 ? `−${-a}` : "0";
}
