import { numberedStates } from "./builder.js";
import { SymbolSpace } from "./symbols.js";
import type { AttributeSink } from "./types.js";

/**
 * A CRFsuite example-script template (`example/template.py`): a tuple of (field, offset) pairs.
 * At token t it yields `name=value` with name `'|'.join('%s[%d]' % (field, offset))` and value the
 * `'|'`-joined field values at t + offset, and nothing when any t + offset is outside the sequence.
 */
export type FieldTemplate = readonly (readonly [field: string, offset: number])[];

/**
 * Value-id tuples → name numbers: open addressing over flat arrays (linear probing), one table per
 * template of two or more fields. Replaces a trie of Maps keyed by the value strings: one probe
 * of a flat array per attribute instead of a hash table lookup per field.
 */
class TupleTable {
  private keys: Int32Array;
  /** −1 marks an empty slot. */
  private symbols: Int32Array;
  private mask: number;
  private count = 0;

  constructor(private readonly arity: number) {
    this.keys = new Int32Array(256 * arity);
    this.symbols = new Int32Array(256).fill(-1);
    this.mask = 255;
  }

  /** The number of the tuple, or −1. */
  get(tuple: Int32Array): number {
    const { arity, keys, symbols, mask } = this;
    for (let slot = hashTuple(tuple, 0, arity) & mask; ; slot = (slot + 1) & mask) {
      const symbol = symbols[slot]!;
      if (symbol < 0) return -1;
      let j = 0;
      while (j < arity && keys[slot * arity + j] === tuple[j]) j++;
      if (j === arity) return symbol;
    }
  }

  /** Adds a tuple that {@link get} did not find. */
  set(tuple: Int32Array, symbol: number): void {
    if (2 * (this.count + 1) > this.symbols.length) this.grow();
    this.insert(tuple, 0, symbol);
    this.count++;
  }

  private insert(source: Int32Array, at: number, symbol: number): void {
    const { arity, keys, symbols, mask } = this;
    let slot = hashTuple(source, at, arity) & mask;
    while (symbols[slot]! >= 0) slot = (slot + 1) & mask;
    for (let j = 0; j < arity; j++) keys[slot * arity + j] = source[at + j]!;
    symbols[slot] = symbol;
  }

  private grow(): void {
    const { keys, symbols } = this;
    this.keys = new Int32Array(2 * keys.length);
    this.symbols = new Int32Array(2 * symbols.length).fill(-1);
    this.mask = 2 * symbols.length - 1;
    for (let slot = 0; slot < symbols.length; slot++) {
      if (symbols[slot]! >= 0) this.insert(keys, slot * this.arity, symbols[slot]!);
    }
  }
}

/** Hash of the ids source[at .. at + arity). */
function hashTuple(source: Int32Array, at: number, arity: number): number {
  let h = 0;
  for (let j = at; j < at + arity; j++) {
    h = Math.imul(h ^ source[j]!, 0x9e3779b1);
    h ^= h >>> 15;
  }
  return h;
}

interface CompiledFieldTemplate {
  /** `name=`, ready to prepend. */
  readonly prefix: string;
  readonly fields: Int32Array;
  readonly offsets: Int32Array;
  readonly minOffset: number;
  readonly maxOffset: number;
  /** One field: name number by value id (−1: none yet). */
  direct: Int32Array;
  /** Two or more fields. */
  table: TupleTable | null;
}

/**
 * Compiled templates plus a cache of the names they made. Handing out the same string object for
 * the same attribute avoids building it again and, more importantly, lets whoever interns the names
 * hash each distinct attribute once instead of flattening and hashing millions of fresh
 * concatenations (several seconds on CoNLL-2000). The names are numbered (a {@link SymbolSpace})
 * and found by the ids of their field values: each value of a sentence is hashed once, then an
 * attribute costs a probe of a flat array. The cache is bounded: a sentence that finds more than
 * `maxCachedNames` names or values cached starts it over, so tagging an endless stream does not
 * grow memory without limit.
 */
