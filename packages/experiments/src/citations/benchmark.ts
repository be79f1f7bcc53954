import {
  COUNT_FAMILIES,
  type ConstraintFamily,
  type ConstraintsFileEntry,
  RULE_FAMILIES,
} from "@lagrange/constraint-templates";
import type { DecodingSummary } from "@lagrange/core";
import {
  evaluateSegments,
  f1FromCounts,
  pairedBootstrap,
  wilcoxonSignedRank,
} from "@lagrange/datasets";
import { isIlpDecoding } from "@lagrange/ilp";
import {
  type CitationExperiment,
  type DecodedTest,
  type DecoderTiming,
  decodeTest,
  errorReduction,
  experimentTagger,
  type FieldScores,
  learnPenaltySet,
  selectCandidates,
  timeTaggers,
} from "@lagrange/recipes";
import {
  DEFAULT_PENALTY_LEARNING_RATE,
  formatPenaltyReport,
  type PenaltyAlgorithm,
  softDD,
} from "@lagrange/soft-dd";

export interface CitationBenchmarkOptions {
  readonly penaltyAlgorithm?: PenaltyAlgorithm;
  /** Penalty-learning epochs (default 5). */
  readonly epochs?: number;
  readonly learningRate?: number;
  /** What singleton/pairwise count (default segments). */
  readonly countUnit?: "label" | "segment";
  /** Importance threshold (default 2.75). */
  readonly threshold?: number;
  /** Also learn the fersini2014 rule templates as a family. */
  readonly rules?: boolean;
  /** Timed runs of the timing harness (default 15: a run is about a second, and the machine is noisy). */
  readonly timingRuns?: number;
  /** Paired bootstrap samples (default 10 000). */
  readonly bootstrapSamples?: number;
  readonly onStatus?: (message: string) => void;
  readonly signal?: AbortSignal;
}

/** One decoder's row of Table 1. */
export interface DecoderRow extends FieldScores {
  readonly name: string;
  readonly constraints: number;
  readonly active: number;
  readonly meanIterations: number;
  /** % of test citations certified. */
  readonly certified: number;
  /** Relative field-F1 error reduction over Viterbi, %. */
  readonly errorReduction: number;
}

export interface CitationBenchmark {
  readonly baseline: FieldScores;
  readonly families: DecoderRow[];
  readonly hard: DecoderRow;
  /** All families with the other counting unit, for comparison. */
  readonly otherUnit: DecoderRow;
  readonly earlyTermination: {
    readonly cap: string;
    readonly f1: number;
    readonly certified: number;
    readonly meanIterations: number;
  }[];
  readonly labelChanges: {
    readonly type: string;
    readonly gold: number;
    readonly viterbiF1: number;
    readonly constrainedF1: number;
    readonly change: number;
  }[];
  readonly batch: DecodingSummary & { readonly hardMeanIterations: number };
  /** HiGHS on the same soft objective as Soft-DD (all families): the exact referee. */
  readonly exact: ExactComparison;
  /** The timing harness: Viterbi first, Soft-DD (all families) second; warm medians. */
  readonly timing: readonly DecoderTiming[];
  /** Soft-DD's first pass with cold constraint caches, over Viterbi's warm median (tagging). */
  readonly coldTaggingRatio: number;
  readonly significance: {
    readonly wilcoxonPerCitationF1: WilcoxonFigures;
    readonly wilcoxonCorrectSegments: WilcoxonFigures;
    readonly bootstrap: {
      readonly delta: number;
      readonly pValue: number;
      readonly interval: readonly [number, number];
      readonly samples: number;
    };
  };
  readonly setup: {
    readonly candidates: number;
    readonly kept: number;
    readonly learnCitationsUsed: number;
    readonly countUnit: "label" | "segment";
    readonly threshold: number;
    readonly penaltyAlgorithm: PenaltyAlgorithm;
    readonly epochs: number;
    readonly learningRate: number;
  };
  readonly learnedReport: string;
  readonly targets: { readonly name: string; readonly value: string; readonly met: boolean }[];
}

/** The exact ILP against Soft-DD on the same learned soft objective. */
export interface ExactComparison {
  readonly row: DecoderRow;
  /** Test citations where Soft-DD's objective equals the ILP optimum, %. */
  readonly sameObjective: number;
  /** Of the citations Soft-DD certified, those whose objective equals the ILP optimum, %. */
  readonly certifiedAgreement: number;
  /** Citations where the labels differ although both are optimal (ties). */
  readonly differentLabels: number;
  /** Citations the ILP had to solve (the others: the Viterbi labelling met every constraint). */
  readonly solved: number;
  /** Per-citation ILP decode time, ms, over every test citation and over the solved ones. */
  readonly perCitationMs: { readonly median: number; readonly p95: number; readonly max: number };
  readonly solvedMs: { readonly median: number; readonly p95: number; readonly max: number };
  /** Decoding time of one pass, ms: the ILP, and Soft-DD's warm median from the timing harness. */
  readonly decodingMs: number;
  readonly softDecodingMs: number;
  /** ILP decoding time over Soft-DD's (how many times faster Soft-DD is). */
  readonly speedRatio: number;
  readonly timeLimitHits: number;
}

