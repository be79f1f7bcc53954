/**
 * From what a user asked for (a preset or task preset, a CRF++ template, a column layout, cluster
 * and lexicon files) to the features a CRF trains on: the one path behind `lagrange train` and the
 * accuracy bench. Node only (resources are files).
 */
import {
  type ClusterResource,
  type FeatureSpec,
  getPreset,
  type LexiconResource,
} from "@lagrange/chain-crf";
import { LagrangeError } from "@lagrange/core";
import {
  type Corpus,
  getDataset,
  inputRows,
  type LabelScheme,
  tokenPlace,
} from "@lagrange/datasets";
import { getTaskPreset, isTaskPreset } from "../preset-names.js";
import { definedFields } from "../training/defined-fields.js";
import { MINED_PREFIX } from "./mined-lexicons.js";
import { lexiconFile, loadTaskResources, readClusterFile } from "./resources.js";
import {
  type ResourceOptions,
  resolveTaskPreset,
  type TaskParts,
  type TaskPreset,
} from "./task-presets.js";

/** The parts a `use` switches, as given. */
const pick = (use: NonNullable<FeatureRequest["use"]>) => ({
  largeGazetteers: use.largeGazetteers,
  context: use.context,
  wideClusters: use.wideClusters,
  embeddings: use.embeddings,
});

export interface FeatureRequest {
  /** A feature preset (`ner`, `pos`, …) or a task preset (`ner-en`, …). */
  readonly preset?: string;
  /** A CRF++ template instead of a preset. */
  readonly template?: { readonly text: string; readonly source: string };
  /** Names of the data's input columns, left to right (default: the registry's, or by count). */
  readonly columns?: readonly string[];
  /** Liang `paths` files to add as cluster features. */
  readonly clusterFiles?: readonly string[];
  /** `--lexicon NAME=FILE` files. */
  readonly lexiconFiles?: readonly { readonly name: string; readonly file: string }[];
  /**
   * A task preset's parts switched from its own choice (`TaskPreset.on`), to measure what each is
   * worth (the accuracy bench's rows) or to choose otherwise: `clusters`, `gazetteers` or `mined`
   * set to false leaves that resource out; `largeGazetteers`, `context`, `wideClusters` and
   * `embeddings` set either way switch that part on or off.
   */
  readonly use?: {
    readonly clusters?: boolean;
    readonly gazetteers?: boolean;
    readonly mined?: boolean;
  } & Partial<Omit<TaskParts, "internalScheme">>;
  /**
   * Jackknife folds of a task preset's mined lexicons instead of the preset's own: a two-stage
   * model's first stage is jackknifed over the same folds, so that a fold is tagged with lexicons
   * mined without it.
   */
  readonly folds?: number;
  /**
   * Dense input columns (0-based indices among a CoNLL file's input columns, not the word's 0):
   * each cell a number, added as the real-valued attribute `dense[c+1]` beside the preset's or
   * template's attributes, which read the other columns (`columns` names those alone).
   */
  readonly denseColumns?: readonly number[];
}

export interface TrainingFeatures {
  /** What the model records as its preset (the base preset's name, or `template`). */
  readonly preset: string;
  /** Undefined where a named preset alone is asked for (the model records the name only). */
  readonly features?: FeatureSpec;
  readonly jackknife?: { readonly fold: Int32Array; readonly specs: readonly FeatureSpec[] };
  /** The task preset, whose training settings and decoder apply unless the user gave others. */
  readonly task?: TaskPreset;
  /** What was found or built, for the user (one line each). */
  readonly notes: readonly string[];
}

/** Layouts by number of input columns, for files whose columns nobody named. */
const LAYOUTS_BY_COUNT: readonly (readonly string[])[] = [
  [],
  ["word"],
  ["word", "pos"],
  ["word", "pos", "chunk"],
];

/**
 * The names of a corpus's input columns: as given, the registry's (its columns but the label),
 * or by count (1: word; 2: word, pos; 3: word, pos, chunk; more: column4, …).
 */
