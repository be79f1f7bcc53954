import { COUNT_FAMILIES } from "@lagrange/constraint-templates";
import { type DecodeOptions, type Decoder, LagrangeError } from "@lagrange/core";
import type { DualDecompositionDecodeOptions } from "@lagrange/core/dual-decomposition";
import { type Corpus, evaluateChunks } from "@lagrange/datasets";
import { openBenchSplits } from "@lagrange/experiments";
import type { IlpDecodeOptions } from "@lagrange/ilp";
import { consistencyFeatureNames } from "@lagrange/mincut";
import {
  decodeTest,
  experimentTagger,
  type GeneralCrf,
  type GeneralTagging,
  learnConsistency,
  learnPenaltySet,
  prepareCitationExperiment,
  prepareGeneralCrf,
  selectCandidates,
  standardDecoders,
  tagGeneral,
  timeTaggers,
  trainOrLoadModel,
} from "@lagrange/recipes";
import { BENCH_CACHE_DIR } from "../report.js";
import {
  AD3_TASKS,
  type Ad3TaskEntry,
  type Ad3TaskName,
  type Ad3TaskOptions,
  type Ad3TaskResult,
  type CitationTaskResult,
  DECOMPOSITIONS,
  type DecodeTrace,
  type Decomposition,
  type DecompositionResult,
  type DualDecompositionStep,
  type ExactResult,
  type GroupTaskResult,
  type StepRun,
} from "./ad3-task-options.js";
import { certifiedWithin, secondsToRate, stepRun, tracingDecoder } from "./ad3-task-trace.js";

/** How a general-CRF corpus is grouped and how much jackknifing its perceptron gets by default. */
const GROUP_TASKS: Record<
  Exclude<Ad3TaskName, "umass">,
  { readonly groups: "tweets" | "documents"; readonly folds: number }
> = {
  wnut16: { groups: "tweets", folds: 4 },
  wnut17: { groups: "tweets", folds: 4 },
  // Two folds, not four: each fold is another CRF on CoNLL's 14k sentences, and one fold (no
  // jackknife) would teach the perceptron from scores that make almost no errors.
  conll2003: { groups: "documents", folds: 2 },
};

type Status = (message: string) => void;

interface Resolved extends Ad3TaskOptions {
  readonly subgradientIterations: number;
  readonly ad3Iterations: number;
  readonly exactTimeLimitMs: number;
  readonly status: Status;
  readonly cacheDir: string;
}

/** Decode options of one step (the cap; the rest is the decoder's policy, the same for both). */
function stepOptions(o: Resolved, step: DualDecompositionStep): DualDecompositionDecodeOptions {
  return {
    step,
    maxIterations: step === "ad3" ? o.ad3Iterations : o.subgradientIterations,
    ...(o.signal === undefined ? {} : { signal: o.signal }),
  };
}