function distribution(values: readonly number[]): { median: number; p95: number; max: number } {
  if (values.length === 0) return { median: 0, p95: 0, max: 0 };
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { median: at(0.5), p95: at(0.95), max: sorted[sorted.length - 1]! };
}

interface WilcoxonFigures {
  readonly statistic: number;
  readonly pValue: number;
  readonly n: number;
  readonly zeros: number;
}

/**
 * anzaroot2014's tables on a prepared experiment: Table 1 (field F1 per constraint family, soft and
 * hard, and the other counting unit), Table 2 (early termination), Table 3 (field types that change
 * most), the §6 statistics, decode time through the timing harness, and significance.
 */
export async function citationBenchmark(
  experiment: CitationExperiment,
  options: CitationBenchmarkOptions = {},
): Promise<CitationBenchmark> {
  const status = options.onStatus ?? (() => {});
  const countUnit = options.countUnit ?? "segment";
  const threshold = options.threshold ?? 2.75;
  const algorithm = options.penaltyAlgorithm ?? "averaged-perceptron";
  const epochs = options.epochs ?? 5;
  const signal = options.signal === undefined ? {} : { signal: options.signal };
  const learning = {
    algorithm,
    epochs,
    ...(options.learningRate === undefined ? {} : { learningRate: options.learningRate }),
    ...signal,
  };
  const { model } = experiment.base;
  const families: ConstraintFamily[] = [...COUNT_FAMILIES, ...(options.rules ? RULE_FAMILIES : [])];
  const selection = await selectCandidates(model, experiment.learn, {
    families,
    countUnit,
    threshold,
    ...signal,
  });
  status(
    `${selection.candidates} candidate constraints; ${selection.kept.length} kept at imp ≥ ${threshold}`,
  );

  const viterbi = await decodeTest(experiment, "viterbi", undefined, signal);
  const baseline = viterbi.scores;

  const row = (
    name: string,
    entries: readonly ConstraintsFileEntry[],
    decoded: DecodedTest,
  ): DecoderRow => ({
    name,
    ...decoded.scores,
    constraints: entries.length,
    active: entries.filter((e) => e.penalty === null || e.penalty > 0).length,
    meanIterations: decoded.summary.meanIterations,
    certified: 100 * decoded.summary.certifiedRate,
    errorReduction: errorReduction(baseline.f1, decoded.scores.f1),
  });

  const groups: { name: string; members: readonly ConstraintFamily[] }[] = [
    { name: "singleton", members: ["singleton"] },
    { name: "pairwise", members: ["pairwise"] },
    { name: "hierarchical", members: ["hierarchical"] },
    ...(options.rules ? [{ name: "rules (fersini2014)", members: RULE_FAMILIES }] : []),
  ];
  const rows: DecoderRow[] = [];
  for (const group of groups) {
    const subset = selection.kept.filter((k) => group.members.includes(k.template.family));
    status(`learning penalties: ${group.name} (${subset.length} constraints)…`);
    const { entries } = await learnPenaltySet(subset, experiment.learn, learning);
    rows.push(
      row(
        `${group.name} (soft)`,
        entries,
        await decodeTest(experiment, "soft-dd", entries, signal),
      ),
    );
  }
  status(`learning penalties: all families (${selection.kept.length} constraints)…`);
  const all = await learnPenaltySet(selection.kept, experiment.learn, learning);
  const allDecoded = await decodeTest(experiment, "soft-dd", all.entries, signal);
  const allRow = row("all families (soft)", all.entries, allDecoded);
  rows.push(allRow);

  const otherUnit = countUnit === "segment" ? "label" : "segment";
  const other = await selectCandidates(model, experiment.learn, {
    families,
    countUnit: otherUnit,
    threshold,
    ...signal,
  });
  status(`learning penalties: all families, ${otherUnit} unit (${other.kept.length} constraints)…`);
  const otherEntries = (await learnPenaltySet(other.kept, experiment.learn, learning)).entries;
  const otherRow = row(
    `all families (soft, ${otherUnit} unit)`,
    otherEntries,
    await decodeTest(experiment, "soft-dd", otherEntries, signal),
  );

  // The same (active) constraints as hard constraints (Algorithm 1).
  const hardDecoded = await decodeTest(experiment, "hard-dd", all.entries, signal);
  const hard = row(
    "all families (hard)",
    all.entries.filter((e) => e.penalty !== 0),
    hardDecoded,
  );

  // Table 2: the best primal after k iterations, every row under the same rule (no stall rule, so
  // a run goes on to its cap unless it certifies).
  const chainSlave = experiment.registry.context.chainSlaves;
  const earlyTermination = [];
  for (const cap of [1, 2, 3, 5, 10, 20, 200]) {
    const decoder = softDD({ stallIterations: 0, maxIterations: cap, chainSlave: chainSlave() });
    const decoded = await decodeTest(experiment, decoder, all.entries, signal);
    earlyTermination.push({
      cap: String(cap),
      f1: decoded.scores.f1,
      certified: 100 * decoded.summary.certifiedRate,
      meanIterations: decoded.summary.meanIterations,
    });
  }

  // Table 3: field types with the largest F1 change.
  const gold = experiment.testGold;
  const before = evaluateSegments(gold, viterbi.labels).perType;
  const after = evaluateSegments(gold, allDecoded.labels).perType;
  const labelChanges = Object.keys({ ...before, ...after })
    .map((type) => {
      const b = before[type];
      const a = after[type];
      return {
        type,
        gold: a?.gold ?? b?.gold ?? 0,
        viterbiF1: 100 * (b?.f1 ?? 0),
        constrainedF1: 100 * (a?.f1 ?? 0),
        change: 100 * ((a?.f1 ?? 0) - (b?.f1 ?? 0)),
      };
    })
    .filter((c) => c.gold > 0 && c.change !== 0)
    .sort((x, y) => Math.abs(y.change) - Math.abs(x.change))
    .slice(0, 10);

  // Decode time: the timing harness, the path `lagrange tag` runs. A fresh Soft-DD tagger's first
  // pass shows the cold cost (per-length constraint instantiation and compilation).
  const viterbiTagger = experimentTagger(experiment, "viterbi");
  const cold = experimentTagger(experiment, "soft-dd", all.entries);
  const coldTime = (await cold.tag(experiment.testSentences)).time;
  const timing = await timeTaggers(
    [viterbiTagger, experimentTagger(experiment, "soft-dd", all.entries)],
    experiment.testSentences,
    {
      runs: options.timingRuns ?? 15,
      ...signal,
    },
  );
  const coldTaggingRatio =
    (coldTime.featuresMs + coldTime.scoringMs + coldTime.decodingMs) / timing[0]!.taggingMs;

  // The exact referee on the same soft objective (score − Σ penalty·violation, hinge).
  status("decoding with the exact ILP (HiGHS) on the same soft objective…");
  await experiment.registry.prepare("exact");
  const exactDecoded = await decodeTest(experiment, "exact", all.entries, signal);
  const ilp = exactDecoded.decodings.filter(isIlpDecoding);
  const same = (a: number, b: number) => Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(b));
  let sameObjective = 0;
  let certifiedSame = 0;
  let certifiedCount = 0;
  let differentLabels = 0;
  allDecoded.decodings.forEach((d, i) => {
    const referee = ilp[i]!;
    if (same(d.primal, referee.primal)) sameObjective++;
    if (d.certified) {
      certifiedCount++;
      if (same(d.primal, referee.primal)) certifiedSame++;
    }
    if (d.labels.some((y, p) => y !== referee.labels[p])) differentLabels++;
  });
  const solvedTimes = ilp.filter((d) => d.solves > 0).map((d) => d.solveMs);
  const exact: ExactComparison = {
    row: row("all families (exact ILP, HiGHS)", all.entries, exactDecoded),
    sameObjective: (100 * sameObjective) / ilp.length,
    certifiedAgreement: certifiedCount === 0 ? 100 : (100 * certifiedSame) / certifiedCount,
    differentLabels,
    solved: solvedTimes.length,
    perCitationMs: distribution(ilp.map((d) => d.solveMs)),
    solvedMs: distribution(solvedTimes),
    decodingMs: exactDecoded.time.decodingMs,
    softDecodingMs: timing[1]!.decodingMs,
    speedRatio: exactDecoded.time.decodingMs / timing[1]!.decodingMs,
    timeLimitHits: ilp.filter((d) => d.status === "time-limit").length,
  };

  const significance = significanceOf(
    gold,
    viterbi.labels,
    allDecoded.labels,
    options.bootstrapSamples ?? 10_000,
    experiment.seed,
  );
  const softTiming = timing[1]!;
  const targets = [
    {
      name: "field F1 relative error reduction ≥ 15 % (paper 17.9 %)",
      value: `${allRow.errorReduction.toFixed(1)} %`,
      met: allRow.errorReduction >= 15,
    },
    {
      name: "hard constraints help less than soft (paper 94.6 < 95.39)",
      value: `${hard.f1.toFixed(2)} vs ${allRow.f1.toFixed(2)}`,
      met: hard.f1 < allRow.f1,
    },
    {
      name: "certificate on ≥ 99 % of examples (paper 100 %)",
      value: `${allRow.certified.toFixed(1)} %`,
      met: allRow.certified >= 99,
    },
    {
      name: "mean iterations ≤ 2.5 (paper 1.83)",
      value: allRow.meanIterations.toFixed(2),
      met: allRow.meanIterations <= 2.5,
    },
    {
      name: "every certified Soft-DD labelling is the exact ILP optimum (100 %)",
      value: `${exact.certifiedAgreement.toFixed(1)} %`,
      met: exact.certifiedAgreement === 100,
    },
    {
      name: "Soft-DD ≥ 10× faster than the exact ILP at equal F1",
      value: `${exact.speedRatio.toFixed(1)}× (F1 ${allRow.f1.toFixed(2)} vs ${exact.row.f1.toFixed(2)})`,
      met: exact.speedRatio >= 10 && Math.abs(allRow.f1 - exact.row.f1) < 0.5,
    },
    {
      name: "exact ILP p95 per-citation time ≤ 50 ms",
      value: `${exact.perCitationMs.p95.toFixed(1)} ms`,
      met: exact.perCitationMs.p95 <= 50,
    },
    {
      name: "Soft-DD tagging ≤ 1.3× Viterbi (same Decoder path as lagrange tag)",
      value: `${softTiming.taggingRatio.toFixed(2)}× (decoding alone ${softTiming.decodingRatio.toFixed(2)}×)`,
      met: softTiming.taggingRatio <= 1.3,
    },
  ];
  return {
    baseline,
    families: rows,
    hard,
    otherUnit: otherRow,
    earlyTermination,
    labelChanges,
    batch: { ...allDecoded.summary, hardMeanIterations: hard.meanIterations },
    exact,
    timing,
    coldTaggingRatio,
    significance,
    setup: {
      candidates: selection.candidates,
      kept: selection.kept.length,
      learnCitationsUsed: selection.examples,
      countUnit,
      threshold,
      penaltyAlgorithm: algorithm,
      epochs,
      learningRate: options.learningRate ?? DEFAULT_PENALTY_LEARNING_RATE,
    },
    learnedReport: formatPenaltyReport(all.report),
    targets,
  };
}

