/**
 * A linear-chain CRF as a {@link SequenceTagger}: first order (every request), second order
 * (labels only), a model that reads document inputs (a two-stage model's votes, document context,
 * computed over the whole batch), and a model imported from CRFsuite (attribute lists only). One {@link Tagger} is its engine and clock.
 */
import { type CrfModel, modelToBytes } from "@lagrange/chain-crf";
import { hasDocumentScope, type WeightedTemplate } from "@lagrange/constraint-templates";
import {
  checkpoints,
  type DecodeOptions,
  type Decoder,
  type DecoderOptionValue,
  type DecoderRegistry,
  LagrangeError,
} from "@lagrange/core";
import type { Corpus, LabelScheme, Sentence } from "@lagrange/datasets";
import { chainDecoders, needsConstraints, standardDecoders } from "../decoders.js";
import {
  type ExplainSentenceOptions,
  explainSentence,
  type SentenceExplanation,
} from "../explain.js";
import { modelColumns } from "../model-features.js";
import {
  type GoldLabels,
  inputForModel,
  readsDocumentInputs,
  withDocumentInputs,
} from "../model-input.js";
import { secondOrderOnly, type TaggedNBest, type Tagger, type TaggingTime } from "../tagger.js";
import { type ChainTaggerParts, chainEngine, HardConstraintCheck } from "./chain-parts.js";
import { type ConfidenceRecord, confidenceRecord } from "./confidence.js";
import { DEFAULT_DECODERS } from "./default-decoders.js";
import { DocumentTagger } from "./document-tagger.js";
import type { NBestMethod } from "./nbest.js";
import type {
  AttributeItem,
  DecodingStats,
  SequenceTagger,
  TaggedBatch,
  TaggerCapabilities,
  TaggerKind,
  TaggingSpec,
  TagItem,
  TagRequest,
} from "./sequence-tagger.js";
import { isTagFailure } from "./sequence-tagger.js";
import {
  checkRequest,
  decodingStats,
  failureOf,
  type Refusals,
  sentenceFailure,
  wantsConfidence,
} from "./tag-items.js";

/**
 * The chain tagger of the model's kind: CRFsuite import, a model that reads document inputs, or a
 * plain chain CRF; either of the last two decodes a document at a time when any of its
 * constraints is declared over a document.
 */
export function chainTaggerOf(parts: ChainTaggerParts): SequenceTagger {
  if (parts.model.preset === null) return new AttributeCrfTagger(parts);
  const tagger = readsDocumentInputs(parts.model)
    ? new DocumentInputTagger(parts)
    : new ChainCrfTagger(parts);
  return hasDocumentScope(parts.constraints ?? []) ? new DocumentTagger(parts, tagger) : tagger;
}

/** What {@link chainTagger} decodes a model in memory with (`openTagger` reads these from a spec). */
export interface ChainTaggerOptions {
  /** Default {@link standardDecoders} ({@link chainDecoders} for {@link taggerFromModel}). */
  readonly registry?: DecoderRegistry;
  /** A decoder name in `registry` (default `viterbi`), or a decoder built elsewhere. */
  readonly decoder?: string | Decoder;
  /** Learned constraints: weighted templates (a constraints file's entries are). */
  readonly constraints?: readonly WeightedTemplate[];
  /** Plug-in slaves (names in `registry`) added to every sentence's problem. */
  readonly slaves?: readonly string[];
  /** Per-call options of the decoder (iteration cap, tolerance, callbacks). */
  readonly decodeOptions?: DecodeOptions;
  /** The model's name in messages (default `the model`). */
  readonly modelName?: string;
}

/**
 * A chain CRF already in memory (an experiment's, a test's, a parser's POS tagger) as a
 * {@link SequenceTagger}: the same checks and the same path as `openTagger`, without a file.
 */
export function chainTagger(model: CrfModel, options: ChainTaggerOptions = {}): SequenceTagger {
  return chainTaggerIn(options.registry ?? standardDecoders(), model, options);
}

/**
 * {@link chainTagger} for a page: a chain CRF loaded from bytes (chain-crf's `loadModelFromBytes`)
 * as the {@link SequenceTagger} `tagText` takes, decoded by default over {@link chainDecoders}
 * (Viterbi, and the chain's marginals for the scores) so that a bundle which tags text carries no
 * other decoder. The model's embedded resources (clusters, lexicons) and its document context are
 * read as in Node. Constraints the model records are not applied: pass a registry with their
 * decoder and `constraints` for that, or tag with `openTagger` in Node.
 */
