import type { CrfModel } from "@lagrange/chain-crf";
import { OUTSIDE, RULE_FAMILIES } from "@lagrange/constraint-templates";
import { checkpoints, type Decoding, summarizeDecodings } from "@lagrange/core";
import type { Corpus } from "@lagrange/datasets";
import type { RuleFamily } from "@lagrange/ilp";
import {
  mineRulesOnCorpus,
  type SequenceTagger,
  standardDecoders,
  timeTaggers,
  trainOrLoadModel,
} from "@lagrange/recipes";
import type { TwoPhaseData } from "./data.js";
import {
  type Context,
  changedSentences,
  decodeSplit,
  ilpFigures,
  modelFigures,
  prepareSplit,
  system,
  topLevelKeys,
  twoPhaseSystems,
  weighted,
} from "./decode-split.js";
import {
  DEFAULT_PENALTY_SCALES,
  DEFAULT_TAU_GRID,
  type Selection,
  type SystemResult,
  TWO_PHASE_DEFAULTS,
  type TwoPhaseDatasetResult,
  type TwoPhaseExperimentOptions,
} from "./experiment-results.js";
import { fieldPrf, significanceOf, tokenScores } from "./metrics.js";

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
