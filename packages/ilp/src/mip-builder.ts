import type { Highs, ModelData } from "highs";

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
