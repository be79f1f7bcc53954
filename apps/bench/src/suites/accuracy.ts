/**
 * `pnpm bench accuracy` (issue 27, deliverable 6): per dataset, the task's models row by row —
 * the base feature preset, + Brown clusters, + lexicons (gazetteers and jackknifed mined ones),
 * then the three non-local steps over the last of those (./accuracy-nonlocal.ts): two-stage
 * votes (Krishnan & Manning 2006), the general CRF over documents or tweet groups, and document
 * constraints (Soft-DD) — each trained through the library's one
 * training path (`trainingFeatures` then `trainOnCorpus`, as `lagrange train` does) on train less
 * a held-out fold, and scored on that fold and on the dev split through the path of `lagrange
 * tag` (`openTagger` on the model's bytes), with percentile-bootstrap intervals over sentences.
 */
import { modelToBytes } from "@lagrange/chain-crf";
import { LagrangeError, throwIfAborted } from "@lagrange/core";
import {
  type Corpus,
  inputRows,
  type PairedBootstrapResult,
  pairedBootstrap,
  wordColumnOnly,
} from "@lagrange/datasets";
import { openCorpus } from "@lagrange/datasets/node";
import {
  type FeatureRequest,
  getTaskPreset,
  isTaskPreset,
  languageClusters,
  type ResourceOptions,
  stoppingText,
  type TaskPreset,
  type TrainingSpec,
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
} from "./accuracy-datasets.js";
import {
  ACCURACY_DATASETS,
  ACCURACY_ROWS,
  ELASTIC_NET_C1,
  HELD_OUT_FOLD,
  HELD_OUT_FOLDS,
  heldOutCut,
  QUICK,
} from "./accuracy-datasets.js";
import { documentRow, generalRow, twoStageRow } from "./accuracy-nonlocal.js";
import {
  type DatasetContext,
  iterationStatus,
  pct,
  type RowRun,
  scoreRow,
  trainerOf,
} from "./accuracy-rows.js";

type ChainRowName =
  | "baseline"
  | "clusters"
  | "lexicons"
  | "bioes"
  | "gazetteers"
  | "context"
  | "wide-clusters"
  | "embeddings"
  | "preset"
  | "elastic-net"
  | "words";

/** Rows beside the preset, not steps: each is compared with the preset, and nothing builds on it. */
const SIDE_ROWS: ReadonlySet<AccuracyRowName> = new Set(["elastic-net", "words"]);

/** What a chain row asks of the trainer beside its features: the chunk scheme it trains under. */
type RowTraining = Pick<TrainingSpec, "internalScheme" | "c1">;

/** A chain row: its features as trainingFeatures is asked for them, and its training. */
interface RowAsked {
  readonly request: FeatureRequest;
  readonly training: RowTraining;
  readonly text: string;
  /** Train on the word column alone (`wordColumnOnly`), as a model for raw text is. */
  readonly wordsOnly?: boolean;
}

/** The task preset's additions of issue 40, each row taking those up to itself. */
const TASK_ROWS = [
  "lexicons",
  "bioes",
  "gazetteers",
  "context",
  "wide-clusters",
  "embeddings",
] as const;

const c1Of = (options: AccuracyOptions) => options.c1 ?? ELASTIC_NET_C1;

