import { LagrangeError } from "@lagrange/core";

/**
 * Label parsing shared by span extraction, validity checks and transition masks.
 *
 * A label is `O` or `<tag>-<type>`; the tag is split off at the first hyphen (as conlleval
 * does), so types may contain hyphens (`B-person-first`). With a level separator (`/` for the
 * UMass citation labels) a label is a path of such labels, one per level of the hierarchy:
 * `I-authors/B-person/B-person-first`.
 */

/** The chunk representations of Tjong Kim Sang & Veenstra (1999) plus BIOES and its BILOU spelling. */
export type SchemeName = "IOB1" | "IOB2" | "IOE1" | "IOE2" | "BIOES" | "BILOU";

export const SCHEME_NAMES: readonly SchemeName[] = [
  "IOB1",
  "IOB2",
  "IOE1",
  "IOE2",
  "BIOES",
  "BILOU",
];

export interface SchemeOptions {
  /**
   * Splits labels into hierarchy levels on this string (`"/"` for UMass citation labels).
   * Absent: labels are flat and a type may contain any character.
   */
  readonly levelSeparator?: string;
  /** The outside label. Default `"O"`. */
  readonly outside?: string;
}

/** Raised for a label that the scheme cannot read; names the position and what was expected. */
export class LabelSchemeError extends LagrangeError {
  override readonly name = "LabelSchemeError";
  constructor(
    readonly position: number,
    readonly label: string,
    /** What was expected, without the label and position. */
    readonly detail: string,
  ) {
    super("bad-input", `label ${JSON.stringify(label)} at position ${position}: ${detail}`);
  }
}

// Tag kinds, normalised: BILOU's L and U read as E and S.
export const TAG_O = 0;
export const TAG_B = 1;
export const TAG_I = 2;
export const TAG_E = 3;
export const TAG_S = 4;
export type Tag = 0 | 1 | 2 | 3 | 4;

export type Family = "IOB" | "IOE" | "BIOES";

export interface SchemeInfo {
  readonly name: SchemeName;
  readonly family: Family;
  /** Tags (other than O) that may appear in this scheme, normalised. */
  readonly tags: readonly Tag[];
  /** Letters written for B, I, E, S when encoding. */
  readonly letters: Readonly<Record<1 | 2 | 3 | 4, string>>;
}

const BIES_LETTERS = { 1: "B", 2: "I", 3: "E", 4: "S" } as const;

const SCHEMES: Readonly<Record<SchemeName, SchemeInfo>> = {
  IOB1: { name: "IOB1", family: "IOB", tags: [TAG_B, TAG_I], letters: BIES_LETTERS },
  IOB2: { name: "IOB2", family: "IOB", tags: [TAG_B, TAG_I], letters: BIES_LETTERS },
  IOE1: { name: "IOE1", family: "IOE", tags: [TAG_I, TAG_E], letters: BIES_LETTERS },
  IOE2: { name: "IOE2", family: "IOE", tags: [TAG_I, TAG_E], letters: BIES_LETTERS },
  BIOES: {
    name: "BIOES",
    family: "BIOES",
    tags: [TAG_B, TAG_I, TAG_E, TAG_S],
    letters: BIES_LETTERS,
  },
  BILOU: {
    name: "BILOU",
    family: "BIOES",
    tags: [TAG_B, TAG_I, TAG_E, TAG_S],
    letters: { 1: "B", 2: "I", 3: "L", 4: "U" },
  },
};

export function schemeInfo(name: SchemeName): SchemeInfo {
  const info = SCHEMES[name];
  if (info === undefined) {
    throw new Error(
      `unknown label scheme ${JSON.stringify(name)}; expected one of ${SCHEME_NAMES.join(", ")}`,
    );
  }
  return info;
}

const LETTER_TAGS: Readonly<Record<string, Tag>> = {
  B: TAG_B,
  I: TAG_I,
  E: TAG_E,
  L: TAG_E,
  S: TAG_S,
  U: TAG_S,
};

/** One level of a parsed label: its tag and its own type (not the path). */
export interface LevelLabel {
  readonly tag: Tag;
  readonly type: string;
}

/** A parsed label: one entry per level; `O` is the empty array. */
export type ParsedLabel = readonly LevelLabel[];

