import type { SourcePosition } from "../sentence.js";
import { DataFormatError } from "./errors.js";
import { type LineParser, noRecordError, recordReaders, recordWriters } from "./text-format.js";

/**
 * The largest attribute value or instance weight read: a model's weights are at most 1e9 in
 * magnitude too, so a sentence's score (a sum of value × weight) stays far from overflowing to ±∞.
 */
const MAX_ATTRIBUTE_VALUE = 1e9;

/** One attribute of an item: a name and a weight (1 when the file gives none). */
export interface CrfsuiteAttribute {
  name: string;
  value: number;
}

/**
 * One sequence of CRFsuite's data format: a label and a list of attributes per item. `weight`
 * comes from an `@weight:w` declaration line (CRFsuite's instance weighting) and is absent when
 * the file has none.
 */
export interface CrfsuiteInstance {
  labels: string[];
  items: CrfsuiteAttribute[][];
  weight?: number;
  source?: SourcePosition;
}

/**
 * One field, unescaped the way CRFsuite's IWA reader does it: `\:` is a colon, `\\` a backslash,
 * any other backslash is literal; an unescaped colon separates the name from the value.
 */
function splitField(field: string): {
  name: string;
  value: string | undefined;
  extraColon: boolean;
} {
  if (!field.includes("\\") && !field.includes(":"))
    return { name: field, value: undefined, extraColon: false };
  let name = "";
  let value: string | undefined;
  let extraColon = false;
  let current = "";
  for (let i = 0; i < field.length; i++) {
    const c = field[i]!;
    if (c === "\\" && (field[i + 1] === ":" || field[i + 1] === "\\")) {
      current += field[++i];
    } else if (c === ":") {
      if (value === undefined) {
        name = current;
        value = "";
        current = "";
      } else {
        extraColon = true;
        current += c;
      }
    } else {
      current += c;
    }
  }
  if (value === undefined) name = current;
  else value = current;
  return { name, value, extraColon };
}

/** Escapes a name so that CRFsuite reads it back unchanged. */
export function escapeCrfsuiteName(name: string): string {
  return name.replace(/[\\:]/g, (c) => `\\${c}`);
}

class CrfsuiteParser implements LineParser<CrfsuiteInstance> {
  readonly out: CrfsuiteInstance[] = [];
  private labels: string[] = [];
  private items: CrfsuiteAttribute[][] = [];
  private weight: number | undefined;
  private firstLine = 0;
  private count = 0;

  constructor(private readonly file: string) {}

  line(text: string, lineNumber: number): void {
    if (text === "") {
      this.flush(lineNumber);
      return;
    }
    // Fields are separated by runs of tabs; a field starting with `#` comments out the rest of the line.
    const fields: { text: string; column: number }[] = [];
    let column = 1;
    for (const part of text.split("\t")) {
      if (part !== "") {
        if (part.startsWith("#")) break;
        fields.push({ text: part, column });
      }
      column += part.length + 1;
    }
    if (fields.length === 0) return;
    if (this.firstLine === 0) this.firstLine = lineNumber;
    const head = fields[0]!;
    const label = splitField(head.text);
    if (label.name.startsWith("@")) {
      if (label.name !== "@weight") {
        throw new DataFormatError(
          this.file,
          lineNumber,
          `unknown declaration ${JSON.stringify(label.name)}: expected @weight:<number>`,
          1,
        );
      }
      if (this.labels.length > 0) {
        throw new DataFormatError(
          this.file,
          lineNumber,
          "@weight after the first item: expected it before the sequence's items",
          1,
        );
      }
      this.weight = this.number(label.value, lineNumber, 1, "@weight");
      return;
    }
    if (label.name === "") {
      throw new DataFormatError(
        this.file,
        lineNumber,
        "empty label: expected `label TAB attribute[:weight] …`",
        1,
      );
    }
    if (label.extraColon) {
      throw new DataFormatError(
        this.file,
        lineNumber,
        "second unescaped ':' in the label: expected ':' escaped as \\:",
        1,
      );
    }
    const attributes: CrfsuiteAttribute[] = [];
    for (let f = 1; f < fields.length; f++) {
      const field = fields[f]!;
      const { name, value, extraColon } = splitField(field.text);
      if (extraColon) {
        throw new DataFormatError(
          this.file,
          lineNumber,
          `second unescaped ':' in ${JSON.stringify(field.text)}: expected name:weight with ':' in names escaped as \\:`,
          field.column,
        );
      }
      if (name === "") {
        throw new DataFormatError(
          this.file,
          lineNumber,
          `empty attribute name in ${JSON.stringify(field.text)}: expected name[:weight]`,
          field.column,
        );
      }
      attributes.push({
        name,
        value:
          value === undefined || value === ""
            ? 1
            : this.number(value, lineNumber, field.column, name),
      });
    }
    this.labels.push(label.name);
    this.items.push(attributes);
  }

