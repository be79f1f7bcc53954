/**
 * The one shape of a tagger, whatever the model: `openTagger` returns a {@link SequenceTagger}
 * and is the only place the model's kind is decided. Callers (`lagrange tag`, the stream and its
 * worker threads, the job queue, the bench) never ask which kind they hold: they read `unit` (may
 * the input stream, or must it be read whole) and `can` (what a request may ask), and call `tag`.
 */

import type { AttributeSequence } from "@lagrange/chain-crf";
import type { DecoderOptionValue, LabelRestriction } from "@lagrange/core";
import type { Corpus, LabelScheme, Sentence } from "@lagrange/datasets";
import type { ExplainSentenceOptions, SentenceExplanation } from "../explain.js";
import type { GoldLabels } from "../model-input.js";
import type { TaggedNBest, TaggingTime } from "../tagger.js";
import type { ConfidenceRecord, ConfidenceRequest } from "./confidence.js";
import type { NBestMethod } from "./nbest.js";

export type { TaggedNBest, TaggingTime };

/** What to tag with, as plain data (it crosses threads and queues as it is). */
export interface TaggingSpec {
  /** The model file's path, or its bytes. */
  readonly model: string | Uint8Array;
  /** The model's name in messages when `model` is bytes (default `the model`). */
  readonly modelName?: string;
  /**
   * A registered decoder; default: the one the model records (settings.decoder), else its kind's
   * ({@link DEFAULT_DECODERS}).
   */
  readonly decoder?: string;
  /** The decoder's options by their declared names (`max-iterations`, `tau`, …), values or strings. */
  readonly decoderOptions?: Readonly<Record<string, DecoderOptionValue>>;
  /**
   * Learned constraints: a constraints file by its name, with its text (read by the caller: a
   * pipe's text, or one sent to a worker) or without (read here once the decoder is known to take
   * them).
   */
  readonly constraints?: { readonly source: string; readonly text?: string };
  /** Plug-in modules (paths) that add decoders and slaves. */
  readonly plugins?: readonly string[];
  /** Plug-in slaves added to every sentence's problem. */
  readonly slaves?: readonly string[];
}

export { DEFAULT_DECODERS } from "./default-decoders.js";

/**
 * What a model is, as the tagger it opens to. Read for messages and reports only: what a caller
 * may do is in {@link SequenceTagger.can} and {@link SequenceTagger.unit}.
 */
export type TaggerKind =
  /** A linear-chain CRF of first or second order, reading a task preset's features. */
  | "chain-crf"
  /** A chain CRF whose features include a first stage's votes over documents and the input. */
  | "two-stage"
  /** A general CRF: a chain plus consistency factors across the sentences of a group. */
  | "general-crf"
  /** A learning-to-search tagger, decoded from its policy's chain scores. */
  | "l2s"
  /** A chain CRF imported from CRFsuite: it reads attribute lists, not text columns. */
  | "attribute-crf";

/** What a tagger can do beyond labels; a request that asks for more is a usage error. */
export interface TaggerCapabilities {
  /** Per-token marginals and p(y|x) (`--marginals`, `--probability`). */
  readonly marginals: boolean;
  /** The k best labellings (`--nbest`). */
  readonly nbest: boolean;
  /** Decoding with some labels fixed (`--forced`). */
  readonly forced: boolean;
  /** The decoder's figures per sentence: constraints that fired (`--explain`). */
  readonly explain: boolean;
  /** Sentences read from text columns through the model's preset (else: attribute lists only). */
  readonly text: boolean;
  /** CRFsuite attribute lists (`tagAttributes`). */
  readonly attributes: boolean;
}

/** What one call of {@link SequenceTagger.tag} asks besides labels. */
export interface TagRequest {
  readonly signal?: AbortSignal;
  /** Marginals and/or p(y|x) per sentence (needs `can.marginals`). */
  readonly confidence?: ConfidenceRequest;
  /** The k best labellings per sentence (needs `can.nbest`). */
  readonly nbest?: { readonly k: number; readonly method?: NBestMethod };
  /** Per sentence, the labels each position may take (needs `can.forced`); undefined: free. */
  readonly restrictions?: readonly (LabelRestriction | undefined)[];
  /** Names of the constraints that fired, per sentence (needs `can.explain`). */
  readonly explain?: boolean;
  /**
   * Stop at the first sentence that cannot be tagged (bad input): the items end with its failure.
   * Otherwise every sentence gets an item, failed or tagged.
   */
  readonly stopAtFailure?: boolean;
  /** Progress of a corpus-unit tagger (groups done of total; a two-stage first stage). */
  readonly onProgress?: (progress: TagProgress) => void;
}

export interface TagProgress {
  readonly stage: string;
  readonly done: number;
  readonly total: number;
}

