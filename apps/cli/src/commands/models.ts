import type { JsonValue } from "@lagrange/core";
import {
  buildTaskModel,
  definedFields,
  type ListedTaskModel,
  listTaskModels,
  modelsDir,
  type TaskModelStatus,
} from "@lagrange/recipes";
import { Command } from "commander";
import { defineTrain } from "../define/train.js";
import type { TrainOptions } from "../define/train-values.js";
import { interruptible } from "../interruption.js";
import { givenOptions } from "../options.js";
import { version } from "../version.js";
import { trainCommand } from "./train.js";

/** `lagrange models build`'s options: `--out`, and the train flags it passes on. */
export type ModelsBuildOptions = { readonly out?: string } & Pick<
  TrainOptions,
  | "wordsOnly"
  | "documentConstraints"
  | "threads"
  | "c1"
  | "c2"
  | "maxIterations"
  | "delta"
  | "resources"
>;

/**
 * `lagrange models build <task>`: trains through `lagrange train`'s own pipeline (its defaults,
 * checks, progress and atomic output) and returns its summary line and the provenance file's.
 */
export async function modelsBuildCommand(
  task: string,
  options: ModelsBuildOptions,
  signal?: AbortSignal,
  given: ReadonlySet<string> = new Set(),
): Promise<string> {
  const { out, ...flags } = options;
  const built = await buildTaskModel({
    task,
    ...definedFields({ out, resourcesDir: options.resources, signal }),
    options: recorded(flags),
    version: version(),
    train: (plan) =>
      trainCommand(
        { ...trainDefaults(), ...flags, data: plan.data, preset: plan.task.name, out: plan.out },
        signal,
        given,
      ),
  });
  return `${built.trained}provenance: ${built.provenanceFile}\n`;
}

/** The options as the provenance records them: the flags given, by their option names. */
function recorded(flags: Omit<ModelsBuildOptions, "out">): {
  [key: string]: JsonValue;
} {
  return Object.fromEntries(Object.entries(flags).filter(([, value]) => value !== undefined));
}

/**
 * `lagrange train`'s defaults, read off its own declaration so that a build trains as
 * `train --data … --preset …` does with nothing else given.
 */
function trainDefaults(): Omit<TrainOptions, "data" | "out"> {
  const program = new Command();
  defineTrain(program);
  const train = program.commands.find((c) => c.name() === "train");
  const defaults = Object.fromEntries(
    (train?.options ?? [])
      .filter((o) => o.defaultValue !== undefined)
      .map((o) => [o.attributeName(), o.defaultValue as unknown]),
  );
  return defaults as unknown as Omit<TrainOptions, "data" | "out">;
}

const STATUS: Readonly<Record<TaskModelStatus, string>> = {
  ok: "ok",
  changed: "CHANGED since built: SHA-256 differs from its provenance",
  "no-provenance": "no provenance",
  missing: "missing (provenance only)",
};

/** `lagrange models list`: a table, or NDJSON (one model a line, its provenance included). */
export async function modelsListCommand(
  options: { readonly dir?: string; readonly json?: boolean },
  signal?: AbortSignal,
): Promise<string> {
  const dir = options.dir ?? modelsDir();
  const listed = await listTaskModels(dir, signal);
  if (options.json === true) return listed.map((m) => `${JSON.stringify(m)}\n`).join("");
  if (listed.length === 0) {
    return `no models built in ${dir}; build one with: lagrange models build ner-en${options.dir === undefined ? "" : ` --out ${dir}/ner-en.lgm`}\n`;
  }
  return table(listed);
}

function table(listed: readonly ListedTaskModel[]): string {
  const rows = [
    ["task", "file", "size", "date", "data", "sha-256"],
    ...listed.map((m) => [
      m.task,
      m.file,
      m.status === "missing" ? "-" : megabytes(m.bytes),
      m.date.slice(0, 16).replace("T", " "),
      m.data ?? "-",
      STATUS[m.status],
    ]),
  ];
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  return rows
    .map((r) =>
      r
        .map((cell, c) => (c === r.length - 1 ? cell : cell.padEnd(widths[c]!)))
        .join("  ")
        .trimEnd(),
    )
    .map((line) => `${line}\n`)
    .join("");
}

const megabytes = (bytes: number) =>
  bytes >= 1e6 ? `${(bytes / 1e6).toFixed(1)} MB` : `${(bytes / 1e3).toFixed(1)} kB`;

/** What `lagrange models build` does (its options are declared in ../define/models.ts). */
export async function modelsBuildAction(
  task: string,
  opts: ModelsBuildOptions,
  command: Command,
): Promise<void> {
  const given = givenOptions(command);
  process.stdout.write(
    await interruptible((signal) => modelsBuildCommand(task, opts, signal, given)),
  );
}

/** What `lagrange models list` does. */
export async function modelsListAction(opts: {
  readonly dir?: string;
  readonly json?: boolean;
}): Promise<void> {
  process.stdout.write(await interruptible((signal) => modelsListCommand(opts, signal)));
}
