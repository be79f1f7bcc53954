import { presets } from "@lagrange/chain-crf";
import { LagrangeError } from "@lagrange/core";
import { TASK_PRESETS, type TaskPreset } from "./task-presets/task-presets.js";

/**
 * Every name `--preset` takes: the feature presets, then (unless `task` is false) the task
 * presets that bundle one with resources.
 */
export function presetNames(task = true): { readonly base: string[]; readonly task: string[] } {
  return { base: Object.keys(presets), task: task ? TASK_PRESETS.map((p) => p.name) : [] };
}

/**
 * A usage error for a preset name that is neither kind: both lists, and the nearest name when a
 * typo is likely (`ner_en` → `ner-en`).
 */
export function unknownPresetError(name: string, task = true): LagrangeError {
  const known = presetNames(task);
  const nearest = nearestName(name, [...known.base, ...known.task]);
  return new LagrangeError(
    "usage",
    `unknown preset ${JSON.stringify(name)}${nearest === undefined ? "" : ` (did you mean ${nearest}?)`}; feature presets: ${known.base.join(", ")}${known.task.length === 0 ? "" : `; task presets: ${known.task.join(", ")}`}`,
  );
}

/** Whether `name` is a task preset rather than a chain-crf feature preset. */
export function isTaskPreset(name: string): boolean {
  return TASK_PRESETS.some((p) => p.name === name);
}

/** The task preset called `name`; any other name is refused with the same message as `--preset`'s. */
export function getTaskPreset(name: string): TaskPreset {
  const found = TASK_PRESETS.find((p) => p.name === name);
  if (found !== undefined) return found;
  if (Object.hasOwn(presets, name)) {
    throw new LagrangeError(
      "usage",
      `${JSON.stringify(name)} is a feature preset, not a task preset; task presets: ${presetNames().task.join(", ")}`,
    );
  }
  throw unknownPresetError(name);
}

/** Refuses a name that is no preset of either kind (only feature presets when `task` is false). */
export function checkPresetName(name: string, task = true): void {
  const known = presetNames(task);
  if (!known.base.includes(name) && !known.task.includes(name)) {
    throw unknownPresetError(name, task);
  }
}

/** The candidate closest to `name` by edit distance, when within a third of its length (≥ 1). */
export function nearestName(name: string, candidates: readonly string[]): string | undefined {
  const limit = Math.max(1, Math.floor(name.length / 3));
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const candidate of candidates) {
    const d = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

/** Levenshtein distance (insertions, deletions, substitutions), one row at a time. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitute = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      row.push(Math.min(previous[j]! + 1, row[j - 1]! + 1, substitute));
    }
    previous = row;
  }
  return previous[b.length]!;
}
