import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findMirrorDir } from "@lagrange/datasets/node";
import { expect, vi } from "vitest";
import { main } from "../main.js";

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

const mirror = findMirrorDir();
const conll2000Train = mirror === undefined ? undefined : join(mirror, "conll2000", "train.txt");
/** CoNLL-2000's training file in the dataset mirror, or undefined where the mirror lacks it. */
export const CONLL2000_TRAIN =
  conll2000Train !== undefined && existsSync(conll2000Train) ? conll2000Train : undefined;

/** A small chunker trained in a fresh temporary folder, and the sentences it did not see. */
export interface Conll2000Chunker {
  readonly dir: string;
  readonly model: string;
  readonly data: string;
}

/**
 * Trains a chunker through the CLI on CoNLL-2000's first `trainSentences` sentences (`--preset
 * chunking` plus `trainArgs`) and writes the next `testSentences` to `data`. Needs
 * {@link CONLL2000_TRAIN}.
 */
export async function trainConll2000Chunker(options: {
  readonly prefix: string;
  readonly trainSentences: number;
  readonly testSentences: number;
  readonly trainArgs: readonly string[];
}): Promise<Conll2000Chunker> {
  if (CONLL2000_TRAIN === undefined) throw new Error("no conll2000 in the dataset mirror");
  const dir = await mkdtemp(join(tmpdir(), options.prefix));
  const sentences = readFileSync(CONLL2000_TRAIN, "utf8").split(/\n\s*\n/);
  const { trainSentences: n, testSentences: m } = options;
  await writeFile(join(dir, "train.conll"), `${sentences.slice(0, n).join("\n\n")}\n\n`);
  const data = join(dir, "test.conll");
  await writeFile(data, `${sentences.slice(n, n + m).join("\n\n")}\n\n`);
  const model = join(dir, "chunk.lgm");
  const trained = await run([
    "train",
    "--data",
    join(dir, "train.conll"),
    "--preset",
    "chunking",
    ...options.trainArgs,
    "--out",
    model,
  ]);
  expect(trained.code, trained.stderr).toBe(0);
  return { dir, model, data };
}
