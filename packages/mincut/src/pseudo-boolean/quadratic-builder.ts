import { GrowableFloat64, GrowableInt32 } from "./growable.js";
import { QuadraticPseudoBoolean } from "./quadratic.js";

/** Accumulates the reduced quadratic function; pairs of original variables are merged. */
export class QuadraticBuilder {
  constant: number;
  readonly #n: number;
  readonly #linear: GrowableFloat64;
  readonly #first = new GrowableInt32();
  readonly #second = new GrowableInt32();
  readonly #coefficient = new GrowableFloat64();
  readonly #magnitude = new GrowableFloat64();
  readonly #slotOf = new Map<number, number>();
  numAuxiliary = 0;

  constructor(n: number, constant: number, linear: Float64Array) {
    this.#n = n;
    this.constant = constant;
    this.#linear = new GrowableFloat64(n + 16);
    this.#linear.resize(n);
    this.#linear.view().set(linear.subarray(0, n));
  }

  get numPairs(): number {
    return this.#coefficient.length;
  }
  first(slot: number): number {
    return this.#first.get(slot);
  }
  second(slot: number): number {
    return this.#second.get(slot);
  }
  coefficient(slot: number): number {
    return this.#coefficient.get(slot);
  }
  setCoefficient(slot: number, q: number): void {
    this.#coefficient.set(slot, q);
  }
  magnitude(slot: number): number {
    return this.#magnitude.get(slot);
  }
  isAuxiliaryPair(slot: number): boolean {
    return this.#second.get(slot) >= this.#n;
  }

  newAuxiliary(): number {
    this.#linear.push(0);
    return this.#n + this.numAuxiliary++;
  }

  /** c·x_i·x_j for original i ≠ j (merged per unordered pair). */
  addPair(i: number, j: number, c: number): void {
    if (i > j) [i, j] = [j, i];
    const key = i * this.#n + j;
    let slot = this.#slotOf.get(key);
    if (slot === undefined) {
      slot = this.#coefficient.length;
      this.#slotOf.set(key, slot);
      this.#first.push(i);
      this.#second.push(j);
      this.#coefficient.push(0);
      this.#magnitude.push(0);
    }
    this.#coefficient.add(slot, c);
    this.#magnitude.add(slot, Math.abs(c));
  }

  /** c·ℓ for the literal ℓ = x_v (value 1) or 1 − x_v (value 0). */
  literal(c: number, v: number, value: number): void {
    if (value === 1) this.#linear.add(v, c);
    else {
      this.constant += c;
      this.#linear.add(v, -c);
    }
  }

  /** c·ℓ_i·ℓ_j in x coordinates; j may be an auxiliary (its pairs are never merged). */
  product(c: number, i: number, vi: number, j: number, vj: number): void {
    if (vi === 1 && vj === 0) this.#linear.add(i, c);
    else if (vi === 0 && vj === 1) this.#linear.add(j, c);
    else if (vi === 0 && vj === 0) {
      this.constant += c;
      this.#linear.add(i, -c);
      this.#linear.add(j, -c);
    }
    const q = vi === vj ? c : -c;
    if (j >= this.#n) {
      this.#first.push(i);
      this.#second.push(j);
      this.#coefficient.push(q);
      this.#magnitude.push(Math.abs(q));
    } else this.addPair(i, j, q);
  }

  /** One piece from `forEachPiece`: order ≤ 2, or order ≥ 3 with one polarity. */
  piece(a: number, vs: readonly number[], vals: readonly number[]): void {
    const k = vs.length;
    if (a === 0) return;
    if (k === 0) {
      this.constant += a;
      return;
    }
    if (k === 1) {
      this.literal(a, vs[0]!, vals[0]!);
      return;
    }
    if (k === 2) {
      this.product(a, vs[0]!, vals[0]!, vs[1]!, vals[1]!);
      return;
    }
    const p = vals[0]!; // one polarity; auxiliaries take it too, so their pairs stay ≤ 0
    if (a < 0) {
      // Freedman–Drineas: a·Π ℓ = min_u a·u·(Σ ℓ − k + 1).
      const u = this.newAuxiliary();
      for (let r = 0; r < k; r++) this.product(a, vs[r]!, p, u, p);
      this.literal(a * (1 - k), u, p);
      return;
    }
    // Živný–Jeavons: a·Π ℓ = a·Σ_{r<s} ℓ_r·ℓ_s − a·p(ℓ), with S = Σ ℓ and
    // p = max_y (S − 1)·y (k = 3), p = max_{y0} y0·(2S − 3) + Σ_{j=1}^{k−4} max_{yj} yj·(S − j − 2).
    for (let r = 0; r < k; r++) {
      for (let s = r + 1; s < k; s++) this.product(a, vs[r]!, p, vs[s]!, p);
    }
    if (k === 3) {
      const y = this.newAuxiliary();
      for (let r = 0; r < k; r++) this.product(-a, vs[r]!, p, y, p);
      this.literal(a, y, p);
      return;
    }
    const y0 = this.newAuxiliary();
    for (let r = 0; r < k; r++) this.product(-2 * a, vs[r]!, p, y0, p);
    this.literal(3 * a, y0, p);
    for (let j = 1; j <= k - 4; j++) {
      const y = this.newAuxiliary();
      for (let r = 0; r < k; r++) this.product(-a, vs[r]!, p, y, p);
      this.literal(a * (j + 2), y, p);
    }
  }

  finish(): QuadraticPseudoBoolean {
    let m = 0;
    for (let slot = 0; slot < this.numPairs; slot++) if (this.#coefficient.get(slot) !== 0) m++;
    const pairFirst = new Int32Array(m);
    const pairSecond = new Int32Array(m);
    const pairCoefficient = new Float64Array(m);
    let p = 0;
    for (let slot = 0; slot < this.numPairs; slot++) {
      const q = this.#coefficient.get(slot);
      if (q === 0) continue;
      if (q > 0) {
        throw new Error(
          `internal error: pair (x${this.first(slot)}, x${this.second(slot)}) kept coefficient ${q} > 0`,
        );
      }
      pairFirst[p] = this.#first.get(slot);
      pairSecond[p] = this.#second.get(slot);
      pairCoefficient[p++] = q;
    }
    return new QuadraticPseudoBoolean({
      numVariables: this.#n + this.numAuxiliary,
      constant: this.constant,
      linear: this.#linear.toArray(),
      pairFirst,
      pairSecond,
      pairCoefficient,
    });
  }
}
