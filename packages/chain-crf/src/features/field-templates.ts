import type { AttributeSink } from "./types.js";

/**
 * A CRFsuite example-script template (`example/template.py`): a tuple of (field, offset) pairs.
 * At token t it yields `name=value` with name `'|'.join('%s[%d]' % (field, offset))` and value the
 * `'|'`-joined field values at t + offset, and nothing when any t + offset is outside the sequence.
 */
export type FieldTemplate = readonly (readonly [field: string, offset: number])[];

/** Value tuple → attribute name: nested maps, one level per field of the template. */
type NameTrie = Map<string, NameTrie | string>;

interface CompiledFieldTemplate {
  /** `name=`, ready to prepend. */
  readonly prefix: string;
  readonly fields: Int32Array;
  readonly offsets: Int32Array;
  readonly minOffset: number;
  readonly maxOffset: number;
  trie: NameTrie;
}

/**
 * Compiled templates plus a cache of the names they made. Handing out the same string object for
 * the same attribute avoids building it again and, more importantly, lets whoever interns the names
 * hash each distinct attribute once instead of flattening and hashing millions of fresh
 * concatenations (several seconds on CoNLL-2000). The cache is bounded: past `maxCachedNames` it
 * starts over, so tagging an endless stream does not grow memory without limit.
 */
export class FieldTemplateSet {
  readonly templates: readonly CompiledFieldTemplate[];
  private cached = 0;
  private readonly values = new Map<string, string>();

  constructor(
    templates: readonly FieldTemplate[],
    fieldNames: readonly string[],
    private readonly maxCachedNames = 1_000_000,
  ) {
    this.templates = templates.map((template) => {
      if (template.length === 0) throw new RangeError("a field template needs at least one field");
      const fields = template.map(([field]) => {
        const index = fieldNames.indexOf(field);
        if (index < 0) throw new RangeError(`unknown field ${JSON.stringify(field)}`);
        return index;
      });
      const offsets = template.map(([, offset]) => offset);
      return {
        prefix: `${template.map(([field, offset]) => `${field}[${offset}]`).join("|")}=`,
        fields: Int32Array.from(fields),
        offsets: Int32Array.from(offsets),
        minOffset: Math.min(...offsets),
        maxOffset: Math.max(...offsets),
        trie: new Map(),
      };
    });
  }

  /**
   * One string object per distinct field value. Every trie lookup then hits the key it stored by
   * pointer, not by comparing characters, and the value's hash is computed once.
   */
  canonical(value: string): string {
    const known = this.values.get(value);
    if (known !== undefined) return known;
    if (this.values.size < this.maxCachedNames) this.values.set(value, value);
    return value;
  }

  /** Emits the attributes of every template at token `t`, in template order. */
  apply(values: readonly (readonly string[])[], n: number, t: number, sink: AttributeSink): void {
    const templates = this.templates;
    for (let k = 0; k < templates.length; k++) {
      const template = templates[k]!;
      if (t + template.minOffset < 0 || t + template.maxOffset >= n) continue;
      const { fields, offsets } = template;
      const last = fields.length - 1;
      let node = template.trie;
      for (let j = 0; j < last; j++) {
        const value = values[fields[j]!]![t + offsets[j]!]!;
        let next = node.get(value) as NameTrie | undefined;
        if (next === undefined) {
          next = new Map();
          node.set(value, next);
        }
        node = next;
      }
      const value = values[fields[last]!]![t + offsets[last]!]!;
      let name = node.get(value) as string | undefined;
      if (name === undefined) {
        name = template.prefix + values[fields[0]!]![t + offsets[0]!]!;
        for (let j = 1; j <= last; j++) name += `|${values[fields[j]!]![t + offsets[j]!]!}`;
        if (++this.cached > this.maxCachedNames) this.clear();
        else node.set(value, name);
      }
      sink.state(t, name, 1);
    }
  }

  private clear(): void {
    for (const template of this.templates) template.trie = new Map();
    this.cached = 0;
  }
}

/** CRFsuite's scripts write `:` as `__COLON__` (crfutils.escape): `:` separates a weight. */
export function escapeColons(value: string): string {
  return value.includes(":") ? value.replaceAll(":", "__COLON__") : value;
}
