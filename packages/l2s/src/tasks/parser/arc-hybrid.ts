/**
 * The arc-hybrid transition system of chang2016's Appendix B (Algorithm 7), the one their
 * `RUNPARSER` (Algorithm 6) drives. Words are 1…n, 0 is ROOT. A configuration is a stack S (ROOT
 * at the bottom, never popped), a buffer B = front…n and the arcs built so far:
 *
 * - SHIFT pushes the buffer's front (valid when |B| > 0);
 * - REDUCE_LEFT adds the arc b0 → s0 and pops s0 (valid when |B| > 0 and |S| > 1);
 * - REDUCE_RIGHT adds the arc s1 → s0 and pops s0 (valid when |S| > 1).
 *
 * Parsing ends when B is empty and S = [ROOT]; every word has then been popped exactly once, with
 * exactly one head, so the arcs form a projective tree rooted at ROOT (possibly with several root
 * children).
 */

export const SHIFT = 0;
export const REDUCE_LEFT = 1;
export const REDUCE_RIGHT = 2;
export type Transition = typeof SHIFT | typeof REDUCE_LEFT | typeof REDUCE_RIGHT;
export const TRANSITION_NAMES = ["SHIFT", "REDUCE_LEFT", "REDUCE_RIGHT"] as const;

/** The ROOT token's index. */
export const ROOT = 0;
/** "No token" / "no arc" in every index array. */
export const NONE = -1;

/**
 * One parser configuration in flat typed arrays, grown on demand and reused from sentence to
 * sentence ({@link ArcHybridState.reset}): a greedy parser or an L2S roll-out runs thousands of
 * sentences through one state without allocating.
 *
 * Besides heads it keeps, per token, the two leftmost and two rightmost children and the child
 * counts, which is what the feature templates read; keeping them up to date on each arc is O(1),
 * while recomputing them from `heads` would be O(n) per feature lookup.
 */
export class ArcHybridState {
  /** Number of words (ROOT excluded). */
  n = 0;
  /** The stack's tokens, bottom (ROOT) first; `depth` of them are live (capacity = `heads`'). */
  stack: Int32Array = new Int32Array(16);
  depth = 0;
  /** The buffer's front word; the buffer is `front…n`, empty when `front > n`. */
  front = 1;
  /** Head of each token (index 0 is ROOT and stays NONE), NONE while unattached. */
  heads: Int32Array = new Int32Array(16);
  /** Relation id of each token's arc, NONE while unattached or unlabelled. */
  relations: Int32Array = new Int32Array(16);
  leftmost: Int32Array = new Int32Array(16);
  leftmost2: Int32Array = new Int32Array(16);
  rightmost: Int32Array = new Int32Array(16);
  rightmost2: Int32Array = new Int32Array(16);
  leftCount: Int32Array = new Int32Array(16);
  rightCount: Int32Array = new Int32Array(16);
  /** Transitions taken since `reset`. */
  steps = 0;

  /** The start configuration of an n-word sentence: S = [ROOT], B = 1…n, no arcs. */
  reset(n: number): this {
    if (!Number.isInteger(n) || n < 0) throw new RangeError(`expected a word count ≥ 0, got ${n}`);
    if (n + 1 > this.heads.length) this.grow(n + 1);
    this.n = n;
    this.stack[0] = ROOT;
    this.depth = 1;
    this.front = 1;
    this.steps = 0;
    this.heads.fill(NONE, 0, n + 1);
    this.relations.fill(NONE, 0, n + 1);
    this.leftmost.fill(NONE, 0, n + 1);
    this.leftmost2.fill(NONE, 0, n + 1);
    this.rightmost.fill(NONE, 0, n + 1);
    this.rightmost2.fill(NONE, 0, n + 1);
    this.leftCount.fill(0, 0, n + 1);
    this.rightCount.fill(0, 0, n + 1);
    return this;
  }

  /** The i-th token from the stack's top (s0 = `s(0)`), or NONE. */
  s(i: number): number {
    return i < this.depth ? this.stack[this.depth - 1 - i]! : NONE;
  }

  /** The i-th word of the buffer (b0 = `b(0)`), or NONE. */
  b(i: number): number {
    const w = this.front + i;
    return w <= this.n ? w : NONE;
  }

  bufferSize(): number {
    return this.n + 1 - this.front;
  }

  canShift(): boolean {
    return this.front <= this.n;
  }

  canReduceLeft(): boolean {
    return this.front <= this.n && this.depth > 1;
  }

  canReduceRight(): boolean {
    return this.depth > 1;
  }

