/**
 * The document family: soft rules over a document's sentences laid end to end, one template per
 * entity type X (one penalty per type is learned, anzaroot2014's way).
 *
 * - `same-string`: a repeated capitalised token string gets the same type X or none across the
 *   document. A token qualifies when its first character is an uppercase letter and it is not a
 *   stopword ("The", "I", "Mr", …). A string whose every occurrence starts a sentence is left out:
 *   its capital may be the sentence's, not a name's. The first occurrence p is linked to each later
 *   one q (a star over at most `maxOccurrences` occurrences).
 * - `acronym`: an acronym shares its long form's type. An acronym is a token of 2–6 uppercase
 *   letters; its long form is the first run, in one sentence of the document, of ≥ 2 capitalised
 *   words (a capital and a lowercase letter) whose initials spell it, the function words "of",
 *   "and", "for", "the", … between them counted or skipped. The run's first token p is linked to
 *   each occurrence q of the acronym (at most `maxOccurrences`).
 *
 * A link (p, q) is the two rows z[p, X] − z[q, X] ≤ 0 and z[q, X] − z[p, X] ≤ 0, where z[p, X] is
 * the sum of the lattice states inside X at position p: it costs |z[p, X] − z[q, X]|.
 */
import {
  LagrangeError,
  type LinearConstraint,
  linearConstraint,
  ProblemValidationError,
} from "@lagrange/core";
import { OUTSIDE, type SegmentIndex } from "./segments.js";
import type { ConstraintTemplate, TemplateInstance, TemplateSpec } from "./template.js";

export type DocumentSpec = Extract<TemplateSpec, { kind: "same-string" | "acronym" }>;
export type DocumentKind = DocumentSpec["kind"];

export const DOCUMENT_KINDS: readonly DocumentKind[] = ["same-string", "acronym"];

/** Occurrences of one string linked at most when a spec gives no `maxOccurrences`. */
export const DEFAULT_MAX_OCCURRENCES = 20;

/** Capitalised words that are seldom names, compared in lowercase. */
const STOPWORDS: ReadonlySet<string> = new Set(
  (
    "a an the and or but nor if so as at by for from in into of off on onto out over to up with " +
    "i he she it we they you me him her us them my his its our their your this that these those " +
    "there here what who whom which when where why how all any some no not yes mr mrs ms dr"
  ).split(" "),
);

/** Words an acronym's long form may hold between its capitalised words. */
const FUNCTION_WORDS: ReadonlySet<string> = new Set(["of", "and", "for", "the", "&", "de", "on"]);

/** The rule's word lists, for the independent check (which finds the links its own way). */
export const DOCUMENT_WORDS = {
  stopwords: STOPWORDS,
  functionWords: FUNCTION_WORDS,
  maxOccurrences: DEFAULT_MAX_OCCURRENCES,
} as const;

const UPPER_FIRST = /^\p{Lu}/u;
const LOWER_ANYWHERE = /\p{Ll}/u;
const ACRONYM = /^\p{Lu}{2,6}$/u;

export function isDocumentSpec(spec: TemplateSpec): spec is DocumentSpec {
  return spec.kind === "same-string" || spec.kind === "acronym";
}

export function documentTemplateId(spec: DocumentSpec): string {
  return spec.maxOccurrences === undefined
    ? `${spec.kind}:${spec.type}`
    : `${spec.kind}:${spec.type}|${spec.maxOccurrences}`;
}

export function describeDocumentSpec(spec: DocumentSpec): string {
  return spec.kind === "same-string"
    ? `a repeated capitalised token gets the same type ${spec.type} or none across a document`
    : `an acronym and its long form are both ${spec.type} or neither across a document`;
}

/** The first position of each sentence of a document, checked against its n tokens. */
function sentenceStartsOf(id: string, instance: TemplateInstance): Int32Array {
  const starts = instance.sentenceStarts ?? Int32Array.of(0);
  if (starts.length === 0 || starts[0] !== 0) {
    throw new ProblemValidationError(`template ${id}`, "sentenceStarts must begin with 0");
  }
  for (let s = 1; s < starts.length; s++) {
    if (!(starts[s]! > starts[s - 1]! && starts[s]! < instance.n)) {
      throw new ProblemValidationError(
        `template ${id}`,
        `sentenceStarts must ascend strictly below n = ${instance.n}, got ${starts.join(", ")}`,
      );
    }
  }
  return starts;
}

/**
 * The pairs (p, q) a document template links in a document, flat: p at even indices, q after it.
 * The rule is the file's header's; `violation` and `instantiate` both read it from here.
 */
