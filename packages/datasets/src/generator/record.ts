import type { Random } from "@lagrange/core";
import {
  AFFIXES,
  CITIES,
  CONFERENCES,
  DEPARTMENTS,
  FIRST_NAMES,
  INSTITUTIONS,
  JOURNALS,
  PUBLISHERS,
  REPORT_PREFIXES,
  SERIES,
  SURNAMES,
  TITLE_ADJECTIVES,
  TITLE_NOUNS,
  TITLE_OBJECTS,
  UNIVERSITIES,
  WEB_HOSTS,
  WEB_PATHS,
} from "./vocabulary.js";

export const CITATION_KINDS = [
  "article",
  "inproceedings",
  "book",
  "incollection",
  "phdthesis",
  "mastersthesis",
  "techreport",
  "web",
] as const;
export type CitationKind = (typeof CITATION_KINDS)[number];

export interface PersonName {
  /** Given names, first name first; later ones are middle names. */
  readonly given: readonly string[];
  readonly last: string;
  readonly affix?: string;
}

export interface CalendarDate {
  readonly year: number;
  /** 0-based month. */
  readonly month: number;
  readonly day: number;
}

/** The bibliographic facts behind one generated citation, before any style renders them. */
export interface CitationRecord {
  readonly kind: CitationKind;
  readonly authors: readonly PersonName[];
  readonly editors?: readonly PersonName[];
  readonly title: string;
  /** [full name, abbreviation]. */
  readonly journal?: readonly [string, string];
  /** [full name, acronym] of the conference, or the book of an incollection. */
  readonly booktitle?: readonly [string, string];
  readonly volume?: number;
  readonly number?: number;
  readonly pages?: readonly [number, number];
  readonly year: number;
  /** 0-based month. */
  readonly month?: number;
  readonly publisher?: string;
  readonly address?: string;
  readonly edition?: number;
  /** [full name, abbreviation]. */
  readonly series?: readonly [string, string];
  readonly school?: string;
  readonly department?: string;
  readonly institution?: string;
  readonly reportNumber?: string;
  readonly url?: string;
  readonly accessed?: CalendarDate;
  readonly doi?: string;
  readonly arxiv?: string;
}

const KIND_WEIGHTS: readonly (readonly [CitationKind, number])[] = [
  ["article", 55],
  ["inproceedings", 14],
  ["book", 10],
  ["incollection", 6],
  ["phdthesis", 4],
  ["mastersthesis", 2],
  ["techreport", 5],
  ["web", 4],
];

function person(rng: Random, allowAffix: boolean): PersonName {
  const middles = rng.weighted([
    [0, 55],
    [1, 35],
    [2, 10],
  ]);
  const given = [rng.pick(FIRST_NAMES)];
  for (let i = 0; i < middles; i++) given.push(rng.pick(FIRST_NAMES));
  const last = rng.pick(SURNAMES);
  return allowAffix && rng.bool(0.03) ? { given, last, affix: rng.pick(AFFIXES) } : { given, last };
}

function people(rng: Random, allowAffix: boolean): PersonName[] {
  const count = rng.weighted([
    [1, 30],
    [2, 30],
    [3, 20],
    [4, 10],
    [5, 6],
    [7, 4],
  ]);
  return Array.from({ length: count }, () => person(rng, allowAffix));
}

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

function title(rng: Random): string {
  const adj = rng.pick(TITLE_ADJECTIVES);
  const noun = rng.pick(TITLE_NOUNS);
  const noun2 = rng.pick(TITLE_NOUNS);
  const object = rng.pick(TITLE_OBJECTS);
  const template = rng.int(0, 7);
  switch (template) {
    case 0:
      return `${capitalise(adj)} ${noun}s for ${object}`;
    case 1:
      return `On the ${noun} of ${object}`;
    case 2:
      return `${/^[aeiou]/.test(adj) ? "An" : "A"} ${adj} ${noun} for ${object}`;
    case 3:
      return `${capitalise(object)}: ${/^[aeiou]/.test(adj) ? "an" : "a"} ${adj} ${noun}`;
    case 4:
      return `Towards ${adj} ${noun} of ${object}`;
    case 5:
      return `${capitalise(adj)} ${noun} and ${noun2} in ${object}`;
    case 6:
      return `${capitalise(noun)} ${rng.pick(["bounds", "results", "estimates"])} for ${adj} ${object}`;
    default:
      return `${capitalise(object)} and ${adj} ${noun2}`;
  }
}

