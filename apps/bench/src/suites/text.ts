/**
 * How well `segmentText` tokenises raw text the way the training corpora were tokenised (issue
 * 39): gold token lists are detokenised to text (`detokenize`), re-tokenised, and each gold
 * token's exact [start, end) is looked for among the predicted tokens. Per sentence (each gold
 * sentence alone) and per document (a document's sentences joined by one space, so that the
 * sentence splitter has to find the gold boundaries too).
 */
import { LagrangeError } from "@lagrange/core";
import {
  type Corpus,
  detokenize,
  groupByDocument,
  type Sentence,
  schemeSpans,
  segmentText,
  type TextSentence,
} from "@lagrange/datasets";
import { openCorpus } from "@lagrange/datasets/node";
import { checkTextInput, isTagFailure, openTagger, tagText } from "@lagrange/recipes";
import { markdownTable, targetsTable } from "../report.js";

export const TEXT_DATASETS = ["conll2003:dev", "ud-en-ewt:dev"] as const;
/** Issue 39's target: token agreement on CoNLL-2003 dev detokenised to text. */
export const AGREEMENT_TARGET = 0.99;
/** Issue 39's targets for a model tagging text: F1 within 0.5 of the gold-token path; speed. */
export const TEXT_F1_GAP_TARGET = 0.5;
export const TEXT_TOKENS_PER_SECOND_TARGET = 100_000;
const EXAMPLES = 12;

export interface BoundaryScore {
  readonly gold: number;
  readonly predicted: number;
  readonly matched: number;
  /** Share of gold tokens (or sentence boundaries) found. */
  readonly recall: number;
  readonly precision: number;
}

export interface TextRow {
  readonly dataset: string;
  /**
   * `sentence`: a sentence a text; `document`: a document's sentences joined by a space;
   * `lines`: joined by a newline and segmented with `lineBreaks: "sentence"`.
   */
  readonly mode: "sentence" | "document" | "lines";
  readonly texts: number;
  readonly tokens: BoundaryScore;
  /** Document mode: sentence ends inside a document (its last end is free). */
  readonly sentenceEnds?: BoundaryScore;
  readonly tokensPerSecond: number;
  /** A few missed gold tokens in context: `…text… [gold] → predicted`. */
  readonly misses: readonly string[];
}

/** Entity F1 of one path, on exact character spans and types. */
export interface PathScore {
  readonly gold: number;
  readonly predicted: number;
  readonly matched: number;
  readonly f1: number;
  /** Tagging seconds (the text path's include segmentation), and tokens a second. */
  readonly seconds: number;
  readonly tokensPerSecond: number;
}

/**
 * A model's entities on a dev split two ways: the gold tokens (the path of `lagrange tag` on
 * CoNLL), and each document detokenised to text and tagged through `tagText` (issue 39's target:
 * F1 within {@link TEXT_F1_GAP_TARGET} of the first).
 */
export interface TextTaggingRow {
  readonly dataset: string;
  readonly model: string;
  readonly documents: number;
  readonly tokens: number;
  /** Timed after one untimed pass through each path (a warm process). */
  readonly goldTokens: PathScore;
  /** Each document's sentences joined by a space: sentence ends found by punctuation alone. */
  readonly text: PathScore;
  /**
   * Each document a sentence a line, segmented with `lineBreaks: "sentence"`: the layout of text
   * whose headlines, datelines and table rows stand on their own lines.
   */
  readonly lines: PathScore;
  /** Whose probabilities the text path's scores are (null: none). */
  readonly scoreOf: string | null;
}

export interface TextBenchResult {
  readonly suite: "text";
  readonly date: string;
  readonly node: string;
  readonly rows: readonly TextRow[];
  readonly tagging?: TextTaggingRow;
}

interface Sample {
  readonly text: string;
  readonly gold: readonly { start: number; end: number }[];
  /** Inner gold sentence ends. */
  readonly ends: readonly number[];
}