export function inputColumnNames(
  corpus: Corpus,
  given?: readonly string[],
  dense = 0,
): readonly string[] {
  const first = corpus.sentences[0];
  const count = Math.max(0, (first === undefined ? 0 : (inputRows(first)[0]?.length ?? 0)) - dense);
  if (given !== undefined) {
    if (count > 0 && given.length !== count) {
      throw new LagrangeError(
        "usage",
        `--columns names ${given.length} column(s) (${given.join(", ")}), but ${corpus.label} has ${count} input column(s) before the label${dense > 0 ? ` besides its ${dense} dense column(s)` : ""}`,
      );
    }
    return given;
  }
  if (corpus.format === "conllu" || corpus.format === "umass" || corpus.format === "inline") {
    return ["word"];
  }
  if (corpus.dataset !== undefined) {
    const options = getDataset(corpus.dataset).formatOptions;
    const names = (options.columns ?? []).filter((c) => c !== options.labelColumn);
    if (names.length === count) return names;
  }
  const names = [...(LAYOUTS_BY_COUNT[Math.min(count, 3)] ?? [])];
  for (let c = names.length; c < count; c++) names.push(`column${c + 1}`);
  return names;
}

/**
 * The features of a training run: a named preset alone stays a name; a task preset loads (or
 * builds) its resources and mines its lexicons; a template, cluster files and lexicon files make a
 * spec of their own.
 */
export async function trainingFeatures(
  request: FeatureRequest,
  corpus: Corpus,
  scheme: LabelScheme,
  options: ResourceOptions = {},
): Promise<TrainingFeatures> {
  const dense = request.denseColumns;
  if (dense === undefined || dense.length === 0) {
    return sparseTrainingFeatures(request, corpus, scheme, options);
  }
  checkDenseColumns(corpus, dense);
  const resolved = await sparseTrainingFeatures(request, corpus, scheme, options, dense.length);
  const withDense = (spec: FeatureSpec | undefined): FeatureSpec => ({
    ...(spec ?? { base: resolved.preset }),
    dense: { columns: [...dense] },
  });
  return {
    ...resolved,
    features: withDense(resolved.features),
    ...(resolved.jackknife === undefined
      ? {}
      : {
          jackknife: {
            fold: resolved.jackknife.fold,
            specs: resolved.jackknife.specs.map(withDense),
          },
        }),
    notes: [
      ...resolved.notes,
      `dense columns ${describeDense(dense)}: ${dense.length} real-valued attributes per token`,
    ],
  };
}

/** Dense columns are CoNLL columns, distinct, after the word and before the gold label. */
function checkDenseColumns(corpus: Corpus, dense: readonly number[]): void {
  if (corpus.format !== "conll") {
    throw new LagrangeError(
      "usage",
      `dense columns are columns of CoNLL data; ${corpus.label} is read as ${corpus.format}, whose model input is the word alone`,
    );
  }
  if (new Set(dense).size !== dense.length || dense.some((c) => !Number.isInteger(c) || c < 1)) {
    throw new LagrangeError(
      "usage",
      `dense columns ${dense.map((c) => c + 1).join(",")}: expected distinct columns after the word (column 1)`,
    );
  }
  const first = corpus.sentences[0];
  const width = first === undefined ? 0 : (inputRows(first)[0]?.length ?? 0);
  const widest = Math.max(...dense);
  if (first !== undefined && widest >= width) {
    throw new LagrangeError(
      "usage",
      `dense column ${widest + 1}: ${corpus.label} has ${width} input column(s) before the gold label (${tokenPlace(first, 0)})`,
    );
  }
}

const describeDense = (dense: readonly number[]) =>
  dense.length === 1
    ? `${dense[0]! + 1}`
    : dense.every((c, i) => i === 0 || c === dense[i - 1]! + 1)
      ? `${dense[0]! + 1}-${dense[dense.length - 1]! + 1}`
      : dense.map((c) => c + 1).join(",");

/**
 * The task preset `name` as a run uses it: the parts `use` switches on or off, its gazetteers
 * with the large ones where they are on, and `folds` for its mined lexicons where given.
 */
export function taskPresetAsUsed(
  name: string,
  use: FeatureRequest["use"] = {},
  folds?: number,
): TaskPreset {
  const full = getTaskPreset(name);
  const on = { ...full.on, ...definedFields(pick(use)) };
  return {
    ...full,
    on,
    ...(use.clusters === false ? { clusters: null } : {}),
    gazetteers:
      use.gazetteers === false
        ? []
        : on.largeGazetteers
          ? [...full.gazetteers, ...full.largeGazetteers]
          : full.gazetteers,
    ...(use.mined === false ? { mined: false } : {}),
    wideClusters: on.wideClusters ? full.wideClusters : [],
    embeddings: on.embeddings ? full.embeddings : [],
    ...(folds === undefined ? {} : { folds }),
  };
}

