import { LabelSet } from "@lagrange/core";

/** One level of a (hierarchical) BIO label: `B-person` → { prefix: "B", type: "person" }. */
export interface LabelLevel {
  readonly prefix: "B" | "I";
  readonly type: string;
}

/**
 * Parses `O`, `B-x`, `I-x` and hierarchical labels whose levels are joined by `/`
 * (`I-authors/B-person/B-person-first`, UMass citations). `O` has no levels.
 */
export function parseBioLabel(name: string): LabelLevel[] {
  if (name === "O") return [];
  const levels: LabelLevel[] = [];
  for (const part of name.split("/")) {
    const match = /^([BI])-(.+)$/.exec(part);
    if (match === null) {
      throw new Error(
        `label "${name}": expected "O" or levels "B-type"/"I-type" joined by "/", got level "${part}"`,
      );
    }
    levels.push({ prefix: match[1] as "B" | "I", type: match[2]! });
  }
  return levels;
}

/**
 * How segments are identified in a hierarchical label set.
 * - `path` (default): by the element path, `authors/person` and `editor/person` are different.
 * - `name`: by the element name alone, at any depth (the paper's C(x, i) "contains label i in the
 *   hierarchy").
 * Flat BIO labels give the same keys either way.
 */
export type SegmentKeying = "path" | "name";

/**
 * A countable unit, with the label ids that begin one and the label ids inside one.
 * - `segment`: a segment kind (element path or name); counts segments.
 * - `label`: one full CRF label that has a `B-` at some level (anzaroot2014 §6: constraints are
 *   instantiated "over all possible labels that contain a B prefix at any level in the
 *   hierarchy"); counts the tokens carrying exactly that label. Its key is the label's name.
 */
export interface SegmentKey {
  readonly key: string;
  readonly unit: "segment" | "label";
  /** Depth of the level that names it (0 = outermost); −1 for name keys found at several depths. */
  readonly depth: number;
  /** Labels whose token begins a segment of this kind (a `B-` at the matching level). */
  readonly begin: Int32Array;
  /** Labels whose token lies inside a segment of this kind (`B-` or `I-`). */
  readonly inside: Int32Array;
  /** Keys of the direct children in the hierarchy (one level deeper). */
  readonly children: readonly string[];
}

/** The pseudo-segment of tokens outside every element: the label `O`. */
export const OUTSIDE = "O";

/**
 * The segment structure of a BIO label set: the counts s(i) of anzaroot2014 §5 are counts of the
 * `begin` labels of a key. Counting a labelling is cached per label array, so many count templates
 * can evaluate the same labelling cheaply.
 */
export class SegmentIndex {
  readonly labels: LabelSet;
  readonly keying: SegmentKeying;
  readonly L: number;
  /** Every label has at most one level (plain BIO): label keys then equal segment keys. */
  readonly flat: boolean;
  readonly #keys: SegmentKey[];
  readonly #byKey = new Map<string, number>();
  /** For each label id, the key indices it begins (usually 0–3 of them). */
  readonly #beginsOf: Int32Array[];
  readonly #counts = new WeakMap<ArrayLike<number>, { labels: Int32Array; counts: Float64Array }>();

