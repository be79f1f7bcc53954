import { AttributeSequenceBuilder } from "./builder.js";
import { definePreset } from "./define-preset.js";
import { FeatureInputError, TemplateSyntaxError } from "./errors.js";
import { ADD_NUMBERED, SymbolSpace } from "./symbols.js";
import type { AttributeSink, Preset, Rows } from "./types.js";

/** CRF++ refuses `%x[row,col]` with |row| beyond this (`kMaxContextSize` in feature.cpp). */
export const CRFPP_MAX_CONTEXT = 8;

/** One `U`/`B` line of a template, with its macros pre-split for fast expansion. */
export interface TemplateLine {
  readonly kind: "U" | "B";
  /** The line as written (trimmed); the expanded attribute is this text with macros replaced. */
  readonly text: string;
  /** 1-based line number in the template source. */
  readonly line: number;
  /** Text between macros: `literals.length === rows.length + 1`. */
  readonly literals: readonly string[];
  readonly rows: readonly number[];
  readonly columns: readonly number[];
}

/** A parsed CRF++ template, usable as a {@link Preset}. */
export interface CrfppTemplate extends Preset {
  readonly unigram: readonly TemplateLine[];
  /** `B` lines with at least one macro: observation-conditioned transition attributes. */
  readonly bigram: readonly TemplateLine[];
  /**
   * Whether the template asks for plain label-bigram features (a `B` line without macros, as in
   * CRF++'s usual lone `B`). CRF++ has no transition features at all without one.
   */
  readonly labelBigram: boolean;
  /** Every row must have at least this many columns (largest column referenced + 1). */
  readonly minColumns: number;
}

export interface TemplateOptions {
  /** Names the template in errors (a file path, say). Default `"template"`. */
  readonly source?: string;
  /** Preset name. Default: `source`. */
  readonly name?: string;
  readonly description?: string;
  /**
   * Names of the input columns, left to right (a column layout such as `word, pos, chunk`): a
   * macro may then name its column, `%x[0,pos]`, as well as number it.
   */
  readonly columnNames?: readonly string[];
}

const BOS_MARKERS = Array.from({ length: CRFPP_MAX_CONTEXT }, (_, k) => `_B-${k + 1}`);
const EOS_MARKERS = Array.from({ length: CRFPP_MAX_CONTEXT }, (_, k) => `_B+${k + 1}`);