async function sparseTrainingFeatures(
  request: FeatureRequest,
  corpus: Corpus,
  scheme: LabelScheme,
  options: ResourceOptions,
  dense = 0,
): Promise<TrainingFeatures> {
  const notes: string[] = [];
  const columns = inputColumnNames(corpus, request.columns, dense);
  const extraLexicons: LexiconResource[] = [];
  for (const { name, file } of request.lexiconFiles ?? []) {
    const lexicon = await lexiconFile(name, file, options.signal);
    notes.push(`lexicon ${name}: ${lexicon.entries.length} entries from ${file}`);
    extraLexicons.push(lexicon);
  }
  const extraClusters: ClusterResource[] = [];
  for (const [k, file] of (request.clusterFiles ?? []).entries()) {
    const loaded = await readClusterFile(file, options.signal);
    notes.push(`clusters: ${loaded.words.length} words from ${file}`);
    extraClusters.push({
      name: k === 0 ? "clusters" : `clusters${k + 1}`,
      words: loaded.words,
      paths: loaded.paths,
    });
  }
  if (request.template !== undefined) {
    return {
      preset: "template",
      features: {
        base: "template",
        template: request.template,
        columns,
        clusters: extraClusters,
        lexicons: extraLexicons,
      },
      notes,
    };
  }
  const name = request.preset;
  if (name === undefined) {
    throw new LagrangeError("usage", "give --preset (a feature or task preset) or --template");
  }
  if (isTaskPreset(name)) {
    const task = taskPresetAsUsed(name, request.use, request.folds);
    const resources = await loadTaskResources(task, options);
    for (const c of resources.clusters) {
      notes.push(
        c.built
          ? `clusters: built ${c.words.length} words in ${c.seconds.toFixed(0)} s, cached in ${c.file}`
          : `clusters: ${c.words.length} words from ${c.file}`,
      );
    }
    const e = resources.embeddingFile;
    if (e !== undefined) {
      notes.push(
        e.built
          ? `embedding clusters (k = ${e.sizes.join(", ")}): built ${e.words.length} words in ${e.seconds.toFixed(0)} s, cached in ${e.file}`
          : `embedding clusters (k = ${e.sizes.join(", ")}): ${e.words.length} words from ${e.file}`,
      );
    }
    if (resources.gazetteers.length > 0) {
      notes.push(
        `gazetteers: ${resources.gazetteers.map((g) => `${g.name} (${g.entries.length})`).join(", ")}`,
      );
    }
    const resolved = resolveTaskPreset(
      task,
      {
        clusters: resources.clusters,
        ...(resources.embeddings === undefined ? {} : { embeddings: resources.embeddings }),
        gazetteers: [...resources.gazetteers, ...extraLexicons],
      },
      { sentences: corpus.sentences, columns, scheme },
    );
    const withFiles = (spec: FeatureSpec): FeatureSpec =>
      extraClusters.length === 0
        ? spec
        : { ...spec, clusters: [...(spec.clusters ?? []), ...extraClusters] };
    const mined = (resolved.features.lexicons ?? []).filter((l) => l.name.startsWith(MINED_PREFIX));
    if (mined.length > 0) {
      notes.push(
        `mined lexicons: ${mined.map((l) => `${l.name} (${l.entries.length})`).join(", ")}; jackknifed over ${task.folds} folds in training`,
      );
    }
    return {
      preset: task.base,
      features: withFiles(resolved.features),
      ...(resolved.jackknife === undefined
        ? {}
        : {
            jackknife: {
              fold: resolved.jackknife.fold,
              specs: resolved.jackknife.specs.map(withFiles),
            },
          }),
      task,
      notes,
    };
  }
  getPreset(name);
  // The ner preset reads the layout's pos and chunk columns by name (CoNLL-2002 has no chunk).
  const otherLayout = name === "ner" && columns.join(",") !== "word,pos,chunk";
  const needsSpec = extraClusters.length > 0 || extraLexicons.length > 0 || otherLayout;
  if (!needsSpec) return { preset: name, notes };
  return {
    preset: name,
    features: { base: name, columns, clusters: extraClusters, lexicons: extraLexicons },
    notes,
  };
}