const OUTSIDE: ParsedLabel = [];

/** Parses one label under `scheme`; throws a LabelSchemeError naming `position` when it cannot. */
export function parseLabel(
  label: string,
  info: SchemeInfo,
  options: SchemeOptions,
  position: number,
): ParsedLabel {
  const outside = options.outside ?? "O";
  if (label === outside) return OUTSIDE;
  const separator = options.levelSeparator;
  const parts = separator === undefined || separator === "" ? [label] : label.split(separator);
  const levels: LevelLabel[] = [];
  for (const part of parts) {
    if (part === outside) {
      throw new LabelSchemeError(
        position,
        label,
        `"${outside}" may only stand alone, not as a level of a hierarchical label`,
      );
    }
    const hyphen = part.indexOf("-");
    const letter = hyphen < 0 ? part : part.slice(0, hyphen);
    const tag = LETTER_TAGS[letter];
    if (hyphen <= 0 || tag === undefined || !info.tags.includes(tag)) {
      throw new LabelSchemeError(
        position,
        label,
        `expected "${outside}" or <tag>-<type> with a tag in {${schemeLetters(info).join(", ")}} for scheme ${info.name}`,
      );
    }
    const type = part.slice(hyphen + 1);
    if (type === "") {
      throw new LabelSchemeError(position, label, "the type after the tag is empty");
    }
    levels.push({ tag, type });
  }
  return levels;
}

function schemeLetters(info: SchemeInfo): string[] {
  const letters = info.tags.map((tag) => info.letters[tag as 1 | 2 | 3 | 4]);
  if (info.family === "BIOES") {
    // Both spellings are read, whichever the scheme writes.
    for (const alias of ["E", "S", "L", "U"]) if (!letters.includes(alias)) letters.push(alias);
  }
  return letters;
}

// Corpora repeat a few hundred label strings millions of times: parse each once per reading.
const parseCache = new Map<string, Map<string, ParsedLabel>>();
const PARSE_CACHE_LIMIT = 8192;

export function parseLabels(
  labels: readonly string[],
  info: SchemeInfo,
  options: SchemeOptions,
): ParsedLabel[] {
  const key = `${info.name}\u0000${options.levelSeparator ?? ""}\u0000${options.outside ?? "O"}`;
  let cache = parseCache.get(key);
  if (cache === undefined) {
    cache = new Map();
    parseCache.set(key, cache);
  }
  const parsed = new Array<ParsedLabel>(labels.length);
  for (let i = 0; i < labels.length; i++) {
    const label = labels[i]!;
    let found = cache.get(label);
    if (found === undefined) {
      found = parseLabel(label, info, options, i);
      if (cache.size >= PARSE_CACHE_LIMIT) cache.clear();
      cache.set(label, found);
    }
    parsed[i] = found;
  }
  return parsed;
}

/** The tag at `level`, or O when the label is shallower. */
export function tagAt(label: ParsedLabel, level: number): Tag {
  return label[level]?.tag ?? TAG_O;
}

/** Tags that keep an open chunk of the same type going (lenient decoding). */
export function continues(family: Family, tag: Tag): boolean {
  return family === "IOB" ? tag === TAG_I : tag === TAG_I || tag === TAG_E;
}

/** Tags that close their chunk at this token. */
export function closes(family: Family, tag: Tag): boolean {
  if (family === "IOE") return tag === TAG_E;
  if (family === "BIOES") return tag === TAG_E || tag === TAG_S;
  return false;
}

/**
 * Whether `next` continues the chunk that `previous` is in at `level` under lenient decoding.
 * Only meaningful when both are in the same parent chunk at every level above.
 */
export function continuesAt(
  family: Family,
  previous: ParsedLabel,
  next: ParsedLabel,
  level: number,
): boolean {
  const p = previous[level];
  const x = next[level];
  if (p === undefined || x === undefined) return false;
  return !closes(family, p.tag) && p.type === x.type && continues(family, x.tag);
}

/** The string of one level, as a scheme writes it. */
export function levelString(info: SchemeInfo, tag: Exclude<Tag, 0>, type: string): string {
  return `${info.letters[tag]}-${type}`;
}