/** A row's features and training, or why the row does not apply. */
async function rowRequest(
  row: ChainRowName,
  d: AccuracyDataset,
  task: TaskPreset | undefined,
  resources: ResourceOptions,
  options: AccuracyOptions,
  cut: Corpus,
): Promise<RowAsked | { why: string }> {
  // Rows before `bioes` train under the data's scheme, as the presets did before issue 40.
  const keep: RowTraining = { internalScheme: "keep" };
  if (row === "baseline") {
    const base = task?.base ?? d.task;
    return { request: { preset: base }, training: keep, text: `preset ${base}` };
  }
  if (row === "clusters") {
    if (task !== undefined) {
      if (task.clusters === null) return { why: `task preset ${task.name} has no clusters` };
      return {
        request: {
          preset: task.name,
          use: {
            gazetteers: false,
            mined: false,
            largeGazetteers: false,
            context: false,
            wideClusters: false,
            embeddings: false,
          },
        },
        training: keep,
        text: `${task.name} without gazetteers and mined lexicons`,
      };
    }
    if (d.clusters === undefined) return { why: `preset ${d.task} names no cluster language` };
    const clusters = await languageClusters(d.clusters, resources);
    return {
      request: { preset: d.task, clusterFiles: [clusters.file] },
      training: keep,
      text: `preset ${d.task} + clusters-${d.clusters} (${clusters.words.length} words)`,
    };
  }
  if (task === undefined) return { why: `preset ${d.task} has no ${row}` };
  if (row === "preset" || row === "elastic-net" || row === "words") {
    const on = Object.entries(task.on).filter(([, v]) => v);
    const text = `${task.name} as it ships (${on.length === 0 ? "none of issue 40's parts" : on.map(([k]) => k).join(", ")})`;
    if (row === "preset") return { request: { preset: task.name }, training: {}, text };
    if (row === "words") {
      const first = cut.sentences[0];
      if (first !== undefined && (inputRows(first)[0]?.length ?? 0) <= 1) {
        return { why: `${d.train} has the word column alone` };
      }
      return {
        request: { preset: task.name },
        training: {},
        text: `${text}, on the word column alone`,
        wordsOnly: true,
      };
    }
    const c1 = c1Of(options);
    return {
      request: { preset: task.name },
      training: { c1 },
      text: `${text}, L1 c1 = ${c1} with its c2`,
    };
  }
  const upTo = TASK_ROWS.indexOf(row);
  const has = (r: (typeof TASK_ROWS)[number]) => TASK_ROWS.indexOf(r) <= upTo;
  if (row === "lexicons" && task.gazetteers.length === 0 && !task.mined) {
    return { why: `task preset ${task.name} has no gazetteers nor mined lexicons` };
  }
  if (row === "bioes" && task.internalScheme === undefined) {
    return { why: `task preset ${task.name} trains under the data's scheme` };
  }
  if (row === "gazetteers" && task.largeGazetteers.length === 0) {
    return { why: `task preset ${task.name} has no large gazetteers` };
  }
  if (row === "wide-clusters" && (task.clusters === null || task.wideClusters.length === 0)) {
    return { why: `task preset ${task.name} has no further Brown clusterings` };
  }
  if (row === "embeddings" && (task.clusters === null || task.embeddings.length === 0)) {
    return { why: `task preset ${task.name} has no embedding clusters` };
  }
  const parts = [
    has("bioes") && task.internalScheme !== undefined ? `${task.internalScheme} inside` : null,
    has("gazetteers") && task.largeGazetteers.length > 0 ? "large gazetteers" : null,
    has("context") ? "document context" : null,
    has("wide-clusters") && task.wideClusters.length > 0
      ? `Brown C = ${task.wideClusters.join(", ")} too`
      : null,
    has("embeddings") ? `PPMI-SVD k-means k = ${task.embeddings.join(", ")}` : null,
  ].filter((x) => x !== null);
  return {
    request: {
      preset: task.name,
      use: {
        largeGazetteers: has("gazetteers"),
        context: has("context"),
        wideClusters: has("wide-clusters"),
        embeddings: has("embeddings"),
      },
    },
    training: has("bioes") ? { internalScheme: task.internalScheme! } : keep,
    text: `${task.name} lexicons${parts.length === 0 ? "" : ` + ${parts.join(" + ")}`}`,
  };
}

async function chainRow(
  c: DatasetContext,
  row: ChainRowName,
  builtOn: AccuracyRowName | null,
  { request, training, text, wordsOnly }: RowAsked,
): Promise<RowRun> {
  const label = `${c.d.name} ${row}`;
  const started = performance.now();
  c.status(`${label}: features (${text})`);
  // Scored through openTagger, a words-only model reads the held-out fold's and dev's word column.
  const cut = wordsOnly === true ? wordColumnOnly(c.cut) : c.cut;
  const features = await trainingFeatures(request, cut, c.scheme, c.resources);
  const featureSeconds = (performance.now() - started) / 1000;
  for (const note of features.notes) c.status(`${label}: ${note}`);
  c.status(`${label}: training on ${cut.sentences.length} sentences`);
  const trained = await trainerOf(c, features, training).train(cut, iterationStatus(c, label));
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
      stopReason: stoppingText(trained),
      numFeatures: trained.numFeatures,
      modelBytes: scores.modelBytes,
    },
    heldOutStats: scores.heldOutStats,
    devStats: scores.devStats,
    notes: features.notes,
    chain: { model: trained.model, request, training, features, text, featureSeconds, seconds },
  };
}

