import { evaluateChunks, evaluateSegments } from "@lagrange/datasets";
import { median } from "@lagrange/recipes";
import { markdownTable } from "../report.js";
import type { Decoding, SystemJob, SystemReport } from "../systems/protocol.js";
import { openSplit } from "../systems/shared-data.js";
import { runSystem } from "../systems/spawn.js";

export const CRF_VS_CRFSUITE_CASES = ["conll2000", "umass"] as const;
export type CrfVsCrfsuiteCase = (typeof CRF_VS_CRFSUITE_CASES)[number];

/** UMass: Lagrange decodes under the hierarchical-BIO mask (`on`), without it (`off`), or both. */
export const UMASS_MASKS = ["on", "off", "both"] as const;
export type UmassMask = (typeof UMASS_MASKS)[number];

/** The citation recipe's L-BFGS iterations (prepareCitationExperiment). */
export const UMASS_DEFAULT_ITERATIONS = 60;

export interface CrfVsCrfsuiteOptions {
  readonly repeats: number;
  /** Lagrange's thread counts: one Lagrange run per count per repeat, one CRFsuite run per repeat. */
  readonly threads: readonly number[];
  /** Default both. */
  readonly cases?: readonly CrfVsCrfsuiteCase[];
  readonly maxTrainSentences?: number;
  /** CoNLL: cap on both systems' iterations (default CRFsuite's stopping rule); UMass's default cap. */
  readonly maxIterations?: number;
  /** UMass: both systems' iteration cap (default `maxIterations`, else 60). */
  readonly umassIterations?: number;
  /** Default `both`. */
  readonly umassMask?: UmassMask;
  /** Each timed tagging repeats its passes until this many seconds have passed (default 1). */
  readonly minTagSeconds?: number;
  readonly onStatus?: (message: string) => void;
}

export interface SystemSummary {
  readonly system: "lagrange" | "crfsuite";
  /** Lagrange's threads; null for CRFsuite (one thread). */
  readonly threads: number | null;
  readonly decoding: Decoding;
  readonly trainSeconds: number;
  readonly trainSecondsRuns: number[];
  readonly trainIterations: number | null;
  readonly secondsPerIteration: number | null;
  /** The preset's attribute extraction over the evaluation split (Lagrange; null for CRFsuite). */
  readonly extractTokensPerSecond: number | null;
  /** Decoding alone: Lagrange's model.tag over extracted attributes, CRFsuite's tagger over strings. */
  readonly tagTokensPerSecond: number;
  readonly f1: number;
  readonly precision: number;
  readonly recall: number;
  readonly tokenAccuracy: number;
  readonly peakRssMB: number;
}

/** One Lagrange configuration against the CRFsuite run of the same case. */
export interface LagrangeComparison {
  readonly threads: number;
  readonly decoding: Decoding;
  readonly lagrange: SystemSummary;
  /** Lagrange / CRFsuite. */
  readonly ratios: {
    readonly trainTime: number;
    readonly secondsPerIteration: number | null;
    readonly tagThroughput: number;
    readonly peakRss: number;
  };
}

/** The job both systems ran, and what Lagrange's first run and CRFsuite's log report of it. */
export interface CrfVsCrfsuiteCaseSetup
  extends Omit<SystemJob, "workDir" | "threads" | "decodings"> {
  readonly lagrangeDecodings: readonly Decoding[];
  readonly trainSequences: number | null;
  readonly evaluationSequences: number;
  readonly labels: number | null;
  readonly features: { readonly lagrange: number | null; readonly crfsuite: number | null };
}

export interface CrfVsCrfsuiteCaseResult {
  readonly case: CrfVsCrfsuiteCase;
  readonly title: string;
  /** `chunks`: conlleval chunk F1; `segments`: the citation recipe's field F1 over all levels. */
  readonly scoring: "chunks" | "segments";
  readonly setup: CrfVsCrfsuiteCaseSetup;
  readonly crfsuite: SystemSummary;
  readonly lagrange: LagrangeComparison[];
}

export interface CrfVsCrfsuiteResult {
  readonly suite: "crf-vs-crfsuite";
  readonly setup: Record<string, unknown>;
  readonly cases: CrfVsCrfsuiteCaseResult[];
}

interface CaseSpec {
  readonly title: string;
  readonly scoring: "chunks" | "segments";
  readonly job: Omit<SystemJob, "workDir" | "threads" | "decodings">;
  readonly decodings: readonly Decoding[];
}