function samples(sentences: readonly Sentence[], mode: TextRow["mode"]): Sample[] {
  const joiner = mode === "lines" ? "\n" : " ";
  if (mode === "sentence") {
    return sentences.map((s) => {
      const { text, tokens } = detokenize(s.tokens);
      return { text, gold: tokens, ends: [] };
    });
  }
  return groupByDocument(sentences).map((doc) => {
    let text = "";
    const gold: { start: number; end: number }[] = [];
    const ends: number[] = [];
    for (const s of doc.sentences) {
      if (text !== "") {
        ends.push(text.length);
        text += joiner;
      }
      const d = detokenize(s.tokens);
      for (const t of d.tokens)
        gold.push({ start: t.start + text.length, end: t.end + text.length });
      text += d.text;
    }
    return { text, gold, ends };
  });
}

const key = (start: number, end: number) => start * 0x100000 + end;

function score(gold: number, predicted: number, matched: number): BoundaryScore {
  return {
    gold,
    predicted,
    matched,
    recall: gold === 0 ? 1 : matched / gold,
    precision: predicted === 0 ? 1 : matched / predicted,
  };
}

function measure(dataset: string, mode: TextRow["mode"], all: readonly Sample[]): TextRow {
  const started = performance.now();
  const options = mode === "lines" ? ({ lineBreaks: "sentence" } as const) : {};
  const predicted: TextSentence[][] = all.map((s) => segmentText(s.text, options));
  const seconds = (performance.now() - started) / 1000;
  let gold = 0;
  let pred = 0;
  let matched = 0;
  let goldEnds = 0;
  let predEnds = 0;
  let matchedEnds = 0;
  const misses: string[] = [];
  for (let i = 0; i < all.length; i++) {
    const sample = all[i]!;
    const sentences = predicted[i]!;
    const tokens = sentences.flatMap((s) => s.tokens);
    const found = new Set(tokens.map((t) => key(t.start, t.end)));
    pred += tokens.length;
    gold += sample.gold.length;
    for (const t of sample.gold) {
      if (found.has(key(t.start, t.end))) matched++;
      else if (misses.length < EXAMPLES) {
        const near = tokens
          .filter((p) => p.end > t.start && p.start < t.end)
          .map((p) => p.text)
          .join(" ");
        misses.push(
          `${sample.text.slice(Math.max(0, t.start - 25), t.start)}[${sample.text.slice(t.start, t.end)}]${sample.text.slice(t.end, t.end + 15)} → ${near}`,
        );
      }
    }
    if (mode !== "sentence") {
      const predicted = new Set(sentences.slice(0, -1).map((s) => s.end));
      goldEnds += sample.ends.length;
      predEnds += predicted.size;
      for (const end of sample.ends) if (predicted.has(end)) matchedEnds++;
    }
  }
  return {
    dataset,
    mode,
    texts: all.length,
    tokens: score(gold, pred, matched),
    ...(mode !== "sentence" ? { sentenceEnds: score(goldEnds, predEnds, matchedEnds) } : {}),
    tokensPerSecond: seconds === 0 ? 0 : pred / seconds,
    misses,
  };
}

export interface TextBenchOptions {
  readonly datasets?: readonly string[];
  /** A model file that reads the word alone: its entities through both paths on `taggingDataset`. */
  readonly model?: string;
  /** Default conll2003:dev. */
  readonly taggingDataset?: string;
  readonly onStatus?: (message: string) => void;
}

export async function textBench(options: TextBenchOptions = {}): Promise<TextBenchResult> {
  const rows: TextRow[] = [];
  for (const dataset of options.datasets ?? TEXT_DATASETS) {
    options.onStatus?.(`reading ${dataset}`);
    const corpus = await openCorpus(dataset);
    for (const mode of ["sentence", "document", "lines"] as const) {
      rows.push(measure(dataset, mode, samples(corpus.sentences, mode)));
    }
  }
  const tagging =
    options.model === undefined
      ? undefined
      : await taggingRow(options.model, options.taggingDataset ?? "conll2003:dev", options);
  return {
    suite: "text",
    date: new Date().toISOString(),
    node: process.version,
    rows,
    ...(tagging === undefined ? {} : { tagging }),
  };
}