export class FieldTemplateSet {
  readonly templates: readonly CompiledFieldTemplate[];
  /** The cached names, numbered (a builder sink takes the numbers too). */
  private space = new SymbolSpace();
  private readonly values = new Map<string, string>();
  private readonly valueIds = new Map<string, number>();
  /** Fields some template reads. */
  private readonly used: Int32Array;
  /** The sentence whose value ids `ids` holds (field f, token t at f·n + t), and its length. */
  private sentence: readonly (readonly string[])[] | null = null;
  private sentenceLength = 0;
  private ids = new Int32Array(0);
  private readonly tuple: Int32Array;
  /** The numbers of one token's names, emitted as one run (scratch). */
  private readonly run: Int32Array;

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
        direct: new Int32Array(0),
        table: template.length > 1 ? new TupleTable(template.length) : null,
      };
    });
    this.used = Int32Array.from(new Set(this.templates.flatMap((t) => Array.from(t.fields))));
    this.tuple = new Int32Array(Math.max(...this.templates.map((t) => t.fields.length)));
    this.run = new Int32Array(this.templates.length);
  }

  /**
   * One string object per distinct field value. Every lookup of the value then hits the key it
   * stored by pointer, not by comparing characters, and the value's hash is computed once.
   */
  canonical(value: string): string {
    const known = this.values.get(value);
    if (known !== undefined) return known;
    if (this.values.size < this.maxCachedNames) this.values.set(value, value);
    return value;
  }

  /**
   * Emits the attributes of every template at token `t`, in template order. `values` (one array
   * per field) is read once per sentence, on its first token: pass a new array for a new sentence.
   */
  apply(values: readonly (readonly string[])[], n: number, t: number, sink: AttributeSink): void {
    if (values !== this.sentence || n !== this.sentenceLength) this.begin(values, n);
    const { templates, ids, tuple, run } = this;
    let count = 0;
    for (let k = 0; k < templates.length; k++) {
      const template = templates[k]!;
      if (t + template.minOffset < 0 || t + template.maxOffset >= n) continue;
      const { fields, offsets, table } = template;
      let symbol: number;
      if (table === null) {
        const id = ids[fields[0]! * n + t + offsets[0]!]!;
        symbol = id < template.direct.length ? template.direct[id]! : -1;
      } else {
        for (let j = 0; j < fields.length; j++) tuple[j] = ids[fields[j]! * n + t + offsets[j]!]!;
        symbol = table.get(tuple);
      }
      if (symbol < 0) symbol = this.add(template, values, t);
      run[count++] = symbol;
    }
    numberedStates(sink, t, run, 0, count, this.space);
  }

  /** Ids of the sentence's values (starting the cache over first when it is full). */
  private begin(values: readonly (readonly string[])[], n: number): void {
    if (this.space.size >= this.maxCachedNames || this.valueIds.size >= this.maxCachedNames) {
      this.clear();
    }
    this.sentence = values;
    this.sentenceLength = n;
    const fields = values.length;
    if (this.ids.length < fields * n) this.ids = new Int32Array(2 * fields * n);
    const { ids, valueIds, used } = this;
    for (let u = 0; u < used.length; u++) {
      const f = used[u]!;
      const column = values[f]!;
      for (let t = 0; t < n; t++) {
        const value = column[t]!;
        let id = valueIds.get(value);
        if (id === undefined) {
          id = valueIds.size;
          valueIds.set(value, id);
        }
        ids[f * n + t] = id;
      }
    }
  }

  /** Names, numbers and records the attribute of `template` at token t (in `tuple` if 2+ fields). */
  private add(
    template: CompiledFieldTemplate,
    values: readonly (readonly string[])[],
    t: number,
  ): number {
    const { fields, offsets, table } = template;
    let name = template.prefix + values[fields[0]!]![t + offsets[0]!]!;
    for (let j = 1; j < fields.length; j++) name += `|${values[fields[j]!]![t + offsets[j]!]!}`;
    const symbol = this.space.add(name);
    if (table !== null) {
      table.set(this.tuple, symbol);
      return symbol;
    }
    const id = this.ids[fields[0]! * this.sentenceLength + t + offsets[0]!]!;
    if (id >= template.direct.length) {
      const grown = new Int32Array(Math.max(2 * template.direct.length, id + 1, 1024)).fill(-1);
      grown.set(template.direct);
      template.direct = grown;
    }
    template.direct[id] = symbol;
    return symbol;
  }

  private clear(): void {
    for (const template of this.templates) {
      template.direct = new Int32Array(0);
      if (template.table !== null) template.table = new TupleTable(template.fields.length);
    }
    this.valueIds.clear();
    this.space = new SymbolSpace();
  }
}

/** CRFsuite's scripts write `:` as `__COLON__` (crfutils.escape): `:` separates a weight. */
export function escapeColons(value: string): string {
  return value.includes(":") ? value.replaceAll(":", "__COLON__") : value;
}