  isValid(action: number): boolean {
    switch (action) {
      case SHIFT:
        return this.canShift();
      case REDUCE_LEFT:
        return this.canReduceLeft();
      case REDUCE_RIGHT:
        return this.canReduceRight();
      default:
        return false;
    }
  }

  isTerminal(): boolean {
    return this.front > this.n && this.depth === 1;
  }

  /** Writes the valid actions into `out` (in action order) and returns how many there are. */
  validActions(out: number[]): number {
    out.length = 0;
    if (this.canShift()) out.push(SHIFT);
    if (this.canReduceLeft()) out.push(REDUCE_LEFT);
    if (this.canReduceRight()) out.push(REDUCE_RIGHT);
    return out.length;
  }

  /**
   * Takes a transition (Algorithm 7). Returns the word that was attached (the popped s0), or NONE
   * for SHIFT. Throws on an invalid action: a caller that asks the policy only for valid actions
   * never sees it.
   */
  apply(action: number): number {
    if (!this.isValid(action)) {
      throw new RangeError(
        `transition ${TRANSITION_NAMES[action] ?? action} is not valid here (stack depth ${this.depth}, buffer size ${this.bufferSize()})`,
      );
    }
    this.steps++;
    if (action === SHIFT) {
      this.stack[this.depth++] = this.front++;
      return NONE;
    }
    const dependent = this.stack[--this.depth]!;
    const head = action === REDUCE_LEFT ? this.front : this.stack[this.depth - 1]!;
    this.attach(head, dependent);
    return dependent;
  }

  /** Labels the arc of `dependent` (taken just before by a REDUCE). */
  setRelation(dependent: number, relation: number): void {
    this.relations[dependent] = relation;
  }

  /** The heads in output form: word w's head at `w − 1`, 0 for ROOT (a terminal state has them all). */
  headsOut(out: Int32Array = new Int32Array(this.n)): Int32Array {
    for (let w = 1; w <= this.n; w++) out[w - 1] = this.heads[w]!;
    return out;
  }

  /** A copy of this configuration (tests and exhaustive searches; parsing itself never copies). */
  clone(): ArcHybridState {
    const copy = new ArcHybridState();
    copy.copyFrom(this);
    return copy;
  }

  copyFrom(other: ArcHybridState): this {
    if (other.n + 1 > this.heads.length) this.grow(other.n + 1);
    this.n = other.n;
    this.depth = other.depth;
    this.front = other.front;
    this.steps = other.steps;
    const m = other.n + 1;
    this.stack.set(other.stack.subarray(0, other.depth));
    this.heads.set(other.heads.subarray(0, m));
    this.relations.set(other.relations.subarray(0, m));
    this.leftmost.set(other.leftmost.subarray(0, m));
    this.leftmost2.set(other.leftmost2.subarray(0, m));
    this.rightmost.set(other.rightmost.subarray(0, m));
    this.rightmost2.set(other.rightmost2.subarray(0, m));
    this.leftCount.set(other.leftCount.subarray(0, m));
    this.rightCount.set(other.rightCount.subarray(0, m));
    return this;
  }

  private attach(head: number, dependent: number): void {
    this.heads[dependent] = head;
    // Children arrive in arc-hybrid in a fixed order (left ones right-to-left, right ones
    // left-to-right), but the general update costs nothing and does not rely on it.
    if (dependent < head) {
      this.leftCount[head]!++;
      const first = this.leftmost[head]!;
      if (first === NONE || dependent < first) {
        this.leftmost2[head] = first;
        this.leftmost[head] = dependent;
      } else {
        const second = this.leftmost2[head]!;
        if (second === NONE || dependent < second) this.leftmost2[head] = dependent;
      }
    } else {
      this.rightCount[head]!++;
      const first = this.rightmost[head]!;
      if (first === NONE || dependent > first) {
        this.rightmost2[head] = first;
        this.rightmost[head] = dependent;
      } else {
        const second = this.rightmost2[head]!;
        if (second === NONE || dependent > second) this.rightmost2[head] = dependent;
      }
    }
  }

  private grow(size: number): void {
    const capacity = Math.max(size, this.heads.length * 2);
    const resize = (a: Int32Array): Int32Array<ArrayBuffer> => {
      const b = new Int32Array(capacity);
      b.set(a);
      return b;
    };
    this.stack = resize(this.stack);
    this.heads = resize(this.heads);
    this.relations = resize(this.relations);
    this.leftmost = resize(this.leftmost);
    this.leftmost2 = resize(this.leftmost2);
    this.rightmost = resize(this.rightmost);
    this.rightmost2 = resize(this.rightmost2);
    this.leftCount = resize(this.leftCount);
    this.rightCount = resize(this.rightCount);
  }
}