async function citationTask(o: Resolved): Promise<CitationTaskResult> {
  const { status } = o;
  const signal = o.signal === undefined ? {} : { signal: o.signal };
  // The pipeline of `pnpm bench soft-dd-citations`: its cached CRF, its constraint selection and
  // penalties (all families, segment unit, importance ≥ 2.75, averaged perceptron, 5 epochs).
  const prepared = await prepareCitationExperiment({
    cacheDir: o.cacheDir,
    ...(o.threads === undefined ? {} : { threads: o.threads }),
    onStatus: status,
    ...signal,
  });
  const limit = o.limit ?? prepared.testSentences.length;
  const experiment = {
    ...prepared,
    test: prepared.test.slice(0, limit),
    testSentences: prepared.testSentences.slice(0, limit),
    testAttributes: prepared.testAttributes.slice(0, limit),
    testGold: prepared.testGold.slice(0, limit),
  };
  const selection = await selectCandidates(experiment.base.model, experiment.learn, {
    families: COUNT_FAMILIES,
    countUnit: "segment",
    threshold: 2.75,
    ...signal,
  });
  status(`umass: learning penalties for ${selection.kept.length} constraints…`);
  const { entries } = await learnPenaltySet(selection.kept, experiment.learn, {
    algorithm: "averaged-perceptron",
    epochs: 5,
    ...signal,
  });

  const viterbi = tracingDecoder(experiment.registry.create("viterbi"), () => true);
  const viterbiDecoded = await decodeTest(experiment, viterbi.decoder, undefined, signal);
  const viterbiSeconds = viterbi.traces.reduce((a, t) => a + t.totalMs, 0) / 1000;
  const runs = {} as Record<DualDecompositionStep, StepRun>;
  for (const step of ["subgradient", "ad3"] as const) {
    status(`umass: Soft-DD, ${step} step, ${experiment.testSentences.length} citations…`);
    const traced = tracingDecoder(experiment.registry.create("soft-dd"), () => true);
    const decoded = await decodeTest(experiment, traced.decoder, entries, stepOptions(o, step));
    runs[step] = stepRun(
      step,
      stepOptions(o, step).maxIterations!,
      traced.traces,
      decoded.scores.f1,
      viterbiSeconds,
    );
  }
  status("umass: timing harness (Viterbi, Soft-DD subgradient, Soft-DD AD3)…");
  const tagger = (step: DualDecompositionStep) => {
    const inner = experiment.registry.create("soft-dd");
    // The harness reports taggers by decoder name: both would be "soft-dd".
    const named: Decoder = {
      name: `soft-dd (${step})`,
      decode: (problem, options) => inner.decode(problem, options),
    };
    return experimentTagger(experiment, named, entries, stepOptions(o, step));
  };
  const timing = await timeTaggers(
    [experimentTagger(experiment, "viterbi"), tagger("subgradient"), tagger("ad3")],
    experiment.testSentences,
    { runs: o.timingRuns ?? 5, ...signal },
  );
  return {
    kind: "citations",
    id: "umass",
    data: experiment.source,
    generated: experiment.generated,
    testCitations: experiment.testSentences.length,
    constraints: entries.length,
    viterbiF1: viterbiDecoded.scores.f1,
    viterbiSeconds,
    subgradient: runs.subgradient,
    ad3: runs.ad3,
    timing,
  };
}

const fMicro = (gold: readonly string[][], predicted: readonly string[][]) =>
  100 * evaluateChunks(gold, predicted).f1;

