import type { Random } from "@lagrange/core";
import type { CalendarDate, CitationRecord, PersonName } from "./record.js";
import { appendInside, type CitationElement, type CitationNode, el } from "./tree.js";
import {
  MASTERS_KINDS,
  MONTH_ABBREVIATIONS,
  MONTHS,
  REPORT_KINDS,
  THESIS_KINDS,
} from "./vocabulary.js";

type NameOrder = "first-last" | "last-first";

interface NameFormat {
  readonly order: NameOrder;
  /** Initials for every given name, else full first name and initials for middle names. */
  readonly initials: boolean;
  /** Drop the full stop after initials (`Burnashev N`). */
  readonly bareInitials?: boolean;
  /** Only the first person last-first (Chicago). */
  readonly firstOnlyInverted?: boolean;
}

export interface ListFormat extends NameFormat {
  /** Word before the last person: "and", "&", or "" for a plain comma list. */
  readonly conjunction: "and" | "&" | "";
  /** Comma before the conjunction: never, with three or more people (Oxford), always (APA). */
  readonly serialComma: "never" | "three-or-more" | "always";
  /** Write "et al." after this many people. */
  readonly etAlAfter?: number;
}

const initial = (name: string, bare: boolean) => (bare ? name.charAt(0) : `${name.charAt(0)}.`);

function personElement(
  person: PersonName,
  format: NameFormat,
  inverted: boolean,
  withAffix: boolean,
): CitationElement {
  const bare = format.bareInitials === true;
  const [first, ...middle] = person.given;
  const firstText = format.initials ? initial(first!, bare) : first!;
  const middleText = middle.map((m) => initial(m, bare)).join(" ");
  const parts: CitationNode[] = [];
  if (inverted) {
    parts.push(el("person-last", `${person.last},`), el("person-first", firstText));
    if (middleText !== "") parts.push(el("person-middle", middleText));
  } else {
    parts.push(el("person-first", firstText));
    if (middleText !== "") parts.push(el("person-middle", middleText));
    parts.push(el("person-last", person.last));
    if (withAffix && person.affix !== undefined) parts.push(el("person-affix", person.affix));
  }
  return el("person", parts);
}

/** Persons joined by commas and a conjunction; separators go inside the previous person. */
function personList(people: readonly PersonName[], format: ListFormat, withAffix: boolean) {
  const shown =
    format.etAlAfter !== undefined && people.length > format.etAlAfter
      ? people.slice(0, 1)
      : people;
  const nodes: CitationNode[] = [];
  shown.forEach((p, i) => {
    const inverted =
      format.order === "last-first" && (format.firstOnlyInverted !== true || i === 0);
    const element = personElement(p, format, inverted, withAffix);
    const isLast = i === shown.length - 1;
    const beforeLast = i === shown.length - 2;
    if (!isLast) {
      const needsComma =
        !beforeLast ||
        format.conjunction === "" ||
        format.serialComma === "always" ||
        (format.serialComma === "three-or-more" && shown.length > 2);
      if (needsComma) appendInside(element, ",");
    }
    nodes.push(element);
    if (beforeLast && format.conjunction !== "") nodes.push(format.conjunction);
  });
  if (shown.length < people.length) nodes.push("et", "al.");
  return nodes;
}

export function authors(
  record: CitationRecord,
  format: ListFormat,
  trailing: string,
): CitationNode[] {
  if (record.authors.length === 0) return [];
  const element = el("authors", personList(record.authors, format, true));
  appendInside(element, trailing);
  return [element];
}

export function editors(record: CitationRecord, format: ListFormat, before: string, after: string) {
  const people = record.editors ?? [];
  if (people.length === 0) return [];
  const nodes: CitationNode[] = [];
  if (before !== "") nodes.push(before);
  nodes.push(...personList(people, format, false));
  const element = el("editor", nodes);
  if (after !== "") element.children.push(...el("x", after).children);
  return [element];
}

export const leaf = (tag: string, text: string) => el(tag, text);

export function pageRange(record: CitationRecord, dash: string): string {
  const [a, b] = record.pages!;
  return `${a}${dash}${b}`;
}

export function monthName(month: number, abbreviated: boolean): string {
  return abbreviated ? MONTH_ABBREVIATIONS[month]! : MONTHS[month]!;
}

/** `<date> [<month> m </month>] <year> y </year> </date>` with `text` around the year. */
export function date(
  record: CitationRecord,
  yearText: (year: number) => string,
  month?: { abbreviated: boolean },
) {
  const parts: CitationNode[] = [];
  if (month !== undefined && record.month !== undefined) {
    parts.push(leaf("month", monthName(record.month, month.abbreviated)));
  }
  parts.push(leaf("year", yearText(record.year)));
  return el("date", parts);
}

export function accessDate(accessed: CalendarDate, trailing: string) {
  return el(
    "date",
    leaf("month", MONTHS[accessed.month]!),
    `${accessed.day},`,
    leaf("year", `${accessed.year}${trailing}`),
  );
}

export function referenceId(record: CitationRecord): string | undefined {
  if (record.doi !== undefined) return `doi:${record.doi}`;
  if (record.arxiv !== undefined) return `arXiv:${record.arxiv}`;
  return undefined;
}

export function thesisKind(record: CitationRecord, rng: Random): string {
  return rng.pick(record.kind === "mastersthesis" ? MASTERS_KINDS : THESIS_KINDS);
}

export const ordinalEdition = (n: number) =>
  ["", "First", "Second", "Third", "Fourth", "Fifth"][n] ?? `${n}th`;
export const shortEdition = (n: number) => `${n}${["th", "st", "nd", "rd"][n] ?? "th"}`;

/** Venue parts shared by the author-year styles (APA, Chicago, ACM) for the non-article kinds. */
export function otherVenue(
  record: CitationRecord,
  rng: Random,
  editorFormat: ListFormat,
  dash: string,
): CitationNode[] {
  const v: CitationNode[] = [];
  switch (record.kind) {
    case "book":
      if (record.edition !== undefined) {
        v.push(leaf("edition", `(${shortEdition(record.edition)} ed.).`));
      }
      if (record.series !== undefined) {
        v.push(leaf("series", `${record.series[0]},`), leaf("volume", `vol. ${record.volume}.`));
      }
      v.push(leaf("address", `${record.address}:`), leaf("publisher", `${record.publisher}.`));
      return v;
    case "incollection":
      v.push("In");
      v.push(
        ...editors(record, editorFormat, "", record.editors!.length > 1 ? "(Eds.)," : "(Ed.),"),
      );
      v.push(leaf("booktitle", record.booktitle![0]));
      v.push(leaf("pages", `(pp. ${pageRange(record, dash)}).`));
      v.push(leaf("address", `${record.address}:`), leaf("publisher", `${record.publisher}.`));
      return v;
    case "phdthesis":
    case "mastersthesis":
      v.push(leaf("thesis", `${thesisKind(record, rng)},`));
      if (record.department !== undefined) v.push(leaf("department", `${record.department},`));
      v.push(leaf("school", `${record.school}.`));
      return v;
    case "techreport":
      v.push(
        leaf("tech", rng.pick(REPORT_KINDS)),
        leaf("number", `${record.reportNumber}.`),
        leaf("institution", `${record.institution}.`),
      );
      return v;
    case "web":
      v.push(rng.bool(0.5) ? "Retrieved from" : "Available from:");
      v.push(leaf("web", record.url!));
      return v;
    default:
      return v;
  }
}
