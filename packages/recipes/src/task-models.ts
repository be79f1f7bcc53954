/**
 * Task models (`lagrange models`): each task preset trained on the registry split it was chosen
 * on, written to a models folder with a provenance record beside it (`<model>.provenance.json`:
 * the data, the preset and its resources with their SHA-256, the options, the version, the
 * model's own SHA-256), and listed with a check that each model is still the file its record
 * describes. The model's own settings already carry its features and stopping rule; the record
 * holds what a file cannot say about itself: its checksum, and where its inputs came from. Node only.
 */
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { type JsonValue, LagrangeError } from "@lagrange/core";
import { writeFileAtomic } from "@lagrange/core/node";
import { cacheDir, resolveSplit, sha256File } from "@lagrange/datasets/node";
import { isTaskPreset } from "./preset-names.js";
import { taskResourceSources } from "./task-presets/resources.js";
import { TASK_PRESETS, type TaskPreset } from "./task-presets/task-presets.js";
import { taskPresetAsUsed } from "./task-presets/training-features.js";
import { definedFields } from "./training/defined-fields.js";

export const MODEL_EXTENSION = ".lgm";
export const PROVENANCE_SUFFIX = ".provenance.json";

/** The models folder: `models` in the cache folder (LAGRANGE_CACHE_DIR, else ~/.cache/lagrange). */
export function modelsDir(): string {
  return join(cacheDir(), "models");
}

/** The file recording where `model` came from. */
export function provenanceFileOf(model: string): string {
  return `${model}${PROVENANCE_SUFFIX}`;
}

/** What building a task's model trains and writes. */
export interface TaskModelPlan {
  /** The task preset, with the parts it ships with. */
  readonly task: TaskPreset;
  /** Its training data, `dataset:split` (`TaskPreset.data`). */
  readonly data: string;
  /** The model file to write. */
  readonly out: string;
}

/** `task`'s plan; an unknown task is a usage error listing the known ones. */
export function taskModelPlan(task: string, out?: string): TaskModelPlan {
  if (!isTaskPreset(task)) {
    throw new LagrangeError(
      "usage",
      `unknown task "${task}"; the tasks are ${TASK_PRESETS.map((p) => p.name).join(", ")}`,
    );
  }
  const preset = taskPresetAsUsed(task);
  return {
    task: preset,
    data: preset.data,
    out: out ?? join(modelsDir(), `${task}${MODEL_EXTENSION}`),
  };
}

export interface FileRecord {
  readonly file: string;
  readonly bytes: number;
  readonly sha256: string;
}

export interface TaskModelProvenance {
  readonly task: string;
  /** The task preset's parts as trained (`TaskPreset.on`). */
  readonly preset: { readonly name: string; readonly parts: { readonly [part: string]: boolean } };
  readonly data: { readonly spec: string; readonly files: readonly FileRecord[] };
  readonly resources: readonly {
    readonly kind: string;
    readonly name: string;
    readonly file?: FileRecord;
    /** A resource that is no file: the npm packages it is built from. */
    readonly packages?: readonly string[];
  }[];
  /** The options the build was given (`wordsOnly`, `threads`, `c1`, …), as given. */
  readonly options: { readonly [key: string]: JsonValue };
  readonly lagrange: string;
  /** When the model was written (ISO 8601). */
  readonly date: string;
  readonly trainingSeconds: number;
  readonly model: FileRecord;
}

export interface TaskModelRequest<T> {
  readonly task: string;
  /** The model file; default `<models folder>/<task>.lgm` (the folder made where missing). */
  readonly out?: string;
  /** The resources folder the training reads (`--resources`). */
  readonly resourcesDir?: string;
  /** What the build was asked for beyond the task, recorded as given. */
  readonly options?: { readonly [key: string]: JsonValue };
  /** The version of Lagrange that builds it. */
  readonly version: string;
  readonly signal?: AbortSignal;
  /**
   * Trains the model exactly as `lagrange train --data <plan.data> --preset <plan.task.name>` does,
   * and writes it to `plan.out` atomically; what it returns is handed back.
   */
  readonly train: (plan: TaskModelPlan) => Promise<T>;
}

export interface BuiltTaskModel<T> {
  readonly plan: TaskModelPlan;
  readonly provenance: TaskModelProvenance;
  readonly provenanceFile: string;
  readonly trained: T;
}

/**
 * Builds `task`'s model: its training data is found first (an unreachable split fails before any
 * training, naming where to put it), then `train` writes the model, and the provenance record is
 * written beside it, atomically. A build stopped or failed leaves the previous model and its record
 * as they were.
 */
