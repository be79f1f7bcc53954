import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { writeFileAtomic } from "@lagrange/core/node";

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
