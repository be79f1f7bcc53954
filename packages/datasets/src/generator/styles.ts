import type { Random } from "@lagrange/core";
import {
  accessDate,
  authors,
  date,
  editors,
  type ListFormat,
  leaf,
  monthName,
  ordinalEdition,
  otherVenue,
  pageRange,
  referenceId,
  shortEdition,
  thesisKind,
} from "./citation-fields.js";
import type { CitationRecord } from "./record.js";
import { type CitationNode, el } from "./tree.js";
import { REPORT_KINDS } from "./vocabulary.js";

export const CITATION_STYLES = [
  "physics",
  "astro",
  "ieee",
  "acm",
  "apa",
  "chicago",
  "plain",
  "lncs",
] as const;
/**
 * physics: APS/arXiv numbered (`[3] A. B. Smith and C. Lee, Phys. Rev. D 40, 3125 (1989).`);
 * astro: AAS (`Smith, J. R., & Lee, C. 1995, ApJ, 123, 45`); ieee; acm (author-year
 * SIGPLAN/ACM reference format); apa (7th ed.); chicago (author-date); plain (BibTeX
 * plain/abbrv); lncs (Springer).
 */
export type CitationStyle = (typeof CITATION_STYLES)[number];

function refMarker(rng: Random, index: number, style: CitationStyle): CitationNode[] {
  switch (style) {
    case "ieee":
      return [leaf("ref-marker", `[${index}]`)];
    case "physics":
    case "plain":
    case "lncs":
      return rng.bool(0.8) ? [leaf("ref-marker", rng.bool(0.75) ? `[${index}]` : `${index}.`)] : [];
    case "acm":
      return rng.bool(0.4) ? [leaf("ref-marker", `[${index}]`)] : [];
    default:
      return [];
  }
}

type StyleRenderer = (record: CitationRecord, rng: Random, index: number) => CitationNode[];

const physics: StyleRenderer = (r, rng, index) => {
  const out = refMarker(rng, index, "physics");
  const names: ListFormat = {
    order: "first-last",
    initials: true,
    conjunction: rng.bool(0.6) ? "and" : "",
    serialComma: "never",
    etAlAfter: rng.bool(0.3) ? 3 : 10,
  };
  out.push(...authors(r, names, ","));
  const titled = r.kind !== "article" || rng.bool(0.4);
  if (titled) out.push(leaf("title", `${r.title},`));
  const dash = rng.pick(["--", "-"]);
  const v: CitationNode[] = [];
  switch (r.kind) {
    case "article":
      if (rng.bool(0.6)) {
        v.push(leaf("journal", r.journal![1]), leaf("volume", `${r.volume},`));
        v.push(leaf("pages", `${r.pages![0]}`), el("date", leaf("year", `(${r.year}).`)));
      } else {
        v.push(leaf("journal", r.journal![1]), leaf("volume", `${r.volume}`));
        v.push(
          el("date", leaf("year", `(${r.year})`)),
          leaf("pages", `${r.pages![0]}${dash}${r.pages![1]}.`),
        );
      }
      break;
    case "inproceedings":
    case "incollection":
      v.push("in", leaf("booktitle", `${r.booktitle![r.kind === "inproceedings" ? 1 : 0]},`));
      if (r.editors !== undefined) {
        v.push(...editors(r, { ...names, conjunction: "and" }, "edited by", ""));
      }
      if (r.publisher !== undefined) v.push(leaf("publisher", `(${r.publisher},`));
      v.push(el("date", leaf("year", `${r.year}${r.publisher !== undefined ? ")" : ""},`)));
      v.push(leaf("pages", `p. ${r.pages![0]}.`));
      break;
    case "book":
      v.push(leaf("publisher", `(${r.publisher},`), leaf("address", `${r.address},`));
      v.push(el("date", leaf("year", `${r.year}).`)));
      break;
    default:
      v.push(...otherVenue(r, rng, { ...names, conjunction: "and" }, dash));
      v.push(el("date", leaf("year", `(${r.year}).`)));
  }
  out.push(el("venue", v));
  return out;
};

