import type { AttributeSequence, CrfModel } from "@lagrange/chain-crf";
import {
  constraintInstantiator,
  constraintLattice,
  OUTSIDE,
  SegmentIndex,
  type WeightedTemplate,
} from "@lagrange/constraint-templates";
import type {
  Checkpoints,
  DecodeOptions,
  Decoder,
  DecoderRegistry,
  Decoding,
  LinearConstraint,
} from "@lagrange/core";
import { firstLabelsOf } from "@lagrange/core/dual-decomposition";
import type { Corpus } from "@lagrange/datasets";
import {
  type IlpDecodeOptions,
  type IlpDecoding,
  type RuleFamily,
  softPenalty,
} from "@lagrange/ilp";
import {
  attributesOf,
  type BaseModel,
  chainTagger,
  type MinedOnCorpus,
  modelDecodingConstraints,
  modelScheme,
  type SequenceTagger,
} from "@lagrange/recipes";
import type { IlpFigures, ModelFigures, SystemSpec } from "./experiment-results.js";
import { timeDistribution } from "./metrics.js";

/** The systems of the benchmark: Viterbi, two-phase per family and all together, Soft-DD (all). */
export function twoPhaseSystems(families: readonly RuleFamily[]): SystemSpec[] {
  return [
    { name: "CRF-Viterbi", decoder: "viterbi", families: [] },
    ...families.map((f) => ({
      name: `two-phase: ${f}`,
      decoder: "two-phase" as const,
      families: [f],
    })),
    { name: "two-phase: all rules", decoder: "two-phase", families },
    { name: "Soft-DD: all rules", decoder: "soft-dd", families },
  ];
}

interface Split {
  readonly corpus: Corpus;
  readonly attributes: AttributeSequence[];
  readonly gold: string[][];
}

interface Decoded {
  readonly labels: string[][];
  readonly decodings: (Decoding | null)[];
  /**
   * Per sentence, the two-phase cost (Σ c_h over broken rule instances) of the unconstrained
   * (Viterbi) labelling and of the output, recomputed here: the decoder's own `violationCost` is 0
   * whenever phase 2 stops at the time limit, whatever labelling it returns.
   */
  readonly firstCosts: number[];
  readonly outputCosts: number[];
  readonly decodingMs: number;
}

export interface Context {
  readonly registry: DecoderRegistry;
  readonly timeLimitMs: number;
  readonly checkpoint: Checkpoints;
  readonly signal: AbortSignal | undefined;
}

export function weighted(mined: MinedOnCorpus, families: readonly RuleFamily[], scale = 1) {
  return mined.file.entries
    .filter((e) => (families as readonly string[]).includes(e.template.family))
    .map((e): WeightedTemplate => ({ template: e.template, penalty: (e.penalty ?? 0) * scale }));
}

/** A system as the experiment decodes it (its decodings kept) and as `lagrange tag` opens it. */
interface System {
  readonly model: CrfModel;
  readonly decoder: Decoder;
  readonly constraints: readonly WeightedTemplate[];
  readonly decodeOptions: DecodeOptions;
  /** The same model, decoder and constraints for the timing harness. */
  readonly tagger: () => SequenceTagger;
}

export function system(
  model: CrfModel,
  spec: SystemSpec,
  entries: readonly WeightedTemplate[],
  value: number,
  context: Context,
): System {
  const viterbi = spec.decoder === "viterbi";
  const decodeOptions: IlpDecodeOptions =
    spec.decoder === "two-phase" ? { tau: value, timeLimitMs: context.timeLimitMs } : {};
  const constraints = viterbi ? [] : entries;
  return {
    model,
    decoder: context.registry.create(spec.decoder),
    constraints,
    decodeOptions,
    tagger: () =>
      chainTagger(model, {
        registry: context.registry,
        decoder: spec.decoder,
        ...(viterbi ? {} : { constraints, decodeOptions }),
      }),
  };
}

/**
 * Tags a split; a sentence the decoder proves infeasible (it cannot be, with soft rules and the
 * ILP's big-M, unless the mask forbids every labelling) keeps Viterbi's labels.
 */