/** The decoder's statistics of one sentence (or of the group it was decoded in), plain data. */
export interface DecodingStats {
  readonly iterations: number;
  readonly status: string;
  readonly certified: boolean;
  readonly primal: number;
  /** Undefined for a decoder without a dual bound. */
  readonly dual: number | undefined;
  readonly gap: number;
  readonly firstViolated: number;
  readonly violated: number;
  readonly hardViolated: number;
  /** The constrained labelling differs from the first (unconstrained) one. */
  readonly changed: boolean;
  /**
   * Hard constraints the output breaks by the independent check (constraint-templates'
   * `brokenHardConstraints`, which reads the labels' segments, not the compiled rows); absent
   * when the sentence was decoded under no hard constraint.
   */
  readonly brokenHard?: number;
  /** Names of the constraints whose multiplier ended > 0; with `explain` only. */
  readonly fired?: readonly string[];
  /**
   * Where sentences are decoded together (a document, a tweet group): the decoding's number in
   * the batch, the same for each of its sentences, whose figures above are the decoding's.
   */
  readonly unit?: number;
}

/** One tagged sentence, as plain data (it crosses threads as it is). */
export interface TaggedSentence {
  readonly labels: readonly string[];
  readonly stats: DecodingStats;
  readonly confidence?: ConfidenceRecord;
  /** With `nbest`: best first, each entry's label names beside its label ids. */
  readonly nbest?: TaggedNBest;
}

/** A sentence that could not be tagged (bad input): where, and why. */
export interface TagFailure {
  readonly place: string;
  readonly reason: string;
}

export type TagItem = TaggedSentence | TagFailure;

/** Time per phase in milliseconds. */
export interface TagTime {
  readonly featuresMs: number;
  readonly scoringMs: number;
  readonly decodingMs: number;
}

export interface TaggedBatch {
  /** One per sentence given, in order (fewer with `stopAtFailure`: the last is the failure). */
  readonly items: readonly TagItem[];
  /** This batch's time. */
  readonly time: TagTime;
  /** What to say once the batch is written (a general CRF's groups that hit the time limit). */
  readonly warnings?: readonly string[];
}

/** CRFsuite attribute lists to tag: `tokens` name the positions, `place` the sequence in errors. */
export interface AttributeItem {
  readonly attributes: AttributeSequence;
  readonly tokens: readonly string[];
  readonly place?: string;
}

export interface SequenceTagger {
  readonly kind: TaggerKind;
  /** "an L2S tagger", "a general CRF": the model in messages. */
  readonly description: string;
  /**
   * The model and its decoder as a report line names them: "the L2S tagger (12 labels, preset
   * pos, scheme none), decoder greedy", "the general CRF (documents), decoder two-slave".
   */
  readonly title: string;
  /** The model's name in messages (its path). */
  readonly modelName: string;
  readonly labels: readonly string[];
  readonly scheme: LabelScheme;
  /**
   * The input columns the model reads, by name, the word first (`word`; `word, pos, chunk`):
   * text gives the word alone. Empty where `can.text` is false.
   */
  readonly columns: readonly string[];
  /**
   * `sentence`: each sentence is tagged alone, so input may stream and be shared among threads.
   * `corpus`: a sentence's labels depend on others (a general CRF's groups, a two-stage model's
   * votes): the whole input is one batch.
   */
  readonly unit: "sentence" | "corpus";
  readonly can: TaggerCapabilities;
  /** The decoder's registered name and its resolved options (every declared one). */
  readonly decoder: string;
  readonly decodeOptions: Readonly<Record<string, DecoderOptionValue>>;
  /** The decoder decodes under constraints or slaves: its statistics mean something. */
  readonly constrained: boolean;
  /** How its n-best lists are found (undefined where `can.nbest` is false). */
  readonly nbestMethod: NBestMethod | undefined;
  /**
   * The spec with the model's bytes in place of its path: what a worker thread or a queue job
   * receives, to open the same tagger without reading the file again.
   */
  readonly spec: TaggingSpec & { readonly model: Uint8Array };
  /** The model's input view of a corpus: its input columns, the gold column kept or dropped. */
  input(corpus: Corpus, gold: GoldLabels): Corpus;
  /**
   * Throws the usage error (naming the model's kind) for what a request asks that this tagger
   * cannot do; `tag` checks it too, but a caller checks before it reads any input.
   * `restrictions` present (even empty) asks for forced decoding.
   */
  check(request: TagRequest): void;
  /** Tags a batch (a corpus-unit tagger: the whole input) in order. */
  tag(batch: readonly Sentence[], request?: TagRequest): Promise<TaggedBatch>;
  /** Tags CRFsuite attribute lists (needs `can.attributes`). */
  tagAttributes(batch: readonly AttributeItem[], request?: TagRequest): Promise<TaggedBatch>;
  /**
   * `lagrange explain`: sentence `index` of `batch` decoded and its labels' scores broken down
   * (a linear-chain CRF read through its preset only; the batch gives a two-stage model's votes).
   */
  explain(
    batch: readonly Sentence[],
    index: number,
    options?: ExplainSentenceOptions,
  ): Promise<SentenceExplanation>;
  /** Time spent so far, summed over every call. */
  readonly time: TaggingTime;
  /**
   * Warnings about the model itself, said once before tagging (a general CRF whose training
   * chose the chain alone).
   */
  readonly notes: readonly string[];
  /**
   * What the decoder did so far, for the report line, where the kind has more to say than the
   * per-sentence statistics (a general CRF: groups, those with consistency factors, certified).
   */
  summary(): string | undefined;
}

export function isTagFailure(item: TagItem): item is TagFailure {
  return (item as TagFailure).reason !== undefined;
}
