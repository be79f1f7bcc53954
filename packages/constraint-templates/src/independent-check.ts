/**
 * The hard constraints a labelling breaks, read from what the labelling says: its segments as the
 * label-scheme module reads them (datasets' `schemeSpans`) and its tokens. It shares no code with
 * the compiled rows (segments.ts, templates.ts, the lattice): a decoder that reports a labelling
 * as certified while this check finds a broken hard constraint has a defect, and `tag` says so
 * instead of printing "certified".
 */
import { type LabelScheme, type Span, schemeSpans } from "@lagrange/datasets";
import type { WeightedTemplate } from "./candidates.js";
import { DOCUMENT_WORDS } from "./document-templates.js";
import type { SegmentKeying } from "./segments.js";
import type { TemplateSpec } from "./template.js";

export interface IndependentCheckOptions {
  readonly scheme: LabelScheme;
  /** How the constraints name nested segments (a constraints file's `segmentKeying`). */
  readonly keying?: SegmentKeying;
  /**
   * The labels and tokens are a document, its sentences end to end: the first position of each.
   * Sentence rules are checked in each sentence, document rules over the whole. Absent: one sentence.
   */
  readonly sentenceStarts?: Int32Array;
}

/** One hard constraint a labelling breaks: its id, its rule in words, by how much. */
export interface BrokenConstraint {
  readonly id: string;
  readonly description: string;
  readonly violation: number;
}

/** The hard constraints (penalty `null`) of `entries` that `labels` breaks, in entry order. */
export function brokenHardConstraints(
  entries: readonly WeightedTemplate[],
  labels: readonly string[],
  tokens: readonly string[],
  options: IndependentCheckOptions,
): BrokenConstraint[] {
  const hard = entries.filter((e) => e.penalty === null);
  if (hard.length === 0) return [];
  const starts = [...(options.sentenceStarts ?? [0]), labels.length];
  const sentences = starts.slice(0, -1).map((from, s) => {
    const to = starts[s + 1]!;
    const reading = new LabellingReading(
      labels.slice(from, to),
      options.scheme,
      options.keying ?? "path",
    );
    return { from, to, reading, tokens: tokens.slice(from, to) };
  });
  const sentenceAt = sentences.flatMap((s) => Array.from({ length: s.to - s.from }, () => s));
  const sentenceOf = (p: number) => sentenceAt[p]!;
  const document: DocumentReading = {
    tokens,
    inside: (p, key) => sentenceOf(p).reading.inside(p - sentenceOf(p).from, key),
    startsSentence: (p) => sentenceOf(p).from === p,
    sentenceEnd: (p) => sentenceOf(p).to,
  };
  const broken: BrokenConstraint[] = [];
  for (const { template } of hard) {
    const { spec } = template;
    const violation =
      spec.kind === "same-string" || spec.kind === "acronym"
        ? documentViolation(spec, document)
        : sentences.reduce((sum, s) => sum + specViolation(spec, s.reading, s.tokens), 0);
    if (violation > 0) {
      broken.push({ id: template.id, description: template.describe(), violation });
    }
  }
  return broken;
}

/** A labelling's segments, with what a key counts and which tokens lie inside it. */
class LabellingReading {
  readonly #labels: readonly string[];
  readonly #spans: readonly Span[];
  readonly #keying: SegmentKeying;
  readonly #labelNames: ReadonlySet<string>;

  constructor(labels: readonly string[], scheme: LabelScheme, keying: SegmentKeying) {
    this.#labels = labels;
    this.#spans = schemeSpans(labels, scheme);
    this.#keying = keying;
    this.#labelNames = new Set(labels);
  }

  get n(): number {
    return this.#labels.length;
  }

