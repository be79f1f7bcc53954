/**
 * A dictionary between label (or attribute) names and dense ids 0..size-1.
 * `intern` adds, `lookup` never does (CRFsuite's distinction): decoding must not grow the
 * dictionary by accident.
 */
export class LabelSet {
  readonly #ids = new Map<string, number>();
  readonly #names: string[] = [];
  #frozen = false;

  static from(names: Iterable<string>): LabelSet {
    const set = new LabelSet();
    for (const name of names) set.intern(name);
    return set;
  }

  get size(): number {
    return this.#names.length;
  }

  get frozen(): boolean {
    return this.#frozen;
  }

  /** Returns the id of `name`, adding it when new. Throws once the set is frozen. */
  intern(name: string): number {
    const id = this.#ids.get(name);
    if (id !== undefined) return id;
    if (this.#frozen) throw new Error(`LabelSet is frozen: cannot add label "${name}"`);
    const fresh = this.#names.length;
    this.#ids.set(name, fresh);
    this.#names.push(name);
    return fresh;
  }

  /** Returns the id of `name`, or -1 when it is unknown. Never adds. */
  lookup(name: string): number {
    return this.#ids.get(name) ?? -1;
  }

  has(name: string): boolean {
    return this.#ids.has(name);
  }

  /** The name of id `id`; throws a RangeError for an id outside 0..size-1. */
  name(id: number): string {
    const name = this.#names[id];
    if (name === undefined) {
      throw new RangeError(`label id ${id} is outside 0..${this.#names.length - 1}`);
    }
    return name;
  }

  names(): readonly string[] {
    return this.#names;
  }

  /** Decodes a whole labelling to names. */
  decode(ids: ArrayLike<number>): string[] {
    const out = new Array<string>(ids.length);
    for (let i = 0; i < ids.length; i++) out[i] = this.name(ids[i]!);
    return out;
  }

  /** Encodes names to ids; unknown names throw unless `intern` is true. */
  encode(names: readonly string[], options: { intern?: boolean } = {}): Int32Array {
    const out = new Int32Array(names.length);
    for (let i = 0; i < names.length; i++) {
      const name = names[i]!;
      const id = options.intern ? this.intern(name) : this.lookup(name);
      if (id < 0) throw new Error(`unknown label "${name}" at position ${i}`);
      out[i] = id;
    }
    return out;
  }

  /** Encodes names to ids, or returns undefined when any name is unknown (never adds). */
  tryEncode(names: readonly string[]): Int32Array | undefined {
    const out = new Int32Array(names.length);
    for (let i = 0; i < names.length; i++) {
      const id = this.lookup(names[i]!);
      if (id < 0) return undefined;
      out[i] = id;
    }
    return out;
  }

  /** Stops further `intern` of new names (a trained model's label set is closed). */
  freeze(): this {
    this.#frozen = true;
    return this;
  }

  toJSON(): string[] {
    return [...this.#names];
  }
}
