import type { AttributeList } from "./types.js";

/**
 * A numbering of the distinct attribute names one extractor has made (0, 1, 2, … in order of
 * first appearance). An extractor that caches its names anyway can hand out each name's number
 * for free; a model then maps numbers to its attribute ids through a flat array it fills on first
 * sight, instead of hashing every name string again for every token it tags (the hash table
 * lookup was most of the time of tagging). A space is replaced, not reset, when its extractor
 * drops its cache, so numbers from an old space can never be read in a new one.
 */
export class SymbolSpace {
  /** The name of each number. */
  readonly names: string[] = [];

  /** Numbers handed out so far (the next one to give). */
  get size(): number {
    return this.names.length;
  }

  /** Numbers a new name. */
  add(name: string): number {
    this.names.push(name);
    return this.names.length - 1;
  }
}

/**
 * Per name of an {@link AttributeList}, its number in its space, or −1 for a name without one. A
 * list holds names of several spaces (a preset's templates, clusters, lexicons, each numbering its
 * own), so that every attribute of a token goes the numbered way, not only the templates'.
 */
export interface SymbolRun {
  readonly spaces: readonly SymbolSpace[];
  readonly symbols: Int32Array;
  /** Per name, the index into `spaces` of its number's space (meaningless where symbols[k] < 0). */
  readonly spaceOf: Uint8Array;
}

/** Spaces one list may mix (a name of any further one goes without its number). */
export const MAX_SPACES_PER_LIST = 256;

/**
 * The key of AttributeSequenceBuilder's method taking a numbered name: a symbol, so that the
 * numbers stay out of the builder's public API.
 */
export const ADD_NUMBERED: unique symbol = Symbol("lagrange.addNumbered");

/** The key of AttributeSequenceBuilder's method taking a run of numbered state names (as above). */
export const ADD_NUMBERED_RUN: unique symbol = Symbol("lagrange.addNumberedRun");

/** Not enumerable: a copy or a spread of the list (which may change it) drops the numbers. */
const SYMBOLS: unique symbol = Symbol("lagrange.attributeSymbols");

interface WithSymbols {
  [SYMBOLS]?: SymbolRun;
}

/**
 * Attaches the numbers to a list whose `names` array is frozen here, so they cannot go stale
 * under an edit of the names.
 */
export function attachSymbols(list: AttributeList, run: SymbolRun): void {
  Object.freeze(list.names);
  Object.defineProperty(list, SYMBOLS, { value: run });
}

/** The numbers attached to `list` by its extractor, if any. */
export function symbolsOf(list: AttributeList): SymbolRun | undefined {
  return (list as WithSymbols)[SYMBOLS];
}