export async function decodeSplit(
  system: System,
  split: Split,
  context: Context,
): Promise<Decoded> {
  const { model, decoder } = system;
  const scorer = model.scorer(modelDecodingConstraints(model));
  const constraintsFor =
    system.constraints.length === 0 ? undefined : constraintInstantiator(system.constraints);
  const options =
    context.signal === undefined
      ? system.decodeOptions
      : { ...system.decodeOptions, signal: context.signal };
  let decodingMs = 0;
  const labels: string[][] = [];
  const decodings: (Decoding | null)[] = [];
  const firstCosts: number[] = [];
  const outputCosts: number[] = [];
  // Rules compile over the segment lattice's states (IOB1/IOE1 split their I- labels): decode
  // there, and read the labels back.
  const lattice = constraintLattice(system.constraints);
  const lifted = lattice?.expanded === true ? lattice : undefined;
  const L = lifted?.states.length ?? model.numLabels;
  const labelsOf = (states: ArrayLike<number>) =>
    model.labels.decode(lifted === undefined ? states : lifted.lower(states));
  let fallback: Decoder | undefined;
  for (let i = 0; i < split.corpus.sentences.length; i++) {
    if (context.checkpoint.due()) await context.checkpoint.pause();
    const { tokens } = split.corpus.sentences[i]!;
    const labelScores = scorer.score(split.attributes[i]!);
    const scores = lifted === undefined ? labelScores : lifted.liftScores(labelScores);
    const constraints: LinearConstraint[] = constraintsFor?.({ n: scores.n, L, tokens }) ?? [];
    const started = performance.now();
    const decoding = decoder.decode(
      constraints.length === 0 ? { scores } : { scores, constraints },
      options,
    );
    if (decoding.status === "infeasible") {
      fallback ??= context.registry.create("viterbi");
      labels.push(labelsOf(fallback.decode({ scores }).labels));
      decodings.push(null);
      firstCosts.push(0);
      outputCosts.push(0);
      continue;
    }
    decodingMs += performance.now() - started;
    labels.push(labelsOf(decoding.labels));
    decodings.push(decoding);
    firstCosts.push(softPenalty(constraints, firstLabelsOf(decoding), L, "indicator"));
    outputCosts.push(softPenalty(constraints, decoding.labels, L, "indicator"));
  }
  return { labels, decodings, firstCosts, outputCosts, decodingMs };
}

export function changedSentences(a: readonly string[][], b: readonly string[][]): number {
  let changed = 0;
  a.forEach((labels, s) => {
    if (labels.some((label, i) => label !== b[s]![i])) changed++;
  });
  return changed;
}

export function ilpFigures(decoded: Decoded): IlpFigures {
  const all: number[] = [];
  const called: number[] = [];
  let timeLimitHits = 0;
  let infeasible = 0;
  let columns = 0;
  let before = 0;
  let after = 0;
  decoded.decodings.forEach((d, s) => {
    if (d === null) {
      infeasible++;
      return;
    }
    const ilp = d as IlpDecoding;
    all.push(ilp.solveMs);
    if (ilp.status === "time-limit") timeLimitHits++;
    if (ilp.solves === 0) return;
    called.push(ilp.solveMs);
    columns += ilp.columns;
    before += decoded.firstCosts[s] ?? 0;
    after += decoded.outputCosts[s] ?? 0;
  });
  return {
    called: called.length,
    timeLimitHits,
    infeasible,
    calledTime: timeDistribution(called),
    allTime: timeDistribution(all),
    meanColumns: called.length === 0 ? 0 : columns / called.length,
    violationCost: { viterbi: before, output: after },
  };
}

/** The segment kinds of a model's label set that are not nested in another (`O` aside). */
export function topLevelKeys(model: CrfModel): string[] {
  return new SegmentIndex(model.labels.names(), modelScheme(model))
    .segmentKeys()
    .map((k) => k.key)
    .filter((key) => key !== OUTSIDE && !key.includes("/"));
}

export async function prepareSplit(model: CrfModel, corpus: Corpus): Promise<Split> {
  return {
    corpus,
    attributes: attributesOf(model, corpus.sentences),
    gold: corpus.sentences.map((s) => s.labels ?? []),
  };
}

export function modelFigures(base: BaseModel, corpus: Corpus): ModelFigures {
  return {
    trainedOn: corpus.sentences.length,
    cached: base.cached,
    seconds: base.seconds,
    iterations: base.iterations,
    features: base.features,
  };
}
