import { vi } from "vitest";
import { main } from "./main.js";

/** Runs the CLI in-process, capturing what it writes. Tests only. */
export async function run(
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const out = vi.spyOn(process.stdout, "write").mockImplementation((chunk: unknown) => {
    stdout += String(chunk);
    return true;
  });
  const err = vi.spyOn(process.stderr, "write").mockImplementation((chunk: unknown) => {
    stderr += String(chunk);
    return true;
  });
  try {
    const code = await main(args);
    return { code, stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

/** Predicted labels (last column) per sentence of a `lagrange tag` output. */
export function lastColumn(text: string): string[][] {
  const out: string[][] = [];
  let current: string[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") {
      if (current.length > 0) out.push(current);
      current = [];
      continue;
    }
    const fields = line.trim().split(/\s+/);
    current.push(fields[fields.length - 1]!);
  }
  if (current.length > 0) out.push(current);
  return out;
}