const astro: StyleRenderer = (r, rng) => {
  const names: ListFormat = {
    order: "last-first",
    initials: true,
    bareInitials: rng.bool(0.15),
    conjunction: rng.bool(0.7) ? "&" : "and",
    serialComma: "always",
    etAlAfter: 5,
  };
  const out = authors(r, names, "");
  const v: CitationNode[] = [el("date", leaf("year", `${r.year},`))];
  switch (r.kind) {
    case "article":
      v.push(leaf("journal", `${r.journal![1]},`), leaf("volume", `${r.volume},`));
      v.push(leaf("pages", `${r.pages![0]}`));
      break;
    case "inproceedings":
    case "incollection":
      v.push("in", leaf("booktitle", `${r.booktitle![0]},`));
      if (r.editors !== undefined) {
        v.push(...editors(r, { ...names, order: "first-last", conjunction: "&" }, "ed.", ","));
      }
      if (r.series !== undefined)
        v.push(leaf("series", `(${r.series[1]}`), leaf("volume", `${r.volume})`));
      v.push(leaf("pages", `${r.pages![0]}`));
      break;
    case "book":
      out.push(leaf("title", `${r.title},`));
      v.push(leaf("publisher", `(${r.publisher},`), leaf("address", `${r.address})`));
      break;
    default:
      out.push(leaf("title", `${r.title},`));
      v.push(...otherVenue(r, rng, names, "-"));
  }
  out.push(el("venue", v));
  return out;
};

const ieee: StyleRenderer = (r, rng, index) => {
  const out = refMarker(rng, index, "ieee");
  const names: ListFormat = {
    order: "first-last",
    initials: true,
    conjunction: "and",
    serialComma: "three-or-more",
    etAlAfter: 6,
  };
  out.push(...authors(r, names, ","));
  out.push(leaf("title", r.kind === "book" ? `${r.title}.` : `"${r.title},"`));
  const v: CitationNode[] = [];
  const dash = rng.pick(["--", "-", "–"]);
  const dateParts = (end: string) => date(r, (y) => `${y}${end}`, { abbreviated: true });
  switch (r.kind) {
    case "article":
      v.push(leaf("journal", `${r.journal![1]},`), leaf("volume", `vol. ${r.volume},`));
      if (r.number !== undefined) v.push(leaf("number", `no. ${r.number},`));
      v.push(leaf("pages", `pp. ${pageRange(r, dash)},`), dateParts("."));
      break;
    case "inproceedings":
      v.push("in", leaf("booktitle", `${r.booktitle![0]} (${r.booktitle![1]}),`));
      if (r.address !== undefined) v.push(leaf("address", `${r.address},`));
      v.push(dateParts(","), leaf("pages", `pp. ${pageRange(r, dash)}.`));
      break;
    case "incollection":
      v.push("in", leaf("booktitle", `${r.booktitle![0]},`));
      v.push(...editors(r, names, "", r.editors!.length > 1 ? ", Eds." : ", Ed."));
      v.push(leaf("address", `${r.address}:`), leaf("publisher", `${r.publisher},`));
      v.push(dateParts(","), leaf("pages", `pp. ${pageRange(r, dash)}.`));
      break;
    case "book":
      if (r.edition !== undefined) v.push(leaf("edition", `${shortEdition(r.edition)} ed.`));
      v.push(
        leaf("address", `${r.address}:`),
        leaf("publisher", `${r.publisher},`),
        dateParts("."),
      );
      break;
    case "phdthesis":
    case "mastersthesis":
      v.push(leaf("thesis", `${thesisKind(r, rng)},`), leaf("school", `${r.school},`));
      if (r.address !== undefined) v.push(leaf("address", `${r.address},`));
      v.push(dateParts("."));
      break;
    case "techreport":
      v.push(leaf("institution", `${r.institution},`));
      if (r.address !== undefined) v.push(leaf("address", `${r.address},`));
      v.push(leaf("tech", "Tech. Rep."), leaf("number", `${r.reportNumber},`), dateParts("."));
      break;
    case "web":
      v.push("[Online]. Available:", leaf("web", r.url!));
      break;
  }
  out.push(el("venue", v));
  const id = referenceId(r);
  if (id !== undefined && r.kind === "article") out.push(leaf("reference_id", id));
  return out;
};

