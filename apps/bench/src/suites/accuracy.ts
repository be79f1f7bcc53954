/**
 * `pnpm bench accuracy` (issue 27, deliverable 6): per dataset, the task's models row by row —
 * the base feature preset, + Brown clusters, + lexicons (gazetteers and jackknifed mined ones),
 * then the two non-local steps over the last of those: two-stage votes (Krishnan & Manning 2006)
 * and the general CRF over documents or tweet groups — each trained through the library's one
 * training path (`trainingFeatures` then `trainOnCorpus`, as `lagrange train` does) on train less
 * a held-out fold, and scored on that fold and on the dev split through the path of `lagrange
 * tag` (`openTagger` on the model's bytes), with percentile-bootstrap intervals over sentences.
 */
import { type CrfModel, modelToBytes, type TrainingProgress } from "@lagrange/chain-crf";
import { LagrangeError, throwIfAborted } from "@lagrange/core";
import {
  type Corpus,
  type LabelScheme,
  type PairedBootstrapResult,
  pairedBootstrap,
  scoreLabelling,
} from "@lagrange/datasets";
import { openCorpus } from "@lagrange/datasets/node";
import {
  definedFields,
  type FeatureRequest,
  type GroupingKind,
  getTaskPreset,
  isTagFailure,
  isTaskPreset,
  languageClusters,
  openTagger,
  openTrainer,
  type ResourceOptions,
  type TaskPreset,
  type Trainer,
  type TrainingFeatures,
  trainingFeatures,
} from "@lagrange/recipes";
import type {
  AccuracyDataset,
  AccuracyDatasetResult,
  AccuracyOptions,
  AccuracyResult,
  AccuracyRow,
  AccuracyRowName,
  PairedComparison,
  ScoredSplit,
} from "./accuracy-datasets.js";
import {
  ACCURACY_DATASETS,
  ACCURACY_ROWS,
  HELD_OUT_FOLD,
  HELD_OUT_FOLDS,
  heldOutCut,
  QUICK,
} from "./accuracy-datasets.js";
import type { SentenceStats } from "./accuracy-statistics.js";
import { bootstrapInterval, sentenceStats } from "./accuracy-statistics.js";

const pct = (x: number) => 100 * x;

type ChainRowName = "baseline" | "clusters" | "lexicons";

/** A row's features as trainingFeatures is asked for them, or why the row does not apply. */
async function rowRequest(
  row: ChainRowName,
  d: AccuracyDataset,
  task: TaskPreset | undefined,
  resources: ResourceOptions,
): Promise<{ request: FeatureRequest; text: string } | { why: string }> {
  if (row === "baseline") {
    const base = task?.base ?? d.task;
    return { request: { preset: base }, text: `preset ${base}` };
  }
  if (row === "clusters") {
    if (task !== undefined) {
      if (task.clusters === null) return { why: `task preset ${task.name} has no clusters` };
      return {
        request: { preset: task.name, use: { gazetteers: false, mined: false } },
        text: `${task.name} without gazetteers and mined lexicons`,
      };
    }
    if (d.clusters === undefined) return { why: `preset ${d.task} names no cluster language` };
    const clusters = await languageClusters(d.clusters, resources);
    return {
      request: { preset: d.task, clusterFiles: [clusters.file] },
      text: `preset ${d.task} + clusters-${d.clusters} (${clusters.words.length} words)`,
    };
  }
  if (task === undefined) return { why: `preset ${d.task} has no lexicons` };
  if (task.gazetteers.length === 0 && !task.mined) {
    return { why: `task preset ${task.name} has no gazetteers nor mined lexicons` };
  }
  return { request: { preset: task.name }, text: `${task.name} (all of it)` };
}

interface RowRun {
  readonly row: AccuracyRow;
  /** What trainingFeatures found or built (cluster files, gazetteers, mined lexicons). */
  readonly notes?: readonly string[];
  readonly heldOutStats: SentenceStats;
  readonly devStats: SentenceStats | null;
  /** The chain model and its features (the general CRF builds on the last one). */
  readonly chain?: {
    readonly model: CrfModel;
    readonly request: FeatureRequest;
    readonly features: TrainingFeatures;
    readonly text: string;
    /** Feature resolution, and that plus training. */
    readonly featureSeconds: number;
    readonly seconds: number;
  };
}

interface DatasetContext {
  readonly d: AccuracyDataset;
  readonly task: TaskPreset | undefined;
  readonly cut: Corpus;
  readonly heldOut: Corpus;
  readonly dev: Corpus | null;
  readonly scheme: LabelScheme;
  readonly maxIterations: number;
  readonly threads: number;
  readonly resources: ResourceOptions;
  readonly options: AccuracyOptions;
  readonly status: (message: string) => void;
}

