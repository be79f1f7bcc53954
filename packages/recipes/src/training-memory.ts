import {
  featureExtractor,
  getPreset,
  TrainingMemoryError,
  type TrainingPreparation,
} from "@lagrange/chain-crf";
import { LagrangeError } from "@lagrange/core";
import { formatByteSize } from "@lagrange/core/bytes";
import type { Corpus, Sentence } from "@lagrange/datasets";
import {
  type BaseLearnerOptions,
  learnerTrainingBytes,
  PERCEPTRON_DEFAULTS,
  REGRESSOR_DEFAULTS,
} from "@lagrange/l2s";
import { sentenceAttributes, withDocumentContext } from "./model-features.js";
import type { TrainingFeatures } from "./task-presets/training-features.js";

export interface TrainingMemoryBoundOptions {
  /** Bytes training may take; undefined: no bound (`onEstimate` still hears of every layout). */
  readonly limitBytes: number | undefined;
  /** The run trains a general CRF ({@link trainGeneralCrf}), which keeps its groups' chains too. */
  readonly general?: boolean;
  /** What the process holds already: the corpus and its attributes (default: its resident set now). */
  readonly inUseBytes?: () => number;
  /** A layout within the bound (one per CRF trained), and the bytes the run will reach. */
  readonly onEstimate?: (preparation: TrainingPreparation, neededBytes: number) => void;
}

/**
 * The {@link trainOnCorpus} option that bounds CRF training's memory: once the feature layout is
 * known, and before the trainer's buffers exist, a {@link TrainingMemoryError} when what the
 * process holds plus chain-crf's estimate of what training allocates (plus, for a general CRF,
 * every training group's position-specific chain: tokens × labels² floats) passes the bound.
 */
export function trainingMemoryBound(options: TrainingMemoryBoundOptions): {
  readonly onPrepared: (preparation: TrainingPreparation) => void;
} {
  const inUseBytes = options.inUseBytes ?? (() => process.memoryUsage().rss);
  return {
    onPrepared: (preparation) => {
      const { memory } = preparation;
      const inUse = inUseBytes();
      const extra =
        options.general === true
          ? {
              bytes: 8 * memory.tokens * memory.labels * memory.labels,
              what: "the general CRF's group chains (tokens × labels²)",
            }
          : undefined;
      const needed = inUse + memory.totalBytes + (extra?.bytes ?? 0);
      const limit = options.limitBytes;
      if (limit !== undefined && needed > limit) {
        throw new TrainingMemoryError(memory, limit, inUse, extra);
      }
      options.onEstimate?.(preparation, needed);
    },
  };
}

/**
 * The action spaces an L2S model learns, one hashed weight table each: a labelled parser's
 * transitions and relations; otherwise one.
 */
export function l2sActionSpaces(task: "tagger" | "parser", labelled = true): number {
  return task === "parser" && labelled ? 2 : 1;
}

/**
 * What holding one generated attribute costs at the peak of extraction, as measured (CoNLL-2000
 * chunking preset, CRF++ templates of 3 to 20,000 lines): its string (V8's header and a byte per
 * character), its slot in the sentence's names and the garbage its concatenation leaves until the
 * next collection; and per distinct name, the dictionary entry that interns it.
 */
const ATTRIBUTE_BYTES = 96;
const ATTRIBUTE_CHAR_BYTES = 2;
const DISTINCT_ATTRIBUTE_BYTES = 160;
/** Tokens extracted to estimate the corpus's attributes: enough for a stable mean, in milliseconds. */
const SAMPLE_TOKENS = 4000;

/** The attributes the features generate over a corpus, extrapolated from a sample of it. */
export interface ExtractionEstimate {
  readonly tokens: number;
  readonly sampledTokens: number;
  /** Attribute occurrences over the corpus (per token × tokens). */
  readonly attributes: number;
  /**
   * Distinct names: the sample's, scaled to the corpus at the rate new names still came in the
   * sample's second half (linearly when every name is new, as a large template's are).
   */
  readonly distinct: number;
  readonly bytes: number;
}

/** The longest stretch of a sentence extracted for the estimate: one sentence costs little. */
const SAMPLE_WINDOW = 64;

