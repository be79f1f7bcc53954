import type { AttributeSequence, CrfModel, TrainingProgress } from "@lagrange/chain-crf";
import {
  constraintInstantiator,
  OUTSIDE,
  RULE_FAMILIES,
  SegmentIndex,
  type WeightedTemplate,
} from "@lagrange/constraint-templates";
import {
  type Checkpoints,
  checkpoints,
  type DecodeOptions,
  type Decoder,
  type DecoderRegistry,
  type Decoding,
  type LinearConstraint,
  summarizeDecodings,
} from "@lagrange/core";
import { firstLabelsOf } from "@lagrange/core/dual-decomposition";
import type { Corpus } from "@lagrange/datasets";
import {
  type IlpDecodeOptions,
  type IlpDecoding,
  type MineRulesOptions,
  type RuleCostPolicy,
  type RuleFamily,
  softPenalty,
} from "@lagrange/ilp";
import {
  attributesOf,
  type BaseModel,
  chainTagger,
  type DecoderTiming,
  type MinedOnCorpus,
  mineRulesOnCorpus,
  modelDecodingConstraints,
  type SequenceTagger,
  standardDecoders,
  timeTaggers,
  trainOrLoadModel,
} from "@lagrange/recipes";
import type { TwoPhaseData } from "./data.js";
import {
  type FieldPrf,
  fieldPrf,
  type Significance,
  significanceOf,
  type TimeDistribution,
  type TokenScores,
  timeDistribution,
  tokenScores,
} from "./metrics.js";

/** τ values tried on held-out data (largest first: ties go to the labelling closest to Viterbi). */
export const DEFAULT_TAU_GRID: readonly number[] = [1, 0.5, 0.1, 0.01, 0.001, 1e-4];
/** Multipliers of the rule costs tried as Soft-DD penalties (smallest first, for ties). */
export const DEFAULT_PENALTY_SCALES: readonly number[] = [1, 3, 10, 30, 100];

/** The experiment's defaults (`--quick` lowers the first, the bootstrap and the timing runs). */
export const TWO_PHASE_DEFAULTS = {
  crfIterations: 60,
  threads: 2,
  timeLimitMs: 1000,
  bootstrapSamples: 10_000,
  seed: 1,
  timingRuns: 3,
} as const;

export interface TwoPhaseExperimentOptions {
  /** L-BFGS iterations of every CRF (default 60). */
  readonly crfIterations?: number;
  /** Threads for CRF training (default 2). */
  readonly threads?: number;
  /** Where trained models are cached; absent: always train. */
  readonly cacheDir?: string;
  readonly tauGrid?: readonly number[];
  readonly penaltyScales?: readonly number[];
  /** Per-sentence time limit of the ILP decoders, ms (default 1000). */
  readonly timeLimitMs?: number;
  /** Rule miner thresholds and cost policy (defaults: the miner's own). */
  readonly mining?: Pick<
    MineRulesOptions,
    "minSupport" | "minConfidence" | "minLift" | "cost" | "delimiters" | "includeOutside"
  >;
  /** Rule families (default all five). */
  readonly families?: readonly RuleFamily[];
  /**
   * The segment kinds rules may name: `top-level` (default; every kind of a flat label set, the
   * top-level fields of a hierarchical one) or `all` (nested kinds too: on UMass 1,970 rules
   * instead of 43, mostly presence-precedence rows over every label inside a field, which makes
   * decoding take about a second per citation).
   */
  readonly ruleKeys?: "top-level" | "all";
  /** Paired bootstrap samples (default 10 000). */
  readonly bootstrapSamples?: number;
  /** Seed of the bootstrap (default 1). */
  readonly seed?: number;
  /** Timed runs of the timing harness (default 3). */
  readonly timingRuns?: number;
  readonly registry?: DecoderRegistry;
  readonly onStatus?: (message: string) => void;
  // biome-ignore lint/suspicious/noConfusingVoidType: a progress callback returns nothing
  readonly onTrainingProgress?: (progress: TrainingProgress) => void | boolean;
  readonly signal?: AbortSignal;
}