function caseSpec(which: CrfVsCrfsuiteCase, options: CrfVsCrfsuiteOptions): CaseSpec {
  const maxTrain =
    options.maxTrainSentences === undefined ? {} : { maxTrainSentences: options.maxTrainSentences };
  const minTag =
    options.minTagSeconds === undefined ? {} : { minTagSeconds: options.minTagSeconds };
  if (which === "conll2000") {
    return {
      title: `CoNLL-2000 train → test, chunking attributes, L-BFGS c2 = 1, ${options.maxIterations === undefined ? "CRFsuite's stopping rule" : `at most ${options.maxIterations} iterations`}`,
      scoring: "chunks",
      job: {
        dataset: "conll2000",
        trainSplit: "train",
        testSplit: "test",
        preset: "chunking",
        c2: 1,
        ...maxTrain,
        ...(options.maxIterations === undefined ? {} : { maxIterations: options.maxIterations }),
        ...minTag,
      },
      decodings: ["plain"],
    };
  }
  const iterations = options.umassIterations ?? options.maxIterations ?? UMASS_DEFAULT_ITERATIONS;
  const mask = options.umassMask ?? "both";
  return {
    title: `UMass citations training.docs → dev.docs, citation attributes, L-BFGS c2 = 1, ${iterations} iterations cap for both`,
    scoring: "segments",
    job: {
      dataset: "umass-citations",
      trainSplit: "train",
      // The test split is sealed: dev is the measure, as in the citation recipe.
      testSplit: "dev",
      preset: "citation",
      c2: 1,
      malformed: "skip",
      scheme: "hierarchical-BIO",
      ...maxTrain,
      maxIterations: iterations,
      ...minTag,
    },
    decodings: mask === "on" ? ["mask"] : mask === "off" ? ["no mask"] : ["mask", "no mask"],
  };
}

function score(scoring: "chunks" | "segments", gold: string[][], predicted: string[][]) {
  const e =
    scoring === "chunks" ? evaluateChunks(gold, predicted) : evaluateSegments(gold, predicted);
  return {
    f1: 100 * e.f1,
    precision: 100 * e.precision,
    recall: 100 * e.recall,
    tokenAccuracy: 100 * e.tokenAccuracy,
  };
}

function summarise(
  reports: readonly SystemReport[],
  decoding: Decoding,
  threads: number | null,
  scoring: "chunks" | "segments",
  gold: string[][],
): SystemSummary {
  const last = reports[reports.length - 1]!;
  const decoded = (r: SystemReport) => {
    const d = r.decodings.find((x) => x.decoding === decoding);
    if (d === undefined) throw new Error(`${r.system} reported no ${decoding} decoding`);
    return d;
  };
  const trainSeconds = median(reports.map((r) => r.trainSeconds));
  const iterations = last.trainIterations ?? null;
  const extract = reports.flatMap((r) =>
    r.extractTokensPerSecond === undefined ? [] : [r.extractTokensPerSecond],
  );
  return {
    system: last.system === "crfsuite" ? "crfsuite" : "lagrange",
    threads,
    decoding,
    trainSeconds,
    trainSecondsRuns: reports.map((r) => r.trainSeconds),
    trainIterations: iterations,
    secondsPerIteration:
      iterations === null || iterations === 0
        ? null
        : median(reports.map((r) => r.trainSeconds / (r.trainIterations ?? iterations))),
    extractTokensPerSecond: extract.length === 0 ? null : median(extract),
    tagTokensPerSecond: median(reports.map((r) => decoded(r).tagTokensPerSecond)),
    ...score(scoring, gold, decoded(last).predictions),
    peakRssMB: Math.max(...reports.map((r) => r.peakRssMB)),
  };
}

const plural = (n: number) => `${n} thread${n === 1 ? "" : "s"}`;

async function runCase(
  which: CrfVsCrfsuiteCase,
  options: CrfVsCrfsuiteOptions,
): Promise<CrfVsCrfsuiteCaseResult> {
  const spec = caseSpec(which, options);
  const gold = (await openSplit(spec.job, spec.job.testSplit)).map((s) => s.labels!);
  const crfsuite: SystemReport[] = [];
  const lagrange = new Map<number, SystemReport[]>(options.threads.map((t) => [t, []]));
  for (let r = 0; r < options.repeats; r++) {
    const run = `${which} run ${r + 1}/${options.repeats}`;
    options.onStatus?.(`${run}: CRFsuite`);
    crfsuite.push(await runSystem("crfsuite", spec.job));
    for (const threads of options.threads) {
      options.onStatus?.(`${run}: Lagrange (${plural(threads)})`);
      lagrange
        .get(threads)!
        .push(await runSystem("lagrange", { ...spec.job, threads, decodings: spec.decodings }));
    }
  }
  const c = summarise(crfsuite, "plain", null, spec.scoring, gold);
  const comparisons = options.threads.flatMap((threads) =>
    spec.decodings.map((decoding): LagrangeComparison => {
      const l = summarise(lagrange.get(threads)!, decoding, threads, spec.scoring, gold);
      return {
        threads,
        decoding,
        lagrange: l,
        ratios: {
          trainTime: l.trainSeconds / c.trainSeconds,
          secondsPerIteration:
            l.secondsPerIteration === null || c.secondsPerIteration === null
              ? null
              : l.secondsPerIteration / c.secondsPerIteration,
          tagThroughput: l.tagTokensPerSecond / c.tagTokensPerSecond,
          peakRss: l.peakRssMB / c.peakRssMB,
        },
      };
    }),
  );
  const first = lagrange.get(options.threads[0]!)![0];
  return {
    case: which,
    title: spec.title,
    scoring: spec.scoring,
    setup: {
      ...spec.job,
      lagrangeDecodings: spec.decodings,
      trainSequences: first?.trainSequences ?? null,
      evaluationSequences: gold.length,
      labels: first?.labels ?? null,
      features: {
        lagrange: first?.features ?? null,
        crfsuite: crfsuite[0]?.features ?? null,
      },
    },
    crfsuite: c,
    lagrange: comparisons,
  };
}