async function groupTask(
  id: Exclude<Ad3TaskName, "umass">,
  train: Corpus,
  dev: Corpus,
  o: Resolved,
): Promise<GroupTaskResult> {
  const { status, signal } = o;
  const spec = GROUP_TASKS[id];
  const folds = o.folds ?? spec.folds;
  const crfIterations = o.crfIterations ?? 100;
  const epochs = o.epochs ?? 10;
  const trainDecoder = o.trainDecoder ?? "two-slave";
  const registry = standardDecoders();
  const settings = { groups: spec.groups };
  const preset = "ner-words";
  // Cached under the two-slave-ner suite's names on tweets: the same chain CRFs when the same
  // corpus and settings trained them there.
  const cacheName = spec.groups === "tweets" ? `two-slave-ner-${id}` : `ad3-tasks-${id}`;
  const prepared = await prepareGeneralCrf(train, {
    crf: { preset },
    settings,
    folds,
    trainModel: async (corpus, labels, fold) =>
      (
        await trainOrLoadModel(corpus, {
          name: `${cacheName}${fold === 0 ? "" : `-fold${fold}`}`,
          preset,
          iterations: crfIterations,
          ...(o.threads === undefined ? {} : { threads: o.threads }),
          ...(labels.length === 0 ? {} : { labels }),
          cacheDir: o.cacheDir,
          onStatus: status,
          ...(signal === undefined ? {} : { signal }),
        })
      ).model,
    ...(signal === undefined ? {} : { signal }),
  });
  status(`${id}: perceptron through ${trainDecoder} (${epochs} epochs)…`);
  if (trainDecoder === "exact") await registry.prepare("exact");
  const exactLimit: IlpDecodeOptions = { timeLimitMs: o.exactTimeLimitMs };
  const trained = await learnConsistency(prepared, {
    decoder: registry.create(trainDecoder),
    epochs,
    learningRate: 0.01,
    select: false,
    ...(trainDecoder === "exact" ? { decodeOptions: exactLimit } : {}),
    ...(signal === undefined ? {} : { signal }),
  });
  const crf: GeneralCrf = trained;
  const gold = dev.sentences.map((s) => s.labels ?? []);
  const decode = (
    decoder: Decoder,
    options: DecodeOptions & { timeLimitMs?: number },
    chainOnly = false,
  ) =>
    tagGeneral(crf, dev.sentences, decoder, {
      decodeOptions: options,
      ...(chainOnly ? { chainOnly } : {}),
      ...(signal === undefined ? {} : { signal }),
    });

  const viterbi = await decode(registry.create("viterbi"), {}, true);
  const viterbiSeconds = viterbi.decodingMs / 1000;
  const linked = (t: GeneralTagging) => t.groups.filter((g) => g.factors > 0);
  const decompositions: DecompositionResult[] = [];
  const ad3Seconds: Partial<Record<Decomposition, number>> = {};
  for (const decoder of DECOMPOSITIONS) {
    const runs = {} as Record<DualDecompositionStep, { run: StepRun; traces: DecodeTrace[] }>;
    for (const step of ["subgradient", "ad3"] as const) {
      status(`${id}: ${decoder}, ${step} step…`);
      const traced = tracingDecoder(registry.create(decoder));
      const tagging = await decode(traced.decoder, stepOptions(o, step));
      // One decode per group, in order: the rates count the groups with consistency factors, as
      // two-slave-ner's do.
      const traces = traced.traces.map((t, g) => ({
        ...t,
        counted: tagging.groups[g]!.factors > 0,
      }));
      runs[step] = {
        traces,
        run: stepRun(
          step,
          stepOptions(o, step).maxIterations!,
          traces,
          fMicro(gold, tagging.labels),
          viterbiSeconds,
        ),
      };
    }
    const sg = runs.subgradient.run;
    ad3Seconds[decoder] = runs.ad3.run.seconds;
    decompositions.push({
      decoder,
      subgradient: sg,
      ad3: runs.ad3.run,
      ad3CertifiedAtSubgradientTime: certifiedWithin(runs.ad3.traces, sg.seconds),
      ad3SecondsToSubgradientRate: secondsToRate(runs.ad3.traces, sg.certifiedRate),
    });
  }

  const exact: ExactResult[] = [];
  if (o.noExact !== true) {
    const reference = ad3Seconds["two-slave"] ?? Number.NaN;
    status(`${id}: exact ILP (HiGHS, ${o.exactTimeLimitMs} ms per group)…`);
    await registry.prepare("exact");
    const ilp = await decode(registry.create("exact"), { timeLimitMs: o.exactTimeLimitMs });
    const ilpLinked = linked(ilp);
    exact.push({
      decoder: "exact ILP (HiGHS)",
      seconds: ilp.decodingMs / 1000,
      f: fMicro(gold, ilp.labels),
      solvedRate:
        ilpLinked.length === 0
          ? 1
          : ilpLinked.filter((g) => g.decoding.status === "optimal").length / ilpLinked.length,
      overAd3: ilp.decodingMs / 1000 / reference,
    });
    status(`${id}: two-slave, AD3 + branch and bound (${o.exactTimeLimitMs} ms per group)…`);
    // The same per-group time limit as the ILP's.
    const branchAndBound: DualDecompositionDecodeOptions = {
      ...stepOptions(o, "ad3"),
      exact: true,
      timeLimitMs: o.exactTimeLimitMs,
    };
    const bb = await decode(registry.create("two-slave"), branchAndBound);
    const bbLinked = linked(bb);
    exact.push({
      decoder: "two-slave, AD3 + branch and bound",
      seconds: bb.decodingMs / 1000,
      f: fMicro(gold, bb.labels),
      solvedRate:
        bbLinked.length === 0
          ? 1
          : bbLinked.filter((g) => g.decoding.certified).length / bbLinked.length,
      overAd3: bb.decodingMs / 1000 / reference,
    });
  }
  const names = consistencyFeatureNames();
  return {
    kind: "groups",
    id,
    grouping: spec.groups,
    sizes: {
      train: train.sentences.length,
      dev: dev.sentences.length,
      devTokens: dev.sentences.reduce((a, s) => a + s.tokens.length, 0),
      groups: viterbi.groups.length,
      withFactors: linked(viterbi).length,
      largestPositions: Math.max(0, ...viterbi.groups.map((g) => g.positions)),
    },
    model: {
      trainDecoder,
      crfIterations,
      folds,
      epochs,
      weights: Object.fromEntries(
        Array.from(trained.consistency.weights, (w, f) => [names[f] ?? String(f), w] as const),
      ),
      crfSeconds: prepared.crfMs / 1000,
      perceptronSeconds: trained.perceptronMs / 1000,
    },
    viterbi: { seconds: viterbiSeconds, f: fMicro(gold, viterbi.labels) },
    decompositions,
    exact,
  };
}

