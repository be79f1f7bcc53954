/**
 * A chain CRF given document constraints (constraint-templates' `document` family): it decodes a
 * document at a time, the document's sentence chains end to end under the sentence constraints in
 * each sentence and the document constraints over all, so the input is read whole, never
 * streamed. A "document" is what the constraints were learned over (their file's `groups`): the
 * input's documents, or the general CRF's tweet groups of the whole input for data that marks
 * none. Everything but tagging text is its sentence tagger's.
 */
import type { DocumentGrouping } from "@lagrange/constraint-templates";
import { checkpoints, type DecoderOptionValue } from "@lagrange/core";
import { firstLabelsOf } from "@lagrange/core/dual-decomposition";
import type { Corpus, LabelScheme, Sentence } from "@lagrange/datasets";
import type { ExplainSentenceOptions, SentenceExplanation } from "../explain.js";
import { corpusGroups } from "../general-crf-tagging.js";
import { type GoldLabels, withDocumentInputs } from "../model-input.js";
import type { Tagger, TaggingTime } from "../tagger.js";
import { type ChainTaggerParts, chainEngine, HardConstraintCheck } from "./chain-parts.js";
import { confidenceRecord } from "./confidence.js";
import type {
  AttributeItem,
  SequenceTagger,
  TaggedBatch,
  TaggerCapabilities,
  TaggerKind,
  TaggingSpec,
  TagItem,
  TagRequest,
} from "./sequence-tagger.js";
import { checkRequest, decodingStats, sentenceFailure, wantsConfidence } from "./tag-items.js";

/** One decoded document's figures, for the summary. */
interface DocumentFigures {
  readonly certified: boolean;
  readonly iterations: number;
  readonly linked: boolean;
}

export class DocumentTagger implements SequenceTagger {
  readonly unit = "corpus" as const;
  readonly can: TaggerCapabilities;
  readonly nbestMethod = undefined;
  readonly #sentences: SequenceTagger;
  readonly #engine: Tagger;
  readonly #check: HardConstraintCheck;
  readonly #grouping: DocumentGrouping;
  readonly #model: ChainTaggerParts["model"];
  readonly #documents: DocumentFigures[] = [];

  /** `sentences`: the model's sentence tagger (spec, input, explain, attribute lists). */
  constructor(parts: ChainTaggerParts, sentences: SequenceTagger) {
    this.#sentences = sentences;
    this.#engine = chainEngine(parts);
    this.#check = new HardConstraintCheck(parts, sentences.decoder);
    this.#grouping = parts.documentGroups ?? "documents";
    this.#model = parts.model;
    // Marginals are the chain's of each sentence (marked chain-unconstrained where the document
    // was decoded under constraints), as a sentence tagger's under constraints are.
    this.can = { ...sentences.can, nbest: false, forced: false };
  }

