/**
 * What a chain CRF's taggers are built from (`openTagger` decides it, or `chainTagger` for a model
 * in memory), the engine they decode with, and the independent check every output passes: shared
 * by the sentence taggers and the document tagger.
 */
import type { CrfModel } from "@lagrange/chain-crf";
import {
  brokenHardConstraints,
  type DocumentGrouping,
  type SegmentKeying,
  type WeightedTemplate,
} from "@lagrange/constraint-templates";
import type { DecodeOptions, Decoder, DecoderOptionValue, DecoderRegistry } from "@lagrange/core";
import type { LabelScheme } from "@lagrange/datasets";
import { modelScheme } from "../model-scheme.js";
import { Tagger } from "../tagger.js";
import type { DecodingStats, TaggingSpec } from "./sequence-tagger.js";

/** What `openTagger` (or {@link chainTagger}) decided for a chain CRF. */
export interface ChainTaggerParts {
  readonly model: CrfModel;
  readonly modelName: string;
  /** Undefined for a model built in memory: its bytes are made when first asked for. */
  readonly spec: (TaggingSpec & { readonly model: Uint8Array }) | undefined;
  readonly registry: DecoderRegistry;
  /** A registered name, or a decoder built elsewhere (an experiment's renamed one). */
  readonly decoder: string | Decoder;
  readonly decodeOptions: Readonly<Record<string, DecoderOptionValue>>;
  /** Per-call options beside the declared ones (an experiment's callbacks, warm starts). */
  readonly callOptions?: DecodeOptions;
  readonly constraints: readonly WeightedTemplate[] | undefined;
  /** How the constraints name nested segments (their file's `segmentKeying`; default `path`). */
  readonly constraintKeying?: SegmentKeying;
  /** How document constraints group sentences (their file's `groups`; default `documents`). */
  readonly documentGroups?: DocumentGrouping;
  readonly slaves: readonly string[];
  readonly constrained: boolean;
}

/** The engine that scores and decodes for a chain CRF's tagger (and is its clock). */
export function chainEngine(parts: ChainTaggerParts): Tagger {
  return new Tagger({
    model: parts.model,
    registry: parts.registry,
    decoder: parts.decoder,
    ...(parts.constraints === undefined ? {} : { constraints: parts.constraints }),
    slaves: parts.slaves,
    decodeOptions: { ...parts.decodeOptions, ...parts.callOptions },
  });
}

/**
 * The independent check of a tagger's hard constraints: a decoding's figures with the number its
 * output breaks (constraint-templates' `brokenHardConstraints`, which reads the labels' segments,
 * not the compiled rows). A labelling certified optimal that breaks one is a defect of the decoder
 * or of the compiled rows, never a "certified" line: it stops the run as an internal error.
 */
export class HardConstraintCheck {
  readonly #hard: readonly WeightedTemplate[];
  readonly #scheme: LabelScheme;
  readonly #keying: SegmentKeying;
  readonly #decoder: string;
  readonly #model: CrfModel;

  /** The constraints are over the model's own labels and scheme, not the output's. */
  constructor(parts: ChainTaggerParts, decoder: string) {
    this.#hard = (parts.constraints ?? []).filter((e) => e.penalty === null);
    this.#model = parts.model;
    this.#scheme = modelScheme(parts.model);
    this.#keying = parts.constraintKeying ?? "path";
    this.#decoder = decoder;
  }

  /**
   * The model's label ids and the tokens of one sentence, or of a document's sentences end to end
   * (`sentenceStarts`).
   */
  checked(
    stats: DecodingStats,
    ids: Int32Array,
    tokens: readonly string[],
    sentenceStarts?: Int32Array,
  ): DecodingStats {
    if (this.#hard.length === 0) return stats;
    const labels = this.#model.labels.decode(ids);
    const broken = brokenHardConstraints(this.#hard, labels, tokens, {
      scheme: this.#scheme,
      keying: this.#keying,
      ...(sentenceStarts === undefined ? {} : { sentenceStarts }),
    });
    if (stats.certified && broken.length > 0) {
      throw new Error(
        `internal error: decoder ${this.#decoder} certified a ${sentenceStarts === undefined ? "" : "document "}labelling that breaks the hard constraint "${broken[0]!.description}" (${broken.length} broken by the independent check)${sentenceStarts === undefined ? `: labels ${labels.join(" ")}` : ""}`,
      );
    }
    return { ...stats, brokenHard: broken.length };
  }
}
