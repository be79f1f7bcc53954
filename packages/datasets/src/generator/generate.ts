import { createRandom } from "@lagrange/core";
import type { Sentence } from "../sentence.js";
import { CITATION_KINDS, type CitationKind, type CitationRecord, randomRecord } from "./record.js";
import { CITATION_STYLES, type CitationStyle, STYLE_RENDERERS } from "./styles.js";
import { toInline, toTokensAndLabels } from "./tree.js";

export interface GeneratedCitation {
  readonly tokens: readonly string[];
  /** Hierarchical BIO per token, as in the UMass data: `I-authors/B-person/B-person-first`. */
  readonly labels: readonly string[];
  /** Element path per token without prefixes: `authors/person/person-first`. */
  readonly paths: readonly string[];
  /** The same citation in the UMass inline form (`<authors> <person> … </authors> …`). */
  readonly inline: string;
  readonly style: CitationStyle;
  readonly kind: CitationKind;
  /** The facts the citation was rendered from. */
  readonly record: CitationRecord;
}

export interface CitationGeneratorOptions {
  readonly seed: number;
  /** Styles to draw from, uniformly (default all). */
  readonly styles?: readonly CitationStyle[];
  /** Kinds to draw from, with their usual relative frequencies (default all). */
  readonly kinds?: readonly CitationKind[];
}

/** Seed of citation `index`: each citation depends only on (seed, index), never on the count. */
function citationSeed(seed: number, index: number): number {
  let h = (seed ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

function validate(options: CitationGeneratorOptions): void {
  if (!Number.isInteger(options.seed)) {
    throw new RangeError(`seed must be an integer, got ${options.seed}`);
  }
  for (const style of options.styles ?? []) {
    if (!CITATION_STYLES.includes(style)) {
      throw new RangeError(
        `unknown citation style "${style}"; known: ${CITATION_STYLES.join(", ")}`,
      );
    }
  }
  for (const kind of options.kinds ?? []) {
    if (!CITATION_KINDS.includes(kind)) {
      throw new RangeError(`unknown citation kind "${kind}"; known: ${CITATION_KINDS.join(", ")}`);
    }
  }
  if (options.styles?.length === 0) throw new RangeError("styles must not be empty");
  if (options.kinds?.length === 0) throw new RangeError("kinds must not be empty");
}

/** Citation number `index` (0-based) of the sequence that `options.seed` defines. */
export function generateCitation(options: CitationGeneratorOptions, index = 0): GeneratedCitation {
  validate(options);
  if (!Number.isInteger(index) || index < 0) {
    throw new RangeError(`index must be a non-negative integer, got ${index}`);
  }
  const rng = createRandom(citationSeed(options.seed, index));
  const style = rng.pick(options.styles ?? CITATION_STYLES);
  const record = randomRecord(rng, options.kinds);
  const nodes = STYLE_RENDERERS[style](record, rng, index + 1);
  const { tokens, labels, paths } = toTokensAndLabels(nodes);
  return { tokens, labels, paths, inline: toInline(nodes), style, kind: record.kind, record };
}

/** The first `count` citations of the sequence that `options.seed` defines. */
export function generateCitations(
  count: number,
  options: CitationGeneratorOptions,
): GeneratedCitation[] {
  if (!Number.isInteger(count) || count < 0) {
    throw new RangeError(`count must be a non-negative integer, got ${count}`);
  }
  return Array.from({ length: count }, (_, i) => generateCitation(options, i));
}

/** An endless stream of the same sequence. */
export function* citationStream(options: CitationGeneratorOptions): Generator<GeneratedCitation> {
  validate(options);
  for (let i = 0; ; i++) yield generateCitation(options, i);
}

/**
 * A generated citation in the readers' data model, as the UMass reader gives it: `columns` are
 * `[tokens, hierarchical BIO labels]`, and `tokens`/`labels` are those same arrays.
 */
export function citationSentence(citation: GeneratedCitation): Sentence {
  const tokens = [...citation.tokens];
  const labels = [...citation.labels];
  return { tokens, columns: [tokens, labels], labels };
}

/** The first `count` citations of the sequence, as sentences (see `citationSentence`). */
export function generateCitationSentences(
  count: number,
  options: CitationGeneratorOptions,
): Sentence[] {
  return generateCitations(count, options).map(citationSentence);
}