/**
 * Extracts the attributes of evenly spaced sentences (about {@link SAMPLE_TOKENS} tokens, at most
 * {@link SAMPLE_WINDOW} of each; the first of a single token) and scales what they hold to the
 * corpus: what a template's expansion, a lexicon's or clusters' features will take before one is
 * generated for the whole corpus. Sampling stops as soon as the scaled bytes pass `budgetBytes`
 * even with the fewest new names the sample allows (distinct names growing as √tokens), so a
 * template of a million lines costs one token's expansion, not the sample's; a few tokens whose
 * names are all new (each the first of its kind) never stop it.
 */
export function estimateExtraction(
  sentences: readonly Sentence[],
  extract: (
    sentence: Sentence,
    index: number,
  ) => {
    readonly names: readonly string[];
    readonly transition: { readonly names: readonly string[] } | null;
  },
  budgetBytes = Number.POSITIVE_INFINITY,
): ExtractionEstimate {
  let tokens = 0;
  for (const s of sentences) tokens += s.tokens.length;
  const window = Math.min(SAMPLE_WINDOW, Math.max(1, tokens / Math.max(1, sentences.length)));
  const stride = Math.max(1, Math.floor(sentences.length / Math.ceil(SAMPLE_TOKENS / window)));
  let sampledTokens = 0;
  let occurrences = 0;
  let characters = 0;
  const names = new Set<string>();
  // Distinct names at half the sample: how fast new ones still come (Heaps' law, d ∝ tokens^β).
  let half: { readonly tokens: number; readonly distinct: number } | undefined;
  const estimate = (lowest = false): ExtractionEstimate => {
    const scale = sampledTokens === 0 ? 0 : tokens / sampledTokens;
    const attributes = Math.round(occurrences * scale);
    const beta = lowest
      ? 0.5
      : half === undefined || half.distinct === 0 || half.tokens === sampledTokens
        ? 1
        : Math.min(
            1,
            Math.max(
              0.5,
              Math.log(names.size / half.distinct) / Math.log(sampledTokens / half.tokens),
            ),
          );
    const distinct = Math.min(attributes, Math.round(names.size * scale ** beta));
    const meanLength = occurrences === 0 ? 0 : characters / occurrences;
    return {
      tokens,
      sampledTokens,
      attributes,
      distinct,
      bytes:
        attributes * (ATTRIBUTE_BYTES + ATTRIBUTE_CHAR_BYTES * meanLength) +
        distinct * DISTINCT_ATTRIBUTE_BYTES,
    };
  };
  for (let i = 0; i < sentences.length && sampledTokens < SAMPLE_TOKENS; i += stride) {
    const sentence = head(sentences[i]!, sampledTokens === 0 ? 1 : SAMPLE_WINDOW);
    if (sentence.tokens.length === 0) continue;
    sampledTokens += sentence.tokens.length;
    const attributes = extract(sentence, i);
    for (const list of [attributes.names, attributes.transition?.names ?? []]) {
      occurrences += list.length;
      for (const name of list) {
        characters += name.length;
        names.add(name);
      }
    }
    if (half === undefined && sampledTokens >= SAMPLE_TOKENS / 2) {
      half = { tokens: sampledTokens, distinct: names.size };
    }
    if (estimate(true).bytes > budgetBytes) break;
  }
  return estimate();
}

/** The first `n` tokens of a sentence (the sentence itself when it is no longer). */
function head(sentence: Sentence, n: number): Sentence {
  if (sentence.tokens.length <= n) return sentence;
  const columns = sentence.columns.map((column) => column.slice(0, n));
  // inputRows knows the gold column by identity.
  const gold = sentence.labels === undefined ? -1 : sentence.columns.indexOf(sentence.labels);
  return {
    ...sentence,
    tokens: sentence.tokens.slice(0, n),
    columns,
    ...(sentence.labels === undefined
      ? {}
      : { labels: gold < 0 ? sentence.labels.slice(0, n) : columns[gold]! }),
  };
}

/**
 * The attributes `features` generate over `corpus`, estimated before extraction: a jackknifed
 * task preset's sentences by their own fold's lexicons.
 */
