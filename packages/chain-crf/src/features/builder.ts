import { ADD_NUMBERED, attachSymbols, type SymbolSpace } from "./symbols.js";
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
  /** The space the numbers come from (null: none yet); `mixed` once a second one shows up. */
  private space: SymbolSpace | null = null;
  private mixed = false;

  begin(length: number): void {
    this.names = [];
    this.values = null;
    this.offsets = new Int32Array(length + 1);
    this.token = 0;
    this.length = length;
    this.space = null;
    this.mixed = false;
  }

  add(kind: string, token: number, name: string, value: number, symbol = -1): void {
    if (token !== this.token || this.length === 0) this.advance(kind, token);
    if (value !== 1 && this.values === null)
      this.values = new Array<number>(this.names.length).fill(1);
    const k = this.names.length;
    if (k === this.symbols.length) {
      const grown = new Int32Array(2 * k);
      grown.set(this.symbols);
      this.symbols = grown;
    }
    this.symbols[k] = symbol;
    this.names.push(name);
    if (this.values !== null) this.values.push(value);
  }

  /** {@link add} with value 1 for `name`, number `symbol` of `space`. */
  addSymbol(kind: string, token: number, name: string, symbol: number, space: SymbolSpace): void {
    if (space !== this.space) {
      // Numbers from two spaces in one list (an extractor's cache reset mid-sequence) cannot be
      // told apart: the list goes without.
      if (this.space !== null) this.mixed = true;
      this.space = space;
    }
    this.add(kind, token, name, 1, symbol);
  }

  get isEmpty(): boolean {
    return this.names.length === 0;
  }

  finish(): AttributeList {
    const end = this.names.length;
    for (let t = this.token + 1; t <= this.length; t++) this.offsets[t] = end;
    const list: AttributeList = {
      offsets: this.offsets,
      names: this.names,
      values: this.values === null ? null : Float64Array.from(this.values),
    };
    this.begin(0);
    return list;
  }

  /** Attaches the numbers of the list just finished to `list` (its names are still in scratch). */
  attach(list: AttributeList, space: SymbolSpace | null): void {
    if (space === null) return;
    attachSymbols(list, { space, symbols: this.symbols.slice(0, list.names.length) });
  }

  /** The space of the current list's numbers, or null when they are unusable (read before `finish`). */
  numberedSpace(): SymbolSpace | null {
    return this.mixed ? null : this.space;
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
    const stateSpace = this.stateList.numberedSpace();
    const transitionSpace = this.transitionList.numberedSpace();
    const state = this.stateList.finish();
    const transition = this.transitionList.finish();
    const sequence = {
      length: this.length,
      ...state,
      transition: hasTransition ? transition : null,
    };
    this.stateList.attach(sequence, stateSpace);
    if (hasTransition) this.transitionList.attach(transition, transitionSpace);
    return sequence;
  }
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