/** CRF++'s value of `%x[row,col]` at token `t`: the cell, or `_B-k` / `_B+k` beyond the ends. */
export function expandMacro(rows: Rows, t: number, row: number, col: number): string {
  const index = t + row;
  if (index < 0) return BOS_MARKERS[-index - 1]!;
  if (index >= rows.length) return EOS_MARKERS[index - rows.length]!;
  return rows[index]![col]!;
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

function describe(ch: string | undefined): string {
  return ch === undefined ? "the end of the line" : JSON.stringify(ch);
}

function isNameStart(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95;
}

function parseLine(
  source: string,
  lineNumber: number,
  raw: string,
  leading: number,
  kind: "U" | "B",
  columnNames: readonly string[] | undefined,
): TemplateLine {
  const literals: string[] = [];
  const rows: number[] = [];
  const columns: number[] = [];
  let literal = "";
  let i = 0;
  const fail = (at: number, detail: string): never => {
    throw new TemplateSyntaxError(source, lineNumber, leading + at + 1, detail);
  };
  const readInteger = (what: string, signed: boolean): number => {
    const start = i;
    let negative = false;
    if (signed && raw[i] === "-") {
      negative = true;
      i++;
    }
    let value = 0;
    const digitsStart = i;
    while (i < raw.length && isDigit(raw.charCodeAt(i))) {
      value = value * 10 + (raw.charCodeAt(i) - 48);
      i++;
    }
    if (i === digitsStart) {
      fail(
        i,
        `expected ${what} (${signed ? "an integer" : "a non-negative integer"}) in %x[row,col], got ${describe(raw[i])}`,
      );
    }
    if (value > 1e6) fail(start, `${what} ${raw.slice(start, i)} is too large`);
    return negative ? -value : value;
  };
  const readColumnName = (): number => {
    const start = i;
    while (i < raw.length && raw[i] !== "]" && raw[i] !== ",") i++;
    const name = raw.slice(start, i);
    const index = columnNames === undefined ? -1 : columnNames.indexOf(name);
    if (index < 0) {
      fail(
        start,
        columnNames === undefined
          ? `column ${JSON.stringify(name)} is a name, but no column layout names the columns (give one, or number the column)`
          : `unknown column ${JSON.stringify(name)}; the layout's columns are ${columnNames.join(", ")}`,
      );
    }
    return index;
  };
  const expect = (ch: string, context: string): void => {
    if (raw[i] !== ch)
      fail(i, `expected '${ch}' ${context} in %x[row,col], got ${describe(raw[i])}`);
    i++;
  };
  while (i < raw.length) {
    const ch = raw[i]!;
    if (ch !== "%") {
      literal += ch;
      i++;
      continue;
    }
    const macroStart = i;
    i++;
    if (raw[i] !== "x") {
      fail(
        i,
        `expected 'x' after '%' (CRF++ knows only the %x[row,col] macro), got ${describe(raw[i])}`,
      );
    }
    i++;
    expect("[", "after '%x'");
    const row = readInteger("the row offset", true);
    expect(",", "after the row offset");
    const col = isNameStart(raw.charCodeAt(i))
      ? readColumnName()
      : readInteger("the column index", false);
    expect("]", "after the column index");
    if (Math.abs(row) > CRFPP_MAX_CONTEXT) {
      fail(
        macroStart,
        `row offset ${row} is outside CRF++'s context window [-${CRFPP_MAX_CONTEXT}, ${CRFPP_MAX_CONTEXT}]`,
      );
    }
    literals.push(literal);
    literal = "";
    rows.push(row);
    columns.push(col);
  }
  literals.push(literal);
  return { kind, text: raw, line: lineNumber, literals, rows, columns };
}

/** Macro values → the expanded name's number, one map level per macro (see FieldTemplateSet). */
type NameTrie = Map<string, NameTrie | number>;

const MAX_CACHED_NAMES = 1_000_000;

/**
 * Expands template lines, handing out one string object per distinct attribute, numbered in
 * `space` (see {@link SymbolSpace}).
 */
class LineExpander {
  private tries: NameTrie[];
  space = new SymbolSpace();
  /** The name of the last expansion, numbered or not. */
  name = "";

  constructor(private readonly lines: readonly TemplateLine[]) {
    this.tries = lines.map(() => new Map());
  }

  /** Expands line `index` at token t into `name`; returns its number, or −1 when it has none. */
  expand(index: number, rows: Rows, t: number): number {
    const line = this.lines[index]!;
    const { literals, rows: offsets, columns } = line;
    const last = offsets.length - 1;
    if (last < 0) {
      this.name = literals[0]!;
      return -1;
    }
    let node = this.tries[index]!;
    for (let m = 0; m < last; m++) {
      const value = expandMacro(rows, t, offsets[m]!, columns[m]!);
      let next = node.get(value) as NameTrie | undefined;
      if (next === undefined) {
        next = new Map();
        node.set(value, next);
      }
      node = next;
    }
    const value = expandMacro(rows, t, offsets[last]!, columns[last]!);
    let symbol = node.get(value) as number | undefined;
    if (symbol === undefined) {
      let name = literals[0]!;
      for (let m = 0; m <= last; m++) {
        name += expandMacro(rows, t, offsets[m]!, columns[m]!) + literals[m + 1]!;
      }
      if (this.space.size >= MAX_CACHED_NAMES) {
        this.tries = this.lines.map(() => new Map());
        this.space = new SymbolSpace();
        this.name = name;
        return -1;
      }
      symbol = this.space.add(name);
      node.set(value, symbol);
    }
    this.name = this.space.names[symbol]!;
    return symbol;
  }

  /** Expands line `index` at token t into a state attribute of `sink`. */
  state(index: number, rows: Rows, t: number, sink: AttributeSink): void {
    const symbol = this.expand(index, rows, t);
    if (symbol >= 0 && sink instanceof AttributeSequenceBuilder) {
      sink[ADD_NUMBERED](false, t, this.name, symbol, this.space);
    } else {
      sink.state(t, this.name, 1);
    }
  }

  /** Expands line `index` at token t ≥ 1 into a transition attribute of `sink`. */
  transition(index: number, rows: Rows, t: number, sink: AttributeSink): void {
    const symbol = this.expand(index, rows, t);
    if (symbol >= 0 && sink instanceof AttributeSequenceBuilder) {
      sink[ADD_NUMBERED](true, t, this.name, symbol, this.space);
    } else {
      sink.transition(t, this.name, 1);
    }
  }
}

/**
 * Parses a CRF++ feature template. Lines starting with `U` give state attributes, lines starting
 * with `B` transition attributes; `#` starts a comment line; blank lines are skipped. Each line
 * expands, per token, to its own text with every `%x[row,col]` replaced by column `col` of the
 * token `row` positions away (`_B-1`, `_B-2`, … before the sentence, `_B+1`, … after it), exactly
 * as CRF++'s `FeatureIndex::applyRule`: `U02:%x[0,0]` on "Confidence" gives `U02:Confidence`.
 * As in CRF++, `B` attributes exist for tokens 1…n−1 (the transition into that token).
 *
 * Stricter than CRF++ where CRF++ would fail later or read past the macro: a malformed macro or an
 * unknown line type throws a {@link TemplateSyntaxError} naming the line and column. Surrounding
 * whitespace (and a Windows `\r`) is trimmed from each line.
 */
export function parseTemplate(text: string, options: TemplateOptions = {}): CrfppTemplate {
  const source = options.source ?? "template";
  const unigram: TemplateLine[] = [];
  const bigram: TemplateLine[] = [];
  let labelBigram = false;
  const lines = text.split("\n");
  for (let l = 0; l < lines.length; l++) {
    const original = lines[l]!;
    const raw = original.trim();
    if (raw.length === 0 || raw[0] === "#") continue;
    const leading = original.length - original.trimStart().length;
    const first = raw[0]!;
    if (first !== "U" && first !== "B") {
      throw new TemplateSyntaxError(
        source,
        l + 1,
        leading + 1,
        `expected a line starting with 'U' (state template), 'B' (transition template) or '#' (comment), got ${JSON.stringify(first)}`,
      );
    }
    const line = parseLine(source, l + 1, raw, leading, first, options.columnNames);
    if (first === "U") unigram.push(line);
    else if (line.rows.length === 0) labelBigram = true;
    else bigram.push(line);
  }
  let minColumns = 0;
  let widest: TemplateLine | null = null;
  for (const line of [...unigram, ...bigram]) {
    for (const col of line.columns) {
      if (col + 1 > minColumns) {
        minColumns = col + 1;
        widest = line;
      }
    }
  }
  const name = options.name ?? source;

  const unigramExpander = new LineExpander(unigram);
  const bigramExpander = new LineExpander(bigram);
  const check = (rows: Rows): void => {
    for (let t = 0; t < rows.length; t++) {
      const row = rows[t]!;
      if (row.length < minColumns) {
        throw new FeatureInputError(
          name,
          t,
          `has ${row.length} column(s) but template line ${widest!.line} (${widest!.text}) reads column ${minColumns - 1}`,
        );
      }
    }
  };
  const preset = definePreset<null>({
    name,
    description:
      options.description ??
      `CRF++ template ${source}: ${unigram.length} U line(s), ${bigram.length} observation-conditioned B line(s)`,
    columns: Array.from(
      { length: minColumns },
      (_, c) => options.columnNames?.[c] ?? `column ${c}`,
    ),
    ends: false,
    check,
    prepare: () => null,
    token(rows, _sentence, t, sink) {
      for (let k = 0; k < unigram.length; k++) unigramExpander.state(k, rows, t, sink);
      if (t > 0) {
        for (let k = 0; k < bigram.length; k++) bigramExpander.transition(k, rows, t, sink);
      }
    },
  });
  return Object.assign(preset, { unigram, bigram, labelBigram, minColumns });
}
