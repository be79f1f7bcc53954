/**
 * A general CRF as a {@link SequenceTagger}: the whole batch grouped as the model says (tweet
 * clusters or documents), each group decoded with its consistency factors — or, with a decoder of
 * the chain alone, without them.
 */
import type { Decoder, DecoderOptionValue } from "@lagrange/core";
import { type Corpus, type LabelScheme, type Sentence, tokenPlace } from "@lagrange/datasets";
import type { GeneralCrf } from "../general-crf-settings.js";
import { type DecodedGroup, tagGeneral } from "../general-crf-tagging.js";
import { modelColumns } from "../model-features.js";
import { type GoldLabels, inputForModel } from "../model-input.js";
import { modelScheme } from "../model-scheme.js";
import type {
  SequenceTagger,
  TaggedBatch,
  TaggerKind,
  TaggingSpec,
  TagItem,
  TagRequest,
} from "./sequence-tagger.js";
import { decodingStats } from "./tag-items.js";
import { TextOnlyTagger } from "./text-only-tagger.js";

export class GeneralCrfTagger extends TextOnlyTagger implements SequenceTagger {
  readonly kind: TaggerKind = "general-crf";
  readonly description = "a general CRF";
  readonly title: string;
  readonly labels: readonly string[];
  readonly scheme: LabelScheme;
  readonly unit = "corpus" as const;
  readonly notes: readonly string[];
  readonly #crf: GeneralCrf;
  readonly #engine: Decoder;
  /** The decoder decodes the chain alone: the consistency factors are ignored. */
  readonly #chainOnly: boolean;
  readonly #groups: DecodedGroup[] = [];

  constructor(
    crf: GeneralCrf,
    engine: Decoder,
    chainOnly: boolean,
    readonly decoder: string,
    readonly decodeOptions: Readonly<Record<string, DecoderOptionValue>>,
    readonly modelName: string,
    readonly spec: TaggingSpec & { readonly model: Uint8Array },
  ) {
    super("its consistency factors have no exact marginals", "its groups need the whole input");
    this.#crf = crf;
    this.#engine = engine;
    this.#chainOnly = chainOnly;
    this.labels = crf.model.labels.names();
    this.scheme = modelScheme(crf.model);
    this.title = `the general CRF (${crf.settings.groups}), decoder ${decoder}${chainOnly ? " (the chain alone: consistency factors ignored)" : ""}`;
    const selection = crf.settings.selection;
    this.notes =
      selection !== undefined && selection.scale === 0
        ? [
            `this general CRF's training chose the chain alone on its held-out cut (${(100 * selection.chainScore).toFixed(2)} ${selection.measure === "f1" ? "F1" : "accuracy"}; no consistency weights beat it): it decodes as its chain`,
          ]
        : [];
  }

  get columns(): readonly string[] {
    return modelColumns(this.#crf.model);
  }

  input(corpus: Corpus, gold: GoldLabels): Corpus {
    return inputForModel(corpus, this.#crf.model, gold);
  }

  /** The whole input: a group's labels depend on every sentence in it. */
  async tag(batch: readonly Sentence[], request: TagRequest = {}): Promise<TaggedBatch> {
    this.check(request);
    const { signal, onProgress } = request;
    const tagging = await tagGeneral(this.#crf, batch, this.#engine, {
      decodeOptions: this.decodeOptions,
      ...(this.#chainOnly ? { chainOnly: true } : {}),
      ...(signal === undefined ? {} : { signal }),
      ...(onProgress === undefined
        ? {}
        : { onGroup: (done, total) => onProgress({ stage: "groups", done, total }) }),
    });
    this.#groups.push(...tagging.groups);
    const items: TagItem[] = new Array(batch.length);
    for (const group of tagging.groups) {
      const stats = decodingStats(group.decoding, [], false);
      for (const k of group.members) items[k] = { labels: tagging.labels[k]!, stats };
    }
    this.clock.sentences += batch.length;
    for (const sentence of batch) this.clock.tokens += sentence.tokens.length;
    this.clock.decodingMs += tagging.decodingMs;
    const timedOut = tagging.groups
      .filter((g) => g.decoding.status === "time-limit")
      .map((g) => tokenPlace(batch[g.members[0]!]!, 0));
    const limit = Number(this.decodeOptions.timeLimitMs) / 1000;
    return {
      items,
      time: { featuresMs: 0, scoringMs: 0, decodingMs: tagging.decodingMs },
      ...(timedOut.length === 0
        ? {}
        : {
            warnings: [
              `${timedOut.length} group(s) hit the ${limit} s time limit; their labels are the best found, not proven optimal (groups starting at ${timedOut.slice(0, 20).join(", ")}${timedOut.length > 20 ? ", …" : ""})`,
            ],
          }),
    };
  }

  /** Groups, groups with consistency factors, % of those certified, decoding time. */
  summary(): string {
    const linked = this.#groups.filter((g) => g.factors > 0);
    const certified = linked.filter((g) => g.decoding.certified).length;
    const iterations = linked.reduce((sum, g) => sum + g.decoding.iterations, 0);
    const share =
      linked.length === 0
        ? "none to certify"
        : `${((100 * certified) / linked.length).toFixed(1)}% of those certified, ${(iterations / linked.length).toFixed(2)} mean iterations`;
    return `${this.#groups.length} groups, ${linked.length} with consistency factors (${share}); decoding ${(this.clock.decodingMs / 1000).toFixed(2)} s`;
  }
}
