import { type CrfModel, loadModel, loadModelFromBytes } from "@lagrange/chain-crf";
import type { WeightedTemplate } from "@lagrange/constraint-templates";
import {
  type DecodeOptions,
  type DecoderRegistry,
  LagrangeError,
  lagrangeErrorCode,
} from "@lagrange/core";
import { type Sentence, tokenPlace } from "@lagrange/datasets";
import {
  type ConfidenceRecord,
  type ConfidenceRequest,
  confidenceRecord,
  InfeasibleSentenceError,
  loadPlugin,
  standardDecoders,
  Tagger,
} from "@lagrange/recipes";

/**
 * Everything a thread needs to build its tagger, as plain data: it is sent once to each worker
 * (structured clone), never per batch.
 */
export interface TaggingSetup {
  /** A model file's bytes or path; read once per thread. A loaded model serves the main thread. */
  readonly model: CrfModel | Uint8Array | string;
  /** A decoder name (default `viterbi`). */
  readonly decoder?: string;
  /** Learned constraints (a constraints file's entries). */
  readonly constraints?: readonly WeightedTemplate[];
  /**
   * The same constraints as their file's text, which is what crosses to worker threads (a
   * template holds functions, which cannot be cloned): each worker parses it once against the
   * model's labels. Needed with `threads` > 1 when `constraints` are given.
   */
  readonly constraintsText?: { readonly text: string; readonly source: string };
  /** Plug-in slaves added to every sentence's problem. */
  readonly slaves?: readonly string[];
  /** Plug-in modules (paths), loaded into each thread's registry. */
  readonly plugins?: readonly string[];
  /** Per-call decoder options (iteration cap, ILP τ and time limit, bcrf iterations). */
  readonly decodeOptions?: DecodeOptions & Readonly<Record<string, unknown>>;
  /**
   * Decode a constrained decoder with nothing to enforce (greedy alone: a left-to-right search
   * of the chain's scores). Otherwise such a decoder given no constraints is a usage error.
   */
  readonly allowUnconstrained?: boolean;
  /** Per-token marginals and p(y|x) of each output (`lagrange tag --marginals`, `--probability`). */
  readonly confidence?: ConfidenceRequest;
}

/** What a thread returns per sentence: labels and the decoder's figures, all plain data. */
export interface SentenceResult {
  readonly labels: readonly string[];
  readonly stats: DecodingStats;
  /** With the setup's `confidence`. */
  readonly confidence?: SentenceConfidence;
}

/** A sentence's marginals and probability as written (plain data, cheap to post). */
export type SentenceConfidence = ConfidenceRecord;

/** The decoder's statistics of one sentence (what `--explain` prints and the tally reads). */
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
  /** Names of the constraints whose multiplier ended > 0 (they pushed on the scores); with explain only. */
  readonly fired?: readonly string[];
}

/** A record that could not be tagged (bad input): where, and why. */
export interface RecordFailure {
  readonly place: string;
  readonly reason: string;
}

export type BatchItem = SentenceResult | RecordFailure;

/** Time per phase in milliseconds, summed over a batch (Tagger's clock). */
export interface BatchTime {
  readonly featuresMs: number;
  readonly scoringMs: number;
  readonly decodingMs: number;
}

export interface BatchResult {
  readonly items: readonly BatchItem[];
  readonly time: BatchTime;
}

/** The model's input view of a sentence: its input columns only (gold dropped), and where it is. */
export interface InputSentence {
  readonly tokens: string[];
  readonly columns: string[][];
  readonly source?: Sentence["source"];
  /** The columns the model reads where not all (a CoNLL-U sentence's FORM alone). */
  readonly inputColumns?: readonly number[];
}

export async function modelOf(source: TaggingSetup["model"]): Promise<CrfModel> {
  if (typeof source === "string") return loadModel(source);
  if (source instanceof Uint8Array) return loadModelFromBytes(source);
  return source;
}

/** A registry with the standard decoders and the setup's plug-ins, the decoder prepared. */
export async function registryOf(
  setup: TaggingSetup,
  registry?: DecoderRegistry,
): Promise<DecoderRegistry> {
  const built = registry ?? standardDecoders();
  if (registry === undefined)
    for (const plugin of setup.plugins ?? []) await loadPlugin(built, plugin);
  await built.prepare(setup.decoder ?? "viterbi");
  return built;
}

/** One thread's tagger: what the main thread runs alone and each worker runs once. */
export class ThreadTagger {
  readonly #tagger: Tagger;
  readonly #explain: boolean;
  readonly #confidence: ConfidenceRequest | undefined;