/** One decoder configuration: Viterbi, the two-phase ILP over some rule families, or Soft-DD. */
export interface SystemSpec {
  readonly name: string;
  readonly decoder: "viterbi" | "two-phase" | "soft-dd";
  /** The rule families it decodes under ([] for Viterbi). */
  readonly families: readonly RuleFamily[];
}

/** A system's held-out runs over its parameter grid (τ, or the Soft-DD penalty scale). */
export interface Selection {
  readonly system: string;
  readonly parameter: "tau" | "scale";
  readonly grid: readonly {
    readonly value: number;
    readonly accuracy: number;
    readonly f1: number;
    readonly changed: number;
    readonly timeLimitHits: number;
  }[];
  /** The value of highest held-out token accuracy (the first of the grid on ties). */
  readonly chosen: number;
  /** Why there was nothing to choose (no mined rule of its families). */
  readonly note?: string;
}

/** The ILP decoder's own statistics on the reported split. */
export interface IlpFigures {
  /** Sentences whose Viterbi labelling breaks a rule, so that HiGHS was called. */
  readonly called: number;
  readonly timeLimitHits: number;
  /** Sentences the decoder found infeasible (they keep Viterbi's labels). */
  readonly infeasible: number;
  /** Per-sentence decoder time (`solveMs`) over the sentences HiGHS was called for. */
  readonly calledTime: TimeDistribution;
  /** The same over every sentence. */
  readonly allTime: TimeDistribution;
  /** Mean columns of the ILPs solved. */
  readonly meanColumns: number;
  /**
   * Σ rule-violation cost (each broken rule instance pays its rule's cost once, the two-phase
   * objective) over the sentences HiGHS was called for: of Viterbi's labelling and of the output.
   */
  readonly violationCost: { readonly viterbi: number; readonly output: number };
}

/** One system's figures on the reported split. */
export interface SystemResult extends SystemSpec {
  /** Rule templates it decodes under. */
  readonly rules: number;
  /** τ (two-phase) or the penalty scale (Soft-DD); null for Viterbi. */
  readonly parameter: { readonly name: "tau" | "scale"; readonly value: number } | null;
  readonly tokens: TokenScores;
  readonly fields: FieldPrf;
  /** Paired bootstrap against Viterbi (null for Viterbi itself). */
  readonly significance: { readonly accuracy: Significance; readonly f1: Significance } | null;
  /** Sentences whose labels differ from Viterbi's. */
  readonly changed: number;
  /**
   * Decoding time (scores → labels) of the evaluation pass, ms: the first pass of a fresh tagger,
   * so it includes building each sentence length's constraints once (the timing harness is warm).
   */
  readonly decodingMs: number;
  readonly ilp: IlpFigures | null;
  /** Soft-DD: % certified and mean iterations. */
  readonly softDd: { readonly certified: number; readonly meanIterations: number } | null;
}

/** A mined rule in words, with its counts over the training data. */
export interface RuleRow {
  readonly rule: string;
  readonly family: string;
  readonly support: number;
  readonly violations: number;
  readonly confidence: number;
  readonly cost: number;
}

export interface ModelFigures {
  readonly trainedOn: number;
  readonly cached: boolean;
  readonly seconds: number;
  readonly iterations: number | null;
  readonly features: number;
}

export interface TwoPhaseDatasetResult {
  readonly id: TwoPhaseData["id"];
  readonly title: string;
  readonly protocol: string;
  readonly generated: boolean;
  readonly preset: string;
  readonly sizes: {
    readonly train: number;
    readonly tuneTrain: number;
    readonly heldOut: number;
    readonly test: number;
    readonly testTokens: number;
  };
  readonly labels: number;
  readonly models: { readonly tuning: ModelFigures; readonly final: ModelFigures };
  readonly rules: {
    readonly candidates: number;
    readonly mined: number;
    readonly perFamily: Readonly<Record<string, number>>;
    readonly cost: RuleCostPolicy;
    readonly minSupport: number;
    readonly minConfidence: number;
    readonly delimiters: readonly string[];
    /** The segment kinds rules may name (see {@link TwoPhaseExperimentOptions.ruleKeys}). */
    readonly keys: readonly string[];
    /** Whether rules may also name `O`. */
    readonly includeOutside: boolean;
    /** The most important rules (the miner's order: cost, then support). */
    readonly top: readonly RuleRow[];
  };
  readonly selection: readonly Selection[];
  readonly systems: readonly SystemResult[];
  /** The timing harness: Viterbi, two-phase (all rules), Soft-DD (all rules); warm medians. */
  readonly timing: readonly DecoderTiming[];
  /** Soft-DD's decoding time over the two-phase ILP's (all rules), from the timing harness. */
  readonly softDdOverIlp: number;
}

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