  #keyOf(span: Span): string {
    return this.#keying === "path" ? span.type : (span.type.split("/").pop() ?? span.type);
  }

  /**
   * A full label name (a hierarchical label key, anzaroot2014's reading) counts its tokens; any
   * other key counts its segments.
   */
  #isLabelKey(key: string): boolean {
    return key !== "O" && /^[A-Z]-/.test(key) && this.#labelNames.has(key);
  }

  count(key: string): number {
    if (this.#isLabelKey(key)) return this.#labels.filter((l) => l === key).length;
    return this.#spans.filter((s) => this.#keyOf(s) === key).length;
  }

  /** Whether token p lies in a segment of `key` (`O`: outside every segment). */
  inside(p: number, key: string): boolean {
    if (key === "O") return this.#labels[p] === "O";
    if (this.#isLabelKey(key)) return this.#labels[p] === key;
    return this.#covered(key)[p] === 1;
  }

  /** The tokens the segments of `key` cover, marked once per key (rules ask token by token). */
  readonly #cover = new Map<string, Uint8Array>();
  #covered(key: string): Uint8Array {
    let cover = this.#cover.get(key);
    if (cover === undefined) {
      cover = new Uint8Array(this.#labels.length);
      for (const s of this.#spans) if (this.#keyOf(s) === key) cover.fill(1, s.start, s.end);
      this.#cover.set(key, cover);
    }
    return cover;
  }
}

/** A document's tokens and which lie inside what, read sentence by sentence. */
interface DocumentReading {
  readonly tokens: readonly string[];
  inside(p: number, key: string): boolean;
  startsSentence(p: number): boolean;
  /** One past the last position of p's sentence. */
  sentenceEnd(p: number): number;
}

type DocumentRule = Extract<TemplateSpec, { kind: "same-string" | "acronym" }>;

/**
 * Σ over linked pairs (p, q) of |inside(p) − inside(q)|, the pairs found by brute force over the
 * document (the rule of document-templates.ts, found another way: every run a long form could be).
 */
function documentViolation(spec: DocumentRule, at: DocumentReading): number {
  const { tokens } = at;
  const most = spec.maxOccurrences ?? DOCUMENT_WORDS.maxOccurrences;
  const linked = (q: number, p: number) =>
    at.inside(p, spec.type) === at.inside(q, spec.type) ? 0 : 1;
  const positions = new Map<string, number[]>();
  for (const [r, t] of tokens.entries()) {
    const seen = positions.get(t);
    if (seen === undefined) positions.set(t, [r]);
    else seen.push(r);
  }
  const longForms = new Map<string, number>();
  let v = 0;
  for (let q = 0; q < tokens.length; q++) {
    const token = tokens[q]!;
    const same = positions.get(token)!;
    const rank = same.indexOf(q);
    if (rank >= most) continue;
    if (spec.kind === "same-string") {
      const capital = token.charAt(0) !== token.charAt(0).toLowerCase();
      const stop = DOCUMENT_WORDS.stopwords.has(token.toLowerCase());
      if (!capital || stop || rank === 0 || same.every((r) => at.startsSentence(r))) continue;
      v += linked(q, same[0]!);
      continue;
    }
    if (!/^\p{Lu}{2,6}$/u.test(token)) continue;
    if (!longForms.has(token)) longForms.set(token, longFormOf(token, at));
    const p = longForms.get(token)!;
    if (p >= 0) v += linked(q, p);
  }
  return v;
}

/** The first position where a run of one sentence spells `acronym`, trying every run. */
function longFormOf(acronym: string, at: DocumentReading): number {
  const { tokens } = at;
  const word = (t: string) => /^\p{Lu}/u.test(t) && /\p{Ll}/u.test(t);
  for (let s = 0; s < tokens.length; s++) {
    if (!word(tokens[s]!)) continue;
    for (let e = s + 1; e < at.sentenceEnd(s); e++) {
      const last = tokens[e]!;
      // A run cannot reach past a token that is neither a word nor a function word.
      if (!word(last) && !DOCUMENT_WORDS.functionWords.has(last.toLowerCase())) break;
      const run = tokens.slice(s, e + 1);
      if (!word(run[0]!) || !word(run[run.length - 1]!)) continue;
      if (run.filter(word).length < 2) continue;
      if (!run.every((t) => word(t) || DOCUMENT_WORDS.functionWords.has(t.toLowerCase()))) continue;
      // Every spelling: a function word's initial counted or not.
      let spellings = [""];
      for (const t of run) {
        const initial = t.charAt(0).toUpperCase();
        spellings = word(t)
          ? spellings.map((x) => x + initial)
          : [...spellings, ...spellings.map((x) => x + initial)];
      }
      if (spellings.includes(acronym)) return s;
    }
  }
  return -1;
}

/** How far a labelling is over a rule, from its reading: 0 when the rule holds. */
function specViolation(
  spec: TemplateSpec,
  at: LabellingReading,
  tokens: readonly string[],
): number {
  const n = at.n;
  switch (spec.kind) {
    case "singleton":
      return Math.max(0, at.count(spec.segment) - 1);
    case "pairwise-sum":
      return Math.max(0, at.count(spec.first) + at.count(spec.second) - spec.bound);
    case "pairwise-difference":
      return Math.max(0, at.count(spec.first) - at.count(spec.second) - spec.bound);
    case "hierarchical":
      return Math.max(0, at.count(spec.first) - at.count(spec.second));
    case "adjacency": {
      let v = 0;
      for (let p = 0; p + 1 < n; p++) {
        if (at.inside(p, spec.first) && !at.inside(p + 1, spec.second)) v++;
      }
      return v;
    }
    case "precedence": {
      let v = 0;
      for (let p = 0; p < n; p++) {
        if (!at.inside(p, spec.first)) continue;
        let later = false;
        for (let q = p + 1; q < n && !later; q++) later = at.inside(q, spec.second);
        if (!later) v++;
      }
      return v;
    }
    case "state-change": {
      let v = 0;
      for (let p = 1; p + 1 < n; p++) {
        if (tokens[p] !== spec.delimiter) continue;
        if (!at.inside(p - 1, spec.first)) v++;
        if (!at.inside(p + 1, spec.second)) v++;
      }
      return v;
    }
    case "begin-end":
      return at.inside(0, spec.first) && !at.inside(n - 1, spec.second) ? 1 : 0;
    case "presence-precedence": {
      let v = 0;
      for (let p = 1; p < n; p++) {
        if (!at.inside(p, spec.first)) continue;
        for (let q = 0; q < p; q++) if (at.inside(q, spec.second)) v++;
      }
      return v;
    }
    case "same-string":
    case "acronym":
      throw new Error(`${spec.kind} is a document rule: documentViolation reads it`);
  }
}