/** Draws the facts of one citation. */
export function randomRecord(rng: Random, kinds?: readonly CitationKind[]): CitationRecord {
  const allowed =
    kinds === undefined ? KIND_WEIGHTS : KIND_WEIGHTS.filter(([k]) => kinds.includes(k));
  if (allowed.length === 0) throw new RangeError(`no citation kind among ${kinds?.join(", ")}`);
  const kind = rng.weighted(allowed);
  const year = rng.int(1955, 2013);
  const authors = people(rng, true);
  const base = { kind, authors, title: title(rng), year };
  const pageStart = rng.int(1, 3000);
  const pages = [pageStart, pageStart + rng.int(1, 40)] as const;
  const maybeMonth = rng.bool(0.2) ? { month: rng.int(0, 11) } : {};
  const maybeDoi = rng.bool(0.06)
    ? {
        doi: `10.${rng.int(1000, 9999)}/${rng.pick(["j", "s", "PhysRevD", "jcp"])}.${year}.${rng.int(10, 999)}`,
      }
    : {};
  const maybeArxiv =
    year >= 1992 && rng.bool(0.05)
      ? {
          arxiv:
            year >= 2007
              ? `${String(year % 100).padStart(2, "0")}${String(rng.int(1, 12)).padStart(2, "0")}.${rng.int(1000, 9999)}`
              : `hep-th/${String(year % 100).padStart(2, "0")}${String(rng.int(1, 12)).padStart(2, "0")}${rng.int(100, 999)}`,
        }
      : {};
  const [publisher, publisherCity] = rng.pick(PUBLISHERS);
  switch (kind) {
    case "article":
      return {
        ...base,
        journal: rng.pick(JOURNALS),
        volume: rng.int(1, 500),
        ...(rng.bool(0.4) ? { number: rng.int(1, 12) } : {}),
        pages,
        ...maybeMonth,
        ...maybeDoi,
        ...maybeArxiv,
      };
    case "inproceedings": {
      const [name, acronym] = rng.pick(CONFERENCES);
      const held = Math.max(year, 1975);
      const nth = Math.max(1, held - rng.int(1965, 1990));
      return {
        ...base,
        year: held,
        booktitle: [`Proceedings of the ${ordinal(nth)} ${name}`, `${acronym} ${held}`],
        pages,
        ...(rng.bool(0.5) ? { address: rng.pick(CITIES) } : {}),
        ...(rng.bool(0.4)
          ? { publisher: rng.pick(["ACM", "IEEE", "Springer", "AAAI Press"]) }
          : {}),
        ...(rng.bool(0.2) ? { series: SERIES[0]!, volume: rng.int(1000, 8000) } : {}),
        ...maybeMonth,
        ...maybeDoi,
      };
    }
    case "book":
      return {
        ...base,
        publisher,
        address: publisherCity,
        ...(rng.bool(0.25) ? { edition: rng.int(2, 5) } : {}),
        ...(rng.bool(0.2) ? { series: rng.pick(SERIES), volume: rng.int(1, 300) } : {}),
      };
    case "incollection": {
      const [book] = pairedTitle(rng);
      return {
        ...base,
        editors: people(rng, false).slice(0, 3),
        booktitle: [book, book],
        publisher,
        address: publisherCity,
        pages,
        ...(rng.bool(0.3) ? { series: rng.pick(SERIES), volume: rng.int(1, 300) } : {}),
      };
    }
    case "phdthesis":
    case "mastersthesis":
      return {
        ...base,
        authors: authors.slice(0, 1),
        school: rng.pick(UNIVERSITIES),
        ...(rng.bool(0.3) ? { department: rng.pick(DEPARTMENTS) } : {}),
        ...(rng.bool(0.4) ? { address: rng.pick(CITIES) } : {}),
        ...maybeMonth,
      };
    case "techreport":
      return {
        ...base,
        institution: rng.bool(0.5) ? rng.pick(UNIVERSITIES) : rng.pick(INSTITUTIONS),
        reportNumber: `${rng.pick(REPORT_PREFIXES)}-${year}-${rng.int(1, 99)}`,
        ...(rng.bool(0.4) ? { address: rng.pick(CITIES) } : {}),
        ...maybeMonth,
      };
    case "web": {
      const host = rng.pick(WEB_HOSTS);
      const published = Math.max(year, rng.int(1996, 2012));
      const accessedYear = Math.min(2013, published + rng.int(0, 3));
      return {
        ...base,
        year: published,
        authors: rng.bool(0.5) ? authors.slice(0, 2) : [],
        url: `http://${host}/${rng.pick(WEB_PATHS)}${rng.bool(0.5) ? `/${rng.int(1, 9999)}` : ""}`,
        accessed: { year: accessedYear, month: rng.int(0, 11), day: rng.int(1, 28) },
      };
    }
  }
}

function pairedTitle(rng: Random): [string] {
  return [
    `${capitalise(rng.pick(TITLE_ADJECTIVES))} ${rng.pick(TITLE_NOUNS)}s in ${rng.pick(TITLE_OBJECTS)}`,
  ];
}

export function ordinal(n: number): string {
  const tens = n % 100;
  if (tens >= 11 && tens <= 13) return `${n}th`;
  return `${n}${["th", "st", "nd", "rd"][n % 10] ?? "th"}`;
}