/** Per-citation significance of the constrained labels over Viterbi's. */
function significanceOf(
  gold: readonly string[][],
  viterbi: readonly string[][],
  constrained: readonly string[][],
  samples: number,
  seed: number,
): CitationBenchmark["significance"] {
  const perCitation = gold.map((g, i) => ({
    v: evaluateSegments([g], [viterbi[i]!]),
    c: evaluateSegments([g], [constrained[i]!]),
  }));
  const figures = (w: ReturnType<typeof wilcoxonSignedRank>): WilcoxonFigures => ({
    statistic: w.statistic,
    pValue: w.pValue,
    n: w.n,
    zeros: w.zeros,
  });
  const a = new Float64Array(perCitation.length * 3);
  const b = new Float64Array(perCitation.length * 3);
  perCitation.forEach((p, i) => {
    a.set([p.c.correctChunks, p.c.predictedChunks, p.c.goldChunks], i * 3);
    b.set([p.v.correctChunks, p.v.predictedChunks, p.v.goldChunks], i * 3);
  });
  const bootstrap = pairedBootstrap(
    { units: perCitation.length, a, b, width: 3, metric: (sums) => 100 * f1FromCounts(sums) },
    { samples, seed },
  );
  return {
    wilcoxonPerCitationF1: figures(
      wilcoxonSignedRank(
        perCitation.map((p) => p.c.f1),
        perCitation.map((p) => p.v.f1),
      ),
    ),
    wilcoxonCorrectSegments: figures(
      wilcoxonSignedRank(
        perCitation.map((p) => p.c.correctChunks),
        perCitation.map((p) => p.v.correctChunks),
      ),
    ),
    bootstrap: {
      delta: bootstrap.delta,
      pValue: bootstrap.pValue,
      interval: bootstrap.interval,
      samples: bootstrap.samples,
    },
  };
}