export function estimateFeatureExtraction(
  corpus: Corpus,
  features: TrainingFeatures,
  budgetBytes?: number,
): ExtractionEstimate {
  const whole =
    features.features === undefined
      ? getPreset(features.preset)
      : featureExtractor(features.features);
  const jackknife = features.jackknife;
  const folds = jackknife?.specs.map(featureExtractor);
  // Document context is read over the corpus's documents, as training reads it.
  const sentences = withDocumentContext(features.features, corpus.sentences);
  return estimateExtraction(
    sentences,
    (sentence, i) =>
      sentenceAttributes(folds === undefined ? whole : folds[jackknife!.fold[i]!]!, sentence),
    budgetBytes,
  );
}

/**
 * `--learner l2s`: its memory is the hashed tables `--bits` sizes (one per action space), known
 * before anything is read; refused (exit 2) above the bound like the CRF's.
 */
export function checkL2sTrainingMemory(
  learner: BaseLearnerOptions,
  spaces: number,
  limit: number | undefined,
): void {
  if (limit === undefined) return;
  const tables = spaces * learnerTrainingBytes(learner);
  const needed = process.memoryUsage().rss + tables;
  if (needed <= limit) return;
  const bits =
    learner.bits ??
    (learner.kind === "perceptron" ? PERCEPTRON_DEFAULTS.bits : REGRESSOR_DEFAULTS.bits);
  throw new LagrangeError(
    "usage",
    `--bits ${bits}: the ${learner.kind ?? "csoaa"} learner's hashed weight table${spaces > 1 ? `s (${spaces} action spaces)` : ""} of 2^${bits} entries would need about ${formatByteSize(tables)} in training, more than the ${formatByteSize(limit)} allowed; lower --bits, or pass --max-memory ${Math.ceil((1.2 * needed) / 1e9)}G to proceed`,
  );
}

/**
 * `lagrange train`'s first check, once the features are resolved (lexicon and cluster tables
 * read) and before the corpus's attributes are generated: {@link checkExtractionMemory} over
 * {@link estimateFeatureExtraction}. Nothing is sampled without a bound.
 */
export function checkFeatureMemory(
  corpus: Corpus,
  features: TrainingFeatures,
  source: string,
  limit: number | undefined,
): void {
  if (limit === undefined) return;
  const inUse = process.memoryUsage().rss;
  const estimate = estimateFeatureExtraction(corpus, features, limit - inUse);
  // After the sample: what it left uncollected is resident too.
  checkExtractionMemory(estimate, source, limit, process.memoryUsage().rss);
}

/**
 * Refuses (exit 2) features whose attributes would pass `--max-memory` before they are generated:
 * what the process holds (the corpus, lexicon and cluster tables already read) plus
 * {@link estimateExtraction}'s bytes. `source` names what generates them (`--template x.tpl`).
 * The chain CRF's own estimate follows once the layout exists, before the weights.
 */
export function checkExtractionMemory(
  estimate: ExtractionEstimate,
  source: string,
  limit: number | undefined,
  inUseBytes: number = process.memoryUsage().rss,
): void {
  if (limit === undefined) return;
  const needed = inUseBytes + estimate.bytes;
  if (needed <= limit) return;
  const n = (x: number) => x.toLocaleString("en-US");
  const e = estimate;
  const perToken = e.tokens === 0 ? 0 : e.attributes / e.tokens;
  throw new LagrangeError(
    "usage",
    `training would need about ${formatByteSize(needed)}, more than the ${formatByteSize(limit)} allowed (${formatByteSize(inUseBytes)} in use and ${formatByteSize(e.bytes)} for the attributes ${source} generates: about ${n(e.attributes)}, ${perToken.toFixed(1)} per token over ${n(e.tokens)} tokens, ${n(e.distinct)} distinct, from ${n(e.sampledTokens)} token${e.sampledTokens === 1 ? "" : "s"} extracted first); pass --max-memory ${Math.ceil((1.2 * needed) / 1e9)}G to proceed, or train on fewer sentences (--limit, --sample) or with fewer features`,
  );
}
