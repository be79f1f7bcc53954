/**
 * Text in, entities out: raw text segmented into sentences of tokens that keep their offsets
 * (datasets' `segmentText`), tagged by any {@link SequenceTagger} that reads text, and each span
 * of its labels (the scheme's spans, as conlleval reads them) given back as offsets into the text,
 * with its probability where the tagger has a chain CRF's distribution.
 *
 * A function over the tagger, not a method on it: the tagger kinds are several classes (and a
 * worker pool stands in for one), and this is the same for all of them, so it lives once here.
 */
import type { CrfModel } from "@lagrange/chain-crf";
import { LagrangeError } from "@lagrange/core";
import {
  type LabelScheme,
  type SegmentOptions,
  type Sentence,
  type Span,
  schemeSpans,
  segmentText,
  type TextToken,
} from "@lagrange/datasets";
import { schemeEdge } from "../model-scheme.js";
import type { MarginalsSource } from "./confidence.js";
import {
  isTagFailure,
  type SequenceTagger,
  type TagProgress,
  type TagRequest,
} from "./sequence-tagger.js";

/** An entity found in text: `text === input.slice(start, end)`, offsets in UTF-16 code units. */
export interface TextEntity {
  readonly start: number;
  readonly end: number;
  /** The span's type (a hierarchical label's path, `venue/journal`). */
  readonly type: string;
  readonly text: string;
  /**
   * The probability that this is exactly an entity of this type under the chain CRF (its tokens
   * labelled as decoded, extending neither left nor right); null for a tagger without marginals.
   */
  readonly score: number | null;
}

/** A sentence of the text: its tokens, their labels and its entities. */
export interface TaggedTextSentence {
  readonly start: number;
  readonly end: number;
  readonly tokens: readonly TextToken[];
  readonly labels: readonly string[];
  readonly entities: readonly TextEntity[];
}

export interface TaggedText {
  readonly sentences: readonly TaggedTextSentence[];
  /** Every sentence's entities, in text order. */
  readonly entities: readonly TextEntity[];
  /**
   * Whose probabilities the scores are: `chain`, or `chain-unconstrained` where the labels were
   * decoded under constraints or slaves the chain does not see; null where the tagger has no
   * marginals (every score is null).
   */
  readonly scoreOf: MarginalsSource | null;
  /** What the tagger said about the batch (a general CRF's groups that hit the time limit). */
  readonly warnings: readonly string[];
}

export interface TextRequest {
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: TagProgress) => void;
  /** The text's name in messages (a file's path; default `the text`). */
  readonly source?: string;
  /** Whether a single line break ends a sentence (`segmentText`'s option; default `space`). */
  readonly lineBreaks?: SegmentOptions["lineBreaks"];
}

/**
 * Tags raw text with `tagger`: sentences (a corpus-unit tagger gets the whole text as one
 * document), their tokens with offsets, labels and entities. A model that reads more columns than
 * the word (POS, chunk) cannot tag text: a usage error naming them.
 */