/** The section: every task reachable, AD3 step against subgradient step. */
export async function ad3TaskSection(options: Ad3TaskOptions = {}): Promise<Ad3TaskResult> {
  const o: Resolved = {
    ...options,
    subgradientIterations: options.subgradientIterations ?? 200,
    ad3Iterations: options.ad3Iterations ?? 1000,
    exactTimeLimitMs: options.exactTimeLimitMs ?? 10_000,
    status: options.onStatus ?? (() => undefined),
    cacheDir: options.cacheDir ?? BENCH_CACHE_DIR,
  };
  const tasks: Ad3TaskEntry[] = [];
  const skipped: { id: string; reason: string }[] = [];
  const unavailable = (id: string, error: unknown): boolean => {
    if (!(error instanceof LagrangeError && error.code === "unavailable")) return false;
    skipped.push({ id, reason: error.message });
    return true;
  };
  for (const id of options.tasks ?? AD3_TASKS) {
    if (id === "umass") {
      try {
        tasks.push(await citationTask(o));
      } catch (error) {
        if (!unavailable(id, error)) throw error;
      }
      continue;
    }
    const splits = await openBenchSplits(
      id,
      { maxTrainSentences: options.maxTrainSentences, maxDevSentences: options.limit },
      (reason) => skipped.push({ id, reason }),
    );
    if (splits === null) continue;
    const { train, dev } = splits;
    o.status(`${id}: ${train.sentences.length} training, ${dev.sentences.length} dev sentences`);
    tasks.push(await groupTask(id, train, dev, o));
  }
  return {
    settings: {
      subgradientIterations: o.subgradientIterations,
      ad3Iterations: o.ad3Iterations,
      limit: options.limit ?? null,
      exactTimeLimitMs: o.exactTimeLimitMs,
    },
    tasks,
    skipped,
    targets: ad3TaskTargets(tasks),
  };
}

/**
 * The targets on the tasks against what was measured (null: that task was not run): issue 41's
 * (UMass Soft-DD, CoNLL-2003 documents), then issue 29's on WNUT-16 that still say something.
 */