const acm: StyleRenderer = (r, rng, index) => {
  const out = refMarker(rng, index, "acm");
  const names: ListFormat = {
    order: "first-last",
    initials: false,
    conjunction: "and",
    serialComma: "never",
  };
  out.push(...authors(r, names, "."));
  out.push(el("date", leaf("year", `${r.year}.`)));
  out.push(leaf("title", `${r.title}.`));
  const v: CitationNode[] = [];
  switch (r.kind) {
    case "article":
      v.push(leaf("journal", r.journal![0]), leaf("volume", `${r.volume},`));
      if (r.number !== undefined && r.month !== undefined) {
        v.push(leaf("number", `${r.number}`));
        v.push(
          el("date", leaf("month", `(${monthName(r.month, false)}`), leaf("year", `${r.year}),`)),
        );
      } else if (r.number !== undefined) {
        v.push(leaf("number", `${r.number},`));
      }
      v.push(leaf("pages", `${pageRange(r, "--")}.`));
      break;
    case "inproceedings":
      v.push(leaf("booktitle", `In ${r.booktitle![0]} (${r.booktitle![1]}).`));
      if (r.publisher !== undefined) v.push(leaf("publisher", `${r.publisher},`));
      if (r.address !== undefined) v.push(leaf("address", `${r.address},`));
      v.push(leaf("pages", `${pageRange(r, "--")}.`));
      break;
    case "web":
      v.push(leaf("web", `${r.url}`));
      v.push(leaf("note", "Accessed:"), accessDate(r.accessed!, "."));
      break;
    default:
      v.push(...otherVenue(r, rng, names, "--"));
  }
  out.push(el("venue", v));
  const id = referenceId(r);
  if (id !== undefined && rng.bool(0.7)) out.push(leaf("reference_id", id));
  return out;
};

const apa: StyleRenderer = (r, rng) => {
  const names: ListFormat = {
    order: "last-first",
    initials: true,
    conjunction: "&",
    serialComma: "always",
    etAlAfter: 7,
  };
  const out = authors(r, names, "");
  if (r.authors.length === 0) out.push(leaf("title", `${r.title}.`));
  out.push(el("date", leaf("year", `(${r.year}).`)));
  const v: CitationNode[] = [];
  switch (r.kind) {
    case "article":
      out.push(leaf("title", `${r.title}.`));
      v.push(leaf("journal", `${r.journal![0]},`));
      if (r.number !== undefined) {
        v.push(leaf("volume", `${r.volume}`), leaf("number", `(${r.number}),`));
      } else {
        v.push(leaf("volume", `${r.volume},`));
      }
      v.push(leaf("pages", `${pageRange(r, "-")}.`));
      break;
    case "inproceedings":
      out.push(leaf("title", `${r.title}.`));
      v.push(
        "In",
        leaf("booktitle", `${r.booktitle![0]}`),
        leaf("pages", `(pp. ${pageRange(r, "-")}).`),
      );
      if (r.publisher !== undefined) v.push(leaf("publisher", `${r.publisher}.`));
      break;
    case "web":
      if (r.authors.length > 0) out.push(leaf("title", `${r.title}.`));
      v.push("Retrieved", accessDate(r.accessed!, ","), "from", leaf("web", r.url!));
      break;
    default:
      out.push(leaf("title", `${r.title}.`));
      v.push(...otherVenue(r, rng, { ...names, order: "first-last" }, "-"));
  }
  out.push(el("venue", v));
  const id = referenceId(r);
  if (id !== undefined)
    out.push(leaf("reference_id", id.startsWith("doi:") ? `https://doi.org/${r.doi}` : id));
  return out;
};