const spanKey = (start: number, end: number, type: string) => `${start}:${end}:${type}`;

function pathScore(
  gold: ReadonlySet<string>,
  predicted: readonly string[],
  seconds: number,
  tokens: number,
): PathScore {
  const matched = predicted.filter((k) => gold.has(k)).length;
  const denominator = gold.size + predicted.length;
  return {
    gold: gold.size,
    predicted: predicted.length,
    matched,
    f1: denominator === 0 ? 1 : (2 * matched) / denominator,
    seconds,
    tokensPerSecond: seconds === 0 ? 0 : tokens / seconds,
  };
}

/**
 * Each document of `dataset` detokenised as the tokenisation rows do, its gold entities as
 * character spans; the model's entities on the gold tokens mapped onto the same characters, and
 * its entities from `tagText` on the document's text.
 */
async function taggingRow(
  model: string,
  dataset: string,
  options: TextBenchOptions,
): Promise<TextTaggingRow> {
  options.onStatus?.(`tagging ${dataset} with ${model}: gold tokens, then text`);
  const tagger = await openTagger({ model });
  checkTextInput(tagger);
  const corpus: Corpus = await openCorpus(dataset);
  const documents = groupByDocument(corpus.sentences);
  const texts = samples(corpus.sentences, "document");
  const lineTexts = samples(corpus.sentences, "lines");
  // Character offsets of each gold token, sentence by sentence, in corpus order.
  const offsets: { start: number; end: number }[][] = [];
  const goldKeys = new Set<string>();
  for (const [d, doc] of documents.entries()) {
    let at = 0;
    for (const sentence of doc.sentences) {
      const tokens = texts[d]!.gold.slice(at, at + sentence.tokens.length);
      at += sentence.tokens.length;
      offsets.push(tokens);
      for (const span of schemeSpans(sentence.labels ?? [], corpus.scheme)) {
        goldKeys.add(
          `${d}:${spanKey(tokens[span.start]!.start, tokens[span.end - 1]!.end, span.type)}`,
        );
      }
    }
  }
  const tokens = corpus.sentences.reduce((n, s) => n + s.tokens.length, 0);
  const input = tagger.input(corpus, "required");
  // One untimed pass through each path first: the timed passes then measure a warm process (the
  // JIT compiled, the model's attribute names met once), as a tagging server runs, and neither
  // path pays the other's warm-up.
  await tagger.tag(input.sentences, { stopAtFailure: true });
  for (const sample of texts) await tagText(tagger, sample.text);
  const started = performance.now();
  const batch = await tagger.tag(input.sentences, { stopAtFailure: true });
  const tokenSeconds = (performance.now() - started) / 1000;
  const documentOf = documents.flatMap((doc, d) => doc.sentences.map(() => d));
  const byTokens: string[] = [];
  for (const [i, item] of batch.items.entries()) {
    if (isTagFailure(item)) throw new LagrangeError("bad-input", `${item.place}: ${item.reason}`);
    const at = offsets[i]!;
    for (const span of schemeSpans(item.labels, tagger.scheme)) {
      byTokens.push(
        `${documentOf[i]}:${spanKey(at[span.start]!.start, at[span.end - 1]!.end, span.type)}`,
      );
    }
  }
  let scoreOf: string | null = null;
  const throughText = async (
    samples: readonly Sample[],
    lineBreaks: "space" | "sentence",
  ): Promise<PathScore> => {
    const found: string[] = [];
    const began = performance.now();
    for (const [d, sample] of samples.entries()) {
      const tagged = await tagText(tagger, sample.text, { lineBreaks });
      scoreOf = tagged.scoreOf;
      for (const e of tagged.entities) found.push(`${d}:${spanKey(e.start, e.end, e.type)}`);
    }
    return pathScore(goldKeys, found, (performance.now() - began) / 1000, tokens);
  };
  const text = await throughText(texts, "space");
  // The same tokens a line apart: gold keys are offsets, which a space and a newline share.
  const lines = await throughText(lineTexts, "sentence");
  return {
    dataset,
    model,
    documents: documents.length,
    tokens,
    goldTokens: pathScore(goldKeys, byTokens, tokenSeconds, tokens),
    text,
    lines,
    scoreOf,
  };
}

