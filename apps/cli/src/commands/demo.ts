import { type CrfModel, crfSlave, getPreset, trainCrf } from "@lagrange/chain-crf";
import { constraintInstantiator } from "@lagrange/constraint-templates";
import type { LinearConstraint } from "@lagrange/core";
import {
  evaluateSegments,
  generateCitationSentences,
  inputRows,
  openDataset,
  type Sentence,
  seededRandom,
} from "@lagrange/datasets";
import {
  type BatchSummary,
  constraintEffects,
  type SoftDDSolution,
  softDD,
  summarizeSolutions,
} from "@lagrange/soft-dd";
import { note, progressBar } from "../progress.ts";
import {
  formatLearnedConstraints,
  learnConstraints,
  scoreSentences,
  viterbiLabels,
} from "./constraints.ts";
import { decodingConstraints } from "./model-io.ts";

export interface DemoData {
  readonly source: string;
  readonly train: Sentence[];
  readonly dev: Sentence[];
}

/** Real UMass citations when the registry finds them, else the project's citation generator. */
export async function demoData(): Promise<DemoData> {
  try {
    const train = await openDataset("umass-citations", "train", { malformed: "skip" });
    const dev = await openDataset("umass-citations", "dev", { malformed: "skip" });
    if (train.status === "available" && dev.status === "available") {
      return {
        source: `UMass citations (${train.source}: ${train.path})`,
        train: train.sentences,
        dev: dev.sentences,
      };
    }
  } catch (error) {
    note(
      `UMass citations are not reachable (${(error as Error).message.split("\n")[0]}); using generated citations`,
    );
  }
  return {
    source: "generated citations (seeded; no corpus reachable)",
    train: generateCitationSentences(1500, { seed: 2014 }),
    dev: generateCitationSentences(600, { seed: 2015 }),
  };
}

export interface DemoOptions {
  readonly maxIterations: number;
  readonly threads: number;
  /** Penalty-learning epochs. */
  readonly epochs?: number;
  /** Seed of the dev split into the learning half and the evaluation half. */
  readonly seed?: number;
  readonly signal: AbortSignal;
}

interface DecodedRow {
  readonly name: string;
  readonly labels: string[][];
  readonly ms: number;
  readonly summary?: BatchSummary;
}

/** Splits indices 0..n-1 into two halves after a seeded shuffle. */
function seededHalves(n: number, seed: number): [number[], number[]] {
  const order = Array.from({ length: n }, (_, i) => i);
  const random = seededRandom(seed);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const half = Math.floor(n / 2);
  return [order.slice(0, half), order.slice(half)];
}

/**
 * The main job: train a citation CRF (BIO-valid), learn soft-constraint penalties on half of dev
 * (anzaroot2014), decode the other half with Viterbi and with Soft-DD, and show the difference.
 */
