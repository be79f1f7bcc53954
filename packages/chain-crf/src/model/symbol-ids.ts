import type { LabelSet } from "@lagrange/core";
import { type SymbolSpace, symbolsOf } from "../features/symbols.js";
import type { AttributeList } from "../features/types.js";

/** A symbol whose attribute id has not been looked up yet. */
const UNSEEN = -2;

/**
 * Attribute id (or −1) of each symbol number of each space under one frozen dictionary, filled on
 * first sight: a name numbered by its extractor is hashed once per dictionary, not once per token
 * (the hash table lookup of every name was most of the time of tagging). One table per dictionary,
 * shared by everything that looks names up in it: compiling the training data fills it for the
 * model trained on them, and copies of a model (withConstraints) start from it.
 */
class SymbolIds {
  readonly #tables = new WeakMap<SymbolSpace, Int32Array>();

  /** The table for `space`, covering every number handed out so far. */
  table(space: SymbolSpace): Int32Array {
    const ids = this.#tables.get(space) ?? new Int32Array(0);
    if (ids.length >= space.size) return ids;
    const grown = new Int32Array(Math.max(space.size, 2 * ids.length, 1024)).fill(UNSEEN);
    grown.set(ids);
    this.#tables.set(space, grown);
    return grown;
  }
}

const tables = new WeakMap<LabelSet, SymbolIds>();

/** A list's symbol numbers and, per space it mixes, the table of their ids under one dictionary. */
export interface NumberedNames {
  readonly symbols: Int32Array;
  readonly spaceOf: Uint8Array;
  readonly tables: readonly Int32Array[];
}

/**
 * The numbers of `list` and their id tables under `dict`, or null when the list has none or the
 * dictionary may still grow (a cached "unknown" would go stale).
 */
export function numberedNames(list: AttributeList, dict: LabelSet): NumberedNames | null {
  if (!dict.frozen) return null;
  const run = symbolsOf(list);
  if (run === undefined) return null;
  let ids = tables.get(dict);
  if (ids === undefined) {
    ids = new SymbolIds();
    tables.set(dict, ids);
  }
  const of = ids;
  return {
    symbols: run.symbols,
    spaceOf: run.spaceOf,
    tables: run.spaces.map((space) => of.table(space)),
  };
}

/** `dict.lookup(names[k])`, through the table when the list is numbered and name k has a number. */
export function lookupNumbered(
  dict: LabelSet,
  names: readonly string[],
  k: number,
  numbered: NumberedNames | null,
): number {
  if (numbered === null) return dict.lookup(names[k]!);
  const symbol = numbered.symbols[k]!;
  if (symbol < 0) return dict.lookup(names[k]!);
  const table = numbered.tables[numbered.spaceOf[k]!]!;
  let id = table[symbol]!;
  if (id === UNSEEN) {
    id = dict.lookup(names[k]!);
    table[symbol] = id;
  }
  return id;
}