/** The trainer of some features, as `lagrange train` opens it (the task preset's defaults). */
function trainerOf(c: DatasetContext, features: TrainingFeatures): Trainer {
  return openTrainer(
    {
      algorithm: "lbfgs",
      maxIterations: c.maxIterations,
      threads: c.threads,
      scheme: c.scheme,
      ...definedFields({ taskPreset: c.task?.name }),
    },
    { features, ...definedFields({ signal: c.options.signal }) },
  );
}

/** Every tenth iteration of a CRF's training, as a status line. */
function iterationStatus(c: DatasetContext, label: string) {
  return (p: TrainingProgress) => {
    if (p.iteration % 10 === 0) {
      c.status(`${label}: iteration ${p.iteration}, loss ${p.loss.toFixed(1)}`);
    }
  };
}

/** Tags a corpus with a model's bytes through `lagrange tag`'s path (openTagger), whatever its kind. */
async function tagWith(
  bytes: Uint8Array,
  name: string,
  corpus: Corpus,
  signal: AbortSignal | undefined,
): Promise<string[][]> {
  const tagger = await openTagger(
    { model: bytes, modelName: name },
    signal === undefined ? {} : { signal },
  );
  const data = tagger.input(corpus, "required");
  const tagged = await tagger.tag(data.sentences, {
    stopAtFailure: true,
    ...(signal === undefined ? {} : { signal }),
  });
  return tagged.items.map((item) => {
    if (isTagFailure(item)) throw new LagrangeError("bad-input", `${item.place}: ${item.reason}`);
    return [...item.labels];
  });
}

function goldOf(corpus: Corpus): string[][] {
  return corpus.sentences.map((s) => s.labels ?? []);
}

/** Scores a model's tagging of a split: the score, per-sentence statistics, the interval. */
async function scoreSplit(
  c: DatasetContext,
  bytes: Uint8Array,
  name: string,
  corpus: Corpus,
  split: string,
): Promise<{ scored: Omit<ScoredSplit, "delta">; stats: SentenceStats }> {
  const predicted = await tagWith(bytes, name, corpus, c.options.signal);
  const gold = goldOf(corpus);
  const whole = scoreLabelling(gold, predicted, c.scheme);
  const score = whole.kind === "accuracy" ? whole.accuracy : whole.evaluation.f1;
  const stats = sentenceStats(gold, predicted, c.scheme);
  const [lo, hi] = bootstrapInterval(stats, {
    samples: c.options.bootstrapSamples ?? 1000,
    seed: c.options.seed ?? 1,
    ...(c.options.signal === undefined ? {} : { signal: c.options.signal }),
  });
  return {
    scored: {
      split,
      sentences: corpus.sentences.length,
      score: pct(score),
      interval: [pct(lo), pct(hi)],
    },
    stats,
  };
}

async function scoreRow(
  c: DatasetContext,
  bytes: Uint8Array,
  label: string,
): Promise<{
  heldOut: Omit<ScoredSplit, "delta">;
  dev: Omit<ScoredSplit, "delta"> | null;
  heldOutStats: SentenceStats;
  devStats: SentenceStats | null;
}> {
  c.status(`${label}: tagging the held-out fold and dev`);
  const h = await scoreSplit(c, bytes, label, c.heldOut, "held-out");
  const v = c.dev === null ? null : await scoreSplit(c, bytes, label, c.dev, "dev");
  return {
    heldOut: h.scored,
    dev: v?.scored ?? null,
    heldOutStats: h.stats,
    devStats: v?.stats ?? null,
  };
}

async function chainRow(
  c: DatasetContext,
  row: ChainRowName,
  builtOn: AccuracyRowName | null,
  request: FeatureRequest,
  text: string,
): Promise<RowRun> {
  const label = `${c.d.name} ${row}`;
  const started = performance.now();
  c.status(`${label}: features (${text})`);
  const features = await trainingFeatures(request, c.cut, c.scheme, c.resources);
  const featureSeconds = (performance.now() - started) / 1000;
  for (const note of features.notes) c.status(`${label}: ${note}`);
  c.status(`${label}: training on ${c.cut.sentences.length} sentences`);
  const trained = await trainerOf(c, features).train(c.cut, iterationStatus(c, label));
  const seconds = (performance.now() - started) / 1000;
  const scores = await scoreRow(c, modelToBytes(trained.model), label);
  return {
    row: {
      row,
      builtOn,
      features: text,
      heldOut: { ...scores.heldOut, delta: null },
      dev: scores.dev === null ? null : { ...scores.dev, delta: null },
      trainSeconds: seconds,
      iterations: trained.iterations,
      stopReason: String(trained.stopReason),
      numFeatures: trained.numFeatures,
    },
    heldOutStats: scores.heldOutStats,
    devStats: scores.devStats,
    notes: features.notes,
    chain: { model: trained.model, request, features, text, featureSeconds, seconds },
  };
}

