import { LabelSet, LagrangeError } from "@lagrange/core";
import { type LabelScheme, type SegmentLattice, segmentLattice } from "@lagrange/datasets";

/**
 * How segments are identified in a hierarchical label set.
 * - `path` (default): by the element path, `authors/person` and `editor/person` are different.
 * - `name`: by the element name alone, at any depth (the paper's C(x, i) "contains label i in the
 *   hierarchy").
 * Flat BIO labels give the same keys either way.
 */
export type SegmentKeying = "path" | "name";

/**
 * A countable unit, with the lattice states that mark one and the states inside one (state ids
 * of the index's {@link SegmentLattice}: the label ids, then the split states of IOB1/IOE1).
 * - `segment`: a segment kind (element path or name); counts segments.
 * - `label`: one full CRF label that marks a segment at some level (anzaroot2014 §6: constraints
 *   are instantiated "over all possible labels that contain a B prefix at any level in the
 *   hierarchy"); counts the tokens carrying that label where it marks. Its key is the label's name.
 */
export interface SegmentKey {
  readonly key: string;
  readonly unit: "segment" | "label";
  /** Depth of the level that names it (0 = outermost); −1 for name keys found at several depths. */
  readonly depth: number;
  /** States whose token carries the one marker of a segment of this kind (its `B-` under IOB2). */
  readonly marks: Int32Array;
  /** States whose token lies inside a segment of this kind. */
  readonly inside: Int32Array;
  /** Keys of the direct children in the hierarchy (one level deeper). */
  readonly children: readonly string[];
}

/** The pseudo-segment of tokens outside every element: the label `O`. */
export const OUTSIDE = "O";

/**
 * The segment structure of a label set under its scheme: the counts s(i) of anzaroot2014 §5 are
 * counts of the `marks` states of a key. Constraints are compiled over the states of
 * {@link lattice} (`L` of them), in which every segment has exactly one marker whatever the scheme;
 * labellings given to {@link counts} and to the templates are state sequences (`lattice.lift`).
 * Counting a labelling is cached per array, so many count templates can evaluate it cheaply.
 */
export class SegmentIndex {
  /** The model's labels. */
  readonly labels: LabelSet;
  readonly lattice: SegmentLattice;
  readonly keying: SegmentKeying;
  /** Number of lattice states: the L of the constraints a template instantiates. */
  readonly L: number;
  /** Every label has at most one level (plain BIO): label keys then equal segment keys. */
  readonly flat: boolean;
  readonly #keys: SegmentKey[];
  readonly #byKey = new Map<string, number>();
  /** For each state, the key indices it marks (usually 0–3 of them). */
  readonly #marksOf: Int32Array[];
  readonly #counts = new WeakMap<ArrayLike<number>, { labels: Int32Array; counts: Float64Array }>();