interface Context {
  readonly registry: DecoderRegistry;
  readonly timeLimitMs: number;
  readonly checkpoint: Checkpoints;
  readonly signal: AbortSignal | undefined;
}

function weighted(mined: MinedOnCorpus, families: readonly RuleFamily[], scale = 1) {
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

function system(
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
async function decodeSplit(system: System, split: Split, context: Context): Promise<Decoded> {
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
  const L = model.numLabels;
  let fallback: Decoder | undefined;
  for (let i = 0; i < split.corpus.sentences.length; i++) {
    if (context.checkpoint.due()) await context.checkpoint.pause();
    const { tokens } = split.corpus.sentences[i]!;
    const scores = scorer.score(split.attributes[i]!);
    const constraints: LinearConstraint[] = constraintsFor?.({ n: scores.n, L, tokens }) ?? [];
    const started = performance.now();
    const decoding = decoder.decode(
      constraints.length === 0 ? { scores } : { scores, constraints },
      options,
    );
    if (decoding.status === "infeasible") {
      fallback ??= context.registry.create("viterbi");
      labels.push(model.labels.decode(fallback.decode({ scores }).labels));
      decodings.push(null);
      firstCosts.push(0);
      outputCosts.push(0);
      continue;
    }
    decodingMs += performance.now() - started;
    labels.push(model.labels.decode(decoding.labels));
    decodings.push(decoding);
    firstCosts.push(softPenalty(constraints, firstLabelsOf(decoding), L, "indicator"));
    outputCosts.push(softPenalty(constraints, decoding.labels, L, "indicator"));
  }
  return { labels, decodings, firstCosts, outputCosts, decodingMs };
}

function changedSentences(a: readonly string[][], b: readonly string[][]): number {
  let changed = 0;
  a.forEach((labels, s) => {
    if (labels.some((label, i) => label !== b[s]![i])) changed++;
  });
  return changed;
}

function ilpFigures(decoded: Decoded): IlpFigures {
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
function topLevelKeys(model: CrfModel): string[] {
  return new SegmentIndex(model.labels.names())
    .segmentKeys()
    .map((k) => k.key)
    .filter((key) => key !== OUTSIDE && !key.includes("/"));
}

async function prepareSplit(model: CrfModel, corpus: Corpus): Promise<Split> {
  return {
    corpus,
    attributes: attributesOf(model, corpus.sentences),
    gold: corpus.sentences.map((s) => s.labels ?? []),
  };
}

function modelFigures(base: BaseModel, corpus: Corpus): ModelFigures {
  return {
    trainedOn: corpus.sentences.length,
    cached: base.cached,
    seconds: base.seconds,
    iterations: base.iterations,
    features: base.features,
  };
}

/**
 * fersini2014's experiment on one split protocol: a CRF (trained, or from the cache), its rules
 * mined on the same training data, τ (two-phase) and the penalty scale (Soft-DD) chosen per system
 * on held-out data with a tuning model and tuning rules, then every system on the reported split:
 * token-level P/R/F over label types (Eqs. 31–34), field F1, paired bootstrap against Viterbi, ILP
 * time per sentence, and decode time through the timing harness.
 */
export async function twoPhaseExperiment(
  data: TwoPhaseData,
  options: TwoPhaseExperimentOptions = {},
): Promise<TwoPhaseDatasetResult> {
  const status = options.onStatus ?? (() => {});
  const say = (message: string) => status(`${data.id}: ${message}`);
  const signal = options.signal;
  const registry = options.registry ?? standardDecoders();
  await registry.prepare("two-phase");
  const context: Context = {
    registry,
    timeLimitMs: options.timeLimitMs ?? TWO_PHASE_DEFAULTS.timeLimitMs,
    checkpoint: checkpoints(signal),
    signal,
  };
  const tauGrid = options.tauGrid ?? DEFAULT_TAU_GRID;
  const scales = options.penaltyScales ?? DEFAULT_PENALTY_SCALES;
  const families = options.families ?? (RULE_FAMILIES as readonly RuleFamily[]);
  const training = {
    preset: data.preset,
    scheme: data.train.scheme,
    iterations: options.crfIterations ?? TWO_PHASE_DEFAULTS.crfIterations,
    threads: options.threads ?? TWO_PHASE_DEFAULTS.threads,
    ...(options.cacheDir === undefined ? {} : { cacheDir: options.cacheDir }),
    onStatus: say,
    ...(options.onTrainingProgress === undefined
      ? {}
      : { onTrainingProgress: options.onTrainingProgress }),
    ...(signal === undefined ? {} : { signal }),
  };
  const name = `${data.preset}-crf`;
  const final = await trainOrLoadModel(data.train, { ...training, name });
  const tuning =
    data.tuneTrain === data.train
      ? final
      : await trainOrLoadModel(data.tuneTrain, { ...training, name });
  const ruleKeys = options.ruleKeys ?? "top-level";
  const mine = (corpus: Corpus, model: CrfModel) =>
    mineRulesOnCorpus(corpus, {
      ...options.mining,
      labels: model.labels.names(),
      families,
      ...(ruleKeys === "top-level" ? { segments: topLevelKeys(model) } : {}),
      ...(signal === undefined ? {} : { signal }),
    });
  const finalRules = await mine(data.train, final.model);
  const tuningRules =
    data.tuneTrain === data.train ? finalRules : await mine(data.tuneTrain, tuning.model);
  say(
    `${finalRules.mining.rules.length} rules mined on ${data.train.label} (${finalRules.mining.candidates} candidates); ${tuningRules.mining.rules.length} on ${data.tuneTrain.label} for tuning`,
  );

  // Held-out selection of τ and of the Soft-DD scale, per system.
  const systems = twoPhaseSystems(families);
  const heldOut = await prepareSplit(tuning.model, data.heldOut);
  const heldOutViterbi = await decodeSplit(
    system(tuning.model, systems[0]!, [], 0, context),
    heldOut,
    context,
  );
  const selection: Selection[] = [];
  const chosen = new Map<string, number>();
  for (const spec of systems.slice(1)) {
    const parameter = spec.decoder === "two-phase" ? "tau" : "scale";
    const grid = parameter === "tau" ? tauGrid : scales;
    const base = weighted(tuningRules, spec.families);
    if (base.length === 0) {
      chosen.set(spec.name, grid[0]!);
      selection.push({
        system: spec.name,
        parameter,
        grid: [],
        chosen: grid[0]!,
        note: "no rule of this family was mined",
      });
      continue;
    }
    const runs = [];
    for (const value of grid) {
      const entries = parameter === "scale" ? weighted(tuningRules, spec.families, value) : base;
      const decoded = await decodeSplit(
        system(tuning.model, spec, entries, value, context),
        heldOut,
        context,
      );
      runs.push({
        value,
        accuracy: tokenScores(heldOut.gold, decoded.labels).accuracy,
        f1: fieldPrf(heldOut.gold, decoded.labels, data.evaluation).f1,
        changed: changedSentences(decoded.labels, heldOutViterbi.labels),
        timeLimitHits: decoded.decodings.filter((d) => d?.status === "time-limit").length,
      });
    }
    let best = runs[0]!;
    for (const run of runs) if (run.accuracy > best.accuracy + 1e-9) best = run;
    chosen.set(spec.name, best.value);
    selection.push({ system: spec.name, parameter, grid: runs, chosen: best.value });
    say(
      `held out: ${spec.name} → ${parameter} ${best.value} (token accuracy ${best.accuracy.toFixed(2)})`,
    );
  }

  // The reported split.
  const test = await prepareSplit(final.model, data.test);
  const samples = options.bootstrapSamples ?? TWO_PHASE_DEFAULTS.bootstrapSamples;
  const seed = options.seed ?? TWO_PHASE_DEFAULTS.seed;
  let viterbiLabels: string[][] = [];
  const results: SystemResult[] = [];
  const taggers = new Map<string, SequenceTagger>();
  for (const spec of systems) {
    const value = chosen.get(spec.name) ?? 0;
    const entries =
      spec.decoder === "soft-dd"
        ? weighted(finalRules, spec.families, value)
        : weighted(finalRules, spec.families);
    const t = system(final.model, spec, entries, value, context);
    taggers.set(spec.name, t.tagger());
    say(`decoding ${data.test.label} with ${spec.name}…`);
    const decoded = await decodeSplit(t, test, context);
    if (spec.decoder === "viterbi") viterbiLabels = decoded.labels;
    const changed = changedSentences(decoded.labels, viterbiLabels);
    const same = { delta: 0, pValue: 1, interval: [0, 0] as const };
    const decodings = decoded.decodings.filter((d): d is Decoding => d !== null);
    const summary = spec.decoder === "soft-dd" ? summarizeDecodings(decodings) : undefined;
    results.push({
      ...spec,
      rules: entries.length,
      parameter:
        spec.decoder === "viterbi"
          ? null
          : { name: spec.decoder === "two-phase" ? "tau" : "scale", value },
      tokens: tokenScores(test.gold, decoded.labels),
      fields: fieldPrf(test.gold, decoded.labels, data.evaluation),
      significance:
        spec.decoder === "viterbi"
          ? null
          : changed === 0
            ? { accuracy: same, f1: same }
            : significanceOf(test.gold, decoded.labels, viterbiLabels, data.evaluation, {
                samples,
                seed,
                ...(signal === undefined ? {} : { signal }),
              }),
      changed,
      decodingMs: decoded.decodingMs,
      ilp: spec.decoder === "two-phase" ? ilpFigures(decoded) : null,
      softDd:
        summary === undefined
          ? null
          : { certified: 100 * summary.certifiedRate, meanIterations: summary.meanIterations },
    });
  }

  // Decode time through the timing harness (the path `lagrange tag` runs), warm.
  const allName = systems.at(-2)!.name;
  const softName = systems.at(-1)!.name;
  say("timing Viterbi, two-phase and Soft-DD…");
  const timing = await timeTaggers(
    [taggers.get(systems[0]!.name)!, taggers.get(allName)!, taggers.get(softName)!],
    data.test.sentences,
    {
      runs: options.timingRuns ?? TWO_PHASE_DEFAULTS.timingRuns,
      ...(signal === undefined ? {} : { signal }),
    },
  );

  const perFamily: Record<string, number> = {};
  for (const f of families) perFamily[f] = 0;
  for (const r of finalRules.mining.rules) {
    perFamily[r.template.family] = (perFamily[r.template.family] ?? 0) + 1;
  }
  const settings = finalRules.mining.settings;
  return {
    id: data.id,
    title: data.title,
    protocol: data.protocol,
    generated: data.generated,
    preset: data.preset,
    sizes: {
      train: data.train.sentences.length,
      tuneTrain: data.tuneTrain.sentences.length,
      heldOut: data.heldOut.sentences.length,
      test: data.test.sentences.length,
      testTokens: test.gold.reduce((n, labels) => n + labels.length, 0),
    },
    labels: final.model.numLabels,
    models: {
      tuning: modelFigures(tuning, data.tuneTrain),
      final: modelFigures(final, data.train),
    },
    rules: {
      candidates: finalRules.mining.candidates,
      mined: finalRules.mining.rules.length,
      perFamily,
      cost: settings.cost,
      minSupport: settings.minSupport,
      minConfidence: settings.minConfidence,
      delimiters: settings.delimiters,
      keys: settings.keys.filter((key) => key !== OUTSIDE),
      includeOutside: settings.includeOutside,
      top: finalRules.mining.rules.slice(0, 10).map((r) => ({
        rule: r.template.describe(),
        family: r.template.family,
        support: r.support,
        violations: r.violations,
        confidence: 100 * r.confidence,
        cost: r.cost,
      })),
    },
    selection,
    systems: results,
    timing,
    softDdOverIlp: timing[2]!.decodingMs / Math.max(1e-9, timing[1]!.decodingMs),
  };
}
