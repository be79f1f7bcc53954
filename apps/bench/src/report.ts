import { mkdir } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { writeFileAtomic } from "@lagrange/core/node";
import type { DecoderTiming } from "@lagrange/recipes";

export type Cell = string | number;

/** The repository's root (this file is apps/bench/src/report.ts). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
/** Where suites keep trained models and compiled drivers between runs. */
export const BENCH_CACHE_DIR = join(REPO_ROOT, ".lagrange-cache", "bench");

/** A suite's result: its recipe's, tagged with the suite and the Node version that ran it. */
export type SuiteResult<Suite extends string, Result> = Result & {
  readonly suite: Suite;
  readonly node: string;
};

/**
 * Runs a recipe's benchmark for a suite, caching trained models under {@link BENCH_CACHE_DIR}
 * unless the options name another folder.
 */
export async function runCachedSuite<
  Suite extends string,
  Options extends { readonly cacheDir?: string },
  Result extends object,
>(
  suite: Suite,
  benchmark: (options: Options) => Promise<Result>,
  options: Options,
): Promise<SuiteResult<Suite, Result>> {
  const result = await benchmark({ ...options, cacheDir: options.cacheDir ?? BENCH_CACHE_DIR });
  return { suite, node: process.version, ...result };
}

/** A report's line naming what could not be reached (each entry `name (reason)`), or none. */
export function skippedLines(skipped: readonly string[]): string[] {
  return skipped.length === 0 ? [] : [`Not reachable, skipped: ${skipped.join("; ")}.`, ""];
}

/** A Markdown table; numbers are printed with the given digits. */
export function markdownTable(
  header: readonly string[],
  rows: readonly (readonly Cell[])[],
  digits = 2,
): string {
  const cell = (c: Cell) =>
    typeof c === "number" ? (Number.isInteger(c) ? String(c) : c.toFixed(digits)) : c;
  const lines = [
    `| ${header.join(" | ")} |`,
    `|${header.map(() => "---").join("|")}|`,
    ...rows.map((r) => `| ${r.map(cell).join(" | ")} |`),
  ];
  return `${lines.join("\n")}\n`;
}

/** Writes a report with core's atomic writer, creating its folder. */
export async function writeReport(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFileAtomic(path, text);
}

/** The timing harness's medians as a table: tagging and decoding time, each against Viterbi's. */
export function timingTable(timing: readonly DecoderTiming[]): string {
  return markdownTable(
    ["decoder", "tagging ms", "× Viterbi", "decoding ms", "× Viterbi"],
    timing.map((t) => [
      t.decoder,
      t.taggingMs,
      `${t.taggingRatio.toFixed(2)}×`,
      t.decodingMs,
      `${t.decodingRatio.toFixed(2)}×`,
    ]),
  );
}

/** A suite's targets against what it measured (`met` null: the measurement was not run). */
export function targetsTable(
  targets: readonly {
    readonly name: string;
    readonly value: string;
    readonly met: boolean | null;
  }[],
): string {
  return markdownTable(
    ["target", "measured", "met"],
    targets.map((t) => [t.name, t.value, t.met === null ? "not run" : t.met ? "yes" : "no"]),
  );
}
