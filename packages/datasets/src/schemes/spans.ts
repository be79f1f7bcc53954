import { LagrangeError } from "@lagrange/core";
import {
  closes,
  continues,
  type Family,
  levelString,
  type ParsedLabel,
  parseLabels,
  type SchemeInfo,
  type SchemeName,
  type SchemeOptions,
  schemeInfo,
  TAG_B,
  TAG_E,
  TAG_I,
  TAG_S,
} from "./labels.js";

/**
 * A chunk (segment) of tokens `start..end-1`. `level` is 0 for flat labels; for hierarchical
 * labels it is the depth in the hierarchy and `type` is the path of types from the top
 * (`authors/person`), joined by the level separator, so a span is identified by its path.
 */
export interface Span {
  readonly type: string;
  readonly start: number;
  readonly end: number;
  readonly level: number;
}

/**
 * The chunks of a label sequence under `scheme`, at every level, ordered by start and then by
 * level (a parent before its children).
 *
 * Decoding is lenient in the way conlleval is: an `I-` that cannot continue a chunk (after `O`
 * or after another type) starts one, an IOE `I-` run without a closing `E-` ends where the run
 * ends, a BIOES `B-` without an `E-` ends where its run ends. Labels whose tag does not belong to
 * the scheme throw a LabelSchemeError. Chunks at level k+1 are decoded inside each chunk at
 * level k, so a child never crosses its parent's boundary.
 */
export function extractSpans(
  labels: readonly string[],
  scheme: SchemeName,
  options: SchemeOptions = {},
): Span[] {
  const info = schemeInfo(scheme);
  return spansOfParsed(parseLabels(labels, info, options), info.family, options);
}

export function spansOfParsed(
  parsed: readonly ParsedLabel[],
  family: Family,
  options: SchemeOptions,
): Span[] {
  let depth = 0;
  for (const label of parsed) if (label.length > depth) depth = label.length;
  const out: Span[] = [];
  if (depth === 0) return out;
  decodeRange(parsed, family, 0, depth, 0, parsed.length, "", options.levelSeparator ?? "/", out);
  return out;
}

function decodeRange(
  parsed: readonly ParsedLabel[],
  family: Family,
  level: number,
  depth: number,
  from: number,
  to: number,
  parentPath: string,
  separator: string,
  out: Span[],
): void {
  let open = -1;
  let openType = "";
  const close = (end: number): void => {
    if (open < 0) return;
    const type = level === 0 ? openType : `${parentPath}${separator}${openType}`;
    const start = open;
    open = -1;
    out.push({ type, start, end, level });
    if (level + 1 < depth) {
      decodeRange(parsed, family, level + 1, depth, start, end, type, separator, out);
    }
  };
  for (let i = from; i < to; i++) {
    const here = parsed[i]![level];
    if (here === undefined) {
      close(i);
      continue;
    }
    const goesOn = open >= 0 && here.type === openType && continues(family, here.tag);
    if (!goesOn) {
      close(i);
      open = i;
      openType = here.type;
    }
    if (closes(family, here.tag)) close(i + 1);
  }
  close(to);
}

/** Raised by encodeSpans for spans that no label sequence can express. */
export class SpanError extends LagrangeError {
  override readonly name = "SpanError";
  constructor(message: string) {
    super("bad-input", message);
  }
}

interface PlacedSpan {
  readonly span: Span;
  readonly ownType: string;
  readonly parent: number;
}

/**
 * Writes spans as a label sequence of `length` tokens in `scheme` (the canonical encoding:
 * extractSpans of the result gives the same spans). Spans of one level must not overlap; a span
 * at level k > 0 must lie inside a span at level k-1 whose type is its path prefix.
 */
