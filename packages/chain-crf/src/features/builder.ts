import {
  ADD_NUMBERED,
  ADD_NUMBERED_RUN,
  attachSymbols,
  MAX_SPACES_PER_LIST,
  type SymbolRun,
  type SymbolSpace,
} from "./symbols.js";
import type { Attribute, AttributeList, AttributeSequence, AttributeSink, Rows } from "./types.js";

/** Collects one kind of attribute (state or transition) into flat arrays. */
class FlatListBuilder {
  private names: string[] = [];
  /** Created on the first value ≠ 1, back-filled with 1s. */
  private values: number[] | null = null;
  private offsets = new Int32Array(1);
  /** Last token whose start offset has been written. */
  private token = 0;
  private length = 0;
  /** Symbol numbers parallel to `names` (scratch, reused); see {@link SymbolSpace}. */
  private symbols = new Int32Array(256);
  /** Per name, its number's index into `spaces` (scratch, reused). */
  private spaceOf = new Uint8Array(256);
  /** The spaces the current list's numbers come from, in order of first use. */
  private spaces: SymbolSpace[] = [];
  /** The space of the last numbered name and its index (names come in runs of one space). */
  private lastSpace: SymbolSpace | null = null;
  private lastSpaceIndex = 0;

  begin(length: number): void {
    this.names = [];
    this.values = null;
    this.offsets = new Int32Array(length + 1);
    this.token = 0;
    this.length = length;
    this.spaces = [];
    this.lastSpace = null;
  }

  add(kind: string, token: number, name: string, value: number, symbol = -1, spaceIndex = 0): void {
    if (token !== this.token || this.length === 0) this.advance(kind, token);
    if (value !== 1 && this.values === null)
      this.values = new Array<number>(this.names.length).fill(1);
    const k = this.names.length;
    if (k === this.symbols.length) this.reserve(k + 1);
    this.symbols[k] = symbol;
    this.spaceOf[k] = spaceIndex;
    this.names.push(name);
    if (this.values !== null) this.values.push(value);
  }

  /** {@link add} with value 1 for `name`, number `symbol` of `space`. */
  addSymbol(kind: string, token: number, name: string, symbol: number, space: SymbolSpace): void {
    const index = this.spaceIndex(space);
    if (index < 0) this.add(kind, token, name, 1);
    else this.add(kind, token, name, 1, symbol, index);
  }

  /**
   * The names numbered symbols[from..to) of `space`, each with value 1, at `token`: one token
   * check, one space lookup and one capacity check for the run instead of one per name (the
   * per-name overhead was a sizeable part of extraction).
   */
  addSymbols(
    kind: string,
    token: number,
    symbols: Int32Array,
    from: number,
    to: number,
    space: SymbolSpace,
  ): void {
    if (from >= to) return;
    const index = this.spaceIndex(space);
    if (index < 0) {
      for (let j = from; j < to; j++) this.add(kind, token, space.names[symbols[j]!]!, 1);
      return;
    }
    if (token !== this.token || this.length === 0) this.advance(kind, token);
    const { names, values } = this;
    let k = names.length;
    if (k + (to - from) > this.symbols.length) this.reserve(k + (to - from));
    const out = this.symbols;
    const spaceOf = this.spaceOf;
    const spaceNames = space.names;
    for (let j = from; j < to; j++) {
      const symbol = symbols[j]!;
      out[k] = symbol;
      spaceOf[k] = index;
      k++;
      names.push(spaceNames[symbol]!);
      if (values !== null) values.push(1);
    }
  }

  /** The index of `space` among the list's, added if new; −1 once the list has too many. */
  private spaceIndex(space: SymbolSpace): number {
    if (space === this.lastSpace) return this.lastSpaceIndex;
    let index = this.spaces.indexOf(space);
    if (index < 0) {
      if (this.spaces.length === MAX_SPACES_PER_LIST) return -1;
      index = this.spaces.length;
      this.spaces.push(space);
    }
    this.lastSpace = space;
    this.lastSpaceIndex = index;
    return index;
  }

  /** Grows the number scratch arrays to hold at least `size` names. */
  private reserve(size: number): void {
    const capacity = Math.max(size, 2 * this.symbols.length);
    const grown = new Int32Array(capacity);
    grown.set(this.symbols);
    this.symbols = grown;
    const grownSpaces = new Uint8Array(capacity);
    grownSpaces.set(this.spaceOf);
    this.spaceOf = grownSpaces;
  }

  get isEmpty(): boolean {
    return this.names.length === 0;
  }

  /** The list, and its names' numbers where any has one; the builder is then empty. */
  finish(): { list: AttributeList; run: SymbolRun | undefined } {
    const end = this.names.length;
    for (let t = this.token + 1; t <= this.length; t++) this.offsets[t] = end;
    const list: AttributeList = {
      offsets: this.offsets,
      names: this.names,
      values: this.values === null ? null : Float64Array.from(this.values),
    };
    const run =
      this.spaces.length === 0
        ? undefined
        : {
            spaces: this.spaces,
            symbols: this.symbols.slice(0, end),
            spaceOf: this.spaceOf.slice(0, end),
          };
    this.begin(0);
    return { list, run };
  }

  private advance(kind: string, token: number): void {
    if (!(token > this.token && token < this.length) || !Number.isInteger(token)) {
      throw new RangeError(
        `${kind} attribute for token ${token}: expected an integer in [${this.token}, ${this.length - 1}] (tokens must come in non-decreasing order)`,
      );
    }
    const end = this.names.length;
    for (let t = this.token + 1; t <= token; t++) this.offsets[t] = end;
    this.token = token;
  }
}