export function ad3TaskTargets(tasks: readonly Ad3TaskEntry[]): Ad3TaskResult["targets"] {
  const umass = tasks.find((t): t is CitationTaskResult => t.kind === "citations");
  const group = (id: string) =>
    tasks.find((t): t is GroupTaskResult => t.kind === "groups" && t.id === id);
  const conll = group("conll2003")?.decompositions.find((d) => d.decoder === "two-slave");
  const wnut = group("wnut16");
  // The timing harness's order: Viterbi, Soft-DD subgradient, Soft-DD AD3 (warm, untraced).
  const sgTiming = umass?.timing[1];
  const ad3Timing = umass?.timing[2];
  const twoSlave = wnut?.decompositions.find((d) => d.decoder === "two-slave");
  const ilp = wnut?.exact.find((e) => e.decoder.startsWith("exact ILP"));
  const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
  const times = (x: number) => `${x.toFixed(2)}×`;
  return [
    {
      name: "UMass Soft-DD, AD3 step: ≥ 99.5 % certified",
      value: umass === undefined ? "not run" : pct(umass.ad3.certifiedRate),
      met: umass === undefined ? null : umass.ad3.certifiedRate >= 0.995,
    },
    {
      name: "UMass Soft-DD, AD3 step: decoding ≤ 3× Viterbi (timing harness)",
      value:
        ad3Timing === undefined
          ? "not run"
          : // The chain's quadratic step checks its active set with a MAP pass every iteration.
            `${times(ad3Timing.decodingRatio)} (traced pass ${times(umass!.ad3.overViterbi)}; ${umass!.ad3.iterationsPerToken.toFixed(2)} iterations per token, each at least one Viterbi pass)`,
      met: ad3Timing === undefined ? null : ad3Timing.decodingRatio <= 3,
    },
    {
      name: "UMass Soft-DD, AD3 step: field F1 unchanged (within 0.1 of the subgradient step's)",
      value:
        umass === undefined
          ? "not run"
          : `${umass.ad3.f.toFixed(2)} vs ${umass.subgradient.f.toFixed(2)}`,
      met: umass === undefined ? null : Math.abs(umass.ad3.f - umass.subgradient.f) <= 0.1,
    },
    {
      name: "UMass Soft-DD, subgradient step: decoding ≤ 1.3× Viterbi (timing harness)",
      value:
        sgTiming === undefined
          ? "not run"
          : // One chain slave: each iteration is a Viterbi pass, so passes per token are its chain work.
            `${times(sgTiming.decodingRatio)} (traced pass ${times(umass!.subgradient.overViterbi)}; ${umass!.subgradient.iterationsPerToken.toFixed(2)} Viterbi passes per token)`,
      met: sgTiming === undefined ? null : sgTiming.decodingRatio <= 1.3,
    },
    {
      name: "CoNLL-2003 documents, two-slave, AD3 step: ≥ 99 % of documents certified within the subgradient step's time",
      value:
        conll === undefined
          ? "not run"
          : `${pct(conll.ad3CertifiedAtSubgradientTime)} within ${conll.subgradient.seconds.toFixed(2)} s (subgradient ${pct(conll.subgradient.certifiedRate)}; AD3 uncapped ${pct(conll.ad3.certifiedRate)})`,
      met: conll === undefined ? null : conll.ad3CertifiedAtSubgradientTime >= 0.99,
    },
    ...(wnut?.decompositions ?? []).map((d) => ({
      name: `WNUT-16 ${d.decoder}, AD3 step: ≥ 99 % of groups certified within the time of ${d.subgradient.maxIterations} subgradient iterations (issue 29)`,
      value: `${pct(d.ad3CertifiedAtSubgradientTime)} (subgradient ${pct(d.subgradient.certifiedRate)}; AD3 uncapped ${pct(d.ad3.certifiedRate)})`,
      met: d.ad3CertifiedAtSubgradientTime >= 0.99,
    })),
    {
      name: "WNUT-16: exact ILP ≥ 40× slower than two-slave AD3 at equal F (issue 29)",
      value:
        ilp === undefined || twoSlave === undefined
          ? "not run"
          : `${ilp.overAd3.toFixed(1)}× (F ${ilp.f.toFixed(2)} vs ${twoSlave.ad3.f.toFixed(2)})`,
      met:
        ilp === undefined || twoSlave === undefined
          ? null
          : ilp.overAd3 >= 40 && Math.abs(ilp.f - twoSlave.ad3.f) < 0.5,
    },
  ];
}
