/**
 * A learning-to-search tagger as a {@link SequenceTagger}: each sentence's chain scores under its
 * policy (with the scheme's mask when it was trained with the bridge), decoded by a decoder that
 * needs nothing more (greedy, the default, is the policy's own left-to-right prediction).
 */
import { getPreset } from "@lagrange/chain-crf";
import { checkpoints, type Decoder, type DecoderOptionValue, throwIfAborted } from "@lagrange/core";
import { type Corpus, type LabelScheme, type Sentence, tokenPlace } from "@lagrange/datasets";
import { type L2sTagger, l2sChainScores } from "../l2s/tagger.js";
import { type GoldLabels, inputForPreset } from "../model-input.js";
import {
  isTagFailure,
  type SequenceTagger,
  type TaggedBatch,
  type TaggerKind,
  type TaggingSpec,
  type TagItem,
  type TagRequest,
} from "./sequence-tagger.js";
import { decodingStats, sentenceFailure } from "./tag-items.js";
import { TextOnlyTagger } from "./text-only-tagger.js";

/** An L2S tagger's input, with its gold labels or without: recipes' rule for preset models. */
export function l2sTaggerInput(corpus: Corpus, tagger: L2sTagger, gold: GoldLabels): Corpus {
  return inputForPreset(corpus, getPreset(tagger.preset), tagger.inputColumns, gold);
}

/** "12 labels, preset ner-words, scheme IOB2, bridge on". */
export function describeL2sTagger(tagger: L2sTagger): string {
  return `${tagger.labels.length} labels, preset ${tagger.preset}, scheme ${tagger.scheme}${tagger.scheme === "none" ? "" : `, bridge ${tagger.mask === null ? "off" : "on"}`}`;
}

export class L2sSequenceTagger extends TextOnlyTagger implements SequenceTagger {
  readonly kind: TaggerKind = "l2s";
  readonly description = "an L2S tagger";
  readonly title: string;
  readonly labels: readonly string[];
  readonly scheme: LabelScheme;
  readonly unit = "sentence" as const;
  readonly notes: readonly string[] = [];
  readonly #tagger: L2sTagger;
  readonly #engine: Decoder;

  constructor(
    tagger: L2sTagger,
    engine: Decoder,
    readonly decoder: string,
    readonly decodeOptions: Readonly<Record<string, DecoderOptionValue>>,
    readonly modelName: string,
    readonly spec: TaggingSpec & { readonly model: Uint8Array },
  ) {
    super("no distribution over labellings");
    this.#tagger = tagger;
    this.#engine = engine;
    this.labels = tagger.labels;
    this.scheme = tagger.scheme;
    this.title = `the L2S tagger (${describeL2sTagger(tagger)}), decoder ${decoder}`;
  }

  summary(): string | undefined {
    return undefined;
  }

  get columns(): readonly string[] {
    return getPreset(this.#tagger.preset).columns;
  }

  input(corpus: Corpus, gold: GoldLabels): Corpus {
    return l2sTaggerInput(corpus, this.#tagger, gold);
  }

  async tag(batch: readonly Sentence[], request: TagRequest = {}): Promise<TaggedBatch> {
    this.check(request);
    const { signal } = request;
    const options = signal === undefined ? this.decodeOptions : { ...this.decodeOptions, signal };
    const checkpoint = checkpoints(signal);
    const items: TagItem[] = [];
    let scoringMs = 0;
    let decodingMs = 0;
    for (let i = 0; i < batch.length; i++) {
      if (request.stopAtFailure === true && i > 0 && isTagFailure(items[i - 1]!)) break;
      if (checkpoint.due()) await checkpoint.pause();
      throwIfAborted(signal);
      const sentence = batch[i]!;
      try {
        const t0 = performance.now();
        const scores = l2sChainScores(this.#tagger, sentence);
        const t1 = performance.now();
        const decoding = this.#engine.decode({ scores }, options);
        const t2 = performance.now();
        scoringMs += t1 - t0;
        decodingMs += t2 - t1;
        if (decoding.status === "infeasible") {
          items.push({
            place: tokenPlace(sentence, 0),
            reason: "no labelling meets the label scheme's transitions",
          });
          continue;
        }
        this.clock.sentences++;
        this.clock.tokens += sentence.tokens.length;
        items.push({
          labels: Array.from(decoding.labels, (y) => this.labels[y]!),
          stats: decodingStats(decoding, [], false),
        });
      } catch (error) {
        items.push(sentenceFailure(error, sentence));
      }
    }
    this.clock.scoringMs += scoringMs;
    this.clock.decodingMs += decodingMs;
    return { items, time: { featuresMs: 0, scoringMs, decodingMs } };
  }
}
