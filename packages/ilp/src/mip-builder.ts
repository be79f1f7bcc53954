import type { Highs, Model, ModelData } from "highs";
import { highsRuntime } from "./highs-runtime.js";

/**
 * A maximisation MIP assembled column by column and entry by entry, then handed to HiGHS as CSR.
 * Its arrays grow and are kept between problems (one builder per solver), so building a sentence's
 * ILP allocates only when it is the largest so far.
 */
export class MipBuilder {
  columns = 0;
  rows = 0;
  #entries = 0;
  #cost = new Float64Array(256);
  #lower = new Float64Array(256);
  #upper = new Float64Array(256);
  #integer = new Int32Array(256);
  #rowLower = new Float64Array(256);
  #rowUpper = new Float64Array(256);
  #entryRow = new Int32Array(1024);
  #entryColumn = new Int32Array(1024);
  #entryValue = new Float64Array(1024);

  /** Matrix entries so far. */
  get entries(): number {
    return this.#entries;
  }

  reset(): this {
    this.columns = 0;
    this.rows = 0;
    this.#entries = 0;
    return this;
  }

  /** Adds a column; returns its index. */
  column(cost: number, lower: number, upper: number, integer: boolean): number {
    const j = this.columns++;
    if (j === this.#cost.length) {
      this.#cost = grow(this.#cost);
      this.#lower = grow(this.#lower);
      this.#upper = grow(this.#upper);
      this.#integer = grow(this.#integer);
    }
    this.#cost[j] = cost;
    this.#lower[j] = lower;
    this.#upper[j] = upper;
    this.#integer[j] = integer ? 1 : 0;
    return j;
  }

  /** Adds a row `lower ≤ Σ entries ≤ upper`; returns its index. */
  row(lower: number, upper: number): number {
    const r = this.rows++;
    if (r === this.#rowLower.length) {
      this.#rowLower = grow(this.#rowLower);
      this.#rowUpper = grow(this.#rowUpper);
    }
    this.#rowLower[r] = lower;
    this.#rowUpper[r] = upper;
    return r;
  }

  entry(row: number, column: number, value: number): void {
    const k = this.#entries++;
    if (k === this.#entryRow.length) {
      this.#entryRow = grow(this.#entryRow);
      this.#entryColumn = grow(this.#entryColumn);
      this.#entryValue = grow(this.#entryValue);
    }
    this.#entryRow[k] = row;
    this.#entryColumn[k] = column;
    this.#entryValue[k] = value;
  }