  constructor(model: CrfModel, registry: DecoderRegistry, setup: TaggingSetup, explain: boolean) {
    const name = setup.decoder ?? "viterbi";
    const alone =
      setup.allowUnconstrained === true &&
      setup.constraints === undefined &&
      (setup.slaves ?? []).length === 0 &&
      registry.decoder(name).accepts.constraints;
    this.#tagger = new Tagger({
      model,
      registry,
      decoder: alone ? registry.create(name) : name,
      ...(setup.constraints === undefined ? {} : { constraints: setup.constraints }),
      slaves: setup.slaves ?? [],
      ...(setup.decodeOptions === undefined ? {} : { decodeOptions: setup.decodeOptions }),
    });
    this.#explain = explain;
    const request = setup.confidence;
    this.#confidence =
      request?.marginals === true || request?.probability === true ? request : undefined;
  }

  get labelNames(): readonly string[] {
    return this.#tagger.model.labels.names();
  }

  /**
   * Tags a batch; a sentence no labelling fits (infeasible) is a failure, not an exception. With
   * `stopAtFailure`, the items end at the first failure (a stream that stops there tags no more).
   */
  tagBatch(
    sentences: readonly InputSentence[],
    signal?: AbortSignal,
    stopAtFailure = false,
  ): BatchResult {
    const before = this.#tagger.time;
    const items: BatchItem[] = [];
    for (let i = 0; i < sentences.length; i++) {
      if (stopAtFailure && i > 0 && isFailure(items[i - 1]!)) break;
      const sentence = sentences[i]!;
      try {
        const tagged = this.#tagger.tag(sentence as Sentence, signal);
        const d = tagged.decoding;
        // Without constraint statistics the decoding is unconstrained: nothing changed or violated.
        const cs = d.constraintStats;
        let changed = false;
        if (cs !== undefined) {
          for (let t = 0; t < d.labels.length; t++) {
            if (d.labels[t] !== cs.firstLabels[t]) {
              changed = true;
              break;
            }
          }
        }
        let fired: string[] | undefined;
        if (this.#explain) {
          fired = [];
          const multipliers = cs?.multipliers ?? [];
          for (let c = 0; c < multipliers.length; c++) {
            if (multipliers[c]! > 0) fired.push(tagged.constraints[c]?.name ?? `constraint ${c}`);
          }
        }
        items[i] = {
          labels: tagged.labels,
          stats: {
            iterations: d.iterations,
            status: d.status,
            certified: d.certified,
            primal: d.primal,
            dual: d.dual,
            gap: d.gap,
            firstViolated: cs?.firstViolated ?? 0,
            violated: cs?.violated ?? 0,
            hardViolated: cs?.hardViolated ?? 0,
            changed,
            ...(fired === undefined ? {} : { fired }),
          },
          ...(this.#confidence === undefined
            ? {}
            : { confidence: sentenceConfidence(this.#tagger, tagged, this.#confidence) }),
        };
      } catch (error) {
        // Bad input of one sentence (no feasible labelling, columns the preset cannot read) is
        // the caller's to stop on or skip; anything else is a fault of the program.
        if (
          !(error instanceof InfeasibleSentenceError) &&
          lagrangeErrorCode(error) !== "bad-input"
        ) {
          throw error;
        }
        // The message names the token at fault (file:line) where it can: that is the place.
        const message = (error as Error).message;
        const file = (sentence as Sentence).source?.file;
        const at =
          file === undefined
            ? null
            : new RegExp(
                `^(${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:\\d+(?: \\(token \\d+\\))?): `,
              ).exec(message);
        items[i] = {
          place: at?.[1] ?? tokenPlace(sentence as Sentence, 0),
          reason: at === null ? message : message.slice(at[0].length),
        };
      }
    }
    const after = this.#tagger.time;
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

/** A tagged sentence's confidence as plain data, the marginals as maps by label name. */
function sentenceConfidence(
  tagger: Tagger,
  tagged: ReturnType<Tagger["tag"]>,
  request: ConfidenceRequest,
): SentenceConfidence {
  return confidenceRecord(tagger.confidence(tagged, request), tagger.model.labels.names());
}

export function isFailure(item: BatchItem): item is RecordFailure {
  return (item as RecordFailure).reason !== undefined;
}

/** A usage error for a setup the worker threads cannot receive. */
export function notTransferable(what: string): LagrangeError {
  return new LagrangeError("usage", what);
}