export async function buildTaskModel<T>(request: TaskModelRequest<T>): Promise<BuiltTaskModel<T>> {
  const { signal } = request;
  const plan = taskModelPlan(request.task, request.out);
  const dataFile = await splitFile(plan.data, signal);
  if (request.out === undefined) mkdirSync(dirname(plan.out), { recursive: true });
  const started = performance.now();
  const trained = await request.train(plan);
  const trainingSeconds = Math.round((performance.now() - started) / 100) / 10;
  const resources = [];
  for (const source of taskResourceSources(
    plan.task,
    definedFields({ resourcesDir: request.resourcesDir }),
  )) {
    resources.push({
      kind: source.kind,
      name: source.name,
      ...(source.file === undefined ? {} : { file: await fileRecord(source.file, signal) }),
      ...definedFields({ packages: source.packages }),
    });
  }
  const provenance: TaskModelProvenance = {
    task: plan.task.name,
    preset: { name: plan.task.name, parts: { ...plan.task.on } },
    data: { spec: plan.data, files: [await fileRecord(dataFile, signal)] },
    resources,
    options: request.options ?? {},
    lagrange: request.version,
    date: new Date().toISOString(),
    trainingSeconds,
    model: await fileRecord(plan.out, signal),
  };
  const provenanceFile = provenanceFileOf(plan.out);
  await writeFileAtomic(
    provenanceFile,
    `${JSON.stringify(provenance, null, 2)}\n`,
    definedFields({ signal }),
  );
  return { plan, provenance, provenanceFile, trained };
}

/** The file of a registry split (`dataset:split`), fetched into the cache where it must be. */
async function splitFile(spec: string, signal: AbortSignal | undefined): Promise<string> {
  const [dataset = spec, split = "train"] = spec.split(":");
  const found = await resolveSplit(dataset, split, definedFields({ signal }));
  if (found.status !== "available") throw new LagrangeError("unavailable", found.message);
  return found.path;
}

async function fileRecord(file: string, signal: AbortSignal | undefined): Promise<FileRecord> {
  const { size } = await stat(file);
  return { file, bytes: size, sha256: await sha256File(file, signal) };
}

/**
 * A model of the folder: `ok` (its SHA-256 is the record's), `changed` (it is not: the file was
 * replaced or altered since it was built, and the record no longer describes it), `no-provenance`
 * (no record, or one that cannot be read), `missing` (a record whose model is gone).
 */
export type TaskModelStatus = "ok" | "changed" | "no-provenance" | "missing";

export interface ListedTaskModel {
  readonly file: string;
  readonly status: TaskModelStatus;
  /** The record's task, else the file's name without `.lgm`. */
  readonly task: string;
  /** The file's size now (0 when missing). */
  readonly bytes: number;
  /** The record's date, else the file's modification time. */
  readonly date: string;
  /** The record's `dataset:split`, else null. */
  readonly data: string | null;
  readonly provenance: TaskModelProvenance | null;
}

/** Every model (`*.lgm`) and provenance record of `dir`, checked; none where `dir` is missing. */
export async function listTaskModels(
  dir: string = modelsDir(),
  signal?: AbortSignal,
): Promise<ListedTaskModel[]> {
  if (!existsSync(dir)) return [];
  const names = readdirSync(dir);
  const models = new Set(names.filter((n) => n.endsWith(MODEL_EXTENSION)));
  for (const name of names) {
    if (name.endsWith(PROVENANCE_SUFFIX)) models.add(name.slice(0, -PROVENANCE_SUFFIX.length));
  }
  const listed: ListedTaskModel[] = [];
  for (const name of [...models].sort()) {
    listed.push(await listedModel(join(dir, name), signal));
  }
  return listed;
}

async function listedModel(
  file: string,
  signal: AbortSignal | undefined,
): Promise<ListedTaskModel> {
  const provenance = await readProvenance(provenanceFileOf(file));
  const task = provenance?.task ?? basename(file, MODEL_EXTENSION);
  const data = provenance?.data.spec ?? null;
  if (!existsSync(file)) {
    return {
      file,
      status: "missing",
      task,
      bytes: 0,
      date: provenance?.date ?? "",
      data,
      provenance,
    };
  }
  const { size, mtime } = await stat(file);
  const status: TaskModelStatus =
    provenance === null
      ? "no-provenance"
      : size === provenance.model.bytes &&
          (await sha256File(file, signal)) === provenance.model.sha256
        ? "ok"
        : "changed";
  return {
    file,
    status,
    task,
    bytes: size,
    date: provenance?.date ?? mtime.toISOString(),
    data,
    provenance,
  };
}

/** A provenance record, or null where there is none or it is not one (never trusted half-read). */
async function readProvenance(file: string): Promise<TaskModelProvenance | null> {
  if (!existsSync(file)) return null;
  try {
    const record = JSON.parse(await readFile(file, "utf8")) as Partial<TaskModelProvenance>;
    const ok =
      typeof record.task === "string" &&
      typeof record.date === "string" &&
      typeof record.data?.spec === "string" &&
      typeof record.model?.sha256 === "string" &&
      typeof record.model.bytes === "number";
    return ok ? (record as TaskModelProvenance) : null;
  } catch {
    return null;
  }
}