/**
 * Lagrange against CRFsuite (npm binding), each run in its own process, the same attributes for
 * both, L-BFGS with c2 = 1. CoNLL-2000 chunking with CRFsuite's stopping rule (delta 1e-5 over 10
 * iterations); UMass citations (131 labels, the `citation` preset) with the citation recipe's
 * iteration cap for both and Lagrange decoding under the hierarchical-BIO mask as it does in
 * production (and without it). Per repeat, CRFsuite trains once and Lagrange once per thread
 * count, one after the other, so that machine noise hits both alike.
 */
export async function crfVsCrfsuite(options: CrfVsCrfsuiteOptions): Promise<CrfVsCrfsuiteResult> {
  if (options.threads.length === 0) throw new RangeError("threads: expected at least one count");
  const cases = options.cases ?? CRF_VS_CRFSUITE_CASES;
  const results: CrfVsCrfsuiteCaseResult[] = [];
  for (const which of cases) results.push(await runCase(which, options));
  return {
    suite: "crf-vs-crfsuite",
    setup: {
      repeats: options.repeats,
      threads: [...options.threads],
      cases: [...cases],
      minTagSeconds: options.minTagSeconds ?? 1,
      node: process.version,
    },
    cases: results,
  };
}

const DECODING_NAMES: Record<Decoding, string> = {
  plain: "—",
  mask: "scheme mask",
  "no mask": "no mask",
};

const times = (x: number | null) => (x === null ? "—" : `${x.toFixed(2)}×`);

export function crfVsCrfsuiteMarkdown(result: CrfVsCrfsuiteResult): string {
  const row = (name: string, s: SystemSummary) => [
    name,
    s.threads ?? 1,
    DECODING_NAMES[s.decoding],
    s.trainSeconds,
    s.trainIterations ?? "",
    s.secondsPerIteration === null ? "" : s.secondsPerIteration.toFixed(3),
    s.extractTokensPerSecond === null ? "—" : Math.round(s.extractTokensPerSecond),
    Math.round(s.tagTokensPerSecond),
    s.f1,
    s.tokenAccuracy,
    Math.round(s.peakRssMB),
  ];
  const sections = result.cases.map((c) => {
    const ratio = (l: LagrangeComparison) =>
      `- Lagrange, ${plural(l.threads)}${l.decoding === "plain" ? "" : `, ${DECODING_NAMES[l.decoding]}`}: train time ${times(l.ratios.trainTime)}, s / iteration ${times(l.ratios.secondsPerIteration)}, tag throughput ${times(l.ratios.tagThroughput)}, peak memory ${times(l.ratios.peakRss)}`;
    const f = c.setup.features;
    const lines = [
      `### crf-vs-crfsuite: ${c.title}`,
      "",
      `${c.setup.trainSequences ?? "?"} training / ${c.setup.evaluationSequences} evaluation sequences, ${c.setup.labels ?? "?"} labels; features: Lagrange ${f.lagrange ?? "?"}, CRFsuite ${f.crfsuite ?? "?"}.`,
      "",
      markdownTable(
        [
          "system",
          "threads",
          "decoding",
          "train s (median)",
          "iterations",
          "s / iteration",
          "extract tokens/s",
          "tag tokens/s",
          c.scoring === "chunks" ? "chunk F1" : "field F1",
          "token acc %",
          "peak RSS MB",
        ],
        [row("CRFsuite", c.crfsuite), ...c.lagrange.map((l) => row("Lagrange", l.lagrange))],
      ),
      "Ratios (Lagrange / CRFsuite):",
      "",
      ...c.lagrange.map(ratio),
      "",
      "Tag tokens/s is decoding alone: Lagrange's `model.tag` over attributes extracted beforehand, CRFsuite's tagger over the same attribute strings; extract tokens/s is the preset's attribute extraction, which both systems' inputs share.",
    ];
    if (c.case === "umass") {
      lines.push(
        "",
        "The scheme mask (hierarchical BIO) restricts Lagrange's decoding only: the training objective is CRFsuite's and the trained model the same, as in the citation recipe. CRFsuite has no masks and decodes over all labels. Field F1 is the citation recipe's (segments at every level).",
      );
    }
    return `${lines.join("\n")}\n`;
  });
  return sections.join("\n");
}