  finish(lastLine: number): void {
    this.flush(lastLine + 1);
    if (this.count === 0) {
      throw noRecordError(this.file, lastLine, "no item line: expected at least one sequence");
    }
  }

  private number(text: string | undefined, line: number, column: number, what: string): number {
    const value = text === undefined || text.trim() === "" ? Number.NaN : Number(text);
    if (!(Math.abs(value) <= MAX_ATTRIBUTE_VALUE)) {
      throw new DataFormatError(
        this.file,
        line,
        `weight ${JSON.stringify(text ?? "")} of ${JSON.stringify(what)}: expected a finite number of magnitude at most 1e9`,
        column,
      );
    }
    return value;
  }

  private flush(lineNumber: number): void {
    if (this.labels.length === 0) {
      if (this.weight !== undefined) {
        throw new DataFormatError(
          this.file,
          lineNumber,
          "@weight declaration without items: expected item lines before the blank line",
        );
      }
      this.firstLine = 0;
      return;
    }
    const instance: CrfsuiteInstance = {
      labels: this.labels,
      items: this.items,
      source: { file: this.file, line: this.firstLine },
    };
    if (this.weight !== undefined) instance.weight = this.weight;
    this.out.push(instance);
    this.count++;
    this.labels = [];
    this.items = [];
    this.weight = undefined;
    this.firstLine = 0;
  }
}

const crfsuiteReaders = recordReaders(CrfsuiteParser);

/** Streams sequences in CRFsuite's data format (`label TAB attr[:weight] TAB …`, blank line between sequences). */
export const readCrfsuite = crfsuiteReaders.read;
export const parseCrfsuite = crfsuiteReaders.parse;
export const readCrfsuiteFile = crfsuiteReaders.readFile;

function formatInstance(instance: CrfsuiteInstance, index: number): string {
  const where = `sequence ${index}`;
  const n = instance.labels.length;
  if (n === 0) throw new RangeError(`${where}: a sequence needs at least one item`);
  if (instance.items.length !== n)
    throw new RangeError(`${where}: ${instance.items.length} items for ${n} labels`);
  let text = "";
  if (instance.weight !== undefined) {
    if (!(Math.abs(instance.weight) <= MAX_ATTRIBUTE_VALUE))
      throw new RangeError(
        `${where}: weight ${instance.weight} is not a number of magnitude ≤ 1e9`,
      );
    text += `@weight:${formatNumber(instance.weight)}\n`;
  }
  for (let i = 0; i < n; i++) {
    text += checkName(instance.labels[i]!, `${where}, item ${i + 1}: label`, true);
    for (const attribute of instance.items[i]!) {
      text += `\t${checkName(attribute.name, `${where}, item ${i + 1}: attribute`, false)}`;
      if (attribute.value !== 1) {
        if (!(Math.abs(attribute.value) <= MAX_ATTRIBUTE_VALUE)) {
          throw new RangeError(
            `${where}, item ${i + 1}: attribute ${JSON.stringify(attribute.name)} has weight ${attribute.value}`,
          );
        }
        text += `:${formatNumber(attribute.value)}`;
      }
    }
    text += "\n";
  }
  return `${text}\n`;
}

/** Shortest text that reads back as the same double; `-0` keeps its sign. */
function formatNumber(value: number): string {
  return Object.is(value, -0) ? "-0" : String(value);
}

function checkName(name: string, where: string, isLabel: boolean): string {
  if (
    name === "" ||
    /[\t\n\r]/.test(name) ||
    name.startsWith("#") ||
    (isLabel && name.startsWith("@"))
  ) {
    throw new RangeError(
      `${where} ${JSON.stringify(name)} cannot be written: it is empty, holds a tab or line break, or starts with '#'${isLabel ? " or '@'" : ""}`,
    );
  }
  return escapeCrfsuiteName(name);
}

const crfsuiteWriters = recordWriters(formatInstance);

/**
 * CRFsuite data text. Names are escaped (`:` as `\:`, `\` as `\\`); weights of 1 are left out,
 * as CRFsuite reads a bare attribute as weight 1.
 */
export const formatCrfsuite = crfsuiteWriters.format;
export const writeCrfsuiteFile = crfsuiteWriters.writeFile;