const chicago: StyleRenderer = (r, rng) => {
  const names: ListFormat = {
    order: "last-first",
    firstOnlyInverted: true,
    initials: false,
    conjunction: "and",
    serialComma: "three-or-more",
  };
  const out = authors(r, names, ".");
  out.push(el("date", leaf("year", `${r.year}.`)));
  const v: CitationNode[] = [];
  switch (r.kind) {
    case "article":
      out.push(leaf("title", `"${r.title}."`));
      v.push(leaf("journal", r.journal![0]));
      if (r.number !== undefined) {
        v.push(leaf("volume", `${r.volume}`), leaf("number", `(${r.number}):`));
      } else {
        v.push(leaf("volume", `${r.volume}:`));
      }
      v.push(leaf("pages", `${pageRange(r, "–")}.`));
      break;
    case "inproceedings":
      out.push(leaf("title", `"${r.title}."`));
      v.push(
        "In",
        leaf("booktitle", `${r.booktitle![0]},`),
        leaf("pages", `${pageRange(r, "–")}.`),
      );
      if (r.address !== undefined && r.publisher !== undefined) {
        v.push(leaf("address", `${r.address}:`), leaf("publisher", `${r.publisher}.`));
      }
      break;
    case "incollection":
      out.push(leaf("title", `"${r.title}."`));
      v.push("In", leaf("booktitle", `${r.booktitle![0]},`));
      v.push(...editors(r, { ...names, order: "first-last" }, "edited by", ","));
      v.push(leaf("pages", `${pageRange(r, "–")}.`));
      v.push(leaf("address", `${r.address}:`), leaf("publisher", `${r.publisher}.`));
      break;
    case "book":
      out.push(leaf("title", `${r.title}.`));
      if (r.edition !== undefined) v.push(leaf("edition", `${shortEdition(r.edition)} ed.`));
      v.push(leaf("address", `${r.address}:`), leaf("publisher", `${r.publisher}.`));
      break;
    case "web":
      out.push(leaf("title", `"${r.title}."`));
      v.push(leaf("web", `${r.url}.`), leaf("note", "Accessed"), accessDate(r.accessed!, "."));
      break;
    default:
      out.push(leaf("title", `"${r.title}."`));
      v.push(...otherVenue(r, rng, names, "–"));
  }
  out.push(el("venue", v));
  return out;
};