function documentLinks(
  kind: DocumentKind,
  tokens: readonly string[],
  starts: Int32Array,
  maxOccurrences: number,
): number[] {
  const n = tokens.length;
  const sentenceEnd = new Int32Array(n);
  const startsSentence = new Uint8Array(n);
  for (let s = 0; s < starts.length; s++) {
    const from = starts[s]!;
    const to = starts[s + 1] ?? n;
    startsSentence[from] = 1;
    sentenceEnd.fill(to, from, to);
  }
  const occurrences = new Map<string, number[]>();
  const qualifies =
    kind === "same-string"
      ? (token: string) => UPPER_FIRST.test(token) && !STOPWORDS.has(token.toLowerCase())
      : (token: string) => ACRONYM.test(token);
  tokens.forEach((token, p) => {
    if (!qualifies(token)) return;
    const seen = occurrences.get(token);
    if (seen === undefined) occurrences.set(token, [p]);
    else seen.push(p);
  });
  const pairs: number[] = [];
  for (const [token, positions] of occurrences) {
    const kept = positions.slice(0, maxOccurrences);
    if (kind === "same-string") {
      if (kept.length < 2 || positions.every((p) => startsSentence[p] === 1)) continue;
      for (let j = 1; j < kept.length; j++) pairs.push(kept[0]!, kept[j]!);
      continue;
    }
    const longForm = longFormStart(token, tokens, sentenceEnd);
    if (longForm < 0) continue;
    for (const q of kept) pairs.push(longForm, q);
  }
  return pairs;
}

const isWord = (token: string) => UPPER_FIRST.test(token) && LOWER_ANYWHERE.test(token);
const initialOf = (token: string) => token.charAt(0).toUpperCase();

/** The first position of the document's first long form of `acronym`, or −1. */
function longFormStart(
  acronym: string,
  tokens: readonly string[],
  sentenceEnd: Int32Array,
): number {
  const letters = [...acronym];
  const spells = (
    j: number,
    i: number,
    words: number,
    endsOnWord: boolean,
    end: number,
  ): boolean => {
    if (i === letters.length) return words >= 2 && endsOnWord;
    if (j >= end) return false;
    const token = tokens[j]!;
    if (isWord(token)) {
      return initialOf(token) === letters[i] && spells(j + 1, i + 1, words + 1, true, end);
    }
    if (words === 0 || !FUNCTION_WORDS.has(token.toLowerCase())) return false;
    return (
      spells(j + 1, i, words, false, end) ||
      (initialOf(token) === letters[i] && spells(j + 1, i + 1, words, false, end))
    );
  };
  for (let s = 0; s < tokens.length; s++) {
    if (isWord(tokens[s]!) && spells(s, 0, 0, false, sentenceEnd[s]!)) return s;
  }
  return -1;
}

/**
 * A document template of the model's type `spec.type`, over the lattice states of `index`; a usage
 * error for a type the model lacks, for `O`, and for a bad `maxOccurrences`.
 */
export function documentTemplate(spec: DocumentSpec, index: SegmentIndex): ConstraintTemplate {
  const id = documentTemplateId(spec);
  if (spec.type === OUTSIDE) {
    throw new LagrangeError(
      "usage",
      `${id}: "${OUTSIDE}" is no entity type; name one the model has`,
    );
  }
  const key = index.get(spec.type);
  if (key.unit !== "segment") {
    throw new LagrangeError(
      "usage",
      `${id}: "${spec.type}" is a label, not a segment type; name the type it marks`,
    );
  }
  const maxOccurrences = spec.maxOccurrences ?? DEFAULT_MAX_OCCURRENCES;
  if (!Number.isInteger(maxOccurrences) || maxOccurrences < 2) {
    throw new LagrangeError(
      "usage",
      `${id}: expected maxOccurrences to be an integer ≥ 2, got ${spec.maxOccurrences}`,
    );
  }
  const words = describeDocumentSpec(spec);
  const L = index.L;
  const inside = key.inside;
  const isInside = new Uint8Array(L);
  for (const t of inside) isInside[t] = 1;
  const linksOf = (instance: TemplateInstance): number[] => {
    if (instance.L !== L) {
      throw new ProblemValidationError(
        `template ${id}`,
        `built for ${L} lattice states, instantiated for L = ${instance.L}`,
      );
    }
    const { tokens } = instance;
    if (tokens === undefined || tokens.length !== instance.n) {
      throw new ProblemValidationError(
        `template ${id}`,
        `needs the document's ${instance.n} tokens (TemplateInstance.tokens), got ${tokens?.length ?? "none"}`,
      );
    }
    return documentLinks(spec.kind, tokens, sentenceStartsOf(id, instance), maxOccurrences);
  };
  return {
    id,
    family: "document",
    spec,
    usesTokens: true,
    scope: "document",
    describe: () => words,
    instantiate(instance): LinearConstraint[] {
      const links = linksOf(instance);
      const out: LinearConstraint[] = [];
      for (let k = 0; k < links.length; k += 2) {
        const p = links[k]!;
        const q = links[k + 1]!;
        for (const [a, b] of [
          [p, q],
          [q, p],
        ] as const) {
          const terms: [number, number][] = [];
          for (const t of inside) terms.push([a * L + t, 1]);
          for (const t of inside) terms.push([b * L + t, -1]);
          out.push(linearConstraint({ terms, rhs: 0, name: words }));
        }
      }
      return out;
    },
    violation(labels, instance) {
      const links = linksOf(instance);
      let v = 0;
      for (let k = 0; k < links.length; k += 2) {
        v += Math.abs(isInside[labels[links[k]!]!]! - isInside[labels[links[k + 1]!]!]!);
      }
      return v;
    },
  };
}