  /** The model as HiGHS's structured input (entries sorted into CSR by a counting sort). */
  modelData(highs: Highs): ModelData {
    const { columns, rows } = this;
    const count = this.#entries;
    const starts = new Int32Array(rows + 1);
    for (let k = 0; k < count; k++) starts[this.#entryRow[k]! + 1]!++;
    for (let r = 0; r < rows; r++) starts[r + 1]! += starts[r]!;
    const next = starts.slice(0, rows);
    const indices = new Int32Array(count);
    const values = new Float64Array(count);
    for (let k = 0; k < count; k++) {
      const at = next[this.#entryRow[k]!]!++;
      indices[at] = this.#entryColumn[k]!;
      values[at] = this.#entryValue[k]!;
    }
    const infinity = highs.infinity;
    const clamp = (x: number) => (x === Infinity ? infinity : x === -Infinity ? -infinity : x);
    return {
      numCols: columns,
      numRows: rows,
      sense: highs.constants.objectiveSense.maximize,
      colCost: this.#cost.subarray(0, columns),
      colLower: this.#lower.subarray(0, columns),
      colUpper: this.#upper.subarray(0, columns),
      rowLower: Float64Array.from(this.#rowLower.subarray(0, rows), clamp),
      rowUpper: Float64Array.from(this.#rowUpper.subarray(0, rows), clamp),
      matrix: { format: "csr", numRows: rows, numCols: columns, starts, indices, values },
      integrality: this.#integer.subarray(0, columns),
    };
  }
}

function grow<T extends Float64Array | Int32Array>(array: T): T {
  const bigger = new (array.constructor as new (length: number) => T)(array.length * 2);
  bigger.set(array);
  return bigger;
}

/** What one HiGHS run ended with. */
export interface MipOutcome {
  readonly status: "optimal" | "time-limit" | "infeasible";
  /** Column values of the best solution found; null when there is none. */
  readonly values: Float64Array | null;
  /** HiGHS's best proven bound on the (maximised) objective; +∞ when it has none. */
  readonly bound: number;
}

/** The limits of one run. */
export interface MipLimits {
  readonly timeLimitMs?: number;
  readonly mipGap?: number;
  /**
   * Skip the steps of HiGHS that do not look at the clock (default false): presolve, which runs
   * for seconds on some models whatever the time limit, and the feasibility-jump heuristic (about
   * a second on a 500,000-entry model). What is left checks the limit as it goes.
   */
  readonly clockedOnly?: boolean;
}

/**
 * One native HiGHS instance, reused run after run (passModel replaces the model), released by
 * `dispose` or, failing that, when its owner is garbage-collected.
 */
export class MipSolver {
  #model: Model | undefined;

  dispose(): void {
    this.#model?.dispose();
    this.#model = undefined;
  }

  run(builder: MipBuilder, limits: MipLimits): MipOutcome {
    this.load(builder);
    return this.#solve(limits);
  }

  /** Hands HiGHS the builder's model, for {@link rerun}s. */
  load(builder: MipBuilder): void {
    const runtime = highsRuntime();
    if (this.#model === undefined || this.#model.disposed) {
      this.#model = runtime.createModel();
      this.#model.options.set({ output_flag: false });
      finalizer.register(this, this.#model);
    }
    this.#model.passModel(builder.modelData(runtime));
  }

  /**
   * Solves the loaded model again with new upper bounds on some of its rows (a row bounded by +∞
   * drops out): `rows` in increasing order, `upper` one bound per row. One model serves many
   * questions about subsets of its rows (a conflict search) without being rebuilt.
   */
  rerun(rows: Int32Array, upper: Float64Array, limits: MipLimits): MipOutcome {
    const model = this.#model;
    if (model === undefined || model.disposed) throw new Error("rerun before a model is loaded");
    if (rows.length > 0) {
      const infinity = highsRuntime().infinity;
      model.changeRowsBounds(
        { kind: "set", indices: rows },
        new Float64Array(rows.length).fill(-infinity),
        upper.map((u) => (u === Infinity ? infinity : u)),
      );
    }
    return this.#solve(limits);
  }

  #solve(limits: MipLimits): MipOutcome {
    const runtime = highsRuntime();
    const model = this.#model!;
    model.options.set({
      // HiGHS refuses an infinite option value: "no limit" is a century.
      time_limit: limits.timeLimitMs === undefined ? 3.2e9 : limits.timeLimitMs / 1000,
      mip_rel_gap: limits.mipGap ?? 1e-9,
      mip_abs_gap: 1e-7,
      presolve: limits.clockedOnly === true ? "off" : "choose",
      mip_heuristic_run_feasibility_jump: limits.clockedOnly !== true,
      // Symmetry detection does not look at the clock either, and chain ILPs have none to use.
      mip_detect_symmetry: false,
    });
    model.run();
    const status = model.getModelStatus();
    const codes = runtime.constants.modelStatus;
    if (status === codes.infeasible)
      return { status: "infeasible", values: null, bound: -Infinity };
    const values =
      Number(model.info.get("primal_solution_status")) === 2
        ? Float64Array.from(model.getSolution().colValue)
        : null;
    if (status === codes.optimal) {
      return { status: "optimal", values, bound: Number(model.getObjectiveValue()) };
    }
    if (
      status === codes.timeLimit ||
      status === codes.interrupted ||
      status === codes.solutionLimit
    ) {
      const bound = Number(model.info.get("mip_dual_bound"));
      return { status: "time-limit", values, bound: Number.isFinite(bound) ? bound : Infinity };
    }
    throw new Error(`HiGHS ended with model status ${status}`);
  }
}

const finalizer = new FinalizationRegistry<Model>((model) => {
  if (!model.disposed) model.dispose();
});