export function taggerFromModel(model: CrfModel, options: ChainTaggerOptions = {}): SequenceTagger {
  return chainTaggerIn(options.registry ?? chainDecoders(), model, options);
}

function chainTaggerIn(
  registry: DecoderRegistry,
  model: CrfModel,
  options: ChainTaggerOptions,
): SequenceTagger {
  const decoder = options.decoder ?? defaultChainDecoder(options.constraints);
  const definition = typeof decoder === "string" ? registry.decoder(decoder) : undefined;
  const slaves = options.slaves ?? [];
  const given = options.constraints !== undefined || slaves.length > 0;
  const decodeOptions: Record<string, DecoderOptionValue> = {};
  for (const [name, value] of Object.entries(options.decodeOptions ?? {})) {
    if (["number", "boolean", "string"].includes(typeof value)) decodeOptions[name] = value;
  }
  return chainTaggerOf({
    model,
    modelName: options.modelName ?? "the model",
    spec: undefined,
    registry,
    decoder,
    decodeOptions,
    ...(options.decodeOptions === undefined ? {} : { callOptions: options.decodeOptions }),
    constraints: options.constraints,
    slaves,
    constrained:
      definition === undefined
        ? given
        : definition.accepts.constraints && (needsConstraints(definition) || given),
  });
}

/** A chain CRF's decoder when none is named: Soft-DD under document constraints, else Viterbi. */
export function defaultChainDecoder(constraints: readonly WeightedTemplate[] | undefined): string {
  return constraints !== undefined && hasDocumentScope(constraints)
    ? DEFAULT_DECODERS["document-constraints"]
    : DEFAULT_DECODERS["chain-crf"];
}

/** A linear-chain CRF that reads text columns through its preset (first or second order). */
export class ChainCrfTagger implements SequenceTagger {
  readonly kind: TaggerKind = "chain-crf";
  readonly description: string = "a linear-chain CRF";
  readonly title: string;
  readonly modelName: string;
  readonly labels: readonly string[];
  readonly scheme: LabelScheme;
  readonly unit: "sentence" | "corpus" = "sentence";
  readonly can: TaggerCapabilities;
  readonly decoder: string;
  readonly decodeOptions: Readonly<Record<string, DecoderOptionValue>>;
  readonly constrained: boolean;
  readonly nbestMethod: NBestMethod | undefined;
  readonly notes: readonly string[] = [];
  protected readonly model: CrfModel;
  readonly #parts: ChainTaggerParts;
  /** The independent check every output passes. */
  readonly #check: HardConstraintCheck;
  readonly #engine: Tagger;
  /** A second engine for an n-best list's confidence, so that the clock counts each sentence once. */
  #side: Tagger | undefined;