/**
 * An {@link AttributeSink} that builds an {@link AttributeSequence}. Reusable: call `begin(n)`
 * before each sequence and `finish()` after it.
 */
export class AttributeSequenceBuilder implements AttributeSink {
  private readonly stateList = new FlatListBuilder();
  private readonly transitionList = new FlatListBuilder();
  private length = 0;

  begin(length: number): void {
    this.length = length;
    this.stateList.begin(length);
    this.transitionList.begin(length);
  }

  state(token: number, name: string, value: number): void {
    this.stateList.add("state", token, name, value);
  }

  /** An attribute with value 1, `name` being number `symbol` of `space` (this package's extractors). */
  [ADD_NUMBERED](
    transition: boolean,
    token: number,
    name: string,
    symbol: number,
    space: SymbolSpace,
  ): void {
    if (!transition) this.stateList.addSymbol("state", token, name, symbol, space);
    else if (token < 1) this.transition(token, name, 1);
    else this.transitionList.addSymbol("transition", token, name, symbol, space);
  }

  /** State attributes with value 1: the names numbered symbols[from..to) of `space`. */
  [ADD_NUMBERED_RUN](
    token: number,
    symbols: Int32Array,
    from: number,
    to: number,
    space: SymbolSpace,
  ): void {
    this.stateList.addSymbols("state", token, symbols, from, to, space);
  }

  transition(token: number, name: string, value: number): void {
    if (token < 1) {
      throw new RangeError(
        `transition attribute for token ${token}: the first transition is into token 1`,
      );
    }
    this.transitionList.add("transition", token, name, value);
  }

  finish(): AttributeSequence {
    const hasTransition = !this.transitionList.isEmpty;
    const state = this.stateList.finish();
    const transition = this.transitionList.finish();
    const sequence = {
      length: this.length,
      ...state.list,
      transition: hasTransition ? transition.list : null,
    };
    if (state.run !== undefined) attachSymbols(sequence, state.run);
    if (hasTransition && transition.run !== undefined)
      attachSymbols(transition.list, transition.run);
    return sequence;
  }
}

/**
 * State attributes with value 1, the names numbered symbols[from..to) of `space`, in that order:
 * as one run into a builder, by name into any other sink.
 */
export function numberedStates(
  sink: AttributeSink,
  token: number,
  symbols: Int32Array,
  from: number,
  to: number,
  space: SymbolSpace,
): void {
  if (sink instanceof AttributeSequenceBuilder) {
    sink[ADD_NUMBERED_RUN](token, symbols, from, to, space);
    return;
  }
  for (let j = from; j < to; j++) sink.state(token, space.names[symbols[j]!]!, 1);
}

/**
 * A state attribute with value 1 whose name is number `symbol` of `space`: with its number into
 * a builder (the model then finds its id without hashing the name), by name into any other sink.
 */
export function numberedState(
  sink: AttributeSink,
  token: number,
  name: string,
  symbol: number,
  space: SymbolSpace,
): void {
  if (sink instanceof AttributeSequenceBuilder)
    sink[ADD_NUMBERED](false, token, name, symbol, space);
  else sink.state(token, name, 1);
}

/**
 * A preset's `extract` for its `emit`: the attributes pushed into one builder, reused from call to
 * call (not re-entrant, like the presets themselves).
 */
export function extractWith(
  emit: (rows: Rows, sink: AttributeSink) => void,
): (rows: Rows) => AttributeSequence {
  const builder = new AttributeSequenceBuilder();
  return (rows) => {
    builder.begin(rows.length);
    emit(rows, builder);
    return builder.finish();
  };
}

/**
 * CRFsuite-style input: attributes already computed, one list per token, each entry a bare name
 * (value 1) or `{ name, value }`.
 */
export function fromAttributeLists(
  tokens: ReadonlyArray<ReadonlyArray<string | Attribute>>,
): AttributeSequence {
  const builder = new AttributeSequenceBuilder();
  builder.begin(tokens.length);
  for (let t = 0; t < tokens.length; t++) {
    for (const attribute of tokens[t]!) {
      if (typeof attribute === "string") {
        if (attribute.length === 0) throw new RangeError(`token ${t}: empty attribute name`);
        builder.state(t, attribute, 1);
      } else {
        if (attribute.name.length === 0) throw new RangeError(`token ${t}: empty attribute name`);
        if (!Number.isFinite(attribute.value)) {
          throw new RangeError(
            `token ${t}: attribute ${JSON.stringify(attribute.name)} has value ${attribute.value}; expected a finite number`,
          );
        }
        builder.state(t, attribute.name, attribute.value);
      }
    }
  }
  return builder.finish();
}

/** Unflattens a list into one `{ name, value }` array per token (for inspection and tests). */
export function toAttributeLists(list: AttributeList): Attribute[][] {
  const tokens: Attribute[][] = [];
  for (let t = 0; t + 1 < list.offsets.length; t++) {
    const token: Attribute[] = [];
    for (let k = list.offsets[t]!; k < list.offsets[t + 1]!; k++) {
      token.push({ name: list.names[k]!, value: list.values === null ? 1 : list.values[k]! });
    }
    tokens.push(token);
  }
  return tokens;
}

/** The attribute names of each token (values dropped). */
export function attributeNames(list: AttributeList): string[][] {
  const tokens: string[][] = [];
  for (let t = 0; t + 1 < list.offsets.length; t++) {
    tokens.push(list.names.slice(list.offsets[t]!, list.offsets[t + 1]!));
  }
  return tokens;
}