/** Two-stage votes over the last chain row's features (the recipe's own folds and first stages). */
async function twoStageRow(
  c: DatasetContext,
  lastRow: AccuracyRowName,
  last: NonNullable<RowRun["chain"]>,
): Promise<RowRun> {
  const label = `${c.d.name} two-stage`;
  const started = performance.now();
  c.status(`${label}: first stages jackknifed over ${last.text}, then the second stage`);
  const trained = await trainerOf(c, last.features).trainTwoStage(c.cut, {
    onProgress: iterationStatus(c, label),
    onStage: (s) =>
      c.status(
        `${label}: ${s.stage === "first" ? `first stage, fold ${s.fold + 1}/${s.folds}` : s.stage === "first-full" ? "first stage on all the cut" : "second stage"}`,
      ),
  });
  const seconds = last.featureSeconds + (performance.now() - started) / 1000;
  const scores = await scoreRow(c, modelToBytes(trained.model), label);
  return {
    row: {
      row: "two-stage",
      builtOn: lastRow,
      features: `${last.text} + first-stage votes (document and corpus majorities)`,
      heldOut: { ...scores.heldOut, delta: null },
      dev: scores.dev === null ? null : { ...scores.dev, delta: null },
      trainSeconds: seconds,
      iterations: trained.iterations,
      stopReason: String(trained.stopReason),
      numFeatures: trained.numFeatures,
      twoStage: {
        folds: trained.folds,
        firstStageSeconds: trained.firstStageSeconds,
        voted: trained.voted,
      },
    },
    heldOutStats: scores.heldOutStats,
    devStats: scores.devStats,
  };
}

/** The general CRF over the last chain row's features (its model reused as the base chain). */
async function generalRow(
  c: DatasetContext,
  groups: GroupingKind,
  lastRow: AccuracyRowName,
  last: NonNullable<RowRun["chain"]>,
): Promise<RowRun> {
  const label = `${c.d.name} general`;
  const started = performance.now();
  c.status(
    `${label}: ${groups} groups over ${last.text}; jackknifed chain CRFs, then the perceptron`,
  );
  const trained = await trainerOf(c, last.features).trainGeneral(c.cut, {
    settings: { groups },
    baseModel: last.model,
    // Each jackknife fold's chain CRF gets its own features (lexicons mined from its own
    // sentences): the base's jackknife indexes the whole cut, not a fold's subset.
    featuresOf: (corpus) => trainingFeatures(last.request, corpus, c.scheme, c.resources),
    onChainProgress: (p, fold) => iterationStatus(c, `${label} fold ${fold}`)(p),
    onProgress: (p) => {
      if (p.stage === "crf") c.status(`${label}: chain CRF fold ${p.fold}/${p.folds} done`);
      else if (p.stage === "perceptron") {
        if (p.done === p.groups) {
          c.status(`${label}: epoch ${p.epoch}/${p.epochs}, ${p.mistakes} mistaken positions`);
        }
      } else {
        c.status(`${label}: held-out cut after epoch ${p.epoch}: ${pct(p.score).toFixed(2)}`);
      }
    },
  });
  const seconds = last.seconds + (performance.now() - started) / 1000;
  const scores = await scoreRow(c, modelToBytes(trained.model), label);
  const t = trained.training;
  const chosen = trained.selection;
  return {
    row: {
      row: "general",
      builtOn: lastRow,
      features: `${last.text}; ${groups} groups, ${trained.consistency.weights.length} consistency weights`,
      heldOut: { ...scores.heldOut, delta: null },
      dev: scores.dev === null ? null : { ...scores.dev, delta: null },
      trainSeconds: seconds,
      iterations: t.mistakes.length,
      stopReason: `perceptron epochs, ${t.certified}/${t.decodings} decodings certified`,
      numFeatures: trained.model.summary().weights + trained.consistency.weights.length,
      general: {
        groups,
        mistakes: t.mistakes,
        certified: t.decodings === 0 ? 1 : t.certified / t.decodings,
        linkedGroups: trained.groupStats.withFactors,
        ...(chosen === undefined
          ? {}
          : {
              selection: {
                epochs: chosen.epochs,
                scale: chosen.scale,
                chainScore: pct(chosen.chainScore),
                generalScore: pct(chosen.generalScore),
              },
            }),
      },
    },
    heldOutStats: scores.heldOutStats,
    devStats: scores.devStats,
  };
}