export function encodeSpans(
  spans: readonly Span[],
  length: number,
  scheme: SchemeName,
  options: SchemeOptions = {},
): string[] {
  const info = schemeInfo(scheme);
  const separator = options.levelSeparator;
  const outside = options.outside ?? "O";
  const byLevel: Span[][] = [];
  for (let j = 0; j < spans.length; j++) {
    const span = spans[j]!;
    if (!Number.isInteger(span.start) || !Number.isInteger(span.end) || span.start < 0) {
      throw new SpanError(`span ${describe(span)}: start and end must be integers ≥ 0`);
    }
    if (span.end <= span.start || span.end > length) {
      throw new SpanError(`span ${describe(span)}: expected start < end ≤ ${length}`);
    }
    if (!Number.isInteger(span.level) || span.level < 0) {
      throw new SpanError(`span ${describe(span)}: level must be an integer ≥ 0`);
    }
    if (separator === undefined && span.level !== 0) {
      throw new SpanError(`span ${describe(span)}: flat labels have level 0 only`);
    }
    const row = byLevel[span.level];
    if (row === undefined) byLevel[span.level] = [span];
    else row.push(span);
  }
  const placed: PlacedSpan[][] = [];
  for (let level = 0; level < byLevel.length; level++) {
    const spansHere = (byLevel[level] ?? []).slice().sort((a, b) => a.start - b.start);
    if (spansHere.length === 0) {
      throw new SpanError(`spans at level ${level + 1} exist but none at level ${level}`);
    }
    const parents = level === 0 ? [] : placed[level - 1]!;
    const row: PlacedSpan[] = [];
    let p = 0;
    for (let j = 0; j < spansHere.length; j++) {
      const span = spansHere[j]!;
      if (j > 0 && spansHere[j - 1]!.end > span.start) {
        throw new SpanError(
          `spans ${describe(spansHere[j - 1]!)} and ${describe(span)} overlap at level ${level}`,
        );
      }
      let parent = -1;
      let ownType = span.type;
      if (level > 0) {
        while (p < parents.length && parents[p]!.span.end <= span.start) p++;
        const candidate = parents[p];
        if (
          candidate === undefined ||
          candidate.span.start > span.start ||
          candidate.span.end < span.end
        ) {
          throw new SpanError(`span ${describe(span)} is not inside a span of level ${level - 1}`);
        }
        const prefix = `${candidate.span.type}${separator}`;
        if (!span.type.startsWith(prefix)) {
          throw new SpanError(
            `span ${describe(span)}: its type must extend its parent's path "${candidate.span.type}"`,
          );
        }
        parent = p;
        ownType = span.type.slice(prefix.length);
      }
      if (ownType === "" || (separator !== undefined && ownType.includes(separator))) {
        throw new SpanError(
          `span ${describe(span)}: expected ${level + 1} non-empty path component(s) in its type`,
        );
      }
      row.push({ span, ownType, parent });
    }
    placed.push(row);
  }

  // Levels are written top-down, so each token's label is built by appending.
  const out = new Array<string>(length).fill(outside);
  const joiner = separator ?? "";
  for (let level = 0; level < placed.length; level++) {
    const row = placed[level]!;
    for (let j = 0; j < row.length; j++) {
      const { span, ownType, parent } = row[j]!;
      const previous = row[j - 1];
      const next = row[j + 1];
      const touchesPrevious =
        previous !== undefined &&
        previous.parent === parent &&
        previous.span.end === span.start &&
        previous.ownType === ownType;
      const touchesNext =
        next !== undefined &&
        next.parent === parent &&
        next.span.start === span.end &&
        next.ownType === ownType;
      const size = span.end - span.start;
      for (let i = span.start; i < span.end; i++) {
        const tag = tagFor(info, i - span.start, size, touchesPrevious, touchesNext);
        const here = levelString(info, tag, ownType);
        out[i] = level === 0 ? here : `${out[i]}${joiner}${here}`;
      }
    }
  }
  return out;
}

function tagFor(
  info: SchemeInfo,
  offset: number,
  size: number,
  touchesPrevious: boolean,
  touchesNext: boolean,
): typeof TAG_B | typeof TAG_I | typeof TAG_E | typeof TAG_S {
  const first = offset === 0;
  const last = offset === size - 1;
  switch (info.name) {
    case "IOB1":
      return first && touchesPrevious ? TAG_B : TAG_I;
    case "IOB2":
      return first ? TAG_B : TAG_I;
    case "IOE1":
      return last && touchesNext ? TAG_E : TAG_I;
    case "IOE2":
      return last ? TAG_E : TAG_I;
    default:
      if (size === 1) return TAG_S;
      return first ? TAG_B : last ? TAG_E : TAG_I;
  }
}

function describe(span: Span): string {
  return `{type: ${JSON.stringify(span.type)}, start: ${span.start}, end: ${span.end}, level: ${span.level}}`;
}

/**
 * Rewrites a label sequence from one scheme to another through its spans. Lossless: on a
 * sequence that is valid in `from`, converting to any scheme and back gives it again. An invalid
 * sequence comes out as the canonical encoding of its (leniently decoded) spans.
 */
export function convertScheme(
  labels: readonly string[],
  from: SchemeName,
  to: SchemeName,
  options: SchemeOptions = {},
): string[] {
  return encodeSpans(extractSpans(labels, from, options), labels.length, to, options);
}

/** Every label of a flat scheme over `types`: the outside label first, then per type its tags. */
export function schemeLabels(
  types: readonly string[],
  scheme: SchemeName,
  options: Pick<SchemeOptions, "outside"> = {},
): string[] {
  const info = schemeInfo(scheme);
  const out = [options.outside ?? "O"];
  for (const type of types) {
    for (const tag of info.tags) out.push(levelString(info, tag as 1 | 2 | 3 | 4, type));
  }
  return out;
}