export async function demoCommand(options: DemoOptions): Promise<string> {
  const data = await demoData();
  note(`data: ${data.source}; ${data.train.length} train / ${data.dev.length} dev citations`);
  const preset = getPreset("citation");
  const train = data.train.map((s) => ({
    attributes: preset.extract(inputRows(s)),
    labels: s.labels!,
  }));
  const bar = progressBar("train", options.maxIterations);
  const trained = await trainCrf(train, {
    maxIterations: options.maxIterations,
    threads: options.threads,
    preset: "citation",
    constraintsFor: (labels) => decodingConstraints(labels, "hierarchical-BIO") ?? {},
    settings: { scheme: "hierarchical-BIO" },
    onProgress: (p) =>
      bar.update(Math.min(p.iteration, options.maxIterations), `loss ${p.loss.toFixed(1)}`),
    signal: options.signal,
  });
  bar.stop();
  const model: CrfModel = trained.model;
  note(`CRF trained in ${trained.seconds.toFixed(1)} s`);

  const seed = options.seed ?? 1;
  const [learnIds, testIds] = seededHalves(data.dev.length, seed);
  const learnSentences = learnIds.map((i) => data.dev[i]!);
  const testSentences = testIds.map((i) => data.dev[i]!);
  const learnSet = scoreSentences(
    model,
    learnSentences,
    learnSentences.map((s) => preset.extract(inputRows(s))),
  );
  const testAttributes = testSentences.map((s) => preset.extract(inputRows(s)));
  const testSet = scoreSentences(model, testSentences, testAttributes);

  const learnStarted = performance.now();
  note(`learning constraint penalties on ${learnSet.length} dev citations…`);
  const learned = learnConstraints(model.labels.names(), learnSet, {
    families: ["singleton", "pairwise", "hierarchical"],
    threshold: 2.75,
    countUnit: "segment",
    epochs: options.epochs ?? 5,
    signal: options.signal,
    onEpoch: (e) =>
      note(
        `  epoch ${e.epoch}: ${e.mistakes} mistakes, ${e.nonZero} penalties > 0, ${e.meanIterations.toFixed(2)} mean Soft-DD iterations`,
      ),
  });
  const learnSeconds = (performance.now() - learnStarted) / 1000;

  // Decoding: the same chain scores for both decoders; one warm-up pass, then the timed one.
  const constraintsFor = constraintInstantiator(learned.entries);
  const solver = softDD();
  const L = model.numLabels;
  const viterbiPass = (): DecodedRow => {
    const started = performance.now();
    const labels = testSet.map((s) => model.labels.decode(viterbiLabels(s)));
    return { name: "Viterbi (BIO-valid)", labels, ms: performance.now() - started };
  };
  const problems = testSet.map((s) => ({ n: s.n, tokens: s.tokens, scores: s.scores }));
  const softPass = (): DecodedRow & {
    solutions: SoftDDSolution[];
    constraints: LinearConstraint[][];
  } => {
    const solutions: SoftDDSolution[] = [];
    const constraints: LinearConstraint[][] = [];
    const started = performance.now();
    for (const p of problems) {
      const c = constraintsFor({ n: p.n, L, tokens: p.tokens });
      constraints.push(c);
      solutions.push(
        solver.solve({ slave: crfSlave(p.scores), constraints: c }, { maxIterations: 200 }),
      );
    }
    const ms = performance.now() - started;
    return {
      name: "Soft-DD (learned penalties)",
      labels: solutions.map((s) => model.labels.decode(s.labels)),
      ms,
      summary: summarizeSolutions(solutions, ms),
      solutions,
      constraints,
    };
  };
  // A warm-up pass each (per-length constraint caches, JIT), then the median of three.
  viterbiPass();
  softPass();
  const medianOf = <T extends DecodedRow>(runs: T[]): T =>
    [...runs].sort((a, b) => a.ms - b.ms)[runs.length >> 1]!;
  const viterbi = medianOf([viterbiPass(), viterbiPass(), viterbiPass()]);
  const soft = medianOf([softPass(), softPass(), softPass()]);

  const gold = testSentences.map((s) => s.labels!);
  const pct = (x: number) => (100 * x).toFixed(2);
  const row = (r: DecodedRow) => {
    const e = evaluateSegments(gold, r.labels);
    const s = r.summary;
    return `| ${r.name} | ${pct(e.precision)} | ${pct(e.recall)} | ${pct(e.f1)} | ${pct(e.tokenAccuracy)} | ${s === undefined ? "–" : (100 * s.certifiedRate).toFixed(1)} | ${s === undefined ? "1" : s.meanIterations.toFixed(2)} | ${(r.ms / viterbi.ms).toFixed(2)}× (${r.ms.toFixed(0)} ms) |`;
  };
  const base = evaluateSegments(gold, viterbi.labels);
  const constrained = evaluateSegments(gold, soft.labels);
  const reduction = (100 * (constrained.f1 - base.f1)) / Math.max(1e-12, 1 - base.f1);

  return [
    `data:     ${data.source}`,
    `model:    linear-chain CRF, ${trained.numFeatures} features, ${model.numLabels} labels, ${trained.iterations} L-BFGS iterations (${trained.seconds.toFixed(1)} s), trained on ${data.train.length} citations`,
    `split:    dev shuffled (seed ${seed}): penalties learned on ${learnSet.length} citations, evaluated on the other ${testSet.length}`,
    `learned:  ${learnSeconds.toFixed(1)} s`,
    "",
    formatLearnedConstraints(learned),
    "| decoder | field P | field R | field F1 | token acc | % certified | mean iterations | decode time vs Viterbi |",
    "|---|---|---|---|---|---|---|---|",
    row(viterbi),
    row(soft),
    "",
    `Field F1 (all hierarchy levels) ${pct(base.f1)} → ${pct(constrained.f1)}: ${reduction.toFixed(1)} % relative error reduction. ${(100 * (soft.summary?.changedRate ?? 0)).toFixed(1)} % of citations changed by the constraints.`,
    "",
    exampleCitation(testSentences, viterbi.labels, soft, gold, L),
  ].join("\n");
}

/**
 * One citation whose labels a constraint changed (preferring one the change fixed), with both
 * labellings and the constraints that did it, in words.
 */
function exampleCitation(
  sentences: readonly Sentence[],
  viterbi: readonly string[][],
  soft: { labels: string[][]; solutions: SoftDDSolution[]; constraints: LinearConstraint[][] },
  gold: readonly string[][],
  L: number,
): string {
  let best = -1;
  let bestGain = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < sentences.length; i++) {
    const v = viterbi[i]!;
    const c = soft.labels[i]!;
    if (v.every((label, t) => label === c[t])) continue;
    const gain =
      evaluateSegments([gold[i]!], [c]).correctChunks -
      evaluateSegments([gold[i]!], [v]).correctChunks -
      v.length / 1000;
    if (gain > bestGain) {
      bestGain = gain;
      best = i;
    }
  }
  if (best < 0) return "No citation was changed by the constraints.\n";
  const tokens = sentences[best]!.tokens;
  const v = viterbi[best]!;
  const c = soft.labels[best]!;
  const g = gold[best]!;
  const width = Math.max(5, ...tokens.map((t) => t.length));
  const vWidth = Math.max(7, ...v.map((t) => t.length));
  const lines = [
    `Example: test citation ${best + 1}, where the constraints changed the labels (* = labels differ; ✓ = equals gold):`,
    "",
    `  ${"token".padEnd(width)}    ${"Viterbi".padEnd(vWidth)}    Soft-DD`,
  ];
  for (let t = 0; t < tokens.length; t++) {
    const mark = v[t] === c[t] ? " " : "*";
    const ok = (label: string) => (label === g[t] ? "✓" : " ");
    lines.push(
      `${mark} ${tokens[t]!.padEnd(width)}  ${ok(v[t]!)} ${v[t]!.padEnd(vWidth)}  ${ok(c[t]!)} ${c[t]!}`,
    );
  }
  const effects = constraintEffects(soft.constraints[best]!, soft.solutions[best]!, L);
  const named = [
    ...new Set(
      effects
        .filter((e) => e.violationBefore > e.violationAfter || e.multiplier > 0)
        .map((e) => e.name),
    ),
  ].slice(0, 3);
  lines.push("");
  lines.push(
    named.length === 0
      ? "No single constraint is responsible (the multipliers balanced several)."
      : `Changed because of: ${named.map((n) => `"${n}"`).join("; ")}.`,
  );
  return `${lines.join("\n")}\n`;
}