export async function tagText(
  tagger: SequenceTagger,
  text: string,
  request: TextRequest = {},
): Promise<TaggedText> {
  checkTextInput(tagger);
  const segmented = segmentText(
    text,
    request.lineBreaks === undefined ? {} : { lineBreaks: request.lineBreaks },
  );
  const file = request.source ?? "the text";
  const document = { index: 0 };
  const lines = lineStarts(text);
  const sentences: Sentence[] = segmented.map((s) => {
    const tokens = s.tokens.map((t) => t.text);
    return { tokens, columns: [tokens], document, source: { file, line: lineOf(lines, s.start) } };
  });
  if (sentences.length === 0) return { sentences: [], entities: [], scoreOf: null, warnings: [] };
  const tagRequest: TagRequest = {
    ...(tagger.can.marginals ? { confidence: { spans: true } } : {}),
    ...(request.signal === undefined ? {} : { signal: request.signal }),
    ...(request.onProgress === undefined ? {} : { onProgress: request.onProgress }),
    stopAtFailure: true,
  };
  const batch = await tagger.tag(sentences, tagRequest);
  let scoreOf: MarginalsSource | null = tagger.can.marginals
    ? tagger.constrained
      ? "chain-unconstrained"
      : "chain"
    : null;
  const out: TaggedTextSentence[] = [];
  for (const [i, item] of batch.items.entries()) {
    if (isTagFailure(item)) throw new LagrangeError("bad-input", `${item.place}: ${item.reason}`);
    const sentence = segmented[i]!;
    const scored = item.confidence?.spans;
    // A document decoded under constraints marks its sentences' scores chain-unconstrained.
    const spansOf = item.confidence?.spansOf;
    if (spansOf !== undefined && scoreOf !== "chain-unconstrained") scoreOf = spansOf;
    const entities = schemeSpans(item.labels, tagger.scheme).map((span): TextEntity => {
      const start = sentence.tokens[span.start]!.start;
      const end = sentence.tokens[span.end - 1]!.end;
      const found = scored?.find((s) => sameSpan(s, span));
      return {
        start,
        end,
        type: span.type,
        text: text.slice(start, end),
        score: found?.probability ?? null,
      };
    });
    out.push({
      start: sentence.start,
      end: sentence.end,
      tokens: sentence.tokens,
      labels: item.labels,
      entities,
    });
  }
  return {
    sentences: out,
    entities: out.flatMap((s) => s.entities),
    scoreOf,
    warnings: batch.warnings ?? [],
  };
}

/**
 * Refuses a tagger that cannot read text: one that reads CRFsuite attribute lists, or a model
 * whose preset reads columns besides the word (a usage error naming them). A caller checks it
 * before reading any input.
 */
export function checkTextInput(tagger: SequenceTagger): void {
  const name = `${tagger.modelName} is ${tagger.description}`;
  if (!tagger.can.text) {
    throw new LagrangeError("usage", `${name}: it reads CRFsuite attribute lists, not text`);
  }
  const missing = tagger.columns.slice(1);
  if (missing.length > 0) {
    throw new LagrangeError(
      "usage",
      `${tagger.modelName} reads the input columns ${tagger.columns.join(", ")}; text gives the word alone, not ${missing.join(", ")}: tag a CoNLL file that has them, or train a model on the words alone (lagrange train --words-only)`,
    );
  }
}

/** A labelling as names and the spans they make under the scheme. */
export interface LabelsAndSpans {
  readonly labels: readonly string[];
  /** Token indices, end exclusive, every level (none under scheme `none`). */
  readonly spans: readonly Span[];
}

/**
 * A labelling (label ids, or names) as label names and spans, in one call: over a tagger's labels
 * and scheme, or over a chain model's (its ids as the model numbers them, names given back in its
 * output scheme, as its tagger gives them).
 */
export function labelsAndSpans(
  labels: ArrayLike<number> | readonly string[],
  of: CrfModel | { readonly labels: readonly string[]; readonly scheme: LabelScheme },
): LabelsAndSpans {
  const plain = Array.isArray(of.labels);
  const edge = plain ? undefined : schemeEdge(of as CrfModel);
  const names = plain ? (of.labels as readonly string[]) : (of as CrfModel).labels.names();
  const scheme = edge?.scheme ?? (of as { readonly scheme: LabelScheme }).scheme;
  let named: string[];
  if (typeof labels[0] === "string" || labels.length === 0) {
    named = Array.from(labels as readonly string[]);
    // Names are the output's (a tagger's, or a model's output scheme): nothing to convert.
  } else {
    named = Array.from(labels as ArrayLike<number>, (id, i) => {
      const name = names[id];
      if (name === undefined) {
        throw new LagrangeError(
          "usage",
          `label ${i + 1}: id ${id} is not one of the ${names.length} labels (0..${names.length - 1})`,
        );
      }
      return name;
    });
    if (edge !== undefined) named = edge.out(named);
  }
  return { labels: named, spans: schemeSpans(named, scheme) };
}

function sameSpan(a: Span, b: Span): boolean {
  return a.start === b.start && a.end === b.end && a.type === b.type && a.level === b.level;
}

/** Offsets at which each line starts, for `file:line` in messages. */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return starts;
}

/** The 1-based line of an offset. */
function lineOf(starts: readonly number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}