  get kind(): TaggerKind {
    return this.#sentences.kind;
  }
  get description(): string {
    return `${this.#sentences.description}, decoded a ${this.#unitName} at a time`;
  }
  get title(): string {
    return `${this.#sentences.title}, a ${this.#unitName} at a time`;
  }
  get #unitName(): string {
    return this.#grouping === "documents" ? "document" : "tweet group";
  }
  get modelName(): string {
    return this.#sentences.modelName;
  }
  get labels(): readonly string[] {
    return this.#sentences.labels;
  }
  get columns(): readonly string[] {
    return this.#sentences.columns;
  }
  get scheme(): LabelScheme {
    return this.#sentences.scheme;
  }
  get decoder(): string {
    return this.#sentences.decoder;
  }
  get decodeOptions(): Readonly<Record<string, DecoderOptionValue>> {
    return this.#sentences.decodeOptions;
  }
  get constrained(): boolean {
    return this.#sentences.constrained;
  }
  get spec(): TaggingSpec & { readonly model: Uint8Array } {
    return this.#sentences.spec;
  }
  get notes(): readonly string[] {
    return this.#sentences.notes;
  }

  /** Its own clock (documents) and the sentence tagger's (attribute lists, explain). */
  get time(): TaggingTime {
    const a = this.#engine.time;
    const b = this.#sentences.time;
    return {
      sentences: a.sentences + b.sentences,
      tokens: a.tokens + b.tokens,
      featuresMs: a.featuresMs + b.featuresMs,
      scoringMs: a.scoringMs + b.scoringMs,
      decodingMs: a.decodingMs + b.decodingMs,
    };
  }

  input(corpus: Corpus, gold: GoldLabels): Corpus {
    return this.#sentences.input(corpus, gold);
  }

  check(request: TagRequest): void {
    const refused = (flags: string) =>
      `${flags}: ${this.modelName} decodes a document at a time under document constraints; tag without ${flags}, or without the document constraints`;
    checkRequest(this.can, request, (flags) => ({
      marginals: refused(flags),
      nbest: refused(flags),
    }));
  }

  /** Attribute lists carry no documents: each is decoded as a one-sentence document. */
  tagAttributes(batch: readonly AttributeItem[], request: TagRequest = {}): Promise<TaggedBatch> {
    this.check(request);
    return this.#sentences.tagAttributes(batch, request);
  }

  explain(
    batch: readonly Sentence[],
    index: number,
    options?: ExplainSentenceOptions,
  ): Promise<SentenceExplanation> {
    return this.#sentences.explain(batch, index, options);
  }

  /**
   * Groups the batch as the constraints were learned (by document: CoNLL `-DOCSTART-`, a `.docs`
   * file, a sentence without one its own; or into tweet groups, the batch being the whole input),
   * decodes each group, and gives each sentence its labels and its group's figures.
   */
  async tag(given: readonly Sentence[], request: TagRequest = {}): Promise<TaggedBatch> {
    this.check(request);
    const engine = this.#engine;
    const { signal, onProgress } = request;
    // A model reading document inputs (votes, context) gets them over the whole batch first.
    const batch = await withDocumentInputs(
      this.#model,
      given,
      signal === undefined ? {} : { signal },
    );
    const before = engine.time;
    const checkpoint = checkpoints(signal);
    const groups = corpusGroups(batch, this.#grouping);
    const confidence = wantsConfidence(request);
    // The labels the marginals are of: the output scheme's (the model's own without one).
    const labelNames = engine.edge.labels;
    // Tweet groups interleave: each item goes to its sentence's place, so items stay in order.
    const placed: (TagItem | undefined)[] = new Array(batch.length);
    let failedAt = batch.length;
    for (const [g, members] of groups.entries()) {
      // Groups come by their first sentence: past a failure, none holds an earlier sentence.
      if (request.stopAtFailure === true && members[0]! > failedAt) break;
      if (checkpoint.due()) await checkpoint.pause();
      const sentences = Array.from(members, (k) => batch[k]!);
      try {
        const attributes = sentences.map((s) => engine.attributes(s));
        const tokens = sentences.map((s) => s.tokens);
        const tagged = engine.tagGroup(attributes, tokens, signal);
        const starts = new Int32Array(tagged.labels.length);
        for (let k = 1; k < starts.length; k++) {
          starts[k] = starts[k - 1]! + tagged.labels[k - 1]!.length;
        }
        const stats = this.#check.checked(
          decodingStats(tagged.decoding, tagged.constraints, request.explain === true),
          tagged.decoding.labels,
          tokens.flat(),
          starts,
        );
        this.#documents.push({
          certified: tagged.decoding.certified,
          iterations: tagged.decoding.iterations,
          linked: tagged.constraints.length > 0,
        });
        // The group's figures, but whether the constraints changed a sentence is its own.
        const first = firstLabelsOf(tagged.decoding);
        const { labels } = tagged.decoding;
        tagged.labels.forEach((sentence, j) => {
          let changed = false;
          for (let p = starts[j]!; p < starts[j]! + sentence.length && !changed; p++) {
            changed = labels[p] !== first[p];
          }
          placed[members[j]!] = {
            labels: sentence,
            stats: { ...stats, changed, unit: g },
            ...(confidence === undefined
              ? {}
              : {
                  confidence: confidenceRecord(
                    engine.confidence(tagged.sentences[j]!, confidence),
                    labelNames,
                  ),
                }),
          };
        });
      } catch (error) {
        members.forEach((k, j) => {
          placed[k] = sentenceFailure(error, sentences[j]!);
        });
        failedAt = Math.min(failedAt, members[0]!);
      }
      onProgress?.({ stage: "documents", done: g + 1, total: groups.length });
    }
    const after = engine.time;
    // Stopped at a failure: the items end with the first failed sentence's.
    const items =
      request.stopAtFailure === true && failedAt < batch.length
        ? (placed.slice(0, failedAt + 1) as TagItem[])
        : (placed as TagItem[]);
    return {
      items,
      time: {
        featuresMs: after.featuresMs - before.featuresMs,
        scoringMs: after.scoringMs - before.scoringMs,
        decodingMs: after.decodingMs - before.decodingMs,
      },
    };
  }

  /** Groups of which kind, those with links to decode, % of those certified, mean iterations, decoding time. */
  summary(): string {
    const linked = this.#documents.filter((d) => d.linked);
    const certified = linked.filter((d) => d.certified).length;
    const iterations = linked.reduce((sum, d) => sum + d.iterations, 0);
    const share =
      linked.length === 0
        ? "none to certify"
        : `${((100 * certified) / linked.length).toFixed(1)}% of those certified, ${(iterations / linked.length).toFixed(2)} mean iterations`;
    const kind = this.#grouping === "documents" ? "documents" : "tweet groups";
    return `${this.#documents.length} ${kind}, ${linked.length} with constraints (${share}); decoding ${(this.#engine.time.decodingMs / 1000).toFixed(2)} s`;
  }
}