/** Each row's deltas against the row it builds on. */
function withDeltas(runs: readonly RowRun[]): AccuracyRow[] {
  return runs.map((run) => {
    const previous = runs.find((r) => r.row.row === run.row.builtOn)?.row;
    const heldOut = {
      ...run.row.heldOut,
      delta: previous === undefined ? null : run.row.heldOut.score - previous.heldOut.score,
    };
    const dev =
      run.row.dev === null
        ? null
        : {
            ...run.row.dev,
            delta:
              previous?.dev === undefined || previous.dev === null
                ? null
                : run.row.dev.score - previous.dev.score,
          };
    return { ...run.row, heldOut, dev };
  });
}

/** The paired bootstrap of two rows on a split (B = `from`, A = `to`). */
function paired(
  from: RowRun,
  to: RowRun,
  split: "held-out" | "dev",
  c: DatasetContext,
): PairedComparison | null {
  const a = split === "dev" ? to.devStats : to.heldOutStats;
  const b = split === "dev" ? from.devStats : from.heldOutStats;
  if (a === null || b === null) return null;
  const result: PairedBootstrapResult = pairedBootstrap(
    { units: a.units, a: a.stats, b: b.stats, width: a.width, metric: a.metric },
    {
      samples: c.options.bootstrapSamples ?? 1000,
      seed: c.options.seed ?? 1,
      ...(c.options.signal === undefined ? {} : { signal: c.options.signal }),
    },
  );
  return {
    from: from.row.row,
    to: to.row.row,
    split,
    delta: pct(result.delta),
    interval: [pct(result.interval[0]), pct(result.interval[1])],
    pValue: result.pValue,
    samples: result.samples,
  };
}