/** The last chain row that ran, not a side row: what the next row builds on. */
function lastStep(runs: readonly RowRun[]): RowRun | undefined {
  return [...runs].reverse().find((r) => r.chain !== undefined && !SIDE_ROWS.has(r.row.row));
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
  // Uncapped, a task preset stops by its own rule (a held-out curve on a tuning fold of the cut);
  // a feature preset (chunking) has none, so CRFsuite's loss rule under 200 iterations.
  const maxIterations =
    options.maxIterations ?? (quick ? QUICK.maxIterations : task === undefined ? 200 : null);
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
    foldModels: new Map(),
  };
  const wanted = options.rows ?? ACCURACY_ROWS;
  const runs: RowRun[] = [];
  const skipped: { row: string; why: string }[] = [];
  const notes: string[] = [];
  let previousRequest = "";
  for (const row of ACCURACY_ROWS) {
    if (!wanted.includes(row)) continue;
    throwIfAborted(options.signal);
    if (row === "two-stage" || row === "general" || row === "document") {
      const lastRun = lastStep(runs);
      const last = lastRun?.chain;
      if (lastRun === undefined || last === undefined) {
        skipped.push({ row, why: "no chain row ran to build on" });
      } else if (row === "two-stage") {
        runs.push(await twoStageRow(c, lastRun.row.row, last));
      } else if (d.groups === null) {
        skipped.push({
          row,
          why: `${d.task} is not an entity task: no ${row === "general" ? "general CRF" : "document constraints"}`,
        });
      } else if (row === "document") {
        // Without document marks the recipe groups tweets as the general CRF does.
        runs.push(await documentRow(c, lastRun.row.row, last));
      } else if (d.groups === "documents" && !cut.sentences.some((s) => s.document !== undefined)) {
        skipped.push({ row, why: `${train.label} has no document marks to group by` });
      } else {
        runs.push(await generalRow(c, d.groups, lastRun.row.row, last));
      }
      continue;
    }
    const asked = await rowRequest(row, d, task, resources, options, cut);
    if ("why" in asked) {
      skipped.push({ row, why: asked.why });
      continue;
    }
    const key = JSON.stringify([asked.request, asked.training, asked.wordsOnly === true]);
    if (key === previousRequest) {
      skipped.push({ row, why: "same features as the row before" });
      continue;
    }
    previousRequest = key;
    const builtOn = lastStep(runs)?.row.row ?? null;
    runs.push(await chainRow(c, row, builtOn, asked));
  }
  const comparisons: PairedComparison[] = [];
  const byName = (name: AccuracyRowName | null) => runs.find((r) => r.row.row === name);
  // baseline → lexicons as before; each of issue 40's chain rows and each non-local row against
  // the row it builds on.
  const later = new Set<AccuracyRowName>([
    "bioes",
    "gazetteers",
    "context",
    "wide-clusters",
    "embeddings",
  ]);
  const pairs: [RowRun | undefined, RowRun | undefined][] = [
    [byName("baseline"), byName("lexicons")],
    // The preset as it ships against the one before issue 40's parts.
    [byName("lexicons"), byName("preset")],
    [byName("preset"), byName("elastic-net")],
    [byName("preset"), byName("words")],
    ...runs
      .filter((r) => r.chain === undefined || later.has(r.row.row))
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
      c1: c1Of(options),
      heldOut: `fold ${HELD_OUT_FOLD} of jackknifeFolds(train, ${HELD_OUT_FOLDS}) (whole documents; blocks of 20 sentences without document marks)`,
    },
    datasets,
    unavailable,
  };
}