  constructor(parts: ChainTaggerParts) {
    this.#parts = parts;
    this.model = parts.model;
    this.modelName = parts.modelName;
    this.decoder = typeof parts.decoder === "string" ? parts.decoder : parts.decoder.name;
    this.decodeOptions = parts.decodeOptions;
    this.constrained = parts.constrained;
    this.title = `the chain CRF, decoder ${this.decoder}`;
    this.#check = new HardConstraintCheck(parts, this.decoder);
    this.#engine = this.#newEngine();
    // What users read and write (forced labels included): the model's output scheme.
    this.labels = this.#engine.edge.labels;
    this.scheme = this.#engine.edge.scheme;
    this.can = this.capabilities(!this.#engine.labelsOnly);
    this.nbestMethod = this.can.nbest ? this.#engine.nbestMethod : undefined;
  }

  #spec: (TaggingSpec & { readonly model: Uint8Array }) | undefined;
  get spec(): TaggingSpec & { readonly model: Uint8Array } {
    const parts = this.#parts;
    if (
      parts.spec === undefined &&
      (parts.constraints !== undefined || typeof parts.decoder !== "string")
    ) {
      throw new LagrangeError(
        "usage",
        `${this.modelName} was built in memory with learned constraints or its own decoder: it has no plain-data spec; open it with openTagger`,
      );
    }
    this.#spec ??= parts.spec ?? {
      model: modelToBytes(this.model),
      modelName: this.modelName,
      ...(typeof this.#parts.decoder === "string" ? { decoder: this.#parts.decoder } : {}),
      decoderOptions: this.decodeOptions,
      ...(this.#parts.slaves.length === 0 ? {} : { slaves: this.#parts.slaves }),
    };
    return this.#spec;
  }

  /** A second-order model decodes with its own exact Viterbi: its labels only. */
  protected capabilities(firstOrder: boolean): TaggerCapabilities {
    return {
      marginals: firstOrder,
      nbest: firstOrder,
      forced: firstOrder,
      explain: true,
      text: true,
      attributes: true,
    };
  }

  #newEngine(): Tagger {
    return chainEngine(this.#parts);
  }

  get time(): TaggingTime {
    return this.#engine.time;
  }

  summary(): string | undefined {
    return undefined;
  }

  get columns(): readonly string[] {
    return modelColumns(this.model);
  }

  input(corpus: Corpus, gold: GoldLabels): Corpus {
    return inputForModel(corpus, this.model, gold);
  }

  /** Why this model refuses what it cannot do, by the flags asked. */
  protected refusals(flags: string): Partial<Refusals> {
    return {
      marginals: secondOrderOnly("--marginals and --probability").message,
      nbest: secondOrderOnly(flags).message,
    };
  }

  check(request: TagRequest): void {
    checkRequest(this.can, request, (flags) => this.refusals(flags));
  }

  async tag(batch: readonly Sentence[], request: TagRequest = {}): Promise<TaggedBatch> {
    this.check(request);
    return this.#tagEach(
      batch,
      request,
      (sentence) => ({ attributes: this.#engine.attributes(sentence), tokens: sentence.tokens }),
      (error, sentence, note) => sentenceFailure(error, sentence, note),
    );
  }

  async tagAttributes(
    batch: readonly AttributeItem[],
    request: TagRequest = {},
  ): Promise<TaggedBatch> {
    checkRequest(this.can, request, (flags) => this.refusals(flags));
    return this.#tagEach(
      batch,
      request,
      (item) => item,
      (error, item, note) => failureOf(error, item.place ?? "sequence", undefined, note),
    );
  }

  async explain(
    batch: readonly Sentence[],
    index: number,
    options: ExplainSentenceOptions = {},
  ): Promise<SentenceExplanation> {
    const sentence = batch[index];
    if (sentence === undefined) {
      throw new LagrangeError("usage", `sentence ${index + 1}: the input has ${batch.length}`);
    }
    return explainSentence(this.#engine, sentence, options);
  }

  async #tagEach<T>(
    batch: readonly T[],
    request: TagRequest,
    read: (item: T) => Pick<AttributeItem, "attributes" | "tokens">,
    fail: (error: unknown, item: T, note: string) => TagItem,
  ): Promise<TaggedBatch> {
    const engine = this.#engine;
    const { signal } = request;
    const confidence = wantsConfidence(request);
    const explain = request.explain === true;
    const before = engine.time;
    const checkpoint = checkpoints(signal);
    const items: TagItem[] = [];
    for (let i = 0; i < batch.length; i++) {
      if (request.stopAtFailure === true && i > 0 && isTagFailure(items[i - 1]!)) break;
      if (checkpoint.due()) await checkpoint.pause();
      const item = batch[i]!;
      const restriction = request.restrictions?.[i];
      const options = restriction === undefined ? {} : { restriction };
      try {
        const { attributes, tokens } = read(item);
        if (request.nbest === undefined) {
          const tagged = engine.tagAttributes(attributes, tokens, signal, options);
          items.push({
            labels: tagged.labels,
            stats: this.#check.checked(
              decodingStats(tagged.decoding, tagged.constraints, explain),
              tagged.decoding.labels,
              tokens,
            ),
            ...(confidence === undefined
              ? {}
              : {
                  confidence: confidenceRecord(
                    engine.confidence(tagged, confidence),
                    engine.edge.labels,
                  ),
                }),
          });
          continue;
        }
        const found = engine.nbestAttributes(attributes, tokens, request.nbest.k, {
          ...options,
          ...(request.nbest.method === undefined ? {} : { method: request.nbest.method }),
          ...(signal === undefined ? {} : { signal }),
        });
        const best = found.entries[0]!;
        let record: ConfidenceRecord | undefined;
        if (confidence !== undefined) {
          // The figures are of the list's best labelling (a tie may make the decoder's own differ).
          this.#side ??= this.#newEngine();
          const tagged = this.#side.tagAttributes(attributes, tokens, signal, options);
          const listed = { ...tagged, decoding: { ...tagged.decoding, labels: best.labels } };
          record = confidenceRecord(
            this.#side.confidence(listed, confidence),
            this.#side.edge.labels,
          );
        }
        items.push({
          labels: best.names,
          stats: this.#check.checked(nbestStats(found), best.labels, tokens),
          ...(record === undefined ? {} : { confidence: record }),
          nbest: found,
        });
      } catch (error) {
        items.push(
          fail(error, item, restriction === undefined ? "" : " (with the --forced labels)"),
        );
      }
    }
    const after = engine.time;
    return {
      items,
      time: {
        featuresMs: after.featuresMs - before.featuresMs,
        scoringMs: after.scoringMs - before.scoringMs,
        decodingMs: after.decodingMs - before.decodingMs,
      },
    };
  }
}

/** An n-best list's figures as one decoding's: its decodes, the best entry, all certified or not. */
function nbestStats(found: TaggedNBest): DecodingStats {
  const best = found.entries[0]!;
  return {
    iterations: found.decodes,
    status: found.timedOut ? "time-limit" : "optimal",
    certified: found.entries.every((e) => e.certified),
    primal: best.score,
    dual: undefined,
    gap: 0,
    firstViolated: 0,
    violated: 0,
    hardViolated: 0,
    changed: false,
  };
}

/**
 * A model whose inputs are computed over the documents of the whole batch (a two-stage model's
 * first-stage votes, lagrange train --two-stage; document context), so the input is read whole,
 * never streamed.
 */
export class DocumentInputTagger extends ChainCrfTagger {
  override readonly kind: TaggerKind;
  override readonly description: string;
  override readonly unit = "corpus" as const;