async function runDataset(
  d: AccuracyDataset,
  train: Corpus,
  dev: Corpus | null,
  options: AccuracyOptions,
): Promise<AccuracyDatasetResult> {
  const status = options.onStatus ?? (() => {});
  const quick = options.quick === true;
  const task = isTaskPreset(d.task) ? getTaskPreset(d.task) : undefined;
  const maxTrain = options.maxTrainSentences ?? (quick ? QUICK.trainSentences : undefined);
  const limited =
    maxTrain === undefined ? train : { ...train, sentences: train.sentences.slice(0, maxTrain) };
  const { cut, heldOut } = heldOutCut(limited);
  const maxIterations =
    options.maxIterations ?? (quick ? QUICK.maxIterations : (task?.maxIterations ?? 200));
  const resources: ResourceOptions = {
    ...(options.resourcesDir === undefined ? {} : { resourcesDir: options.resourcesDir }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    onProgress: (stage, done, total) => {
      if (done % 500 === 0 || done === total) status(`${stage}: Brown clustering ${done}/${total}`);
    },
  };
  const c: DatasetContext = {
    d,
    task,
    cut,
    heldOut,
    dev,
    scheme: train.scheme,
    maxIterations,
    threads: options.threads ?? 2,
    resources,
    options,
    status,
  };
  const wanted = options.rows ?? ACCURACY_ROWS;
  const runs: RowRun[] = [];
  const skipped: { row: string; why: string }[] = [];
  const notes: string[] = [];
  let previousRequest = "";
  for (const row of ACCURACY_ROWS) {
    if (!wanted.includes(row)) continue;
    throwIfAborted(options.signal);
    if (row === "two-stage" || row === "general") {
      const lastRun = [...runs].reverse().find((r) => r.chain !== undefined);
      const last = lastRun?.chain;
      if (lastRun === undefined || last === undefined) {
        skipped.push({ row, why: "no chain row ran to build on" });
      } else if (row === "two-stage") {
        runs.push(await twoStageRow(c, lastRun.row.row, last));
      } else if (d.groups === null) {
        skipped.push({ row, why: `${d.task} is not an entity task: no general CRF` });
      } else if (d.groups === "documents" && !cut.sentences.some((s) => s.document !== undefined)) {
        skipped.push({ row, why: `${train.label} has no document marks to group by` });
      } else {
        runs.push(await generalRow(c, d.groups, lastRun.row.row, last));
      }
      continue;
    }
    const asked = await rowRequest(row, d, task, resources);
    if ("why" in asked) {
      skipped.push({ row, why: asked.why });
      continue;
    }
    const key = JSON.stringify(asked.request);
    if (key === previousRequest) {
      skipped.push({ row, why: "same features as the row before" });
      continue;
    }
    previousRequest = key;
    const builtOn = [...runs].reverse().find((r) => r.chain !== undefined)?.row.row ?? null;
    runs.push(await chainRow(c, row, builtOn, asked.request, asked.text));
  }
  const comparisons: PairedComparison[] = [];
  const byName = (name: AccuracyRowName | null) => runs.find((r) => r.row.row === name);
  const pairs: [RowRun | undefined, RowRun | undefined][] = [
    [byName("baseline"), byName("lexicons")],
    ...runs
      .filter((r) => r.chain === undefined)
      .map((r): [RowRun | undefined, RowRun] => [byName(r.row.builtOn), r]),
  ];
  for (const [from, to] of pairs) {
    if (from === undefined || to === undefined) continue;
    for (const split of ["held-out", "dev"] as const) {
      const p = paired(from, to, split, c);
      if (p !== null) comparisons.push(p);
    }
  }
  if (maxTrain !== undefined && maxTrain < train.sentences.length) {
    notes.push(`first ${maxTrain} of ${train.sentences.length} training sentences`);
  }
  for (const run of runs) {
    for (const note of run.notes ?? []) {
      if (!notes.some((n) => n.startsWith(note))) notes.push(`${note} (${run.row.row} row)`);
    }
  }
  return {
    dataset: d.name,
    task: d.task,
    metric: train.scheme === "none" ? "accuracy" : "chunk-f1",
    scheme: train.scheme,
    trainSentences: cut.sentences.length,
    heldOutSentences: heldOut.sentences.length,
    devSentences: dev?.sentences.length ?? null,
    maxIterations,
    rows: withDeltas(runs),
    skipped,
    comparisons,
    notes,
  };
}

function resolveDatasets(given: AccuracyOptions["datasets"]): AccuracyDataset[] {
  return (given ?? ACCURACY_DATASETS).map((entry) => {
    if (typeof entry !== "string") return entry;
    const found = ACCURACY_DATASETS.find((d) => d.name === entry);
    if (found === undefined) {
      throw new LagrangeError(
        "usage",
        `unknown dataset ${JSON.stringify(entry)}; expected one of ${ACCURACY_DATASETS.map((d) => d.name).join(", ")}`,
      );
    }
    return found;
  });
}

/** Opens a dataset's splits, or says why it cannot be reached. */
async function openSplits(
  d: AccuracyDataset,
  signal: AbortSignal | undefined,
): Promise<{ train: Corpus; dev: Corpus | null } | { reason: string }> {
  const opts = signal === undefined ? {} : { signal };
  try {
    const train = await openCorpus(d.train, opts);
    const dev = d.dev === null ? null : await openCorpus(d.dev, opts);
    return { train, dev };
  } catch (error) {
    if (error instanceof LagrangeError && error.code === "unavailable") {
      return { reason: error.message };
    }
    throw error;
  }
}

/** Runs the bench: every dataset that can be reached, row by row. */
export async function accuracySuite(options: AccuracyOptions = {}): Promise<AccuracyResult> {
  const status = options.onStatus ?? (() => {});
  const datasets: AccuracyDatasetResult[] = [];
  const unavailable: { dataset: string; reason: string }[] = [];
  for (const d of resolveDatasets(options.datasets)) {
    const opened = await openSplits(d, options.signal);
    if ("reason" in opened) {
      status(`${d.name}: skipped, ${opened.reason}`);
      unavailable.push({ dataset: d.name, reason: opened.reason });
      continue;
    }
    datasets.push(await runDataset(d, opened.train, opened.dev, options));
  }
  const quick = options.quick === true;
  return {
    suite: "accuracy",
    node: process.version,
    settings: {
      quick,
      threads: options.threads ?? 2,
      maxIterations: options.maxIterations ?? (quick ? QUICK.maxIterations : null),
      maxTrainSentences: options.maxTrainSentences ?? (quick ? QUICK.trainSentences : null),
      bootstrapSamples: options.bootstrapSamples ?? 1000,
      seed: options.seed ?? 1,
      heldOut: `fold ${HELD_OUT_FOLD} of jackknifeFolds(train, ${HELD_OUT_FOLDS}) (whole documents; blocks of 20 sentences without document marks)`,
    },
    datasets,
    unavailable,
  };
}