  constructor(labels: LabelSet | readonly string[], keying: SegmentKeying = "path") {
    this.labels = labels instanceof LabelSet ? labels : LabelSet.from(labels);
    this.keying = keying;
    const names = this.labels.names();
    this.L = names.length;
    const begin = new Map<string, Set<number>>();
    const inside = new Map<string, Set<number>>();
    const depth = new Map<string, number>();
    const children = new Map<string, Set<string>>();
    const add = (m: Map<string, Set<number>>, key: string, id: number) => {
      const s = m.get(key);
      if (s === undefined) m.set(key, new Set([id]));
      else s.add(id);
    };
    names.forEach((name, id) => {
      const levels = parseBioLabel(name);
      if (levels.length === 0) {
        add(inside, OUTSIDE, id);
        depth.set(OUTSIDE, 0);
        return;
      }
      let parentKey: string | undefined;
      for (let d = 0; d < levels.length; d++) {
        const level = levels[d]!;
        const key =
          keying === "path"
            ? levels
                .slice(0, d + 1)
                .map((l) => l.type)
                .join("/")
            : level.type;
        const known = depth.get(key);
        depth.set(key, known === undefined || known === d ? d : -1);
        add(inside, key, id);
        if (level.prefix === "B") add(begin, key, id);
        if (!children.has(key)) children.set(key, new Set());
        if (parentKey !== undefined && parentKey !== key) children.get(parentKey)!.add(key);
        parentKey = key;
      }
    });
    const sorted = [...inside.keys()].sort();
    this.#keys = sorted.map((key) => ({
      key,
      unit: "segment" as const,
      depth: depth.get(key) ?? 0,
      begin: Int32Array.from([...(begin.get(key) ?? [])].sort((a, b) => a - b)),
      inside: Int32Array.from([...inside.get(key)!].sort((a, b) => a - b)),
      children: [...(children.get(key) ?? [])].sort(),
    }));
    let flat = true;
    names.forEach((name, id) => {
      const levels = parseBioLabel(name);
      if (levels.length > 1) flat = false;
      if (!levels.some((l) => l.prefix === "B")) return;
      if (inside.has(name)) {
        throw new Error(`label "${name}" has the same name as a segment kind: cannot key both`);
      }
      const only = Int32Array.of(id);
      this.#keys.push({
        key: name,
        unit: "label",
        depth: -1,
        begin: only,
        inside: only,
        children: [],
      });
    });
    this.flat = flat;
    this.#keys.forEach((k, i) => {
      this.#byKey.set(k.key, i);
    });
    const beginsOf: number[][] = Array.from({ length: this.L }, () => []);
    this.#keys.forEach((k, i) => {
      for (const id of k.begin) beginsOf[id]!.push(i);
    });
    this.#beginsOf = beginsOf.map((a) => Int32Array.from(a));
  }

  /** All keys: segment kinds sorted by key (`O` included, inside only), then label keys. */
  keys(): readonly SegmentKey[] {
    return this.#keys;
  }

  /** Segment kinds (sorted; `O` included). */
  segmentKeys(): readonly SegmentKey[] {
    return this.#keys.filter((k) => k.unit === "segment");
  }

  /** Keys of one unit that can be counted (those with at least one `B-` label). */
  countableKeys(unit: "segment" | "label" = "segment"): readonly SegmentKey[] {
    return this.#keys.filter((k) => k.unit === unit && k.begin.length > 0);
  }

  /** "authors segment" or "I-authors/B-person label": how descriptions name a key. */
  noun(key: string, plural = false): string {
    const unit = this.get(key).unit;
    return `${key} ${unit}${plural ? "s" : ""}`;
  }

  indexOf(key: string): number {
    return this.#byKey.get(key) ?? -1;
  }

  /** The key named `key`; throws an error listing the known keys when it does not exist. */
  get(key: string): SegmentKey {
    const i = this.#byKey.get(key);
    if (i === undefined) {
      const known = this.#keys.map((k) => k.key);
      const shown = known.slice(0, 20).join(", ") + (known.length > 20 ? ", …" : "");
      throw new Error(`unknown segment "${key}" (known: ${shown})`);
    }
    return this.#keys[i]!;
  }

  /**
   * Segment counts of a labelling: counts[k] = number of tokens whose label begins key k.
   * Cached per label array, with a snapshot of its contents: a reused buffer (a slave's labels)
   * is recounted when its contents changed, never answered from a stale entry.
   */
  counts(labels: ArrayLike<number>): Float64Array {
    const cached = this.#counts.get(labels);
    if (cached !== undefined && sameLabels(cached.labels, labels)) return cached.counts;
    const counts = new Float64Array(this.#keys.length);
    for (let p = 0; p < labels.length; p++) {
      const y = labels[p]!;
      const begins = this.#beginsOf[y];
      if (begins === undefined) {
        throw new RangeError(`labels[${p}] = ${y} is outside the label set 0..${this.L - 1}`);
      }
      for (let j = 0; j < begins.length; j++) counts[begins[j]!]! += 1;
    }
    this.#counts.set(labels, { labels: Int32Array.from(labels), counts });
    return counts;
  }
}

function sameLabels(a: Int32Array, b: ArrayLike<number>): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