const plain: StyleRenderer = (r, rng, index) => {
  const out = refMarker(rng, index, "plain");
  const names: ListFormat = {
    order: "first-last",
    initials: rng.bool(0.6),
    conjunction: "and",
    serialComma: "three-or-more",
  };
  out.push(...authors(r, names, "."));
  out.push(leaf("title", `${r.title}.`));
  const v: CitationNode[] = [];
  const year = (end: string) => date(r, (y) => `${y}${end}`, { abbreviated: false });
  switch (r.kind) {
    case "article":
      v.push(leaf("journal", `${r.journal![rng.bool(0.5) ? 0 : 1]},`));
      if (r.number !== undefined) {
        v.push(leaf("volume", `${r.volume}`), leaf("number", `(${r.number}):`));
        v.push(leaf("pages", `${pageRange(r, "--")},`));
      } else {
        v.push(leaf("volume", `${r.volume}:`), leaf("pages", `${pageRange(r, "--")},`));
      }
      v.push(year("."));
      break;
    case "inproceedings":
    case "incollection":
      v.push("In");
      if (r.editors !== undefined) {
        v.push(...editors(r, names, "", r.editors.length > 1 ? ", editors," : ", editor,"));
      }
      v.push(leaf("booktitle", `${r.booktitle![0]},`));
      if (r.series !== undefined) {
        v.push(leaf("volume", `volume ${r.volume}`), "of", leaf("series", `${r.series[0]},`));
      }
      v.push(leaf("pages", `pages ${pageRange(r, "--")},`));
      if (r.address !== undefined) v.push(leaf("address", `${r.address},`));
      v.push(year("."));
      if (r.publisher !== undefined) v.push(leaf("publisher", `${r.publisher}.`));
      break;
    case "book":
      if (r.series !== undefined) {
        v.push(leaf("series", `${r.series[0]}.`));
      }
      v.push(leaf("publisher", `${r.publisher},`), leaf("address", `${r.address},`));
      if (r.edition !== undefined)
        v.push(leaf("edition", `${ordinalEdition(r.edition).toLowerCase()} edition,`));
      v.push(year("."));
      break;
    case "phdthesis":
    case "mastersthesis":
      v.push(leaf("thesis", `${thesisKind(r, rng)},`), leaf("school", `${r.school},`));
      if (r.address !== undefined) v.push(leaf("address", `${r.address},`));
      v.push(year("."));
      break;
    case "techreport":
      v.push(leaf("tech", rng.pick(REPORT_KINDS)), leaf("number", `${r.reportNumber},`));
      v.push(leaf("institution", `${r.institution},`), year("."));
      break;
    case "web":
      v.push(leaf("web", r.url!), leaf("note", "Data retrieved on"), accessDate(r.accessed!, "."));
      break;
  }
  out.push(el("venue", v));
  return out;
};

const lncs: StyleRenderer = (r, rng, index) => {
  const out = refMarker(rng, index, "lncs");
  const names: ListFormat = {
    order: "last-first",
    initials: true,
    conjunction: "",
    serialComma: "never",
  };
  out.push(...authors(r, names, ":"));
  out.push(leaf("title", `${r.title}.`));
  const v: CitationNode[] = [];
  const year = (text: string) => el("date", leaf("year", text));
  switch (r.kind) {
    case "article":
      v.push(leaf("journal", r.journal![1]), leaf("volume", `${r.volume}`));
      if (r.number !== undefined) v.push(leaf("number", `(${r.number}),`));
      v.push(leaf("pages", `${pageRange(r, "–")}`), year(`(${r.year})`));
      break;
    case "inproceedings":
    case "incollection":
      v.push("In:");
      if (r.editors !== undefined) {
        v.push(...editors(r, names, "", r.editors.length > 1 ? "(eds.)" : "(ed.)"));
      }
      v.push(leaf("booktitle", `${r.booktitle![r.kind === "inproceedings" ? 1 : 0]}.`));
      if (r.series !== undefined) {
        v.push(leaf("series", `${r.series[1]},`), leaf("volume", `vol. ${r.volume},`));
      }
      v.push(leaf("pages", `pp. ${pageRange(r, "–")}.`));
      if (r.publisher !== undefined) v.push(leaf("publisher", `${r.publisher},`));
      if (r.address !== undefined) v.push(leaf("address", r.address));
      v.push(year(`(${r.year})`));
      break;
    case "book":
      if (r.edition !== undefined) v.push(leaf("edition", `${shortEdition(r.edition)} edn.`));
      v.push(
        leaf("publisher", `${r.publisher},`),
        leaf("address", r.address!),
        year(`(${r.year})`),
      );
      break;
    default:
      v.push(...otherVenue(r, rng, names, "–"));
      v.push(year(`(${r.year})`));
  }
  out.push(el("venue", v));
  return out;
};

export const STYLE_RENDERERS: Readonly<Record<CitationStyle, StyleRenderer>> = {
  physics,
  astro,
  ieee,
  acm,
  apa,
  chicago,
  plain,
  lncs,
};