  constructor(parts: ChainTaggerParts) {
    super(parts);
    const twoStage = parts.model.firstStage !== null;
    this.kind = twoStage ? "two-stage" : "chain-crf";
    this.description = twoStage
      ? "a two-stage model (lagrange train --two-stage)"
      : "a linear-chain CRF with document context (read a whole input at a time)";
  }

  protected override capabilities(firstOrder: boolean): TaggerCapabilities {
    return { ...super.capabilities(firstOrder), nbest: false, forced: false };
  }

  protected override refusals(flags: string): Partial<Refusals> {
    return {
      ...super.refusals(flags),
      nbest: `${flags}: ${this.modelName} reads inputs computed over whole documents; tag it without ${flags}`,
    };
  }

  override async tag(batch: readonly Sentence[], request: TagRequest = {}): Promise<TaggedBatch> {
    this.check(request);
    return super.tag(await this.#withInputs(batch, request), request);
  }

  override async explain(
    batch: readonly Sentence[],
    index: number,
    options: ExplainSentenceOptions = {},
  ): Promise<SentenceExplanation> {
    const { signal } = options;
    return super.explain(
      await this.#withInputs(batch, signal === undefined ? {} : { signal }),
      index,
      options,
    );
  }

  #withInputs(batch: readonly Sentence[], request: TagRequest): Promise<readonly Sentence[]> {
    const { signal, onProgress } = request;
    return withDocumentInputs(this.model, batch, {
      ...(signal === undefined ? {} : { signal }),
      ...(onProgress === undefined
        ? {}
        : { onProgress: (done, total) => onProgress({ stage: "first stage", done, total }) }),
    });
  }
}

/**
 * A chain CRF imported from CRFsuite: no feature preset, so it reads CRFsuite attribute lists
 * ({@link SequenceTagger.tagAttributes}), not text columns.
 */
export class AttributeCrfTagger extends ChainCrfTagger {
  override readonly kind: TaggerKind = "attribute-crf";
  override readonly description = "a model without a feature preset (CRFsuite import)";

  protected override capabilities(): TaggerCapabilities {
    return {
      marginals: false,
      nbest: false,
      forced: false,
      explain: false,
      text: false,
      attributes: true,
    };
  }

  protected override refusals(flags: string): Partial<Refusals> {
    const refused = `${flags}: ${this.modelName} is ${this.description}; tag it without ${flags}`;
    return { marginals: refused, nbest: refused, explain: refused };
  }

  #noText(what = "tag data in CRFsuite's format with --format crfsuite"): LagrangeError {
    return new LagrangeError(
      "usage",
      `${this.modelName} has no feature preset (a model imported from CRFsuite): it reads CRFsuite attribute lists, not text columns; ${what}`,
    );
  }

  override input(): Corpus {
    throw this.#noText();
  }

  override async tag(): Promise<TaggedBatch> {
    throw this.#noText();
  }

  override async explain(): Promise<SentenceExplanation> {
    throw new LagrangeError(
      "usage",
      `${this.modelName} has no feature preset (a model imported from CRFsuite): explain reads text columns through a preset`,
    );
  }
}
