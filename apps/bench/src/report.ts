import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { writeFileAtomic } from "@lagrange/core/node";
import type { DecoderTiming } from "@lagrange/recipes";

export type Cell = string | number;

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