const pct = (x: number) => `${(100 * x).toFixed(2)} %`;

export function textMarkdown(result: TextBenchResult): string {
  const lines = [
    "# Raw text tokenisation against gold tokens (detokenised)",
    "",
    `${result.date}, Node ${result.node}. Modes: sentence (a sentence a text), document (a document's sentences joined by a space), lines (joined by a newline, segmented with lineBreaks sentence).`,
    "",
    markdownTable(
      [
        "dataset",
        "mode",
        "texts",
        "gold tokens",
        "token recall",
        "token precision",
        "sentence ends found",
        "sentence-end precision",
        "tokens/s",
      ],
      result.rows.map((r) => [
        r.dataset,
        r.mode,
        r.texts,
        r.tokens.gold,
        pct(r.tokens.recall),
        pct(r.tokens.precision),
        r.sentenceEnds === undefined ? "–" : pct(r.sentenceEnds.recall),
        r.sentenceEnds === undefined ? "–" : pct(r.sentenceEnds.precision),
        Math.round(r.tokensPerSecond),
      ]),
    ),
  ];
  const t = result.tagging;
  if (t !== undefined) {
    lines.push(
      "",
      `Entities of ${t.model} on ${t.dataset} (${t.documents} documents, ${t.tokens} tokens; exact character spans and types; text scores: ${t.scoreOf ?? "none"}; timed after one untimed pass through each path):`,
      "",
      markdownTable(
        ["path", "gold entities", "predicted", "matched", "F1", "seconds", "tokens/s"],
        (
          [
            ["gold tokens (CoNLL)", t.goldTokens],
            ["text, sentences joined by a space (segmentText + tagText)", t.text],
            ["text, a sentence a line (lineBreaks sentence)", t.lines],
          ] as const
        ).map(([name, p]) => [
          name,
          p.gold,
          p.predicted,
          p.matched,
          (100 * p.f1).toFixed(2),
          p.seconds.toFixed(2),
          Math.round(p.tokensPerSecond),
        ]),
      ),
    );
  }
  const conll = result.rows.find((r) => r.dataset === "conll2003:dev" && r.mode === "sentence");
  lines.push(
    targetsTable([
      {
        name: `token agreement ≥ ${pct(AGREEMENT_TARGET)} (CoNLL-2003 dev, per sentence)`,
        value: conll === undefined ? "–" : pct(conll.tokens.recall),
        met: conll === undefined ? null : conll.tokens.recall >= AGREEMENT_TARGET,
      },
      ...(t === undefined
        ? []
        : [
            ...(
              [
                ["sentences joined by a space", t.text],
                ["a sentence a line", t.lines],
              ] as const
            ).map(([layout, p]) => ({
              name: `text F1 within ${TEXT_F1_GAP_TARGET} of the gold tokens' (${t.dataset}, ${layout})`,
              value: `${(100 * p.f1).toFixed(2)} vs ${(100 * t.goldTokens.f1).toFixed(2)}`,
              met: 100 * (t.goldTokens.f1 - p.f1) <= TEXT_F1_GAP_TARGET,
            })),
            {
              name: `text tagging ≥ ${TEXT_TOKENS_PER_SECOND_TARGET} tokens/s (one thread, segmentation included)`,
              value: String(Math.round(t.text.tokensPerSecond)),
              met: t.text.tokensPerSecond >= TEXT_TOKENS_PER_SECOND_TARGET,
            },
          ]),
    ]),
  );
  for (const r of result.rows) {
    if (r.misses.length === 0) continue;
    lines.push(`Missed gold tokens, ${r.dataset} ${r.mode} (first ${r.misses.length}):`, "");
    for (const m of r.misses) lines.push(`- \`${m}\``);
    lines.push("");
  }
  return `${lines.join("\n")}\n`;
}