  constructor(
    labels: LabelSet | readonly string[],
    scheme: LabelScheme,
    keying: SegmentKeying = "path",
  ) {
    this.labels = labels instanceof LabelSet ? labels : LabelSet.from(labels);
    this.keying = keying;
    const names = this.labels.names();
    this.lattice = segmentLattice(names, scheme);
    const lattice = this.lattice;
    this.L = lattice.states.length;
    const marks = new Map<string, Set<number>>();
    const inside = new Map<string, Set<number>>();
    const depth = new Map<string, number>();
    const children = new Map<string, Set<string>>();
    const add = (m: Map<string, Set<number>>, key: string, id: number) => {
      const s = m.get(key);
      if (s === undefined) m.set(key, new Set([id]));
      else s.add(id);
    };
    let flat = true;
    /** Label id → the states of that label that mark a segment at some level. */
    const labelMarks = new Map<number, number[]>();
    for (let state = 0; state < this.L; state++) {
      const levels = lattice.levels(state);
      if (levels.length > 1) flat = false;
      if (levels.length === 0) {
        add(inside, OUTSIDE, state);
        depth.set(OUTSIDE, 0);
        continue;
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
        add(inside, key, state);
        if (level.marks) add(marks, key, state);
        if (!children.has(key)) children.set(key, new Set());
        if (parentKey !== undefined && parentKey !== key) children.get(parentKey)!.add(key);
        parentKey = key;
      }
      if (levels.some((l) => l.marks)) {
        const label = lattice.origin[state]!;
        labelMarks.set(label, [...(labelMarks.get(label) ?? []), state]);
      }
    }
    const sorted = [...inside.keys()].sort();
    this.#keys = sorted.map((key) => ({
      key,
      unit: "segment" as const,
      depth: depth.get(key) ?? 0,
      marks: Int32Array.from([...(marks.get(key) ?? [])].sort((a, b) => a - b)),
      inside: Int32Array.from([...inside.get(key)!].sort((a, b) => a - b)),
      children: [...(children.get(key) ?? [])].sort(),
    }));
    names.forEach((name, id) => {
      const marking = labelMarks.get(id);
      if (marking === undefined) return;
      if (inside.has(name)) {
        throw new LagrangeError(
          "usage",
          `label "${name}" has the same name as a segment kind: cannot key both`,
        );
      }
      this.#keys.push({
        key: name,
        unit: "label",
        depth: -1,
        marks: Int32Array.from(marking),
        inside: Int32Array.from(
          Array.from(lattice.origin).flatMap((label, state) => (label === id ? [state] : [])),
        ),
        children: [],
      });
    });
    this.flat = flat;
    this.#keys.forEach((k, i) => {
      this.#byKey.set(k.key, i);
    });
    const marksOf: number[][] = Array.from({ length: this.L }, () => []);
    this.#keys.forEach((k, i) => {
      for (const state of k.marks) marksOf[state]!.push(i);
    });
    this.#marksOf = marksOf.map((a) => Int32Array.from(a));
  }

  /** All keys: segment kinds sorted by key (`O` included, inside only), then label keys. */
  keys(): readonly SegmentKey[] {
    return this.#keys;
  }

  /** Segment kinds (sorted; `O` included). */
  segmentKeys(): readonly SegmentKey[] {
    return this.#keys.filter((k) => k.unit === "segment");
  }

  /** Keys of one unit that can be counted (those with at least one marker state). */
  countableKeys(unit: "segment" | "label" = "segment"): readonly SegmentKey[] {
    return this.#keys.filter((k) => k.unit === unit && k.marks.length > 0);
  }

  /** "authors segment" or "I-authors/B-person label": how descriptions name a key. */
  noun(key: string, plural = false): string {
    const unit = this.get(key).unit;
    return `${key} ${unit}${plural ? "s" : ""}`;
  }

  indexOf(key: string): number {
    return this.#byKey.get(key) ?? -1;
  }

  /** The key named `key`; a usage error naming it and listing the model's types when it does not exist. */
  get(key: string): SegmentKey {
    const i = this.#byKey.get(key);
    if (i === undefined) {
      const types = this.segmentKeys()
        .map((k) => k.key)
        .filter((k) => k !== OUTSIDE);
      const shown = types.slice(0, 20).join(", ") + (types.length > 20 ? ", …" : "");
      throw new LagrangeError(
        "usage",
        `the model has no segment type or label "${key}" (its types: ${shown === "" ? "none" : shown})`,
      );
    }
    return this.#keys[i]!;
  }

  /**
   * Segment counts of a state sequence: counts[k] = number of tokens whose state marks key k.
   * Cached per label array, with a snapshot of its contents: a reused buffer (a slave's labels)
   * is recounted when its contents changed, never answered from a stale entry.
   */
  counts(labels: ArrayLike<number>): Float64Array {
    const cached = this.#counts.get(labels);
    if (cached !== undefined && sameLabels(cached.labels, labels)) return cached.counts;
    const counts = new Float64Array(this.#keys.length);
    for (let p = 0; p < labels.length; p++) {
      const y = labels[p]!;
      const marked = this.#marksOf[y];
      if (marked === undefined) {
        throw new RangeError(`labels[${p}] = ${y} is outside the states 0..${this.L - 1}`);
      }
      for (let j = 0; j < marked.length; j++) counts[marked[j]!]! += 1;
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
